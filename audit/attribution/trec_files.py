"""Real TREC files as `audit crosscheck` reads them: qrels and runs line by line in bounded chunks, every
line that can change a number kept as an issue (a repeated document, a tie, a bad grade, an overlong ID), each
library's own reader's verdict on the whole file, and a run's queries as the blocks the file groups them in."""

from __future__ import annotations

import math
import re

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from audit.errors import AuditError
from audit.model.files import open_regular
from audit.model.limits import (
    MAX_DOCS_PER_QUERY,
    MAX_ID_CHARS,
    MAX_TREC_GRADE,
    MAX_TREC_LINE_BYTES,
    MIN_TREC_GRADE,
    shorten,
    trim,
)


@dataclass
class Issue:
    """Something in an input file that can change a number: ``line`` (1-based), ``cause``, ``text``."""

    line: int
    cause: str
    text: str


@dataclass
class TrecInput:
    """A qrels or run as read: ``data`` (qrels {q: {d: grade}}; run {q: {d: score}}), ``order``
    (run only: documents in file order per query), ``issues`` found, and each library reader's verdict."""

    path: Path
    kind: str
    data: dict
    order: dict = field(default_factory=dict)
    issues: list[Issue] = field(default_factory=list)
    readers: dict[str, str] = field(default_factory=dict)


def _reader_verdicts(path: Path, kind: str) -> dict[str, str]:
    """What each library's own reader does with the whole file, read in that library's worker process
    (``Reference.reader_verdict``): ``{library: verdict}``."""
    from audit.evaluation.references import all_references

    return {ref.name: ref.reader_verdict(str(path), kind) for ref in all_references()}


_GRADE = re.compile(r"^[+-]?[0-9]+$")


def _lines(handle, path: Path, kind: str):
    """``(number, text, bytes)`` of each line, decoded as UTF-8, without its newline (``bytes``: its length
    in the file, newline included); refuses UTF-16 and binary files (``AuditError`` naming the line)."""
    number = 0
    for piece, text, ascii_only in _chunks(handle):
        if text is _TOO_LONG:
            raise AuditError(f"line {number + 1} is longer than {MAX_TREC_LINE_BYTES:,} bytes (the limit): the {kind} "
                             "file is not line-oriented TREC text", file=str(path))
        if text is None:  # something to refuse in this piece: find its line with the exact checks
            for raw in piece.split(b"\n")[:-1] if piece.endswith(b"\n") else piece.split(b"\n"):
                number += 1
                if number == 1 and raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
                    raise AuditError(f"the {kind} file is UTF-16 text; TREC files are plain UTF-8 (ASCII) text — "
                                     "convert it first (e.g. iconv -f UTF-16 -t UTF-8)", file=str(path))
                if b"\x00" in raw:
                    raise AuditError(f"line {number} holds a NUL byte: the {kind} file looks binary (or UTF-16), "
                                     "not a TREC text file", file=str(path))
                try:
                    yield number, raw.decode("utf-8"), len(raw) + 1
                except UnicodeDecodeError as exc:
                    raise AuditError(f"line {number} is not UTF-8 text ({exc.reason} at byte {exc.start} of the "
                                     f"line); the {kind} file looks binary or in another encoding", file=str(path))
            continue
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        for line in lines:
            number += 1
            yield number, line, (len(line) if ascii_only else len(line.encode("utf-8"))) + 1


#: Bytes of a file read and decoded at once (cut after the last whole line).
CHUNK = 8 * 2**20


#: What ``_chunks`` yields as the text of a line longer than ``MAX_TREC_LINE_BYTES``.
_TOO_LONG = "<a line past the limit>"


def _chunks(handle):
    """``(bytes, text, ascii)`` of the file in pieces of about ``CHUNK`` bytes, each ending after a newline
    (the last one perhaps not); ``text`` is the piece decoded as UTF-8, or None when the piece holds
    something ``_lines`` refuses (a UTF-16 mark at the start, a NUL byte, bytes that are not UTF-8), or
    ``_TOO_LONG`` (then last) for a line longer than ``MAX_TREC_LINE_BYTES``, which is not read further."""
    rest, first = b"", True
    while True:
        data = handle.read(CHUNK)
        piece = rest + data
        if not data:
            if piece:
                yield _decoded(piece, first)
            return
        cut = piece.rfind(b"\n") + 1
        if cut == 0:
            if len(piece) > MAX_TREC_LINE_BYTES:  # one line past the limit: refused now, not read to its end
                head = piece[:MAX_TREC_LINE_BYTES]
                yield head, None if b"\x00" in head else _TOO_LONG, False  # a NUL byte is named as such
                return
            rest = piece
            continue
        if len(piece) - cut > MAX_TREC_LINE_BYTES:
            yield _decoded(piece[:cut], first)
            head = piece[cut:cut + MAX_TREC_LINE_BYTES]
            yield head, None if b"\x00" in head else _TOO_LONG, False
            return
        rest = piece[cut:]
        yield _decoded(piece[:cut], first)
        first = False


