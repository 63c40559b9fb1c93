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

import re

from audit.errors import AuditError
from audit.measures.syntax import at_cutoff
from audit.measures.syntax import parse as parse_measure
from audit.model.values import parse_claimed
from audit.text.scan import METRIC, Statement
from audit.text.words import number
from audit.draft.encode_universal import (  # noqa: F401 — also read from here
    antecedent,
    properties,
    comparison,
)
from audit.draft.encode_code import (  # noqa: F401 — also read from here
    todo,
    code,
    statistics,
)
from audit.text.encode_arithmetic import (  # noqa: F401 — also read from here
    arithmetic,
    persistence_part,
    counts,
    harmonic,
    computes,
    _BY,
    _LIBRARIES,
    breaks_arithmetic,
    breaks_replacing,
    chains,
    determined,
    false_arithmetic,
    normal_expression,
    printed_expressions,
)
from audit.draft.encode_fixtures import (  # noqa: F401 — also read from here
    reproduces,
    values,
    _ESTABLISHED,
    _WHOLE_VALUES,
    _value_after,
    _MEASURE_NEEDS_CUTOFF,
)
from audit.text.encode_measures import (  # noqa: F401 — also read from here
    _name,
    _root,
    measure_of,
)

# --- fixtures given as tables, and table rows that state values about them ----------------------


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


_ORDER_FREE = {"P", "RR", "Judged", "Success"}   # measures no unretrieved document can change
#: A table's first column naming a measure's parameter (``| p | RBP |``, ``| persistence p | RBP |``): the measure's
#: parameter in ir-measures' notation and the header words that name it.
_PARAMETERS = {"RBP": ("p", r"(?:persistence\s*)?\(?p\)?|persistence(?:\s+p)?")}
_PARAMETER_HEAD = re.compile("|".join(pattern for _, pattern in _PARAMETERS.values()))


#: A gain named beside the measure in a summary row's first cell (``| nDCG@5, exponential gain |``,
#: ``| DCG@4 (gain 2^g − 1) |``): the variant the row's value is of.
_ROW_GAIN = re.compile(r"^(?P<m>[^,(]+?)\s*(?:,\s*(?P<a>[^()]+)|\((?P<b>[^()]+)\))\s*$")
_EXPONENTIAL = re.compile(r"^(?:with\s+)?(?:exponential\s+gain|gain\s+2\s*\^\s*(?:g|rel|grade)\s*[−-]\s*1|"
                          r"2\s*\^\s*(?:g|rel|grade)\s*[−-]\s*1\s+gain)$", re.IGNORECASE)
_LINEAR = re.compile(r"^(?:with\s+)?(?:linear\s+gain|(?:the\s+)?grade\s+as\s+(?:the\s+)?gain)$", re.IGNORECASE)


def _row_measure(cell: str):
    """(base, k) of the measure a summary row's first cell names: the measure alone, or a DCG measure with the gain
    named beside it (exponential: ``DCG(dcg='exp-log2')``; linear: the plain measure). Any other qualifier (a
    relevance level, a tool, another query) is a reading this does not know: None."""
    m = METRIC.fullmatch(cell.strip())
    if m:
        return measure_of(m)
    parts = _ROW_GAIN.match(cell.strip())
    if not parts:
        return None
    m = METRIC.fullmatch(parts.group("m").strip())
    spec = measure_of(m) if m else None
    qualifier = " ".join((parts.group("a") or parts.group("b")).split())
    if spec is None or spec[0] not in ("DCG", "nDCG", "IDCG"):
        return None
    if _EXPONENTIAL.match(qualifier):
        return f"{spec[0]}(dcg='exp-log2')", spec[1]
    return (f"{spec[0]}(dcg='log2')", spec[1]) if _LINEAR.match(qualifier) else None


#: A table of queries with the rank of each one's first relevant result and its reciprocal rank (| query | answer |
#: rank | reciprocal rank |): each row is RR = 1/rank, whatever else the query's ranking holds.
_FIRST_RANK_HEAD = re.compile(r"^(?:rank|position)(?:\s+of\s+(?:the\s+)?(?:first\s+)?(?:relevant|correct)(?:\s+\w+)?)?$|"
                              r"^first\s+(?:relevant|correct)(?:\s+\w+)?\s+(?:rank|position)$", re.IGNORECASE)
_RR_HEAD = re.compile(r"^(?:reciprocal\s+rank|rr|1\s*/\s*rank)$", re.IGNORECASE)


