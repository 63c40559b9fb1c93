"""The chapter's own definitions (chapter 23), in exact arithmetic: one for every measure the catalogue declares
(``audit.measures.catalogue``), each one query's value on its judgements and ranking under a reading of the
conventions (``DEFINITIONS``). Qrels, rankings and runs have the shapes ``audit.model.rankings`` gives.

Every per-query measure returns a ``Fraction`` in [0, 1]. nDCG involves logarithms, so
it is computed with 50 significant decimal digits and returned as the ``Fraction`` of
that decimal; every other measure is an exact rational."""

from __future__ import annotations

import math

from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

from audit.errors import MeasureError, RankingError, ReadingDoesNotApply
from audit.measures.catalogue import GAINS, MeasureSpec
from audit.measures.conventions import CONVENTIONS
from audit.model.rankings import check_ranking, Ranking


#: A reading: one value for every convention (``audit.measures.conventions``).
Reading = Mapping[str, str]


#: The reading trec_eval's defaults follow (each convention's first value).
DEFAULT_READING: dict[str, str] = {name: c.values[0] for name, c in CONVENTIONS.items()}


_DIGITS = 50


def order_ties(ranking: Ranking, scores: Mapping[str, float] | None, rule: str) -> list[str]:
    """The ranking with tied scores ordered by the ``ties`` convention.

    ``ranking`` is the listed order; ``scores`` ``{doc_id: score}`` (None: no ties). ``rule``:
    ``listed order`` (kept), ``docno descending`` (trec_eval) or ``docno ascending``.
    """
    if not scores or rule == "listed order":
        return list(ranking)
    by_doc = sorted(dict.fromkeys(ranking), reverse=rule == "docno descending")
    ordered = sorted(by_doc, key=lambda d: -scores[d])
    return ordered if len(ordered) == len(ranking) else list(ranking)


def prefix(ranking: Ranking, k: int | None, reading: Reading | None = None) -> tuple[str, ...]:
    """The evaluated prefix under the reading's ``repeated_ids`` and ``prefix`` conventions.

    ``repeated_ids``: ``reject`` raises ``RepeatedIDError``; ``keep first`` / ``keep last`` remove
    the other occurrences from the ranking before the cutoff; ``count each`` keeps every
    occurrence, and then ``prefix`` decides what k counts: ``first k results`` (positions) or
    ``first k distinct IDs`` (chapter 23: "truncated to its first k distinct IDs"). ``k`` None:
    the whole ranking. Raises ``RankingError`` if k < 0.
    """
    reading = reading or DEFAULT_READING
    if k is not None and k < 0:
        raise RankingError(f"cutoff k must be >= 0, found {k}")
    rule = reading["repeated_ids"]
    if rule == "reject":
        check_ranking(ranking)
    docs = list(ranking)
    if rule == "keep first":
        docs = list(dict.fromkeys(docs))
    elif rule == "keep last":
        last = {d: i for i, d in enumerate(docs)}
        docs = [d for i, d in enumerate(docs) if last[d] == i]
    elif rule == "count each" and k is not None and reading["prefix"] == "first k distinct IDs":
        seen: set[str] = set()
        out = []
        for d in docs:
            if d not in seen and len(seen) == k:
                break
            seen.add(d)
            out.append(d)
        return tuple(out)
    return tuple(docs if k is None else docs[:k])


def _condensed(ranking: Ranking, judgements: Mapping[str, int], reading: Reading) -> Ranking:
    """The ``unjudged: removed`` convention: unjudged documents dropped before the cutoff (Sakai 2007)."""
    if reading["unjudged"] == "removed":
        return [d for d in ranking if d in judgements]
    return ranking


def relevant_set(judgements: Mapping[str, int], rel: int = 1) -> set[str]:
    """R: documents with a known grade >= ``rel`` (default 1, a positive grade)."""
    return {d for d, g in judgements.items() if g >= rel}


def _level(rel: int | None, reading: Reading) -> int:
    return rel if rel is not None else int(reading["relevance_level"])


