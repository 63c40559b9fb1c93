"""Claims encoded from one statement's wording, for ``audit init``.

Each encoder reads a statement found by ``audit.text.scan`` and returns complete claims (as register
mappings) only when the sentence itself gives everything the check needs; otherwise it returns
nothing and the statement stays a draft with a precise TODO (``todo``). What is read:

* arithmetic: ``expression (=|≈|~|, roughly|about) value`` → an ``arithmetic`` claim; in a chain
  ``a = b = c ≈ d`` each expression against the next value the chain prints for it, never a piece of
  an intermediate term. A chain stays a draft when its verdict would not be the sentence's: rounded
  terms that do not decide the printed value, a value a library is said to return, a measure's
  value that takes one side of a convention the text leaves open;
* an F-measure printed with the precision and recall it combines → an ``arithmetic`` claim;
* counts: ``n of (the) d …, a recall of v`` / ``of the d …, n are …, so its precision is v`` /
  ``n … out of d, which is about v`` → an ``arithmetic`` claim ``n/d`` against ``v``;
* values whose fixture the sentence describes: relevant documents at stated positions (``at
  ranks 2 and 5``, ``of five``, ``the only two``, ``if the need has three relevant documents``),
  ``n results with m relevant``, several needs with their first relevant ranks, grades against
  a stated ideal order, unjudged counts, ``R = 10, and the top ten hold nine relevant documents``
  (R-precision), a graded list ``[4, 3, 2, 1]`` (DCG, ERR, RBP) → a ``value`` claim with an inline
  fixture. A fixture for a measure beyond P, R, RR, AP, nDCG, Success and Judged, or read from
  the newer wordings, must reproduce the printed value under some reading of the conventions the
  text states (``reproduces``): otherwise it is not the sentence's, and the claim stays a draft;
* a move of one relevant document (``from rank 5 to rank 2``, ``from second place to first``)
  with the measure's direction and values → a ``comparison`` claim;
* universal statements → a ``property`` claim: measure, relation and what it is compared with
  (the next cutoff, a transformed case, another measure, or another measure at rank |R|), never a
  measure compared with itself;
* a listing's ``def`` line whose name and parameters say which measure it computes → a ``code``
  claim.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from itertools import product

from audit.errors import AuditError
from audit.measures.syntax import at_cutoff
from audit.measures.syntax import parse as parse_measure
from audit.model.values import (
    expression_interval,
    parse_claimed,
    parse_expression,
    printed_terms_interval,
    term_readings,
)
from audit.text.scan import (
    ARITH,
    EXPRESSION,
    FUNCTION,
    METRIC,
    NUM,
    RELATION,
    VALUE,
    WORD_FRACTION,
    Statement,
)
from audit.text.words import _DOCS, _LIST, _N, _NEEDS, _ORDINAL_POSITION, _list, number

# --- measures -----------------------------------------------------------------------------------

#: ``scan.METRIC`` notation → the chapter evaluator's measure (``audit.evaluation.evaluator.CATALOGUE``), in
#: ir-measures syntax; a parameter the name fixes is part of it (``F2`` is ``F(beta=2)``).
_NOTATION = {"nDCG": "nDCG", "NDCG": "nDCG", "IDCG": "IDCG", "DCG": "DCG", "MRR": "RR", "GMAP": "GMAP", "MAP": "AP",
             "ERR": "ERR", "RBP": "RBP", "RR": "RR", "AP": "AP", "Rprec": "Rprec", "R-prec": "Rprec", "IPrec": "IPrec",
             "NumRelRet": "NumRelRet", "NumRel": "NumRel", "NumRet": "NumRet", "SetP": "SetP", "SetR": "SetR",
             "SetF": "SetF", "Success": "Success", "Judged": "Judged", "Bpref": "Bpref", "bpref": "Bpref", "F1": "F",
             "F2": "F(beta=2)", "F0.5": "F(beta=0.5)", "F": "F", "P": "P", "R": "R"}
#: Library names (trec_eval's output names, ranx's metric names) → measure, with the cutoff the name carries.
_LIBRARY = ((r"rbp\.(?P<p>\d+)", None), (r"ndcg_burges", "nDCG(dcg='exp-log2')"), (r"dcg_burges", "DCG(dcg='exp-log2')"),
            (r"r[-_]precision", "Rprec"), (r"gm_map", "GMAP"), (r"num_rel_ret", "NumRelRet"), (r"num_rel", "NumRel"),
            (r"num_ret", "NumRet"), (r"recip_rank", "RR"), (r"iprec_at_recall_(?P<r>\d\.\d+)", "IPrec"),
            (r"P_(?P<k>\d+)", "P"), (r"ndcg_cut[._](?P<k>\d+)", "nDCG"), (r"map_cut[._](?P<k>\d+)", "AP"),
            (r"recall_(?P<k>\d+)", "R"), (r"set_F", "SetF"), (r"set_P", "SetP"), (r"set_recall", "SetR"),
            (r"map", "AP"), (r"mrr", "RR"), (r"dcg", "DCG"), (r"ndcg", "nDCG"), (r"err", "ERR"))
#: Measure words → measure, first match wins (``None``: a name that is no measure, e.g. "the ideal order").
_WORDS = ((r"(?:interpolated\s+)?precision\s+at\s+.*recall", "IPrec"), (r"interpolated\s+precision", "IPrec"),
          (r"expected\s+reciprocal\s+rank", "ERR"), (r"(?:mean\s+)?reciprocal\s+rank", "RR"),
          (r"geometric\s+mean", "GMAP"), (r"(?:mean\s+)?average\s+precision", "AP"),
          (r"rank-biased\s+precision", "RBP"), (r"r-precision", "Rprec"),
          (r"ideal\s+(?:discounted\s+cumulative\s+gain|dcg)", "IDCG"), (r"ideal\s+", None),
          (r"normali[sz]ed\s+discounted", "nDCG"), (r"discounted\s+cumulative\s+gain", "DCG"), (r"bpref", "Bpref"),
          (r"f-measure|f-score|f1", "F"), (r"number\s+of\s+relevant\s+\w+\s+(?:retrieved|returned)", "NumRelRet"),
          (r"number\s+of\s+relevant", "NumRel"), (r"precision", "P"), (r"recall", "R"), (r"ndcg", "nDCG"),
          (r"success|hit\s+rate", "Success"), (r"judged\s+fraction", "Judged"))


def measure_of(m: re.Match) -> tuple[str, int | str | None] | None:
    """A ``scan.METRIC`` match → (measure, cutoff or ``"k"`` or ``None``); ``None`` when the name is not a
    measure the chapter evaluator computes (an ideal order, F_β with β unstated). The measure carries a
    parameter its name fixes (``RBP(p=0.8)`` from ranx's ``rbp.80``, ``nDCG(dcg='exp-log2')`` from
    ``ndcg_burges``); an interpolated precision's cutoff is its recall level (``IPrec`` with ``"0.5"``)."""
    groups = m.groupdict()
    if groups.get("notation"):
        base = _NOTATION.get(groups["notation"])
        if base is not None and groups.get("params"):
            if "(" in base:
                return None
            base += re.sub(r"\s+", "", groups["params"])
        k = groups.get("k")
        if base == "IPrec":
            return (base, k) if k and "." in k else (base, None)
    elif groups.get("lib"):
        name, base, k = groups["lib"], None, groups.get("k3")
        for pattern, measure in _LIBRARY:
            lm = re.fullmatch(pattern, name, re.IGNORECASE)
            if lm:
                found = lm.groupdict()
                if found.get("p"):
                    base = f"RBP(p={float('0.' + found['p']):g})"
                else:
                    base = measure
                if found.get("r"):
                    return base, str(float(found["r"]))
                k = found.get("k") or k
                break
    else:
        words = re.sub(r"\s+", " ", groups["words"].lower())
        base = next((b for w, b in _WORDS if re.match(w, words)), None)
        k = groups.get("kw") or groups.get("k2")
        if base == "IPrec":
            level = groups.get("level")
            return base, (str(float(level)) if level and "." in level else None)
    if base is None:
        return None
    # a measure without a cutoff (Rprec, SetF, NumRel …): a cutoff written with it is ignored, as trec_eval and ranx do
    if k is None or at_cutoff(base, 1) == base:
        return base, None
    if k.lower() == "k":
        return base, "k"
    return base, number(k)


def _name(base: str, k) -> str:
    return base if k is None or k == "k" else f"{base}@{k}"


def _root(base: str) -> str:
    """The measure without its parameters: ``RBP(p=0.8)`` → ``RBP``."""
    return base.split("(")[0]


# --- arithmetic and counts ----------------------------------------------------------------------

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
    """An expression as printed → as ``audit.model.values`` reads it: ``×``/``·``/``x`` → ``*``, ``÷`` → ``/``,
    ``−`` → ``-``, a superscript ² or ³ → ``^2``/``^3``, and ``(1/4)(1/4)`` → ``(1/4)*(1/4)``."""
    out = expr.replace("·", "*").replace("×", "*").replace("÷", "/").replace("−", "-")
    out = re.sub(r"(?<=[\d.)])\s*[xX]\s*(?=[\d.(])", " * ", out)   # ".912 x 10"
    out = out.replace("²", "^2").replace("³", "^3")
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


