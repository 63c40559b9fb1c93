"""Convention claims: how an evaluator behaves on a probe input — the chapter's rule against each reference.

For each convention the chapter evaluator computes the probe under every known rule
(e.g. repeated IDs: reject, keep first, keep last, count each). Each implementation's
per-query values are then matched to the rules they agree with, so the report can say
which rule each one follows, from its behaviour rather than its documentation.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from audit.attribution.verdict import Evidence, Point
from audit.errors import RepeatedIDError
from audit.evaluation import evaluator
from audit.evaluation.checks.common import CHAPTER, Measurements, fmt_float
from audit.evaluation.readings import base_reading
from audit.register.claims import CONVENTION_RULES, Chapter, ConventionClaim, Fixture
from audit.register.measures import parse as parse_measure
from audit.register.values import display, format_exact
from audit.report.results import Check, ImplValue

REJECT = "reject"

DESCRIBE = {
    "reject": "rejects the run",
    "keep first": "silently keeps the first occurrence of a repeated ID",
    "keep last": "silently keeps the last occurrence (the last score read) of a repeated ID",
    "count each": "counts every occurrence of a repeated ID",
    "reference order": "keeps tied documents in the given (reference) order",
    "docno descending": "orders tied documents by docno, descending",
    "docno ascending": "orders tied documents by docno, ascending",
    "relevant first": "puts relevant tied documents first",
    "relevant last": "puts relevant tied documents last",
    "zero": "treats unjudged documents as non-relevant (zero)",
    "condensed": "drops unjudged documents before cutting at k",
    "first k": "scores only the first k documents",
    "whole ranking": "scores the whole ranking",
}

ADVICE = {
    "repeated_ids": "check runs for repeated IDs before scoring them with those libraries",
    "ties": "give strictly decreasing scores in the reference order before scoring with those libraries",
    "unjudged": "state which convention produced each number",
    "cutoff": "state the cutoff with every number",
}


def _rule_ranking(convention: str, rule: str, fixture: Fixture, query: str) -> tuple[list[str], dict[str, int]]:
    """The ranking (and judgements) the chapter evaluator scores under ``rule``."""
    ranking, judgements = list(fixture.run[query]), dict(fixture.qrels[query])
    if convention == "repeated_ids":
        if rule == "keep first":
            return list(dict.fromkeys(ranking)), judgements
        if rule == "keep last":
            last = {d: i for i, d in enumerate(ranking)}
            return [d for i, d in enumerate(ranking) if last[d] == i], judgements
        if rule == "count each":
            seen: dict[str, int] = {}
            out = []
            for d in ranking:
                seen[d] = seen.get(d, 0) + 1
                name = d if seen[d] == 1 else f"{d}\u0000{seen[d]}"
                if d in judgements:
                    judgements[name] = judgements[d]
                out.append(name)
            return out, judgements
    if convention == "ties":
        scores = (fixture.scores or {}).get(query) or {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
        if rule == "reference order":
            return ranking, judgements
        if rule in ("docno descending", "docno ascending"):
            by_doc = sorted(ranking, reverse=rule == "docno descending")
        else:
            by_doc = sorted(ranking, key=lambda d: judgements.get(d, 0), reverse=rule == "relevant first")
        return sorted(by_doc, key=lambda d: -scores[d]), judgements
    if convention == "unjudged" and rule == "condensed":
        return [d for d in ranking if d in judgements], judgements
    return ranking, judgements


def rule_values(convention: str, rule: str, fixture: Fixture, measure: str) -> dict[str, Fraction] | str:
    """Per-query values by the chapter's definitions under ``rule``; ``REJECT`` for the reject rule."""
    if rule == REJECT:
        return REJECT
    _, spec = parse_measure(measure)
    if convention == "cutoff" and rule == "whole ranking":
        spec = replace(spec, cutoff=None)
    out = {}
    for q in fixture.run:
        ranking, judgements = _rule_ranking(convention, rule, fixture, q)
        s = replace(spec, cutoff=len(ranking)) if spec.name == "P" and spec.cutoff is None else spec
        out[q] = evaluator.evaluate_query(s, judgements, ranking)
    return out


