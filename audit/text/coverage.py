"""Coverage by statement: the statements of each scanned unit, and the claims that cover each.

``audit.text.scan`` finds units (sentences, list items, table rows, ``def`` lines, lines of trec_eval output)
that state something checkable. One unit can state several things — "P@3 = 2/3, R@3 = 1 and RR = 1/2" prints
three values — and a claim checking one of them says nothing about the others, so coverage is counted per
statement. A unit is split so:

* **printed values**: a measure or an expression followed by ``=``, ``≈``, ``~``, ``is``/``was``/``equals``,
  ``comes to``/``gives`` (optionally ``about``, ``roughly`` …), or a measure directly followed by ``of`` or by
  nothing, and then a number, a fraction or a number word, is one statement per printed value (``P@3 = 2/3``,
  ``a recall of 0.6``, ``its reciprocal rank is one half``, ``precision 4/15``). A chain ``a = b ≈ c`` is read
  step by step: each value it prints ends a statement (``P@5 = 3/5 = 0.6`` is two, ``P@5 = 3/5`` and
  ``3/5 = 0.6``); an expression inside it belongs to the next value (``AP = (1/1 + 2/3)/2 ≈ 0.8333`` is one);
* **changes**: ``from V to V`` or ``to V`` after a verb of change (``rises``, ``falls``, ``climbs back`` …) is one
  statement with its values (``falls from 1 to 1/2``);
* **table rows** read with their header: one statement per cell whose column header or row label names a
  measure and which starts with a printed value; under ``| k | P@k | R@k |`` the row ``| 3 | 2/3 | 1 |`` is two
  statements (``k`` names no measure: that cell is the row's label). A row with no such cell is one statement;
* a line of trec_eval output (``map  all  0.7904``) is one statement, its value the last field;
* **the rest** of a split sentence — its text outside those statements — is one more statement when the
  scanner still reads in it a count, a universal or comparative wording, a definition or a convention
  (``scan.classify``), e.g. "…: the result is concentrated, but half the judged evidence is missing"; a measure
  and a number it leaves unlinked are a condition ("the mean of two reciprocal ranks"), not a statement;
* a unit none of these splits (a universal or comparative sentence, a definition, a convention, a ``def``
  line, ranks with arrows) is one statement.

A claim covers a statement that prints values when its quote contains each value and it prints each one
(``prints``): a value claim an expectation with that claimed value (equal as numbers: ``2/4`` is ``1/2``) for
the same measure (the same name, and the same cutoff when both give one); a comparison its ``before`` or
``after``; an arithmetic claim its ``claimed`` value, or its ``expression`` is the statement's expression or
value; a property claim its ``bound``; a ``not checkable`` or ``draft`` claim by quoting it. A statement that
prints no value (the rest of a sentence, a sentence the rules do not split) is covered by any claim whose
quote overlaps it.
"""

from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from audit.errors import AuditError
from audit.model.values import parse_claimed
from audit.text.encode_arithmetic import chains as expression_chains, normal_expression
from audit.text.encode_measures import measure_of
from audit.text.words import number
from audit.text.scan import (
    EXPRESSION,
    METRIC,
    NUM,
    OUTPUT_LINE,
    RELATION,
    UNIVERSAL,
    VALUE,
    WORD_FRACTION,
    WORD_NUMBER,
    Statement,
    classify,
)

Span = tuple[int, int]

#: Most characters of a statement's unit the report shows beside it (``Part.context``).
UNIT_SHOWN = 300

#: A value a statement can end on: a number (a percentage), a fraction of whole numbers (``2/3``) or a value in
#: words. Any other expression (``5.48/7.32``, ``(1 + 2/3)/2``) is a step of a chain, never its value.
_VALUE_ONLY = re.compile(rf"(?:≈\s*)?(?:{NUM}%?|\d+\s*/\s*\d+|{WORD_FRACTION}|{WORD_NUMBER})", re.IGNORECASE)
#: A number word is a value only where the clause ends after it ("is one", "is two, and"), never in
#: "one of the measures" or "two documents".
_WORD_VALUE = re.compile(rf"(?:{WORD_FRACTION}|\b{WORD_NUMBER}\b)(?=\s*(?:[,.;:)!?—–]|$|\s+(?:and|or|but|when|if|"
                         rf"so|because|since|at|for|on|here|there|too|as|while|whereas)\b))", re.IGNORECASE)
