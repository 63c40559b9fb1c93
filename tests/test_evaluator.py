"""Hand-computed checks of the chapter evaluator's definitions and edge cases.

Every expected value is written as an exact Fraction with a one-line note of where it
comes from: a hand computation from chapter 23's formula, or a stated trec_eval
convention. nDCG involves log2, so its values are irrational; those are compared as
floats (within 1e-15) against a closed form written out in the comment.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from audit.errors import MeasureError, RankingError, RepeatedIDError
from audit.evaluation import definitions as D
from audit.evaluation import evaluator as E
from audit.measures.catalogue import MeasureSpec

F = Fraction
LOG2_3 = math.log2(3)  # discount of rank 2: log2(2 + 1)

# Judgement sets reused below.
TWO_REL = {"a": 1, "b": 1}
AB_N = {"a": 1, "b": 1, "n": 0}
THREE_REL = {"a": 1, "b": 1, "c": 1}
THREE_REL_N = {"a": 1, "b": 1, "c": 1, "n": 0}


# (id, function, args, kwargs, expected)
EXACT_CASES = [
    # --- P@k ---------------------------------------------------------------------------
    ("P@4 fewer results keeps denominator k", D.precision, ({"a": 1}, ["a"], 4), {},
     F(1, 4)),   # chapter 23's own example: 1 relevant / k=4, not / 1 returned (trec_eval P_k)
    ("P@1 two relevant", D.precision, (TWO_REL, ["a"], 1), {},
     F(1, 1)),   # 1 relevant in prefix [a] / k=1
    ("P@3 a,n,b", D.precision, (AB_N, ["a", "n", "b"], 3), {},
     F(2, 3)),   # a and b relevant, n judged 0: 2/3
    ("P@0", D.precision, ({"a": 1}, ["a"], 0), {},
     F(0)),      # evaluator convention: P@0 = 0 (no 0/0)
    ("P@5 empty ranking", D.precision, ({"a": 1}, [], 5), {},
     F(0)),      # 0 relevant in empty prefix / 5
    ("P@4 unjudged count as non-relevant", D.precision, ({"a": 1, "n": 0}, ["a", "u", "n", "v"], 4), {},
     F(1, 4)),   # only a relevant; u, v unjudged = non-relevant (trec_eval convention)
    # --- Recall@k ----------------------------------------------------------------------
    ("R@1 two relevant", D.recall, (TWO_REL, ["a"], 1), {},
     F(1, 2)),   # 1 relevant in prefix / |R|=2
    ("R@3 a,n,b", D.recall, (AB_N, ["a", "n", "b"], 3), {},
     F(1)),      # 2 relevant in prefix / |R|=2
    ("R@0", D.recall, (TWO_REL, ["a", "b"], 0), {},
     F(0)),      # empty prefix: 0 / |R|
    ("R@5 empty ranking", D.recall, (TWO_REL, [], 5), {},
     F(0)),      # 0 / |R|=2
    ("R empty R", D.recall, ({"n": 0}, ["n", "a"], 2), {},
     F(0)),      # |R|=0: defined as 0 (trec_eval recall_k convention)
    ("R no qrels", D.recall, ({}, ["a"], None), {},
     F(0)),      # no judgements at all: |R|=0 -> 0
    ("R no cutoff", D.recall, (THREE_REL, ["a", "n", "b", "m"], None), {},
     F(2, 3)),   # whole ranking: a, b of |R|=3
    # --- AP@k --------------------------------------------------------------------------
    ("AP@4 a,n,b,m |R|=3", D.average_precision, (THREE_REL, ["a", "n", "b", "m"], 4), {},
     F(5, 9)),   # (P@1 + P@3)/|R| = (1 + 2/3)/3 = 5/9
    ("AP@2 a,n,b,m |R|=3", D.average_precision, (THREE_REL, ["a", "n", "b", "m"], 2), {},
     F(1, 3)),   # only rank 1 in prefix: P@1/|R| = 1/3 (denominator stays |R|, trec_eval map_cut)
    ("AP@0", D.average_precision, (THREE_REL, ["a"], 0), {},
     F(0)),      # empty prefix: 0/|R|
    ("AP empty ranking", D.average_precision, (THREE_REL, []), {},
     F(0)),      # no relevant ranks: 0/|R|
    ("AP empty R", D.average_precision, ({"n": 0}, ["n", "a"]), {},
     F(0)),      # |R|=0: defined as 0 (trec_eval map convention)
    # --- RR@k --------------------------------------------------------------------------
    ("RR first relevant at rank 3", D.reciprocal_rank, ({"a": 1, "n": 0}, ["n", "m", "a"]), {},
     F(1, 3)),   # 1 / rank 3
    ("RR@2 first relevant at rank 3", D.reciprocal_rank, ({"a": 1, "n": 0}, ["n", "m", "a"], 2), {},
     F(0)),      # no relevant document in the first 2: 0
    ("RR@0", D.reciprocal_rank, ({"a": 1}, ["a"], 0), {},
     F(0)),      # empty prefix: 0
    ("RR empty ranking", D.reciprocal_rank, ({"a": 1}, []), {},
     F(0)),      # nothing retrieved: 0
    ("RR empty R", D.reciprocal_rank, ({"a": 0}, ["a"]), {},
     F(0)),      # no relevant document exists: 0
    # --- relevance grades: >= 1 relevant, 0 and negative not --------------------------------
    ("P@1 grade 2 relevant", D.precision, ({"a": 2}, ["a"], 1), {},
     F(1)),      # grade 2 >= 1: relevant
    ("P@1 grade 0 not relevant", D.precision, ({"a": 0}, ["a"], 1), {},
     F(0)),      # grade 0 < 1: judged non-relevant
    ("P@1 grade -1 not relevant", D.precision, ({"a": -1}, ["a"], 1), {},
     F(0)),      # negative grade < 1: non-relevant
    ("R negative grades not in R", D.recall, ({"a": 1, "b": -1, "c": 0}, ["a"], 1), {},
     F(1)),      # R = {a}: b (-1) and c (0) are not relevant, 1/1
    ("P@2 rel=2 threshold", D.precision, ({"a": 1, "b": 2}, ["a", "b"], 2), {"rel": 2},
     F(1, 2)),   # with rel=2 only b counts (like trec_eval -l 2): 1/2
    # --- Judged@k ------------------------------------------------------------------------
    ("Judged@4 unjudged reduce judged", D.judged, ({"a": 1, "n": 0}, ["a", "u", "n", "v"], 4), {},
     F(1, 2)),   # a, n judged (any grade) of 4: 2/4
    ("Judged@10 denominator min(k, returned)", D.judged, ({"a": 1}, ["a", "u"], 10), {},
     F(1, 2)),   # 1 judged / min(10, 2)=2 (ir-measures Judged@k), not / 10
    ("Judged@1", D.judged, ({"a": 1}, ["a", "u"], 1), {},
     F(1)),      # prefix [a]: 1/1
    ("Judged grade 0 counts as judged", D.judged, ({"n": 0}, ["n"], None), {},
     F(1)),      # a grade-0 judgement is still a judgement: 1/1
    ("Judged@0", D.judged, ({"a": 1}, ["a"], 0), {},
     F(0)),      # empty prefix: 0 by convention
    ("Judged empty ranking", D.judged, ({"a": 1}, [], 5), {},
     F(0)),      # empty prefix: 0 by convention
    # --- set measures ----------------------------------------------------------------------
    ("SetP a,n,u", D.set_precision, (THREE_REL_N, ["a", "n", "u"]), {},
     F(1, 3)),   # |{a}| / |selected|=3 (trec_eval set_P)
    ("SetR a,n,u", D.set_recall, (THREE_REL_N, ["a", "n", "u"]), {},
     F(1, 3)),   # |{a}| / |R|=3 (trec_eval set_recall)
    ("SetP a,b", D.set_precision, (THREE_REL_N, ["a", "b"]), {},
     F(1)),      # 2/2
    ("SetR a,b", D.set_recall, (THREE_REL_N, ["a", "b"]), {},
     F(2, 3)),   # 2/|R|=3
    ("SetP empty selection", D.set_precision, (THREE_REL_N, []), {},
     F(0)),      # empty selection: 0 by convention (no 0/0)
    ("SetR empty selection", D.set_recall, (THREE_REL_N, []), {},
     F(0)),      # 0/|R|
    ("SetR empty R", D.set_recall, ({"n": 0}, ["n"]), {},
     F(0)),      # |R|=0: 0 by convention
    # --- nDCG cases that are exactly rational --------------------------------------------
    ("nDCG@0", D.ndcg, (THREE_REL, ["a"], 0), {},
     F(0)),      # ideal DCG@0 = 0: defined as 0
    ("nDCG empty ranking", D.ndcg, (THREE_REL, []), {},
     F(0)),      # DCG = 0 / ideal > 0 = 0
    ("nDCG empty R", D.ndcg, ({"n": 0}, ["n", "a"]), {},
     F(0)),      # ideal DCG = 0: defined as 0
    ("nDCG negative grades only", D.ndcg, ({"a": -1}, ["a"]), {},
     F(0)),      # negative grades give no gain; ideal = 0 -> 0
    ("nDCG perfect single", D.ndcg, ({"a": 1}, ["a"]), {},
     F(1)),      # DCG = 1/log2(2) = 1 = ideal
    ("nDCG negative grade gives no gain", D.ndcg, ({"a": -1, "b": 1}, ["b", "a"]), {},
     F(1)),      # DCG = 1/log2(2) + 0 = 1; ideal over positive grades = 1
]


@pytest.mark.parametrize(("func", "args", "kwargs", "expected"),
                         [pytest.param(f, a, kw, e, id=i) for i, f, a, kw, e in EXACT_CASES])
def test_exact(func, args, kwargs, expected: Fraction) -> None:
    value = func(*args, **kwargs)
    assert isinstance(value, Fraction)
    assert value == expected


# nDCG: log2 discounts make the values irrational; expected values are closed forms
# evaluated in float, compared within 1e-15. (id, args, kwargs, expected float)
NDCG_CASES = [
    # DCG@4 = 1/log2(2) + 1/log2(4) = 1.5; ideal@4 = 1 + 1/log2(3) + 1/log2(4) (three grade-1 docs)
    ("nDCG@4 a,n,b,m", (THREE_REL, ["a", "n", "b", "m"], 4), {},
     1.5 / (1.5 + 1 / LOG2_3)),
    # Linear gain (gain = grade): DCG = 1/log2(2) + 3/log2(3); ideal = [b, a] = 3/log2(2) + 1/log2(3)
    ("nDCG linear graded", ({"a": 1, "b": 3}, ["a", "b"]), {"gain": "log2"},
     (1 + 3 / LOG2_3) / (3 + 1 / LOG2_3)),
    # Exponential gain (2**g - 1): gains 1 and 7; DCG = 1 + 7/log2(3); ideal = 7 + 1/log2(3)
    ("nDCG exp graded", ({"a": 1, "b": 3}, ["a", "b"]), {"gain": "exp-log2"},
     (1 + 7 / LOG2_3) / (7 + 1 / LOG2_3)),
    # Ideal uses all judged grades, not only the retrieved: DCG = 1; ideal = 1 + 1/log2(3)
    ("nDCG ideal from all judgements", (TWO_REL, ["a"]), {},
     1 / (1 + 1 / LOG2_3)),
    # Unjudged u counts as grade 0: DCG = 1/log2(3); ideal = 1
    ("nDCG unjudged first", ({"a": 1}, ["u", "a"]), {},
     1 / LOG2_3),
]


@pytest.mark.parametrize(("args", "kwargs", "expected"),
                         [pytest.param(a, kw, e, id=i) for i, a, kw, e in NDCG_CASES])
def test_ndcg_float(args, kwargs, expected: float) -> None:
    value = D.ndcg(*args, **kwargs)
    assert isinstance(value, Fraction)
    assert abs(float(value) - expected) <= 1e-15


def test_ndcg_at_4_chapter_value() -> None:
    # nDCG@4 for qrels {a,b,c} (grade 1), ranking [a, n, b, m]: 1.5 / (2.5 + 1/log2(3)) ≈ 0.7039180890341348
    value = D.ndcg(THREE_REL, ["a", "n", "b", "m"], 4)
    assert abs(float(value) - 0.7039180890341348) <= 1e-15


def test_linear_and_exponential_gain_differ_on_graded_qrels() -> None:
    # Linear ≈ 2.8928/3.6309 ≈ 0.7967; exponential ≈ 5.4165/7.6309 ≈ 0.7098 (see NDCG_CASES)
    linear = D.ndcg({"a": 1, "b": 3}, ["a", "b"], gain="log2")
    exponential = D.ndcg({"a": 1, "b": 3}, ["a", "b"], gain="exp-log2")
    assert linear != exponential
    assert linear > exponential  # the misplaced grade-3 document costs more with 2**g - 1
    # On binary qrels the two gains coincide: 2**1 - 1 = 1.
    assert D.ndcg(THREE_REL, ["a", "n", "b"], gain="log2") == D.ndcg(THREE_REL, ["a", "n", "b"], gain="exp-log2")


def test_default_gain_is_linear() -> None:
    # ndcg's documented default gain is "log2" (gain = grade, trec_eval ndcg_cut).
    qrels, ranking = {"a": 1, "b": 3}, ["a", "b"]
    assert D.ndcg(qrels, ranking) == D.ndcg(qrels, ranking, gain="log2")


# --- errors ----------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    pytest.param(lambda: D.precision({"a": 1}, ["a", "b", "a"], 3), id="precision"),
    pytest.param(lambda: D.recall({"a": 1}, ["a", "b", "a"], None), id="recall"),
    pytest.param(lambda: D.reciprocal_rank({"a": 1}, ["a", "b", "a"]), id="reciprocal_rank"),
    pytest.param(lambda: D.average_precision({"a": 1}, ["a", "b", "a"]), id="average_precision"),
    pytest.param(lambda: D.ndcg({"a": 1}, ["a", "b", "a"]), id="ndcg"),
    pytest.param(lambda: D.judged({"a": 1}, ["a", "b", "a"], None), id="judged"),
    pytest.param(lambda: D.set_precision({"a": 1}, ["a", "b", "a"]), id="set_precision"),
    pytest.param(lambda: D.set_recall({"a": 1}, ["a", "b", "a"]), id="set_recall"),
])
def test_repeated_id_raises_naming_doc_and_ranks(call) -> None:
    # Chapter 23: "The evaluator rejects repeated result IDs"; the message names the ID and both ranks.
    with pytest.raises(RepeatedIDError) as info:
        call()
    message = str(info.value)
    assert "'a'" in message
    assert "ranks 1 and 3" in message


def test_repeated_id_beyond_cutoff_still_raises() -> None:
    # The whole ranking is checked, not only the evaluated prefix (prefix() calls check_ranking first).
    with pytest.raises(RepeatedIDError, match=r"'x' at ranks 3 and 4"):
        D.precision({"a": 1}, ["a", "b", "x", "x"], 2)


def test_repeated_id_in_evaluate_names_query() -> None:
    with pytest.raises(RepeatedIDError, match=r"query 'q1' repeats document 'd' at ranks 2 and 3"):
        E.evaluate(MeasureSpec("P", 3), {"q1": {"d": 1}}, {"q1": ["e", "d", "d"]})


def test_repeated_id_error_is_a_ranking_error() -> None:
    assert issubclass(RepeatedIDError, RankingError)


@pytest.mark.parametrize("call", [
    pytest.param(lambda: D.precision({"a": 1}, ["a"], -1), id="precision"),
    pytest.param(lambda: D.recall({"a": 1}, ["a"], -1), id="recall"),
    pytest.param(lambda: D.reciprocal_rank({"a": 1}, ["a"], -1), id="reciprocal_rank"),
    pytest.param(lambda: D.average_precision({"a": 1}, ["a"], -1), id="average_precision"),
    pytest.param(lambda: D.ndcg({"a": 1}, ["a"], -1), id="ndcg"),
    pytest.param(lambda: D.judged({"a": 1}, ["a"], -1), id="judged"),
    pytest.param(lambda: D.prefix(["a", "b"], -2), id="prefix"),
])
def test_negative_k_raises_ranking_error(call) -> None:
    # prefix(): "RankingError if k < 0" (a negative slice would silently drop the tail instead).
    with pytest.raises(RankingError, match=r"k must be >= 0"):
        call()


@pytest.mark.parametrize("gain", ["exp", "quadratic"])
def test_unknown_gain_raises_measure_error(gain: str) -> None:
    with pytest.raises(MeasureError, match="unknown gain function"):
        D.ndcg({"a": 1}, ["a"], gain=gain)


def test_unknown_gain_raises_via_spec() -> None:
    with pytest.raises(MeasureError, match="unknown gain function"):
        E.evaluate_query(MeasureSpec("nDCG", 5, gain="exp"), {"a": 1}, ["a"])


def test_unknown_measure_raises_measure_error() -> None:
    with pytest.raises(MeasureError, match="does not implement"):
        E.evaluate_query(MeasureSpec("infAP"), {"a": 1}, ["a"])


def test_precision_without_cutoff_raises_measure_error() -> None:
    with pytest.raises(MeasureError, match="P needs a cutoff"):
        E.evaluate_query(MeasureSpec("P"), {"a": 1}, ["a"])


# --- prefix, MeasureSpec, evaluate, mean ----------------------------------------------------

@pytest.mark.parametrize(("ranking", "k", "expected"), [
    (["a", "b", "c"], 2, ("a", "b")),       # first k IDs
    (["a"], 4, ("a",)),                     # fewer than k returned: all of them
    (["a", "b"], 0, ()),                    # k = 0: empty prefix
    (["a", "b"], None, ("a", "b")),         # no cutoff: whole ranking
    ([], 3, ()),                            # empty ranking
])
def test_prefix(ranking, k, expected) -> None:
    assert D.prefix(ranking, k) == expected


@pytest.mark.parametrize(("spec", "expected"), [
    (MeasureSpec("P", 4), F(1, 4)),     # chapter 23's example through the spec: 1/4
    (MeasureSpec("R", 4), F(1, 2)),     # 1 of |R|=2
    (MeasureSpec("RR"), F(1)),          # first relevant at rank 1
    (MeasureSpec("AP"), F(1, 2)),       # P@1/|R| = 1/2
    (MeasureSpec("Judged", 4), F(1)),   # 1 judged / min(4, 1)
    (MeasureSpec("SetP"), F(1)),        # 1/1
    (MeasureSpec("SetR"), F(1, 2)),     # 1/|R|=2
])
def test_evaluate_query_dispatch(spec: MeasureSpec, expected: Fraction) -> None:
    assert E.evaluate_query(spec, TWO_REL, ["a"]) == expected


def test_measure_spec_str() -> None:
    assert str(MeasureSpec("P", 10)) == "P@10"
    assert str(MeasureSpec("AP")) == "AP"


def test_evaluate_skips_unjudged_queries_and_mean() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": ["a"], "q2": ["x", "b"], "q3": ["a"]}  # q3 has no judgements: skipped (trec_eval default)
    values = E.evaluate(MeasureSpec("RR"), qrels, run)
    assert values == {"q1": F(1), "q2": F(1, 2)}   # 1/1 and 1/2
    assert E.mean(values) == F(3, 4)               # (1 + 1/2)/2 = 3/4


def test_mean_of_no_queries_is_zero() -> None:
    assert E.mean({}) == F(0)  # evaluator convention: 0 for no queries


def test_judged_keeps_a_query_without_relevant_documents() -> None:
    """Judged@4 counts judgements of any grade, so ``no_relevant: left out`` does not drop the query:
    run u1, u2, j1, j2 with only j1 and j2 judged (both grade 0) → 2 judged of 4 = 1/2, by hand.
    Precision on the same query is left out under that reading (no relevant document)."""
    qrels, run = {"q1": {"j1": 0, "j2": 0}}, {"q1": ["u1", "u2", "j1", "j2"]}
    reading = {**D.DEFAULT_READING, "no_relevant": "left out"}
    assert E.evaluate(MeasureSpec("Judged", 4), qrels, run, reading) == {"q1": F(1, 2)}
    assert E.evaluate(MeasureSpec("P", 4), qrels, run, reading) == {}


def test_ideal_from_every_retrieved_grade_cut_at_k() -> None:
    """scikit-learn's ``ndcg_score`` builds its ideal DCG from the labels it is handed (``_dcg_sample_scores(y_true,
    y_true, k)`` in sklearn/metrics/_ranking.py): handed the grades of eight retrieved documents, it sorts all eight
    and cuts at k, so documents below rank k enter the ideal. Lab 6's L6 (tests/corpus/measures/graded-qrels-lab):
    retrieved grades 2, 0, 3, 0(unjudged U), 1, 2, 0, 1, and H (grade 3) judged but not retrieved.

    By hand, linear gain: DCG@5 = 2 + 3/2 + 1/log2 6 = 3.886853; the ideal from all eight retrieved grades, sorted
    3, 2, 2, 1, 1, 0, 0, 0 and cut at 5, is 3 + 2/log2 3 + 2/2 + 1/log2 5 + 1/log2 6 = 6.079388, so nDCG@5 =
    0.6393493 — scikit-learn 1.9.1's ``ndcg_score([[2, 0, 3, 0, 1, 2, 0, 1]], [[8, 7, 6, 5, 4, 3, 2, 1]], k=5)``
    returns 0.6393492649973538. The ideal from the first five retrieved grades only (3, 2, 1) is 4.761860 (nDCG@5
    0.816247), from every judged grade cut at 5 (3, 3, 2, 2, 1) 7.141267 (0.544301, trec_eval ``ndcg_cut_5``)."""
    qrels = {"A": 3, "B": 2, "C": 2, "D": 1, "E": 1, "F": 0, "G": 0, "H": 3}
    ranking = ["B", "F", "A", "U", "D", "C", "G", "E"]
    log2 = math.log2
    dcg = 2 + 3 / 2 + 1 / log2(6)
    readings = {rule: {**D.DEFAULT_READING, "ideal": rule} for rule in
                ("all retrieved, cut at k", "retrieved only", "judged, cut at k")}
    ideals = {"all retrieved, cut at k": 3 + 2 / LOG2_3 + 1 + 1 / log2(5) + 1 / log2(6),
              "retrieved only": 3 + 2 / LOG2_3 + 1 / 2,
              "judged, cut at k": 3 + 3 / LOG2_3 + 1 + 2 / log2(5) + 1 / log2(6)}
    for rule, reading in readings.items():
        value = D.ndcg(qrels, ranking, 5, reading=reading)
        assert float(value) == pytest.approx(dcg / ideals[rule], abs=1e-15), rule
        assert E.evaluate_cutoffs(MeasureSpec("nDCG"), qrels, ranking, [5], reading) == [value], rule
    assert float(D.ndcg(qrels, ranking, 5, reading=readings["all retrieved, cut at k"])) == pytest.approx(
        0.6393492649973538, abs=1e-15)
    assert D.ideal_order(qrels, ranking, 5, readings["all retrieved, cut at k"]) == [3, 2, 2, 1, 1]
    assert D.ideal_order(qrels, ranking, 5, readings["retrieved only"]) == [3, 2, 1]
    # with no cutoff (or one past the ranking) the two retrieved rules agree: every retrieved grade, sorted
    assert D.ideal_order(qrels, ranking, None, readings["all retrieved, cut at k"]) == [3, 2, 2, 1, 1]
    assert D.ndcg(qrels, ranking, 8, reading=readings["all retrieved, cut at k"]) == D.ndcg(
        qrels, ranking, 8, reading=readings["retrieved only"])
