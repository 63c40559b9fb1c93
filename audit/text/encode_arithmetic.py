"""Arithmetic a sentence prints (``21/43 ≈ .4884``, "(1 + 2/3 + 3/6)/4 = 0.5417"), chains of equalities, counts and
harmonic means, encoded as arithmetic claims; and whether a corrected sentence still breaks or keeps its arithmetic.
"""

from __future__ import annotations

import math
import re

from fractions import Fraction
from itertools import product

from audit.errors import AuditError
from audit.model.values import parse_claimed
from audit.model.expressions import expression_interval, parse_expression, printed_terms_interval, term_readings
from audit.text.encode_measures import _name, _root, measure_of
from audit.text.scan import ARITH, EXPRESSION, FUNCTION, METRIC, NUM, RELATION, Statement, WORD_FRACTION
from audit.text.stated import DIGITS
from audit.text.words import _DOCS, _N, number


_OPERAND_RE = re.compile(EXPRESSION)


_GAP = re.compile(rf"^\s*(?:{RELATION})\s*(?:≈\s*)?$", re.IGNORECASE)


_APPROX_WORD = re.compile(r"≈|~|\broughly\b|\babout\b|\bapproximately\b", re.IGNORECASE)


_PLAIN_VALUE = re.compile(rf"(?:{NUM}%?|\d+\s*/\s*\d+)")


_HAS_OPERATOR = re.compile(rf"[-+*/×·÷−^²³]|\b{FUNCTION}\b|(?<=[\d.)])\s*[xX]\s*(?=[\d.(])")


#: A sentence saying what a library or a call returns ("`evaluate(qrels, run, "rbp.80")` returns …", "ranx's
#: `rbp.80` gives …"): the printed computation is the author's, the claim is about the library.
_LIBRARIES = (r"ranx|trec_eval|trec-eval|pytrec_eval|ir[-_]measures|scikit-learn|sklearn|torchmetrics|ml_metrics|gdeval|"
              r"pyterrier|tensorflow[-_ ]ranking")


_SAYS = r"\b(?:returns?|gives?|reports?|prints?|outputs?|yields?)\b"


_LIBRARY_SAYS = re.compile(rf"(?:\b(?:{_LIBRARIES})\b(?:'s)?|`[^`]*\([^`]*\)`)(?:[^.;]|\.\d){{0,80}}?{_SAYS}"
                           rf"(?:[^.;]|\.\d){{0,20}}$", re.IGNORECASE)


#: A sentence giving the value a named library returns ("ranx's `rbp.80` gives 0.528"): ``by:`` that library.
_BY = re.compile(rf"\b(?P<lib>{_LIBRARIES})\b(?:'s)?(?:[^.;]|\.\d){{0,80}}?{_SAYS}", re.IGNORECASE)


def normal_expression(expr: str) -> str:
    """An expression as printed → as ``audit.model.expressions`` reads it: ``×``/``·``/``x`` → ``*``, ``÷`` → ``/``,
    ``−`` → ``-``, a superscript ² or ³ → ``^2``/``^3``, and ``(1/4)(1/4)`` → ``(1/4)*(1/4)``, ``2(0.5)`` →
    ``2*(0.5)`` (never a function's ``log2(4)``)."""
    out = expr.replace("·", "*").replace("×", "*").replace("÷", "/").replace("−", "-")
    out = re.sub(r"(?<=[\d.)])\s*[xX]\s*(?=[\d.(])", " * ", out)   # ".912 x 10"
    out = out.replace("²", "^2").replace("³", "^3")
    out = re.sub(r"(?<![A-Za-z\d.])(\d+(?:\.\d+)?)\((?=\s*[\d.])", r"\1*(", out)   # "2(0.5)": a product
    return re.sub(r"\)\s*\(", ")*(", out)


def _claimed(rel: str, value: str) -> str:
    rel = rel.strip(" ,").lower()
    if rel in ("≈", "~") or value.startswith("≈"):
        return "≈ " + value.lstrip("≈ ").strip()
    if "roughly" in rel:
        return "roughly " + value
    if "about" in rel or "approximately" in rel:
        return "about " + value
    return value


def _balanced(expr: str) -> str:
    """Drop unmatched parentheses at either end (``(1 + 2/3)/2`` stays whole)."""
    while expr.count("(") > expr.count(")") and expr.startswith("("):
        expr = expr[1:].lstrip()
    while expr.count(")") > expr.count("(") and expr.endswith(")"):
        expr = expr[:-1].rstrip()
    return expr


