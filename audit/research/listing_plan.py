"""The hunk for a listing: its corrected definition (the author's docstring and comments kept, one definition
replaced in the listing the claim is on), re-checked on every generated input, and the printed results of its shown
calls corrected to what the corrected listing returns."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from audit.attribution.verdict import decide
from audit.errors import AuditError
from audit.evaluation.checks import CHECKERS
from audit.evaluation.checks.common import Measurements
from audit.register.claims import Chapter
from audit.model.values import parse_claimed
from audit.text.listings import in_force
from audit.model.results import ClaimResult
from audit.research.register_edit import Edit
from audit.research.outcomes import Skip, Withdrawn


def code_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, snapshot: str, start: int,
              rechecks) -> dict:
    """A corrected listing: the function rewritten from the chapter's definition in the listing's signature
    (``audit.research.listing_fix``), the values printed after the calls the text shows brought in line with it, and
    the claim re-run on the patched chapter — the same differential test as the listing's, edge cases, generated
    input, references and shown calls — which must be supported before the listing is printed."""
    import ast

    from audit.evaluation.checks.code import (
        FOLLOWS_OPEN_READING,
        _function_lines,
        chapter_value,
        printed_holds,
        printed_like,
        session_calls,
        shown_input,
        takes_no_ids,
    )
    from audit.evaluation.readings import base_reading
    from audit.register.claims import parameter_defaults, shown_arguments
    from audit.evaluation.checks.text_calls import unregistered_examples
    from audit.research.listing_fix import NotWritten, write
    from audit.text.doctests import unwrapped
    from audit.text.listings import function_source

    if FOLLOWS_OPEN_READING in r.reason:
        raise Skip("the listing follows a reading the text leaves open; the finding says which convention to state")
    if claim.returns:
        raise Skip("a listing returning several values, or a statistic, gets the finding's fixes without a rewrite")
    printed = re.findall(r"Change “(.+?)” to “(.+?)” after the call\.", r.response)
    if printed and "Wrong on ordinary input" not in r.reason and "It matches on well-formed input, but" not in r.reason:
        return _printed_plan(claim, chapter, ms, snapshot, start, rechecks, dict(printed))
    listing, source = function_source(snapshot, claim.quote, claim.function, claim.builds_on, claim.occurrence)
    reading = base_reading(chapter.declared_for(claim))
    try:
        rewrite = write(claim, reading, source)
    except NotWritten as exc:
        raise Skip(str(exc))
    first, last = _function_lines(listing, claim.function)
    lines = snapshot.split("\n")
    node = next(n for n in ast.parse(listing.code).body if isinstance(n, ast.FunctionDef) and n.name == claim.function)
    code_line = listing.code.split("\n")[node.lineno - 1]
    prefix = lines[first - 1][:len(lines[first - 1]) - len(code_line)] if lines[first - 1].endswith(code_line) else ""
    new_lines = rewrite.source.rstrip("\n").split("\n")
    kept = _kept_docstring(listing, node, lines, new_lines)
    if kept is not None:
        new_lines = kept.lines
    if rewrite.needs_math and not re.search(r"^\s*import math\b", source, re.M):
        new_lines = ["import math", "", ""] + new_lines
    function_text = "\n".join(prefix + line if line else "" for line in new_lines)
    a = sum(len(line) + 1 for line in lines[:first - 1])
    b = sum(len(line) + 1 for line in lines[:last]) - 1
    if kept is not None:
        function_text = function_text.replace(prefix + _DOCSTRING_MARK, snapshot[kept.start:kept.end], 1)
    if [line.rstrip() for line in snapshot[a:b].split("\n")] == [line.rstrip() for line in function_text.split("\n")]:
        raise Skip("the listing is already the corrected listing; what is left is not the function's to change (the "
                   "finding says what)")
    spans = [(a, b, function_text)]
    new_claim = claim.model_copy(update={"arguments": rewrite.arguments, "quote": rewrite.source.split("\n")[0]})
    edits = [Edit(claim.id, "quote", new_claim.quote)] if new_claim.quote != claim.quote else []
    if dict(rewrite.arguments) != dict(claim.arguments):  # an unchanged entry is not rewritten in another style
        edits.append(Edit(claim.id, "arguments", rewrite.arguments))
    defaults = parameter_defaults(rewrite.source, claim.function)
    params = [x.arg for x in ast.parse(rewrite.source).body[0].args.args]
    changed = []
    calls = []
    sessions = session_calls(snapshot)
    # the text's own examples of the function that the register does not hold are re-checked too (a corrected
    # listing must still give what its doctests print, or they are corrected with it); they change no register entry
    after = listing_offset(snapshot, claim)
    extra = []
    for c in unregistered_examples(snapshot, claim.function, claim.calls, after, _next_definition(snapshot, claim)):
        try:
            shown_arguments(new_claim, c.call, params, defaults, c.given)
        except AuditError:
            continue
        extra.append(c)
    for i, c in [*enumerate(claim.calls), *((None, c) for c in extra)]:
        calls.append(c)
        if c.returns is None:
            continue
        item = shown_input(new_claim, shown_arguments(new_claim, c.call, params, defaults, c.given))
        value = chapter_value(new_claim, item, reading) if item is not None else None
        printed = parse_claimed(c.returns, tolerance=c.tolerance)
        if value is None or isinstance(value, str) or printed_holds(printed, value):
            continue
        # doctest prints the float (round(f(…), 4) its value at the printed precision)
        new = printed.write_like(value) if c.call not in sessions or unwrapped(c.call) != c.call \
            else repr(float(value))
        new = printed_like(new, c)
        spans.append(_printed_span(snapshot, c, new, after))
        if i is not None:
            edits.append(Edit(claim.id, f"calls.{i}.returns", new))
        calls[-1] = c.model_copy(update={"returns": new})
        changed.append((str(c.returns), new))
    new_claim = new_claim.model_copy(update={"calls": calls})
    if kept is not None:
        # a corrected output inside the kept docstring (a doctest's) is made in the corrected listing's copy of it
        inside = sorted((x, y, t) for x, y, t in spans[1:] if kept.start <= x and y <= kept.end)
        doc = snapshot[kept.start:kept.end]
        for x, y, t in reversed(inside):
            doc = doc[:x - kept.start] + t + doc[y - kept.start:]
        function_text = "\n".join(prefix + line if line else "" for line in new_lines).replace(
            prefix + _DOCSTRING_MARK, doc, 1)
        spans = [(a, b, function_text)] + [span for span in spans[1:] if span not in inside]
        if any(x < b and a < y for x, y, _ in spans[1:]):
            raise Skip("a value printed after a call inside the function could not be placed in its docstring; the "
                       "finding gives it")
    occurrence = one_definition(snapshot, spans, claim.quote, new_claim.quote, claim.function, claim.occurrence)
    if occurrence != claim.occurrence:
        # the corrected listing's def line may now be printed by more (or fewer) listings: the claim still means it
        new_claim = new_claim.model_copy(update={"occurrence": occurrence})
        edits.append(Edit(claim.id, "occurrence", occurrence))
    what = "recheck listing " + json.dumps([rewrite.source, [e.as_dict() for e in edits]], ensure_ascii=False)
    verdict = _recheck_listing(new_claim, chapter, ms, snapshot, spans, rechecks, what)
    if verdict != "supported":
        raise Withdrawn(f"the corrected listing, run through the same differential test, is {verdict}, not supported")
    added = (f" It takes the judged grades as `{rewrite.added}` (optional: without it the ranked grades are all of "
             "them), which the signature could not see." if rewrite.added else "")
    if takes_no_ids(new_claim):
        added += (" A ranking that repeats an ID cannot reach a function without document IDs: reject or drop the "
                  "repeat where its input is built.")
    # the finding's own wording (each defect and its fix) stays first; the corrected listing is how to make it
    # where a fix offers two ways, say which the corrected listing takes (read off its own code)
    choices = []
    if "repeats an ID" in r.response:
        choices.append("it rejects a ranking that repeats an ID" if "may not repeat" in rewrite.source else
                       "it counts each ID once, where it first appears" if "dict.fromkeys(" in rewrite.source and
                       "reversed(" not in rewrite.source else "it counts each ID once, where it last appears"
                       if "reversed(" in rewrite.source else "")
    if "for k = 0" in r.response:
        choices.append("it rejects k < 1" if "must be at least 1" in rewrite.source else "it returns 0 for k = 0")
    choices = [c for c in choices if c]
    base = r.response.rstrip()
    response = ((base if base.endswith((".”", "!”", "?”")) else base.rstrip(".") + ".")
                + " The corrected listing makes these fixes"
                + (f" ({'; '.join(choices)})" if choices else "") + ": replace "
                f"{claim.function}() by it" + (" and print " + ", ".join(f"“{n}” for “{o}”" for o, n in changed)
                                                 + " after the call" if changed else "") + "." + added)
    return dict(action="correct a listing", replaced=snapshot[a:b], text=function_text, edits=edits,
                span=(a - start, b - start), more=spans[1:],
                check="re-checked: the corrected listing, run through the same differential test (edge cases, "
                      "generated input against the chapter's definitions and every reference, the calls the text "
                      "shows), is supported",
                response=response,
                rationale=f"{r.concern} The listing is rewritten from the chapter's definition of {claim.measure}.",
                tradeoff="The listing's body changes; its name, parameters and what the text says it computes stay.")


_DOCSTRING_MARK = "\x00docstring\x00"


@dataclass(frozen=True)
class _Kept:
    """The listing's docstring, kept in its corrected listing: ``lines``, the rewrite's lines with the docstring's
    place marked (``_DOCSTRING_MARK``), and the docstring's span in the snapshot (``start``, ``end``: its first line's
    start to its last line's end, as printed)."""

    lines: list[str]
    start: int
    end: int


