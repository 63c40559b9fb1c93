"""A contradicted claim names the stated conventions that produced the computed number, found by experiment.

One chapter states three conventions of different kinds (unjudged documents removed, P@k over the
number returned, exponential gain). Each claim below is contradicted by the chapter's own
definitions; the reason must name exactly the stated conventions whose other values change the
number, quote the chapter's statement of each, and give the value under each other setting.
The findings come from the chapter's own definitions; the references are run because a stated
convention's other value is offered as a fix only when a reference returns the printed value on the
same input (a reader is seen to compute it): D2's printed value holds under min(k, |R|), which no
reference computes (trec_eval, ir-measures and ranx divide P@k by k), so it is named in the reason
and not offered.

Hand computations (RR = 1 / rank of the first relevant; P@k = relevant in the prefix / denominator;
"removed" drops unjudged documents before cutting, Sakai 2007):

* ``late``: ranking u1 … u10 (unjudged), n (judged 0), r (relevant) at rank 12.
  - RR: removed → condensed [n, r] → 1/2; non-relevant → 1/12.
  - P@12: removed + number returned → 1 relevant / 2 returned = 1/2; non-relevant + number returned
    → 1/12; removed + k → 1/12; removed + min(k, |R|) = min(12, 1) → 1/1 = 1.
* ``two-returned``: ranking a (relevant), b (judged 0); P@5: number returned → 1/2; k → 1/5;
  min(5, |R| = 1) → 1. Nothing is unjudged, so "removed" changes nothing. pytrec_eval's P_5,
  ir-measures' P@5 and ranx's precision@5 all give 1/5.
* ``graded``: grades 2, 3, 0 in ranked order (b, a, c), ideal 3, 2, 0 (every ideal DCG rule gives it);
  nDCG@3 with discount log2(rank + 1), log2 3 = 1.5849625:
  - linear:      DCG = 2 + 3/1.5849625 = 3.892789; ideal = 3 + 2/1.5849625 = 4.261860 → 0.913402
  - exponential: DCG = 3 + 7/1.5849625 = 7.416508; ideal = 7 + 3/1.5849625 = 8.892789 → 0.833991
* ``many-relevant``: five relevant documents, ranking a (relevant), x, y, z (judged 0); P@4: k → 1/4,
  number returned (4) → 1/4, min(4, 5) → 1/4; nothing unjudged: no stated convention changes it.
* comparison ``up-before`` (u1, u2 unjudged, r at rank 3) → ``up-after`` (n judged 0, r at rank 2), RR:
  removed → 1 → 1/2 (decreases); non-relevant → 1/3 → 1/2 (increases, as claimed).
"""

from __future__ import annotations

import textwrap

import pytest

from audit.evaluation.checks.stated_effect import stated_effects
from audit.evaluation.references import all_references
from audit.evaluation.readings import REJECTED
from audit.register.claims import load_chapter
from audit.measures.conventions import CONVENTIONS, Declared, Statement
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

UNJUDGED = "Unjudged documents are removed before the cutoff is applied."
DENOMINATOR = "Precision divides by the number of results the system returned."
GAIN = "Gain is exponential"

SNAPSHOT = f"""\
{UNJUDGED}
{DENOMINATOR}
{GAIN}: a document of grade g contributes 2^g - 1.
Ten unjudged pages come first and the answer is at rank 12, so RR = 1/12.
Ten unjudged pages come first and the answer is at rank 12, so P@12 = 1/12.
Ten unjudged pages come first and the answer is at rank 12; our slide said P@12 = 1/6.
Of the two results returned, one is relevant, so P@5 = 1/5.
Of the two results returned, one is relevant; the slide rounds P@5 up to 1.
Grades 2, 3, 0 in that order give nDCG@3 ≈ 0.913.
One relevant result in the first four gives P@4 = 1/3.
Moving the answer from rank 3 to rank 2 raises RR from 1/3 to 1/2.
"""

CHAPTER = f"""\
id: stated-effects
title: An FAQ that removes unjudged documents
conventions:
  unjudged: {{value: removed, quote: "{UNJUDGED}"}}
  precision_denominator: {{value: number returned, quote: "{DENOMINATOR}"}}
  gain: {{value: exponential, quote: "{GAIN}"}}
"""

