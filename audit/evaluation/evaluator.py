"""The chapter's definitions applied to qrels and runs: one query's value of a measure under a reading
(``evaluate_query``; the definitions themselves, one per measure of the catalogue, are ``audit.evaluation.definitions``),
a series of cutoffs in one pass, every query of a run, and the means over queries each measure combines with (MAP,
MRR, GMAP's geometric mean, trec_eval's sums), with the readings that apply over several queries."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

from audit.errors import MeasureError
from audit.measures.catalogue import CATALOGUE, GAINS, SUPPORTED, MeasureDef, MeasureSpec
from audit.model.rankings import Qrels, Ranking, Run, check_ranking
from audit.measures.conventions import CONVENTIONS
from audit.model.expressions import exact_root
from audit.evaluation.definitions import (
    _condensed,
    _dcg,
    _DIGITS,
    _discount,
    _gain,
    _IDEAL_CUT,
    _level,
    DEFAULT_READING,
    DEFINITIONS,
    denominator,
    gain_level,
    graded,
    GEOMETRIC_FLOOR,
    judged,
    MAX_GRADE,
    ndcg,
    order_ties,
    precision,
    prefix,
    Reading,
    recall,
    relevant_set,
)


#: Conventions decided over several queries, and the measures they apply to beyond one query.
def _not_numrel_or_numret(m: MeasureDef) -> bool:
    return m.name not in ("NumRel", "NumRet")


_AGGREGATE = {"averaging": lambda m: m.name not in ("SetP", "SetR") and m.combine != "sum",
              "no_relevant": _not_numrel_or_numret,
              "no_qrels": _not_numrel_or_numret}


def relevant_to(measure_name: str, *, several_queries: bool) -> list[str]:
    """Convention names a measure's value can depend on (the aggregate ones only over several queries), in
    the conventions' order (``audit.measures.conventions``)."""
    m = CATALOGUE.get(measure_name)
    if m is None:
        return []
    return [name for name in CONVENTIONS
            if name in m.conventions or (several_queries and name in _AGGREGATE and _AGGREGATE[name](m))]


def evaluate_query(spec: MeasureSpec, judgements: Mapping[str, int], ranking: Ranking,
                   reading: Reading | None = None, scores: Mapping[str, float] | None = None) -> Fraction:
    """One measure on one query under ``reading`` (default: ``DEFAULT_READING``): a ``Fraction``, in [0, 1]
    for a bounded measure (``CATALOGUE``).

    ``scores`` (``{doc_id: score}``) only matter for the ``ties`` convention. Raises
    ``MeasureError`` for a measure outside ``SUPPORTED`` or a cutoff it requires missing,
    ``RepeatedIDError`` when the reading rejects a repeated ID.
    """
    reading = reading or DEFAULT_READING
    m = CATALOGUE.get(spec.name)
    if m is None:
        raise MeasureError(f"the chapter evaluator does not implement {spec}; it implements {', '.join(SUPPORTED)}")
    if m.cutoff == "required" and spec.cutoff is None:
        hint = "; for a set-based precision use SetP" if spec.name == "P" else ""
        raise MeasureError(f"{spec.name} needs a cutoff ({spec.name}@k){hint}")
    if spec.name == "IPrec" and spec.recall is None:
        raise MeasureError("IPrec needs a recall level (IPrec@0.5)")
    ranking = order_ties(ranking, scores, reading["ties"])
    return DEFINITIONS[m.name](spec, judgements, ranking, reading)


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
            or any(g > MAX_GRADE for g in judgements.values())
            or (spec.name == "AP" and reading["ap_denominator"] != "|R|")):
        return [evaluate_query(replace(spec, cutoff=k), judgements, ranking, reading) for k in cutoffs]
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
    level = gain_level(rel, reading)
    with localcontext() as ctx:
        ctx.prec = _DIGITS

        grade = graded(judgements, level)

        docs = _condensed(ranking, judgements, reading)
        top = min(max(cutoffs), len(docs))
        discount = reading.get("discount", "log2(i + 1)")
        dcg = _running_dcg([grade(d) for d in docs[:top]], gain, discount)
        ideal_rule = reading["ideal"]
        if ideal_rule == "retrieved only":
            ideals = [_dcg(sorted((g for g in (grade(d) for d in docs[:i]) if g > 0), reverse=True), gain, discount)
                      for i in range(top + 1)]
        else:
            pool = dict.fromkeys(docs) if ideal_rule == "all retrieved, cut at k" else judgements
            ideal_grades = sorted((g for g in map(grade, pool) if g > 0), reverse=True)
            ideals = _running_dcg(ideal_grades, gain, discount)
            if ideal_rule not in _IDEAL_CUT:
                ideals = None
                whole = _dcg(ideal_grades, gain, discount)
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


