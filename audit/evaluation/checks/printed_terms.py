"""One story for a printed number whose own sentence prints its terms rounded.

"IDCG@5 = 3/1 + 3/1.58 + 2/2 + 1/2.32 = 6.33" adds discounts printed to two places: as printed the terms give
6.329769, which rounds to 6.33, while with log2 3 and log2 5 themselves the sum is 6.323466, which rounds to 6.32.
The printed value follows from the printed terms and the difference from the exact value is the terms' rounding
only, so every claim quoting the sentence — the arithmetic as printed, and the measure on its grades — is
*qualified* with that rounding named, never supported (the exact value does not print 6.33) and never contradicted
(a reader who adds the printed terms gets 6.33). The fix prints the rounded terms to the fewest more places at which
the printed sum and the exact value round alike, with that value: "3/1 + 3/1.585 + 2/2 + 1/2.322 = 6.32" (6.323407
as printed, 6.323466 exactly). It is re-checked here: both as printed and exactly the new sentence holds.

A printed value the exact value gives while the printed terms miss it ("(1.00 + 0.33 + 0.50)/3 = 0.611") is true,
and stays supported with the rounding named (``arithmetic._rounded_terms_decide``). Terms whose plain readings, put
in exactly, still miss the exact value are not the measure's terms rounded: "AP = (1.0 + 0.5 + 0.667)/3 = 0.722"
averages P@1, P@2 and P@3 where AP takes the precision at the relevant ranks 1, 3 and 5 (0.7556), and no story of
rounding is told.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from audit.errors import ValueParseError
from audit.model.values import ClaimedValue, fixed_places, parse_claimed
from audit.model.expressions import expression_interval, printed_terms_interval, rounded_decimals, term_readings

#: At most this many places more than a term prints are tried for the fix.
MORE_PLACES = 4


def _value(expression: str) -> tuple[Fraction, Fraction, Fraction] | None:
    """(lo, hi, midpoint) of a certified enclosure of ``expression`` (lo = hi when it is exact); None when unreadable."""
    try:
        lo, hi, _ = expression_interval(expression)
    except (ValueParseError, ZeroDivisionError, ValueError):
        return None
    return lo, hi, (lo + hi) / 2


def _rounded_names(expression: str) -> list[str]:
    """The decimals of ``expression`` a worked computation prints rounded: those with two places or more whose value is
    not a fraction with a power-of-two denominator (0.5 and 0.75 are printed in full); all of them when none is."""
    found = [(expression[a:b], v) for a, b, v, _ in rounded_decimals(expression)]
    rounded = [t for t, v in found if len(t.partition(".")[2]) > 1 and v.denominator & (v.denominator - 1)]
    return rounded or [t for t, _ in found]


def _rounds_to(x: Fraction, number: str) -> bool:
    """Whether ``x`` written to the places of ``number`` (rounded half away from zero) is ``number``."""
    scale = 100 if number.endswith("%") else 1
    digits = number.rstrip("%").strip()
    places = len(digits.partition(".")[2])
    return Fraction(fixed_places(x * scale, places)) == Fraction(digits)


def _term_words(reading: str, value: Fraction, printed: str) -> str:
    """``log2 3 = 1.58496 printed as 1.58``; ``2/3 = 0.66667 printed as 0.67``."""
    m = re.fullmatch(r"log2\((\d+)\)", reading)
    name = f"log2 {m.group(1)}" if m else reading
    return f"{name} = {float(value):.5f} printed as {printed}"


def _operand(expression: str, printed: str) -> str:
    """The printed term with the number it divides or is divided by, as a reader sees it (``3/1.58``)."""
    m = re.search(r"(?:\d+(?:\.\d+)?\s*/\s*)?(?<![\w.])" + re.escape(printed) + r"(?![\d])(?:\s*/\s*\d+(?:\.\d+)?)?",
                  expression)
    return m.group(0).replace(" ", "") if m else printed


@dataclass(frozen=True)
class TermRounding:
    """How the printed terms of ``expression`` explain the difference between its printed value and the exact one.

    ``as_printed``: the expression on its terms as printed; ``exact``: the value the terms stand for (the measure's
    value, or the expression with each rounded term read as the exact term it plainly rounds); ``terms``: the
    ``(printed, read as, value)`` of each term read; ``fix_expression`` / ``fix_number``: the expression with those
    terms printed to more places and the value both give at the claimed places (None when no such printing was
    found, or when no term has a plain reading)."""

    expression: str
    claimed: str
    as_printed: Fraction
    exact: Fraction
    terms: tuple[tuple[str, str, Fraction], ...]
    exact_number: str
    fix_expression: str | None = None
    fix_number: str | None = None
    exact_written: str = ""

    def story(self) -> str:
        """``3/1.58 — log2 3 = 1.58496 printed as 1.58 — …``: the finding's reason."""
        if self.terms:
            named = "; ".join(f"{_operand(self.expression, p)} — {_term_words(r, v, p)}" for p, r, v in self.terms)
            lead = f"{named} — so {self.expression} gives"
        else:
            printed = ", ".join(_rounded_names(self.expression))
            lead = f"{printed} {'are' if ',' in printed else 'is'} printed rounded: {self.expression} gives"
        return (f"{lead} {float(self.as_printed):.6f} as printed, which rounds to the printed {self.claimed}; the "
                f"exact value is {float(self.exact):.6f}, which rounds to {self.exact_number}: the difference is the "
                "rounding of the terms the sentence prints, and the sentence does not say so")

    def fix(self) -> str:
        """The proposed response, each way of it checked."""
        if self.fix_expression is not None:
            return (f"Print the rounded terms to more places, with the value they then give: “{self.fix_expression} = "
                    f"{self.fix_number}” (checked: as printed it gives "
                    f"{float(_value(self.fix_expression)[2]):.6f} and exactly {float(self.exact):.6f}, both "
                    f"{self.fix_number}); or keep the terms and say they are rounded, giving the exact value "
                    f"{self.exact_number}.")
        return (f"Say that the terms are rounded and print the exact value, “{self.exact_written}” (checked: the "
                f"value the terms stand for is {float(self.exact):.6f}), or print the terms to more places.")

    concern = ("A reader who recomputes the value from its definition gets another number than the one printed; the "
               "printed terms are rounded, and the sentence does not say so.")


