"""A student's evaluation report in the shape real ones have: a per-topic score table of two systems, then sections
that test it in prose — the mean gain, a paired t-test with its degrees of freedom, the count of topics that improve,
the sign test, the Wilcoxon test, Cohen's d, a bootstrap interval over 10,000 resamples — each drafted by `audit init`
as a statistic claim on the table's rows and checked with no register edit. The report also speaks of other data
(last year's twelve topics) and words one decision as "a clear win": neither is drafted on the table.

Right values (``test_the_right_values``, scipy called directly): B − A = 0.04, 0.01, −0.02, 0.05, 0.03, 0.06,
0.08, 0.07 (no ties, no zero); mean 0.04; ``ttest_rel`` t = 3.434 on 7 df, p = 0.0109; 7 of 8 differences positive,
two-sided ``binomtest`` p = 0.0703; ``wilcoxon`` W = 2, p = 3/128 ≈ 0.0234 (the report prints a planted 0.047, the
one-sided value doubled twice); Cohen's d (mean over the sample standard deviation of the differences) = 1.21.
"""

from __future__ import annotations

import pytest

from chapters import init_and_run

A = ["0.21", "0.35", "0.18", "0.42", "0.30", "0.27", "0.39", "0.25"]
B = ["0.25", "0.36", "0.16", "0.47", "0.33", "0.33", "0.47", "0.32"]
ROWS = "\n".join(f"| {301 + i} | {a} | {b} |" for i, (a, b) in enumerate(zip(A, B)))

REPORT = f"""\
# Evaluation report: does query expansion help?

We compare BM25 with BM25+RM3 on our eight test topics, by average precision.

## Results

| topic | BM25 | BM25+RM3 |
|---|---|---|
{ROWS}

BM25+RM3 improves the mean AP by 0.04 over BM25.

## Paired t-test

A paired t-test on the per-topic differences gives t = 3.43 on 7 degrees of freedom, and p = 0.011.
So BM25+RM3 is significantly better than BM25 at α = 0.05.

## Non-parametric tests

Seven of the eight topics improve under BM25+RM3.
The sign test gives p = 0.07, so by signs alone there is little evidence.
The Wilcoxon signed-rank test gives W = 2 and p = 0.047.
Cohen's d for the paired differences comes to 1.21.
At α = 0.01 the t-test would still count as a clear win.

## Last year

On last year's twelve topics the t-test gave p = 0.012.
"""


def test_the_right_values():
    from scipy import stats
    a, b = [float(x) for x in A], [float(x) for x in B]
    d = [y - x for x, y in zip(a, b)]
    t = stats.ttest_rel(b, a)
    assert (round(t.statistic, 2), int(t.df), round(t.pvalue, 3)) == (3.43, 7, 0.011)
    assert round(sum(d) / len(d), 3) == 0.04
    assert round(stats.binomtest(7, 8).pvalue, 2) == 0.07
    w = stats.wilcoxon(b, a)
    assert (w.statistic, round(w.pvalue, 4)) == (2.0, 0.0234)
    mean = sum(d) / len(d)
    sd = (sum((x - mean) ** 2 for x in d) / (len(d) - 1)) ** 0.5
    assert round(mean / sd, 2) == 1.21


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return init_and_run(tmp_path_factory.mktemp("report"), "report.md", REPORT, "rm3")[2]


def _verdicts(claims, words: str) -> set[str]:
    found = {c["verdict"] for c in claims if words in c["quote"] and c["kind"] == "statistic"}
    assert found, [(c["kind"], c["quote"]) for c in claims]
    return found


@pytest.mark.parametrize("words, verdict", [
    ("improves the mean AP by 0.04", "supported"),           # mean difference 0.04
    ("t = 3.43 on 7 degrees of freedom", "supported"),       # t and df as scipy gives them
    ("p = 0.011", "supported"),
    ("significantly better than BM25", "supported"),         # the decision at α = 0.05
    ("Seven of the eight topics improve", "supported"),      # the sign test's wins
    ("The sign test gives p = 0.07", "supported"),
    ("little evidence", "supported"),                        # not significant at 0.05
    ("W = 2", "supported"),
    ("p = 0.047", "contradicted"),                           # Wilcoxon's p is 3/128 ≈ 0.0234
    ("comes to 1.21", "supported"),                          # Cohen's d
])
def test_each_statistic_is_drafted_on_the_table_and_checked(report, words, verdict):
    assert _verdicts(report, words) == {verdict}


def test_the_wrong_wilcoxon_p_is_corrected_to_scipys(report):
    wrong = next(c for c in report if "p = 0.047" in c["quote"] and c["kind"] == "statistic")
    assert "0.023" in wrong["response"], wrong["response"]


@pytest.mark.parametrize("words", ["twelve topics the t-test gave p = 0.012", "clear win"])
def test_other_data_and_unread_decisions_stay_drafts(report, words):
    """Last year's topics are other data, and "a clear win" is a decision worded in a way not read: each stays a
    draft for the author, never a claim on this table."""
    kinds = {c["kind"] for c in report if words in c["quote"]}
    assert kinds <= {"draft"}, [(c["kind"], c["quote"]) for c in report if words in c["quote"]]
