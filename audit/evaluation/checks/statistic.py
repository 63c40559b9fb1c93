"""Statistic claims: a comparison of two systems the text reports — a significance test (paired, or unpaired on two
samples), a bootstrap interval, an effect size, a correction for multiple comparisons — recomputed on the same data by the chapter's exact side
(``audit.evaluation.significance``), by scipy.stats and, where it has the test, by ranx, under every reading of what
the text leaves open: whether the test is one- or two-sided, and, when the text makes several comparisons, whether
its decision is corrected for them.

Verdicts: a printed value that holds under every open reading is supported; one that holds only under some (a
one-sided p when the text does not say, a decision that holds only uncorrected) is qualified, the reading named; one
that holds under none is contradicted, with a corrected sentence that is checked before it is proposed. A decision
the p-value does not support is a decision error and leads the finding. A reference that gives another value is
explained by experiment (a Monte Carlo estimate's error, shown by its size against the exact value and by more
resamples) or, unexplained, qualifies the claim.
"""

from __future__ import annotations

import re
from fractions import Fraction


from audit.model.evidence import Evidence, Point
from audit.errors import AuditError
from audit.evaluation import monte_carlo, significance
from audit.evaluation.checks.common import CHAPTER, Measurements
from audit.evaluation.readings import base_reading
from audit.evaluation.references import scipy_stats
from audit.evaluation.significance import DIGITS, ROOT_MEAN_D, SIDES, TESTS, Bounds, Span, as_mpf, p_of_t
from audit.register.claims import UNPAIRED, Chapter, StatisticClaim
from audit.model.values import parse_claimed, parse_interval
from audit.model.results import Check, ImplValue
from audit.evaluation.checks.statistic_references import (
    as_number,
    explain_library,
    library_results,
    reference_rows,
    show_value,
)

#: How each statistic is named in a reason.
NAMES = {"p": "the p-value", "t": "t", "df": "the degrees of freedom", "positives": "the number of positive differences", "W": "W",
         "mean difference": "the mean difference", "d": "Cohen's d", "interval": "the confidence interval",
         "adjusted p": "the Bonferroni-adjusted p-value"}
#: The source of the corrected reading of a decision among several comparisons.
MULTIPLE_COMPARISONS = ("Fuhr (2017), “Some common mistakes in IR evaluation, and how they can be avoided”, SIGIR "
                        "Forum 51(3), doi:10.1145/3190580.3190586, counts ignoring multiple comparisons among the common mistakes and "
                        "asks for a correction (Bonferroni's, or Tukey's HSD)")


def differences(claim: StatisticClaim) -> list[Fraction]:
    """The per-query differences a − b of printed data, each value the exact number printed (0.10 is 1/10)."""
    d = claim.data
    if d.differences is not None:
        return [parse_claimed(v).nominal for v in d.differences]
    return [parse_claimed(x).nominal - parse_claimed(y).nominal for x, y in zip(d.a, d.b)]


def samples(claim: StatisticClaim) -> tuple[list[Fraction], list[Fraction]]:
    """The two samples of an unpaired test, each value the exact number printed."""
    return [parse_claimed(x).nominal for x in claim.data.a], [parse_claimed(y).nominal for y in claim.data.b]


def _df(claim: StatisticClaim) -> tuple[Fraction, Fraction, Fraction]:
    """A reported t-test's degrees of freedom as printed: (the number, and the ends of what it may round from). A
    whole df of a paired or Student's test is exact; Welch's df printed with decimals ("17.3", or "17" rounded)
    stands for every ν that rounds to it."""
    df = parse_claimed(claim.reported.df)
    if claim.test != "welch t" or df.low is None or df.high is None:
        return df.nominal, df.nominal, df.nominal
    if df.nominal.denominator == 1 and df.low == df.high:  # "17": Welch's ν printed to a whole number
        return df.nominal, df.nominal - Fraction(1, 2), df.nominal + Fraction(1, 2)
    return df.nominal, df.low, df.high


def _holds(printed, v) -> bool | None:
    """Whether the computed ``v`` is what ``printed`` says: None when ``v`` is not a value (a reason)."""
    if v is None or isinstance(v, str):
        return None
    if isinstance(v, Bounds):
        low, high = printed
        return _holds(low, v.low) and _holds(high, v.high)
    if isinstance(v, Span):
        return printed.decide(v.lo, v.hi) is not False  # some value of the span is the printed one
    return printed.contains(as_number(v))


def _adjusted(v, m: int):
    """min(1, m·p) for a p-value ``v`` (a Span's ends each)."""
    import mpmath
    if isinstance(v, str) or v is None:
        return v
    if isinstance(v, Span):
        return Span(min(Fraction(1), m * v.lo), min(Fraction(1), m * v.hi), v.how)
    if isinstance(v, Fraction):
        return min(Fraction(1), m * v)
    return min(mpmath.mpf(1), m * v)


def _value(claim: StatisticClaim, values: dict, statistic: str):
    """``statistic`` among one side's computed ``values``: an adjusted p is the Bonferroni-adjusted p of the
    claim's family of ``comparisons``."""
    return _adjusted(values.get("p"), claim.comparisons) if statistic == "adjusted p" else values.get(statistic)


def _excludes_zero(interval: Bounds) -> bool | None:
    """Whether a bootstrap interval lies clear of 0 (None when a Monte Carlo endpoint's span holds 0)."""
    if interval.low.lo > 0 or interval.high.hi < 0:
        return True
    return False if interval.low.hi <= 0 <= interval.high.lo else None


