"""Property claims: a universal statement searched for counterexamples.

Two stages, both through the chapter's definitions and every reference that supports the
measure: exhaustive enumeration of a small universe (``audit.model.universe``), then a seeded
random search beyond it (longer rankings, unjudged documents, graded judgements). Cases
are evaluated as many queries in one call per reference. A statement found false is tried
in its weaker form ("increases" → "never decreases") so a qualified verdict can name what
does hold.
"""

from __future__ import annotations

import re

import random
import time
from fractions import Fraction

from audit.model.evidence import Evidence, Point
from audit.errors import AuditError
from audit.evaluation import evaluator
from audit.evaluation.checks.common import CHAPTER, Measurements, fmt_float
from audit.evaluation.readings import base_reading
from audit.model.universe import PREMISES, Case, Run, Universe
from audit.register.claims import Chapter, PropertyClaim
from audit.measures.conventions import CONVENTIONS
from audit.measures.syntax import at_cutoff
from audit.measures.syntax import parse as parse_measure
from audit.model.values import display, format_exact
from audit.model.results import Check, ImplValue
from audit.evaluation.checks.counterexamples import (
    Evaluations,
    Finding,
    Pair,
    Requests,
    SearchResult,
    TRANSFORMS,
    WEAKER,
    WHOLE,
    _constant,
    _extreme_parts,
    _right,
    _under_parts,
    comparisons,
    extreme,
    holds,
    measure_at,
    pair_values,
    random_cases,
    search,
    under,
)


# --- the checker ----------------------------------------------------------------------------------

def _show(x) -> str:
    return display(format_exact(x)) if isinstance(x, Fraction) else fmt_float(x)


def _graded(claim) -> bool:
    """Whether the claim's search uses grades above 1 (a counterexample then names each grade)."""
    universe = getattr(claim, "universe", None)
    return universe is not None and max(universe.grades) > 1


def _where(pair: Pair) -> str:
    """Where a comparison is made: ``k = 3``, or ``whole rankings``."""
    return "whole rankings" if pair.k == WHOLE else f"k = {pair.k}"


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _measures_of(claim: PropertyClaim) -> list[str]:
    """The measures on the right side of a claim's comparisons (a ``min``/``max`` side's two measures)."""
    if claim.compare != "measure":
        return []
    parts = _extreme_parts(claim.other)
    return parts[1] if parts else claim.others


def _side(measure: str, at: str) -> str:
    """How a right side reads at a cutoff: ``R@k``, ``min(P@k, R@k)``."""
    shifted = _under_parts(measure)
    if shifted is not None:
        return f"{measure_at(shifted[0], at)} ({'; '.join(f'{n}: {v}' for n, v in shifted[1].items())})"
    parts = _extreme_parts(measure)
    if parts is None:
        return measure_at(measure, at)
    name = "min" if parts[0] is min else "max"
    return f"{name}({', '.join(measure_at(m, at) for m in parts[1])})"


def _statement(claim: PropertyClaim, relation: str) -> str:
    given = f" when {PREMISES[claim.given].text}" if claim.given else ""
    if claim.compare == "next_cutoff":
        return f"{claim.measure}@k+1 {relation} relative to {claim.measure}@k{given}"
    at = {"|R|": "|R|", "whole ranking": WHOLE}.get(claim.at, "k")
    if claim.compare == "measure":
        return f"{measure_at(claim.measure, at)} {relation} {_side(_right(claim), at)}{given}"
    if claim.compare == "constant":
        return f"{measure_at(claim.measure, at)} {relation} {claim.bound}{given}"
    return f"{measure_at(claim.measure, at)} {relation} when {TRANSFORMS[claim.transform][1]}{given}"


def _counterexample_check(claim: PropertyClaim, relation: str, finding: Finding, stage: str) -> Check:
    p = finding.pair
    bound = _constant(p.right_measure)
    right_label = (format_exact(bound) if bound is not None else _side(p.right_measure, p.k2)) + (
        " after the change" if p.other != p.case else "")
    values = [ImplValue(implementation=impl, value=float(right),
                        per_query={"left": _show(left), "right": _show(right)},
                        in_interval=holds(relation, left, right))
              for impl, (left, right) in finding.values.items()]
    table = p.case.table()
    if p.other != p.case:
        table += [["after the change", "", ""]] + p.other.table()[1:]
    curves = {}
    if claim.compare == "next_cutoff" and isinstance(p.case, Case):
        ks = range(1, max(len(p.case.ranked), p.k2) + 2)
        curves = {f"{claim.measure}@k": [float(evaluator.evaluate_query(parse_measure(at_cutoff(claim.measure, k))[1],
                                                                     p.case.qrels(), p.case.ranking())) for k in ks]}
    return Check(curves=curves, label=f"counterexample to “{_statement(claim, relation)}” ({stage}): "
                       f"{measure_at(claim.measure, p.k)} → {right_label}; {p.case.describe(_graded(claim))}"
                       + (f" → {p.other.describe(_graded(claim))}" if p.other != p.case else ""),
                 measure=f"{measure_at(claim.measure, p.k)} → {right_label}", claimed=relation,
                 values=values, table=table)


