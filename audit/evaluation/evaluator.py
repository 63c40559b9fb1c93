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
from functools import lru_cache

from audit.errors import MeasureError, RankingError, RepeatedIDError
from audit.register.conventions import CONVENTIONS

Qrels = Mapping[str, Mapping[str, int]]
Ranking = Sequence[str]
Run = Mapping[str, Ranking]

#: Gain functions for nDCG, named as ir-measures names its ``dcg`` parameter → the ``gain`` convention.
#: ``log2``: gain = grade (Järvelin & Kekäläinen 2002; trec_eval ``ndcg_cut``).
#: ``exp-log2``: gain = 2**grade - 1 (Burges et al. 2005; ranx ``ndcg_burges``).
GAINS = {"log2": "linear", "exp-log2": "exponential"}

#: A reading: one value for every convention (``audit.register.conventions``).
Reading = Mapping[str, str]

#: The reading trec_eval's defaults follow (each convention's first value).
DEFAULT_READING: dict[str, str] = {name: c.values[0] for name, c in CONVENTIONS.items()}

_DIGITS = 50


def check_ranking(ranking: Ranking, *, query_id: str | None = None) -> None:
    """Reject a ranking that repeats a document ID (the ``repeated_ids: reject`` convention).

    Chapter 23: "The evaluator rejects repeated result IDs: returning the same document
    twice cannot count as two discoveries." Raises ``RepeatedIDError`` naming the ID and
    both 1-based positions.
    """
    if len(set(ranking)) == len(ranking):
        return
    seen: dict[str, int] = {}
    for position, doc_id in enumerate(ranking, start=1):
        if doc_id in seen:
            where = f" for query {query_id!r}" if query_id is not None else ""
            raise RepeatedIDError(
                f"ranking{where} repeats document {doc_id!r} at ranks {seen[doc_id]} and {position}; "
                "the chapter's evaluator rejects repeated result IDs — remove the duplicate")
        seen[doc_id] = position


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
    denominator = {"k": k, "number returned": len(docs), "min(k, |R|)": min(k, len(r))}[reading["precision_denominator"]]
    if denominator == 0:
        return Fraction(0)
    return Fraction(sum(1 for d in docs if d in r), denominator)


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
    """AP@k = (Σ over relevant ranks i ≤ k of P@i) / |R|, in [0, 1]; 0 when R is empty.

    Chapter 23 table: denominator "|R|" (trec_eval ``map_cut_k``; Buckley & Voorhees 2000).
    """
    reading = reading or DEFAULT_READING
    r = relevant_set(judgements, _level(rel, reading))
    if not r:
        return Fraction(0)
    hits, total = 0, Fraction(0)
    for position, d in enumerate(prefix(_condensed(ranking, judgements, reading), k, reading), start=1):
        if d in r:
            hits += 1
            total += Fraction(hits, position)
    return total / len(r)


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


@lru_cache(maxsize=4096)
def _discount(position: int) -> Decimal:
    """log2(position + 1) to 50 significant digits (computed as ln(position + 1) / ln 2, each rounded)."""
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        return Decimal(position + 1).ln() / Decimal(2).ln()


def _dcg(grades: Sequence[int], gain: str) -> Decimal:
    total = Decimal(0)
    for position, grade in enumerate(grades, start=1):
        if grade > 0:
            total += _gain(grade, gain) / _discount(position)
    return total