def _provider(mine) -> str:
    """How the chapter's side computed a statistic, for its row."""
    if isinstance(mine, Bounds):
        return mine.low.how if mine.low.how.startswith("a Monte") else "exact bootstrap distribution"
    if isinstance(mine, Span):
        return mine.how or "exact"
    return "exact" if isinstance(mine, Fraction) else f"mpmath, {DIGITS} digits"


def _significant(p, alpha: Fraction) -> bool | None:
    """p < α (None when a Monte Carlo span straddles α)."""
    if isinstance(p, Span):
        return True if p.hi < alpha else False if p.lo >= alpha else None
    return as_number(p) < alpha


def _written(printed, value, statistic: str = "") -> str:
    """``value`` written as ``printed`` is (an interval's endpoints each so, without "≈"); a p-value the printed
    places cannot hold to two significant digits is written to two (0.0751 after “≈ 0.04” is “≈ 0.075”, not 0.08)."""
    if isinstance(value, Bounds):
        low, high = printed
        return f"[{_written(low, value.low).removeprefix('≈ ')}, {_written(high, value.high).removeprefix('≈ ')}]"
    exact = isinstance(value, Fraction) or (isinstance(value, Span) and value.lo == value.hi)
    text = printed.write_like(as_number(value), exact=exact)
    if statistic in ("p", "adjusted p") and printed.style == "decimal" and text.startswith("≈"):
        return _p_text(float(as_number(value)), printed.text)
    return text


def _reported(claim: StatisticClaim, evidence: Evidence) -> Evidence:
    """A t-test reported without its data, checked as statcheck checks papers: the p-value recomputed from the
    printed t and df. Consistent → supported; consistent only for some t the printed t rounds from → qualified
    (the rounding named); otherwise contradicted, and a decision error (the printed p and the recomputed one on
    opposite sides of α) leads. The one-sided reading is tried when the text does not state the sidedness."""
    r = claim.reported
    t_printed, p_printed = parse_claimed(r.t), parse_claimed(r.p)
    t = t_printed.nominal
    alpha = parse_claimed(claim.alpha).nominal
    sides = [claim.sided] if claim.sided else ["two", "greater" if t >= 0 else "less"]
    lo, hi = (t_printed.low, t_printed.high) if t_printed.low is not None and t_printed.high is not None else (t, t)
    df, df_lo, df_hi = _df(claim)
    found = {}
    for side in sides:
        p = p_of_t(as_mpf(t), df, side)
        # p is monotone in t and in ν: its extremes over what the printed t and df round from are at the corners
        ends = sorted(p_of_t(as_mpf(x), nu, side) for x in {lo, hi} for nu in {df_lo, df_hi})
        found[side] = (p, [ends[0], ends[-1]])
    label = f"the p-value of t({r.df}) = {r.t}"
    rows = []
    for side, (p, ends) in found.items():
        scipy_p = scipy_stats.p_of_t(float(t), float(df), side)
        rows += [ImplValue(implementation=CHAPTER, provider=f"mpmath, {DIGITS} digits", behaviour=SIDES[side],
                           value=float(p), in_interval=p_printed.contains(as_number(p))),
                 ImplValue(implementation="scipy", provider="scipy.stats.t", behaviour=SIDES[side], value=scipy_p,
                           in_interval=p_printed.contains(scipy_p))]
    evidence.checks.append(Check(label=label, measure="p", claimed=str(r.p), interval=p_printed.interval(),
                                 values=rows))

    def holds(side) -> bool:
        return p_printed.contains(as_number(found[side][0]))

    def by_rounding(side) -> bool:
        a, b = found[side][1]
        return p_printed.decide(as_number(a), as_number(b)) is not False

    def significant(x) -> bool:
        return x < alpha

    shown = "; ".join(f"{SIDES[s]} p = {show_value(found[s][0])}" for s in sides)
    first = sides[0]
    printed_sig = None if p_printed.low is None and p_printed.high is None else (
        p_printed.high <= alpha if p_printed.high is not None and (p_printed.low is None or p_printed.low < alpha)
        else False)
    # the decision the printed p implies; a decision the sentence words itself (``decision``) is checked below instead
    decision_error = (claim.decision is None and printed_sig is not None
                      and all(significant(as_number(found[s][0])) != printed_sig for s in sides))
    if claim.decision is not None:
        # "p = .09, so the gain is significant": the conclusion is checked on the recomputed p (not the printed
        # one), under the same readings as a test on data; a wrong one is a decision error and leads
        _decision(claim, sides, {s: {"p": found[s][0]} for s in sides}, alpha, evidence)
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
        rounded = (f"t in [{float(lo):g}, {float(hi):g}]" + (f" and ν in [{float(df_lo):g}, {float(df_hi):g}]"
                                                              if df_lo != df_hi else ""))
        evidence.conditions.append(Point(
            f"{label}: t = {float(t):g} gives {SIDES[first]} p = {show_value(found[first][0])}, outside the printed "
            f"{r.p}; only because the printed t{' and df are' if df_lo != df_hi else ' is'} rounded ({rounded} "
            f"gives p from {show_value(a)} to {show_value(b)}) can they agree",
            f"Print t{' and df' if df_lo != df_hi else ''} with another digit, or the p-value t({r.df}) = {r.t} "
            f"gives (≈ {float(found[first][0]):.3f})."))
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
                   if new and parse_claimed(new).contains(as_number(found[first][0])) and str(r.p) in claim.quote else
                   f"Revise the p-value: t({r.df}) = {r.t} gives {SIDES[first]} p = {show_value(found[first][0])}.")
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


