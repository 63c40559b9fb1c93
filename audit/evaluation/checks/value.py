"""Value claims: a measure on a fixture equals the printed value, under every reading the text allows.

The chapter's definitions are evaluated under the conventions the chapter (and the claim) states
and under every value of each unstated convention the value depends on (``audit.evaluation.readings``):
holds under all → supported so far; under some → qualified, naming the convention values that
decide it; under none → contradicted. A reference whose value falls outside the claim while the
chapter's holds qualifies the claim, with the cause found by experiment (``audit.attribution.causes``).
Every proposed correction is re-checked before it is printed.
"""

from __future__ import annotations

from textwrap import shorten
from collections.abc import Mapping, Sequence
from fractions import Fraction

from audit.attribution.causes import Input, explain_reference
from audit.evaluation.checks import printed_terms
from audit.model.evidence import Evidence, Point, merge_repeats
from audit.evaluation.checks.common import (
    CHAPTER,
    Measurements,
    combined,
    errors_of,
    fixture_name,
    fmt_float,
    listed,
    not_applicable_names,
    repeats,
    scored_run,
)
from audit.evaluation.checks.stated_effect import (
    alternatives_to_state,
    describe,
    stated_effects,
)
from audit.evaluation.readings import REJECTED, Readings, graded_levels
from audit.register.claims import Chapter, ValueClaim, own_conditions
from audit.errors import AuditError
from audit.measures.conventions import CONVENTIONS, Declared, Statement
from audit.measures.syntax import parse as parse_measure
from audit.model.values import ClaimedValue, display, format_exact, parse_claimed
from audit.text.scan import printed_correction
from audit.model.results import Check, ImplValue
from audit.text.encode_arithmetic import breaks_replacing, divisor_correction, printed_expressions
from audit.evaluation.checks.value_references import _approx, _phrase_list, _show, reference_rows
from audit.evaluation.checks.value_by import check_by_reference
from audit.register.options import reference_call
from audit.evaluation.checks.value_printed import _ideal_readings, _printed_denominator, _printed_terms
from audit.evaluation.checks.value_readings import bounds, chapter_readings, conventions_for, declared_with_aggregate


def chapter_rows(readings: Readings, claimed: ClaimedValue, fixture, measure: str, ms: Measurements,
                 query: str | None) -> list[ImplValue]:
    """One row per distinct value the chapter's definitions give, labelled by the readings giving it."""
    rows = []
    groups: dict[object, list] = {}
    for o in readings.outcomes:
        groups.setdefault(o.value, []).append(o)
    for value, outs in groups.items():
        label = " or ".join(o.label() for o in outs if o.reading) if len(groups) > 1 else ""
        if value == REJECTED:
            rows.append(ImplValue(implementation=CHAPTER, provider="book definitions, exact", status="rejected",
                                  behaviour=label, detail="the chapter's definitions reject the input (repeated ID)",
                                  in_interval=False))
            continue
        per_query = ms.chapter(fixture, measure, {**readings.base, **outs[0].as_dict})
        rows.append(ImplValue(implementation=CHAPTER, provider="book definitions, exact", value=float(value),
                              exact=format_exact(value), behaviour=label,
                              per_query={q: display(format_exact(v)) for q, v in per_query.items()},
                              in_interval=claimed.contains(value)))
    return rows


def _deciding_wording(readings: Readings, holds, declared: Declared) -> tuple[list[str], dict[str, str]]:
    """The conventions that decide the claim and, for each, the value(s) under which it holds."""
    names = readings.deciding(holds)
    out = {}
    for n in names:
        good = {o.as_dict[n] for o in readings.outcomes if holds(o.value)}
        # the value the chapter itself states, when it is one that holds; else the first that holds
        stated = [st.value for st in declared.statements.get(n, []) if st.origin != "claim" and st.value in good]
        out[n] = stated[0] if stated else sorted(good, key=CONVENTIONS[n].values.index)[0]
    return names, out


def _readers_of_failing(readings: Readings, failing, declared: Declared) -> str:
    """Who reads the text with each unstated value under which the claim fails (``Convention.readers``): why that
    value is a reading at all ("nDCG gain exponential: Burges et al. 2005 (exponential gain), which the text cites")."""
    parts = []
    for n in readings.varied:
        if declared.stated(n):
            continue
        for v in dict.fromkeys(o.as_dict[n] for o in failing):
            who = [r.describe() for r in CONVENTIONS[n].readers_of(v, declared.cited)]
            if (n, v) in declared.used:
                who.append("the text's own use of it elsewhere")
            if who:
                parts.append(f"{CONVENTIONS[n].title} {v}: {', '.join(dict.fromkeys(who))}")
    return "; ".join(dict.fromkeys(parts))


def verify_statement(ms: Measurements, fixture, measure: str, declared: Declared, query: str | None,
                     claimed: ClaimedValue, extra: Mapping[str, str]) -> bool:
    """Re-check a proposed correction: the claim with ``extra`` conventions stated holds under every reading."""
    stated = declared.overlay(Declared({n: [Statement(v, "", "claim")] for n, v in extra.items()}))
    readings = chapter_readings(ms, fixture, measure, stated, query)
    return bool(readings.outcomes) and all(o.value != REJECTED and claimed.contains(o.value)
                                           for o in readings.outcomes)