def ndcg(judgements: Mapping[str, int], ranking: Ranking, k: int | None = None,
         gain: str | None = None, reading: Reading | None = None, rel: int | None = None) -> Fraction:
    """nDCG@k = DCG@k / ideal DCG, discount log2(rank + 1), in [0, 1]; 0 when the ideal DCG is 0.

    ``gain`` (or the reading's ``gain`` convention): ``linear`` (gain = grade; Järvelin &
    Kekäläinen 2002, trec_eval ``ndcg_cut``) or ``exponential`` (2**grade − 1; Burges et al.
    2005, ranx ``ndcg_burges``). Ideal by the ``ideal`` convention: ``judged, cut at k`` (all
    judged grades sorted, cut at k — chapter 23 table: "Ideal DCG@k for the same judgements"),
    ``judged, whole list`` (not cut) or ``retrieved only``. ``rel``: grades below it give no
    gain (ranx ``-l``). Negative grades give no gain. 50 significant digits.
    """
    reading = reading or DEFAULT_READING
    gain = GAINS.get(gain, gain) if gain else reading["gain"]  # ir-measures names (log2, exp-log2) accepted
    with localcontext() as ctx:
        ctx.prec = _DIGITS

        def grade(d: str) -> int:
            g = judgements.get(d, 0)
            return g if rel is None or g >= rel else 0

        docs = prefix(_condensed(ranking, judgements, reading), k, reading)
        dcg = _dcg([grade(d) for d in docs], gain)
        ideal_rule = reading["ideal"]
        pool = docs if ideal_rule == "retrieved only" else judgements
        ideal_grades = sorted((grade(d) for d in (dict.fromkeys(pool) if ideal_rule == "retrieved only" else pool)
                               if grade(d) > 0), reverse=True)
        if k is not None and ideal_rule == "judged, cut at k":
            ideal_grades = ideal_grades[:k]
        ideal = _dcg(ideal_grades, gain)
        if ideal == 0:
            return Fraction(0)
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


@dataclass(frozen=True)
class MeasureSpec:
    """A measure the chapter evaluator computes: name, cutoff, and the parameters the measure name
    fixes itself (``rel``, ``gain``); None leaves them to the reading's conventions."""

    name: str
    cutoff: int | None = None
    rel: int | None = None
    gain: str | None = None

    def __str__(self) -> str:
        return self.name + (f"@{self.cutoff}" if self.cutoff is not None else "")


#: Measure names the chapter evaluator implements (ir-measures names).
SUPPORTED = ("P", "R", "RR", "AP", "nDCG", "Success", "Judged", "SetP", "SetR")


def evaluate_query(spec: MeasureSpec, judgements: Mapping[str, int], ranking: Ranking,
                   reading: Reading | None = None, scores: Mapping[str, float] | None = None) -> Fraction:
    """One measure on one query under ``reading`` (default: ``DEFAULT_READING``), in [0, 1].

    ``scores`` (``{doc_id: score}``) only matter for the ``ties`` convention. Raises
    ``MeasureError`` for a measure outside ``SUPPORTED``, ``RepeatedIDError`` when the reading
    rejects a repeated ID.
    """
    reading = reading or DEFAULT_READING
    ranking = order_ties(ranking, scores, reading["ties"])
    k = spec.cutoff
    if spec.name == "P":
        if k is None:
            raise MeasureError("P needs a cutoff (P@k); for a set-based precision use SetP")
        return precision(judgements, ranking, k, spec.rel, reading)
    if spec.name == "R":
        return recall(judgements, ranking, k, spec.rel, reading)
    if spec.name == "RR":
        return reciprocal_rank(judgements, ranking, k, spec.rel, reading)
    if spec.name == "AP":
        return average_precision(judgements, ranking, k, spec.rel, reading)
    if spec.name == "nDCG":
        return ndcg(judgements, ranking, k, spec.gain, reading, spec.rel)
    if spec.name == "Judged":
        return judged(judgements, ranking, k, reading)
    if spec.name == "Success":
        return success(judgements, ranking, k, spec.rel, reading)
    if spec.name == "SetP":
        return set_precision(judgements, ranking, spec.rel, reading)
    if spec.name == "SetR":
        return set_recall(judgements, ranking, spec.rel, reading)
    raise MeasureError(f"the chapter evaluator does not implement {spec}; it implements {', '.join(SUPPORTED)}")


@lru_cache(maxsize=65_536)
def _ratio(numerator: int, denominator: int) -> Fraction:
    """``Fraction(numerator, denominator)``, shared: the same small ratios recur across a search's cases."""
    return Fraction(numerator, denominator)


#: Measures ``evaluate_cutoffs`` computes in one pass over the ranking.
_SERIES = ("P", "R", "RR", "AP", "nDCG", "Success", "Judged")


