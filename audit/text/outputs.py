"""A Jupyter notebook's outputs read as text: what each code cell printed or displayed, and the numbers in it with
the label printed before each. Used for the notebook's run (``audit.evaluation.notebook``) and by ``audit init
--notebook`` on its committed outputs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: A number in an output line: a decimal, an integer or a percentage, not part of a word, a name like ``P@5`` or a
#: longer number.
NUMBER = re.compile(r"(?<![\w.@])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?%?(?![\w.]*\w)")
#: The label before a number: the text after the last separator before it, ended by ``=`` or ``:``.
LABEL = re.compile(r"([^=:,;()\[\]{}]*?)\s*[=:]\s*[(\[]?\s*$")
MAX_NUMBERS = 200


def _per_cell(notebook, read) -> list[tuple[int, str]]:
    """(cell number, text) of each code cell (cells numbered from 1 over all cells), its outputs read by ``read``
    (an output → the text it shows, or None) and joined by lines."""
    out = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.get("cell_type") == "code":
            parts = [t for t in map(read, cell.get("outputs", [])) if t is not None]
            out.append((number, "\n".join(p.rstrip("\n") for p in parts)))
    return out


def _plain(output) -> str | None:
    kind = output.get("output_type")
    if kind == "stream":
        return str(output.get("text", ""))
    if kind in ("execute_result", "display_data"):
        return str(output.get("data", {}).get("text/plain", ""))
    if kind == "error":
        return f"{output.get('ename', '')}: {output.get('evalue', '')}"
    return None


def output_texts(notebook) -> list[tuple[int, str]]:
    """(cell number, text) of each code cell's outputs, in order: stream text, the ``text/plain`` of results and
    displays, and an error as ``Type: message``. Images and HTML are left out. ``notebook``: an nbformat v4 node."""
    return _per_cell(notebook, _plain)


_HIDDEN = re.compile(r"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def _rich(output) -> str | None:
    if output.get("output_type") not in ("execute_result", "display_data"):
        return None
    import html as html_module
    shown = []
    for kind in ("text/html", "text/markdown", "text/latex"):
        value = output.get("data", {}).get(kind)
        if value:
            text = "".join(value) if isinstance(value, list) else str(value)
            shown.append(" ".join(html_module.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", text))).split()))
    return "\n".join(shown) if shown else None


def rich_texts(notebook) -> list[tuple[int, str]]:
    """(cell number, text) of what each code cell's rich outputs show a reader (``text/html``, ``text/markdown`` and
    ``text/latex`` of results and displays, GitHub's and Jupyter's rendering of the cell): the words and numbers, tags, scripts and
    styles left out, blanks collapsed. A committed table a reader sees must agree with the run as its plain text
    must."""
    return _per_cell(notebook, _rich)


def numbers(texts: Sequence[tuple[int, str]]) -> list[tuple[int, str, str, str]]:
    """The numbers the outputs show, as (cell, label, number as printed, its line), at most ``MAX_NUMBERS``."""
    found = []
    for cell, text in texts:
        for line in text.splitlines():
            for match in NUMBER.finditer(line):
                label = LABEL.search(line[:match.start()])
                found.append((cell, label.group(1).strip() if label else "", match.group(0), line.strip()[:200]))
                if len(found) >= MAX_NUMBERS:
                    return found
    return found