def _matches(observed: dict[str, float | Fraction], expected: dict[str, Fraction]) -> bool:
    if set(observed) != set(expected):
        return False
    return all(abs(float(observed[q]) - float(expected[q])) <= 1e-9 for q in expected)


def _behaviour(observed, rules: dict[str, dict | str]) -> list[str]:
    if observed == REJECT:
        return [REJECT]
    return [r for r, vals in rules.items() if vals != REJECT and _matches(observed, vals)]


def needs(claim: ConventionClaim, chapter: Chapter) -> list[tuple[Fixture, str]]:
    """The probe's (fixture, measure) pairs the references evaluate from a dict (prefetched with the chapter's
    other fixtures); a repeated-ID probe is read from a run file instead (``file_needs``)."""
    if claim.convention == "repeated_ids":
        return []
    probe = chapter.fixture(claim.probe)
    return [(probe, m) for m in claim.measures]


def file_needs(claim: ConventionClaim, chapter: Chapter) -> list[tuple[Fixture, list[str]]]:
    """A repeated-ID probe: a dict cannot hold it, so each reference reads it as a TREC run file."""
    if claim.convention != "repeated_ids":
        return []
    return [(chapter.fixture(claim.probe), list(claim.measures))]


def check(claim: ConventionClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    probe = chapter.fixture(claim.probe)
    conv = claim.convention
    observed_rules: dict[str, list[tuple[str, str, list[str]]]] = {}
    for measure in claim.measures:
        m, _ = parse_measure(measure)
        rules = {r: rule_values(conv, r, probe, measure) for r in CONVENTION_RULES[conv]}
        rows: list[ImplValue] = []
        # The chapter's evaluator on the probe as given.
        try:
            # the chapter's own stated conventions (the first statement of each; unstated: trec_eval's defaults)
            own_vals = evaluator.evaluate(parse_measure(measure)[1], probe.qrels, probe.run,
                                          base_reading(chapter.declared_for(claim)), probe.scores)
            own: object = own_vals
        except RepeatedIDError as exc:
            own, own_vals = REJECT, {}
            evidence.scopes.append(f"the chapter's evaluator rejects the probe: {exc.message}")
        own_rules = _behaviour(own, rules)
        rows.append(ImplValue(implementation=CHAPTER, provider="book definitions, exact",
                              status="rejected" if own == REJECT else "ok",
                              value=float(evaluator.mean(own_vals)) if own_vals else None,
                              exact=format_exact(evaluator.mean(own_vals)) if own_vals else None,
                              per_query={q: display(format_exact(v)) for q, v in own_vals.items()},
                              in_interval=claim.rule in own_rules, behaviour=" or ".join(own_rules) or "no known rule"))
        if claim.rule not in own_rules:
            evidence.failures.append(Point(
                f"on the probe, the chapter's definitions {' / '.join(DESCRIBE[r] for r in own_rules) or 'follow no known rule'}"
                f" for {measure}, not the stated rule ({DESCRIBE[claim.rule]})",
                "Revise the stated rule to match what the chapter's definitions do."))
        # Each reference, through its own reader when a dict cannot hold the probe.
        for ref in ms.references:
            if conv == "repeated_ids":
                outcome = ms.file_outcomes(probe, claim.measures)[ref.name][measure]
            else:
                outcome = ms.reference(ref, probe, measure)
            if outcome.status == "not applicable":
                rows.append(ImplValue(implementation=ref.name, status="not applicable", detail=outcome.detail))
                continue
            if outcome.status == "error":
                rows.append(ImplValue(implementation=ref.name, provider=outcome.provider, status="error",
                                      detail=outcome.detail))
                evidence.errors.append(f"{ref.name} ({outcome.provider}) failed on the {measure} probe: "
                                       f"{outcome.detail}")
                continue
            observed = REJECT if outcome.status == "rejected" else outcome.per_query
            matched = _behaviour(observed, rules)
            rows.append(ImplValue(implementation=ref.name, provider=outcome.provider,
                                  status="rejected" if observed == REJECT else "ok",
                                  value=outcome.mean, per_query={q: fmt_float(v) for q, v in outcome.per_query.items()},
                                  in_interval=claim.rule in matched,
                                  behaviour=" or ".join(matched) or "no known rule", detail=outcome.detail))
            observed_rules.setdefault(ref.name, []).append((measure, outcome.provider, matched))
            if claim.rule not in matched and not matched:
                evidence.notes.append(f"{ref.name} gives {measure} values matching no known rule: " + ", ".join(
                    f"{q}: {fmt_float(v)}" for q, v in outcome.per_query.items()))
            elif len(matched) > 1:
                evidence.notes.append(f"the probe cannot tell {' from '.join(matched)} apart for {ref.name}")
        evidence.checks.append(Check(
            label=f"{conv.replace('_', ' ')} probe, {measure}; rules: " + "; ".join(
                f"{r} → {'rejects' if v == REJECT else ', '.join(f'{q}: {display(format_exact(x))}' for q, x in v.items())}"
                for r, v in rules.items()),
            measure=measure, claimed=claim.rule, interval=DESCRIBE[claim.rule], values=rows))
    by_text: dict[str, list[str]] = {}
    for name, seen in observed_rules.items():
        text = _clause("", seen, claim.rule).strip()
        if text:
            by_text.setdefault(text, []).append(name)
    titles = {r.name: r.title for r in ms.references}
    clauses = [f"{' and '.join(titles[n] for n in names)} {_plural(text) if len(names) > 1 else text}"
               for text, names in by_text.items()]
    if clauses:
        users = " or ".join(titles[n] for names in by_text.values() for n in names)
        evidence.concern = f"Readers who score with {users} get other numbers from the same input, with no warning."
        evidence.conditions.append(Point(
            "; ".join(clauses) + f" — where the chapter's rule {DESCRIBE[claim.rule]}",
            f"Add: “{'; '.join(clauses)}; {ADVICE[conv]}.” (checked: each library's rule was observed on the probe "
            "above, run through it)"))
    order = [r.name for r in ms.references]
    agreeing = sorted({v.implementation for c in evidence.checks for v in c.values
                       if v.implementation != CHAPTER and v.in_interval}, key=order.index)
    if agreeing:
        names = ", ".join(agreeing[:-1]) + (" and " if len(agreeing) > 1 else "") + agreeing[-1]
        evidence.scopes.append(f"On the probe, each of the chapter's definitions, {names} {DESCRIBE[claim.rule]}")
    else:
        evidence.scopes.append(f"On the probe, the chapter's definitions {DESCRIBE[claim.rule]}; no reference "
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


def _clause(name: str, seen: list[tuple[str, str, list[str]]], rule: str) -> str:
    """How one reference departs from ``rule`` across the probe's measures ('' if it does not)."""
    if all(rule in matched for _, _, matched in seen):
        return ""
    common = set.intersection(*(set(m) for _, _, m in seen)) if seen else set()
    if common and rule not in common:
        rules = [r for r in seen[0][2] if r in common]
        return f"{name} {' / '.join(DESCRIBE[r] for r in rules)}"
    parts = [f"{' / '.join(DESCRIBE[r] for r in matched) or 'follows no known rule'} for {measure} "
             f"({provider} provider)" for measure, provider, matched in seen if rule not in matched]
    return f"{name} {' and '.join(parts)}"


def _plural(text: str) -> str:
    """'silently keeps the last …' → 'silently keep the last …' for a plural subject."""
    words = text.split(" ")
    for i, w in enumerate(words):
        if w in ("keeps", "rejects", "orders", "treats", "scores", "puts", "counts", "drops", "follows"):
            words[i] = w[:-1]
            break
    return " ".join(words)
