"""What one reference returns on the worked example: "trec_eval's map_cut.2 divides by |R| = 3 and gives 1/3",
"ranx's `ndcg@5` gives 0.9430", "ir_measures reports P@5 = 0.4". Drafted as a value claim whose expectation says
``by:`` that reference (docs/measures.md, "What one implementation returns"), on the fixture of the example the
sentence follows: the reference's own value decides it.

Drafted only when the clause names exactly one of the three references (trec_eval, ir_measures, ranx), names the
measure in that reference's notation (trec_eval's ``map_cut.2`` or ``P_5``, ranx's ``ndcg@5`` or ``mrr``) or in
ir-measures' (``AP@2``), names no option that changes the call (``-c``, ``-J``, ``judged_only``, ``make_comparable``)
other than one relevance level (trec_eval's ``-l 2``, ranx's ``-l2`` suffix: the measure at that level,
``P(rel=2)@5``) and prints one value ("gives the same 0.602", "leaves … at 0.5443"), or says the reference returns
the value printed just before for the same measure ("This is also what trec_eval's ndcg_cut.4 reports": ``derived``),
and when the example determines the measure. Another library's value (ml_metrics, scikit-learn) follows that
library's reading, which the text must state: it stays a draft; the implementation ir_measures runs, named beside it
("ir_measures' ERR@3 runs gdeval"), is still ir_measures' value.
"""

from __future__ import annotations

import re

from audit.draft.examples.example import Example

_REFERENCES = (("trec_eval", re.compile(r"\b(?:py)?trec[_-]eval\b", re.IGNORECASE)),
               ("ir_measures", re.compile(r"\bir[_-]measures\b", re.IGNORECASE)),
               ("ranx", re.compile(r"\branx\b", re.IGNORECASE)))
_OTHERS = re.compile(r"\b(?:scikit-learn|sklearn|torchmetrics|ml_metrics|gdeval|pyterrier|tensorflow[-_ ]ranking|"
                     r"apk|mapk|ndcg_score)\b", re.IGNORECASE)
_OPTIONS = re.compile(r"(?<![\w-])-[lcJMq]\b|\bjudged_only\b|\brelevance_level\b|\bmake_comparable\b|-l\d\b|"
                      r"\bwithout\s+`?-|\bwith\s+`?-", re.IGNORECASE)
_SAYS = re.compile(r"\b(?:gives?|returns?|reports?|prints?|outputs?|yields?|comes\s+to|computes?|is|scores?|"
                   r"(?:drops?|falls?|rises?|climbs?)\s+to)\b"
                   r"(?:\s+(?:it|q\w*|the\s+query))?\s+(?:(?:also|likewise)\s+)?(?:the\s+same\s+|about\s+|exactly\s+|only\s+)?(?P<v>\d+/\d+|\d*\.\d+|[01])(?!\d|[./]\d)"
                   r"|=\s*(?P<v2>\d+/\d+|\d*\.\d+|[01])(?!\d|[./]\d)", re.IGNORECASE)
_TREC_NAME = re.compile(r"`?(?P<name>(?:map_cut|ndcg_cut|P|recall|Rprec_mult|iprec_at_recall|success)[._]\d+(?:\.\d+)?|"
                        r"map|recip_rank|Rprec|bpref|ndcg|num_rel_ret|num_rel|num_ret|gm_map)`?(?![\w.])")
_RANX_NAME = re.compile(r"`(?P<name>(?:precision|recall|map|ndcg|ndcg_burges|mrr|hits|hit_rate|r-precision|f1|bpref|"
                        r"rbp)(?:@\d+)?(?:\.\d+)?)(?:-l(?P<level>\d+))?`", re.IGNORECASE)
