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


@dataclass(frozen=True)
class Snapshot:
    """A chapter's text as read: ``path``, raw ``text`` (LF line endings)."""

    path: Path
    text: str

    @classmethod
    def read(cls, path: Path) -> "Snapshot":
        """Read a UTF-8 snapshot. Raises ``RegisterError`` naming the file when missing, not a regular
        file (a FIFO or device), larger than ``limits.MAX_SNAPSHOT_BYTES`` or not UTF-8."""
        if not os.path.lexists(path):
            raise RegisterError("snapshot file not found; the register's snapshot.file must name a file "
                                "beside chapter.yaml", file=str(path))
        raw = read_text(path, "snapshot", MAX_SNAPSHOT_BYTES, RegisterError)
        return cls(path, raw.replace("\r\n", "\n").replace("\r", "\n"))

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