def chains(text: str) -> list[list[tuple[int, int, str]]]:
    """Every chain ``a = b = c ≈ d`` in ``text``: its operands (expressions or printed values) in order, each as
    ``(start, end, link)`` where ``link`` is the relation printed before it (``""`` for the first)."""
    out, current = [], []
    for m in _OPERAND_RE.finditer(text):
        a, b = m.start(), m.end()
        if b < len(text) and text[b] == "%":
            b += 1
        if current and _GAP.match(text[current[-1][1]:a]):
            current.append((a, b, text[current[-1][1]:a].strip()))
            continue
        if len(current) > 1:
            out.append(current)
        current = [(a, b, "")]
    if len(current) > 1:
        out.append(current)
    return out


def _links(text: str) -> list[tuple[str, str, str, bool]]:
    """Each link of printed arithmetic in ``text`` (an expression followed by ``=``, ``≈`` or ``~`` and a value), as
    ``(expression, how it is false, 'exact' | 'rounded' | '')``: ``exact`` when the expression's exact value lies in
    the printed value's interval, ``rounded`` when only some numbers its printed decimals round to give it (2.59/3.64 =
    0.711538 misses 0.7114, but 2.585/3.645 .. 2.595/3.635 holds it), ``''`` when none does. A link whose expression
    or value cannot be read is left out."""
    out = []
    for chain in chains(text):
        for (a, b, _), (c, d, link) in zip(chain, chain[1:]):
            left, right = _balanced(text[a:b].strip()), text[c:d].strip()
            if not _HAS_OPERATOR.search(left) or not _PLAIN_VALUE.fullmatch(right):
                continue
            try:
                lo, hi, _exact = expression_interval(normal_expression(left))
                printed = parse_claimed(_claimed(link, right))
            except (AuditError, ZeroDivisionError, ValueError):
                continue
            how = f"{left} gives {float((lo + hi) / 2):.6g}, not the printed {right}"
            if printed.decide(lo, hi) is not False:
                out.append((left, how, "exact"))
                continue
            span = printed_terms_interval(normal_expression(left))
            out.append((left, how, "rounded" if span is not None and printed.decide(*span) is not False else ""))
    return out


def prints_arithmetic(text: str) -> bool:
    """Whether ``text`` prints an expression with its value in a chain (``(1 + 2/3)/2 = 0.8333``, ``2/3 ≈ 0.667``),
    read as ``printed_expressions`` reads it, not only values."""
    return any(_HAS_OPERATOR.search(_balanced(text[a:b].strip())) and _PLAIN_VALUE.fullmatch(text[c:d].strip())
               for chain in chains(text) for (a, b, _), (c, d, _) in zip(chain, chain[1:]))


def printed_expressions(text: str, value: str) -> list[str]:
    """The expressions ``text`` prints just before the printed ``value`` in a chain ("IDCG@5 = 3/1 + 3/1.58 + 2/2 +
    1/2.32 = 6.33" → ``3/1 + 3/1.58 + 2/2 + 1/2.32`` for ``6.33``), as ``audit.model.expressions`` reads them; ``value`` is
    matched as the same printed number (``≈ 6.33`` and ``6.33`` alike)."""
    try:
        wanted = parse_claimed(value)
    except AuditError:
        return []
    out = []
    for chain in chains(text):
        for (a, b, _), (c, d, link) in zip(chain, chain[1:]):
            left, right = _balanced(text[a:b].strip()), text[c:d].strip()
            if not _HAS_OPERATOR.search(left) or not _PLAIN_VALUE.fullmatch(right):
                continue
            try:
                printed = parse_claimed(_claimed(link, right))
            except AuditError:
                continue
            if (printed.nominal, printed.places, printed.style) == (wanted.nominal, wanted.places, wanted.style):
                out.append(normal_expression(left))
    return out


def false_arithmetic(text: str) -> list[str]:
    """Each link of printed arithmetic in ``text`` that is false as printed: an expression followed by ``=``, ``≈``
    or ``~`` and a value that neither the expression's exact value nor any value it takes over the numbers its
    printed decimals round to lies in ("2.59/3.64 = 0.7114": 0.711538, and at most 0.7133 over 2.585..2.595 and
    3.635..3.645, so it stands; "2.59/3.64 = 0.75" is false), described as ``"2.59/3.64 gives 0.711538, not the
    printed 0.75"``. A link whose expression or value cannot be read is not judged."""
    return [how for _, how, holds in _links(text) if not holds]


def breaks_arithmetic(before: str, after: str) -> str:
    """What an edit from ``before`` to ``after`` makes false of the arithmetic the text prints ('' when nothing): a
    corrected value written after printed terms it no longer follows from — no number the terms round to gives it,
    or the terms as printed gave the old value exactly and give the new one only through their rounding (a reader
    who adds the printed 4 + 1.89 + … and got the printed 10.43 would find 10.44 wrong)."""
    before, after = _latex_as_plain(before), _latex_as_plain(after)
    exact_before = {left for left, _, holds in _links(before) if holds == "exact"}
    false_before = set(false_arithmetic(before))
    new = [how for left, how, holds in _links(after)
           if how not in false_before and (not holds or (holds == "rounded" and left in exact_before))]
    return "; ".join(new)


