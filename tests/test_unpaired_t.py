"""Unpaired t-tests: Student's (equal variances) and Welch's (unequal variances) on two samples, as a student's
evaluation write-up reports them after calling ``scipy.stats.ttest_ind``. Each right value is written below with the
scipy call that gives it; the chapter's side recomputes it exactly (t² and Welch's df as fractions, p by mpmath)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from audit.errors import RegisterError
from audit.evaluation import significance
from audit.evaluation.references import scipy_stats
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

RERANK = ["0.512", "0.347", "0.628", "0.281", "0.455", "0.590", "0.403", "0.366", "0.521", "0.478", "0.602", "0.334"]
BM25 = ["0.441", "0.302", "0.575", "0.219", "0.468", "0.497", "0.352", "0.318", "0.436", "0.409", "0.551", "0.297"]
NAVIGATIONAL = ["0.62", "0.71", "0.55", "0.80", "0.67", "0.74", "0.59", "0.77"]
INFORMATIONAL = ["0.48", "0.66", "0.31", "0.72", "0.39", "0.58", "0.27", "0.69", "0.52", "0.44", "0.35", "0.61",
                 "0.50", "0.40"]


def _row(topic: int, x: str, y: str) -> str:
    return f"| {topic} | {x} | {y} |"


SNAPSHOT = "\n".join([
    "## 4 Results",
    "",
    "Table 2 gives nDCG@10 per topic for the cross-encoder reranker and the BM25 baseline.",
    "",
    "| topic | rerank | bm25 |",
    "|---|---|---|",
    *[_row(401 + i, x, y) for i, (x, y) in enumerate(zip(RERANK, BM25))],
    "",
    "We ran `scipy.stats.ttest_ind(rerank, bm25)` on the two columns: an unpaired two-sample t-test gives "
    "t = 1.19, p = 0.248, so the gain is not significant at α = 0.05.",
    "In the first draft of this report the same test gave t = 1.19, p = 0.0248, so the reranker was significantly "
    "better.",
    "The reranker's mean gain is 0.054 nDCG@10 (Cohen's d = 0.48).",
    "",
    "Navigational topics (" + ", ".join(NAVIGATIONAL) + ") score higher under the reranker than informational ones ("
    + ", ".join(INFORMATIONAL) + ").",
    "As the two groups differ in size and spread we used Welch's test (`equal_var=False`): t(19.74) = 3.77, "
    "p = 0.0012, with d = 1.57 on the root mean of the two variances.",
    "A one-line summary for the slides: Welch's t(19.7) = 3.77, p = .001.",
    "The appendix copies it as t(19.7) = 2.10, p = .01.",
    "The baseline run alone: t(22) = 1.19, p = .25.",
    "",
])

A, B = f"{RERANK}".replace("'", '"'), f"{BM25}".replace("'", '"')
NAV, INF = f"{NAVIGATIONAL}".replace("'", '"'), f"{INFORMATIONAL}".replace("'", '"')
CLAIMS = f"""\
claims:
  - {{id: U1, title: unpaired t-test on the two columns, kind: statistic,
     quote: "an unpaired two-sample t-test gives t = 1.19, p = 0.248, so the gain is not significant at α = 0.05",
     claim: Student's t-test on the two columns, test: student t, data: {{a: {A}, b: {B}}},
     expect: [{{statistic: t, claimed: "1.19"}}, {{statistic: p, claimed: "0.248"}}], decision: not significant}}
  - {{id: U2, title: the draft's p, kind: statistic,
     quote: "the same test gave t = 1.19, p = 0.0248, so the reranker was significantly better",
     claim: Student's t-test on the two columns, test: student t, data: {{a: {A}, b: {B}}},
     expect: [{{statistic: p, claimed: "0.0248"}}], decision: significant}}
  - {{id: U3, title: the same data held to the paired test, kind: statistic,
     quote: "t = 1.19, p = 0.248, so the gain is not significant at α = 0.05",
     claim: the paired t-test on the two columns, test: paired t, data: {{a: {A}, b: {B}}},
     expect: [{{statistic: p, claimed: "0.248"}}], decision: not significant}}
  - {{id: W1, title: Welch on the two query types, kind: statistic,
     quote: "t(19.74) = 3.77, p = 0.0012",
     claim: Welch's t-test between the query types, test: welch t, data: {{a: {NAV}, b: {INF}}},
     expect: [{{statistic: t, claimed: "3.77"}}, {{statistic: df, claimed: "19.74"}}, {{statistic: p, claimed: "0.0012"}}]}}
  - {{id: W2, title: Student on the two query types, kind: statistic,
     quote: "t(19.74) = 3.77, p = 0.0012",
     claim: Student's t-test between the query types, test: student t, data: {{a: {NAV}, b: {INF}}},
     expect: [{{statistic: p, claimed: "0.0012"}}]}}
  - {{id: U4, title: effect size, kind: statistic, quote: "The reranker's mean gain is 0.054 nDCG@10 (Cohen's d = 0.48).",
     claim: mean difference and pooled d, test: student t, data: {{a: {A}, b: {B}}},
     expect: [{{statistic: mean difference, claimed: "0.054"}}, {{statistic: d, claimed: "0.48"}}]}}
  - {{id: W3, title: Welch's effect size, kind: statistic, quote: "d = 1.57 on the root mean of the two variances",
     claim: d over the root mean of the variances, test: welch t, data: {{a: {NAV}, b: {INF}}},
     expect: [{{statistic: d, claimed: "1.57"}}]}}
  - {{id: R1, title: Welch reported, kind: statistic, quote: "Welch's t(19.7) = 3.77, p = .001", claim: x,
     test: welch t, sided: two, reported: {{t: "3.77", df: "19.7", p: ".001"}}}}
  - {{id: R2, title: Welch copied wrong, kind: statistic, quote: "t(19.7) = 2.10, p = .01", claim: x,
     test: welch t, sided: two, reported: {{t: "2.10", df: "19.7", p: ".01"}}}}
  - {{id: R3, title: Student reported, kind: statistic, quote: "t(22) = 1.19, p = .25", claim: x,
     test: student t, sided: two, reported: {{t: "1.19", df: 22, p: ".25"}}}}