#: A relevance level the clause sets for the reference: trec_eval's ``-l 2`` (``trec_eval -l 2``, "at `-l 2`"), ranx's
#: ``-l2`` suffix (``ndcg@5-l2``). The measure is then read at that level (``P(rel=2)@5``).
_TREC_LEVEL = re.compile(r"(?<![\w-])-l\s*(?P<level>\d+)\b")
#: ranx's names in ir-measures' notation (ranx's own docs; ``ndcg_burges`` is nDCG with gain 2^g − 1).
_RANX = {"precision": "P", "recall": "R", "map": "AP", "ndcg": "nDCG", "ndcg_burges": "nDCG(dcg='exp-log2')",
         "mrr": "RR", "r-precision": "Rprec", "bpref": "Bpref"}
_CLAUSE = re.compile(r";\s|:\s(?=[a-z])|,\s+(?:and|but|while|whereas)\s+|\s+(?:while|whereas)\s+|\.\s+(?=[A-Z])")


def _measure(clause: str, lib: str) -> tuple[str, int, int] | None:
    """(measure in ir-measures' notation, start, end) the clause names in ``lib``'s notation, or in ir-measures'."""
    import ir_measures

    if lib == "trec_eval":
        found = list(_TREC_NAME.finditer(clause))
        if len(found) == 1:
            try:
                parsed = ir_measures.parse_trec_measure(found[0].group("name"))
            except Exception:  # not a trec_eval measure name
                return None
            return (str(parsed[0]), found[0].start(), found[0].end()) if len(parsed) == 1 else None
    if lib == "ranx":
        found = list(_RANX_NAME.finditer(clause))
        if len(found) == 1:
            name = found[0].group("name").lower()
            root, _, k = name.partition("@")
            if root not in _RANX or "." in k:
                return None
            level = found[0].group("level")
            if level and "(" in _RANX[root]:
                return None   # a level on a measure with its own parameters: not written here
            return (_RANX[root] + (f"(rel={level})" if level else "") + (f"@{k}" if k else ""), found[0].start(),
                    found[0].end())
    from audit.text.scan import METRIC
    from audit.draft.encode import _name, measure_of
    metrics = [m for m in METRIC.finditer(clause) if measure_of(m) is not None]
    if len(metrics) != 1:
        return None
    base, k = measure_of(metrics[0])
    if k == "k":
        return None
    return _name(base, k), metrics[0].start(), metrics[0].end()


#: A clause that says a reference returns the value just printed, without printing it again ("This is also what
#: trec_eval's ndcg_cut.4 reports", "ranx's `ndcg@5` gives the same"), not "the same 0.602" (a value of its own).
_SAME = re.compile(r"\b(?:this|that|it)\s+is\s+(?:also\s+|exactly\s+|likewise\s+)*what\b|"
                   r"\b(?:gives?|returns?|reports?|prints?)\s+(?:also\s+)?(?:exactly\s+)?the\s+same"
                   r"(?:\s+(?:value|number|score|result))?\b(?!\s*(?:\d|as\b|for\b|on\b))", re.IGNORECASE)
#: The implementation ir_measures runs for a measure, named beside it ("ir_measures' ERR@3 runs gdeval"): still
#: ir_measures' value, not another library's.
_PROVIDER = re.compile(r"\b(?:runs|uses|calls|wraps|via|through)\s+`?(?:gdeval|trectools|pytrec_eval|msmarco)`?",
                       re.IGNORECASE)


_STOP = re.compile(r"(?<!\d)\.(?!\d)|\.(?=\s)|\n")


def _last_printed(before: str) -> tuple[str, str] | None:
    """(measure in ir-measures' notation, value) of the last measure value printed in ``before`` — the value a
    following "this is also what … reports" speaks of — or None when its last sentence prints none."""
    from audit.text.scan import METRIC
    from audit.draft.encode import _name, measure_of

    last = None
    for m in METRIC.finditer(before):
        spec = measure_of(m)
        stop = _STOP.search(before, m.end())
        chain = before[m.end():stop.start() if stop else len(before)]
        # the measure's own chain: up to the next measure named or the end of its sentence
        nxt = METRIC.search(chain)
        chain = chain[:nxt.start()] if nxt else chain
        values = re.findall(r"(?:=|≈)\s*(\d+/\d+|\d*\.\d+|\d+)(?![\d/]|\.\d)(?=[^=≈]*$)", chain)
        if spec is not None and spec[1] != "k" and values:
            last = (_name(*spec), values[-1], m.start())
    if last is None or re.search(r"\.\s+\S", before[last[2]:].rstrip()):
        return None   # no value, or sentences since the last one printed
    return last[0], last[1]


