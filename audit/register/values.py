"""Claimed values as printed in a chapter, read exactly, and safe arithmetic expressions.

A printed value is an interval (DESIGN.md, "Verdicts"): ``1/4`` is exact, ``.4884``
means [.48835, .48845], ``0.33`` means [0.325, 0.335], ``80%`` means [0.795, 0.805],
``< 1`` is the half-line below one. Words a chapter uses for numbers ("fifty",
"twenty-one", "a fifth") are read too. Nothing here calls ``eval``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from audit.errors import ValueParseError
from audit.register.limits import (
    MAX_DIGITS,
    MAX_EXPRESSION_CHARS,
    MAX_EXPRESSION_DEPTH,
    MAX_TOLERANCE,
    trim,
)

#: Relative tolerance used when a *floating-point* result (from a reference library)
#: is compared with an exact claimed value: float64 cannot hold 1/3 exactly.
FLOAT_TOLERANCE = Fraction(1, 10**9)

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
    def exact(self) -> bool:
        return self.low is not None and self.low == self.high

    def contains(self, value: Fraction | float | int) -> bool:
        """Whether a computed value lies in the claimed interval.

        Exact values (``Fraction``, ``int``) are compared exactly; a ``float`` from a
        reference library may miss an exact bound by ``FLOAT_TOLERANCE`` (relative).
        """
        if isinstance(value, float):
            x = Fraction(value)
            slack = max(abs(x), Fraction(1)) * FLOAT_TOLERANCE
        else:
            x = Fraction(value)
            slack = Fraction(0)
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

    def interval(self) -> str:
        """The interval in plain notation: ``1/4`` (exact), ``[0.48835, 0.48845]``, ``< 1``."""
        if self.exact:
            return format_exact(self.low)
        if self.low is None and self.high is not None:
            return ("≤ " if self.high_closed else "< ") + format_decimal(self.high)
        if self.high is None and self.low is not None:
            return ("≥ " if self.low_closed else "> ") + format_decimal(self.low)
        return f"[{format_decimal(self.low)}, {format_decimal(self.high)}]"

    def write_like(self, value: Fraction | float) -> str:
        """``value`` printed the way this claim was printed (for a proposed correction)."""
        v = Fraction(value)
        if self.style in ("decimal", "percent"):
            scale = 100 if self.style == "percent" else 1
            text = f"{float(v * scale):.{self.places}f}"
            if not self.leading_zero and text.startswith("0."):
                text = text[1:]
            text += "%" if self.style == "percent" else ""
            return ("≈ " if self.approximate or v * scale != Fraction(text.rstrip("%")) else "") + text
        if v.denominator == 1:
            return str(v.numerator)
        if self.style in ("fraction", "word", "integer"):
            return f"{v.numerator}/{v.denominator}"
        return f"≈ {float(v):.4f}"


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


def format_decimal(x: Fraction | float, places: int = 6) -> str:
    """A value as a decimal with trailing zeros removed (``0.48835``)."""
    text = f"{float(x):.{places}f}".rstrip("0").rstrip(".")
    return text if text not in ("-0", "") else "0"


def parse_claimed(text: str | int | float, *, tolerance: str | None = None) -> ClaimedValue:
    """Read a claimed value as printed in a chapter.

    Accepts fractions (``1/4``), integers (``43``), decimals (``.4884``, ``0.33``),
    percentages (``80%``), number words (``fifty``, ``a fifth``), an approximation mark
    (``≈``, ``about``) and a comparator (``< 1``). ``tolerance`` (e.g. ``"0.05"``) widens a
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
    s = raw.strip()
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
    return ClaimedValue(raw, nominal, nominal - half, nominal + half, style=style, places=places,
                        leading_zero=leading_zero, approximate=approximate)


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
        "an integer, a percentage ('80%'), a number word ('fifty', 'a fifth'), optionally after '≈' or a "
        "comparator ('< 1')")


_ALLOWED_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
                   ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def parse_expression(text: str) -> Fraction:
    """Evaluate an arithmetic expression from the prose exactly: ``21/(21+16)`` → 21/37.

    Only numbers, ``+ - * /`` and parentheses are accepted; the expression is read with
    ``ast.parse`` and walked, never evaluated by Python. Decimals are read from their
    text, so ``0.1`` is exactly 1/10. Raises ``ValueParseError`` on anything else or on
    division by zero.
    """
    source = str(text).replace("×", "*").replace("÷", "/").replace("−", "-")
    if len(source) > MAX_EXPRESSION_CHARS:
        raise ValueParseError(f"expression {trim(text)} is longer than {MAX_EXPRESSION_CHARS} characters (the limit)")
    depth = 0
    for ch in source:  # parentheses are counted before Python's parser, which recurses on them
        depth += (ch == "(") - (ch == ")")
        if depth > MAX_EXPRESSION_DEPTH:
            raise ValueParseError(f"expression {trim(text)} nests parentheses deeper than {MAX_EXPRESSION_DEPTH} "
                                  "(the limit)")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ValueParseError(f"cannot read expression {trim(text)}; use numbers, + - * / and parentheses")

    def walk(node: ast.AST) -> Fraction:  # recursion depth is bounded by MAX_EXPRESSION_CHARS
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.BinOp) and type(node.op) in _ALLOWED_BINOPS:
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Div) and right == 0:
                raise ValueParseError(f"expression {trim(text)} divides by zero")
            return _ALLOWED_BINOPS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            literal = ast.get_source_segment(source.strip(), node) or ""
            if not _NUMBER.match(literal):
                raise ValueParseError(f"expression {trim(text)} contains the number {trim(literal)}; write numbers "
                                      "as plain decimals (no exponent, no underscores)")
            _digits(literal, literal, "a number in the expression")
            return Fraction(Decimal(literal))
        raise ValueParseError(
            f"expression {trim(text)} contains {type(node).__name__}; only numbers, + - * / and parentheses are "
            "allowed")

    return walk(tree)