def _latex_as_plain(text: str) -> str:
    """``text`` with each LaTeX formula written in plain notation (``$nDCG_6 = \\frac{6.861}{8.740} = 0.785$`` as
    ``§ = 6.861/(8.740) = 0.785``, ``scan.latex_math``), so that a formula's printed arithmetic is read as a
    sentence's is."""
    from audit.text.scan import latex_math
    for a, b, plain in reversed(latex_math(text)):
        text = text[:a] + plain + text[b:]
    return text


def breaks_replacing(text: str, old: str, new: str) -> str:
    """``breaks_arithmetic`` for the edit that writes ``new`` for the first ``old`` in ``text`` ('' when ``text``
    does not print ``old``)."""
    return breaks_arithmetic(text, text.replace(old, new, 1)) if old in text else ""


#: A printed mean: a sum (or any term) divided by a whole number written last (``(1 + 2/3 + 3/6)/4``).
_OVER_COUNT = re.compile(r"^(?P<sum>.+?)\s*/\s*(?P<count>\d+)$")
#: The same mean in LaTeX, with its printed value: ``\frac{1 + 0.67 + 0.6}{3} \approx 0.76``.
_LATEX_MEAN = re.compile(r"\\[dt]?frac\s*\{(?P<sum>[^{}]+)\}\s*\{\s*(?P<count>\d+)\s*\}\s*(?P<link>=|≈|\\approx)\s*"
                         r"(?P<value>\d*\.?\d+)")


def _printed_means(text: str):
    """Each printed mean of ``text`` with its value: ``(start, end, sum as read, count start, count end, value
    start, value end, link)`` in ``text``'s own offsets, from a plain chain or a LaTeX fraction."""
    for chain in chains(text):
        for (a, b, _), (c, d, link) in zip(chain, chain[1:]):
            left = text[a:b]
            start = a + len(left) - len(left.lstrip())
            cut = text[start:b].rstrip()
            over = _OVER_COUNT.match(_balanced(cut))
            if over is None or not cut.endswith(over.group("count")):
                continue
            end = start + len(cut)
            yield (start, d, over.group("sum"), end - len(over.group("count")), end, c, d, link)
    for m in _LATEX_MEAN.finditer(text):
        link = "≈" if m.group("link") != "=" else "="
        yield (m.start(), m.end(), m.group("sum"), m.start("count"), m.end("count"), m.start("value"), m.end("value"),
               link)


def divisor_correction(text: str, old: str, new: str, exact: Fraction) -> tuple[str, str, str, str] | None:
    """The printed mean of ``text`` whose value is the printed ``old``, corrected to the value ``exact`` (printed
    as ``new``) by its count alone, as ``(old span, new span, old expression, new expression)`` — "(1 + 2/3 + 3/6)/4
    = 0.5417" → "(1 + 2/3 + 3/6)/5 = 0.4333" when AP divides by five relevant documents, not the four the mean
    printed. The terms as printed (each rounded one standing for the numbers it rounds from: 0.67 for 2/3) over
    exactly one other whole number give ``exact``, and over that number they give the new value as printed; a
    LaTeX ``\frac{…}{3} \approx 0.76`` is corrected in its own notation. None when no single count does (the terms
    themselves are wrong: the author's choice)."""
    if not exact:
        return None
    try:
        wanted, value = parse_claimed(old), parse_claimed(new)
    except AuditError:
        return None
    for start, end, total, c0, c1, v0, v1, link in _printed_means(text):
        right = text[v0:v1].strip()
        try:
            printed = parse_claimed(_claimed(link, right))
            expression = normal_expression(_latex_as_plain(total) if "\\" in total else total)
            lo, hi, is_exact = expression_interval(expression)
            span = printed_terms_interval(expression) or ((lo, hi) if is_exact else None)
        except (AuditError, ZeroDivisionError, ValueError):
            continue
        if span is None or (printed.nominal, printed.places, printed.style) != \
                (wanted.nominal, wanted.places, wanted.style):
            continue
        counts = range(max(1, math.ceil(span[0] / exact)), min(10_000, math.floor(span[1] / exact)) + 1)
        if len(counts) != 1 or counts[0] == int(text[c0:c1]):
            continue
        count = counts[0]
        # over the new count the terms as printed give the new value (its interval meets theirs)
        if value.decide(span[0] / count, span[1] / count) is False or \
                is_exact and not value.contains(lo / count):
            continue
        number = right.replace(old.strip().lstrip("≈~ ").strip(), new.strip().lstrip("≈~ ").strip(), 1)
        fixed = text[start:c0] + str(count) + text[c1:v0] + text[v0:v1].replace(right, number, 1) + text[v1:end]
        shown = text[start:c1] if "\\" not in text[start:c1] else f"({total.strip()})/{text[c0:c1]}"
        return text[start:end], fixed, shown, shown[:len(shown) - (c1 - c0)] + str(count)
    return None


