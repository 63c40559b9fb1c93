"""The Wilcoxon signed-rank test on differences with zeros and ties, as scipy.stats.wilcoxon computes it, with the exact
value beside where scipy approximates.

Right values:

* by hand, d = 0, 0.1, −0.1, 0.2, 0.3. Zeros dropped (scipy's default ``zero_method="wilcox"``): |d| = 0.1, 0.1, 0.2,
  0.3 rank 1.5, 1.5, 3, 4; W⁺ = 1.5 + 3 + 4 = 8.5, W⁻ = 1.5, W = 1.5. Over the 16 sign flips, W⁺ ≥ 8.5 in 3 (the
  ranks {1.5, 3, 4} twice, and all four), so two-sided p = 2 · 3/16 = 3/8. Pratt: the zero takes rank 1, the others
  2.5, 2.5, 4, 5: W = 2.5, p = 3/8. zsplit: W⁺ = 11.5 + 0.5, W⁻ = 2.5 + 0.5, W = 3. scipy gives the same (its
  permutation test over every flip, n ≤ 13).
* sixteen topics with one zero and tied |d|: scipy (``method="auto"``: n > 13 with ties, so the normal
  approximation, ties corrected) gives W = 20, p = 0.0222164 (wilcox), 0.0239416 with ``correction=True``, and
  W = 23, p = 0.0206553 under Pratt; the exact p over the 2^15 flips of the non-zero differences, by brute force
  below, is 87/4096 = 0.0212402 (wilcox).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from scipy import stats

from audit.errors import RegisterError
from audit.evaluation import significance
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

SMALL = ["0", "0.1", "-0.1", "0.2", "0.3"]
SIXTEEN = ["0.10", "0.10", "0.05", "-0.05", "0.20", "0.15", "0.00", "0.10", "-0.10", "0.25", "0.05", "0.30", "-0.15",
           "0.20", "0.10", "0.05"]


def _brute_exact(d: list[float], zero_method: str = "wilcox") -> float:
    """The two-sided p over every sign flip of the non-zero differences, ranks by scipy.stats.rankdata."""
    kept = [x for x in d if x != 0] if zero_method == "wilcox" else d
    ranks = stats.rankdata([abs(x) for x in kept])
    pairs = [(r, x) for r, x in zip(ranks, kept) if x != 0]
    observed = sum(r for r, x in pairs if x > 0)
    sums = [sum(r for (r, _), s in zip(pairs, signs) if s > 0) for signs in itertools.product((1, -1), repeat=len(pairs))]
    upper = sum(1 for v in sums if v >= observed - 1e-9) / len(sums)
    lower = sum(1 for v in sums if v <= observed + 1e-9) / len(sums)
    return min(1.0, 2 * min(upper, lower))


@pytest.mark.parametrize("zero_method, w", [("wilcox", Fraction(3, 2)), ("pratt", Fraction(5, 2)), ("zsplit", 3)])
def test_zeros_and_ties_by_hand(zero_method, w):
    out = significance.wilcoxon([Fraction(x) for x in SMALL], "two", zero_method)
    assert out["W"] == w and out["p"] == Fraction(3, 8)
    r = stats.wilcoxon([float(x) for x in SMALL], zero_method=zero_method)
    assert (float(r.statistic), float(r.pvalue)) == (float(w), 0.375)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("side, alternative", [("two", "two-sided"), ("greater", "greater"), ("less", "less")])
def test_the_approximation_is_scipys_and_the_exact_p_is_beside(zero_method, correction, side, alternative):
    d = [Fraction(x) for x in SIXTEEN]
    out = significance.wilcoxon(d, side, zero_method, correction)
    r = stats.wilcoxon([float(x) for x in SIXTEEN], zero_method=zero_method, correction=correction,
                       alternative=alternative)
    assert abs(float(out["W"]) - float(r.statistic)) < 1e-12
    assert abs(float(out["p"]) - float(r.pvalue)) < 1e-12, out["p method"]
    assert out["p method"].startswith("the normal approximation")
    if side == "two":
        assert abs(float(out["exact p"]) - _brute_exact([float(x) for x in SIXTEEN], zero_method)) < 1e-12


def test_the_figures_the_chapter_below_prints():
    r = stats.wilcoxon([float(x) for x in SIXTEEN])
    assert (r.statistic, round(r.pvalue, 4)) == (20.0, 0.0222)
    assert round(stats.wilcoxon([float(x) for x in SIXTEEN], correction=True).pvalue, 4) == 0.0239
    assert round(stats.wilcoxon([float(x) for x in SIXTEEN], zero_method="pratt").pvalue, 4) == 0.0207
    assert round(_brute_exact([float(x) for x in SIXTEEN]), 4) == 0.0212


D16 = "[" + ", ".join(f'"{x}"' for x in SIXTEEN) + "]"
SNAPSHOT = """\
Over the sixteen topics (one difference is zero, several tie) the Wilcoxon signed-rank test gives W = 20 and p = 0.0222.
With Pratt's treatment of the zero difference it gives W = 23 and p = 0.0207.
With the continuity correction the two-sided p is 0.0239.
The exact test over every sign flip gives p = 0.0212.
A draft had the Wilcoxon signed-rank test give p = 0.031 on the same topics.
On the five differences 0, 0.1, −0.1, 0.2 and 0.3 the Wilcoxon test gives W = 1.5 and p = 0.375.
"""
CLAIMS = f"""\
claims:
  - {{id: W1, title: scipy's default, kind: statistic, quote: "the Wilcoxon signed-rank test gives W = 20 and p = 0.0222",
     claim: Wilcoxon on sixteen topics, test: wilcoxon, sided: two, data: {{differences: {D16}}},
     expect: [{{statistic: W, claimed: "20"}}, {{statistic: p, claimed: "0.0222"}}]}}
  - {{id: W2, title: Pratt, kind: statistic, quote: "With Pratt's treatment of the zero difference it gives W = 23 and p = 0.0207.",
     claim: Wilcoxon with Pratt's zeros, test: wilcoxon, sided: two, zero_method: pratt, data: {{differences: {D16}}},
     expect: [{{statistic: W, claimed: "23"}}, {{statistic: p, claimed: "0.0207"}}]}}
  - {{id: W3, title: continuity, kind: statistic, quote: "With the continuity correction the two-sided p is 0.0239.",
     claim: Wilcoxon with continuity correction, test: wilcoxon, sided: two, continuity: true,
     data: {{differences: {D16}}}, expect: [{{statistic: p, claimed: "0.0239"}}]}}
  - {{id: W4, title: exact, kind: statistic, quote: "The exact test over every sign flip gives p = 0.0212.",
     claim: exact Wilcoxon, test: wilcoxon, sided: two, data: {{differences: {D16}}},
     expect: [{{statistic: p, claimed: "0.0212"}}]}}
  - {{id: W5, title: a slip, kind: statistic, quote: "A draft had the Wilcoxon signed-rank test give p = 0.031 on the same topics.",
     claim: Wilcoxon p, test: wilcoxon, sided: two, data: {{differences: {D16}}},
     expect: [{{statistic: p, claimed: "0.031"}}]}}
  - {{id: W6, title: by hand, kind: statistic, quote: "the Wilcoxon test gives W = 1.5 and p = 0.375",
     claim: Wilcoxon with a zero and a tie, test: wilcoxon, sided: two, data: {{differences: {SMALL}}},
     expect: [{{statistic: W, claimed: "1.5"}}, {{statistic: p, claimed: "0.375"}}]}}
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wilcoxon")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: wilcoxon\ntitle: Wilcoxon\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    return {c.id: c for c in audit_chapter(load_chapter(folder), [], collect("test")).claims}


