"""Property claims: counterexample search, weaker forms, scope statements, bad universes."""

from __future__ import annotations

from fractions import Fraction

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.errors import RegisterError
from audit.evaluation.checks.counterexamples import _FLOAT_TESTS, RELATIONS, _exact_test, holds
from audit.evaluation.references import all_references
from audit.model.universe import Case, Universe
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

SNAPSHOT = ("Raising k always helps recall and always hurts precision. RR ignores later items. Small claims. "
            "A relevant first result makes RR 1. A relevant first result makes P@k 1. "
            "F1 lies between precision and recall. RR lies between precision and recall. "
            "Dividing by the relevant retrieved never lowers AP@k. Dividing by |R| never lowers AP@k.\n")
SMALL = {"max_length": 3, "documents": 4, "grades": [0, 1], "max_k": 4}


def prop(cid, quote, measure, relation, compare, **extra):
    return {"id": cid, "title": cid, "kind": "property", "quote": quote, "claim": f"{measure} {relation}",
            "measure": measure, "relation": relation, "compare": compare,
            "universe": extra.pop("universe", SMALL), "search": extra.pop("search", {"random_cases": 200,
                                                                                       "max_length": 12}),
            **extra}


CLAIMS = [
    prop("P1", "always hurts precision", "P", "decreases", "next_cutoff"),
    prop("P2", "always helps recall", "R", "increases", "next_cutoff"),
    prop("P3", "RR ignores later items.", "RR", "unchanged", "transform", transform="change_after_first_relevant"),
    prop("P4", "Small claims.", "R", "never decreases", "next_cutoff",
         universe={"max_length": 3, "documents": 3, "grades": [0, 1], "max_k": 5}),
    prop("P5", "Small claims.", "AP", "never exceeds", "measure", other="R"),
    prop("P6", "A relevant first result makes RR 1.", "RR", "equals", "constant", bound="1",
         given="first result relevant"),
    prop("P7", "A relevant first result makes P@k 1.", "P", "equals", "constant", bound="1",
         given="first result relevant"),
    prop("P8", "F1 lies between precision and recall.", "F", "between", "measure", other=["P", "R"]),
    prop("P9", "RR lies between precision and recall.", "RR", "between", "measure", other=["P", "R"]),
    prop("P10", "Dividing by the relevant retrieved never lowers AP@k.", "AP", "never below", "measure", other="AP",
         conventions={"ap_denominator": {"value": "relevant retrieved", "quote": "relevant retrieved"}},
         other_conventions={"ap_denominator": {"value": "|R|", "quote": "never lowers"}}),
    prop("P11", "Dividing by |R| never lowers AP@k.", "AP", "never below", "measure", other="AP",
         conventions={"ap_denominator": {"value": "|R|", "quote": "Dividing by |R|"}},
         other_conventions={"ap_denominator": {"value": "relevant retrieved", "quote": "never lowers"}}),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chapter")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: props\ntitle: Properties\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(yaml.safe_dump({"claims": CLAIMS}, allow_unicode=True), encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    return {c.id: c for c in report.claims}


def test_known_false_property_gives_its_minimal_counterexample(results):
    """'Raising k always hurts precision' fails even as 'never increases': P@1 = 0 → P@2 = 1/2 for grades 0, 1
    (hand computation: one relevant document in the first two, none in the first one)."""
    claim = results["P1"]
    assert claim.verdict == "contradicted"
    assert "ranking [non-relevant, relevant], k = 1: P goes 0 → 1/2" in claim.reason
    assert len(claim.checks) == 1  # only the counterexample that breaks even the weaker form
    weaker = claim.checks[-1]
    assert weaker.table == [["rank", "document", "grade"], ["1", "r1", "0"], ["2", "r2", "1"]]
    assert {v.implementation: v.per_query["right"] for v in weaker.values} == \
        {"chapter": "1/2", "pytrec_eval": "0.5000", "ir_measures": "0.5000", "ranx": "0.5000"}


def test_weaker_form_is_named_when_it_holds(results):
    """'Always helps recall' is false (recall can stay flat) but 'never decreases' holds."""
    claim = results["P2"]
    assert claim.verdict == "qualified"
    assert "never decreases" in claim.reason and "never decreases" in claim.response


def test_true_property_is_supported_with_its_scope(results):
    claim = results["P3"]
    assert claim.verdict == "supported"
    assert "every ranking up to length 3 over 4 documents" in claim.reason
    assert "random cases up to length 12 (seed 20261130)" in claim.reason
    assert "evidence from the search, not a proof" in claim.reason


def test_cutoff_beyond_the_universe_is_an_error_naming_the_claim(results):
    """max_k 5 over 3 documents cannot be filled: an error, never a vacuous 'supported'."""
    claim = results["P4"]
    assert claim.verdict == "error"
    assert "max_k = 5 is larger than the universe of 3 documents" in claim.reason


def test_ap_never_exceeds_recall(results):
    """AP@k ≤ R@k: each term P@i ≤ 1 and there are |relevant in prefix| terms, all over |R|. The text states no AP
    denominator, and over the relevant retrieved (scikit-learn's reading) or min(k, |R|) (ml_metrics') it fails:
    one relevant document of two, returned alone, k = 1: AP = 1 against R@1 = 1/2 (hand computation)."""
    p5 = results["P5"]
    assert p5.verdict == "qualified", p5.reason
    assert p5.reason.startswith("Holds by the chapter's definition, but it fails where AP divides by the number of "
                                "relevant documents retrieved")
    assert "ranking [relevant] plus 1 relevant document never retrieved, k = 1: AP gives 1 against 1/2" in p5.reason
    assert p5.response.count("State the convention") == 1


def test_the_search_is_reproducible(results, tmp_path):
    folder = tmp_path / "again"
    folder.mkdir()
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: props\ntitle: Properties\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(yaml.safe_dump({"claims": CLAIMS[:2]}, allow_unicode=True), encoding="utf-8")
    again = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    for claim in again.claims:
        assert claim.reason == results[claim.id].reason


def test_universe_counts_every_pattern_once():
    """Rankings up to length 1 over 2 documents, binary grades, unjudged allowed: () with 0–2 unretrieved
    relevant (3), then one ranked document of grade 0, 1 or unjudged with 0–1 unretrieved relevant (6)."""
    cases = list(Universe(1, 2, (0, 1), 2).cases())
    assert len(cases) == 9 and len(set(cases)) == 9
    assert Case((1,), ()) in cases and Case((), (1, 1)) in cases


def test_course_module_verdicts(shipped_book):
    """The recall-and-precision module: the two universal sentences, the average, the pending listings (as `audit
    run` audits the shipped chapters: conftest's shipped_book; chapter 23 beside it is of another book)."""
    report = shipped_book[1]["recall-and-precision"][1]
    verdicts = {c.id: c.verdict for c in report.claims}
    assert verdicts["M17"] == "qualified"      # raising k never lowers recall, but need not raise it
    assert verdicts["M18"] == "contradicted"   # P@1 = 0 → P@2 = 1/2
    # mean recall 0.80 on uneven needs (pytrec_eval, ir_measures, ranx: 0.8); recall pooled over the questions
    # would give 1/2, but no reference computes it and no cited source uses it, so it qualifies nothing
    assert verdicts["M06"] == "supported"
    assert verdicts["M14"] == verdicts["M15"] == "qualified"  # right on well-formed input, wrong on edge cases
    assert {cid for cid, v in verdicts.items() if v == "supported"} == {"M04", "M06", "M07", "M08", "M09", "M11", "M12",
                                                                       "M13"}
    m06 = next(c for c in report.claims if c.id == "M06")
    assert "pooled" not in m06.reason and "4/5" in m06.reason
    # The proposal for "raising k always hurts precision" is itself checked: P@k rises on [non-relevant, relevant]
    # at k = 1 (0 → 1/2) and falls on [relevant] at k = 1 (1 → 1/2, denominator k), so "either way" is what holds.
    m18 = next(c for c in report.claims if c.id == "M18")
    assert m18.response.startswith("Change “always hurts” to “can raise or lower” (checked: a case where P rises: "
                                   "ranking [non-relevant, relevant], k = 1: P gives 0 and then 1/2; a case where P "
                                   "falls: ranking [relevant], k = 1: P gives 1 and then 1/2).")
    assert "not checked by the harness" in m18.response  # the register's free-text rewording, labelled
    # the module defines no IDs that are not text: how recall_at_k compares 1 and "1" is not held against it
    m14 = next(c for c in report.claims if c.id == "M14")
    assert "mixed type" not in m14.reason


def test_a_search_cut_short_by_its_time_limit_says_so(tmp_path):
    """A random stage stopped by the time limit reports what it covered instead of claiming the full search."""
    folder = tmp_path / "timed"
    folder.mkdir()
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: timed\ntitle: Timed\n", encoding="utf-8")
    claim = prop("T1", "RR ignores later items.", "RR", "unchanged", "transform",
                 transform="change_after_first_relevant", search={"random_cases": 100000, "time_limit": 0.01})
    (folder / "claims.yaml").write_text(yaml.safe_dump({"claims": [claim]}, allow_unicode=True), encoding="utf-8")
    result = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]
    assert "the time limit stopped the random stage early" in result.reason
    assert "100000 random cases" not in result.reason


