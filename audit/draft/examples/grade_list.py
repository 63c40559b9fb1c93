"""A list of grades or binary relevance in rank order, in prose or in a listing: ``4, 3, 1, 0, 3, 2`` after
"grades" or "relevance", ``[1, 0, 1, 1, 0]`` in a sentence about a ranking, ``relevance = [3, 2, 3, 0, 1, 2]`` (or
``np.array([...])``) in code. A list named or called ideal ("the ideal order is [3, 3, 2, 2, 1, 0]",
``ideal = sorted(relevance, reverse=True)``) is not a ranking of its own: it states every judged grade of the
query (``ideals``)."""

from __future__ import annotations

import re
from functools import lru_cache

from audit.draft.examples.example import Example
from audit.text.stated import DIGITS

#: Names a listing gives a list of ranked grades.
_NAME = re.compile(r"^(?:rel|rels|relevance|relevances|relevance_scores|grades|graded|labels|gains|judgments|judgements|"
                   r"ranked_grades|ranked_relevance|relevance_labels|binary_relevance|hits|"
                   r"ranking_relevance|retrieved_relevance|\w*_rels?|\w*_grades|\w*_relevance|\w*_labels|rel_\w+)$",
                   re.IGNORECASE)
_NUMBERS = r"\d+(?:\s*,\s*\d+)+"
_ASSIGNED = re.compile(rf"(?P<name>\b[A-Za-z_]\w*)\s*=\s*(?:(?:np|numpy)\.array\(\s*|torch\.tensor\(\s*)?"
                       rf"\[(?P<list>{_NUMBERS})\](?!\s*[\],])")
_SORTED = re.compile(r"(?P<name>\b[A-Za-z_]*ideal\w*)\s*=\s*(?:sorted\(\s*(?P<of>\w+)\s*,\s*reverse\s*=\s*True\s*\)|"
                     r"(?:np\.)?sort\(\s*(?P<of2>\w+)\s*\)\s*\[\s*::\s*-1\s*\])")
_BRACKET = re.compile(rf"(?<![\w\]\[])\[(?P<list>{_NUMBERS})\](?!\s*[\[(\]])")
_CUE = re.compile(r"\b(?:grades?|graded|relevance|labels?|judge?ments?|gains?|binary|ranked|ranking|results|list)\b",
                  re.IGNORECASE)
_NOT_GRADES = re.compile(r"(?:\bk\b|\bcutoffs?|\bdepths?|\branks|\bpositions|\bids?|\bscores)\W{0,12}(?:=|in|of|are|:)?\s*$",
                         re.IGNORECASE)
#: A bracket after ∈, "in", "lies in", "range", "interval", "within": a range of values ("MRR ∈ [0, 1]"), no grades.
_INTERVAL_BEFORE = re.compile(r"(?:∈|\\in\b|\bin\b|\bwithin\b|\brange\b|\binterval\b|\bbounded\s+by\b|\bbetween\b)"
                              r"\W{0,4}$", re.IGNORECASE)
_BARE = re.compile(r"\b(?:grades|relevance\s+(?:grades|labels|judge?ments|scores)|relevances?|graded\s+judge?ments|"
                   r"judge?ments|labels|gains)\b(?P<between>[^.:;\[\]]{0,60}?)(?:\s+(?:are|read|were|is)|:)\s*"
                   r"(?P<list>\d+(?:\s*,\s*\d+){2,}(?:,?\s+and\s+\d+)?)(?!\d|\.\d|\s*/)", re.IGNORECASE)
#: A binary or graded vector written with spaces after its name ("as a relevance vector first: 1 0 1 1 0 1").
_VECTOR = re.compile(r"\b(?:relevance\s+vector|binary\s+vector|relevance\s+labels?|grade\s+vector)\b[^.:\n]{0,30}?:\s*"
                     r"(?P<list>\d(?:[ \t]+\d){2,})(?!\d|\.\d)", re.IGNORECASE)
#: A sentence of IDs, not grades: relevant sets printed as sets ("{1, 5, 7, 9}"), lists called rankings or
#: predictions ("rankings [5, 6, 7, 8, 9], [1, 2, 3]").
_IDS = re.compile(r"\{\s*\w+\s*(?:,\s*\w+\s*)*\}|\b(?:rankings|predicted|predictions|recommended)\b", re.IGNORECASE)
_IDEAL_BEFORE = re.compile(r"\bideal\w*\b[^.;\[\]]{0,40}$", re.IGNORECASE)
_MAX_GRADE = 10
_SCALE = re.compile(r"\b(?:scale|levels|point|possible|range)\b", re.IGNORECASE)


def _sentence(text: str, at: int) -> str:
    """The sentence (or line of code) around ``text[at]``."""
    a = max(text.rfind(". ", 0, at), text.rfind("\n", 0, at)) + 1
    ends = [e for e in (text.find(". ", at), text.find("\n", at)) if e != -1]
    return text[a:min(ends) if ends else len(text)]