def sentence_declared(ms: Measurements, chapter: Chapter, claim, fixture, measure: str, claimed: ClaimedValue,
                      query: str | None, aggregate: str | None) -> Declared:
    """The conventions one expectation of a value claim is read under: the chapter's and the claim's
    (``Chapter.declared_for``), its ``aggregate``, then what the sentence prints for the value: a fraction or a
    divisor that fixes the measure's denominator (``_printed_denominator``), a mean written term by term that fixes
    each query's reading (``_printed_terms``). The check and the proposal read a sentence the same way through it."""
    declared = declared_with_aggregate(chapter.declared_for(claim), aggregate)
    own = _printed_readings(ms, claim.quote, claimed, fixture, measure, query, declared)
    return _printed_elsewhere(ms, chapter, claim, fixture, measure, claimed, query, own)


def _printed_readings(ms: Measurements, quote: str, claimed: ClaimedValue, fixture, measure: str,
                      query: str | None, declared: Declared) -> Declared:
    """``declared`` narrowed by the arithmetic ``quote`` prints for the value (a denominator, a mean's terms)."""
    declared = _printed_denominator(quote, claimed, fixture, measure, query, declared)
    if parse_measure(measure, True)[1] is not None:
        declared = _printed_terms(ms, quote, claimed, fixture, measure, query, declared)
    return declared


def _same_value(a: ClaimedValue, b: ClaimedValue) -> bool:
    """Two printed values of one number: one's nominal value lies in the other's interval ("5/9" and "≈ 0.556";
    not "0.5" and "≈ 0.54"). Bounds ("< 1") name no one number."""
    ma, mb = _nominal(a), _nominal(b)
    return ma is not None and mb is not None and (a.contains(mb) or b.contains(ma))


def same_value_siblings(chapter: Chapter, claim, measure: str, query: str | None) -> list[tuple[ValueClaim, object]]:
    """The other value claims' expectations of ``measure`` on ``query`` that the chapter's reader has already seen
    computed (not a sentence about one library: ``by``), in register order: where the text may have printed the
    arithmetic of a value a later sentence only names ("would report L6's 0.542 alone")."""
    return [(other, e) for other in chapter.register.claims
            if isinstance(other, ValueClaim) and other.id != claim.id
            for e in other.expect if e.measure == measure and e.query == query and e.by is None]


def printed_elsewhere_inputs(chapter: Chapter, claim) -> list:
    """What ``_printed_elsewhere`` may read for ``claim``, for its cache key: every other value claim with an
    expectation of a measure ``claim`` names, with its fixture (JSON-ready)."""
    measures: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("measure", "after_measure") and isinstance(v, str):
                    measures.add(v)
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(claim.model_dump(mode="json"))
    fixtures = chapter.register.fixtures
    return [[other.model_dump(mode="json"),
             fixtures[other.fixture].model_dump(mode="json") if isinstance(other.fixture, str) and other.fixture in
             fixtures else None]
            for other in chapter.register.claims
            if isinstance(other, ValueClaim) and other.id != claim.id and any(e.measure in measures
                                                                              for e in other.expect)]


def _printed_elsewhere(ms: Measurements, chapter: Chapter, claim, fixture, measure: str, claimed: ClaimedValue,
                       query: str | None, declared: Declared) -> Declared:
    """``declared`` narrowed by the arithmetic another sentence prints for the same number: when another value claim
    gives the same value of the same measure, on queries judged exactly as here, and its sentence's arithmetic fixes
    a convention this sentence leaves open ("(1 + 2/3 + 3/6)/4 ≈ 0.542" fixes AP's denominator at |R|), a later
    sentence naming that number ("would report L6's 0.542 alone") is read the same way; the statement quotes where
    it was printed. Conventions this claim states, or that the other sentence leaves open, are untouched."""
    inherited: dict[str, list[Statement]] = {}
    for other, e in same_value_siblings(chapter, claim, measure, query):
        try:
            theirs = parse_claimed(e.claimed, tolerance=e.tolerance)
        except AuditError:
            continue
        if not _same_value(claimed, theirs):
            continue
        there = chapter.fixture(other.fixture)
        queries = [query] if query is not None else list(dict.fromkeys([*there.qrels, *there.run]))
        if not queries or any(q not in fixture.qrels or dict(fixture.qrels[q]) != dict(there.qrels.get(q, {}))
                              for q in queries):
            continue
        base = declared_with_aggregate(chapter.declared_for(other), e.aggregate)
        fixed = _printed_readings(ms, other.quote, theirs, there, measure, query, base)
        for name, stated in fixed.statements.items():
            if stated == base.statements.get(name) or declared.stated(name) or name in inherited:
                continue
            if not set(st.value for st in stated) <= set(declared.values(name)):
                continue
            inherited[name] = [Statement(st.value, f"{st.quote} in {other.id} (“{shorten(other.quote, 80)}”), "
                                         "where the text prints the same value", "claim") for st in stated]
    return declared.overlay(Declared(inherited)) if inherited else declared