def test_a_universe_with_no_valid_case_is_an_error(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: empty\ntitle: Empty\n", encoding="utf-8")
    claim = prop("E1", "Small claims.", "R", "never decreases", "next_cutoff",
                 universe={"max_length": 2, "documents": 3, "grades": [0, 1], "max_k": 3, "relevant": 5})
    (folder / "claims.yaml").write_text(yaml.safe_dump({"claims": [claim]}, allow_unicode=True), encoding="utf-8")
    # Refused when the register is loaded: 5 relevant documents cannot fit in a universe of 3.
    with pytest.raises(RegisterError, match="relevant: 5 is more than the 3 documents"):
        load_chapter(folder)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(sorted(RELATIONS)),
       st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, 1.0, 1 + 1e-10, 1 - 1e-9, 0.5])),
       st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, 1.0, 1 + 1e-10, 1 - 1e-9, 0.5])))
def test_the_float_comparisons_are_holds(relation, a, b):
    """The per-relation closures the searches use on a reference's values give ``holds``'s answer for every pair
    of floats: within 1e-9 (both sides of it), NaN and infinities included."""
    assert _FLOAT_TESTS[relation](a, b) == holds(relation, a, b)
    assert _FLOAT_TESTS[relation](a, a + 5e-10) == holds(relation, a, a + 5e-10)