def printed_expressions(text: str, value: str) -> list[str]:
    """The expressions ``text`` prints just before the printed ``value`` in a chain ("IDCG@5 = 3/1 + 3/1.58 + 2/2 +
    1/2.32 = 6.33" → ``3/1 + 3/1.58 + 2/2 + 1/2.32`` for ``6.33``), as ``audit.model.values`` reads them; ``value`` is
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
    exact_before = {left for left, _, holds in _links(before) if holds == "exact"}
    false_before = set(false_arithmetic(before))
    new = [how for left, how, holds in _links(after)
           if how not in false_before and (not holds or (holds == "rounded" and left in exact_before))]
    return "; ".join(new)


def breaks_replacing(text: str, old: str, new: str) -> str:
    """``breaks_arithmetic`` for the edit that writes ``new`` for the first ``old`` in ``text`` ('' when ``text``
    does not print ``old``)."""
    return breaks_arithmetic(text, text.replace(old, new, 1)) if old in text else ""


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
    return [int(g) for m in _GRADE_LIST.finditer(text) for g in re.findall(r"\d+", m.group("list") or m.group("list2"))]


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
    return out, why


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


# --- fixtures described in the sentence -----------------------------------------------------------

def _ranking(positions: list[int], length: int, relevant_total: int | None) -> dict:
    """One need: relevant documents a, b, … at ``positions`` in a ranking of ``length`` judged
    documents (the others non-relevant n1, n2, …); ``relevant_total`` adds relevant documents
    never retrieved (r1, …) so that |R| is as stated."""
    letters = "abcdefghij"
    run, qrels, rel, non = [], {}, 0, 0
    for pos in range(1, length + 1):
        if pos in positions:
            doc = letters[rel]
            rel += 1
            qrels[doc] = 1
        else:
            non += 1
            doc = f"n{non}"
            qrels[doc] = 0
        run.append(doc)
    for i in range((relevant_total or rel) - rel):
        qrels[f"r{i + 1}"] = 1
    return {"qrels": {"q1": qrels}, "run": {"q1": run}}


_POSITIONS = re.compile(rf"\b(?:at|in)\s+(?:ranks?|positions?)\s+(?P<list>{_LIST})"
                        rf"(?:\s+(?:of|out\s+of)\s+(?P<n>{_N})\b)?", re.IGNORECASE)
_FIRST_AT = re.compile(rf"\bfirst\s+relevant\s+(?:document|passage|result|chunk|item)s?\s+(?:is|sits|was|appears)"
                       rf"\s+(?:at\s+(?:rank|position)\s+(?P<pos>\d+)|(?P<ord>{'|'.join(_ORDINAL_POSITION)})\b)", re.IGNORECASE)
_N_RESULTS = re.compile(rf"\b(?P<n>{_N})\s+(?:results|documents\s+returned|retrieved\s+documents)\b", re.IGNORECASE)
_M_AMONG = re.compile(rf"\b(?P<m>{_N})\s+relevant\s+(?:documents?|passages?|results?|chunks?)\s+"
                      rf"(?:among|in)\s+(?:its|the)\s+(?P<n>{_N})\s+results\b", re.IGNORECASE)
_ONLY = re.compile(rf"\bthe\s+only\s+(?P<m>{_N})\s+relevant\b", re.IGNORECASE)
_HAS_R = re.compile(rf"\b(?:has|have|with)\s+(?:exactly\s+)?(?P<m>{_N})\s+relevant\s+(?:documents?|passages?|chunks?)"
                    rf"(?!\s+(?:among|in|at))|\|R\|\s*=\s*(?P<m2>\d+)", re.IGNORECASE)
_GRADES = re.compile(rf"\b(?:grades?\s+(?:are|read|were)?\s*|in\s+the\s+order\s+)(?P<list>{_LIST})", re.IGNORECASE)
_JUDGEMENTS = re.compile(rf"\b(?:graded\s+)?judgements?\s+(?P<list>{_LIST})", re.IGNORECASE)
_IDEAL = re.compile(rf"\bideal\s+order\s+(?P<list>{_LIST})", re.IGNORECASE)
_UNJUDGED = re.compile(rf"\b(?P<u>{_N})\s+of\s+(?:the|its)\s+(?P<n>{_N})\s+(?:results|documents)\b[^.;]*?"
                       rf"\b(?:unjudged|never\s+judged|not\s+judged)\b", re.IGNORECASE)
_JUDGED_SHARE = re.compile(rf"(?P<v>{WORD_FRACTION}|{NUM}\s*/\s*{NUM}|{NUM})\s+of\s+the\s+(?:ranking|results)\s+"
                           rf"(?:is|are|was|were)\s+judged", re.IGNORECASE)
_VERB_VALUE = re.compile(rf"^`?\s*(?:\([^)]*\)\s*)?(?:(?:is|was|=|≈|~|comes\s+to|equals|of|gives?|returns?|reports?)\s*)?"
                         rf"(?:therefore\s+|then\s+|only\s+)?(?P<v>(?:(?:≈|~|about|roughly|approximately)\s*)?"
                         rf"{VALUE})(?![\w/@])", re.IGNORECASE)
_LATER_VALUE = re.compile(rf"\b(?:is|was|comes\s+to|equals)\s+(?P<v>(?:(?:about|roughly|≈)\s*)?(?:{NUM}\s*/\s*{NUM}|"
                          rf"\d*\.\d+|{WORD_FRACTION}))(?![\w/@])", re.IGNORECASE)


def _value_after(text: str, m: re.Match, stop: int) -> str | None:
    for chain in chains(text[:stop]):
        if chain[0][0] >= m.end() and re.fullmatch(r"\s*(?:=|≈|:|is|was|comes\s+to)?\s*", text[m.end():chain[0][0]]):
            # the measure's value is computed in a chain: the value it prints last, not a piece of a term
            last = text[chain[-1][0]:chain[-1][1]].strip()
            if not _PLAIN_VALUE.fullmatch(last):
                return None
            approx = next((w.group(0) for _, _, link in chain for w in [_APPROX_WORD.search(link)] if w), "")
            return _claimed(approx, last) if approx else last
    v = _VERB_VALUE.match(text[m.end():stop])
    if v:
        if re.match(r"\s*(?:[-+*/×·÷−^(]|\.\d)", text[m.end() + v.end():stop]):
            return None   # the start of an expression, not a value
        return v.group("v")
    v = _LATER_VALUE.search(text[m.end():stop])
    if v is None:
        return None
    at = m.end() + v.start("v")
    for chain in chains(text[:stop]):
        if any(a <= at < b for a, b, _ in chain[:-1]):
            # "ERR@3 for the top three grades 2, 0, 3 is 3/8 + (5/8)(7/8)/3 ≈ 0.557": the value the chain that
            # starts there prints last, not its first term
            last = text[chain[-1][0]:chain[-1][1]].strip()
            if not _PLAIN_VALUE.fullmatch(last):
                return None
            approx = next((w.group(0) for _, _, link in chain for w in [_APPROX_WORD.search(link)] if w), "")
            return _claimed(approx, last) if approx else last
    return v.group("v")


def _grade_fixture(run_grades: list[int], ideal: list[int]) -> dict | None:
    """Judged documents with the ``ideal`` grades (g1, g2, …) and a ranking with ``run_grades``; a
    grade 0 not in the ideal list is a judged non-relevant document."""
    pool = {f"g{i + 1}": g for i, g in enumerate(ideal)}
    free = dict(pool)
    run, zeros = [], 0
    for g in run_grades:
        doc = next((d for d, dg in free.items() if dg == g), None)
        if doc is None:
            if g != 0:
                return None
            zeros += 1
            doc = f"z{zeros}"
            pool[doc] = 0
        else:
            del free[doc]
        run.append(doc)
    return {"qrels": {"q1": pool}, "run": {"q1": run}}


_BRACKETS = re.compile(r"\[(?P<list>\d+(?:\s*,\s*\d+)+)\]")
_TOP_HOLD = re.compile(rf"\btop\s+(?P<n>{_N})\b[^.;]{{0,40}}?\b(?:hold|holds|contain|contains|where|of\s+which)\s+"
                       rf"(?P<m>{_N})\s+(?:are\s+|is\s+)?relevant|\b(?P<m2>{_N})\s+of\s+the\s+top\s+(?P<n2>{_N})\s+"
                       rf"(?:are|is|were)\s+relevant", re.IGNORECASE)
_R_IS = re.compile(r"\|R\|\s*=\s*(?P<r>\d+)|\bR\s*=\s*(?P<r2>\d+)\b(?![.,]\d)")
#: Measures whose value needs |R| (relevant documents never retrieved count), and measures built from a graded
#: list alone (they depend on the ranked grades only).
_NEEDS_R = {"R", "AP", "Rprec", "F", "IPrec", "NumRel"}
_FROM_GRADES = {"DCG", "ERR", "RBP"}
#: Measures a described fixture can stand for (bpref needs to know which documents are judged non-relevant,
#: GMAP several queries, the ideal DCG every judged grade, set measures a set).
_DESCRIBED = {"P", "R", "RR", "AP", "nDCG", "Success", "Judged", "Rprec", "F", "IPrec", "NumRel", "NumRet",
              "NumRelRet", "DCG", "ERR", "RBP"}


def _described(text: str, base: str, k) -> tuple[dict | None, str]:
    """The fixture the sentence describes for ``base@k``, or (None, why not)."""
    root = _root(base)
    if root not in _DESCRIBED:
        return None, {"Bpref": "bpref depends on which documents are judged non-relevant, which the sentence does "
                               "not say", "GMAP": "GMAP needs each query's ranking", "IDCG": "the ideal DCG needs every "
                               "judged grade, retrieved or not"}.get(root, f"{base} is a set measure: encode a cohort")
    if root in ("Rprec", "P"):
        top, r = _TOP_HOLD.search(text), _R_IS.search(text)
        if top and not _POSITIONS.search(text):
            n, m_ = number(top.group("n") or top.group("n2")), number(top.group("m") or top.group("m2"))
            total = int(r.group("r") or r.group("r2")) if r else None
            if root == "Rprec" and total != n:
                return None, "R-precision needs |R| stated and equal to the top n the sentence counts"
            if root == "P" and k != n:
                return None, "the cutoff differs from the top n the sentence counts"
            if n is not None and m_ is not None and m_ <= n and (total is None or total >= m_):
                return _ranking(list(range(1, m_ + 1)), n, total), ""
    if root in _FROM_GRADES:
        lists = {tuple(_list(b.group("list"))) for b in _BRACKETS.finditer(text)}
        if len(lists) == 1 and not _POSITIONS.search(text):
            grades = list(next(iter(lists)))
            docs = [f"g{i + 1}" for i in range(len(grades))]
            return {"qrels": {"q1": dict(zip(docs, grades))}, "run": {"q1": docs}}, ""
        if len(lists) > 1:
            return None, "the sentence prints several graded lists"
    needs = _NEEDS.search(text)
    listed = needs or _POSITIONS.search(text)
    ranks = _list(listed.group("list")) if listed else []
    # Several needs, one first relevant rank each: the sentence names needs, repeats a rank (one
    # ranking cannot hold two documents at one rank) or averages.
    multi = bool(listed) and (bool(needs) or len(set(ranks)) < len(ranks)
                              or (base == "RR" and bool(re.search(r"\b(?:mean|MRR|averag)", text, re.IGNORECASE))))
    if multi and base != "RR":
        return None, "several needs are described; only a mean reciprocal rank is built from first relevant ranks"
    if base == "RR" and multi:
        q = number(needs.group("q")) if needs and needs.group("q") else len(ranks)
        if q != len(ranks):
            return None, "the number of needs and of ranks differ"
        fx = {"qrels": {}, "run": {}}
        for i, r in enumerate(ranks, 1):
            one = _ranking([r], r, 1)
            fx["qrels"][f"q{i}"], fx["run"][f"q{i}"] = one["qrels"]["q1"], one["run"]["q1"]
        return fx, ""
    if base == "nDCG":
        ideal = _IDEAL.search(text)
        grades = [g for g in _GRADES.finditer(text) if not ideal or g.start() < ideal.start() or g.start() > ideal.end()]
        if not ideal:
            return None, "the ideal order (every judged grade) is not stated in the sentence"
        order = next((g for g in grades if "order" in g.group(0).lower()), grades[0] if grades else None)
        if order is None:
            return None, "the ranked grades are not stated"
        fx = _grade_fixture(_list(order.group("list")), _list(ideal.group("list")))
        return (fx, "") if fx else (None, "a ranked grade is not in the stated ideal order")
    if base == "Judged":
        u = _UNJUDGED.search(text)
        if not u:
            return None, "the unjudged count is not stated"
        n, un = number(u.group("n")), number(u.group("u"))
        run = [f"u{i + 1}" for i in range(un)] + [f"j{i + 1}" for i in range(n - un)]
        return {"qrels": {"q1": {d: 0 for d in run if d.startswith("j")} or {"x": 0}}, "run": {"q1": run}}, ""
    total = None
    only = _ONLY.search(text)
    has = _HAS_R.search(text)
    if only:
        total = number(only.group("m"))
    elif has:
        total = number(has.group("m") or has.group("m2"))
    pos = _POSITIONS.search(text)
    first = _FIRST_AT.search(text)
    among = _M_AMONG.search(text)
    if pos and not multi:
        from audit.text.examples.positions import _ONE_OF, _RELEVANT_BEFORE, conflict
        positions = _list(pos.group("list"))
        before = text[max(0, pos.start() - 60):pos.start()]
        after = text[pos.end():pos.end() + 40]
        if _ONE_OF.search(before) or not (_RELEVANT_BEFORE.search(before) or re.match(
                r"\s*(?:(?:are|were)\s+(?:the\s+)?relevant|hold\s+(?:the\s+)?relevant)\b", after, re.IGNORECASE)):
            # "the document at rank 5 is judged", "a relevant document at rank 5", "the last relevant one at rank 15":
            # one document's rank, not where every relevant document of the ranking is
            return None, (f"{_name(base, k)} needs what the sentence does not state: which ranks hold the relevant "
                          "documents, and which do not?")
        asked = conflict(text, positions)
        if asked:
            return None, f"{_name(base, k)} needs what the sentence does not state: {asked}"
        length = number(pos.group("n")) if pos.group("n") else None
        results = _N_RESULTS.search(text)
        length = length or (number(results.group("n")) if results else None)
        if length is None and (k is None and root in ("AP", "Rprec", "DCG", "ERR", "RBP", "NumRet")
                               or isinstance(k, int) and k > max(positions)):
            # the ranking is known down to the last stated position only: what follows is not the sentence's
            from audit.text.examples.example import ASK_LENGTH
            return None, f"{_name(base, k)} needs what the sentence does not state: {ASK_LENGTH.format(n=max(positions))}"
        length = length or max(positions)
        if root in _NEEDS_R and total is None:
            from audit.text.examples.example import ASK_RELEVANT
            return None, f"{_name(base, k)} needs what the sentence does not state: {ASK_RELEVANT}"
        if total is not None and total < len(positions):
            return None, "more relevant positions than relevant documents"
        return _ranking(positions, length, total), ""
    if first and base == "RR":
        p = int(first.group("pos")) if first.group("pos") else _ORDINAL_POSITION[first.group("ord").lower()]
        return _ranking([p], p, None), ""
    if among and base == "P":
        m_, n = number(among.group("m")), number(among.group("n"))
        if k not in (None, "k") and k != n:
            return None, "the cutoff differs from the number of results, so the positions matter"
        return _ranking(list(range(1, m_ + 1)), n, None), ""
    return None, "the sentence states no ranking (positions, counts, grades or needs) to build a fixture from"


def _fixture_for(text: str, base: str, k) -> tuple[dict | None, str, bool]:
    """The fixture the sentence describes for ``base@k``, why not (None, why), and whether it was read from
    a newer wording (the top n holding m relevant, a graded list), which must then reproduce the printed value."""
    fx, why = _described(text, base, k)
    root = _root(base)
    newer = fx is not None and not _POSITIONS.search(text) and (
        (root in ("Rprec", "P") and bool(_TOP_HOLD.search(text))) or (root in _FROM_GRADES and bool(_BRACKETS.search(text))))
    return fx, why, newer


_MEASURE_NEEDS_CUTOFF = {"P", "Judged", "Success"}


#: Measures whose fixtures the encoder has long built from positions, counts, needs and grades; a value claim on
#: any other measure, or on a fixture read from a newer wording, runs only when the fixture reproduces the printed
#: value under some reading the audit will try (``reproduces``).
_ESTABLISHED = {"P", "R", "RR", "AP", "nDCG", "Success", "Judged"}
_WHOLE_VALUES = _ESTABLISHED | {"NumRel", "NumRet", "NumRelRet", "Rprec", "F", "ERR", "RBP", "DCG", "IPrec"}


def reproduces(name: str, fixture: dict, claimed: str, declared: dict[str, tuple[str, ...]] | None = None
               ) -> tuple[bool, str]:
    """Whether ``fixture`` gives ``claimed`` for ``name`` under some reading the audit will try: the conventions
    ``declared`` for the sentence (``{name: values}``: the chapter's, its section's and its own), every value of
    the others (``audit.evaluation.readings.explore``). Otherwise the fixture (or a convention) is not the
    sentence's, and a runnable claim on it would give a verdict about something the sentence did not say."""
    from audit.evaluation.evaluator import aggregate, relevant_to
    from audit.evaluation.readings import REJECTED, explore, graded_levels
    from audit.measures.conventions import Declared
    from audit.measures.conventions import Statement as Stated

    _, spec = parse_measure(name)
    if spec is None:
        return False, f"the chapter evaluator does not compute {name}"
    names = relevant_to(spec.name, several_queries=len(fixture["run"]) > 1)
    stated = Declared({n: [Stated(v) for v in vals] for n, vals in (declared or {}).items()})
    readings = explore(lambda r: aggregate(spec, fixture["qrels"], fixture["run"], r), stated, names,
                       restrict=graded_levels(fixture["qrels"]))
    found = [o.value for o in readings.outcomes if o.value is not None and o.value != REJECTED]
    value = parse_claimed(claimed)
    if any(value.contains(v) for v in found):
        return True, ""
    shown = ", ".join(sorted({f"{float(v):.6g}" for v in found}))
    return False, (f"the fixture read from the sentence gives {name} = {shown} under the conventions the text "
                   f"states (and every value of those it leaves open), not the printed {claimed}: check the fixture "
                   f"and the conventions before encoding")


