"""A query's relevant set and a ranking of document IDs, printed together: in prose ("relevant items {a, b, d},
ranking [b, c, a, e, f]", as the docs of ml_metrics' ``apk`` and the posts that follow them print it) or as two
literals of one code block (``actual = ["a", "b", "d"]``, ``predicted = ["b", "c", "a", "e", "f"]``). The set is the
whole relevant set, so it states |R|; a document of the ranking outside it is non-relevant. A sentence or block
holding several sets (one per query) is another shape: it is not read as one example."""

from __future__ import annotations

import ast
import re

from audit.draft.examples.example import Example
from audit.text.literals import block_assignments

_ITEMS = r"[^{}\[\]\n]{1,300}"
_PROSE_SET = re.compile(rf"\brelevant(?:\s+(?:items?|documents?|docs?|set|ids?))?\s*(?:=|:|are|is)?\s*"
                        rf"\{{(?P<set>{_ITEMS})\}}", re.IGNORECASE)
_PROSE_RANKING = re.compile(rf"\b(?:ranking|ranked\s+list|predicted|predictions?|retrieved|results?|run)\s*(?:=|:|is)?"
                            rf"\s*\[(?P<list>{_ITEMS})\]", re.IGNORECASE)
#: The names code gives a query's relevant set and its ranking.
_SET_NAME = re.compile(r"^(?:relevant(?:_\w+)?|rel_set|actual|gold|truth|ground_truth|expected|targets?)$", re.IGNORECASE)
_RANKING_NAME = re.compile(r"^(?:predicted|predictions?|ranking|ranked(?:_\w+)?|retrieved|results?|run|recommended|"
                           r"recommendations|ranked_list|system_ranking)$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])|\n\s*\n")


def _items(listed: str) -> list[str] | None:
    """The items of a literal's inside as text: ``a, b, d`` or ``"a", "b"`` or ``1, 5, 7``; None when an item is
    not a plain ID."""
    out = []
    for item in listed.split(","):
        item = item.strip().strip("'\"`")
        if not re.fullmatch(r"[\w.#:-]{1,40}", item):
            return None
        out.append(item)
    return out or None


def _example(start: int, end: int, text: str, relevant: list[str], ranking: list[str]) -> Example | None:
    if len(set(relevant)) != len(relevant) or len(set(ranking)) != len(ranking) or not ranking:
        return None  # a repeated ID is a convention question, not a plain example
    line = text.count("\n", 0, start) + 1
    members = set(relevant)
    return Example("relevant set and ranking", start, end, line, [(d, 1 if d in members else 0) for d in ranking],
                   whole=True, relevant=len(members),
                   unretrieved={d: 1 for d in relevant if d not in ranking},
                   facts=[text[start:end]])


def _prose(text: str) -> list[Example]:
    out = []
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    for a, b in zip(bounds, bounds[1:]):
        sentence = text[a:b]
        sets = list(_PROSE_SET.finditer(sentence))
        rankings = list(_PROSE_RANKING.finditer(sentence))
        if len(sets) != 1 or len(rankings) != 1 or "{" in sentence[sets[0].end():]:
            continue
        relevant, ranking = _items(sets[0].group("set")), _items(rankings[0].group("list"))
        if relevant and ranking:
            ex = _example(a + min(sets[0].start(), rankings[0].start()), a + max(sets[0].end(), rankings[0].end()),
                          text, relevant, ranking)
            if ex:
                out.append(ex)
    return out


_PROSE_SETS = re.compile(rf"\brelevant\s+(?:item\s+|document\s+)?sets\s*(?:=|:|are)?\s*(?P<sets>\{{{_ITEMS}\}}"
                         rf"(?:\s*(?:,\s*and|,|and)\s*\{{{_ITEMS}\}})+)", re.IGNORECASE)
_PROSE_RANKINGS = re.compile(rf"\b(?:rankings|ranked\s+lists|predictions|runs)\s*(?:=|:|are)?\s*(?P<lists>\[{_ITEMS}\]"
                             rf"(?:\s*(?:,\s*and|,|and)\s*\[{_ITEMS}\])+)", re.IGNORECASE)


def _prose_queries(text: str) -> list[Example]:
    """Several queries in one sentence, each a relevant set and a ranking in the same order ("With relevant sets {1,
    5, 7, 9}, {2, 3} and {2, 5, 6} and rankings [5, 6, 7, 8, 9], [1, 2, 3] and [2, 4, 6, 8]"): the queries q1, q2, …
    as a fixture of every query, when the sets and the rankings are as many and each is a plain list of IDs."""
    out = []
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]
    for a, b in zip(bounds, bounds[1:]):
        sentence = text[a:b]
        sets, lists = _PROSE_SETS.search(sentence), _PROSE_RANKINGS.search(sentence)
        if not sets or not lists or len(_PROSE_SETS.findall(sentence)) != 1 or len(_PROSE_RANKINGS.findall(sentence)) != 1:
            continue
        relevant = [_items(x) for x in re.findall(r"\{([^{}]*)\}", sets.group("sets"))]
        rankings = [_items(x) for x in re.findall(r"\[([^\[\]]*)\]", lists.group("lists"))]
        if len(relevant) != len(rankings) or not all(relevant) or not all(rankings) or any(
                len(set(x)) != len(x) for x in relevant + rankings):
            continue
        qrels, run = {}, {}
        for i, (members, ranking) in enumerate(zip(relevant, rankings), 1):
            qrels[f"q{i}"] = {**{d: 0 for d in ranking}, **{d: 1 for d in members}}
            run[f"q{i}"] = ranking
        start, end = a + min(sets.start(), lists.start()), a + max(sets.end(), lists.end())
        first = set(relevant[0])
        out.append(Example("relevant sets and rankings", start, end, text.count("\n", 0, start) + 1,
                           [(d, 1 if d in first else 0) for d in rankings[0]], whole=True, relevant=len(first),
                           facts=[text[start:end]], queries={"qrels": qrels, "run": run}))
    return out


def _code(text: str) -> list[Example]:
    out = []
    for start, end, assigned in block_assignments(text):
        sets, rankings = [], []
        for name, node in assigned:
            try:
                value = ast.literal_eval(node)
            except (ValueError, SyntaxError, TypeError):
                continue
            if not isinstance(value, (list, set, tuple)) or not all(isinstance(v, (str, int)) for v in value):
                continue  # a list of lists is one list per query: another shape
            if _SET_NAME.match(name):
                sets.append([str(v) for v in value])
            elif _RANKING_NAME.match(name):
                rankings.append([str(v) for v in value])
        if len(sets) == 1 and len(rankings) == 1:
            ex = _example(start, end, text, sets[0], rankings[0])
            if ex:
                out.append(ex)
    return out


def find(text: str) -> list[Example]:
    """Each relevant set printed with its ranking, as an example (the whole ranking, |R| the set's size)."""
    return sorted(_prose(text) + _prose_queries(text) + _code(text), key=lambda e: e.start)
