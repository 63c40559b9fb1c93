"""The calls a text shows of its listing and what it prints for them (an example, a doctest, a session's output):
each is run as printed and held to what the text prints and to the chapter's definitions on the same input."""

from __future__ import annotations

from collections.abc import Mapping
import math
import re
from dataclasses import replace
from fractions import Fraction

from audit.model.evidence import Evidence, Point
from audit.evaluation import definitions
from audit.evaluation.checks import computes
from audit.evaluation.sandbox import CallResult
from audit.evaluation.sandbox.quote import quote
from audit.evaluation.checks.refusals import refusal
from audit.evaluation.checks import text_calls
from audit.errors import AuditError
from audit.text.listings import in_force
from audit.register.claims import SCORED_ROLES, CodeClaim, shown_arguments
from audit.model.values import NUMPY_SCALAR, parse_claimed, parse_claimed_parts
from audit.model.results import Check
from audit.evaluation.checks.code_inputs import (  # noqa: F401
    Input,
    LISTING_EXCEPTION,
    _agrees,
    _bounded,
    _entries,
    _expected_entries,
    _measure,
    _problem,
    chapter_value,
    exact_text,
    graded_input,
    references_text,
    returned_text,
    run_input,
)


def shown_input(claim: CodeClaim, values: Mapping[str, object]) -> Input | None:
    """The chapter's input for a call the text shows (its arguments by parameter name): the ranking, relevant set,
    cutoff, grades in rank order (documents named r1, r2 … when no ranking is given) or judgements the call passes;
    None when its arguments are not of those shapes."""
    by_role = {role: values[p] for p, role in claim.arguments.items() if p in values}
    try:
        item = _shown_input(by_role)
        if item is None or "cutoffs" not in by_role:
            return item
        cutoffs = tuple(by_role["cutoffs"])
        if any(isinstance(c, bool) or not isinstance(c, int) for c in cutoffs):
            return None
        return replace(item, cutoffs=cutoffs)
    except (TypeError, ValueError):
        return None


def _by_score(scored) -> tuple:
    """The documents of a {document: score} mapping or (document, score) pairs, highest score first (equal scores
    in the order listed)."""
    pairs = list(dict(scored).items()) if isinstance(scored, Mapping) else [tuple(pair) for pair in scored]
    return tuple(d for d, _ in sorted(pairs, key=lambda pair: -float(pair[1])))


def _judgements(value) -> dict[str, int] | None:
    """One query's judgements as a shown call passes them: a {document: grade} mapping, or its relevant documents
    alone in a set, list or tuple (each judged 1); None for anything else, which is no input the chapter's
    definitions can score (a set is never read as pairs: ``dict({"d3"})`` would judge document "d" 3)."""
    if isinstance(value, Mapping):
        if not all(isinstance(g, (int, float)) and not isinstance(g, bool) and float(g).is_integer()
                   for g in value.values()):
            return None
        return {str(d): int(g) for d, g in value.items()}
    if isinstance(value, (set, frozenset, list, tuple)):
        return {str(d): 1 for d in value}
    return None


