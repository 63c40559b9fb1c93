"""What scipy and the other libraries return for a statistic claim's test on its data: one row per library and side,
each explained where it differs from the exact computation (a normal approximation, a tie correction, another
definition of the statistic)."""

from __future__ import annotations

from fractions import Fraction


from audit.model.evidence import Evidence, Point
from audit.evaluation import significance
from audit.evaluation.checks.common import Measurements, fmt_float
from audit.evaluation.references import scipy_stats
from audit.evaluation.significance import SIDES, Bounds, Span
from audit.model.results import ImplValue


def show_value(v) -> str:
    import mpmath
    if isinstance(v, str):
        return v
    if isinstance(v, Span):
        return show_value(v.lo) if v.lo == v.hi else f"{float(v.mid):.6g} (± {float(v.hi - v.mid):.1e})"
    if isinstance(v, Bounds):
        return f"[{show_value(v.low)}, {show_value(v.high)}]"
    if isinstance(v, tuple):
        return f"[{v[0]:.6g}, {v[1]:.6g}]"
    if isinstance(v, Fraction):
        return (f"{v.numerator}/{v.denominator} (≈ {float(v):.4f})" if v.denominator != 1 and v.denominator <= 10**6
                else f"{float(v):.6g}")
    if isinstance(v, float):
        return fmt_float(v)
    return mpmath.nstr(v, 6)


def as_number(v) -> Fraction | None:
    """A computed statistic as an exact number (an mpmath value to 40 significant digits, a span's midpoint), None for
    a reason or an interval."""
    import mpmath
    if v is None or isinstance(v, (str, Bounds, tuple)):
        return None
    if isinstance(v, Span):
        return v.mid
    if isinstance(v, Fraction):
        return v
    return Fraction(mpmath.nstr(v, 40))


def library_results(ms: Measurements, test: str, d: list[Fraction]) -> dict[str, dict]:
    """Each reference's own two-sided test on the differences (ranx's t-test and randomization test), by name."""
    out = {}
    for ref in ms.references:
        if test in ref.SIGNIFICANCE:
            result = ref.significance(test, [float(x) for x in d], [0.0] * len(d))
            if result is not None:
                out[ref.name] = result
    return out


def explain_library(name: str, result: dict, exact, evidence: Evidence, d: list[Fraction] | None = None
                     ) -> ImplValue:
    """A library's p-value as a row, its difference from the exact p explained or, unexplained, a condition."""
    if "error" in result:
        evidence.notes.append(f"{name} raised on this data: {result['error']}")
        return ImplValue(implementation=name, provider=name, behaviour=SIDES["two"], status="error",
                         detail=str(result["error"]))
    p = float(result["p"])
    row = ImplValue(implementation=name, provider=str(result.get("how", name)), behaviour=SIDES["two"], value=p)
    if exact is None or isinstance(exact, str):
        return row
    target = float(as_number(exact))
    if abs(p - target) <= 1e-9 * max(1.0, abs(target)):
        return row
    permutations = 1000 if "randomization" in str(result.get("how", "")) else None
    if permutations is not None:
        se = (max(target * (1 - target), 1 / permutations) / permutations) ** 0.5
        if abs(p - target) <= significance.SPREAD * se:
            evidence.notes.append(
                f"{name}'s randomization test gives p = {p:.4g}, a Monte Carlo estimate over {permutations:,} random "
                f"permutations: {abs(p - target) / se:.1f} of its standard errors ({se:.2g}) from the exact p "
                f"{show_value(exact)} that enumerating every sign flip gives")
            return row
        strict = significance.strictly_more_extreme(d, "two") if d is not None else None
        if strict is not None and strict != as_number(exact):
            low = float(strict)
            se_low = (max(low * (1 - low), 1 / permutations) / permutations) ** 0.5
            if low - significance.SPREAD * se_low <= p <= target + significance.SPREAD * se:
                evidence.notes.append(
                    f"{name}'s randomization test gives p = {p:.4g}: it compares float means with ≥, so a permutation "
                    f"whose mean difference ties the observed one in exact arithmetic counts or not by rounding, and "
                    f"its p then lies, within the error of its {permutations:,} random permutations, between "
                    f"{show_value(strict)} (no tie counted) and the exact {show_value(exact)} (every tie counted)")
                return row
    evidence.conditions.append(Point(
        f"{name} gives p = {p:.6g} (two-sided) where the exact computation gives {show_value(exact)}, a difference no "
        "known cause explains", "Investigate the difference before publishing."))
    evidence.lead = ""
    return row


