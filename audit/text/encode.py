"""Claims encoded from one statement's wording, for ``audit init``.

Each encoder reads a statement found by ``audit.text.scan`` and returns complete claims (as register
mappings) only when the sentence itself gives everything the check needs; otherwise it returns
nothing and the statement stays a draft with a precise TODO (``todo``). What is read:

* arithmetic: ``expression (=|≈|~|, roughly|about) value`` → an ``arithmetic`` claim;
* counts: ``n of (the) d …, a recall of v`` / ``of the d …, n are …, so its precision is v`` /
  ``n … out of d, which is about v`` → an ``arithmetic`` claim ``n/d`` against ``v``;
* values whose fixture the sentence describes: relevant documents at stated positions (``at
  ranks 2 and 5``, ``of five``, ``the only two``, ``if the need has three relevant documents``),
  ``n results with m relevant``, several needs with their first relevant ranks, grades against
  a stated ideal order, unjudged counts → a ``value`` claim with an inline fixture;
* a move of one relevant document (``from rank 5 to rank 2``, ``from second place to first``)
  with the measure's direction and values → a ``comparison`` claim;
* universal statements → a ``property`` claim: measure, relation and what it is compared with
  (the next cutoff, a transformed case, or another measure);
* a listing's ``def`` line whose name and parameters say which measure it computes → a ``code``
  claim.
"""

from __future__ import annotations

import re

from audit.errors import AuditError
from audit.register.measures import parse as parse_measure
from audit.register.values import parse_claimed, parse_expression
from audit.text.scan import (
    ARITH,
    METRIC,
    NUM,
    TENS,
    UNITS,
    VALUE,
    WORD_FRACTION,
    WORD_NUMBER,
    Statement,
)

_ORDINAL_POSITION = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                     "eighth": 8, "ninth": 9, "tenth": 10}


def number(text: str) -> int | None:
    """``"4"`` or ``"four"`` or ``"forty-three"`` → int; ``None`` otherwise."""
    t = text.strip().lower()
    if t.isdigit():
        return int(t)
    if t in UNITS:
        return UNITS.index(t)
    parts = t.split("-")
    if parts[0] in TENS:
        base = 20 + 10 * TENS.index(parts[0])
        if len(parts) == 1:
            return base
        if len(parts) == 2 and parts[1] in UNITS[1:10]:
            return base + UNITS.index(parts[1])
    return None


def _list(text: str) -> list[int]:
    """``"2, 3 and 6"`` → [2, 3, 6]."""
    return [int(x) for x in re.findall(r"\d+", text)]


_LIST = r"\d+(?:\s*(?:,\s*and|,|and|&)\s*\d+)*"
_N = rf"(?:\d+|{WORD_NUMBER})"


# --- measures -----------------------------------------------------------------------------------

_NOTATION = {"nDCG": "nDCG", "NDCG": "nDCG", "MRR": "RR", "MAP": "AP", "RR": "RR", "AP": "AP", "P": "P",
             "R": "R", "Recall": "R", "Precision": "P", "Success": "Success", "Judged": "Judged"}
_WORDS = (("mean reciprocal rank", "RR"), ("reciprocal rank", "RR"), ("mean average precision", "AP"),
          ("average precision", "AP"), ("precision", "P"), ("recall", "R"), ("ndcg", "nDCG"),
          ("success", "Success"), ("hit rate", "Success"), ("judged fraction", "Judged"))


def measure_of(m: re.Match) -> tuple[str, int | str | None] | None:
    """A ``scan.METRIC`` match → (base measure, cutoff or ``"k"`` or ``None``); ``None`` when the
    measure is not one the chapter evaluator computes (DCG, F1, an ideal order)."""
    if m.group("notation"):
        base = _NOTATION.get(m.group("notation"))
        k = m.group("k")
    else:
        words = re.sub(r"\s+", " ", m.group("words").lower())
        base = next((b for w, b in _WORDS if words.startswith(w)), None)
        k = m.group("kw") or m.group("k2")
    if base is None:
        return None
    if k is None:
        return base, None
    if k.lower() == "k":
        return base, "k"
    return base, number(k)