def evaluate_cutoffs(spec: MeasureSpec, judgements: Mapping[str, int], ranking: Ranking, cutoffs: Sequence[int],
                     reading: Reading | None = None) -> list[Fraction]:
    """``evaluate_query`` at every cutoff in ``cutoffs`` (each ≥ 1; ``spec.cutoff`` is ignored), in one pass.

    Returns one ``Fraction`` in [0, 1] per cutoff, in the order given, equal to
    ``evaluate_query(replace(spec, cutoff=k), judgements, ranking, reading)`` for each k: the
    same definitions (chapter 23 §"Count useful items" and its table), with the prefix sums
    shared between cutoffs, and for nDCG the same 50-digit operations in the same order. A
    ranking that repeats an ID, and the set measures, are evaluated cutoff by cutoff. Raises
    what ``evaluate_query`` raises.
    """
    reading = reading or DEFAULT_READING
    if (spec.name not in _SERIES or len(set(ranking)) != len(ranking) or any(k < 1 for k in cutoffs)
            or any(g > MAX_GRADE for g in judgements.values())):
        return [evaluate_query(MeasureSpec(spec.name, k, spec.rel, spec.gain), judgements, ranking, reading)
                for k in cutoffs]
    if not cutoffs:
        return []
    if spec.name == "Judged":
        flags = [d in judgements for d in ranking]
    elif spec.name == "nDCG":
        return _ndcg_cutoffs(judgements, ranking, cutoffs, spec.gain, reading, spec.rel)
    else:
        relevant = relevant_set(judgements, _level(spec.rel, reading))
        flags = [d in relevant for d in _condensed(ranking, judgements, reading)]
    top = min(max(cutoffs), len(flags))
    hits = [0] * (top + 1)  # hits[i]: relevant (or judged) documents among the first i
    for i in range(top):
        hits[i + 1] = hits[i] + flags[i]
    name, out = spec.name, []
    zero = _ratio(0, 1)
    if name == "P":
        denominator = {"k": lambda k: k, "number returned": lambda k: min(k, len(flags)),
                       "min(k, |R|)": lambda k: min(k, len(relevant))}[reading["precision_denominator"]]
        for k in cutoffs:
            d = denominator(k)
            out.append(_ratio(hits[min(k, top)], d) if d else zero)
    elif name == "R":
        out = [_ratio(hits[min(k, top)], len(relevant)) if relevant else zero for k in cutoffs]
    elif name == "Judged":
        out = [_ratio(hits[min(k, top)], min(k, len(flags))) if flags else zero for k in cutoffs]
    elif name == "Success":
        out = [_ratio(int(hits[min(k, top)] > 0), 1) for k in cutoffs]
    elif name == "RR":
        first = next((i for i, f in enumerate(flags, start=1) if f), None)
        ignored = reading["rr_cutoff"] == "ignored"
        out = [_ratio(1, first) if first is not None and (ignored or first <= k) else zero for k in cutoffs]
    else:  # AP
        totals = [zero] * (top + 1)  # totals[i]: Σ of P@j over relevant ranks j ≤ i
        for i in range(top):
            totals[i + 1] = totals[i] + _ratio(hits[i + 1], i + 1) if flags[i] else totals[i]
        out = [totals[min(k, top)] / len(relevant) if relevant else zero for k in cutoffs]
    return out


def _ndcg_cutoffs(judgements: Mapping[str, int], ranking: Ranking, cutoffs: Sequence[int], gain: str | None,
                  reading: Reading, rel: int | None) -> list[Fraction]:
    """``ndcg`` at each cutoff, with DCG and ideal DCG as running sums of the same terms ``_dcg`` adds."""
    gain = GAINS.get(gain, gain) if gain else reading["gain"]
    with localcontext() as ctx:
        ctx.prec = _DIGITS

        def grade(d: str) -> int:
            g = judgements.get(d, 0)
            return g if rel is None or g >= rel else 0

        docs = _condensed(ranking, judgements, reading)
        top = min(max(cutoffs), len(docs))
        dcg = _running_dcg([grade(d) for d in docs[:top]], gain)
        ideal_rule = reading["ideal"]
        if ideal_rule == "retrieved only":
            ideals = [_dcg(sorted((g for g in (grade(d) for d in docs[:i]) if g > 0), reverse=True), gain)
                      for i in range(top + 1)]
        else:
            ideal_grades = sorted((g for g in map(grade, judgements) if g > 0), reverse=True)
            ideals = _running_dcg(ideal_grades, gain)
            if ideal_rule != "judged, cut at k":
                ideals = None
                whole = _dcg(ideal_grades, gain)
        out = []
        for k in cutoffs:
            if ideal_rule == "retrieved only":
                ideal = ideals[min(k, top)]
            elif ideals is None:
                ideal = whole
            else:
                ideal = ideals[min(k, len(ideals) - 1)]
            out.append(Fraction(0) if ideal == 0 else Fraction(dcg[min(k, top)] / ideal))
        return out


