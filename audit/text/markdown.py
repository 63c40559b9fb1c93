"""The block structure of a Markdown chapter, read with markdown-it-py: CommonMark with tables, LaTeX math
(``$…$``, ``$$…$$``, ``\\begin{align}``), MyST (``:::{note}`` fences, ``(label)=`` targets, ``%`` comments,
``{code-cell}`` fences) and Quarto (``::: {.callout-note}``, ``{python}`` fences, ``$$ … $$ {#eq-x}``), and YAML
front matter.

The scanner (``audit.text.scan.units``) reads a Markdown chapter's lines as written, so quotes, lines and patches
point into the manuscript; this module tells it which lines are not prose (front matter, HTML blocks and comments,
MyST targets and comments, the fence lines of a ``:::`` container, whose inside is prose) and where each display
formula is, so a formula is read as one unit (``formula``) and a formula that states a convention is seen as one.
Parsers: markdown-it-py (https://markdown-it-py.readthedocs.io), mdit-py-plugins (front_matter, dollarmath,
amsmath, colon_fence, myst_blocks).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

#: File names read as Markdown: CommonMark, MyST, Quarto, R Markdown.
SUFFIXES = (".md", ".markdown", ".mdown", ".myst", ".qmd", ".rmd")
#: How a Markdown chapter is read, for the report's normalisation line.
MARKDOWN_READING = (
    "a Markdown file (CommonMark, MyST, Quarto) is read as written, so quotes, lines and the patch are the file's; "
    "the scanner reads its blocks with markdown-it-py: front matter, HTML blocks and comments, link reference "
    "definitions, MyST targets and comments and ':::' fence lines are not prose, and a display formula is one unit, "
    "read in its LaTeX and in plain notation; a quote printed only where no rendering shows it (a comment, a link "
    "definition) is not the chapter's sentence")
#: Tokens whose lines are not prose.
_NOT_PROSE = ("front_matter", "html_block", "myst_target", "myst_line_comment", "myst_block_break")
_QUARTO_EQUATION = re.compile(r"\$\$.+\$\$\s*\{#[\w:.-]+\}", re.DOTALL)
_MATH_FENCE = re.compile(r"\s*\{math\}|\s*math\s*$")
_FORMULAS = ("math_block", "math_block_label", "math_block_eqno", "amsmath")


@dataclass(frozen=True)
class Layout:
    """0-based line numbers: ``skip`` lines that hold no prose; ``formulas`` each display formula's (first, last)
    line (its ``$$`` lines included)."""

    skip: frozenset[int] = frozenset()
    formulas: tuple[tuple[int, int], ...] = field(default_factory=tuple)


def is_markdown(path) -> bool:
    """Whether a snapshot at ``path`` is read as Markdown (by its suffix, ``SUFFIXES``)."""
    return Path(str(path)).suffix.lower() in SUFFIXES


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.amsmath import amsmath_plugin
    from mdit_py_plugins.colon_fence import colon_fence_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.front_matter import front_matter_plugin
    from mdit_py_plugins.myst_blocks import myst_block_plugin

    return (MarkdownIt("commonmark").enable("table").use(front_matter_plugin)
            .use(dollarmath_plugin, allow_space=True, allow_digits=False, double_inline=True)
            .use(amsmath_plugin).use(colon_fence_plugin).use(myst_block_plugin))


@lru_cache(maxsize=8)
def _tokens(text: str) -> tuple:
    """``text``'s block tokens, parsed once for the readers of one text (the scanner's layout, the unseen spans, the
    patch's closed spans and block ends, its structure). Read only."""
    return tuple(_parser().parse(text))


#: A link reference definition (``[ref]: https://… "title"``, and the comment idiom ``[//]: # (…)``): CommonMark
#: renders nothing of it.
_DEFINITION = re.compile(r"^ {0,3}\[(?:[^\]\\\n]|\\.){1,999}\]:")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_CODE_TOKENS = ("fence", "code_block")
#: A Quarto or Pandoc div no format renders: ``::: {.content-hidden}`` (with no ``when-format``/``unless-format``,
#: which show it in some format) or ``::: {.hidden}``.
_HIDDEN_DIV = re.compile(r"^\s*\{(?![^}]*\b(?:when|unless)-(?:format|meta)\b)[^}]*\.(?:content-hidden|hidden)(?![\w-])[^}]*\}\s*$")
_HIDDEN_DIV_WHAT = "a div no format renders (.content-hidden, .hidden)"
#: An inline link's title (``[text](url "title")``): a tooltip, never part of the text a reader reads.
_LINK_TITLE = re.compile(r"\]\(\s*(?:<[^<>\n]*>|[^\s()]+)\s+(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))\s*\)")
#: LaTeX's ``\phantom{…}`` (and ``\hphantom``, ``\vphantom``): typeset as blank space of the size of what it holds.
_PHANTOM = re.compile(r"\\[hv]?phantom\s*\{")
#: Unseen spans that are whole lines of their own, which the scanner skips (an inline span's line is read still).
_WHOLE_LINES = ("a link reference definition", "a comment written as a link definition", "a MyST comment",
                _HIDDEN_DIV_WHAT)