#: What joins a measure to its printed value: the relations of an arithmetic chain, ``equals``, and
#: ``of`` (``a recall of 0.6``). Up to three words may stand between the measure and a relation in words
#: ("P@3 for this ranking is 2/3"); a sign (``=``, ``≈``, ``~``) and ``of`` follow the measure directly, so in
#: "recall@k for k = 1" the 1 is k's, and a relation after a comma is a chain's (``9/11, roughly .8182``): in
#: "F0.5, which weights precision, comes to about 0.36" the value is not precision's. A number printed right after
#: a measure the evaluator knows is its value too ("sees precision 4/15 and recall 1"), except after "at": "a query
#: at AP 0.5" is a premise (and "the ideal order 3, 2, 1" prints grades).
_RELATION = re.compile(rf"\s*(?P<sign>=|≈|~)\s*|\s+(?P<of>of)\s+|(?P<bare>\s+)(?=\d|\.\d)"
                       rf"|(?:\s+[A-Za-z’'-]+){{0,3}}?\s*(?P<rel>{RELATION}|equals|,?\s*is\s+equal\s+to)\s*",
                       re.IGNORECASE)
_AFTER_VALUE = re.compile(r"(?![\w/]|\.\d|\s*[-+*/×·÷−^(]|\s*[xX]\s*[\d.(])")
_CHANGE = re.compile(
    rf"\b(?:rises?|rose|risen|falls?|fell|fallen|drops?|dropped|climbs?|climbed|moves?|moved|goes|went|gone|"
    rf"jumps?|jumped|increases?|increased|decreases?|decreased|improves?|improved|changes?|changed|grows?|grew|"
    rf"shrinks?|shrank)(?:\s+(?:back|up|down))?\s+(?:from\s+(?P<before>{VALUE})\s+)?to\s+(?P<after>{VALUE})"
    rf"(?![\w/]|\.\d)", re.IGNORECASE)


