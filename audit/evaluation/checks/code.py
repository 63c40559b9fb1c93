"""Code claims: a listing in the chapter, run in isolation and compared with the chapter's
definitions and the references on edge cases a reviewer would try and on generated input."""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass, field, replace

from audit.model.evidence import Evidence, Point
from audit.evaluation import definitions
from audit.evaluation.checks import computes
from audit.evaluation.checks.common import Measurements
from audit.evaluation.listing_syntax import ALLOWED as ALLOWED_MODULES, ALLOWED_TEXT, findings as beyond_computing
from audit.evaluation.readings import base_reading
from audit.evaluation.sandbox import UNSTEADY, CallResult, run_listing
from audit.evaluation.sandbox.environment import (
    how_to_provide,
    missing_module,
    removed_numpy,
    removed_numpy_finding,
    with_numpy_replacements,
)
from audit.evaluation.sandbox.quote import clean, markdown_literal, quote
from audit.evaluation.checks.refusals import Guard, guards, refusal
from audit.evaluation.checks import text_calls
from audit.evaluation.checks.text_calls import DEFAULT as DEFAULT_CALLS, TextCalls
from audit.register.claims import Chapter, CodeClaim, parameter_defaults, shown_arguments
from audit.measures.conventions import CONVENTIONS
from audit.model.values import display
from audit.model.results import Check
from audit.text.doctests import unwrapped
from audit.text.later_bindings import rebound_later
from audit.text.stated import binary_relevance
from audit.text.listings import in_force, function_source
from audit.evaluation.checks.code_inputs import (  # noqa: F401 — read from here too
    REFUSALS,
    LISTING_EXCEPTION,
    LISTING_VALUE,
    LISTING_CHECK,
    Input,
    _graded,
    _multi,
    _scored,
    _cutoff_role,
    run_input,
    parts,
    graded_input,
    _REPEAT_FIX,
    EDGES,
    ADVISORY,
    GRADE_EDGE,
    _parameters,
    _function_lines,
    _where,
    _measure,
    chapter_value,
    _value,
    _scores,
    described,
    _call,
    _generated,
    _repeats,
    _edge_like,
    _retrieves_nothing,
    _with_cutoffs,
    _generated_inputs,
    _inputs,
    _agrees,
    _paired,
    _numbers,
    returned_text,
    exact_text,
    shaped,
    _bounded,
    _problem,
    _size,
    FOLLOWS_OPEN_READING,
    _ID_LISTS,
    sees_ids,
    takes_no_ids,
    edge_inputs,
    _entries,
    _expected_entries,
    references_text,
)
from audit.evaluation.checks.code_shown import (  # noqa: F401 — read from here too
    shown_input,
    _by_score,
    _shown_input,
    Printed,
    DOUBLE_DIGITS,
    DOUBLE_ULPS,
    significant_digits,
    printed_holds,
    session_calls,
    printed_like,
    _FULL_REPR,
    _doctest_prints,
    _exception_name,
    _shown_calls,
    own_examples,
)
from audit.evaluation.checks.code_causes import (  # noqa: F401 — read from here too
    _rounding,
    _answered,
    _past_end,
    _finite_value,
    _finite,
    score_order,
    cutoff_shift,
    named_computation,
    listing_reading,
    _references,
    reference_values,
    _reference_reading,
)

#: A listing refusing more than this share of the generated inputs by its own checks is not certified on them.
REFUSED_AT_MOST = 0.5


NOT_CERTIFIED = "the listing is not certified"  # opens the error of a listing whose text does more than compute


CALL_LIMIT = 2.0     # seconds of wall-clock and CPU time for one call of a listing


CLAIM_BUDGET = 60.0  # seconds for everything one listing runs: edge cases, generated input, shrinking


SAMPLE = 300


SEED = 20261130