def _shown_input(by_role: dict) -> Input | None:
    k = by_role.get("cutoff")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int)):
        return None
    if "per-query values" in by_role:
        return None  # the values are the input: the chapter's definitions have no ranking to score
    if "ranked grades by query" in by_role:
        queries = [(f"q{j}", graded_input(tuple(f"r{i}" for i in range(1, len(grades) + 1)),
                                          {f"r{i}": int(g) for i, g in enumerate(grades, start=1)}, None, "shown"))
                   for j, grades in enumerate(by_role["ranked grades by query"], start=1)]
        return run_input(queries, k, "shown")
    for role in SCORED_ROLES:
        if role in by_role:
            by_role = {**by_role, "ranking": _by_score(by_role[role])}
    if "qrels by query" in by_role:
        if not isinstance(by_role["qrels by query"], Mapping):
            return None
        judged = {str(q): _judgements(j) for q, j in by_role["qrels by query"].items()}
        if None in judged.values():
            return None
        if "scored run" in by_role:
            ranked = {str(q): list(_by_score(docs)) for q, docs in dict(by_role["scored run"]).items()}
        else:
            ranked = {str(q): list(docs) for q, docs in dict(by_role["run"]).items()}
        queries = [(q, graded_input(tuple(ranked.get(q, ())), judged[q], None, "shown")) for q in judged]
        return run_input(queries, k, "shown")
    if "ranked grades" in by_role:
        grades = [int(g) for g in by_role["ranked grades"]]
        ranking = tuple(by_role.get("ranking") or (f"r{i}" for i in range(1, len(grades) + 1)))
        judged = {str(d): g for d, g in zip(ranking, grades)}
        if by_role.get("judged grades") is not None:
            # the judged grades the ranking does not hold belong to documents it did not retrieve
            rest = sorted(int(g) for g in by_role["judged grades"])
            for g in grades:
                if g in rest:
                    rest.remove(g)
                elif g != 0:  # a ranked grade that is not judged: the call contradicts itself
                    return None
            judged.update({f"u{i}": g for i, g in enumerate(rest, start=1)})
        if by_role.get("relevant count") is not None:
            # |R|: the relevant documents the ranking does not hold were not retrieved
            count, found = by_role["relevant count"], sum(1 for g in grades if g >= 1)
            if isinstance(count, bool) or not isinstance(count, int) or count < found:
                return None  # not a count, or fewer than the ranking holds: the call contradicts itself
            judged.update({f"u{i}": 1 for i in range(1, count - found + 1)})
        return graded_input(ranking, judged, k, "shown")
    if "qrels" in by_role:
        qrels = _judgements(by_role["qrels"])
        if qrels is None:
            return None
        return graded_input(tuple(by_role.get("ranking") or ()), qrels, k, "shown")
    return Input(tuple(by_role.get("ranking") or ()), frozenset(by_role.get("relevant set") or ()), k, "shown")


class Printed:
    """The value a text prints after a call: one number, or a list or mapping of numbers (``shape``), each read
    with its printed precision."""

    def __init__(self, claim: CodeClaim, text, tolerance: str | None):
        self.text = str(text)
        self.entries = ([(None, parse_claimed(text, tolerance=tolerance))] if claim.shape == "number" else
                        parse_claimed_parts(text, tolerance=tolerance))
        self.single = claim.shape == "number"

    def _pairs(self, values: list[tuple]) -> list[tuple] | None:
        if len(values) != len(self.entries):
            return None
        if self.single or all(k is None for k, _ in self.entries):
            return [(c, v) for (_, c), (_, v) in zip(self.entries, values)]
        mine = {k: c for k, c in self.entries}
        if set(mine) != {str(k) for k, _ in values}:
            return None
        return [(mine[str(k)], v) for k, v in values]

    def holds(self, values: list[tuple]) -> bool:
        """Whether (key, number) pairs lie in the printed intervals, entry by entry, each at its printed precision
        (``printed_holds``)."""
        pairs = self._pairs(values)
        return pairs is not None and all(printed_holds(c, v) for c, v in pairs)

    def written_like(self, values: list[tuple], doctest: bool = False) -> str:
        """``values`` printed as the text printed its own (each entry's precision and style; keys kept); for a
        doctest's output, one number as Python prints the float (its shortest repr, what doctest compares)."""
        pairs = self._pairs(values)
        if self.single and doctest:
            return repr(float(pairs[0][1]))
        if self.single:
            return pairs[0][0].write_like(pairs[0][1])
        out, at = [], 0
        for c, v in pairs:
            if not self.single and ":" in self.text[at:] and any(k is not None for k, _ in self.entries):
                colon = self.text.index(":", at) + 1
                out.append(self.text[at:colon])
                at = colon
            i = self.text.index(c.text, at)
            new = c.write_like(v)
            out += [self.text[at:i], new if c.text.lstrip().startswith(("≈", "~")) else new.removeprefix("≈ ")]
            at = i + len(c.text)
        return "".join(out) + self.text[at:]


#: Significant digits beyond which a printed decimal says more than double arithmetic carries (a double holds 15 to
#: 17): such an output (Python 2's ``repr``, ``%.17g``) is read as the double it denotes.
DOUBLE_DIGITS = 16


