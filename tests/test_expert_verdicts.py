"""Verdicts an IR-evaluation expert would sign, each case with its input and the right verdict or figure.

Right values, computed by hand and with the libraries called directly:

* ``moved``: judgements d1 2, d2 1, d4 1, d5 1, d9 3 (n 0). Before d1, d2, d4, d5, d9; after d1, d2, d9, d4, d5.
  nDCG@5 with the chapter's exponential gain 2^g − 1: 0.7120 → 0.7785 (ranx ``ndcg_burges@5``); with linear gain,
  as pytrec_eval ``ndcg_cut_5``, ir_measures ``nDCG@5`` and ranx ``ndcg@5`` compute it: 0.8464 → 0.8869. "Raises
  nDCG@5 to about 0.78" holds by the chapter's definition, but every reference's after-value is 0.8869, so it is
  qualified by the gain, not supported (before, only the references' direction was checked).
* ``tied``: b (unjudged) and r (relevant) share a score, listed b, r. The chapter keeps the listed order: RR = 1/2.
  pytrec_eval orders ties by docno descending (r before b): RR = 1; so does ir_measures' RR (pytrec_eval provider);
  ranx keeps the listed order: 1/2. Dropping the unjudged b would also give 1 on this input, but every reference's
  unjudged probe shows "non-relevant", so that is not offered as their cause (it was, as "or unjudged removed").
* ``repeat``: b, a, b with b relevant, under the declared "keeps its first position": the prefix is b, a and RR = 1.
  The fixture was refused at load ("the chapter's evaluator rejects repeated result IDs"). As run files (scores
  3, 2, 1): trec_eval rejects the file; ir_measures and ranx keep b's last score, a before b: RR = 1/2.
* ``ideal``: grades 3, 2, 0 ranked, a grade-1 document judged but not retrieved. Linear gain: DCG@3 = 3 + 2/log2 3
  = 4.261860; the ideal order 3, 2, 1 gives 3 + 2/log2 3 + 1/2 = 4.761860, nDCG@3 = 0.894999 (pytrec_eval
  ``ndcg_cut_3`` 0.8950). The only rule giving another value, "retrieved only" (ideal 3, 2 → nDCG 1), is ruled out by
  the printed ideal order, so it is not tried (it qualified the claim). A printed ideal 3, 2, 2 is no rule's order.
* ``ten``: ten results, five relevant. P@20 over k is 5/20 = 0.25 (pytrec_eval ``P_20`` 0.25); over the number
  returned 5/10 = 0.5. "It is 5/20 = 0.25" prints the denominator 20, which 10 is not a multiple of, so the
  number-returned reading is not tried; nor is it for "P@20 is 0.25": no reference divides by the number returned
  by default and the text cites no source that does (supported).
"""

from __future__ import annotations

import pytest

from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