def _name(base: str, k) -> str:
    return base if k is None or k == "k" else f"{base}@{k}"


# --- arithmetic and counts ----------------------------------------------------------------------

_ARITH = ARITH


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


def arithmetic(s: Statement) -> list[dict]:
    out = []
    for m in _ARITH.finditer(s.text):
        expr = _balanced(m.group("expr").strip())
        normal = expr.replace("·", "*").replace("×", "*").replace("÷", "/").replace("−", "-")
        claimed = _claimed(m.group("rel"), m.group("value"))
        try:
            parse_expression(normal)
            parse_claimed(claimed)
        except AuditError:
            continue
        if "/" not in normal and not re.search(r"[-+*]", normal):
            continue
        quote = s.text[s.text.index(expr, max(0, m.start() - 2)):m.end()] if expr in s.text else m.group(0)
        out.append({"kind": "arithmetic", "quote": quote, "claim": f"{expr} is {claimed}",
                    "expression": normal, "claimed": claimed})
    return out


_RATIO_VALUE = rf"(?:{WORD_FRACTION}|{NUM}\s*/\s*{NUM}|\d*\.\d+%?|\d+%)"
_AFTER_COUNT = re.compile(
    rf"^[^,;:]*?(?:,\s*(?:so\s+)?(?:(?:(?:a|an|its|the)\s+)?(?:set\s+)?(?:recall|precision|share|fraction|rate|"
    rf"proportion)\s+(?:of|is|was)\s+|which\s+is\s+)?)(?P<v>(?:(?:about|roughly|≈)\s*)?{_RATIO_VALUE})", re.IGNORECASE)
_COUNTS = [
    re.compile(rf"\b(?P<n>{_N})\s+of\s+(?:the\s+|its\s+|their\s+)?(?P<d>{_N})\b", re.IGNORECASE),
    re.compile(rf"\b(?P<n>{_N})\s+(?:[\w-]+\s+){{1,3}}?out\s+of\s+(?P<d>{_N})\b", re.IGNORECASE),
    re.compile(rf"\bof\s+the\s+(?P<d>{_N})\s+[\w\s]{{1,40}}?,\s+(?P<n>{_N})\s+(?:are|were)\b[^,;]*", re.IGNORECASE),
]


def counts(s: Statement) -> list[dict]:
    """``12 of the 20 relevant passages, a recall of 0.6`` → arithmetic ``12/20`` against ``0.6``."""
    if _ARITH.search(s.text) or re.search(r"\b(?:unjudged|judged)\b|@", s.text, re.IGNORECASE):
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
_NEEDS = re.compile(rf"\b(?:(?P<q>{_N})\s+(?:needs|questions|queries)|needs|questions|queries)\b[^.;]*?"
                    rf"\bat\s+ranks\s+(?P<list>{_LIST})", re.IGNORECASE)
_GRADES = re.compile(rf"\b(?:grades?\s+(?:are|read|were)?\s*|in\s+the\s+order\s+)(?P<list>{_LIST})", re.IGNORECASE)
_JUDGEMENTS = re.compile(rf"\b(?:graded\s+)?judgements?\s+(?P<list>{_LIST})", re.IGNORECASE)
_IDEAL = re.compile(rf"\bideal\s+order\s+(?P<list>{_LIST})", re.IGNORECASE)
_UNJUDGED = re.compile(rf"\b(?P<u>{_N})\s+of\s+(?:the|its)\s+(?P<n>{_N})\s+(?:results|documents)\b[^.;]*?"
                       rf"\b(?:unjudged|never\s+judged|not\s+judged)\b", re.IGNORECASE)
_JUDGED_SHARE = re.compile(rf"(?P<v>{WORD_FRACTION}|{NUM}\s*/\s*{NUM}|{NUM})\s+of\s+the\s+(?:ranking|results)\s+"
                           rf"(?:is|are|was|were)\s+judged", re.IGNORECASE)