def _decoded(piece: bytes, first: bool) -> tuple[bytes, str | None, bool]:
    if b"\x00" in piece or (first and piece[:2] in (b"\xff\xfe", b"\xfe\xff")):
        return piece, None, False
    try:
        return piece, piece.decode("utf-8"), piece.isascii()
    except UnicodeDecodeError:
        return piece, None, False


def shown_id(text: str) -> str:
    """An ID as a report shows it: as it is when every character is visible, else in quotes with the invisible
    ones escaped (``"\\ufeffq1"``), so a byte-order mark or a zero-width space is seen."""
    if text.isprintable() and not any(c in _INVISIBLE for c in text):
        return text
    return '"' + "".join(c if c.isprintable() and c not in _INVISIBLE else f"\\u{ord(c):04x}" for c in text) + '"'


#: Printable by Python's rules but not seen: zero-width characters, the word joiner, the byte-order mark.
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")


def _id_too_long(fields: list[str], number: int, path: Path) -> None:
    """Raise ``AuditError`` (file, line, field) when the line's query ID (field 1) or document ID (field 3) is
    longer than ``MAX_ID_CHARS``."""
    for index, what in ((0, "query ID"), (2, "document ID")):
        if len(fields[index]) > MAX_ID_CHARS:
            raise AuditError(f"line {number}: the {what} (field {index + 1}) is {len(fields[index]):,} characters "
                             f"long, more than the limit of {MAX_ID_CHARS:,} (real IDs are tens of characters; one "
                             f"long ID multiplies ranx's memory by the number of IDs): {trim(fields[index], 40)}",
                             file=str(path))


def _too_many_documents(query: str, number: int, path: Path, kind: str) -> AuditError:
    """The error for a query given more than ``MAX_DOCS_PER_QUERY`` documents, at line ``number``."""
    return AuditError(f"line {number}: query {shorten(shown_id(query), 40)} has more than {MAX_DOCS_PER_QUERY:,} "
                      f"documents in the {kind} file, the limit per query (a TREC run keeps 1,000 a query)",
                      file=str(path))