CLAIMS = """\
fixtures:
  late:
    qrels: {q1: {r: 1, n: 0}}
    run: {q1: [u1, u2, u3, u4, u5, u6, u7, u8, u9, u10, n, r]}
  two-returned:
    qrels: {q1: {a: 1, b: 0}}
    run: {q1: [a, b]}
  graded:
    qrels: {q1: {a: 3, b: 2, c: 0}}
    run: {q1: [b, a, c]}
  many-relevant:
    qrels: {q1: {a: 1, b: 1, c: 1, d: 1, e: 1, x: 0, y: 0, z: 0}}
    run: {q1: [a, x, y, z]}
  up-before:
    qrels: {q1: {r: 1, n: 0}}
    run: {q1: [u1, u2, r]}
  up-after:
    qrels: {q1: {r: 1, n: 0}}
    run: {q1: [n, r]}
claims:
  - {id: U1, title: unjudged decides RR, kind: value, quote: "so RR = 1/12", claim: RR = 1/12, fixture: late,
     expect: [{measure: RR, claimed: "1/12"}]}
  - {id: U2, title: the reviewer's example, kind: value, quote: "so P@12 = 1/12", claim: P@12 = 1/12, fixture: late,
     expect: [{measure: "P@12", claimed: "1/12"}]}
  - {id: U3, title: neither alone, kind: value, quote: "our slide said P@12 = 1/6", claim: P@12 = 1/6, fixture: late,
     expect: [{measure: "P@12", claimed: "1/6"}]}
  - {id: D1, title: denominator decides P@5, kind: value, quote: "so P@5 = 1/5", claim: P@5 = 1/5,
     fixture: two-returned, expect: [{measure: "P@5", claimed: "1/5"}]}
  - {id: D2, title: a reading no reference computes, kind: value, quote: "rounds P@5 up to 1", claim: P@5 = 1,
     fixture: two-returned, expect: [{measure: "P@5", claimed: "1"}]}
  - {id: G1, title: gain decides nDCG, kind: value, quote: "give nDCG@3 ≈ 0.913", claim: nDCG@3 ≈ 0.913,
     fixture: graded, expect: [{measure: "nDCG@3", claimed: "≈ 0.913"}]}
  - {id: N1, title: no stated convention matters, kind: value, quote: "gives P@4 = 1/3", claim: P@4 = 1/3,
     fixture: many-relevant, expect: [{measure: "P@4", claimed: "1/3"}]}
  - {id: C1, title: unjudged decides a comparison, kind: comparison, quote: "raises RR from 1/3 to 1/2",
     claim: RR rises from 1/3 to 1/2, before: up-before, after: up-after,
     expect: [{measure: RR, change: increases, before: "1/3", after: "1/2"}]}
"""

ALL_THREE = "trec_eval via pytrec_eval, ir-measures and ranx"
UNJUDGED_SAID = f"The chapter's statement of how unjudged documents count (removed: “{UNJUDGED}”)"
DENOMINATOR_SAID = f"The chapter's statement of the P@k denominator (number returned: “{DENOMINATOR}”)"
GAIN_SAID = f"The chapter's statement of the nDCG gain (exponential: “{GAIN}”)"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stated-effects")
    (folder / "chapter.yaml").write_text(CHAPTER, encoding="utf-8")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "claims.yaml").write_text(textwrap.dedent(CLAIMS), encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect("test"))
    return {c.id: c for c in report.claims}


def _named(reason: str) -> set[str]:
    """The stated conventions a reason names."""
    return {name for name, said in (("unjudged", UNJUDGED_SAID), ("precision_denominator", DENOMINATOR_SAID),
                                    ("gain", GAIN_SAID)) if said in reason}


def test_unjudged_removed_alone_produces_the_rr(results):
    u1 = results["U1"]
    assert u1.verdict == "contradicted"
    assert u1.reason.startswith("By the chapter's definition RR on this fixture is 1/2")
    # removed → 1/2; non-relevant → 1/12, the printed value
    assert (f"{UNJUDGED_SAID} gives 1/2; with it set to “non-relevant” the definitions give 1/12 (the printed value)."
            in u1.reason)
    assert _named(u1.reason) == {"unjudged"}
    # the corrected sentence re-runs qualified (the references give 1/12 under their own rule, the chapter's stated
    # rule gives 1/2 under every reading it allows): the patch writes it, saying so
    assert u1.response.startswith("Change “1/12” to “1/2” (checked: the claim re-run on the corrected sentence is "
                                  "qualified; the new value holds under every reading the chapter allows)"), u1.response
    assert ("Or, if this example means that an unjudged document counts as non-relevant "
            f"— not what “{UNJUDGED}” states — say so here (checked: with “non-relevant” the printed 1/12 holds "
            f"under every reading; {ALL_THREE} give it here).") in u1.response


def test_the_reviewers_example_names_both_stated_conventions_that_give_the_printed_value(results):
    u2 = results["U2"]
    assert u2.verdict == "contradicted"
    # removed + number returned → 1/2; the P@k denominator k → 1/12, min(k, |R|) → 1; unjudged non-relevant → 1/12
    assert (f"{DENOMINATOR_SAID} gives 1/2; with it set to “k” the definitions give 1/12 (the printed value); "
            "with “min(k, |R|)”, 1.") in u2.reason
    assert (f"{UNJUDGED_SAID} gives 1/2; with it set to “non-relevant” the definitions give 1/12 (the printed value)."
            in u2.reason)
    assert _named(u2.reason) == {"unjudged", "precision_denominator"}
    assert "None of these" not in u2.reason
    assert "if this example means that P@k divides by k" in u2.response
    assert "if this example means that an unjudged document counts as non-relevant" in u2.response