def precision(judgements: Mapping[str, int], ranking: Ranking, k: int, rel: int | None = None,
              reading: Reading | None = None) -> Fraction:
    """P@k = |relevant in prefix| / denominator, a fraction in [0, 1]; 0 when the denominator is 0.

    Denominator by the ``precision_denominator`` convention: ``k`` (chapter 23 §"Count useful
    items": "P@k = number of known relevant results in the prefix / k"; trec_eval ``P_k``),
    ``number returned`` (the prefix's length), or ``min(k, |R|)``. Unjudged documents count as
    non-relevant unless the reading removes them. P@0 is 0.
    """
    reading = reading or DEFAULT_READING
    level = _level(rel, reading)
    docs = prefix(_condensed(ranking, judgements, reading), k, reading)
    r = relevant_set(judgements, level)
    denominator = _precision_denominator(k, len(docs), len(r), reading)
    if denominator == 0:
        return Fraction(0)
    return Fraction(sum(1 for d in docs if d in r), denominator)


def _precision_denominator(k: int, returned: int, relevant: int, reading: Reading) -> int:
    return {"k": k, "number returned": returned, "min(k, |R|)": min(k, relevant)}[reading["precision_denominator"]]


def _ap_denominator(k: int | None, hits: int, relevant: int, reading: Reading) -> int:
    return {"|R|": relevant, "relevant retrieved": hits,
            "min(k, |R|)": relevant if k is None else min(k, relevant)}[reading["ap_denominator"]]


#: The convention that sets each measure's denominator (``denominator``).
DENOMINATOR_CONVENTION = {"P": "precision_denominator", "AP": "ap_denominator"}


def denominator(spec: "MeasureSpec", judgements: Mapping[str, int], ranking: Ranking,
                reading: Reading | None = None) -> int | None:
    """What P@k or AP@k divides by on this query under ``reading`` (``precision_denominator``,
    ``ap_denominator``): a whole number ≥ 0; None for a measure without a denominator convention. Lets a printed
    fraction (“5/20”) rule out the readings that divide by something else."""
    reading = reading or DEFAULT_READING
    if spec.name == "P" and spec.cutoff is not None:
        docs = prefix(_condensed(ranking, judgements, reading), spec.cutoff, reading)
        return _precision_denominator(spec.cutoff, len(docs), len(relevant_set(judgements, _level(spec.rel, reading))),
                                      reading)
    if spec.name == "AP":
        flags, r = _relevant_flags(judgements, ranking, spec.cutoff, spec.rel, reading)
        return _ap_denominator(spec.cutoff, sum(flags), len(r), reading)
    return None


def recall(judgements: Mapping[str, int], ranking: Ranking, k: int | None, rel: int | None = None,
           reading: Reading | None = None) -> Fraction:
    """Recall@k = |relevant in prefix| / |R|, in [0, 1]; 0 when R is empty (trec_eval ``recall_k``).

    Chapter 23 §"Count useful items": "Recall@k = number of known relevant results in the prefix / |R|".
    """
    reading = reading or DEFAULT_READING
    r = relevant_set(judgements, _level(rel, reading))
    if not r:
        return Fraction(0)
    docs = prefix(_condensed(ranking, judgements, reading), k, reading)
    return Fraction(sum(1 for d in docs if d in r), len(r))


def reciprocal_rank(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None,
                    rel: int | None = None, reading: Reading | None = None) -> Fraction:
    """RR@k = 1 / rank of the first relevant document in the prefix, 0 if none; in [0, 1].

    Chapter 23 table: "How early did the first relevant result appear?" With ``rr_cutoff:
    ignored`` the whole ranking is searched whatever k (trec_eval ``recip_rank``); ``applied``
    is MS MARCO's MRR@10.
    """
    reading = reading or DEFAULT_READING
    r = relevant_set(judgements, _level(rel, reading))
    cut = None if reading["rr_cutoff"] == "ignored" else k
    for position, d in enumerate(prefix(_condensed(ranking, judgements, reading), cut, reading), start=1):
        if d in r:
            return Fraction(1, position)
    return Fraction(0)