_fractions = st.fractions(min_value=-3, max_value=3, max_denominator=60)


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(sorted(RELATIONS)),
       st.one_of(_fractions, st.sampled_from([Fraction(0), Fraction(1, 3), Fraction(2, 6), Fraction(-1, 2)])),
       st.one_of(_fractions, st.sampled_from([Fraction(0), Fraction(1, 3), Fraction(2, 6), Fraction(-1, 2)]),
                 st.floats(min_value=-3, max_value=3), st.integers(-2, 2)))
def test_the_exact_comparisons_are_holds(relation, a, b):
    """The chapter's values are compared by cross-multiplying numerators and denominators: ``Fraction``'s own
    order for every pair (equal values written differently, negative ones, zero), and ``holds``'s answer when
    one side is not a ``Fraction``. Both ways of reading the terms give it: from ``Fraction``'s slots (this
    Python's) and from its public properties."""
    from audit.evaluation.checks import counterexamples

    tests = [_exact_test(relation)]
    saved = counterexamples._SLOTS
    counterexamples._SLOTS = not saved
    try:
        tests.append(_exact_test(relation))
    finally:
        counterexamples._SLOTS = saved
    assert saved  # CPython's Fraction keeps its terms in slots
    for test in tests:
        assert test(a, b) == holds(relation, a, b)
        assert test(b, a) == holds(relation, b, a)
        if isinstance(b, Fraction):
            assert test(a, b) == RELATIONS[relation](a, b)
            assert test(a, a) == RELATIONS[relation](a, a)