class _LineReader:
    """One TREC file's lines, checked and read one at a time (the rules ``read_trec`` states).

    ``issues`` collects what can change a number, in line order; ``lines`` counts non-blank lines.
    A repeated (query, doc) is found among the pairs seen since the last ``forget()`` (``seen``:
    ``{query: {doc: line}}``).
    """

    def __init__(self, path: Path, kind: str) -> None:
        self.path, self.kind = path, kind
        self.width = 4 if kind == "qrels" else 6
        self.issues: list[Issue] = []
        self.lines = 0
        self.seen: dict[str, dict[str, int]] = {}

    def forget(self, keep: str | None = None) -> None:
        """Forget the pairs seen, except those of query ``keep``."""
        kept = self.seen.get(keep) if keep is not None else None
        self.seen.clear()
        if kept is not None:
            self.seen[keep] = kept

    def read(self, number: int, line: str) -> tuple[str, str, int | float, bool] | None:
        """``(query, doc, grade or score, repeats an earlier line)`` of a data line, None for a blank or
        comment line; raises ``AuditError`` (file and line) for a malformed one."""
        fields = line.split()
        if not fields:
            return None
        self.lines += 1
        kind, path = self.kind, self.path
        if number == 1 and line.startswith("\ufeff"):
            self.issues.append(Issue(number, f"the file starts with a UTF-8 byte-order mark (U+FEFF), which every "
                                     f"reader here keeps as part of the first ID: {shown_id(fields[0])} is not "
                                     f"{shown_id(fields[0][1:])}", line.rstrip("\n")))
        if line.lstrip().startswith("#"):
            self.issues.append(Issue(number, "comment line", line.rstrip("\n")))
            return None
        if len(fields) < self.width:
            raise AuditError(f"line {number} has {len(fields)} fields; a {kind} line has {self.width}: "
                             f"{trim(line.strip())}", file=str(path))
        if len(fields) > self.width:
            self.issues.append(Issue(number, f"{len(fields)} fields (extra ones ignored)", line.rstrip("\n")))
        _id_too_long(fields, number, path)
        query, doc = fields[0], fields[2]
        seen = self.seen.setdefault(query, {})
        earlier = seen.get(doc)
        if earlier is None and len(seen) >= MAX_DOCS_PER_QUERY:
            raise _too_many_documents(query, number, path, kind)
        if earlier is not None:
            self.issues.append(Issue(number, f"repeats document {doc} of query {query} (line {earlier})"
                                     + ("; the last line is used" if kind == "qrels" else ""), line.rstrip("\n")))
        seen[doc] = number
        if kind == "qrels":
            value = fields[3]
            if not _GRADE.match(value):
                raise AuditError(f"line {number}: grade {trim(value, 40)} is not a whole number; TREC grades "
                                 "are integers (0 non-relevant, 1 or more relevant)", file=str(path))
            grade = int(value) if len(value) <= 40 else (-1 if value.startswith("-") else 1) * 10 ** 40
            if grade > MAX_TREC_GRADE:
                raise AuditError(f"line {number}: grade {shorten(value, 40)} is above {MAX_TREC_GRADE:,}, the "
                                 "cross-check's limit: trec_eval (pytrec_eval, and ir-measures through it) keeps a "
                                 "counter for every grade from 0 to a query's highest, and its ndcg takes time "
                                 "growing with the square of that grade (about 1 s a query at 100,000, minutes at "
                                 "1,000,000; 2**31 - 1 crashes pytrec_eval)", file=str(path))
            if grade < MIN_TREC_GRADE:
                raise AuditError(f"line {number}: grade {shorten(value, 40)} is below -(2**63 - 1), the cross-check's "
                                 "limit: every library reads a negative grade as non-relevant down to it, but at "
                                 "-2**63 ranx's 64-bit integers overflow (nDCG 1.58) and below it pytrec_eval refuses "
                                 "the grade (a C long)", file=str(path))
            if grade < 0:
                self.issues.append(Issue(number, f"negative grade {value}", line.rstrip("\n")))
            return query, doc, grade, earlier is not None
        value = fields[4]
        try:
            score = float(value)
        except ValueError:
            raise AuditError(f"line {number}: score {trim(value, 40)} is not a number", file=str(path))
        if not math.isfinite(score):
            self.issues.append(Issue(number, f"score {value} is {'NaN' if math.isnan(score) else 'infinite'}"
                                     " (not a finite number)", line.rstrip("\n")))
        return query, doc, score, earlier is not None


def read_trec(path: Path, kind: str, *, check_readers: bool = True) -> TrecInput:
    """Read a TREC qrels (``query iter doc grade``) or run (``query Q0 doc rank score tag``) file.

    Comment lines (``#`` first) are skipped, extra fields beyond the standard ones ignored, and
    a repeated (query, doc) keeps its last line, as ir-measures and ranx do — each recorded as
    an ``Issue`` with its line number, as are negative grades and NaN or infinite scores. Raises
    ``AuditError`` (file and line) for a file that is not a regular UTF-8 text file (a FIFO, a
    device, binary or UTF-16), an empty file, a line with too few fields, a score that is not a
    number, or a grade that is not a whole number from ``limits.MIN_TREC_GRADE`` to ``limits.MAX_TREC_GRADE``. With
    ``check_readers``, ``readers`` holds each library reader's verdict on the file.
    """
    data: dict = defaultdict(dict)
    order: dict = defaultdict(dict)  # {query: {doc: None}} in file order: a repeated doc moves to the end in O(1)
    reader = _LineReader(path, kind)
    handle = open_regular(path, f"{kind} file")
    plain = 0
    with handle:
        for number, line, _ in _lines(handle, path, kind):
            if kind == "qrels":  # a plain judgement (four fields, a small whole grade, a new pair) directly
                fields = line.split()
                if len(fields) == 4 and fields[0][0] not in "#\ufeff" and fields[3].isascii() and fields[3].isdigit() \
                        and len(fields[3]) <= 2 and len(fields[0]) <= MAX_ID_CHARS \
                        and len(fields[2]) <= MAX_ID_CHARS:  # a grade of at most 99, IDs within the limit
                    seen = reader.seen.setdefault(fields[0], {})
                    if fields[2] not in seen and len(seen) < MAX_DOCS_PER_QUERY:
                        seen[fields[2]] = number
                        data[fields[0]][fields[2]] = int(fields[3])
                        plain += 1
                        continue
            read = reader.read(number, line)
            if read is None:
                continue
            query, doc, value, repeated = read
            data[query][doc] = value
            if kind == "run":
                if repeated:
                    del order[query][doc]
                order[query][doc] = None
    if reader.lines + plain == 0:
        raise AuditError(f"the {kind} file is empty", file=str(path))
    result = TrecInput(path, kind, dict(data), {q: list(docs) for q, docs in order.items()}, reader.issues)
    if check_readers:
        result.readers = _reader_verdicts(path, kind)
    return result