def check_expectation(ms: Measurements, chapter: Chapter, claim, fixture_ref, measure: str, claimed_text,
                      evidence: Evidence, *, tolerance=None, derived: str = "", query: str | None = None,
                      aggregate: str | None = None, label_prefix: str = "", references_qualify: bool = True,
                      ideal: list[int] | None = None, about: str = "", variant: str = "") -> None:
    """Compare one measure on one fixture with the claimed value under every reading; add checks and points.
    ``references_qualify=False``: the sentence is about another implementation (``about``, its name), whose
    reading the claim states; the references are shown, and their differences do not qualify it. ``ideal``: the ideal order the sentence
    prints (grades, zeros left out): only the ideal-DCG rules giving it are read, and none giving it contradicts.
    ``variant``: the text's own name for a variant it defines (``Expect.named``): the claim's stated conventions are
    its definition, and the references, which compute the standard measure, are notes (``references_qualify`` False)."""
    fixture = chapter.fixture(fixture_ref)
    claimed = parse_claimed(claimed_text, tolerance=tolerance)
    # a value the text does not print (``derived``) is the register's reading of a statement, not a number a reader
    # sees: a convention the text leaves open that changes only this number misleads no one
    unprinted = bool(derived) and not printed_in_quote(str(claimed_text), claim.quote)
    declared = sentence_declared(ms, chapter, claim, fixture, measure, claimed, query, aggregate)
    if ideal is not None:
        fitting, orders = _ideal_readings(fixture, measure, query, declared, ideal)
        printed = ", ".join(map(str, ideal))
        if not fitting:
            evidence.failures.append(Point(
                f"{measure}: the printed ideal order {printed} is not the one the chapter's definitions build ("
                + "; ".join(f"{v}: {', '.join(map(str, o)) or 'nothing'}" for v, o in orders.items()) + ")",
                "Correct the printed ideal order, or state how the ideal DCG is built."))
            return
        declared = declared.overlay(Declared({"ideal": [Statement(v, f"the ideal order {printed}", "claim")
                                                         for v in fitting]}))
    label = (f"{label_prefix}{measure}" + (f" as the text defines {variant}" if variant else "")
             + f" on {fixture_name(fixture_ref)}" + (f", query {query}" if query else ""))
    if parse_measure(measure, True)[1] is None:
        _references_only(ms, fixture, measure, claimed, claimed_text, query, label, evidence)
        return
    try:
        readings = chapter_readings(ms, fixture, measure, declared, query)
    except Exception as exc:  # an input the chapter's definitions cannot take
        from audit.errors import AuditError
        if not isinstance(exc, AuditError):
            raise
        evidence.register_error(f"the chapter's definitions cannot compute {measure} on {label}: {exc.message}",
                                "fixture", f"give the fixture what {measure} needs (the message says what is "
                                "missing), or name the measure the sentence states")
        return
    own_rows = chapter_rows(readings, claimed, fixture, measure, ms, query)
    refs = reference_rows(ms, fixture, measure, claimed, query)
    values = own_rows + [row for _, row, _ in refs]
    evidence.checks.append(Check(label=label, measure=measure + (f" ({query})" if query else ""),
                                 claimed=str(claimed_text), interval=claimed.interval(), derived=derived,
                                 values=values, **bounds(claimed)))
    evidence.reference_errors(errors_of(values, label))
    if not readings.outcomes:
        evidence.register_error(f"no reading of the chapter's definitions applies to {label}", "conventions",
                                "the conventions declared for this claim (its own, its chapter's) leave no reading "
                                "of the measure: remove the one the sentence does not state")
        return

    def holds(v) -> bool:
        return v is not None and v != REJECTED and claimed.contains(v)

    holding = [o for o in readings.outcomes if holds(o.value)]
    failing = [o for o in readings.outcomes if not holds(o.value)]
    names, good = _deciding_wording(readings, holds, declared)
    unstated = [n for n in readings.varied if not declared.stated(n) or len(declared.values(n)) > 1]
    if not holding:
        backers = [ref.title for ref, row, _ in refs if row.status == "ok" and row.in_interval] \
            if references_qualify else []
        _contradicted(ms, fixture, measure, declared, query, claimed, claimed_text, readings, unprinted, label,
                      evidence, backers=backers, about=about, quote=claim.quote)
    elif failing and unprinted and not [n for n in readings.varied if n in declared.tensions()]:
        evidence.scopes.append(
            f"{label}: the derived {claimed_text} (not printed) holds under {holding[0].label()}, a reading the "
            "text leaves open; the text prints no value here, so no reader is misled ("
            + _phrase_list(failing, claimed) + ")")
    elif failing:
        for n in names:  # what the claim needs of each deciding convention the text leaves open
            if not declared.stated(n):
                need = {o.as_dict[n] for o in holding}
                evidence.holds_only[n] = evidence.holds_only.get(n, need) & need
        # the convention(s) to state: those that decide alone, else every varied one of a holding reading
        wording_conv = {n: good[n] for n in names} or holding[0].as_dict
        verified = bool(wording_conv) and verify_statement(ms, fixture, measure, declared, query, claimed, wording_conv)
        by = _phrase_list(readings.outcomes, claimed)
        named = [CONVENTIONS[n].named() for n in unstated]
        which = (", ".join(named[:-1]) + " or " + named[-1]) if len(named) > 1 else (named[0] if named else
                                                                                       "a convention")
        tension = [n for n in readings.varied if n in declared.tensions()]
        open_by_claim = [n for n in readings.varied
                         if len({st.value for st in declared.statements.get(n, []) if st.origin == "claim"}) > 1]
        why = ("the chapter states two values of " + ", ".join(CONVENTIONS[n].title for n in tension)
               if tension else
               "the sentence fits more than one reading of " + ", ".join(CONVENTIONS[n].named() for n in open_by_claim)
               if open_by_claim else f"the chapter does not state {which}")
        stated = f"the derived {claimed_text} (not printed)" if unprinted else f"the printed {claimed_text}"
        text = f"{label}: {stated} holds under some readings and not others, and {why}: {by}"
        readers = _readers_of_failing(readings, failing, declared)
        if readers:
            text += f" (who reads it so: {readers})"
        mean_only = ("averaging" in open_by_claim and all(o.as_dict["averaging"] != "pooled" for o in holding)
                     and any(o.as_dict["averaging"] == "pooled" for o in failing))
        if mean_only:
            # the sentence itself is read two ways (a mean over queries, or the share of all relevant material): the
            # chapter's own averaging statement does not settle which the sentence means, its wording must
            pooled = next(o for o in failing if o.as_dict["averaging"] == "pooled")
            wording = (f"Say that the value is a mean over queries, e.g. “on average per query”, not a share of all "
                       f"relevant material (checked: the mean over queries gives {_show(holding[0].value)}; the share "
                       f"of all relevant material, pooled over queries, gives {_show(pooled.value)})")
        elif verified:
            phrases = "; ".join(CONVENTIONS[n].phrase(v) for n, v in wording_conv.items())
            wording = (f"State the convention the value rests on, e.g. “Here {phrases}.” "
                       f"(checked: with this stated, the claim holds under every remaining reading)")
        else:
            wording = ("State which convention the value rests on; no single convention decides it "
                       f"({by})")
        evidence.conditions.append(Point(text, wording))
        evidence.lead = ""  # the sentence says itself that it holds only under some readings
        other = failing[0]
        evidence.concern = (evidence.concern or
                            f"A reader who takes {other.label() or 'another reading'} gets {_show(other.value)} from "
                            "the same input instead of the printed value, and the text does not say which reading "
                            "is meant.")
    if references_qualify:
        _references(ms, chapter, claim, fixture, measure, declared, query, claimed, readings, refs, label, evidence,
                    holding, unprinted)
    elif variant:
        shown = [f"{row.implementation} {fmt_float(row.value)}" for _, row, _ in refs
                 if row.status == "ok" and not row.in_interval]
        evidence.notes.append(
            f"{label}: {variant} is the text's own measure, defined by "
            + ("; ".join(CONVENTIONS[n].phrase(st.value) for n, sts in declared.statements.items()
                         for st in sts[:1] if st.origin == "claim") or "the claim's stated conventions")
            + "; the references compute the standard measure"
            + (f" ({', '.join(shown)}), which the text does not claim" if shown else ", and agree"))
    else:
        evidence.notes.append(f"{label}: the references follow their own conventions and do not decide a sentence "
                              "about another implementation")
    if holding and not failing:
        scope = f"{label}: the chapter's definitions give {_show(holding[0].value)}"
        if readings.varied:
            scope += f" under every reading ({', '.join(CONVENTIONS[n].title for n in readings.varied)})"
        agreeing = [row.implementation for _, row, _ in refs if row.status == "ok" and row.in_interval]
        if agreeing:
            scope += f", and {', '.join(agreeing)} agree{'s' if len(agreeing) == 1 else ''}"
        na = not_applicable_names(values)
        if na:
            scope += f" (not applicable: {'; '.join(na)})"
        evidence.scopes.append(scope)