def values(sentence: str, example: Example, before: str = "") -> list[dict]:
    """The ``by:`` value claims of ``sentence`` on ``example``'s fixture (one per clause that says what one reference
    returns), or [] when it says none the example determines. ``before``: the text from the example up to the
    sentence, whose last printed value a clause saying the reference returns "the same" (or "this is also what …
    reports") claims, when it is of the measure the clause names."""
    from audit.measures.syntax import parse as parse_measure
    from audit.model.values import parse_claimed
    from audit.errors import AuditError

    from audit.draft.examples.bind import _BACK, _ELSEWHERE, _GENERAL

    if _ELSEWHERE.search(_BACK.sub(" ", _PROVIDER.sub(" ", sentence))) or _GENERAL.search(sentence):
        return []   # another ranking than the example's, a mean over queries, or what a tool does in general
    out = []
    bounds = [0] + [m.end() for m in _CLAUSE.finditer(sentence)] + [len(sentence)]
    clauses: list[str] = []
    for a, b in zip(bounds, bounds[1:]):
        clause = sentence[a:b]
        if (clauses and not any(p.search(clause) for _, p in _REFERENCES)
                and (not _names_measure(clause) or not _names_measure(clauses[-1]))
                and any(p.search(clauses[-1]) for _, p in _REFERENCES) and not _SAYS.search(clauses[-1])):
            clauses[-1] += clause   # "ir_measures' ERR@3 runs gdeval, which …, and gives 0.30599": one clause
        else:
            clauses.append(clause)
    for clause in clauses:
        libs = [name for name, pattern in _REFERENCES if pattern.search(clause)]
        if len(libs) != 1:
            continue
        levels = {m.group("level") for m in _TREC_LEVEL.finditer(clause)} if libs == ["trec_eval"] else set()
        # an option the reference is run with that changes its call, other than one relevance level (read below)
        rest = _TREC_LEVEL.sub(" ", clause) if len(levels) == 1 else _RANX_NAME.sub(" ", clause) if libs == ["ranx"] \
            else clause
        if _OPTIONS.search(rest):
            continue
        if _OTHERS.search(_PROVIDER.sub(" ", clause) if libs[0] == "ir_measures" else clause):
            continue
        found = _measure(clause, libs[0])
        if found is None:
            continue
        measure, _, end = found
        if levels and "(" not in measure:
            measure = re.sub(r"^(\w+)", lambda m: f"{m.group(1)}(rel={next(iter(levels))})", measure)
        elif levels:
            continue
        derived = ""
        says = list(_SAYS.finditer(clause, end))
        verbs = [m for m in says if m.group("v")]
        if len(verbs) == 1:
            value = verbs[0].group("v")   # "divides by |R| = 3 and gives 1/3": the verb's value, not |R|'s
        elif not verbs and len(says) == 1:
            value = says[0].group("v2")
        elif not says and (left := _LEAVES.match(clause, end)) and re.search(r"\bleaves?\b", clause[:end]):
            value = left.group("v")   # "`-l 2` leaves trec_eval's `ndcg_cut.5` at 0.5443"
        elif not says and _SAME.search(clause) and (printed := _last_printed(before)) and printed[0] == measure:
            value = printed[1]   # the value just printed, which the reference is said to return too
            derived = f"the value the text prints just before for {measure}, {value}"
        else:
            continue
        try:
            spec = parse_measure(measure)[0]
            parse_claimed(value)
        except AuditError:
            continue
        if example.missing(spec.NAME, spec.params.get("cutoff")):
            continue
        fixture, _ = example.fixture()
        if fixture is None:
            continue
        quote = clause.strip(" ,.;:")
        # the example's queries, printed together: what the reference returns is their mean
        over = {"aggregate": "mean"} if len(fixture["run"]) > 1 else {}
        out.append({"kind": "value", "quote": quote, "claim": f"{libs[0]} returns {measure} = {value} on the worked "
                    f"example ({example.describe()}{', the mean over its queries' if over else ''})", "fixture": fixture,
                    "expect": [{"measure": measure, "claimed": value, "by": libs[0], **over,
                                **({"derived": derived} if derived else {})}], "on example": True})
    return out