@dataclass(frozen=True)
class Part:
    """One statement to cover. ``kind``: ``value`` (a measure's printed value), ``arithmetic`` (an expression's),
    ``change``, ``cell`` (a table cell), ``output`` (a line of trec_eval output), or the scanner's kind for a rest
    or a whole unit. ``text`` as shown in the report (a cell with its header and row label); ``quote`` the exact
    text it rests on; ``spans`` where it is in the snapshot (several for the rest of a sentence); ``values`` the
    printed values with their spans (none for a statement that prints no value); ``expressions`` the expressions
    a chain prints before its value; ``measure`` the measure named for the values, as
    ``measure_of`` gives it (``None`` when none is named or it is no measure the evaluator knows);
    ``unit`` the scanned unit it belongs to."""

    kind: str
    text: str
    quote: str
    spans: tuple[Span, ...]
    unit: Statement
    values: tuple[tuple[str, Span], ...] = ()
    expressions: tuple[str, ...] = ()
    measure: tuple[str, int | str | None] | None = None

    @property
    def start(self) -> int:
        return self.spans[0][0]

    @property
    def whole(self) -> bool:
        """Whether the statement is its whole unit."""
        return self.spans == ((self.unit.start, self.unit.end),)

    def context(self, limit: int | None = None) -> str:
        """The unit the statement is part of, as the report shows it beside the statement: the whole unit when it
        has at most ``limit`` characters (``UNIT_SHOWN``), else the ``limit`` characters of it around the
        statement, ``…`` marking each cut. A sentence of thousands of printed values is so shown in a bounded
        window beside each, never whole beside every one (which grows with the square of its length)."""
        limit = UNIT_SHOWN if limit is None else limit
        text = self.unit.text
        if len(text) <= limit:
            return text
        a, b = self.spans[0][0] - self.unit.start, self.spans[-1][1] - self.unit.start
        lo = a if b - a >= limit else max(0, min(a - (limit - (b - a)) // 2, len(text) - limit))
        hi = min(len(text), lo + limit)
        return ("…" if lo > 0 else "") + text[lo:hi] + ("…" if hi < len(text) else "")


def _spec(m: re.Match | None) -> tuple[str, int | str | None] | None:
    return measure_of(m) if m else None


def _is_value(text: str) -> bool:
    return bool(_VALUE_ONLY.fullmatch(text.strip()))


def _operand_at(text: str, at: int) -> Span | None:
    """The expression, number or number word printed at ``at`` (after a relation), if one is."""
    m = re.compile(EXPRESSION).match(text, at)
    if m and _AFTER_VALUE.match(text, m.end()):
        end = m.end() + (1 if text[m.end():m.end() + 1] == "%" else 0)
        return m.start(), end
    w = _WORD_VALUE.match(text, at)
    return (w.start(), w.end()) if w else None


def _measure_links(text: str) -> list[tuple[re.Match, Span]]:
    """Each measure followed by a relation and a printed value: the measure's match and the value's span."""
    out = []
    for m in METRIC.finditer(text):
        r = _RELATION.match(text, m.end() + (text[m.end():m.end() + 1] == "`"))  # `precision@5` is 0.4
        rel = (r.group("rel") or "") if r else ""
        if not r or rel.strip() in ("=", "≈", "~") or rel.startswith(","):
            continue
        if r.group("bare") and (re.search(r"\bat\s+$", text[:m.start()], re.IGNORECASE) or _spec(m) is None):
            continue
        value = _operand_at(text, r.end())
        if value:
            out.append((m, value))
    return out


def _sequences(text: str) -> list[tuple[re.Match | None, list[Span]]]:
    """Printed values in reading order, each sequence a measure (or ``None``) and the operands a chain prints
    for it: ``AP = E ≈ v`` is (AP, [E, v]); ``21/43 ≈ .4884`` is (None, [21/43, .4884])."""
    chains = expression_chains(text)
    at = {op[0]: (ci, oi) for ci, chain in enumerate(chains) for oi, op in enumerate(chain)}
    used: set[int] = set()
    out: list[tuple[re.Match | None, list[Span]]] = []
    for m, value in _measure_links(text):
        ops = [value]
        if value[0] in at:
            ci, oi = at[value[0]]
            ops += [(a, b) for a, b, _ in chains[ci][oi + 1:]]
            if oi == 0:
                used.add(ci)
        out.append((m, ops))
    for ci, chain in enumerate(chains):
        if ci in used:
            continue
        ops = [(a, b) for a, b, _ in chain]
        head = _labelled(text, ops[0])
        out.append((head, ops[1:]) if head else (None, ops))
    return sorted(out, key=lambda s: (s[1][0][0] if s[0] is None else s[0].start()))


def _labelled(text: str, subject: Span) -> re.Match | None:
    """The measure a chain's subject is a label of: a whole number just after a measure in the same clause
    ("Rprec at -l 2 is 2/4", "map over topics 401 and 402 is 0.3952", "recall at rank 2 is 1/2"), or ``None``."""
    if not re.fullmatch(r"\d+", text[subject[0]:subject[1]]):
        return None
    before = list(METRIC.finditer(text[:subject[0]]))
    if not before:
        return None
    gap = text[before[-1].end():subject[0]]
    return before[-1] if len(gap) <= 40 and not re.search(r"[.;:,!?=≈~]", gap) else None


def _printed(unit: Statement) -> list[Part]:
    """The statements of a sentence that print values: measures' values, chains' steps and changes."""
    body, base = unit.text, unit.start
    parts: list[Part] = []
    taken: list[Span] = []
    for m, ops in _sequences(body):
        spec = _spec(m)
        first = 0 if m is not None else 1        # a chain without a measure starts on its subject
        begin = m.start() - (body[m.start() - 1:m.start()] == "`") if m is not None else ops[0][0]
        exprs: list[str] = [] if m is not None else [body[ops[0][0]:ops[0][1]]]
        for i in range(first, len(ops)):
            a, b = ops[i]
            piece = body[a:b]
            if not _is_value(piece) and i < len(ops) - 1:
                exprs.append(piece)
                continue
            kind = "value" if m is not None and not exprs else "arithmetic"
            span = (base + begin, base + b)
            parts.append(Part(kind, body[begin:b], body[begin:b], (span,), unit,
                              ((piece, (base + a, base + b)),), tuple(exprs), spec))
            taken.append((begin, b))
            begin, exprs = a, [piece]
    for c in _CHANGE.finditer(body):
        if any(a < c.end() and c.start() < b for a, b in taken):
            continue
        named = list(METRIC.finditer(body[:c.start()]))
        values = tuple((c.group(g), (base + c.start(g), base + c.end(g))) for g in ("before", "after") if c.group(g))
        span = (base + c.start(), base + c.end())
        parts.append(Part("change", c.group(0), c.group(0), (span,), unit, values, (),
                          _spec(named[-1]) if named else None))
        taken.append((c.start(), c.end()))
    return sorted(parts, key=lambda p: p.start)


def _rest(unit: Statement, parts: list[Part]) -> Part | None:
    """The text of a split unit outside its statements, as one statement when the scanner still reads one in it."""
    spans, at = [], unit.start
    for p in parts:
        a, b = p.spans[0]
        if a > at:
            spans.append((at, a))
        at = max(at, b)
    if at < unit.end:
        spans.append((at, unit.end))
    pieces = [unit.text[a - unit.start:b - unit.start] for a, b in spans]
    rest = " … ".join(p.strip() for p in pieces if p.strip())
    kind = classify(rest)
    if kind == "value" and UNIVERSAL.search(rest):  # "leaves every measure unchanged except Judged@4, which …"
        kind = "universal"
    if kind in (None, "value"):  # a measure and a number left unlinked: a condition ("at cutoff four"), not a value
        return None
    spans = [(a, b) for (a, b), p in zip(spans, pieces) if p.strip()]
    return Part(kind, rest, unit.text, tuple(spans), unit)


#: A cell that prints a value: it starts with one (after emphasis or an approximation mark).
_CELL_VALUE = re.compile(rf"[*_`\s]*(?:(?:≈|~|about)\s*)?(?P<v>{VALUE})(?![\w/]|\.\d)", re.IGNORECASE)


def _cells(row: str) -> list[tuple[int, int]]:
    """The spans of a Markdown table row's cells (text between ``|``, trimmed)."""
    bars = [i for i, ch in enumerate(row) if ch == "|"]
    if not row.rstrip().endswith("|"):
        bars.append(len(row))
    out = []
    for a, b in zip(bars, bars[1:]):
        cell = row[a + 1:b]
        lead = len(cell) - len(cell.lstrip())
        out.append((a + 1 + lead, a + 1 + lead + len(cell.strip())))
    return out


def _table(unit: Statement) -> list[Part]:
    """A table row's statements: each cell printing a value under a measure's column or beside a measure's label."""
    row = unit.text
    cells = _cells(row)
    heads = [h.strip() for h in unit.context.strip().strip("|").split("|")]
    texts = [row[a:b] for a, b in cells]
    label = texts[0] if texts else ""
    label_metric = METRIC.search(label)
    parts = []
    for i, (a, b) in enumerate(cells):
        head = heads[i] if i < len(heads) else ""
        named = METRIC.search(head) or (label_metric if i > 0 else None)
        value = _CELL_VALUE.match(texts[i]) if named else None
        if value is None:
            continue
        spec = _spec(named)
        if spec and spec[1] == "k" and heads and re.fullmatch(r"k|cutoff|@?k", heads[0], re.IGNORECASE):
            k = number(label)
            spec = (spec[0], k) if k else spec
        where = " · ".join(x for x in (head, label if i > 0 else "") if x)
        span = (unit.start + a + value.start("v"), unit.start + a + value.end("v"))
        parts.append(Part("cell", f"{where}: {texts[i]}", row, ((unit.start + a, unit.start + b),), unit,
                          ((value.group("v"), span),), (), spec))
    return parts


#: A display or inline formula's left side that is a measure alone (``nDCG_{5} = …``), the rest its chain.
_FORMULA_SIDES = re.compile(r"\s*(?:=|\\approx|≈)\s*")


def _formula_values(unit: Statement) -> list[Part]:
    """The measures a LaTeX formula states the value of: ``\\[ nDCG_{5} = \\frac{DCG_{5}}{IDCG_{5}} =
    \\frac{3.361}{4.200} = 0.800 \\]`` states nDCG@5 = 0.800, whatever its steps compute; a value Part on the
    last printed value of a formula ``latex_math`` reads as arithmetic, the measure from the left side."""
    from audit.text.scan import latex_math
    parts = []
    for a, b, _ in latex_math(unit.text):
        raw = unit.text[a:b]
        body = re.sub(r"^\s*(?:\$\$?|\\\[|\\\()|(?:\$\$?|\\\]|\\\))\s*[.,]?\s*$", "", raw)
        sides = _FORMULA_SIDES.split(body)
        left = sides[0].strip()
        m = METRIC.fullmatch(left)
        spec = _spec(m) if m else None
        value = sides[-1].strip()
        if spec is None or len(sides) < 2 or not _is_value(value):
            continue
        at = a + raw.rfind(value)
        span = (unit.start + at, unit.start + at + len(value))
        parts.append(Part("value", raw.strip(), raw.strip(), ((unit.start + a, unit.start + b),), unit,
                          ((value, span),), (), spec))
    return parts


def statements(unit: Statement) -> list[Part]:
    """The statements of one scanned unit, in reading order (see the module doc)."""
    whole = Part(unit.kind, unit.text, unit.text, ((unit.start, unit.end),), unit)
    if unit.kind == "listing":
        return [whole]
    if unit.context:
        return _table(unit) or [whole]
    if OUTPUT_LINE.match(unit.text):
        value = re.search(r"-?\d+(?:\.\d+)?(?=\s*$)", unit.text)
        span = (unit.start + value.start(), unit.start + value.end())
        return [Part("output", unit.text, unit.text, whole.spans, unit, ((value.group(0), span),), (),
                     _spec(METRIC.search(unit.text)))]
    parts = _printed(unit)
    formulas = [f for f in _formula_values(unit)
                if not any(v == f.values[0][1] for p in parts for _, v in p.values if p.measure is not None)]
    # a chain read in plain text ending on the formula's value states the formula's measure
    parts = [p for p in parts if not any(p.values and p.values[-1][1] == f.values[0][1] for f in formulas)] + formulas
    if not parts:
        return [whole]
    rest = _rest(unit, parts)
    return sorted(parts + ([rest] if rest else []), key=lambda p: p.start)


# --- which claims cover a statement ----------------------------------------------------------------


@dataclass(frozen=True)
class Use:
    """What one claim can cover: its ``id`` and ``kind``, where its quote is (``span``), the values it prints
    (``printed``: measure or ``None``, value as written) and its expression (arithmetic)."""

    id: str
    kind: str
    span: Span
    printed: tuple[tuple[str | None, str], ...] = ()
    expression: str = ""


def use_of(claim: dict, span: Span) -> Use:
    """A register claim (``model_dump()`` of a claim, or a claim dict as ``audit init`` writes it) whose quote is at
    ``span`` in the snapshot."""
    kind = claim.get("kind", "")
    printed: list[tuple[str | None, str]] = []
    expression = ""
    if kind == "value":
        printed = [(e.get("measure"), str(e.get("claimed"))) for e in claim.get("expect") or []]
    elif kind == "comparison":
        for e in claim.get("expect") or []:
            if e.get("before") is not None:
                printed.append((e.get("measure"), str(e["before"])))
            if e.get("after") is not None:
                printed.append((e.get("after_measure") or e.get("measure"), str(e["after"])))
    elif kind == "arithmetic":
        computed, on_cohort = claim.get("computes") or {}, claim.get("set_measure") or {}
        printed = [(computed.get("measure"), str(claim.get("claimed")))]
        if on_cohort.get("measure"):
            printed.append((on_cohort["measure"], str(claim.get("claimed"))))
        expression = str(claim.get("expression") or "")
    elif kind == "property" and claim.get("bound") is not None:
        printed = [(claim.get("measure"), str(claim["bound"]))]
    elif kind == "statistic":
        printed = [(None, str(e.get("claimed"))) for e in claim.get("expect") or []]
        reported = claim.get("reported") or {}
        printed += [(None, str(reported[k]).lstrip("<>=≤≥ ")) for k in ("t", "p") if reported.get(k) is not None]
    return Use(str(claim.get("id", "")), kind, span, tuple(printed), expression)


#: A fenced block's fence line; the line that may stand between a listing and its output block ("Output:").
_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[^\n]*$", re.M)
_OUTPUT_LABEL = re.compile(r"[ \t]*\**(?:output|prints|result|out)\b[^\n]{0,30}:?\**[ \t]*", re.I)


def _output_block(text: str, at: int) -> tuple[int, int] | None:
    """The fenced block that shows what the fenced block holding offset ``at`` prints: the next fenced block, with
    nothing between the two but blank lines and perhaps a label ("Output:"). None when ``at`` is not in a fenced
    block or no such block follows."""
    fences = list(_FENCE.finditer(text))
    for opening, closing in zip(fences[::2], fences[1::2]):
        if opening.end() <= at < closing.start():
            break
    else:
        return None
    later = [f for f in fences if f.start() > closing.end()]
    if len(later) < 2:
        return None
    between = text[closing.end():later[0].start()].strip("\n")
    if any(line.strip() and not _OUTPUT_LABEL.fullmatch(line) for line in between.split("\n")):
        return None
    return later[0].end(), later[1].start()


def printed_after(text: str, call: str, printed: str, start: int = 0) -> tuple[int, int] | None:
    """Where the call the text shows begins (at ``start`` or after), and where the value printed after it begins, in
    the same paragraph of ``text``, or, for a call in a fenced listing, in the output block right after it, as a
    value of its own (offsets); None when either is not there."""
    at = text.find(call, start)
    if at < 0:
        return None
    end = text.find("\n\n", at)
    where = text.find(printed, at + len(call), end if end > 0 else len(text))
    if where >= 0:
        return at, where
    block = _output_block(text, at)
    if block is None:
        return None
    found = re.search(rf"(?<![\w.]){re.escape(printed)}(?![\w.]|\.?\d)", text[block[0]:block[1]])
    return (at, block[0] + found.start()) if found else None


def call_uses(claim: dict, text: str) -> list[Use]:
    """What a code claim's shown calls cover: each call with the value the text prints after it (``calls:
    [{call, returns}]``), from the call to that value, in the same paragraph of ``text`` (the snapshot)."""
    out = []
    for call in claim.get("calls") or []:
        if not isinstance(call, dict) or call.get("returns") is None:
            continue
        printed = str(call["returns"])
        found = printed_after(text, str(call.get("call", "")), printed)
        if found is not None:
            out.append(Use(f"{claim.get('id', '')}", "call", (found[0], found[1] + len(printed)), ((None, printed),)))
    return out


def _number(text: str) -> Fraction | None:
    try:
        return parse_claimed(text.strip()).nominal
    except (AuditError, ValueError, ZeroDivisionError):
        return None


def _plain(text: str) -> str:
    """A value or expression as compared: approximation marks and spaces dropped, operators as ``values`` reads
    them."""
    t = re.sub(r"^\s*(?:≈|~|about|roughly|approximately|around)\s*", "", text.strip(), flags=re.IGNORECASE)
    return re.sub(r"\s+", "", normal_expression(t)).lower()


def _same_value(printed: str, written: str) -> bool:
    if _plain(printed) == _plain(written):
        return True
    a, b = _number(printed), _number(written)
    return a is not None and a == b


_SET_MEASURES = {"SetR": "R", "SetP": "P", "SetF": "F"}


def _same_measure(spec: tuple[str, int | str | None] | None, measure: str | None) -> bool:
    """Whether a claim's measure (ir-measures syntax) is the one a statement names; a statement naming none, or one
    the evaluator does not know, goes with any."""
    if spec is None or not measure:
        return True
    root = re.match(r"[A-Za-z_]+", measure)
    name = _SET_MEASURES.get(root.group(0), root.group(0)) if root else measure
    if spec[0].split("(")[0] != name:
        return False
    cutoff = re.search(r"@(\d+(?:\.\d+)?)$", measure)
    return not (isinstance(spec[1], int) and cutoff and int(float(cutoff.group(1))) != spec[1])


def prints(use: Use, part: Part, value: str) -> bool:
    """Whether the claim prints ``value`` as the statement states it (see the module doc)."""
    if use.kind in ("not checkable", "draft"):
        return True
    if use.kind == "arithmetic" and part.kind == "value" and part.measure is not None:
        # "Precision@3 = 1/3": the measure's value, which arithmetic on printed numbers ("1/3 ≈ 0.33") does not
        # check; only an arithmetic claim that computes the measure on a fixture (``computes``) covers it
        if not any(measure and _same_measure(part.measure, measure) for measure, _ in use.printed):
            return False
        return _plain(use.expression) == _plain(value) or any(_same_value(value, w) for _, w in use.printed)
    if use.kind == "arithmetic":
        expr = _plain(use.expression)
        if expr and (expr == _plain(value) or expr in {_plain(e) for e in part.expressions}):
            return True
    return any(_same_value(value, written) and (use.kind in ("arithmetic", "statistic", "call")
                                                or _same_measure(part.measure, measure))
               for measure, written in use.printed)


def covered_by(part: Part, uses: list[Use]) -> list[str]:
    """Ids of the claims that cover ``part``: for a statement printing values, each value quoted and printed by
    the claims listed; for one that prints none, any claim whose quote overlaps it."""
    if not part.values:
        return [u.id for u in uses if any(u.span[0] < b and a < u.span[1] for a, b in part.spans)]
    ids = []
    for value, (a, b) in part.values:
        found = [u.id for u in uses if u.span[0] <= a and b <= u.span[1] and prints(u, part, value)]
        if not found:
            return []
        ids += [i for i in found if i not in ids]
    return ids


def script_outputs(text: str) -> list[tuple[int, str, str]]:
    """What a fenced listing prints at its top level and the output block right after it shows, paired line by line:
    (where the printed expression begins in ``text``, its source, what the output line shows of it). Only where
    every print of the block is a top-level ``print(…)``, or one in the body of a top-level loop over literal values
    (``for k in (1, 3, 5):`` or ``range(…)`` of literals, whose body only prints), and the output block has as many
    non-blank lines as the prints write, so each line is the one its print wrote. In a loop, each pass is its own
    example: its expression's source with the loop's name replaced by that pass's value (``precision_at_k(r, rel,
    3)``), placed where the expression is printed. A print of several arguments (``print("P@3:", f(…))``, joined by
    spaces or a literal ``sep``) or of an f-string (``print(f"P@3 = {f(…):.4f}")``) gives each printed expression
    the part of its line it wrote, where the line reads as the print writes it (literal parts as printed, each value
    one word; a format spec other than ``.Nf``/``.Ng`` gives none). A listing that prints elsewhere, with ``end``,
    or whose output lines cannot be told apart gives none."""
    return [(at, source, shown) for at, source, shown, _ in _script_lines(text)]


def printed_in_block(text: str, source: str, shown: str) -> int | None:
    """Where the output block after a listing shows ``shown`` as what its print of ``source`` wrote (``script_outputs``:
    the source as it runs, a loop's name replaced by its value), or None."""
    for _, printed, words, word_at in _script_lines(text):
        if printed == source and words == shown:
            return word_at
    return None


_LOOP_PASSES = 50  # passes of a printing loop read at most


def _loop_values(node) -> list | None:
    """The values a top-level ``for`` loop's name takes, when they are literals (a list or tuple of constants, or
    ``range`` of integer literals) and at most ``_LOOP_PASSES``; None otherwise."""
    it = node.iter
    if isinstance(it, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) for e in it.elts):
        values = [e.value for e in it.elts]
    elif isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords \
            and 1 <= len(it.args) <= 3 and all(isinstance(a, ast.Constant) and type(a.value) is int for a in it.args):
        values = list(range(*(a.value for a in it.args))[:_LOOP_PASSES + 1])
    else:
        return None
    return values if len(values) <= _LOOP_PASSES else None


@lru_cache(maxsize=8)
def _script_lines(text: str) -> tuple[tuple[int, str, str, int], ...]:
    """``script_outputs``, each with where the words it shows begin in ``text``. Kept for the last texts read: a
    code claim reads them for its own examples, for its unread ones and for its patch."""

    from audit.text.listings import find_listings
    from audit.text.python_code import parse_code

    def plain_print(n) -> bool:
        return isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) \
            and n.value.func.id == "print" and bool(n.value.args) and all(
                k.arg == "sep" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)
                for k in n.value.keywords)

    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for listing in find_listings(text):
        if listing.style != "fenced" or "print" not in listing.code or listing.start - 1 >= len(starts):
            continue
        block = _output_block(text, starts[listing.start - 1])
        if block is None:
            continue
        try:
            tree = parse_code(listing.code)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        passes: list[tuple[object, dict]] = []   # (print statement, the loop name's value in this pass)
        for n in tree.body:
            if plain_print(n):
                passes.append((n, {}))
            elif isinstance(n, ast.For) and isinstance(n.target, ast.Name) and not n.orelse \
                    and all(plain_print(b) for b in n.body) and (values := _loop_values(n)) is not None:
                passes += [(b, {n.target.id: v}) for v in values for b in n.body]
        every = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "print"]
        if not passes or len(every) != len({id(p) for p, _ in passes}):
            continue
        lines = [(block[0] + m.start() + len(m.group(0)) - len(m.group(0).lstrip()), m.group(0).strip())
                 for m in re.finditer(r"[^\n]+", text[block[0]:block[1]]) if m.group(0).strip()]
        if len(lines) != len(passes):
            continue
        for (node, values), (line_at, line) in zip(passes, lines):
            spans = _printed_spans(node.value, line)
            where = {id(expression): line_at + start for expression, _, start in spans}
            out.extend((at, source, shown, where[id(expression)])
                       for at, source, shown, expression in _placed(text, starts, listing, node,
                                                                   [(e, w) for e, w, _ in spans], values, True))
    return tuple(out)