_VERB_VALUE = re.compile(rf"^\s*(?:\([^)]*\)\s*)?(?:(?:is|was|=|≈|~|comes\s+to|equals|of|gives?)\s*)?"
                         rf"(?:therefore\s+|then\s+|only\s+)?(?P<v>(?:(?:≈|~|about|roughly|approximately)\s*)?"
                         rf"{VALUE})(?![\w/@])", re.IGNORECASE)
_LATER_VALUE = re.compile(rf"\b(?:is|was|comes\s+to|equals)\s+(?P<v>(?:(?:about|roughly|≈)\s*)?(?:{NUM}\s*/\s*{NUM}|"
                          rf"\d*\.\d+|{WORD_FRACTION}))(?![\w/@])", re.IGNORECASE)


def _value_after(text: str, m: re.Match, stop: int) -> str | None:
    v = _VERB_VALUE.match(text[m.end():stop])
    if v:
        return v.group("v")
    v = _LATER_VALUE.search(text[m.end():stop])
    return v.group("v") if v else None


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


def _fixture_for(text: str, base: str, k) -> tuple[dict | None, str]:
    """The fixture the sentence describes for ``base@k``, or (None, why not)."""
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
        positions = _list(pos.group("list"))
        length = number(pos.group("n")) if pos.group("n") else None
        results = _N_RESULTS.search(text)
        length = length or (number(results.group("n")) if results else None) or max(positions)
        if base in ("R", "AP") and total is None:
            return None, "|R| (how many relevant documents the need has) is not stated"
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


_MEASURE_NEEDS_CUTOFF = {"P", "Judged", "Success"}


def values(s: Statement) -> tuple[list[dict], str]:
    """Value claims whose fixture the sentence describes, or ([], why not). Measures are written
    plain (``nDCG@3``): the gain and every other convention come from what the text declares
    (``audit.text.stated``), not from the measure name."""
    text = s.text
    metrics = [m for m in METRIC.finditer(text)]
    out, reason = [], ""
    expects, fixture = [], None
    for i, m in enumerate(metrics):
        spec = measure_of(m)
        if spec is None:
            continue
        base, k = spec
        stop = metrics[i + 1].start() if i + 1 < len(metrics) else len(text)
        semi = text.find(";", m.end())
        stop = min(stop, semi) if semi != -1 else stop
        value = _value_after(text, m, stop)
        if value is None or re.match(r"^(?:\d+)$", value) and base not in ("P", "R", "RR", "Judged", "nDCG", "AP",
                                                                            "Success"):
            continue
        if k == "k" or (k is None and base in _MEASURE_NEEDS_CUTOFF):
            reason = "the cutoff k is not a number"
            continue
        fx, why = _fixture_for(text, base, k)
        if fx is None:
            reason = why
            continue
        if fixture is not None and fx != fixture:
            reason = "two measures in one sentence rest on different fixtures"
            continue
        fixture = fx
        value = value.strip()
        try:
            parse_claimed(value)
            parse_measure(_name(base, k))
        except AuditError as exc:
            reason = exc.message
            continue
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


def _universe(measures: list[str], k=None) -> dict:
    grades = [0, 1, 2] if "nDCG" in measures else [0, 1]
    universe = {"max_length": 5, "documents": 6, "grades": grades, "max_k": 6}
    if isinstance(k, int):
        universe["max_k"] = k
    return universe


def properties(s: Statement) -> tuple[list[dict], str]:
    """Universal statements encoded as property claims, or ([], why not)."""
    text = s.text
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
            (_, (lb, lk)), (_, (rb, rk)) = left[-1], right[0]
            if lk != rk:
                return [], "the two measures are stated at different cutoffs"
            if lb not in PROPERTY_MEASURES or rb not in PROPERTY_MEASURES:
                return [], "a measure the property search does not cover"
            a, b = (rb, lb) if swap else (lb, rb)
            return [{"kind": "property", "quote": text, "claim": f"For every ranking and cutoff k, {a}@k never exceeds "
                     f"{b}@k", "measure": a, "relation": "never exceeds", "compare": "measure", "other": b,
                     "universe": _universe([a, b], lk), "search": search}], ""
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