def average_precision(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None,
                      rel: int | None = None, reading: Reading | None = None) -> Fraction:
    """AP@k = (Σ over relevant ranks i ≤ k of P@i) / denominator, in [0, 1]; 0 when the denominator is 0.

    Denominator by the ``ap_denominator`` convention: ``|R|`` (chapter 23 table: denominator "|R|"; trec_eval
    ``map_cut_k``; Buckley & Voorhees 2000), ``relevant retrieved`` (the relevant documents in the prefix:
    scikit-learn's ``average_precision_score`` on the returned list) or ``min(k, |R|)`` (``ml_metrics.apk``).
    """
    reading = reading or DEFAULT_READING
    flags, r = _relevant_flags(judgements, ranking, k, rel, reading)
    hits, total = 0, Fraction(0)
    for position, flag in enumerate(flags, start=1):
        if flag:
            hits += 1
            total += Fraction(hits, position)
    denominator = _ap_denominator(k, hits, len(r), reading)
    return total / denominator if denominator else Fraction(0)


#: Largest grade whose exponential gain 2**grade − 1 is computed; larger grades are refused.
MAX_GRADE = 64


def _gain(grade: int, gain: str) -> Decimal:
    if gain == "linear":
        return Decimal(grade)
    if gain == "exponential":
        if grade > MAX_GRADE:
            raise MeasureError(f"grade {grade} is too large for exponential gain (2^grade − 1); "
                               f"grades up to {MAX_GRADE} are supported")
        return Decimal(2) ** grade - 1
    raise MeasureError(f"unknown gain function {gain!r}; expected linear (log2) or exponential (exp-log2)")


#: The ``discount`` convention's values → (added to the rank, smallest argument): the gain at rank i is divided by
#: log2(max(i + shift, floor)).
_DISCOUNTS = {"log2(i + 1)": (1, 0), "log2(max(i, 2))": (0, 2)}


@lru_cache(maxsize=4096)
def _discount(position: int, rule: str = "log2(i + 1)") -> Decimal:
    """The divisor of the gain at rank ``position`` under the ``discount`` convention: log2(position + 1) (trec_eval,
    ir-measures, ranx) or log2(max(position, 2)) (Järvelin & Kekäläinen 2002 with b = 2: ranks 1 and 2 undiscounted).
    Exact when the logarithm's argument is a power of two (log2 16 = 4, not 3.99…9), else to 50 significant digits
    (ln n / ln 2, each rounded; relative error below 1e-48)."""
    try:
        shift, floor = _DISCOUNTS[rule]
    except KeyError:
        raise MeasureError(f"unknown DCG discount {rule!r}; expected one of {', '.join(_DISCOUNTS)}") from None
    n = max(position + shift, floor)
    if n & (n - 1) == 0:
        return Decimal(n.bit_length() - 1)
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return Decimal(n).ln() / Decimal(2).ln()


def gain_level(rel: int | None, reading: Reading) -> int | None:
    """The grade below which a graded measure gives no gain: under ``level_gain: dropped`` (ranx ``ndcg@k-l2``) the
    relevance level (the measure's own ``rel``, else the reading's); under ``level_gain: kept`` None, every positive
    grade gains (trec_eval ``ndcg``, whose ``-l`` applies to binary measures only)."""
    if reading.get("level_gain", "kept") != "dropped":
        return None
    return rel if rel is not None else int(reading["relevance_level"])


def graded(judgements: Mapping[str, int], level: int | None):
    """A document's grade as gain sees it: its judgement (unjudged 0), 0 below the relevance ``level``."""
    def grade(d: str) -> int:
        g = judgements.get(d, 0)
        return g if level is None or g >= level else 0
    return grade


def _dcg(grades: Sequence[int], gain: str, discount: str = "log2(i + 1)") -> Decimal:
    total = Decimal(0)
    for position, grade in enumerate(grades, start=1):
        if grade > 0:
            total += _gain(grade, gain) / _discount(position, discount)
    return total