#: The value a clause "leaves <the reference's measure> at": right after the measure's name.
_LEAVES = re.compile(r"`?\s+at\s+(?P<v>\d+/\d+|\d*\.\d+|[01])(?!\d|[./]\d)")


def _names_measure(clause: str) -> bool:
    from audit.text.scan import METRIC
    return bool(METRIC.search(clause) or _TREC_NAME.search(clause) or _RANX_NAME.search(clause))


_TREC_LINE = re.compile(r"^\s*(?P<name>[A-Za-z][\w.]*)\s+(?P<query>all|[\w.-]+)\s+(?P<v>-?\d+(?:\.\d+)?)\s*$")


#: trec_eval's names that ir-measures' parser does not read, in ir-measures' notation.
_UNPARSED = {"gm_map": ["GMAP"]}


def trec_eval_line(line: str, example: Example) -> list[dict]:
    """A line of trec_eval's output printed in the text (``map  all  0.7904``) as a value claim ``by: trec_eval`` on
    the worked example, when the example is one query and determines the measure; [] otherwise (a count of queries,
    a name trec_eval's notation does not parse, a query the example does not hold)."""
    import ir_measures
    from audit.measures.syntax import parse as parse_measure
    from audit.errors import AuditError

    m = _TREC_LINE.match(line)
    fixture, _ = example.fixture()
    if m is None or fixture is None or len(fixture["run"]) != 1 or m.group("name") in ("num_q", "runid"):
        return []
    try:
        parsed = _UNPARSED.get(m.group("name")) or ir_measures.parse_trec_measure(m.group("name"))
        if len(parsed) != 1:
            return []
        measure = str(parsed[0])
        spec = parse_measure(measure)[0]
    except (AuditError, Exception):  # a name trec_eval's notation does not read
        return []
    if example.missing(spec.NAME, spec.params.get("cutoff")):
        return []
    return [{"kind": "value", "quote": line.strip(), "claim": f"trec_eval prints {measure} = {m.group('v')} on the "
             f"worked example ({example.describe()})", "fixture": fixture,
             "expect": [{"measure": measure, "claimed": m.group("v"), "by": "trec_eval"}], "on example": True}]


#: A section that changes the example's judgements or adds queries to it ("Regrade topic 401: …", "Add three
#: topics."): what its sentences print is not the example's as the text first gave it.
_CHANGED = re.compile(r"\bre-?(?:grad|judg|label|assess)\w*|\badd(?:s|ed|ing)?\s+(?:\w+\s+){0,2}(?:topics|queries|"
                      r"judgements|judgments)\b", re.IGNORECASE)
#: How a clause that names a trec_eval measure gives its value: ``name = V``, ``name is V``, a count in parentheses
#: at the clause's end ("num_rel counts the documents judged relevant in the qrels (10)"), or the one value a
#: description ends on ("iprec_at_recall_0.00 is the best precision anywhere in the list, 9/10 at rank 10").
_NAMED_VALUE = re.compile(r"^\s*(?:=|is|are)\s+(?P<v>\d+/\d+|\d*\.\d+|\d+)(?![\w./]|\s*[-+*×·/(])"
                          r"|\((?:all\s+|only\s+)?(?P<p>\d+)\)\s*$"
                          r"|^\s*is\s+[^,\d]{3,80},\s+(?P<d>\d+/\d+|\d*\.\d+)\s+at\s+rank\s+\d+\s*$", re.IGNORECASE)
