"""Arithmetic claims: a printed ratio or sum and its decimal; set measures on a labelled cohort.

An expression with logarithms, roots or powers (``3/log2(2) + 2/log2(3) ≈ 4.262``) is decided on a
certified enclosure of its value: inside the claimed interval, outside it, or refined until one of
the two (``REFINE_DIGITS``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from audit.model.evidence import Evidence, Point
from audit.errors import ValueParseError
from audit.evaluation.checks import printed_terms
from audit.evaluation.checks.common import CHAPTER, Measurements, errors_of, fixture_name, shown
from audit.evaluation.checks.value import bounds, check_expectation, check_printed
from audit.register.claims import ArithmeticClaim, Chapter, Cohort, Fixture
from audit.measures.syntax import parse as parse_measure
from audit.model.values import ClaimedValue, display, format_certified, format_exact, parse_claimed
from audit.model.expressions import expression_interval, parse_expression, printed_terms_interval, term_readings
from audit.text.encode_arithmetic import breaks_replacing, divisor_correction, normal_expression
from audit.text.scan import printed_correction
from audit.model.results import Check, ImplValue

#: Significant digits an irrational value is certified to, in turn, while its enclosure straddles a
#: bound of the claimed interval; past the last the claim is an error, not a verdict.
REFINE_DIGITS = (40, 100, 300)


def cohort_fixture(cohort: Cohort, selected: list[str], among: list[str] | None) -> Fixture:
    """The cohort as one query: qrels = labels (positive → 1, else 0) of the candidates in ``among``
    (all decisions if None); run = the candidates whose decision is in ``selected``."""
    pool = [c for c in cohort.candidates() if among is None or c[1] in among]
    qrels = {"cohort": {cid: int(label == cohort.positive) for cid, _, label in pool}}
    run = {"cohort": [cid for cid, decision, _ in pool if decision in selected]}
    return Fixture(description="selector cohort", qrels=qrels, run=run)


def _enclosure(expression: str, claimed: ClaimedValue) -> tuple[Fraction, Fraction, bool, bool | None, int]:
    """(lo, hi, exact, holds, digits): the expression's value and whether the claim holds.

    An exact value is compared exactly. An inexact one is a certified enclosure, refined through
    ``REFINE_DIGITS`` while it straddles a bound of the claimed interval; ``holds`` is ``None``
    when even the last enclosure straddles one.
    """
    lo, hi, exact = expression_interval(expression, digits=REFINE_DIGITS[0])
    if exact:
        return lo, hi, True, claimed.contains(lo), 0
    for digits in REFINE_DIGITS:
        if digits != REFINE_DIGITS[0]:
            lo, hi, _ = expression_interval(expression, digits=digits)
        holds = claimed.decide(lo, hi)
        if holds is not None:
            break
    return lo, hi, False, holds, digits


def check(claim: ArithmeticClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    check_printed(claim, claim.claimed, "", evidence)
    claimed = parse_claimed(claim.claimed, tolerance=claim.tolerance)
    try:
        lo, hi, is_exact, holds, digits = _enclosure(claim.expression, claimed)
    except ValueParseError as exc:
        evidence.register_error(exc.message, "expression", "write the computation the sentence prints in the "
                                "notation the checker reads (numbers, + - * /, powers, parentheses, log2, ln, sqrt; "
                                "LaTeX \\frac and \\log_2 are read too)")
        return evidence
    exact = lo if is_exact else (lo + hi) / 2
    if is_exact:
        value = ImplValue(implementation=CHAPTER, provider="exact arithmetic", value=float(exact),
                          exact=format_exact(exact), in_interval=holds)
        shown_value = format_exact(exact)
    else:
        value = ImplValue(implementation=CHAPTER, provider="interval arithmetic (mpmath.iv)", value=float(exact),
                          in_interval=holds,
                          detail=f"irrational step; value certified to {digits} digits (enclosure narrower than 1e-{digits})")
        shown_value = format_certified(lo, hi)
    evidence.checks.append(Check(
        label=f"{claim.expression} in exact arithmetic" if is_exact else f"{claim.expression}, certified enclosure",
        claimed=str(claim.claimed), interval=claimed.interval(), **bounds(claimed), values=[value]))
    rounding = _rounding(claim, claimed) if holds is False else None
    if rounding is not None and rounding.reading is not None:
        evidence.checks.append(Check(
            label=f"{rounding.reading} (the rounded terms read as {rounding.read_as})",
            claimed=str(claim.claimed), interval=claimed.interval(), **bounds(claimed),
            values=[ImplValue(implementation=CHAPTER, provider="exact arithmetic" if rounding.exact else
                              "interval arithmetic (mpmath.iv)", value=float(rounding.value),
                              exact=format_exact(rounding.value) if rounding.exact else None,
                              in_interval=rounding.holds)]))
    if holds is None:
        evidence.undecided(
            f"{claim.expression} {shown_value} is within about 1e-{digits} of a bound of the claimed "
            f"{claimed.interval()}: its enclosure certified to {digits} digits still straddles the bound, so the "
            "check cannot decide (a value exactly at a bound that exact arithmetic does not reach, such as "
            "sqrt(2)**2 against 2, is never decided)")
    elif not holds and rounding is not None and rounding.consistent:
        if claim.computes is not None:  # the measure's exact value decides what the rounded terms cannot
            _computed_measure(claim, chapter, ms, claimed, True, exact, evidence, rounding=rounding)
            return _set_measure(claim, chapter, ms, claimed, is_exact, exact, shown_value, evidence)
        _rounded_terms_decide(claim, claimed, rounding, shown_value, evidence)
    elif not holds and claim.computes is None and (chain := printed_terms.chained_terms(
            claim.quote, claim.expression, claim.claimed)) is not None and (
            story := printed_terms.explain(chain, claimed, claim.claimed, exact=exact)) is not None:
        # "1 + 3/log2(3) + 2/log2(6) ≈ 1 + 1.893 + 0.774 = 3.667": the value follows from the terms the sentence
        # prints rounded on its way, by their rounding only
        _rounding_story(story, evidence)
    elif not holds:
        if is_exact:
            found = f"{claim.expression} = {format_exact(exact)} (≈ {float(exact):.6f})"
        else:
            found = f"{claim.expression} {shown_value}"
        divided = mean_divisor(claim, chapter)
        if divided is not None:
            evidence.failures.append(Point(
                f"{found}, outside the claimed {claimed.interval()}: the sentence calls it a mean, and the sum over its "
                f"{divided[1].rsplit('/', 1)[1]} terms, {divided[1]} = {format_exact(divided[2])} "
                f"(≈ {float(divided[2]):.6f}), gives the printed value",
                f"Change “{divided[0]}” to “{divided[1]}” (checked: it gives the printed {claim.claimed})."))
        else:
            target, target_exact, _ = correction(claim.expression)
            new = claimed.write_like(target, exact=target_exact)
            old_text, new_text = printed_correction(claim.quote, claimed, new) or (str(claim.claimed), new)
            broken = breaks_replacing(claim.quote, str(old_text), new_text)
            span = (f"; over every number its rounded terms may stand for it lies in {_span(rounding.span)}"
                    if rounding is not None and rounding.span is not None and claimed.decide(*rounding.span) is False
                    else "")
            evidence.failures.append(Point(
                f"{found}, outside the claimed {claimed.interval()}{span}",
                f"Revise the sentence: the value is {shown_value}"
                + (f" (≈ {float(exact):.4f})" if is_exact and exact.denominator != 1 else "")
                + f", not {claim.claimed}; writing “{new_text}” alone would "
                f"leave the printed arithmetic false ({broken}), so its terms must change with it." if broken else
                f"Change “{old_text}” to “{new_text}”."))
    elif claim.computes is None and (story := printed_terms.explain(claim.expression, claimed, claim.claimed)):
        _rounding_story(story, evidence)
    elif is_exact:
        same = claim.expression.replace(" ", "") == format_exact(exact)
        evidence.scopes.append(f"{claim.expression}" + ("" if same else f" = {format_exact(exact)}")
                               + (f" ≈ {float(exact):.6f}" if exact.denominator != 1 else "")
                               + f", inside the claimed {claimed.interval()}")
    else:
        evidence.scopes.append(f"{claim.expression} {shown_value}, inside the claimed {claimed.interval()}")
    if claim.computes is not None and holds is not None:
        _computed_measure(claim, chapter, ms, claimed, holds, exact, evidence)
    return _set_measure(claim, chapter, ms, claimed, is_exact, exact, shown_value, evidence)


def _set_measure(claim: ArithmeticClaim, chapter: Chapter, ms: Measurements, claimed: ClaimedValue, is_exact: bool,
                 exact: Fraction, shown_value: str, evidence: Evidence) -> Evidence:
    """The set measure the arithmetic computes on a labelled cohort, when the claim names one."""
    sm = claim.set_measure
    if sm is None:
        return evidence
    cohort = chapter.register.cohorts[sm.cohort]
    fixture = cohort_fixture(cohort, sm.selected, sm.among)
    measure = sm.measure
    values = ms.values(fixture, measure, claimed=claimed)
    population = "the whole cohort" if sm.among is None else "candidates " + " or ".join(sm.among)
    label = f"{measure} on cohort '{sm.cohort}': selected = {' + '.join(sm.selected)}, judged over {population}"
    evidence.checks.append(Check(label=label, measure=measure, claimed=str(claim.claimed),
                                 interval=claimed.interval(), values=values, **bounds(claimed)))
    evidence.reference_errors(errors_of(values, label))
    own = values[0]
    if own.status == "ok":
        own_exact = Fraction(own.exact)
        if own_exact != exact:
            evidence.failures.append(Point(
                f"the cohort gives {measure} = {display(own.exact)}, but the prose computes {claim.expression} "
                f"{'= ' + format_exact(exact) if is_exact else shown_value}: the ratio does not follow from the table",
                f"Recompute from the table: {measure} = {display(own.exact)} ≈ {float(own_exact):.4f}."))
        refs = [v for v in values[1:] if v.status == "ok"]
        off = [v for v in refs if not v.in_interval]
        for v in off:
            evidence.conditions.append(Point(f"{v.implementation} ({v.provider}) gives {measure} = {shown(v)} on the cohort",
                                             "Name the set-measure definition used."))
        if refs and not off:
            evidence.scopes.append(f"{measure} on the reconstructed cohort ({len(fixture.run['cohort'])} selected of "
                                   f"{len(fixture.qrels['cohort'])}) is {display(own.exact)} by the chapter's definition and "
                                   f"{', '.join(f'{v.implementation} ({v.provider})' for v in refs)} agree")
    return evidence


#: Words saying a printed computation is a mean of its terms.
_MEAN_WORDS = re.compile(r"\b(?:mean|average|averaged|averaging)\b|\bMRR\b|\bMAP\b", re.IGNORECASE)


def mean_divisor(claim: ArithmeticClaim, chapter: Chapter) -> tuple[str, str, Fraction] | None:
    """``(printed sum, the sum over its count, that mean)`` when the sentence calls the printed computation a mean
    ("The mean of these two reciprocal ranks is `1/2 + 1/3 == 0.4167`") but prints only the sum of its terms, and the
    sum over the number of terms gives the printed value: the divisor is what is missing, not the value (changing
    0.4167 to the sum's 0.8333 would make the mean false). None otherwise."""
    text = chapter.snapshot.text if chapter is not None and chapter.snapshot is not None else ""
    expression = str(claim.expression).strip()
    at = text.find(claim.quote)
    if at < 0 or expression not in claim.quote:
        return None
    start = max(text.rfind(". ", 0, at), text.rfind("\n\n", 0, at), -1) + 1
    if not _MEAN_WORDS.search(text[start:at]):
        return None
    depth, terms, last = 0, [], 0
    for i, ch in enumerate(expression):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch in "+-−" and i:
            if ch != "+":
                return None   # a difference is no mean of its terms
            terms.append(expression[last:i])
            last = i + 1
    terms.append(expression[last:])
    if len(terms) < 2 or not all(t.strip() for t in terms):
        return None
    try:
        mean = parse_expression(f"({normal_expression(expression)})/{len(terms)}")
        claimed = parse_claimed(claim.claimed, tolerance=claim.tolerance)
    except (ValueParseError, ZeroDivisionError):
        return None
    if not claimed.contains(mean):
        return None
    return expression, f"({expression})/{len(terms)}", mean


def correction(expression: str) -> tuple[Fraction, bool, str]:
    """The value a contradicted arithmetic claim is corrected to: ``(value, exact, how it was computed)``. The exact
    terms the printed decimals most plainly round (0.33 as 1/3), when they exist and their value is one the printed
    terms allow; otherwise the expression as printed. Used by the finding and the upgrade proposal alike, so that a
    correction never turns a sentence whose terms were rounded into a false one (0.611 into 0.610)."""
    lo, hi, exact = expression_interval(expression, digits=REFINE_DIGITS[0])
    literal = lo if exact else (lo + hi) / 2
    span, read = printed_terms_interval(expression), term_readings(expression)
    if span is not None and read is not None and read[1]:
        try:
            r_lo, r_hi, r_exact = expression_interval(read[0], digits=REFINE_DIGITS[0])
        except ValueParseError:
            r_lo = None
        if r_lo is not None:
            value = r_lo if r_exact else (r_lo + r_hi) / 2
            if span[0] <= value <= span[1]:
                terms = ", ".join(f"{printed} as {term}" for printed, term in read[1])
                return value, r_exact, f"{read[0]} ≈ {float(value):.6f}, the printed terms read as {terms}"
    return literal, exact, f"{expression} ≈ {float(literal):.6f}"


@dataclass(frozen=True)
class Rounding:
    """What the expression's printed decimals allow, when its terms as printed miss the claimed value.

    ``span``: a certified enclosure of the expression over every number each printed decimal rounds to (None when
    it cannot be computed); ``consistent``: the claimed interval meets it and some term is not already the plainest
    number it rounds (0.33 is not; 0.75 and 0.6 are, and are read as printed). ``reading``: the expression with each
    rounded term read as the exact term it most plainly rounds (``expressions.term_readings``: 0.33 → 1/3), ``read_as``
    those terms in words, ``value`` its value (exact, or an enclosure's midpoint) and ``holds`` whether the claimed
    interval holds it; None when some term has no plain reading."""

    span: tuple[Fraction, Fraction] | None
    consistent: bool
    reading: str | None = None
    read_as: str = ""
    value: Fraction | None = None
    exact: bool = True
    holds: bool | None = None


def _rounding(claim: ArithmeticClaim, claimed: ClaimedValue) -> Rounding | None:
    """How the rounding of the printed terms bears on a claim whose terms as printed miss the claimed value (the
    GRIM / statcheck reading: each printed decimal is an interval); None when the expression prints no decimal."""
    span = printed_terms_interval(claim.expression)
    if span is None:
        return None
    consistent = claimed.decide(*span) is not False
    read = term_readings(claim.expression)
    if read is None:
        return Rounding(span, consistent)
    text, changed = read
    if not changed:  # each term is already the plainest number it rounds (0.75, 0.6): they are read as printed
        return Rounding(span, False)
    try:
        lo, hi, is_exact = expression_interval(text)
    except ValueParseError:
        return Rounding(span, consistent)
    value = lo if is_exact else (lo + hi) / 2
    holds = claimed.contains(lo) if is_exact else claimed.decide(lo, hi)
    read_as = ", ".join(f"{printed} as {exact}" for printed, exact in changed)
    return Rounding(span, consistent, text, read_as, value, is_exact, holds)


def _span(span: tuple[Fraction, Fraction]) -> str:
    return f"[{float(span[0]):.6g}, {float(span[1]):.6g}]"


def _rounded_terms_decide(claim: ArithmeticClaim, claimed: ClaimedValue, rounding: Rounding, shown_value: str,
                          evidence: Evidence) -> None:
    """A claimed value the printed terms miss, though some numbers they round to give it. The exact terms they most
    plainly round (0.33 as 1/3, 0.6 as 3/5) decide: supported when they give the value, the rounding named in the
    reason; contradicted when they do not, the correction being their value (which the printed terms allow). With no
    plain reading of some term, qualified: the value holds only for some of the numbers the terms stand for."""
    as_printed = (f"the terms as printed give {claim.expression} {'= ' if not shown_value.startswith(('[', '≈')) else ''}"
                  f"{shown_value}, outside the claimed {claimed.interval()}, but they are rounded: over every number "
                  f"they stand for the expression spans {_span(rounding.span)}, which meets it")
    if rounding.reading is not None:
        value = (f"{'= ' + format_exact(rounding.value) if rounding.exact else '≈ ' + format(float(rounding.value), '.6g')}"
                 + (f" ≈ {float(rounding.value):.6f}" if rounding.exact and rounding.value.denominator != 1 else ""))
        read = f"read as the exact terms they round ({rounding.read_as}), {rounding.reading} {value}"
        if rounding.holds:
            evidence.scopes.append(f"{read}, inside the claimed {claimed.interval()}; {as_printed}: the difference is "
                                   "the terms' rounding only")
            return
        target, target_exact, _ = correction(claim.expression)
        new = claimed.write_like(target, exact=target_exact)
        old_text, new_text = printed_correction(claim.quote, claimed, new) or (str(claim.claimed), new)
        evidence.failures.append(Point(
            f"{read}, outside the claimed {claimed.interval()}; {as_printed} only at numbers other than the terms "
            "they plainly round", f"Change “{old_text}” to “{new_text}”."))
        return
    evidence.lead = ""
    evidence.conditions.append(Point(
        f"The printed value holds only for some of the numbers the rounded terms stand for: {as_printed}, and no term "
        "reads as a plain fraction that decides it",
        "Print the terms to more places or as fractions, so that the printed value follows from them."))
    evidence.concern = ("A reader who recomputes the expression from its printed terms gets another number; the "
                        "printed value needs terms the text does not print.")

_DECIMAL = re.compile(r"(?<![\w.])(\d*\.(\d+))(?![\w.])")


def rounding_budget(expression: str) -> Fraction:
    """How far the expression's value can be from the same expression on unrounded terms, when each decimal it
    prints is rounded to its last digit and enters the expression once with a weight of at most 1: half a unit
    in the last place of each printed decimal, summed (a bound for sums and means of rounded terms)."""
    return sum((Fraction(1, 2 * 10 ** len(m.group(2))) for m in _DECIMAL.finditer(expression)), Fraction(0))


def _computed_measure(claim: ArithmeticClaim, chapter: Chapter, ms: Measurements, claimed: ClaimedValue,
                      holds: bool, exact: Fraction, evidence: Evidence, rounding: Rounding | None = None) -> None:
    """The printed value against the measure the expression computes, as a value claim on its fixture, combined
    with the expression's own result: both hold → the measure's verdict; the expression holds and the measure's
    exact value does not, within the rounding of the printed terms → qualified, the rounding named with both
    numbers; beyond it → contradicted. ``rounding``: the terms as printed miss the claimed value but the numbers they
    round may not (``Rounding.consistent``), so the measure's exact value alone decides, the rounding named."""
    c = claim.computes
    sub = Evidence()
    check_expectation(ms, chapter, claim, c.fixture, c.measure, claim.claimed, sub, tolerance=claim.tolerance,
                      query=c.query, label_prefix="the measure the expression computes: ")
    evidence.checks += sub.checks
    evidence.absorb_errors(sub)
    evidence.notes += sub.notes
    if not holds:  # the expression itself is wrong: already a failure; show what the measure gives
        evidence.notes += [p.text.rstrip(".") for p in sub.failures]
        return
    if rounding is not None:
        if not sub.failures:
            evidence.scopes.append(f"the terms as printed give {claim.expression} = {float(exact):.6g}, outside the "
                                   f"claimed {claimed.interval()}, but they are rounded (over every number they stand "
                                   f"for it spans {_span(rounding.span)}) and {c.measure} itself lies inside it: the "
                                   "difference is the terms' rounding only")
        evidence.failures += sub.failures
        evidence.conditions += sub.conditions
        evidence.scopes += sub.scopes
        if sub.concern:
            evidence.concern = evidence.concern or sub.concern
        return
    if not sub.failures:
        evidence.conditions += sub.conditions
        evidence.scopes += sub.scopes
        if sub.concern:
            evidence.concern = evidence.concern or sub.concern
        return
    own = [v for check in sub.checks for v in check.values if v.implementation == CHAPTER and v.status == "ok"]
    true_value = Fraction(own[0].exact) if own and own[0].exact else None
    # a measure with logarithms has no exact fraction: its value (certified to far beyond any printed place) tells the
    # story of the printed terms just as well
    measured = true_value if true_value is not None else (
        Fraction(own[0].value) if own and own[0].value is not None else None)
    story = (printed_terms.explain(claim.expression, claimed, claim.claimed, exact=measured)
             if measured is not None else None)
    if story is not None:
        _rounding_story(story, evidence, f"{c.measure} on {fixture_name(c.fixture)}")
        return
    budget = rounding_budget(claim.expression)
    if true_value is not None and abs(true_value - exact) <= budget \
            and not printed_terms.other_terms(claim.expression, true_value):
        fixed = claimed.write_like(true_value)
        checked = parse_claimed(fixed).contains(true_value)
        evidence.conditions.append(Point(
            f"the printed terms give {claim.expression} = {float(exact):.6g}, inside the claimed "
            f"{claimed.interval()}, but {c.measure} on {fixture_name(c.fixture)} is exactly {display(format_exact(true_value))}"
            f", outside it: the terms were rounded before they were added (the gap {float(abs(true_value - exact)):.2g} "
            f"is within the {float(budget):.2g} their rounding allows)",
            f"Print the value of the measure, “{fixed}”" + (" (checked: the exact value lies in it)" if checked else "")
            + ", or say that the sum is of rounded terms."))
        evidence.lead = ""
        evidence.concern = (f"A reader who recomputes {c.measure} from its definition gets {display(format_exact(true_value))}, "
                            f"not the printed {claim.claimed}: the rounding of the terms is not mentioned.")
        return
    fix = recount(claim, true_value) if true_value is not None else None
    if fix is not None and sub.failures:
        evidence.failures.append(Point(sub.failures[0].text, (
            f"Change “{fix[0]}” to “{fix[1]}” (checked: {c.measure} is {display(format_exact(true_value))} here, and "
            "the printed terms over that count give it).")))
        evidence.failures += sub.failures[1:]
        return
    evidence.failures += sub.failures


def recount(claim: ArithmeticClaim, value: Fraction) -> tuple[str, str, str, str, str] | None:
    """The fix of a printed mean whose count alone is wrong (``divisor_correction``: "(1 + 0.67 + 0.6)/3 ≈ 0.76" →
    "(1 + 0.67 + 0.6)/4 ≈ 0.57" when AP divides by four relevant documents) for an arithmetic claim whose measure
    is ``value``: ``(old span, new span, old expression, new expression, new claimed value)``; None when no count
    alone gives it. The finding and the upgrade proposal both write it."""
    claimed = parse_claimed(claim.claimed, tolerance=claim.tolerance)
    new = claimed.write_like(value)
    fix = divisor_correction(claim.quote, str(claim.claimed), new, value)
    return (*fix, new) if fix is not None else None


def _rounding_story(story: printed_terms.TermRounding, evidence: Evidence, measure: str = "") -> None:
    """The printed terms give the printed value and the exact terms (or ``measure``, the value the expression
    computes) do not, by their rounding only: qualified, the rounded terms named, with the checked fix."""
    evidence.conditions.append(Point((f"{measure}: " if measure else "") + story.story(), story.fix()))
    evidence.lead = ""
    evidence.concern = story.concern


def needs(claim: ArithmeticClaim, chapter: Chapter) -> list[tuple]:
    """(fixture, measure) pairs this claim will measure, for batching."""
    out = []
    if claim.computes is not None and parse_measure(claim.computes.measure, True)[1] is not None:
        out.append((chapter.fixture(claim.computes.fixture), claim.computes.measure))
    sm = claim.set_measure
    if sm is None:
        return out
    return out + [(cohort_fixture(chapter.register.cohorts[sm.cohort], sm.selected, sm.among), sm.measure)]