def dcg_parts(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None, gain: str | None = None,
              reading: Reading | None = None, rel: int | None = None) -> tuple[Decimal, Decimal]:
    """``(DCG@k, ideal DCG@k)``: Σ gain(grade at rank i) / discount(i) over the evaluated prefix, and the
    same sum over the ideal order. Both ≥ 0, unbounded above, 50 significant digits (exact where every
    discount is a power of two). The discount is the reading's ``discount`` convention: log2(i + 1) (trec_eval
    ``ndcg_cut``, ir-measures, ranx) or log2(max(i, 2)) (``_discount``).

    ``gain`` (or the reading's ``gain`` convention): ``linear`` (gain = grade; Järvelin &
    Kekäläinen 2002, trec_eval ``ndcg_cut``) or ``exponential`` (2**grade − 1; Burges et al.
    2005, ranx ``ndcg_burges``). Ideal by the ``ideal`` convention: ``judged, cut at k`` (all
    judged grades sorted, cut at k — chapter 23 table: "Ideal DCG@k for the same judgements"),
    ``judged, whole list`` (not cut), ``retrieved only`` (the evaluated prefix's grades re-sorted) or ``all
    retrieved, cut at k`` (every retrieved document's grade sorted, cut at k: scikit-learn ``ndcg_score``). Grades
    below ``gain_level`` give no gain; negative grades give no gain.
    """
    reading = reading or DEFAULT_READING
    gain = GAINS.get(gain, gain) if gain else reading["gain"]  # ir-measures names (log2, exp-log2) accepted
    level = gain_level(rel, reading)
    with localcontext() as ctx:
        ctx.prec = _DIGITS

        grade = graded(judgements, level)

        docs = prefix(_condensed(ranking, judgements, reading), k, reading)
        discount = reading.get("discount", "log2(i + 1)")
        dcg = _dcg([grade(d) for d in docs], gain, discount)
        return dcg, _dcg(ideal_order(judgements, ranking, k, reading, rel), gain, discount)


def ideal_order(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None,
                reading: Reading | None = None, rel: int | None = None) -> list[int]:
    """The grades the ideal DCG sums, best first, by the ``ideal`` convention: every judged positive grade sorted
    and cut at k (``judged, cut at k``, trec_eval, ir-measures and ranx), not cut (``judged, whole list``), the
    grades of the evaluated prefix sorted (``retrieved only``), or the grades of every retrieved document, within
    the cutoff or not, sorted and cut at k (``all retrieved, cut at k``: scikit-learn's ``ndcg_score``, whose ideal
    DCG is ``_dcg_sample_scores(y_true, y_true, k)`` over the labels it is given). Grades below ``gain_level``
    count as 0 and are left out, as zeros add nothing."""
    reading = reading or DEFAULT_READING
    level = gain_level(rel, reading)

    def grade(d: str) -> int:
        g = judgements.get(d, 0)
        return g if level is None or g >= level else 0

    rule = reading["ideal"]
    pool = (dict.fromkeys(prefix(_condensed(ranking, judgements, reading), k, reading)) if rule == "retrieved only"
            else dict.fromkeys(prefix(_condensed(ranking, judgements, reading), None, reading))
            if rule == "all retrieved, cut at k" else judgements)
    grades = sorted((grade(d) for d in pool if grade(d) > 0), reverse=True)
    return grades[:k] if k is not None and rule in _IDEAL_CUT else grades


#: The ``ideal`` rules that cut the sorted grades at k (the others' pool is already the prefix, or is not cut).
_IDEAL_CUT = frozenset({"judged, cut at k", "all retrieved, cut at k"})


def ndcg(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None,
         gain: str | None = None, reading: Reading | None = None, rel: int | None = None) -> Fraction:
    """nDCG@k = DCG@k / ideal DCG@k (``dcg_parts``), in [0, 1]; 0 when the ideal DCG is 0. 50 significant digits."""
    dcg, ideal = dcg_parts(judgements, ranking, k, gain, reading, rel)
    if ideal == 0:
        return Fraction(0)
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return Fraction(dcg / ideal)


def success(judgements: Mapping[str, int], ranking: Ranking, k: int | None, rel: int | None = None,
            reading: Reading | None = None) -> Fraction:
    """Success@k: 1 if the prefix holds a relevant document, else 0 (trec_eval ``success_k``;
    ranx ``hit_rate@k``). Its mean over needs is the share of needs answered at all."""
    reading = reading or DEFAULT_READING
    r = relevant_set(judgements, _level(rel, reading))
    return Fraction(int(any(d in r for d in prefix(_condensed(ranking, judgements, reading), k, reading))))


def judged(judgements: Mapping[str, int], ranking: Ranking, k: int | None,
           reading: Reading | None = None) -> Fraction:
    """Judged@k: the fraction of the returned prefix that has a judgement (any grade), in [0, 1].

    Chapter 23: "separately reporting how much of the selected prefix actually received a
    judgement". The denominator is the number of documents in the prefix (min(k, returned)),
    as in ir-measures' ``Judged@k``; 0 for an empty prefix.
    """
    docs = prefix(ranking, k, reading)
    if not docs:
        return Fraction(0)
    return Fraction(sum(1 for d in docs if d in judgements), len(docs))