def _rounded_terms(expr: str) -> list[tuple[int, int, Fraction]]:
    """The decimals of ``expr`` printed rounded, each as ``(start, end, half-width of what it stands for)``
    (``0.267`` stands for [0.2665, 0.2675]). A decimal with one digit, or one whose value has a power-of-two
    denominator (0.75, 0.9375), is read as exact: a worked computation prints those in full."""
    out = []
    for m in re.finditer(r"(?<![\w.])\d*\.(\d+)(?![\d.])", expr):
        digits = len(m.group(1))
        value = Fraction(m.group(0))
        if digits <= 1 or value.denominator & (value.denominator - 1) == 0:
            continue
        out.append((m.start(), m.end(), Fraction(5, 10 ** (digits + 1))))
    return out


def _term_range(expr: str, rounded: list[tuple[int, int, Fraction]]) -> tuple[Fraction, Fraction]:
    """The values ``expr`` takes over every value its rounded decimals may stand for: the expression at each
    corner of the box (each rounded term appears once and every step is monotone in it)."""
    lo = hi = None
    for corner in product((-1, 1), repeat=len(rounded)):
        text, shift = expr, 0
        for (a, b, half), sign in zip(rounded, corner):
            term = Fraction(expr[a:b]) + sign * half
            written = _decimal(term)
            text = text[:a + shift] + written + text[b + shift:]
            shift += len(written) - (b - a)
        low, high, _ = expression_interval(text)
        lo = low if lo is None else min(lo, low)
        hi = high if hi is None else max(hi, high)
    return lo, hi


def _decimal(x: Fraction) -> str:
    """A terminating fraction written as an exact decimal."""
    sign = "-" if x < 0 else ""
    x = abs(x)
    whole, rest = divmod(x.numerator, x.denominator)
    digits = ""
    while rest and len(digits) < 40:
        rest *= 10
        d, rest = divmod(rest, x.denominator)
        digits += str(d)
    return f"{sign}{whole}" + (f".{digits}" if digits else "")


def _logarithms(expression: str) -> str:
    """``expression`` with each printed discount read as the logarithm it rounds (``1.585`` → ``log2(3)``,
    ``2.322`` → ``log2(5)``): a DCG's worked sum prints log2(rank + 1) to a few decimals."""
    def exact(m: re.Match) -> str:
        digits = len(m.group(1))
        for n in range(3, 65):
            if n & (n - 1) and round(math.log2(n), digits) == float(m.group(0)):
                return f"log2({n})"
        return m.group(0)
    return re.sub(r"(?<![\w.])\d+\.(\d{3,})(?![\d.])", exact, expression)


def determined(expression: str, claimed: str, discounts: bool = False) -> tuple[bool, str]:
    """Whether the printed terms of ``expression`` decide ``claimed``: every value the rounded decimals in it
    (``2.59``, ``0.267``) may stand for gives the verdict the printed terms give. ``discounts``: the expression is
    a DCG's, whose rounded discounts stand for the logarithms they round (``_logarithms``). ``(False, why)`` when
    they straddle a bound of the claimed interval: the arithmetic of the rounded terms would decide what the
    exact value does not."""
    read = _logarithms(expression) if discounts else expression
    rounded = _rounded_terms(read)
    if not rounded and read == expression:
        return True, ""
    value = parse_claimed(claimed)
    if len(rounded) > 10:
        return False, f"{expression} has more than ten rounded terms"
    try:
        lo, hi = _term_range(read, rounded)
        printed = expression_interval(expression)
    except AuditError as exc:
        return False, exc.message
    verdict = value.decide(lo, hi)
    if verdict is not None and value.decide(printed[0], printed[1]) == verdict:
        return True, ""
    if value.decide(printed[0], printed[1]) is False and verdict is None:
        # the terms as printed miss the value and the numbers they round may not: the arithmetic check decides on
        # the exact terms they most plainly round (0.33 as 1/3), so it is encoded when those give the value
        plain = term_readings(expression)
        if plain is not None and plain[1]:
            try:
                r_lo, r_hi, _ = expression_interval(plain[0])
            except AuditError:
                r_lo = r_hi = None
            if r_lo is not None and value.decide(r_lo, r_hi):
                return True, ""
    terms = ", ".join(read[a:b] for a, b, _ in rounded) or "its rounded logarithms"
    return False, (f"the printed value depends on the rounding of {terms}: over the values they stand for, "
                   f"{expression} lies in [{float(lo):.6g}, {float(hi):.6g}], across the bound of {claimed}; encode "
                   f"the measure's value on a fixture instead")


