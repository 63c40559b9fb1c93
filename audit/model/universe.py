"""Cases for universal claims: an exhaustive small universe, and a Hypothesis strategy beyond it.

A case is one judged ranking: the grades of the ranked documents in rank order (``None``
for an unjudged document) and the grades of judged documents that were never retrieved.
Document names carry no meaning (every reference gets strictly decreasing scores), so the
exhaustive universe enumerates grade patterns rather than named documents: every ranking up
to ``max_length`` over ``documents`` documents, up to relabelling the documents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement, product
from math import comb
from typing import NamedTuple


class Case(NamedTuple):
    """``ranked``: grades in rank order (None = unjudged); ``unretrieved``: grades of judged,
    never-retrieved documents. A named tuple: a search hashes and compares each case many times."""

    ranked: tuple[int | None, ...]
    unretrieved: tuple[int, ...] = ()

    def qrels(self) -> dict[str, int]:
        """``{doc_id: grade}``: ranked documents are ``r1…``, unretrieved ones ``x1…``."""
        out = {f"r{i}": g for i, g in enumerate(self.ranked, start=1) if g is not None}
        out.update({f"x{i}": g for i, g in enumerate(self.unretrieved, start=1)})
        return out

    def ranking(self) -> list[str]:
        return [f"r{i}" for i in range(1, len(self.ranked) + 1)]

    @property
    def size(self) -> tuple[int, int, int, int, int]:
        """Order used to call one counterexample smaller than another: cases with a relevant
        document and a non-empty ranking first (a need with nothing relevant, or nothing
        returned, makes a poor witness), then fewer documents, a shorter ranking, lower grades."""
        return (int(_relevant(self) == 0), int(not self.ranked), len(self.ranked) + len(self.unretrieved),
                len(self.ranked), sum(g or 0 for g in self.ranked) + sum(self.unretrieved))

    def table(self) -> list[list[str]]:
        """The case as rows a reader can check by hand: rank, document, grade."""
        rows = [["rank", "document", "grade"]]
        for i, g in enumerate(self.ranked, start=1):
            rows.append([str(i), f"r{i}", "unjudged" if g is None else str(g)])
        for i, g in enumerate(self.unretrieved, start=1):
            rows.append(["not retrieved", f"x{i}", str(g)])
        return rows

    def describe(self, graded: bool = False) -> str:
        """In words: ``ranking [non-relevant, relevant] plus 1 relevant document never retrieved``; ``graded``:
        the case comes from a search over grades above 1, so every grade is named (``grade 1``, not ``relevant``)."""
        binary = not graded and all(g is None or g in (0, 1) for g in self.ranked + self.unretrieved)

        def word(g):
            if g is None:
                return "unjudged"
            if g <= 0:
                return "non-relevant"
            return "relevant" if binary else f"grade {g}"

        ranking = "an empty ranking" if not self.ranked else f"ranking [{', '.join(word(g) for g in self.ranked)}]"
        if not self.unretrieved:
            return ranking
        missing = (f"{len(self.unretrieved)} relevant document{'s' if len(self.unretrieved) > 1 else ''}"
                   if binary else "documents of grade " + ", ".join(map(str, self.unretrieved)))
        return f"{ranking} plus {missing} never retrieved"


class Run(NamedTuple):
    """The cases of several queries, searched together for a statement about values over queries ("GMAP is never
    larger than MAP"): each measure combines its per-query values as it does over a run (``evaluator.combine``)."""

    queries: tuple[Case, ...]

    @property
    def size(self) -> tuple[int, ...]:
        return tuple(sum(part) for part in zip(*(c.size for c in self.queries)))

    @property
    def ranked(self) -> tuple:
        """The longest ranking of its queries (what a cutoff can reach)."""
        return max((c.ranked for c in self.queries), key=len)

    def describe(self, graded: bool = False) -> str:
        return "; ".join(f"query {i}: {c.describe(graded)}" for i, c in enumerate(self.queries, start=1))

    def table(self) -> list[list[str]]:
        rows = [["query", "rank", "document", "grade"]]
        for i, c in enumerate(self.queries, start=1):
            rows += [[str(i)] + row for row in c.table()[1:]]
        return rows


@dataclass(frozen=True)
class Universe:
    """The exhaustive search space, as stated in a property claim.

    ``max_length``: longest ranking; ``documents``: documents in the collection (ranked
    plus judged-but-unretrieved); ``grades``: judged grades used; ``unjudged``: whether a
    ranked document may be unjudged; ``relevant``: if set, only cases with exactly this
    many documents of grade >= 1; ``max_k``: largest cutoff.
    """

    max_length: int
    documents: int
    grades: tuple[int, ...]
    max_k: int
    unjudged: bool = True
    relevant: int | None = None
    queries: int = 1   # more than 1: each case is a run of that many queries (a ``Run``), each from this universe

    def describe(self) -> str:
        grades = f"grades {min(self.grades)}–{max(self.grades)}" if len(self.grades) > 2 or \
            self.grades != (0, 1) else "binary grades"
        return ((f"every run of {self.queries} queries (in any order), each " if self.queries > 1 else "every ")
                + f"ranking up to length {self.max_length} over {self.documents} documents (up to relabelling) "
                f"with {grades}"
                + (" and unjudged documents" if self.unjudged else "")
                + (f", exactly {self.relevant} relevant" if self.relevant is not None else "")
                + f", every k ≤ {self.max_k}")

    def size(self) -> int:
        """How many cases ``cases`` enumerates (before the ``relevant`` filter), computed without
        building any: for each ranking length L ≤ min(max_length, documents), |labels|^L rankings
        times the multisets of at most documents − L positive grades left unretrieved."""
        labels = len(self.grades) + (1 if self.unjudged else 0)
        positive = sum(1 for g in self.grades if g >= 1)
        total = 0
        for length in range(0, min(self.max_length, self.documents) + 1):
            room = self.documents - length
            extras = 1 if positive == 0 else sum(comb(positive + e - 1, e) for e in range(room + 1))
            total += labels ** length * extras
        return total if self.queries == 1 else comb(total + self.queries - 1, self.queries)

    def cases(self) -> Iterator[Case] | Iterator[Run]:
        """Every case, smallest first (by number of documents, then ranking length); with ``queries`` > 1 every run
        of that many cases (a multiset: the order of queries changes no value over them). Enumerated once per
        process for each universe: the sensitivity table searches one universe under many readings."""
        if self.queries > 1:
            single = _cases(Universe(self.max_length, self.documents, self.grades, self.max_k, self.unjudged,
                                     self.relevant))
            runs = [Run(c) for c in combinations_with_replacement(single, self.queries)]
            return iter(sorted(runs, key=lambda r: r.size))
        return iter(_cases(self))

    def _enumerate(self) -> list[Case]:
        labels: list[int | None] = list(self.grades) + ([None] if self.unjudged else [])
        found = []
        for length in range(0, self.max_length + 1):
            if length > self.documents:
                break
            for ranked in product(labels, repeat=length):
                room = self.documents - length
                # A judged document that is never retrieved matters only through its grade when the
                # grade is positive (it enters R and the ideal DCG); others change no measure.
                positive = sorted(g for g in self.grades if g >= 1)
                for extra in range(0, room + 1):
                    for unretrieved in combinations_with_replacement(positive, extra):
                        case = Case(tuple(ranked), tuple(unretrieved))
                        if self.relevant is not None and _relevant(case) != self.relevant:
                            continue
                        found.append(case)
        found.sort(key=lambda c: c.size)
        return found


@lru_cache(maxsize=16)
def _cases(universe: Universe) -> tuple[Case, ...]:
    return tuple(universe._enumerate())


def _relevant(case: Case) -> int:
    return sum(1 for g in case.ranked if g is not None and g >= 1) + sum(1 for g in case.unretrieved if g >= 1)


def case_strategy(max_length: int, grades: tuple[int, ...], unjudged: bool, relevant: int | None = None):
    """A Hypothesis strategy for one case beyond the exhaustive universe: longer rankings,
    unjudged documents, graded judgements; with ``relevant`` set, exactly that many documents of
    grade >= 1, placed at drawn ranks or left unretrieved (built directly, not filtered)."""
    from hypothesis import strategies as st

    positive = [g for g in grades if g >= 1] or list(grades)
    label = st.sampled_from(list(grades) + ([None] if unjudged else []))
    if relevant is None:
        return st.builds(lambda ranked, unretrieved: Case(tuple(ranked), tuple(sorted(unretrieved))),
                         st.lists(label, max_size=max_length), st.lists(st.sampled_from(positive), max_size=5))
    other = st.sampled_from([g for g in grades if g < 1] + ([None] if unjudged else []) or [None])

    @st.composite
    def exactly(draw):
        ranked = draw(st.lists(other, max_size=max(0, max_length - relevant)))
        placed = draw(st.integers(0, relevant))
        for _ in range(placed):
            ranked.insert(draw(st.integers(0, len(ranked))), draw(st.sampled_from(positive)))
        unretrieved = [draw(st.sampled_from(positive)) for _ in range(relevant - placed)]
        return Case(tuple(ranked), tuple(sorted(unretrieved)))

    return exactly()


def _grades_descending(case: Case, grades: tuple[int, ...]) -> bool:
    shown = [0 if g is None else g for g in case.ranked]
    return bool(shown) and all(a >= b for a, b in zip(shown, shown[1:]))


def _first_top_grade(case: Case, grades: tuple[int, ...]) -> bool:
    return bool(case.ranked) and case.ranked[0] == max(grades)


def _first_relevant(case: Case, grades: tuple[int, ...]) -> bool:
    return bool(case.ranked) and case.ranked[0] is not None and case.ranked[0] >= 1


def _sorted_down(case: Case, grades: tuple[int, ...]) -> Case:
    return Case(tuple(sorted(case.ranked, key=lambda g: -(g or 0))) or (max(grades),), case.unretrieved)


def _top_first(case: Case, grades: tuple[int, ...]) -> Case:
    return Case((max(grades),) + case.ranked[1:], case.unretrieved)


def _relevant_first(case: Case, grades: tuple[int, ...]) -> Case:
    if _first_relevant(case, grades):
        return case
    return Case((min(g for g in grades if g >= 1),) + case.ranked[1:], case.unretrieved)


#: Premises a universal statement may be conditioned on ("any list in descending order …", "a perfect first result
#: guarantees …"): a search keeps only the cases that satisfy the premise, and its random stage draws cases made to
#: satisfy it. Adding a premise is one entry.
class Premise(NamedTuple):
    holds: Callable[[Case, tuple[int, ...]], bool]   # the case satisfies it, given the universe's grades
    make: Callable[[Case, tuple[int, ...]], Case]     # a drawn case changed to satisfy it
    text: str                                         # how a sentence says it


PREMISES: dict[str, Premise] = {
    "grades descending": Premise(_grades_descending, _sorted_down,
                                 "the ranked grades are in descending order (unjudged as 0)"),
    "first result top grade": Premise(_first_top_grade, _top_first, "the first result has the top grade of the scale"),
    "first result relevant": Premise(_first_relevant, _relevant_first, "the first result is relevant"),
}