def set_precision(judgements: Mapping[str, int], selected: Sequence[str], rel: int | None = None,
                  reading: Reading | None = None) -> Fraction:
    """|selected ∩ R| / |selected|, 0 for an empty selection (trec_eval ``set_P``)."""
    reading = reading or DEFAULT_READING
    docs = prefix(selected, None, reading)
    if not docs:
        return Fraction(0)
    r = relevant_set(judgements, _level(rel, reading))
    return Fraction(sum(1 for d in docs if d in r), len(docs))


def set_recall(judgements: Mapping[str, int], selected: Sequence[str], rel: int | None = None,
               reading: Reading | None = None) -> Fraction:
    """|selected ∩ R| / |R|, 0 when R is empty (trec_eval ``set_recall``)."""
    reading = reading or DEFAULT_READING
    docs = prefix(selected, None, reading)
    r = relevant_set(judgements, _level(rel, reading))
    if not r:
        return Fraction(0)
    return Fraction(sum(1 for d in docs if d in r), len(r))


def _relevant_flags(judgements: Mapping[str, int], ranking: Ranking, k: int | None, rel: int | None,
                    reading: Reading) -> tuple[list[bool], set[str]]:
    """Whether each document of the evaluated prefix is relevant, and R, under the reading."""
    r = relevant_set(judgements, _level(rel, reading))
    return [d in r for d in prefix(_condensed(ranking, judgements, reading), k, reading)], r


def r_precision(judgements: Mapping[str, int], ranking: Ranking, rel: int | None = None,
                reading: Reading | None = None) -> Fraction:
    """R-precision = |relevant in the first |R|| / |R|, in [0, 1]; 0 when R is empty (trec_eval ``Rprec``;
    Buckley & Voorhees 2000): recall at k = |R|. Fewer than |R| returned: the missing ranks count as non-relevant."""
    reading = reading or DEFAULT_READING
    return recall(judgements, ranking, len(relevant_set(judgements, _level(rel, reading))), rel, reading)


def bpref(judgements: Mapping[str, int], ranking: Ranking, rel: int | None = None,
          reading: Reading | None = None) -> Fraction:
    """bpref = (1/|R|) Σ over relevant retrieved r of (1 − min(|n ranked above r|, |R|) / min(|R|, |N|)), in
    [0, 1]; 0 when R is empty (Buckley & Voorhees 2004; trec_eval ``bpref``, ``m_bpref.c``). N: the judged
    non-relevant documents (a grade below the relevance level); n: those of N in the ranking. Unjudged
    documents are skipped, whatever the ``unjudged`` convention."""
    reading = reading or DEFAULT_READING
    level = _level(rel, reading)
    r = relevant_set(judgements, level)
    if not r:
        return Fraction(0)
    nonrelevant = sum(1 for g in judgements.values() if g < level)
    seen_nonrelevant, total = 0, Fraction(0)
    for d in prefix(ranking, None, reading):
        if d not in judgements:
            continue
        if d in r:
            total += 1 - Fraction(min(seen_nonrelevant, len(r)), min(len(r), nonrelevant)) if seen_nonrelevant else 1
        else:
            seen_nonrelevant += 1
    return total / len(r)


def f_measure(precision_value: Fraction, recall_value: Fraction, beta: Fraction) -> Fraction:
    """F_β = (1 + β²) P R / (β² P + R), in [0, 1]; 0 when P and R are both 0 (van Rijsbergen 1979;
    trec_eval ``set_F``; ranx ``f1``). β = 1 is the harmonic mean of P and R."""
    denominator = beta * beta * precision_value + recall_value
    if denominator == 0:
        return Fraction(0)
    return (1 + beta * beta) * precision_value * recall_value / denominator


