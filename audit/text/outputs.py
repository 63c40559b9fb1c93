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


def output_texts(notebook) -> list[tuple[int, str]]:
    """(cell number, text) of each code cell's outputs, in order (cells numbered from 1 over all cells): stream text,
    the ``text/plain`` of results and displays, and an error as ``Type: message``. Images and HTML are left out.
    ``notebook``: an nbformat v4 node."""
    out = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        parts = []
        for output in cell.get("outputs", []):
            kind = output.get("output_type")
            if kind == "stream":
                parts.append(str(output.get("text", "")))
            elif kind in ("execute_result", "display_data"):
                parts.append(str(output.get("data", {}).get("text/plain", "")))
            elif kind == "error":
                parts.append(f"{output.get('ename', '')}: {output.get('evalue', '')}")
        out.append((number, "\n".join(p.rstrip("\n") for p in parts)))
    return out


_HIDDEN = re.compile(r"<(script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def rich_texts(notebook) -> list[tuple[int, str]]:
    """(cell number, text) of what each code cell's rich outputs show a reader (``text/html`` and ``text/markdown``
    of results and displays, GitHub's and Jupyter's rendering of the cell): the words and numbers, tags, scripts and
    styles left out, blanks collapsed. A committed table a reader sees must agree with the run as its plain text
    must."""
    import html as html_module
    out = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        parts = []
        for output in cell.get("outputs", []):
            if output.get("output_type") in ("execute_result", "display_data"):
                data = output.get("data", {})
                for kind in ("text/html", "text/markdown"):
                    value = data.get(kind)
                    if value:
                        text = "".join(value) if isinstance(value, list) else str(value)
                        text = html_module.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", text)))
                        parts.append(" ".join(text.split()))
        out.append((number, "\n".join(parts)))
    return out


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
