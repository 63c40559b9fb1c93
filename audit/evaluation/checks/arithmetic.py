"""Arithmetic claims: a printed ratio or sum and its decimal; set measures on a labelled cohort."""

from __future__ import annotations

from fractions import Fraction

from audit.attribution.verdict import Evidence, Point
from audit.evaluation.checks.common import CHAPTER, Measurements, errors_of, shown
from audit.evaluation.checks.value import bounds
from audit.register.claims import ArithmeticClaim, Chapter, Cohort, Fixture
from audit.register.values import display, format_exact, parse_claimed, parse_expression
from audit.report.results import Check, ImplValue


def cohort_fixture(cohort: Cohort, selected: list[str], among: list[str] | None) -> Fixture:
    """The cohort as one query: qrels = labels (positive → 1, else 0) of the candidates in ``among``
    (all decisions if None); run = the candidates whose decision is in ``selected``."""
    pool = [c for c in cohort.candidates() if among is None or c[1] in among]
    qrels = {"cohort": {cid: int(label == cohort.positive) for cid, _, label in pool}}
    run = {"cohort": [cid for cid, decision, _ in pool if decision in selected]}
    return Fixture(description="selector cohort", qrels=qrels, run=run)


def check(claim: ArithmeticClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    claimed = parse_claimed(claim.claimed, tolerance=claim.tolerance)
    exact = parse_expression(claim.expression)
    holds = claimed.contains(exact)
    evidence.checks.append(Check(
        label=f"{claim.expression} in exact arithmetic", claimed=str(claim.claimed), interval=claimed.interval(),
        **bounds(claimed),
        values=[ImplValue(implementation=CHAPTER, provider="exact arithmetic", value=float(exact),
                          exact=format_exact(exact), in_interval=holds)]))
    if not holds:
        evidence.failures.append(Point(
            f"{claim.expression} = {format_exact(exact)} (≈ {float(exact):.6f}), outside the claimed {claimed.interval()}",
            f"Change “{claim.claimed}” to “{claimed.write_like(exact)}”."))
    else:
        same = claim.expression.replace(" ", "") == format_exact(exact)
        evidence.scopes.append(f"{claim.expression}" + ("" if same else f" = {format_exact(exact)}")
                               + (f" ≈ {float(exact):.6f}" if exact.denominator != 1 else "")
                               + f", inside the claimed {claimed.interval()}")
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
                f"the cohort gives {measure} = {display(own.exact)}, but the prose computes {claim.expression} = "
                f"{format_exact(exact)}: the ratio does not follow from the table",
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


def needs(claim: ArithmeticClaim, chapter: Chapter) -> list[tuple]:
    """(fixture, measure) pairs this claim will measure, for batching."""
    sm = claim.set_measure
    if sm is None:
        return []
    return [(cohort_fixture(chapter.register.cohorts[sm.cohort], sm.selected, sm.among), sm.measure)]