GAIN = "Gain is exponential: a document of grade g contributes 2^g - 1."
TIES = "Tied documents keep the listed order."
UNJUDGED = "Unjudged documents count as non-relevant."
KEEP_FIRST = "A document listed twice keeps its first position."
SNAPSHOT = f"""\
{GAIN}
{TIES}
{UNJUDGED}
{KEEP_FIRST}
So b, a, b with only b relevant has reciprocal rank 1.
In the next two examples the gain is the grade itself.
Our first three grades are 3, 2, 0; against the ideal order 3, 2, 1, nDCG@3 ≈ 0.895.
Against the ideal order 3, 2, 2 the same list scores nDCG@3 ≈ 0.895.
Asked for P@20 of this ten-item list, it is 5/20 = 0.25.
Asked for P@20 of this ten-item list, we say 0.25.
With b and r tied, b listed first and only r relevant, RR = 1/2.
Moving d9 up to rank 3 raises nDCG@5 to about 0.78.
Moving d9 up to rank 3 raises nDCG@5 from about 0.71.
"""
CHAPTER = f"""\
id: expert-verdicts
title: Cases an expert would sign
conventions:
  gain: {{value: exponential, quote: "{GAIN}"}}
  ties: {{value: listed order, quote: "{TIES}"}}
  unjudged: {{value: non-relevant, quote: "{UNJUDGED}"}}
  repeated_ids: {{value: keep first, quote: "{KEEP_FIRST}"}}
"""
CLAIMS = """\
fixtures:
  before:
    qrels: {q1: {d1: 2, d2: 1, d4: 1, d5: 1, d9: 3, n: 0}}
    run: {q1: [d1, d2, d4, d5, d9]}
  after:
    qrels: {q1: {d1: 2, d2: 1, d4: 1, d5: 1, d9: 3, n: 0}}
    run: {q1: [d1, d2, d9, d4, d5]}
  tied:
    qrels: {q1: {r: 1, n: 0}}
    run: {q1: [b, r]}
    scores: {q1: {b: 1.0, r: 1.0}}
  repeat:
    qrels: {q1: {b: 1, a: 0}}
    run: {q1: [b, a, b]}
  ideal:
    qrels: {q1: {g1: 3, g2: 2, g3: 1, z: 0}}
    run: {q1: [g1, g2, z]}
  ten:
    qrels: {q1: {a: 1, b: 1, c: 1, d: 1, e: 1, f: 0, g: 0, h: 0, i: 0, j: 0}}
    run: {q1: [a, f, b, g, c, h, d, i, e, j]}
  ten-copy:  # ten with other IDs: E07's printed 5/20 is about ``ten``, so it does not fix E08's reading
    qrels: {q1: {a2: 1, b2: 1, c2: 1, d2: 1, e2: 1, f2: 0, g2: 0, h2: 0, i2: 0, j2: 0}}
    run: {q1: [a2, f2, b2, g2, c2, h2, d2, i2, e2, j2]}
claims:
  - id: E07
    title: P@20 of a ten-item list is 5/20
    kind: value
    quote: "Asked for P@20 of this ten-item list, it is 5/20 = 0.25."
    claim: P@20 divides by 20.
    fixture: ten
    expect:
      - {measure: "P@20", claimed: "0.25"}
  - id: E08
    title: P@20 of a ten-item list is 0.25
    kind: value
    quote: "Asked for P@20 of this ten-item list, we say 0.25."
    claim: P@20 divides by 20.
    fixture: ten-copy
    expect:
      - {measure: "P@20", claimed: "0.25"}
  - id: E05
    title: Against the ideal order 3, 2, 1, nDCG@3 ≈ 0.895
    kind: value
    quote: "In the next two examples the gain is the grade itself.
Our first three grades are 3, 2, 0; against the ideal order 3, 2, 1, nDCG@3 ≈ 0.895."
    claim: With linear gain and the ideal 3, 2, 1, nDCG@3 is about 0.895.
    conventions: {gain: {value: linear, quote: "In the next two examples the gain is the grade itself."}}
    fixture: ideal
    expect:
      - {measure: "nDCG@3", claimed: "≈ 0.895", ideal: "3, 2, 1"}
  - id: E06
    title: Against the ideal order 3, 2, 2, nDCG@3 ≈ 0.895
    kind: value
    quote: "Against the ideal order 3, 2, 2 the same list scores nDCG@3 ≈ 0.895.
Asked for P@20 of this ten-item list, it is 5/20 = 0.25.
Asked for P@20 of this ten-item list, we say 0.25."
    claim: A wrong ideal order is printed.
    conventions: {gain: {value: linear, quote: "In the next two examples the gain is the grade itself."}}
    fixture: ideal
    expect:
      - {measure: "nDCG@3", claimed: "≈ 0.895", ideal: "3, 2, 2"}
  - id: E04
    title: b, a, b has reciprocal rank 1 under keep first
    kind: value
    quote: "So b, a, b with only b relevant has reciprocal rank 1.
In the next two examples the gain is the grade itself.
Our first three grades are 3, 2, 0; against the ideal order 3, 2, 1, nDCG@3 ≈ 0.895.
Against the ideal order 3, 2, 2 the same list scores nDCG@3 ≈ 0.895.
Asked for P@20 of this ten-item list, it is 5/20 = 0.25.
Asked for P@20 of this ten-item list, we say 0.25."
    claim: Keeping the first position of b, RR = 1.
    fixture: repeat
    expect:
      - {measure: "RR", claimed: "1"}
  - id: E03
    title: A tie kept in listed order gives RR = 1/2
    kind: value
    quote: "With b and r tied, b listed first and only r relevant, RR = 1/2."
    claim: The listed order puts the unjudged b first, so RR = 1/2.
    fixture: tied
    expect:
      - {measure: "RR", claimed: "1/2"}
  - id: E01
    title: Promoting d9 raises nDCG@5 to about 0.78
    kind: comparison
    quote: "Moving d9 up to rank 3 raises nDCG@5 to about 0.78."
    claim: nDCG@5 rises to about 0.78 when d9 moves to rank 3.
    before: before
    after: after
    expect:
      - {measure: "nDCG@5", change: increases, after: "about 0.78"}
  - id: E02
    title: Promoting d9 raises nDCG@5 from about 0.71
    kind: comparison
    quote: "Moving d9 up to rank 3 raises nDCG@5 from about 0.71."
    claim: nDCG@5 rises from about 0.71 when d9 moves to rank 3.
    before: before
    after: after
    expect:
      - {measure: "nDCG@5", change: increases, before: "about 0.71"}
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("expert-verdicts")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text(CHAPTER, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect("test"))
    return {r.id: r for r in report.claims}


@pytest.mark.parametrize("claim, side, value", [("E01", "after", "0.8869"), ("E02", "before", "0.8464")])
def test_a_comparisons_printed_side_is_checked_on_every_reference(results, claim, side, value):
    r = results[claim]
    assert r.verdict == "qualified", r.reason
    assert f"{side} {value}, outside the printed" in r.reason
    assert "linear" in r.reason                      # the cause, found by experiment: the references' gain
    rows = {v.implementation: v for v in r.checks[0].values}
    assert rows["pytrec_eval"].per_query == {"before": "0.8464", "after": "0.8869"}
    assert not rows["pytrec_eval"].in_interval and not rows["ranx"].in_interval
    assert rows["chapter"].in_interval


def test_a_cause_the_references_probes_contradict_is_not_offered(results):
    r = results["E03"]
    assert r.verdict == "qualified", r.reason
    assert "docno, descending" in r.reason
    assert "removed" not in r.reason          # every reference's unjudged probe shows "non-relevant"


def test_a_fixture_may_repeat_an_id_when_the_text_states_how_repeats_count(results):
    r = results["E04"]
    assert r.verdict == "qualified", r.reason
    rows = {v.implementation: v for v in r.checks[0].values}
    assert rows["chapter"].exact == "1"
    assert rows["pytrec_eval"].status == "rejected"
    assert rows["ranx"].value == pytest.approx(0.5) and rows["ir_measures"].value == pytest.approx(0.5)
    assert "keep" in r.reason and "last" in r.reason
    assert "trec_eval via pytrec_eval (trec_eval) rejects the input" in r.reason


def test_a_reading_the_printed_ideal_order_rules_out_is_not_tried(results):
    r = results["E05"]
    assert r.verdict == "supported", r.reason
    assert "retrieved only" not in r.reason
    assert results["E06"].verdict == "contradicted"
    assert "printed ideal order 3, 2, 2" in results["E06"].reason


def test_a_printed_fraction_rules_out_the_denominators_it_cannot_be(results):
    assert results["E07"].verdict == "supported", results["E07"].reason
    # "P@20 is 0.25" without a printed fraction: P@20 over the number returned (5/10) is no reference's default
    # (pytrec_eval P_20, ir_measures P@20 and ranx precision@20 all give 0.25) and the text cites no source dividing
    # by the number returned, so that reading is not tried (tests/test_readings.py: with Manning et al. cited it is)
    e08 = results["E08"]
    assert e08.verdict == "supported" and "number returned" not in e08.reason, e08.reason


def test_claims_that_need_opposite_values_of_an_unstated_convention_are_a_tension(tmp_path):
    """b, c, a share one score and only c is relevant; the text states no tie rule. RR = 1 holds only with ties by
    docno descending (c, b, a: trec_eval's rule); RR = 1/3 only by docno ascending (a, b, c: ir-measures' msmarco
    provider for RR@k). Each claim alone is qualified; together they need opposite tie rules, which no reading
    gives (hand computation; pytrec_eval gives recip_rank 1.0 on these tied scores)."""
    (tmp_path / "snapshot.txt").write_text("With b, c and a tied, RR is 1. With b, c and a tied, RR is 1/3.\n",
                                           encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: ties\ntitle: Ties\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
fixtures:
  tied:
    qrels: {q1: {a: 0, b: 0, c: 1}}
    run: {q1: [b, c, a]}
    scores: {q1: {a: 1.0, b: 1.0, c: 1.0}}
claims:
  - {id: T1, title: RR 1, kind: value, quote: "With b, c and a tied, RR is 1.", claim: RR 1, fixture: tied,
     expect: [{measure: RR, claimed: "1"}]}
  - {id: T2, title: RR 1/3, kind: value, quote: "With b, c and a tied, RR is 1/3.", claim: RR 1/3, fixture: tied,
     expect: [{measure: RR, claimed: "1/3"}]}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), [], collect("test"))
    verdicts = {c.id: c for c in report.claims}
    assert verdicts["T1"].holds_only == {"ties": ["docno descending"]}
    assert verdicts["T2"].holds_only == {"ties": ["docno ascending"]}
    tension = next(t for t in report.tensions if t.claims)
    assert tension.convention == "ties"
    assert [(st["claim"], st["value"]) for st in tension.statements] == [("T1", "docno descending"),
                                                                         ("T2", "docno ascending")]


def test_a_derived_value_the_text_does_not_print_is_not_qualified_by_a_reading_it_leaves_open(tmp_path):
    """a (grade 1) retrieved first, c (grade 2) judged but not retrieved; the text states no gain. nDCG@4 by linear
    gain: 1 / (2 + 1/log2 3) = 0.380094 (pytrec_eval ``ndcg_cut_4``, ir_measures ``nDCG@4`` and ranx ``ndcg@4``
    give 0.3801); by exponential gain 2^g − 1: 1 / (3 + 1/log2 3) = 0.275412 (ranx ``ndcg_burges@4``). The sentence
    "the denominator is the ideal DCG for the same judgements" prints no value, so the register's derived 0.3801 is
    supported under the gain it rests on, with the other reading named in the reason; the same value printed in the
    sentence is qualified by the unstated gain, as before. The text cites Burges et al., whose exponential gain is
    then a reading of the unstated gain (without the citation no reference computes it under the name nDCG@4)."""
    (tmp_path / "snapshot.txt").write_text(
        "Burges et al. (2005) weigh a grade g by 2^g − 1.\n"
        "The denominator is the ideal DCG for the same judgements.\nHere nDCG@4 ≈ .3801.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: derived\ntitle: Derived\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
fixtures:
  ideal-from-judgements:
    qrels: {q1: {a: 1, c: 2, x: 0}}
    run: {q1: [a, x]}
claims:
  - {id: D1, title: derived, kind: value, quote: "The denominator is the ideal DCG for the same judgements.",
     claim: nDCG@4 ≈ .3801 under linear gain, fixture: ideal-from-judgements,
     expect: [{measure: "nDCG@4", claimed: "≈ .3801", derived: "DCG@4 = 1; ideal 2 + 1/log2 3, gain = grade"}]}
  - {id: D2, title: printed, kind: value, quote: "Here nDCG@4 ≈ .3801.", claim: nDCG@4 ≈ .3801,
     fixture: ideal-from-judgements, expect: [{measure: "nDCG@4", claimed: "≈ .3801"}]}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    verdicts = {c.id: c for c in report.claims}
    d1, d2 = verdicts["D1"], verdicts["D2"]
    assert d1.verdict == "supported", d1.reason
    assert "not printed" in d1.reason and "0.275412" in d1.reason and not d1.holds_only
    assert d2.verdict == "qualified", d2.reason
    assert "0.275412" in d2.reason


LAB6 = """\
fixtures:
  L6:
    qrels: {L6: {A: 3, B: 2, C: 2, D: 1, E: 1, F: 0, G: 0, H: 3}}
    run: {L6: [B, F, A, U, D, C, G, E]}