#: Most measures one sentence names for which ``values`` drafts a value claim (a real sentence names a handful; a table
#: dump flattened into one sentence names thousands).
MAX_SENTENCE_MEASURES = 50


def values(s: Statement, declared: dict[str, tuple[str, ...]] | None = None,
           local: dict[str, tuple[str, ...]] | None = None) -> tuple[list[dict], str]:
    """Value claims whose fixture the sentence describes, or ([], why not). Measures are written
    plain (``nDCG@3``): the gain and every other convention come from what the text declares
    (``audit.text.stated``), not from the measure name — except an exponential gain stated for the sentence
    alone (``local``: by itself or by its section's heading, "## DCG with exponential gain"), which names
    the variant (``DCG(dcg='exp-log2')@4``) so that the references compute it too (docs/measures.md).
    ``declared``: the conventions stated for the sentence (``{name: values}``), against which a fixture for a
    newer measure must reproduce the printed value."""
    text = s.text
    metrics = [m for m in METRIC.finditer(text)]
    if len(metrics) > MAX_SENTENCE_MEASURES:
        # each measure's value and fixture is read from the sentence around it: bounded, so a sentence's encoding
        # stays linear in its length (a 24 KB sentence printing 3,000 values would otherwise take hours)
        return [], (f"the sentence names {len(metrics):,} measures, more than the {MAX_SENTENCE_MEASURES} one value "
                    "claim is drafted for; split it, or encode its values by hand")
    out, reason = [], ""
    expects, fixture = [], None
    fixtures: dict = {}
    by = _BY.search(text)
    for i, m in enumerate(metrics):
        spec = measure_of(m)
        if spec is None:
            continue
        base, k = spec
        root = _root(base)
        if root in ("DCG", "nDCG", "IDCG") and base == root and (local or {}).get("gain") == ("exponential",):
            base = f"{root}(dcg='exp-log2')"
        stop = metrics[i + 1].start() if i + 1 < len(metrics) else len(text)
        semi = text.find(";", m.end())
        stop = min(stop, semi) if semi != -1 else stop
        value = _value_after(text, m, stop)
        if value is None or re.match(r"^(?:\d+)$", value) and root not in _WHOLE_VALUES:
            continue
        if k == "k" or (k is None and root in _MEASURE_NEEDS_CUTOFF):
            reason = "the cutoff k is not a number"
            continue
        if (base, k) not in fixtures:  # the fixture depends on the whole sentence and the measure: read once
            fixtures[(base, k)] = _fixture_for(text, base, k)
        fx, why, newer = fixtures[(base, k)]
        if by:
            lib = {"trec-eval": "trec_eval", "ir-measures": "ir_measures"}.get(by.group("lib").lower(), by.group("lib"))
            why = (f"the value is what {lib} returns: encode a value claim with `by: {lib}` "
                   "(docs/measures.md)" + (f"; {why}" if fx is None else " on the fixture"))
            fx = None
        if fx is None:
            reason = why
            continue
        if fixture is not None and fx != fixture:
            reason = "two measures in one sentence rest on different fixtures"
            continue
        value = value.strip()
        try:
            parse_claimed(value)
            parse_measure(_name(base, k))
        except AuditError as exc:
            reason = exc.message
            continue
        if newer or root not in _ESTABLISHED:
            ok, why = reproduces(_name(base, k), fx, value, declared)
            if not ok:
                reason = why
                continue
        fixture = fx
        expects.append({"measure": _name(base, k), "claimed": value})
    if expects and fixture is not None:
        claim = {"kind": "value", "quote": text, "claim": "; ".join(f"{e['measure']} is {e['claimed']}"
                                                                     for e in expects),
                 "fixture": fixture, "expect": expects}
        out.append(claim)
        return out, ""
    return [], reason