@lru_cache(maxsize=8)
def unseen(text: str) -> tuple[tuple[int, int, str], ...]:
    """The spans of the Markdown ``text`` (offsets, end exclusive) that no rendering shows a reader, each with what
    it is: HTML comments (a block, or inline in a paragraph), link reference definitions (the ``[//]: # (…)``
    comment idiom among them), MyST ``%`` comments, raw HTML elements a browser does not render (``hidden``,
    ``style="display:none"``, a class the text's own ``<style>`` hides; in a Pandoc ``{=html}`` block too), a Quarto
    div no format renders (``.content-hidden``, ``.hidden``), an inline link's title (a tooltip) and LaTeX's
    ``\\phantom{…}``. Code blocks are left as printed. Read with
    markdown-it-py: a line no block token covers and a definition starts is a definition (markdown-it keeps those out
    of its tokens)."""
    starts = _line_offsets(text)

    def offset(line: int) -> int:
        return starts[line] if line < len(starts) else len(text)

    covered: set[int] = set()
    code: list[tuple[int, int]] = []
    out: list[tuple[int, int, str]] = []
    for token in _tokens(text):
        if not token.map:
            continue
        first, end = token.map
        covered.update(range(first, end))
        if token.type in _CODE_TOKENS and (token.info or "").strip() != "{=html}":  # a raw HTML block is HTML
            code.append((offset(first), offset(end)))
        elif token.type == "colon_fence" and _HIDDEN_DIV.match(token.info or ""):
            out.append((offset(first), offset(end), _HIDDEN_DIV_WHAT))
        elif token.type == "myst_line_comment":
            out.append((offset(first), offset(end), "a MyST comment"))
        elif token.type == "html_block" and token.content.lstrip().startswith("<!--"):
            out.append((offset(first), offset(end), "an HTML comment"))
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if i not in covered and _DEFINITION.match(lines[i]):
            j = i + 1
            while j < len(lines) and j not in covered and lines[j].strip() and not _DEFINITION.match(lines[j]):
                j += 1  # a title on the next line
            what = "a comment written as a link definition" if lines[i].lstrip().startswith("[//]") else \
                "a link reference definition"
            out.append((offset(i), offset(j), what))
            i = j
        else:
            i += 1
    for m in _COMMENT.finditer(text):
        if not any(a <= m.start() < b for a, b in code) and not any(a <= m.start() < b for a, b, _ in out):
            out.append((m.start(), m.end(), "an HTML comment"))
    found = [(a, b, "an HTML element a browser does not show") for a, b in _hidden_elements(text)] \
        if "<" in text else []
    found += [(m.start(1), m.end(1), "a link's title (a tooltip)") for m in _LINK_TITLE.finditer(text)] \
        if "](" in text else []
    for m in _PHANTOM.finditer(text) if "phantom" in text else ():
        depth, end = 1, len(text)
        for i in range(m.end(), len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0) if text[i - 1] != "\\" else 0
            if not depth:
                end = i + 1
                break
        found.append((m.start(), end, "a LaTeX \\phantom (typeset as blank space)"))
    for a, b, what in found:  # inside code or inside a span already found: that one holds it
        if not any(x <= a < y for x, y in code) and not any(x <= a < y for x, y, _ in out):
            out.append((a, b, what))
    return tuple(sorted(out))


_OPEN_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9-]*)\b([^<>]*)>")