def _data(claim: StatisticClaim, chapter: Chapter, ms: Measurements) -> tuple[list[Fraction], str, dict]:
    """The differences the test runs on, how they were obtained, and, for fixtures, each reference's per-query
    differences ({reference: [float] or an error message}). Raises ``AuditError`` when the chapter's definitions
    cannot compute the measure on a fixture."""
    d = claim.data
    if d.measure is None:
        return differences(claim), "", {}
    fa, fb = chapter.fixture(d.a), chapter.fixture(d.b)
    reading = base_reading(chapter.declared_for(claim))
    va, vb = ms.chapter(fa, d.measure, reading), ms.chapter(fb, d.measure, reading)
    queries = sorted(va)
    if sorted(vb) != queries:
        raise AuditError(f"the chapter's {d.measure} leaves out different queries on {d.a} and {d.b}")
    theirs: dict[str, object] = {}
    for ref in ms.references:
        oa, ob = ms.reference(ref, fa, d.measure), ms.reference(ref, fb, d.measure)
        if oa.status != "ok" or ob.status != "ok":
            theirs[ref.name] = (oa if oa.status != "ok" else ob).detail or "no value"
        elif sorted(oa.per_query) != queries or sorted(ob.per_query) != queries:
            theirs[ref.name] = "it leaves out a query"
        else:
            theirs[ref.name] = [oa.per_query[q] - ob.per_query[q] for q in queries]
    how = f"{d.measure} per query on {d.a} minus {d.b} by the chapter's definitions ({len(queries)} queries)"
    return [va[q] - vb[q] for q in queries], how, theirs


def _plain(x: Fraction) -> str:
    """An exact difference as a short decimal when it has one (0.15, −0.05), else as a fraction (1/3)."""
    text = f"{float(x):.6g}"
    return text if Fraction(text) == x else f"{x.numerator}/{x.denominator}"


def _rows(claim: StatisticClaim, chapter: Chapter, ms: Measurements, n: int) -> tuple[list[str], list[list[str]]]:
    """The queries' names (the fixtures' query IDs, else 1 … n) and each query's a and b as the report shows them
    (as printed, or the chapter's values on the fixtures; “—” when only the differences are printed)."""
    d = claim.data
    if d.measure is not None:
        reading = base_reading(chapter.declared_for(claim))
        va = ms.chapter(chapter.fixture(d.a), d.measure, reading)
        vb = ms.chapter(chapter.fixture(d.b), d.measure, reading)
        queries = sorted(va)
        return queries, [[_plain(va[q]), _plain(vb[q])] for q in queries]
    queries = [str(i) for i in range(1, n + 1)]
    if d.a is not None:
        return queries, [[str(x), str(y)] for x, y in zip(d.a, d.b)]
    return queries, [["—", "—"] for _ in queries]


#: A sentence stating that its d is over the root mean of the two variances (not the pooled standard deviation).
_ROOT_MEAN_STATED = re.compile(r"root[- ]mean|average of the (?:two )?variances|\bnon-?pooled\b|\bunpooled\b|"
                               r"\bd\*|\bd_?\{?av\b", re.IGNORECASE)
#: Where that standardizer comes from.
ROOT_MEAN_SOURCE = ("the standardizer Cohen (1988, Statistical Power Analysis for the Behavioral Sciences, 2nd ed., "
                    "§2.3.2) gives for unequal variances, Delacre et al. (2021)'s d*_s for Welch's test")


def _welch_d(claim: StatisticClaim, e, label: str, sides: list[str], ours: dict, theirs: dict,
             evidence: Evidence) -> bool:
    """Welch's printed d when it is d over the root mean of the two variances and not Cohen's d over the pooled
    standard deviation (the d computed by default under that name): supported when the sentence states that
    standardizer, qualified otherwise. False when the printed d is not that case (the ordinary check decides)."""
    printed = parse_claimed(e.claimed, tolerance=e.tolerance)
    values = ours[sides[0]]
    pooled, root = values.get("d"), values.get(ROOT_MEAN_D)
    if not _holds(printed, root) or _holds(printed, pooled) is not False:
        return False
    what = f"{NAMES['d']} of {label}"
    other = theirs[sides[0]]
    rows = [ImplValue(implementation=CHAPTER, provider=_provider(root), behaviour="over the root mean of the variances",
                      value=float(as_number(root)), in_interval=True),
            ImplValue(implementation=CHAPTER, provider=_provider(pooled), behaviour="over the pooled standard deviation",
                      value=float(as_number(pooled)), in_interval=False)]
    rows += [ImplValue(implementation="scipy", provider="numpy, with scipy.stats.ttest_ind", behaviour=how,
                       value=float(other[key])) for key, how in ((ROOT_MEAN_D, "over the root mean of the variances"),
                                                                 ("d", "over the pooled standard deviation"))
             if isinstance(other.get(key), float)]
    evidence.checks.append(Check(label=what, measure="d", claimed=str(e.claimed), interval=printed.interval(),
                                 values=rows))
    shown = f"{show_value(root)} over the root mean of the two variances; over the pooled standard deviation {show_value(pooled)}"
    if _ROOT_MEAN_STATED.search(claim.quote):
        evidence.scopes.append(f"{what}: {shown}; the printed {e.claimed} is the first, the standardizer the sentence "
                               f"states ({ROOT_MEAN_SOURCE})")
    else:
        evidence.conditions.append(Point(
            f"{what}: the printed {e.claimed} is d over the root mean of the two variances ({show_value(root)}; "
            f"{ROOT_MEAN_SOURCE}), not Cohen's d over the pooled standard deviation ({show_value(pooled)}), the d computed "
            "by default under that name, and the text does not say which",
            "Say that d is standardized by the root mean of the two variances, √((s_a² + s_b²)/2)."))
        evidence.lead = ""
    return True


