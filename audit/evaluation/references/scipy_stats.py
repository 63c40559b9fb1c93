"""scipy.stats, called as its users call it: the reference for every statistic a ``statistic`` claim prints.

``ttest_1samp`` on the differences (the same as ``ttest_rel`` on a and b), ``binomtest`` on the positive
differences among the non-zero ones, ``permutation_test`` over every sign flip (``n_resamples=inf``,
``permutation_type="samples"``), ``wilcoxon`` with its default method, and ``bootstrap`` with
``method="percentile"``, ``BOOTSTRAP_RESAMPLES`` resamples and seed ``SEED``; ``ttest_ind`` on two samples, with
``equal_var=True`` (Student's t) or ``False`` (Welch's).
"""

from __future__ import annotations

from collections.abc import Sequence

#: scipy.stats.bootstrap's default number of resamples, and the seed the audit gives it.
BOOTSTRAP_RESAMPLES = 9999
#: scipy.stats.permutation_test's default resamples: it enumerates all 2^n sign flips when there are no more (n ≤ 13)
#: and draws this many at random otherwise (a Monte Carlo estimate).
PERMUTATION_RESAMPLES = 9999
SEED = 0
ALTERNATIVE = {"two": "two-sided", "greater": "greater", "less": "less"}


def version() -> str:
    import scipy
    return scipy.__version__


def p_of_t(t: float, df: float, side: str) -> float:
    """The p-value of Student's t with ``df`` degrees of freedom for ``side`` (scipy.stats.t): two-sided
    2·sf(|t|), greater sf(t), less cdf(t)."""
    from scipy import stats

    if side == "two":
        return float(2 * stats.t.sf(abs(t), df))
    return float(stats.t.sf(t, df) if side == "greater" else stats.t.cdf(t, df))


def values(test: str, differences: Sequence[float], side: str, confidence: float = 0.95,
           resamples: int = BOOTSTRAP_RESAMPLES, wanted: frozenset[str] | None = None, *, zero_method: str = "wilcox",
           correction: bool = False) -> dict[str, object]:
    """Each statistic scipy computes for ``test`` on ``differences`` (floats, a − b per query) for ``side``:
    floats, ``"interval"`` a (low, high) pair, or a message string where scipy refused. With ``wanted``, the test
    itself runs only when one of its statistics (p, t, positives, W, interval) is wanted. A Wilcoxon test is given
    ``zero_method`` and ``correction`` (scipy's own defaults unless the text states others)."""
    import numpy as np
    from scipy import stats

    d = np.array([float(x) for x in differences])
    alternative = ALTERNATIVE[side]
    out: dict[str, object] = {"mean difference": float(d.mean())}
    sd = float(d.std(ddof=1))
    if sd > 0:
        out["d"] = float(d.mean()) / sd
    if wanted is not None and not wanted & {"p", "t", "positives", "W", "interval"}:
        return out
    try:
        if test == "paired t":
            r = stats.ttest_1samp(d, 0.0, alternative=alternative)
            out["t"], out["p"], out["df"] = float(r.statistic), float(r.pvalue), float(r.df)
        elif test == "sign":
            nonzero = d[d != 0]
            k = int((nonzero > 0).sum())
            out["positives"] = float(k)
            out["p"] = float(stats.binomtest(k, len(nonzero), 0.5, alternative=alternative).pvalue)
        elif test == "permutation":  # exact while 2^n ≤ its resamples, else a Monte Carlo estimate over them
            r = stats.permutation_test((d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples",
                                       n_resamples=PERMUTATION_RESAMPLES, alternative=alternative,
                                       rng=np.random.default_rng(SEED))
            out["p"] = float(r.pvalue)
        elif test == "wilcoxon":
            r = stats.wilcoxon(d, zero_method=zero_method, correction=correction, alternative=alternative)
            out["W"], out["p"] = float(r.statistic), float(r.pvalue)
        elif test == "bootstrap":
            r = stats.bootstrap((d,), np.mean, confidence_level=confidence, n_resamples=resamples,
                                method="percentile", rng=np.random.default_rng(SEED))
            out["interval"] = (float(r.confidence_interval.low), float(r.confidence_interval.high))
    except (ValueError, ZeroDivisionError, FloatingPointError) as exc:
        out["p"] = f"scipy refused: {exc}"
    return out


def two_samples(test: str, a: Sequence[float], b: Sequence[float], side: str) -> dict[str, object]:
    """scipy's unpaired t-test of ``a`` against ``b`` for ``side``, as its users call it:
    ``ttest_ind(a, b, equal_var=True)`` for ``student t``, ``equal_var=False`` for ``welch t``; t, df and p from its
    result, the mean difference and d (over the pooled standard deviation; for Welch's test also over the root mean
    of the two variances) from numpy. A message string where scipy refused or gives no number."""
    import numpy as np
    from scipy import stats

    x, y = np.array([float(v) for v in a]), np.array([float(v) for v in b])
    out: dict[str, object] = {"mean difference": float(x.mean() - y.mean())}
    va, vb = float(x.var(ddof=1)), float(y.var(ddof=1))
    pooled = (((len(x) - 1) * va + (len(y) - 1) * vb) / (len(x) + len(y) - 2)) ** 0.5
    if pooled > 0:
        out["d"] = out["mean difference"] / pooled
    if test == "welch t" and va + vb > 0:
        from audit.evaluation.significance import ROOT_MEAN_D
        out[ROOT_MEAN_D] = out["mean difference"] / ((va + vb) / 2) ** 0.5
    try:
        r = stats.ttest_ind(x, y, equal_var=test == "student t", alternative=ALTERNATIVE[side])
    except (ValueError, ZeroDivisionError, FloatingPointError) as exc:
        out["p"] = f"scipy refused: {exc}"
        return out
    for name, value in (("t", r.statistic), ("p", r.pvalue), ("df", r.df)):
        value = float(value)
        out[name] = value if np.isfinite(value) else f"scipy gives {value} (the samples have no variance)"
    return out
