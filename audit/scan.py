"""Quantitative statements in chapter prose, found by pattern: the claims a register should cover.

Kinds found: ``metric`` (``P@4 = 1/4``, ``Recall@1 = 1/2``, ``nDCG@10 of 0.62``), ``ratio`` (``21/43 ≈
.4884``, ``21/(21+16) ≈ .5676``, ``21/21 = 1``), ``arrow`` (``3rd → 0.33``), ``percent`` (``80%``),
``fraction words`` (``a fifth``, ``one in five``), ``cutoff`` (``k = 4``), ``count`` (``twenty-one of the
forty-three``, ``fifty retained``, a table's ``Whole cohort 43 7``), ``range`` (``25–40 questions``) and
``rank comparison`` (``rank 1 beats rank 4``) and ``table`` (rows of labelled counts that must add up).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .chapter import Snapshot

_NUM = r"(?:\d+(?:\.\d+)?|\.\d+)"
_FRAC = rf"(?:{_NUM}\s*/\s*{_NUM})"
_VALUE = rf"(?:{_FRAC}|{_NUM}%?)"
_METRIC = r"(?:P|Precision|R|Recall|RR|MRR|AP|MAP|nDCG|NDCG|DCG|Judged|Success|F1?)(?:@\s*(?:k|\d+))?"
_WORDNUM = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
            r"sixty|seventy|eighty|ninety|hundred)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?")

PATTERNS: list[tuple[str, re.Pattern]] = [
    ("metric", re.compile(rf"\b{_METRIC}\s*(?:=|≈|~|of|is)\s*(?:≈\s*)?{_VALUE}")),
    ("ratio", re.compile(rf"(?<![\w@]){_NUM}\s*/\s*(?:\(\s*{_NUM}(?:\s*[+\-]\s*{_NUM})+\s*\)|{_NUM})"
                         rf"\s*(?:≈|=)\s*{_VALUE}")),
    ("arrow", re.compile(rf"\b(?:\d+(?:st|nd|rd|th)|rank\s+\d+)\s*→\s*{_VALUE}")),
    ("percent", re.compile(rf"(?<![\w.]){_NUM}\s*%")),
    ("fraction words", re.compile(r"\b(?:a|one|two|three)\s+(?:half|third|quarter|fifth|tenth)s?\b"
                                  r"|\bone\s+(?:such\s+\w+\s+)?in\s+(?:two|three|four|five|ten)\b", re.I)),
    ("cutoff", re.compile(r"\bk\s*=\s*\d+(?:\s*(?:…|\.\.\.)\s*\d+)?")),
    ("count", re.compile(rf"\b{_WORDNUM}\s+of\s+(?:the\s+)?{_WORDNUM}\b|\b(?:fifty|forty|thirty|twenty)(?:-\w+)?"
                         rf"\s+(?:retained|candidates|questions|positives|documents)\b"
                         rf"|\b(?:Whole\s+cohort|Total|All)\s+\d+(?:\s+\d+)+", re.I)),
    ("table", re.compile(r"(?:\b[A-Z][A-Za-z/]*(?:\s+[a-z]+)?\s+\d+\s+\d+\s+){2,}[A-Z][A-Za-z/]*(?:\s+[a-z]+)?"
                         r"\s+\d+\s+\d+\b")),
    ("range", re.compile(r"\b\d+\s*[–-]\s*\d+\s+(?:questions|documents|results|chunks|items)\b")),
    ("rank comparison", re.compile(r"\brank\s+\d+\s+(?:beats|outranks|over)\s+rank\s+\d+\b")),
]


@dataclass(frozen=True)
class Statement:
    """A quantitative statement: its ``kind``, the matched ``text``, 1-based ``line``/``column``,
    and character ``start``/``end`` in the snapshot."""

    kind: str
    text: str
    line: int
    column: int
    start: int
    end: int


def scan(snapshot: Snapshot) -> list[Statement]:
    """Every quantitative statement in the snapshot, in reading order, overlaps merged
    (the longer match wins), editorial markers ignored."""
    text = snapshot.text
    found: list[Statement] = []
    for kind, pattern in PATTERNS:
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            if text.split("\n")[line - 1].lstrip().startswith("[..."):
                continue
            column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
            found.append(Statement(kind, m.group(0), line, column, m.start(), m.end()))
    found.sort(key=lambda s: (s.start, -(s.end - s.start)))
    merged: list[Statement] = []
    for s in found:
        if merged and s.start < merged[-1].end:
            if s.end - s.start > merged[-1].end - merged[-1].start:
                merged[-1] = s
            continue
        merged.append(s)
    return merged


def covered_by(statement: Statement, spans: dict[str, tuple[int, int]]) -> list[str]:
    """Ids of claims whose quote span overlaps the statement."""
    return [cid for cid, (a, b) in spans.items() if a < statement.end and statement.start < b]


_NUMERIC = re.compile(r"\d|\b(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)|"
                      r"\b(?:half|third|quarter|fifth|tenth)s?\b|\bone\b[\w\s]{0,20}\bin\s+(?:two|three|four|five|ten)\b",
                      re.I)


def has_number(text: str) -> bool:
    """Whether a quote states a quantity: digits, a number word from twenty up, a fraction word
    (``a fifth``) or a rate (``one … in five``). Small number words (``one grade``, ``twice``) are
    ordinary prose and do not count."""
    return bool(_NUMERIC.search(text))