# --- comparisons ----------------------------------------------------------------------------------

_MOVE = re.compile(rf"\bfrom\s+(?:rank|position)\s+(?P<a>\d+)\s+to\s+(?:rank|position)\s+(?P<b>\d+)"
                   rf"|\bfrom\s+(?P<oa>{'|'.join(_ORDINAL_POSITION)})\s+(?:place|position)\s+to\s+"
                   rf"(?P<ob>{'|'.join(_ORDINAL_POSITION)})\b", re.IGNORECASE)
_STAYED = re.compile(r"\bstay(?:s|ed)\s+at\s+rank\s+(?P<a>\d+)", re.IGNORECASE)
_UP = re.compile(r"\b(?:rises|rose|raises?|improves?|improved|increases?|increased|goes\s+up|went\s+up)\b", re.IGNORECASE)
_DOWN = re.compile(r"\b(?:falls|fell|lowers?|lowered|drops?|dropped|decreases?|decreased|goes\s+down)\b", re.IGNORECASE)
_SAME = re.compile(r"\b(?:did\s+not\s+change|does\s+not\s+change|unchanged|stays\s+the\s+same|did\s+not\s+move)\b",
                   re.IGNORECASE)
_FROM_TO = re.compile(rf"\bfrom\s+(?P<a>{VALUE})\s+to\s+(?P<b>{VALUE})(?![\w/])", re.IGNORECASE)


def comparison(s: Statement) -> list[dict]:
    """One relevant document moved between stated ranks, and what the measure did."""
    text = s.text
    move, stayed = _MOVE.search(text), _STAYED.search(text)
    if not (move or stayed) or _UNIVERSAL_CUE.search(text):
        return []
    metrics = [measure_of(m) for m in METRIC.finditer(text)]
    metrics = [m for m in metrics if m]
    if len(metrics) != 1 or metrics[0] != ("RR", None):
        return []
    if move:
        a = int(move.group("a")) if move.group("a") else _ORDINAL_POSITION[move.group("oa").lower()]
        b = int(move.group("b")) if move.group("b") else _ORDINAL_POSITION[move.group("ob").lower()]
    else:
        a = b = int(stayed.group("a"))
    length = max(a, b)
    metric_at = next(METRIC.finditer(text)).end()
    rest = text[metric_at:]
    if a == b and _SAME.search(text):
        change = "unchanged"
    elif _SAME.search(rest) and a != b:
        change = "unchanged"
    elif _UP.search(text) and not _DOWN.search(text):
        change = "increases"
    elif _DOWN.search(text) and not _UP.search(text):
        change = "decreases"
    else:
        return []
    expect = {"measure": "RR", "change": change}
    ft = _FROM_TO.search(rest)
    if ft and not re.match(r"^(?:rank|position)", ft.group("a")):
        try:
            parse_claimed(ft.group("a"))
            parse_claimed(ft.group("b"))
            expect["before"], expect["after"] = ft.group("a"), ft.group("b")
        except AuditError:
            pass
    return [{"kind": "comparison", "quote": text,
             "claim": f"Moving the only relevant document from rank {a} to rank {b}: RR {change}"
                      + (f" from {expect['before']} to {expect['after']}" if "before" in expect else ""),
             "before": _ranking([a], length, 1), "after": _ranking([b], length, 1), "expect": [expect]}]


# --- universal statements -----------------------------------------------------------------------

_UNIVERSAL_CUE = re.compile(r"\b(?:never|always|cannot|can\s+never|can't|at\s+most|at\s+least|ignores\s+everything)\b",
                            re.IGNORECASE)
_GROWS = re.compile(r"\bas\s+k\s+(?:grows|increases|rises)|\braising\s+(?:k|the\s+cutoff)\b|\bincreasing\s+(?:k|the\s+"
                    r"cutoff)\b|\bas\s+the\s+cutoff\s+(?:grows|increases|rises)|\b(?:larger|deeper|higher)\s+(?:k|cutoff)"
                    r"\b", re.IGNORECASE)
_PROMOTE = re.compile(r"\bfrom\s+second\s+(?:place|position|rank)\s+to\s+first\b|\bfrom\s+rank\s+2\s+to\s+rank\s+1\b",
                      re.IGNORECASE)
_AFTER_FIRST = re.compile(r"\bignores\s+everything\s+after\s+the\s+first\s+relevant\b", re.IGNORECASE)
_RELATION_CUES: list[tuple[str, re.Pattern, bool]] = [
    # relation, cue, transitive (the measure follows the verb)
    ("never decreases", re.compile(r"\b(?:never|cannot|can\s+never|can't|does\s+not)\s+(?:decreases?|falls?|fall|drops?|"
                                   r"drop|go(?:es)?\s+down)\b", re.IGNORECASE), False),
    ("never decreases", re.compile(r"\bnever\s+(?:lowers?|hurts?)\b", re.IGNORECASE), True),
    ("never increases", re.compile(r"\b(?:never|cannot|can\s+never|can't|does\s+not)\s+(?:increases?|rises?|rise|grows?|"
                                   r"grow|go(?:es)?\s+up)\b", re.IGNORECASE), False),
    ("never increases", re.compile(r"\bnever\s+(?:raises?|helps?|improves?)\b", re.IGNORECASE), True),
    ("increases", re.compile(r"\balways\s+(?:helps?|raises?|improves?|increases|lifts?)\b", re.IGNORECASE), True),
    ("increases", re.compile(r"\balways\s+(?:rises|increases|grows|improves)\b", re.IGNORECASE), False),
    ("decreases", re.compile(r"\balways\s+(?:hurts?|lowers?|reduces?|decreases)\b", re.IGNORECASE), True),
    ("decreases", re.compile(r"\balways\s+(?:falls|drops|decreases)\b", re.IGNORECASE), False),
]
_M = r"(?P<{0}>[\w@ ]{{1,40}}?)"
_NOT_MORE = re.compile(r"\b(?:is|are|can|will)?\s*(?:never|not)\s+(?:be\s+)?(?:larger|greater|more|higher)\s+than\b|"
                       r"\b(?:can\s+never|never|cannot|can\s*not|does\s+not)\s+exceeds?\b|\bis\s+at\s+most\b", re.IGNORECASE)
