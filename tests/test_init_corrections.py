"""``audit init`` on a report that corrects a table of raw p-values for multiple comparisons (Bonferroni, Holm) and
tests a table of per-query differences (``| query | Δ nDCG@10 |`` under a caption naming "Rerank − Baseline"): each
adjusted p the prose prints, each sentence saying which comparisons stay significant, and the interval and effect
size of the differences are drafted runnable on the tables' own numbers; what the text does not settle stays a
draft."""

from __future__ import annotations

from fractions import Fraction

import pytest

from chapters import init_and_run

from audit.draft.examples import corrections

REPORT = "# Query expansion or reranking? An evaluation report\n\n## 4 Results\n\n### 4.1 Four variants against the baseline\n\nTable 3 gives the raw p-values of two-sided paired t-tests of each variant against the baseline over 30 queries.\n\n**Table 3.** Raw p-values, nDCG@10, each variant against the baseline.\n\n| variant | raw p |\n|---|---|\n| QE | .008 |\n| Rerank | .013 |\n| Dense | .021 |\n| Hybrid | .30 |\n\nBonferroni's correction multiplies each p-value by m = 4, which leaves QE at .032 and Dense at .064. After Bonferroni correction only QE remains significant at α = .05. With Holm's procedure, Rerank's adjusted p-value is .039, while Hybrid's is .30. Under Holm, QE, Rerank and Dense are significant at α = .05 and Hybrid is not. A stricter reader would say that under Holm QE and Rerank are significant at α = .05 and Dense and Hybrid are not.\n\n### 4.2 Where the reranker gains\n\n**Table 4.** Per-query nDCG@10 difference, Rerank − Baseline, on the eight hardest queries.\n\n| query | Δ nDCG@10 |\n|---|---|\n| 101 | 0.12 |\n| 102 | 0.05 |\n| 103 | -0.02 |\n| 104 | 0.09 |\n| 105 | 0.15 |\n| 106 | 0.03 |\n| 107 | 0.07 |\n| 108 | -0.01 |\n\nWe resample the eight differences 10,000 times and take the 2.5th and 97.5th percentiles of the resampled means. The 95 % percentile bootstrap interval of the mean difference is [0.02, 0.10]. Its effect size is d = 0.31 (Cohen's d for paired samples).\n"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    _, _, claims = init_and_run(tmp_path_factory.mktemp("report"), "report.md", REPORT, "report")
    return claims


# Bonferroni: p × 4 — QE .032, Rerank .052, Dense .084, Hybrid 1. Holm (ascending, × 4, 3, 2, 1, running maximum):
# QE .032, Rerank .039, Dense .042, Hybrid .30.
@pytest.mark.parametrize("words, verdict", [
    ("QE at .032", "supported"),
    ("Dense at .064", "contradicted"),                    # Bonferroni gives .084
    ("only QE remains significant", "supported"),          # Rerank's .052 is above .05
    ("Rerank's adjusted p-value is .039", "supported"),
    ("Hybrid's is .30", "supported"),
    ("QE, Rerank and Dense are significant", "supported"),
    ("QE and Rerank are significant at α = .05 and Dense and Hybrid are not", "contradicted"),  # Dense's .042 < .05
    # the exact percentile bootstrap of the eight differences: [17/800, 79/800] ≈ [0.021, 0.099]
    ("bootstrap interval of the mean difference is [0.02, 0.10]", "supported"),
    # mean 0.06 over a standard deviation of 0.0598: d ≈ 1.00
    ("d = 0.31", "contradicted"),
])
def test_corrections_and_differences_drafted_runnable(report, words, verdict):
    found = [c for c in report if words in c["quote"] and c["kind"] == "statistic"]
    assert found and {c["verdict"] for c in found} == {verdict}, [(c["kind"], c["verdict"], c["quote"]) for c in report
                                                                  if words in c["quote"]]


def test_the_values_the_verdicts_rest_on():
    import numpy as np
    from scipy import stats
    raw = {"QE": Fraction(8, 1000), "Rerank": Fraction(13, 1000), "Dense": Fraction(21, 1000), "Hybrid": Fraction(3, 10)}
    assert {k: min(1, 4 * p) for k, p in raw.items()}["Dense"] == Fraction(84, 1000)
    holm, running = {}, Fraction(0)
    for j, k in enumerate(sorted(raw, key=raw.get)):
        running = max(running, min(Fraction(1), (4 - j) * raw[k]))
        holm[k] = running
    assert holm == {"QE": Fraction(32, 1000), "Rerank": Fraction(39, 1000), "Dense": Fraction(42, 1000),
                    "Hybrid": Fraction(3, 10)}
    diffs = np.array([0.12, 0.05, -0.02, 0.09, 0.15, 0.03, 0.07, -0.01])
    assert round(diffs.mean() / diffs.std(ddof=1), 2) == 1.0
    low, high = stats.bootstrap((diffs,), np.mean, method="percentile", n_resamples=10_000,
                                random_state=np.random.default_rng(7)).confidence_interval
    assert (round(low, 2), round(high, 2)) == (0.02, 0.10)


def test_a_correction_the_text_does_not_settle_stays_the_author_s():
    names = ["QE", "Rerank", "Dense", "Hybrid"]
    # some comparisons placed, the others not: which of them stay significant is not said
    assert corrections._significant("After Bonferroni correction QE remains significant at α = .05.", names) is None
    assert corrections._significant("Unlike Hybrid, only QE remains significant at α = .05.", names) is None
    # both methods in one sentence: which adjusted p is whose is the author's
    text = REPORT.replace("With Holm's procedure,", "With Holm's procedure, unlike Bonferroni's,")
    sentence = "With Holm's procedure, unlike Bonferroni's, Rerank's adjusted p-value is .039, while Hybrid's is .30."
    assert corrections.drafts(sentence, text.index(sentence), text) is None


def test_a_difference_column_without_its_direction_drafts_no_signed_statistic():
    from audit.draft.examples import score_tests
    text = REPORT.replace(", Rerank − Baseline,", ",")
    sentence = "Its effect size is d = 0.31 (Cohen's d for paired samples)."
    assert score_tests.drafts(sentence, text.index(sentence), text) is None


@pytest.mark.parametrize("sentence", [
    "Bonferroni's correction multiplies each p-value by m = 4, which leaves QE at .032.",
    "For Dense it is [-0.01, 0.04], which includes zero, so its gain is not significant.",
])
def test_the_scanner_finds_a_correction_and_an_interval_said_to_exclude_zero(sentence):
    from audit.text.scan import classify
    assert classify(sentence) == "statistic"
