"""Listings that compute a statistic of two systems' per-topic scores, in a NumPy tutorial: a paired t-test, its
one-sided slip, Cohen's d over the wrong standard deviation, a sign test, a seeded percentile bootstrap and a seeded
randomization test. Each is run in the listing sandbox on generated paired data and compared, value by value, with
the exact computation and scipy; a seeded Monte Carlo listing is held to its own seed's printed output and to the
exact value within its Monte Carlo error.

Values used below, with their source (the ten topics of Table 1, differences a − b = 0.006, 0.074, 0.03, 0.114,
0.049, −0.012, 0.054, 0.04, −0.026, 0.04):
* ``scipy.stats.ttest_rel(a, b)``: statistic 2.8460593001400505, pvalue 0.019212291227538866;
* Cohen's d_z = mean/sd(ddof=1) = 0.9000029744347333; with ``np.std`` (ddof=0) 0.9486864333800167;
* the percentile bootstrap listing, run as printed (seed 42, 10,000 resamples): (0.0129, 0.0620025) → (0.013, 0.062);
  the exact ideal-bootstrap endpoints are 0.0132 and 0.0613."""

from __future__ import annotations

import pytest

from audit.errors import RegisterError
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

A10 = ["0.584", "0.457", "0.635", "0.240", "0.619", "0.425", "0.565", "0.302", "0.407", "0.360"]
B10 = ["0.578", "0.383", "0.605", "0.126", "0.570", "0.437", "0.511", "0.262", "0.433", "0.320"]

SNAPSHOT = "\n".join([
    "# Is the new ranker better? Tests in NumPy", "",
    "| topic | new | old |", "|---|---|---|",
    *[f"| {301 + i} | {x} | {y} |" for i, (x, y) in enumerate(zip(A10, B10))], "",
    "```python",
    "import numpy as np",
    "from scipy import stats",
    "",
    "",
    "def paired_t(a, b):",
    "    d = np.asarray(a) - np.asarray(b)",
    "    t = d.mean() / (d.std(ddof=1) / np.sqrt(len(d)))",
    "    p = 2 * stats.t.sf(abs(t), len(d) - 1)",
    "    return t, p",
    "",
    "",
    "def paired_t_scipy(a, b):",
    "    result = stats.ttest_rel(a, b, alternative=\"greater\")",
    "    return result.statistic, result.pvalue",
    "",
    "",
    "def cohens_d(a, b):",
    "    d = np.asarray(a) - np.asarray(b)",
    "    return d.mean() / d.std()",
    "",
    "",
    "def sign_test(diffs):",
    "    wins = sum(1 for x in diffs if x > 0)",
    "    losses = sum(1 for x in diffs if x < 0)",
    "    return stats.binomtest(wins, wins + losses).pvalue",
    "```", "",
    "`paired_t` gives t = 2.85 and p = 0.019 on Table 1.", "",
    "The differences, new minus old:", "",
    "```python",
    "diffs = [0.006, 0.074, 0.03, 0.114, 0.049, -0.012, 0.054, 0.04, -0.026, 0.04]",
    "```", "",
    "```python",
    "import numpy as np",
    "",
    "",
    "def bootstrap_interval(diffs, resamples=10_000, level=0.95):",
    "    rng = np.random.default_rng(42)",
    "    diffs = np.asarray(diffs)",
    "    means = rng.choice(diffs, size=(resamples, len(diffs)), replace=True).mean(axis=1)",
    "    tail = (1 - level) / 2 * 100",
    "    return np.percentile(means, tail), np.percentile(means, 100 - tail)",
    "",
    "",
    "def bootstrap_interval_90(diffs, resamples=10_000, level=0.95):",
    "    rng = np.random.default_rng(42)",
    "    means = rng.choice(np.asarray(diffs), size=(resamples, len(diffs))).mean(axis=1)",
    "    return np.percentile(means, 5), np.percentile(means, 95)",
    "```", "",
    "`bootstrap_interval(diffs)` returns (0.013, 0.062).", "",
    "```python",
    "import random",
    "",
    "",
    "def randomization_p(diffs, flips=5000):",
    "    random.seed(7)",
    "    observed = abs(sum(diffs))",
    "    hits = 0",
    "    for _ in range(flips):",
    "        total = sum(d if random.random() < 0.5 else -d for d in diffs)",
    "        if abs(total) >= observed - 1e-12:",
    "            hits += 1",
    "    return hits / flips",
    "```", "",
])

