"""Chapter snapshots: reading, the prose normalisation, the fingerprint, and quote anchors."""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from audit.errors import RegisterError
from audit.model.files import read_text
from audit.model.limits import MAX_SNAPSHOT_BYTES
from audit.text.html_visibility import _VOID, _hiding_selectors, _not_rendered

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


#: How an HTML page is read as a chapter's text, stated in every report of one.
HTML_READING = (
    "an HTML page is read with Python's HTML parser as its text: a heading as a Markdown heading, a paragraph, list "
    "item, table row or line break on a line of its own (a row's cells between '|', a delimiter row under a row of "
    "header cells), inline <code> between backticks, a <pre> block (with any <pre> inside it) as written inside a "
    "fence of backticks longer than any run in it, script, style and the head left out, character references decoded"
)


@dataclass(frozen=True)
class Snapshot:
    """A chapter's text as read: ``path``, raw ``text`` (LF line endings). For a file read in another format (a
    notebook, an HTML page), ``reading`` says how (``NOTEBOOK_READING``, ``HTML_READING``) and ``origin`` maps the
    text back to the file: (first line in ``text``, a label, the line it is in the labelled unit) in order — a
    notebook cell ("notebook cell 3", 1), or for a page each line's line in the HTML source ("", 42)."""

    path: Path
    text: str
    origin: tuple[tuple[int, str, int], ...] = ()
    reading: str = ""
    raw: str = ""   # the file as read, for a notebook or an HTML page (its reading is ``text``)

    @classmethod
    def read(cls, path: Path) -> "Snapshot":
        """Read a UTF-8 snapshot, or a Jupyter notebook (``.ipynb``, read with nbformat as ``NOTEBOOK_READING``
        says). Raises ``RegisterError`` naming the file when missing, not a regular file (a FIFO or device), larger
        than ``limits.MAX_SNAPSHOT_BYTES``, not UTF-8, or (a notebook) not a valid notebook."""
        if not os.path.lexists(path):
            raise RegisterError("snapshot file not found; the register's snapshot.file must name a file "
                                "beside chapter.yaml", file=str(path))
        raw = read_text(path, "snapshot", MAX_SNAPSHOT_BYTES, RegisterError)
        suffix = Path(path).suffix.lower()
        if suffix == ".ipynb":
            return cls(path, *_notebook_text(raw, path), NOTEBOOK_READING, raw)
        if suffix in (".html", ".htm"):
            return cls(path, *_html_text(raw), HTML_READING, raw)
        return cls(path, raw.replace("\r\n", "\n").replace("\r", "\n"))

    @property
    def markdown(self) -> bool:
        """Whether the text is read as Markdown (``audit.text.markdown``): a Markdown file, or a notebook, whose
        reading is its Markdown cells and fenced code."""
        from audit.text.markdown import is_markdown
        return self.reading == NOTEBOOK_READING or is_markdown(self.path)

    def place(self, line: int) -> str:
        """Where a line of the text is in the file it was read from ("notebook cell 4, line 2", "ch5.html line 80");
        "" for a text file, or a line outside every cell."""
        inside = [entry for entry in self.origin if entry[0] <= line]
        if not inside:
            return ""
        first, label, base = inside[-1]
        at = line - first + base
        return f"{label}, line {at}" if label else f"{Path(self.path).name} line {at}"

    def file_after(self, after: str) -> str | None:
        """The file's text once its reading has become ``after`` (the patched reading), so a patch can be written
        against the file itself: a text file is its reading; a notebook gets the changed lines in its cells' sources
        (written back by nbformat, when the file is as nbformat writes it); an HTML page gets each changed piece of
        a line in its source line, HTML-escaped, when it occurs there once, and a changed listing in its ``<pre>``
        lines. None when a change cannot be placed in the file (the patch then stays against the reading)."""
        if not self.reading:
            return after
        before, now = self.text.split("\n"), after.split("\n")
        changes = [op for op in difflib.SequenceMatcher(None, before, now, autojunk=False).get_opcodes()
                   if op[0] != "equal"]
        if self.reading == NOTEBOOK_READING:
            return _notebook_after(self.raw, self.text, changes, now)
        return _html_after(self.raw, self.origin, before, changes, now)

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
        cells.append((first, f"notebook cell {number}", 1))
        line += block.count("\n") + 2
    return "\n\n".join(parts) + "\n", tuple(cells)


