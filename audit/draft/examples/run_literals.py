"""Qrels and a run written as literals in one code block, as library docs and tutorials print their running example:
``qrels = {"q1": {"d1": 1, ...}}`` and ``run = {"q1": {"d1": 0.9, ...}}``, bare or wrapped (ranx's ``Qrels({...})``
and ``Run({...})``, pytrec_eval's dicts). The example holds every query the literals give (``Example.queries``): the
qrels are every judged document with its grade, the run each query's ranking by score, highest first (the scores
kept when two tie, so the chapter's tie rule and the references each order them).

The statements after it print a measure's value for one query ("`hits@5` is 2 for q_1"), for each query ("0.4 for
both queries", "0.9430 for q_1 and 0.6292 for q_2") or over the queries ("a mean of 0.7861", "so `mrr` is 0.75":
the mean a library reports), or as a result pasted in a comment under the literals (``# {AP: 0.75, nDCG:
0.815…}``, ``# Metric(query_id='Q0', measure=AP, value=0.5)``); the measure named in ir-measures' notation or in ranx's (``ndcg@5``, ``mrr``,
``r-precision``) or trec_eval's (``map_cut.5``). A name with an option (ranx's ``-l2`` suffix, a persistence
``rbp.95``) is left to the author.
"""

from __future__ import annotations

import ast
import re

from audit.draft.examples.example import Example
from audit.text.literals import block_assignments

_QRELS_NAME = re.compile(r"^(?:qrels?|qrel_dict|judg(?:e)?ments|relevance_judg(?:e)?ments|ground_truth|gold)$", re.I)
_RUN_NAME = re.compile(r"^(?:run|runs|results|system_run|scores|ranking|rankings)$", re.IGNORECASE)
_NUM = r"-?(?:\d+/\d+|\d*\.\d+|\d+)"
#: The computation a text may print before a value, "(1 + 2/3)/2 ≈ 0.8333": its arithmetic is the sentence's
#: arithmetic claim; the value after it is the measure's.
_WORKING = r"(?:\(?[\d.]+(?:\s*[-−+/·×*]\s*\(?[\d.]+\)?)+\)?(?:\s*[/·×*]\s*[\d.]+)?\s*(?:=|≈)\s*)?"
_VALUE = re.compile(rf"(?:\s+for\s+(?P<q0>(?!both\b|each\b|every\b|all\b)\w+))?\s*(?:\bis|\bare|=|\bgives?|\breturns?|"
                    rf"\bcomes\s+to|:)\s+(?:about\s+|exactly\s+)?(?P<chain>{_WORKING}{_NUM}(?:\s*(?:=|≈)\s*{_NUM})*)(?!\w|\.\d)"
                    rf"(?:\s+for\s+(?P<q>(?!both\b|each\b|every\b|all\b)\w+))?", re.IGNORECASE)
_MORE = re.compile(rf"\s+and\s+{_WORKING}(?P<v>{_NUM})\s+for\s+(?P<q>\w+)", re.IGNORECASE)
_EACH = re.compile(r"\s*(?:for\s+)?(?:both\s+queries|each\s+query|every\s+query|all\s+queries)\b", re.IGNORECASE)
_MEAN = re.compile(rf"\b(?:a|the)\s+mean\s+(?:over\s+\w+\s+queries\s+)?(?:of|is)\s+(?P<v>{_NUM})", re.IGNORECASE)
_NAME = re.compile(r"`(?P<name>[A-Za-z][\w@.\-]{0,40}|[A-Za-z]+\([\w=', .\-]{0,40}\)(?:@\d+)?)`")


#: The library whose classes wrap the literals (ranx's ``Qrels``/``Run``), whose ``evaluate`` the text then calls.
_WRAPPERS = {"Qrels": "ranx", "Run": "ranx"}
#: A call of that library's evaluation function in a sentence: what it returns is that library's value.
_CALL = re.compile(r"`[^`]*\b(?:evaluate|compare)\s*\(")


