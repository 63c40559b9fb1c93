"""A value claim about what one reference returns (by: trec_eval, ir_measures, ranx or a library a source documents):
that reference's value decides, at the release and with the options the sentence names; the chapter's readings and
the other references are shown beside it."""

from __future__ import annotations

import math
from fractions import Fraction

from audit.model.evidence import Evidence, Point
from audit.evaluation.checks.common import CHAPTER, Measurements, fixture_name, fmt_float, scored_run
from audit.evaluation.readings import base_reading
from audit.register.claims import Chapter
from audit.register.options import reference_call
from audit.errors import AuditError
from audit.measures.syntax import parse as parse_measure
from audit.model.values import format_exact, parse_claimed
from audit.model.results import Check, ImplValue
from audit.text.encode_arithmetic import breaks_replacing
from audit.evaluation.checks.value_references import other_release, reference_row, reference_rows
from audit.evaluation.checks.value_readings import bounds


def cut_like_trec_eval(fixture, depth: int | None):
    """The fixture with each ranking cut to its first ``depth`` documents in trec_eval's order (score descending as
    32-bit floats, then docno descending): what trec_eval's -M evaluates (``form_res_rels.c`` cuts after its sort,
    before -J removes unjudged documents). The fixture itself when ``depth`` is None."""
    if depth is None:
        return fixture
    from audit.evaluation.references.pytrec_eval_ref import trec_order

    scored = scored_run(fixture)
    run = {q: trec_order(scored[q])[:depth] for q in fixture.run}
    scores = None if fixture.scores is None else {q: {d: fixture.scores[q][d] for d in run[q]} for q in run}
    return fixture.model_copy(update={"run": run, "scores": scores})


