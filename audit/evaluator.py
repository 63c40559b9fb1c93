"""The chapter's own definitions (chapter 23), in exact arithmetic.

Shapes used throughout:
  qrels:   {query_id: {doc_id: grade}}; grade is an int, relevant when grade >= 1
           ("a known positive relevance grade", chapter 23 §"Define the evaluated prefix").
  ranking: an ordered sequence of doc_id strings, best first, for one query.
  run:     {query_id: ranking}.

Every per-query measure returns a ``Fraction`` in [0, 1]. nDCG involves logarithms, so
it is computed with 50 significant decimal digits and returned as the ``Fraction`` of
that decimal; every other measure is an exact rational.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

from .errors import MeasureError, RankingError, RepeatedIDError

Qrels = Mapping[str, Mapping[str, int]]
Ranking = Sequence[str]
Run = Mapping[str, Ranking]

#: Gain functions for nDCG, named as ir-measures names its ``dcg`` parameter.
#: ``log2``: gain = grade (Järvelin & Kekäläinen 2002; trec_eval ``ndcg_cut``).
#: ``exp-log2``: gain = 2**grade - 1 (Burges et al. 2005; ranx ``ndcg_burges``).
GAINS = ("log2", "exp-log2")

_DIGITS = 50


def check_ranking(ranking: Ranking, *, query_id: str | None = None) -> None:
    """Reject a ranking that repeats a document ID.

    Chapter 23: "The evaluator rejects repeated result IDs: returning the same document
    twice cannot count as two discoveries." Raises ``RepeatedIDError`` naming the ID and
    both 1-based positions.
    """
    seen: dict[str, int] = {}
    for position, doc_id in enumerate(ranking, start=1):
        if doc_id in seen:
            where = f" for query {query_id!r}" if query_id is not None else ""
            raise RepeatedIDError(
                f"ranking{where} repeats document {doc_id!r} at ranks {seen[doc_id]} and {position}; "
                "the chapter's evaluator rejects repeated result IDs — remove the duplicate")
        seen[doc_id] = position


def prefix(ranking: Ranking, k: int | None) -> tuple[str, ...]:
    """The evaluated prefix: the first ``k`` distinct IDs of ``ranking`` (all of it if ``k`` is None).

    Chapter 23: "Let the returned ranking be truncated to its first k distinct IDs".
    Raises ``RepeatedIDError`` if the ranking repeats an ID and ``RankingError`` if k < 0.
    """
    check_ranking(ranking)
    if k is None:
        return tuple(ranking)
    if k < 0:
        raise RankingError(f"cutoff k must be >= 0, found {k}")
    return tuple(ranking[:k])


def relevant_set(judgements: Mapping[str, int], rel: int = 1) -> set[str]:
    """R: documents with a known grade >= ``rel`` (default 1, a positive grade)."""
    return {d for d, g in judgements.items() if g >= rel}


def precision(judgements: Mapping[str, int], ranking: Ranking, k: int, rel: int = 1) -> Fraction:
    """P@k = |relevant in prefix| / k; the denominator stays k when fewer results are returned.

    Chapter 23 §"Count useful items": "P@k = number of known relevant results in the prefix / k".
    Same as trec_eval ``P_k``. Unjudged documents count as non-relevant. P@0 is 0.
    """
    docs = prefix(ranking, k)
    if k == 0:
        return Fraction(0)
    r = relevant_set(judgements, rel)
    return Fraction(sum(1 for d in docs if d in r), k)


def recall(judgements: Mapping[str, int], ranking: Ranking, k: int | None, rel: int = 1) -> Fraction:
    """Recall@k = |relevant in prefix| / |R|; 0 when R is empty (trec_eval ``recall_k``).

    Chapter 23 §"Count useful items": "Recall@k = number of known relevant results in the prefix / |R|".
    """
    r = relevant_set(judgements, rel)
    if not r:
        return Fraction(0)
    return Fraction(sum(1 for d in prefix(ranking, k) if d in r), len(r))


def reciprocal_rank(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None,
                    rel: int = 1) -> Fraction:
    """RR@k = 1 / rank of the first relevant document in the prefix, 0 if none.

    Chapter 23 table: "How early did the first relevant result appear?" (trec_eval ``recip_rank``
    on the first k results; MS MARCO's MRR@10).
    """
    r = relevant_set(judgements, rel)
    for position, d in enumerate(prefix(ranking, k), start=1):
        if d in r:
            return Fraction(1, position)
    return Fraction(0)


def average_precision(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None,
                      rel: int = 1) -> Fraction:
    """AP@k = (Σ over relevant ranks i ≤ k of P@i) / |R|; 0 when R is empty.

    Chapter 23 table: denominator "|R|" (trec_eval ``map_cut_k``; Buckley & Voorhees 2000).
    """
    r = relevant_set(judgements, rel)
    if not r:
        return Fraction(0)
    hits, total = 0, Fraction(0)
    for position, d in enumerate(prefix(ranking, k), start=1):
        if d in r:
            hits += 1
            total += Fraction(hits, position)
    return total / len(r)


def _gain(grade: int, gain: str) -> Decimal:
    if gain == "log2":
        return Decimal(grade)
    if gain == "exp-log2":
        return Decimal(2) ** grade - 1
    raise MeasureError(f"unknown gain function {gain!r}; expected one of {', '.join(GAINS)}")


def _dcg(grades: Sequence[int], gain: str) -> Decimal:
    total = Decimal(0)
    ln2 = Decimal(2).ln()
    for position, grade in enumerate(grades, start=1):
        if grade > 0:
            total += _gain(grade, gain) / ((Decimal(position + 1)).ln() / ln2)
    return total


def ndcg(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None,
         gain: str = "log2") -> Fraction:
    """nDCG@k = DCG@k / ideal DCG@k, discount log2(rank + 1), 0 when ideal DCG is 0.

    ``gain``: ``"log2"`` (gain = grade, trec_eval ``ndcg_cut``) or ``"exp-log2"``
    (gain = 2**grade − 1). The ideal DCG@k sorts *all* judged grades of the query, not
    only the retrieved ones — chapter 23 table: "Ideal DCG@k for the same judgements".
    Negative grades give no gain. Computed to 50 significant digits (Järvelin &
    Kekäläinen 2002).
    """
    if gain not in GAINS:
        raise MeasureError(f"unknown gain function {gain!r}; expected one of {', '.join(GAINS)}")
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        docs = prefix(ranking, k)
        dcg = _dcg([judgements.get(d, 0) for d in docs], gain)
        ideal_grades = sorted((g for g in judgements.values() if g > 0), reverse=True)
        ideal = _dcg(ideal_grades[:k] if k is not None else ideal_grades, gain)
        if ideal == 0:
            return Fraction(0)
        return Fraction(dcg / ideal)


def success(judgements: Mapping[str, int], ranking: Ranking, k: int | None, rel: int = 1) -> Fraction:
    """Success@k: 1 if the prefix holds a relevant document, else 0 (trec_eval ``success_k``;
    ranx ``hit_rate@k``). Its mean over needs is the share of needs answered at all."""
    r = relevant_set(judgements, rel)
    return Fraction(int(any(d in r for d in prefix(ranking, k))))


def judged(judgements: Mapping[str, int], ranking: Ranking, k: int | None) -> Fraction:
    """Judged@k: the fraction of the returned prefix that has a judgement (any grade).

    Chapter 23: "separately reporting how much of the selected prefix actually received a
    judgement". The denominator is the number of documents in the prefix (min(k, returned)),
    as in ir-measures' ``Judged@k``; 0 for an empty prefix.
    """
    docs = prefix(ranking, k)
    if not docs:
        return Fraction(0)
    return Fraction(sum(1 for d in docs if d in judgements), len(docs))


def set_precision(judgements: Mapping[str, int], selected: Sequence[str], rel: int = 1) -> Fraction:
    """|selected ∩ R| / |selected|, 0 for an empty selection (trec_eval ``set_P``)."""
    check_ranking(selected)
    if not selected:
        return Fraction(0)
    r = relevant_set(judgements, rel)
    return Fraction(sum(1 for d in selected if d in r), len(selected))


def set_recall(judgements: Mapping[str, int], selected: Sequence[str], rel: int = 1) -> Fraction:
    """|selected ∩ R| / |R|, 0 when R is empty (trec_eval ``set_recall``)."""
    check_ranking(selected)
    r = relevant_set(judgements, rel)
    if not r:
        return Fraction(0)
    return Fraction(sum(1 for d in selected if d in r), len(r))


@dataclass(frozen=True)
class MeasureSpec:
    """A measure the chapter evaluator computes: name, cutoff, relevance level, gain."""

    name: str
    cutoff: int | None = None
    rel: int = 1
    gain: str = "log2"

    def __str__(self) -> str:
        return self.name + (f"@{self.cutoff}" if self.cutoff is not None else "")


#: Measure names the chapter evaluator implements (ir-measures names).
SUPPORTED = ("P", "R", "RR", "AP", "nDCG", "Success", "Judged", "SetP", "SetR")


def evaluate_query(spec: MeasureSpec, judgements: Mapping[str, int], ranking: Ranking) -> Fraction:
    """One measure on one query. Raises ``MeasureError`` for a measure outside ``SUPPORTED``."""
    k = spec.cutoff
    if spec.name == "P":
        if k is None:
            raise MeasureError("P needs a cutoff (P@k); for a set-based precision use SetP")
        return precision(judgements, ranking, k, spec.rel)
    if spec.name == "R":
        return recall(judgements, ranking, k, spec.rel)
    if spec.name == "RR":
        return reciprocal_rank(judgements, ranking, k, spec.rel)
    if spec.name == "AP":
        return average_precision(judgements, ranking, k, spec.rel)
    if spec.name == "nDCG":
        return ndcg(judgements, ranking, k, spec.gain)
    if spec.name == "Judged":
        return judged(judgements, ranking, k)
    if spec.name == "Success":
        return success(judgements, ranking, k, spec.rel)
    if spec.name == "SetP":
        return set_precision(judgements, ranking, spec.rel)
    if spec.name == "SetR":
        return set_recall(judgements, ranking, spec.rel)
    raise MeasureError(f"the chapter evaluator does not implement {spec}; it implements {', '.join(SUPPORTED)}")


def evaluate(spec: MeasureSpec, qrels: Qrels, run: Run) -> dict[str, Fraction]:
    """Per-query values for every query of ``run`` that has judgements in ``qrels``.

    Queries of the run without judgements are skipped, as trec_eval does by default.
    """
    out: dict[str, Fraction] = {}
    for query_id, ranking in run.items():
        if query_id not in qrels:
            continue
        check_ranking(ranking, query_id=query_id)
        out[query_id] = evaluate_query(spec, qrels[query_id], ranking)
    return out


def pooled_recall(qrels: Qrels, run: Run, k: int | None, rel: int = 1) -> Fraction:
    """Σ relevant found in the prefixes / Σ |R| over needs: the share of *all* relevant material
    retrieved, as opposed to the mean of per-need recall. 0 when no need has a relevant document."""
    found = total = 0
    for query_id, ranking in run.items():
        if query_id not in qrels:
            continue
        r = relevant_set(qrels[query_id], rel)
        found += sum(1 for d in prefix(ranking, k) if d in r)
        total += len(r)
    return Fraction(found, total) if total else Fraction(0)


def mean(values: Mapping[str, Fraction]) -> Fraction:
    """Arithmetic mean over queries (MRR, MAP, mean P@k); 0 for no queries."""
    if not values:
        return Fraction(0)
    return sum(values.values(), Fraction(0)) / len(values)
