"""Claimed values as printed in a chapter, read exactly.

A printed value is an interval (DESIGN.md, "Verdicts"): ``1/4`` is exact, ``.4884``
means [.48835, .48845], ``0.33`` means [0.325, 0.335], ``80%`` means [0.795, 0.805],
``< 1`` is the half-line below one. Words a chapter uses for numbers ("fifty",
"twenty-one", "a fifth") are read too.

Arithmetic expressions from the prose are ``audit.model.expressions``'.
"""

from __future__ import annotations

import math
import struct
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from audit.errors import UndecidedError, ValueParseError
from audit.model.limits import (
    MAX_DIGITS,
    MAX_TOLERANCE,
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


#: A NumPy scalar's repr as NumPy 2 prints it (``np.float64(0.5)``, ``np.int64(3)``): its value is the number inside.
NUMPY_SCALAR = re.compile(r"(?P<open>(?:np|numpy)\.(?:float|int|uint)(?:16|32|64|128)?\()(?P<value>[^()]{1,60})\)")


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
    scalar = NUMPY_SCALAR.fullmatch(s)
    if scalar:  # a NumPy scalar as NumPy 2 prints it in a doctest: np.float64(0.5) is the number 0.5
        s = scalar.group("value").strip()
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