"""


def _audited(folder, snapshot: str, claims: str) -> dict:
    (folder / "snapshot.md").write_text(snapshot, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: report\ntitle: Report\nsnapshot: {file: snapshot.md}\n",
                                         encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return {c.id: c for c in audit_chapter(load_chapter(folder), [], collect("test")).claims}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return _audited(tmp_path_factory.mktemp("unpaired"), SNAPSHOT, CLAIMS)


def _scipy(result, statistic: str) -> list[float]:
    return [v.value for c in result.checks if c.measure == statistic for v in c.values if v.implementation == "scipy"]


def test_an_unpaired_t_test_on_a_score_table_is_supported_with_scipys_column(results):
    """scipy.stats.ttest_ind(RERANK, BM25) (equal_var=True, its default) gives statistic 1.1860802765166552,
    pvalue 0.2482427543776838, df 22.0: the printed t = 1.19 and p = 0.248 hold, and 0.248 ≥ 0.05 is “not
    significant”."""
    u1 = results["U1"]
    assert u1.verdict == "supported", u1.reason
    assert "Student's unpaired t-test (equal variances) of a (12 values) against b (12 values)" in u1.reason
    assert "two-sided 0.248243, as printed" in u1.reason
    assert _scipy(u1, "t")[0] == pytest.approx(1.1860802765166552, abs=1e-12)
    assert _scipy(u1, "p")[0] == pytest.approx(0.2482427543776838, abs=1e-12)
    chapter = [v.value for c in u1.checks if c.measure == "p" for v in c.values if v.implementation == "chapter"]
    assert chapter[0] == pytest.approx(0.2482427543776838, abs=1e-12)
    # the two samples, side by side, with their means, are the first check's table
    table = u1.checks[0].table
    assert table[0] == ["value", "a", "b"] and table[1] == ["1", "0.512", "0.441"] and table[-1][0] == "mean"


def test_a_wrong_p_is_contradicted_with_the_corrected_value_and_decision(results):
    """The draft's p = 0.0248 is a tenth of ttest_ind's 0.2482427543776838: the decision “significant” is an error
    and leads; the corrected sentence prints p to two significant digits, 0.25, and “not significant”."""
    u2 = results["U2"]
    assert u2.verdict == "contradicted"
    assert u2.reason.startswith("Decision error: the text says “significant” at α = 0.05, but p = 0.248243 "
                                "(two-sided"), u2.reason
    assert u2.response.startswith("Change “0.0248” to “0.25”; “significant” to “not significant” (checked:"), \
        u2.response


def test_the_same_table_held_to_the_paired_test_gives_another_p(results):
    """scipy.stats.ttest_rel(RERANK, BM25) gives statistic 6.991196547538786, pvalue 2.295831431986764e-05 on 11
    df: pairing the topics removes their spread, so the printed unpaired p = 0.248 is not the paired test's, and the
    two tests are told apart."""
    u3 = results["U3"]
    assert u3.verdict == "contradicted"
    assert u3.reason.startswith("Decision error: the text says “not significant” at α = 0.05, but p = 2.29583e-5"), \
        u3.reason
    assert "the paired t-test on 12 paired differences: two-sided: 2.29583e-5" in u3.reason, u3.reason
    assert _scipy(u3, "p")[0] == pytest.approx(2.295831431986764e-05, rel=1e-9)
    assert results["U1"].verdict == "supported"


def test_mean_difference_and_pooled_cohens_d(results):
    """mean(RERANK) − mean(BM25) = 0.652/12 = 0.054333… exactly; Cohen's d with the pooled standard deviation
    (numpy: (a.mean() − b.mean()) / sqrt((11·a.var(ddof=1) + 11·b.var(ddof=1)) / 22)) = 0.48421524524083037."""
    u4 = results["U4"]
    assert u4.verdict == "supported", u4.reason
    assert "163/3000 (≈ 0.0543)" in u4.reason
    ours = significance.two_samples("student t", [Fraction(x) for x in RERANK], [Fraction(x) for x in BM25], "two")
    assert ours["mean difference"] == Fraction(163, 3000)
    assert float(ours["d"]) == pytest.approx(0.48421524524083037, abs=1e-12)


def test_welch_with_unequal_lengths(results):
    """scipy.stats.ttest_ind(NAVIGATIONAL, INFORMATIONAL, equal_var=False) gives statistic 3.772061701055429,
    pvalue 0.001220613661904931, df 19.739703096823632 (8 and 14 values): the printed t(19.74) = 3.77, p = 0.0012
    hold. With equal_var=True it gives pvalue 0.003372904408207388 on 20 df, so the same sentence held to Student's
    test is contradicted, corrected to 0.0034."""
    w1 = results["W1"]
    assert w1.verdict == "supported", w1.reason
    assert "of a (8 values) against b (14 values)" in w1.reason
    assert _scipy(w1, "df")[0] == pytest.approx(19.739703096823632, abs=1e-9)
    assert _scipy(w1, "p")[0] == pytest.approx(0.001220613661904931, abs=1e-12)
    ours = significance.two_samples("welch t", [Fraction(x) for x in NAVIGATIONAL],
                                    [Fraction(x) for x in INFORMATIONAL], "two")
    assert isinstance(ours["df"], Fraction) and float(ours["df"]) == pytest.approx(19.739703096823632, abs=1e-12)
    assert float(ours["p"]) == pytest.approx(0.001220613661904931, abs=1e-12)
    w2 = results["W2"]
    assert w2.verdict == "contradicted"
    assert "Student's unpaired t-test (equal variances) of a (8 values) against b (14 values): two-sided: 0.0033729" \
        in w2.reason, w2.reason
    assert w2.response.startswith("Change “0.0012” to “0.0034”"), w2.response


def test_welchs_d_is_over_the_root_mean_of_the_two_variances(results):
    """numpy: (c.mean() − e.mean()) / sqrt((c.var(ddof=1) + e.var(ddof=1)) / 2) = 1.5681997507250593 for the 8 and
    14 values; Cohen's d over the pooled standard deviation is 1.4738732913802506. The sentence states the root-mean
    standardizer, so its 1.57 is supported, both values shown."""
    w3 = results["W3"]
    assert w3.verdict == "supported", w3.reason
    assert "the standardizer the sentence states" in w3.reason, w3.reason
    values = {v.behaviour: v.value for c in w3.checks for v in c.values if v.implementation == "scipy"}
    assert values["over the root mean of the variances"] == pytest.approx(1.5681997507250593, abs=1e-12)
    assert values["over the pooled standard deviation"] == pytest.approx(1.4738732913802506, abs=1e-12)


def test_a_reported_welch_triple_is_checked_with_its_decimal_df(results):
    """2·scipy.stats.t.sf(3.77, 19.7) = 0.0012299820648524386, which the printed p = .001 is; 2·t.sf(2.10, 19.7) =
    0.04881904449635749, not .01 (and t and df rounded cannot reach it: ν in [19.65, 19.75] and t in [2.095, 2.105]
    keep p near 0.049), so that triple is contradicted, corrected to .049; 2·t.sf(1.19, 22) = 0.24673023947741032
    is the printed .25 of Student's t(22)."""
    r1, r2, r3 = results["R1"], results["R2"], results["R3"]
    assert r1.verdict == "supported", r1.reason
    assert "t(19.7) = 3.77: two-sided p = 0.00122998, consistent with the printed p .001" in r1.reason
    assert [v.value for c in r1.checks for v in c.values if v.implementation == "scipy"][0] == pytest.approx(
        0.0012299820648524386, abs=1e-12)
    assert r2.verdict == "contradicted"
    assert "two-sided p = 0.048819, outside the printed [0.005, 0.015]" in r2.reason, r2.reason
    assert r2.response.startswith("Change “.01” to “.049”"), r2.response
    assert r3.verdict == "supported", r3.reason