def estimate_band(claim: StatisticClaim, statistic: str, mine, d: list[Fraction], confidence: Fraction):
    """What a Monte Carlo estimate over the claim's ``resamples`` may print where the exact value is ``mine`` (a
    bootstrap interval's ``Bounds``, a randomization test's p as a ``Span``), or None when the text states no
    resamples or the statistic is not estimated (``audit.evaluation.monte_carlo``)."""
    if claim.resamples is None or isinstance(mine, str) or mine is None:
        return None
    if claim.test == "bootstrap" and statistic == "interval":
        return monte_carlo.bootstrap_band(d, confidence, claim.resamples)
    if claim.test == "permutation" and statistic == "p":
        return monte_carlo.p_band(mine, claim.resamples)
    return None


def _expect(claim: StatisticClaim, e, label: str, sides: list[str], ours: dict, theirs: dict, d, confidence,
            evidence: Evidence) -> None:
    """One printed statistic against every side read."""
    if claim.test == "welch t" and e.statistic == "d" and _welch_d(claim, e, label, sides, ours, theirs, evidence):
        return
    interval = e.statistic == "interval"
    printed = parse_interval(str(e.claimed)) if interval else parse_claimed(e.claimed, tolerance=e.tolerance)
    rows, holds, bands = [], {}, {}
    for side in sides:
        mine = _value(claim, ours[side], e.statistic)
        bands[side] = estimate_band(claim, e.statistic, mine, d, confidence)
        holds[side] = _holds(printed, mine if bands[side] is None else bands[side])
        value = None if interval else as_number(mine)
        rows.append(ImplValue(implementation=CHAPTER, provider=_provider(mine), behaviour=SIDES[side],
                              status="not applicable" if holds[side] is None else "ok",
                              value=float(value) if value is not None else None,
                              detail=mine if isinstance(mine, str) else (show_value(mine) if interval else "") + (
                                  f"; a Monte Carlo estimate over {claim.resamples:,} resamples may print "
                                  f"{show_value(bands[side])}" if bands[side] is not None else ""),
                              in_interval=holds[side]))
        if e.statistic != "adjusted p":
            rows += reference_rows(claim.test, e.statistic, side, mine, theirs[side].get(e.statistic), d, confidence, evidence)
    what = f"{NAMES[e.statistic]} of {label}"
    shown_interval = (f"[{printed[0].interval()}, {printed[1].interval()}]" if interval else printed.interval())
    evidence.checks.append(Check(label=what, measure=e.statistic, claimed=str(e.claimed), interval=shown_interval,
                                 values=rows))

    def value_of(side):
        return _value(claim, ours[side], e.statistic)

    shown = ("; ".join(f"{SIDES[s]}: {show_value(value_of(s))}" for s in sides) if TESTS[claim.test].sided else
             show_value(value_of(sides[0])))
    band = bands[sides[0]]
    if band is not None:
        # a Monte Carlo estimate: held to the exact value within its error, never to the exact value alone
        shown += (f"; the text's estimate over {claim.resamples:,} random resamples may print {show_value(band)} "
                  f"({band.low.how if isinstance(band, Bounds) else band.how})")
    if all(holds.values()):
        evidence.scopes.append(f"{what}: {shown}" + (", and the printed value is within it" if band is not None
                                                      else ", as printed"))
    elif not claim.sided and holds.get("two"):
        # the side unstated: two-sided is the default reading (scipy's and ranx's, and statcheck's), so a printed
        # two-sided value is supported; only a value holding one-sided alone needs the side said
        estimated = (f", which the text's estimate over {claim.resamples:,} random resamples may print as "
                     f"{show_value(bands['two'])} ({bands['two'].how}); the printed value is within it"
                     if bands.get("two") is not None and not isinstance(bands["two"], Bounds) else ", as printed")
        evidence.scopes.append(f"{what}: two-sided {show_value(value_of('two'))}{estimated} (the text does not say the "
                               f"side; the two-sided test is the default; one-sided it is {show_value(value_of(sides[1]))})")
    elif any(holds.values()):
        good = [s for s in sides if holds[s]]
        bad = [s for s in sides if not holds[s]]
        evidence.conditions.append(Point(
            f"{what}: the printed {e.claimed} holds only for a {SIDES[good[0]]} test ({shown}), and the text does "
            "not say which test it ran",
            f"Say that the test is {SIDES[good[0]]} (checked: the printed {e.claimed} is its {e.statistic})."))
        evidence.concern = evidence.concern or (
            f"A reader who runs the {SIDES[bad[0]]} test gets {show_value(value_of(bad[0]))}, not the printed "
            f"{e.claimed}.")
        evidence.lead = ""
    else:
        first = sides[0]
        value = value_of(first)
        if holds[first] is None:
            evidence.errors.append(f"{what}: {value}")
            return
        exact = {s: ours[s].get("exact p") for s in sides} if e.statistic == "p" else {}
        exact_holds = [s for s, v in exact.items() if v is not None and _holds(printed, v)]
        if exact_holds:
            # a Wilcoxon p with zeros or ties that scipy approximates by default: the printed value is the exact one
            s = exact_holds[0]
            evidence.conditions.append(Point(
                f"{what}: the printed {e.claimed} is the exact {SIDES[s]} p over every sign flip "
                f"({show_value(exact[s])}); scipy's default computes the normal approximation here ({show_value(value_of(s))}), "
                "and the text does not say which it reports",
                f"Say that the p-value is exact, computed over every sign flip with average ranks for ties "
                f"(checked: that gives {show_value(exact[s])})."))
            evidence.concern = evidence.concern or (
                f"A reader who runs scipy.stats.wilcoxon with its defaults gets {show_value(value_of(s))}, not the printed "
                f"{e.claimed}.")
            evidence.lead = ""
            return
        new = _written(printed, value, e.statistic)
        try:
            rechecked = _holds(parse_interval(new) if interval else parse_claimed(new), value)
        except AuditError:
            rechecked = False
        side_note = f"{SIDES[first]}; " if TESTS[claim.test].sided else ""
        evidence.failures.append(Point(
            f"{what}: {shown}, outside the printed {shown_interval}",
            f"Change “{e.claimed}” to “{new}” ({side_note}checked: the exact computation gives it)."
            if rechecked and str(e.claimed) in claim.quote else
            f"Revise: {NAMES[e.statistic]} is {show_value(value)} here" + (f" ({SIDES[first]})." if side_note else ".")))