def expected_reciprocal_rank(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None,
                             reading: Reading | None = None) -> Fraction:
    """ERR@k = Σ_{r ≤ k} (1/r) R_r Π_{i<r} (1 − R_i) with R_g = (2^g − 1) / 2^g_max, in [0, 1] (Chapelle et
    al. 2009, the cascade model). g_max by the ``err_max_grade`` convention: ``highest grade judged`` (the query's
    top grade: Chapelle et al.'s g_max of the scale), ``4`` (gdeval.pl, the TREC Web track's script), or any whole
    number a text states as its judging scale's top grade ("grades 0–3": ``3``). Grades ≤ 0
    and unjudged documents stop no user. Exact. Raises ``ReadingDoesNotApply`` for ``4`` on a grade above 4, which
    gdeval.pl refuses (``$judgment <= $MAX_JUDGMENT``)."""
    reading = reading or DEFAULT_READING
    top = max(judgements.values(), default=0)
    stated = reading["err_max_grade"]
    if stated == "4" and top > 4:
        raise ReadingDoesNotApply(f"ERR's top grade 4 (gdeval.pl) does not apply to grade {top}: gdeval refuses "
                                  "grades above 4")
    if stated.isdigit() and top > int(stated):
        raise ReadingDoesNotApply(f"ERR's top grade {stated}, the top of the judging scale, does not apply to grade "
                                  f"{top}: a grade above the scale's top would stop more than every user")
    g_max = int(stated) if stated.isdigit() else max(top, 1)
    if g_max > MAX_GRADE:
        raise MeasureError(f"grade {g_max} is too large for ERR's 2^grade; grades up to {MAX_GRADE} are supported")
    scale = 2 ** g_max
    total, not_stopped = Fraction(0), Fraction(1)
    for position, d in enumerate(prefix(_condensed(ranking, judgements, reading), k, reading), start=1):
        g = judgements.get(d, 0)
        if g <= 0:
            continue
        stop = Fraction(2 ** g - 1, scale)
        total += not_stopped * stop / position
        not_stopped *= 1 - stop
    return total


def rank_biased_precision(judgements: Mapping[str, int], ranking: Ranking, p: Fraction, k: int | None = None,
                          rel: int | None = None, reading: Reading | None = None) -> Fraction:
    """RBP(p) = (1 − p) Σ_{i ≤ d} r_i p^(i−1), in [0, 1] (Moffat & Zobel 2008), p the persistence in
    (0, 1), d the prefix's length. r_i by the ``rbp_gain`` convention: ``binary`` (1 for a grade at the
    relevance level or above, else 0; Moffat & Zobel, trec_eval ``rbp``) or ``grade`` (the grade itself;
    ranx ``rbp``). Exact for a rational p."""
    reading = reading or DEFAULT_READING
    level = _level(rel, reading)
    graded = reading["rbp_gain"] == "grade"
    total, weight = Fraction(0), Fraction(1)
    for d in prefix(_condensed(ranking, judgements, reading), k, reading):
        g = judgements.get(d, 0)
        if g >= level:
            total += weight * (g if graded else 1)
        weight *= p
    return (1 - p) * total


def interpolated_precision(judgements: Mapping[str, int], ranking: Ranking, recall_level: Fraction,
                           rel: int | None = None, reading: Reading | None = None) -> Fraction:
    """Interpolated precision at a recall level r: the largest P@i over the ranks i that reach r, in [0, 1]; 0
    when no rank reaches r or R is empty (Manning et al. 2008 §8.4; trec_eval ``iprec_at_recall``). P@i divides
    by i. Which ranks reach r, by the ``iprec_level`` convention: ``round(r·|R|) relevant`` (trec_eval 10.0,
    ``m_iprec_at_recall.c``: ``lround(r * num_rel)`` relevant documents), ``floor(r·|R| + 0.9) relevant``
    (trec_eval 9 and earlier, as bundled by pytrec_eval: ``(long)(r * num_rel + 0.9)``) or ``recall ≥ r``."""
    reading = reading or DEFAULT_READING
    flags, r = _relevant_flags(judgements, ranking, None, rel, reading)
    if not r:
        return Fraction(0)
    scaled = recall_level * len(r)
    needed = {"round(r·|R|) relevant": lambda: Fraction(math.floor(scaled + Fraction(1, 2))),  # lround: halves up
              "floor(r·|R| + 0.9) relevant": lambda: Fraction(math.floor(scaled + Fraction(9, 10))),
              "recall ≥ r": lambda: scaled}[reading["iprec_level"]]()
    best, hits = Fraction(0), 0
    for i, flag in enumerate(flags, start=1):
        hits += flag
        if hits >= needed:
            best = max(best, Fraction(hits, i))
    return best