def test_a_welch_df_printed_rounded_is_read_over_what_it_rounds_from(tmp_path):
    """“t(19.7) = 2.86, p = .0098”: 2·scipy.stats.t.sf(2.86, 19.7) = 0.009777576730473332, consistent. “t(20) = 2.86,
    p = .0099”: Welch's ν printed whole stands for ν in [19.5, 20.5]. 2·t.sf(2.86, 20) = 0.009679407605381664 is
    outside [0.00985, 0.00995], and so is every p of a t that rounds to 2.86 on exactly 20 df (2·t.sf(2.855, 20) =
    0.009787625352668987 at most); 2·t.sf(2.855, 19.5) = 0.00995418019799639 reaches it, so only the rounding of t
    and df reconciles them: qualified, the rounding named."""
    from scipy import stats
    assert 2 * stats.t.sf(2.855, 20) < 0.00985 < 2 * stats.t.sf(2.855, 19.5)
    text = "Welch's test gives t(19.7) = 2.86, p = .0098. Rounded: t(20) = 2.86, p = .0099.\n"
    claims = """\
claims:
  - {id: R4, title: Welch, kind: statistic, quote: "t(19.7) = 2.86, p = .0098", claim: x, test: welch t, sided: two,
     reported: {t: "2.86", df: "19.7", p: ".0098"}}
  - {id: R5, title: Welch rounded df, kind: statistic, quote: "t(20) = 2.86, p = .0099", claim: x, test: welch t,
     sided: two, reported: {t: "2.86", df: 20, p: ".0099"}}
"""
    found = _audited(tmp_path, text, claims)
    assert found["R4"].verdict == "supported", found["R4"].reason
    assert found["R5"].verdict == "qualified", found["R5"].reason
    assert "only because the printed t and df are rounded" in found["R5"].reason
    assert "ν in [19.5, 20.5]" in found["R5"].reason
    assert found["R5"].response.startswith("Print t and df with another digit"), found["R5"].response