_ROLES = {"ranking": ("ranking", "retrieved", "run", "results", "docs", "ranked", "doc_ids", "ids", "ranked_ids"),
          "relevant set": ("relevant", "qrels", "gold", "relevant_ids", "truth", "positives"),
          "cutoff": ("k", "cutoff", "depth")}
_FUNCTION_MEASURES = (("reciprocal", "RR"), ("mrr", "RR"), ("recall", "R"), ("precision_at", "P"),
                      ("average_precision", "AP"), ("ndcg", "nDCG"), ("success", "Success"), ("hit", "Success"),
                      ("precision", "P"))


def code(s: Statement) -> tuple[list[dict], str]:
    m = re.match(r"\s*(?:async\s+)?def\s+(?P<name>\w+)\s*\((?P<params>[^)]*)\)", s.text)
    if not m:
        return [], "not a def line"
    name = m.group("name")
    base = next((b for key, b in _FUNCTION_MEASURES if key in name.lower()), None)
    if base is None:
        return [], f"the name {name!r} does not say which measure the listing computes"
    params = [re.split(r"[:=]", p)[0].strip() for p in m.group("params").split(",") if p.strip()]
    roles = {}
    for p in params:
        role = next((r for r, names in _ROLES.items() if p.lower() in names), None)
        if role is None:
            return [], f"the role of parameter {p!r} (ranking, relevant set or cutoff) is not clear from its name"
        roles[p] = role
    if "ranking" not in roles.values() or "relevant set" not in roles.values():
        return [], "the listing does not take a ranking and a relevant set"
    has_k = "cutoff" in roles.values()
    if base in _MEASURE_NEEDS_CUTOFF and not has_k:
        return [], f"{base} needs a cutoff parameter"
    measure = f"{base}@k" if has_k else base
    return [{"kind": "code", "quote": s.text.strip(), "claim": f"{name}() computes {measure}",
             "function": name, "measure": measure, "arguments": roles}], ""


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
            "listing": "a code claim (function, measure, argument roles)"}.get(s.kind, "a claim")
    because = f"; not encoded because {reason}" if reason else ""
    return f"TODO: encode as {what}{because}. See README, 'Authoring a chapter, start to finish'."



# --- fixtures given as tables, and table rows that state values about them ----------------------

_HEADING = re.compile(r"^\s*#{1,6}\s", re.MULTILINE)


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def _grade(cell: str) -> int | None | str:
    """A table cell → a grade (int), ``"unjudged"``, or ``None`` when unreadable."""
    c = cell.lower()
    digits = re.findall(r"\d+", c)
    if re.match(r"^(?:no|unjudged|not\s+judged|—|-|–)\b", c):
        return "unjudged"
    if digits:
        return int(digits[0])
    if re.match(r"^(?:non-?relevant|not\s+relevant)\b", c):
        return 0
    if re.match(r"^(?:yes|relevant)\b", c):
        return 1
    return None


