"""Value claims: a measure on a fixture equals the printed value."""

from __future__ import annotations

from .. import evaluator
from ..measures import parse as parse_measure
from ..register import Chapter, ValueClaim
from ..results import Check, ImplValue
from ..values import display, format_exact, parse_claimed
from ..verdict import Evidence, Point
from .common import (CHAPTER, Measurements, applicable, by_name, errors_of, exact_of, fixture_name,
                     not_applicable_names, reference_note, shown)


def bounds(claimed) -> dict:
    """The claimed interval as floats for charts."""
    return {"low": None if claimed.low is None else float(claimed.low),
            "high": None if claimed.high is None else float(claimed.high)}


def gain_variant(measure: str) -> str | None:
    """The same nDCG measure with the other gain function (``nDCG@4`` ↔ ``nDCG(dcg='exp-log2')@4``)."""
    m, spec = parse_measure(measure)
    if spec.name != "nDCG":
        return None
    cut = f"@{spec.cutoff}" if spec.cutoff is not None else ""
    return f"nDCG(dcg='exp-log2'){cut}" if spec.gain == "log2" else f"nDCG{cut}"


def check_expectation(ms: Measurements, chapter: Chapter, fixture_ref, measure: str, claimed_text,
                      evidence: Evidence, *, tolerance=None, derived: str = "", query: str | None = None,
                      unstated=(), label_prefix: str = "") -> None:
    """Compare one measure on one fixture with the claimed value; add checks and points to ``evidence``."""
    fixture = chapter.fixture(fixture_ref)
    claimed = parse_claimed(claimed_text, tolerance=tolerance)
    label = f"{label_prefix}{measure} on {fixture_name(fixture_ref)}" + (f", query {query}" if query else "")
    values = ms.values(fixture, measure, query=query, claimed=claimed)
    evidence.checks.append(Check(label=label, measure=measure + (f" ({query})" if query else ""),
                                 claimed=str(claimed_text), interval=claimed.interval(), derived=derived,
                                 values=values, **bounds(claimed)))
    evidence.errors += errors_of(values, label)
    own = values[0]
    if own.status != "ok":
        return
    if not own.in_interval:
        evidence.failures.append(Point(
            f"By the chapter's definition {measure} on this fixture is {display(own.exact)}"
            f"{f' (≈ {own.value:.4f})' if '/' in (own.exact or '') else ''}, outside the claimed {claimed.interval()}",
            f"Change “{claimed_text}” to “{claimed.write_like(exact_of(own))}”." if not derived else
            f"Revise the statement: on the fixture encoding it, {measure} is {display(own.exact)}, not {claimed.interval()}."))
    refs = by_name(ms.references)
    for v in applicable(values):
        if v.in_interval == own.in_interval:
            continue
        note = reference_note(refs[v.implementation], measure)
        text = (f"{v.implementation} ({v.provider}) gives {measure} = {shown(v)}"
                + (f" — its convention: {note}" if note else ""))
        if own.in_interval:
            convention = note or "see the reference ledger"
            evidence.conditions.append(Point(text, (
                f"Add after the definition: “{v.implementation} computes {measure} differently ({convention}); "
                f"readers using it get {shown(v)} here.”")))
        else:
            evidence.notes.append(f"{text}, which matches the claim: the claim fits that convention, "
                                  "not the chapter's own definition")
    if "gain" in unstated:
        other = gain_variant(measure)
        if other:
            alt_values = ms.values(fixture, other, query=query, claimed=claimed)
            evidence.checks.append(Check(label=f"{label_prefix}{other} on {fixture_name(fixture_ref)} "
                                         "(the other gain function)", measure=other + (f" ({query})" if query else ""), claimed=str(claimed_text),
                                         interval=claimed.interval(), values=alt_values))
            evidence.errors += errors_of(alt_values, other)
            alt = alt_values[0]
            if alt.status == "ok" and own.in_interval and not alt.in_interval:
                evidence.conditions.append(Point(
                    f"the value depends on the gain function, which the chapter does not state: linear gain "
                    f"gives {own.value:.4f}, exponential gain (2^grade − 1) gives {alt.value:.4f}",
                    "Name the gain function where nDCG is defined, e.g. “with gain equal to the grade "
                    "(linear), as in trec_eval's ndcg_cut”."))
    scope = f"{label}: the chapter's definition gives {display(own.exact)}"
    agreeing = [v.implementation for v in applicable(values) if v.in_interval]
    if agreeing:
        scope += f", and {', '.join(agreeing)} agree"
    na = not_applicable_names(values)
    if na:
        scope += f" (not applicable: {'; '.join(na)})"
    evidence.scopes.append(scope)