def _kept_docstring(listing, node, lines: list[str], new_lines: list[str]) -> "_Kept | None":
    """Where the rewrite of a function keeps the listing's own docstring (its prose and its ``>>>`` examples): after
    the rewrite's ``def`` line, in place of the rewrite's own docstring, exactly as printed. None when the function has
    no docstring on lines of its own, or the rewrite's body is indented otherwise than the docstring (re-indenting
    would change the docstring's text)."""
    import ast

    body = node.body
    if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        return None
    doc = body[0]
    code = listing.code.split("\n")
    if doc.lineno <= node.lineno or code[doc.lineno - 1][:doc.col_offset].strip() or \
            code[doc.end_lineno - 1][doc.end_col_offset:].strip() or \
            (len(body) > 1 and body[1].lineno == doc.end_lineno):
        return None
    try:
        tree = ast.parse("\n".join(new_lines))
    except SyntaxError:
        return None
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == node.name), None)
    if fn is None:
        return None
    rest = fn.body[1:] if (isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant)
                           and isinstance(fn.body[0].value.value, str)) else fn.body
    if not rest or rest[0].col_offset - fn.col_offset != doc.col_offset - node.col_offset:
        return None
    head = new_lines[:fn.body[0].lineno - 1]
    kept = head + [_DOCSTRING_MARK] + new_lines[rest[0].lineno - 1:]
    first = listing.start + doc.lineno - 1  # 1-based snapshot lines
    last = listing.start + doc.end_lineno - 1
    start = sum(len(line) + 1 for line in lines[:first - 1])
    end = sum(len(line) + 1 for line in lines[:last]) - 1
    return _Kept(kept, start, end)