def check_by_reference(ms: Measurements, chapter: Chapter, claim, fixture_ref, measure: str, claimed_text, by: str,
                       evidence: Evidence, *, tolerance=None, query: str | None = None) -> None:
    """A sentence about what one reference returns: its value (as it returned it) decides; the chapter's
    definitions (under its stated conventions, trec_eval's defaults elsewhere) and the other references are shown
    beside it. A reference that does not compute the measure, or fails, is an error; one that leaves the query out
    contradicts a sentence giving it a value.

    ``by`` may carry the options the sentence names ("trec_eval -J", "trec_eval -M 5", "ir_measures judged_only";
    ``audit.register.options``): that reference is then run with them, on the run cut at -M in trec_eval's order,
    and the chapter's definitions under the conventions the options select (-J: unjudged documents removed; -l N:
    relevance level N)."""
    call = reference_call(by)
    name = call.name
    fixture = chapter.fixture(fixture_ref)
    claimed = parse_claimed(claimed_text, tolerance=tolerance)
    label = f"{measure} on {fixture_name(fixture_ref)}" + (f", query {query}" if query else "") + f", as {by} gives it"
    reading = base_reading(chapter.declared_for(claim))
    if call.optioned:
        fixture = cut_like_trec_eval(fixture, call.max_docs)
        reading = {**reading, **call.conventions()}
        refs = [reference_row(ms, ref, fixture, measure, claimed, query, params=call.params,
                              provider="with " + by.strip().partition(" ")[2])
                if ref.name == name else reference_row(ms, ref, fixture, measure, claimed, query)
                for ref in ms.references]
        release = None
    else:
        refs = reference_rows(ms, fixture, measure, claimed, query)
        release = other_release(ms, fixture, measure, claimed, query, name)
    own: list[ImplValue] = []
    if parse_measure(measure, True)[1] is not None:
        try:
            value = ms.chapter_value(fixture, measure, reading, query)
            if value is not None:
                own.append(ImplValue(implementation=CHAPTER, provider="book definitions, exact", value=float(value),
                                     exact=format_exact(value), in_interval=claimed.contains(value)))
        except AuditError as exc:
            own.append(ImplValue(implementation=CHAPTER, status="error", detail=exc.message))
    values = own + [row for _, row, _ in refs] + ([release[0]] if release else [])
    evidence.checks.append(Check(label=label, measure=measure + (f" ({query})" if query else ""),
                                 claimed=str(claimed_text), interval=claimed.interval(), values=values,
                                 **bounds(claimed)))
    row = next((row for ref, row, _ in refs if ref.name == name), None)
    if row is None:
        evidence.register_error(f"{label}: {by} is not among the references of this audit", "by",
                                "name one of the references this audit runs (trec_eval, ir_measures, ranx), or "
                                "drop `by` to check the value against all of them")
        return
    holds = row.status == "ok" and row.in_interval
    if release is not None and release[0].in_interval != holds:
        _release_qualifies(label, by, row, release, claimed_text, holds, evidence)
        return
    if holds:
        evidence.scopes.append(f"{label}: {by} ({row.provider}) gives {fmt_float(row.value)}, as the sentence says"
                               + (f"; {release[2]}, which reads scores as doubles, gives the same"
                                  if release is not None else ""))
        return
    if row.status == "ok" or row.status == "left out":
        shown = fmt_float(row.value) if row.status == "ok" else "no value (it leaves the query out)"
        finite = row.status == "ok" and math.isfinite(row.value)
        new_text = claimed.write_like(Fraction(row.value).limit_denominator(10**6)) if finite else ""
        fixed = bool(new_text) and parse_claimed(new_text).contains(row.value)
        broken = breaks_replacing(claim.quote, str(claimed_text), new_text) if fixed else ""
        evidence.failures.append(Point(
            f"{label}: {by} ({row.provider}) gives {shown}, not the printed {claimed_text}",
            f"Revise the sentence: {by} gives {shown} here; writing “{new_text}” alone would leave the printed "
            f"arithmetic false ({broken}), so it must change with it." if broken else
            f"Change “{claimed_text}” to “{new_text}” (checked: {by}'s value lies in it)." if fixed else
            f"Revise the sentence: {by} gives {shown} here."))
        evidence.concern = evidence.concern or (f"Readers who run {by} get {shown}, not the value the sentence "
                                                "says it returns.")
        return
    message = f"{label}: {by} gives no value: {row.status}" + (f" ({row.detail})" if row.detail else "")
    if row.status == "error":
        evidence.reference_errors([message])
    else:
        evidence.register_error(message, "by", f"{by} does not compute this measure on this input: name the "
                                "reference the sentence is about, or drop `by`")


def _release_qualifies(label: str, by: str, row: ImplValue, release, claimed_text, holds: bool,
                       evidence: Evidence) -> None:
    """A sentence about what a reference returns that holds for one of its releases and not the other: they read the
    run's scores at different precisions (``SCORE_PRECISION``), and the text names neither."""
    other, ours, later, ties = release
    ours_gives = fmt_float(row.value) if row.status == "ok" else "no value (it leaves the query out)"
    equal = "; ".join(ties)
    if holds:
        text = (f"{label}: {ours} gives {ours_gives}, as the sentence says, because it reads scores as 32-bit "
                f"floats, where {equal} are equal; {later} reads them as doubles, where they differ, and gives "
                f"{fmt_float(other.value)} ({by} run on the order doubles give)")
        right, wrong, wrong_gives = ours, later, fmt_float(other.value)
    else:
        text = (f"{label}: {later}, which reads scores as doubles, gives {fmt_float(other.value)}, as the sentence "
                f"says ({by} run on the order doubles give); {ours} reads them as 32-bit floats, where {equal} "
                f"are equal, and gives {ours_gives}")
        right, wrong, wrong_gives = later, ours, ours_gives
    evidence.conditions.append(Point(
        text, f"Name the release: “{right} gives {claimed_text} here; {wrong} gives {wrong_gives}, as it reads the "
              f"scores {'as doubles' if holds else 'as 32-bit floats'}.”"))
    evidence.lead = ""
    evidence.concern = (f"Readers who run {wrong} get {wrong_gives}, not the value the sentence says {by} returns; "
                        "the text does not say which release it means.")