def _placed(text: str, starts: list[int], listing, node, parts: list,
            values: dict | None = None, expressions: bool = False) -> list[tuple]:
    """``parts`` ((expression, what is printed of it) of the listing's statement ``node``) as (where the expression
    begins in ``text``, its source, what is printed); an expression over several lines is left out. ``values``: a
    loop's name and its value in this pass, put in the source in place of the name; ``expressions``: each with its
    expression node as well."""
    row = listing.start - 1 + node.lineno - 1
    out = []
    for expression, shown in parts if row < len(starts) else ():
        source = ast.get_source_segment(listing.code, expression)
        if not source or "\n" in source:
            continue
        at = text.find(source, starts[row])
        if at < 0:
            continue
        if values and any(isinstance(n, ast.Name) and n.id in values for n in ast.walk(expression)):
            source = ast.unparse(_Substitute(values).visit(copy.deepcopy(expression)))
        out.append((at, source, shown, expression) if expressions else (at, source, shown))
    return out


class _Substitute(ast.NodeTransformer):
    """A loop's names replaced by their values in this pass."""

    def __init__(self, values: dict):
        self.values = values

    def visit_Name(self, node):
        if node.id in self.values and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Constant(self.values[node.id]), node)
        return node


#: A comment saying what the statement before it on its line gives: ``# 0.6667``, ``# Output: 0.6667``,
#: ``# → 0.6667``, ``# returns 0.5``; on the next line only with a word or an arrow that says so.
_SAID_AFTER = re.compile(r"\s*#\s*(?:(?:expected\s+)?(?:output|result|value|prints?|returns?|gives?)\s*[:=]?\s*|"
                         r"(?:->|=>|→|==?)\s*)?(?P<v>\S.*?)\s*$", re.I)
