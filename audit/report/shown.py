"""Text from the book, made safe for where it goes: one function per destination.

A book repository is untrusted input: a chapter's title, a claim's title, statement or rewording, a quote, the
passage found, a notebook's path and what a listing or notebook printed are data, never markup or terminal
commands. Every writer passes such text through the function of its destination:

- ``visible`` (one line) and ``visible_lines`` (lines kept): every control or format character shown, never sent —
  an escape as ␛, a newline as ␊ (``visible`` only), a right-to-left override as ⟨U+202E⟩ (``sandbox.quote``'s
  rule, without its length limit);
- ``markdown_text``: a name or sentence of the book in Markdown — one line, every character Markdown or HTML could
  read as syntax made literal (no heading, list, link, image, autolink, HTML or emphasis);
- ``markdown_safe``: a sentence the audit composed around book text (a reason, a response, a checklist item) —
  one line, no link, image, autolink or HTML (its own code spans kept);
- ``html_text``: text in an HTML page (escaped, control characters shown);
- ``console_text``: text on the console (control characters shown, Rich markup made literal).

JSON needs no function of its own: ``json.dumps`` escapes every control character (``\\u001b``) and the reports'
JSON is written with it. ``for_markdown`` and ``for_html`` give a copy of a chapter report with every string
passed through the right function, so the renderers cannot forget one.
"""

from __future__ import annotations

import functools
import html
import itertools
import re
import unicodedata

from audit.evaluation.sandbox.quote import _visible, markdown_literal

_LINE_KEPT = "\n\t"
#: A format (Cf) or separator (Zl, Zp) character: bidirectional overrides and isolates, zero-width characters, soft
#: hyphen, U+2028/U+2029 (all in the Basic Multilingual Plane but the tags U+E0001–U+E007F, which are Cf too).
FORMAT_CHARACTER = re.compile("[" + "".join(
    re.escape(chr(c)) for c in range(0x80, 0x10000) if 0xD800 > c or c > 0xDFFF
    if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")) + "\U000E0001-\U000E007F\U0001BCA0-\U0001BCA3"
    "\U0001D173-\U0001D17A\U000110BD\U000110CD\U00013430-\U0001343F]")


_SHOWN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})  # Cs: the lone surrogates, shown as U+FFFD


#: ``_shown_codes`` as runs of code points (first, last), by the Unicode version whose database gives them
#: (``unicodedata.unidata_version``; 14.0.0 is Python 3.11's): reading the database for all 1,114,112 code points
#: takes a quarter of a second, in every process that shows a text. Another version reads its own database.
#: ``tests/test_shown_text.py`` holds the table to this Python's database.
SHOWN_RUNS = {
    "14.0.0": ((0x0, 0x1f), (0x7f, 0x9f), (0xad, 0xad), (0x600, 0x605), (0x61c, 0x61c), (0x6dd, 0x6dd),
               (0x70f, 0x70f), (0x890, 0x891), (0x8e2, 0x8e2), (0x180e, 0x180e), (0x200b, 0x200f), (0x2028, 0x202e),
               (0x2060, 0x2064), (0x2066, 0x206f), (0xd800, 0xdfff), (0xfeff, 0xfeff), (0xfff9, 0xfffb),
               (0x110bd, 0x110bd), (0x110cd, 0x110cd), (0x13430, 0x13438), (0x1bca0, 0x1bca3), (0x1d173, 0x1d17a),
               (0xe0001, 0xe0001), (0xe0020, 0xe007f)),
}


def _read_shown_codes() -> tuple[int, ...]:
    """``_shown_codes`` read from this Python's Unicode database, code point by code point."""
    categories = map(unicodedata.category, map(chr, range(0x110000)))
    return tuple(itertools.compress(range(0x110000), map(_SHOWN.__contains__, categories)))


@functools.cache
def _shown_codes() -> tuple[int, ...]:
    """Every code point ``_visible`` replaces: lone surrogates, controls (Cc), format (Cf) and separator (Zl, Zp)
    characters, in the whole code space, as this Python's Unicode database classifies them (``SHOWN_RUNS`` for its
    version, else one pass over the database on first use)."""
    runs = SHOWN_RUNS.get(unicodedata.unidata_version)
    if runs is None:
        return _read_shown_codes()
    return tuple(code for first, last in runs for code in range(first, last + 1))


@functools.cache
def _replaced(kept: str) -> re.Pattern:
    """One character class (its runs matched at once) of every code point ``_visible`` replaces but those in ``kept``, as runs of code points
    (``[\\U00000000-\\U00000008\\U0000000b-…]``)."""
    codes = [code for code in _shown_codes() if chr(code) not in kept]
    runs, start = [], 0
    for i in range(1, len(codes) + 1):
        if i == len(codes) or codes[i] != codes[i - 1] + 1:
            first, last = codes[start], codes[i - 1]
            runs.append(f"\\U{first:08x}" if first == last else f"\\U{first:08x}-\\U{last:08x}")
            start = i
    return re.compile("[" + "".join(runs) + "]+")


