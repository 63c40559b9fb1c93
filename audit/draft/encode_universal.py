"""Comparisons between two examples and universal statements ("raising k never lowers recall"), encoded as
comparison and property claims with their relation words.
"""

from __future__ import annotations

import re

from fractions import Fraction

from audit.errors import AuditError
from audit.model.values import parse_claimed
from audit.draft.encode_fixtures import _ranking
from audit.text.encode_measures import _root, measure_of
from audit.text.scan import METRIC, NUM, Statement, VALUE
from audit.text.words import _ORDINAL_POSITION


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


_UNIVERSAL_CUE = re.compile(r"\b(?:never|always|cannot|can\s+never|can't|at\s+most|at\s+least|ignores\s+everything|"
                            r"can\s+only\s+(?:raise|help|improve|increase|lower|hurt|reduce|decrease)\b(?=[^.;]*\bor\s+"
                            r"(?:leave|keep)\s+it))\b",
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
    # "can only raise RR@k or leave it where it is": the measure never falls
    ("never decreases", re.compile(r"\bcan\s+only\s+(?:raise|help|improve|increase)\b(?=[^.;]*\b(?:or\s+leave\s+it|or\s+keep"
                                   r"\s+it|or\s+(?:leave|keep)\s+it\s+(?:where\s+it\s+is|unchanged|the\s+same))\b)",
                                   re.IGNORECASE), True),
    ("never increases", re.compile(r"\bcan\s+only\s+(?:lower|hurt|reduce|decrease)\b(?=[^.;]*\b(?:or\s+leave\s+it|or\s+keep"
                                   r"\s+it)\b)", re.IGNORECASE), True),
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
                       r"\bis\s+at\s+least\b|\bnever\s+falls\s+below\b|\b(?:is|are)\s+never\s+below\b", re.IGNORECASE)


#: A constant a measure is said never to pass, right after the comparison ("never exceeds 1", "is never below 0").
_BOUND = re.compile(rf"\s*(?P<n>{NUM})(?=\s*(?:[.;,)]\s|[.;,)]?$)|\s+(?:whatever|regardless|for\s+(?:any|every|all)|"
                    rf"on\s+(?:any|every)|no\s+matter)\b)")


PROPERTY_MEASURES = ("P", "R", "RR", "AP", "nDCG", "Success", "F", "ERR")

#: Means over queries a property compares with their per-query measure ("GMAP is never larger than MAP"): searched
#: over runs of two queries, each at the whole ranking.
_OVER_QUERIES = {"GMAP": "AP"}


_NEXT_K = re.compile(r"\s*\+\s*1\b")


_ALWAYS_EQUALS = re.compile(r"\balways\s+(?:equals?|is\s+equal\s+to|is\s+the\s+same\s+as)\b", re.IGNORECASE)


_AT_R = re.compile(r"\s+at\s+(?:rank\s+|cutoff\s+|depth\s+)?(?:\|R\||R\b)")


def _universe(measures: list[str], k=None) -> dict:
    grades = [0, 1, 2] if {"nDCG", "ERR"} & set(measures) else [0, 1]
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


#: A measure said to lie between two others, for every ranking ("F1 always lies between precision and recall").
_BETWEEN = re.compile(r"\b(?:always\s+)?(?:lies?|lying|falls?|is|are|stays?)\s+(?:always\s+)?between\s+",
                      re.IGNORECASE)
#: A sentence whose subject is a pronoun for the measure the sentence before named ("Two guarantees make ERR easy to
#: reason about. It always lies between 0 and 1").
_PRONOUN = re.compile(r"^\s*(?:It|This\s+measure|The\s+measure)\b")


def antecedent(text: str, start: int):
    """(base, k) of the one measure the sentence before offset ``start`` names, in the same paragraph, when the
    sentence at ``start`` begins with a pronoun for it; None otherwise (another paragraph, two measures named)."""
    if not _PRONOUN.match(text[start:start + 40]):
        return None
    para = text.rfind("\n\n", 0, start)
    before = text[para + 1 if para >= 0 else 0:start].rstrip()
    last = re.split(r"(?<=[.!?])\s+", before)[-1] if before else ""
    specs = {measure_of(m) for m in METRIC.finditer(last)} - {None}
    return next(iter(specs)) if len(specs) == 1 else None