def _contradicted(ms, fixture, measure, declared, query, claimed, claimed_text, readings: Readings, derived, label,
                  evidence: Evidence, *, backers: Sequence[str] = (), about: str = "", quote: str = "") -> None:
    """No reading of the chapter's definitions gives the claimed value. ``backers``: the references that returned it
    on this input (only then is a stated convention's other value offered as the fix); ``about``: the implementation
    the sentence is about when it is not a reference of this audit (its rules are the claim's stated conventions, so
    the number, not those rules, is what to revise); ``quote``: the sentence, whose printed arithmetic a corrected
    value must still follow from."""
    values = [o.value for o in readings.outcomes if o.value != REJECTED]
    if not values:
        evidence.failures.append(Point(f"{label}: the chapter's definitions reject the input (it repeats an ID)",
                                       "Remove the repeated ID from the example, or state how repeats are handled."))
        return
    distinct = list(dict.fromkeys(values))
    if len(distinct) == 1 and not derived and not about and _rounded_terms_story(quote, claimed, claimed_text,
                                                                                 distinct[0], label, evidence):
        return
    if len(distinct) == 1:
        v = distinct[0]
        new_text = claimed.write_like(v)
        fixed = parse_claimed(new_text)
        ok = verify_statement(ms, fixture, measure, declared, query, fixed, {})
        text = ((f"As {about} computes it (the rules the claim states for it), " if about else
                 "By the chapter's definition ") + f"{measure} on this fixture is {_show(v)}{_approx(v)}, outside the "
                f"claimed {claimed.interval()}" + (f" under every reading ({', '.join(CONVENTIONS[n].title for n in readings.varied)})"
                                                    if readings.varied else ""))
        broken = breaks_replacing(quote, str(claimed_text), new_text)
        recount = divisor_correction(quote, str(claimed_text), new_text, v) if broken and isinstance(v, Fraction) \
            else None
        # the register's value as the sentence prints it ("a quarter" for 1/4); a bound the sentence words otherwise
        # ("between 0 and 1" for "<= 1") has no one number to change
        written = str(claimed_text) in quote or not quote
        if not written and claimed.low is not None and claimed.high is not None:
            swap = printed_correction(quote, claimed, new_text)
            if swap is not None:
                claimed_text, new_text, written = swap[0], swap[1], True
        if about:
            wording = (f"Revise the sentence: by the rules it states for {about}, {about} gives {_show(v)}{_approx(v)} "
                       f"here, not {claimed_text}.")
        elif derived:
            wording = f"Revise the statement: on the fixture encoding it, {measure} is {_show(v)}, not {claimed.interval()}."
        elif ok and broken and recount is not None:
            wording = (f"Change “{recount[0]}” to “{recount[1]}” (checked: {measure} is {_show(v)}{_approx(v)} here, "
                       "and the printed terms over that count give it).")
        elif ok and broken:
            wording = (f"Revise the sentence: {measure} is {_show(v)}{_approx(v)} here, not {claimed_text}; writing "
                       f"“{new_text}” alone would leave the printed arithmetic false ({broken}), so its terms must "
                       "change with it.")
        elif ok and written:
            wording = f"Change “{claimed_text}” to “{new_text}” (checked: the corrected value holds under every reading)."
        else:
            wording = f"Revise the statement: {measure} is {_show(v)} here, not {claimed.interval()}."
        text, wording = _with_stated_effects(ms, fixture, measure, declared, query, claimed, claimed_text, text,
                                             wording, backers)
        evidence.failures.append(Point(text, wording))
        return
    # Different readings give different values, none the printed one: propose the value under one named reading.
    first = readings.outcomes[0]
    v = first.value
    new_text = claimed.write_like(v) if v != REJECTED else ""
    ok = bool(new_text) and verify_statement(ms, fixture, measure, declared, query, parse_claimed(new_text),
                                             first.as_dict)
    stated = f"the derived {claimed_text} (not printed)" if derived else f"the printed {claimed_text}"
    text = f"{label}: no reading gives {stated}: {_phrase_list(readings.outcomes, claimed)}"
    broken = breaks_replacing(quote, str(claimed_text), new_text) if ok else ""
    if ok and first.reading and broken:
        wording = (f"Revise the sentence: with {first.label()}, {measure} is {_show(v)}{_approx(v)} here, not "
                   f"{claimed_text}; writing “{new_text}” alone would leave the printed arithmetic false ({broken}), "
                   "so its terms must change with it, and the convention be stated.")
    elif ok and first.reading:
        phrases = "; ".join(CONVENTIONS[n].phrase(val) for n, val in first.reading)
        wording = (f"Change “{claimed_text}” to “{new_text}” and state the convention: “Here {phrases}.” "
                   "(checked: with this stated, the corrected value holds under every remaining reading)")
    else:
        wording = "Revise the value and state the convention it rests on."
    text, wording = _with_stated_effects(ms, fixture, measure, declared, query, claimed, claimed_text, text, wording,
                                         backers)
    evidence.failures.append(Point(text, wording))