def _notebook_after(raw: str, text: str, changes, now: list[str]) -> str | None:
    """``Snapshot.file_after`` for a notebook: each change of the reading, inside one cell's source, made there."""
    import nbformat

    notebook = nbformat.reads(raw, as_version=4)
    if nbformat.writes(notebook).rstrip("\n") != raw.replace("\r\n", "\n").rstrip("\n"):
        return None  # not as nbformat writes it: rewriting it would change more than the changed lines
    spans, line = [], 0  # (first reading line of the source, 0-based; its line count; the cell)
    for cell in notebook.cells:
        source = str(cell.get("source", "")).replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")
        if cell.get("cell_type") not in ("markdown", "code"):
            continue
        first = line + (cell.get("cell_type") == "code")
        count = source.count("\n") + 1
        spans.append((first, count, cell))
        line = first + count + (cell.get("cell_type") == "code") + 1
    edits: dict[int, list] = {}
    for _, i1, i2, j1, j2 in changes:
        home = next((span for span in spans if span[0] <= i1 < span[0] + span[1]
                     or (i1 == i2 and span[0] < i1 <= span[0] + span[1])), None)
        if home is None or i2 > home[0] + home[1]:
            return None
        edits.setdefault(id(home[2]), [home]).append((i1 - home[0], i2 - home[0], now[j1:j2]))
    for home, *cell_edits in edits.values():
        source = str(home[2].source).replace("\r\n", "\n")
        lines = source.rstrip("\n").split("\n")
        for a, b, new in sorted(cell_edits, key=lambda e: e[0], reverse=True):
            lines[a:b] = new
        # the source's own line ends after its last line (a cell saved ending in a newline) are kept
        home[2].source = "\n".join(lines) + source[len(source.rstrip("\n")):]
    return nbformat.writes(notebook).rstrip("\n") + ("\n" if raw.endswith("\n") else "")


_WORD = re.compile(r"[\w.,/@%-]")


def common_ends(old: str, new: str) -> tuple[int, int]:
    """How many characters ``old`` and ``new`` share at their start and, after that, at their end: what an edit of
    one into the other leaves as it was."""
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    q = 0
    while q < min(len(old), len(new)) - p and old[len(old) - 1 - q] == new[len(new) - 1 - q]:
        q += 1
    return p, q


def _html_after(raw: str, origin, before: list[str], changes, now: list[str]) -> str | None:
    """``Snapshot.file_after`` for an HTML page: a changed line's changed piece replaced in the page's source lines
    it came from, where it occurs once (as written or HTML-escaped); a changed listing in its ``<pre>`` lines."""
    import html

    lines = raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    starts = {first - 1: source - 1 for first, _, source in origin}  # reading line → source line, 0-based
    ordered = sorted(set(starts.values()))

    def region(i: int) -> tuple[int, int]:
        start = starts.get(i)
        later = [s for s in ordered if start is not None and s > start]
        return start, (later[0] if later else len(lines) - 1)

    for _, i1, i2, j1, j2 in reversed(changes):
        if i2 - i1 == j2 - j1:
            for i, j in zip(range(i1, i2), range(j1, j2)):
                old, new = before[i], now[j]
                start, end = region(i)
                if start is None:
                    return None
                p, q = common_ends(old, new)
                a, b = p, len(old) - q
                while a > 0 and _WORD.match(old[a - 1]):
                    a -= 1
                while b < len(old) and _WORD.match(old[b]):
                    b += 1
                placed = False
                while not placed:
                    piece, put = old[a:b], new[a:len(new) - (len(old) - b)]
                    block = "\n".join(lines[start:end + 1])
                    for form, into in ((piece, put), (html.escape(piece, quote=False), html.escape(put, quote=False))):
                        if form and block.count(form) == 1:
                            lines[start:end + 1] = block.replace(form, into).split("\n")
                            placed = True
                            break
                    if not placed:
                        if a == 0 and b == len(old):
                            return None
                        a, b = max(0, a - 1), min(len(old), b + 1)
            continue
        # a listing of another length: its lines are the <pre> block's, escaped, between the fence lines
        if i1 == i2:  # lines inserted after a listing line: after its source line
            anchor = starts.get(i1 - 1)
            if anchor is None or not lines[anchor].endswith(html.escape(before[i1 - 1], quote=False)) \
                    or before[i1 - 1].startswith("```"):
                return None
            lines[anchor + 1:anchor + 1] = [html.escape(line, quote=False) for line in now[j1:j2]]
            continue
        start, _ = region(i1)
        if start is None or not all(starts.get(i) == start + (i - i1) for i in range(i1, i2)):
            return None
        old_raw = lines[start:start + (i2 - i1)]
        first, last = html.escape(before[i1], quote=False), html.escape(before[i2 - 1], quote=False)
        if not old_raw[0].endswith(first) or not old_raw[-1].startswith(last):
            return None
        prefix, suffix = old_raw[0][:len(old_raw[0]) - len(first)], old_raw[-1][len(last):]
        new_raw = [html.escape(line, quote=False) for line in now[j1:j2]]
        if new_raw:
            new_raw[0], new_raw[-1] = prefix + new_raw[0], new_raw[-1] + suffix
        elif prefix + suffix:
            new_raw = [prefix + suffix]
        lines[start:start + (i2 - i1)] = new_raw
    return "\n".join(lines)


