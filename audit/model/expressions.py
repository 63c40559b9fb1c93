"""Safe arithmetic expressions from the prose, computed exactly: ``21/43``, ``3/log2(2) + 2/log2(3)``, ``2^3 - 1``,
LaTeX (``\\frac``, ``\\log_2``, a ``\\sum`` written out). An expression is computed exactly while it stays rational
and as a certified interval (``mpmath.iv``) once it does not; nothing here calls ``eval``. Printed terms that are
rounded (a DCG discount printed as 1.585) are read as the intervals they stand for (the GRIM / statcheck reading).
"""

from __future__ import annotations

import ast
import math
import re
from decimal import Decimal
from fractions import Fraction

from audit.errors import ValueParseError
from audit.model.limits import (
    MAX_EXPRESSION_CHARS,
    MAX_EXPRESSION_DEPTH,
    MAX_POWER_EXPONENT,
    MAX_VALUE_BITS,
    trim,
)
from audit.model.values import _NUMBER, _digits, format_exact, plain_number_text


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
