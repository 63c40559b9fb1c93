"""A per-topic table of system scores: a topic (or query) column and a column per system, each row one topic's
scores (``| topic | A | B | B − A |``). A summary row (mean, MAP, total) and a difference column are not data. The
table is the data of the statistic claims the text reports on it: a t-test printed as "t(8) = 4.01, p = 0.005" under
it is recomputed from its rows, not only checked for consistency (``with_data``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from audit.text.decisions import stated_alpha, worded_decision

_TOPIC = re.compile(r"^(?:topic|query|qid|query\s+id|topic\s+id|q|request|question|#)$", re.IGNORECASE)
_SUMMARY = re.compile(r"^(?:mean|average|avg|map|mrr|total|sum|median|std|sd|all|overall)\b", re.IGNORECASE)
#: A column of differences or of a change, not a system's scores: "B − A", "diff", "Δ", "gain", a bare "d".
_DIFFERENCE = re.compile(r"\s[−–-]\s|\bdiff|Δ|\bdelta\b|\bgain\b|\bchange\b|\bwinner\b|\bbetter\b|"
                         r"(?-i:^\s*[dδ]\s*$)", re.IGNORECASE)
_NUMBER = re.compile(r"^[-−]?(?:\d+\.?\d*|\.\d+)$")
_HEADING = re.compile(r"^\s*#{1,6}\s", re.MULTILINE)
#: The t-tests that take two systems' per-topic scores.
_TWO_SAMPLE = ("paired t", "student t", "welch t")


@dataclass
class ScoreTable:
    """A table of per-topic scores: where it is, its first line, and each system's column as printed."""

    start: int
    end: int
    line: int
    systems: dict[str, list[str]]


def _cells(row: str) -> list[str]:
    return [c.strip().strip("*_` ") for c in row.strip().strip("|").split("|")]


def find(text: str) -> list[ScoreTable]:
    """Every per-topic score table of ``text``: a Markdown table whose first column names topics (or queries) and
    whose other columns, but differences, hold a number in every topic row."""
    from audit.text.markdown import pipe_tables
    out = []
    for start, end, first, rows in pipe_tables(text):
        table = _read(rows)
        if table:
            out.append(ScoreTable(start, end, first + 1, table))
    return out


def _read(rows: list[str]) -> dict[str, list[str]] | None:
    if len(rows) < 4 or not re.fullmatch(r"[\s:|-]+", rows[1]):
        return None
    head = _cells(rows[0])
    if len(head) < 3 or not _TOPIC.match(head[0]):
        return None
    body = [_cells(r) for r in rows[2:]]
    body = [r for r in body if len(r) == len(head) and not _SUMMARY.match(r[0])]
    systems = {h: [r[c] for r in body] for c, h in enumerate(head) if c and h and not _DIFFERENCE.search(f" {h} ")}
    if len(body) < 3 or len(systems) < 2:
        return None
    if not all(_NUMBER.match(v) for column in systems.values() for v in column):
        return None
    return systems


@dataclass
class DifferenceTable:
    """A table of per-topic differences (``| topic | B − A |``, ``| topic | Δ AP |``): each column's differences as
    printed, and the two systems each subtracts (``(B, A)``) when its header or the caption above the table says."""

    start: int
    end: int
    line: int
    systems: dict[str, list[str]]
    directions: dict[str, tuple[str, str] | None]


_MINUS = re.compile(r"(?P<a>[A-Za-z][\w.+-]*?)\s+[−–-]\s+(?P<b>[A-Za-z][\w.+-]*)")


def find_differences(text: str) -> list[DifferenceTable]:
    """Every table of ``text`` whose first column names topics and whose other columns are all differences with a
    number in every topic row."""
    from audit.text.markdown import pipe_tables
    out = []
    for start, end, first, rows in pipe_tables(text):
        if len(rows) < 5 or not re.fullmatch(r"[\s:|-]+", rows[1]):
            continue
        head = _cells(rows[0])
        if len(head) < 2 or not _TOPIC.match(head[0]) or not all(_DIFFERENCE.search(f" {h} ") for h in head[1:]):
            continue
        body = [r for r in (_cells(r) for r in rows[2:]) if len(r) == len(head) and not _SUMMARY.match(r[0])]
        columns = {h: [r[c] for r in body] for c, h in enumerate(head) if c}
        if len(body) < 3 or len(columns) != len(head) - 1 or \
                not all(_NUMBER.match(v) for column in columns.values() for v in column):
            continue
        caption = text[max(0, start - 300):start].rstrip().rpartition("\n\n")[2]
        said = list(_MINUS.finditer(caption))
        directions = {}
        for h in columns:
            m = _MINUS.search(h)
            directions[h] = ((m.group("a"), m.group("b")) if m else
                             (said[0].group("a"), said[0].group("b")) if len(said) == 1 and len(columns) == 1 else None)
        out.append(DifferenceTable(start, end, first + 1, columns, directions))
    return out


def _mean(values: list[str]) -> Fraction:
    return sum((Fraction(v.replace("−", "-")) for v in values), Fraction(0)) / len(values)


def _table_for(tables: list[ScoreTable], start: int, text: str) -> ScoreTable | None:
    """The score table a statement at ``start`` reports on: the last one before it, with no heading between."""
    before = [t for t in tables if t.end <= start]
    if not before or _HEADING.search(text, before[-1].end, start):
        return None
    return before[-1]


def with_data(claims: list[dict], sentence: str, start: int, text: str) -> list[dict]:
    """``claims`` with each t-test reported without data ("t(8) = 4.01, p = 0.005") given the per-topic table it
    follows as its data, when the table prints exactly two systems or the sentence names two of its columns: the
    system the test's t puts first is ``a`` (the sign of the reported t and of mean(a − b) agree), and the printed t,
    df and p become expectations recomputed from the rows, with the decision the sentence words."""
    table = _table_for(find(text), start, text) if any(c.get("reported") for c in claims) else None
    if table is None:
        return claims
    names = list(table.systems)
    if len(names) > 2:
        names = [n for n in names if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", sentence)]
    if len(names) != 2:
        return claims
    out = []
    for c in claims:
        reported = c.get("reported")
        if c.get("kind") != "statistic" or not reported or c.get("test") not in _TWO_SAMPLE:
            out.append(c)
            continue
        a, b = (table.systems[n] for n in names)
        if c["test"] == "paired t" and len(a) != len(b):
            out.append(c)
            continue
        t = str(reported["t"]).replace("−", "-")
        gap = _mean(a) - _mean(b)
        if gap == 0:
            out.append(c)
            continue
        if (gap > 0) != (not t.startswith("-")):
            names, a, b = names[::-1], b, a
        new = {k: v for k, v in c.items() if k != "reported"}
        new["claim"] = (f"{c['claim']}, {names[0]} against {names[1]} on the per-topic table at line {table.line}")
        new["data"] = {"a": list(a), "b": list(b)}
        new["expect"] = [{"statistic": "t", "claimed": t}, {"statistic": "df", "claimed": str(reported["df"])},
                         {"statistic": "p", "claimed": str(reported["p"])}]
        decided, alpha = worded_decision(sentence), stated_alpha(sentence)
        if decided in ("significant", "not significant") and (alpha or "%" not in sentence):
            new["decision"] = decided
            if alpha and alpha != "0.05":
                new["alpha"] = alpha
        out.append(new)
    return out