_SAID_BELOW = re.compile(r"\s*#\s*(?:(?:expected\s+)?(?:output|result|prints?|returns?)\s*[:=]?|->|=>|→)\s*"
                         r"(?P<v>\S.*?)\s*$", re.I)


@lru_cache(maxsize=8)
def comment_outputs(text: str) -> tuple[tuple[int, str, str], ...]:
    """What a listing's comments say its top-level statements give, as ``script_outputs`` gives an output block's:
    (where the expression begins in ``text``, its source, the words the comment says). A ``print(…)`` (its
    arguments read as ``script_outputs`` reads them), a bare call, or an assignment of a call, with a comment on its
    last line (``print(f(…))  # 0.6667``, ``p = f(…)  # → 0.5``) or a comment line right below it that says it
    gives it (``# Output: 0.6667``). An author writes such a comment as the value the call gives: a claim of the
    text, checked as a ``>>>`` example is."""

    from audit.text.listings import find_listings
    from audit.text.python_code import parse_code

    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    out = []
    for listing in find_listings(text):
        if "#" not in listing.code or listing.style == "session":
            continue
        try:
            tree = parse_code(listing.code)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
        lines = listing.code.split("\n")
        for node in tree.body:
            value = node.value if isinstance(node, (ast.Expr, ast.Assign, ast.AnnAssign)) else None
            if not isinstance(value, ast.Call) or node.end_lineno is None or node.end_lineno > len(lines):
                continue
            rest = lines[node.end_lineno - 1][node.end_col_offset:]
            said = _SAID_AFTER.match(rest) if rest.lstrip().startswith("#") else None
            if said is None and node.end_lineno < len(lines) and not rest.strip():
                said = _SAID_BELOW.fullmatch(lines[node.end_lineno])
            if said is None:
                continue
            words = said.group("v").lstrip("≈~ ").strip()
            printing = isinstance(node, ast.Expr) and isinstance(value.func, ast.Name) and value.func.id == "print"
            out.extend(_placed(text, starts, listing, node,
                               _printed_parts(value, words) if printing else [(value, words)]))
    return tuple(out)


