"""The chapter's side of a ``statistic`` claim: each significance test, interval and correction a text reports on
paired per-query values, or on two independent samples, computed exactly where the test allows it.

Shapes: differences are ``Fraction`` s (the numbers as printed, 0.10 is 1/10); a side is ``"two"``, ``"greater"``
(a > b) or ``"less"``. Each test returns ``{statistic: value}`` where a value is

* a ``Fraction`` — exact (the mean difference, an enumerated p-value, a count);
* an mpmath number at ``DIGITS`` digits — a value with no finite exact form (t, its p-value, Cohen's d);
* a ``Span`` — every number in [lo, hi] is the statistic (a quantile of a discrete distribution is any value between
  its lower and upper quantile; a Monte Carlo estimate is known to within its error);
* a ``Bounds`` pair of ``Span`` s — a confidence interval's two endpoints;
* a ``str`` — why the statistic is not defined or not computed on this data.

The tests (declared in ``TESTS``; the claim names them):

* **paired t** — t = mean(d) / (s(d)/√n), s with n − 1, on n − 1 degrees of freedom; the two-sided p is the
  regularized incomplete beta I_{ν/(ν+t²)}(ν/2, 1/2) (Student's t; Abramowitz and Stegun 26.7.1), a one-sided p half
  of it on the side t lies, 1 − half on the other.
* **sign** — the positive differences among the non-zero ones against Binomial(n′, 1/2), exactly; two-sided
  p = min(1, 2 · the smaller tail).
* **permutation** — Fisher's randomization test for paired data: the sum of the differences against its distribution
  over all 2^n sign flips, counted exactly by dynamic programming over the differences scaled to integers
  (``EXACT_STATES`` bounds the work); two-sided on |sum|. Beyond the bound, a fixed-seed Monte Carlo estimate over
  ``MONTE_CARLO`` flips, given as a ``Span`` of ±4 standard errors.
* **wilcoxon** — W⁺, the sum of the ranks of |d| over the positive differences, against its exact distribution over
  the 2^n sign flips (dynamic programming on the ranks), when no difference is 0 and no two |d| tie (scipy's
  ``method="exact"``); two-sided statistic min(W⁺, W⁻) and p = min(1, 2 · the smaller tail), as scipy reports them.
* **bootstrap** — the percentile interval of the mean difference (Efron and Tibshirani 1993, ch. 13) at a confidence
  c: the (1−c)/2 and (1+c)/2 quantiles of the mean of n draws with replacement. Exact (the "ideal" bootstrap: the
  n-fold convolution of the differences' empirical distribution, counted in integers) while n^n < 2^63; otherwise a
  fixed-seed Monte Carlo over ``MONTE_CARLO`` resamples, each endpoint a ``Span`` between the order statistics ±4
  binomial standard errors away.
* **student t** — Student's unpaired t-test on two samples a and b (equal variances assumed; scipy's
  ``ttest_ind(a, b, equal_var=True)``): the pooled variance s_p² = ((n_a − 1)s_a² + (n_b − 1)s_b²)/(n_a + n_b − 2),
  t = (mean(a) − mean(b)) / √(s_p²(1/n_a + 1/n_b)) on n_a + n_b − 2 degrees of freedom; p as for the paired t.
* **welch t** — Welch's unpaired t-test (unequal variances; ``ttest_ind(a, b, equal_var=False)``):
  t = (mean(a) − mean(b)) / √(s_a²/n_a + s_b²/n_b) on the Welch–Satterthwaite degrees of freedom
  ν = (s_a²/n_a + s_b²/n_b)² / ((s_a²/n_a)²/(n_a − 1) + (s_b²/n_b)²/(n_b − 1)), a fraction, exact; the same
  incomplete beta gives p for a non-integer ν.
* **bonferroni**, **holm** — adjusted p-values of a family of m comparisons: Bonferroni min(1, m·p); Holm's step-down
  max_{j≤i} min(1, (m − j + 1)·p_(j)) over the p-values sorted ascending (Holm 1979), exact in the printed numbers.

Every paired test also gives the **mean difference** and, when the differences vary, **d** (Cohen's d for paired
data, d_z = mean(d)/s(d)); the paired t also gives its **df**, n − 1. The unpaired tests give t, **df**, p, the mean
difference mean(a) − mean(b) (exact) and **d**, Cohen's d with the pooled standard deviation, (mean(a) − mean(b))/s_p,
the d a library computes by default under that name. Welch's test also gives d over the root mean of the two
variances, (mean(a) − mean(b))/√((s_a² + s_b²)/2) (``ROOT_MEAN_D``): the standardizer Cohen (1988, Statistical Power
Analysis for the Behavioral Sciences, 2nd ed., §2.3.2) gives for unequal variances, which Delacre et al. (2021), “Why
Hedges' g*s based on the non-pooled standard deviation should be reported with Welch's t-test”, call d*_s. With
equal sample sizes the two are the same number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from math import comb


DIGITS = 50
#: The most integer states (scaled sum range × n) a dynamic-programming enumeration may walk; beyond it, Monte Carlo.
EXACT_STATES = 20_000_000
#: Resamples of a Monte Carlo estimate, and its seed (numpy's default_rng).
MONTE_CARLO = 100_000
SEED = 0
#: The width of a Monte Carlo ``Span``, in standard errors.
SPREAD = 4


@dataclass(frozen=True)
class Span:
    """Every number in [lo, hi] is the statistic (exact bounds); ``how`` says why it is a range."""

    lo: Fraction
    hi: Fraction
    how: str = ""

    @property
    def mid(self) -> Fraction:
        return (self.lo + self.hi) / 2


@dataclass(frozen=True)
class Bounds:
    """A confidence interval: each endpoint a ``Span``."""

    low: Span
    high: Span


@dataclass(frozen=True)
class Test:
    """A declared test: its name in a claim, how a reason names it, what it gives, whether it has a side."""

    name: str
    described: str
    statistics: tuple[str, ...]
    sided: bool = True
    family: bool = False  # operates on a family of printed p-values, not on per-query data


TESTS: dict[str, Test] = {t.name: t for t in (
    Test("paired t", "the paired t-test", ("p", "t", "df", "mean difference", "d")),
    Test("sign", "the sign test", ("p", "positives", "mean difference", "d")),
    Test("permutation", "the permutation (randomization) test", ("p", "mean difference", "d")),
    Test("wilcoxon", "the Wilcoxon signed-rank test", ("p", "W", "mean difference", "d")),
    Test("bootstrap", "the percentile bootstrap", ("interval", "mean difference", "d"), sided=False),
    Test("student t", "Student's unpaired t-test (equal variances)", ("p", "t", "df", "mean difference", "d")),
    Test("welch t", "Welch's unpaired t-test (unequal variances)", ("p", "t", "df", "mean difference", "d")),
    Test("bonferroni", "Bonferroni's correction", ("adjusted p",), sided=False, family=True),
    Test("holm", "Holm's step-down correction", ("adjusted p",), sided=False, family=True),
)}
SIDES = {"two": "two-sided", "greater": "one-sided (a > b)", "less": "one-sided (a < b)"}

def as_mpf(x: Fraction):
    import mpmath
    return mpmath.mpf(x.numerator) / x.denominator


def p_of_t(t, nu, side: str):
    """The p-value of Student's t with ``nu`` degrees of freedom (an integer, or a ``Fraction`` such as Welch's;
    mpmath, ``DIGITS`` digits): two-sided I_{ν/(ν+t²)}(ν/2, 1/2); one-sided half of it on the side t lies, 1 − half on
    the other."""
    import mpmath
    mpmath.mp.dps = DIGITS
    t = mpmath.mpf(t)
    nu = as_mpf(nu) if isinstance(nu, Fraction) else mpmath.mpf(nu)
    p_two = mpmath.betainc(nu / 2, mpmath.mpf(1) / 2, 0, nu / (nu + t * t), regularized=True)
    if side == "two":
        return p_two
    half = p_two / 2
    return half if (side == "greater") == (t > 0) else 1 - half


def _scaled(values: list[Fraction]) -> tuple[list[int], int]:
    """``values`` as integers over their common denominator L: (v·L, L)."""
    scale = 1
    for v in values:
        scale = scale * v.denominator // math.gcd(scale, v.denominator)
    return [int(v * scale) for v in values], scale


def _flip_counts(weights: list[int]) -> dict[int, int] | None:
    """How many of the 2^n sign assignments s give each Σ s_i·w_i (integers), or None beyond ``EXACT_STATES``."""
    import numpy as np

    total = sum(abs(w) for w in weights)
    if len(weights) > 62 or (2 * total + 1) * len(weights) > EXACT_STATES:
        return None
    counts = np.zeros(2 * total + 1, dtype=np.int64)
    counts[total] = 1  # index total ↔ sum 0
    for w in (abs(w) for w in weights):
        if w == 0:
            counts = counts * 2
            continue
        moved = np.zeros_like(counts)
        moved[w:] += counts[:-w]  # +w
        moved[:-w] += counts[w:]  # −w
        counts = moved
    return {i - total: int(c) for i, c in enumerate(counts) if c}


def _tail(counts: dict[int, int], observed: int, side: str, strict: bool = False) -> Fraction:
    """The share of the sign flips at least as extreme as ``observed`` (more extreme, with ``strict``)."""
    total = sum(counts.values())
    if strict:
        if side == "two":
            return Fraction(sum(c for s, c in counts.items() if abs(s) > abs(observed)), total)
        return Fraction(sum(c for s, c in counts.items() if (s > observed if side == "greater" else s < observed)),
                        total)
    if side == "two":
        return Fraction(sum(c for s, c in counts.items() if abs(s) >= abs(observed)), total)
    if side == "greater":
        return Fraction(sum(c for s, c in counts.items() if s >= observed), total)
    return Fraction(sum(c for s, c in counts.items() if s <= observed), total)


def strictly_more_extreme(d: list[Fraction], side: str) -> Fraction | None:
    """The randomization test's p counting only the sign flips strictly more extreme than the observed sum (the
    flips that tie it left out), or None beyond the exact enumeration's limit. An implementation comparing float
    sums can miss a tie by rounding; its p then lies between this and the exact p."""
    ints, _ = _scaled(d)
    counts = _flip_counts(ints)
    return None if counts is None else _tail(counts, sum(ints), side, strict=True)


def _monte_carlo_flips(d: list[Fraction], side: str) -> Span:
    import numpy as np

    rng = np.random.default_rng(SEED)
    values = np.array([float(x) for x in d])
    observed = values.sum()
    signs = rng.choice((-1.0, 1.0), size=(MONTE_CARLO, len(values)))
    sums = signs @ values
    eps = 1e-12 * max(1.0, abs(observed))
    hits = (np.abs(sums) >= abs(observed) - eps) if side == "two" else (
        sums >= observed - eps if side == "greater" else sums <= observed + eps)
    p = Fraction(int(hits.sum()), MONTE_CARLO)
    se = Fraction(math.sqrt(max(float(p * (1 - p)), 1 / MONTE_CARLO) / MONTE_CARLO)).limit_denominator(10**12)
    return Span(max(Fraction(0), p - SPREAD * se), min(Fraction(1), p + SPREAD * se),
                f"a Monte Carlo estimate over {MONTE_CARLO:,} random sign flips (seed {SEED}): {float(p):.5f} ± "
                f"{SPREAD} standard errors of {float(se):.1e}; the exact enumeration exceeds its limit here")


def _quantile_span(cumulative: list[tuple[Fraction, int]], total: int, q: Fraction) -> Span:
    """Every q-quantile of a discrete distribution given as sorted (value, cumulative count) pairs: from the least
    x with F(x) ≥ q to the least x with F(x) > q."""
    lower = next(x for x, c in cumulative if Fraction(c, total) >= q)
    upper = next(x for x, c in cumulative if Fraction(c, total) > q)
    return Span(lower, upper, "" if lower == upper else f"every value from {float(lower):.6g} to {float(upper):.6g} "
                "is a quantile of the bootstrap distribution at this level")


def bootstrap_distribution(d: list[Fraction]) -> tuple[list[tuple[Fraction, int]], int] | None:
    """The ideal bootstrap distribution of the mean of ``d``: sorted (value, cumulative count) pairs over the n^n
    equally likely resamples, and n^n; None beyond the exact enumeration's limit."""
    import numpy as np

    n = len(d)
    ints, scale = _scaled(d)
    low_v, span = min(ints), max(ints) - min(ints)
    if not (n ** n < 2 ** 63 and span * n * n < EXACT_STATES):
        return None
    pmf = np.zeros(span + 1, dtype=np.int64)
    for v in ints:
        pmf[v - low_v] += 1
    dist = np.array([1], dtype=np.int64)
    for _ in range(n):
        dist = np.convolve(dist, pmf)
    total = n ** n
    running, cumulative = 0, []
    for i, c in enumerate(dist.tolist()):
        if c:
            running += c
            cumulative.append((Fraction(i + n * low_v, n * scale), running))
    if running != total:  # int64 overflow would show here
        raise ArithmeticError("bootstrap enumeration lost counts")
    return cumulative, total