_BLOCKS = {"p", "div", "section", "article", "li", "tr", "br", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
           "dt", "dd", "figcaption", "caption", "table", "ul", "ol", "hr", "main", "header", "footer", "aside", "nav"}


def _html_text(raw: str) -> tuple[str, tuple[tuple[int, str, int], ...]]:
    """A page's text and each line's line in the HTML source (``HTML_READING``)."""
    from html.parser import HTMLParser

    class Reader(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.lines: list[tuple[str, int]] = []  # (text, source line)
            self.current, self.at = "", 1
            self.skip = 0          # inside script, style or head
            self.pre = 0           # inside <pre> (nested ones counted)
            self.opened = 0        # the line of the open listing's fence
            self.cells: list[str] | None = None
            self.header = False
            self.hidden: list[list] = []   # elements a browser does not render: [tag, open nested of that tag]

        def flush(self) -> None:
            text = " ".join(self.current.split())
            if text:
                self.lines.append((text, self.at))
            self.current = ""

        def handle_starttag(self, tag, attrs):
            if self.hidden and tag == self.hidden[-1][0]:
                self.hidden[-1][1] += 1
            if _not_rendered(tag, attrs, hiding) and tag not in _VOID:
                # what a browser does not show is not the page's text: a listing's hidden span is not its code
                self.hidden.append([tag, 1])
                self.skip += 1
                return
            if tag in ("script", "style", "head", "template"):
                self.skip += 1
            elif tag == "pre":
                if not self.pre:  # a <pre> inside a <pre> is part of the same listing
                    self.flush()
                    self.opened = len(self.lines)
                    self.lines.append(("```python", self.getpos()[0]))  # its fence is sized at the end
                    self.current = ""
                self.pre += 1
            elif tag == "tr":
                self.flush()
                self.cells, self.header = [], True
            elif tag in ("td", "th") and self.cells is not None:
                self.current = ""
                self.header = self.header and tag == "th"
            elif tag == "code" and not self.pre:
                self.current += "`"
            elif tag in _BLOCKS and not self.pre:
                self.flush()
                if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                    self.current = "#" * int(tag[1]) + " "
                    self.at = self.getpos()[0]

        def handle_endtag(self, tag):
            if self.hidden and tag == self.hidden[-1][0]:
                self.hidden[-1][1] -= 1
                if not self.hidden[-1][1]:
                    self.hidden.pop()
                    self.skip = max(0, self.skip - 1)
                return
            if tag in ("script", "style", "head", "template"):
                self.skip = max(0, self.skip - 1)
            elif tag == "pre" and self.pre:
                self.pre -= 1
                if not self.pre:
                    code = self.current.strip("\n")
                    line = self.lines[-1][1]
                    # a fence longer than any run of backticks in the code, as CommonMark needs to not close early
                    fence = "`" * max(3, max((len(r) for r in re.findall(r"`+", code)), default=0) + 1)
                    self.lines[self.opened] = (f"{fence}python", self.lines[self.opened][1])
                    for i, text in enumerate(code.split("\n")):
                        self.lines.append((text, line + i))
                    self.lines.append((fence, self.getpos()[0]))
                    self.current = ""
            elif tag in ("td", "th") and self.cells is not None:
                self.cells.append(" ".join(self.current.split()))
                self.current = ""
            elif tag == "tr" and self.cells is not None:
                self.lines.append(("| " + " | ".join(self.cells) + " |", self.at))
                if self.header and self.cells:  # a header row: Markdown's delimiter row under it
                    self.lines.append(("|" + "---|" * len(self.cells), self.at))
                self.cells, self.current = None, ""
            elif tag == "code" and not self.pre:
                self.current += "`"
            elif tag in _BLOCKS and not self.pre:
                self.flush()

        def handle_data(self, data):
            if self.skip:
                return
            if not self.current.strip() and not self.pre:  # a new run of text: the line its first word is on
                self.at = self.getpos()[0] + data[:len(data) - len(data.lstrip())].count("\n")
            self.current += data

    hiding = _hiding_selectors(raw)
    reader = Reader()
    reader.feed(raw.replace("\r\n", "\n").replace("\r", "\n"))
    reader.close()
    reader.flush()
    text_lines: list[str] = []
    origin: list[tuple[int, str, int]] = []
    fenced = False
    for text, source in reader.lines:
        row = text.startswith("|")
        if text_lines and not fenced and not text.startswith("```") and not (row and text_lines[-1].startswith("|")):
            text_lines.append("")  # blocks apart, as Markdown paragraphs; a table's rows together
            origin.append((len(text_lines), "", source))
        if text.startswith("```"):
            fenced = not fenced
        text_lines.append(text)
        origin.append((len(text_lines), "", source))
    return "\n".join(text_lines) + "\n", tuple(origin)





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