#: The same measure at another recall level, said of "it" in the next clause ("at recall 1.00 it is 10/12").
_AT_RECALL = re.compile(r"^\s*(?:and\s+)?at\s+recall\s+(?P<l>[01](?:\.\d+)?)\s*,?\s*(?:it\s+is|it's|it\s+comes\s+to)\s+"
                        r"(?P<v>\d+/\d+|\d*\.\d+|[01])\s*[.;]?\s*$", re.IGNORECASE)
_WHOLE = {"NumRel", "NumRet", "NumRelRet"}
#: trec_eval's options that change what it computes (``-m`` only picks measures, ``-q`` prints each query).
_CHANGES_CALL = re.compile(r"(?<![\w-])-[lcJM](?:\s*\d+)?\b|\b(?:judged_only|relevance_level|make_comparable)\b")


def trec_eval_names(sentence: str, example: Example, before: str) -> list[dict]:
    """Value claims ``by: trec_eval`` for the clauses of ``sentence`` that name one measure in trec_eval's notation
    (``num_rel``, ``iprec_at_recall_0.00``, ``P_30``) and give its value, on the worked example, when the text has
    named trec_eval since the example began (``before``: the text from the example to the sentence) and nothing
    there changes the example (a regrade, added queries, an option such as ``-l 2``); [] otherwise. A clause that
    supposes another ranking, or a sentence naming another library or a query, gives none."""
    import ir_measures
    from audit.measures.syntax import parse as parse_measure
    from audit.model.values import parse_claimed
    from audit.errors import AuditError

    from audit.draft.examples.bind import _ELSEWHERE, _GENERAL, _QUERY_ID

    if (not _REFERENCES[0][1].search(before + sentence) or _CHANGED.search(before) or _CHANGES_CALL.search(before)
            or _OPTIONS.search(sentence) or _OTHERS.search(sentence) or _GENERAL.search(sentence)
            or any(p.search(sentence) for _, p in _REFERENCES[1:]) or _QUERY_ID.search(sentence)):
        return []
    fixture, _ = example.fixture()
    if fixture is None or len(fixture["run"]) != 1:
        return []
    out, last = [], None
    bounds = [0] + [m.end() for m in _CLAUSE.finditer(sentence)] + [len(sentence)]
    for a, b in zip(bounds, bounds[1:]):
        clause = re.sub(r"(?:,\s*(?:and|but|while|whereas))?[\s.;:]*$", "", sentence[a:b].strip())
        clause = re.sub(r"^[-*]\s+", "", clause)
        if _ELSEWHERE.search(clause):
            last = None
            continue
        names = list(_TREC_NAME.finditer(clause))
        value, measure = None, None
        if len(names) == 1 and re.fullmatch(r"[\w.]*_[\w.]*|map|bpref|Rprec", names[0].group("name")):
            try:
                parsed = ir_measures.parse_trec_measure(names[0].group("name"))
            except Exception:   # a name trec_eval's notation does not read
                parsed = []
            if len(parsed) == 1:
                measure = str(parsed[0])
                m = _NAMED_VALUE.search(clause[names[0].end():])
                value = m and (m.group("v") or m.group("p") or m.group("d"))
        elif not names and last is not None and last.startswith("IPrec@"):
            m = _AT_RECALL.match(clause)
            if m:
                level = float(m.group("l"))
                measure, value = f"IPrec@{level:.1f}", m.group("v")
        last = measure
        if not value or not measure:
            continue
        try:
            spec = parse_measure(measure)[0]
            parse_claimed(value)
        except AuditError:
            continue
        if "/" not in value and "." not in value and spec.NAME not in _WHOLE:
            continue   # a whole number beside a measure that is a fraction: a count the clause speaks of, not its value
        if example.missing(spec.NAME, spec.params.get("cutoff")):
            continue
        out.append({"kind": "value", "quote": clause, "claim": f"trec_eval gives {measure} = {value} on the worked "
                    f"example ({example.describe()})", "fixture": fixture,
                    "expect": [{"measure": measure, "claimed": value, "by": "trec_eval"}], "on example": True})
    return out
