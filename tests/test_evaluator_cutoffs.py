"""``evaluate_cutoffs`` (one pass over the ranking) against ``evaluate_query`` cutoff by cutoff.

The reference value for every cutoff is the chapter evaluator's own per-cutoff definition
(``audit.evaluation.evaluator.evaluate_query``, checked by hand in ``test_evaluator.py``); the one-pass
series must equal it exactly — the same Fraction, and for nDCG the same 50-digit decimal —
under every reading, relevance level and gain, on rankings with unjudged documents,
repeated IDs and negative grades.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.evaluation import definitions as D
from audit.evaluation import evaluator as E
from audit.measures.catalogue import MeasureSpec
from audit.measures.conventions import CONVENTIONS

F = Fraction
#: The conventions a single query's value depends on (averaging and no_relevant act across queries).
PER_QUERY = ("prefix", "precision_denominator", "repeated_ids", "unjudged", "gain", "ideal",
             "relevance_level", "rr_cutoff")

readings = st.fixed_dictionaries(
    {name: st.sampled_from(c.values) if name in PER_QUERY else st.just(c.values[0])
     for name, c in CONVENTIONS.items()})
docs = st.sampled_from([f"d{i}" for i in range(9)])
judgements = st.dictionaries(docs, st.integers(-2, 4), max_size=9)
rankings = st.lists(docs, max_size=12)
cutoff_lists = st.lists(st.integers(1, 14), min_size=0, max_size=8)
specs = st.builds(MeasureSpec, st.sampled_from(["P", "R", "RR", "AP", "nDCG", "Success", "Judged"]),
                  st.none(), st.sampled_from([None, 1, 2]), st.sampled_from([None, "log2", "exp-log2"]))


def one_by_one(spec, qrels, ranking, cutoffs, reading):
    out = []
    for k in cutoffs:
        try:
            out.append(E.evaluate_query(MeasureSpec(spec.name, k, spec.rel, spec.gain), qrels, ranking, reading))
        except Exception as error:  # the series must raise the same error
            return type(error)
    return out


def series(spec, qrels, ranking, cutoffs, reading):
    try:
        return E.evaluate_cutoffs(spec, qrels, ranking, cutoffs, reading)
    except Exception as error:
        return type(error)


@settings(max_examples=600, deadline=None)
@given(specs, judgements, rankings, cutoff_lists, readings)
def test_series_equals_each_cutoff(spec, qrels, ranking, cutoffs, reading) -> None:
    if spec.name != "nDCG":
        spec = MeasureSpec(spec.name, None, spec.rel)
    assert series(spec, qrels, ranking, cutoffs, reading) == one_by_one(spec, qrels, ranking, cutoffs, reading)


@settings(max_examples=300, deadline=None)
@given(judgements, st.lists(docs, max_size=12, unique=True), readings)
def test_distinct_rankings_every_cutoff(qrels, ranking, reading) -> None:
    """The one-pass path proper (no repeated ID), at every cutoff 1 … past the ranking's end."""
    cutoffs = list(range(1, len(ranking) + 3))
    for name, gain in product(["P", "R", "RR", "AP", "Success", "Judged", "nDCG"], [None, "exp-log2"]):
        spec = MeasureSpec(name, None, None, gain if name == "nDCG" else None)
        assert series(spec, qrels, ranking, cutoffs, reading) == one_by_one(spec, qrels, ranking, cutoffs, reading)


def test_hand_computed_series() -> None:
    """Chapter 23's definitions by hand on [n, a, u, b] with R = {a, b, c}, u unjudged, n judged 0."""
    qrels = {"n": 0, "a": 1, "b": 1, "c": 1}
    ranking = ["n", "a", "u", "b"]
    ks = [1, 2, 3, 4, 5]
    assert E.evaluate_cutoffs(MeasureSpec("P"), qrels, ranking, ks) == [F(0), F(1, 2), F(1, 3), F(2, 4), F(2, 5)]
    assert E.evaluate_cutoffs(MeasureSpec("R"), qrels, ranking, ks) == [F(0), F(1, 3), F(1, 3), F(2, 3), F(2, 3)]
    # AP@4 = (P@2 + P@4) / |R| = (1/2 + 2/4) / 3 = 1/3
    assert E.evaluate_cutoffs(MeasureSpec("AP"), qrels, ranking, ks) == [F(0), F(1, 6), F(1, 6), F(1, 3), F(1, 3)]
    # RR@k (rr_cutoff: applied, the default): a is at rank 2, so 0 at k = 1, then 1/2
    assert E.evaluate_cutoffs(MeasureSpec("RR"), qrels, ranking, ks) == [F(0)] + [F(1, 2)] * 4
    # rr_cutoff: ignored (trec_eval's recip_rank): the whole ranking, 1/2 at every k
    ignored = dict(D.DEFAULT_READING, rr_cutoff="ignored")
    assert E.evaluate_cutoffs(MeasureSpec("RR"), qrels, ranking, ks, ignored) == [F(1, 2)] * 5
    assert E.evaluate_cutoffs(MeasureSpec("Judged"), qrels, ranking, ks) == [F(1), F(1), F(2, 3), F(3, 4), F(3, 4)]
    removed = dict(D.DEFAULT_READING, unjudged="removed")  # u dropped before the cutoff: [n, a, b]
    assert E.evaluate_cutoffs(MeasureSpec("P"), qrels, ranking, [3], removed) == [F(2, 3)]
