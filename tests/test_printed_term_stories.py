"""One verdict for one printed number: a sentence whose own printed terms are rounded tells one story to every claim
quoting it (the arithmetic as printed, and the measure on its fixture).

Right values, by hand and with ``math.log2``:

* IDCG@5 of grades 3, 3, 2, 1 (linear gain, discount log2(rank + 1)): 3/1 + 3/log2 3 + 2/2 + 1/log2 5 = 6.323466,
  which prints 6.32. The sentence prints the discounts to two places: 3/1 + 3/1.58 + 2/2 + 1/2.32 = 6.329769, which
  prints 6.33. Printed to three places, 3/1 + 3/1.585 + 2/2 + 1/2.322 = 6.323407, which prints 6.32.
* AP of [r, n, r] with two relevant: (1/1 + 2/3)/2 = 5/6 = 0.833333. Printed with 0.67: (1 + 0.67)/2 = 0.835.
  0.667 gives 0.8335, which a reader rounds to 0.834; 0.6667 gives 0.83335, which prints 0.833.
* MAP of three topics with AP 5/6, 1/2 and 1/3: (5/6 + 1/2 + 1/3)/3 = 5/9 = 0.555556; printed per-topic values
  0.83, 0.50, 0.33 give 1.66/3 = 0.553333.
* MRR of first relevant ranks 1, 3, 2: (1 + 1/3 + 1/2)/3 = 11/18 = 0.611111; the printed (1.00 + 0.33 + 0.50)/3 is
  0.61 — the printed 0.611 is the exact value, and both claims stay supported.
* nDCG@3 of grades 3, 2, 0 against the ideal 3, 2, 1: 4.261860/4.761860 = 0.894999 (pytrec_eval ``ndcg_cut_3``
  0.8950); printed 4.26/4.76 = 0.894958: both print 0.895, nothing to say.
"""

from __future__ import annotations

import math
import textwrap
from fractions import Fraction

import pytest

from audit.evaluation.checks.printed_terms import explain
from audit.evaluation.references import all_references
from audit.model.values import parse_claimed
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

IDCG_EXACT = 3 / 1 + 3 / math.log2(3) + 2 / 2 + 1 / math.log2(5)
IDCG_PRINTED = 3 / 1 + 3 / 1.58 + 2 / 2 + 1 / 2.32
IDCG_FIXED = 3 / 1 + 3 / 1.585 + 2 / 2 + 1 / 2.322

SNAPSHOT = textwrap.dedent("""\
    # Graded and binary measures, worked by hand

    The gain of a document is its grade, and the document at rank i is discounted by log2(i + 1).

    The four judged documents have grades 3, 3, 2 and 1, so sorted by grade, with the discounts printed to two
    places, IDCG@5 = 3/1 + 3/1.58 + 2/2 + 1/2.32 = 6.33.

    Relevant documents sit at ranks 1 and 3 of the list, and the precisions there are 1 and 0.67, so
    AP = (1 + 0.67)/2 = 0.835.

    Across the three topics the per-topic AP values are 0.83, 0.50 and 0.33, so MAP = (0.83 + 0.50 + 0.33)/3 = 0.553.

    The reciprocal ranks are 1.00, 0.33 and 0.50, so MRR = (1.00 + 0.33 + 0.50)/3 = 0.611.

    Our first three grades are 3, 2, 0 and the ideal 3, 2, 1, so nDCG@3 = 4.26/4.76 = 0.895.
    """)

CHAPTER = """\
id: printed-terms
title: Graded and binary measures
snapshot: {file: snapshot.md}
conventions:
  gain: {value: linear, quote: "The gain of a document is its grade"}
"""

