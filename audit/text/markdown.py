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
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

#: File names read as Markdown: CommonMark, MyST, Quarto, R Markdown.
SUFFIXES = (".md", ".markdown", ".mdown", ".myst", ".qmd", ".rmd")
#: How a Markdown chapter is read, for the report's normalisation line.
MARKDOWN_READING = (
    "a Markdown file (CommonMark, MyST, Quarto) is read as written, so quotes, lines and the patch are the file's; "
    "the scanner reads its blocks with markdown-it-py: front matter, HTML blocks and comments, MyST targets and "
    "comments and ':::' fence lines are not prose, and a display formula is one unit, read in its LaTeX and in "
    "plain notation")
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
def layout(text: str) -> Layout:
    """The non-prose lines and display formulas of the Markdown ``text`` (see ``Layout``)."""
    skip: set[int] = set()
    formulas: list[tuple[int, int]] = []
    tokens = _parser().parse(text)
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
    return Layout(frozenset(skip), tuple(formulas))