class _NotGrouped(Exception):
    """A run whose lines for one query are not all together (the query comes back after another)."""


@dataclass
class _Block:
    """One query's lines of a run read in one piece: ``scores`` {doc: score}, ``order`` (documents in file
    order, a repeated one at its last line), whether a docno repeats, and the byte span of its lines."""

    query: str
    scores: dict[str, float]
    order: list[str]  # while the query is read, a dict {doc: None} in file order (a repeated doc moves in O(1))
    repeated: bool
    span: tuple[int, int]


def _run_blocks(handle, path: Path, reader: _LineReader):
    """The run's queries one at a time (``_Block``), as ``read_trec`` reads them, holding one query's
    lines at a time. Raises ``_NotGrouped`` when a query comes back after another query's lines, and
    ``AuditError`` as ``read_trec`` does.

    A plain line (six fields, of the query being read, a docno not seen in it, a finite score) is
    taken directly; every other line goes through ``reader.read``, which applies all of the rules."""
    done: set[str] = set()
    block: _Block | None = None
    seen: dict[str, int] = {}
    offset = plain = 0
    inf = math.inf
    for number, line, size in _lines(handle, path, "run"):
        fields = line.split()
        if block is not None and len(fields) == 6 and fields[0] == block.query and fields[2] not in seen \
                and len(fields[2]) <= MAX_ID_CHARS and len(seen) < MAX_DOCS_PER_QUERY:
            try:
                score = float(fields[4])
            except ValueError:
                score = inf
            if -inf < score < inf:
                doc = fields[2]
                seen[doc] = number
                block.scores[doc] = score
                block.order[doc] = None
                plain += 1
                offset += size
                continue
        read = reader.read(number, line)
        if read is not None:
            query, doc, score, repeated = read
            if block is None or query != block.query:
                if block is not None:
                    block.span, block.order = (block.span[0], offset), list(block.order)
                    yield block
                    done.add(block.query)
                    reader.forget(keep=query)
                if query in done:
                    raise _NotGrouped(query)
                block = _Block(query, {}, {}, False, (offset, offset))
                seen = reader.seen[query]
            if repeated:
                del block.order[doc]
                block.repeated = True
            block.scores[doc] = score
            block.order[doc] = None
        offset += size
    if block is not None:
        block.span, block.order = (block.span[0], offset), list(block.order)
        yield block
    if reader.lines + plain == 0:
        raise AuditError("the run file is empty", file=str(path))


def _reread(path: Path, spans: dict[str, tuple[int, int]]) -> tuple[dict, dict]:
    """The scores and file order of the queries in ``spans`` (``{query: (first byte, end byte)}`` of each
    query's lines), read again from those bytes only: ``({q: {doc: score}}, {q: [doc, …]})``."""
    run: dict = defaultdict(dict)
    order: dict = defaultdict(dict)  # {query: {doc: None}} in file order, as in read_trec
    reader = _LineReader(path, "run")
    with open(path, "rb") as handle:
        for query, (start, end) in sorted(spans.items(), key=lambda item: item[1]):
            handle.seek(start)
            reader.forget()
            for raw in handle.read(end - start).split(b"\n"):
                read = reader.read(0, raw.decode("utf-8"))
                if read is not None and read[0] == query:
                    _, doc, score, repeated = read
                    if repeated:
                        del order[query][doc]
                    run[query][doc] = score
                    order[query][doc] = None
    return dict(run), {q: list(docs) for q, docs in order.items()}