def _minimal(claim: CodeClaim, source: str, params: list[str], bad: Input, bad_result: CallResult,
             deadline: float, reading=None, own_guards: list[Guard] = (),
             calls: TextCalls = DEFAULT_CALLS) -> tuple[Input, CallResult, bool]:
    """Shrink a failing generated input with Hypothesis to the smallest one that still fails.

    Every run counts against the claim's ``deadline`` (``time.monotonic()`` seconds); once it
    has passed, no further input is run (each counts as not failing), so Hypothesis ends with the
    smallest failing input it has seen. Returns (input, the listing's result on it, whether
    shrinking finished within the budget).
    """
    from hypothesis import HealthCheck, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    seen: dict[Input, CallResult] = {}
    spent = [False]

    uses_k = _cutoff_role(claim) == "cutoff"
    ids = st.sampled_from(list(range(1, 7)) if calls.ids == "int" else [f"d{i}" for i in range(6)])

    graded = _graded(claim) or _multi(claim)

    @st.composite
    def queries(draw):
        ranking = tuple(draw(st.lists(ids, unique=True, min_size=1, max_size=6)))
        grades = draw(st.dictionaries(ids, st.integers(0, 3), min_size=1))
        if not any(g >= 1 for g in grades.values()):
            grades[next(iter(grades))] = 1
        return graded_input(ranking, grades, None)

    @st.composite
    def runs(draw):
        qs = draw(st.lists(queries(), min_size=1, max_size=3))
        k = draw(st.integers(1, max(len(i.ranking) for i in qs) + 2)) if uses_k else None
        return run_input([(f"q{j + 1}", i) for j, i in enumerate(qs)], k)

    @st.composite
    def inputs(draw):
        item = draw(plain())
        if _cutoff_role(claim) != "cutoffs":
            return item
        longest = item.longest()
        return replace(item, cutoffs=tuple(sorted(draw(st.sets(st.integers(1, longest + 2), min_size=1, max_size=3)))))

    @st.composite
    def plain(draw):
        if _multi(claim):
            return draw(runs())
        ranking = tuple(draw(st.lists(ids, unique=True, max_size=6)))
        k = draw(st.integers(1, len(ranking) + 2)) if uses_k else None
        if graded:
            grades = draw(st.dictionaries(ids, st.integers(0, 3), min_size=1))
            if not any(g >= 1 for g in grades.values()):
                grades[next(iter(grades))] = 1
            return graded_input(ranking, grades, k)
        relevant = frozenset(draw(st.sets(ids, min_size=1)))
        return Input(ranking, relevant, k)

    def fails(item: Input) -> bool:
        if item in seen:
            return refusal(seen[item], own_guards) is None and \
                not _agrees(seen[item], chapter_value(claim, item, reading))
        left = deadline - time.monotonic()
        if spent[0] or left <= 0:
            spent[0] = True
            return False
        run = run_listing(source, claim.function, [_call(params, claim, item, reading, calls)], time_limit=left,
                          call_limit=CALL_LIMIT)
        if run.budget_exhausted or run.results[0].status == "not run":
            spent[0] = True
            return False
        seen[item] = shaped(claim, run.results[0])
        return refusal(seen[item], own_guards) is None and \
            not _agrees(seen[item], chapter_value(claim, item, reading))

    try:
        found = find(inputs(), fails, random=random.Random(SEED),
                     settings=settings(max_examples=200, database=None, deadline=None,
                                       suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return bad, bad_result, not spent[0]
    return found, seen[found], not spent[0]


def _run_as_called(claim: CodeClaim, source: str, params: list[str], items: list[Input], shown: list[dict],
                   reading, calls: TextCalls, own_guards: list[Guard]):
    """The listing run on ``items`` (then the text's shown calls) as the text calls it (``calls``), results read in
    the claim's shape. Where the text does not say which container the relevant documents come in and the listing
    fails on more inputs with the default than with the other (an exception, or a value off the chapter's, that only
    the harness's choice provokes), the run with the other container is the one checked. Returns (run, calls)."""
    def once(how: TextCalls):
        run = run_listing(source, claim.function, [_call(params, claim, i, reading, how) for i in items]
                          + [[values[p] for p in params] for values in shown], time_limit=CLAIM_BUDGET,
                          call_limit=CALL_LIMIT)
        run.results = [shaped(claim, r) for r in run.results]
        return run

    def failing(run) -> int:
        return sum(1 for i, r in zip(items, run.results) if not _repeats(i) and r.status in ("ok", "raises")
                   and refusal(r, own_guards) is None and not _agrees(r, chapter_value(claim, i, reading)))

    run = once(calls)
    if calls.relevant_said or "relevant set" not in claim.arguments.values() or run.load_error or run.unavailable:
        return run, calls
    first = failing(run)
    if not first:
        return run, calls
    other = calls.other()
    again = once(other)
    second = failing(again)
    if second < first:
        return again, replace(other, relevant_why=f"the text does not say which: no type hint, shown call or "
                                                  f"docstring does; given a {calls.relevant} it fails on {first} of "
                                                  f"{len(items)} inputs, given a {other.relevant} on {second}")
    return run, calls


@dataclass
class Prepared:
    """A listing as it is run and what the text says of its calls: its lines as printed (``listing``), the source
    that runs (``source``: unused imports left out, removed NumPy names given back) and the lines the syntax check
    reads (``printed``), its parameters and their defaults, the preconditions it raises on, the claim with the
    listing's default constants, the chapter's reading, the calls the text shows, how the text calls it, and what
    its text does beyond computing."""

    listing: object
    source: str
    printed: str
    params: list[str]
    defaults: dict
    guards: list
    claim: CodeClaim
    reading: object
    shown: list[dict]
    calls: TextCalls
    #: what its text does beyond computing (``listing_syntax.beyond_computing``): (line, what) pairs
    uncertified: list
    #: statements of later listings that bind again a name it reads (``listings.rebound_later``)
    rebound: list = field(default_factory=list)


def _lines(listing) -> str:
    return f"line {listing.start}" if listing.start == listing.end else f"lines {listing.start}–{listing.end}"


def stated_apart(claim: CodeClaim, declared, reading, follows: list) -> list[str]:
    """What a listing of a standard name (``AP``) that follows a convention the chapter states (``AP's denominator:
    the relevant documents retrieved``) gives against the references, which compute it otherwise by default: the
    references, how often they agree and the convention they follow, found by experiment (``follows``). The listing
    is the chapter's variant, as the text says: right by the chapter (its verdict is its own); these are said with
    it, so a reader knows their tools give another number."""
    out = []
    by_convention: dict[tuple[str, str], list[tuple[str, int, int]]] = {}
    for ref, name, value, agree, total in follows:
        if declared.stated(name) and reading.get(name) != value:
            by_convention.setdefault((name, value), []).append((ref, agree, total))
    for (name, value), refs in by_convention.items():
        convention = CONVENTIONS[name]
        names = ", ".join(r for r, _, _ in refs[:-1]) + (" and " if len(refs) > 1 else "") + refs[-1][0]
        counts = {(a, t) for _, a, t in refs}
        agreed = (f"{'each ' if len(refs) > 1 else ''}agreeing with it on {refs[0][1]} of {refs[0][2]} generated "
                  "inputs" if len(counts) == 1 else
                  "agreeing with it " + "; ".join(f"{r} on {a} of {t} generated inputs" for r, a, t in refs))
        out.append(f"it computes {claim.measure} with the chapter's stated {convention.title} “{reading[name]}”, "
                   f"where {names} compute{'s' if len(refs) == 1 else ''} {claim.measure} with {convention.title} "
                   f"“{value}” by default ({agreed}), so readers' tools give another number")
    return out


def _rerun_after_rebindings(prep: Prepared, text: str, shown_results: list, evidence: Evidence) -> None:
    """The text's calls printed after a later listing binds again a name the function reads (``SCALE = 0``), run again
    as a reader who runs the text in order runs them: with those statements after the listing's code. Their results
    replace the ones of the function as first printed; a call whose statements do not run is not checked."""
    from audit.text.doctests import occurrences, places

    start, _ = in_force(text, prep.claim.quote, prep.claim.function, prep.claim.occurrence)
    groups: dict[tuple, list[int]] = {}
    met: dict[tuple, int] = {}  # the same call printed again (on the other side of a change) is its next place
    for i, call in enumerate(prep.claim.calls):
        key = (call.call, tuple(sorted((call.given or {}).items())))
        found = places(text, call.call, call.given or {}, after=start) or occurrences(text, call.call)
        at = found[min(met.get(key, 0), len(found) - 1)] if found else None
        met[key] = met.get(key, 0) + 1
        if at is None:
            continue
        line = text.count("\n", 0, at) + 1
        before = tuple(r for r in prep.rebound if r.line < line)  # a statement of the same block counts from its line
        if before:
            groups.setdefault(before, []).append(i)
    for before, indexes in groups.items():
        source = prep.source + "\n" + "\n".join(r.code for r in before) + "\n"
        run = run_listing(source, prep.claim.function, [[prep.shown[i][p] for p in prep.params] for i in indexes],
                          time_limit=CLAIM_BUDGET, call_limit=CALL_LIMIT)
        names = ", ".join(dict.fromkeys(f"`{clean(r.name)}`" for r in before))
        lines = ", ".join(dict.fromkeys(_lines(r.listing) for r in before))
        for i, result in zip(indexes, run.results):
            call = f"`{clean(prep.claim.calls[i].call)}`"
            if run.load_error:
                shown_results[i] = CallResult("not run", detail="not run")
                evidence.notes.append(f"the text prints {call} after the listing at {lines} binds {names} again, "
                                      f"and those statements do not run after the listing ({clean(run.load_error)}): "
                                      "that call was not checked")
                continue
            shown_results[i] = shaped(prep.claim, result)
            evidence.notes.append(f"the text prints {call} after the listing at {lines} binds {names} again, which "
                                   f"`{clean(prep.claim.function)}` reads: it is run as a reader who "
                                   "runs the text in order runs it, with that binding")


def prepare(claim: CodeClaim, chapter: Chapter, evidence: Evidence) -> Prepared:
    """The listing of ``claim`` ready to run, as a reader who copies the text runs it; what it changed on the way
    (an import left out, a removed NumPy name) is noted in ``evidence``."""
    listing, source = function_source(chapter.snapshot.text, claim.quote, claim.function, claim.builds_on,
                                      claim.occurrence)
    source, unused = text_calls.without_unused_imports(source)  # an import it never uses blocks nothing
    evidence.scopes.extend(unused)
    printed = source  # what the syntax check reads: the listing's own lines, never the replacements put before them
    removed = removed_numpy(source)
    if removed:
        # a name the installed NumPy removed: named, and the listing's logic checked with its replacement
        source = with_numpy_replacements(source, removed)
        evidence.conditions.append(Point(*removed_numpy_finding(removed)))
    params = _parameters(claim, source)
    defaults = parameter_defaults(source, claim.function)
    own_guards = guards(source, claim.function)  # the preconditions it checks and raises on, on purpose
    # a constant the claim does not give is called with the listing's own default
    claim = claim.model_copy(update={"constants": {**{p: defaults[p] for p, role in claim.arguments.items()
                                                      if role == "constant" and p in defaults}, **claim.constants}})
    reading = base_reading(chapter.declared_for(claim))
    rebound = rebound_later(chapter.snapshot.text, claim.quote, claim.function, source, claim.occurrence)
    claim = claim.model_copy(update={"calls": [*claim.calls, *own_examples(claim, chapter.snapshot.text, params,
                                                                           defaults, [r.line for r in rebound])]})
    start, end = in_force(chapter.snapshot.text, claim.quote, claim.function, claim.occurrence)
    for call, output in text_calls.unread_examples(chapter.snapshot.text, claim.function, start, end):
        if any(c.call == call for c in claim.calls):
            continue
        if unwrapped(call).startswith(f"{claim.function}("):
            evidence.notes.append(f"the text's example `{clean(call)}` prints {quote('the output', output)}, which "
                                  "is not one value the audit reads: not checked")
        else:
            evidence.notes.append(f"the text prints `{clean(call)}` as {quote('the output', output)}: an expression "
                                  f"around {claim.function}() the audit does not compute, not checked")
    shown = [shown_arguments(claim, c.call, params, defaults, c.given) for c in claim.calls]
    # how the text calls the function (the container of the relevant documents, the type of the IDs): the harness
    # calls it so
    calls = text_calls.read(claim.arguments, source, claim.function,
                            shown + text_calls.shown_call_values(chapter.snapshot.text, claim.function, params),
                            (claim.measure, *(claim.returns or ())), binary_relevance(chapter.snapshot.text))
    return Prepared(listing, source, printed, params, defaults, own_guards, claim, reading, shown, calls,
                    beyond_computing(printed), rebound)


def settled_by_run(prep: Prepared, run, shown_results: list, chapter: Chapter, evidence: Evidence) -> bool:
    """Whether the run of ``prep``'s listing settles the claim before any value is compared, with what it says in
    ``evidence``: a listing that does more than compute is not certified (decided from its text, whatever it
    returned); a listing that could not run (no isolation, a module the sandbox cannot provide, a name an earlier
    listing or the prose binds) is not checked; one that does not load is wrong as printed. The sandbox's stops are
    noted as failures, and the comparison goes on."""
    listing, printed, uncertified = prep.listing, prep.printed, prep.uncertified
    if uncertified:
        # Decided from its text, whatever it returned: what it does could make it answer the audit otherwise than
        # a reader who calls it. It still runs (in the sandbox) so that the report shows what it did there.
        evidence.errors.append(
            f"{NOT_CERTIFIED}: it " + "; it ".join(f"{what} ({_where(listing, printed, line)})"
                                                   for line, what in uncertified)
            + ". Metric code needs none of this, and a listing that uses it can answer the audit otherwise than a "
            "reader who calls it, so no result of it is certified"
            + (f" ({ALLOWED_TEXT})" if any(what.startswith("imports ") for _, what in uncertified) else ""))
        evidence.error_concern = ("The listing does more than compute; what it returns here may not be what a reader who "
                                  "runs it gets.")
    if run.unavailable:
        evidence.errors.append(f"not run: isolation unavailable ({run.unavailable}); listings never run unconfined")
        return True
    said = [run.load_error, *(r.text for r in run.results + shown_results if r.status == "raises")]
    absent = next(filter(None, (missing_module(text) for text in said)), None)
    if absent:
        # not the listing's fault: the sandbox could not give it a module it imports; nothing of it was checked.
        # The name is the listing's (an identifier): shown literally
        allowed = absent in ALLOWED_MODULES
        absent = markdown_literal(clean(absent))
        # exactly what happened: it did not load, so nothing ran; an error about certifying its results says nothing
        evidence.errors[:] = [e for e in evidence.errors if not e.startswith(NOT_CERTIFIED)]
        evidence.error_concern = ""
        evidence.errors.append(f"not run: the listing imports {absent} and uses it, and the listing sandbox cannot "
                               f"provide it (it offers the standard library and the packages installed beside "
                               f"chapter-audit), so the listing did not load and nothing it computes was run or checked")
        evidence.concern = "The listing was not run, so nothing it computes was checked."
        evidence.response = (f"To check it, {how_to_provide(absent)}; then rerun." if allowed else
                             f"{absent} is also outside what a listing may import ({ALLOWED_TEXT}): to check it, "
                             f"compute the measure without {absent}, or {how_to_provide(absent)} and expect the result "
                             "to be reported as not certified; then rerun.")
        return True
    from audit.text.listings import bound_earlier, given_in_prose
    unbound = _unbound_name(said, lambda name: bound_earlier(chapter.snapshot.text, listing, name))
    if unbound:
        # never the listing's fault: the text binds the name before it, in a way the audit did not bring along
        name, line = unbound
        evidence.errors.append(f"not checked: the listing uses {name}, which an earlier listing binds (snapshot line "
                               f"{line}), and it ran without it (NameError)")
        evidence.concern = "The listing was not run as the text runs it, so nothing it computes was checked."
        evidence.response = (f"Add the line that binds {name} (snapshot line {line}) to the claim's builds_on, or bind "
                             f"it at module level in that listing; then rerun.")
        return True
    # a name no listing binds and the text gives in its prose; one it gives nowhere is the listing's own mistake
    in_prose = _unbound_name(said, lambda name: given_in_prose(chapter.snapshot.text, name))
    if in_prose:
        # the listing reads a global the text gives in its prose ("Relevant: `[...]`"), not in code: every input
        # that reaches it raises a NameError, which says nothing about what the function computes
        name, line = in_prose
        evidence.errors.append(f"not checked: the listing uses {name}, which no listing binds; the text gives it in "
                               f"prose (snapshot line {line}), so the listing raised a NameError wherever it reads it")
        evidence.concern = "The listing was not run as the text runs it, so nothing it computes was checked."
        evidence.response = (f"The audit gives a listing only its parameters and what earlier listings bind: mark the "
                             f"claim `not checkable` with this reason, or check the values the text prints with "
                             f"value claims; a listing that binds {name} before this one would let it run.")
        return True
    if run.load_error:
        evidence.failures.append(Point(f"the listing does not load ({quote(LISTING_EXCEPTION, run.load_error)})",
                                       "Fix the listing so it runs as printed."))
        return True
    for v in run.violations:
        if v == UNSTEADY:  # an ordinary caller, calling it twice, gets two answers: at least one is wrong
            evidence.failures.append(Point(f"the listing {v}", "Make the function depend on its arguments alone: "
                                           "keep no state between calls and change nothing it is given."))
        else:
            evidence.failures.append(Point(f"the sandbox stopped the listing: it {v}",
                                           "Remove the side effect from the listing: it must only compute its value."))
    return False


def check(claim: CodeClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    book = ms.book
    prep = prepare(claim, chapter, evidence)
    claim, reading, calls, shown = prep.claim, prep.reading, prep.calls, prep.shown
    source, params, own_guards, listing = prep.source, prep.params, prep.guards, prep.listing
    # IDs of mixed type are outside the input a listing declares by its type hints (``ranking: list[str]``)
    binary = calls.grades == "binary"  # the text's grades are 0 and 1: generated input keeps to them
    edges = [text_calls.with_ids(e, calls) for e in edge_inputs(claim, binary)
             if not (e.label in ADVISORY and calls.ids_why.startswith("the type hint"))]
    scored_repeats = reading["repeated_ids"] != "reject"
    # an integer-ID text's IDs are often indexes into its own arrays of items: no long rankings of made-up IDs
    generated = [text_calls.with_ids(g, calls) for g in _generated(claim, SAMPLE, SEED, repeats=scored_repeats,
                                                                    long=calls.ids != "int", top=1 if binary else 3)]
    items = edges + generated
    deadline = time.monotonic() + CLAIM_BUDGET
    run, calls = _run_as_called(claim, source, params, items, shown, reading, calls, own_guards)
    said = text_calls.how_called(claim.function, claim.arguments, calls)
    if said:
        evidence.scopes.append(said)
    shown_results = run.results[len(items):]
    run.results = run.results[:len(items)]
    if prep.rebound and not run.load_error:
        _rerun_after_rebindings(prep, chapter.snapshot.text, shown_results, evidence)
    if settled_by_run(prep, run, shown_results, chapter, evidence):
        return evidence
    book_rule = book.repeated_id_rule(chapter.identity.id) if book else ""
    declared = chapter.declared_for(claim)
    stated_rule = declared.stated("repeated_ids")
    rule = f"{book_rule}'s rule" if book_rule else "the chapter's rule" if stated_rule else "as trec_eval does"
    fixes = {label: fix.format(rule=rule) if _cutoff_role(claim) else fix.format(rule=rule).replace(" before cutting at k", "")
             for label, _, _, _, fix in EDGES}
    fixes[GRADE_EDGE[0]] = GRADE_EDGE[-1]
    said_binary = binary_relevance(chapter.snapshot.text) if binary else None
    shown_inputs = [shown_input(claim, values) for values in shown]
    known = [(i, item) for i, item in enumerate(shown_inputs) if item is not None and not _repeats(item)]
    theirs = reference_values(claim, ms, [item for _, item in known], base_reading(declared))
    shown_refs = [{} for _ in shown]
    for (i, _), values in zip(known, theirs):
        shown_refs[i] = values
    sessions = session_calls(chapter.snapshot.text)
    undecided = _shown_calls(claim, shown, shown_results, base_reading(declared), book_rule, bool(stated_rule),
                             evidence, shown_refs, [c.call in sessions and unwrapped(c.call) == c.call
                                                    for c in claim.calls])  # round(…, 4) prints 4 decimals
    # Edge cases: one row each.
    edge_rows = []
    reading = base_reading(declared)
    conflicted = False
    failing = [(n, item) for n, (item, result) in enumerate(zip(edges, run.results))
               if not _repeats(item) and not _finite_value(result) and result.status in ("ok", "raises")]
    edge_refs = dict(zip((n for n, _ in failing),
                         reference_values(claim, ms, [item for _, item in failing], reading)))
    refused_edges: dict[Guard, list[tuple[str, str]]] = {}
    for n, (item, result) in enumerate(zip(edges, run.results)):
        expected = chapter_value(claim, item, reading)
        problem = _problem(result, expected, item, book_rule, stated_rule, _bounded(claim))
        guard = refusal(result, own_guards) if problem and expected != "rejects" else None
        if guard is not None:
            # outside what the listing claims: it checks this precondition and refuses the input on purpose
            refused_edges.setdefault(guard, []).append((item.label, result.text))
            edge_rows.append([item.label, described(claim, item), exact_text(expected), result.status,
                              f"refuses it by its own check ({_refused(guard, result)})"])
            continue
        said = references_text(edge_refs.get(n, {}))
        if problem and said:
            # an exception or a nan where readers' tools give a value: what they give is named
            problem += f", where {said}" if result.status == "raises" else f"; {said}"
        refused = result.status == "raises" and not problem  # a refusal the chapter allows is not agreement in value
        edge_rows.append([item.label, described(claim, item), "rejects" if expected == "rejects" else
                          exact_text(expected),
                          returned_text(result) if result.status == "ok" else result.status,
                          problem or ("refuses it, as the chapter rejects such a ranking" if refused and
                                      expected == "rejects" else "refuses k < 1, which the fix allows" if refused
                                      else "agrees")])
        if problem and item.label in ADVISORY and (result.status == "ok" or calls.ids == "int"):
            # No chapter (and no TREC file) defines IDs that are not text: how a listing compares 1 and "1" is
            # reported, never counted against it; nor is an exception on a text ID mixed in, where the text's own
            # calls pass integer IDs (an int() of it, an index into an array of items).
            evidence.scopes.append(f"on {item.label} ({described(claim, item)}) it {problem.replace(chr(39) + 's definition', chr(39) + 's text-ID reading')}"
                                   " — not counted: the chapter does not define IDs that are not text")
        elif problem and item.label == GRADE_EDGE[0] and said_binary:
            evidence.scopes.append(f"on {item.label} ({described(claim, item)}) it {problem} — not counted: the text's "
                                   f"relevance is binary (“{said_binary[:120]}”)")
        elif problem:
            fix = fixes[item.label]
            if "per-query values" in claim.arguments.values() and not any(_call(params, claim, item, reading, calls)):
                fix = ("return 0.0 when given no per-query values (the chapter's definitions give none for a run "
                       "whose one query is dropped)")
            evidence.conditions.append(Point(f"on {item.label} ({described(claim, item)}) it {problem}", fix))
            if expected == "rejects" and book is not None and not conflicted:
                conflicted = True  # one book-level conflict per listing, on the first repeated-ID case
                head = problem.split(" where ")[0] if result.status == "ok" else problem  # never cut inside a quote
                book.conflict(chapter.identity.id, claim.id, f"{claim.function}() {head} "
                              f"on a ranking that repeats an ID ({described(claim, item)})")
    first, last = _function_lines(listing, claim.function)
    place = chapter.snapshot.place(first)
    evidence.checks.append(Check(label=f"{claim.function}() (snapshot lines {first}–{last}"
                                       + (f"; {place}" if place else "") + ") on the edge cases; "
                                       f"run in {run.isolation}",
                                 measure=claim.measure, table=[["edge case", "input", "chapter", "listing", "finding"]]
                                 + edge_rows))
    # Generated input, against the chapter and every reference: the inputs its own checks refuse are outside what
    # it claims, and it is compared on the others
    gen_results = run.results[len(edges):]
    refused_generated = [(i, r, refusal(r, own_guards)) for i, r in zip(generated, gen_results)]
    refused_generated = [(i, r, g) for i, r, g in refused_generated
                         if g is not None and not _agrees(r, chapter_value(claim, i, reading))]
    if refused_generated:
        out = {id(i) for i, _, _ in refused_generated}
        accepted = [(i, r) for i, r in zip(generated, gen_results) if id(i) not in out]
        generated, gen_results = [i for i, _ in accepted], [r for _, r in accepted]
    refusal_notes = _refusal_notes(claim, refused_edges, refused_generated, len(generated) + len(refused_generated))
    evidence.scopes.extend(refusal_notes)
    # a listing cannot pass certification by refusing the inputs it is checked on: of the ordinary ones (k within a
    # ranking that retrieves something relevant, no repeated ID), it must accept most
    ordinary = [i for i in [*generated, *(i for i, _, _ in refused_generated)]
                if not (_past_end(i) or _edge_like(i) or _repeats(i))]
    refused_ordinary = [i for i, _, _ in refused_generated if not (_past_end(i) or _edge_like(i) or _repeats(i))]
    if refused_ordinary and len(refused_ordinary) > REFUSED_AT_MOST * len(ordinary):
        evidence.conditions.append(Point(
            f"it refuses {len(refused_ordinary)} of the {len(ordinary)} ordinary generated inputs (k within a "
            "ranking that retrieves something relevant) by its own checks, so what it computes was compared on "
            f"{len(generated)} of {len(generated) + len(refused_generated)} generated inputs only; the smallest "
            f"refused, {described(claim, min(refused_ordinary, key=lambda i: (_size(i), described(claim, i))))}, "
            "where the chapter's definition and the references give a value",
            "Compute the measure on every well-formed input readers pass (the references give a value on each), or "
            "state in the text which inputs the function takes."))
    bad = [(i, r) for i, r in zip(generated, gen_results) if not _agrees(r, chapter_value(claim, i, reading))]
    for point in undecided if bad else []:  # wrong on generated input: the listing may be at fault on the call too
        point.wording = point.wording[:-1] + ", or correct the listing."
    follows: list = []
    ref_rows = _references(claim, ms, generated, gen_results, reading, follows)
    apart = stated_apart(claim, declared, reading, follows)
    evidence.checks.append(Check(label=f"{claim.function}() on {len(generated)} generated well-formed inputs "
                                       + ("(a third repeating one ID, which the chapter's rule scores; the "
                                          "references are compared on the others; " if scored_repeats and
                                          not _multi(claim) and sees_ids(claim)
                                          else "(distinct IDs, ")
                                       + f"non-empty relevant set; seed {SEED})",
                                 measure=claim.measure, values=ref_rows))
    stopped = [r for r in gen_results if r.status == "not run"]
    if stopped and not any(r.status != "not run" for _, r in bad):
        evidence.failures.append(Point(
            f"not tried on every input: {len(stopped)} of {len(generated)} generated inputs were not run "
            f"({stopped[0].detail}; {CALL_LIMIT:g} s per call, {CLAIM_BUDGET:g} s for the listing)",
            "Make the listing finish promptly on every input."))
        return evidence
    if stopped:
        # the inputs it did run already show it wrong: that is the finding, whatever the others would have shown
        evidence.notes.append(f"{len(stopped)} of {len(generated)} generated inputs were not run "
                              f"({stopped[0].detail}); the finding rests on the {len(generated) - len(stopped)} that were")
        kept = [(i, r) for i, r in zip(generated, gen_results) if r.status != "not run"]
        generated, gen_results = [i for i, _ in kept], [r for _, r in kept]
        bad = [(i, r) for i, r in bad if r.status != "not run"]
    if not generated:
        return evidence  # every generated input refused: nothing it computes was compared (said above)
    if bad and (run.violations or prep.uncertified):
        return evidence  # the sandbox's verdict, or the listing's text, is the finding; no shrinking
    found = listing_reading(claim, generated, gen_results, reading) if bad else []
    if found and not any(declared.stated(n) or not declared.reads(n, v) for n, v in found):
        # where it returns a number it follows a reading the text leaves open (and someone uses): qualified, as a
        # printed value under such a reading is, not wrong; what remains (exceptions) is judged below
        settings = " and ".join(f"{CONVENTIONS[n].title} “{v}”" for n, v in found)
        evidence.conditions.append(Point(
            f"where it returns a number it computes {claim.measure} with {settings}, {FOLLOWS_OPEN_READING} give the "
            f"listing's value on every generated input where it "
            f"returns one; " + "; ".join(f"{CONVENTIONS[n].title}: {CONVENTIONS[n].source}" for n, _ in found) + ")",
            "State the convention the listing follows, e.g. “Here "
            + "; ".join(CONVENTIONS[n].phrase(v) for n, v in found) + ".”"))
        evidence.lead = ""
        bad = [(i, r) for i, r in bad if r.status != "ok"]
    rounding = _rounding(claim, generated, gen_results, reading) if bad and not found else None
    if rounding:
        # it computes the measure and rounds it for display: qualified by the places it keeps, never wrong
        evidence.conditions.append(rounding)
        evidence.lead = ""
        bad = [(i, r) for i, r in bad if r.status != "ok"]
    # an exception only where k is past the end of a ranking is of the edge case's kind too
    edgy = [(i, r) for i, r in bad if _edge_like(i) or _repeats(i) or (r.status == "raises" and _past_end(i))]
    if bad and len(edgy) == len(bad):
        # it fails only on inputs of the edge cases' kinds (a repeated ID, nothing relevant in the first k, nothing
        # retrieved, k past the end of the ranking where it raises): qualified as the edge cases are, not wrong on
        # ordinary input
        smallest, result = min(edgy, key=lambda pair: (_size(pair[0]), described(claim, pair[0])))
        expected = chapter_value(claim, smallest, reading)
        kinds = " or ".join(dict.fromkeys(("repeating an ID" if _repeats(i) else
                                            "retrieving nothing" if _retrieves_nothing(i) else
                                            "retrieving nothing relevant" if _edge_like(i) else
                                            "with k past the end of the ranking")
                                           for i, _ in edgy))
        said = references_text(reference_values(claim, ms, [smallest], reading)[0]) \
            if not _repeats(smallest) and not _finite_value(result) else ""
        evidence.conditions.append(Point(
            f"on {len(edgy)} of {len(generated)} generated inputs, each {kinds}, it disagrees with the chapter's "
            f"definition; the smallest, {described(claim, smallest)}: it "
            f"{_problem(result, expected, smallest, book_rule, stated_rule, _bounded(claim))}"
            + (f" where the chapter's definition gives {exact_text(expected)}"
               if result.status != "ok" and not isinstance(expected, str) else "")
            + (f" ({said})" if said else ""),
            fixes["repeated ID before the cutoff"] if _repeats(smallest) else
            fixes["empty ranking"] if _retrieves_nothing(smallest) else
            "return 0.0 when nothing relevant is found" if _edge_like(smallest) else
            fixes["k larger than the ranking"]))
        bad = []
    if bad:
        if len(bad) == len(generated):
            # Wrong everywhere: the smallest generated input is as telling as a shrunk one.
            smallest, result = min(bad, key=lambda pair: (_size(pair[0]), described(claim, pair[0])))
            how = "the smallest of them"
        else:
            smallest, result, finished = _minimal(claim, source, params, bad[0][0], bad[0][1], deadline, reading,
                                                  own_guards, calls)
            how = "the smallest" if finished else (f"the smallest found before the listing's {CLAIM_BUDGET:g} s "
                                                   "time limit ran out")
        expected = chapter_value(claim, smallest, reading)
        settings = " and ".join(f"{CONVENTIONS[n].title} “{v}”" for n, v in found)
        chapters = " and ".join(f"{CONVENTIONS[n].title} “{reading[n]}”" for n, _ in found)
        cause = (f"; where it returns a number it computes {claim.measure} with {settings}, where the chapter's is "
                 f"{chapters} (the chapter's definitions set so give the listing's value on every such input)"
                 if found else "")
        fixes = [CONVENTIONS[n].phrase(reading[n]) for n, _ in found]
        shift = cutoff_shift(claim, generated, gen_results, reading) if not found else None
        order = score_order(claim, generated, gen_results, reading) if not found and not shift else ""
        named = named_computation(claim, generated, gen_results, reading) if not found and not shift and not order \
            else None
        if named:
            computation, changed = named
            also = computes.changes_text(changed)
            cause = (f"; where it returns a number {computation.cause}"
                     + (f"; and with {also}" if also else "")
                     + " (that computation gives the listing's value on every such input)")
            fixes.append(computation.fix)
            fixes += [CONVENTIONS[n].phrase(reading[n]) for n in changed]
        if order:
            cause = ("; where it returns a number it ranks the documents "
                     + ("in the order their scores are listed, not by score" if order == "listed" else
                        "by score lowest first, not highest first")
                     + " (the chapter's definitions on that order give the listing's value on every such input)")
            fixes.append("it sorts the documents by score, highest first, before ranking them"
                         + (" (sorted(…, reverse=True))" if order == "ascending" else ""))
        if shift:
            late = shift > 0
            cause = (f"; where it returns a number it applies the cutoff {abs(shift)} rank{'s' * (abs(shift) > 1)} "
                     f"{'late' if late else 'early'}: it scores the first k {'+' if late else '−'} {abs(shift)} "
                     f"documents (the chapter's definitions at k {'+' if late else '−'} {abs(shift)} give the "
                     "listing's value on every such input)")
            fixes.append(f"it keeps the first k documents (ranking[:k]), not the first k {'+' if late else '−'} "
                         f"{abs(shift)}")
        if result.status == "raises":
            fixes.append(f"it returns {exact_text(expected)} on {described(claim, smallest)}, where it raises"
                         if not isinstance(expected, str) else "it does not raise on ordinary input")
        evidence.failures.append(Point(
            f"wrong on ordinary input: {len(bad)} of {len(generated)} generated inputs disagree with the chapter's "
            f"definition of {claim.measure}; {how}, {described(claim, smallest)}: it "
            f"{_problem(result, expected, smallest, book_rule, stated_rule, _bounded(claim))}{cause}",
            ("Correct the listing so that " + "; ".join(fixes) + ".") if fixes else
            "Correct the listing so it computes the measure as the chapter defines it."))
        return evidence
    evidence.scopes.append(f"{claim.function}() matches the chapter's definition of {claim.measure} on all "
                           f"{len(generated)} generated well-formed inputs (seed {SEED})"
                           + "".join(f"; {v.implementation} agrees on {v.detail}" for v in ref_rows if v.status == "ok")
                           + f", and on {sum(1 for r in edge_rows if r[-1] == 'agrees' or r[-1].startswith('refuses'))} of {len(edge_rows)} edge cases")
    if takes_no_ids(claim):
        # never a qualification: the function cannot be given an ID, so the rule is its caller's to keep
        evidence.scopes.append(f"{claim.function}() takes no document IDs, so a ranking that repeats one never reaches "
                               "it: reject or drop the repeat where its input is built")
    if evidence.conditions:
        evidence.lead = "It matches on well-formed input, but "
        evidence.concern = ("Readers who copy the listing get an exception or a wrong value on inputs they will "
                            "meet in practice.")
        fixes_text = "; ".join(dict.fromkeys(p.wording for p in evidence.conditions))
        for point in evidence.conditions:
            point.wording = ""
        evidence.conditions[0].wording = f"Fix the listing: {fixes_text}."
        unread = [n for n in evidence.notes if n.startswith("the text's example ")]
        if unread and not evidence.failures:  # a qualified reason shows no notes: these are said with it
            last = evidence.conditions[-1]
            last.text = last.text.rstrip(".") + "; " + "; ".join(unread)
        if evidence.failures:
            # what the text prints after its calls is wrong, and the listing only on edge cases: the verdict is the
            # printed values', and the reason, the concern and the fix say both (the corrected listing makes both)
            evidence.failures.append(Point(evidence.lead + "; ".join(p.text.rstrip(".") for p in evidence.conditions),
                                           evidence.conditions[0].wording))
            evidence.conditions = []
            evidence.concern = ("Readers who run the calls the text shows get other values than it prints, and "
                                "readers who copy the listing get an exception or a wrong value on edge cases they "
                                "will meet in practice.")
    if apart and evidence.conditions and not evidence.failures:
        # a qualified reason shows neither scope nor notes: the stated variant's references are said with its finding
        last = evidence.conditions[-1]
        last.text = last.text.rstrip(".") + "; also, " + "; ".join(apart)
    return evidence


_NAME_ERROR = re.compile(r"NameError: name '([A-Za-z_]\w*)' is not defined")


def _unbound_name(said: list[str | None], where) -> tuple[str, int] | None:
    """``(name, snapshot line)`` for the first NameError the listing raised (``said``: its load error and the
    exceptions of its calls) on a name ``where(name)`` finds bound in the text (an earlier listing's line, the prose's
    line); else None."""
    for one in said:
        m = _NAME_ERROR.match(one or "")
        if m:
            line = where(m.group(1))
            if line is not None:
                return m.group(1), line
    return None


def _refused(guard: Guard, result: CallResult) -> str:
    """A refusal as the report shows it: the listing's check and its exception, each quoted as the listing's text."""
    return f"{quote(LISTING_CHECK, guard.wording())}, {quote(LISTING_EXCEPTION, result.text)}"


def _refusal_notes(claim: CodeClaim, edges: dict[Guard, list[tuple[str, str]]], generated: list,
                   total: int) -> list[str]:
    """One note for each of the listing's own checks that refused an input: the edge cases and the number of generated
    inputs it refused, which are outside what the listing claims to compute."""
    out = []
    for guard in dict.fromkeys([*edges, *(g for _, _, g in generated)]):
        mine = [(i, r) for i, r, g in generated if g == guard]
        labels = [label for label, _ in edges.get(guard, [])]
        what = [f"the edge case{'s' * (len(labels) > 1)} " + ", ".join(labels)] if labels else []
        if mine:
            what.append(f"{len(mine)} of {total} generated inputs")
        text = mine[0][1].text if mine else edges[guard][0][1] if labels else None
        out.append(f"{claim.function}() checks its arguments and refuses {' and '.join(what)} on purpose ("
                   + quote(LISTING_CHECK, guard.wording())
                   + (f", {quote(LISTING_EXCEPTION, text)}" if text else "")
                   + "): inputs outside what it computes, not counted against it")
    return out
