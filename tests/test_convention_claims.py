"""Convention claims: the chapter's own rule under all its declared conventions, and sentences about what one
reference does (``by:``), checked against what that reference returns on the probe.

Right values, each computed by hand and with the libraries called directly (pytrec_eval 0.5 / trec_eval 9,
ir_measures 0.4, ranx 0.3):

* ``repeats``: ranking a, n, a with n relevant, read from a run file with scores 3, 2, 1. Under the chapter's
  declared rules (P@k over the number returned; a repeated ID keeps its first position) the prefix is a, n:
  P@3 = 1/2, RR = 1/2. Under keep first with P@k over k (the old rule table), P@3 = 1/3, which matched nothing.
  trec_eval rejects the file; ir_measures and ranx keep the last score of a (1), so the ranking is n, a:
  RR = 1 (keep last), P@3 = 1/3 under their k denominator.
* ``graded``: a (grade 1) then b (grade 2), c (grade 0); nDCG@3 with linear gain, log2 discount:
  every gain kept: (1 + 2/log2 3) / (2 + 1/log2 3) = 0.859719; grade 1 dropped at level 2: (2/log2 3) / 2 =
  0.630930. ``pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.3"}, relevance_level=2)`` gives 0.859719 (trec_eval's
  -l only changes binary measures); ranx ``ndcg@3-l2`` gives 0.630930.
* ``short``: one relevant document returned alone, two relevant: P@4 = 1/4 over k (ranx ``precision@4`` gives
  0.25), 1 over the number returned.
"""

from __future__ import annotations

import textwrap

import pytest

from audit.errors import RegisterError
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

DENOMINATOR = "Precision divides by the number of results returned when fewer than k come back."
KEEP_FIRST = "A document that appears twice keeps its first position."

SNAPSHOT = f"""\
{DENOMINATOR}
{KEEP_FIRST}
With trec_eval -l 2, grade-1 documents stop contributing any gain to ndcg.
ranx's ndcg-l2 drops the gain of grades below 2.
ranx divides P@k by k even when fewer than k documents come back.
trec_eval divides P@k by the number of documents returned.
Whether trec_eval keeps gains below the level does not show on binary judgements.
"""

CHAPTER = f"""\
id: convention-claims
title: Conventions stated, and what the libraries do
conventions:
  precision_denominator: {{value: number returned, quote: "{DENOMINATOR}"}}
  repeated_ids: {{value: keep first, quote: "{KEEP_FIRST}"}}
"""

CLAIMS = f"""\
fixtures:
  repeats:
    qrels: {{q1: {{n: 1, a: 0}}}}
    run: {{q1: [a, n, a]}}
  graded:
    qrels: {{q1: {{a: 1, b: 2, c: 0}}}}
    run: {{q1: [a, b, c]}}
  binary:
    qrels: {{q1: {{a: 1, b: 1, c: 0}}}}
    run: {{q1: [a, c, b]}}
  short:
    qrels: {{q1: {{a: 1, b: 1}}}}
    run: {{q1: [a]}}
claims:
  - id: K01
    title: A repeated ID keeps its first position
    kind: convention
    quote: "{KEEP_FIRST}"
    claim: The chapter keeps the first occurrence of a repeated ID.
    convention: repeated_ids
    rule: keep first
    probe: repeats
    measures: ["P@3", "RR"]
  - id: K02
    title: trec_eval -l 2 drops grade-1 gains from ndcg
    kind: convention
    quote: "With trec_eval -l 2, grade-1 documents stop contributing any gain to ndcg."
    claim: trec_eval at relevance level 2 gives grade-1 documents no gain in nDCG.
    convention: level_gain
    rule: dropped
    by: trec_eval
    probe: graded
    measures: ["nDCG(rel=2)@3"]
  - id: K03
    title: ranx's ndcg-l2 drops gains below the level
    kind: convention
    quote: "ranx's ndcg-l2 drops the gain of grades below 2."
    claim: ranx at relevance level 2 gives grade-1 documents no gain in nDCG.
    convention: level_gain
    rule: dropped
    by: ranx
    probe: graded
    measures: ["nDCG(rel=2)@3"]
  - id: K04
    title: ranx divides P@k by k
    kind: convention
    quote: "ranx divides P@k by k even when fewer than k documents come back."
    claim: ranx's P@k denominator is k.
    convention: precision_denominator
    rule: k
    by: ranx
    probe: short
    measures: ["P@4"]
  - id: K05
    title: trec_eval divides P@k by the number returned
    kind: convention
    quote: "trec_eval divides P@k by the number of documents returned."
    claim: trec_eval's P@k denominator is the number returned.
    convention: precision_denominator
    rule: number returned
    by: trec_eval
    probe: short
    measures: ["P@4"]
  - id: K06
    title: A probe on binary judgements cannot show the level's gain rule
    kind: convention
    quote: "Whether trec_eval keeps gains below the level does not show on binary judgements."
    claim: trec_eval keeps gains below the level.
    convention: level_gain
    rule: kept
    by: trec_eval
    probe: binary
    measures: ["nDCG@3"]
"""


