"""A blog prints the mean of two reciprocal ranks as "`1/2 + 1/3 == 0.4167`": the mean (1/2 + 1/3)/2 = 5/12 ≈ 0.4167
is right, the printed sum is 5/6 ≈ 0.8333. Where the sentence calls it a mean, the fix is the missing divisor; where
it does not, changing 0.4167 to 0.8333 would make the value claim on the same words false, so the joint re-check
withdraws the hunk, and the finding says so where the author reads it (What to change, the finding), never offering
the change as a checked fix (tests/test_patch_composition.py has the composition itself)."""

from __future__ import annotations

from chapters import audit_text

POST = """\
# MRR in two questions

Question one has its answer at rank 2, question two at rank 3.

The mean of these two reciprocal ranks is `1/2 + 1/3 == 0.4167`.
"""

REGISTER = """\
fixtures:
  two:
    qrels: {a: {x: 1}, b: {y: 1}}
    run: {a: [w, x], b: [u, v, y]}
claims:
  - id: C01
    title: The printed sum
    kind: arithmetic
    quote: "1/2 + 1/3 == 0.4167"
    claim: The expression as printed.
    expression: "1/2 + 1/3"
    claimed: "0.4167"
  - id: C02
    title: MRR of the two questions
    kind: value
    quote: "The mean of these two reciprocal ranks is `1/2 + 1/3 == 0.4167`."
    claim: MRR over the two questions.
    fixture: two
    expect:
      - {measure: RR, claimed: "0.4167"}
"""


SCORE = POST.replace("The mean of these two reciprocal ranks is", "Our score for the two questions is")


def test_a_withdrawn_change_is_not_offered_as_the_fix(tmp_path):
    """Without a word calling it a mean, the fix of the printed sum is its value, which the value claim on the same
    words (the questions' MRR) refuses: withdrawn, and said so."""
    import pytrec_eval
    rr = pytrec_eval.RelevanceEvaluator({"a": {"x": 1}, "b": {"y": 1}}, {"recip_rank"}).evaluate(
        {"a": {"w": 2.0, "x": 1.0}, "b": {"u": 3.0, "v": 2.0, "y": 1.0}})
    assert round((rr["a"]["recip_rank"] + rr["b"]["recip_rank"]) / 2, 4) == 0.4167
    folder = tmp_path / "mrr-post"
    folder.mkdir()
    register = REGISTER.replace("The mean of these two reciprocal ranks is", "Our score for the two questions is")
    report = audit_text(folder, SCORE, register, title="MRR post")
    by_id = {c.id: c for c in report.claims}
    assert (by_id["C01"].verdict, by_id["C02"].verdict) == ("contradicted", "supported")
    assert not report.research.proposal.hunks
    assert [w["claim"] for w in report.research.proposal.withdrawn] == ["C01"]
    assert "Not in the patch, which leaves this sentence to you:" in by_id["C01"].response
    assert "C02" in by_id["C01"].response.split("Not in the patch")[1]


def test_a_sum_the_sentence_calls_a_mean_gets_its_divisor(tmp_path):
    """With the arithmetic alone encoded, the fix is the missing divisor — "(1/2 + 1/3)/2 == 0.4167", 5/12 — never
    "1/2 + 1/3 == 0.8333", which would make "the mean … is" false; applied, the sentence holds and the rerun is
    supported."""
    from audit.research.proposal import patched_text
    folder = tmp_path / "mrr-sum"
    folder.mkdir()
    register = REGISTER.split("  - id: C02")[0]
    report = audit_text(folder, POST, register, title="MRR post")
    [finding] = report.claims
    assert finding.verdict == "contradicted"
    assert "Change “1/2 + 1/3” to “(1/2 + 1/3)/2”" in finding.response, finding.response
    [hunk] = report.research.proposal.hunks
    after = patched_text(POST, report.research.proposal)
    assert "The mean of these two reciprocal ranks is `(1/2 + 1/3)/2 == 0.4167`." in after
    again = tmp_path / "mrr-sum-after"
    again.mkdir()
    fixed = register.replace('"1/2 + 1/3 == 0.4167"', '"(1/2 + 1/3)/2 == 0.4167"').replace(
        'expression: "1/2 + 1/3"', 'expression: "(1/2 + 1/3)/2"')
    assert [c.verdict for c in audit_text(again, after, fixed, title="MRR post").claims] == ["supported"]