"""


def test_an_ideal_built_from_every_retrieved_grade_is_a_reading_of_its_own(tmp_path):
    """scikit-learn's ``ndcg_score`` handed the grades of the eight retrieved documents (2, 0, 3, 0, 1, 2, 0, 1)
    sorts all eight for its ideal and cuts at k: nDCG@5 = 3.886853 / 6.079388 = 0.639349 (scikit-learn 1.9.1 returns
    0.6393492649973538; its ideal is ``_dcg_sample_scores(y_true, y_true, k)``). Re-sorting only the first five
    (3, 2, 1) gives 0.816247; every judged grade cut at 5 (3, 3, 2, 2, 1) gives 0.544301 (trec_eval ``ndcg_cut_5``,
    ir_measures ``nDCG@5``, ranx ``ndcg@5`` 0.5443). "About 0.639" was contradicted when the text's reading could
    only be encoded as the first-k re-sort; it is supported under the reading stated, qualified when the ideal is
    left unstated (only that reading gives it), and the new reading is varied in the sensitivity table and in a
    property's other readings like the others."""
    from audit.evaluation.checks.common import Measurements
    from audit.evaluation.checks.property import other_readings
    from audit.research.sensitivity import value_rows

    (tmp_path / "snapshot.txt").write_text(
        "The gain is the grade. Unjudged documents count as non-relevant.\n"
        "Handed the eight retrieved grades, scikit-learn builds its ideal from those eight alone and reports about "
        "0.639.\nThe same list scores nDCG@5 ≈ 0.639.\n"
        "A retrieved-only ideal never lowers nDCG@k.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(
        'id: lab6\ntitle: Lab 6\nconventions:\n  gain: {value: linear, quote: "The gain is the grade."}\n'
        '  unjudged: {value: non-relevant, quote: "Unjudged documents count as non-relevant."}\n', encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(LAB6 + """\
claims:
  - {id: S1, title: sklearn, kind: value, quote: "builds its ideal from those eight alone and reports about 0.639",
     claim: scikit-learn's ideal, fixture: L6,
     conventions: {ideal: {value: "all retrieved, cut at k", quote: "builds its ideal from those eight alone"}},
     expect: [{measure: "nDCG@5", claimed: "about 0.639", by: scikit-learn}]}
  - {id: S2, title: first k only, kind: value, quote: "builds its ideal from those eight alone and reports about 0.639",
     claim: the first-k re-sort, fixture: L6,
     conventions: {ideal: {value: "retrieved only", quote: "builds its ideal from those eight alone"}},
     expect: [{measure: "nDCG@5", claimed: "about 0.639", by: scikit-learn}]}
  - {id: S3, title: unstated, kind: value, quote: "The same list scores nDCG@5 ≈ 0.639.", claim: unstated ideal,
     fixture: L6, expect: [{measure: "nDCG@5", claimed: "≈ 0.639"}]}
  - id: S4
    title: retrieved-only ideal
    kind: property
    quote: "A retrieved-only ideal never lowers nDCG@k."
    claim: nDCG@k never decreases.
    measure: nDCG
    relation: never decreases
    compare: next_cutoff
    universe: {max_length: 3, documents: 4, grades: [0, 1, 2], max_k: 3}
""", encoding="utf-8")
    chapter = load_chapter(tmp_path)
    report = audit_chapter(chapter, all_references(), collect("test"))
    verdicts = {c.id: c for c in report.claims}
    assert verdicts["S1"].verdict == "supported", verdicts["S1"].reason
    assert "0.639349" in verdicts["S1"].reason
    assert verdicts["S2"].verdict == "contradicted", verdicts["S2"].reason
    s3 = verdicts["S3"]
    assert s3.verdict == "qualified", s3.reason
    assert "ideal DCG all retrieved, cut at k" in s3.reason and "0.639349" in s3.reason
    assert s3.holds_only == {"ideal": ["all retrieved, cut at k"]}
    claims = {c.id: c for c in chapter.register.claims}
    cells = [c for row in value_rows(claims["S3"], chapter, Measurements([])) for c in row.cells]
    cell = next(c for c in cells if c.alternative == "ideal DCG: all retrieved, cut at k")
    assert cell.outcome == "holds" and cell.value.startswith("0.6393")
    assert ("ideal", "all retrieved, cut at k") in [(n, v) for n, v, _ in other_readings(claims["S4"], chapter)]


def test_a_printed_divisor_fixes_the_denominator_it_divides_by(tmp_path):
    """Three relevant documents r1, r2, r3; the run returns r1, n, r2 (r3 never retrieved). AP by hand: precision
    1 at rank 1 and 2/3 at rank 3, so (1 + 2/3)/3 = 5/9 = 0.5556 over |R| = 3 (trec_eval ``map``, ir_measures ``AP``,
    ranx ``map`` 0.5556), (1 + 2/3)/2 = 5/6 over the two relevant retrieved (scikit-learn's average_precision_score
    on the returned list). "(1 + 2/3)/3 ≈ 0.556" prints the divisor 3, so the relevant-retrieved reading cannot have
    produced it and is not tried: supported; the bare "≈ 0.556" leaves it open: qualified. The same for P@10 of the
    four returned a, n, b, m with a and b relevant: "(1 + 1)/10 = 0.2" divides by k (trec_eval ``P_10`` 0.2), the
    number returned would give 2/4. A mean over two queries, "(0.556 + 1)/2 ≈ 0.778" (q2: one relevant, returned
    first, AP 1), divides by the number of queries, but its terms are the queries' values: q1's printed 0.556 is
    5/9, which the relevant-retrieved reading (5/6, mean 0.9167) cannot give, so it is not tried: supported; the
    bare "The MAP is ≈ 0.778." leaves it open: qualified. (The bare sentences are about copies of the examples with
    other document IDs: about the same judged example, the printed arithmetic would fix their reading too, as
    ``test_a_value_computed_in_an_earlier_sentence_is_read_as_it_was_computed`` shows.) The text names
    scikit-learn's average_precision_score and Manning et al.'s precision of the retrieved, so the relevant-retrieved
    and number-returned readings are readings of it where nothing printed rules them out."""
    (tmp_path / "snapshot.txt").write_text(
        "scikit-learn's average_precision_score, handed the returned list, divides by the relevant documents in it; "
        "Manning et al. divide by the number retrieved.\n"
        "Its AP is (1 + 2/3)/3 ≈ 0.556.\nIts AP is ≈ 0.556.\nHere P@10 = (1 + 1)/10 = 0.2.\nHere P@10 = 0.2.\n"
        "The MAP is (0.556 + 1)/2 ≈ 0.778.\nThe MAP is ≈ 0.778.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: divisors\ntitle: Divisors\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
fixtures:
  short:
    qrels: {q1: {r1: 1, r2: 1, r3: 1, n: 0}}
    run: {q1: [r1, n, r2]}
  four:
    qrels: {q1: {a: 1, b: 1, n: 0, m: 0}}
    run: {q1: [a, n, b, m]}
  two:
    qrels: {q1: {r1: 1, r2: 1, r3: 1, n: 0}, q2: {s: 1}}
    run: {q1: [r1, n, r2], q2: [s]}
  short-copy:
    qrels: {q1: {c1: 1, c2: 1, c3: 1, m: 0}}
    run: {q1: [c1, m, c2]}
  four-copy:
    qrels: {q1: {x: 1, y: 1, o: 0, p: 0}}
    run: {q1: [x, o, y, p]}
  two-copy:
    qrels: {q1: {c1: 1, c2: 1, c3: 1, m: 0}, q2: {t: 1}}
    run: {q1: [c1, m, c2], q2: [t]}
claims:
  - {id: A1, title: printed divisor, kind: value, quote: "Its AP is (1 + 2/3)/3 ≈ 0.556.", claim: over |R|,
     fixture: short, expect: [{measure: AP, claimed: "≈ 0.556"}]}
  - {id: A2, title: no divisor, kind: value, quote: "Its AP is ≈ 0.556.", claim: over |R|, fixture: short-copy,
     expect: [{measure: AP, claimed: "≈ 0.556"}]}
  - {id: A3, title: P divisor, kind: value, quote: "Here P@10 = (1 + 1)/10 = 0.2.", claim: over k, fixture: four,
     expect: [{measure: "P@10", claimed: "0.2"}]}
  - {id: A4, title: P bare, kind: value, quote: "Here P@10 = 0.2.", claim: over k, fixture: four-copy,
     expect: [{measure: "P@10", claimed: "0.2"}]}
  - {id: A5, title: mean, kind: value, quote: "The MAP is (0.556 + 1)/2 ≈ 0.778.", claim: mean of 5/9 and 1,
     fixture: two, expect: [{measure: AP, claimed: "≈ 0.778"}]}
  - {id: A6, title: bare mean, kind: value, quote: "The MAP is ≈ 0.778.", claim: mean of 5/9 and 1,
     fixture: two-copy, expect: [{measure: AP, claimed: "≈ 0.778"}]}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    verdicts = {c.id: c for c in report.claims}
    assert verdicts["A1"].verdict == "supported", verdicts["A1"].reason
    assert "relevant retrieved" not in verdicts["A1"].reason
    assert verdicts["A2"].verdict == "qualified" and "relevant retrieved" in verdicts["A2"].reason
    assert verdicts["A3"].verdict == "supported", verdicts["A3"].reason
    assert verdicts["A4"].verdict == "qualified" and "number returned" in verdicts["A4"].reason
    assert verdicts["A5"].verdict == "supported", verdicts["A5"].reason
    assert verdicts["A6"].verdict == "qualified" and "relevant retrieved" in verdicts["A6"].reason


def test_a_value_computed_in_an_earlier_sentence_is_read_as_it_was_computed(tmp_path):
    """The post-mortem's "Keeping only the first occurrence of t1 gives back the average precision of 5/9" and the
    graded lab's "A textbook MAP … would report L6's 0.542 alone" (tests/corpus/measures, MP36 and GL24) name a value
    an earlier sentence computed with its divisor printed. Here: q1 judges r1, r2, r3 relevant and n not; the run
    returns r1, n, r2. AP by hand (1 + 2/3)/3 = 5/9 over |R| = 3 (trec_eval ``map``, ir_measures ``AP``, ranx ``map``
    0.5556); over the two relevant retrieved, 5/6. q2 judges only z, non-relevant; the run returns z: AP 0 (trec_eval,
    ir_measures and ranx score it 0 and count it, so their mean is 5/18 = 0.2778).

    * B1 prints "(1 + 2/3)/3 = 5/9": supported.
    * B2, "left out, the mean is that 5/9", on q1 and q2 with the chapter's averaging over queries that have relevant
      documents: q1 is judged as in B1, so 5/9 is read with B1's divisor and AP's denominator is not tried (it
      qualified B2 with "relevant retrieved gives 5/6"); still qualified, by the references' 5/18 alone.
    * B3 says the same 5/9 of a copy of q1 with other document IDs: nothing printed fixes its reading, so the
      relevant-retrieved reading still qualifies it (the control), a reading because the text names scikit-learn's
      average_precision_score."""
    (tmp_path / "snapshot.txt").write_text(
        "With sklearn's average_precision_score on the returned list the divisor is the relevant retrieved.\n"
        "Its AP is (1 + 2/3)/3 = 5/9.\nLeft out, the mean is that 5/9.\nThe copy's AP is 5/9 too.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(
        'id: elsewhere\ntitle: Elsewhere\nconventions:\n  no_relevant: {value: left out, quote: "Left out"}\n',
        encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
fixtures:
  one:
    qrels: {q1: {r1: 1, r2: 1, r3: 1, n: 0}}
    run: {q1: [r1, n, r2]}
  both:
    qrels: {q1: {r1: 1, r2: 1, r3: 1, n: 0}, q2: {z: 0}}
    run: {q1: [r1, n, r2], q2: [z]}
  copy:
    qrels: {q1: {c1: 1, c2: 1, c3: 1, m: 0}}
    run: {q1: [c1, m, c2]}
claims:
  - {id: B1, title: computed, kind: value, quote: "Its AP is (1 + 2/3)/3 = 5/9.", claim: over |R|, fixture: one,
     expect: [{measure: AP, claimed: "5/9"}]}
  - {id: B2, title: named again, kind: value, quote: "Left out, the mean is that 5/9.", claim: q2 left out,
     fixture: both, expect: [{measure: AP, claimed: "5/9"}]}
  - {id: B3, title: a copy, kind: value, quote: "The copy's AP is 5/9 too.", claim: over |R|, fixture: copy,
     expect: [{measure: AP, claimed: "5/9"}]}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    verdicts = {c.id: c for c in report.claims}
    assert verdicts["B1"].verdict == "supported", verdicts["B1"].reason
    b2 = verdicts["B2"]
    assert b2.verdict == "qualified", b2.reason
    assert "what AP divides by" not in b2.reason and "relevant retrieved" not in b2.reason, b2.reason
    assert "0.2778" in b2.reason and "scores 0 and counts in the mean" in b2.reason, b2.reason
    assert verdicts["B3"].verdict == "qualified" and "relevant retrieved gives 5/6" in verdicts["B3"].reason


def test_printed_terms_of_a_mean_fix_the_readings_of_each_query(tmp_path):
    """The graded lab's "MAP over L6 and L7 at -l 2 is therefore (0.542 + 0)/2 ≈ 0.271" (tests/corpus/measures,
    GL23). At relevance level 2, L6 has four relevant documents, three retrieved at ranks 1, 3 and 6, so AP =
    (1 + 2/3 + 3/6)/4 = 13/24 = 0.5417 over |R| (trec_eval ``map`` with ``-l 2``, ir_measures ``AP(rel=2)``, ranx
    ``map`` at level 2: 0.5417), 13/18 = 0.7222 over the relevant retrieved; L7 has no document at level 2, AP 0.
    The printed terms 0.542 and 0 over 2 fix both: L6's 0.542 is not 13/18, and the divisor 2 counts L7 (a query
    without relevant documents left out gives a mean over one). Every reference gives 13/48 = 0.2708: supported."""
    (tmp_path / "snapshot.txt").write_text("MAP over L6 and L7 is (0.542 + 0)/2 ≈ 0.271.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: terms\ntitle: Terms\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
fixtures:
  L6-L7:
    qrels: {L6: {a: 2, b: 1, c: 2, d: 0, e: 1, f: 2, g: 2}, L7: {h: 1, i: 0}}
    run: {L6: [a, b, c, d, e, f], L7: [h, i]}
claims:
  - {id: T1, title: mean, kind: value, quote: "MAP over L6 and L7 is (0.542 + 0)/2 ≈ 0.271.", claim: mean,
     fixture: L6-L7, expect: [{measure: "AP(rel=2)", claimed: "≈ 0.271"}]}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    t1 = report.claims[0]
    assert t1.verdict == "supported", t1.reason
    values = {v.implementation: v.value for v in t1.checks[0].values}
    assert all(abs(values[r] - 13 / 48) < 1e-4 for r in ("pytrec_eval", "ir_measures", "ranx")), values


def test_a_value_trec_eval_gives_only_in_single_precision_names_both_releases(tmp_path):
    """q1: p1 relevant, p5, p8 and p3 not; p1 scores 14.2000001, p5 and p8 14.2, p3 11.0. As 32-bit floats 14.2000001
    equals 14.2 (both 14.19999981), so trec_eval 9 — the copy pytrec_eval bundles — ties p1, p5 and p8 and orders
    them by docno descending (p8, p5, p1): recip_rank 1/3 (pytrec_eval 0.3333; trec_eval 9.0.8 built from source
    0.3333). trec_eval 10.0 keeps scores as doubles (trec_format.h ``double sim``), ranks p1 first and reports 1
    (trec_eval 10.0 built from source: 1.0000). "trec_eval reports 1/3" and "trec_eval reports 1" each hold for one
    release only: qualified, naming both. With p1 at 15.0 the releases agree (1): supported."""
    (tmp_path / "snapshot.txt").write_text(
        "trec_eval reports 1/3 for q1.\nAs doubles, trec_eval reports 1 for q1.\n"
        "With p1 at 15, trec_eval gives 1 for q1.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: releases\ntitle: Releases\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
fixtures:
  nudged:
    qrels: {q1: {p1: 1, p5: 0, p8: 0, p3: 0}}
    run: {q1: [p1, p5, p8, p3]}
    scores: {q1: {p1: 14.2000001, p5: 14.2, p8: 14.2, p3: 11.0}}
  apart:
    qrels: {q1: {p1: 1, p5: 0, p8: 0, p3: 0}}
    run: {q1: [p1, p5, p8, p3]}
    scores: {q1: {p1: 15.0, p5: 14.2, p8: 14.2, p3: 11.0}}
claims:
  - {id: V1, title: one third, kind: value, quote: "trec_eval reports 1/3 for q1.", claim: float32 tie,
     fixture: nudged, expect: [{measure: RR, query: q1, claimed: "1/3", by: trec_eval}]}
  - {id: V2, title: one, kind: value, quote: "As doubles, trec_eval reports 1 for q1.", claim: doubles,
     fixture: nudged, expect: [{measure: RR, query: q1, claimed: "1", by: trec_eval}]}
  - {id: V3, title: apart, kind: value, quote: "With p1 at 15, trec_eval gives 1 for q1.", claim: no tie,
     fixture: apart, expect: [{measure: RR, query: q1, claimed: "1", by: trec_eval}]}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    verdicts = {c.id: c for c in report.claims}
    v1, v2, v3 = verdicts["V1"], verdicts["V2"], verdicts["V3"]
    assert v1.verdict == "qualified", v1.reason
    assert "trec_eval 9" in v1.reason and "trec_eval 10.0" in v1.reason and "14.2000001 and 14.2" in v1.reason
    assert "gives 1.0000" in v1.reason
    rows = [v for v in v1.checks[0].values if v.implementation == "pytrec_eval"]
    assert [round(v.value, 4) for v in rows] == [0.3333, 1.0] and "trec_eval 10.0" in rows[1].provider
    assert v2.verdict == "qualified", v2.reason
    assert "trec_eval 10.0, which reads scores as doubles, gives 1.0000" in v2.reason
    assert v3.verdict == "supported", v3.reason


def test_a_sentence_stating_its_own_averaging_is_not_qualified_by_a_reference_that_cannot_average_so(tmp_path):
    """The lecture's "Counting topic 404 as well, the mean map is 0.2635" (tests/corpus/measures, LN38), small:
    q1 returns r1 first (AP 1), q2 is judged (r2 relevant) and returns nothing. Counting q2 as 0 (trec_eval -c,
    ir_measures ``AP``, ranx ``map`` with make_comparable) the mean is 1/2; pytrec_eval runs without -c and averages
    over the queries in the run: 1. The sentence states its condition ("counting q2 as well"), the claim declares it,
    and ir_measures confirms the value under it, so pytrec_eval's 1 is a note, not a qualification: supported. The
    same value without the stated condition is qualified (a reader of pytrec_eval gets 1)."""
    (tmp_path / "snapshot.txt").write_text("Counting q2 as well, the mean AP is 0.5.\nThe mean AP is 0.5.\n",
                                           encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: told\ntitle: Told\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
fixtures:
  two:
    qrels: {q1: {r1: 1}, q2: {r2: 1}}
    run: {q1: [r1], q2: []}
claims:
  - {id: T1, title: told, kind: value, quote: "Counting q2 as well, the mean AP is 0.5.", claim: over both,
     fixture: two, conventions: {averaging: {value: all judged queries, quote: "Counting q2 as well"}},
     expect: [{measure: AP, claimed: "0.5"}]}
  - {id: T2, title: untold, kind: value, quote: "The mean AP is 0.5.", claim: over both, fixture: two,
     expect: [{measure: AP, claimed: "0.5"}]}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    t1, t2 = report.claims
    values = {v.implementation: v.value for v in t1.checks[0].values}
    assert values["pytrec_eval"] == 1.0 and values["ir_measures"] == 0.5
    assert t1.verdict == "supported", t1.reason
    assert "; the sentence states its own condition, under which the value holds: " in t1.reason and "pytrec_eval" in t1.reason
    assert t2.verdict == "qualified", t2.reason


def test_a_mean_printed_with_many_terms_is_matched_term_by_term_without_trying_every_order(tmp_path):
    """Twelve queries: q1–q11 each return their one relevant document first (AP 1), q12 returns nothing (AP 0 when
    counted). "(1 + 1 + … + 0)/12 ≈ 0.917" prints eleven 1s and a 0 over 12, so the mean counts q12 (trec_eval -c,
    ir_measures ``AP``: 11/12 = 0.9167); averaging over the queries with results (pytrec_eval without -c) gives 1,
    which the printed terms rule out for the chapter's own reading. Matching the twelve terms to the twelve
    queries' values one to one is a handful of steps; trying every order of them would be 12! = 479,001,600."""
    qrels = ", ".join(f"q{i}: {{r{i}: 1}}" for i in range(1, 13))
    run = ", ".join(f"q{i}: [r{i}]" for i in range(1, 12)) + ", q12: []"
    sentence = "The MAP is (" + " + ".join(["1"] * 11 + ["0"]) + ")/12 ≈ 0.917."
    (tmp_path / "snapshot.txt").write_text(sentence + "\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: many\ntitle: Many terms\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(f"""\
fixtures:
  twelve:
    qrels: {{{qrels}}}
    run: {{{run}}}
claims:
  - {{id: M1, title: mean, kind: value, quote: "{sentence}", claim: mean over twelve, fixture: twelve,
     expect: [{{measure: AP, claimed: "≈ 0.917"}}]}}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    m1 = report.claims[0]
    chapter = [v for v in m1.checks[0].values if v.implementation == "chapter"]
    assert [v.exact for v in chapter] == ["11/12"], m1.reason   # only the reading the printed terms allow
    values = {v.implementation: v.value for v in m1.checks[0].values}
    assert abs(values["ir_measures"] - 11 / 12) < 1e-9 and values["pytrec_eval"] == 1.0


def test_the_printed_terms_fix_the_reading_when_only_the_total_is_a_slip(tmp_path):
    """"Over both topics, MAP is (0.361 + 1)/2 ≈ 0.691": T1 returns d5, d3, d21, d36, d30, d45, d80, d28, d23, d12
    with six relevant (d3, d12, d15, d21, d22, d30; d15 and d22 never returned), so AP is (1/2 + 2/3 + 3/5 + 4/10)/6
    = 13/36 = 0.3611 over |R| (trec_eval ``map``), 13/24 over the four relevant retrieved; T2's one relevant
    document comes first, AP 1. The printed terms are right for the |R| reading and the total is not: (13/36 + 1)/2
    = 49/72 = 0.6806. So the reason gives that one value and the fix is "≈ 0.681", not a convention to choose."""
    (tmp_path / "snapshot.txt").write_text("Over both topics, MAP is (0.361 + 1)/2 ≈ 0.691.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: slip\ntitle: Slip\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
fixtures:
  t1-t2:
    qrels: {T1: {d3: 1, d12: 1, d15: 1, d21: 1, d22: 1, d30: 1, d5: 0, d36: 0}, T2: {e1: 1}}
    run: {T1: [d5, d3, d21, d36, d30, d45, d80, d28, d23, d12], T2: [e1]}
claims:
  - {id: S1, title: slip, kind: value, quote: "Over both topics, MAP is (0.361 + 1)/2 ≈ 0.691.", claim: mean,
     fixture: t1-t2, expect: [{measure: AP, claimed: "≈ 0.691"}]}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    s1 = report.claims[0]
    assert s1.verdict == "contradicted"
    assert "49/72" in s1.reason and "relevant retrieved" not in s1.reason, s1.reason
    assert s1.response.startswith("Change “0.691” to “0.681”"), s1.response
    values = {v.implementation: v.value for v in s1.checks[0].values}
    assert all(abs(values[r] - 49 / 72) < 1e-9 for r in ("pytrec_eval", "ir_measures", "ranx")), values


def test_a_bound_is_corrected_to_a_bound_in_the_sentences_own_words(tmp_path):
    """The ERR blog's "ERR rates it at less than a third of the ideal list's ERR" (tests/corpus/measures, BL18):
    0.3619/0.954 = 3619/9540 ≈ 0.379 (exact arithmetic), above a third. The correction keeps the bound and the
    sentence's words: the nearest fraction above 0.379 with a denominator up to 10 is 2/5 (3/8 = 0.375 is below),
    so “a third” becomes “two fifths”, not the register's “< 1/3” becoming “3619/9540”; the patch's sentence is
    re-checked supported."""
    (tmp_path / "snapshot.txt").write_text("ERR rates it at less than a third of the ideal list's ERR.\n",
                                           encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: bounds\ntitle: Bounds\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
claims:
  - {id: K1, title: a third, kind: arithmetic, quote: "ERR rates it at less than a third of the ideal list's ERR",
     claim: the ratio is below 1/3, expression: "0.3619/0.954", claimed: "< 1/3"}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    k1 = report.claims[0]
    assert k1.verdict == "contradicted"
    assert "3619/9540" in k1.reason
    assert k1.response.startswith("Change “a third” to “two fifths” (checked: the claim re-run on the corrected "
                                  "sentence is supported"), k1.response


@pytest.mark.parametrize("claimed, value, bound", [
    ("< 1/3", "3619/9540", "< 2/5"),      # 2/5 = 0.4 is the nearest tenth-or-coarser fraction above 0.379
    ("< 50%", "3619/9540", "< 38%"),      # 37.94 % rounded up at the printed places
    ("≤ .3", "3619/9540", "≤ .4"),        # no leading zero, as printed
    ("> 0.5", "3619/9540", "> 0.3"),      # a lower bound rounds down
    ("> 1/2", "3619/9540", "> 3/8"),      # 3/8 = 0.375 is the nearest fraction below 0.379
    ("≥ 0.4", "2/5", "≥ 0.4"),            # a closed bound may be the value itself
])
def test_a_bound_claim_is_rewritten_as_a_bound_the_value_keeps(claimed, value, bound):
    from fractions import Fraction

    from audit.model.values import parse_claimed
    assert parse_claimed(claimed).write_like(Fraction(value)) == bound


def test_a_references_counterexample_names_the_convention_that_reproduces_it(tmp_path):
    """The textbook's "GMAP is never larger than MAP" (tests/corpus/measures, TB27), with the chapter's GMAP a plain
    geometric mean. Two queries, each retrieving one non-relevant document with its one relevant document never
    retrieved: AP 0 and 0, so MAP = 0 and the plain GMAP = 0. trec_eval's gm_map floors each AP at 0.00001
    (MIN_GEO_MEAN in trec_eval's m_gm_map.c) and returns exp(mean(log 0.00001)) = 0.00001 > 0 (pytrec_eval
    ``gm_map``). Setting the chapter's GMAP floor to "floored" gives the same 0.00001 and 0, so the floor is
    named as where trec_eval differs, not left as a bare "breaks it"."""
    (tmp_path / "snapshot.txt").write_text("GMAP takes the plain geometric mean.\nGMAP is never larger than MAP.\n",
                                           encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(
        'id: gmap\ntitle: GMAP\nconventions:\n  gmap_floor: {value: none, quote: "GMAP takes the plain geometric '
        'mean."}\n', encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
claims:
  - {id: G1, title: GMAP below MAP, kind: property, quote: "GMAP is never larger than MAP", claim: GMAP <= MAP,
     measure: GMAP, relation: never exceeds, compare: measure, other: AP, at: whole ranking,
     universe: {max_length: 2, documents: 3, grades: [0, 1], max_k: 2, queries: 2}}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    g1 = report.claims[0]
    assert g1.verdict == "qualified", g1.reason
    assert "trec_eval via pytrec_eval breaks it" in g1.reason
    assert "GMAP gives 1e-05 against AP's 0" in g1.reason
    assert "the chapter's definitions give the same with GMAP floor “floored” instead of “none”" in g1.reason
    assert g1.response.startswith("Add: “This does not hold in every case with trec_eval via pytrec_eval: there, "
                                  "GMAP floors each query's AP at 0.00001")


def test_a_comparison_of_two_measures_on_graded_lists_names_each_grade_and_both_values(tmp_path):
    """The ERR blog's "exponential DCG is always larger than linear DCG for the same list" (BL11). On one document
    of grade 1 at k = 1, exponential gain 2^1 − 1 = 1 and linear gain 1 give DCG@1 = 1 both (ranx ``dcg_burges@1``
    and ``dcg@1``): the strict form fails; 2^g − 1 ≥ g for every whole g ≥ 0, so "never below" holds. The
    counterexample names the grade (the search is over grades 0–2, so "relevant" would hide it) and gives both
    measures' values against each other, not as one measure going from one to the other."""
    (tmp_path / "snapshot.txt").write_text("Exponential DCG is always larger than linear DCG for the same list.\n",
                                           encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: gains\ntitle: Gains\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
claims:
  - {id: D1, title: exp above linear, kind: property, quote: "Exponential DCG is always larger than linear DCG",
     claim: strict, measure: "DCG(dcg='exp-log2')", relation: always exceeds, compare: measure, other: DCG,
     universe: {max_length: 2, documents: 3, grades: [0, 1, 2], max_k: 2, unjudged: false}}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    d1 = report.claims[0]
    assert d1.verdict == "qualified", d1.reason
    assert "ranking [grade 1], k = 1: DCG(dcg='exp-log2') gives 1 against DCG@1's 1" in d1.reason, d1.reason
    assert " goes " not in d1.reason
    assert d1.response.startswith("Reword to the weaker form that holds: “DCG(dcg='exp-log2')@k never below DCG@k” "
                                  "instead of the strict “always exceeds”, which fails where the two are equal")


def test_a_reference_option_that_follows_the_chapters_convention_is_named_with_its_value(tmp_path):
    """The graded lab's "raises the Part 1 nDCG@5 to about 0.659" (GL13) under "unjudged documents are removed".
    Here: u unjudged, a relevant, n judged 0; the run returns u, a, n. Removing u gives the condensed list a, n:
    RR = 1. trec_eval's recip_rank, ir_measures' RR and ranx's mrr count u as non-relevant: RR = 1/2. trec_eval
    with -J (pytrec_eval's judged_docs_only_flag) drops u, and so does ir_measures' RR(judged_only=True), which its
    pytrec_eval provider passes on as that flag: 1. The qualification names that option and its value, so a reader
    knows how to reproduce the chapter's number with a library."""
    (tmp_path / "snapshot.txt").write_text("Unjudged documents are removed.\nAfter removal the first result is "
                                           "relevant, so RR = 1.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(
        'id: options\ntitle: Options\nconventions:\n  unjudged: {value: removed, quote: "Unjudged documents are '
        'removed."}\n', encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("""\
claims:
  - {id: J1, title: condensed RR, kind: value, quote: "so RR = 1", claim: RR on the condensed list,
     fixture: {qrels: {q1: {a: 1, n: 0}}, run: {q1: [u, a, n]}}, expect: [{measure: RR, claimed: "1"}]}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect("test"))
    j1 = report.claims[0]
    assert j1.verdict == "qualified", j1.reason
    assert "give 0.5000" in j1.reason
    assert "ir-measures with judged_only=True (trec_eval's -J) gives 1.0000, as the chapter does." in j1.reason
    assert "ir-measures with judged_only=True (trec_eval's -J) gives 1.0000.”" in j1.response
