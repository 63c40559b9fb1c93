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
#: Text a style sheet writes into the page (``td::after { content: "0.9" }``): a reader sees it as the element's.
_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style\s*>", re.IGNORECASE | re.DOTALL)
_CONTENT = re.compile(r"""\bcontent\s*:\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""", re.IGNORECASE)


def _rich(output) -> str | None:
    if output.get("output_type") not in ("execute_result", "display_data"):
        return None
    import html as html_module
    shown = []
    for kind in ("text/html", "text/markdown", "text/latex"):
        value = output.get("data", {}).get(kind)
        if value:
            text = "".join(value) if isinstance(value, list) else str(value)
            written = [quoted[1:-1] for sheet in _STYLE.findall(text) for quoted in _CONTENT.findall(sheet)]
            shown.append(" ".join(html_module.unescape(" ".join([_TAG.sub(" ", _HIDDEN.sub(" ", text)), *written]))
                                  .split()))
    return "\n".join(shown) if shown else None


_READ_AS_TEXT = {"text/plain", "text/html", "text/markdown", "text/latex"}
#: What an SVG shows as words: its text nodes and the comments matplotlib writes for text it draws as glyph paths;
#: its metadata (a date), scripts and styles are left out, and attributes (generated IDs) are not text.
_SVG_UNSHOWN = re.compile(r"<(metadata|script|style)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_SVG_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)


def _svg_words(svg: str) -> str:
    import html as html_module
    svg = _SVG_UNSHOWN.sub(" ", svg)
    comments = " ".join(_SVG_COMMENT.findall(svg))
    return " ".join(html_module.unescape(_TAG.sub(" ", _SVG_COMMENT.sub(" ", svg)) + " " + comments).split())


def _picture(kind: str, encoded: str) -> str:
    """A raster image's fingerprint: for a PNG, of its header, palette and pixel data (not its text chunks, where
    matplotlib writes its version); for another format, of the whole file."""
    import base64
    import hashlib
    try:
        data = base64.b64decode("".join(encoded.split()), validate=False)
    except ValueError:
        data = encoded.encode("utf-8", "replace")
    if kind == "image/png" and data.startswith(b"\x89PNG\r\n\x1a\n"):
        kept, at = [], 8
        while at + 8 <= len(data):
            size, name = int.from_bytes(data[at:at + 4], "big"), data[at + 4:at + 8]
            if name in (b"IHDR", b"PLTE", b"IDAT"):
                kept.append(data[at + 8:at + 8 + size])
            at += 12 + size
        data = b"".join(kept) or data
    return f"{kind} image #{hashlib.sha256(data).hexdigest()[:12]}"


def _media(output) -> str | None:
    """What a result's or display's other outputs show, as text to compare: an SVG's words, a JSON value written
    canonically, and a fingerprint of any other image or data a front end renders."""
    if output.get("output_type") not in ("execute_result", "display_data"):
        return None
    import json
    shown = []
    for kind, value in sorted(output.get("data", {}).items()):
        if kind in _READ_AS_TEXT:
            continue
        text = "".join(value) if isinstance(value, list) else value
        if kind == "image/svg+xml" and isinstance(text, str):
            shown.append(f"SVG: {_svg_words(text)}")
        elif kind.endswith("json") or not isinstance(text, str):
            shown.append(f"{kind}: {json.dumps(value, sort_keys=True, ensure_ascii=False)}")
        elif kind.startswith("image/"):
            shown.append(_picture(kind, text))
        else:
            shown.append(f"{kind}: {text}")
    return "\n".join(shown) if shown else None


def media_texts(notebook) -> list[tuple[int, str]]:
    """(cell number, text) of what each code cell's other outputs show a reader: an SVG drawing's words, a JSON
    value, and a fingerprint of each image. A committed chart or JSON tree a reader sees must agree with the run,
    as its text does; an image is compared whole, since its numbers cannot be read."""
    return _per_cell(notebook, _media)


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
