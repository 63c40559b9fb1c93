"""Claimed values as printed in a chapter, read exactly, and safe arithmetic expressions.

A printed value is an interval (DESIGN.md, "Verdicts"): ``1/4`` is exact, ``.4884``
means [.48835, .48845], ``0.33`` means [0.325, 0.335], ``80%`` means [0.795, 0.805],
``< 1`` is the half-line below one. Words a chapter uses for numbers ("fifty",
"twenty-one", "a fifth") are read too.

An arithmetic expression from the prose (``21/43``, ``3/log2(2) + 2/log2(3)``, ``2^3 - 1``) is
computed exactly while it stays rational and as a certified interval (``mpmath.iv``) once it
does not. Nothing here calls ``eval``.
"""

from __future__ import annotations

import ast
import math
import struct
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from audit.errors import UndecidedError, ValueParseError
from audit.model.limits import (
    MAX_DIGITS,
    MAX_EXPRESSION_CHARS,
    MAX_EXPRESSION_DEPTH,
    MAX_POWER_EXPONENT,
    MAX_TOLERANCE,
    MAX_VALUE_BITS,
    trim,
)

#: Relative tolerance used when a *floating-point* result (from a reference library)
#: is compared with an exact claimed value: float64 cannot hold 1/3 exactly.
FLOAT_TOLERANCE = Fraction(1, 10**9)

#: The relative error bound of a value the chapter's evaluator computes to 50 significant digits (a sum of
#: irrational logarithms: each operation rounds by at most 10^-49 of its result, and a measure makes well under
#: 10^4 of them). A printed bound has at most 30 digits, so the comparison is decided unless the value is this near.
ROUNDING_BOUND = Fraction(1, 10**45)


def _rounded(x: Fraction) -> bool:
    """Whether ``x`` is a 50-significant-digit decimal rounding rather than an exact ratio: its denominator is a
    power of ten's divisor above 10^40 (exact measures have small denominators, or ones with other primes)."""
    d = x.denominator
    if d <= 10**40:
        return False
    while d % 10 == 0:
        d //= 10
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    return d == 1

_APPROX = ("≈", "~", "about ", "approx. ", "approximately ", "roughly ", "around ")
_COMPARATORS = {"<=": ("le",), "≤": ("le",), ">=": ("ge",), "≥": ("ge",), "<": ("lt",), ">": ("gt",)}

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_ORDINAL_DENOMINATORS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4,
    "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7,
    "sevenths": 7, "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10,
    "tenths": 10,
}
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_SCIENTIFIC = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+))[eE]([+-]?\d{1,3})$")
_FRACTION = re.compile(r"^([+-]?\d+)\s*/\s*(\d+)$")
_TOLERANCE = re.compile(r"^(\d+(\.\d*)?|\.\d+)$")


def _digits(text: str, raw: object, what: str = "claimed value") -> None:
    """Refuse a number with more than ``MAX_DIGITS`` digits before it is converted."""
    if sum(ch.isdigit() for ch in text) > MAX_DIGITS:
        raise ValueParseError(f"{what} {trim(raw)} has more than {MAX_DIGITS} digits (the limit); write the "
                              "number as the chapter prints it")


def _tolerance(tolerance: object, nominal: Fraction) -> Fraction:
    """A tolerance as a half-width: a plain decimal, at most ``MAX_TOLERANCE`` × max(1, |claimed|)."""
    text = str(tolerance).strip()
    if isinstance(tolerance, bool) or not _TOLERANCE.match(text):
        raise ValueParseError(f"tolerance {trim(tolerance)} is not a plain non-negative decimal; write a "
                              "half-width such as '0.05'")
    _digits(text, tolerance, "tolerance")
    half = Fraction(Decimal(text))
    bound = MAX_TOLERANCE * max(Fraction(1), abs(nominal))
    if half > bound:
        raise ValueParseError(f"tolerance {text} is wider than the limit {format_decimal(bound)} (a tenth of the "
                              "measure range [0, 1], or of the claimed value when larger); so wide an interval "
                              "would hold almost any value")
    return half


def _word_number(text: str) -> int | None:
    """``"forty-three"`` → 43; ``None`` when ``text`` is not a number word below 100."""
    text = text.strip().lower()
    if text in _UNITS:
        return _UNITS[text]
    if text in _TENS:
        return _TENS[text]
    parts = re.split(r"[-\s]+", text)
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _UNITS and 0 < _UNITS[parts[1]] < 10:
        return _TENS[parts[0]] + _UNITS[parts[1]]
    return None


def _word_fraction(text: str) -> Fraction | None:
    """``"a fifth"`` → 1/5, ``"two thirds"`` → 2/3, ``"half"`` → 1/2."""
    parts = text.strip().lower().split()
    if len(parts) == 1 and parts[0] == "half":
        return Fraction(1, 2)
    if len(parts) == 2 and parts[1] in _ORDINAL_DENOMINATORS:
        numerator = 1 if parts[0] in ("a", "an") else _word_number(parts[0])
        if numerator is not None:
            return Fraction(numerator, _ORDINAL_DENOMINATORS[parts[1]])
    return None


def fixed_places(x: Fraction, places: int) -> str:
    """``x`` written with ``places`` decimals, rounded half away from zero in exact arithmetic (0.0075 → "0.008",
    where a float's 0.0074999… gives "0.007")."""
    n = int(abs(Fraction(x)) * 10 ** places + Fraction(1, 2))
    digits = str(n).rjust(places + 1, "0")
    text = digits[:-places] + "." + digits[-places:] if places else digits
    return ("-" if x < 0 and n else "") + text