CLAIMS = textwrap.dedent("""\
    fixtures:
      graded:
        qrels: {q1: {a: 3, b: 3, c: 2, d: 1, n: 0}}
        run: {q1: [a, b, c, d, n]}
      two-relevant:
        qrels: {q1: {r1: 1, r2: 1, n: 0}}
        run: {q1: [r1, n, r2]}
      three-topics:
        qrels: {t1: {a: 1, b: 1, n: 0}, t2: {a: 1, n: 0}, t3: {a: 1, n: 0, m: 0}}
        run: {t1: [a, n, b], t2: [n, a], t3: [n, m, a]}
      first-at-1-3-2:
        qrels: {q1: {a: 1, n: 0}, q2: {a: 1, n: 0, m: 0}, q3: {a: 1, n: 0}}
        run: {q1: [a, n], q2: [n, m, a], q3: [n, a]}
      ideal:
        qrels: {q1: {g1: 3, g2: 2, g3: 1, z: 0}}
        run: {q1: [g1, g2, z]}
    claims:
      - {id: I1, title: IDCG@5 as printed, kind: arithmetic, quote: "IDCG@5 = 3/1 + 3/1.58 + 2/2 + 1/2.32 = 6.33",
         claim: the printed discounted gains add to 6.33, expression: "3/1 + 3/1.58 + 2/2 + 1/2.32", claimed: "6.33"}
      - id: I2
        title: IDCG@5 on the grades
        kind: value
        quote: "IDCG@5 = 3/1 + 3/1.58 + 2/2 + 1/2.32 = 6.33"
        claim: IDCG@5 of grades 3, 3, 2, 1 is 6.33
        fixture: graded
        expect:
          - {measure: "IDCG@5", claimed: "6.33"}
      - {id: I3, title: IDCG@5 computed from the printed sum, kind: arithmetic,
         quote: "IDCG@5 = 3/1 + 3/1.58 + 2/2 + 1/2.32 = 6.33", claim: IDCG@5 is 6.33,
         expression: "3/1 + 3/1.58 + 2/2 + 1/2.32", claimed: "6.33", computes: {measure: IDCG@5, fixture: graded}}
      - {id: A1, title: AP as printed, kind: arithmetic, quote: "AP = (1 + 0.67)/2 = 0.835",
         claim: the mean of the printed precisions is 0.835, expression: "(1 + 0.67)/2", claimed: "0.835"}
      - id: A2
        title: AP on the list
        kind: value
        quote: "AP = (1 + 0.67)/2 = 0.835"
        claim: AP of relevant documents at ranks 1 and 3 is 0.835
        fixture: two-relevant
        expect:
          - {measure: AP, claimed: "0.835"}
      - {id: M1, title: MAP as printed, kind: arithmetic, quote: "MAP = (0.83 + 0.50 + 0.33)/3 = 0.553",
         claim: the mean of the printed AP values is 0.553, expression: "(0.83 + 0.50 + 0.33)/3", claimed: "0.553"}
      - id: M2
        title: MAP over the topics
        kind: value
        quote: "MAP = (0.83 + 0.50 + 0.33)/3 = 0.553"
        claim: MAP of the three topics is 0.553
        fixture: three-topics
        expect:
          - {measure: AP, claimed: "0.553"}
      - {id: R1, title: MRR as printed, kind: arithmetic, quote: "MRR = (1.00 + 0.33 + 0.50)/3 = 0.611",
         claim: the mean of the printed reciprocal ranks is 0.611, expression: "(1.00 + 0.33 + 0.50)/3", claimed: "0.611"}
      - id: R2
        title: MRR of the three questions
        kind: value
        quote: "MRR = (1.00 + 0.33 + 0.50)/3 = 0.611"
        claim: MRR is 0.611
        fixture: first-at-1-3-2
        expect:
          - {measure: RR, claimed: "0.611"}
      - {id: N1, title: nDCG as printed, kind: arithmetic, quote: "nDCG@3 = 4.26/4.76 = 0.895",
         claim: the ratio of the printed DCGs is 0.895, expression: "4.26/4.76", claimed: "0.895"}
      - id: N2
        title: nDCG@3 against the ideal 3, 2, 1
        kind: value
        quote: "nDCG@3 = 4.26/4.76 = 0.895"
        claim: nDCG@3 is 0.895
        fixture: ideal
        expect:
          - {measure: "nDCG@3", claimed: "0.895", ideal: "3, 2, 1"}
    """)


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    folder = tmp_path_factory.mktemp("printed-terms")
    (folder / "chapter.yaml").write_text(CHAPTER, encoding="utf-8")
    (folder / "snapshot.md").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    return report, {c.id: c for c in report.claims}