def one_definition(snapshot: str, spans, old_quote: str, new_quote: str, function: str,
                   occurrence: int | None = None) -> int | None:
    """The patched listing must parse and define the function as often, and as deeply, as the listing did: a rewrite
    placed over part of the old function would leave one ``def`` inside another. The listing before is the one the
    claim means (``claimed_listing``, by its ``occurrence``), the one after is the listing of the patched text where
    the first of ``spans`` (the function's) starts: never another listing printing the same ``def`` line. Returns the
    ``occurrence`` the claim needs in the patched text (None when its new quote is printed by that listing alone).
    Raises ``Withdrawn`` otherwise."""
    import ast

    from audit.errors import AuditError
    from audit.text.listings import claimed_listing, find_listings, holds, occurrence_of

    def counted(listing):
        try:
            tree = ast.parse(listing.code)
        except SyntaxError as exc:
            raise Withdrawn(f"the patched listing is not valid Python ({exc.msg}, listing line {exc.lineno})")
        named = (ast.FunctionDef, ast.AsyncFunctionDef)
        total = sum(1 for n in ast.walk(tree) if isinstance(n, named) and n.name == function)
        nested = sum(1 for outer in ast.walk(tree) if isinstance(outer, named)
                     for n in ast.walk(outer) if n is not outer and isinstance(n, named) and n.name == function)
        return total, nested

    patched = snapshot
    for x, y, text in sorted(spans, reverse=True):
        patched = patched[:x] + text + patched[y:]
    line = patched.count("\n", 0, spans[0][0]) + 1
    listings = find_listings(patched)
    place = next((i for i, item in enumerate(listings) if item.start <= line <= item.end), None)
    if place is None or not holds(listings[place], new_quote):
        raise Withdrawn("the corrected listing could not be found again in the patched text")
    after = counted(listings[place])
    try:
        old = find_listings(snapshot)
        before = counted(old[claimed_listing(old, old_quote, function, occurrence)])
    except AuditError:
        before = None
    if after[0] < 1 or (before is not None and (after[0] > before[0] or after[1] > before[1])) or \
            (before is None and after != (1, 0)):
        raise Withdrawn(f"the patched listing would define {function}() {after[0]} time(s), {after[1]} inside "
                        "another function; the finding says what to change in it")
    return occurrence_of(listings, place, new_quote, function)


def listing_offset(snapshot: str, claim) -> int:
    """Where the listing a code claim means starts in ``snapshot`` (0 when it cannot be told)."""
    return in_force(snapshot, claim.quote, claim.function, claim.occurrence)[0]


