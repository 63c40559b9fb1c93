"""A run printed in TREC format in a code block (``q1 Q0 p5 1 14.2 tag``: query, the literal Q0, document, rank,
score, run tag) with the judgements told in a bulleted list after it, one bullet per query ("q1: p1 is the one
relevant passage; p5, p8 and p3 were judged non-relevant", "all twelve returned passages were judged, and only the
last, s12, is relevant", "t1 and t2 are relevant, t4 is not, and a third relevant passage, t6, was never retrieved",
"q4 was judged (one relevant passage, w1), but the run file has no line for it"), as postmortems and evaluation
notes set out the run they dissect. The example holds every query (``Example.queries``): the run in file order with
the file's scores (a tie stays a tie, so each reference breaks it its own way), and the qrels the bullets state.

A line standing for elided lines ("... s02 to s11, the score dropping by 0.6 each line ...") is read only when it
determines them: a range of IDs that continues the line before and runs up to the line after, ranks that leave no
gap, and a stated step of the score. Otherwise the example asks the author for the lines (``Example.conflict``).
The judgements are read only when every retrieved document of every query is judged, each document is given one
grade, and a judged query the run does not hold is said to be missing from it.

The statements about the example (``values``) print what a reference returns ("trec_eval's P_10 for q3 is 0.2",
"ranx's `mrr@10` over all four judged queries is 0.375": ``by:`` that reference) or a value the text states for
itself ("Recall at ten is 2/3" under "## q3: …"); a query is the one the clause or sentence names, else the one
its section's heading names ("## q1: …"), else the value is the mean over the queries.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from audit.draft.examples.example import Example

_FENCE = re.compile(r"^(```|~~~)[^\n]*\n(?P<body>.*?)^\1", re.MULTILINE | re.DOTALL)
_NUMBER = r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"
_LINE = re.compile(rf"^\s*(?P<q>[\w.-]+)\s+(?:Q0|q0|0)\s+(?P<d>[\w.-]+)\s+(?P<r>\d+)\s+(?P<s>{_NUMBER})\s+(?P<tag>\S+)\s*$")
_ELIDED = re.compile(r"^\s*(?:\.\.\.|…)\s*(?P<body>.*?)\s*(?:\.\.\.|…)?\s*$")
_RANGE = re.compile(r"^(?P<a>[A-Za-z_-]*\d+)\s+(?:to|through|–|-)\s+(?P<b>[A-Za-z_-]*\d+)\b")
_STEP = re.compile(rf"\bscores?\s+(?:dropping|falling|decreasing|going\s+down|lower)\s+by\s+(?P<x>{_NUMBER})\s+"
                   r"(?:on\s+)?(?:each|every|per|a)\s+(?:line|rank|row|position)\b", re.IGNORECASE)
_SPLIT_ID = re.compile(r"^(?P<p>[A-Za-z_-]*?)(?P<n>\d+)$")

ASK_ELIDED = ("the run file's elided line ({line}) does not state {what}: which documents, ranks and scores does it "
              "stand for?")


def _ids(a: str, b: str) -> list[str] | None:
    """The IDs from ``a`` to ``b`` ("s02" to "s11"), when both have one prefix and digits of one width."""
    ma, mb = _SPLIT_ID.match(a), _SPLIT_ID.match(b)
    if not (ma and mb) or ma.group("p") != mb.group("p") or len(ma.group("n")) != len(mb.group("n")):
        return None
    lo, hi, width = int(ma.group("n")), int(mb.group("n")), len(ma.group("n"))
    if not 1 <= hi - lo + 1 <= 1000:
        return None
    return [f"{ma.group('p')}{n:0{width}d}" for n in range(lo, hi + 1)]


def _next_id(doc: str, step: int) -> str | None:
    m = _SPLIT_ID.match(doc)
    if not m:
        return None
    n = int(m.group("n")) + step
    return f"{m.group('p')}{n:0{len(m.group('n'))}d}" if n >= 0 else None


def _lines(body: str) -> tuple[list[tuple[str, str, int, Decimal]] | None, str]:
    """The run's lines (query, document, rank, score) with every elided line spelled out; (None, "") when the block
    is not a run, (None, question) when an elided line does not determine the lines it stands for."""
    rows: list = []
    pending: list[str] = []   # elided lines waiting for the line after them
    for raw in body.splitlines():
        if not raw.strip():
            continue
        m = _LINE.match(raw)
        if m:
            try:
                score = Decimal(m.group("s"))
            except InvalidOperation:
                return None, ""
            row = (m.group("q"), m.group("d"), int(m.group("r")), score)
            if pending:
                filled, asked = _fill(pending.pop(), rows[-1] if rows else None, row)
                if filled is None:
                    return None, asked
                rows.extend(filled)
            rows.append(row)
            continue
        if _ELIDED.match(raw) and rows and not pending:
            pending.append(raw.strip())
            continue
        return None, ""
    if pending or len(rows) < 2:
        return (None, ASK_ELIDED.format(line=pending[0], what="the line after it")) if pending and rows else (None, "")
    return rows, ""


def _fill(line: str, before, after) -> tuple[list | None, str]:
    """The lines an elided line stands for, between the lines ``before`` and ``after`` of one query."""
    body = _ELIDED.match(line).group("body")
    span = _RANGE.match(body)
    if before is None or span is None:
        return None, ASK_ELIDED.format(line=line, what="the range of documents it stands for")
    ids = _ids(span.group("a"), span.group("b"))
    if (ids is None or before[0] != after[0] or _next_id(before[1], 1) != ids[0] or _next_id(after[1], -1) != ids[-1]
            or after[2] != before[2] + len(ids) + 1):
        return None, ASK_ELIDED.format(line=line, what="a range of documents and ranks that runs from the line "
                                                           "before it to the line after it")
    step = _STEP.search(body)
    if step is None:
        return None, ASK_ELIDED.format(line=line, what="the scores of its lines")
    drop = Decimal(step.group("x"))
    rows = [(before[0], d, before[2] + i, before[3] - drop * i) for i, d in enumerate(ids, 1)]
    if rows[-1][3] < after[3]:
        return None, ASK_ELIDED.format(line=line, what="scores that stay above the line after it")
    return rows, ""


#: A bullet of the judgements: "- q1: …", "- q4 was judged …".
_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+(?P<body>\S.*(?:\n(?![ \t]*[-*+][ \t])(?![ \t]*\n)[ \t]*\S.*)*)", re.MULTILINE)
_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
_NEGATIVE = re.compile(r"\bnon-?relevant\b|\bnot\s+relevant\b|\birrelevant\b|\b(?:is|are|was|were)\s+not\b(?!\s+\w*\s*relevant)",
                       re.IGNORECASE)
_POSITIVE = re.compile(r"\brelevant\b", re.IGNORECASE)
_PIECES = re.compile(r";|\.\s+|:\s+|,\s+(?:and|but)\s+|\s+but\s+|,\s+(?=[A-Za-z_-]*\d+\s+(?:is|are|was|were)\b)|\(|\)")
_ALL_JUDGED = re.compile(r"\b(?:all|every|each)\b[^.;]{0,40}?\b(?:returned|retrieved)\b[^.;]{0,30}?\b(?:were|was|are|is)\s+"
                         r"judged\b", re.IGNORECASE)
_ONLY = re.compile(r"\bonly\b|\bthe\s+one\s+relevant\b|\bthe\s+only\s+relevant\b", re.IGNORECASE)
_NO_RUN = re.compile(r"\b(?:no\s+(?:line|lines|results?|entry|entries)|not\s+in\s+the\s+run|missing\s+from\s+the\s+run|"
                     r"returned\s+nothing|nothing\s+(?:came\s+back|was\s+returned))\b", re.IGNORECASE)


def _judgements(part: str, run: dict[str, list[str]]) -> dict[str, dict[str, int]] | None:
    """The qrels the bullets of ``part`` state, each query's retrieved documents all judged; None when they give a
    document two grades or name one without a judgement; ``_Unstated`` when they leave a retrieved document
    unjudged."""
    qrels: dict[str, dict[str, int]] = {}
    missing: set[str] = set()
    ids = re.compile(r"\b[A-Za-z_-]*\d+[A-Za-z]?\b")
    for bullet in _BULLET.finditer(part):
        body = " ".join(bullet.group("body").split())
        head = re.match(r"(?P<q>[\w.-]+)(?::|\s+(?:was|is|were|has|had)\b)", body)
        if head is None:
            continue
        q = head.group("q")
        if q in qrels:
            return None
        grades: dict[str, int] = {}
        for piece in _PIECES.split(body[head.end():]):
            docs = [d for d in ids.findall(piece) if d not in run and d != q and not re.fullmatch(r"\d+", d)]
            if not docs:
                continue
            if _NEGATIVE.search(piece):
                grade = 0
            elif _POSITIVE.search(piece):
                grade = 1
            else:
                return None   # documents named without a judgement
            for d in docs:
                if grades.get(d, grade) != grade:
                    return None
                grades[d] = grade
        if not grades:
            continue
        retrieved = run.get(q)
        if retrieved is None:
            if not _NO_RUN.search(body):
                return None
            missing.add(q)
        elif _ALL_JUDGED.search(body) and _ONLY.search(body):
            for d in retrieved:
                grades.setdefault(d, 0)   # every retrieved document judged, only the named ones relevant
        qrels[q] = grades
    if not qrels:
        return None
    unjudged = [f"{q}: " + ", ".join(d for d in docs if d not in qrels.get(q, {})) for q, docs in run.items()
                if any(d not in qrels.get(q, {}) for d in docs)]
    if unjudged:
        raise _Unstated(f"the judgements after the run file do not judge every retrieved document ({'; '.join(unjudged)}):"
                        " is each judged, and relevant or not?")
    return qrels


class _Unstated(Exception):
    """The bullets judge some queries and leave retrieved documents without a judgement: the question to ask."""


def find(text: str) -> list[Example]:
    """Each code block printing a run in TREC format, with the judgements of every query in the bullets after it
    (up to the next heading), as an example of all its queries."""
    out = []
    for block in _FENCE.finditer(text):
        rows, asked = _lines(block.group("body"))
        start, end = block.start("body"), block.end("body")
        line = text.count("\n", 0, start) + 1
        if rows is None:
            if asked:
                out.append(Example("run file", start, end, line, [], whole=False, conflict=asked))
            continue
        run: dict[str, list[str]] = {}
        scores: dict[str, dict[str, float]] = {}
        for q, d, _, s in rows:
            if d in scores.get(q, {}):
                break   # a document listed twice: the references disagree on it; not read
            run.setdefault(q, []).append(d)
            scores.setdefault(q, {})[d] = float(s)
        else:
            after = block.end()
            heading = _HEADING.search(text, after)
            stop = heading.start() if heading else len(text)
            try:
                qrels = _judgements(text[after:stop], run)
            except _Unstated as asked:
                out.append(Example("run file", start, end, line, [], whole=False, conflict=str(asked)))
                continue
            if qrels is None:
                continue
            stop = max((m.end() for m in _BULLET.finditer(text, after, stop)), default=after)
            fixture = {"qrels": qrels, "run": {q: run.get(q, []) for q in qrels}, "scores": scores}
            first = next(iter(run))
            ranking = [(d, qrels[first].get(d)) for d in run[first]]
            out.append(Example("run file", start, stop, line, ranking, whole=True, queries=fixture))
    return out


_VALUE = r"(?P<v>\d+/\d+|\d*\.\d+|\d+)(?!\w|[./]\d)"
#: The words that give a measure's value after its name: "is 0.2", "= 1", "gives 0.375", "of 1/2", "averages to
#: 0.5", "would be the same 0.375", or the bare value ("reciprocal rank 0.5"); the query ("for q3") and the queries
#: ("over all four judged queries") may come between.
_SAYS = re.compile(rf"(?:\s+for\s+\w+\b)?(?:\s+without\s+a\s+cutoff)?"
                   rf"(?:\s+over\s+(?:all\s+|the\s+)?(?:[\w-]+\s+){{0,3}}quer(?:y|ies)\b)?\s*"
                   rf"(?:\b(?:is|are|was|were|gives?|returns?|reports?|prints?|yields?|comes\s+to|"
                   rf"averages?(?:\s+out)?\s+to|of|(?:would|will)\s+be(?:\s+the\s+same)?|scores?)\b|=)?\s*"
                   rf"(?:(?:therefore|thus|then|also|still|about|exactly|only)\s+)?{_VALUE}(?:\s+for\s+(?P<q>\w+))?",
                   re.IGNORECASE)
#: A sentence about another ranking than the run's, or about every ranking.
_ELSEWHERE = re.compile(r"\b(?:if|suppose|imagine|swap\w*|mov(?:e|es|ed|ing)|nudg\w*|rais\w*|lower\w*|remov\w*|"
                        r"keep\w*|kept|drop(?:s|ped)?|dropping(?!\s+by)|instead\s+of|always|whenever|any|"
                        r"in\s+general)\b", re.IGNORECASE)
_MEAN_WORDS = re.compile(r"\b(?:mean|average[sd]?|averaging|over\s+(?:all\s+|the\s+)?(?:\w+\s+){0,2}quer(?:y|ies)|"
                         r"quer(?:ies))\b", re.IGNORECASE)
_QUERY_HEADING = re.compile(r"^#{1,6}[ \t]+(?:query\s+|topic\s+)?(?P<q>[\w.-]+)\s*(?::|—|–|\s-\s|$)", re.IGNORECASE | re.MULTILINE)
_TWICE = re.compile(r"\b(?:twice|two\s+lines|again\s+at\s+rank|duplicate[sd]?)\b", re.IGNORECASE)


def _changed(part: str, fixture: dict) -> str:
    """The words in ``part`` that put a document of the run at another rank or score than the run's, or list it
    twice ("wrote t1 twice for q3", "Nudging p1's score up to 14.2000001"): what follows speaks of another run."""
    docs = {d: (q, i, fixture["scores"].get(q, {}).get(d)) for q, ranked in fixture["run"].items()
            for i, d in enumerate(ranked, 1)}
    if not docs:
        return ""
    names = "|".join(map(re.escape, sorted(docs, key=len, reverse=True)))
    for m in re.finditer(rf"\b(?P<d>{names})\b(?P<rest>[^.;]{{0,80}})", part):
        q, rank, score = docs[m.group("d")]
        rest = m.group("rest")
        if _TWICE.search(rest):
            return m.group(0)
        at = re.match(rf"(?:'s)?\s+score\s+(?:\w+\s+)?to\s+(?P<s>{_NUMBER})", rest)
        if at and score is not None and float(at.group("s")) != score:
            return m.group(0)
        ranked = re.match(r"[^.;]{0,20}?\bat\s+rank\s+(?P<r>\d+)", rest)
        if ranked and int(ranked.group("r")) != rank:
            return m.group(0)
    return ""


def _paragraph(text: str, start: int, end: int) -> str:
    """The paragraph or list item around ``text[start:end]``."""
    a = max(text.rfind("\n\n", 0, start), text.rfind("\n- ", 0, start), text.rfind("\n* ", 0, start)) + 1
    cut = [i for i in (text.find("\n\n", end), text.find("\n- ", end), text.find("\n* ", end)) if i >= 0]
    return text[a:min(cut) if cut else len(text)]


def _tools(text: str) -> tuple[list[str], bool]:
    """The references ``text`` names, and whether it names any other implementation."""
    from audit.draft.examples.by_reference import _OTHERS, _REFERENCES
    refs = [name for name, pattern in _REFERENCES if pattern.search(text)]
    return refs, bool(_OTHERS.search(text))


def _said_measure(clause: str) -> tuple[str, int, int] | None:
    """The one measure of ``clause`` (in ir-measures' notation or in words) whose value follows its name, with where
    the name stands; None when none or several do."""
    from audit.draft.encode import _name, measure_of
    from audit.text.scan import METRIC
    found = []
    for m in METRIC.finditer(clause):
        spec = measure_of(m)
        if spec is not None and spec[1] != "k" and _SAYS.match(clause, m.end()):
            found.append((_name(*spec), m.start(), m.end()))
    return found[0] if len(found) == 1 else None


#: What each reference does by default where a run read from a file leaves it open (docs/conventions.md, "What each
#: reference does"): the tie rules trec_eval, ir-measures' two providers and ranx follow, and over which queries
#: trec_eval (queries with results) and the others (every judged query) average.
_REFERENCE_READINGS = [{"ties": ties, "averaging": averaging}
                       for ties in ("docno descending", "docno ascending", "listed order")
                       for averaging in ("queries with results", "all judged queries")]


def _reference_default(measure: str, fixture: dict, query: str | None, claimed: str) -> bool:
    """Whether some reference's default gives ``claimed`` for ``measure`` on ``fixture`` (``query``'s value, or the
    mean over the queries): a value none gives is either the text's finding or a reading it states elsewhere (a
    tool's option, a short list divided by what it returns), which init cannot tell apart."""
    from audit.evaluation.definitions import DEFAULT_READING
    from audit.evaluation.evaluator import aggregate
    from audit.measures.syntax import parse as parse_measure
    from audit.model.values import parse_claimed

    _, spec = parse_measure(measure)
    if spec is None:
        return False
    qrels, run, scores = fixture["qrels"], fixture["run"], fixture.get("scores")
    if query is not None:
        qrels, run = {query: qrels[query]}, {query: run.get(query, [])}
    value = parse_claimed(claimed)
    for reading in _REFERENCE_READINGS:
        try:
            got = aggregate(spec, qrels, run, {**DEFAULT_READING, **reading}, scores)
        except Exception:  # a reading that does not apply to this fixture
            continue
        if got is not None and value.contains(got):
            return True
    return False