def _hidden_elements(text: str) -> list[tuple[int, int]]:
    """The raw HTML elements of a Markdown text a browser does not render (``html_visibility._not_rendered``: the
    ``hidden`` attribute, a hiding ``style``, a rule of the text's own ``<style>`` elements), each from its start tag
    to its end tag (to the end of the text when it has none)."""
    from audit.text.html_visibility import _VOID, _hiding_selectors, _not_rendered, attributes

    hiding = _hiding_selectors(text)
    out: list[tuple[int, int]] = []
    for m in _OPEN_TAG.finditer(text):
        tag = m.group(1).lower()
        if tag in _VOID or (out and m.start() < out[-1][1]):
            continue
        if not _not_rendered(tag, attributes(m.group(0)), hiding):
            continue
        depth, end = 1, len(text)
        for t in re.finditer(rf"<(/?){re.escape(tag)}\b[^<>]*>", text[m.end():], re.IGNORECASE):
            depth += -1 if t.group(1) else 1
            if not depth:
                end = m.end() + t.end()
                break
        out.append((m.start(), end))
    return out


def unseen_at(text: str, start: int, end: int) -> str:
    """What unseen span (``unseen``) holds ``text[start:end]`` ("" when a reader sees it)."""
    return next((what for a, b, what in unseen(text) if a <= start and end <= b), "")


@lru_cache(maxsize=8)
def layout(text: str) -> Layout:
    """The non-prose lines and display formulas of the Markdown ``text`` (see ``Layout``)."""
    skip: set[int] = set()
    formulas: list[tuple[int, int]] = []
    tokens = _tokens(text)
    for i, token in enumerate(tokens):
        if not token.map:
            continue
        first, end = token.map
        if token.type == "paragraph_open" and i + 1 < len(tokens) and _QUARTO_EQUATION.fullmatch(
                tokens[i + 1].content.strip()):
            formulas.append((first, end - 1))  # Quarto's "$$ … $$ {#eq-ap}": a display formula with its label
        elif token.type in _NOT_PROSE:
            skip.update(range(first, end))
        elif token.type in _FORMULAS or (token.type == "fence" and _MATH_FENCE.match(token.info or "")):
            formulas.append((first, end - 1))  # $$ … $$, \begin{align}, MyST's ```{math} fence
        elif token.type == "colon_fence":  # a container: its fence lines are markup, its inside prose
            skip.update((first, end - 1))
    starts = _line_offsets(text)
    for a, b, what in unseen(text):
        if what in _WHOLE_LINES:  # definitions and comments: no prose (an inline comment's line is read still)
            skip.update(range(bisect_left(starts, a), bisect_left(starts, b)))
    return Layout(frozenset(skip), tuple(formulas))


# --- what a patch may touch: protected spans and the block structure ------------------------------------------

#: Block tokens whose lines are not prose: no caveat is inserted in them (a value printed there may be corrected).
_CLOSED_BLOCKS = ("fence", "code_block", "html_block", "front_matter", "hr") + _FORMULAS
#: Inline spans of a paragraph that are not prose: display and inline formulas, code spans.
_INLINE_CLOSED = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?![\s$\d]).+?(?<![\s\\$])\$|(`+).+?(?<!`)\1(?!`)", re.DOTALL)
#: A doctest: a ``>>>`` line and what follows it up to a blank line (its continuation and its printed output).
_DOCTEST = re.compile(r"^[ \t]*>>>.*(?:\n(?![ \t]*$).*)*", re.MULTILINE)


@dataclass(frozen=True)
class Closed:
    """A span of the text (offsets, end exclusive) where no words may be inserted: ``kind`` names what it is (a
    display formula, a code block, a table, a doctest), for the reason a finding gives."""

    start: int
    end: int
    kind: str

    def holds(self, at: int) -> bool:
        """Whether inserting at offset ``at`` would put words inside this span: strictly inside an inline span, and
        anywhere from a block's first character to its last line's end."""
        if self.kind in ("inline formula", "code span", "display formula in a paragraph"):
            return self.start < at < self.end
        return self.start <= at <= self.end


def _line_offsets(text: str) -> list[int]:
    return [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]


_KIND = {"fence": "code block", "code_block": "code block", "html_block": "HTML block", "front_matter":
         "front matter", "hr": "rule", "table_open": "table"}


def closed_spans(text: str, markdown: bool = True) -> list[Closed]:
    """The spans of ``text`` where a patch inserts no words: code blocks, display formulas, HTML blocks, front
    matter and tables (read with markdown-it-py when ``markdown``), formulas and code spans inside a paragraph, and
    doctests (a ``>>>`` line to the next blank line) in any text."""
    starts = _line_offsets(text)

    def offset(line: int) -> int:
        return starts[line] if line < len(starts) else len(text)

    out: list[Closed] = []
    if markdown:
        for token in _tokens(text):
            if not token.map:
                continue
            first, end = token.map
            a, b = offset(first), max(offset(first), offset(end) - 1)
            if token.type in _CLOSED_BLOCKS:
                out.append(Closed(a, b, "display formula" if token.type in _FORMULAS else _KIND.get(token.type,
                                                                                                   token.type)))
            elif token.type == "table_open":
                out.append(Closed(a, b, "table"))
            elif token.type == "inline" and token.level <= 2:
                for m in _INLINE_CLOSED.finditer(text, a, b):
                    kind = ("display formula in a paragraph" if m.group(0).startswith("$$") else
                            "inline formula" if m.group(0).startswith("$") else "code span")
                    out.append(Closed(m.start(), m.end(), kind))
    else:
        for m in re.finditer(r"^(`{3,}|~{3,}).*\n(?:.*\n)*?[ \t]*\1[ \t]*$", text, re.MULTILINE):
            out.append(Closed(m.start(), m.end(), "code block"))
    for m in _DOCTEST.finditer(text):
        out.append(Closed(m.start(), m.end(), "doctest"))
    return out