def _next_definition(snapshot: str, claim) -> int | None:
    """Where the next listing that defines the claim's function again starts, or None."""
    return in_force(snapshot, claim.quote, claim.function, claim.occurrence)[1]


def _printed_span(snapshot: str, call, new: str, after: int = 0) -> tuple[int, int, str]:
    """The span of the value the text prints after a shown call (``call``: the claim's ``calls`` entry) and the text
    that replaces it; ``after``: the offset of the listing the claim means (its call is looked for there first, not at
    a call of an earlier version of the function). Raises ``Skip`` when it cannot be placed."""
    from audit.text.coverage import printed_after, printed_in_block
    from audit.text.doctests import place
    at = place(snapshot, call.call, call.given, after) or 0  # the place where its names are bound as the claim says
    found = printed_after(snapshot, call.call, str(call.returns), at)
    # a pass of a printing loop: its call is printed with the loop's name, its line is in the output block
    where = found[1] if found is not None else printed_in_block(snapshot, call.call, str(call.returns))
    if where is None:
        raise Skip(f"the value printed after `{call.call}` cannot be placed in the text; the finding gives it")
    return where, where + len(str(call.returns)), new


def _recheck_listing(new_claim, chapter: Chapter, ms: Measurements, snapshot: str, spans, rechecks, what: str) -> str:
    """The code claim's verdict on the chapter with ``spans`` ((start, end, text) in ``snapshot``) replaced, the
    same differential test as the listing's; kept in ``rechecks`` under ``what``."""
    import dataclasses

    from audit.text.chapter import Snapshot

    stored = rechecks.get(new_claim.id, what) if rechecks is not None else None
    if stored is not None and stored.get("verdict") in ("supported", "qualified", "contradicted", "error"):
        return stored["verdict"]
    patched = snapshot
    for x, y, text in sorted(spans, reverse=True):
        patched = patched[:x] + text + patched[y:]
    trial = dataclasses.replace(chapter, snapshot=Snapshot(chapter.snapshot.path, patched))
    verdict = decide(CHECKERS["code"](new_claim, trial, ms)).verdict
    if rechecks is not None:
        rechecks.put(new_claim.id, what, {"verdict": verdict})
    return verdict


def _printed_plan(claim, chapter: Chapter, ms: Measurements, snapshot: str, start: int, rechecks,
                  changes: dict[str, str]) -> dict:
    """The values printed after the calls the text shows, where only they are wrong (the listing agrees with the
    chapter's definitions on every input): each replaced by the value the call returns, printed the same way, and the
    claim re-run on the patched chapter, which must be supported."""
    from audit.evaluation.checks.text_calls import unregistered_examples

    spans, edits, calls = [], [], []
    # (``start``, the offset the returned span counts from, is the caller's; the listing's own place is another)
    first, end = in_force(snapshot, claim.quote, claim.function, claim.occurrence)
    # the text's own examples the register does not hold are checked too (code.own_examples): their printed values
    # are corrected in the text alone
    extra = unregistered_examples(snapshot, claim.function, claim.calls, first, end)
    for i, c in [*enumerate(claim.calls), *((None, c) for c in extra)]:
        if i is not None:
            calls.append(c)
        new = changes.get(str(c.returns)) if c.returns is not None else None
        if new is None:
            continue
        span = _printed_span(snapshot, c, new, first)
        if span in spans:
            continue
        spans.append(span)
        if i is not None:
            edits.append(Edit(claim.id, f"calls.{i}.returns", new))
            calls[-1] = c.model_copy(update={"returns": new})
    if not spans:
        raise Skip("no printed value to correct was found after the calls the text shows")
    new_claim = claim.model_copy(update={"calls": calls})
    what = "recheck printed " + json.dumps([[x, y, t] for x, y, t in spans], ensure_ascii=False)
    verdict = _recheck_listing(new_claim, chapter, ms, snapshot, spans, rechecks, what)
    if verdict != "supported":
        raise Withdrawn(f"with the printed values corrected, the claim is {verdict}, not supported")
    (x, y, text), more = spans[0], spans[1:]
    return dict(action="correct a value after a call", replaced=snapshot[x:y], text=text, edits=edits,
                span=(x - start, y - start), more=more,
                check="re-checked: with the values the calls return printed after them, the listing's claim is "
                      "supported (the same differential test: edge cases, generated input, references, shown calls)",
                response="Print what the calls return: " + ", ".join(f"“{n}” for “{o}”" for o, n in changes.items())
                         + ". The listing itself is right.",
                rationale="The text's own example prints a value the listing does not return.",
                tradeoff="Only the printed values change; the listing stays as it is.")