def bootstrap_means(d: list[Fraction]):
    """The sorted means of ``MONTE_CARLO`` resamples of ``d`` (seed ``SEED``): the Monte Carlo stand-in for the
    ideal bootstrap distribution beyond its limit."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    values = np.array([float(x) for x in d])
    return np.sort(values[rng.integers(0, len(d), size=(MONTE_CARLO, len(d)))].mean(axis=1))


def monte_carlo_quantile(means, lo_q: Fraction, hi_q: Fraction) -> Span:
    """Every value the quantiles from level ``lo_q`` to ``hi_q`` take, read off ``MONTE_CARLO`` sorted resample
    means, widened by ``SPREAD`` binomial standard errors of the order statistics."""
    def index(q: Fraction, sign: int) -> int:
        err = SPREAD * math.sqrt(MONTE_CARLO * float(q) * (1 - float(q)))
        at = float(q) * MONTE_CARLO + sign * err
        return max(0, min(MONTE_CARLO - 1, int(math.floor(at)) if sign < 0 else int(math.ceil(at))))
    return Span(Fraction(float(means[index(lo_q, -1)])), Fraction(float(means[index(hi_q, +1)])),
                f"a Monte Carlo estimate over {MONTE_CARLO:,} resamples (seed {SEED}), ±{SPREAD} standard errors "
                "of the quantile; the exact enumeration exceeds its limit here")


def bootstrap(d: list[Fraction], confidence: Fraction) -> Bounds:
    """The percentile bootstrap interval of the mean of ``d`` at ``confidence`` (see the module's description)."""
    lo_q, hi_q = (1 - confidence) / 2, (1 + confidence) / 2
    exact = bootstrap_distribution(d)
    if exact is not None:
        cumulative, total = exact
        return Bounds(_quantile_span(cumulative, total, lo_q), _quantile_span(cumulative, total, hi_q))
    means = bootstrap_means(d)
    return Bounds(monte_carlo_quantile(means, lo_q, lo_q), monte_carlo_quantile(means, hi_q, hi_q))


def adjusted(method: str, p_values: dict[str, Fraction]) -> dict[str, Fraction]:
    """Each comparison's adjusted p-value under Bonferroni's or Holm's correction, exactly."""
    m = len(p_values)
    if method == "bonferroni":
        return {k: min(Fraction(1), m * p) for k, p in p_values.items()}
    order = sorted(p_values, key=lambda k: p_values[k])
    out, running = {}, Fraction(0)
    for j, k in enumerate(order):
        running = max(running, min(Fraction(1), (m - j) * p_values[k]))
        out[k] = running
    return out


def values(test: str, d: list[Fraction], side: str, confidence: Fraction = Fraction(95, 100), *,
           zero_method: str = "wilcox", correction: bool = False) -> dict[str, object]:
    """Each statistic of ``test`` on the differences ``d`` for ``side`` (see the module's description); a Wilcoxon
    test treats zero differences by ``zero_method`` and applies the continuity ``correction`` when it is asymptotic."""
    import mpmath
    mpmath.mp.dps = DIGITS
    n = len(d)
    mean = sum(d, Fraction(0)) / n
    var = sum(((x - mean) ** 2 for x in d), Fraction(0)) / (n - 1)
    out: dict[str, object] = {"mean difference": mean}
    if var == 0:
        out["t"] = out["d"] = "not defined: every difference is the same, so their standard deviation is 0"
        if test == "paired t":
            out["p"] = out["t"]
    else:
        t2 = mean * mean * n / var
        t = mpmath.sqrt(as_mpf(t2)) * (1 if mean >= 0 else -1)
        out["t"] = t
        out["d"] = as_mpf(mean) / mpmath.sqrt(as_mpf(var))
        if test == "paired t":
            out["p"] = p_of_t(t, n - 1, side)
    if test == "paired t":
        out["df"] = Fraction(n - 1)
    if test == "sign":
        nonzero = [x for x in d if x != 0]
        m, k = len(nonzero), sum(1 for x in nonzero if x > 0)
        out["positives"] = Fraction(k)
        if m == 0:
            out["p"] = "not defined: every difference is 0"
        else:
            upper = Fraction(sum(comb(m, i) for i in range(k, m + 1)), 2 ** m)   # P(X >= k)
            lower = Fraction(sum(comb(m, i) for i in range(0, k + 1)), 2 ** m)   # P(X <= k)
            out["p"] = (min(Fraction(1), 2 * min(upper, lower)) if side == "two" else
                        upper if side == "greater" else lower)
    elif test == "permutation":
        ints, _ = _scaled(d)
        counts = _flip_counts(ints)
        out["p"] = _monte_carlo_flips(d, side) if counts is None else _tail(counts, sum(ints), side)
    elif test == "wilcoxon":
        out.update(wilcoxon(d, side, zero_method, correction))
    elif test == "bootstrap":
        out["interval"] = bootstrap(d, confidence)
    return out


#: scipy.stats.wilcoxon's treatments of a zero difference: dropped before ranking (Wilcoxon's own, scipy's default),
#: ranked then dropped (Pratt 1959), ranked and split half to each sign ("zsplit").
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
#: Up to this many differences with a zero or a tie, scipy's default method enumerates every sign flip (2^13 is less
#: than its 9,999 resamples); beyond it, and beyond ``WILCOXON_EXACT`` differences in any case, it is asymptotic.
WILCOXON_FLIPS = 13
WILCOXON_EXACT = 50


def _midranks(values: list[Fraction]) -> tuple[list[Fraction], list[int]]:
    """The average ranks of ``values`` (ties share the mean of the ranks they span) and the size of each tied group."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks: list[Fraction] = [Fraction(0)] * len(values)
    groups, i = [], 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = Fraction(i + j + 2, 2)
        groups.append(j - i + 1)
        i = j + 1
    return ranks, groups


def wilcoxon(d: list[Fraction], side: str, zero_method: str = "wilcox", correction: bool = False) -> dict[str, object]:
    """The Wilcoxon signed-rank test on ``d`` as scipy.stats.wilcoxon computes it by default (``method="auto"``), with
    the exact value beside when scipy's is an approximation.

    Zero differences are treated by ``zero_method`` (``ZERO_METHODS``); tied |d| share their average rank. W⁺ is the
    sum of the ranks of the positive differences (plus half the zeros' ranks under ``zsplit``); the two-sided
    statistic is min(W⁺, W⁻). The p-value is, as scipy chooses: with no zero and no tie and at most ``WILCOXON_EXACT``
    differences, W⁺'s exact distribution over the 2^n sign flips; with a zero or a tie and at most ``WILCOXON_FLIPS``
    differences, the same enumeration over the flips of the non-zero differences with their average ranks (scipy's
    permutation test, exhaustive there); otherwise the normal approximation z = (W⁺ − μ)/σ with
    μ = n(n+1)/4, σ² = (n(n+1)(2n+1) − Σ(t³ − t)/2)/24 over the n ranked differences and the tied groups' sizes t
    (Pratt: the zeros' share n₀(n₀+1)/4 and n₀(n₀+1)(2n₀+1) taken out, and their tie not counted), less
    ½/σ toward the mean with ``correction``; its p from the normal distribution (two-sided 2·min(Φ(z), 1 − Φ(z))).
    Then ``exact p`` is the enumeration's p (conditional on the ranks), and ``p method`` says which p is ``p``."""
    import mpmath
    if zero_method not in ZERO_METHODS:
        raise ValueError(f"zero_method must be one of {', '.join(ZERO_METHODS)}")
    ranked = [x for x in d if x != 0] if zero_method == "wilcox" else list(d)
    n = len(ranked)
    zeros = [x for x in ranked if x == 0]
    if not [x for x in ranked if x != 0]:
        message = "not defined: every difference is 0"
        return {"W": message, "p": message}
    ranks, groups = _midranks([abs(x) for x in ranked])
    w_plus = sum((r for r, x in zip(ranks, ranked) if x > 0), Fraction(0))
    w_minus = sum((r for r, x in zip(ranks, ranked) if x < 0), Fraction(0))
    zero_ranks = sum((r for r, x in zip(ranks, ranked) if x == 0), Fraction(0))
    if zero_method == "zsplit":
        w_plus, w_minus = w_plus + zero_ranks / 2, w_minus + zero_ranks / 2
    out: dict[str, object] = {"W": min(w_plus, w_minus) if side == "two" else w_plus}
    # the enumeration: Σ s_i·2r_i over the sign flips of the non-zero differences (2r_i is a whole number), which
    # grows with W⁺; the zeros' ranks are the same in every flip
    doubled = [int(2 * r) for r, x in zip(ranks, ranked) if x != 0]
    observed = sum(w if x > 0 else -w for w, x in zip(doubled, (x for x in ranked if x != 0)))
    counts = _flip_counts(doubled)
    exact = None
    if counts is not None:
        upper, lower = _tail(counts, observed, "greater"), _tail(counts, observed, "less")
        exact = min(Fraction(1), 2 * min(upper, lower)) if side == "two" else upper if side == "greater" else lower
    tied = bool(zeros) or any(g > 1 for g in groups) or len(d) != n
    if len(d) <= WILCOXON_EXACT and (not tied or len(d) <= WILCOXON_FLIPS):
        out["p"] = exact if exact is not None else f"not computed exactly: {n} differences exceed the enumeration's limit"
        out["p method"] = "exact" if not tied else "every sign flip, average ranks"
        return out
    nz = len(zeros) if zero_method == "pratt" else 0
    mean = Fraction(n * (n + 1), 4) - Fraction(nz * (nz + 1), 4)
    var = Fraction(n * (n + 1) * (2 * n + 1)) - nz * (nz + 1) * (2 * nz + 1)
    zero_group = zero_method == "pratt" and bool(zeros)   # scipy leaves the zeros' tie out of the correction
    ties = sum(t ** 3 - t for t in groups) - ((len(zeros) ** 3 - len(zeros)) if zero_group else 0)
    sigma = mpmath.sqrt(as_mpf((var - Fraction(ties, 2)) / 24))
    z = (as_mpf(w_plus) - as_mpf(mean)) / sigma
    if correction:
        sign = 1 if side == "greater" else -1 if side == "less" else (1 if z > 0 else -1 if z < 0 else 0)
        z -= sign * mpmath.mpf(1) / 2 / sigma
    below, above = mpmath.ncdf(z), mpmath.ncdf(-z)
    out["p"] = min(mpmath.mpf(1), 2 * min(below, above)) if side == "two" else above if side == "greater" else below
    out["p method"] = ("the normal approximation, ties corrected" + (", with continuity correction" if correction else "")
                       + f" (z = {mpmath.nstr(z, 6)})")
    if exact is not None:
        out["exact p"] = exact
    return out


def _mean_var(x: list[Fraction]) -> tuple[Fraction, Fraction]:
    """The mean and the sample variance (with n − 1) of ``x``, exactly."""
    n = len(x)
    mean = sum(x, Fraction(0)) / n
    return mean, sum(((v - mean) ** 2 for v in x), Fraction(0)) / (n - 1)


#: Welch's test's other standardized mean difference: over the root mean of the two variances, √((s_a² + s_b²)/2).
ROOT_MEAN_D = "d over the root mean of the variances"


def two_samples(test: str, a: list[Fraction], b: list[Fraction], side: str) -> dict[str, object]:
    """Each statistic of an unpaired t-test (``student t`` or ``welch t``) of sample ``a`` against sample ``b`` for
    ``side`` (see the module's description): t, df, p, the mean difference mean(a) − mean(b) and d. t² and Welch's df
    are exact fractions; t, p and d are mpmath numbers at ``DIGITS`` digits."""
    import mpmath
    mpmath.mp.dps = DIGITS
    na, nb = len(a), len(b)
    ma, va = _mean_var(a)
    mb, vb = _mean_var(b)
    diff = ma - mb
    out: dict[str, object] = {"mean difference": diff}
    pooled = ((na - 1) * va + (nb - 1) * vb) / (na + nb - 2)
    if test == "student t":
        df = Fraction(na + nb - 2)
        se2 = pooled * (Fraction(1, na) + Fraction(1, nb))
        why = "every value of each sample is the same, so the pooled standard deviation is 0"
    else:
        ea, eb = va / na, vb / nb
        se2 = ea + eb
        # each sample's share of the variance over its own n − 1; a sample with no spread adds nothing
        denominator = (ea * ea / (na - 1) if ea else 0) + (eb * eb / (nb - 1) if eb else 0)
        df = se2 * se2 / denominator if denominator else None
        why = "every value of each sample is the same, so neither sample has a variance"
    out["df"] = df if df is not None else f"not defined: {why}"
    if se2 == 0:
        out["t"] = out["p"] = out["d"] = f"not defined: {why}"
        return out
    t = mpmath.sqrt(as_mpf(diff * diff / se2)) * (1 if diff >= 0 else -1)
    out["t"] = t
    out["p"] = p_of_t(t, df, side)
    out["d"] = as_mpf(diff) / mpmath.sqrt(as_mpf(pooled))
    if test == "welch t":
        out[ROOT_MEAN_D] = as_mpf(diff) / mpmath.sqrt(as_mpf((va + vb) / 2))
    return out