@dataclass(frozen=True)
class ClaimedValue:
    """A value as printed in the chapter, with the interval it stands for.

    ``low``/``high`` are exact bounds (``None`` = unbounded); ``nominal`` is the printed
    number itself (``None`` for one-sided claims). ``style`` remembers how it was printed
    ("fraction", "decimal", "integer", "percent", "word") so a correction can be written
    the same way.
    """

    text: str
    nominal: Fraction | None
    low: Fraction | None
    high: Fraction | None
    low_closed: bool = True
    high_closed: bool = True
    style: str = "fraction"
    places: int = 0
    leading_zero: bool = True
    approximate: bool = False

    @property
    def number(self) -> Fraction | None:
        """The one number the value prints: its bound for a one-sided value ("< 1/3": 1/3), else its nominal."""
        if self.low is None:
            return self.high
        if self.high is None:
            return self.low
        return self.nominal

    @property
    def exact(self) -> bool:
        return self.low is not None and self.low == self.high

    def contains(self, value: Fraction | float | int) -> bool:
        """Whether a computed value lies in the claimed interval.

        Exact values (``Fraction``, ``int``) are compared exactly; a ``float`` from a
        reference library may miss an exact bound by ``FLOAT_TOLERANCE`` (relative; at most an eighth of a printed
        interval, so a value printed to twelve places still holds the float nearest it). NaN lies in no interval;
        an infinity only in an interval unbounded on its side.
        """
        if isinstance(value, float):
            if math.isnan(value):
                return False
            if math.isinf(value):
                return (self.high is None) if value > 0 else (self.low is None)
            x = Fraction(value)
            slack = max(abs(x), Fraction(1)) * FLOAT_TOLERANCE
            if self.low is not None and self.high is not None and self.high > self.low:
                # a value printed to more places than the tolerance ("0.666666666667", twelve) is narrower than it:
                # the slack, which narrows an open bound, stays a small part of the printed interval
                slack = min(slack, (self.high - self.low) / 8)
        else:
            x = Fraction(value)
            slack = Fraction(0)
            if _rounded(x):
                self._decided(x)
        return self._inside(x, slack)

    def _inside(self, x: Fraction, slack: Fraction = Fraction(0)) -> bool:
        # Float slack widens a closed bound; an open bound ("< 1") is never met by a value
        # within the slack of it, so a float that may really equal the bound does not pass.
        if self.low is not None:
            if self.low_closed and x < self.low - slack:
                return False
            if not self.low_closed and x <= self.low + slack:
                return False
        if self.high is not None:
            if self.high_closed and x > self.high + slack:
                return False
            if not self.high_closed and x >= self.high - slack:
                return False
        return True

    def _decided(self, x: Fraction) -> None:
        """Raise ``UndecidedError`` when ``x``, a 50-digit rounding (``_rounded``), is within its error bound of a
        bound of the interval, so that the rounding could decide the comparison."""
        margin = max(abs(x), Fraction(1)) * ROUNDING_BOUND
        for bound in (self.low, self.high):
            if bound is not None and abs(x - bound) <= margin:
                raise UndecidedError(f"the computed value {float(x):.17g} lies within {float(margin):.0e} of the "
                                     f"printed bound {bound} of “{self.text}”, nearer than its 50-digit rounding "
                                     "can decide")

    def decide(self, lo: Fraction, hi: Fraction) -> bool | None:
        """Whether a certified enclosure [lo, hi] of a value lies in the claimed interval.

        True when all of [lo, hi] is inside, False when none of it is, ``None`` when it
        straddles a bound (a narrower enclosure may still decide). Compared exactly.
        """
        lo, hi = Fraction(lo), Fraction(hi)
        if self._inside(lo) and self._inside(hi):  # the claimed interval is convex
            return True
        below = self.low is not None and (hi < self.low or (hi == self.low and not self.low_closed))
        above = self.high is not None and (lo > self.high or (lo == self.high and not self.high_closed))
        return False if below or above else None

    def interval(self) -> str:
        """The interval in plain notation: ``1/4`` (exact), ``[0.48835, 0.48845]``, ``< 1``."""
        if self.exact:
            return format_exact(self.low)
        if self.low is None and self.high is not None:
            return ("≤ " if self.high_closed else "< ") + format_decimal(self.high)
        if self.high is None and self.low is not None:
            return ("≥ " if self.low_closed else "> ") + format_decimal(self.low)
        # as many places as tell the two ends apart (a value printed to 16 digits spans 1e-16, not "[0.53254, 0.53254]")
        places = 6
        while format_decimal(self.low, places) == format_decimal(self.high, places) and places < 20:
            places += 1
        if places > 6:
            places += 1   # one place more, so that the ends are shown as they are, not rounded apart
        return f"[{format_decimal(self.low, places)}, {format_decimal(self.high, places)}]"

    def write_like(self, value: Fraction | float, *, exact: bool = True) -> str:
        """``value`` printed the way this claim was printed (for a proposed correction).

        ``exact=False`` marks ``value`` as the midpoint of a certified enclosure of an irrational
        value: a fraction-style claim is then corrected to a 10-significant-digit decimal (``≈ 6.148712314``).
        """
        v = Fraction(value)
        if (self.low is None) != (self.high is None):  # a bound ("< 1/3") is corrected to a bound the value keeps
            return self._bound_like(v)
        # a value carried to 50 digits (a logarithm, a root: nDCG, DCG, GMAP) has no short exact form either
        if (not exact or v.denominator > 10**12) and self.style not in ("decimal", "percent"):
            return f"≈ {float(v):.10g}"
        if self.style in ("decimal", "percent"):
            scale = 100 if self.style == "percent" else 1
            text = fixed_places(v * scale, self.places)
            if not self.leading_zero and text.startswith("0."):
                text = text[1:]
            text += "%" if self.style == "percent" else ""
            return ("≈ " if self.approximate or v * scale != Fraction(text.rstrip("%")) else "") + text
        if self.style == "scientific":
            text = repr(float(v)) if self.places >= FLOAT_REPR_DIGITS - 1 else f"{float(v):.{self.places}e}"
            return ("≈ " if self.approximate or Fraction(Decimal(text)) != v else "") + text
        if v.denominator == 1:
            return str(v.numerator)
        if self.style == "word" and (words := fraction_words(v)):
            return words
        if self.style in ("fraction", "word", "integer"):
            return f"{v.numerator}/{v.denominator}"
        return f"≈ {float(v):.4f}"

    def _bound_like(self, v: Fraction) -> str:
        """The simplest bound on ``v`` in this bound's direction, written in its style: the nearest fraction with
        a denominator up to 10 on the right side of ``v`` (strictly, for "<" and ">"), or for a decimal or
        percentage the value rounded away from ``v`` at the printed places. 3619/9540 ≈ 0.379 under "< 1/3"
        becomes "< 2/5" (as words, "two fifths"); over "> 0.5" it becomes "> 0.3"."""
        upper = self.high is not None
        closed = self.high_closed if upper else self.low_closed
        sign = ("≤ " if closed else "< ") if upper else ("≥ " if closed else "> ")

        def keeps(b: Fraction) -> bool:
            return (b > v or (closed and b == v)) if upper else (b < v or (closed and b == v))

        if self.style == "scientific":
            digits = max(self.places, 2)
            text = f"{float(v):.{digits}e}"
            b = Fraction(Decimal(text))
            while not keeps(b):
                b += Fraction(10) ** (int(text.split("e")[1]) - digits) * (1 if upper else -1)
                text = f"{float(b):.{digits}e}"
                b = Fraction(Decimal(text))
            return sign + text
        if self.style in ("decimal", "percent"):
            scale = 100 if self.style == "percent" else 1
            step = Fraction(1, 10 ** self.places)
            b = (v * scale / step).__ceil__() * step if upper else (v * scale / step).__floor__() * step
            while not keeps(b / scale):
                b += step if upper else -step
            text = f"{float(b):.{self.places}f}"
            if not self.leading_zero and text.startswith("0."):
                text = text[1:]
            return sign + text + ("%" if self.style == "percent" else "")
        candidates = [Fraction(n, d) for d in range(1, 11) for n in range(-10 * d, 10 * d + 1)]
        kept = [b for b in candidates if keeps(b)]
        if not kept:
            return sign + format_exact(v)
        b = min(kept) if upper else max(kept)
        words = fraction_words(b) if self.style == "word" else ""
        return sign + (words or format_exact(b))


_UNIT_WORDS = {n: w for w, n in _UNITS.items()}
_ORDINAL_WORDS = {2: ("half", "halves"), 3: ("third", "thirds"), 4: ("quarter", "quarters"), 5: ("fifth", "fifths"),
                  6: ("sixth", "sixths"), 7: ("seventh", "sevenths"), 8: ("eighth", "eighths"), 9: ("ninth", "ninths"),
                  10: ("tenth", "tenths")}


def fraction_words(v: Fraction) -> str:
    """A proper fraction with a denominator up to 10 in words ("a third", "two fifths"); '' for any other value.
    The inverse of ``_word_fraction``."""
    if not 0 < v < 1 or v.denominator not in _ORDINAL_WORDS:
        return ""
    one, many = _ORDINAL_WORDS[v.denominator]
    return f"a {one}" if v.numerator == 1 else f"{_UNIT_WORDS[v.numerator]} {many}"