def _first_rank_row(s: Statement, head: list[str], row: list[str]) -> tuple[list[dict], str] | None:
    """A row of a table of queries by the rank of their first relevant result (``_FIRST_RANK_HEAD``) and its
    reciprocal rank (``_RR_HEAD``): RR on a ranking whose first relevant result sits at that rank. None for other
    tables; a table whose rows are ranks of one ranking (its first column the rank) is a rank table."""
    ranks = [i for i, h in enumerate(head) if _FIRST_RANK_HEAD.fullmatch(h.strip())]
    rrs = [i for i, h in enumerate(head) if _RR_HEAD.fullmatch(h.strip())]
    if len(ranks) != 1 or len(rrs) != 1 or ranks[0] == 0:
        return None
    rank = number(row[ranks[0]].strip().strip("*"))
    cell = row[rrs[0]].strip().strip("*")
    if rank is None or not 1 <= rank <= 1000:
        return [], "the rank cell is not a whole number"
    try:
        parse_claimed(cell)
    except AuditError as exc:
        return [], exc.message
    docs = [f"d{i}" for i in range(1, rank + 1)]
    fixture = {"qrels": {"q": {d: (1 if i == rank else 0) for i, d in enumerate(docs, 1)}}, "run": {"q": docs}}
    label = row[0].strip() or "the row's query"
    return [{"kind": "value", "quote": s.text, "claim": f"RR is {cell} for {label}, its first relevant result at rank "
             f"{rank}", "fixture": fixture, "expect": [{"measure": "RR", "claimed": cell}]}], ""


def table_row(s: Statement, tables: list[tuple[int, int, dict, bool]], example=None) -> tuple[list[dict], str]:
    """A table row stating values about a ranking printed earlier: columns named by measures at a cutoff column
    (``| k | P@k | R@k |``, or ``| rank | recall | precision |``: the measures at each rank), or a row per measure
    with a column for the running example (``| measure | running example |``, the first table), or a two-column
    summary of the example's measures (``| measure | L6 |``). The ranking is the
    worked example the row follows (``example``, ``audit.draft.examples``: a rank table, a list, positions in prose)
    with what the text says of its query (|R|, the ideal), when it determines every measure of the row; else the
    draft asks for what is missing."""
    if not s.context:
        return [], "no ranking table precedes it"
    head, row = _cells(s.context), _cells(s.text)
    if len(row) != len(head):
        return [], "the row and its header have different numbers of cells"
    first_rank = _first_rank_row(s, head, row)
    if first_rank is not None:
        return first_rank
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
    by_parameter = False
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
    elif lower[0] in ("measure", "metric") and (refers_first or (source is not None and len(head) == 2)):
        # | measure | running example |, or a two-column summary of the example's measures (| measure | L6 |)
        spec = _row_measure(row[0])
        col = next((n for n, h in enumerate(lower) if "running example" in h), None) if refers_first else 1
        if spec and col is not None and spec[1] != "k":
            expects.append((spec[0], spec[1], row[col]))
    elif len(head) == 2 and _PARAMETER_HEAD.fullmatch(lower[0]):
        # | p | RBP |: the measure at each value of its parameter, a row per value
        m = METRIC.fullmatch(head[1].strip())
        spec = measure_of(m) if m else None
        param = _PARAMETERS.get(_root(spec[0])) if spec and spec[1] is None and "(" not in spec[0] else None
        value = row[0].strip()
        if param is None or not re.fullmatch(param[1], lower[0]):
            return [], f"the column {head[0]!r} names no parameter of the measure {head[1]!r}"
        if not re.fullmatch(r"0?\.\d+", value):
            return [], f"the parameter cell {value!r} is not a value between 0 and 1"
        expects.append((f"{_root(spec[0])}({param[0]}={value})", None, row[1]))
        by_parameter = True
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
        if by_parameter and fixture is not None:
            # a measure at a parameter the header names: its value on the example must come out under some reading
            # the audit will try, or the row speaks of another ranking than the example's
            from audit.draft.encode_fixtures import reproduces
            ok, why = reproduces(name, fixture, cell)
            if not ok:
                return [], why
        out.append({"measure": name, "claimed": cell})
    claim = {"kind": "value", "quote": s.text, "claim": "; ".join(f"{e['measure']} is {e['claimed']}" for e in out)
             + " on the ranking printed above", "fixture": fixture, "expect": out}
    return [claim], ""