_NOT_LESS = re.compile(r"\b(?:is|are|can|will)?\s*(?:never|not)\s+(?:be\s+)?(?:smaller|less|lower)\s+than\b|"
                       r"\bis\s+at\s+least\b|\bnever\s+falls\s+below\b", re.IGNORECASE)
PROPERTY_MEASURES = ("P", "R", "RR", "AP", "nDCG", "Success")
_NEXT_K = re.compile(r"\s*\+\s*1\b")
_ALWAYS_EQUALS = re.compile(r"\balways\s+(?:equals?|is\s+equal\s+to|is\s+the\s+same\s+as)\b", re.IGNORECASE)
_AT_R = re.compile(r"\s+at\s+(?:rank\s+|cutoff\s+|depth\s+)?(?:\|R\||R\b)")


def _universe(measures: list[str], k=None) -> dict:
    grades = [0, 1, 2] if "nDCG" in measures else [0, 1]
    universe = {"max_length": 5, "documents": 6, "grades": grades, "max_k": 6}
    if isinstance(k, int):
        universe["max_k"] = k
    return universe


#: A range a measure is said to lie in, for every ranking: "nDCG lies between 0 and 1", "RR ranges from 0 to 1",
#: "AP always falls in [0, 1]".
_RANGE = re.compile(rf"\b(?:always\s+)?(?:lies?|lying|ranges?|ranging|falls?|stays?|is|are|takes?\s+values?)\s+"
                    rf"(?:always\s+)?(?:between\s+(?P<a>{NUM})\s+and\s+(?P<b>{NUM})|from\s+(?P<c>{NUM})\s+to\s+"
                    rf"(?P<d>{NUM})|(?:with)?in\s+(?:the\s+(?:range|interval)\s+)?\[\s*(?P<e>{NUM})\s*,\s*"
                    rf"(?P<f>{NUM})\s*\])", re.IGNORECASE)
#: A range stated of one example, not of every ranking ("here", "for this query", "on q1").
_ONE_CASE = re.compile(r"\b(?:here|this|these|our|its|for\s+q\d|on\s+q\d|the\s+example|the\s+ranking\s+above|across|"
                       r"per[- ](?:query|topic)|queries|topics|runs?|systems?|observed|measured|reported)\b",
                       re.IGNORECASE)


def ranges(s: Statement) -> tuple[list[dict], str]:
    """A range stated for a measure in general ("nDCG lies between 0 and 1") as two property claims on a constant
    bound: the measure is never below the low end and never exceeds the high end, searched over rankings. A range
    of one example or of observed data ("here nDCG lies between …", "AP ranges from 0.2 to 0.9 across queries"), or of
    a measure the search does not cover, is left to a draft: it is no statement about every ranking."""
    text = s.text
    m = _RANGE.search(text)
    if m is None:
        return [], ""
    metrics = [(x, measure_of(x)) for x in METRIC.finditer(text[:m.start()])]
    metrics = [(x, spec) for x, spec in metrics if spec]
    if not metrics:
        return [], "the range is not stated of a measure"
    if _ONE_CASE.search(text):
        return [], "the range is stated of one example, not of every ranking: encode the example's values"
    base, k = metrics[-1][1]
    if _root(base) not in PROPERTY_MEASURES:
        return [], f"a range of {base}, which the property search does not cover"
    # the ends as exact numbers: a bound is a number, not a printed interval ("0.2" is 1/5)
    low, high = (str(Fraction(m.group(g) or m.group(h) or m.group(i))) for g, h, i in (("a", "c", "e"), ("b", "d", "f")))
    quote = text[metrics[-1][0].start():m.end()] + ("]" if m.group("f") and not text[m.end() - 1] == "]" else "")
    if k not in (None, "k") and (low, high) != ("0", "1"):
        return [], (f"a range of {base}@{k} other than [0, 1]: the property search covers every cutoff up to {k}, "
                    "not that one alone")
    search = {"random_cases": 500, "max_length": 30, "seed": 20261130}
    name = base if k in (None, "k") else f"{base}@{k}"
    return [{"kind": "property", "quote": quote, "claim": f"For every ranking, {name} is never below {low}",
             "measure": base, "relation": "never below", "compare": "constant", "bound": low,
             "universe": _universe([base], k), "search": search},
            {"kind": "property", "quote": quote, "claim": f"For every ranking, {name} never exceeds {high}",
             "measure": base, "relation": "never exceeds", "compare": "constant", "bound": high,
             "universe": _universe([base], k), "search": search}], ""


def properties(s: Statement) -> tuple[list[dict], str]:
    """Universal statements encoded as property claims, or ([], why not)."""
    text = s.text
    stated_range, why = ranges(s)
    if stated_range or why:
        return stated_range, why or "no universal wording"
    if not _UNIVERSAL_CUE.search(text):
        return [], "no universal wording"
    metrics = [(m, measure_of(m)) for m in METRIC.finditer(text)]
    metrics = [(m, spec) for m, spec in metrics if spec]
    search = {"random_cases": 500, "max_length": 30, "seed": 20261130}
    for pattern, swap in ((_NOT_MORE, False), (_NOT_LESS, True)):
        cue = pattern.search(text)
        if cue:
            left = [ms for ms in metrics if ms[0].end() <= cue.start()]
            right = [ms for ms in metrics if ms[0].start() >= cue.end()]
            if not left or not right:
                return [], "one side of the comparison is not a measure (a constant bound needs a value claim)"
            (_, (lb, lk)), (rm, (rb, rk)) = left[-1], right[0]
            if lk != rk:
                return [], "the two measures are stated at different cutoffs"
            if lb not in PROPERTY_MEASURES or rb not in PROPERTY_MEASURES:
                return [], "a measure the property search does not cover"
            if lb == rb:
                # One measure on both sides: a statement about the next cutoff ("recall at k never exceeds recall
                # at k + 1"), or nothing a property can state (it would compare the measure with itself).
                if lk == "k" and _NEXT_K.match(text[rm.end():]):
                    relation = "never increases" if swap else "never decreases"
                    return [{"kind": "property", "quote": text, "claim": f"For every ranking and cutoff k, {lb}@k+1 "
                             f"{relation} relative to {lb}@k", "measure": lb, "relation": relation,
                             "compare": "next_cutoff", "universe": _universe([lb]), "search": search}], ""
                return [], "both sides of the comparison are the same measure"
            a, b = (rb, lb) if swap else (lb, rb)
            return [{"kind": "property", "quote": text, "claim": f"For every ranking and cutoff k, {a}@k never exceeds "
                     f"{b}@k", "measure": a, "relation": "never exceeds", "compare": "measure", "other": b,
                     "universe": _universe([a, b], lk), "search": search}], ""
    equal = _ALWAYS_EQUALS.search(text)
    if equal:
        left = [ms for ms in metrics if ms[0].end() <= equal.start()]
        right = [ms for ms in metrics if ms[0].start() >= equal.end()]
        if left and right:
            (lm, (lb, lk)), (rm, (rb, rk)) = left[-1], right[0]
            at_r = _AT_R.match(text[rm.end():])
            if lb == rb:
                return [], "both sides of the comparison are the same measure"
            if at_r and {lb, rb} <= set(PROPERTY_MEASURES) | {"Rprec"} and lk in (None, "k") and rk in (None, "k"):
                quote = text[lm.start():rm.end() + at_r.end()]
                return [{"kind": "property", "quote": quote, "claim": f"For every ranking, {lb} equals {rb} at rank |R|",
                         "measure": lb, "relation": "equals", "compare": "measure", "other": rb, "at": "|R|",
                         "universe": _universe([lb, rb]), "search": search}], ""
            return [], "the sentence does not say at which cutoff both sides are equal (at rank |R|)"
    if _AFTER_FIRST.search(text):
        rr = [spec for _, spec in metrics if spec[0] == "RR"]
        if rr:
            return [{"kind": "property", "quote": text, "claim": "RR@k does not change when anything after the first "
                     "relevant document changes", "measure": "RR", "relation": "unchanged",
                     "compare": "transform", "transform": "change_after_first_relevant",
                     "universe": _universe(["RR"]), "search": search}], ""
    out = []
    for relation, cue, transitive in _RELATION_CUES:
        for c in cue.finditer(text):
            pick = ([ms for ms in metrics if ms[0].start() >= c.end()][:1] if transitive
                    else [ms for ms in metrics if ms[0].end() <= c.start()][-1:])
            if not pick:
                continue
            base = pick[0][1][0]
            if base not in PROPERTY_MEASURES:
                continue
            m = pick[0][0]
            clause = text[min(c.start(), m.start()):max(c.end(), m.end())]
            if _GROWS.search(text):
                out.append({"kind": "property", "quote": clause,
                            "claim": f"For every ranking and cutoff k, {base}@k+1 {relation} relative to {base}@k",
                            "measure": base, "relation": relation, "compare": "next_cutoff",
                            "universe": _universe([base]), "search": search})
            elif _PROMOTE.search(text):
                out.append({"kind": "property", "quote": clause,
                            "claim": f"Swapping a relevant document at rank 2 with a non-relevant one at rank 1: "
                                     f"{base}@k {relation}", "measure": base, "relation": relation,
                            "compare": "transform", "transform": "promote_second_relevant",
                            "universe": _universe([base]), "search": search})
    if len(out) == 1:
        out[0]["quote"] = text   # one universal statement: quote the whole sentence
    if out:
        return out, ""
    return [], ("the sentence does not say what the measure is compared with (the next cutoff, a named change "
                "of the ranking, or another measure)")