#: Units in the last place by which a computed double may miss the exact value: a metric sums and divides a few
#: dozen terms, each rounded once.
DOUBLE_ULPS = 8


def significant_digits(text: str) -> int:
    """The significant digits of the number printed in ``text`` (0.61314719276545848: 17; 0.50: 2; 3.0: 2)."""
    m = re.search(r"\d[\d_]*(?:\.\d*)?|\.\d+", str(text))
    if not m:
        return 0
    digits = m.group().replace(".", "").replace("_", "").lstrip("0")
    return len(digits)


def printed_holds(printed, value) -> bool:
    """Whether ``value`` (a listing's float or the chapter's exact value) is the number a text prints, compared at
    its printed precision: a decimal of ``DOUBLE_DIGITS`` or more significant digits is the double it denotes,
    within ``DOUBLE_ULPS`` of the value (a 17-digit 0.61314719276545848 is the double 0.6131471927654585, and 1/3
    is 0.33333333333333331); a shorter decimal is its interval (0.6131 is [0.61305, 0.61315]), so a wrong digit at
    the printed precision never holds; an exact value (1/3) is compared as a printed value always is."""
    if printed.nominal is None or printed.exact or printed.approximate or printed.style not in ("decimal",):
        return printed.contains(value)
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if significant_digits(printed.text) >= DOUBLE_DIGITS:
        near = float(value)
        return abs(float(printed.nominal) - near) <= DOUBLE_ULPS * math.ulp(near)
    if isinstance(value, float):
        x = Fraction(value)
        # a double's rounding, but never as much as a thousandth of the printed interval
        slack = min(max(abs(x), Fraction(1)) * Fraction(1, 10 ** 9), (printed.high - printed.low) / 1000)
        return printed._inside(x, slack)
    return printed.contains(value)


def session_calls(text: str) -> set[str]:
    """The calls the text's doctests make (``>>> f(…)`` or ``>>> print(f(…))``), as a claim's ``calls`` write them."""
    from audit.text.doctests import examples

    return {e.source[len("print("):-1] if e.source.startswith("print(") and e.source.endswith(")") else e.source
            for e in examples(text)}  # round(f(…), 4) as printed: its output is compared at the printed precision


def printed_like(written: str, call) -> str:
    """A corrected output as the text printed the call's: approximately (“≈ 0.6667”) only when the text printed an
    approximation; otherwise the value at its precision (“0.6667”), as a doctest or an output comment prints it.
    The finding's wording and the patch both write it so; a NumPy scalar's repr (``np.float64(0.7)``) keeps its
    wrapper."""
    scalar = NUMPY_SCALAR.fullmatch(str(call.returns).strip())
    if scalar:  # printed as NumPy 2 prints a scalar: the corrected value in the same wrapper
        return f"{scalar.group('open')}{written.removeprefix('≈ ')})"
    if not str(call.returns).lstrip().startswith(("≈", "~")):
        return written.removeprefix("≈ ")
    return written


#: A float a doctest prints in full (its repr, 15 or more digits after the point): doctest compares it as text.
_FULL_REPR = re.compile(r"-?\d+\.\d{15,}")


def _doctest_prints(printed: str, entries: list[tuple]) -> bool:
    """Whether the float a doctest prints in full (``printed``) is the float returned: printed to 16 or 17 digits, a
    float names one double, so 0.9488107485678985 is not what a doctest printing 0.9488107485678984 saw, though both
    round alike (0.33333333333333331, as Python 2 printed it, names the double Python 3 prints 0.3333333333333333).
    Any other output is held at its printed precision (``Printed.holds``)."""
    text = str(printed).strip()
    if not _FULL_REPR.fullmatch(text) or len(entries) != 1:
        return True
    value = entries[0][1]
    try:
        return float(text) == float(value)
    except (TypeError, ValueError, OverflowError):
        return True


def _exception_name(text: str) -> str:
    """The exception's class name in ``Type: message`` (a dotted ``module.Type`` named by its last part)."""
    return text.split(":", 1)[0].strip().rsplit(".", 1)[-1]