def fixture_tables(text: str) -> list[tuple[int, int, dict, bool]]:
    """Rankings printed as tables (a ``rank`` column and a ``grade``/``relevance``/``judged``
    column, optionally a ``document`` column): ``(start, end, fixture, complete)`` in reading
    order. ``complete`` is true when every judged document of the need is known: the table's,
    plus any the next paragraph says is "never retrieved" with its grade, matching a stated count
    of judged (or relevant) documents; when nothing is stated, the table is taken as complete only
    for measures that do not depend on unretrieved documents."""
    out = []
    lines = text.split("\n")
    offsets, pos = [], 0
    for line in lines:
        offsets.append(pos)
        pos += len(line) + 1
    i = 0
    while i < len(lines):
        if not lines[i].strip().startswith("|"):
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].strip().startswith("|"):
            j += 1
        head = [h.lower() for h in _cells(lines[i])]
        rank_col = next((n for n, h in enumerate(head) if h in ("rank", "position", "#")), None)
        grade_col = next((n for n, h in enumerate(head) if re.match(r"^(?:grade|relevance|relevant|judged|label)", h)),
                         None)
        doc_col = next((n for n, h in enumerate(head) if re.match(r"^(?:doc|document|id|passage|chunk)", h)), None)
        start, end = offsets[i], offsets[j - 1] + len(lines[j - 1])
        if rank_col is not None and grade_col is not None:
            rows = [_cells(r) for r in lines[i + 1:j] if not re.match(r"^\s*\|?[\s:|-]+$", r)]
            ranked, qrels, ok = [], {}, True
            for n, row in enumerate(rows):
                if len(row) <= max(rank_col, grade_col):
                    ok = False
                    break
                doc = row[doc_col] if doc_col is not None else f"d{n + 1}"
                g = _grade(row[grade_col])
                rank = number(row[rank_col])
                if g is None or rank is None or not re.fullmatch(r"[\w.-]+", doc):
                    ok = False
                    break
                ranked.append((rank, doc))
                if g != "unjudged":
                    qrels[doc] = g
            if ok and ranked:
                before = text[:start]
                section_start = max([m.end() for m in _HEADING.finditer(before)] or [0])
                after_end = text.find("\n\n", end + 2)
                after = text[end:after_end if after_end != -1 else len(text)]
                for m in re.finditer(r"\b(?P<doc>[\w.-]+),?\s+(?:has|with)\s+grade\s+(?P<g>\d+)\b[^.]*?\b(?:never|not)\s+"
                                     r"(?:retrieved|returned)", after, re.IGNORECASE):
                    qrels.setdefault(m.group("doc"), int(m.group("g")))
                stated = re.search(rf"\b(?P<n>{_N})\s+judged\s+documents\b", text[section_start:start], re.IGNORECASE)
                complete = bool(stated) and number(stated.group("n")) == len(qrels)
                fixture = {"qrels": {"q1": qrels or {"x": 0}}, "run": {"q1": [d for _, d in sorted(ranked)]}}
                out.append((start, end, fixture, complete))
        i = j
    return out


_ORDER_FREE = {"P", "RR", "Judged", "Success"}   # measures no unretrieved document can change


def table_row(s: Statement, tables: list[tuple[int, int, dict, bool]]) -> tuple[list[dict], str]:
    """A table row stating values about a ranking printed earlier as a table: columns named by
    measures at a cutoff column (``| k | P@k | R@k |``), or a row per measure with a column for
    the running example (``| measure | running example |``)."""
    if not s.context or not tables:
        return [], "no ranking table precedes it"
    head, row = _cells(s.context), _cells(s.text)
    if len(row) != len(head):
        return [], "the row and its header have different numbers of cells"
    refers_first = "running example" in (s.context + s.text).lower()
    earlier = [t for t in tables if t[1] <= s.start]
    if not earlier:
        return [], "no ranking table precedes it"
    table = earlier[0] if refers_first else earlier[-1]
    _, _, fixture, complete = table
    expects = []
    lower = [h.lower() for h in head]
    if lower[0] in ("k", "cutoff", "cutoff k"):
        k = number(row[0])
        if k is None:
            return [], "the cutoff cell is not a whole number"
        for h, cell in zip(head[1:], row[1:]):
            m = METRIC.fullmatch(h.strip())
            spec = measure_of(m) if m else None
            if spec and spec[1] == "k":
                expects.append((spec[0], k, cell))
    elif lower[0] in ("measure", "metric") and refers_first:
        m = METRIC.fullmatch(row[0].strip())
        spec = measure_of(m) if m else None
        col = next((n for n, h in enumerate(lower) if "running example" in h), None)
        if spec and col is not None and spec[1] != "k":
            expects.append((spec[0], spec[1], row[col]))
    if not expects:
        return [], "the row's measures and values could not be matched to its header"
    out = []
    for base, k, cell in expects:
        if not complete and base not in _ORDER_FREE:
            return [], (f"{base} depends on relevant documents the table does not list; say how many judged "
                        "documents the need has, or list them in qrels")
        if base in _MEASURE_NEEDS_CUTOFF and k is None:
            return [], f"{base} needs a cutoff"
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