def chain_measure(text: str, start: int) -> tuple[str, int | str | None] | None:
    """The measure whose value the chain starting at ``start`` computes: the nearest measure named before it."""
    before = [m for m in METRIC.finditer(text[:start])]
    for m in reversed(before):
        spec = measure_of(m)
        if spec:
            return spec
    return None


#: Wordings that show a convention matters for the measure named in a sentence: fewer results returned than
#: the cutoff (P@k's denominator), a relevant document not retrieved (AP's denominator), grades (the DCG
#: gain; RBP's gain) and a grade scale other than 0–4 (ERR's top grade).
_RETURNED = re.compile(rf"\b(?P<n>{_N})[- ](?:item|result|document|passage)s?\s+(?:list|ranking|run)\b|"
                       rf"\bonly\s+(?P<n2>{_N})\s+(?:{_DOCS})\s+(?:came\s+back|were\s+returned|were\s+retrieved)|"
                       rf"\breturns?\s+(?:only\s+)?(?P<n3>{_N})\s+(?:{_DOCS})\b", re.IGNORECASE)


_UNRETRIEVED = re.compile(r"\b(?:never|not)\s+(?:retrieved|returned|found)\b|\bwhether\s+or\s+not\b|\bmissing\b",
                          re.IGNORECASE)


_GRADE_LIST = re.compile(r"\[(?P<list>\d+(?:\s*,\s*\d+)+)\]|\bgrades?\s+(?:are\s+|of\s+)?(?P<list2>\d+(?:\s*,\s*\d+)+)",
                         re.IGNORECASE)


_POWER_OF_TWO = re.compile(r"\b2\s*(?:\^|\*\*)\s*(?P<n>\d+)\b(?!\s*[−-])")


_SCALE = re.compile(r"\b0\s*[–-]\s*(?P<n>\d)\b|\bfrom\s+0\s+to\s+(?P<n2>\d)\b|\btops?\s+out\s+at\s+(?P<n3>\d)\b|"
                    r"\b(?:highest|top|maximum)\s+grade\s+(?:is\s+)?(?P<n4>\d)\b", re.IGNORECASE)


def _grades(text: str) -> list[int]:
    return [int(g) for m in _GRADE_LIST.finditer(text) for g in DIGITS.findall(m.group("list") or m.group("list2"))]


def convention_taken(text: str, spec: tuple[str, int | str | None] | None, stated: dict[str, set[str]]) -> str:
    """Why a printed computation of ``spec`` takes one side of a convention the text leaves open (``""`` when it
    does not): its verdict as arithmetic would then hide that the value depends on the convention (the claim
    comes out qualified, or contradicted under what the text states elsewhere)."""
    if spec is None:
        return ""
    root, k = _root(spec[0]), spec[1]
    why = ""
    if root in ("P", "F") and isinstance(k, int) and "precision_denominator" not in stated:
        r = _RETURNED.search(text)
        n = number(r.group("n") or r.group("n2") or r.group("n3")) if r else None
        if n is not None and n < k:
            why = (f"{spec[0]}@{k} of {n} results depends on the P@k denominator (k or the number returned), "
                   "which the text does not state")
    elif root in ("AP", "GMAP") and "ap_denominator" not in stated and _UNRETRIEVED.search(text):
        why = ("with a relevant document not retrieved, AP depends on its denominator (|R| or the relevant "
               "retrieved), which the text does not state")
    elif root in ("DCG", "nDCG", "IDCG") and "gain" not in stated and "dcg=" not in spec[0] and any(
            g > 1 for g in _grades(text)):
        why = "with grades above 1 the DCG depends on the gain (linear or exponential), which the text does not state"
    elif root == "RBP" and "rbp_gain" not in stated and any(g > 1 for g in _grades(text)):
        why = "with grades above 1 RBP depends on its gain (binary or the grade), which the text does not state"
    elif root == "ERR" and not stated.get("err_max_grade"):  # any stated top grade (per query, 4, the scale's N)
        top = [int(m.group("n")) for m in _POWER_OF_TWO.finditer(text)]
        scale = _SCALE.search(text)
        grades = _grades(text)
        tops = set(top) | ({max(grades)} if grades else set())
        if scale:
            tops.add(int(scale.group("n") or scale.group("n2") or scale.group("n3") or scale.group("n4")))
        if tops - {4}:
            why = ("its grades top out below 4, so ERR depends on the top grade it divides by (2^4 or 2^g_max), "
                   "which the text does not state for this sentence")
    return why


def computes(text: str, quote: str) -> str | None:
    """The measure (with its cutoff, ``nDCG@4``) whose value the chain quoted from ``text`` computes, if one is
    named before it."""
    spec = chain_measure(text, max(text.find(quote), 0))
    return _name(*spec) if spec else None