def format_exact(x: Fraction) -> str:
    """An exact value as an integer or a reduced fraction (lossless; see ``display``)."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def display(exact: str | None) -> str:
    """An exact value for people: small fractions as written, long ones (nDCG carried to 50
    digits because its logarithms are irrational) as a 6-place decimal."""
    if exact is None:
        return "—"
    x = Fraction(exact)
    return exact if x.denominator <= 10**6 else f"{float(x):.6f}"


def format_certified(lo: Fraction, hi: Fraction, digits: int = 10) -> str:
    """A certified enclosure [lo, hi] of an irrational value for people: its midpoint to ``digits``
    significant digits, marked ``(certified)`` (``≈ 6.148712314 (certified)``), never the long
    dyadic fraction the enclosure is made of."""
    return f"≈ {float((Fraction(lo) + Fraction(hi)) / 2):.{digits}g} (certified)"


def format_decimal(x: Fraction | float, places: int = 6) -> str:
    """A value as a decimal with trailing zeros removed (``0.48835``)."""
    text = (f"{float(x):.{places}f}" if places <= 15 or isinstance(x, float) else
            _fraction_places(Fraction(x), places)).rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def _fraction_places(x: Fraction, places: int) -> str:
    """``x`` to ``places`` decimal places, exactly (beyond a double's digits)."""
    scaled = round(abs(x) * 10 ** places)
    digits = str(scaled).rjust(places + 1, "0")
    return ("-" if x < 0 and scaled else "") + digits[:-places] + "." + digits[-places:]


#: Spaces typeset between digit groups or around operators: thin (U+2009), narrow no-break (U+202F), no-break
#: (U+00A0), figure (U+2007); LaTeX's thin space ``\,``.
_TYPESET_SPACE = re.compile(r"[\u2009\u202f\u00a0\u2007]|\\,|\\ ")
#: A whole number printed in groups of three: "1,048,576", "1{,}048{,}576" (LaTeX), "1 048 576" (after the typeset
#: spaces are plain); its first group has no leading zero, so "0{,}611" (a decimal comma) is not one.
_GROUPED = re.compile(r"(?<![\d.,])([1-9]\d{0,2})((?:(?:\{,\}| )\d{3})+)(?![\d{])")


def plain_number_text(text: str) -> str:
    """``text`` with numbers as typesetting prints them made plain: the minus sign U+2212 as ``-``, thin and no-break
    spaces as spaces, the approximation marks ``≅`` and ``≃`` as ``≈``, thousands separators in LaTeX (``1{,}048{,}576``) or as spaces (``1 048 576``) removed, and a
    LaTeX percent sign ``\\%`` as ``%``. Other text is kept as it is."""
    out = text.replace("\u2212", "-").replace("\\%", "%").replace("\u2245", "≈").replace("\u2243", "≈")
    out = _TYPESET_SPACE.sub(" ", out)
    return _GROUPED.sub(lambda m: m.group(1) + re.sub(r"\{,\}| ", "", m.group(2)), out)


def parse_claimed(text: str | int | float, *, tolerance: str | None = None) -> ClaimedValue:
    """Read a claimed value as printed in a chapter.

    Accepts fractions (``1/4``), integers (``43``, ``1,048,576``, ``1{,}048{,}576``, ``1 048 576`` with thin
    spaces), decimals (``.4884``, ``0.33``, ``−0.05`` with the typeset minus), percentages (``80%``, ``80\\%``), number words (``fifty``, ``a fifth``), an approximation mark
    (``≈``, ``about``), a comparator (``< 1``) or an equals sign (``= .04``, as a p-value is printed). ``tolerance`` (e.g. ``"0.05"``) widens a
    value the chapter gives loosely ("about 0.9") to ±tolerance.

    Raises ``ValueParseError`` naming what was found and what is accepted.
    """
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise ValueParseError(f"expected a value as printed in the chapter (e.g. '1/4', '≈ .4884'), found {trim(text)}")
    if isinstance(text, float):
        raise ValueParseError(
            f"write decimals as quoted text exactly as printed (e.g. \"{text}\"), so printed precision is kept; found the number {text!r}")
    if isinstance(text, int) and abs(text) >= 10**MAX_DIGITS:
        raise ValueParseError(f"claimed value has more than {MAX_DIGITS} digits (the limit); write the number as "
                              "the chapter prints it")
    raw = str(text)
    # the minus sign typeset as U+2212 (−0.05) is the hyphen-minus; "p = .04" prints its value after "="
    s = plain_number_text(raw).strip()
    if s.startswith("=") and not s.startswith("=="):
        s = s[1:].strip()
    approximate = False
    for mark in _APPROX:
        if s.lower().startswith(mark.strip() if mark.strip() in ("≈", "~") else mark):
            approximate = True
            s = s[len(mark.strip()) if mark.strip() in ("≈", "~") else len(mark):].strip()
            break
    comparator = None
    for sym in ("<=", ">=", "≤", "≥", "<", ">"):
        if s.startswith(sym):
            comparator = _COMPARATORS[sym][0]
            s = s[len(sym):].strip()
            break
    if re.fullmatch(r"[-+]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?", s):  # 1,048,576: thousands separators
        s = s.replace(",", "")
    elif re.fullmatch(r"[-+]?\d+,\d+\s*%?", s):  # 0,611: a decimal comma, never a thousands separator after a 0 group
        raise ValueParseError(f"cannot read claimed value {trim(raw)}: it looks like a decimal comma; write the "
                              "value with a decimal point as the register reads it ('0.611'), or, for thousands, in "
                              "groups of three ('1,048,576')")
    nominal, style, places, leading_zero, half = _parse_number(s, raw)
    if tolerance is not None:
        half = _tolerance(tolerance, nominal)
        approximate = True
    if comparator:
        if comparator in ("lt", "le"):
            return ClaimedValue(raw, None, None, nominal, high_closed=comparator == "le", style=style,
                                places=places, leading_zero=leading_zero)
        return ClaimedValue(raw, None, nominal, None, low_closed=comparator == "ge", style=style,
                            places=places, leading_zero=leading_zero)
    low_closed = high_closed = True
    if tolerance is None and style in ("decimal", "scientific") and _float_repr(s):
        # a float's repr (0.8015241702741703, what Python prints for a double): it stands for a double computed in
        # floating point, so for any number within FLOAT_REPR_ULPS units in its last place, not only the 1e-17
        # its digits would say; a double that is exactly a single-precision number (0.5325397253036499, what
        # PyTorch's float32 tensors print through .item()) stands for a float32 computation, in float32's units
        ulp = Fraction(math.ulp(float(nominal)))
        if _single_precision(float(nominal)):
            ulp *= 2 ** 29   # float32 keeps 24 significant bits to a double's 53
        half = max(half, FLOAT_REPR_ULPS * ulp)
    elif tolerance is None and half and style in ("decimal", "percent"):
        # the numbers that round to the printed digits: a tie rounds half away from zero (0.375 → 0.38) or half to
        # even (0.125 → 0.12), so the tie beyond the printed number's magnitude belongs to it only when its last
        # digit is even: 0.37 stands for [0.365, 0.375), which 3/8 = 0.375 is not in; 0.12 for [0.115, 0.125]
        last = int(abs(nominal) * (100 if style == "percent" else 1) * 10 ** places) % 10
        if nominal >= 0:
            high_closed = last % 2 == 0
        else:
            low_closed = last % 2 == 0
    return ClaimedValue(raw, nominal, nominal - half, nominal + half, low_closed=low_closed,
                        high_closed=high_closed, style=style, places=places, leading_zero=leading_zero,
                        approximate=approximate)


#: How many units in the last place of a double a printed float repr allows: a short computation in floating point
#: (a mean with numpy, a sum of a few terms) is off from the exact value by a few (numpy's mean of four APs: one).
FLOAT_REPR_ULPS = 4
#: The significant digits from which a printed decimal is a float's repr (repr gives 15 to 17 for most doubles).
FLOAT_REPR_DIGITS = 15


def _single_precision(value: float) -> bool:
    """Whether ``value`` is exactly a 32-bit float (and not a short decimal, which every format holds)."""
    try:
        narrowed = struct.unpack("f", struct.pack("f", value))[0]
    except (OverflowError, struct.error):
        return False
    return narrowed == value and value != round(value, 6)


def _float_repr(text: str) -> bool:
    """Whether ``text``, a decimal, is printed to a double's full precision (15 or more significant digits)."""
    digits = re.sub(r"[^0-9]", "", text.split("e")[0].split("E")[0]).lstrip("0")
    return len(digits) >= FLOAT_REPR_DIGITS


def _parse_number(s: str, raw: str) -> tuple[Fraction, str, int, bool, Fraction]:
    """(value, style, decimal places, leading zero, half-width of the printed precision)."""
    _digits(s, raw)
    if _FRACTION.match(s):
        m = _FRACTION.match(s)
        if int(m.group(2)) == 0:
            raise ValueParseError(f"claimed value {raw!r} divides by zero")
        return Fraction(int(m.group(1)), int(m.group(2))), "fraction", 0, True, Fraction(0)
    percent = s.endswith("%")
    body = s[:-1].strip() if percent else s
    sci = None if percent else _SCIENTIFIC.match(body)
    if sci:
        # 1.67e-35, as scipy prints a small p-value: the digits of the mantissa set the precision, times the power
        places = len(sci.group(1).split(".")[1]) if "." in sci.group(1) else 0
        value = Fraction(Decimal(body))
        half = Fraction(1, 2 * 10**places) * Fraction(10) ** int(sci.group(2))
        return value, "scientific", places, True, half
    if _NUMBER.match(body):
        places = len(body.split(".")[1]) if "." in body else 0
        value = Fraction(Decimal(body))
        half = Fraction(1, 2 * 10**places) if "." in body else Fraction(0)
        leading_zero = not body.lstrip("+-").startswith(".")
        if percent:
            # 80% is printed to whole percents: [79.5%, 80.5%].
            return value / 100, "percent", places, True, Fraction(1, 2 * 10**places) / 100
        return value, ("decimal" if "." in body else "integer"), places, leading_zero, half
    word = _word_number(s)
    if word is not None:
        return Fraction(word), "word", 0, True, Fraction(0)
    frac = _word_fraction(s)
    if frac is not None:
        return frac, "word", 0, True, Fraction(0)
    raise ValueParseError(
        f"cannot read claimed value {trim(raw)}; expected a fraction ('1/4'), a decimal ('.4884', '0.33'), "
        "an integer, a percentage ('80%'), a number in e-notation ('1.67e-35'), a number word ('fifty', 'a fifth'), "
        "optionally after '≈' or a comparator ('< 1')")


# --- arithmetic expressions ----------------------------------------------------------------------

#: Significant digits an inexact expression value is certified to by default: the enclosure
#: [lo, hi] from ``expression_interval`` has hi − lo < 10**-digits × max(1, |lo|, |hi|).
CERTIFIED_DIGITS = 40

#: The names an expression may call, with the number of arguments each takes. ``log(x)`` is the
#: natural logarithm (as Python's ``math.log``), ``log(x, b)`` the logarithm to base b; ``ln``,
#: ``log2``, ``log10``, ``sqrt`` and ``exp`` are what they say. A text whose "log" means log base 2
#: (as DCG formulas often do) must be written ``log2`` or ``log(x, 2)``: nothing is guessed.
FUNCTIONS = {"log": (1, 2), "ln": (1, 1), "log2": (1, 1), "log10": (1, 1), "sqrt": (1, 1), "exp": (1, 1)}
_FUNCTION_NAMES = "log(x), log(x, b), ln(x), log2(x), log10(x), sqrt(x), exp(x)"
_ACCEPTED = (f"numbers, + - * / (× · x), powers (** or ^), parentheses and {_FUNCTION_NAMES}; LaTeX \\frac, "
             "\\log_2, \\cdot, \\times, \\sqrt and \\sum with numeric limits")
#: "ln 2", "log2 3": a function name followed by a plain number is a call on that number.
_SPOKEN_CALL = re.compile(r"\b(ln|log2|log10|log|sqrt|exp)[ \t]+(\d+(?:\.\d*)?|\.\d+)(?![\w.(])")
#: exp(t) stays within 2**±MAX_VALUE_BITS when |t| ≤ this bound (0.693 < ln 2 = 0.693147…).
_EXP_ARGUMENT = MAX_VALUE_BITS * Fraction(693, 1000)
_OPERATORS = {ast.Mod: "%", ast.FloorDiv: "//", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>",
              ast.BitOr: "|", ast.BitAnd: "&", ast.Not: "not", ast.Invert: "~"}
_NODE_NAMES = {ast.Lambda: "a lambda", ast.ListComp: "a comprehension", ast.SetComp: "a comprehension",
               ast.DictComp: "a comprehension", ast.GeneratorExp: "a generator expression",
               ast.Compare: "a comparison", ast.BoolOp: "a boolean operator", ast.IfExp: "a conditional",
               ast.Subscript: "a subscript", ast.NamedExpr: "an assignment", ast.JoinedStr: "an f-string",
               ast.List: "a list", ast.Tuple: "a tuple", ast.Set: "a set", ast.Dict: "a dict",
               ast.Starred: "an unpacking (*)", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield"}


def _bits(digits: int) -> int:
    """Working precision in bits for ``digits`` significant decimal digits, with a 40-bit margin."""
    return math.ceil(digits * math.log2(10)) + 40


def _iroot(n: int, q: int) -> int | None:
    """The integer r ≥ 0 with r**q == n, or ``None`` (``n`` ≥ 0, ``q`` ≥ 1)."""
    if n < 2 or q == 1:
        return n
    if q >= n.bit_length():  # r ≥ 2 would need n ≥ 2**q
        return None
    x = 1 << -(-n.bit_length() // q)  # above the root; Newton's integer iteration comes down to it
    while True:
        y = ((q - 1) * x + n // x ** (q - 1)) // q
        if y >= x:
            break
        x = y
    return x if x ** q == n else None


def fmt_float(x: float | Fraction | None) -> str:
    """Four decimals; a value that would show as 0.0000 but is not 0 with two significant digits (1e-05), so a
    difference shown is never hidden by rounding."""
    if x is None:
        return "—"
    v = float(x)
    return f"{v:.2g}" if v != 0 and abs(v) < 0.00005 else f"{v:.4f}"


def exact_root(x: Fraction, q: int) -> Fraction | None:
    """x**(1/q) when it is rational (numerator and denominator perfect q-th powers), else ``None``
    (``x`` ≥ 0)."""
    n, d = _iroot(x.numerator, q), _iroot(x.denominator, q)
    return Fraction(n, d) if n is not None and d is not None else None


def _is_prime(p: int) -> bool:
    return p >= 2 and all(p % f for f in range(2, math.isqrt(p) + 1))


def _primitive(x: Fraction) -> tuple[Fraction, int]:
    """(r, m) with x = r**m, r > 1 and r not a perfect power of a rational (``x`` > 0, ``x`` ≠ 1)."""
    sign = 1
    if x < 1:
        x, sign = 1 / x, -1
    n, d, m, p = x.numerator, x.denominator, 1, 2
    while p < n.bit_length():  # n > d ≥ 1, and n = s**p with s ≥ 2 needs p < bit length of n
        rn = _iroot(n, p)
        rd = _iroot(d, p) if rn is not None else None
        if rn is not None and rd is not None:
            n, d, m = rn, rd, m * p
            continue
        p += 1
        while not _is_prime(p):
            p += 1
    return Fraction(n, d), sign * m


def _rational_log(x: Fraction, base: Fraction) -> Fraction | None:
    """log_base(x) when it is rational, else ``None`` (``x``, ``base`` > 0, ``base`` ≠ 1).

    With x = r**m and base = s**k (r, s > 1, neither a perfect power), log_base(x) = m/k when
    r = s and is irrational otherwise: x**q = base**p would make the prime-exponent vectors of r
    and s proportional, and each has greatest common divisor 1.
    """
    if x == 1:
        return Fraction(0)
    r, m = _primitive(x)
    s, k = _primitive(base)
    return Fraction(m, k) if r == s else None


def _endpoints(value) -> tuple[Fraction, Fraction] | None:
    """The exact endpoints of an ``mpmath.iv`` interval (``None`` if one is infinite or NaN).

    mpmath keeps an interval's endpoints as raw binary floats (sign, mantissa, exponent, bits)
    in ``_mpi_``; each is a dyadic rational, converted without rounding.
    """
    from mpmath import libmp

    ends = []
    for raw in value._mpi_:
        if raw in (libmp.finf, libmp.fninf, libmp.fnan):
            return None
        p, q = libmp.to_rational(raw)
        ends.append(Fraction(p, q))
    return ends[0], ends[1]


class _Undecided(Exception):
    """An enclosure holds a point where an operation changes meaning (a divisor's zero, a
    logarithm's or square root's domain edge, a logarithm base of 1) at this precision."""

    def __init__(self, where: str, question: str) -> None:
        super().__init__(f"{where} {question}")
        self.where, self.question = where, question


class _Evaluation:
    """One walk of an expression's syntax tree at one working precision.

    Values are exact ``Fraction`` while every step stays rational; a step that leaves the
    rationals gives an ``mpmath.iv`` interval (outward rounding at ``prec`` bits), and so does
    every later step that uses it.
    """

    def __init__(self, text: object, source: str, prec: int) -> None:
        self.text, self.source, self.prec = text, source, prec
        self._iv = None

    @property
    def iv(self):
        if self._iv is None:
            from mpmath.ctx_iv import MPIntervalContext

            self._iv = MPIntervalContext()  # a context of its own: mpmath.iv.prec is global state
            self._iv.prec = self.prec
        return self._iv

    # --- messages ---

    def refuse(self, message: str) -> ValueParseError:
        return ValueParseError(f"expression {trim(self.text)} {message}")

    def segment(self, node: ast.AST) -> str:
        return trim(ast.get_source_segment(self.source, node) or type(node).__name__, 60)

    def show(self, value) -> str:
        """``= 3/2`` for a short exact value, ``≈ 1.41421`` otherwise."""
        if isinstance(value, Fraction):
            return "= " + format_exact(value) if len(format_exact(value)) <= 20 else f"≈ {float(value):.6g}"
        lo, hi = self.ends(value)
        return f"≈ {float((lo + hi) / 2):.6g}"

    def too_large(self, node: ast.AST) -> ValueParseError:
        return self.refuse(f"has a value beyond {MAX_VALUE_BITS} bits at {self.segment(node)} (the limit: "
                           f"numerators, denominators and magnitudes below 2**{MAX_VALUE_BITS}, about 1e301)")

    def describe(self, node: ast.AST) -> str:
        seg = self.segment(node)
        if isinstance(node, ast.Name):
            return f"the name {node.id!r}"
        if isinstance(node, ast.Attribute):
            return f"the attribute access {seg}"
        if isinstance(node, ast.Constant):
            return f"the {type(node.value).__name__} constant {seg}"
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and type(node.op) in _OPERATORS:
            return f"the operator {_OPERATORS[type(node.op)]!r} in {seg}"
        return f"{_NODE_NAMES.get(type(node), type(node).__name__)} {seg}"

    # --- values ---

    def interval(self, value):
        if isinstance(value, Fraction):
            return self.iv.mpf(value.numerator) / self.iv.mpf(value.denominator)
        return value

    def ends(self, value) -> tuple[Fraction, Fraction]:
        ends = _endpoints(value)
        if ends is None:
            raise self.refuse(f"has an infinite value (beyond 2**{MAX_VALUE_BITS}, the limit)")
        return ends

    def bounded(self, value, node: ast.AST):
        """``value`` if it is within ``MAX_VALUE_BITS``, else refused naming ``node``."""
        if isinstance(value, Fraction):
            if (abs(value.numerator).bit_length() > MAX_VALUE_BITS
                    or value.denominator.bit_length() > MAX_VALUE_BITS):
                raise self.too_large(node)
            return value
        ends = _endpoints(value)
        if ends is None or max(abs(ends[0]), abs(ends[1])) >= 2 ** MAX_VALUE_BITS:
            raise self.too_large(node)
        return value

    def nonzero(self, value, node: ast.AST, message: str) -> None:
        if isinstance(value, Fraction):
            if value == 0:
                raise self.refuse(message)
            return
        lo, hi = self.ends(value)
        if lo <= 0 <= hi:
            raise _Undecided(self.segment(node), "is zero")

    def positive(self, value, node: ast.AST, message: str) -> None:
        if isinstance(value, Fraction):
            if value <= 0:
                raise self.refuse(message)
            return
        lo, hi = self.ends(value)
        if hi <= 0:
            raise self.refuse(message)
        if lo <= 0:
            raise _Undecided(self.segment(node), "is positive")

    def exp_argument(self, value, node: ast.AST) -> None:
        size = abs(value) if isinstance(value, Fraction) else max(map(abs, self.ends(value)))
        if size > _EXP_ARGUMENT:
            raise self.refuse(f"takes the exponential of {self.segment(node)}: its argument {self.show(value)} is "
                              f"beyond ±{float(_EXP_ARGUMENT):g}: the result would pass 2**±{MAX_VALUE_BITS} "
                              "(the limit)")

    # --- the walk ---

    def walk(self, node: ast.AST):  # recursion depth is bounded by MAX_EXPRESSION_CHARS
        if isinstance(node, ast.Expression):
            return self.walk(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            literal = ast.get_source_segment(self.source, node) or ""
            if not _NUMBER.match(literal):
                raise self.refuse(f"contains the number {trim(literal)}; write numbers as plain decimals (no "
                                  "exponent, no underscores)")
            _digits(literal, literal, "a number in the expression")
            return Fraction(Decimal(literal))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = self.walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow,
                                                                ast.BitXor)):
            left, right = self.walk(node.left), self.walk(node.right)
            if isinstance(node.op, (ast.Pow, ast.BitXor)):
                return self.power(left, right, node)
            if isinstance(node.op, ast.Div):
                self.nonzero(right, node.right, f"divides by zero: {self.segment(node.right)} is 0 in "
                                                f"{self.segment(node)}")
            if not (isinstance(left, Fraction) and isinstance(right, Fraction)):
                left, right = self.interval(left), self.interval(right)
            if isinstance(node.op, ast.Add):
                value = left + right
            elif isinstance(node.op, ast.Sub):
                value = left - right
            elif isinstance(node.op, ast.Mult):
                value = left * right
            else:
                value = left / right
            return self.bounded(value, node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.refuse(f"contains {self.describe(node)}; only {_ACCEPTED} are allowed")

    def call(self, node: ast.Call):
        func, seg = node.func, self.segment(node)
        if not isinstance(func, ast.Name):
            raise self.refuse(f"calls {self.segment(func)}; only {_FUNCTION_NAMES} may be called (no attribute "
                              "access, no other callables)")
        name = func.id
        if name not in FUNCTIONS:
            raise self.refuse(f"calls {name!r}; only {_FUNCTION_NAMES} may be called")
        if node.keywords:
            raise self.refuse(f"passes a keyword argument in {seg}; write arguments by position, e.g. log(8, 2)")
        if any(isinstance(arg, ast.Starred) for arg in node.args):
            raise self.refuse(f"unpacks arguments with * in {seg}; write each argument")
        low, high = FUNCTIONS[name]
        if not low <= len(node.args) <= high:
            takes = "one argument x, or x and a base b" if high == 2 else "one argument"
            raise self.refuse(f"calls {name} with {len(node.args)} arguments in {seg}; {name} takes {takes}")
        args = [self.walk(arg) for arg in node.args]
        if name in ("log", "ln"):
            return self.log(args[0], args[1] if len(args) == 2 else None, node)
        if name == "log2":
            return self.log(args[0], Fraction(2), node)
        if name == "log10":
            return self.log(args[0], Fraction(10), node)
        if name == "sqrt":
            return self.sqrt(args[0], node)
        return self.exp(args[0], node)

    def log(self, x, base, node: ast.Call):
        arg, seg = node.args[0], self.segment(node)
        self.positive(x, arg, f"takes the logarithm of {self.segment(arg)} {self.show(x)} in {seg}; a logarithm "
                              "needs a positive argument")
        if base is not None:
            where = node.args[1] if len(node.args) == 2 else node
            self.positive(base, where, f"takes a logarithm to base {self.segment(where)} {self.show(base)} in "
                                       f"{seg}; the base must be positive")
            if isinstance(base, Fraction):
                if base == 1:
                    raise self.refuse(f"takes a logarithm to base 1 in {seg}, which divides by log(1) = 0")
            else:
                lo, hi = self.ends(base)
                if lo <= 1 <= hi:
                    raise _Undecided(self.segment(where), "is 1")
        if isinstance(x, Fraction):
            if x == 1:
                return Fraction(0)
            if isinstance(base, Fraction):
                exact = _rational_log(x, base)
                if exact is not None:
                    return exact
        value = self.iv.log(self.interval(x))
        if base is not None:
            value = value / self.iv.log(self.interval(base))
        return self.bounded(value, node)

    def sqrt(self, x, node: ast.Call):
        arg = node.args[0]
        message = (f"takes the square root of {self.segment(arg)} {self.show(x)}, which is negative, in "
                   f"{self.segment(node)}")
        if isinstance(x, Fraction):
            if x < 0:
                raise self.refuse(message)
            root = exact_root(x, 2)
            if root is not None:
                return root
        else:
            lo, hi = self.ends(x)
            if hi < 0:
                raise self.refuse(message)
            if lo < 0:
                raise _Undecided(self.segment(arg), "is negative")
        return self.bounded(self.iv.sqrt(self.interval(x)), node)

    def exp(self, x, node: ast.Call):
        if isinstance(x, Fraction) and x == 0:
            return Fraction(1)
        self.exp_argument(x, node)
        return self.bounded(self.iv.exp(self.interval(x)), node)

    def power(self, base, exponent, node: ast.BinOp):
        left, right, seg = node.left, node.right, self.segment(node)
        size = abs(exponent) if isinstance(exponent, Fraction) else max(map(abs, self.ends(exponent)))
        if size > MAX_POWER_EXPONENT:
            raise self.refuse(f"raises to the power {self.segment(right)} {self.show(exponent)} in {seg}; "
                              f"exponents are limited to ±{MAX_POWER_EXPONENT} (the limit)")
        if isinstance(exponent, Fraction) and exponent.denominator == 1:
            k = exponent.numerator
            if k == 0:
                return Fraction(1)
            if k < 0:
                self.nonzero(base, left, f"divides by zero: {self.segment(left)} is 0 and is raised to a "
                                         f"negative power in {seg}")
            if isinstance(base, Fraction):
                bits = max(abs(base.numerator).bit_length(), base.denominator.bit_length())
                if abs(k) * (bits - 1) > MAX_VALUE_BITS:  # |base**k| ≥ 2**(|k|·(bits − 1))
                    raise self.too_large(node)
                return self.bounded(base ** k, node)
            return self.bounded(self.interval(base) ** k, node)
        not_real = (f"raises {self.segment(left)} {self.show(base)}, a negative number, to the non-integer "
                    f"power {self.segment(right)} in {seg}; the result is not a real number")
        if isinstance(base, Fraction):
            if base == 1:
                return Fraction(1)
            if base == 0:
                self.positive(exponent, right, f"divides by zero: 0 is raised to the power "
                                               f"{self.segment(right)} ≤ 0 in {seg}")
                return Fraction(0)
            if base < 0:
                raise self.refuse(not_real)
            if isinstance(exponent, Fraction):
                root = exact_root(base, exponent.denominator)
                if root is not None:
                    return self.power(root, Fraction(exponent.numerator), node)
        else:
            lo, hi = self.ends(base)
            if hi < 0:
                raise self.refuse(not_real)
            if lo <= 0:
                raise _Undecided(self.segment(left), "is positive")
        t = self.interval(exponent) * self.iv.log(self.interval(base))
        self.exp_argument(t, node)
        return self.bounded(self.iv.exp(t), node)


def _group(text: str, at: int) -> tuple[str, int] | None:
    """The brace group ``{…}`` starting at ``at`` (spaces before it skipped): its content and the index after it, or
    ``None`` when there is none or it does not close."""
    while at < len(text) and text[at] == " ":
        at += 1
    if at >= len(text) or text[at] != "{":
        return None
    depth = 0
    for i in range(at, len(text)):
        depth += (text[i] == "{") - (text[i] == "}")
        if depth == 0:
            return text[at + 1:i], i + 1
    return None


_LATEX_SUM = re.compile(r"\\sum\s*_\s*\{\s*([a-z])\s*=\s*(\d+)\s*\}\s*\^\s*(?:\{\s*(\d+)\s*\}|(\d))\s*")
_LATEX_LOG = re.compile(r"\\log_\s*(?:\{\s*(\d+)\s*\}|(\d+))")
_LATEX_WORDS = ((re.compile(r"\\(?:cdot|times)\b"), "*"), (re.compile(r"\\div\b"), "/"),
                (re.compile(r"\\left\b|\\right\b|\\[,;:! ]|\\quad\b|\$"), " "),
                (re.compile(r"\\(?:ln|exp|sqrt)\b"), lambda m: m.group(0)[1:]), (re.compile(r"\\log\b"), "log"))
#: At most this many terms in a ``\sum`` written out (a longer sum is refused as too long anyway).
MAX_SUM_TERMS = 50


def latex_arithmetic(text: str) -> str:
    """LaTeX arithmetic in the plain notation the expression reader takes: ``\\frac{a}{b}`` (``\\tfrac``,
    ``\\dfrac``) → ``a/b`` (``_fraction``), ``\\log_2(i+1)`` and ``\\log_{2} 3`` → ``log2(…)`` and ``log2 3`` (another base b:
    ``log(…, b)``), ``\\cdot``/``\\times`` → ``*``, ``\\sqrt{x}`` → ``sqrt(x)``, ``\\left(``/``\\right)`` → parentheses,
    ``{…}`` → ``(…)``, ``$`` dropped; a sum ``\\sum_{i=1}^{3}`` followed by one term (a brace group, a fraction, or
    what runs to the next ``+``, ``-``, ``=`` at its level) is written out, ``i`` replaced by 1, 2, 3 in turn.
    Text without a backslash is returned unchanged."""
    if "\\" not in text:
        return text
    out = _LATEX_LOG.sub(lambda m: "log2" if (m.group(1) or m.group(2)) == "2" else
                         "log10" if (m.group(1) or m.group(2)) == "10" else f"log_base{m.group(1) or m.group(2)}", text)
    for _ in range(MAX_EXPRESSION_DEPTH):  # inner fractions first
        before = out
        out = re.sub(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", _fraction, out)
        out = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"sqrt(\1)", out)
        if out == before:
            break
    for pattern, into in _LATEX_WORDS:
        out = pattern.sub(into, out)
    out = _expand_sums(out)
    out = re.sub(r"log_base(\d+)\s*\(([^()]*)\)", r"log(\2, \1)", out)
    out = re.sub(r"log_base(\d+)\s+(\d+(?:\.\d+)?)", r"log(\2, \1)", out)
    return " ".join(out.replace("{", "(").replace("}", ")").split())


def _fraction(m: re.Match) -> str:
    """``\\frac{a}{b}`` as ``a/b``, each part in parentheses unless it is one number or one call (``3/log2(4)``), and
    the whole in parentheses where a neighbour binds tighter than ``/`` (after ``/`` or ``^``, before ``^``)."""
    def part(x: str) -> str:
        x = x.strip()
        return x if re.fullmatch(r"[\d.]+|[a-z]\w*\s*\([^()]*\)", x) else f"({x})"
    out = f"{part(m.group(1))}/{part(m.group(2))}"
    before, after = m.string[:m.start()].rstrip()[-1:], m.string[m.end():].lstrip()[:1]
    return f"({out})" if before in ("/", "^") or after == "^" else out


def _expand_sums(text: str) -> str:
    while True:
        m = _LATEX_SUM.search(text)
        if m is None:
            return text
        var, first, last = m.group(1), int(m.group(2)), int(m.group(3) or m.group(4))
        if last - first + 1 > MAX_SUM_TERMS:
            raise ValueParseError(f"expression {trim(text)} sums more than {MAX_SUM_TERMS} terms (the limit)")
        start = m.end()
        group = _group(text, start)
        if group is not None:
            body, end = group
        else:  # the term runs to the next + - = ≈ at its own level
            depth, end = 0, start
            while end < len(text):
                ch = text[end]
                depth += (ch == "(") - (ch == ")")
                if depth < 0 or (depth == 0 and ch in "+-=≈<>,"):
                    break
                end += 1
            body = text[start:end]
        terms = [re.sub(rf"(?<![A-Za-z_]){var}(?![A-Za-z_])", str(v), body.strip()) for v in range(first, last + 1)]
        text = text[:m.start()] + "(" + " + ".join(f"({t})" for t in terms) + ")" + text[end:]


def _read_expression(text: str) -> tuple[ast.Expression, str]:
    """The syntax tree of an expression and the source it was read from, within the length and
    nesting limits. ``×``/``·`` (and ``x`` between numbers, "0.912 x 10") are read as ``*``, ``÷`` as ``/``, ``−`` as
    ``-``, ``^`` as ``**`` (so ``2^3 - 1`` is (2**3) − 1, with power's precedence), ``ln 2`` as ``ln(2)``, and LaTeX
    (``\\frac``, ``\\log_2``, ``\\cdot``, ``\\sum`` …) as ``latex_arithmetic`` reads it."""
    source = latex_arithmetic(plain_number_text(str(text)))
    source = source.replace("×", "*").replace("·", "*").replace("÷", "/")
    source = re.sub(r"(?<=[\d.)])\s*[xX]\s*(?=[\d.(])", " * ", source)
    if len(source) > MAX_EXPRESSION_CHARS:
        raise ValueParseError(f"expression {trim(text)} is longer than {MAX_EXPRESSION_CHARS} characters (the limit)")
    depth = 0
    for ch in source:  # parentheses are counted before Python's parser, which recurses on them
        depth += (ch == "(") - (ch == ")")
        if depth > MAX_EXPRESSION_DEPTH:
            raise ValueParseError(f"expression {trim(text)} nests parentheses deeper than {MAX_EXPRESSION_DEPTH} "
                                  "(the limit)")
    source = _SPOKEN_CALL.sub(r"\1(\2)", source).replace("^", "**").strip()
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueParseError(f"cannot read expression {trim(text)}; use {_ACCEPTED}")
    return tree, source


def expression_interval(text: str, *, digits: int = CERTIFIED_DIGITS) -> tuple[Fraction, Fraction, bool]:
    """The value of an arithmetic expression from the prose as ``(lo, hi, exact)``.

    ``exact`` is True when every step stays rational (``21/43``, ``2^3 - 1``, ``log2(8)`` = 3,
    ``sqrt(9/4)`` = 3/2, ``10**-2``, ``log(1)`` = 0, ``exp(0)`` = 1): then ``lo == hi`` is the
    value. Otherwise [lo, hi] is a certified enclosure from interval arithmetic (``mpmath.iv``,
    outward rounding) with hi − lo < 10**-digits × max(1, |lo|, |hi|); the working precision
    starts near ``digits`` decimal digits and doubles, up to 4 × ``MAX_VALUE_BITS`` more bits,
    while the enclosure is wider or a step cannot yet be decided.

    Accepts numbers (decimals read from their text, so 0.1 is exactly 1/10), ``+ - * /``,
    unary minus, parentheses, powers written ``**`` or ``^``, and the calls in ``FUNCTIONS``:
    ``log(x)`` natural, ``log(x, b)`` base b, ``ln``, ``log2``, ``log10``, ``sqrt``, ``exp``
    (``ln 2`` is read as ``ln(2)``). The text is read with ``ast.parse`` and walked, never run.

    Raises ``ValueParseError`` naming the expression and what was found: any other syntax or
    name (attribute access, keyword arguments, ``*``, comprehensions, lambdas, ...); division by
    zero; a logarithm of a number ≤ 0 or to base 1; a square root of a negative number; a
    negative number to a non-integer power; an exponent beyond ``MAX_POWER_EXPONENT`` or a value
    beyond ``MAX_VALUE_BITS`` bits (refused before it is computed); and a step still undecided at
    the highest precision (``1/(sqrt(2)**2 - 2)``: is the divisor zero?).
    """
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 1000:
        raise ValueError(f"digits must be an integer from 1 to 1000, not {digits!r}")
    tree, source = _read_expression(text)
    prec = _bits(digits)
    cap = prec + 4 * MAX_VALUE_BITS
    while True:
        try:
            value = _Evaluation(text, source, prec).walk(tree)
        except _Undecided as undecided:
            if prec >= cap:
                raise ValueParseError(
                    f"expression {trim(text)}: cannot decide whether {undecided.where} {undecided.question} even at "
                    f"{prec} bits (about {int(prec * math.log10(2))} digits); it may be exactly at that edge "
                    "(sqrt(2)**2 - 2 is 0 but is computed as an interval): simplify the expression") from None
            prec = min(2 * prec, cap)
            continue
        if isinstance(value, Fraction):
            return value, value, True
        lo, hi = _endpoints(value)
        if hi - lo < Fraction(1, 10**digits) * max(Fraction(1), abs(lo), abs(hi)):
            return lo, hi, False
        if prec >= cap:
            raise ValueParseError(f"expression {trim(text)} cannot be certified to {digits} digits even at {prec} "
                                  "bits: it cancels too many digits; simplify the expression")
        prec = min(2 * prec, cap)


def parse_expression(text: str) -> Fraction:
    """Evaluate an arithmetic expression from the prose: ``21/(21+16)`` → 21/37, ``2^3 - 1`` → 7.

    The value is exact when every step stays rational; otherwise (``2/log2(3)``, ``sqrt(2)``) it
    is the midpoint of a certified enclosure narrower than 10**-``CERTIFIED_DIGITS`` ×
    max(1, |value|). ``expression_interval`` gives the enclosure and tells the two apart; it
    lists what is accepted. Raises ``ValueParseError`` on anything else, on a domain error
    (division by zero, log of a number ≤ 0, square root of a negative number) or past a limit.
    """
    lo, hi, exact = expression_interval(text)
    return lo if exact else (lo + hi) / 2


def parse_interval(text: str) -> tuple[ClaimedValue, ClaimedValue]:
    """A printed confidence interval, ``"[0.01, 0.09]"`` or ``"(-0.02, 0.10)"`` or ``"0.01 to 0.09"``: its two
    endpoints, each as ``parse_claimed`` reads a printed number (``0.01`` stands for [0.005, 0.015]).

    Raises ``ValueParseError`` when the text is not two numbers with the lower first."""
    s = str(text).strip().replace("−", "-").replace("–", "-")
    m = re.fullmatch(r"[\[(]\s*(.+?)\s*[,;]\s*(.+?)\s*[\])]|(.+?)\s+to\s+(.+)", s)
    if m is None:
        raise ValueParseError(f"cannot read {text!r} as an interval; write it as printed, e.g. \"[0.01, 0.09]\"")
    low_text, high_text = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
    low, high = parse_claimed(low_text), parse_claimed(high_text)
    if low.nominal is None or high.nominal is None or low.approximate or high.approximate:
        raise ValueParseError(f"{text!r}: each endpoint of an interval must be one printed number")
    if low.nominal > high.nominal:
        raise ValueParseError(f"{text!r}: the lower endpoint is above the upper one")
    return low, high


def parse_claimed_parts(text: str | int | float, *, tolerance: str | None = None) -> list[tuple[str | None,
                                                                                                ClaimedValue]]:
    """A printed list or mapping of values, as a listing's call prints it (``[1.0, 0.5, 0.333]``,
    ``{'q1': 0.5, 'q2': 1.0}``, ``{1: 1.0, 5: 0.4}``): each entry's key (None in a list; a mapping's key as text)
    and its value read by ``parse_claimed`` from the entry as printed, so printed precision is kept.

    Raises ``ValueParseError`` when ``text`` is not a list, tuple or mapping of printed numbers."""
    import ast

    raw = str(text).strip()
    try:
        node = ast.parse(raw, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        node = None
    if isinstance(node, (ast.List, ast.Tuple)):
        entries = [(None, e) for e in node.elts]
    elif isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and type(k.value) in (str, int)
                                            for k in node.keys):
        entries = [(str(k.value), v) for k, v in zip(node.keys, node.values)]
    else:
        raise ValueParseError(f"cannot read {trim(raw)} as a list or mapping of printed values (e.g. "
                              "'[1.0, 0.5, 0.333]' or \"{'q1': 0.5, 'q2': 1.0}\")")
    out = []
    for key, entry in entries:
        segment = ast.get_source_segment(raw, entry)
        if segment is None:
            raise ValueParseError(f"cannot read the entries of {trim(raw)}")
        out.append((key, parse_claimed(segment.strip(), tolerance=tolerance)))
    return out


# --- printed terms are rounded (the GRIM / statcheck reading) ---

#: A decimal printed in an expression ("0.33", "1.585", ".5"): its digits after the point.
_PRINTED_DECIMAL = re.compile(r"(?<![\w.])(\d*\.(\d+))(?![\w.])")

#: The largest denominator a rounded term is read back to (``0.33`` → 1/3, ``0.17`` → 1/6): the reciprocal ranks,
#: precisions at a cutoff and averages over a few queries that worked examples print have small denominators.
READING_DENOMINATOR = 32
#: ... but a term printed to two places is read back only to a denominator this small (a precision or reciprocal rank
#: within the top ten): nearly every two-place number lies within 0.005 of some fraction up to 32ths (0.42 of 5/12,
#: 0.29 of 2/7), so a wider reading would turn a table's per-topic scores into invented fractions.
TWO_PLACE_DENOMINATOR = 10
#: A decimal whose own fraction has a denominator this small (halves, quarters, fifths, eighths, tenths, sixteenths,
#: twentieths) is taken as printed, exact: it is not read as a rounding of another fraction.
PLAIN_DECIMAL = 20


def rounded_decimals(text: str) -> list[tuple[int, int, Fraction, Fraction]]:
    """Each decimal ``text`` prints, as ``(start, end, value, half-width)``: ``0.33`` stands for any number in
    [0.325, 0.335], whose half-width is 0.005. Integers are exact (counts, ranks, cutoffs)."""
    return [(m.start(), m.end(), Fraction(Decimal(m.group(1))), Fraction(5, 10 ** (len(m.group(2)) + 1)))
            for m in _PRINTED_DECIMAL.finditer(text)]


class _RoundedEvaluation(_Evaluation):
    """An expression's walk in which each printed decimal is the interval of the numbers it rounds."""

    def walk(self, node: ast.AST):
        if isinstance(node, ast.Constant) and type(node.value) is float:
            literal = ast.get_source_segment(self.source, node) or ""
            value = super().walk(node)  # the literal's checks, and its exact value
            places = len(literal.partition(".")[2])
            half = Fraction(5, 10 ** (places + 1))
            lo, hi = self.interval(value - half), self.interval(value + half)
            return self.iv.mpf([lo.a, hi.b])
        return super().walk(node)


def printed_terms_interval(text: str) -> tuple[Fraction, Fraction] | None:
    """The values ``text`` may stand for when each decimal it prints is a rounded number: a certified enclosure
    of the expression over every number each decimal rounds to at its printed places (``(1.00 + 0.33 + 0.50)/3``
    → about [0.605, 0.615]; its terms as printed give 0.61). ``None`` when the expression prints no decimal, or
    when over those numbers a step leaves its domain (a divisor printed ``0.0`` may be zero).

    Interval arithmetic bounds every step outward, so a term printed twice widens the enclosure: it may hold
    values no single choice of the terms gives, never miss one."""
    if not rounded_decimals(text):
        return None
    tree, source = _read_expression(text)
    try:
        value = _RoundedEvaluation(text, source, _bits(CERTIFIED_DIGITS)).walk(tree)
    except (_Undecided, ValueParseError):
        return None
    if isinstance(value, Fraction):
        return value, value
    return _endpoints(value)


def simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The fraction with the smallest denominator in [lo, hi] (the Stern–Brocot search; 0.325..0.335 → 1/3)."""
    if lo > hi:
        raise ValueError(f"empty interval [{lo}, {hi}]")
    if lo <= 0 <= hi:
        return Fraction(0)
    if hi < 0:
        return -simplest_between(-hi, -lo)
    whole = math.floor(lo)
    if whole == lo:
        return Fraction(whole)
    if whole + 1 <= hi:
        return Fraction(whole + 1)
    return whole + 1 / simplest_between(1 / (hi - whole), 1 / (lo - whole))


def _log_reading(value: Fraction, half: Fraction) -> str | None:
    """``log2(n)`` when ``value`` is log2 of a whole number 3 ≤ n ≤ 64 (not a power of two) rounded at its
    places: a DCG's worked sum prints its discounts that way (``1.585`` for log2(3))."""
    for n in range(3, 65):
        if n & (n - 1) and value - half <= Fraction(math.log2(n)) <= value + half:
            return f"log2({n})"
    return None


def term_readings(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """``text`` with each printed decimal read as the exact term it most plainly rounds: the simplest fraction
    among the numbers it stands for, when its denominator is at most ``READING_DENOMINATOR`` (``TWO_PLACE_DENOMINATOR``
    for a term printed to two places; ``0.33`` → 1/3, ``0.50`` → 1/2, ``1.00`` → 1), or for a term above 1 a discount's ``log2(n)`` (``1.585`` → log2(3)). Returns
    the expression so read and the ``(printed, read as)`` pairs of the terms it changed (none when each decimal is
    already the plainest number it rounds: 0.75, 0.6); ``None`` when a decimal has no such reading (a term above 1
    that is no discount: a DCG or a sum printed rounded)."""
    out, changed, last = [], [], 0
    for a, b, value, half in rounded_decimals(text):
        reading = _log_reading(value, half) if value > 1 else None
        if reading is None:
            if value - half > 1:  # a sum or a DCG printed rounded: no per-rank term of a measure is above 1
                return None
            # a decimal that is itself a plain fraction is that fraction (0.8 is 4/5, not the 3/4 it could round
            # from; 0.2 is 1/5, not 1/4; 0.375 is 3/8): only another decimal (0.33, 0.67, 0.12) stands for the
            # simplest number it rounds (1/3, 2/3, 1/8)
            simple = value if value.denominator <= PLAIN_DECIMAL else \
                simplest_between(max(value - half, Fraction(0)), value + half)
            if simple.denominator > (TWO_PLACE_DENOMINATOR if half == Fraction(1, 200) else READING_DENOMINATOR):
                return None
            reading = format_exact(simple)
            if simple == value:
                out.append(text[last:b])
                last = b
                continue
        out.append(text[last:a] + f"({reading})")
        changed.append((text[a:b], reading))
        last = b
    out.append(text[last:])
    return "".join(out), changed
