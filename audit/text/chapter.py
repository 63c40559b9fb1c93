"""Chapter snapshots: reading, the prose normalisation, the fingerprint, and quote anchors."""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from audit.errors import RegisterError
from audit.register.files import read_text
from audit.register.limits import MAX_SNAPSHOT_BYTES

#: The normalisation behind the fingerprint, stated in every report.
NORMALISATION = (
    "Unicode NFC; CRLF and CR line endings to LF; lines that are editorial markers of the form "
    "'[... … ...]' removed; curly quotes and apostrophes to straight ones, en and em dashes to '-', "
    "no-break spaces to spaces; every run of whitespace (line breaks included) replaced by one space; "
    "leading and trailing whitespace removed; SHA-256 of the UTF-8 bytes. Typographic and whitespace "
    "edits therefore keep the fingerprint; any change of words or numbers changes it"
)

_MARKER = re.compile(r"^\s*\[\.\.\..*\.\.\.\]\s*$")
_QUOTE_FOLD = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"',
                             "„": '"', "‟": '"', "–": "-", "—": "-", "\u00a0": " "})


#: How a Jupyter notebook (``.ipynb``) is read as a chapter's text, stated in every report of one.
NOTEBOOK_READING = (
    "a Jupyter notebook is read as its cells in order, separated by a blank line: a Markdown cell as written, a code "
    "cell inside a ```python fence, a raw cell left out; outputs are not part of the text"
)


@dataclass(frozen=True)
class Snapshot:
    """A chapter's text as read: ``path``, raw ``text`` (LF line endings); for a notebook, ``cells``: each cell's
    first line in ``text`` (1-based, the line after a code cell's fence), its number in the notebook (1-based) and
    its type, in order (``NOTEBOOK_READING``)."""

    path: Path
    text: str
    cells: tuple[tuple[int, int, str], ...] = ()

    @classmethod
    def read(cls, path: Path) -> "Snapshot":
        """Read a UTF-8 snapshot, or a Jupyter notebook (``.ipynb``, read with nbformat as ``NOTEBOOK_READING``
        says). Raises ``RegisterError`` naming the file when missing, not a regular file (a FIFO or device), larger
        than ``limits.MAX_SNAPSHOT_BYTES``, not UTF-8, or (a notebook) not a valid notebook."""
        if not os.path.lexists(path):
            raise RegisterError("snapshot file not found; the register's snapshot.file must name a file "
                                "beside chapter.yaml", file=str(path))
        raw = read_text(path, "snapshot", MAX_SNAPSHOT_BYTES, RegisterError)
        if Path(path).suffix.lower() == ".ipynb":
            return cls(path, *_notebook_text(raw, path))
        return cls(path, raw.replace("\r\n", "\n").replace("\r", "\n"))

    def place(self, line: int) -> str:
        """Where a line of the text is in the notebook it was read from ("cell 4, line 2"); "" for a text file or a
        line outside every cell."""
        inside = [(first, number) for first, number, _ in self.cells if first <= line]
        if not inside:
            return ""
        first, number = inside[-1]
        return f"cell {number}, line {line - first + 1}"

    def prose(self) -> str:
        """The normalised prose the fingerprint is taken over (see ``NORMALISATION``)."""
        text = unicodedata.normalize("NFC", self.text)
        lines = [line for line in text.split("\n") if not _MARKER.match(line)]
        return " ".join(" ".join(lines).translate(_QUOTE_FOLD).split())

    def fingerprint(self) -> str:
        """SHA-256 hex digest of ``prose()``."""
        return hashlib.sha256(self.prose().encode("utf-8")).hexdigest()

    def find(self, quote: str) -> "Anchor":
        """Locate ``quote``: exactly, then with whitespace, quote marks and dashes folded.

        Returns an ``Anchor`` whose ``status`` is ``"exact"``, ``"normalised"`` or ``"not found"``;
        ``count`` says how many times it occurs (more than one is ambiguous and reported).
        """
        if quote in self.text:
            start = self.text.index(quote)
            return self._anchor("exact", start, self.text.count(quote))
        folded, index = _fold_with_index(self.text)
        needle = " ".join(unicodedata.normalize("NFC", quote).translate(_QUOTE_FOLD).split())
        if needle and needle in folded:
            return self._anchor("normalised", index[folded.index(needle)], folded.count(needle))
        return Anchor("not found", None, None, 0)

    def _anchor(self, status: str, start: int, count: int) -> "Anchor":
        line = self.text.count("\n", 0, start) + 1
        column = start - (self.text.rfind("\n", 0, start) + 1) + 1
        return Anchor(status, line, column, count)

def _notebook_text(raw: str, path) -> tuple[str, tuple[tuple[int, int, str], ...]]:
    """A notebook's text and its cells' places (``NOTEBOOK_READING``). Raises ``RegisterError`` naming the file
    when nbformat cannot read it as a notebook."""
    import nbformat

    try:
        notebook = nbformat.reads(raw, as_version=4)
    except Exception as exc:  # nbformat raises JSON, validation and version errors of many types
        raise RegisterError(f"not a Jupyter notebook nbformat can read ({type(exc).__name__}: "
                            f"{str(exc).splitlines()[0][:160] if str(exc) else 'no detail'})", file=str(path))
    parts, cells, line = [], [], 1
    for number, cell in enumerate(notebook.cells, start=1):
        source = str(cell.get("source", "")).replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
        if cell.get("cell_type") == "markdown":
            block, first = source, line
        elif cell.get("cell_type") == "code":
            fence = "`" * max(3, max((len(r) for r in re.findall(r"`+", source)), default=0) + 1)
            block, first = f"{fence}python\n{source}\n{fence}", line + 1
        else:
            continue
        parts.append(block)
        cells.append((first, number, cell["cell_type"]))
        line += block.count("\n") + 2
    return "\n\n".join(parts) + "\n", tuple(cells)


@dataclass(frozen=True)
class Anchor:
    """Where a quote was found: 1-based ``line`` and ``column`` in the snapshot."""

    status: str
    line: int | None
    column: int | None
    count: int

    @property
    def found(self) -> bool:
        return self.status != "not found"


def _fold_with_index(text: str) -> tuple[str, list[int]]:
    """Text with quotes/dashes folded and whitespace runs collapsed, and each char's source offset."""
    out: list[str] = []
    index: list[int] = []
    previous_space = False
    for offset, char in enumerate(text):
        char = unicodedata.normalize("NFC", char).translate(_QUOTE_FOLD)
        if char.isspace():
            if previous_space:
                continue
            char, previous_space = " ", True
        else:
            previous_space = False
        out.append(char)
        index.append(offset)
    return "".join(out), index