def _write(folder, claims=CLAIMS):
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text(CHAPTER, encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = _write(tmp_path_factory.mktemp("convention-claims"))
    report = audit_chapter(load_chapter(folder), all_references(), collect("test"))
    return {r.id: r for r in report.claims}


def _row(result, implementation, measure=None):
    check = next(c for c in result.checks if measure is None or c.measure == measure)
    return next(v for v in check.values if v.implementation == implementation)


def test_keep_first_is_evaluated_under_the_chapters_declared_denominator(results):
    r = results["K01"]
    # Before, the rule table computed keep first over k (P@3 = 1/3) and called the chapter's 1/2 "no known rule".
    assert r.verdict == "qualified", r.reason
    assert _row(r, "chapter", "P@3").per_query == {"q1": "1/2"}
    assert _row(r, "chapter", "RR").behaviour == "keep first or count each"  # P@3 (1/2) rules count each out
    assert "ranx" in r.reason and "last occurrence" in r.reason
    assert _row(r, "ranx", "RR").behaviour == "keep last"
    assert _row(r, "pytrec_eval", "RR").status == "rejected"


def test_a_sentence_about_trec_eval_is_contradicted_by_what_trec_eval_returns(results):
    r = results["K02"]
    assert r.verdict == "contradicted", r.reason
    row = _row(r, "pytrec_eval")
    assert row.value == pytest.approx(0.859719, abs=1e-6) and row.behaviour == "kept"
    assert "0.8597" in r.reason and "0.63093" in r.reason  # what it returned, and what the stated rule gives


def test_a_sentence_about_ranx_is_supported_by_what_ranx_returns(results):
    r = results["K03"]
    assert r.verdict == "supported", r.reason
    assert _row(r, "ranx").value == pytest.approx(0.630930, abs=1e-6)
    # The other references follow another rule, and are shown without qualifying a sentence about ranx.
    assert _row(r, "pytrec_eval").behaviour == "kept"


def test_reference_denominators(results):
    assert results["K04"].verdict == "supported", results["K04"].reason
    assert _row(results["K04"], "ranx").value == pytest.approx(0.25)
    r = results["K05"]
    assert r.verdict == "contradicted", r.reason
    assert _row(r, "pytrec_eval").behaviour == "k"
    assert "divides by k" in r.response


def test_a_probe_that_cannot_show_the_rule_is_an_error_not_supported(results):
    r = results["K06"]
    assert r.verdict == "error"
    assert "cannot tell the stated rule (kept)" in r.reason


@pytest.mark.parametrize("edit, field, message", [
    ("    by: ml_metrics\n", "by", "not a reference of this audit"),
    ("    convention: tie_breaking\n", "convention", "not known"),
])
def test_register_refuses_what_it_cannot_probe(tmp_path, edit, field, message):
    claims = CLAIMS.replace("    by: ranx\n    probe: short\n", "    probe: short\n", 1)
    marker = "    convention: precision_denominator\n    rule: k\n"
    claims = claims.replace(marker, (marker + edit) if field == "by" else marker.replace(
        "    convention: precision_denominator\n", edit), 1)
    with pytest.raises(RegisterError) as info:
        load_chapter(_write(tmp_path, claims))
    assert info.value.claim == "K04" and message in info.value.message


def test_no_caveat_is_patched_after_a_false_sentence_about_a_library(tmp_path):
    """K05 says trec_eval divides P@k by the number returned; it divides by k. A caveat appended after the sentence
    (what the chapter-rule claims get) would leave the false sentence in place, so the proposal gives none."""
    folder = _write(tmp_path)
    report = audit_chapter(load_chapter(folder), all_references(), collect("test"))
    hunks = {h.claim for h in report.research.proposal.hunks}
    assert "K05" not in hunks and "K02" not in hunks
    reasons = {n["claim"]: n["reason"] for n in report.research.proposal.not_proposed}
    assert "the sentence must say that instead" in reasons["K05"]