def check(claim: PropertyClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    """Search the statement; ``between`` is two searches, never below the smaller of the two measures and never
    above the larger, each with its own counterexample, scope and proposal."""
    if claim.relation == "rises or falls":
        return _both_ways(claim, chapter, ms)
    if claim.relation != "between":
        return _check(claim, chapter, ms)
    evidence = Evidence()
    for relation, name in (("never below", "min"), ("never exceeds", "max")):
        half = claim.model_copy(update={"relation": relation, "other": extreme(name, claim.others)})
        part = _check(half, chapter, ms)
        part.scopes = [f"“{_statement(half, relation)}”: {_lower(scope)}" for scope in part.scopes]
        for attribute in ("checks", "failures", "conditions", "errors", "notes", "scopes"):
            getattr(evidence, attribute).extend(getattr(part, attribute))
        evidence.concern = evidence.concern or part.concern
        if part.failures or part.conditions:
            evidence.lead = part.lead
    return evidence


def _either_way(claim: PropertyClaim, one: Finding, other: Finding) -> str:
    """"Can move either way", with the case where the values rise and the case where they fall, each named by
    its own values (which of the two searches found which direction is not assumed)."""
    def moved(f: Finding) -> str:
        left, right = f.values[CHAPTER]
        return f"{f.pair.case.describe(_graded(claim))}, {_where(f.pair)}, {_show(left)} → {_show(right)}"
    rising, falling = (one, other) if one.values[CHAPTER][1] > one.values[CHAPTER][0] else (other, one)
    return (f"Say instead that {claim.measure}@k can move either way as k grows (checked: it rises on "
            f"{moved(rising)}, and falls on {moved(falling)}).")


def _both_ways(claim: PropertyClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    """"Can raise or lower": the searches for "never increases" and "never decreases" must each find a
    counterexample by the chapter's definitions (a case where the measure rises, one where it falls); the
    statement is contradicted, with the direction never seen, when one of them finds none."""
    evidence = Evidence()
    seen = {}
    for relation, direction in (("never increases", "rises"), ("never decreases", "falls")):
        half = _check(claim.model_copy(update={"relation": relation}), chapter, ms)
        evidence.checks.extend(half.checks)
        evidence.absorb_errors(half)
        found = [p.text for p in half.failures + half.conditions if p.text.startswith("False")] or \
                [p.text for p in half.failures + half.conditions]
        # the half's search found its counterexample: it would be contradicted or qualified (a failure or a
        # condition, and no error: the verdict rules' order, audit.attribution.verdict.decide)
        against = bool(half.failures or half.conditions) and not half.errors
        seen[direction] = (against and bool(found), found)
    for direction, (ok, found) in seen.items():
        if ok:
            case = re.sub(r"^False[^:]*: ", "", found[0])   # the counterexample itself, not the verdict's words
            evidence.scopes.append(f"a case where {claim.measure} {direction}: {case}")
    missing = [d for d, (ok, _) in seen.items() if not ok]
    if missing and not evidence.errors:
        evidence.concern = f"Readers are told {claim.measure} can move both ways; it was never seen to {missing[0][:-1]}."
        evidence.failures.append(Point(
            f"No case where {claim.measure} {' or '.join(missing)} was found by the search "
            f"({_statement(claim, 'never ' + ('increases' if missing[0] == 'rises' else 'decreases'))} held on "
            "every case searched)",
            "Revise the sentence: the measure was seen to move one way only."))
    return evidence


#: Conventions no case of a search can exercise: its rankings repeat no ID and tie no score.
_NOT_IN_CASES = frozenset({"prefix", "repeated_ids", "ties"})


def _breach_cause(claim: PropertyClaim, chapter: Chapter, f: Finding, impl: str) -> tuple[str, str, str] | None:
    """The convention behind a reference's counterexample, found by experiment: each convention the claim's measures
    depend on (stated or not) is set to each of its other values in turn and the chapter's definitions are run on
    the counterexample; the first reading that returns the reference's two values (to 1e-9) is returned as
    (convention, its value there, the chapter's value): ("gmap_floor", "floored", "none"); None when none does."""
    got = f.values.get(impl)
    if not got or None in got:
        return None
    base = base_reading(chapter.declared_for(claim))
    names: list[str] = []
    for m in [claim.measure] + _measures_of(claim):
        spec = parse_measure(at_cutoff(m, 1), True)[1]
        if spec is not None:
            names += evaluator.relevant_to(spec.name, several_queries=isinstance(f.pair.case, Run))
    requests: Requests = {(claim.measure, f.pair.case): {f.pair.k}}
    requests.setdefault((f.pair.right_measure, f.pair.other), set()).add(f.pair.k2)
    for name in dict.fromkeys(names):
        if name in _NOT_IN_CASES:
            continue
        for value in CONVENTIONS[name].values:
            if value == base.get(name):
                continue
            try:
                table = Evaluations([], {**base, name: value}).compute(requests)[CHAPTER]
            except AuditError:
                continue
            mine = pair_values(table, claim.measure, f.pair)
            if None not in mine and all(abs(float(a) - float(b)) <= 1e-9 for a, b in zip(mine, got)):
                return name, value, base[name]
    return None


def other_readings(claim: PropertyClaim, chapter: Chapter) -> list[tuple[str, str, dict[str, str]]]:
    """(convention, value, reading) for each convention the claim's measures depend on that the text does not state,
    and each of its other values someone reads the text with (``Declared.reads``): the readings a universal
    statement must also hold under. Conventions the search's cases cannot exercise are left out (repeats, ties;
    unjudged documents when the universe has none; gain and relevance levels on binary grades)."""
    declared = chapter.declared_for(claim)
    base = base_reading(declared)
    names: list[str] = []
    for m in [claim.measure] + _measures_of(claim):
        spec = parse_measure(at_cutoff(m, 1), True)[1]
        if spec is not None:
            names += evaluator.relevant_to(spec.name, several_queries=False)
    graded = max(claim.universe.grades) > 1
    out = []
    for name in dict.fromkeys(names):
        if declared.stated(name) or name in _NOT_IN_CASES or (name == "unjudged" and not claim.universe.unjudged) \
                or (name in ("gain", "relevance_level", "level_gain") and not graded):
            continue
        for value in CONVENTIONS[name].values:
            if value == base[name] or not declared.reads(name, value):
                continue
            if name == "relevance_level" and int(value) > max(claim.universe.grades):
                continue
            out.append((name, value, {**base, name: value}))
    return out


def _under_readings(claim: PropertyClaim, chapter: Chapter, ms: Measurements, deadline: float):
    """The chapter's own search (exhaustive stage) under each other reading (``other_readings``): (convention,
    value, the chapter's counterexample or None)."""
    exhaustive = claim.model_copy(update={"search": claim.search.model_copy(update={"random_cases": 0})})
    out = []
    for name, value, reading in other_readings(claim, chapter):
        ev = Evaluations([], reading, ms.chapter_table(reading))
        out.append((name, value, search(exhaustive, claim.relation, ev, deadline).findings.get(CHAPTER)))
    return out


def _check(claim: PropertyClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    refs = [r for r in ms.search_references() if all(r.supports(parse_measure(
        measure_at(m, WHOLE if claim.at == "whole ranking" else 1))[0]).ok
                                                     for m in [claim.measure] + _measures_of(claim))]
    if claim.other_conventions:
        refs = []  # each reference computes one convention; the comparison is between the chapter's two
        only = ("searched by the chapter's definitions only: a reference computes each measure under its own "
                "conventions, not the two the statement compares")
        evidence.notes.append(only)
        evidence.scopes.append(only)
    reading = base_reading(chapter.declared_for(claim))
    ev = Evaluations(refs, reading, ms.chapter_table(reading), ms)
    deadline = time.monotonic() + claim.search.time_limit
    u = claim.universe
    universe = Universe(u.max_length, u.documents, tuple(u.grades), u.max_k, u.unjudged, u.relevant, u.queries)
    if claim.compare == "next_cutoff" and u.max_k < 2:
        raise AuditError("max_k must be at least 2 to compare a cutoff with the next one")
    if u.max_k > u.documents:
        raise AuditError(f"max_k = {u.max_k} is larger than the universe of {u.documents} documents; "
                         "no ranking can fill such a cutoff")
    claimed = search(claim, claim.relation, ev, deadline)
    impls = [CHAPTER] + [r.name for r in refs]

    def scope_of(result: SearchResult) -> str:
        return (f"{universe.describe()}"
                + (f", the cases where {PREMISES[claim.given].text}" if claim.given else "")
                + f" ({result.exhaustive_cases} cases, {result.exhaustive_pairs} comparisons)"
                + (f"; plus {result.random_cases} random cases up to length {claim.search.max_length} "
                   f"(seed {claim.search.seed})" if result.random_cases else "")
                + ("; the time limit stopped the random stage early" if result.timed_out else "")
                + f"; implementations: {', '.join(impls)}")

    scope = scope_of(claimed)
    stage = "exhaustive stage" if claimed.exhaustive_pairs and not claimed.random_cases else "random stage"
    own = claimed.findings.get(CHAPTER)
    # The statement must hold under every reading the text leaves open, as a value must.
    base = base_reading(chapter.declared_for(claim))
    readings = _under_readings(claim, chapter, ms, deadline)
    breaking = [(n, v, f) for n, v, f in readings if f is not None]
    holding = [(n, v) for n, v, f in readings if f is None]
    if own is not None and holding:
        evidence.checks.append(_counterexample_check(claim, claim.relation, own, stage))
        n, v = holding[0]
        evidence.lead = ""
        evidence.conditions.append(Point(
            f"“{_statement(claim, claim.relation)}” holds only under a reading the text does not state — "
            f"{CONVENTIONS[n].phrase(v)} (searched over {universe.describe()}, by the chapter's definitions); where "
            f"{CONVENTIONS[n].phrase(base[n])} (trec_eval's default, read where the text states none) it fails: "
            f"{own.pair.case.describe(_graded(claim))}, {_where(own.pair)}: {claim.measure} gives {_show(own.values[CHAPTER][0])} "
            f"against {_show(own.values[CHAPTER][1])}",
            f"State the convention the statement rests on, e.g. “Here {CONVENTIONS[n].phrase(v)}.” (checked: the "
            "statement holds under it on the whole exhaustive search)"))
        return evidence
    if own is None and breaking:
        for i, (n, v, f) in enumerate(breaking):
            evidence.checks.append(_counterexample_check(claim, claim.relation, f, f"with {CONVENTIONS[n].title} {v}"))
            last = all(m != n for m, _, _ in breaking[i + 1:])  # one proposal per convention, after its readings
            evidence.conditions.append(Point(
                f"it fails where {CONVENTIONS[n].phrase(v)}, a reading the text does not rule out: "
                f"{f.pair.case.describe(_graded(claim))}, {_where(f.pair)}: {claim.measure} gives {_show(f.values[CHAPTER][0])} "
                f"against {_show(f.values[CHAPTER][1])}",
                f"State the convention the statement rests on, e.g. “Here {CONVENTIONS[n].phrase(base[n])}.” "
                "(checked: the search above holds under it)" if last else ""))
    if own is None:
        bad = {impl: f for impl, f in claimed.findings.items() if impl != CHAPTER}
        for impl, f in bad.items():
            evidence.checks.append(_counterexample_check(claim, claim.relation, f, stage))
            got = f.values.get(impl)
            seen = (f": {claim.measure} gives {_show(got[0])} against {_side(f.pair.right_measure, f.pair.k2)}'s "
                    f"{_show(got[1])}" if got and claim.compare != "next_cutoff" else
                    f": {claim.measure} goes {_show(got[0])} → {_show(got[1])}" if got else "")
            cause = _breach_cause(claim, chapter, f, impl)
            who = next((r.title for r in ms.references if r.name == impl and r.title), impl)
            said = (f"; the chapter's definitions give the same with {CONVENTIONS[cause[0]].title} “{cause[1]}” "
                    f"instead of “{cause[2]}” ({CONVENTIONS[cause[0]].phrase(cause[1])})" if cause else
                    "; no single convention tried makes the chapter's definitions give the same")
            evidence.conditions.append(Point(
                f"{who} breaks it: {f.pair.case.describe(_graded(claim))}, {_where(f.pair)}{seen}{said}",
                f"Add: “This does not hold in every case with {who}: there, "
                f"{CONVENTIONS[cause[0]].phrase(cause[1])} (see the counterexample).”" if cause else
                f"Add: “with {who}, this does not hold in every case (see the counterexample)”."))
        applies = ("" if claim.compare != "transform" else
                   f" ({claimed.exhaustive_pairs} comparisons where the change applies)")
        evidence.scopes.append(f"Searched {scope}{applies}: no counterexample under the chapter's definitions or "
                               "any reference. This is evidence from the search, not a proof")
        return evidence
    evidence.checks.append(_counterexample_check(claim, claim.relation, own, stage))
    weaker = WEAKER.get(claim.relation)
    if weaker:
        weak = search(claim, weaker, ev, deadline)
        if CHAPTER not in weak.findings:
            evidence.lead = ""
            evidence.concern = (f"The strict wording (“{claim.relation}”) promises more than holds: readers will "
                                f"expect every case to change {claim.measure}, and some do not.")
            left, right = own.values[CHAPTER]
            # two measures on one case are compared, not one measure followed across cutoffs
            seen = (f"{claim.measure} gives {_show(left)} against {_side(own.pair.right_measure, own.pair.k2)}'s "
                    f"{_show(right)}" if claim.compare == "measure" else
                    f"{claim.measure} goes {_show(left)} → {_show(right)}")
            weak_form = _statement(claim, weaker) if claim.compare == "measure" else f"{claim.measure}@k {weaker}"
            evidence.conditions.append(Point(
                f"False as written (“{claim.relation}”): {own.pair.case.describe(_graded(claim))}, {_where(own.pair)}: "
                f"{seen}; the weaker form “{_statement(claim, weaker)}” holds on the whole search ({scope_of(weak)}; "
                "evidence, not proof)",
                f"Reword to the weaker form that holds: “{weak_form}” instead of the strict “{claim.relation}”, which "
                f"fails where the two are equal (checked: the weaker form was searched over {scope_of(weak)} with no "
                "counterexample)." if claim.compare == "measure" else
                f"Reword to the weaker form that holds: “{weak_form}” instead of “{claim.relation}” "
                f"(checked: the weaker form was searched over {scope_of(weak)} with no counterexample)."))
            for impl, f in weak.findings.items():
                evidence.checks.append(_counterexample_check(claim, weaker, f, "weaker form"))
                evidence.conditions.append(Point(f"{impl} breaks even the weaker form"))
            return evidence
        strong = weak.findings[CHAPTER]
        evidence.checks = [_counterexample_check(claim, weaker, strong, "weaker form")]  # the telling one
        evidence.concern = (f"Readers will believe {claim.measure} always moves one way with k; it can move the "
                            "other way, as the counterexample shows." if claim.compare == "next_cutoff" else
                            f"Readers will believe {_statement(claim, claim.relation)} in every case; even "
                            f"“{weaker}” fails, as the counterexample shows.")
        # The proposal is itself searched: the opposite weak form either holds (propose it) or fails too (then
        # both directions occur, each shown by a counterexample, and "can move either way" is what holds).
        opposite = {"never increases": "never decreases", "never decreases": "never increases",
                    "never exceeds": "never below", "never below": "never exceeds"}[weaker]
        other = search(claim, opposite, ev, deadline)
        if CHAPTER not in other.findings:
            proposal = (f"Reword to “{_statement(claim, opposite)}” (checked: searched over {scope_of(other)} with "
                        "no counterexample).")
        else:
            down = other.findings[CHAPTER]
            proposal = (f"Say instead that neither {claim.measure}@k nor {claim.other}@k is always the larger (checked: "
                        f"{strong.pair.case.describe(_graded(claim))}, {_where(strong.pair)}, "
                        f"{_show(strong.values[CHAPTER][0])} against {_show(strong.values[CHAPTER][1])}; "
                        f"{down.pair.case.describe(_graded(claim))}, {_where(down.pair)}, "
                        f"{_show(down.values[CHAPTER][0])} against {_show(down.values[CHAPTER][1])})."
                        if claim.compare == "measure" else
                        _either_way(claim, strong, down))
        evidence.failures.append(Point(
            f"False as written, and so is the weaker form “{weaker}”: {strong.pair.case.describe(_graded(claim))}, "
            f"{_where(strong.pair)}: "
            f"{claim.measure} goes {_show(strong.values[CHAPTER][0])} → {_show(strong.values[CHAPTER][1])}",
            proposal))
        return evidence
    left, right = own.values[CHAPTER]
    evidence.failures.append(Point(
        f"False by the chapter's definitions: {own.pair.case.describe(_graded(claim))}, {_where(own.pair)}: "
        + (f"{claim.measure}@{own.pair.k} = {_show(left)}, so “{claim.relation} {claim.bound}” fails"
           if claim.compare == "constant" else
           f"{claim.measure} gives {_show(left)} against {_side(own.pair.right_measure, own.pair.k2)}'s {_show(right)}"
           if claim.compare == "measure" else
           f"{claim.measure} gives {_show(left)} and then {_show(right)}"),
        "Remove or qualify the statement; the counterexample shows where it fails."))
    return evidence