def _rounded_terms_story(quote: str, claimed: ClaimedValue, claimed_text, value, label: str,
                         evidence: Evidence) -> bool:
    """The sentence's own printed expression explains why the measure's value is not the printed one: its terms as
    printed give the printed value, and the measure's value is one of the numbers they stand for ("IDCG@5 = 3/1 +
    3/1.58 + 2/2 + 1/2.32 = 6.33" on grades whose IDCG@5 is 6.323466). Then the claim is qualified, the rounded terms
    named, as the arithmetic claim on the same sentence is (``checks.printed_terms``); True when it was."""
    if not quote or value == REJECTED:
        return False
    try:
        exact = Fraction(value)
    except (TypeError, ValueError):
        return False
    for expression in printed_expressions(quote, str(claimed_text)):
        story = printed_terms.explain(expression, claimed, str(claimed_text), exact=exact)
        if story is not None:
            evidence.conditions.append(Point(f"{label}: {story.story()}", story.fix()))
            evidence.lead = ""
            evidence.concern = story.concern
            return True
    return False


def _with_stated_effects(ms, fixture, measure, declared, query, claimed, claimed_text, text: str,
                         wording: str, backers: Sequence[str] = ()) -> tuple[str, str]:
    """A contradicted value's reason and proposal, extended with the stated conventions that shaped the number.

    Each stated convention is set to each of its other values in turn and the chapter's definitions are
    re-run under every remaining reading (``stated_effect.stated_effects``); only conventions whose change
    changed the value are named. An alternative under which the printed value holds under every reading
    (that re-run is the check) is offered as a second proposal when a reference (``backers``) returned the printed
    value on this input.
    """
    def values_under(stated: Declared) -> list:
        return [o.value for o in chapter_readings(ms, fixture, measure, stated, query).outcomes]

    def holds(v) -> bool:
        return v is not None and v != REJECTED and claimed.contains(v)

    effects = stated_effects(values_under, declared, conventions_for(measure, fixture, query), holds,
                             restrict=graded_levels(fixture.qrels))
    if not effects:
        return text, wording
    printed = f"the printed {claimed_text}"
    said = describe(effects, lambda vs: " or ".join(_show(v) for v in vs), printed)
    other = alternatives_to_state(effects, printed, backers=backers)
    return text.rstrip(".") + ". " + said, wording + (" " + other if other else "")


