"""A worked example read out of a chapter's text (``Example``), the measures an example can stand for, and the
questions a draft asks when its example does not determine a measure. Every parser of the package, and the
drafting that binds a statement to its example, reads these."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

#: Questions a draft asks when its example does not determine a measure.
ASK_RELEVANT = "how many relevant documents does this query have (counting those the ranking does not retrieve)?"
ASK_LENGTH = "how many results does the ranking return, and is any document after rank {n} relevant?"
ASK_IDEAL = ("which grades do all of this query's judged documents have, retrieved or not (the ideal ranking "
             "nDCG divides by)?")

#: Measures an example can stand for, by what they need: the ranked grades of the top k (or of the whole ranking
#: without a cutoff), and |R| or every judged grade of the query.
_FROM_TOP = {"P", "RR", "Success", "Judged", "DCG", "ERR", "RBP", "NumRet", "NumRelRet"}
_NEEDS_R = {"R", "AP", "Rprec", "F", "IPrec", "NumRel"}
_NEEDS_IDEAL = {"nDCG", "IDCG"}
MEASURES = _FROM_TOP | _NEEDS_R | _NEEDS_IDEAL


@dataclass
class Example:
    """A worked example: one query's ranking as the text prints it.

    ``ranking``: (document, grade) in rank order, the grade ``None`` for an unjudged document; ``whole``: the
    ranking is all the system returned (a table, a list, "among five results"), else only its first
    ``len(ranking)`` ranks are known (relevant at positions 2 and 5: ranks 1–5); ``relevant``: |R| as the text
    states it; ``judged``: every judged grade of the query, retrieved or not (the ideal ranking's), when the text
    gives it; ``unretrieved``: judged documents the text names outside the ranking, with their grades; ``facts``:
    the quotes that stated |R| or the ideal; ``conflict``: two facts that disagree; ``queries``: the qrels and run of
    every query, when the text prints them as literals (``ranking`` is then the first query's)."""

    kind: str
    start: int
    end: int
    line: int
    ranking: list[tuple[str, int | None]]
    whole: bool
    relevant: int | None = None
    judged: list[int] | None = None
    unretrieved: dict[str, int] = field(default_factory=dict)
    facts: list[str] = field(default_factory=list)
    conflict: str = ""
    queries: dict | None = None   # a fixture of every query, when the text prints them all (``run_literals``)

    def describe(self) -> str:
        return f"the {'ranking described' if self.kind == 'positions' else self.kind} at line {self.line}"

    def total_relevant(self) -> int | None:
        """|R|: as stated, or counted from every judged grade."""
        if self.relevant is not None:
            return self.relevant
        if self.judged is not None:
            return sum(1 for g in self.judged if g > 0)
        return None

    def binary(self) -> bool:
        return all(g in (None, 0, 1) for _, g in self.ranking) and all(g in (0, 1) for g in self.unretrieved.values())

    def missing(self, root: str, k: int | None) -> str:
        """The question this example leaves open for ``root`` at cutoff ``k`` (``""`` when it determines it)."""
        if self.conflict:
            return self.conflict
        if self.queries is not None:
            return ""   # the qrels and the run, printed whole
        known = len(self.ranking)
        relevant_at = [i for i, (_, g) in enumerate(self.ranking, 1) if g]
        if root in ("RR", "Success") and relevant_at and (k is None or relevant_at[0] <= k):
            top_ok = True   # the first relevant document is printed: nothing after it counts
        elif root in _NEEDS_R and self.total_relevant() == len(relevant_at):
            top_ok = True   # every relevant document is printed: what follows them is non-relevant
        else:
            top_ok = self.whole or (k is not None and k <= known)
        if not top_ok:
            return ASK_LENGTH.format(n=known)
        if root in _NEEDS_R and self.total_relevant() is None:
            return ASK_RELEVANT
        if root in _NEEDS_IDEAL and self.ideal() is None:
            return ASK_IDEAL if not self.binary() else ASK_RELEVANT
        if root == "Rprec" and not self.whole and self.total_relevant() > known:
            return ASK_LENGTH.format(n=known)
        return ""

    def ideal(self) -> list[int] | None:
        """Every judged grade of the query: as stated, or, for binary grades with |R| stated, |R| ones and the zeros
        the ranking shows."""
        if self.judged is not None:
            return sorted(self.judged, reverse=True)
        if self.binary() and self.relevant is not None:
            zeros = sum(1 for _, g in self.ranking if g == 0)
            return [1] * self.relevant + [0] * zeros
        return None

    def fixture(self) -> tuple[dict | None, str]:
        """The example as one query's qrels and run, or (None, why not): the ranking's judged documents, the
        unretrieved ones the text names, and the relevant documents it does not retrieve, as many as |R| or the
        ideal's grades leave; the text's own qrels and run when it prints them whole."""
        if self.queries is not None:
            return self.queries, ""
        run = [d for d, _ in self.ranking]
        qrels = {d: g for d, g in self.ranking if g is not None}
        for d, g in self.unretrieved.items():
            qrels.setdefault(d, g)
        ideal = self.judged
        if ideal is not None:
            left = Counter(ideal)
            left.subtract(Counter(qrels.values()))
            if any(n < 0 for g, n in left.items() if g > 0):
                return None, (f"the grades {describe_grades(ideal)} stated as the query's judged documents do not "
                              f"hold the grades {self.describe()} shows")
            extra = [g for g, n in sorted(left.items(), reverse=True) for _ in range(max(n, 0))]
        elif self.relevant is not None:
            have = sum(1 for g in qrels.values() if g > 0)
            if have > self.relevant:
                return None, (f"the text says the query has {self.relevant} relevant documents, but "
                              f"{self.describe()} shows {have}")
            extra = [1] * (self.relevant - have)
        else:
            extra = []
        for i, g in enumerate(extra, 1):
            qrels[f"unretrieved-{i}"] = g
        return {"qrels": {"q1": qrels or {"unretrieved-0": 0}}, "run": {"q1": run}}, ""


def describe_grades(grades: list[int]) -> str:
    return "[" + ", ".join(str(g) for g in grades) + "]"