# --- code listings ----------------------------------------------------------------------------

_ROLES = {"ranking": ("ranking", "retrieved", "run", "results", "docs", "ranked", "doc_ids", "ids", "ranked_ids",
                      "predicted", "predictions", "ranked_list", "retrieved_ids"),
          "relevant set": ("relevant", "qrels", "gold", "relevant_ids", "truth", "positives", "actual", "relevant_docs"),
          "cutoff": ("k", "cutoff", "depth", "n", "top_k"),
          "ranked grades": ("grades", "rels", "relevances", "gains", "graded", "relevance_scores", "labels", "rel",
                            "relevance", "ranked_grades", "scores_true"),
          "qrels": ("qrels", "judgments", "judgements", "grades_by_doc", "relevance", "rel_map", "labels"),
          "judged grades": ("judged", "judged_grades", "all_grades", "pool_grades", "ideal_grades"),
          "cutoffs": ("ks", "cutoffs", "k_values", "k_list", "depths", "cutoff_list"),
          "scores": ("scores", "score_map", "doc_scores", "scored", "scores_by_doc", "predictions_scores"),
          "scored pairs": ("pairs", "scored_pairs", "ranked_pairs", "scored_docs", "results_with_scores"),
          "ranked grades by query": ("rs", "relevance_lists", "rels_by_query", "grades_by_query", "ranked_grades_list"),
          "per-query values": ("per_query", "values_by_query", "ap_by_query", "aps", "rr_by_query", "scores_by_query",
                               "per_query_values", "per_query_scores"),
          "constant": ("p", "persistence", "patience", "base", "beta", "gamma", "max_grade")}
#: Name fragments → the measure, tried in order: the longer names first ("average_precision_at_k" is AP, not P@k).
_FUNCTION_MEASURES = (("gmap", "GMAP"), ("geometric", "GMAP"), ("rbp", "RBP"), ("rank_biased", "RBP"),
                      ("reciprocal", "RR"), ("mrr", "RR"), ("average_precision", "AP"), ("mean_ap", "AP"),
                      ("map_", "AP"), ("ndcg", "nDCG"), ("dcg", "DCG"), ("r_precision", "Rprec"),
                      ("rprec", "Rprec"), ("recall", "R"), ("precision_at", "P"), ("success", "Success"),
                      ("hit", "Success"), ("precision", "P"))
_MAPPING_HINT = re.compile(r"\b(?:dict|Dict|Mapping|MutableMapping)\b")
_SEQUENCE_HINT = re.compile(r"\b(?:list|List|Sequence|tuple|Tuple|Iterable)\s*\[\s*(?:int|float)\b")
_SET_HINT = re.compile(r"\b(?:set|Set|frozenset|AbstractSet|Collection)\b")


_NESTED_MAPPING = re.compile(r"\b(?:dict|Dict|Mapping)\s*\[\s*str\s*,\s*(?:dict|Dict|Mapping)\b")
_MAPPING_TO_LIST = re.compile(r"\b(?:dict|Dict|Mapping)\s*\[\s*str\s*,\s*(?:list|List|Sequence|tuple)\b")


def _role(name: str, hint: str) -> str | None:
    """A parameter's role from its name and type hint: a mapping hint makes a judgements name ``qrels``, a list of
    numbers a grades name ``ranked grades``; a cutoff, a ranking and a relevant set by name. ``run`` and ``qrels``
    name one query's input in some texts and several queries' in others, so only a type hint decides them:
    ``dict[str, dict[…]]`` is a scored run or qrels by query, ``dict[str, list[…]]`` a run of ranked lists."""
    low = name.lower()
    if low in _ROLES["cutoff"]:
        return "cutoff"
    for role in ("cutoffs", "scored pairs", "ranked grades by query", "per-query values"):
        if low in _ROLES[role]:
            return role
    if low in _ROLES["scores"] and (not hint or _MAPPING_HINT.search(hint)):
        return "scores"
    if low in ("run", "runs", "run_dict", "results", "qrels", "judgments", "judgements"):
        if _NESTED_MAPPING.search(hint):
            return "qrels by query" if low in ("qrels", "judgments", "judgements") else "scored run"
        if _MAPPING_TO_LIST.search(hint) and low in ("run", "runs", "run_dict", "results"):
            return "run"
        if not hint and low in ("run", "runs", "run_dict", "qrels"):
            return None
    if _MAPPING_HINT.search(hint) and (low in _ROLES["qrels"] or low in _ROLES["relevant set"]):
        return "qrels"
    if low in _ROLES["ranked grades"] and (not hint or _SEQUENCE_HINT.search(hint)):
        return "ranked grades"
    if low in _ROLES["judged grades"] and (not hint or _SEQUENCE_HINT.search(hint) or "None" in hint):
        return "judged grades"
    if low in _ROLES["ranking"]:
        return "ranking"
    if low in _ROLES["relevant set"] and (not hint or _SET_HINT.search(hint) or "list" in hint.lower()):
        return "relevant set"
    return None


def _literal_call(call: str, nparams: int, bound: dict[str, str]) -> bool:
    """Whether ``call`` passes one argument per parameter, each a literal value or a name of ``bound``."""
    import ast

    try:
        node = ast.parse(call, mode="eval").body
        if not isinstance(node, ast.Call) or len(node.args) + len(node.keywords) != nparams:
            return False
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if not (isinstance(arg, ast.Name) and arg.id in bound):
                ast.literal_eval(arg)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _printed_result(printed: str, structured: bool) -> str | None:
    """The value a doctest's output prints, as a claim's ``returns``: one number, or for a listing returning a list or
    mapping its literal; None for anything else (an array's repr, text)."""
    from audit.model.values import parse_claimed, parse_claimed_parts

    printed = printed.strip()
    if not printed or "\n" in printed:
        return None
    # NumPy 2 prints a scalar with its type (np.float64(0.5)): the number inside is the output
    scalar = re.fullmatch(rf"(?:np|numpy)\.(?:float|int)(?:16|32|64)\((?P<n>{NUM})\)", printed)
    if scalar and not structured:
        printed = scalar.group("n")
    try:
        if structured:
            if printed[:1] in "[{":
                parse_claimed_parts(printed)
                return printed
            return None
        if re.fullmatch(NUM, printed):
            parse_claimed(printed)
            return printed
    except AuditError:
        return None
    return None


def _doctest_calls(text: str, name: str, nparams: int, structured: bool,
                   region: tuple[int, int] | None = None) -> list[dict]:
    """The calls of ``name`` a text's doctests make (read with doctest's own parser, ``audit.text.doctests``), each
    with the output doctest expects (a number, or the literal of a list or mapping) or the exception it expects, and
    the literal each name it passes was last assigned before it."""
    from audit.text.doctests import bindings_before, examples, passed_names

    out = []
    for e in examples(text):
        if region is not None and not region[0] <= e.offset < region[1]:
            continue
        call = e.source
        inner = re.fullmatch(r"print\((?P<call>.*)\)", call, re.S)
        if inner:
            call = inner.group("call")
        if not call.startswith(f"{name}(") or "\n" in call:
            continue
        names = passed_names(call)
        bound = bindings_before(text, e.offset, names)
        if any(n not in bound for n in names) or not _literal_call(call, nparams, bound):
            continue
        entry: dict = {"call": call}
        if e.raises is not None:
            entry["raises"] = e.raises
        else:
            printed = _printed_result(e.want, structured)
            if printed is not None:
                entry["returns"] = printed
        if names:
            entry["given"] = {n: bound[n] for n in names}
        out.append(entry)
    return out