def _references(ms, chapter, claim, fixture, measure, declared, query, claimed, readings: Readings, refs, label,
                evidence: Evidence, holding, unprinted: bool = False) -> None:
    """A reference outside the claim while the chapter's definitions hold: a qualification with its cause.
    ``unprinted``: the claimed value is derived, not printed; a reference whose difference is explained by
    conventions the chapter leaves open is a note, not a qualification (the text prints no value it changes)."""
    if not holding:
        for ref, row, returned in refs:
            if row.status == "ok" and row.in_interval:
                evidence.notes.append(f"{ref.name} ({row.provider}) gives {measure} = {fmt_float(row.value)}, which "
                                      "matches the claim under its own conventions, not the chapter's")
        return
    base = {**readings.base, **holding[0].as_dict}
    m, spec = parse_measure(measure)
    names = conventions_for(measure, fixture, query)
    inp = Input({q: dict(j) for q, j in fixture.qrels.items()}, {q: list(r) for q, r in fixture.run.items()},
                scored_run(fixture))
    groups: dict[tuple, list] = {}
    for ref, row, returned in refs:
        if row.status == "rejected":  # its reader refuses the input the chapter's rules score (a repeated ID)
            evidence.conditions.append(Point(
                f"{label}: {ref.title} ({row.provider}) rejects the input" + (f" ({row.detail})" if row.detail else ""),
                f"Add: “{ref.title} rejects this input: a run that repeats a document ID is an error there.”"
                if repeats(fixture) else f"Add: “{ref.title} rejects this input.”"))
            continue
        if row.status not in ("ok", "left out") or returned is None:
            continue
        if row.status == "ok" and row.in_interval:
            continue
        found = explain_reference(ref, m, spec, returned, inp, base, names, query)
        shown = "left out" if row.status == "left out" else fmt_float(row.value)
        # references giving the same value for the same shown cause are one finding, not one per library
        key = (shown, found.joint, tuple((c.name, c.value, c.phrase) for c in found.causes))
        groups.setdefault(key if found.explained else (id(found),), []).append((ref, row, found, returned))
    for members in groups.values():
        ref, row, found, returned = members[0]
        shown = "left out" if row.status == "left out" else fmt_float(row.value)
        titles = [r.title for r, _, _, _ in members]
        several = len(members) > 1
        who = listed(titles)
        given = ", ".join(f"{r.title} ({w.provider})" for r, w, _, _ in members)
        text = (f"{label}: {given} {'each give' if several else 'gives'} {shown}: "
                f"{found.summary('each of ' + who if several else ref.title)}")
        verb, does = ("follow", "give") if several else ("follows", "gives")
        if (unprinted and found.explained and found.causes
                and all(c.name in CONVENTIONS and not declared.stated(c.name) for c in found.causes)):
            evidence.notes.append(f"{given} {'each give' if several else 'gives'} {shown} for the derived value (not "
                                  f"printed), under {'; '.join(CONVENTIONS[c.name].phrase(c.value) for c in found.causes)}"
                                  ", which the text leaves open")
            continue
        own = own_conditions(claim)
        told = [c for c in found.causes if own.stated(c.name) and c.name in CONVENTIONS]
        # the condition is the sentence's own: its statement's quote lies in the claim's quote (a register entry
        # repeating a chapter-wide statement elsewhere is the chapter's stated convention, which qualifies)
        every_cause_told = bool(told) and len(told) == len(found.causes) and all(
            any(st.quote and st.quote in (claim.quote or "") for st in own.statements[c.name]) for c in told)
        # a reference run with its own option for exactly the condition the sentence states (“on the condensed
        # list”: ir-measures' judged_only, trec_eval's -J) and giving the value: the reader is told how to get it
        optioned = _with_options(ms, fixture, measure, query, claimed, told, base) if found.explained and \
            every_cause_told else []
        if found.explained and every_cause_told and optioned:
            evidence.notes.append(
                f"{given} {'each give' if several else 'gives'} {shown}: there "
                + "; ".join(CONVENTIONS[c.name].phrase(c.value) for c in told)
                + "; the sentence states its own condition ("
                + "; ".join(CONVENTIONS[c.name].phrase(st.value) for c in told for st in own.statements[c.name][:1])
                + "), which " + listed([f"{t} with {named}" for t, named, _ in optioned])
                + (" compute" if len(optioned) > 1 else " computes") + " exactly: "
                + "; ".join(f"{t} with {named} gives {v}" for t, named, v in optioned))
            evidence.scopes.append(f"{label}: " + "; ".join(f"{t} with {named} gives {v}, as the sentence says"
                                                           for t, named, v in optioned))
            continue
        if found.explained and told and (len(told) == len(found.causes) or not found.joint) and any(
                r.status == "ok" and r.in_interval for _, r, _ in refs):
            # the sentence names the condition its value holds under (“With -c, every judged query counts”) and
            # another reference confirms the value under it: one that follows another value of that condition is
            # told by the text, not misled
            evidence.notes.append(
                f"{given} {'each give' if several else 'gives'} {shown}: there "
                + "; ".join(CONVENTIONS[c.name].phrase(c.value) for c in told)
                + "; the sentence states its own condition, under which the value holds: "
                + "; ".join(CONVENTIONS[c.name].phrase(st.value) for c in told
                            for st in declared.statements.get(c.name, [])[:1]))
            continue
        if found.explained:
            text += ". " + found.evidence() + (" The same holds for " + listed(titles[1:]) + "." if several else "")
            cause = found.causes[0]
            if found.joint and all(c.name in CONVENTIONS and c.value for c in found.causes):
                wording = (f"Add: “{who} {verb} other conventions here — "
                           + "; and ".join(CONVENTIONS[c.name].phrase(c.value) for c in found.causes)
                           + f" — and {does} {shown} on this example.”")
            elif cause.name in CONVENTIONS and cause.value:
                wording = (f"Add: “{who} {verb} another convention here — "
                           f"{CONVENTIONS[cause.name].phrase(cause.value)} — and {does} {shown} on this example.”")
            else:
                wording = (f"Add: “{who} {does} {shown} on this example because it "
                           f"{cause.phrase}.”")
            # a reference whose own option follows the chapter's value of the cause, run with it, gives the claim
            optioned = _with_options(ms, fixture, measure, query, claimed, found.causes, base)
            if optioned:
                text += " " + "; ".join(f"{t} with {named} gives {v}, as the chapter does" for t, named, v in optioned) + "."
                wording = wording[:-2] + "; " + "; ".join(f"{t} with {named} gives {v}" for t, named, v in optioned) \
                    + ".”"
        else:
            text += f" (values: {', '.join(f'{q} {fmt_float(v)}' for q, v in returned.items()) or 'none'})"
            wording = f"Investigate why {ref.title} gives {shown} before publishing; the cause is not known."
        # the same libraries with the same shown cause on the claim's other expectations: one finding
        key = ("reference", tuple(titles), tuple((c.name, c.value) for c in found.causes)) if found.explained else None
        evidence.conditions.append(Point(text, wording, key, f"{label}, where {'they give' if several else 'it gives'} "
                                                             f"{shown}"))