def other_terms(expression: str, exact: Fraction) -> bool:
    """Whether ``expression``'s terms are other terms than those of the value ``exact``, not those terms rounded: over
    every number its plainly rounded terms stand for (``_rounded_names``: 0.667, 1.58 — a term printed to one place or
    as a power-of-two fraction, 1.0 or 0.5, is taken as printed), the expression never reaches ``exact``. "(1.0 + 0.5 +
    0.667)/3" spans [0.72217, 0.7225] while AP is 0.7556 — the mean of P@1, P@2 and P@3 where AP takes the precision at
    the relevant ranks: their rounding explains nothing."""
    names = set(_rounded_names(expression))
    text = expression
    for a, b, v, _ in sorted(rounded_decimals(expression), reverse=True):
        if expression[a:b] not in names:
            text = text[:a] + f"({v.numerator}/{v.denominator})" + text[b:]
    if text == expression:
        return False
    try:
        span = printed_terms_interval(text)
    except (ValueParseError, ZeroDivisionError, ValueError):
        return False
    return span is not None and not span[0] <= exact <= span[1]


#: A chain the sentence prints from its expression to its value through the expression's terms rounded: "≈ 1 +
#: 1.893 + 0.774 = 3.667" after "1 + 3/log2(3) + 2/log2(6)".
_CHAIN = re.compile(r"(?:≈|~|=)\s*(?P<terms>[\d.\s+\-−×*/()]*\d\.\d[\d.\s+\-−×*/()]*?)\s*=\s*$")


def chained_terms(quote: str, expression: str, claimed_text: str | int) -> str | None:
    """The rounded terms the sentence ``quote`` prints between ``expression`` and its printed value
    (``claimed_text``): "1 + 1.893 + 0.774" in "DCG@5 = 1 + 3/log2(3) + 2/log2(6) ≈ 1 + 1.893 + 0.774 = 3.667";
    None when it prints none (or the expression is itself the printed terms)."""
    value = str(claimed_text).lstrip("≈~= ").strip()  # a register may give an integer unquoted
    at = quote.find(expression)
    if at < 0 or not value:
        return None
    rest = quote[at + len(expression):]
    end = re.search(r"=\s*" + re.escape(value) + r"(?![\d])", rest)
    if end is None:
        return None
    m = _CHAIN.search(rest[:end.start() + 1])
    terms = m.group("terms").strip() if m else None
    return terms if terms and terms != expression.strip() else None


def explain(expression: str, claimed: ClaimedValue, claimed_text: str | int, exact: Fraction | None = None
            ) -> TermRounding | None:
    """A ``TermRounding`` when the sentence's own printed ``expression`` explains why its printed value is not the
    exact one: the terms as printed give the claimed value, the exact value (``exact``, the measure's; else the
    expression with its rounded terms read as the exact terms they plainly round, ``expressions.term_readings``) does not,
    and it is one of the numbers the printed terms stand for (``values.printed_terms_interval``). None otherwise."""
    printed = _value(expression)
    span = printed_terms_interval(expression)
    if printed is None or span is None or claimed.decide(printed[0], printed[1]) is not True:
        return None
    read = term_readings(expression)
    reading = _value(read[0]) if read is not None and read[1] else None
    if exact is None:
        if reading is None:
            return None
        exact = reading[2]
    if claimed.contains(exact) or not span[0] <= exact <= span[1]:
        return None
    if other_terms(expression, exact):
        return None
    number = claimed.write_like(exact).lstrip("≈~ ").strip()
    terms: tuple = ()
    # the terms' plain reading names the rounding only when it gives the exact value (to well within its printing)
    if reading is not None and abs(reading[2] - exact) < Fraction(1, 10 ** 9):
        terms = tuple((p, r, _value(r)[2]) for p, r in read[1])
    story = TermRounding(expression, str(claimed_text).lstrip("≈~= ").strip(), printed[2], exact, terms, number,
                         exact_written=claimed.write_like(exact))
    if not terms:
        return story
    target = parse_claimed(number)
    for more in range(1, MORE_PLACES + 1):
        text = expression
        for p, r, v in sorted(terms, key=lambda t: -expression.index(t[0])):
            places = len(p.partition(".")[2]) + more
            at = re.search(r"(?<![\w.])" + re.escape(p) + r"(?![\d])", text)
            if at is None:
                return story
            text = text[:at.start()] + fixed_places(v, places) + text[at.end():]
        again = _value(text)
        # a reader rounds the new printed sum to the new value: both ends of its enclosure round to it (0.8335, at
        # the edge of 0.833, rounds half away to 0.834 and is not taken)
        if again is not None and _rounds_to(again[0], number) and _rounds_to(again[1], number) \
                and target.contains(exact):
            return TermRounding(expression, story.claimed, printed[2], exact, terms, number, text, number,
                                story.exact_written)
    return story