def pooled_values(ms: Measurements, fixture, measure: str, claimed) -> list[ImplValue]:
    """Recall pooled over needs (Σ found / Σ |R|): the chapter's exactly; each reference's derived
    from its per-need recall weighted by that need's |R|."""
    _, spec = parse_measure(measure)
    sizes = {q: len(evaluator.relevant_set(j, spec.rel)) for q, j in fixture.qrels.items() if q in fixture.run}
    total = sum(sizes.values())
    own = evaluator.pooled_recall(fixture.qrels, fixture.run, spec.cutoff, spec.rel)
    out = [ImplValue(implementation=CHAPTER, provider="book definitions, exact", value=float(own),
                     exact=format_exact(own), in_interval=claimed.contains(own),
                     detail="Σ relevant found / Σ |R| over needs")]
    for v in ms.values(fixture, measure)[1:]:
        if v.status != "ok":
            out.append(v)
            continue
        outcome = ms.reference(next(r for r in ms.references if r.name == v.implementation), fixture, measure)
        value = (sum(outcome.per_query.get(q, 0.0) * n for q, n in sizes.items()) / total) if total else 0.0
        out.append(ImplValue(implementation=v.implementation, provider=v.provider, value=value,
                             in_interval=claimed.contains(value),
                             detail="derived from its per-need recall, weighted by |R|"))
    return out


def check_pooled(ms: Measurements, chapter: Chapter, claim: ValueClaim, e, evidence: Evidence) -> None:
    fixture = chapter.fixture(claim.fixture)
    claimed = parse_claimed(e.claimed, tolerance=e.tolerance)
    values = pooled_values(ms, fixture, e.measure, claimed)
    label = f"{e.measure} pooled over the needs of {fixture_name(claim.fixture)} (Σ found / Σ |R|)"
    evidence.checks.append(Check(label=label, measure=f"{e.measure} pooled", claimed=str(e.claimed),
                                 interval=claimed.interval(), derived=e.derived, values=values))
    own = values[0]
    mean_own = ms.values(fixture, e.measure)[0]
    if e.aggregate == "pooled":
        if not own.in_interval:
            evidence.failures.append(Point(
                f"pooled over needs, {e.measure} is {display(own.exact)}, outside the claimed {claimed.interval()}",
                f"Change “{e.claimed}” to “{claimed.write_like(exact_of(own))}”."))
        else:
            evidence.scopes.append(f"{label}: {display(own.exact)}")
        return
    if own.in_interval:
        evidence.scopes.append(f"pooled over needs it is {display(own.exact)} too, so both readings hold")
    elif mean_own.status == "ok" and claimed.contains(exact_of(mean_own)):
        evidence.conditions.append(Point(
            f"{e.claimed} is the mean of per-need {e.measure} ({display(mean_own.exact)}); the share of all relevant "
            f"material found, pooled over needs, is {display(own.exact)} on this fixture, because needs differ in "
            f"how many relevant documents they have — so the printed {e.claimed} holds only in the mean reading",
            f"Make the sentence about the average need, not about all the relevant material: e.g. “the average "
            f"question has {1 - float(claimed.nominal):.0%} of its relevant material missing”."))
        evidence.concern = ("Read as a share of all the relevant material, the sentence is wrong whenever needs differ "
                            "in how many relevant documents they have.")


def check(claim: ValueClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    for e in claim.expect:
        if e.aggregate != "pooled":
            check_expectation(ms, chapter, claim.fixture, e.measure, e.claimed, evidence, tolerance=e.tolerance,
                              derived=e.derived, query=e.query, unstated=claim.unstated)
        if e.aggregate != "mean":
            check_pooled(ms, chapter, claim, e, evidence)
    return evidence


def needs(claim: ValueClaim, chapter: Chapter) -> list[tuple]:
    """(fixture, measure) pairs this claim will measure, for batching."""
    fixture = chapter.fixture(claim.fixture)
    out = []
    for e in claim.expect:
        out.append((fixture, e.measure))
        if "gain" in claim.unstated and gain_variant(e.measure):
            out.append((fixture, gain_variant(e.measure)))
    return out