def counts(judgements: Mapping[str, int], ranking: Ranking, what: str, rel: int | None = None,
           reading: Reading | None = None) -> Fraction:
    """trec_eval's counts for one query: ``NumRel`` |R|, ``NumRet`` the documents returned (after the
    ``repeated_ids`` rule), ``NumRelRet`` the relevant among them. Whole numbers ≥ 0."""
    reading = reading or DEFAULT_READING
    r = relevant_set(judgements, _level(rel, reading))
    if what == "NumRel":
        return Fraction(len(r))
    docs = prefix(ranking, None, reading)
    return Fraction(len(docs) if what == "NumRet" else sum(1 for d in docs if d in r))


def _recall_at(spec: MeasureSpec, j: Mapping[str, int], ranking: Ranking, reading: Reading) -> Fraction:
    return recall(j, ranking, spec.cutoff, spec.rel, reading)


#: The exact definition of every measure of the catalogue (``audit.measures.catalogue``):
#: ``compute(spec, judgements, ranking, reading)``, one query's value.
DEFINITIONS: dict[str, Callable[[MeasureSpec, Mapping[str, int], Ranking, Reading], Fraction]] = {
    "P": lambda s, j, r, x: precision(j, r, s.cutoff, s.rel, x),
    "R": _recall_at,
    "RR": lambda s, j, r, x: reciprocal_rank(j, r, s.cutoff, s.rel, x),
    "AP": lambda s, j, r, x: average_precision(j, r, s.cutoff, s.rel, x),
    "nDCG": lambda s, j, r, x: ndcg(j, r, s.cutoff, s.gain, x, s.rel),
    "DCG": lambda s, j, r, x: Fraction(dcg_parts(j, r, s.cutoff, s.gain, x, s.rel)[0]),
    "IDCG": lambda s, j, r, x: Fraction(dcg_parts(j, r, s.cutoff, s.gain, x, s.rel)[1]),
    "Success": lambda s, j, r, x: success(j, r, s.cutoff, s.rel, x),
    "Judged": lambda s, j, r, x: judged(j, r, s.cutoff, x),
    "SetP": lambda s, j, r, x: set_precision(j, r, s.rel, x),
    "SetR": lambda s, j, r, x: set_recall(j, r, s.rel, x),
    "SetF": lambda s, j, r, x: f_measure(set_precision(j, r, s.rel, x), set_recall(j, r, s.rel, x),
        s.beta if s.beta is not None else Fraction(1)),
    "F": lambda s, j, r, x: f_measure(precision(j, r, s.cutoff, s.rel, x), recall(j, r, s.cutoff, s.rel, x),
        s.beta if s.beta is not None else Fraction(1)),
    "Rprec": lambda s, j, r, x: r_precision(j, r, s.rel, x),
    "Bpref": lambda s, j, r, x: bpref(j, r, s.rel, x),
    "ERR": lambda s, j, r, x: expected_reciprocal_rank(j, r, s.cutoff, x),
    "RBP": lambda s, j, r, x: rank_biased_precision(j, r, s.p if s.p is not None else Fraction(4, 5), s.cutoff,
        s.rel, x),
    "IPrec": lambda s, j, r, x: interpolated_precision(j, r, s.recall, s.rel, x),
    "NumRel": lambda s, j, r, x: counts(j, r, "NumRel", s.rel, x),
    "NumRet": lambda s, j, r, x: counts(j, r, "NumRet", s.rel, x),
    "NumRelRet": lambda s, j, r, x: counts(j, r, "NumRelRet", s.rel, x),
    # a query's value is its AP, floored as the reading's gmap_floor says (trec_eval's gm_map reports each query's
    # max(AP, 0.00001)); the geometric mean over queries floors the same way
    "GMAP": lambda s, j, r, x: _gmap_term(average_precision(j, r, s.cutoff, s.rel, x), x),
}


#: trec_eval's floor for a query's value in a geometric mean (``gm_map``: ``MIN_GEO_MEAN``).
GEOMETRIC_FLOOR = Fraction(1, 100_000)


def _gmap_term(ap: Fraction, reading: Reading) -> Fraction:
    """One query's term of GMAP: its AP, at least 0.00001 under ``gmap_floor: floored`` (trec_eval ``gm_map``)."""
    return max(ap, GEOMETRIC_FLOOR) if reading["gmap_floor"] == "floored" else ap