DIFFS = "[0.006, 0.074, 0.03, 0.114, 0.049, -0.012, 0.054, 0.04, -0.026, 0.04]"
CLAIMS = f"""\
claims:
  - {{id: T1, title: paired t by hand, kind: code, quote: "def paired_t(a, b):", claim: paired_t computes the paired t-test,
     function: paired_t, measure: paired t, arguments: {{a: scores a, b: scores b}}, returns: [t, p]}}
  - {{id: T2, title: paired t by scipy, kind: code, quote: "def paired_t_scipy(a, b):", claim: the paired t-test,
     function: paired_t_scipy, measure: paired t, arguments: {{a: scores a, b: scores b}}, returns: [t, p]}}
  - {{id: T3, title: Cohen's d, kind: code, quote: "def cohens_d(a, b):", claim: cohens_d computes Cohen's d,
     function: cohens_d, measure: paired t, arguments: {{a: scores a, b: scores b}}, returns: [d]}}
  - {{id: T4, title: sign test, kind: code, quote: "def sign_test(diffs):", claim: sign_test computes the sign test's p,
     function: sign_test, measure: sign, arguments: {{diffs: differences}}, returns: [p]}}
  - id: T5
    title: seeded bootstrap
    kind: code
    quote: "def bootstrap_interval(diffs, resamples=10_000, level=0.95):"
    claim: bootstrap_interval computes the 95 % percentile bootstrap interval
    function: bootstrap_interval
    measure: bootstrap
    arguments: {{diffs: differences, resamples: constant, level: confidence level}}
    returns: [low, high]
    resamples: 10000
    calls:
      - {{call: "bootstrap_interval(diffs)", returns: "(0.013, 0.062)", given: {{diffs: "{DIFFS}"}}}}
  - {{id: T6, title: a 90 % interval, kind: code, quote: "def bootstrap_interval_90(diffs, resamples=10_000, level=0.95):",
     claim: the 95 % interval, function: bootstrap_interval_90, measure: bootstrap,
     arguments: {{diffs: differences, resamples: constant, level: confidence level}}, returns: [low, high],
     resamples: 10000}}
  - {{id: T7, title: seeded randomization test, kind: code, quote: "def randomization_p(diffs, flips=5000):",
     claim: randomization_p computes the randomization test's p, function: randomization_p, measure: permutation,
     arguments: {{diffs: differences, flips: constant}}, returns: [p], resamples: 5000}}
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stat-listings")
    _write(folder, CLAIMS)
    return {c.id: c for c in audit_chapter(load_chapter(folder), [], collect("test")).claims}


def _write(folder, claims: str):
    (folder / "snapshot.md").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: tests\ntitle: Tests\nsnapshot: {file: snapshot.md}\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")


def test_a_paired_t_listing_is_supported_value_by_value(results):
    t1 = results["T1"]
    assert t1.verdict == "supported", t1.reason
    assert "paired_t() returns t, p as the paired t-test gives them on 30 generated sets" in t1.reason, t1.reason
    scipy = {v.behaviour: v for c in t1.checks for v in c.values if v.implementation == "scipy"}
    assert scipy["t"].in_interval and scipy["p"].in_interval


def test_a_one_sided_p_is_named(results):
    """ttest_rel(..., alternative="greater") on Table 1 gives 0.009606145613769433, half the two-sided
    0.019212291227538866; its t is the same 2.8460593001400505."""
    t2 = results["T2"]
    assert t2.verdict == "qualified", t2.reason
    assert "the p it returns is the one-sided (a > b) p on every generated input" in t2.reason.lower(), t2.reason


def test_cohens_d_over_the_population_sd_is_contradicted(results):
    t3 = results["T3"]
    assert t3.verdict == "contradicted", t3.reason
    assert "d is wrong: 30 of 30 generated inputs disagree" in t3.reason.lower(), t3.reason


def test_a_sign_test_listing(results):
    t4 = results["T4"]
    assert t4.verdict == "supported", t4.reason


def test_a_seeded_bootstrap_listing_is_held_to_its_seed_and_to_the_exact_value(results):
    """The printed (0.013, 0.062) is what the listing returns with its own seed, and the exact 0.0613 lies within
    10,000 resamples' Monte Carlo error of 0.062 (see test_monte_carlo_estimates for the bands)."""
    t5 = results["T5"]
    assert t5.verdict == "supported", t5.reason
    assert "the call bootstrap_interval(diffs) returns (0.013, 0.062) with the listing's own seed" in t5.reason


def test_a_90_percent_interval_sold_as_95_is_contradicted(results):
    t6 = results["T6"]
    assert t6.verdict == "contradicted", t6.reason
    assert "low is wrong" in t6.reason.lower() and "within the Monte Carlo error of 10,000 resamples" in t6.reason, t6.reason


def test_a_seeded_randomization_listing(results):
    t7 = results["T7"]
    assert t7.verdict == "supported", t7.reason


def test_a_statistics_listing_names_its_values(tmp_path):
    _write(tmp_path, CLAIMS.replace("returns: [t, p]}\n  - {id: T2", "returns: [t, q]}\n  - {id: T2", 1))
    with pytest.raises(RegisterError) as info:
        load_chapter(tmp_path)
    assert "T1" in str(info.value) and "returns[1]" in str(info.value)


def test_a_seeded_listing_needs_its_resamples(tmp_path):
    """Held to the exact value alone, randomization_p's 0.0626-style estimates would be contradicted though right:
    the load asks for resamples instead."""
    _write(tmp_path, CLAIMS.replace("returns: [p], resamples: 5000}", "returns: [p]}"))
    with pytest.raises(RegisterError) as info:
        load_chapter(tmp_path)
    assert "T7" in str(info.value) and "resamples" in str(info.value) and "draws random numbers" in str(info.value)