def _shown_calls(claim: CodeClaim, shown: list[dict], results: list[CallResult], reading, book_rule: str,
                 stated: bool, evidence: Evidence, refs: list[dict[str, float]] | None = None,
                 sessions: list[bool] | None = None) -> list[Point]:
    """Each call the text shows, run as printed (a doctest as doctest runs it): what it returns against the value the
    text prints, at its printed precision, or the exception it raises against the one a doctest expects; and against
    the chapter's definition and each reference's value on the same input (``refs``); a correction of a doctest's
    output (``sessions``: the call is a ``>>>`` example) is the float as Python prints it. A listing that returns the
    printed value where the chapter's definition gives another is wrong on the text's own example. Returns the points
    of a wrong printed value on a call the chapter's definitions could not be computed for (per-query values):
    whether the listing may be at fault too is known only once it has met the generated input (``check``)."""
    rows = []
    undecided = []
    refs = refs or [{} for _ in shown]
    sessions = sessions or [False for _ in shown]
    for c, values, result, theirs, session in zip(claim.calls, shown, results, refs, sessions):
        item = shown_input(claim, values)
        expected = chapter_value(claim, item, reading) if item is not None else None
        got = returned_text(result, precise=True) if result.status == "ok" else result.status
        printed = Printed(claim, c.returns, c.tolerance) if c.returns is not None else None
        right_code = expected is not None and not isinstance(expected, str) and _agrees(result, expected)
        said = references_text(theirs)
        problems = []
        if c.raises is not None:
            want = _exception_name(c.raises)
            if result.status == "raises" and _exception_name(result.text) == want:
                message = c.raises.partition(":")[2].strip()
                if message and result.text.partition(":")[2].strip() != message:
                    problems.append(f"raises {want} with another message ({quote(LISTING_EXCEPTION, result.text)})")
                    evidence.conditions.append(Point(
                        f"called as `{c.call}`, as the text shows, it raises {want} as the doctest expects, but "
                        f"with another message ({quote(LISTING_EXCEPTION, result.text)}), so doctest fails it",
                        f"Print the exception the call raises after it, or make the listing's message “{message}”."))
                got = f"raises {want}"
                if not problems:
                    problems.append(f"raises {want}, as the doctest expects")
            else:
                what = (f"returns {got}" if result.status == "ok" else
                        f"raises {quote(LISTING_EXCEPTION, result.text)}" if result.status == "raises" else
                        _problem(result, 0, item or Input((), frozenset(), None), book_rule, stated, _bounded(claim)))
                problems.append(f"{what}, not the {want} the doctest expects")
                evidence.failures.append(Point(
                    f"called as `{c.call}`, as the text shows, it {what}, where the doctest expects {want}",
                    "Print what the call returns after it, or make the listing raise "
                    f"{want} on this input."))
                got = what.removeprefix("returns ") if result.status == "ok" else got
            if expected is not None and not isinstance(expected, str):
                # a refusal is the listing's design; readers' tools give a value here (the edge cases judge it)
                problems.append(f"the chapter's definition gives {exact_text(expected)}"
                                + (f" ({said})" if said else ""))
        elif result.status != "ok":
            problems.append(_problem(result, expected if expected is not None else 0, item or Input((), frozenset(),
                                                                                                     None),
                                     book_rule, stated, _bounded(claim)))
        elif printed is not None and (not printed.holds(_entries(result)) or session and not _doctest_prints(
                c.returns, _entries(result))):
            problems.append(f"returns {got}, not the printed {c.returns}")
            # where the listing agrees with the chapter's definition here, the printed value alone is wrong
            either = "." if right_code or expected is None else ", or correct the listing."
            fix = ("Change “{}” to “{}” after the call{}".format(
                c.returns, printed_like(printed.written_like([(k, v) for k, v in _entries(result)], True), c)
                if session else
                printed_like(printed.written_like([(k, Fraction(v).limit_denominator(10 ** 6)) for k, v in
                                             _entries(result)]), c),
                either)
                   if printed._pairs(_entries(result)) is not None else
                   f"Print what the call returns ({got}) after it{either}")
            point = Point(f"called as `{c.call}`, as the text shows, it returns {got}, not the printed {c.returns}", fix)
            evidence.failures.append(point)
            if expected is None:
                undecided.append(point)
        if c.raises is None and expected is not None and not isinstance(expected, str) and result.status == "ok" \
                and not _agrees(result, expected):
            problems.append(f"the chapter's definition gives {exact_text(expected)}" + (f" ({said})" if said else ""))
            right = (printed.written_like(_expected_entries(expected), session)
                     if printed is not None and printed._pairs(_expected_entries(expected)) is not None else None)
            if right is not None and not session:
                right = printed_like(right, c)  # at the printed precision, approximately only where the text was
            evidence.failures.append(Point(
                f"called as `{c.call}`, as the text shows, it returns {got} where the chapter's definition of "
                f"{_measure(claim, item.k) if claim.shape == 'number' else claim.measure} gives "
                f"{exact_text(expected)} on the same input" + (f" ({said})" if said else ""),
                f"Once the listing is corrected, the call returns {exact_text(expected)}, as the text prints it."
                if printed is not None and printed.holds(_expected_entries(expected)) else
                f"Once the listing is corrected, the call returns {exact_text(expected)}: print “{right}” after it."
                if right is not None else "Correct the listing so it computes the measure as the chapter defines it."))
        elif c.raises is None and result.status != "ok":
            evidence.failures.append(Point(f"called as `{c.call}`, as the text shows, it {problems[0]}",
                                           "Correct the listing so the call the text shows runs."))
        if printed is not None and expected is not None and not isinstance(expected, str) \
                and not printed.holds(_expected_entries(expected)) and result.status == "ok" \
                and printed.holds(_entries(result)):
            problems.append("the printed value is the listing's, not the measure's")
        shown_as = str(c.returns) if c.returns is not None else f"raises {c.raises}" if c.raises else "—"
        rows.append([c.call, shown_as, got,
                     exact_text(expected) if expected is not None and not isinstance(expected, str)
                     else (expected or "—"), said or "—", "; ".join(problems) or "agrees"])
    if rows:
        evidence.checks.append(Check(label=f"{claim.function}() on the calls the text shows", measure=claim.measure,
                                     table=[["call", "printed", "listing", "chapter", "references", "finding"]] + rows))
        agreeing = [r for r in rows if r[-1] == "agrees"]
        for checked in (True, False):  # the calls the chapter's definitions were computed for, and the others
            these = [r[0] for r in agreeing if (r[3] != "—") == checked]
            if these:
                evidence.scopes.append(
                    f"the call{'s' if len(these) > 1 else ''} the text shows (" + ", ".join(f"`{a}`" for a in these)
                    + f") return{'' if len(these) > 1 else 's'} what the text prints"
                    + (" and the chapter's definition gives" if checked else
                       " (the chapter's definitions have no input to compare: the call passes per-query values)"))
        raising = [r[0] for r in rows if r[1].startswith("raises ") and r[-1].startswith(f"{r[2]}, as the doctest")]
        if raising:
            evidence.scopes.append(
                f"the call{'s' if len(raising) > 1 else ''} " + ", ".join(f"`{a}`" for a in raising)
                + f" raise{'' if len(raising) > 1 else 's'} the exception the doctest expects")
    return undecided


def own_examples(claim: CodeClaim, text: str, params: list[str], defaults: dict, boundaries=()) -> list:
    """The text's own ``>>>`` examples of the function, where its version is in force, that the claim's ``calls`` do
    not hold as the text prints them (``text_calls.unregistered_examples``): a doctest is a claim of the text, checked
    whether or not the register lists it, and a register entry giving another output than the text prints never
    hides it. Examples whose arguments the harness cannot pass are left out. ``boundaries``: the lines of later
    statements that change what the function reads; the same example on both sides of one is two."""
    start, end = in_force(text, claim.quote, claim.function, claim.occurrence)
    out = []
    for c in text_calls.unregistered_examples(text, claim.function, claim.calls, start, end, boundaries):
        try:
            shown_arguments(claim, c.call, params, defaults, c.given)
        except AuditError:
            continue
        out.append(c)
    return out
