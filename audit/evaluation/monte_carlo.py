"""A Monte Carlo estimate held to the exact value within its own error.

A text that reports a percentile bootstrap interval or a randomization test's p drawn from B random resamples
(``np.random.default_rng(42)``, ``n_resamples=10000``, "10,000 resamples") prints an estimate, not the exact value:
a correct text and the exact computation differ by Monte Carlo error. Such a value is held to the exact value within
that error, never to the exact value alone (and, for a listing, to what its own seed prints: see
``audit.evaluation.checks.stat_listing``).

The error bound, ``SPREAD`` (4) standard errors, and why:

* **A p-value** estimated as the share of B random resamples at least as extreme is a binomial proportion: its
  standard error is √(p(1 − p)/B), floored at √(1/B)/√B (one resample's worth) so that an exact p of 0 or 1 still
  allows the estimate a resample either way. Implementations count (hits + 1)/(B + 1) or hits/B; the band adds 1/B
  for that. A correct estimate falls outside ±4 standard errors with probability about 6·10⁻⁵ (normal tail), so a
  text is wrongly contradicted about once in sixteen thousand checks; a wrong p (a one-sided one printed for a
  two-sided test, a tenfold slip) lies many standard errors away at the B texts use (10³–10⁵).
* **A percentile endpoint** is the ⌈qB⌉-th smallest of B resample means (numpy interpolates between neighbours).
  The share of resample means at or below the exact q-quantile is again a binomial proportion, so the estimate lies
  between the exact quantiles at levels q − δ and q + δ, δ = 4·√(q(1 − q)/B) + 1/B (the 1/B for interpolation and
  the index convention). The exact quantiles come from the ideal bootstrap distribution (``significance``), every
  value between its lower and upper quantile included.

The same ``SPREAD`` bounds the audit's own Monte Carlo fallbacks (``significance.SPREAD``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from audit.evaluation import significance
from audit.evaluation.significance import SPREAD, Bounds, Span


def _limit(x: float) -> Fraction:
    return Fraction(x).limit_denominator(10 ** 12)


def p_band(exact, resamples: int) -> Span | None:
    """Every p-value an estimate over ``resamples`` random resamples may print when the exact p is ``exact`` (a
    ``Fraction``, an mpmath number or a ``Span``); None for a reason string."""
    if exact is None or isinstance(exact, str):
        return None
    lo, hi = (exact.lo, exact.hi) if isinstance(exact, Span) else (Fraction(str(exact)), Fraction(str(exact)))

    def se(p: Fraction) -> Fraction:
        p = min(max(float(p), 0.0), 1.0)
        return _limit(math.sqrt(max(p * (1 - p), 1 / resamples) / resamples))

    slack = Fraction(1, resamples)
    return Span(max(Fraction(0), lo - SPREAD * se(lo) - slack), min(Fraction(1), hi + SPREAD * se(hi) + slack),
                f"a Monte Carlo estimate over {resamples:,} random resamples: the exact p ± {SPREAD} standard errors "
                f"√(p(1 − p)/{resamples:,}) and 1/{resamples:,}")


def level_spread(q: Fraction, resamples: int) -> Fraction:
    """δ = ``SPREAD``·√(q(1 − q)/B) + 1/B: how far in level a percentile over B resamples strays from q."""
    return _limit(SPREAD * math.sqrt(float(q) * (1 - float(q)) / resamples)) + Fraction(1, resamples)


def bootstrap_band(d: list[Fraction], confidence: Fraction, resamples: int) -> Bounds:
    """Every percentile interval an estimate over ``resamples`` random resamples of ``d`` may print: each endpoint
    a ``Span`` from the exact quantile at level q − δ to the one at q + δ (``level_spread``)."""
    how = (f"a Monte Carlo estimate over {resamples:,} resamples: between the exact bootstrap quantiles at levels "
           f"q ± {SPREAD} standard errors √(q(1 − q)/{resamples:,}) + 1/{resamples:,}")
    exact = significance.bootstrap_distribution(d)
    means = significance.bootstrap_means(d) if exact is None else None
    ends = []
    for q in ((1 - confidence) / 2, (1 + confidence) / 2):
        delta = level_spread(q, resamples)
        lo_q, hi_q = max(Fraction(0), q - delta), min(Fraction(1), q + delta)
        if exact is not None:
            cumulative, total = exact
            low = significance._quantile_span(cumulative, total, lo_q).lo if lo_q > 0 else cumulative[0][0]
            high = significance._quantile_span(cumulative, total, hi_q).hi if hi_q < 1 else cumulative[-1][0]
            ends.append(Span(low, high, how))
        else:
            span = significance.monte_carlo_quantile(means, lo_q, hi_q)
            ends.append(Span(span.lo, span.hi, how + f"; the exact quantiles themselves {span.how}"))
    return Bounds(*ends)