def arithmetic(s: Statement, stated: dict[str, set[str]] | None = None,
               persistence: bool = False) -> tuple[list[dict], list[str]]:
    """Arithmetic claims for every chain in the statement, and why any chain was not encoded.

    In a chain ``a = b = c ≈ d`` each expression is paired with the next value the chain prints for it
    (``(1 + 3/4 + 1/2 + 1/4)/6 = 2.5/6 ≈ 0.4167``: both expressions against ``≈ 0.4167``; ``2 · (4/15) ·
    1/(4/15 + 1) = 8/19 ≈ 0.42``: the product against ``8/19``, and ``8/19`` against ``≈ 0.42``), never with a
    piece of an intermediate term. A chain is left to a draft when its verdict would not be the sentence's:
    rounded printed terms that do not decide the printed value (``determined``), a value a library is said to
    return, or a measure's value whose arithmetic takes one side of a convention the text leaves open
    (``convention_taken``). ``stated``: the conventions stated for the sentence (chapter, section, sentence);
    ``persistence``: its section speaks of RBP's persistence and of no test (``persistence_part``), so a ``p = 0.8``
    before a chain is the persistence, not a p-value whose terms only the test could check."""
    out, why = [], []
    text = s.text
    for chain in chains(text):
        start = chain[0][0]
        if _LIBRARY_SAYS.search(text[:start]):
            why.append("the computation is what a library is said to return: encode a value claim with `by:` "
                       "naming the library (docs/measures.md)")
            continue
        statistic = _STATISTIC_BEFORE.search(text[max(0, start - 120):start])
        if statistic and not (persistence and _PERSISTENCE_ONLY.match(statistic.group(0))):
            why.append("the computation is a p-value's or a test statistic's, whose printed terms only the test on "
                       "its data can check (a tail that leaves out a term still adds up): encode a statistic claim "
                       "(docs/statistics.md)")
            continue
        spec = chain_measure(text, start)
        taken = convention_taken(text, spec, stated or {})
        if taken:
            why.append(taken)
            continue
        for i, (a, b, _) in enumerate(chain):
            printed = text[a:b]
            if not _HAS_OPERATOR.search(printed):
                continue
            j = next((j for j in range(i + 1, len(chain)) if _PLAIN_VALUE.fullmatch(text[chain[j][0]:chain[j][1]])),
                     None)
            if j is None:
                continue
            links = [chain[n][2] for n in range(i + 1, j + 1)]
            rel = next((w.group(0) for link in links for w in [_APPROX_WORD.search(link)] if w), "=")
            value = text[chain[j][0]:chain[j][1]].strip()
            end = chain[j][1]
            grouped = _THOUSANDS.match(text, end)
            if grouped and re.fullmatch(r"\d{1,3}", value):  # 1,048,576: the digits after the separators are its own
                value, end = value + grouped.group(0), grouped.end()
            claimed = _claimed(rel, value)
            expr = _balanced(printed.strip())
            normal = normal_expression(expr)
            if normal.replace(" ", "") == value.replace(" ", ""):
                continue
            try:
                parse_expression(normal)
                parse_claimed(claimed)
            except AuditError:
                continue
            ok, reason = determined(normal, claimed, discounts=spec is not None and _root(spec[0]) in (
                "DCG", "nDCG", "IDCG"))
            if not ok:
                why.append(reason)
                continue
            qa = text.index(expr, a)
            out.append({"kind": "arithmetic", "quote": text[qa:end], "claim": f"{expr} is {claimed}",
                        "expression": normal, "claimed": claimed})
    if not out:
        out += _latex_arithmetic(text, why)
    if not out:
        out += _bound_arithmetic(text, why)
    return out, why


#: A value printed for an expression in one variable, with the variable's value in the same clause: "(1 − p)p^4 =
#: 0.082 at p = 0.8", "1 − p^3 ≈ 0.49 for p = 0.8".
_BOUND = re.compile(r"(?P<rel>=|≈)\s*(?P<v>\d*\.\d+|\d+/\d+)(?!\w|[./]\d)\s*,?\s+(?:at|for|with|when)\s+"
                    r"(?P<var>[a-zA-Z])\s*=\s*(?P<x>\d*\.\d+|\d+)(?!\w|\.\d)")
_EXPRESSION_CHARS = set("0123456789 .()+-−×·*/^")