def _shown_calls(text: str, name: str, nparams: int, structured: bool = False,
                 region: tuple[int, int] | None = None) -> list[dict]:
    """The calls of ``name`` the text prints: each doctest example calling it (``_doctest_calls``), then each call
    in backticks with literal arguments, with the value printed after it in the same sentence ("returns 0.867",
    "gives 1/3", "→ 0.5"); only calls that pass one argument per parameter. A call printed twice with the same
    names bound to the same literals is drafted once. ``region``: only the calls printed between these offsets (the
    text where one of several versions of the function is the one in force)."""
    import ast

    out, seen = [], set()
    for c in _doctest_calls(text, name, nparams, structured, region):
        key = (c["call"], tuple(sorted(c.get("given", {}).items())))
        if key not in seen:
            seen.add(key)
            out.append(c)
    pattern = re.compile(rf"`(?P<call>{re.escape(name)}\((?:[^`\n()]|\([^`\n()]*\))*\))")
    for m in pattern.finditer(text):
        call = m.group("call")
        if (call, ()) in seen or (region is not None and not region[0] <= m.start() < region[1]):
            continue
        try:
            node = ast.parse(call, mode="eval").body
            if not isinstance(node, ast.Call) or len(node.args) + len(node.keywords) != nparams:
                continue
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                ast.literal_eval(arg)
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            continue
        seen.add((call, ()))
        after = text[m.end():m.end() + 160]
        returned = re.match(rf"\)?`?[^.\n;]{{0,40}}?\b(?:returns?|gives?|prints?|evaluates\s+to|is)\s+"
                            rf"(?P<v>≈\s*)?(?P<n>{NUM})", after) or re.match(rf"\)?`?\s*(?:→|->|=)\s*(?P<v>≈\s*)?(?P<n>{NUM})",
                                                                          after)
        found = returned
        entry = {"call": call}
        if structured:  # a list or mapping printed after the call ("returns [1.0, 0.5]", "→ {'q1': 0.5}")
            found = None
            literal = re.match(r"\)?`?[^.\n;]{0,40}?(?:\b(?:returns?|gives?|prints?|evaluates\s+to|is)\s+|(?:→|->|=)\s*)"
                               r"`?(?P<lit>[\[{][^\n`]*?[\]}])", after)
            if literal:
                from audit.model.values import parse_claimed_parts
                try:
                    parse_claimed_parts(literal.group("lit"))
                    entry["returns"] = literal.group("lit")
                except AuditError:
                    pass
        if found:
            entry["returns"] = ("≈ " if found.groupdict().get("v") else "") + found.group("n")
        out.append(entry)
    return out


def _roles_from_body(text: str, quote: str, name: str, roles: dict[str, str | None]) -> dict[str, str | None]:
    """Roles the function's body settles where its parameters' names and hints do not: judgements named without a
    hint (``qrels``) that the body looks documents of the ranking up in (``qrels.get(doc, 0)`` for ``doc`` in the
    ranking) or reads grades from (``qrels.values()``) are one query's ``qrels``; a bare list name (``r``) that the
    body cuts at the cutoff or sorts (``r[:k]``, ``sorted(r, reverse=True)``), beside nothing but a cutoff, is the
    ranked grades. Any other use leaves the role open."""
    import ast
    from audit.text.listings import function_source
    open_ = [p for p, role in roles.items() if role is None]
    if not open_ or not text:
        return roles
    try:
        _, source = function_source(text, quote, name)
        tree = ast.parse(source)
    except (AuditError, SyntaxError, ValueError):
        return roles
    fn = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name),
              None)
    if fn is None:
        return roles
    rankings = {p for p, role in roles.items() if role == "ranking"}

    def names(node) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    over_ranking = set()   # loop variables taken from the ranking
    for node in ast.walk(fn):
        loops = [(node.target, node.iter)] if isinstance(node, ast.For) else \
            [(g.target, g.iter) for g in node.generators] if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp,
                                                                               ast.DictComp)) else []
        for target, source_ in loops:
            if names(source_) & rankings:
                over_ranking |= names(target)
    out = dict(roles)
    for param in open_:
        uses = [n for n in ast.walk(fn) if isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.value, ast.Name)
                and n.value.id == param]
        if not uses:
            continue
        low = param.lower()
        if low in ("qrels", "judgments", "judgements", "rels", "relevance") and rankings and all(
                isinstance(u, ast.Attribute) and u.attr in ("get", "values") or
                isinstance(u, ast.Subscript) and names(u.slice) <= over_ranking and names(u.slice) for u in uses) and all(
                not (isinstance(u, ast.Attribute) and u.attr == "get") or _get_key_in(fn, u, over_ranking) for u in uses):
            out[param] = "qrels"
        elif set(roles.values()) - {None} <= {"cutoff"} and len(open_) == 1 and all(
                isinstance(u, ast.Subscript) and isinstance(u.slice, ast.Slice) for u in uses):
            out[param] = "ranked grades"
    return out


def _get_key_in(fn, attribute, keys: set[str]) -> bool:
    """Whether the ``.get`` call on ``attribute`` looks up one of ``keys`` (a loop variable over the ranking)."""
    import ast
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and node.func is attribute:
            return bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id in keys
    return False


def code(s: Statement, text: str = "") -> tuple[list[dict], str]:
    """A code claim for a listing's ``def`` line: the measure from the function's name, each parameter's role from
    its name and type hint (``_role``), and, given the chapter ``text``, the calls it prints (``_shown_calls``); the
    listing must hold the function as Python. Else no claim, and why."""
    m = re.match(r"\s*(?:async\s+)?def\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)", s.text)
    if not m:
        return [], "not a def line"
    name = m.group("name")
    base = next((b for key, b in _FUNCTION_MEASURES if key in name.lower()), None)
    if base is None:
        return [], f"the name {name!r} does not say which measure the listing computes"
    roles: dict[str, str | None] = {}
    for raw in _split_params(m.group("params")):
        param, _, rest = raw.partition(":")
        param, hint = param.split("=")[0].strip(), rest.split("=")[0].strip()
        if not param or param.startswith("*"):
            return [], f"{name}() takes variable arguments ({raw.strip()}); give each a role by hand"
        role = _role(param, hint)
        if role is None and param.lower() in _ROLES["constant"] and "=" in raw:
            role = "constant"  # a fixed parameter with its literal default (RBP's p=0.8)
        roles[param] = role
    for param, role in roles.items():
        # judgements named without a type hint: one query's beside one query's scores, by query beside a run
        if role is None and param.lower() in ("qrels", "judgments", "judgements"):
            others = set(roles.values())
            roles[param] = ("qrels" if others & {"scores", "scored pairs"} else
                            "qrels by query" if others & {"run", "scored run"} else None)
    roles = _roles_from_body(text, s.text.strip(), name, roles)
    for param, role in roles.items():
        if role is None:
            from audit.register.claims import CODE_ROLES
            return [], (f"the role of parameter {param!r} ({', '.join(CODE_ROLES)}) is not clear from its name and "
                        "type hint")
    kinds = set(roles.values())
    ranked = kinds & {"ranking", "scores", "scored pairs"}
    if not (ranked and kinds & {"relevant set", "qrels"} or "ranked grades" in kinds
            or ("qrels by query" in kinds and kinds & {"run", "scored run"})
            or kinds & {"ranked grades by query", "per-query values"}):
        return [], "the listing takes neither a ranking with a relevant set or judgements, nor ranked grades"
    from audit.register.claims import role_problem
    returns = re.search(r"\)\s*->\s*(?P<hint>[^:]+):", s.text)
    returns = returns.group("hint") if returns else ""
    shape = ("at each k" if "cutoffs" in kinds or re.search(r"curve|_at_ks\b|_ks\b", name.lower())
             or (_SEQUENCE_HINT.search(returns) and kinds & {"ranking", "scores", "scored pairs", "ranked grades"})
             else "per query" if re.search(r"per_query|by_query", name.lower())
             or (_MAPPING_HINT.search(returns) and kinds & {"run", "scored run", "ranked grades by query"})
             else "number")
    if role_problem(kinds, shape):
        return [], role_problem(kinds, shape)
    has_k = bool(kinds & {"cutoff", "cutoffs"}) or shape == "at each k"
    if base in _MEASURE_NEEDS_CUTOFF and not has_k:
        return [], f"{base} needs a cutoff parameter"
    if base == "RBP":
        from audit.register.claims import parameter_defaults
        persistence = next((p for p, role in roles.items() if role == "constant" and p.lower() in
                            ("p", "persistence", "patience")), None)
        default = parameter_defaults(s.text.strip() + "\n    pass\n", name).get(persistence) if persistence else None
        if not isinstance(default, float):
            return [], f"{name}() computes RBP; its persistence is not a parameter with a literal default"
        base = f"RBP(p={default})"
    measure = f"{base}@k" if has_k else base
    claim = {"kind": "code", "quote": s.text.strip(), "claim": f"{name}() computes {measure}"
             + {"per query": " for each query", "at each k": " at each cutoff"}.get(shape, ""),
             "function": name, "measure": measure, "arguments": roles}
    if shape != "number":
        claim["shape"] = shape
    if text:
        from audit.text.listings import (
            builds_on_lines,
            candidates,
            defines,
            find_listings,
            function_source,
            occurrence_of,
        )
        listings = find_listings(text)
        line = text.count("\n", 0, s.start) + 1
        at = next((i for i, listing in enumerate(listings) if listing.start <= line <= listing.end), None)
        occurrence = occurrence_of(listings, at, claim["quote"], name) if at is not None else None
        if occurrence is not None:
            claim["occurrence"] = occurrence  # the same def line in several listings: this claim is on this one
        try:
            function_source(text, claim["quote"], name, occurrence=occurrence)
        except AuditError as exc:
            return [], exc.message
        # helpers of earlier listings (a notebook's cells)
        earlier = builds_on_lines(text, claim["quote"], name, occurrence)
        if earlier:
            claim["builds_on"] = earlier
        region = None
        if occurrence is not None:
            # the calls printed while this version is the one in force: from it (from the start, for the first) to
            # the next listing defining the function again
            found = candidates(listings, claim["quote"], name)
            starts = [0] + [m.end() for m in re.finditer("\n", text)]
            first = 0 if occurrence == 1 else starts[listings[found[occurrence - 1]].start - 1]
            following = [i for i in range(at + 1, len(listings)) if defines(listings[i], name)]
            last = starts[listings[following[0]].start - 1] if following else len(text)
            region = (first, last)
        calls = _shown_calls(text, name, len(roles), structured=shape != "number", region=region)
        if calls:
            claim["calls"] = calls
    return [claim], ""