def _running_dcg(grades: Sequence[int], gain: str) -> list[Decimal]:
    """``[_dcg(grades[:i], gain) for i in 0…len(grades)]``, adding the same terms in the same order."""
    totals = [Decimal(0)]
    for position, grade in enumerate(grades, start=1):
        total = totals[-1]
        if grade > 0:
            total = total + _gain(grade, gain) / _discount(position)
        totals.append(total)
    return totals


def _no_relevant(spec: MeasureSpec, judgements: Mapping[str, int], reading: Reading) -> bool:
    """Whether ``no_relevant: left out`` leaves this query out of the measure. Judged@k never: it
    counts judgements of any grade, so a query without relevant documents still has a value."""
    if spec.name == "Judged":
        return False
    level = spec.rel if spec.rel is not None else int(reading["relevance_level"])
    if spec.name == "nDCG":
        return not any(g > 0 and g >= (spec.rel or 1) for g in judgements.values())
    return not relevant_set(judgements, level)


def evaluate(spec: MeasureSpec, qrels: Qrels, run: Run, reading: Reading | None = None,
             scores: Mapping[str, Mapping[str, float]] | None = None) -> dict[str, Fraction]:
    """Per-query values ``{query_id: Fraction}`` for the queries the reading keeps.

    Left out: queries of the run without judgements (as trec_eval); under ``averaging: queries
    with results``, queries whose ranking is empty; under ``no_relevant: left out``, queries
    with no relevant document. Under ``averaging: all judged queries``, a judged query missing
    from the run scores as an empty ranking. Raises ``RepeatedIDError`` when the reading rejects
    a repeated ID.
    """
    reading = reading or DEFAULT_READING
    out: dict[str, Fraction] = {}
    queries = list(run)
    if reading["averaging"] == "all judged queries":
        queries += [q for q in qrels if q not in run]
    for query_id in queries:
        if query_id not in qrels:
            continue
        ranking = run.get(query_id, [])
        if reading["repeated_ids"] == "reject":
            check_ranking(ranking, query_id=query_id)
        if reading["averaging"] == "queries with results" and not ranking:
            continue
        if reading["no_relevant"] == "left out" and _no_relevant(spec, qrels[query_id], reading):
            continue
        out[query_id] = evaluate_query(spec, qrels[query_id], ranking, reading,
                                       (scores or {}).get(query_id))
    return out


def aggregate(spec: MeasureSpec, qrels: Qrels, run: Run, reading: Reading | None = None,
              scores: Mapping[str, Mapping[str, float]] | None = None) -> Fraction | None:
    """The value over all queries under the reading's ``averaging``: the mean of ``evaluate``'s
    per-query values, or for ``pooled`` recall Σ relevant found / Σ |R|. None when the reading
    does not apply (pooled for a measure other than recall)."""
    reading = reading or DEFAULT_READING
    if reading["averaging"] == "pooled":
        if spec.name not in ("R", "SetR"):
            return None
        return pooled_recall(qrels, run, spec.cutoff, spec.rel, reading, scores)
    return mean(evaluate(spec, qrels, run, reading, scores))


def pooled_recall(qrels: Qrels, run: Run, k: int | None, rel: int | None = None, reading: Reading | None = None,
                  scores: Mapping[str, Mapping[str, float]] | None = None) -> Fraction:
    """Σ relevant found in the prefixes / Σ |R| over needs: the share of *all* relevant material
    retrieved, as opposed to the mean of per-need recall. 0 when no need has a relevant document."""
    reading = reading or DEFAULT_READING
    level = _level(rel, reading)
    found = total = 0
    for query_id, judgements in qrels.items():
        ranking = order_ties(run.get(query_id, []), (scores or {}).get(query_id), reading["ties"])
        r = relevant_set(judgements, level)
        found += sum(1 for d in prefix(_condensed(ranking, judgements, reading), k, reading) if d in r)
        total += len(r)
    return Fraction(found, total) if total else Fraction(0)


def mean(values: Mapping[str, Fraction]) -> Fraction:
    """Arithmetic mean over queries (MRR, MAP, mean P@k); 0 for no queries."""
    if not values:
        return Fraction(0)
    return sum(values.values(), Fraction(0)) / len(values)