@pytest.mark.parametrize("extra, field, says", [
    ('test: student t, data: {differences: ["0.1", "0.2", "0.05"]}, expect: [{statistic: p, claimed: "0.5"}]',
     "data.differences", "student t compares two independent samples, so it has no per-query differences"),
    ('test: welch t, data: {differences: ["0.1", "0.2"]}, expect: [{statistic: p, claimed: "0.5"}]',
     "data.differences", "give data.a and data.b"),
    ('test: paired t, data: {a: ["0.1", "0.2", "0.3"], b: ["0.1", "0.2"]}, expect: [{statistic: p, claimed: "0.5"}]',
     "data.b", "a has 3 values and b 2; for two independent samples the test is student t or welch t"),
    ('test: welch t, data: {a: ["0.1"], b: ["0.1", "0.2"]}, expect: [{statistic: p, claimed: "0.5"}]',
     "data", "at least two values in each sample"),
    ('test: student t, reported: {t: "2.1", df: "19.7", p: "0.05"}', "reported.df", "a decimal df is Welch's"),
    ('test: welch t, reported: {t: "2.1", df: 19.7, p: "0.05"}', "reported.df", "write decimals as quoted text"),
    ('test: wilcoxon, reported: {t: "2.1", df: 4, p: "0.05"}', "reported", "paired t, student t or welch t"),
])
def test_an_unpaired_claim_that_cannot_be_checked_stops_the_load(tmp_path, extra, field, says):
    (tmp_path / "snapshot.txt").write_text("A test gives p = 0.5.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: bad\ntitle: Bad\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        "claims:\n  - {id: B1, title: bad, kind: statistic, quote: \"A test gives p = 0.5.\", claim: x, " + extra
        + "}\n", encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(tmp_path)
    error = caught.value
    assert (error.claim, error.field) == ("B1", field) and says in error.message, (error.field, error.message)
    assert error.file.endswith("claims.yaml")


#: A sample as a text prints it: per-topic scores to three decimals, 2 to 12 of them.
SAMPLE = st.lists(st.integers(0, 1000).map(lambda i: Fraction(i, 1000)), min_size=2, max_size=12)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=SAMPLE, b=SAMPLE, side=st.sampled_from(["two", "greater", "less"]),
       test=st.sampled_from(["student t", "welch t"]))
def test_each_unpaired_statistic_agrees_with_scipy(a, b, side, test):
    """The exact side and scipy.stats.ttest_ind(a, b, equal_var=test == "student t", alternative=side) agree to 1e-9
    on t, df and p (and numpy on the mean difference and d) wherever both give a number; where the samples have no
    spread, the exact side says why."""
    ours = significance.two_samples(test, a, b, side)
    theirs = scipy_stats.two_samples(test, [float(x) for x in a], [float(y) for y in b], side)
    if isinstance(ours["t"], str):
        assert ours["t"].startswith("not defined") and ours["t"] == ours["p"]
        return
    for name in ("t", "df", "p", "mean difference", "d"):
        mine, other = ours[name], theirs.get(name)
        if isinstance(other, str) or other is None:
            continue
        assert abs(float(mine) - other) <= 1e-9 * max(1.0, abs(other)), (test, side, name, a, b, mine, other)


@pytest.mark.parametrize("sentence, test, says", [
    ("An unpaired two-sample t-test gives p = 0.248.", "paired t",
     "test is paired t, but the sentence names an unpaired test of two independent samples (scipy's ttest_ind, "
     "two-sample or unpaired), not a paired one: encode test: student t"),
    ("We ran ttest_ind(a, b, equal_var=False): p = 0.248.", "paired t", "encode test: welch t"),
    ("Welch's test gives p = 0.248.", "student t", "the sentence names Welch's test (unequal variances)"),
    ("A paired t-test gives p = 0.248.", "welch t", "the sentence names a paired t-test: encode test: paired t"),
    ("The pooled variance t-test gives p = 0.248.", "welch t", "encode test: student t"),
])
def test_a_test_the_sentence_does_not_name_stops_the_load(tmp_path, sentence, test, says):
    """The write-up's fault the other way round: a sentence saying which t-test it ran, encoded as another, would hold
    a right p to the wrong test and “correct” it; the load names the field and the test the sentence names."""
    (tmp_path / "snapshot.txt").write_text(sentence + "\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: bad\ntitle: Bad\n", encoding="utf-8")
    data = ('{a: ["0.1", "0.2", "0.4"], b: ["0.2", "0.1", "0.1"]}')
    (tmp_path / "claims.yaml").write_text(
        f"claims:\n  - {{id: B1, title: bad, kind: statistic, quote: \"{sentence}\", claim: x, test: {test}, "
        f"data: {data}, expect: [{{statistic: p, claimed: \"0.248\"}}]}}\n", encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(tmp_path)
    assert caught.value.field == "test" and says in caught.value.message, (caught.value.field, caught.value.message)


def test_a_sentence_naming_both_tests_loads_either(tmp_path):
    """“Unlike the paired t-test, Welch's test …” names both: which one a claim checks is the author's to say."""
    sentence = "Unlike the paired t-test, Welch's test gives p = 0.248."
    (tmp_path / "snapshot.txt").write_text(sentence + "\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: both\ntitle: Both\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        f"claims:\n  - {{id: B1, title: both, kind: statistic, quote: \"{sentence}\", claim: x, test: welch t, "
        'data: {a: ["0.1", "0.2", "0.4"], b: ["0.2", "0.1", "0.1"]}, expect: [{statistic: p, claimed: "0.248"}]}\n',
        encoding="utf-8")
    assert load_chapter(tmp_path).register.claims[0].test == "welch t"


def test_init_drafts_the_t_test_the_sentence_names(tmp_path, capsys):
    """init drafts a reported t-test with the test its sentence names: Welch's for a decimal df, Student's for an
    unpaired two-sample test, the paired test otherwise; each then runs. 2·scipy.stats.t.sf(3.77, 19.7) =
    0.0012299820648524386 (“p = .001”, consistent); 2·t.sf(1.19, 22) = 0.24673023947741032 (“p = .25”, consistent);
    2·t.sf(2.39, 4) = 0.07518… (“p = .04”, contradicted)."""
    import json

    import yaml

    from audit.cli import main
    snapshot = tmp_path / "report.md"
    snapshot.write_text("# Results\n\nFor the query types we used Welch's test: t(19.7) = 3.77, p = .001.\n\n"
                        "An unpaired two-sample t-test on the two columns gives t(22) = 1.19, p = .25.\n\n"
                        "A two-sided paired t-test gives t(4) = 2.39, p = .04.\n", encoding="utf-8")
    assert main(["init", str(snapshot), "--id", "report", "--claims-dir", str(tmp_path / "claims")]) == 0
    capsys.readouterr()
    drafted = yaml.safe_load((tmp_path / "claims" / "report" / "claims.yaml").read_text(encoding="utf-8"))["claims"]
    tests = {c["quote"]: (c["test"], c["reported"]["df"]) for c in drafted if c.get("kind") == "statistic"}
    assert tests == {"t(19.7) = 3.77, p = .001": ("welch t", "19.7"), "t(22) = 1.19, p = .25": ("student t", 22),
                     "t(4) = 2.39, p = .04": ("paired t", 4)}
    assert main(["run", str(tmp_path / "claims" / "report"), "--reports", str(tmp_path / "out"), "--quiet"]) in (0, 1)
    report = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    verdicts = {c["quote"]: c["verdict"] for c in report["claims"] if c["quote"] in tests}
    assert verdicts == {"t(19.7) = 3.77, p = .001": "supported", "t(22) = 1.19, p = .25": "supported",
                        "t(4) = 2.39, p = .04": "contradicted"}


def test_welchs_d_over_the_root_mean_unstated_is_qualified_and_the_pooled_d_supported(tmp_path):
    """“Cohen's d = 1.57” with Welch's test, the standardizer unstated: 1.5681997507250593 is d over the root mean of
    the variances, not the default pooled 1.4738732913802506 (numpy, as above): qualified, asking to say so; the
    pooled “Cohen's d = 1.47” is supported."""
    text = "Welch's test: Cohen's d = 1.57. Pooled, Cohen's d = 1.47.\n"
    claims = f"""\
claims:
  - {{id: D1, title: d unstated, kind: statistic, quote: "Welch's test: Cohen's d = 1.57", claim: x, test: welch t,
     data: {{a: {NAV}, b: {INF}}}, expect: [{{statistic: d, claimed: "1.57"}}]}}
  - {{id: D2, title: d pooled, kind: statistic, quote: "Cohen's d = 1.47", claim: x, test: welch t,
     data: {{a: {NAV}, b: {INF}}}, expect: [{{statistic: d, claimed: "1.47"}}]}}
"""
    found = _audited(tmp_path, text, claims)
    assert found["D1"].verdict == "qualified", found["D1"].reason
    assert found["D1"].response.startswith("Say that d is standardized by the root mean of the two variances")
    assert found["D2"].verdict == "supported", found["D2"].reason