def test_the_hand_values():
    assert round(IDCG_EXACT, 6) == 6.323466 and f"{IDCG_EXACT:.2f}" == "6.32"
    assert round(IDCG_PRINTED, 6) == 6.329769 and f"{IDCG_PRINTED:.2f}" == "6.33"
    assert round(IDCG_FIXED, 6) == 6.323408 and f"{IDCG_FIXED:.2f}" == "6.32"


def test_the_story_names_the_rounded_discounts_and_both_values():
    t = explain("3/1 + 3/1.58 + 2/2 + 1/2.32", parse_claimed("6.33"), "6.33")
    assert [(p, r) for p, r, _ in t.terms] == [("1.58", "log2(3)"), ("2.32", "log2(5)")]
    assert abs(float(t.exact) - IDCG_EXACT) < 1e-12 and abs(float(t.as_printed) - IDCG_PRINTED) < 1e-12
    assert "3/1.58 — log2 3 = 1.58496 printed as 1.58" in t.story()
    assert "gives 6.329769 as printed, which rounds to the printed 6.33" in t.story()
    assert "the exact value is 6.323466, which rounds to 6.32" in t.story()
    assert (t.fix_expression, t.fix_number) == ("3/1 + 3/1.585 + 2/2 + 1/2.322", "6.32")


def test_the_fix_is_printed_where_a_reader_rounds_it_to_the_new_value():
    """0.667 gives (1 + 0.667)/2 = 0.8335, which rounds half away to 0.834, not 0.833: four places are printed."""
    t = explain("(1 + 0.67)/2", parse_claimed("0.835"), "0.835")
    assert t.exact == Fraction(5, 6)
    assert (t.fix_expression, t.fix_number) == ("(1 + 0.6667)/2", "0.833")


@pytest.mark.parametrize("expression, claimed", [
    ("(1.00 + 0.33 + 0.50)/3", "0.611"),     # the printed value is the exact one: nothing to qualify
    ("4.26/4.76", "0.895"),                  # printed and exact both 0.895
    ("2*0.75*0.6/(0.75 + 0.6)", "0.667"),    # every term is already the plainest number it rounds
    ("(1 + 0.67)/2", "0.9"),                 # the printed terms do not give it: a slip, not a rounding
])
def test_no_story_where_the_rounding_explains_nothing(expression, claimed):
    assert explain(expression, parse_claimed(claimed), claimed) is None


def test_the_measure_on_its_grades_is_qualified_by_the_printed_discounts_not_contradicted(audited):
    r = audited[1]["I2"]
    assert r.verdict == "qualified", r.reason
    assert "log2 3 = 1.58496 printed as 1.58" in r.reason and "6.323466" in r.reason
    assert "= 3/1 + 3/1.585 + 2/2 + 1/2.322 = 6.32”" in r.response, r.response


@pytest.mark.parametrize("claim", ["I1", "I3"])
def test_the_printed_arithmetic_tells_the_same_story(audited, claim):
    r = audited[1][claim]
    assert r.verdict == "qualified", r.reason
    assert "log2 3 = 1.58496 printed as 1.58" in r.reason and "6.323466" in r.reason
    assert "= 3/1 + 3/1.585 + 2/2 + 1/2.322 = 6.32”" in r.response, r.response