_CLOSING = re.compile(rf"\b(?:scores?|reaches|gets|comes\s+to)\s+{_VALUE}\s*\.?\s*$", re.IGNORECASE)


def _closing(clause: str) -> tuple | None:
    """The one measure of ``clause`` and the value the clause closes on ("MRR@10 with every judged query counted, the
    reranker scores 0.375"), when the clause names one measure and prints no other number after it; None otherwise."""
    from audit.draft.encode import _name, measure_of
    from audit.text.scan import METRIC
    metrics = [m for m in METRIC.finditer(clause) if measure_of(m) is not None]
    end = _CLOSING.search(clause)
    if len(metrics) != 1 or end is None or measure_of(metrics[0])[1] == "k":
        return None
    between = clause[metrics[0].end():end.start()]
    if re.search(r"\d", between):
        return None
    return _name(*measure_of(metrics[0])), metrics[0].start(), metrics[0].end(), end


def values(s, example: Example, text: str) -> tuple[list[dict], str]:
    """Value claims for the measures statement ``s`` gives a value of on the run's queries (see the module doc),
    and the question a draft asks when it leaves the fixture open."""
    from audit.draft.examples.by_reference import _CLAUSE, _OPTIONS, _measure
    from audit.draft.encode_fixtures import over_queries
    from audit.errors import AuditError
    from audit.measures.syntax import parse as parse_measure
    from audit.model.values import parse_claimed
    from audit.text.scan import METRIC

    fixture = example.queries
    sentence = s.text
    if not fixture or _ELSEWHERE.search(sentence):
        return [], ""
    headings = [m.start() for m in _HEADING.finditer(text, 0, s.start) if m.start() >= example.end]
    section = headings[-1] if headings else example.end
    changed = _changed(text[section:s.start], fixture)
    if changed:
        return [], (f"the text changes the run before this statement (“{' '.join(changed.split())}”): encode the run "
                    "it speaks of as its own fixture")
    queries = list(fixture["qrels"])
    heading = _QUERY_HEADING.match(text, section) if headings else None
    own_query = heading.group("q") if heading and heading.group("q") in queries else None
    refs, others = _tools(sentence)
    if not refs and not others:
        around = _paragraph(text, s.start, s.end)
        refs, others = _tools(around)
        if len(refs) > 1 or others:
            return [], ""   # the paragraph speaks of several implementations: whose value this is stays open
    elif others or len(refs) > 1:
        refs = [] if others else refs
    named_q = re.compile(r"\b(?:" + "|".join(map(re.escape, queries)) + r")\b")
    in_sentence = set(named_q.findall(sentence))
    out, asked = [], ""
    bounds = [0] + [m.end() for m in _CLAUSE.finditer(sentence)] + [len(sentence)]
    for a, b in zip(bounds, bounds[1:]):
        clause = sentence[a:b]
        libs, other = _tools(clause)
        if other or len(libs) > 1 or _OPTIONS.search(clause) or (not libs and len(refs) > 1):
            continue
        lib = libs[0] if libs else (refs[0] if len(refs) == 1 and (others is False) else None)
        if lib is None and (refs or others):
            continue
        found = _measure(clause, lib) if lib else None
        if found is None:
            found = _said_measure(clause) or (None if lib else _closing(clause))
        if found is None:
            continue
        measure, m_start, m_end = found[:3]
        said = _SAYS.match(clause, m_end) if len(found) == 3 else found[3]
        if said is None:
            continue
        value = said.group("v")
        metric = next(iter(METRIC.finditer(clause[m_start:m_end])), None)
        mean_named = bool(metric and over_queries(metric)) or bool(re.search(r"`(?:mrr|map)(?:@\d+)?`", clause))
        in_span = set(named_q.findall(clause, 0, said.end()))   # up to the value: "ranx gives q1 … of 1/2"
        if len(in_span) > 1 or (not in_span and not mean_named and len(in_sentence) > 1):
            continue
        query = next(iter(in_span), None)
        if query is None and not mean_named and not _MEAN_WORDS.search(sentence):
            query = next(iter(in_sentence), None) or own_query
        try:
            spec = parse_measure(measure)[0]
            parse_claimed(value)
        except AuditError:
            continue
        if spec.NAME not in ("P", "R", "RR", "AP", "nDCG", "Success", "Rprec", "NumRet", "NumRel", "NumRelRet", "Judged"):
            continue
        if not lib and not _reference_default(measure, fixture, query, value):
            asked = (f"{measure} = {value}" + (f" for {query}" if query else "") + " is what no reference gives on the "
                     "run by default: under which reading (a convention the text states, with its quote) does the text "
                     "read it?")
            continue
        expect = {"measure": measure, **({"query": query} if query else {"aggregate": "mean"}), "claimed": value}
        if lib:
            expect["by"] = lib
        quote = clause[m_start:m_end + said.end() - m_end] if not lib else clause.strip(" ,.;:")
        out.append({"kind": "value", "quote": quote.strip(" ,.;:"), "claim": (f"{lib} returns " if lib else "")
                    + f"{measure} = {value}" + (f" for {query}" if query else " over the queries")
                    + f" on the run ({example.describe()})", "fixture": fixture, "expect": [expect],
                    "on example": True})
    return out, asked