def _wrapper(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        return _WRAPPERS.get(name)
    return None


def _literal(node: ast.AST):
    """A dict literal, bare or as the single argument of a call (``Qrels({...})``); None otherwise."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def _qrels(value: dict) -> dict | None:
    if value and all(isinstance(q, (str, int)) and isinstance(j, dict) and j and
                     all(isinstance(d, (str, int)) and isinstance(g, int) and not isinstance(g, bool)
                         for d, g in j.items()) for q, j in value.items()):
        return {str(q): {str(d): g for d, g in j.items()} for q, j in value.items()}
    return None


def _run(value: dict) -> tuple[dict, dict | None] | None:
    """(ranking per query, scores when two scores tie) from a run literal of scores or of rankings."""
    run, scores, tied = {}, {}, False
    for q, docs in value.items():
        if isinstance(docs, dict) and docs and all(isinstance(s, (int, float)) and not isinstance(s, bool)
                                                   for s in docs.values()):
            ranked = sorted(docs, key=lambda d: -docs[d])   # stable: tied documents keep their listed order
            run[str(q)] = [str(d) for d in ranked]
            scores[str(q)] = {str(d): float(s) for d, s in docs.items()}
            tied |= len(set(docs.values())) < len(docs)
        elif isinstance(docs, list) and docs and all(isinstance(d, (str, int)) for d in docs):
            if len(set(docs)) < len(docs):
                return None
            run[str(q)] = [str(d) for d in docs]
        else:
            return None
    return run, (scores if tied else None)


def find(text: str) -> list[Example]:
    """Each code block assigning one qrels literal and one run literal, as an example of all its queries."""
    out = []
    for start, end, assigned in block_assignments(text):
        qrels, runs, libraries = [], [], set()
        for name, node in assigned:
            libraries.add(_wrapper(node))
            value = _literal(node)
            if value is None:
                continue
            if _QRELS_NAME.match(name) and _qrels(value):
                qrels.append(_qrels(value))
            elif _RUN_NAME.match(name) and _run(value):
                runs.append(_run(value))
        if len(qrels) != 1 or len(runs) != 1:
            continue
        run, scores = runs[0]
        fixture = {"qrels": qrels[0], "run": run}
        if scores:
            fixture["scores"] = scores
        first = next(iter(run))
        ranking = [(d, qrels[0].get(first, {}).get(d)) for d in run[first]]
        library = next(iter(libraries - {None}), None) if len(libraries - {None}) == 1 else None
        out.append(Example(f"{library} qrels and run" if library else "qrels and run", start, end,
                           text.count("\n", 0, start) + 1, ranking, whole=True,
                           facts=[], queries=fixture))
    return out


def _measure(token: str) -> str | None:
    """A measure named in ranx's, trec_eval's or ir-measures' notation, in ir-measures' notation."""
    from audit.draft.examples.by_reference import _RANX
    from audit.measures.syntax import parse as parse_measure
    from audit.errors import AuditError
    import ir_measures

    root, _, k = token.lower().partition("@")
    if root in _RANX and (not k or k.isdigit()):
        return _RANX[root] + (f"@{k}" if k else "")
    try:
        parsed = ir_measures.parse_trec_measure(token)
        if len(parsed) == 1:
            return str(parsed[0])
    except Exception:  # not trec_eval's notation
        pass
    try:
        parse_measure(token)
        return token
    except AuditError:
        return None


_COMMENT_MAPPING = re.compile(r"^\s*#\s*\{(?P<body>.*)\}\s*$")
_COMMENT_PAIR = re.compile(r"['\"]?(?P<m>[A-Za-z][\w@().=,]*?)['\"]?\s*:\s*(?P<v>-?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][-+]?\d+)?)")
_COMMENT_METRIC = re.compile(r"^\s*#\s*Metric\(\s*query_id\s*=\s*['\"](?P<q>[^'\"]+)['\"]\s*,\s*measure\s*=\s*(?P<m>[^,]+?)\s*,"
                             r"\s*value\s*=\s*(?P<v>-?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][-+]?\d+)?)\s*\)\s*$")


def _printed_comment(line: str, example: Example) -> list[dict] | None:
    """A result pasted as a comment under the literals (``# {AP: 0.75, nDCG: 0.815…}``: the mean over the queries,
    as ir-measures' ``calc_aggregate`` prints it; ``# Metric(query_id='Q0', measure=AP, value=0.5)``: one query's),
    as a value claim on the example; None when the line is not such a comment."""
    fixture = example.queries
    metric = _COMMENT_METRIC.match(line)
    mapping = _COMMENT_MAPPING.match(line)
    if metric:
        measure = _measure(metric.group("m").strip())
        if measure is None or metric.group("q") not in fixture["run"]:
            return []
        expects = [{"measure": measure, "query": metric.group("q"), "claimed": metric.group("v")}]
    elif mapping:
        expects = []
        for pair in _COMMENT_PAIR.finditer(mapping.group("body")):
            measure = _measure(pair.group("m").strip())
            if measure is None:
                return []
            expects.append({"measure": measure, "aggregate": "mean", "claimed": pair.group("v")})
    else:
        return None
    if not expects:
        return []
    return [{"kind": "value", "quote": line.strip(), "claim": "; ".join(
        f"{e['measure']} is {e['claimed']}" + (f" for {e['query']}" if "query" in e else " over the queries")
        for e in expects) + f" as the listing prints it ({example.describe()})", "fixture": fixture,
        "expect": expects, "on example": True}]


def values(sentence: str, example: Example) -> list[dict]:
    """Value claims for the measures ``sentence`` prints on ``example``'s queries (see the module doc)."""
    fixture = example.queries
    if not fixture:
        return []
    printed = _printed_comment(sentence, example)
    if printed is not None:
        return printed
    queries = list(fixture["run"])
    names = list(_NAME.finditer(sentence))
    if not names:
        from audit.text.scan import METRIC
        names = list(METRIC.finditer(sentence))
    out = []
    for i, m in enumerate(names):
        token = m.group("name") if "name" in m.groupdict() and m.group("name") else m.group(0)
        measure = _measure(token.strip())
        if measure is None:
            continue
        stop = names[i + 1].start() if i + 1 < len(names) else len(sentence)
        segment = sentence[m.end():stop]
        said = _VALUE.search(segment)
        if said is None or said.start() > 40:
            continue
        value = re.split(r"\s*(?:=|≈)\s*", said.group("chain"))[-1]
        expects = []
        at = said.end()   # how far into the segment the values go
        named = said.group("q0") or said.group("q")
        if named:
            if named not in queries:
                continue
            expects.append({"measure": measure, "query": named, "claimed": value})
            while (more := _MORE.match(segment, at)) and more.group("q") in queries:
                expects.append({"measure": measure, "query": more.group("q"), "claimed": more.group("v")})
                at = more.end()
        elif (each := _EACH.match(segment, at)):
            expects += [{"measure": measure, "query": q, "claimed": value} for q in queries]
            at = each.end()
        elif len(queries) == 1:
            expects.append({"measure": measure, "query": queries[0], "claimed": value})
        else:
            expects.append({"measure": measure, "aggregate": "mean", "claimed": value})
        mean = _MEAN.search(segment, at)
        if mean and "aggregate" not in expects[-1] and not segment[at:mean.start()].strip(" ,;").count(" ") > 2:
            expects.append({"measure": measure, "aggregate": "mean", "claimed": mean.group("v")})
            at = mean.end()
        begin = m.start()
        if sentence.count("`", 0, begin) % 2:   # a name inside a backticked call: the quote starts with the call
            begin = sentence.rfind("`", 0, begin)
        quote = sentence[begin:m.end() + at].strip(" ,.;")
        library = example.kind.split()[0] if example.kind != "qrels and run" else None
        if library and _CALL.search(sentence):
            for e in expects:   # what the library's own evaluate returns: its value decides
                e["by"] = library
        out.append({"kind": "value", "quote": quote,
                    "claim": "; ".join(f"{e['measure']} is {e['claimed']}"
                                       + (f" for {e['query']}" if "query" in e else " over the queries")
                                       for e in expects) + f" on the running example ({example.describe()})",
                    "fixture": fixture, "expect": expects, "on example": True})
    return out
