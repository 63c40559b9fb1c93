"""Comparison claims: a change between two fixtures moves one measure and not another."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from audit.attribution.causes import Input, explain_reference
from audit.evaluation.agreement import agree
from audit.model.evidence import Evidence, Point
from audit.evaluation import evaluator
from audit.evaluation.checks.common import (
    CHAPTER,
    Measurements,
    combined,
    fixture_name,
    fmt_float,
    listed,
    scored_run,
)
from audit.evaluation.checks.stated_effect import (
    alternatives_to_state,
    describe,
    proposed,
    stated_effects,
)
from audit.evaluation.checks.value import conventions_for, printed_in_quote
from audit.evaluation.readings import REJECTED, Readings, explore, graded_levels
from audit.register.claims import Chapter, ComparisonClaim
from audit.measures.conventions import CONVENTIONS, Declared
from audit.measures.syntax import parse as parse_measure
from audit.model.values import display, format_exact, parse_claimed
from audit.model.results import Check, ImplValue

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


def _names(chapter: Chapter, claim: ComparisonClaim, measure: str, after_measure: str) -> list[str]:
    """The conventions either side of the comparison can depend on."""
    before_fx, after_fx = chapter.fixture(claim.before), chapter.fixture(claim.after)
    return list(dict.fromkeys(conventions_for(measure, before_fx, None) + conventions_for(after_measure, after_fx, None)))


def _chapter_directions(ms: Measurements, chapter: Chapter, claim: ComparisonClaim, measure: str,
                        after_measure: str, declared: Declared | None = None) -> Readings:
    """The direction of the change by the chapter's definitions under every reading the text allows
    (``declared``: the conventions stated, by default the claim's own; each value reads
    ``direction|before|after`` or ``REJECTED``)."""
    before_fx, after_fx = chapter.fixture(claim.before), chapter.fixture(claim.after)
    declared = chapter.declared_for(claim) if declared is None else declared
    names = _names(chapter, claim, measure, after_measure)

    def fn(reading):
        b = ms.chapter_value(before_fx, measure, reading)
        a = ms.chapter_value(after_fx, after_measure, reading)
        if b is None or a is None:
            return None
        if REJECTED in (b, a):
            return REJECTED
        return f"{direction(b, a)}|{format_exact(b)}|{format_exact(a)}"

    readings = explore(fn, declared, names, restrict=graded_levels(before_fx.qrels, after_fx.qrels))
    readings.outcomes = [o for o in readings.outcomes if o.value is not None]
    return readings


def _pair(ms: Measurements, chapter: Chapter, claim: ComparisonClaim, measure: str, after_measure: str,
          evidence: Evidence, expected: str, before_claim, after_claim, label_suffix: str = "") -> str | None:
    before_fx, after_fx = chapter.fixture(claim.before), chapter.fixture(claim.after)
    bc = parse_claimed(before_claim) if before_claim is not None else None
    ac = parse_claimed(after_claim) if after_claim is not None else None
    label = (f"{measure} on {fixture_name(claim.before)} → {after_measure} on {fixture_name(claim.after)}"
             f"{label_suffix}")
    readings = _chapter_directions(ms, chapter, claim, measure, after_measure)
    rows: list[ImplValue] = []
    groups: dict[str, list] = {}
    for o in readings.outcomes:
        groups.setdefault(o.value, []).append(o)
    for value, outs in groups.items():
        tag = " or ".join(o.label() for o in outs if o.reading) if len(groups) > 1 else ""
        if value == REJECTED:
            rows.append(ImplValue(implementation=CHAPTER, provider="book definitions, exact", status="rejected",
                                  behaviour=tag, in_interval=False))
            continue
        d, b, a = value.split("|")
        rows.append(ImplValue(implementation=CHAPTER, provider="book definitions, exact", value=float(Fraction(a)),
                              per_query={"before": display(b), "after": display(a)}, in_interval=d == expected,
                              behaviour=f"{d}" + (f" ({tag})" if tag else "")))
    ref_dirs = {}
    for ref in ms.references:
        b = ms.reference(ref, before_fx, measure)
        a = ms.reference(ref, after_fx, after_measure)
        if b.status != "ok" or a.status != "ok":
            bad = b if b.status != "ok" else a
            rows.append(ImplValue(implementation=ref.name, provider=bad.provider, status=bad.status, detail=bad.detail))
            if bad.status == "error":
                evidence.reference_errors([f"{ref.name} ({bad.provider}) failed on {label}: {bad.detail}"])
            continue
        if not b.per_query or not a.per_query:
            rows.append(ImplValue(implementation=ref.name, provider=b.provider, status="left out",
                                  detail="it returned no value for a side of the comparison"))
            continue
        bv = float(combined(measure, b.per_query))
        av = float(combined(after_measure, a.per_query))
        d = direction(bv, av)
        # A printed side is checked on every implementation, as a value claim is (not only the direction).
        outside = [(side, v, c) for side, v, c in (("before", bv, bc), ("after", av, ac))
                   if c is not None and not c.contains(v)]
        ref_dirs[ref.name] = (d, bv, av, b.provider, outside)
        rows.append(ImplValue(implementation=ref.name, provider=b.provider, value=av,
                              per_query={"before": fmt_float(bv), "after": fmt_float(av)},
                              in_interval=d == expected and not outside, behaviour=d or ""))
    curves = _curves(measure, after_measure, before_fx, after_fx)
    evidence.checks.append(Check(label=label, measure=f"{measure} → {after_measure}", claimed=expected, curves=curves,
                                 interval=(f"before {bc.interval()}" if bc else "")
                                 + (", " if bc and ac else "") + (f"after {ac.interval()}" if ac else ""),
                                 values=rows))
    if not readings.outcomes:
        evidence.register_error(f"no reading of the chapter's definitions applies to {label}", "conventions",
                                "the conventions declared for this claim (its own, its chapter's) leave no reading "
                                "of the measure: remove the one the sentence does not state")
        return None
    holds = [o for o in readings.outcomes if o.value != REJECTED and o.value.split("|")[0] == expected]
    fails = [o for o in readings.outcomes if o not in holds]

    def says(o) -> str:
        if o.value == REJECTED:
            return "rejects the input"
        d, b, a = o.value.split("|")
        return f"{d} ({display(b)} → {display(a)})"

    def whole(value: str) -> bool:
        """The expectation holds on this value: the direction, and each side the claim prints."""
        d, b, a = value.split("|")
        return d == expected and all(c is None or c.contains(Fraction(v)) for c, v in ((bc, b), (ac, a)))

    offered: set[tuple[str, str]] = set()
    titles = {r.name: r.title for r in ms.references}
    # the references that see the whole expectation (direction and printed sides): only they back a stated
    # convention's other value as a fix
    backers = [titles[name] for name, (d, _, _, _, outside) in ref_dirs.items() if d == expected and not outside]
    printed_sides = [f"{side} {text}" for side, text in (("before", before_claim), ("after", after_claim))
                     if text is not None]
    checked = f"the claimed “{expected}”" + (f" ({', '.join(printed_sides)})" if printed_sides else "")

    if not holds:
        only = {says(o) for o in fails}
        effect, other = _stated_effects(ms, chapter, claim, measure, after_measure, lambda v: v.split("|")[0],
                                        lambda v: v.split("|")[0] == expected, whole, lambda v: f"“{v.split('|')[0]}”",
                                        f"the claimed “{expected}”", "the claimed change", checked, offered, backers)
        evidence.failures.append(Point(
            f"{label}: by the chapter's definition the value " + "; ".join(
                (f"{o.label()}: " if o.reading else "") + says(o) for o in fails)
            + f"; the claim says it {'is unchanged' if expected == 'unchanged' else expected}"
            + (". " + effect if effect else ""),
            (f"Revise: the measure {says(fails[0])} here; state that instead of “{expected}”."
             if len(only) == 1 and fails[0].value != REJECTED else
             "Revise the stated change and name the convention it rests on.") + (" " + other if other else "")))
    elif fails:
        names = readings.deciding(lambda v: v in {o.value for o in holds})
        phrases = "; ".join(CONVENTIONS[n].phrase(sorted({o.as_dict[n] for o in holds})[0]) for n in names)
        evidence.conditions.append(Point(
            f"{label}: the change holds under some readings and not others — " + "; ".join(
                f"{o.label()}: {says(o)}" for o in readings.outcomes),
            f"State the convention the change rests on, e.g. “Here {phrases}.”" if names else
            "State the convention the change rests on."))
    # before/after values as printed
    for side, fx, m, c, text in (("before", before_fx, measure, bc, before_claim), ("after", after_fx, after_measure, ac,
                                                                                    after_claim)):
        if c is None:
            continue
        side_vals = {o.value.split("|")[1 if side == "before" else 2] for o in readings.outcomes if o.value != REJECTED}
        wrong = [v for v in side_vals if not c.contains(Fraction(v))]
        if wrong and len(wrong) == len(side_vals):
            v = Fraction(sorted(wrong)[0])
            at = 1 if side == "before" else 2
            effect, other = _stated_effects(ms, chapter, claim, measure, after_measure,
                                            lambda v, at=at: v.split("|")[at],
                                            lambda v, at=at, c=c: c.contains(Fraction(v.split("|")[at])), whole,
                                            lambda v, at=at: display(v.split("|")[at]), f"the printed {text}",
                                            "the printed value", checked, offered, backers)
            change = (f"Change “{text}” to “{c.write_like(v)}”." if printed_in_quote(text, claim.quote) else
                      f"In the register, set {claim.id}'s {side} value from “{text}” to “{c.write_like(v)}” (the "
                      "sentence does not print it).")
            evidence.failures.append(Point(
                f"{side}, the chapter's definition gives {display(format_exact(v))}, outside the claimed {c.interval()}"
                + (". " + effect if effect else ""), change + (" " + other if other else "")))
    if holds:
        base = {**readings.base, **holds[0].as_dict}
        _, bd, ad = holds[0].value.split("|")
        side_values: dict[tuple[str, str], list] = {}  # (before, after) → (reference, its point), in order
        for name, (d, bv, av, provider, outside) in ref_dirs.items():
            if d == expected and not outside:
                continue
            ref = next(r for r in ms.references if r.name == name)
            cause = _side_cause(ms, ref, before_fx, measure, bv, base) or _side_cause(ms, ref, after_fx, after_measure,
                                                                                      av, base)
            if d == expected:
                sides = " and ".join(f"{side} {fmt_float(v)}, outside the printed {c.interval()}"
                                     for side, v, c in outside)
                point = Point(f"{ref.title} ({provider}) gives {measure} {fmt_float(bv)} → {fmt_float(av)} ({sides}) "
                              f"where the chapter's definition gives {display(bd)} → {display(ad)}: "
                              + (cause or "unexplained: no single cause tried makes them agree"))
                evidence.conditions.append(point)
                side_values.setdefault((fmt_float(bv), fmt_float(av)), []).append((ref.title, point))
                continue
            evidence.conditions.append(Point(
                f"{ref.title} ({provider}) sees {measure} {d} ({fmt_float(bv)} → {fmt_float(av)}) where the chapter's "
                f"definition {expected} ({display(bd)} → {display(ad)}): " + (cause or "unexplained: no single cause "
                                                                               "tried makes them agree"),
                f"Add: “{ref.title} sees the measure {d} here" + (f" because it {cause.split(': ', 1)[-1]}" if cause else "")
                + ".”"))
        for (bv, av), named in side_values.items():
            names = [n for n, _ in named]
            who = listed(names)
            named[-1][1].wording = (f"Add: “With {who}, {measure} goes from {bv} to {av} here.” (checked: the values "
                                    "they returned)")
    return holds[0].value.split("|")[0] if holds and not fails else (
        fails[0].value.split("|")[0] if fails and fails[0].value != REJECTED else None)


def _stated_effects(ms: Measurements, chapter: Chapter, claim: ComparisonClaim, measure: str, after_measure: str,
                    key, matches, holds, show, printed: str, match: str, checked: str,
                    offered: set[tuple[str, str]], backers: list[str]) -> tuple[str, str]:
    """The stated conventions that shaped a contradicted comparison (its direction, or one side's value), found by
    re-running the comparison with each stated convention changed (``stated_effect.stated_effects``): the sentences
    for the reason and the re-checked alternatives for the proposal ('' when there are none).

    Values are ``direction|before|after``. ``key(value)``: the part the finding is about (the direction, or one
    side's exact value); ``matches(value)``: that part is the claimed one; ``holds(value)``: the whole expectation
    holds (direction and every printed side), the check a proposal rests on; ``show(value)``: how the part is
    printed; ``printed``: how the claim's statement is named; ``match``: how a matching part is marked;
    ``checked``: how the whole expectation is named in a proposal. ``offered``: ``(convention, value)``
    alternatives already proposed for this expectation, not proposed again (updated); ``backers``: the references
    that see the whole expectation (an alternative is offered only when one does).
    """
    before_fx, after_fx = chapter.fixture(claim.before), chapter.fixture(claim.after)

    def values_under(declared: Declared) -> list:
        return [o.value for o in _chapter_directions(ms, chapter, claim, measure, after_measure, declared).outcomes]

    def ok(test):
        return lambda v: v != REJECTED and test(v)

    effects = stated_effects(values_under, chapter.declared_for(claim), _names(chapter, claim, measure, after_measure),
                             ok(holds), restrict=graded_levels(before_fx.qrels, after_fx.qrels),
                             key=lambda v: v if v == REJECTED else key(v), matches=ok(matches))

    def vanishes(value) -> bool:
        """The measure is 0 on both sides (a relevance level above every grade judged relevant): the reading says
        nothing about the change, so it is not named as one that gives it."""
        return value != REJECTED and all(Fraction(x) == 0 for x in value.split("|")[1:])

    effects = [replace(e, alternatives=kept) for e in effects
               if (kept := tuple(a for a in e.alternatives if not all(vanishes(v) for v in a.gives)))]

    def show_all(values) -> str:
        return " or ".join(dict.fromkeys("rejects the input" if v == REJECTED else show(v) for v in values))

    other = alternatives_to_state(effects, checked, offered, backers)
    offered |= proposed(effects)
    return describe(effects, show_all, printed, match), other


def _side_cause(ms: Measurements, ref, fixture, measure: str, observed_mean: float, base) -> str:
    """The attributed cause of a reference's value on one side of a comparison, or '' when it agrees there."""
    _, spec = parse_measure(measure)
    own = evaluator.evaluate(spec, fixture.qrels, fixture.run, base, fixture.scores)
    outcome = ms.reference(ref, fixture, measure)
    if agree(own, outcome.per_query):
        return ""
    m = parse_measure(measure)[0]
    inp = Input({q: dict(j) for q, j in fixture.qrels.items()}, {q: list(r) for q, r in fixture.run.items()},
                scored_run(fixture))
    found = explain_reference(ref, m, spec, outcome.per_query, inp, base, conventions_for(measure, fixture, None))
    text = found.summary(ref.title)
    return text + (". " + found.evidence() if found.explained else "")


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
        if d == e.change:
            evidence.scopes.append(f"{e.measure}{'' if after_measure == e.measure else ' → ' + after_measure} "
                                   f"{d} by the chapter's definition under every reading, as claimed")
    agreeing = {v.implementation for c in evidence.checks for v in c.values
                if v.implementation != CHAPTER and v.status == "ok" and v.in_interval}
    if agreeing and not evidence.conditions:
        evidence.scopes.append(f"{', '.join(sorted(agreeing))} show the same changes")
    return evidence


def needs(claim: ComparisonClaim, chapter: Chapter) -> list[tuple]:
    """(fixture, measure) pairs this claim will measure, for batching."""
    before, after = chapter.fixture(claim.before), chapter.fixture(claim.after)
    out = []
    for e in claim.expect:
        out += [(before, e.measure), (after, e.after_measure or e.measure)]
    return out