def _between_measures(s: Statement, subject) -> tuple[list[dict], str]:
    """"F1 always lies between precision and recall": the measure never below the smaller of the two and never
    above the larger, at every cutoff, as one property (``relation: between``)."""
    text = s.text
    cue = _BETWEEN.search(text)
    if cue is None:
        return [], ""
    right = list(METRIC.finditer(text, cue.end()))
    if len(right) < 2 or not re.fullmatch(r"\s*and\s*", text[right[0].end():right[1].start()]) \
            or right[0].start() != cue.end():
        return [], ""
    left = [(m, measure_of(m)) for m in METRIC.finditer(text[:cue.start()])]
    left = [(m, spec) for m, spec in left if spec]
    spec = left[-1][1] if left else subject
    others = [measure_of(m) for m in right[:2]]
    if spec is None or None in others:
        return [], "the range is not stated of a measure"
    if _ONE_CASE.search(text) or not _UNIVERSAL_CUE.search(text):
        return [], "the range is stated of one example, not of every ranking: encode the example's values"
    names = [spec[0]] + [o[0] for o in others]
    if any(n not in PROPERTY_MEASURES for n in names) or any(k not in (None, "k") for k in
                                                             [spec[1]] + [o[1] for o in others]):
        return [], "a measure the property search does not cover, or a cutoff of one side alone"
    quote = text[(left[-1][0].start() if left else 0):right[1].end()]
    return [{"kind": "property", "quote": quote, "claim": f"For every ranking and cutoff k, {names[0]}@k lies between "
             f"{names[1]}@k and {names[2]}@k", "measure": names[0], "relation": "between", "compare": "measure",
             "other": names[1:], "universe": _universe(names),
             "search": {"random_cases": 500, "max_length": 30, "seed": 20261130}}], ""


def ranges(s: Statement, subject=None) -> tuple[list[dict], str]:
    """A range stated for a measure in general ("nDCG lies between 0 and 1") as two property claims on a constant
    bound: the measure is never below the low end and never exceeds the high end, searched over rankings. A range
    of one example or of observed data ("here nDCG lies between …", "AP ranges from 0.2 to 0.9 across queries"), or of
    a measure the search does not cover, is left to a draft: it is no statement about every ranking."""
    text = s.text
    m = _RANGE.search(text)
    if m is None:
        return _between_measures(s, subject)
    metrics = [(x, measure_of(x)) for x in METRIC.finditer(text[:m.start()])]
    metrics = [(x, spec) for x, spec in metrics if spec]
    if not metrics and subject is None:
        return [], "the range is not stated of a measure"
    if _ONE_CASE.search(text):
        return [], "the range is stated of one example, not of every ranking: encode the example's values"
    base, k = metrics[-1][1] if metrics else subject
    if _root(base) not in PROPERTY_MEASURES:
        return [], f"a range of {base}, which the property search does not cover"
    # the ends as exact numbers: a bound is a number, not a printed interval ("0.2" is 1/5)
    low, high = (str(Fraction(m.group(g) or m.group(h) or m.group(i))) for g, h, i in (("a", "c", "e"), ("b", "d", "f")))
    quote = text[metrics[-1][0].start() if metrics else 0:m.end()] + ("]" if m.group("f") and not text[m.end() - 1] == "]" else "")
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


def properties(s: Statement, subject=None) -> tuple[list[dict], str]:
    """Universal statements encoded as property claims, or ([], why not). ``subject``: (base, k) of the measure a
    pronoun subject stands for (``antecedent``), used where the sentence names no measure before its range."""
    text = s.text
    stated_range, why = ranges(s, subject)
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
            bound = _BOUND.match(text, cue.end())
            if left and not right and bound and not _ONE_CASE.search(text):
                # "Whatever the denominator, AP@k never exceeds 1": a constant bound, searched over rankings
                _, (lb, lk) = left[-1]
                if lb not in PROPERTY_MEASURES or lk not in (None, "k"):
                    return [], "a bound on a measure the property search does not cover, or at one cutoff alone"
                relation = "never below" if swap else "never exceeds"
                value = str(Fraction(bound.group("n")))
                name = lb if lk is None else f"{lb}@k"
                return [{"kind": "property", "quote": text[left[-1][0].start():bound.end()].strip(),
                         "claim": f"For every ranking, {name} {'is never below' if swap else 'never exceeds'} {value}",
                         "measure": lb, "relation": relation, "compare": "constant", "bound": value,
                         "universe": _universe([lb], lk), "search": search}], ""
            if not left or not right:
                return [], "one side of the comparison is not a measure (a constant bound needs a value claim)"
            (_, (lb, lk)), (rm, (rb, rk)) = left[-1], right[0]
            if lk != rk:
                return [], "the two measures are stated at different cutoffs"
            a, b = (rb, lb) if swap else (lb, rb)
            if _OVER_QUERIES.get(a) == b and lk is None:
                return [{"kind": "property", "quote": text, "claim": f"For every run, {a} never exceeds the mean of "
                         f"{b} over its queries", "measure": a, "relation": "never exceeds", "compare": "measure",
                         "other": b, "at": "whole ranking",
                         "universe": {"max_length": 3, "documents": 4, "grades": [0, 1], "max_k": 3, "queries": 2}}], ""
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