_one = functools.lru_cache(maxsize=4096)(_visible)  # a chapter repeats the few it holds


def _stand_in(match: re.Match) -> str:
    """A run of characters to show, each by its stand-in (``sandbox.quote``'s rule)."""
    return "".join(map(_one, match.group()))


def visible(text: object) -> str:
    """``text`` as one line, every control or format character shown by a visible stand-in."""
    text = text if isinstance(text, str) else str(text)
    return _replaced("").sub(_stand_in, text)


def visible_lines(text: object) -> str:
    """``text`` with its newlines and tabs kept and every other control or format character shown."""
    text = text if isinstance(text, str) else str(text)
    return _replaced(_LINE_KEPT).sub(_stand_in, text)


def markdown_text(text: object) -> str:
    """A name or sentence of the book in Markdown: one line, every syntax character literal."""
    return markdown_literal(visible(text))


_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
#: A bracket not already escaped: after an even number of backslashes (none, or escaped backslashes). Book text
#: quoted inside an audit sentence is already literal (``\[``); escaping its bracket again would make the
#: backslash literal and leave the bracket free to open a link.
_LINK = re.compile(r"(?<!\\)((?:\\\\)*)([\[\]])")
_SCHEME = re.compile(r"(?i)(?<=[a-z]):(?=//)")
_WWW = re.compile(r"(?i)(?<=\bwww)\.")
_TAG = re.compile(r"<(?=[A-Za-z/!?])")


def _no_links(text: str) -> str:
    text = _LINK.sub(lambda m: m.group(1) + "\\" + m.group(2), text)
    text = _SCHEME.sub(r"\\:", text)
    text = _WWW.sub(r"\\.", text)
    return _TAG.sub("&lt;", text)


def markdown_safe(text: object) -> str:
    """A sentence the audit composed around book text, in Markdown: one line; outside its code spans no ``[``,
    ``]``, ``://``, ``www.`` or ``<`` that could open a link, an image, an autolink or HTML."""
    text = visible(text)
    out, at = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_no_links(text[at:m.start()]))
        out.append(m.group())
        at = m.end()
    out.append(_no_links(text[at:]))
    return "".join(out)


def html_text(text: object) -> str:
    """Text in an HTML page: escaped, its control and format characters shown."""
    return html.escape(visible_lines(text))


def console_text(text: object) -> str:
    """Text on the console: one line, control and format characters shown, Rich markup (``[green]``) literal."""
    from rich.markup import escape
    return escape(visible(text))


#: Fields of a chapter report that hold the book's own words (a name, a title, a sentence): fully literal.
BOOK_FIELDS = frozenset({"title", "claim", "quote", "found_text", "book", "sentence", "now", "path", "rewording",
                         "anchor", "place", "stale", "page", "chapter", "source"})
#: Fields that hold lines of code or an address, shown in a code block or as a link by the renderer.
CODE_FIELDS = frozenset({"replaced", "text", "old", "new", "method"})
ADDRESS_FIELDS = frozenset({"url", "file", "register_file", "research_pack"})


def _walk(value, key: str, one: callable):
    if isinstance(value, str):
        return one(key, value)
    if isinstance(value, list):
        return [_walk(v, key, one) for v in value]
    if isinstance(value, tuple):
        return tuple(_walk(v, key, one) for v in value)
    if isinstance(value, dict):
        return {k: _walk(v, k if isinstance(k, str) else key, one) for k, v in value.items()}
    return value


def _markdown_field(key: str, value: str) -> str:
    if key in ADDRESS_FIELDS:
        return visible(value)
    if key in CODE_FIELDS and "\n" in value:
        return visible_lines(value)  # shown in a fenced block, which no line of it can close
    if key in BOOK_FIELDS:
        return markdown_text(value)
    return markdown_safe(value)


def for_markdown(report):
    """A copy of ``report`` whose every string is safe in Markdown: the book's own words fully literal, the audit's
    sentences around them free of links, images and HTML, lines of code kept for a fenced block, none holding a
    control character. What the notebook printed is left to the renderer, which makes it literal where it shows it
    (``markdown._literal``); the notebook's path is made literal here."""
    data = report.model_dump()
    notebook = data.pop("notebook", None)
    data = _walk(data, "", _markdown_field)
    if isinstance(notebook, dict):
        notebook["path"] = markdown_text(notebook.get("path", ""))
    data["notebook"] = notebook
    return type(report).model_validate(data)


def for_html(report):
    """A copy of ``report`` whose every string shows its control and format characters (the page's template
    escapes HTML itself)."""
    data = _walk(report.model_dump(), "", lambda key, value: visible_lines(value))
    return type(report).model_validate(data)