def test_two_stated_conventions_change_the_number_and_neither_alone_gives_it(results):
    u3 = results["U3"]
    assert u3.verdict == "contradicted"
    # the same values as U2's, and none is 1/6
    assert f"{DENOMINATOR_SAID} gives 1/2; with it set to “k” the definitions give 1/12; with “min(k, |R|)”, 1." \
        in u3.reason
    assert f"{UNJUDGED_SAID} gives 1/2; with it set to “non-relevant” the definitions give 1/12." in u3.reason
    assert "None of these stated conventions changed alone gives the printed 1/6." in u3.reason
    assert "(the printed value)" not in u3.reason
    assert "Or, if" not in u3.response


def test_number_returned_alone_produces_the_p_at_5(results):
    d1 = results["D1"]
    assert d1.verdict == "contradicted"
    # number returned → 1/2; k → 1/5, the printed value; min(5, 1) → 1
    assert (f"{DENOMINATOR_SAID} gives 1/2; with it set to “k” the definitions give 1/5 (the printed value); "
            "with “min(k, |R|)”, 1.") in d1.reason
    assert _named(d1.reason) == {"precision_denominator"}  # nothing is unjudged: "removed" changes nothing
    assert "if this example means that P@k divides by k, even when fewer results are returned" in d1.response
    assert f"the printed 1/5 holds under every reading; {ALL_THREE} give it here" in d1.response


def test_a_reading_no_reference_computes_is_named_but_not_offered(results):
    d2 = results["D2"]
    assert d2.verdict == "contradicted"
    assert (f"{DENOMINATOR_SAID} gives 1/2; with it set to “k” the definitions give 1/5; with “min(k, |R|)”, 1 "
            "(the printed value).") in d2.reason
    assert d2.response.startswith("Change “1” to “1/2”")
    assert "Or, if" not in d2.response and "min(k" not in d2.response


def test_exponential_gain_alone_produces_the_ndcg(results):
    g1 = results["G1"]
    assert g1.verdict == "contradicted"
    chapter = next(v for v in g1.checks[0].values if v.implementation == "chapter")
    assert round(chapter.value, 6) == 0.833991  # exponential, stated
    assert _named(g1.reason) == {"gain"}
    said = g1.reason[g1.reason.index(GAIN_SAID):]
    assert "with it set to “linear” the definitions give 0.913402 (the printed value)" in said  # linear
    assert "if this example means that nDCG's gain is the grade (linear)" in g1.response


def test_stated_conventions_that_do_not_change_the_number_are_not_named(results):
    n1 = results["N1"]
    assert n1.verdict == "contradicted"
    assert n1.reason == "By the chapter's definition P@4 on this fixture is 1/4 (≈ 0.2500), outside the claimed 1/3."
    assert "statement of" not in n1.reason
    assert not any(CONVENTIONS[n].named() in n1.reason for n in CONVENTIONS)
    assert n1.response == ("Change “1/3” to “1/4” (checked: the claim re-run on the corrected "
                                   "sentence is supported; the new value holds under every reading the chapter allows).")


def test_a_comparison_names_the_stated_convention_behind_its_direction_and_its_printed_side(results):
    c1 = results["C1"]
    assert c1.verdict == "contradicted"
    # removed: 1 → 1/2 (decreases); non-relevant: 1/3 → 1/2 (increases, as claimed)
    assert (f"{UNJUDGED_SAID} gives “decreases”; with it set to “non-relevant” the definitions give “increases” "
            "(the claimed change).") in c1.reason
    assert f"{UNJUDGED_SAID} gives 1; with it set to “non-relevant” the definitions give 1/3 (the printed value)." \
        in c1.reason
    assert _named(c1.reason) == {"unjudged"}
    # the alternative is proposed once, checked against the whole expectation
    assert c1.response.count("if this example means that an unjudged document counts as non-relevant") == 1
    assert "the claimed “increases” (before 1/3, after 1/2) holds under every reading" in c1.response


def test_an_alternative_that_rejects_the_input_or_changes_nothing_is_not_kept():
    """A stand-in for the definitions: 'reject' rejects, 'keep last' gives 1/2, every other value 1/3."""
    def values_under(declared):
        value = declared.values("repeated_ids")[0]
        return [REJECTED if value == "reject" else "1/2" if value == "keep last" else "1/3"]

    stated = Declared({"repeated_ids": [Statement("keep first", "A repeated ID keeps its first copy.", "chapter")],
                       "ties": [Statement("listed order", "Ties keep the listed order.", "chapter")]})
    effects = stated_effects(values_under, stated, ["repeated_ids", "ties"], lambda v: v == "1/2")
    assert [(e.name, [(a.value, a.gives, a.holds) for a in e.alternatives]) for e in effects] == \
        [("repeated_ids", [("keep last", ("1/2",), True)])]
    assert effects[0].statement.quote == "A repeated ID keeps its first copy."