@pytest.mark.parametrize("claim", ["W1", "W2", "W3", "W6"])
def test_a_wilcoxon_with_zeros_and_ties_is_checked_as_scipy_computes_it(results, claim):
    r = results[claim]
    assert r.verdict == "supported", r.reason
    scipy_rows = [v for c in r.checks for v in c.values if v.implementation == "scipy"]
    assert scipy_rows and all(v.in_interval is not False for v in scipy_rows)


def test_the_exact_p_is_shown_beside_the_approximation(results):
    r = results["W1"]
    assert "the normal approximation, ties corrected" in r.reason and "87/4096 (≈ 0.0212)" in r.reason, r.reason


def test_a_printed_exact_p_is_qualified_not_contradicted(results):
    r = results["W4"]
    assert r.verdict == "qualified", r.reason
    assert "exact two-sided p over every sign flip" in r.reason and "0.0222164" in r.reason
    assert r.response.startswith("Say that the p-value is exact"), r.response


def test_a_wrong_p_is_corrected_to_scipys_default(results):
    r = results["W5"]
    assert r.verdict == "contradicted", r.reason
    assert "“0.031” to “0.022”" in r.response, r.response


def test_a_zero_method_on_another_test_stops_the_load(tmp_path):
    (tmp_path / "snapshot.txt").write_text("A paired t-test gives p = 0.04.\n", encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: z\ntitle: Z\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        'claims:\n  - {id: Z1, title: t, kind: statistic, quote: "A paired t-test gives p = 0.04.", claim: t, '
        'test: paired t, zero_method: pratt, data: {differences: ["0.1", "0.2", "0.3"]}, '
        'expect: [{statistic: p, claimed: "0.04"}]}\n', encoding="utf-8")
    with pytest.raises(RegisterError, match="zero_method"):
        load_chapter(tmp_path)