def _wilcoxon_options(claim: StatisticClaim) -> dict:
    """How the text says its Wilcoxon test treats zeros and whether it is continuity-corrected; scipy's defaults
    (zeros dropped, no correction) when it does not say."""
    return {"zero_method": claim.zero_method or "wilcox", "correction": bool(claim.continuity)}


def _wilcoxon_method(claim: StatisticClaim, sides: list[str], ours: dict, wanted: frozenset, evidence: Evidence) -> None:
    """How the Wilcoxon p was computed, when zeros or ties make it other than W's exact distribution: the zeros'
    treatment, and, where scipy's default is the normal approximation, the exact p over every sign flip beside it."""
    how = {side: ours[side].get("p method") for side in sides}
    if not ("p" in wanted or claim.decision is not None) or all(h in (None, "exact") for h in how.values()):
        return
    zeros = claim.zero_method or "wilcox"
    treated = {"wilcox": "dropped before ranking (scipy's default, zero_method='wilcox')",
               "pratt": "ranked, then left out of W (Pratt; zero_method='pratt')",
               "zsplit": "ranked, half of their ranks to each sign (zero_method='zsplit')"}[zeros]
    for side in sides:
        p, exact = ours[side].get("p"), ours[side].get("exact p")
        text = (f"Wilcoxon {SIDES[side]} p = {show_value(p)} as scipy computes it by default: {how[side]}; zero differences "
                f"are {treated}, tied |d| share their average rank")
        if exact is not None:
            text += f"; the exact p over every sign flip of the differences, with the same ranks, is {show_value(exact)}"
        evidence.notes.append(text)


