"""A ranking printed as a table: a rank column, a relevance or grade column and optionally a document column
(``| Rank | Document | Relevant |`` with yes/no, ✓/✗, 1/0 or 0–3 grades; ``| # | doc | judged |``)."""

from __future__ import annotations

import re

from audit.draft.examples.example import Example

_HEADING = re.compile(r"^\s*#{1,6}\s", re.MULTILINE)
_RULE = re.compile(r"^\s*\|?[\s:|-]+$")
_RANK = re.compile(r"^(?:rank|position|pos\.?|#)$")
_GRADE = re.compile(r"^(?:grade|relevance|relevant|rel\b|rel\.|judged|judgements?|judgments?|label|gain)")
#: A column counting as it goes down the ranking ("relevant so far", "hits", "# relevant retrieved", "P@k"), not one
#: document's grade.
_RUNNING = re.compile(r"\b(?:so\s+far|cumulative|running|total|retrieved|found|count|hits)\b|@|#|\bat\s+k\b",
                      re.IGNORECASE)
_DOC = re.compile(r"^(?:doc|document|id|passage|chunk|result|item)")


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def grade(cell: str, judged_column: bool = False) -> int | None | str:
    """A table cell → a grade (int), ``"unjudged"``, or ``None`` when unreadable. In a relevance column "no", ✗ and
    "non-relevant" are grade 0, "yes", ✓ and "relevant" grade 1; in a ``judged`` column "no" means unjudged."""
    c = cell.lower().strip().strip("*_`")
    if re.match(r"^(?:unjudged|not\s+judged|—|-|–|\?)(?:\W|$)", c) or (judged_column and re.match(r"^no\b", c)):
        return "unjudged"
    # a mark first ("✓ (2nd hit)", "yes, hit 3"): the number after it counts hits, it is no grade
    if re.match(r"^(?:non-?relevant|not\s+relevant|irrelevant|no\b|n\b|✗|✘|×|x\b|❌)", c):
        return 0
    if re.match(r"^(?:yes\b|y\b|relevant\b|✓|✔|☑|✅)", c):
        return 1
    digits = re.match(r"^(?:grade\s*|g)?(\d+)(?![./]\d)", c)
    if digits:
        return int(digits.group(1))
    return None


def _parse(text: str) -> list[tuple[int, int, list[tuple[str, int | None]], dict[str, int], bool]]:
    """Each ranking table: (start, end, ranking, judged documents the next paragraph names as never retrieved,
    complete: a stated count of judged documents that the table and those match)."""
    from audit.text.words import _N, number
    from audit.text.markdown import pipe_tables
    out = []
    for start, end, _, rows in pipe_tables(text):
        head = [h.lower().strip("*_` ") for h in _cells(rows[0])]
        rank_col = next((n for n, h in enumerate(head) if _RANK.match(h)), None)
        grade_col = next((n for n, h in enumerate(head) if _GRADE.match(h) and not _RUNNING.search(h)), None)
        doc_col = next((n for n, h in enumerate(head) if _DOC.match(h) and n not in (rank_col, grade_col)), None)
        if rank_col is not None and grade_col is not None:
            judged_column = head[grade_col].startswith("judged")
            body = [_cells(r) for r in rows[1:] if not _RULE.match(r)]
            ranked, ok = [], True
            for n, row in enumerate(body):
                if len(row) <= max(rank_col, grade_col, doc_col or 0):
                    ok = False
                    break
                doc = row[doc_col].strip("`*_ ") if doc_col is not None else f"d{n + 1}"
                g = grade(row[grade_col], judged_column)
                rank = number(row[rank_col].strip("*_ "))
                if g is None or rank is None or not doc:
                    ok = False
                    break
                if not re.fullmatch(r"[\w.:-]+", doc):
                    doc = f"d{rank}"   # a title ("Company overview"), not an ID: the document at that rank
                ranked.append((rank, doc, None if g == "unjudged" else g))
            docs = [d for _, d, _ in ranked]
            if ok and ranked and len(set(docs)) == len(docs):
                before = text[:start]
                section_start = max([m.end() for m in _HEADING.finditer(before)] or [0])
                after_end = text.find("\n\n", end + 2)
                after = text[end:after_end if after_end != -1 else len(text)]
                unretrieved: dict[str, int] = {}
                for m in re.finditer(r"\b(?P<doc>[\w.-]+),?\s+(?:has|with)\s+grade\s+(?P<g>\d+)\b[^.]*?\b(?:never|not)\s+"
                                     r"(?:retrieved|returned)", after, re.IGNORECASE):
                    if m.group("doc") not in docs:
                        unretrieved.setdefault(m.group("doc"), int(m.group("g")))
                judged = sum(1 for _, _, g in ranked if g is not None) + len(unretrieved)
                stated = re.search(rf"\b(?P<n>{_N})\s+judged\s+documents\b", text[section_start:start], re.IGNORECASE)
                complete = bool(stated) and number(stated.group("n")) == judged
                out.append((start, end, [(d, g) for _, d, g in sorted(ranked, key=lambda r: r[0])], unretrieved,
                            complete))
    return out


def find(text: str) -> list[Example]:
    """Each ranking table as an example; complete (every judged grade known) when the section states the count of
    judged documents and the table, with the documents named as never retrieved, holds that many."""
    out = []
    for start, end, ranking, unretrieved, complete in _parse(text):
        judged = [g for _, g in ranking if g is not None] + list(unretrieved.values()) if complete else None
        out.append(Example("rank table", start, end, text.count("\n", 0, start) + 1, ranking, whole=True,
                           judged=judged, unretrieved=unretrieved))
    return out


def fixture_tables(text: str) -> list[tuple[int, int, dict, bool]]:
    """Rankings printed as tables, as ``(start, end, fixture, complete)`` in reading order: the fixture holds the
    table's judged documents and those the next paragraph says were never retrieved with their grade; ``complete``
    when every judged document of the need is known (a stated count of judged documents matches); when nothing is
    stated, the table is taken as complete only for measures that do not depend on unretrieved documents."""
    out = []
    for start, end, ranking, unretrieved, complete in _parse(text):
        qrels = {d: g for d, g in ranking if g is not None}
        for d, g in unretrieved.items():
            qrels.setdefault(d, g)
        out.append((start, end, {"qrels": {"q1": qrels or {"x": 0}}, "run": {"q1": [d for d, _ in ranking]}},
                    complete))
    return out
