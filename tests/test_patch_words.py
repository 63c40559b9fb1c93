"""A hunk never leaves words beside its new number that the number makes false, though no claim encodes them: the
conclusion drawn from a p the correction moves across α, an effect's size in words, "the same", a comparison in
words. The finding keeps the value; the author words the sentence.

Right values: t(24) = 1.62 gives a two-sided p of 0.1183 (scipy ``2 * t.sf(1.62, 24)``), not the printed .04, so
"significantly" no longer follows; Cohen's d of 0.88 is large (Cohen 1988: 0.2 small, 0.5 medium, 0.8 large).
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from audit.cli import main
from audit.research.sentence_words import at_stake


@pytest.mark.parametrize("before, after, changes, words", [
    ("Our reranker improves nDCG significantly, t(24) = 1.62, p = .04.",
     "Our reranker improves nDCG significantly, t(24) = 1.62, p = .12.", [(".04", ".12")], "“significantly”"),
    ("The pooled d is 0.31, a small effect.", "The pooled d is 0.88, a small effect.", [("0.31", "0.88")],
     "“small effect”"),
    ("Cut at ten, MRR would be the same 0.375 as before.", "Cut at ten, MRR would be the same 0.396 as before.",
     [("0.375", "0.396")], "“the same 0.396”"),
    ("The permutation test is more lenient here: p = 0.041.", "The permutation test is more lenient here: p = 0.19.",
     [("0.041", "0.19")], "“more lenient”"),
])
def test_words_the_new_number_makes_false_are_named(before, after, changes, words):
    assert words in at_stake(before, after, changes)


@pytest.mark.parametrize("before, after, changes", [
    ("Precision at five is 2/5.", "Precision at five is 3/5.", [("2/5", "3/5")]),
    ("The pooled d is 0.31, a small effect.", "The pooled d is 0.27, a small effect.", [("0.31", "0.27")]),
    # the conclusion turned with the p: nothing left at stake
    ("so the gain is significant (p = 0.041).", "so the gain is not significant (p = 0.19).",
     [("significant (p = 0.041", "not significant (p = 0.19")]),
])
def test_words_that_still_hold_are_left(before, after, changes):
    assert at_stake(before, after, changes) == ""


def test_a_p_corrected_across_alpha_in_a_sentence_that_says_significantly_gets_no_hunk(tmp_path, monkeypatch):
    from scipy import stats
    assert round(2 * stats.t.sf(1.62, 24), 4) == 0.1183
    (tmp_path / ".git").mkdir()
    (tmp_path / "results.md").write_text(
        "# Results\n\nOur reranker improves nDCG@10 significantly over BM25 on the 25 topics, t(24) = 1.62, p = .04.\n",
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["init", "results.md", "--id", "results"]) == 0
        main(["run", "--quiet", "--no-cache", "claims/results"])
    report = json.loads((tmp_path / "reports" / "results.json").read_text(encoding="utf-8"))
    (claim,) = [c for c in report["claims"] if c["kind"] == "statistic"]
    assert claim["verdict"] == "contradicted" and "0.118" in claim["reason"]
    assert not (tmp_path / "reports" / "results.patch").exists()
    withdrawn = json.dumps(report["research"]["proposal"], ensure_ascii=False)
    assert "still says “significantly”" in withdrawn


def test_a_conclusion_the_corrected_p_makes_true_is_not_at_stake():
    """"p = .017, so this difference is not significant": the printed p contradicts the words, the corrected .17
    (2 * t.sf(1.40, 28) = 0.1725) agrees with them, so the hunk stands."""
    assert at_stake("t(28) = 1.40, p = .017, so this difference is not significant",
                    "t(28) = 1.40, p = .17, so this difference is not significant", [(".017", ".17")]) == ""


def test_the_same_test_is_no_claim_of_sameness():
    """"the same test gave t = 1.19, p = 0.0248, so … significantly better": "the same" names the test, not the
    number; the conclusion is turned with the p (0.248 ≥ 0.05), so nothing is left at stake."""
    assert at_stake("In the first draft the same test gave t = 1.19, p = 0.0248, so the reranker was significantly "
                    "better.", "In the first draft the same test gave t = 1.19, p = 0.25, so the reranker was not "
                    "significantly better.", [("0.0248", "0.25"), ("significantly", "not significantly")]) == ""


def test_fail_to_reject_beside_a_p_moved_below_alpha_is_at_stake():
    # "we fail to reject" at p = .07 is right; the corrected p = .007 makes it false. The reader once took the
    # "reject" inside "fail to reject" for an unnegated decision and let the hunk stand.
    said = at_stake("t(28) = 1.90, p = .07, so we fail to reject the null hypothesis",
                    "t(28) = 1.90, p = .007, so we fail to reject the null hypothesis", [(".07", ".007")])
    assert "“fail to reject”" in said


def test_a_claim_text_printing_its_siblings_numbers_follows_every_change(tmp_path):
    """Three claims quote one sentence; the nDCG claim's text repeats the whole sentence. The patch changes IDCG and
    nDCG (grades 3, 2, 0 with the grade as gain: DCG@3 = IDCG@3 = 3 + 2/log2 3 = 4.2619, nDCG@3 = 1, as
    pytrec_eval's ndcg_cut_3 gives): every claim's text follows both changes, not only its own (a register once kept
    "IDCG@3 = 4.50" in the nDCG claim's text beside the new nDCG)."""
    import pytrec_eval
    from chapters import audit_text

    got = pytrec_eval.RelevanceEvaluator({"q": {"a": 3, "b": 2, "c": 0}}, {"ndcg_cut_3"}).evaluate(
        {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})["q"]["ndcg_cut_3"]
    assert got == 1.0
    text = "# nDCG\n\nWith the grade as gain, IDCG@3 = 4.50, DCG@3 = 4.26 and nDCG@3 = 0.95 for the three results.\n"
    claims = """\
fixtures:
  g: {qrels: {q1: {a: 3, b: 2, c: 0}}, run: {q1: [a, b, c]}}
claims:
  - {id: V1, title: IDCG, kind: value, quote: "IDCG@3 = 4.50", claim: IDCG@3 is 4.50, fixture: g,
     expect: [{measure: "IDCG@3", claimed: "4.50"}]}
  - {id: V2, title: DCG, kind: value, quote: "DCG@3 = 4.26", claim: DCG@3 is 4.26, fixture: g,
     expect: [{measure: "DCG@3", claimed: "4.26"}]}
  - {id: V3, title: nDCG, kind: value, quote: "nDCG@3 = 0.95", fixture: g,
     claim: "IDCG@3 = 4.50, DCG@3 = 4.26 and nDCG@3 = 0.95 for the three results",
     expect: [{measure: "nDCG@3", claimed: "0.95"}]}
"""
    report = audit_text(tmp_path, text, claims, title="nDCG")
    edits = {(e["claim"], e["field"]): e["value"] for h in report.research.proposal.hunks for e in h.register_edits}
    assert edits[("V3", "claim")] == "IDCG@3 = 4.26, DCG@3 = 4.26 and nDCG@3 = 1.00 for the three results"
