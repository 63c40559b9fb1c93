"""Statistic claims: a significance test the text reports on paired per-query values, recomputed exactly where the
test allows it and by scipy, under every reading of what the text leaves open (whether the test is one- or
two-sided).

The chapter's side, in exact arithmetic (``fractions``) where the statistic is rational and with mpmath at 50 digits
where it is not:

* **paired t** — t = mean(d) / (s(d) / √n), s with n − 1, on n − 1 degrees of freedom; the two-sided p is the
  regularized incomplete beta I_{ν/(ν+t²)}(ν/2, 1/2) (Student's t distribution; the identity used by Abramowitz and
  Stegun 26.7.1), a one-sided p half of it on the side the data lean, 1 − half on the other;
* **sign** — the number of positive differences among the non-zero ones against Binomial(n′, 1/2), exactly;
  two-sided p = min(1, 2 · the smaller tail);
* **permutation** — the mean difference against its distribution over all 2^n sign flips (Fisher's randomization
  test for paired data, enumerated exactly), two-sided on |mean|;
* **wilcoxon** — W⁺, the sum of the ranks of |d| over the positive differences, against its exact distribution
  over the 2^n sign flips, when no difference is 0 and no two |d| tie (scipy's ``method="exact"``); two-sided
  statistic min(W⁺, W⁻) and p = min(1, 2 · the smaller tail), as scipy reports them;
* **mean difference** and **d** (Cohen's d for paired data, d_z = mean(d) / s(d)).

The reference is scipy.stats (``ttest_1samp`` on the differences, ``binomtest``, ``permutation_test`` with every
sign flip, ``wilcoxon``), called as its users call it.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import mpmath

from audit.attribution.verdict import Evidence, Point
from audit.evaluation.checks.common import CHAPTER, Measurements, fmt_float
from audit.register.claims import Chapter, StatisticClaim
from audit.register.values import parse_claimed
from audit.report.results import Check, ImplValue

DIGITS = 50
SIDES = {"two": "two-sided", "greater": "one-sided (a > b)", "less": "one-sided (a < b)"}
#: How each statistic is named in a reason.
NAMES = {"p": "the p-value", "t": "t", "positives": "the number of positive differences", "W": "W",
         "mean difference": "the mean difference", "d": "Cohen's d"}


def differences(claim: StatisticClaim) -> list[Fraction]:
    """The per-query differences a − b, each value taken as the exact number printed (0.10 is 1/10)."""
    d = claim.data
    if d.differences is not None:
        return [parse_claimed(v).nominal for v in d.differences]
    return [parse_claimed(x).nominal - parse_claimed(y).nominal for x, y in zip(d.a, d.b)]


def _one_sided(p_two, t_positive: bool, side: str):
    """A one-sided p from a two-sided one whose distribution is symmetric about 0."""
    half = p_two / 2
    return half if (side == "greater") == t_positive else 1 - half


def _sign_flips(values: list[Fraction]):
    """Σ s_i · v_i over every assignment of signs s_i = ±1 (2^n of them)."""
    for signs in itertools.product((1, -1), repeat=len(values)):
        yield sum((s * v for s, v in zip(signs, values)), Fraction(0))


def chapter_values(claim: StatisticClaim, side: str) -> dict[str, object]:
    """Each statistic the chapter's side computes for ``side`` (two, greater, less): Fractions where exact, mpmath
    numbers otherwise, and a reason string where the statistic is not defined on this data."""
    mpmath.mp.dps = DIGITS
    d = differences(claim)
    n = len(d)
    mean = sum(d, Fraction(0)) / n
    var = sum(((x - mean) ** 2 for x in d), Fraction(0)) / (n - 1)
    out: dict[str, object] = {"mean difference": mean}
    if var == 0:
        out["t"] = out["d"] = "not defined: every difference is the same, so their standard deviation is 0"
    else:
        t2 = mean * mean * n / var
        t = mpmath.sqrt(mpmath.mpf(t2.numerator) / t2.denominator) * (1 if mean >= 0 else -1)
        out["t"] = t
        out["d"] = mpmath.mpf(mean.numerator) / mean.denominator / mpmath.sqrt(mpmath.mpf(var.numerator) / var.denominator)
        if claim.test == "paired t":
            out["p"] = _p_of_t(t, n - 1, side)
    if claim.test == "sign":
        nonzero = [x for x in d if x != 0]
        m, k = len(nonzero), sum(1 for x in nonzero if x > 0)
        out["positives"] = Fraction(k)
        if m == 0:
            out["p"] = "not defined: every difference is 0"
        else:
            upper = Fraction(sum(comb(m, i) for i in range(k, m + 1)), 2 ** m)   # P(X >= k)
            lower = Fraction(sum(comb(m, i) for i in range(0, k + 1)), 2 ** m)   # P(X <= k)
            out["p"] = min(Fraction(1), 2 * min(upper, lower)) if side == "two" else upper if side == "greater" \
                else lower
    elif claim.test == "permutation":
        total = sum(d, Fraction(0))
        flips = list(_sign_flips(d))
        if side == "two":
            out["p"] = Fraction(sum(1 for f in flips if abs(f) >= abs(total)), len(flips))
        elif side == "greater":
            out["p"] = Fraction(sum(1 for f in flips if f >= total), len(flips))
        else:
            out["p"] = Fraction(sum(1 for f in flips if f <= total), len(flips))
    elif claim.test == "wilcoxon":
        magnitudes = [abs(x) for x in d]
        if 0 in magnitudes or len(set(magnitudes)) < n:
            reason = ("not computed exactly: a difference is 0 or two tie in size, where the exact distribution of "
                      "W does not apply (scipy then chooses its own method)")
            out["W"] = out["p"] = reason
        else:
            ranks = {v: r for r, v in enumerate(sorted(magnitudes), start=1)}
            r = [ranks[abs(x)] for x in d]
            w_plus = sum(ri for ri, x in zip(r, d) if x > 0)
            w_minus = sum(r) - w_plus
            counts: dict[int, int] = {}
            for signs in itertools.product((0, 1), repeat=n):
                w = sum(ri for ri, s in zip(r, signs) if s)
                counts[w] = counts.get(w, 0) + 1
            total = 2 ** n
            upper = Fraction(sum(c for w, c in counts.items() if w >= w_plus), total)
            lower = Fraction(sum(c for w, c in counts.items() if w <= w_plus), total)
            if side == "two":
                out["W"], out["p"] = Fraction(min(w_plus, w_minus)), min(Fraction(1), 2 * min(upper, lower))
            else:
                out["W"], out["p"] = Fraction(w_plus), upper if side == "greater" else lower
    return out


def scipy_values(claim: StatisticClaim, side: str) -> dict[str, object]:
    """The same statistics as scipy.stats computes them (floats), or the error it raised."""
    import numpy as np
    from scipy import stats

    d = np.array([float(x) for x in differences(claim)])
    alternative = {"two": "two-sided", "greater": "greater", "less": "less"}[side]
    out: dict[str, object] = {"mean difference": float(d.mean())}
    try:
        if claim.test == "paired t":
            r = stats.ttest_1samp(d, 0.0, alternative=alternative)
            out["t"], out["p"] = float(r.statistic), float(r.pvalue)
        elif claim.test == "sign":
            nonzero = d[d != 0]
            k = int((nonzero > 0).sum())
            out["positives"] = float(k)
            out["p"] = float(stats.binomtest(k, len(nonzero), 0.5, alternative=alternative).pvalue)
        elif claim.test == "permutation":
            r = stats.permutation_test((d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples",
                                       n_resamples=np.inf, alternative=alternative)
            out["p"] = float(r.pvalue)
        elif claim.test == "wilcoxon":
            r = stats.wilcoxon(d, alternative=alternative)
            out["W"], out["p"] = float(r.statistic), float(r.pvalue)
    except (ValueError, ZeroDivisionError, FloatingPointError) as exc:
        out["p"] = f"scipy refused: {exc}"
    return out


def _show(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, Fraction):
        return (f"{v.numerator}/{v.denominator} (≈ {float(v):.4f})" if v.denominator != 1 and v.denominator <= 10**6
                else f"{float(v):.6g}")
    return mpmath.nstr(v, 6)


def _number(v) -> Fraction | None:
    """A computed statistic as an exact number (an mpmath value to 40 significant digits), None for a reason."""
    if v is None or isinstance(v, str):
        return None
    if isinstance(v, Fraction):
        return v
    return Fraction(mpmath.nstr(v, 40))


def _p_of_t(t, nu: int, side: str):
    """The p-value of Student's t with ``nu`` degrees of freedom (mpmath, ``DIGITS`` digits): two-sided
    I_{ν/(ν+t²)}(ν/2, 1/2); one-sided half of it on the side t lies, 1 − half on the other."""
    mpmath.mp.dps = DIGITS
    t = mpmath.mpf(t)
    p_two = mpmath.betainc(mpmath.mpf(nu) / 2, mpmath.mpf(1) / 2, 0, nu / (nu + t * t), regularized=True)
    return p_two if side == "two" else _one_sided(p_two, t > 0, side)


def _as_mpf(x: Fraction):
    return mpmath.mpf(x.numerator) / x.denominator


def _reported(claim: StatisticClaim, evidence: Evidence) -> Evidence:
    """A t-test reported without its data, checked as statcheck checks papers: the p-value recomputed from the
    printed t and df. Consistent → supported; consistent only for some t the printed t rounds from → qualified
    (the rounding named); otherwise contradicted, and a decision error (the printed p and the recomputed one on
    opposite sides of α) leads. The one-sided reading is tried when the text does not state the sidedness."""
    from scipy import stats

    r = claim.reported
    t_printed, p_printed = parse_claimed(r.t), parse_claimed(r.p)
    t = t_printed.nominal
    alpha = parse_claimed(claim.alpha).nominal
    sides = [claim.sided] if claim.sided else ["two", "greater" if t >= 0 else "less"]
    lo, hi = (t_printed.low, t_printed.high) if t_printed.low is not None and t_printed.high is not None else (t, t)
    found = {}
    for side in sides:
        p = _p_of_t(_as_mpf(t), r.df, side)
        ends = sorted([_p_of_t(_as_mpf(lo), r.df, side), _p_of_t(_as_mpf(hi), r.df, side)])
        found[side] = (p, ends)
    label = f"the p-value of t({r.df}) = {r.t}"
    rows = []
    for side, (p, ends) in found.items():
        scipy_p = float(2 * stats.t.sf(abs(float(t)), r.df)) if side == "two" else             float(stats.t.sf(float(t), r.df) if side == "greater" else stats.t.cdf(float(t), r.df))
        rows += [ImplValue(implementation=CHAPTER, provider=f"mpmath, {DIGITS} digits", behaviour=SIDES[side],
                           value=float(p), in_interval=p_printed.contains(_number(p))),
                 ImplValue(implementation="scipy", provider="scipy.stats.t", behaviour=SIDES[side], value=scipy_p,
                           in_interval=p_printed.contains(scipy_p))]
    evidence.checks.append(Check(label=label, measure="p", claimed=str(r.p), interval=p_printed.interval(),
                                 values=rows))

    def holds(side) -> bool:
        return p_printed.contains(_number(found[side][0]))

    def by_rounding(side) -> bool:
        a, b = found[side][1]
        return p_printed.decide(_number(a), _number(b)) is not False

    def significant(x) -> bool:
        return x < alpha

    shown = "; ".join(f"{SIDES[s]} p = {_show(found[s][0])}" for s in sides)
    first = sides[0]
    printed_sig = None if p_printed.low is None and p_printed.high is None else (
        p_printed.high <= alpha if p_printed.high is not None and (p_printed.low is None or p_printed.low < alpha)
        else False)
    decision_error = printed_sig is not None and all(significant(_number(found[s][0])) != printed_sig for s in sides)
    if holds(first):
        evidence.scopes.append(f"{label}: {shown}, consistent with the printed p {r.p}")
    elif any(holds(s) for s in sides):
        good = next(s for s in sides if holds(s))
        evidence.conditions.append(Point(
            f"{label}: the printed p {r.p} holds only for a {SIDES[good]} test ({shown}), and the text does not say "
            "which", f"Say that the test is {SIDES[good]} (checked: t({r.df}) = {r.t} gives the printed p then)."))
        evidence.lead = ""
    elif by_rounding(first):
        a, b = found[first][1]
        evidence.conditions.append(Point(
            f"{label}: t = {float(t):g} gives {SIDES[first]} p = {_show(found[first][0])}, outside the printed "
            f"{r.p}; only because the printed t is rounded (t in [{float(lo):g}, {float(hi):g}] gives p from "
            f"{_show(a)} to {_show(b)}) can they agree",
            f"Print t with another digit, or the p-value t({r.df}) = {r.t} gives (≈ {float(found[first][0]):.3f})."))
        evidence.lead = ""
    else:
        value = float(found[first][0])
        new = _p_text(value, str(r.p)) if p_printed.nominal is not None else ""
        text = f"{label}: {shown}, outside the printed {p_printed.interval()}"
        verdict = ""
        if decision_error:
            text = ("decision error: " + text + f"; at α = {float(alpha):g} the printed p says "
                    f"{'significant' if printed_sig else 'not significant'}, the recomputed one the opposite")
            verdict = (f" The difference is then {'not ' if printed_sig else ''}significant at the "
                       f"{float(alpha) * 100:g} % level: say so where the text draws its conclusion.")
        evidence.failures.append(Point(
            text, (f"Change “{r.p}” to “{new}” (checked: t({r.df}) = {r.t} gives it, {SIDES[first]})."
                   if new and parse_claimed(new).contains(_number(found[first][0])) and str(r.p) in claim.quote else
                   f"Revise the p-value: t({r.df}) = {r.t} gives {SIDES[first]} p = {_show(found[first][0])}.")
            + verdict))
    return evidence


def _p_text(value: float, printed: str) -> str:
    """A recomputed p-value written to two significant digits, as the text writes its p (with or without the
    leading zero): 0.0751678 after “.04” is “≈ .075”."""
    text = f"{value:.2g}"
    if "e" in text:
        text = f"{value:.2e}"
    elif printed.lstrip("<>=≤≥≈ ").startswith(".") and text.startswith("0."):
        text = text[1:]
    return "≈ " + text


def check(claim: StatisticClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    if claim.reported is not None:
        return _reported(claim, evidence)
    d = differences(claim)
    mean = sum(d, Fraction(0)) / len(d)
    sides = [claim.sided] if claim.sided else ["two", "greater" if mean >= 0 else "less"]
    alpha = parse_claimed(claim.alpha).nominal
    ours = {side: chapter_values(claim, side) for side in sides}
    theirs = {side: scipy_values(claim, side) for side in sides}
    name = {"paired t": "the paired t-test", "sign": "the sign test", "permutation": "the exact permutation test",
            "wilcoxon": "the Wilcoxon signed-rank test"}[claim.test]
    label = f"{name} on {len(d)} paired differences"
    for e in claim.expect:
        printed = parse_claimed(e.claimed, tolerance=e.tolerance)
        rows, holds = [], {}
        for side in sides:
            mine, other = ours[side].get(e.statistic), theirs[side].get(e.statistic)
            value = _number(mine)
            holds[side] = value is not None and printed.contains(value)
            rows.append(ImplValue(implementation=CHAPTER, provider="exact" if isinstance(mine, Fraction) else
                                  f"mpmath, {DIGITS} digits", behaviour=SIDES[side],
                                  status="ok" if value is not None else "not applicable",
                                  value=float(value) if value is not None else None, detail=mine if value is None else "",
                                  in_interval=holds[side] if value is not None else None))
            if other is not None:
                rows.append(ImplValue(implementation="scipy", provider="scipy.stats", behaviour=SIDES[side],
                                      status="ok" if not isinstance(other, str) else "error",
                                      value=float(other) if not isinstance(other, str) else None,
                                      detail=other if isinstance(other, str) else "",
                                      in_interval=printed.contains(float(other)) if not isinstance(other, str) else None))
                if value is not None and not isinstance(other, str) and abs(float(value) - float(other)) > \
                        1e-9 * max(1.0, abs(float(value))):
                    evidence.conditions.append(Point(
                        f"{e.statistic} ({SIDES[side]}): scipy gives {fmt_float(float(other))} where the exact "
                        f"computation gives {_show(mine)}", "Investigate the difference before publishing."))
        what = f"{NAMES[e.statistic]} of {label}"
        evidence.checks.append(Check(label=what, measure=e.statistic, claimed=str(e.claimed),
                                     interval=printed.interval(), values=rows))
        shown = "; ".join(f"{SIDES[s]}: {_show(ours[s].get(e.statistic))}" for s in sides)
        if all(holds.values()):
            evidence.scopes.append(f"{what}: {shown}, as printed")
        elif any(holds.values()):
            good = [s for s in sides if holds[s]]
            bad = [s for s in sides if not holds[s]]
            evidence.conditions.append(Point(
                f"{what}: the printed {e.claimed} holds only for a {SIDES[good[0]]} test "
                f"({shown}), and the text does not say which test it ran",
                f"Say that the test is {SIDES[good[0]]} (checked: the printed {e.claimed} is its {e.statistic})."))
            evidence.concern = evidence.concern or (
                f"A reader who runs the {SIDES[bad[0]]} test gets {_show(ours[bad[0]].get(e.statistic))}, not the "
                f"printed {e.claimed}.")
            evidence.lead = ""
        else:
            first = sides[0]
            value = _number(ours[first].get(e.statistic))
            if value is None:
                evidence.errors.append(f"{what}: {ours[first].get(e.statistic)}")
                continue
            new = printed.write_like(value, exact=isinstance(ours[first].get(e.statistic), Fraction))
            evidence.failures.append(Point(
                f"{what}: {shown}, outside the printed {printed.interval()}",
                f"Change “{e.claimed}” to “{new}” ({SIDES[first]}; checked: the exact computation and scipy give it)."
                if parse_claimed(new).contains(value) and str(e.claimed) in claim.quote else
                f"Revise: the {SIDES[first]} {e.statistic} is {_show(ours[first].get(e.statistic))} here."))
    if claim.decision is not None:
        decided = {}
        for side in sides:
            p = _number(ours[side].get("p"))
            if p is not None:
                decided[side] = "significant" if p < alpha else "not significant"
        if not decided:
            evidence.errors.append(f"the decision cannot be checked: {ours[sides[0]].get('p')}")
        elif all(v == claim.decision for v in decided.values()):
            evidence.scopes.append(f"the decision “{claim.decision}” at α = {float(alpha):g} holds ("
                                   + "; ".join(f"{SIDES[s]} p = {_show(ours[s]['p'])}" for s in decided) + ")")
        elif any(v == claim.decision for v in decided.values()):
            good = next(s for s in decided if decided[s] == claim.decision)
            bad = next(s for s in decided if decided[s] != claim.decision)
            evidence.conditions.append(Point(
                f"decision error unless the test is {SIDES[good]}: “{claim.decision}” at α = {float(alpha):g} holds "
                f"for the {SIDES[good]} p = {_show(ours[good]['p'])}, not for the {SIDES[bad]} p = "
                f"{_show(ours[bad]['p'])}",
                f"Say that the test is {SIDES[good]}, or that the difference is {decided[bad]} at the "
                f"{float(alpha) * 100:g} % level with a {SIDES[bad]} test."))
            evidence.lead = ""
        else:
            side = sides[0]
            evidence.failures.insert(0, Point(
                f"decision error: the text says “{claim.decision}” at α = {float(alpha):g}, but p = "
                f"{_show(ours[side]['p'])} ({SIDES[side]}" + (f"; {SIDES[sides[1]]}: {_show(ours[sides[1]]['p'])}"
                                                              if len(sides) > 1 else "") + ")",
                f"Say that the difference is {decided[side]} at the {float(alpha) * 100:g} % level."))
            evidence.concern = ("Readers will take the difference as established when the data do not support it."
                                if claim.decision == "significant" else
                                "Readers will dismiss a difference the data show at the stated level.")
    return evidence
