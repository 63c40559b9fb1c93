"""Convention claims: how an evaluator behaves on a probe input — the chapter's rule against each reference.

For each convention the chapter evaluator computes the probe under every known rule
(e.g. repeated IDs: reject, keep first, keep last, count each). Each implementation's
per-query values are then matched to the rules they agree with, so the report can say
which rule each one follows, from its behaviour rather than its documentation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction

from audit.model.evidence import Evidence, Point
from audit.errors import ReadingDoesNotApply, RepeatedIDError
from audit.evaluation import evaluator
from audit.evaluation import definitions
from audit.evaluation.checks.common import CHAPTER, Measurements, fmt_float, listed
from audit.evaluation.readings import base_reading
from audit.register.claims import CONVENTION_RULES, OPTIONAL_REFERENCES, REFERENCE_NAMES, Chapter, ConventionClaim, Fixture, canonical_rule
from audit.measures.conventions import CONVENTIONS, join_alike
from audit.measures.syntax import parse as parse_measure
from audit.model.values import display, format_exact
from audit.model.results import Check, ImplValue

REJECT = "reject"

#: How each rule reads after an implementation's name; a convention value without an entry reads from its phrase
#: (``audit.measures.conventions``).
DESCRIBE = {
    "reject": "rejects the run",
    "keep first": "silently keeps the first occurrence of a repeated ID",
    "keep last": "silently keeps the last occurrence (the last score read) of a repeated ID",
    "count each": "counts every occurrence of a repeated ID",
    "listed order": "keeps tied documents in the given (reference) order",
    "docno descending": "orders tied documents by docno, descending",
    "docno ascending": "orders tied documents by docno, ascending",
    "relevant first": "puts relevant tied documents first",
    "relevant last": "puts relevant tied documents last",
    "non-relevant": "treats unjudged documents as non-relevant (zero)",
    "removed": "drops unjudged documents before cutting at k",
    "first k": "scores only the first k documents",
    "whole ranking": "scores the whole ranking",
}

ADVICE = {
    "repeated_ids": "check runs for repeated IDs before scoring them with those libraries",
    "ties": "give strictly decreasing scores in the reference order before scoring with those libraries",
    "cutoff": "state the cutoff with every number",
}


def describe(convention: str, rule: str) -> str:
    """What an implementation following ``rule`` does, after its name ("rejects the run")."""
    rule = canonical_rule(convention, rule)
    if rule in DESCRIBE and convention in ("repeated_ids", "ties", "unjudged", "cutoff"):
        return DESCRIBE[rule]
    return f"follows “{CONVENTIONS[convention].phrase(rule)}”"


def _tie_order(fixture: Fixture, rule: str) -> dict[str, list[str]]:
    """The rankings with tied documents put relevant first (or last): a tie rule no reading of the evaluator has."""
    out = {}
    for q, ranking in fixture.run.items():
        scores = (fixture.scores or {}).get(q) or {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
        judged = fixture.qrels.get(q, {})
        by_grade = sorted(ranking, key=lambda d: judged.get(d, 0), reverse=rule == "relevant first")
        out[q] = sorted(by_grade, key=lambda d: -scores[d])
    return out


def rule_values(convention: str, rule: str, fixture: Fixture, measure: str,
                reading: Mapping[str, str]) -> dict[str, Fraction] | str | None:
    """Per-query values by the chapter's definitions under ``reading`` with ``convention`` set to ``rule``: the one
    evaluation every rule table, the chapter's own value and the fixtures share. ``REJECT`` when the rule rejects
    the probe; None when the rule does not apply to it (ERR's top grade 4 on a grade above 4)."""
    rule = canonical_rule(convention, rule)
    _, spec = parse_measure(measure)
    reading, run, scores = dict(reading), fixture.run, fixture.scores
    try:
        if convention == "cutoff":
            if rule == "first k":
                return evaluator.evaluate(spec, fixture.qrels, run, reading, scores)
            return {q: evaluator.evaluate_query(replace(spec, cutoff=len(run[q]) if spec.name == "P" else None),
                                                fixture.qrels[q], run[q], reading, (scores or {}).get(q))
                    for q in run if q in fixture.qrels}
        if convention == "ties" and rule in ("relevant first", "relevant last"):
            reading["ties"], run, scores = "listed order", _tie_order(fixture, rule), None
        else:
            reading[convention] = rule
        return evaluator.evaluate(spec, fixture.qrels, run, reading, scores)
    except RepeatedIDError:
        return REJECT
    except ReadingDoesNotApply:
        return None


def _matches(observed: dict[str, float | Fraction], expected: dict[str, Fraction]) -> bool:
    if set(observed) != set(expected):
        return False
    return all(abs(float(observed[q]) - float(expected[q])) <= 1e-9 for q in expected)


def _behaviour(observed, rules: dict[str, dict | str | None]) -> list[str]:
    if observed == REJECT:
        return [r for r, vals in rules.items() if vals == REJECT]
    return [r for r, vals in rules.items() if isinstance(vals, dict) and _matches(observed, vals)]


def _table(convention: str, probe: Fixture, measure: str, reading: Mapping[str, str]) -> dict:
    return {r: rule_values(convention, r, probe, measure, reading) for r in CONVENTION_RULES[convention]}


def chapter_reading(claim: ConventionClaim, chapter: Chapter) -> tuple[dict[str, str], str]:
    """The reading the chapter's definitions follow on the probe: every convention the chapter declares (the first
    statement of each), the claim's own rule where the chapter states none (the sentence is that statement), trec_eval's
    defaults elsewhere. Returns the reading and the quote of a declared value the claim's rule conflicts with ('' if
    none)."""
    declared = chapter.declared_for(claim)
    reading = base_reading(declared)
    rule = canonical_rule(claim.convention, claim.rule)
    if claim.convention not in CONVENTIONS:
        return reading, ""
    if not declared.stated(claim.convention):
        if rule in CONVENTIONS[claim.convention].values:
            reading[claim.convention] = rule
        return reading, ""
    statement = declared.statements[claim.convention][0]
    return reading, ("" if statement.value == rule else statement.quote)


def needs(claim: ConventionClaim, chapter: Chapter) -> list[tuple[Fixture, str]]:
    """The probe's (fixture, measure) pairs, prefetched with the chapter's other fixtures (a probe repeating an ID
    is read by each reference from a run file: ``Measurements.prefetch``)."""
    probe = chapter.fixture(claim.probe)
    return [(probe, m) for m in claim.measures]


def _own(probe: Fixture, measure: str, reading: Mapping[str, str]):
    try:
        return evaluator.evaluate(parse_measure(measure)[1], probe.qrels, probe.run, reading, probe.scores)
    except RepeatedIDError:
        return REJECT
    except ReadingDoesNotApply:
        return None


def _shown(rules: dict, spell=lambda r: r) -> str:
    """The rule table as text: each rule (in the claim's spelling, by ``spell``) and its per-query values."""
    return "; ".join(f"{spell(r)} → " + ("rejects" if v == REJECT else "does not apply" if v is None else
                                  ", ".join(f"{q}: {display(format_exact(x))}" for q, x in v.items()))
                     for r, v in rules.items())


def check(claim: ConventionClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    """The chapter's definitions and each reference run the probe; each one's values are matched to the rules
    (every rule evaluated by the chapter's definitions under that implementation's other conventions: the chapter's
    declared ones, a reference's observed ones). Without ``by``, the chapter's rule is the subject: it is contradicted
    when the chapter declares another value or its definitions follow another rule, qualified by each reference that
    does not follow it. With ``by``, that reference's observed rule decides; the chapter and the other references are
    shown. A probe on which the subject's stated rule gives the same values as another rule is an error (it shows
    nothing)."""
    from audit.evaluation.observe import reading_of

    evidence = Evidence()
    probe = chapter.fixture(claim.probe)
    conv, rule = claim.convention, canonical_rule(claim.convention, claim.rule)
    subject = (REFERENCE_NAMES.get(claim.by.lower()) or OPTIONAL_REFERENCES[claim.by.lower()]) if claim.by else None
    references = list(ms.references)
    if subject is not None and subject not in {r.name for r in references}:
        from audit.evaluation.references import sklearn_ref
        optional = sklearn_ref.sklearn_reference() if subject == "sklearn" else None
        if optional is None:  # a sentence about a library that is not installed: nothing of it is checked
            evidence.errors.append(sklearn_ref.ABSENT if subject == "sklearn" else f"{claim.by} is not available")
            evidence.error_concern = "The sentence says what a library computes, and the library was not run."
            evidence.response = sklearn_ref.INSTALL if subject == "sklearn" else ""
            return evidence
        references.append(optional)
    titles = {r.name: r.title for r in references}
    own_reading, conflict = chapter_reading(claim, chapter)
    observed_rules: dict[str, list[tuple[str, str, list[str]]]] = {}
    spell = (lambda r: claim.rule if r == rule else r)
    named = (lambda rules: " or ".join(spell(r) for r in rules) or "no known rule")
    consistent: dict[str, list[set[str]]] = {}  # implementation → the rules each measure's values allow
    tables: dict[str, list[str]] = {}             # implementation → each measure's rule table, as text
    for measure in claim.measures:
        rules = _table(conv, probe, measure, own_reading)
        rows: list[ImplValue] = []
        own = _own(probe, measure, own_reading)
        own_vals = own if isinstance(own, dict) else {}
        own_rules = _behaviour(own, rules)
        if own == REJECT:
            evidence.scopes.append("the chapter's evaluator rejects the probe")
        consistent.setdefault(CHAPTER, []).append(set(own_rules))
        tables.setdefault(CHAPTER, []).append(f"{measure} ({_shown(rules, spell)})")
        rows.append(ImplValue(implementation=CHAPTER, provider="book definitions, exact",
                              status="rejected" if own == REJECT else "ok" if own is not None else "not applicable",
                              value=float(evaluator.mean(own_vals)) if own_vals else None,
                              exact=format_exact(evaluator.mean(own_vals)) if own_vals else None,
                              per_query={q: display(format_exact(v)) for q, v in own_vals.items()},
                              in_interval=rule in own_rules, behaviour=named(own_rules)))
        if subject is None:
            if conflict:
                declared = own_reading[conv]
                evidence.failures.append(Point(
                    f"the chapter states {CONVENTIONS[conv].named()} otherwise (“{conflict}”: {declared}), so on the "
                    f"probe its definitions {describe(conv, declared)}, not the stated rule ({describe(conv, rule)})",
                    "Make the two statements agree: state one rule."))
            elif rule not in own_rules:
                evidence.failures.append(Point(
                    f"on the probe, the chapter's definitions "
                    f"{' / '.join(describe(conv, r) for r in own_rules) or 'follow no known rule'}"
                    f" for {measure}, not the stated rule ({describe(conv, rule)})",
                    "Revise the stated rule to match what the chapter's definitions do."))
        for ref in references:
            outcome = ms.reference(ref, probe, measure)
            if outcome.status in ("not applicable", "error"):
                rows.append(ImplValue(implementation=ref.name, provider=outcome.provider, status=outcome.status,
                                      detail=outcome.detail))
                if outcome.status == "error":
                    evidence.reference_errors([f"{ref.name} ({outcome.provider}) failed on the {measure} probe: "
                                               f"{outcome.detail}"])
                elif ref.name == subject:
                    evidence.register_error(f"{ref.name} ({outcome.provider}) cannot compute the {measure} probe: "
                                            f"{outcome.detail}", "probe",
                                            f"choose a probe measure {ref.name} computes, as the sentence about it "
                                            "implies")
                continue
            observed = REJECT if outcome.status == "rejected" else outcome.per_query
            # The rules under trec_eval's defaults first; the reference's own observed conventions (its probes, which
            # may still be running) only where those match nothing, or the sentence is about this reference.
            ref_rules = _table(conv, probe, measure, definitions.DEFAULT_READING)
            matched = _behaviour(observed, ref_rules)
            if ref.name == subject or not matched:
                ref_rules = _table(conv, probe, measure, reading_of(ref))
                matched = _behaviour(observed, ref_rules)
            rows.append(ImplValue(implementation=ref.name, provider=outcome.provider,
                                  status="rejected" if observed == REJECT else "ok",
                                  value=outcome.mean, per_query={q: fmt_float(v) for q, v in outcome.per_query.items()},
                                  in_interval=rule in matched,
                                  behaviour=named(matched), detail=outcome.detail))
            observed_rules.setdefault(ref.name, []).append((measure, outcome.provider, matched))
            consistent.setdefault(ref.name, []).append(set(matched))
            tables.setdefault(ref.name, []).append(f"{measure} ({_shown(ref_rules, spell)})")
            shown = "rejects the run" if observed == REJECT else ", ".join(
                f"{q}: {fmt_float(v)}" for q, v in outcome.per_query.items())
            if ref.name == subject:
                name = f"{titles[ref.name]} ({outcome.provider})"
                if rule in matched:
                    evidence.scopes.append(f"on the probe, {name} {describe(conv, rule)}, as the sentence says: "
                                           f"{measure} {shown} (the other rules give {_shown({r: v for r, v in ref_rules.items() if r != rule}, spell)})")
                else:
                    evidence.concern = evidence.concern or (f"Readers who run {titles[ref.name]} get other numbers "
                                                            "than the sentence says it gives.")
                    does = " / ".join(describe(conv, r) for r in matched) or "follows no known rule"
                    evidence.failures.append(Point(
                        f"on the probe, {name} {does}: {measure} {shown}, where the stated rule "
                        f"({describe(conv, rule)}) gives {_shown({rule: ref_rules[rule]}).split(' → ', 1)[1]}",
                        f"Revise the sentence: {titles[ref.name]} {does} (checked: observed on the probe above, "
                        f"run through {titles[ref.name]})." if matched else
                        f"Remove the statement about {titles[ref.name]}, or give the values it returns."))
            elif not matched:
                evidence.notes.append(f"{ref.name} gives {measure} values matching no known rule: {shown}")
            elif len(matched) > 1 and subject is None:
                evidence.notes.append(f"the probe cannot tell {listed(matched)} apart for {ref.name}")
        evidence.checks.append(Check(
            label=f"{conv.replace('_', ' ')} probe, {measure}"
                  + (f", as {claim.by} does it" if claim.by else "") + f"; rules: {_shown(rules, spell)}",
            measure=measure, claimed=claim.rule, interval=describe(conv, rule), values=rows))
    who = subject or CHAPTER
    allowed = set.intersection(*consistent[who]) if consistent.get(who) else set()
    if rule in allowed and len(allowed) > 1:
        evidence.register_error(f"the probe cannot tell the stated rule ({claim.rule}) from "
                                f"{' or '.join(spell(r) for r in allowed if r != rule)} for "
                                f"{'the chapter' if subject is None else titles[who]}: {'; '.join(tables[who])}",
                                "probe", "choose a probe on which they differ")
    if subject is not None:
        return evidence
    # what the text says of a reference (``others``): right, the reader is told and it does not qualify; wrong, the
    # sentence misleads
    for name, seen in list(observed_rules.items()):
        untold = []
        told: dict[tuple[str, str], list[str]] = {}   # (provider, rule said) → the measures whose probe shows it
        for measure, provider, matched in seen:
            said = claim.told(name, measure)
            if said is None or rule in matched:
                untold.append((measure, provider, matched))
            elif said in matched:
                told.setdefault((provider, said), []).append(measure)
            else:
                does = " / ".join(describe(conv, r) for r in matched) or "follows no known rule"
                evidence.concern = evidence.concern or (f"Readers are told what {titles[name]} does, and it does "
                                                        "something else.")
                evidence.failures.append(Point(
                    f"on the {measure} probe, {titles[name]} ({provider}) {does}, not what the text says of it "
                    f"({describe(conv, said)})",
                    f"Revise what the text says of {titles[name]}: it {does} (checked: observed on the probe above)."))
        for (provider, said), measures in told.items():
            probes = f"the {measures[0]} probe" if len(measures) == 1 else \
                f"the {', '.join(measures[:-1])} and {measures[-1]} probes"
            evidence.scopes.append(f"on {probes}, {titles[name]} ({provider}) {describe(conv, said)}, as the text "
                                   "says of it")
        observed_rules[name] = untold
    by_text: dict[str, list[str]] = {}
    for name, seen in observed_rules.items():
        text = _clause(conv, seen, rule).strip()
        if text:
            by_text.setdefault(text, []).append(name)
    clauses = [f"{' and '.join(titles[n] for n in names)} {_plural(text) if len(names) > 1 else text}"
               for text, names in by_text.items()]
    if clauses:
        users = " or ".join(titles[n] for names in by_text.values() for n in names)
        evidence.concern = f"Readers who score with {users} get other numbers from the same input, with no warning."
        evidence.conditions.append(Point(
            "; ".join(clauses) + f" — where the chapter's rule {describe(conv, rule)}",
            f"Add: “{'; '.join(clauses)}; {ADVICE.get(conv, 'state which convention produced each number')}.” "
            "(checked: each library's rule was observed on the probe above, run through it)"))
    order = [r.name for r in references]
    agreeing = sorted({v.implementation for c in evidence.checks for v in c.values
                       if v.implementation != CHAPTER and v.in_interval}, key=order.index)
    if agreeing:
        evidence.scopes.append(f"On the probe, each of the chapter's definitions, {listed(agreeing)} "
                               f"{describe(conv, rule)}")
    else:
        evidence.scopes.append(f"On the probe, the chapter's definitions {describe(conv, rule)}; no reference "
                               "can express the probe")
    for check in evidence.checks:
        if check.measure.startswith("Judged"):
            shown_values = [f"{v.implementation} ({v.provider}): " + ", ".join(f"{q} {x}" for q, x in v.per_query.items())
                            for v in check.values if v.status == "ok"]
            missing = [v.implementation for v in check.values if v.status == "not applicable"]
            evidence.scopes.append(f"the judged fraction of the prefix, {check.measure}, is reported as "
                                   + "; ".join(shown_values)
                                   + (f" ({' and '.join(missing)} have no such measure)" if missing else ""))
    return evidence


def _clause(conv: str, seen: list[tuple[str, str, list[str]]], rule: str) -> str:
    """How one reference departs from ``rule`` across the probe's measures ('' if it does not)."""
    if all(rule in matched for _, _, matched in seen):
        return ""
    common = set.intersection(*(set(m) for _, _, m in seen)) if seen else set()
    if common and rule not in common:
        rules = [r for r in seen[0][2] if r in common]
        return " / ".join(describe(conv, r) for r in rules)
    return join_alike([(" / ".join(describe(conv, r) for r in matched) or "follows no known rule",
                        f"for {measure} ({provider} provider)") for measure, provider, matched in seen
                       if rule not in matched])


def _plural(text: str) -> str:
    """'silently keeps the last …' → 'silently keep the last …' for a plural subject."""
    words = text.split(" ")
    for i, w in enumerate(words):
        if w in ("keeps", "rejects", "orders", "treats", "scores", "puts", "counts", "drops", "follows"):
            words[i] = w[:-1]
            break
    return " ".join(words)