def test_a_premise_restricts_the_search_to_the_cases_it_describes(results):
    """RR = 1 whenever the first result is relevant (1/rank of the first relevant, rank 1); P@k does not follow:
    one relevant document returned alone gives P@2 = 1/2 (hand computation: 1 relevant / k = 2)."""
    assert results["P6"].verdict == "supported", results["P6"].reason
    assert "the cases where the first result is relevant" in results["P6"].reason
    p7 = results["P7"]
    assert p7.verdict == "contradicted"
    assert "ranking [relevant], k = 2: P@2 = 1/2" in p7.reason
    assert "when the first result is relevant" in p7.claimed


def test_every_case_the_premise_search_uses_satisfies_it():
    from audit.model.universe import PREMISES
    grades = (0, 1, 2, 3, 4)
    cases = list(Universe(4, 5, grades, 4, True).cases())
    for name, premise in PREMISES.items():
        kept = [c for c in cases if premise.holds(c, grades)]
        assert kept and len(kept) < len(cases), name
        assert all(premise.holds(premise.make(c, grades), grades) for c in cases), name


def test_between_is_searched_against_the_smaller_and_the_larger_measure(results):
    """F1 = 2PR / (P + R) lies between P and R (a harmonic mean lies between its arguments). RR does not: one
    relevant document of two returned alone, k = 2, gives RR = 1 above P@2 = R@2 = 1/2 (hand computation)."""
    assert results["P8"].verdict == "supported", results["P8"].reason
    assert "“F@k never below min(P@k, R@k)”" in results["P8"].reason
    assert "“F@k never exceeds max(P@k, R@k)”" in results["P8"].reason
    p9 = results["P9"]
    assert p9.verdict == "contradicted"
    assert "RR gives 1 against max(P@" in p9.reason


