"""Statistic claims: a significance test the text reports on paired per-query values, recomputed exactly and by
scipy. Right values by hand (exact enumeration, the t formula) and scipy.stats called directly."""

from __future__ import annotations

import pytest

from audit.errors import RegisterError
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

DIFFS = '["0.10", "0.20", "-0.05", "0.15", "0.10"]'
SNAPSHOT = """\
The per-query AP differences of the new system over the baseline are 0.10, 0.20, −0.05, 0.15 and 0.10.
A two-sided paired t-test on these five differences gives p ≈ 0.04, so the improvement is significant at the 5 % level.
A one-sided sign test on the same differences gives p = 0.1875.
A paired t-test on them gives p ≈ 0.038.
The exact permutation test gives p = 0.125.
On the differences 0.1, 0.2, −0.05, 0.15 and 0.3 the Wilcoxon signed-rank test gives W = 1 and p = 0.125.
"""
CLAIMS = f"""\
claims:
  - {{id: S1, title: t-test, kind: statistic, quote: "A two-sided paired t-test on these five differences gives p ≈ 0.04, so the improvement is significant at the 5 % level.",
     claim: two-sided paired t, test: paired t, sided: two, data: {{differences: {DIFFS}}},
     expect: [{{statistic: p, claimed: "≈ 0.04"}}], decision: significant}}
  - {{id: S2, title: sign test, kind: statistic, quote: "A one-sided sign test on the same differences gives p = 0.1875.",
     claim: one-sided sign test, test: sign, sided: greater, data: {{differences: {DIFFS}}},
     expect: [{{statistic: p, claimed: "0.1875"}}]}}
  - {{id: S3, title: sidedness unstated, kind: statistic, quote: "A paired t-test on them gives p ≈ 0.038.",
     claim: paired t, test: paired t, data: {{differences: {DIFFS}}}, expect: [{{statistic: p, claimed: "≈ 0.038"}}]}}
  - {{id: S4, title: permutation, kind: statistic, quote: "The exact permutation test gives p = 0.125.",
     claim: exact sign-flip permutation, test: permutation, sided: two, data: {{differences: {DIFFS}}},
     expect: [{{statistic: p, claimed: "0.125"}}]}}
  - {{id: S5, title: wilcoxon, kind: statistic, quote: "the Wilcoxon signed-rank test gives W = 1 and p = 0.125",
     claim: exact Wilcoxon, test: wilcoxon, sided: two, data: {{differences: ["0.1", "0.2", "-0.05", "0.15", "0.3"]}},
     expect: [{{statistic: W, claimed: "1"}}, {{statistic: p, claimed: "0.125"}}]}}
"""


