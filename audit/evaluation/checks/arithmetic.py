"""Arithmetic claims: a printed ratio or sum and its decimal; set measures on a labelled cohort.

An expression with logarithms, roots or powers (``3/log2(2) + 2/log2(3) ≈ 4.262``) is decided on a
certified enclosure of its value: inside the claimed interval, outside it, or refined until one of
the two (``REFINE_DIGITS``).
"""

from __future__ import annotations

import re
from fractions import Fraction

from audit.attribution.verdict import Evidence, Point
from audit.errors import ValueParseError
from audit.evaluation.checks.common import CHAPTER, Measurements, errors_of, fixture_name, shown
from audit.evaluation.checks.value import bounds, check_expectation, check_printed
from audit.register.claims import ArithmeticClaim, Chapter, Cohort, Fixture
from audit.register.measures import parse as parse_measure
from audit.register.values import (
    ClaimedValue,
    display,
    expression_interval,
    format_certified,
    format_exact,
    parse_claimed,
    printed_correction,
)
from audit.text.encode import breaks_replacing
from audit.report.results import Check, ImplValue

#: Significant digits an irrational value is certified to, in turn, while its enclosure straddles a
#: bound of the claimed interval; past the last the claim is an error, not a verdict.
REFINE_DIGITS = (40, 100, 300)


def cohort_fixture(cohort: Cohort, selected: list[str], among: list[str] | None) -> Fixture:
    """The cohort as one query: qrels = labels (positive → 1, else 0) of the candidates in ``among``
    (all decisions if None); run = the candidates whose decision is in ``selected``."""
    pool = [c for c in cohort.candidates() if among is None or c[1] in among]
    qrels = {"cohort": {cid: int(label == cohort.positive) for cid, _, label in pool}}
    run = {"cohort": [cid for cid, decision, _ in pool if decision in selected]}
    return Fixture(description="selector cohort", qrels=qrels, run=run)


def _enclosure(expression: str, claimed: ClaimedValue) -> tuple[Fraction, Fraction, bool, bool | None, int]:
    """(lo, hi, exact, holds, digits): the expression's value and whether the claim holds.

    An exact value is compared exactly. An inexact one is a certified enclosure, refined through
    ``REFINE_DIGITS`` while it straddles a bound of the claimed interval; ``holds`` is ``None``
    when even the last enclosure straddles one.
    """
    lo, hi, exact = expression_interval(expression, digits=REFINE_DIGITS[0])
    if exact:
        return lo, hi, True, claimed.contains(lo), 0
    for digits in REFINE_DIGITS:
        if digits != REFINE_DIGITS[0]:
            lo, hi, _ = expression_interval(expression, digits=digits)
        holds = claimed.decide(lo, hi)
        if holds is not None:
            break
    return lo, hi, False, holds, digits