def test_between_needs_two_measures(tmp_path):
    bad = prop("B1", "Small claims.", "F", "between", "measure", other="P")
    (tmp_path / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: props\ntitle: Properties\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(yaml.safe_dump({"claims": [bad]}), encoding="utf-8")
    with pytest.raises(RegisterError) as info:
        load_chapter(tmp_path)
    assert "relation: between takes compare: measure and `other: [A, B]`" in info.value.message


def test_one_measure_under_two_conventions(results):
    """AP@k divides the same sum by the relevant retrieved (≤ |R|) or by |R|, so the first is never the smaller; the
    converse fails where a relevant document is not retrieved: [relevant] with two relevant, k = 1, gives 1 over the
    relevant retrieved and 1/2 over |R| (hand computation)."""
    p10, p11 = results["P10"], results["P11"]
    assert p10.verdict == "supported", p10.reason
    assert "chapter's definitions only" in p10.reason
    assert p11.verdict == "contradicted"
    assert "AP gives 1/2 against AP@1 (ap_denominator: relevant retrieved)'s 1" in p11.reason


RUNS = """\
claims:
  - id: G1
    title: GMAP never exceeds MAP
    kind: property
    quote: "GMAP is never larger than MAP."
    claim: the geometric mean never exceeds the arithmetic mean
    measure: GMAP
    relation: never exceeds
    compare: measure
    other: AP
    at: whole ranking
    universe: {max_length: 3, documents: 4, grades: [0, 1], max_k: 3, queries: 2}
    search: {random_cases: 300, max_length: 10}
  - id: G2
    title: MAP never exceeds GMAP
    kind: property
    quote: "MAP is never larger than GMAP."
    claim: wrong way round
    measure: AP
    relation: never exceeds
    compare: measure
    other: GMAP
    at: whole ranking
    universe: {max_length: 3, documents: 4, grades: [0, 1], max_k: 3, queries: 2}
    search: {random_cases: 0}
  - id: G3
    title: mean recall never falls
    kind: property
    quote: "Mean recall at k never falls as k grows."
    claim: mean R@k never decreases, over a run of two queries
    measure: R
    relation: never decreases
    compare: next_cutoff
    universe: {max_length: 3, documents: 4, grades: [0, 1], max_k: 3, queries: 2}
    search: {random_cases: 200, max_length: 10}
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    (folder / "snapshot.txt").write_text("GMAP is never larger than MAP. MAP is never larger than GMAP. Mean recall at k "
                                         "never falls as k grows.\n", encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: runs\ntitle: Runs\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(RUNS, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    return {c.id: c for c in report.claims}


def test_a_statement_over_queries_is_searched_on_runs(runs):
    """GMAP ≤ MAP is the inequality of arithmetic and geometric means for the plain geometric mean; trec_eval's gm_map
    floors each AP at 0.00001, so on a run whose every AP is 0 it gives 0.00001 > MAP = 0 (pytrec_eval: gm_map
    1e-05, map 0). The text states no floor, so the floored reading (trec_eval's, the first) breaks it and the plain
    one holds: qualified. MAP ≤ GMAP fails by AM-GM: APs 1 and 0 give MAP 1/2 and GMAP sqrt(0.00001) = 0.003162.
    Mean recall over queries never falls as k grows, as each query's does."""
    g1, g2, g3 = runs["G1"], runs["G2"], runs["G3"]
    assert g1.verdict == "qualified", g1.reason
    assert "GMAP is the plain geometric mean" in g1.reason and "whole rankings" in g1.reason
    assert "query 1: ranking [non-relevant] plus 1 relevant document never retrieved" in g1.reason
    assert g2.verdict == "contradicted"
    assert "AP gives 1/2 against GMAP's 0.003162" in g2.reason
    assert g3.verdict == "supported", g3.reason
    assert "every run of 2 queries" in g3.reason and "pytrec_eval" in g3.reason


def test_geometric_mean_is_exact_where_the_root_is_rational():
    """(1 × 1/2 × 1/4)^(1/3) = 1/2 and (1/3 × 1/3)^(1/2) = 1/3 exactly: a 50-digit rounding of them compared exactly
    with the arithmetic mean made 1/3 > 1/3 a counterexample to GMAP ≤ MAP."""
    from audit.evaluation.evaluator import geometric_mean
    assert geometric_mean({"a": Fraction(1), "b": Fraction(1, 2), "c": Fraction(1, 4)}) == Fraction(1, 2)
    assert geometric_mean({"a": Fraction(1, 3), "b": Fraction(1, 3)}, floor=False) == Fraction(1, 3)
    assert geometric_mean({"a": Fraction(0), "b": Fraction(0)}) == Fraction(1, 100_000)   # trec_eval's floor
    assert abs(float(geometric_mean({"a": Fraction(1, 2), "b": Fraction(1, 3)})) - (1 / 6) ** 0.5) < 1e-15


def test_either_way_names_the_rising_case_as_rising(tmp_path):
    """"Precision grows with k" (P increases): its weaker form "never decreases" fails on [relevant] (P@1 = 1 →
    P@2 = 1/2, a fall) and the opposite form fails on [non-relevant, relevant] (0 → 1/2, a rise), by hand. The
    response said it "rises" on the first and "falls" on the second; each case is now named by its own values."""
    (tmp_path / "snapshot.txt").write_text("Precision grows with k.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: grows\ntitle: Grows\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
claims:
  - {id: G1, title: grows, kind: property, quote: "Precision grows with k.", claim: P@k+1 > P@k, measure: P,
     relation: increases, compare: next_cutoff, universe: {max_length: 3, documents: 4, grades: [0, 1], max_k: 4}}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), [], collect(["audit", "run"]))
    g1 = report.claims[0]
    assert g1.verdict == "contradicted"
    rises = g1.response.split("it rises on ", 1)[1].split(", and falls on ", 1)
    assert rises[0].endswith("0 → 1/2") and rises[1].startswith("ranking [relevant]") and "1 → 1/2" in rises[1]