def _audited(folder, chapter_id: str, snapshot: str, claims: str) -> dict:
    """The chapter written to ``folder`` and audited (no reference: scipy is the statistics' reference), by claim id."""
    (folder / "snapshot.txt").write_text(snapshot, encoding="utf-8")
    (folder / "chapter.yaml").write_text(f"id: {chapter_id}\ntitle: {chapter_id.title()}\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return {c.id: c for c in audit_chapter(load_chapter(folder), [], collect("test")).claims}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return _audited(tmp_path_factory.mktemp("stats"), "stats", SNAPSHOT, CLAIMS)


def test_the_t_test_sentence_is_a_decision_error_with_the_right_p(results):
    """mean 0.1, s² = 0.035/4 = 0.00875, t = 0.1/(√0.00875/√5) = 2.390 on 4 df; two-sided p = 0.0751 (scipy's
    ttest_rel / ttest_1samp): not significant at 5 %, so the sentence's decision is wrong, and that leads."""
    s1 = results["S1"]
    assert s1.verdict == "contradicted"
    assert s1.reason.startswith("Decision error: the text says “significant” at α = 0.05, but p = 0.0751305 "
                                "(two-sided)"), s1.reason
    assert "The p-value of the paired t-test on 5 paired differences: two-sided: 0.0751305" in s1.reason
    # the proposal's checked hunk: the p to two significant digits and the conclusion turned, re-run before printing
    assert s1.response.startswith("Change “0.04” to “0.075”; “significant” to “not significant” (checked: the claim "
                                  "re-run on the corrected sentence is supported"), s1.response
    scipy = [v for c in s1.checks for v in c.values if v.implementation == "scipy"]
    assert scipy and abs(scipy[0].value - 0.0751305) < 1e-6


def test_the_sign_test_is_exact(results):
    """Four of the five differences are positive: P(X ≥ 4) for Binomial(5, 1/2) = (5 + 1)/32 = 3/16 = 0.1875
    (scipy binomtest(4, 5, alternative='greater'))."""
    s2 = results["S2"]
    assert s2.verdict == "supported", s2.reason
    assert "3/16 (≈ 0.1875)" in s2.reason


def test_a_p_value_that_holds_only_one_sided_is_qualified_when_the_text_does_not_say(results):
    """The one-sided p is 0.0751305/2 = 0.0375653, which the printed ≈ 0.038 is; the two-sided 0.0751 is not."""
    s3 = results["S3"]
    assert s3.verdict == "qualified", s3.reason
    assert "holds only for a one-sided (a > b) test" in s3.reason
    assert s3.response.startswith("Say that the test is one-sided (a > b)")


def test_the_permutation_test_enumerates_every_sign_flip(results):
    """The sum of the differences is 0.5; over the 32 sign flips only 0.5 itself and 0.6 (−0.05 flipped) reach 0.5,
    and by symmetry two reach −0.5: two-sided p = 4/32 = 1/8 (scipy permutation_test, every flip)."""
    s4 = results["S4"]
    assert s4.verdict == "supported", s4.reason
    assert "1/8 (≈ 0.1250)" in s4.reason


def test_the_wilcoxon_test_is_exact_without_ties(results):
    """|d| ranks 0.05 → 1, 0.1 → 2, 0.15 → 3, 0.2 → 4, 0.3 → 5; W⁺ = 14, W⁻ = 1, so W = min = 1; P(W⁺ ≥ 14) = 2/32
    (the whole set, 15, and all but rank 1, 14), two-sided p = 4/32 = 0.125 (scipy wilcoxon, exact)."""
    s5 = results["S5"]
    assert s5.verdict == "supported", s5.reason


@pytest.mark.parametrize("extra, field, says", [
    ("test: paired t, data: {differences: [\"0.1\"]}, expect: [{statistic: p, claimed: \"0.5\"}]", "data",
     "at least two queries"),
    ("test: paired t, data: {differences: [\"0.1\", \"0.2\"]}, expect: [{statistic: adjusted p, claimed: \"0.5\"}]",
     "expect[0].statistic", "give comparisons: 2 or more"),
    ("test: holm, data: {differences: [\"0.1\", \"0.2\"]}, significant: [A]", "data",
     "give data.p_values"),
    ("test: holm, data: {p_values: {A: \"0.01\", B: \"0.2\"}}, significant: [C]", "significant",
     "'C' is not a comparison"),
    ("test: bootstrap, data: {differences: [\"0.1\", \"0.2\"]}, expect: [{statistic: interval, claimed: \"0.1\"}]",
     "expect[0].claimed", "as an interval"),
    ("test: sign, data: {differences: [\"0.1\", \"0.2\"]}, expect: [{statistic: W, claimed: \"1\"}]",
     "expect[0].statistic", "not W"),
    ("test: paired t, data: {differences: [\"0.1\", \"≈ 0.2\"]}, expect: [{statistic: p, claimed: \"0.5\"}]",
     "data.differences[1]", "is not one number"),
    ("test: paired t, data: {differences: [\"0.1\", \"0.2\"]}", "expect", "give a printed statistic"),
])
def test_a_statistic_claim_that_cannot_be_checked_stops_the_load(tmp_path, extra, field, says):
    (tmp_path / "snapshot.txt").write_text("A test gives p = 0.5.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: bad\ntitle: Bad\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        "claims:\n  - {id: B1, title: bad, kind: statistic, quote: \"A test gives p = 0.5.\", claim: x, " + extra + "}\n",
        encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(tmp_path)
    assert caught.value.field == field and says in caught.value.message, (caught.value.field, caught.value.message)


REPORTED = """\
In the paper, a two-sided test gives t(4) = 2.39, p = .04.
The same report without saying the side: t(4) = 2.39, p = .04 again.
Another gives t(28) = 2.20, p = .036.
A third gives t(5) = 2.6, p = .046.
"""
REPORTED_CLAIMS = """\
claims:
  - {id: R1, title: two-sided, kind: statistic, quote: "a two-sided test gives t(4) = 2.39, p = .04", claim: x,
     test: paired t, sided: two, reported: {t: "2.39", df: 4, p: ".04"}}
  - {id: R2, title: side unstated, kind: statistic, quote: "t(4) = 2.39, p = .04 again", claim: x,
     test: paired t, reported: {t: "2.39", df: 4, p: ".04"}}
  - {id: R3, title: consistent, kind: statistic, quote: "t(28) = 2.20, p = .036", claim: x, test: paired t,
     sided: two, reported: {t: "2.20", df: 28, p: ".036"}}
  - {id: R4, title: by rounding, kind: statistic, quote: "t(5) = 2.6, p = .046", claim: x, test: paired t, sided: two,
     reported: {t: "2.6", df: 5, p: ".046"}}
"""


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    return _audited(tmp_path_factory.mktemp("reported"), "reported", REPORTED, REPORTED_CLAIMS)


def test_a_reported_t_test_is_checked_for_consistency_as_statcheck_does(reported):
    """scipy.stats.t: 2·sf(2.39, 4) = 0.0752 (two-sided), sf(2.39, 4) = 0.0376 (one-sided); 2·sf(2.20, 28) = 0.0362;
    2·sf(2.6, 5) = 0.0482, and t from 2.55 to 2.65 gives 0.0513 down to 0.0454."""
    r1, r2, r3, r4 = (reported[i] for i in ("R1", "R2", "R3", "R4"))
    # two-sided, stated: inconsistent, and the printed .04 says significant where 0.075 does not: a decision error
    assert r1.verdict == "contradicted" and r1.reason.startswith("Decision error: the p-value of t(4) = 2.39"), r1.reason
    # the p to two significant digits, written as the text writes its p, and the conclusion it changes
    assert r1.response.startswith("Change “.04” to “.075”"), r1.response
    assert "The difference is then not significant at the 5 % level" in r1.response
    # the side unstated: .04 is the one-sided p, so it holds only one-sided
    assert r2.verdict == "qualified" and "holds only for a one-sided (a > b) test" in r2.reason, r2.reason
    assert r3.verdict == "supported", r3.reason
    # consistent only because t is rounded
    assert r4.verdict == "qualified" and "only because the printed t is rounded" in r4.reason, r4.reason


def test_init_drafts_a_reported_t_test_as_a_runnable_statistic_claim(tmp_path, capsys):
    """“a two-sided paired t-test gives t(4) = 2.39, p = .04” states t, df, p and the side: init writes the claim
    whole, and the audit finds the decision error (two-sided p = 0.0752, scipy.stats.t); “t(28) = 2.20, p = .036”
    is consistent (0.0362)."""
    import json

    from audit.cli import main
    snapshot = tmp_path / "results.md"
    snapshot.write_text("# Results\n\nThe new system beats the baseline: a two-sided paired t-test gives t(4) = 2.39, "
                        "p = .04, so it is significant.\n\nOn the larger set, t(28) = 2.20, p = .036.\n", encoding="utf-8")
    assert main(["init", str(snapshot), "--id", "results", "--claims-dir", str(tmp_path / "claims")]) == 0
    assert "2 statistic" in capsys.readouterr().out
    assert main(["run", str(tmp_path / "claims" / "results"), "--reports", str(tmp_path / "out"), "--quiet"]) in (0, 1)
    report = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    verdicts = {c["quote"]: c["verdict"] for c in report["claims"]}
    assert verdicts == {"t(4) = 2.39, p = .04": "contradicted", "t(28) = 2.20, p = .036": "supported"}


MORE = """\
A 95 % percentile bootstrap interval for the mean of the five differences 0.10, 0.20, −0.05, 0.15 and 0.10 is [0.02, 0.16], so the gain is significant.
Another printing of that bootstrap interval is [0.01, 0.09].
Over seven topics the differences 0.10, 0.20, −0.05, 0.15, 0.10, 0.12 and 0.08 give a two-sided paired t-test p of 0.014, significant at 5 % (one of four systems compared with the baseline).
With a Bonferroni correction for the four comparisons the same seven differences stay significant.
Against three baselines (p = 0.012, 0.030 and 0.041), Holm's correction leaves B and C significant.
Bonferroni's adjusted p for C is 0.09.
On the four topics, the AP of run A beats run B with a two-sided paired t-test p of 0.035.
The exact randomization test over the twenty topics gives p < 0.001.
Without saying the side, a paired t-test on the five differences gives p ≈ 0.075, not significant at 5 %.
"""
SEVEN = '["0.10", "0.20", "-0.05", "0.15", "0.10", "0.12", "0.08"]'
TWENTY_A = [0.42, 0.35, 0.61, 0.28, 0.50, 0.47, 0.39, 0.55, 0.31, 0.44, 0.58, 0.26, 0.49, 0.37, 0.52, 0.41, 0.33, 0.60,
            0.45, 0.38]
TWENTY_B = [0.40, 0.30, 0.55, 0.29, 0.43, 0.45, 0.33, 0.50, 0.32, 0.38, 0.52, 0.25, 0.47, 0.30, 0.49, 0.42, 0.30, 0.55,
            0.44, 0.33]
MORE_CLAIMS = f"""\
fixtures:
  run-a:
    qrels: {{q1: {{r1: 1, r2: 1, n1: 0, n2: 0}}, q2: {{r1: 1, n1: 0, n2: 0}}, q3: {{r1: 1, r2: 1, n1: 0}}, q4: {{r1: 1, n1: 0, n2: 0}}}}
    run: {{q1: [r1, n1, r2, n2], q2: [r1, n1, n2], q3: [r1, r2, n1], q4: [n1, r1, n2]}}
  run-b:
    qrels: {{q1: {{r1: 1, r2: 1, n1: 0, n2: 0}}, q2: {{r1: 1, n1: 0, n2: 0}}, q3: {{r1: 1, r2: 1, n1: 0}}, q4: {{r1: 1, n1: 0, n2: 0}}}}
    run: {{q1: [n1, r1, n2, r2], q2: [n1, r1, n2], q3: [r1, n1, r2], q4: [n1, n2, r1]}}
claims:
  - {{id: B1, title: bootstrap, kind: statistic, quote: "is [0.02, 0.16], so the gain is significant", claim: x,
     test: bootstrap, data: {{differences: {DIFFS}}}, expect: [{{statistic: interval, claimed: "[0.02, 0.16]"}}],
     decision: significant}}
  - {{id: B2, title: wrong bootstrap, kind: statistic, quote: "Another printing of that bootstrap interval is [0.01, 0.09].",
     claim: x, test: bootstrap, data: {{differences: {DIFFS}}}, expect: [{{statistic: interval, claimed: "[0.01, 0.09]"}}]}}
  - {{id: M1, title: four systems, kind: statistic, quote: "give a two-sided paired t-test p of 0.014, significant at 5 %",
     claim: x, test: paired t, sided: two, comparisons: 4, data: {{differences: {SEVEN}}},
     expect: [{{statistic: p, claimed: "0.014"}}], decision: significant}}
  - {{id: M2, title: corrected, kind: statistic, quote: "With a Bonferroni correction for the four comparisons the same seven differences stay significant.",
     claim: x, test: paired t, sided: two, comparisons: 4, correction: bonferroni, data: {{differences: {SEVEN}}},
     decision: significant}}
  - {{id: H1, title: holm, kind: statistic, quote: "Holm's correction leaves B and C significant", claim: x, test: holm,
     data: {{p_values: {{B: "0.012", C: "0.030", D: "0.041"}}}}, significant: [B, C]}}
  - {{id: H2, title: bonferroni, kind: statistic, quote: "Bonferroni's adjusted p for C is 0.09.", claim: x,
     test: bonferroni, data: {{p_values: {{B: "0.012", C: "0.030", D: "0.041"}}}},
     expect: [{{statistic: adjusted p, comparison: C, claimed: "0.09"}}]}}
  - {{id: F1, title: from runs, kind: statistic, quote: "the AP of run A beats run B with a two-sided paired t-test p of 0.035",
     claim: x, test: paired t, sided: two, data: {{measure: AP, a: run-a, b: run-b}},
     expect: [{{statistic: p, claimed: "0.035"}}]}}
  - {{id: P1, title: twenty topics, kind: statistic, quote: "The exact randomization test over the twenty topics gives p < 0.001.",
     claim: x, test: permutation, sided: two, data: {{a: {[str(x) for x in TWENTY_A]}, b: {[str(x) for x in TWENTY_B]}}},
     expect: [{{statistic: p, claimed: "< 0.001"}}]}}
  - {{id: D1, title: side unstated, kind: statistic, quote: "Without saying the side, a paired t-test on the five differences gives p ≈ 0.075, not significant at 5 %.",
     claim: x, test: paired t, data: {{differences: {DIFFS}}}, expect: [{{statistic: p, claimed: "≈ 0.075"}}],
     decision: not significant}}
"""


@pytest.fixture(scope="module")
def more(tmp_path_factory):
    return _audited(tmp_path_factory.mktemp("more"), "more", MORE, MORE_CLAIMS)


def test_a_bootstrap_interval_is_checked_against_the_exact_bootstrap_distribution(more):
    """The ideal bootstrap of 0.10, 0.20, −0.05, 0.15, 0.10 (all 5^5 resamples) has its 2.5 % and 97.5 % quantiles at
    0.02 and 0.16; scipy.stats.bootstrap (percentile, 9,999 resamples, seed 0) gives [0.0200, 0.1600]. The interval
    excludes 0, so “significant” holds; [0.01, 0.09] is contradicted and corrected to the computed interval."""
    assert more["B1"].verdict == "supported", more["B1"].reason
    b2 = more["B2"]
    assert b2.verdict == "contradicted", b2.reason
    assert b2.response.startswith("Change “[0.01, 0.09]” to “[0.02, 0.16]”"), b2.response


def test_a_decision_among_several_comparisons_is_read_with_and_without_a_correction(more):
    """scipy.stats.ttest_1samp on the seven differences: two-sided p = 0.014054; Bonferroni for four comparisons
    gives 4 × 0.014054 = 0.056216 ≥ 0.05. Unstated correction → qualified, naming the reading and its source; a
    stated Bonferroni correction → a decision error."""
    m1 = more["M1"]
    assert m1.verdict == "qualified", m1.reason
    assert "Fuhr (2017)" in m1.reason and "0.0562" in m1.reason, m1.reason
    m2 = more["M2"]
    assert m2.verdict == "contradicted" and m2.reason.startswith("Decision error"), m2.reason
    assert "0.0562" in m2.reason, m2.reason


def test_holm_and_bonferroni_corrections_of_printed_p_values(more):
    """Holm (1979) on 0.012, 0.030, 0.041: 3 × 0.012 = 0.036, max(0.036, 2 × 0.030) = 0.060, max(0.060, 0.041) =
    0.060 — only B stays below 0.05, so “B and C” is a decision error; Bonferroni for C: 3 × 0.030 = 0.09."""
    h1 = more["H1"]
    assert h1.verdict == "contradicted" and "C does not stay significant" in h1.reason, h1.reason
    assert h1.response.startswith("Say that B stays significant"), h1.response
    assert more["H2"].verdict == "supported", more["H2"].reason


def test_per_query_values_from_two_runs(more):
    """AP per query, by hand and by pytrec_eval (map): run A 5/6, 1, 1, 1/2; run B 1/2, 1/2, 5/6, 1/3; differences
    1/3, 1/2, 1/6, 1/6; scipy.stats.ttest_rel: t = 3.6556, two-sided p = 0.035353."""
    f1 = more["F1"]
    assert f1.verdict == "supported", f1.reason
    chapter_row = f1.checks[0].values[0]
    assert abs(chapter_row.value - 0.0353528470025) < 1e-9


def test_a_two_sided_value_is_the_default_reading_when_the_side_is_unstated(more):
    """scipy.stats.ttest_1samp on 0.10, 0.20, −0.05, 0.15, 0.10: two-sided p = 0.075130, one-sided 0.037565. The
    text does not say the side; the two-sided test is the default (scipy's, ranx's, statcheck's), so the printed
    two-sided p and its conclusion are supported, the one-sided value named (S3, printing the one-sided p, is
    qualified)."""
    d1 = more["D1"]
    assert d1.verdict == "supported", d1.reason
    assert "the two-sided test is the default; one-sided it is 0.0375652" in d1.reason, d1.reason


def test_a_randomization_test_over_twenty_topics_is_exact(more):
    """scipy.stats.permutation_test over all 2^20 sign flips of the twenty differences: p = 8.7738e-05 (92/2^20 …
    as scipy enumerates it) < 0.001."""
    p1 = more["P1"]
    assert p1.verdict == "supported", p1.reason
    row = p1.checks[0].values[0]
    assert abs(row.value - 8.7738037109375e-05) < 1e-15, row


# -- every statistic against scipy, ranx and brute force on random data (property tests) -----------------------------

from fractions import Fraction  # noqa: E402
import itertools  # noqa: E402

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from audit.evaluation import significance  # noqa: E402
from audit.evaluation.references import scipy_stats  # noqa: E402

#: Per-query differences as a text prints them: two decimals, between −0.5 and 0.5.
PRINTED = st.lists(st.integers(-50, 50).map(lambda i: Fraction(i, 100)), min_size=3, max_size=9)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(d=PRINTED, side=st.sampled_from(["two", "greater", "less"]),
       test=st.sampled_from(["paired t", "sign", "permutation", "wilcoxon"]))
def test_each_statistic_agrees_with_scipy(d, side, test):
    """The exact side and scipy.stats (ttest_1samp, binomtest, permutation_test over all sign flips, wilcoxon exact)
    agree to 1e-9 wherever both compute a value; where one does not, the other says why (a reason string)."""
    ours = significance.values(test, d, side)
    theirs = scipy_stats.values(test, [float(x) for x in d], side)
    for name in ("p", "t", "positives", "W", "mean difference", "d"):
        mine, other = ours.get(name), theirs.get(name)
        if mine is None or isinstance(mine, str) or other is None or isinstance(other, str):
            continue
        if name == "p" and test == "permutation" and float(ours["mean difference"]) == 0:
            continue  # scipy compares the float sums, whose rounding can put a tied flip on either side of 0
        import math
        if isinstance(other, float) and math.isnan(other):
            continue
        assert abs(float(mine) - other) <= 1e-9 * max(1.0, abs(other)), (test, side, name, d, mine, other)


def _brute_flips(d, side):
    total = sum(d)
    flips = [sum(s * x for s, x in zip(signs, d)) for signs in itertools.product((1, -1), repeat=len(d))]
    hits = {"two": sum(1 for f in flips if abs(f) >= abs(total)), "greater": sum(1 for f in flips if f >= total),
            "less": sum(1 for f in flips if f <= total)}[side]
    return Fraction(hits, len(flips))


@settings(max_examples=60, deadline=None)
@given(d=PRINTED, side=st.sampled_from(["two", "greater", "less"]))
def test_the_randomization_test_counts_every_sign_flip(d, side):
    """The dynamic programme over scaled sums gives exactly the fraction of the 2^n sign flips, enumerated one by one
    in exact arithmetic, whose sum is at least as extreme as the observed one."""
    assert significance.values("permutation", d, side)["p"] == _brute_flips(d, side)


@settings(max_examples=40, deadline=None)
@given(d=st.lists(st.integers(-30, 30).map(lambda i: Fraction(i, 100)), min_size=2, max_size=6),
       level=st.sampled_from([Fraction(90, 100), Fraction(95, 100), Fraction(99, 100)]))
def test_the_bootstrap_interval_is_the_quantile_of_every_resample(d, level):
    """The ideal bootstrap's endpoints are quantiles of the means of all n^n resamples, enumerated one by one: the
    lower end's span runs from the least mean with F ≥ (1 − c)/2 to the least with F > (1 − c)/2 (and the same for
    the upper end at (1 + c)/2)."""
    n = len(d)
    means = sorted(sum(pick, Fraction(0)) / n for pick in itertools.product(d, repeat=n))
    total = len(means)

    def span(q):
        lower = next(m for i, m in enumerate(means) if Fraction(i + 1, total) >= q)
        upper = next(m for i, m in enumerate(means) if Fraction(i + 1, total) > q)
        return lower, upper

    got = significance.bootstrap(d, level)
    assert (got.low.lo, got.low.hi) == span((1 - level) / 2)
    assert (got.high.lo, got.high.hi) == span((1 + level) / 2)


def test_ranx_agrees_within_its_monte_carlo_error():
    """ranx.statistical_tests, called as ranx.compare calls them: its paired t-test is scipy's ttest_rel (equal to
    1e-12); its Fisher randomization test, 1,000 random permutations under seed 42 (its value changes from call to
    call all the same), lies within 4 standard errors of the range from the p counting no tied permutation to the
    exact p counting them all (it compares float means with ≥, so a tie counts or not by rounding: on 0.11, 0.49,
    0.32, 0.13 it has given 0 where the exact p is 2/16, and ≈ 0.125 in other processes), on each of 30 random data
    sets (seed 7)."""
    import random

    from audit.evaluation.references.ranx_ref import RanxReference
    ref = RanxReference()
    rng = random.Random(7)
    for _ in range(30):
        d = [Fraction(rng.randint(-40, 50), 100) for _ in range(rng.randint(4, 15))]
        if len(set(d)) == 1:
            continue
        a = [float(x) for x in d]
        exact_t = float(significance.values("paired t", d, "two")["p"])
        assert abs(ref.significance("paired t", a, [0.0] * len(a))["p"] - exact_t) <= 1e-12
        exact = float(significance.values("permutation", d, "two")["p"])
        strict = float(significance.strictly_more_extreme(d, "two"))
        got = ref.significance("permutation", a, [0.0] * len(a))["p"]

        def se(p):
            return (max(p * (1 - p), 1e-3) / 1000) ** 0.5
        assert strict - significance.SPREAD * se(strict) <= got <= exact + significance.SPREAD * se(exact), \
            (d, got, strict, exact)
    tie = [Fraction(11, 100), Fraction(49, 100), Fraction(8, 25), Fraction(13, 100)]
    assert significance.values("permutation", tie, "two")["p"] == Fraction(2, 16)
    assert significance.strictly_more_extreme(tie, "two") == 0
    got = ref.significance("permutation", [float(x) for x in tie], [0.0] * 4)["p"]
    assert 0.0 <= got <= 2 / 16 + significance.SPREAD * ((2 / 16 * 14 / 16) / 1000) ** 0.5  # 0 in some runs, ≈ 0.125 in others


def test_the_proposal_corrects_statistics_and_the_patched_chapter_is_clean(tmp_path):
    """The author's loop on statistic claims: each contradicted p-value, interval and conclusion gets a hunk re-checked
    before it is printed; applying the patch and the register edits and auditing again leaves them all supported.
    Right values: the paired t-test's two-sided p on the five differences is 0.075130 (scipy.stats.ttest_1samp), so
    “≈ 0.04” becomes “≈ 0.075” and “significant” “not significant”; t(4) = 2.39 gives two-sided p = 0.07517
    (2·scipy.stats.t.sf), “.04” → “.075”; the ideal bootstrap gives [0.02, 0.16]."""
    from audit.register.claims import load_chapter
    from audit.research.proposal import patched_text, register_text
    from audit.run.audit import audit_chapter as run

    snapshot = SNAPSHOT.splitlines()[0] + "\n" + SNAPSHOT.splitlines()[1] + "\n" + MORE.splitlines()[1] + "\n" + \
        REPORTED.splitlines()[0] + "\n"
    claims = "claims:\n" + "\n".join(
        line for block in (CLAIMS, MORE_CLAIMS.split("claims:\n")[1], REPORTED_CLAIMS)
        for line in _entries(block, {"S1", "B2", "R1"})) + "\n"
    folder = tmp_path / "loop"
    folder.mkdir()
    before = _audited(folder, "loop", snapshot, claims)
    assert {k: v.verdict for k, v in before.items()} == {"S1": "contradicted", "B2": "contradicted",
                                                         "R1": "contradicted"}
    report = run(load_chapter(folder), [], collect("test"))
    proposal = report.research.proposal
    assert sorted(h.claim for h in proposal.hunks) == ["B2", "R1", "S1"], (proposal.not_proposed, proposal.withdrawn)
    s1 = next(h for h in proposal.hunks if h.claim == "S1")
    assert s1.new.endswith("gives p ≈ 0.075, so the improvement is not significant at the 5 % level."), s1.new
    (folder / "snapshot.txt").write_text(patched_text(snapshot, proposal), encoding="utf-8")
    (folder / "claims.yaml").write_text(register_text(claims, proposal), encoding="utf-8")
    after = {c.id: c.verdict for c in run(load_chapter(folder), [], collect("test")).claims}
    assert after == {"S1": "supported", "B2": "supported", "R1": "supported"}, after


def _entries(block: str, ids: set[str]) -> list[str]:
    """The lines of the register entries in ``block`` whose id is in ``ids`` (each entry a flow mapping over lines)."""
    out, keep = [], False
    for line in block.splitlines():
        if line.startswith("claims:"):
            continue
        if line.lstrip().startswith("- {id:"):
            keep = line.split("id:")[1].split(",")[0].strip() in ids
        if keep:
            out.append(line)
    return out


def test_the_example_in_docs_statistics_loads_and_holds(tmp_path):
    """docs/statistics.md's example register, on a text printing its two sentences: scipy.stats.ttest_rel on the ten
    pairs gives two-sided p = 0.03624 (“0.036”, significant at 0.05); Holm on 0.036, 0.004 and 0.21 adjusts them to
    0.072, 0.012 and 0.21, so A vs C alone stays significant. Both supported."""
    import re
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[1] / "docs" / "statistics.md").read_text(encoding="utf-8")
    register = re.search(r"```yaml\n(.*?)```", docs, re.S).group(1)
    quotes = re.findall(r'quote: "([^"]+)"', register)
    verdicts = _audited(tmp_path, "docs-example", ". ".join(q[0].upper() + q[1:] for q in quotes) + ".\n", register)
    assert {k: v.verdict for k, v in verdicts.items()} == {"S1": "supported", "S2": "supported"}, \
        {k: v.reason for k, v in verdicts.items()}


#: A reported t-test whose p is consistent with its t and df but whose worded conclusion is not: 2·sf(2.20, 28) =
#: 0.0362 (scipy.stats.t), below α = 0.05, so "not significant" is a decision error although p = .036 holds; and one
#: whose printed p is wrong but whose conclusion the recomputed p bears out (2·sf(1.40, 28) = 0.1725, "not
#: significant" holds, p = .017 does not).
WORDED = """\
On the larger set, t(28) = 2.20, p = .036, so the difference is not significant.
On the smaller set, t(28) = 1.40, p = .017, so this difference is not significant either.
"""
WORDED_CLAIMS = """\
claims:
  - {id: W1, title: worded conclusion, kind: statistic, quote: "t(28) = 2.20, p = .036, so the difference is not significant",
     claim: x, test: paired t, sided: two, decision: not significant, reported: {t: "2.20", df: 28, p: ".036"}}
  - {id: W2, title: "wrong p, right conclusion", kind: statistic,
     quote: "t(28) = 1.40, p = .017, so this difference is not significant", claim: x, test: paired t, sided: two,
     decision: not significant, reported: {t: "1.40", df: 28, p: ".017"}}
"""


def test_a_reported_tests_worded_conclusion_is_checked_on_the_recomputed_p(tmp_path):
    from scipy import stats
    assert round(2 * stats.t.sf(2.20, 28), 4) == 0.0362 and round(2 * stats.t.sf(1.40, 28), 4) == 0.1725
    found = _audited(tmp_path, "worded", WORDED, WORDED_CLAIMS)
    w1, w2 = found["W1"], found["W2"]
    assert w1.verdict == "contradicted" and w1.reason.startswith("Decision error"), w1.reason
    assert "not significant" in w1.reason and "0.036" in w1.reason, w1.reason
    # the printed p is wrong; the conclusion it is drawn with holds on the recomputed p, so no decision error leads
    assert w2.verdict == "contradicted" and not w2.reason.startswith("Decision error"), w2.reason
    assert w2.response.startswith("Change “.017” to “.17”"), w2.response