def _decision(claim: StatisticClaim, sides: list[str], ours: dict, alpha: Fraction, evidence: Evidence) -> None:
    """The decision the text draws, under every reading left open: side × (uncorrected, Bonferroni) when several
    comparisons are made and no correction is stated; a bootstrap interval decides by whether it holds 0."""
    if claim.test == "bootstrap":
        interval = ours[sides[0]]["interval"]
        level = parse_claimed(claim.confidence).nominal
        excludes = _excludes_zero(interval)
        if excludes is None:
            evidence.errors.append(f"whether the {float(level) * 100:g} % interval {show_value(interval)} holds 0 is within "
                                   "its Monte Carlo error")
            return
        said = claim.decision == "significant"
        if excludes == said:
            evidence.scopes.append(f"the decision “{claim.decision}”: the {float(level) * 100:g} % interval "
                                   f"{show_value(interval)} {'excludes' if excludes else 'holds'} 0")
        else:
            evidence.failures.insert(0, Point(
                f"decision error: the text says “{claim.decision}”, but the {float(level) * 100:g} % bootstrap "
                f"interval {show_value(interval)} {'excludes' if excludes else 'holds'} 0",
                f"Say that the difference is {'' if excludes else 'not '}significant at the "
                f"{float(1 - level) * 100:g} % level."))
            _decision_concern(claim, evidence)
        return
    m = claim.comparisons
    corrections = [claim.correction or "none"] if claim.correction or m == 1 else ["none", "bonferroni"]
    readings = [(side, c) for c in corrections for side in sides]

    def p_for(reading):
        side, correction = reading
        p = ours[side].get("p")
        return _adjusted(p, m) if correction == "bonferroni" else p

    def name(reading):
        side, correction = reading
        return SIDES[side] + (f", Bonferroni-corrected for {m} comparisons" if correction == "bonferroni" else
                              ", uncorrected" if len(corrections) > 1 else "")

    decided = {}
    for r in readings:
        p = p_for(r)
        if p is not None and not isinstance(p, str):
            sig = _significant(p, alpha)
            if sig is not None:
                decided[r] = "significant" if sig else "not significant"
    if not decided:
        evidence.errors.append(f"the decision cannot be checked: {p_for(readings[0])}")
        return
    two = {r: v for r, v in decided.items() if r[0] == "two"}
    if not claim.sided and any(v == claim.decision for v in two.values()):
        decided = two  # the side unstated: the two-sided default decides unless only a one-sided test supports it
    listing = "; ".join(f"{name(r)} p = {show_value(p_for(r))}" for r in decided)
    if all(v == claim.decision for v in decided.values()):
        evidence.scopes.append(f"the decision “{claim.decision}” at α = {float(alpha):g} holds ({listing})")
    elif any(v == claim.decision for v in decided.values()):
        good = next(r for r in decided if decided[r] == claim.decision)
        bad = next(r for r in decided if decided[r] != claim.decision)
        if good[1] != bad[1]:  # the correction decides
            evidence.conditions.append(Point(
                f"the decision “{claim.decision}” at α = {float(alpha):g} holds {name(good).split(', ')[-1]} "
                f"(p = {show_value(p_for(good))}) but not {name(bad).split(', ')[-1]} (p = {show_value(p_for(bad))}), and the "
                f"text, comparing {m} systems, does not say whether it corrects; {MULTIPLE_COMPARISONS}",
                f"Say whether the p-values are corrected for the {m} comparisons; with Bonferroni's correction the "
                f"difference is {decided[bad] if bad[1] == 'bonferroni' else decided[good]} at the "
                f"{float(alpha) * 100:g} % level."))
        else:
            evidence.conditions.append(Point(
                f"decision error unless the test is {SIDES[good[0]]}: “{claim.decision}” at α = {float(alpha):g} "
                f"holds for the {name(good)} p = {show_value(p_for(good))}, not for the {name(bad)} p = "
                f"{show_value(p_for(bad))}",
                f"Say that the test is {SIDES[good[0]]}, or that the difference is {decided[bad]} at the "
                f"{float(alpha) * 100:g} % level with a {SIDES[bad[0]]} test."))
        evidence.lead = ""
    else:
        first, *rest = decided
        evidence.failures.insert(0, Point(
            f"decision error: the text says “{claim.decision}” at α = {float(alpha):g}, but p = "
            f"{show_value(p_for(first))} ({name(first)}" + "".join(f"; {name(r)}: {show_value(p_for(r))}" for r in rest) + ")",
            f"Say that the difference is {decided[first]} at the {float(alpha) * 100:g} % level."))
        _decision_concern(claim, evidence)


def _decision_concern(claim: StatisticClaim, evidence: Evidence) -> None:
    evidence.concern = ("Readers will take the difference as established when the data do not support it."
                        if claim.decision == "significant" else
                        "Readers will dismiss a difference the data show at the stated level.")


def _family(claim: StatisticClaim, evidence: Evidence) -> Evidence:
    """A correction of printed p-values: each printed adjusted p and the comparisons said to stay significant."""
    raw = {k: parse_claimed(v).nominal for k, v in claim.data.p_values.items()}
    adjusted = significance.adjusted(claim.test, raw)
    alpha = parse_claimed(claim.alpha).nominal
    name = TESTS[claim.test].described
    label = f"{name} of {len(raw)} p-values"
    for e in claim.expect:
        printed = parse_claimed(e.claimed, tolerance=e.tolerance)
        value = adjusted[e.comparison]
        ok = printed.contains(value)
        evidence.checks.append(Check(label=f"the adjusted p of {e.comparison} ({label})", measure="adjusted p",
                                     claimed=str(e.claimed), interval=printed.interval(),
                                     values=[ImplValue(implementation=CHAPTER, provider="exact", value=float(value),
                                                       in_interval=ok)]))
        if ok:
            evidence.scopes.append(f"the adjusted p of {e.comparison} under {name}: {show_value(value)}, as printed")
        else:
            new = printed.write_like(value)
            evidence.failures.append(Point(
                f"the adjusted p of {e.comparison} under {name}: {show_value(value)} (raw p {show_value(raw[e.comparison])}), "
                f"outside the printed {printed.interval()}",
                f"Change “{e.claimed}” to “{new}” (checked: {name} gives it)."
                if parse_claimed(new).contains(value) and str(e.claimed) in claim.quote else
                f"Revise: {name} gives {show_value(value)} for {e.comparison}."))
    if claim.significant is not None:
        truly = sorted(k for k, v in adjusted.items() if v < alpha)
        said = sorted(claim.significant)
        shown = ", ".join(f"{k}: {show_value(adjusted[k])}" for k in raw)
        if truly == said:
            evidence.scopes.append(f"the comparisons significant at α = {float(alpha):g} after {name} are "
                                   f"{', '.join(said) or 'none'} ({shown})")
        else:
            wrong_in = [k for k in said if k not in truly]
            wrong_out = [k for k in truly if k not in said]
            parts = ([f"{', '.join(wrong_in)} {'does' if len(wrong_in) == 1 else 'do'} not stay significant"]
                     if wrong_in else []) + ([f"{', '.join(wrong_out)} {'stays' if len(wrong_out) == 1 else 'stay'} "
                                              "significant"] if wrong_out else [])
            evidence.failures.insert(0, Point(
                f"decision error: after {name} at α = {float(alpha):g}, " + " and ".join(parts)
                + f" (adjusted p: {shown})",
                f"Say that {', '.join(truly) or 'no comparison'} {'stays' if len(truly) == 1 else 'stay'} significant "
                f"after {name} at the {float(alpha) * 100:g} % level."))
            evidence.concern = "Readers will count differences as established that the correction does not support."
    return evidence