def reference_rows(test: str, statistic: str, side: str, mine, other, d: list[Fraction], confidence: Fraction,
                    evidence: Evidence) -> list[ImplValue]:
    """scipy's value as a row; a difference from the chapter's side explained by experiment or made a condition."""
    if other is None:
        return []
    if isinstance(other, str):
        return [ImplValue(implementation="scipy", provider="scipy.stats", behaviour=SIDES[side],
                          status="not applicable" if other.startswith("scipy not asked") else "error", detail=other)]
    if isinstance(other, tuple):
        row = ImplValue(implementation="scipy", provider=f"scipy.stats.bootstrap, percentile, "
                        f"{scipy_stats.BOOTSTRAP_RESAMPLES} resamples, seed {scipy_stats.SEED}",
                        behaviour=SIDES[side], value=None, detail=show_value(other))
        if isinstance(mine, Bounds):
            # each endpoint scipy puts outside the exact quantile span: (its index, its name, scipy's value, the span)
            off = [(i, end, float(v), s) for i, (end, v, s) in enumerate((("lower", other[0], mine.low),
                                                                          ("upper", other[1], mine.high)))
                   if not float(s.lo) - 1e-12 <= float(v) <= float(s.hi) + 1e-12]
            if off:
                more = scipy_stats.values("bootstrap", [float(x) for x in d], "two", float(confidence),
                                          resamples=10 * scipy_stats.BOOTSTRAP_RESAMPLES + 9).get("interval")
                nearer = isinstance(more, tuple) and all(
                    abs(more[i] - float(s.mid)) <= abs(v - float(s.mid)) + 1e-12 or float(s.lo) <= more[i] <= float(s.hi)
                    for i, _, v, s in off)
                if nearer:
                    evidence.notes.append(
                        "scipy's bootstrap draws random resamples, so its "
                        + " and ".join(f"{e} endpoint {v:.6g}" for _, e, v, _ in off)
                        + " is a Monte Carlo estimate of the exact percentile "
                        + " and ".join(show_value(s) for _, _, _, s in off)
                        + f": with ten times as many resamples it gives {show_value(more)}")
                else:
                    evidence.conditions.append(Point(
                        f"scipy's percentile bootstrap gives {show_value(other)} where the exact bootstrap distribution "
                        f"gives {show_value(mine)}, a difference more resamples do not close",
                        "Investigate the difference before publishing."))
                    evidence.lead = ""
        return [row]
    row = ImplValue(implementation="scipy", provider="scipy.stats", behaviour=SIDES[side], value=float(other))
    value = as_number(mine)
    sampled = test == "permutation" and statistic == "p" and 2 ** len(d) > scipy_stats.PERMUTATION_RESAMPLES
    if sampled and value is not None:
        target = float(value)
        se = (max(target * (1 - target), 1 / scipy_stats.PERMUTATION_RESAMPLES)
              / scipy_stats.PERMUTATION_RESAMPLES) ** 0.5
        if abs(float(other) - target) <= significance.SPREAD * se + 1e-12:
            row.provider = (f"scipy.stats.permutation_test, {scipy_stats.PERMUTATION_RESAMPLES:,} random sign flips "
                            f"(seed {scipy_stats.SEED})")
            if abs(float(other) - target) > 1e-9:
                evidence.notes.append(
                    f"scipy's permutation_test draws {scipy_stats.PERMUTATION_RESAMPLES:,} random sign flips of the "
                    f"2^{len(d)}, so its p = {float(other):.4g} is a Monte Carlo estimate, "
                    f"{abs(float(other) - target) / se:.1f} standard errors ({se:.2g}) from the exact {show_value(mine)}")
            return [row]
    if value is not None and not isinstance(mine, Span) and abs(float(value) - float(other)) > 1e-9 * max(
            1.0, abs(float(value))):
        evidence.conditions.append(Point(
            f"{statistic} ({SIDES[side]}): scipy gives {fmt_float(float(other))} where the exact computation gives "
            f"{show_value(mine)}", "Investigate the difference before publishing."))
        evidence.lead = ""
    return [row]