def _with_options(ms: Measurements, fixture, measure: str, query: str | None, claimed: ClaimedValue, causes,
                  base: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """(reference title, option, value) for each reference with an option (``Reference.options``) that follows the
    chapter's value of a convention a reference's default was seen to differ on (``causes``), when the reference,
    run with that option on this input, returns a value inside the claimed one."""
    out = []
    for cause in causes:
        chapter_value = base.get(cause.name)
        if cause.name not in CONVENTIONS or chapter_value is None:
            continue
        for ref in ms.references:
            option = ref.options.get((cause.name, chapter_value))
            if option is None:
                continue
            outcome = ms.reference_with(ref, fixture, measure, option[0])
            if outcome is None or outcome.status != "ok" or not outcome.per_query:
                continue
            value = outcome.per_query.get(query) if query is not None else float(combined(measure, outcome.per_query))
            if value is not None and claimed.contains(value):
                out.append((ref.title, option[1], fmt_float(value)))
    return out


def _references_only(ms: Measurements, fixture, measure: str, claimed: ClaimedValue, claimed_text, query, label: str,
                     evidence: Evidence) -> None:
    """A measure the chapter evaluator does not define: the references are compared with the claim and each
    other; the chapter column is "not applicable"."""
    name = parse_measure(measure, True)[0].NAME
    refs = reference_rows(ms, fixture, measure, claimed, query)
    own = ImplValue(implementation=CHAPTER, status="not applicable",
                    detail=f"the chapter evaluator defines no {name}; compared among the references only")
    values = [own] + [row for _, row, _ in refs]
    evidence.checks.append(Check(label=label, measure=measure + (f" ({query})" if query else ""),
                                 claimed=str(claimed_text), interval=claimed.interval(), values=values, **bounds(claimed)))
    evidence.reference_errors(errors_of(values, label))
    ok = [row for _, row, _ in refs if row.status == "ok"]
    if not ok:
        if any(row.status == "error" for _, row, _ in refs):
            evidence.reference_errors([f"no implementation computed {measure} on {label}"])
        else:
            evidence.register_error(f"no implementation computes {measure} on {label}", "expect[].measure",
                                    f"name the measure as a reference computes it (ir-measures' notation), or "
                                    f"encode the statement another way; no reference offers {measure}")
        return
    inside = [row for row in ok if row.in_interval]
    shown = "; ".join(f"{row.implementation} gives {fmt_float(row.value)}" for row in ok)
    if not inside:
        evidence.failures.append(Point(f"{label}: no implementation gives the printed {claimed_text} ({shown})",
                                       "Revise the value to what the references compute."
                                       if len({round(r.value, 9) for r in ok}) > 1 else
                                       f"Change “{claimed_text}” to “{claimed.write_like(Fraction(ok[0].value).limit_denominator(10**6))}” "
                                       "(checked: every reference that computes it gives this value)."))
    elif len(inside) < len(ok):
        evidence.conditions.append(Point(f"{label}: the references disagree ({shown}); the chapter defines no {name} "
                                         "to decide between them, so the cause is unexplained",
                                         f"State which implementation's {name} the value comes from."))
    else:
        evidence.scopes.append(f"{label}: the chapter defines no {name}; {', '.join(r.implementation for r in inside)} "
                               f"agree on {fmt_float(inside[0].value)}")


def _nominal(c: ClaimedValue) -> Fraction | None:
    return None if c.low is None or c.high is None else (c.low + c.high) / 2


def printed_in_quote(claimed_text, quote: str) -> bool:
    """Whether the quote prints the claimed value: some value written in it (``scan.printed_values``) reads as the
    same number (each one's value lies in the other's interval: "0.473" and "≈ 0.473", "1/4" and "one in four" do
    not match; "0.25" and ".25" do). A bound ("< 1") always passes: it is a reading of the sentence, not a copy."""
    from audit.text.scan import printed_values

    try:
        claimed = parse_claimed(claimed_text)
    except AuditError:
        return True  # refused when the register loaded
    mid = _nominal(claimed)
    if mid is None:
        return True
    tokens = printed_values(quote)
    # a fraction's terms are printed numbers too: \frac{3}{1.585} prints 1.585 (a discount, log2 3)
    tokens += [part for token in tokens if "/" in token for part in token.split("/") if "." in part]
    for token in tokens:
        try:
            printed = parse_claimed(token)
        except AuditError:
            continue
        other = _nominal(printed)
        if other is not None and claimed.contains(other) and printed.contains(mid):
            return True
    return False


def check_printed(claim, claimed_text, derived: str, evidence: Evidence) -> None:
    """A claimed value the quote does not print, with no ``derived`` explaining it, is an error: the register no
    longer checks what the text says (a value edited in the register only, or copied wrong)."""
    if derived or printed_in_quote(claimed_text, claim.quote):
        return
    evidence.register_error(f"the claimed value {str(claimed_text)!r} is not printed in the quote "
                            f"“{shorten(claim.quote, 160)}”", "claimed",
                            f"write the value as the quote prints it (or quote the sentence that prints "
                            f"{str(claimed_text)!r}), or say in `derived` how the text implies it")


def check(claim: ValueClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    for e in claim.expect:
        check_printed(claim, e.claimed, e.derived, evidence)
        if e.by is not None:
            call = reference_call(e.by)
            if call is None or call.name is None:
                # a library that is no reference of the audit: the chapter's definitions under the claim's stated
                # conventions (that library's reading) decide
                check_expectation(ms, chapter, claim, claim.fixture, e.measure, e.claimed, evidence,
                                  tolerance=e.tolerance, query=e.query,
                                  label_prefix=f"as {e.by} computes it (not a reference of this audit; its reading is "
                                               "the claim's stated conventions): ", references_qualify=False, about=e.by)
            else:
                check_by_reference(ms, chapter, claim, claim.fixture, e.measure, e.claimed, e.by, evidence,
                                   tolerance=e.tolerance, query=e.query)
            continue
        check_expectation(ms, chapter, claim, claim.fixture, e.measure, e.claimed, evidence, tolerance=e.tolerance,
                          derived=e.derived, query=e.query, aggregate=e.aggregate, ideal=e.ideal_grades(),
                          references_qualify=e.named is None, variant=e.named or "")
    evidence.conditions = merge_repeats(evidence.conditions)
    return evidence


def needs(claim: ValueClaim, chapter: Chapter) -> list[tuple]:
    """(fixture, measure) pairs this claim will measure, for batching (chapter-defined measures only)."""
    fixture = chapter.fixture(claim.fixture)
    return [(fixture, e.measure) for e in claim.expect if parse_measure(e.measure, True)[1] is not None]