def needs(claim: StatisticClaim, chapter: Chapter) -> list[tuple]:
    """(fixture, measure) pairs this claim will measure (its per-query values from two runs), for batching."""
    d = claim.data
    if d is None or d.measure is None:
        return []
    return [(chapter.fixture(d.a), d.measure), (chapter.fixture(d.b), d.measure)]


def check(claim: StatisticClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    if claim.reported is not None:
        return _reported(claim, evidence)
    if TESTS[claim.test].family:
        return _family(claim, evidence)
    unpaired = claim.test in UNPAIRED
    if unpaired:  # two independent samples: no pairs, no differences
        a, b = samples(claim)
        d, how, by_reference = [], "", {}
        mean = sum(a, Fraction(0)) / len(a) - sum(b, Fraction(0)) / len(b)
    else:
        try:
            d, how, by_reference = _data(claim, chapter, ms)
        except AuditError as exc:
            evidence.register_error(exc.message, "data", "give fixtures data.a and data.b on which the chapter's "
                                    "definitions compute data.measure for the same queries (docs/statistics.md)")
            return evidence
        queries, pairs = _rows(claim, chapter, ms, len(d))
        mean = sum(d, Fraction(0)) / len(d)
    if not TESTS[claim.test].sided:
        sides = ["two"]
    else:
        sides = [claim.sided] if claim.sided else ["two", "greater" if mean >= 0 else "less"]
    alpha = parse_claimed(claim.alpha).nominal
    confidence = parse_claimed(claim.confidence).nominal
    floats = [float(x) for x in d]
    wanted = frozenset("p" if e.statistic == "adjusted p" else e.statistic for e in claim.expect)
    if unpaired:
        ours = {side: significance.two_samples(claim.test, a, b, side) for side in sides}
        theirs = {side: scipy_stats.two_samples(claim.test, [float(x) for x in a], [float(y) for y in b], side)
                  for side in sides}
        label = f"{TESTS[claim.test].described} of a ({len(a)} values) against b ({len(b)} values)"
    else:
        options = _wilcoxon_options(claim)
        ours = {side: significance.values(claim.test, d, side, confidence, **options) for side in sides}
        theirs = {side: scipy_stats.values(claim.test, floats, side, float(confidence), wanted=wanted, **options)
                  for side in sides}
        label = f"{TESTS[claim.test].described} on {len(d)} paired differences" + (f" ({how})" if how else "")
    for e in claim.expect:
        _expect(claim, e, label, sides, ours, theirs, d, confidence, evidence)
    if claim.test == "wilcoxon" and not unpaired:
        _wilcoxon_method(claim, sides, ours, wanted, evidence)
    if claim.decision is not None:
        _decision(claim, sides, ours, alpha, evidence)
    decides = claim.decision is not None or wanted & {"p"}
    if claim.decision is not None and "p" not in wanted and claim.test != "bootstrap":
        # a decision printed without its p: the p-values it rests on, one row per reading
        evidence.checks.insert(0, Check(label=f"the p-value of {label}, on which the decision rests", measure="p",
                                        claimed=None, interval="", values=[
            ImplValue(implementation=CHAPTER, provider=_provider(ours[side].get("p")), behaviour=SIDES[side],
                      status="ok" if as_number(ours[side].get("p")) is not None else "not applicable",
                      value=float(as_number(ours[side]["p"])) if as_number(ours[side].get("p")) is not None else None,
                      detail=ours[side].get("p") if isinstance(ours[side].get("p"), str) else "")
            for side in sides]))
    if decides and "two" in ours and claim.test in ("paired t", "permutation"):
        library = library_results(ms, claim.test, d)
        if library:
            rows = [explain_library(name, result, ours["two"].get("p"), evidence, d if claim.test == "permutation"
                                     else None) for name, result in library.items()]
            evidence.checks.append(Check(label=f"the two-sided p-value of {label} by each library's own test (the "
                                               f"exact one: {show_value(ours['two'].get('p'))})",
                                         measure="p", claimed=None, interval="", values=rows))
    if evidence.checks and unpaired:  # the two samples, side by side, on the claim's first check
        evidence.checks[0].table = [["value", "a", "b"]] + [
            [str(i + 1), str(claim.data.a[i]) if i < len(a) else "—", str(claim.data.b[i]) if i < len(b) else "—"]
            for i in range(max(len(a), len(b)))] + [
            ["mean", _plain(sum(a, Fraction(0)) / len(a)), _plain(sum(b, Fraction(0)) / len(b))]]
    elif evidence.checks:  # the data behind the statistics, on the claim's first check: a table and a chart
        evidence.checks[0].differences = dict(zip(queries, (float(x) for x in d)))
        evidence.checks[0].table = [["query", "a", "b", "a − b"]] + [
            [q, *pair, show_value(x) if isinstance(x, float) else _plain(x)] for q, pair, x in zip(queries, pairs, d)]
    for name, values in by_reference.items():
        if isinstance(values, str):
            evidence.notes.append(f"{name} gives no per-query {claim.data.measure} here: {values}")
            continue
        p_ref = scipy_stats.values(claim.test, values, sides[0], float(confidence), **_wilcoxon_options(claim)).get("p")
        p_ours = as_number(ours[sides[0]].get("p"))
        if isinstance(p_ref, float) and p_ours is not None and abs(p_ref - float(p_ours)) > 1e-9:
            differ = [i for i, (x, y) in enumerate(zip(values, floats)) if abs(x - y) > 1e-9]
            evidence.conditions.append(Point(
                f"with {name}'s per-query {claim.data.measure} the {SIDES[sides[0]]} p is {p_ref:.6g}, not "
                f"{show_value(ours[sides[0]]['p'])}: its values differ from the chapter's on {len(differ)} of {len(d)} "
                "queries", f"State how {claim.data.measure} is computed, or check the per-query values."))
            evidence.lead = ""
    return evidence


_SAYS_SIGNIFICANT = re.compile(r"\b(?<!not )(?<!no )(?<!in)(significant(?:ly)?)\b")
_SAYS_NOT = re.compile(r"\b(?:not|no) (significant(?:ly)?)\b|\binsignificant\b")


def flip_decision(sentence: str, said: str) -> str | None:
    """``sentence`` with its decision word turned to the other decision: “significant” → “not significant”
    (“significantly” → “not significantly”), “not significant” / “no significant” / “insignificant” → “significant”;
    None when the sentence words its decision otherwise (the finding then says what to change)."""
    if said == "significant":
        m = _SAYS_SIGNIFICANT.search(sentence)
        return None if m is None else sentence[:m.start(1)] + "not " + sentence[m.start(1):]
    m = _SAYS_NOT.search(sentence)
    if m is None:
        return None
    word = m.group(1) or "significant"
    return sentence[:m.start()] + word + sentence[m.end():]


def corrections(claim: StatisticClaim, chapter: Chapter, ms: Measurements) -> tuple[dict[str, str], list, str | None]:
    """What the text should print instead, under its first reading (the stated side, else two-sided; the stated
    correction, else none): ``({old printed number: new}, [(register field, new value)], new decision or None)`` for
    each printed statistic and decision that no reading gives. Numbers are written as the text writes them."""
    changes: dict[str, str] = {}
    fields: list = []
    if claim.reported is not None:
        r = claim.reported
        side = claim.sided or "two"
        p = float(p_of_t(as_mpf(parse_claimed(r.t).nominal), _df(claim)[0], side))
        printed = parse_claimed(r.p)
        if not printed.contains(p):
            new = _p_text(p, str(r.p)).removeprefix("≈ ")
            old = str(r.p).strip()
            if printed.low is None or printed.high is None:  # "< .05": the bound becomes the value
                changes[old] = "= " + new
            else:
                changes[old.lstrip("=≈~ ")] = new
            fields.append(("reported.p", new))
        decision = None
        if claim.decision is not None:  # the conclusion the recomputed p supports, when the sentence words another
            if claim.correction == "bonferroni":
                p = min(1.0, p * claim.comparisons)
            sig = p < parse_claimed(claim.alpha).nominal
            decision = "significant" if sig else "not significant"
            if decision == claim.decision:
                decision = None
            else:
                fields.append(("decision", decision))
        return changes, fields, decision
    if TESTS[claim.test].family:
        raise AuditError("which comparisons stay significant is worded by the author; the finding names them")
    side = claim.sided or "two"
    confidence = parse_claimed(claim.confidence).nominal
    if claim.test in UNPAIRED:
        ours = significance.two_samples(claim.test, *samples(claim), side)
    else:
        d, _, _ = _data(claim, chapter, ms)
        ours = significance.values(claim.test, d, side, confidence, **_wilcoxon_options(claim))
    for i, e in enumerate(claim.expect):
        value = _value(claim, ours, e.statistic)
        interval = e.statistic == "interval"
        printed = parse_interval(str(e.claimed)) if interval else parse_claimed(e.claimed, tolerance=e.tolerance)
        if _holds(printed, value) is not False:
            continue
        band = estimate_band(claim, e.statistic, value, d if claim.test not in UNPAIRED else [], confidence)
        if band is not None and _holds(printed, band) is not False:
            continue  # a Monte Carlo estimate within its error: nothing to change
        if e.statistic == "d" and _holds(printed, ours.get(ROOT_MEAN_D)):
            continue  # Welch's d over the root mean of the variances: a standardizer to state, not a number to change
        new = _written(printed, value, e.statistic)
        if interval:
            changes[str(e.claimed).strip()] = new
        else:
            # the sentence prints the number and words its bound itself ("all above 0.70"): the number alone changes
            changes[str(e.claimed).strip().lstrip("≈~=<>≤≥ ").strip()] = new.lstrip("≈~=<>≤≥ ").strip()
            if not str(e.claimed).strip().startswith(("≈", "~")):
                new = new.lstrip("≈~ ").strip()  # the register prints the number as the sentence now does
        fields.append((f"expect.{i}.claimed", new))
    decision = None
    if claim.decision is not None:
        alpha = parse_claimed(claim.alpha).nominal
        if claim.test == "bootstrap":
            excludes = _excludes_zero(ours["interval"])
            decision = None if excludes is None else "significant" if excludes else "not significant"
        else:
            p = ours.get("p")
            if claim.correction == "bonferroni":
                p = _adjusted(p, claim.comparisons)
            sig = None if p is None or isinstance(p, str) else _significant(p, alpha)
            decision = None if sig is None else "significant" if sig else "not significant"
        if decision == claim.decision:
            decision = None
        elif decision is not None:
            fields.append(("decision", decision))
    return changes, fields, decision