def block_end(text: str, at: int, markdown: bool = True) -> int:
    """The end of the prose block holding offset ``at``: its paragraph's last character (before the line break),
    read with markdown-it-py when ``markdown``, else the next blank line's start (or the text's end)."""
    if markdown:
        line = text.count("\n", 0, at)
        starts = _line_offsets(text)
        for token in _tokens(text):
            if token.type == "inline" and token.map and token.map[0] <= line < token.map[1]:
                end = token.map[1]
                return starts[end] - 1 if end < len(starts) else len(text)
    m = re.compile(r"\n[ \t]*\n").search(text, at)
    return m.start() if m else len(text.rstrip("\n"))


def structure(text: str) -> list[tuple]:
    """The block structure of ``text`` read as Markdown: each token's type, tag, markup and info string; for a
    paragraph's inline content the sequence of its inline markup (emphasis, links, code spans, formulas — text and
    line breaks left out); each with its source lines and its content, which ``changed_structure`` compares outside
    the lines a patch changes."""
    out = []
    for token in _tokens(text):
        if token.type == "inline":
            marks = tuple((c.type, c.markup) for c in token.children or () if c.type not in ("text", "softbreak"))
            out.append((("inline", marks), tuple(token.map or ()), token.content))
        else:
            out.append(((token.type, token.tag, token.nesting, token.markup, token.info.strip()),
                        tuple(token.map or ()), token.content))
    return out


def changed_structure(before: str, after: str, lines: tuple[int, int], added: int) -> str:
    """'' when ``after`` has the Markdown structure of ``before`` outside the 0-based lines ``lines`` (first, last) of
    ``before`` that a change rewrote (``added``: how many lines it added), else what differs. Inside those lines the
    blocks' words may change, not their kind or their inline markup."""
    old, new = structure(before), structure(after)
    if len(old) != len(new):
        return (f"the Markdown would have {len(new)} blocks and spans where it has {len(old)} (a block split, joined, "
                "opened or closed)")
    for (kind_a, map_a, content_a), (kind_b, _, content_b) in zip(old, new):
        where = f" (line {map_a[0] + 1})" if map_a else ""
        if kind_a != kind_b and kind_a[0] == kind_b[0] == "inline":
            return "the emphasis, code spans, formulas or links of a paragraph would change" + where
        if kind_a != kind_b:
            return f"a {kind_a[0]} of the text would become a {kind_b[0]}" + where
        touched = bool(map_a) and map_a[0] <= lines[1] and lines[0] < map_a[1]
        if content_a != content_b and not touched:
            return f"a {kind_a[0]} outside the changed sentence would change (line {map_a[0] + 1 if map_a else '?'})"
    return ""


def pipe_tables(text: str) -> list[tuple[int, int, int, list[str]]]:
    """Each run of lines of ``text`` that start with ``|`` (a pipe table as an author types it), as ``(start, end,
    first line index, its lines)``: ``start``/``end`` are offsets in ``text``, the index 0-based."""
    lines = text.split("\n")
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    out = []
    i = 0
    while i < len(lines):
        if not lines[i].strip().startswith("|"):
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].strip().startswith("|"):
            j += 1
        out.append((offsets[i], offsets[j - 1] + len(lines[j - 1]), i, lines[i:j]))
        i = j
    return out
