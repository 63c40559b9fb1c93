"""Comparison claims: a change between two fixtures moves one measure and not another."""

from __future__ import annotations

from fractions import Fraction

from .. import evaluator
from ..measures import parse as parse_measure
from ..register import Chapter, ComparisonClaim
from ..results import Check, ImplValue
from ..values import display, parse_claimed
from ..verdict import Evidence, Point
from .common import CHAPTER, Measurements, errors_of, exact_of, fixture_name, shown
from .value import gain_variant

_EPS = 1e-9


def direction(before, after) -> str | None:
    """``increases`` / ``decreases`` / ``unchanged``; floats within 1e-9 count as unchanged."""
    if before is None or after is None:
        return None
    if isinstance(before, Fraction) and isinstance(after, Fraction):
        diff = after - before
        return "unchanged" if diff == 0 else ("increases" if diff > 0 else "decreases")
    diff = float(after) - float(before)
    return "unchanged" if abs(diff) <= _EPS else ("increases" if diff > 0 else "decreases")


def _pair(ms: Measurements, chapter: Chapter, claim: ComparisonClaim, measure: str, after_measure: str,
          evidence: Evidence, expected: str, before_claim, after_claim, label_suffix: str = "") -> str | None:
    before_fx, after_fx = chapter.fixture(claim.before), chapter.fixture(claim.after)
    bc = parse_claimed(before_claim) if before_claim is not None else None
    ac = parse_claimed(after_claim) if after_claim is not None else None
    before_values = ms.values(before_fx, measure, claimed=bc)
    after_values = ms.values(after_fx, after_measure, claimed=ac)
    label = (f"{measure} on {fixture_name(claim.before)} → {after_measure} on {fixture_name(claim.after)}"
             f"{label_suffix}")
    evidence.errors += errors_of(before_values + after_values, label)
    rows: list[ImplValue] = []
    own_direction = None
    for b, a in zip(before_values, after_values):
        d = direction(exact_of(b), exact_of(a))
        status = "ok" if d else (b.status if b.status != "ok" else a.status)
        rows.append(ImplValue(implementation=b.implementation, provider=b.provider or a.provider, status=status,
                              value=a.value, exact=None,
                              per_query={"before": shown(b), "after": shown(a)},
                              in_interval=(d == expected) if d else None, behaviour=d or "",
                              detail=b.detail or a.detail))
        if b.implementation == CHAPTER:
            own_direction = d
            for side, v, c, text in (("before", b, bc, before_claim), ("after", a, ac, after_claim)):
                if c is not None and v.status == "ok" and not v.in_interval:
                    evidence.failures.append(Point(
                        f"{side}, the chapter's definition gives {display(v.exact)}, outside the claimed {c.interval()}",
                        f"Change “{text}” to “{c.write_like(exact_of(v))}”."))
        elif d and own_direction and d != own_direction:
            evidence.conditions.append(Point(
                f"{b.implementation} ({b.provider}) sees {measure} {d} "
                f"({shown(b)} → {shown(a)}) where the chapter's definition {own_direction}",
                "Name the convention under which the change holds."))
    curves = _curves(measure, after_measure, before_fx, after_fx)
    evidence.checks.append(Check(label=label, measure=f"{measure} → {after_measure}", claimed=expected, curves=curves,
                                 interval=(f"before {bc.interval()}" if bc else "")
                                 + (", " if bc and ac else "") + (f"after {ac.interval()}" if ac else ""),
                                 values=rows))
    if own_direction and own_direction != expected:
        evidence.failures.append(Point(
            f"{label}: by the chapter's definition the value {own_direction} "
            f"({rows[0].per_query['before']} → {rows[0].per_query['after']}); the claim says it {expected}",
            f"Revise: the measure {own_direction} here; state that instead of “{expected}”."))
    return own_direction


def _curves(measure: str, after_measure: str, before, after) -> dict[str, list[float]]:
    """When a claim moves the cutoff (R@1 → R@3), the chapter's P@k and R@k at every k on each fixture."""
    _, b = parse_measure(measure)
    _, a = parse_measure(after_measure)
    if b.name != a.name or b.cutoff == a.cutoff or b.cutoff is None or a.cutoff is None:
        return {}
    out = {}
    for side, fixture in (("before", before), ("after", after)):
        longest = max((len(r) for r in fixture.run.values()), default=0)
        for name in ("P", "R"):
            out[f"{name}@k, {side}"] = [
                float(evaluator.mean(evaluator.evaluate(parse_measure(f"{name}@{k}")[1], fixture.qrels, fixture.run)))
                for k in range(1, max(longest, a.cutoff, b.cutoff) + 2)]
    return out


def check(claim: ComparisonClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    for e in claim.expect:
        after_measure = e.after_measure or e.measure
        d = _pair(ms, chapter, claim, e.measure, after_measure, evidence, e.change, e.before, e.after)
        if d:
            evidence.scopes.append(f"{e.measure}{'' if after_measure == e.measure else ' → ' + after_measure} "
                                   f"{d} by the chapter's definition, as claimed"
                                   if d == e.change else "")
        if "gain" in claim.unstated:
            gb, ga = gain_variant(e.measure), gain_variant(after_measure)
            if gb and ga:
                alt = _pair(ms, chapter, claim, gb, ga, evidence, e.change, None, None, " (other gain function)")
                if alt and d and alt != d:
                    evidence.conditions.append(Point(
                        f"with the other gain function the measure {alt} instead; the chapter does not state its gain",
                        "Name the gain function where nDCG is defined."))
    agree = {v.implementation for c in evidence.checks for v in c.values
             if v.implementation != CHAPTER and v.status == "ok"}
    evidence.scopes = [s for s in evidence.scopes if s]
    if agree and not evidence.conditions:
        evidence.scopes.append(f"{', '.join(sorted(agree))} show the same changes")
    return evidence


def needs(claim: ComparisonClaim, chapter: Chapter) -> list[tuple]:
    """(fixture, measure) pairs this claim will measure, for batching."""
    before, after = chapter.fixture(claim.before), chapter.fixture(claim.after)
    out = []
    for e in claim.expect:
        pairs = [(e.measure, e.after_measure or e.measure)]
        if "gain" in claim.unstated and gain_variant(e.measure) and gain_variant(pairs[0][1]):
            pairs.append((gain_variant(e.measure), gain_variant(pairs[0][1])))
        for b, a in pairs:
            out += [(before, b), (after, a)]
    return out