def _grades(listed: str) -> list[int] | None:
    grades = [int(x) for x in DIGITS.findall(listed)]
    return grades if grades and max(grades) <= _MAX_GRADE else None


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


#: A list said to be the top of a longer ranking ("the top five are [1, 0, 1, 1, 0]", "grades of the first three
#: results"): only its ranks are known.
_TOP = re.compile(r"\b(?:top|first)\s+(?:\d+|two|three|four|five|six|seven|eight|nine|ten|few)\b", re.IGNORECASE)


def _example(text: str, start: int, end: int, grades: list[int]) -> Example:
    """The list as a ranking: the whole ranking, unless its sentence (a listing's line is code, never so) calls it
    the top of the ranking, when only its ranks are known."""
    prose = not any(listing.start <= _line(text, start) <= listing.end for listing in _listings(text))
    top = prose and bool(_TOP.search(_sentence(text, start)))
    return Example("grade list", start, end, _line(text, start), [(f"d{i + 1}", g) for i, g in enumerate(grades)],
                   whole=not top)


@lru_cache(maxsize=4)
def _listings(text: str) -> tuple:
    from audit.text.listings import find_listings
    return tuple(find_listings(text))


def _regions(text: str) -> list[tuple[int, int, list[int], bool]]:
    """(start, end, grades, ideal) for every list read as ranked grades or as the ideal's grades."""
    out: list[tuple[int, int, list[int], bool]] = []
    taken: list[tuple[int, int]] = []

    def add(a: int, b: int, grades: list[int] | None, ideal: bool) -> None:
        if grades is None or len(grades) < 2 or any(a < y and x < b for x, y in taken):
            return
        taken.append((a, b))
        out.append((a, b, grades, ideal))

    for m in _ASSIGNED.finditer(text):
        name = m.group("name")
        if "ideal" in name.lower():
            add(m.start(), m.end(), _grades(m.group("list")), True)
        elif _NAME.match(name):
            add(m.start(), m.end(), _grades(m.group("list")), False)
        else:
            taken.append((m.start(), m.end()))   # a list of something else (cutoffs, ids)
    for m in _BARE.finditer(text):
        if _SCALE.search(_sentence(text, m.start())):
            continue   # "the grades are 0, 1, 2 and 3 on a four-point scale": the scale, not a ranking
        ideal = "ideal" in m.group(0).lower() or bool(_IDEAL_BEFORE.search(text[max(0, m.start() - 60):m.start()]))
        add(m.start("list"), m.end("list"), _grades(m.group("list")), ideal)
    for m in _BRACKET.finditer(text):
        before = text[max(0, m.start() - 120):m.start()]
        sentence = re.split(r"(?<=[.!?])\s+|\n\s*\n", before)[-1]
        if (_NOT_GRADES.search(before[-30:]) or _INTERVAL_BEFORE.search(before[-30:])
                or _SCALE.search(_sentence(text, m.start())) or _nested(text, m.start())
                or _IDS.search(_sentence(text, m.start()))):
            taken.append((m.start(), m.end()))
            continue
        ideal = bool(_IDEAL_BEFORE.search(sentence))
        grades = _grades(m.group("list"))
        # a list of grades on a 0–4 scale is a ranking wherever it stands ("Flip it to [1, 2, 3, 4]"); a longer
        # scale only in a sentence about grades or a ranking
        if ideal or _CUE.search(sentence) or (grades and max(grades) <= 4):
            add(m.start(), m.end(), grades, ideal)
    for m in _VECTOR.finditer(text):
        add(m.start("list"), m.end("list"), _grades(m.group("list")), False)
    return sorted(out)


def _nested(text: str, at: int) -> bool:
    """Whether the list at ``at`` is an item of an enclosing list (``[[2, 4, 5, 7], [1, 4, 5, 7], [5, 8]]``: one
    list per query, of relevant positions or of grades, never one ranking's grades on its own)."""
    depth = 0
    for ch in reversed(text[max(0, at - 400):at]):
        if ch == "]":
            depth -= 1
        elif ch == "[":
            depth += 1
            if depth > 0:
                return True
    return False


def find(text: str) -> list[Example]:
    """Each list of ranked grades as an example (the whole ranking: one grade per result)."""
    return [_example(text, a, b, grades) for a, b, grades, ideal in _regions(text) if not ideal]


def ideals(text: str) -> list[tuple[int, int, list[int] | str, str]]:
    """Every statement of the ideal's grades: (start, end, grades or the name of the list it sorts, quote)."""
    out: list[tuple[int, int, list[int] | str, str]] = [(a, b, grades, text[a:b]) for a, b, grades, ideal
                                                       in _regions(text) if ideal]
    for m in _SORTED.finditer(text):
        out.append((m.start(), m.end(), m.group("of") or m.group("of2"), m.group(0)))
    return sorted(out, key=lambda f: f[0])