def _bound_arithmetic(text: str, why: list[str]) -> list[dict]:
    """Arithmetic whose expression holds one variable that its clause binds (``_BOUND``): the expression with the
    variable replaced by its value, against the printed value. The expression is read back from the sign to the
    first character that is neither a number, an operator nor the variable (a word of prose, a comma)."""
    out = []
    for m in _BOUND.finditer(text):
        var, start = m.group("var"), m.start()
        while start > 0 and (text[start - 1] in _EXPRESSION_CHARS or text[start - 1] == var):
            start -= 1
        expr = text[start:m.start()].strip()
        while expr and expr[0] in ")+-−×·*/^. ":
            expr = expr[1:].lstrip()
        letters = re.findall(r"[A-Za-z]", expr)
        if (not expr or set(letters) != {var} or expr.count("(") != expr.count(")")
                or not re.search(r"[-+−×·*/^]", expr) or not re.search(r"\d", expr)):
            continue
        at = text.index(expr, start)
        if at > 0 and text[at - 1].isalpha():
            continue   # the variable ends a word: not an expression of its own
        claimed = _claimed(m.group("rel"), m.group("v"))
        normal = normal_expression(expr.replace(var, f"({m.group('x')})"))
        try:
            parse_expression(normal)
            parse_claimed(claimed)
        except AuditError:
            continue
        ok, reason = determined(normal, claimed)
        if not ok:
            why.append(reason)
            continue
        out.append({"kind": "arithmetic", "quote": text[at:m.end()], "claim": f"{expr} is {claimed} at {var} = "
                    f"{m.group('x')}", "expression": normal, "claimed": claimed, "variable": {var: m.group("x")}})
    return out


def _latex_arithmetic(text: str, why: list[str]) -> list[dict]:
    """Arithmetic printed in LaTeX (``$\\frac{3}{\\log_2 4} = 1.5$``, ``$\\tfrac{1}{2} \\cdot (1 + \\tfrac{1}{3}) \\approx
    0.6667$``, a ``\\sum`` written out): each inline formula read in plain notation (``scan.latex_math``), each
    expression of its chain paired with the next value it prints, as ``arithmetic`` does. The quote is the formula
    as printed; the expression is the plain one the checker reads."""
    from audit.text.scan import latex_math
    out = []
    for a, b, plain in latex_math(text):
        for chain in chains(plain):
            for i, (c, d, _) in enumerate(chain):
                expr = _balanced(plain[c:d].strip())
                if not _HAS_OPERATOR.search(expr) or i + 1 >= len(chain):
                    continue
                nc, nd, link = chain[i + 1]
                value = plain[nc:nd].strip()
                if not _PLAIN_VALUE.fullmatch(value):
                    continue
                claimed = _claimed(link, value)
                normal = normal_expression(expr)
                try:
                    parse_expression(normal)
                    parse_claimed(claimed)
                except AuditError:
                    continue
                ok, reason = determined(normal, claimed, discounts="log" in normal)
                if not ok:
                    why.append(reason)
                    continue
                out.append({"kind": "arithmetic", "quote": text[a:b], "claim": f"{normal} is {claimed}",
                            "expression": normal, "claimed": claimed})
    return out


#: A statistic cue that is only ``p = 0.8``: in a part of the text about RBP and no test, RBP's persistence.
_PERSISTENCE_ONLY = re.compile(r"\bp\s*(?:=|≈)(?![^;]*(?:\bp-values?\b|\b[WtTz][+−-]?\s*=|\bt\(\d+\)))")


_PERSISTENCE_PART = re.compile(r"\bRBP\b|\brank-biased\b|\bpersistence\b|\brbp\.\d", re.IGNORECASE)


_TEST_PART = re.compile(r"\b(?:p-values?|significan\w*|t-test|Wilcoxon|null\s+hypothesis|bootstrap|permutation|"
                        r"Bonferroni|Holm|alpha|α)\b|\bt\(\d+\)", re.IGNORECASE)


def persistence_part(part: str) -> bool:
    """Whether ``part`` of a text (a section) speaks of RBP's persistence p and of no statistical test: its
    ``p = 0.8`` is the persistence, not a p-value."""
    return bool(_PERSISTENCE_PART.search(part)) and not _TEST_PART.search(part)


#: A p-value or a test statistic named just before a computation ("the exact two-sided p-value is 5/256 ≈ 0.020").
_STATISTIC_BEFORE = re.compile(r"(?:\bp-values?\b|\bp\s*(?:=|≈|<|≤)|\b[WtTz][+−-]?\s*=|\bt\(\d+\))[^;]*$")


#: Thousands separators after a number's first digits (",048,576").
_THOUSANDS = re.compile(r"(?:,\d{3})+(?![\d.])")


_RATIO_VALUE = rf"(?:{WORD_FRACTION}|{NUM}\s*/\s*{NUM}|\d*\.\d+%?|\d+%)"


_AFTER_COUNT = re.compile(
    rf"^[^,;:]*?(?:,\s*(?:so\s+)?(?:(?:(?:a|an|its|the)\s+)?(?:set\s+)?(?:recall|precision|share|fraction|rate|"
    rf"proportion)\s+(?:of|is|was)\s+|which\s+is\s+)?)(?P<v>(?:(?:about|roughly|≈)\s*)?{_RATIO_VALUE})", re.IGNORECASE)


