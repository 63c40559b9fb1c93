"""Verdicts end to end: a small chapter written to disk, audited with the real references.

The chapter is audited once per module (``audited``): the real references share one
process-wide list (``all_references()``), so ranx's numba compilation is paid once. Each
test then reads one claim's result. Verdict logic that does not need a real library uses
fake ``Reference`` subclasses (audit/evaluation/references/base.py).

Expected values are hand computations from chapter 23's definitions:
P@k = relevant in the first k / k; RR@k = 1 / rank of the first relevant result in the
first k; nDCG@k with linear gain (gain = grade) and log2(rank + 1) discount, ideal from
all judged grades; exponential gain is 2^grade − 1.
"""

from __future__ import annotations

import textwrap

import pytest

from audit.evaluation.checks import Measurements
from audit.evaluation.checks.arithmetic import cohort_fixture
from audit.evaluation.references import Outcome, Reference, Support, all_references
from audit.register.claims import Cohort, load_chapter
from audit.run.audit import audit_chapter, audit_claim
from audit.run.provenance import collect

SNAPSHOT = """\
Precision at k divides by k, even when fewer results are returned.
The ideal DCG@k sorts all judged grades and cuts at k.
At cutoff four, a single relevant result gives P@4 = 1/4.
A careless draft said a single relevant result gives P@4 = 1/3.
Promotion recall is 21/43 ≈ .4883.
Moving the relevant document from rank 2 to rank 1 lowers reciprocal rank.
The evaluator rejects repeated result IDs.
Score ties keep the reference order.
With c judged but not retrieved, nDCG@4 ≈ .3801.
Burges et al. (2005) tuned RankNet on nDCG.
"""

CHAPTER_YAML = """\
id: verdict-test
book: Test Book
chapter: 1
title: Verdict fixtures
conventions:
  precision_denominator: {value: k, quote: "Precision at k divides by k, even when fewer results are returned."}
  ideal: {value: "judged, cut at k", quote: "The ideal DCG@k sorts all judged grades and cuts at k."}
"""

CLAIMS_YAML = textwrap.dedent("""\
    fixtures:
      one-hit:
        qrels: {q1: {a: 1}}
        run: {q1: [a]}
      rr-before:
        qrels: {q1: {a: 1, n: 0, m: 0, o: 0}}
        run: {q1: [n, a, m, o]}
      rr-after:
        qrels: {q1: {a: 1, n: 0, m: 0, o: 0}}
        run: {q1: [a, n, m, o]}
      repeated-id-probe:
        qrels: {q1: {a: 1, b: 1, n: 0}}
        run: {q1: [a, n, a, b]}
      tie-probe:
        qrels: {q1: {a: 0, b: 1}, q2: {d: 0, c: 1}, q3: {e: 1, f: 0}}
        run: {q1: [a, b], q2: [d, c], q3: [e, f]}
        scores: {q1: {a: 1.0, b: 1.0}, q2: {d: 1.0, c: 1.0}, q3: {e: 1.0, f: 1.0}}
      graded:
        qrels: {q1: {a: 1, c: 2, n: 0}}
        run: {q1: [a, n]}
    claims:
      - id: V1
        title: right value
        kind: value
        quote: "a single relevant result gives P@4 = 1/4"
        claim: P@4 = 1/4 for one hit.
        fixture: one-hit
        expect:
          - {measure: "P@4", claimed: "1/4"}
      - id: V2
        title: wrong value
        kind: value
        quote: "a single relevant result gives P@4 = 1/3"
        claim: P@4 = 1/3 for one hit.
        fixture: one-hit
        expect:
          - {measure: "P@4", claimed: "1/3"}
      - id: S1
        title: quote gone
        kind: value
        quote: "This sentence was edited out of the chapter."
        claim: P@4 = 1/4 for one hit.
        fixture: one-hit
        expect:
          - {measure: "P@4", claimed: "1/4"}
      - id: A1
        title: wrong rounding
        kind: arithmetic
        quote: "Promotion recall is 21/43 ≈ .4883."
        claim: 21/43 is about .4883.
        expression: "21/43"
        claimed: "≈ .4883"
      - id: K1
        title: wrong direction
        kind: comparison
        quote: "Moving the relevant document from rank 2 to rank 1 lowers reciprocal rank."
        claim: Moving the first relevant document from rank 2 to rank 1 lowers RR@4.
        before: rr-before
        after: rr-after
        expect:
          - {measure: "RR@4", change: decreases}
      - id: R1
        title: repeated ids rejected
        kind: convention
        quote: "The evaluator rejects repeated result IDs."
        claim: A ranking that repeats an ID is rejected.
        convention: repeated_ids
        rule: reject
        probe: repeated-id-probe
        measures: ["P@4", "AP@4", "RR@4"]
      - id: T1
        title: ties in reference order
        kind: convention
        quote: "Score ties keep the reference order."
        claim: Tied documents keep the given order.
        convention: ties
        rule: reference order
        probe: tie-probe
        measures: ["RR"]
      - id: G1
        title: nDCG with unstated gain
        kind: value
        quote: "With c judged but not retrieved, nDCG@4 ≈ .3801."
        claim: nDCG@4 = 1 / (2 + 1/log2 3) under linear gain.
        fixture: graded
        expect:
          - {measure: "nDCG@4", claimed: "≈ .3801"}
    """)