def check(claim: ArithmeticClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    check_printed(claim, claim.claimed, "", evidence)
    claimed = parse_claimed(claim.claimed, tolerance=claim.tolerance)
    try:
        lo, hi, is_exact, holds, digits = _enclosure(claim.expression, claimed)
    except ValueParseError as exc:
        evidence.errors.append(exc.message)
        return evidence
    exact = lo if is_exact else (lo + hi) / 2
    if is_exact:
        value = ImplValue(implementation=CHAPTER, provider="exact arithmetic", value=float(exact),
                          exact=format_exact(exact), in_interval=holds)
        shown_value = format_exact(exact)
    else:
        value = ImplValue(implementation=CHAPTER, provider="interval arithmetic (mpmath.iv)", value=float(exact),
                          in_interval=holds,
                          detail=f"irrational step; value certified to {digits} digits (enclosure narrower than 1e-{digits})")
        shown_value = format_certified(lo, hi)
    evidence.checks.append(Check(
        label=f"{claim.expression} in exact arithmetic" if is_exact else f"{claim.expression}, certified enclosure",
        claimed=str(claim.claimed), interval=claimed.interval(), **bounds(claimed), values=[value]))
    if holds is None:
        evidence.errors.append(
            f"{claim.expression} {shown_value} is within about 1e-{digits} of a bound of the claimed "
            f"{claimed.interval()}: its enclosure certified to {digits} digits still straddles the bound, so the "
            "check cannot decide (a value exactly at a bound that exact arithmetic does not reach, such as "
            "sqrt(2)**2 against 2, is never decided)")
    elif not holds:
        if is_exact:
            found = f"{claim.expression} = {format_exact(exact)} (≈ {float(exact):.6f})"
        else:
            found = f"{claim.expression} {shown_value}"
        new = claimed.write_like(exact, exact=is_exact)
        old_text, new_text = printed_correction(claim.quote, claimed, new) or (claim.claimed, new)
        broken = breaks_replacing(claim.quote, str(old_text), new_text)
        evidence.failures.append(Point(
            f"{found}, outside the claimed {claimed.interval()}",
            f"Revise the sentence: the value is {shown_value}"
            + (f" (≈ {float(exact):.4f})" if is_exact and exact.denominator != 1 else "")
            + f", not {claim.claimed}; writing “{new_text}” alone would "
            f"leave the printed arithmetic false ({broken}), so its terms must change with it." if broken else
            f"Change “{old_text}” to “{new_text}”."))
    elif is_exact:
        same = claim.expression.replace(" ", "") == format_exact(exact)
        evidence.scopes.append(f"{claim.expression}" + ("" if same else f" = {format_exact(exact)}")
                               + (f" ≈ {float(exact):.6f}" if exact.denominator != 1 else "")
                               + f", inside the claimed {claimed.interval()}")
    else:
        evidence.scopes.append(f"{claim.expression} {shown_value}, inside the claimed {claimed.interval()}")
    if claim.computes is not None and holds is not None:
        _computed_measure(claim, chapter, ms, claimed, holds, exact, evidence)
    sm = claim.set_measure
    if sm is None:
        return evidence
    cohort = chapter.register.cohorts[sm.cohort]
    fixture = cohort_fixture(cohort, sm.selected, sm.among)
    measure = sm.measure
    values = ms.values(fixture, measure, claimed=claimed)
    population = "the whole cohort" if sm.among is None else "candidates " + " or ".join(sm.among)
    label = f"{measure} on cohort '{sm.cohort}': selected = {' + '.join(sm.selected)}, judged over {population}"
    evidence.checks.append(Check(label=label, measure=measure, claimed=str(claim.claimed),
                                 interval=claimed.interval(), values=values, **bounds(claimed)))
    evidence.errors += errors_of(values, label)
    own = values[0]
    if own.status == "ok":
        own_exact = Fraction(own.exact)
        if own_exact != exact:
            evidence.failures.append(Point(
                f"the cohort gives {measure} = {display(own.exact)}, but the prose computes {claim.expression} "
                f"{'= ' + format_exact(exact) if is_exact else shown_value}: the ratio does not follow from the table",
                f"Recompute from the table: {measure} = {display(own.exact)} ≈ {float(own_exact):.4f}."))
        refs = [v for v in values[1:] if v.status == "ok"]
        off = [v for v in refs if not v.in_interval]
        for v in off:
            evidence.conditions.append(Point(f"{v.implementation} ({v.provider}) gives {measure} = {shown(v)} on the cohort",
                                             "Name the set-measure definition used."))
        if refs and not off:
            evidence.scopes.append(f"{measure} on the reconstructed cohort ({len(fixture.run['cohort'])} selected of "
                                   f"{len(fixture.qrels['cohort'])}) is {display(own.exact)} by the chapter's definition and "
                                   f"{', '.join(f'{v.implementation} ({v.provider})' for v in refs)} agree")
    return evidence


_DECIMAL = re.compile(r"(?<![\w.])(\d*\.(\d+))(?![\w.])")


def rounding_budget(expression: str) -> Fraction:
    """How far the expression's value can be from the same expression on unrounded terms, when each decimal it
    prints is rounded to its last digit and enters the expression once with a weight of at most 1: half a unit
    in the last place of each printed decimal, summed (a bound for sums and means of rounded terms)."""
    return sum((Fraction(1, 2 * 10 ** len(m.group(2))) for m in _DECIMAL.finditer(expression)), Fraction(0))


def _computed_measure(claim: ArithmeticClaim, chapter: Chapter, ms: Measurements, claimed: ClaimedValue,
                      holds: bool, exact: Fraction, evidence: Evidence) -> None:
    """The printed value against the measure the expression computes, as a value claim on its fixture, combined
    with the expression's own result: both hold → the measure's verdict; the expression holds and the measure's
    exact value does not, within the rounding of the printed terms → qualified, the rounding named with both
    numbers; beyond it → contradicted."""
    c = claim.computes
    sub = Evidence()
    check_expectation(ms, chapter, claim, c.fixture, c.measure, claim.claimed, sub, tolerance=claim.tolerance,
                      query=c.query, label_prefix="the measure the expression computes: ")
    evidence.checks += sub.checks
    evidence.errors += sub.errors
    evidence.notes += sub.notes
    if not holds:  # the expression itself is wrong: already a failure; show what the measure gives
        evidence.notes += [p.text.rstrip(".") for p in sub.failures]
        return
    if not sub.failures:
        evidence.conditions += sub.conditions
        evidence.scopes += sub.scopes
        if sub.concern:
            evidence.concern = evidence.concern or sub.concern
        return
    own = [v for check in sub.checks for v in check.values if v.implementation == CHAPTER and v.status == "ok"]
    true_value = Fraction(own[0].exact) if own and own[0].exact else None
    budget = rounding_budget(claim.expression)
    if true_value is not None and abs(true_value - exact) <= budget:
        fixed = claimed.write_like(true_value)
        checked = parse_claimed(fixed).contains(true_value)
        evidence.conditions.append(Point(
            f"the printed terms give {claim.expression} = {float(exact):.6g}, inside the claimed "
            f"{claimed.interval()}, but {c.measure} on {fixture_name(c.fixture)} is exactly {display(format_exact(true_value))}"
            f", outside it: the terms were rounded before they were added (the gap {float(abs(true_value - exact)):.2g} "
            f"is within the {float(budget):.2g} their rounding allows)",
            f"Print the value of the measure, “{fixed}”" + (" (checked: the exact value lies in it)" if checked else "")
            + ", or say that the sum is of rounded terms."))
        evidence.lead = ""
        evidence.concern = (f"A reader who recomputes {c.measure} from its definition gets {display(format_exact(true_value))}, "
                            f"not the printed {claim.claimed}: the rounding of the terms is not mentioned.")
        return
    evidence.failures += sub.failures


def needs(claim: ArithmeticClaim, chapter: Chapter) -> list[tuple]:
    """(fixture, measure) pairs this claim will measure, for batching."""
    out = []
    if claim.computes is not None and parse_measure(claim.computes.measure, True)[1] is not None:
        out.append((chapter.fixture(claim.computes.fixture), claim.computes.measure))
    sm = claim.set_measure
    if sm is None:
        return out
    return out + [(cohort_fixture(chapter.register.cohorts[sm.cohort], sm.selected, sm.among), sm.measure)]