@pytest.mark.parametrize("arithmetic, value, term, exact, fix", [
    ("A1", "A2", "2/3 = 0.66667 printed as 0.67", "0.833333", "“AP = (1 + 0.6667)/2 = 0.833”"),
    ("M1", "M2", "5/6 = 0.83333 printed as 0.83", "0.555556", "“MAP = (0.8333 + 0.50 + 0.3333)/3 = 0.556”"),
])
def test_means_of_printed_terms_get_one_story(audited, arithmetic, value, term, exact, fix):
    for claim in (arithmetic, value):
        r = audited[1][claim]
        assert r.verdict == "qualified", (claim, r.reason)
        assert term in r.reason and f"the exact value is {exact}" in r.reason, r.reason
        assert fix in r.response, r.response


@pytest.mark.parametrize("claim", ["R1", "R2", "N1", "N2"])
def test_a_printed_value_the_exact_terms_give_stays_supported(audited, claim):
    r = audited[1][claim]
    assert r.verdict == "supported", r.reason


def test_one_hunk_per_sentence_rechecks_every_claim_quoting_it(audited):
    """The finding's fix is the patch's: the terms printed to more places and the value they give, made once in the
    sentence, and each claim quoting it (the arithmetic as printed, the measure on its grades) re-run supported."""
    hunks = {h.claim: h for h in audited[0].research.proposal.hunks}
    assert set(hunks) == {"I1", "A1", "M1"}
    idcg = hunks["I1"]
    assert idcg.claims == ["I1", "I2", "I3"]
    assert "IDCG@5 = 3/1 + 3/1.585 + 2/2 + 1/2.322 = 6.32." in idcg.new
    assert "I1 supported, I2 supported, I3 supported" in idcg.check
    edits = {(e["claim"], e["field"]): e["value"] for e in idcg.register_edits}
    assert edits[("I1", "expression")] == edits[("I3", "expression")] == "3/1 + 3/1.585 + 2/2 + 1/2.322"
    assert edits[("I2", "expect.0.claimed")] == edits[("I1", "claimed")] == "6.32"
    assert "(1 + 0.6667)/2 = 0.833." in hunks["A1"].new and hunks["A1"].claims == ["A1", "A2"]


def test_the_patched_chapter_audits_clean(audited, tmp_path):
    """The author's loop on these sentences: the patch applied (snapshot and register), the second audit supports every
    claim and proposes nothing."""
    from audit.research.proposal import patched_text, register_text

    proposal = audited[0].research.proposal
    (tmp_path / "chapter.yaml").write_text(CHAPTER, encoding="utf-8")
    (tmp_path / "snapshot.md").write_text(patched_text(SNAPSHOT, proposal), encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(register_text(CLAIMS, proposal), encoding="utf-8")
    report = audit_chapter(load_chapter(tmp_path), all_references(), collect(["audit", "run"]))
    assert {c.id: c.verdict for c in report.claims} == {c.id: "supported" for c in report.claims}
    assert not report.research.proposal.hunks


@pytest.mark.parametrize("expression, claimed", [
    # a per-topic table's mean: the scores are data printed to two places, not roundings of fractions. Their mean
    # as printed is (0.46 + 0.31 + 0.58 + 0.22 + 0.51 + 0.44 + 0.27 + 0.69)/8 = 3.48/8 = 0.435, printed 0.435; reading
    # 0.46 as 6/13 or 0.27 as 3/11 would invent an "exact" mean the text never had
    ("(0.46 + 0.31 + 0.58 + 0.22 + 0.51 + 0.44 + 0.27 + 0.69)/8", "0.435"),
    # 0.29 (2/7) and 0.63 (5/8) have plain readings, 0.42 (5/12) none within the top ten: no story
    ("(0.42 + 0.29 + 0.63)/3", "0.447"),
])
def test_scores_printed_to_two_places_are_not_read_as_fractions_beyond_the_top_ten(expression, claimed):
    assert explain(expression, parse_claimed(claimed), claimed) is None