def _running_dcg(grades: Sequence[int], gain: str, discount: str = "log2(i + 1)") -> list[Decimal]:
    """``[_dcg(grades[:i], gain, discount) for i in 0…len(grades)]``, adding the same terms in the same order."""
    totals = [Decimal(0)]
    for position, grade in enumerate(grades, start=1):
        total = totals[-1]
        if grade > 0:
            total = total + _gain(grade, gain) / _discount(position, discount)
        totals.append(total)
    return totals


def _no_relevant(spec: MeasureSpec, judgements: Mapping[str, int], reading: Reading) -> bool:
    """Whether ``no_relevant: left out`` leaves this query out of the measure. Judged@k never: it
    counts judgements of any grade, so a query without relevant documents still has a value."""
    if spec.name == "Judged":
        return False
    level = spec.rel if spec.rel is not None else int(reading["relevance_level"])
    if spec.name in ("nDCG", "DCG", "IDCG", "ERR"):
        return not any(g > 0 and g >= (spec.rel or 1) for g in judgements.values())
    return not relevant_set(judgements, level)


def evaluate(spec: MeasureSpec, qrels: Qrels, run: Run, reading: Reading | None = None,
             scores: Mapping[str, Mapping[str, float]] | None = None) -> dict[str, Fraction]:
    """Per-query values ``{query_id: Fraction}`` for the queries the reading keeps.

    Left out: queries of the run without judgements (as trec_eval); under ``averaging: queries
    with results``, queries whose ranking is empty; under ``no_qrels: left out``, queries whose qrels
    entry is empty (pytrec_eval); under ``no_relevant: left out``, judged queries with no relevant
    document. Under ``averaging: all judged queries``, a judged query missing
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
        if not qrels[query_id]:
            if reading["no_qrels"] == "left out":
                continue
        elif reading["no_relevant"] == "left out" and _no_relevant(spec, qrels[query_id], reading):
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
    return combine(spec.name, evaluate(spec, qrels, run, reading, scores), reading)


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


def geometric_mean(values: Mapping[str, Fraction], floor: bool = True) -> Fraction:
    """exp(mean(ln(max(v, 0.00001)))) over queries (trec_eval ``gm_map``; Robertson 2006's GMAP), in [0, 1]; 0
    for no queries. 50 significant digits. ``floor=False``: the plain geometric mean, 0 when any value is 0."""
    if not values:
        return Fraction(0)
    if not floor and any(v <= 0 for v in values.values()):
        return Fraction(0)
    low = GEOMETRIC_FLOOR if floor else Fraction(0)
    product = math.prod((max(v, low) for v in values.values()), start=Fraction(1))
    n = len(values)
    root = exact_root(product, n)
    if root is not None:  # a rational root (equal values, 1 × 1/2 × 1/4 …): exact
        return root
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        logs = sum((Decimal(max(v, low).numerator).ln() - Decimal(max(v, low).denominator).ln()
                    for v in values.values()), Decimal(0))
        return Fraction((logs / n).exp())


def combine(measure_name: str, values: Mapping[str, Fraction | float],
            reading: Reading | None = None) -> Fraction | float:
    """The value over queries of per-query values as the measure combines them (``MeasureDef.combine``): the
    arithmetic mean (MAP, MRR, mean P@k), the sum (trec_eval's ``num_rel``, ``num_ret``: its ``all`` row) or the
    geometric mean, each value floored by the reading's ``gmap_floor`` (default trec_eval's 0.00001, ``gm_map``).
    Exact values stay exact except the geometric mean (50 significant digits); floats (a reference's values, as it
    returned them) give a float. 0 for no queries."""
    how = CATALOGUE[measure_name].combine if measure_name in CATALOGUE else "mean"
    if not values:
        return Fraction(0)
    if all(isinstance(v, Fraction) for v in values.values()):
        if how == "geometric":
            return geometric_mean(values, (reading or DEFAULT_READING)["gmap_floor"] == "floored")
        return {"sum": lambda v: sum(v.values(), Fraction(0))}.get(how, mean)(values)
    floats = [float(v) for v in values.values()]
    if how == "sum":
        return math.fsum(floats)
    if how == "geometric":
        return math.exp(math.fsum(math.log(max(v, float(GEOMETRIC_FLOOR))) for v in floats) / len(floats))
    return math.fsum(floats) / len(floats)