def _split_params(params: str) -> list[str]:
    """A def line's parameters, split at the commas outside brackets (``grades: list[int], k: int``)."""
    out, depth, current = [], 0, ""
    for ch in params:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current)
            current = ""
            continue
        current += ch
    if current.strip():
        out.append(current)
    return [p for p in out if p.strip() and p.strip() not in ("self", "/", "*")]


_T_REPORT = re.compile(r"\bt\s*\(\s*(?P<df>\d{1,6}(?:\.\d{1,4})?)\s*\)\s*=\s*(?P<t>[-−]?\d*\.?\d+)\s*[,;]\s*p\s*"
                       r"(?P<rel>=|<|>|≤|≥)\s*(?P<p>0?\.\d+|[01](?:\.\d+)?)")
_SIDED = re.compile(r"\b(?P<side>one|two)[- ]sided\b|\b(?P<tails>one|two)[- ]tailed\b", re.IGNORECASE)


def statistics(s: Statement) -> list[dict]:
    """A statistic claim for each t-test the sentence reports as t(df) = t, p = …, checked for consistency without
    its data (``statistic`` claims' ``reported``); the sidedness when the sentence states it. The test is the one
    the sentence names: Welch's for a decimal df or when it says Welch (or equal_var=False), Student's unpaired test
    when it names an unpaired one (ttest_ind, two-sample, independent samples), else the paired t-test."""
    from audit.text.t_tests import t_tests_named

    named = t_tests_named(s.text)
    out = []
    side = _SIDED.search(s.text)
    sided = None
    if side:
        word = (side.group("side") or side.group("tails")).lower()
        sided = "two" if word == "two" else None  # a one-sided test's direction is the data's, read from t's sign
    for m in _T_REPORT.finditer(s.text):
        t = m.group("t").replace("−", "-")
        rel = {"=": "", "≤": "<= ", "≥": ">= "}.get(m.group("rel"), m.group("rel") + " ")
        if side and (side.group("side") or side.group("tails")).lower() == "one":
            sided = "less" if t.startswith("-") else "greater"
        df = m.group("df")
        test = ("welch t" if "." in df or "welch t" in named else "student t" if "unpaired" in named else "paired t")
        if test == "welch t" and "paired t" in named and "unpaired" not in named:
            continue  # a paired test with a fractional df: the author says which test it was
        claim = {"kind": "statistic", "quote": s.text[m.start():m.end()].strip(),
                 "claim": f"t({df}) = {t} gives p {m.group('rel')} {m.group('p')}", "test": test,
                 "reported": {"t": t, "df": df if "." in df else int(df), "p": rel + m.group("p")}}
        if sided:
            claim["sided"] = sided
        out.append(claim)
    return out


def todo(s: Statement, reason: str) -> str:
    """The TODO a draft carries: what to encode and what the sentence did not give."""
    what = {"arithmetic": "an arithmetic claim (expression and printed value)",
            "count": "an arithmetic claim n/d against the printed share (with set_measure and a cohort to check it "
                     "against the references)",
            "value": "a value claim: a fixture (qrels and run) and each measure with its printed value",
            "universal": "a property claim (measure, relation, compare: next_cutoff | transform | measure) or a "
                         "comparison between two fixtures",
            "definition": "a value claim on a small fixture that exercises the definition",
            "convention": "a convention claim (repeated_ids, ties, unjudged or cutoff) with a probe fixture, if the "
                          "references should be checked against it; what it states belongs in chapter.yaml's "
                          "`conventions:` (init declares the wordings it recognises)",
            "listing": "a code claim (function, measure, argument roles)",
            "statistic": "a statistic claim (the test, its data as printed, the statistics the sentence prints, the "
                         "decision and α)"}.get(s.kind, "a claim")
    because = f"; not encoded because {reason}" if reason else ""
    where = "docs/statistics.md" if s.kind == "statistic" else "docs/authoring.md"
    return f"TODO: encode as {what}{because}. See {where}."



# --- fixtures given as tables, and table rows that state values about them ----------------------



def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


_ORDER_FREE = {"P", "RR", "Judged", "Success"}   # measures no unretrieved document can change


def table_row(s: Statement, tables: list[tuple[int, int, dict, bool]], example=None) -> tuple[list[dict], str]:
    """A table row stating values about a ranking printed earlier: columns named by measures at a cutoff column
    (``| k | P@k | R@k |``, or ``| rank | recall | precision |``: the measures at each rank), or a row per measure
    with a column for the running example (``| measure | running example |``, the first table). The ranking is the
    worked example the row follows (``example``, ``audit.text.examples``: a rank table, a list, positions in prose)
    with what the text says of its query (|R|, the ideal), when it determines every measure of the row; else the
    draft asks for what is missing."""
    if not s.context:
        return [], "no ranking table precedes it"
    head, row = _cells(s.context), _cells(s.text)
    if len(row) != len(head):
        return [], "the row and its header have different numbers of cells"
    refers_first = "running example" in (s.context + s.text).lower()
    earlier = [t for t in tables if t[1] <= s.start]
    if refers_first and earlier:
        source, table = None, earlier[0]
    elif example is not None and example.end <= s.start:
        source, table = example, None
    elif earlier:
        source, table = None, earlier[-1]
    else:
        return [], "no ranking table precedes it"
    expects = []
    lower = [h.lower() for h in head]
    by_rank = bool(re.match(r"^(?:rank|depth|position)\b", lower[0]))
    if lower[0] in ("k", "cutoff", "cutoff k") or by_rank:
        k = number(row[0])
        if k is None:
            return [], "the cutoff cell is not a whole number"
        for h, cell in zip(head[1:], row[1:]):
            m = METRIC.fullmatch(h.strip())
            spec = measure_of(m) if m else None
            if spec and (spec[1] == "k" or by_rank and spec[1] is None and at_cutoff(spec[0], 1) != spec[0]):
                expects.append((spec[0], k, cell))
    elif (len(head) == 2 and re.fullmatch(r"(?:standard\s+)?recall(?:\s+levels?)?|levels?", lower[0])
          and re.search(r"\binterpolated\b|\biprec\b", lower[1])):
        # | recall level | interpolated precision |, a row per level or per run of levels ("0.0, 0.1")
        levels = re.findall(r"(?<![\d.])(?:0?\.\d+|[01]\.\d+|[01])(?![\d.])", row[0])
        if not levels or re.sub(r"[\d.,\s]|and", "", row[0]):
            return [], "the recall levels cell is not a list of levels between 0 and 1"
        for level in levels:
            level = level if "." in level else f"{level}.0"
            expects.append(("IPrec", "0" + level if level.startswith(".") else level, row[1]))
    elif lower[0] in ("measure", "metric") and refers_first:
        m = METRIC.fullmatch(row[0].strip())
        spec = measure_of(m) if m else None
        col = next((n for n, h in enumerate(lower) if "running example" in h), None)
        if spec and col is not None and spec[1] != "k":
            expects.append((spec[0], spec[1], row[col]))
    if not expects:
        return [], "the row's measures and values could not be matched to its header"
    out = []
    fixture = table[2] if table is not None else None
    for base, k, cell in expects:
        if base in _MEASURE_NEEDS_CUTOFF and k is None:
            return [], f"{base} needs a cutoff"
        if source is not None:
            asked = source.missing(_root(base), k if isinstance(k, int) else None)
            fixture, why = source.fixture() if not asked else (None, "")
            if fixture is None:
                return [], f"{_name(base, k)} needs what {source.describe()} does not state: {asked or why}"
        elif not table[3] and base not in _ORDER_FREE:
            return [], (f"{_name(base, k)} needs what the table does not state: how many relevant documents does "
                        "this query have (counting those the ranking does not retrieve)?")
        name = _name(base, k)
        try:
            parse_measure(name)
            parse_claimed(cell)
        except AuditError as exc:
            return [], exc.message
        out.append({"measure": name, "claimed": cell})
    claim = {"kind": "value", "quote": s.text, "claim": "; ".join(f"{e['measure']} is {e['claimed']}" for e in out)
             + " on the ranking printed above", "fixture": fixture, "expect": out}
    return [claim], ""