@pytest.fixture(scope="module")
def references():
    return all_references()


@pytest.fixture(scope="module")
def chapter(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verdict-chapter")
    (folder / "chapter.yaml").write_text(CHAPTER_YAML, encoding="utf-8")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS_YAML, encoding="utf-8")
    return load_chapter(folder)


@pytest.fixture(scope="module")
def audited(chapter, references):
    report = audit_chapter(chapter, references, collect(["audit", "run"]))
    return {c.id: c for c in report.claims}


def values_by_impl(check):
    return {v.implementation: v for v in check.values}


# --- real references ------------------------------------------------------------------------------


def test_right_value_is_supported(audited):
    # One relevant result, cutoff 4: P@4 = 1/4 (chapter 23: "gives P@4 = 1/4, not one").
    result = audited["V1"]
    assert result.verdict == "supported"
    values = values_by_impl(result.checks[0])
    assert values["chapter"].exact == "1/4"
    assert {n: values[n].value for n in ("pytrec_eval", "ir_measures", "ranx")} == \
        {"pytrec_eval": 0.25, "ir_measures": 0.25, "ranx": 0.25}


def test_wrong_value_is_contradicted_with_correction(audited):
    result = audited["V2"]
    assert result.verdict == "contradicted"
    assert "1/4" in result.reason
    # the correction is re-checked before it is printed
    assert result.response == ("Change “1/3” to “1/4” (checked: the claim re-run on the corrected sentence is "
                               "supported; the new value holds under every reading the chapter allows).")


def test_missing_quote_is_stale_and_not_checked(audited):
    result = audited["S1"]
    assert result.verdict == "stale"
    assert result.checks == []
    assert result.line is None


def test_arithmetic_rounding_is_contradicted(audited):
    # 21/43 = 0.488372…, outside [.48825, .48835]; printed the same way it is "≈ .4884".
    result = audited["A1"]
    assert result.verdict == "contradicted"
    # 21/43 = 0.488372…: the printed .4883 is a rounding slip
    assert result.response == ("Change “.4883” to “.4884” (checked: the claim re-run on the corrected sentence is "
                               "supported; 21/43 ≈ 0.488372).")


def test_comparison_wrong_direction_is_contradicted(audited):
    # RR@4 goes 1/2 → 1 when the relevant document moves from rank 2 to rank 1: it increases.
    result = audited["K1"]
    assert result.verdict == "contradicted"
    assert "increases" in result.reason
    chapter_row = values_by_impl(result.checks[0])["chapter"]
    assert chapter_row.per_query == {"before": "1/2", "after": "1"}


def test_repeated_ids_reject_is_qualified(audited):
    # DESIGN.md facts: pytrec_eval's run parser rejects a repeated ID; ir-measures and ranx
    # keep the last score silently. Probe [a, n, a, b]: keep-last gives RR@4 = 1/2, reject gives nothing.
    result = audited["R1"]
    assert result.verdict == "qualified"
    assert "ir-measures and ranx silently keep the last occurrence" in result.reason
    assert "pytrec_eval" not in result.reason  # it follows the chapter's rule
    for check in result.checks:
        assert values_by_impl(check)["pytrec_eval"].status == "rejected"
        assert values_by_impl(check)["chapter"].status == "rejected"


def test_ties_reference_order_is_qualified_naming_trec_eval_rule(audited):
    # Tie probe, RR: reference order gives q1 1/2, q2 1/2, q3 1; docno descending
    # (trec_eval's rule) puts b before a, d before c, f before e: q1 1, q2 1/2, q3 1/2.
    result = audited["T1"]
    assert result.verdict == "qualified"
    assert "trec_eval via pytrec_eval and ir-measures order tied documents by docno, descending" in result.reason
    values = values_by_impl(result.checks[0])
    assert values["pytrec_eval"].per_query == {"q1": "1.0000", "q2": "0.5000", "q3": "0.5000"}


def test_ndcg_with_unstated_gain_is_qualified(audited):
    """The chapter cites Burges et al. 2005, whose nDCG weighs a grade g as 2^g − 1, and states no gain: both gains
    are readings. Linear gain: DCG = 1, ideal = 2 + 1/log2 3, nDCG@4 = 0.380094 (pytrec_eval ndcg_cut_4, ir_measures
    nDCG@4, ranx ndcg@4), inside ≈ .3801; exponential gain: ideal = 3 + 1/log2 3, nDCG@4 = 0.275412 (ranx
    ndcg_burges@4), outside."""
    result = audited["G1"]
    assert result.verdict == "qualified", result.reason
    assert "does not state the nDCG gain" in result.reason
    assert "0.3801" in result.reason and "0.2754" in result.reason