_COUNTS = [
    re.compile(rf"\b(?P<n>{_N})\s+of\s+(?:the\s+|its\s+|their\s+)?(?P<d>{_N})\b(?!-)", re.IGNORECASE),
    re.compile(rf"\b(?P<n>{_N})\s+(?:[\w-]+\s+){{1,3}}?out\s+of\s+(?P<d>{_N})\b", re.IGNORECASE),
    re.compile(rf"\bof\s+the\s+(?P<d>{_N})\s+[\w\s]{{1,40}}?,\s+(?P<n>{_N})\s+(?:are|were)\b[^,;]*", re.IGNORECASE),
]


def counts(s: Statement) -> list[dict]:
    """``12 of the 20 relevant passages, a recall of 0.6`` → arithmetic ``12/20`` against ``0.6``."""
    if ARITH.search(s.text) or re.search(r"\b(?:unjudged|judged)\b|@", s.text, re.IGNORECASE):
        return []
    out, used = [], []
    for pattern in _COUNTS:
        for m in pattern.finditer(s.text):
            if any(a < m.end() and m.start() < b for a, b in used):
                continue
            n, d = number(m.group("n")), number(m.group("d"))
            if n is None or d is None or d == 0 or n > d:
                continue
            after = _AFTER_COUNT.match(s.text[m.end():])
            if not after:
                continue
            value = after.group("v").strip()
            claimed = value.replace("≈", "≈ ").replace("  ", " ") if value.startswith("≈") else value
            try:
                parse_claimed(claimed)
            except AuditError:
                continue
            end = m.end() + after.end()
            used.append((m.start(), end))
            out.append({"kind": "arithmetic", "quote": s.text[m.start():end],
                        "claim": f"{n} of {d} is {claimed}", "expression": f"{n}/{d}", "claimed": claimed})
    return out


_PR_VALUE = rf"(?:{NUM}\s*/\s*{NUM}|{NUM}%?)"


_PRECISION_RECALL = re.compile(
    rf"\bprecision\s+(?:of\s+|is\s+|=\s*)?(?P<p>{_PR_VALUE})(?:,\s*|\s+)and\s+(?:a\s+|its\s+)?recall\s+(?:of\s+|is\s+|=\s*)?"
    rf"(?P<r>{_PR_VALUE})(?![\w/.]|\.\d)", re.IGNORECASE)


_F_VALUE = re.compile(rf"\b(?:(?P<name>F1|F2|F0\.5)|F-measure|F-score)\s+(?:score\s+)?(?:is|=|of|comes\s+to|equals)\s+"
                      rf"(?:exactly\s+)?(?P<v>(?:(?:≈|~|about|roughly)\s*)?{_PR_VALUE})(?![\w/]|\.\d)"
                      rf"(?!\s*(?:[-+*/×·÷−^(·]|=))", re.IGNORECASE)


_BETA = {"f1": "1", "f2": "2", "f0.5": "1/2", None: "1"}


def harmonic(s: Statement) -> list[dict]:
    """An F-measure printed with the precision and recall it combines ("precision 3/4 and recall 3/4, so its F1
    is 0.75") → an arithmetic claim (1 + β²)·P·R / (β²·P + R) against the printed value (van Rijsbergen 1979)."""
    pr = _PRECISION_RECALL.search(s.text)
    f = _F_VALUE.search(s.text, pr.end()) if pr else None
    if not pr or not f or ARITH.search(s.text[pr.start():f.end()]):
        return []
    p, r = normal_expression(pr.group("p")), normal_expression(f"{pr.group('r')}")
    if p.endswith("%") or r.endswith("%"):
        return []
    b2 = {"1": "1", "2": "4", "1/2": "1/4"}[_BETA[(f.group("name") or "F1").lower()]]
    expression = f"(1 + {b2})*({p})*({r})/({b2}*({p}) + ({r}))"
    claimed = f.group("v").strip()
    claimed = _claimed(claimed.split()[0], claimed.split(None, 1)[1]) if re.match(r"(?:≈|~|about|roughly)\s", claimed) \
        else claimed.replace("≈", "≈ ").replace("  ", " ")
    try:
        parse_expression(expression)
        parse_claimed(claimed)
    except AuditError:
        return []
    ok, _ = determined(expression, claimed)
    if not ok:
        return []
    name = f.group("name") or "F1"
    return [{"kind": "arithmetic", "quote": s.text[pr.start():f.end()],
             "claim": f"{name} of precision {pr.group('p')} and recall {pr.group('r')} is {claimed}",
             "expression": expression, "claimed": claimed}]