def _printed_parts(call, line: str) -> list:
    """The (expression, the words of ``line`` it printed) of a ``print(…)`` call whose output line is ``line``:
    its one argument and the whole line; or, for several arguments or an f-string, each value expression and its
    word, where ``line`` reads as the print writes it; none otherwise."""
    return [(expression, words) for expression, words, _ in _printed_spans(call, line)]


def _printed_spans(call, line: str) -> list:
    """``_printed_parts``, each with where its words begin in ``line``."""
    if len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.JoinedStr):
        return [(call.args[0], line, 0)]
    sep = next((k.value.value for k in call.keywords if k.arg == "sep"), " ")
    pattern: list[str] = []
    values = []

    def literal(text: str) -> None:  # a run of blanks as printed may be one or several on the line
        pattern.append("".join(r"\s+" if piece.isspace() else re.escape(piece)
                               for piece in re.split(r"(\s+)", text) if piece))

    for i, arg in enumerate(call.args):
        if i:
            literal(sep)
        if isinstance(arg, ast.Constant) and isinstance(arg.value, (str, int, float)):
            literal(str(arg.value))
        elif isinstance(arg, ast.JoinedStr):
            for part in arg.values:
                if isinstance(part, ast.Constant):
                    literal(str(part.value))
                    continue
                spec = ast.unparse(part.format_spec)[2:-1] if part.format_spec else ""
                if spec and not re.fullmatch(r"\.\d{1,2}[fg]", spec):
                    return []
                pattern.append(r"(\S+?)")
                values.append(part.value)
        else:
            pattern.append(r"(\S+?)")
            values.append(arg)
    if len(values) > 20:
        return []
    m = re.fullmatch("".join(pattern), line)
    return [(value, m.group(i), m.start(i)) for i, value in enumerate(values, start=1)] if m else []