def test_ndcg_with_unstated_gain_and_no_citation_is_read_with_linear_gain(tmp_path, references):
    """The same sentence in a text that neither cites nor uses exponential gain: linear gain is the only reading
    (the references' default), nDCG@4 = 1 / (2 + 1/log2 3) = 0.380094 holds, so the claim is supported and
    exponential gain's 0.275412 is no qualification."""
    (tmp_path / "chapter.yaml").write_text("id: no-citation\ntitle: nDCG without a cited source\n", encoding="utf-8")
    (tmp_path / "snapshot.txt").write_text("With c judged but not retrieved, nDCG@4 ≈ .3801.\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(textwrap.dedent("""\
        fixtures:
          graded: {qrels: {q1: {a: 1, c: 2, n: 0}}, run: {q1: [a, n]}}
        claims:
          - {id: G1, title: nDCG with unstated gain, kind: value, quote: "With c judged but not retrieved, nDCG@4 ≈ .3801.",
             claim: nDCG@4 = 1 / (2 + 1/log2 3), fixture: graded, expect: [{measure: "nDCG@4", claimed: "≈ .3801"}]}
        """), encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), references, collect(["audit", "run"]))
    result = report.claims[0]
    assert result.verdict == "supported", result.reason
    assert "nDCG gain" not in result.reason and "0.2754" not in result.reason


# --- fake references: verdict logic without a real library ------------------------------------------


class FakeReference(Reference):
    """A reference that answers every measure with fixed per-query values, or fails."""

    library = "fake"
    title = "fake reference"

    def __init__(self, name: str, outcome: Outcome) -> None:
        self.name = name
        self.outcome = outcome

    def version(self) -> str:
        return "0"

    def conventions(self) -> dict[str, str]:
        return {"P@k": "denominator = documents returned"}

    def supports(self, measure) -> Support:
        return Support(True)

    def evaluate(self, measures, qrels, run):
        return {str(m): self.outcome for m in measures}

    def evaluate_run_file(self, measures, qrels, path):
        return {str(m): self.outcome for m in measures}


def claim_by_id(chapter, claim_id):
    return next(c for c in chapter.register.claims if c.id == claim_id)


def test_failing_reference_gives_error_and_keeps_other_values(chapter, references):
    broken = FakeReference("broken", Outcome("error", provider="fake", detail="RuntimeError: boom"))
    result = audit_claim(claim_by_id(chapter, "V1"), chapter, Measurements([*references, broken]))
    assert result.verdict == "error"
    assert "RuntimeError: boom" in result.reason
    values = values_by_impl(result.checks[0])
    assert values["broken"].status == "error"
    # The chapter's and the real references' values are still there (P@4 = 1/4).
    assert values["chapter"].exact == "1/4"
    assert [(values[n].status, values[n].value) for n in ("pytrec_eval", "ir_measures", "ranx")] == \
        [("ok", 0.25)] * 3


def test_disagreeing_reference_qualifies_a_right_claim(chapter):
    # A reference dividing by the documents returned gives P@4 = 1/1 = 1.0 for one hit.
    other = FakeReference("other", Outcome("ok", per_query={"q1": 1.0}, provider="fake"))
    result = audit_claim(claim_by_id(chapter, "V1"), chapter, Measurements([other]))
    assert result.verdict == "qualified"
    assert "fake reference (fake) gives 1.0000" in result.reason
    # the cause comes from an experiment: the chapter's definitions with the other denominator give 1
    assert "P@k denominator “number returned” instead of “k” give exactly" in result.reason


def test_agreeing_fake_reference_supports(chapter):
    same = FakeReference("same", Outcome("ok", per_query={"q1": 0.25}, provider="fake"))
    result = audit_claim(claim_by_id(chapter, "V1"), chapter, Measurements([same]))
    assert result.verdict == "supported"
    assert "same agree" in result.reason


# --- measurement cache -------------------------------------------------------------------------

SELECTOR = Cohort(cells={"promoted": {"positive": 21, "negative": 0},
                         "deferred": {"positive": 6, "negative": 1},
                         "rejected": {"positive": 16, "negative": 6}})  # chapter 23's selector table


# Regression: Measurements used to cache by id(fixture); arithmetic claims build a cohort Fixture per
# claim and drop it, CPython reuses the address, and the next claim got the previous claim's value.
def test_measurements_cache_not_fooled_by_reused_ids():
    # SetR over the whole cohort: promoted → 21/43; promoted + deferred → 27/43 (chapter 23).
    ms = Measurements([])
    cases = [(["promoted"], "21/43"), (["promoted", "deferred"], "27/43")] * 10
    got = []
    for selected, _ in cases:
        fixture = cohort_fixture(SELECTOR, selected, None)
        got.append(ms.values(fixture, "SetR")[0].exact)
        del fixture
    assert got == [expected for _, expected in cases]
