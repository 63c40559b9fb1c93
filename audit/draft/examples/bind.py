"""The one place statements meet worked examples: facts are attached to the example they describe (``attach``),
each statement is bound to the example it follows until the text starts another (``bound``), and its printed
values are drafted on that example's fixture when the example determines the measure (``values``), else the draft
asks the author for the missing fact."""

from __future__ import annotations

import re
from functools import lru_cache

from audit.draft.examples.example import Example, describe_grades

_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)
#: Sentences that speak of another ranking than the example's: a hypothetical, a change, other queries or systems,
#: a mean over queries.
_ELSEWHERE = re.compile(r"\b(?:would|if|suppose|imagine|instead|perfect|swap\w*|mov(?:e|es|ed|ing)|another|"
                        r"flip\w*|revers\w*|reorder\w*|shuffl\w*|condens\w*|dropping|removing|"
                        r"other|second\s+(?:query|system|run|ranking)|mean|across|queries|topics|systems|runs)\b",
                        re.IGNORECASE)
_MEANS = {"MAP", "MRR", "GMAP"}
#: A statement about every ranking ("any list whose grades are in descending order scores 1"): a property, not the
#: example's value.
_GENERAL = re.compile(r"\b(?:any|every|always|never|whenever|in\s+general)\b", re.IGNORECASE)


def _tool():
    from audit.draft.encode import _LIBRARIES
    return re.compile(rf"\b(?:{_LIBRARIES}|tool|library|package|implementation)\b", re.IGNORECASE)


_TOOL = _tool()


#: A sentence that turns to a ranking no parser reads ("Flip it:", "For the reversed list:", "Now take another
#: query"): the statements after it are not the earlier example's.
_NEW_RANKING = re.compile(r"\b(?:flip\w*|revers\w*|reorder\w*|shuffl\w*|swap\w*|another\s+(?:list|ranking|query|system|run)|"
                          r"(?:second|third|next|other)\s+(?:list|ranking|query|system|run)|suppose|imagine|"
                          # a change to the example's judgements or queries ("Regrade topic 401: …", "Add three topics.")
                          r"re-?(?:grad|judg)\w*|add(?:s|ed)?\s+(?:\w+\s+){0,2}(?:topics|queries))\b", re.IGNORECASE)
#: The ideal said to be the ranking's own grades sorted ("the ideal list is simply those four grades sorted from best
#: to worst", "its ideal is itself", "already in ideal order").
_IDEAL_OWN = re.compile(r"\bideal\b[^.]{0,80}?\b(?:(?:those|these|the\s+same|its\s+own|the\s+list's)\s+(?:\w+\s+)?grades\s+"
                        r"sorted|is\s+itself|sorted\s+from\s+best\s+to\s+worst)\b|\balready\s+in\s+ideal\s+order\b",
                        re.IGNORECASE)


@lru_cache(maxsize=8)
def _parts(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Where a part of the text begins that the example before it may not reach: the headings outside listings, and
    the sentences turning to another ranking than the examples the parsers read."""
    from audit.text.listings import find_listings
    from audit.text.scan import units
    code = {n for listing in find_listings(text) for n in range(listing.start, listing.end + 1)}
    headings = tuple(m.start() for m in _HEADING.finditer(text) if text.count("\n", 0, m.start()) + 1 not in code)
    turns = tuple(u.start for u in units(text) if u.kind in ("sentence", "item")
                  and _NEW_RANKING.search(text[u.start:u.end]))
    return headings, turns


def _headings(text: str) -> tuple[int, ...]:
    headings, turns = _parts(text)
    return tuple(sorted(headings + turns))


#: An example the text calls its running example: later sections go on using it.
_RUNNING = re.compile(r"\brunning\s+example\b|\bthroughout\b|^\s*#{1,6}\s*(?:the\s+)?(?:setup|set-up|example|worked\s+example|"
                      r"our\s+example|example\s+data|inputs?(?:\s+for\s+today)?|data)\s*$", re.IGNORECASE | re.MULTILINE)
#: Words that speak of the ranking the text already printed ("the relevant documents in our list sit at ranks 1, 3
#: and 5", "in our example"): a later section that uses them goes on with that example.
_OURS = re.compile(r"\b(?:our|the\s+same|the\s+running|the\s+worked)\s+(?:list|ranking|example|run|result\s+list)\b",
                   re.IGNORECASE)


def _running(text: str, e: Example) -> bool:
    """Whether ``e`` is the text's running example: said so in its own section before it or in its sentence ("our
    running example", "these rules hold throughout"), or set out under a heading of its own ("## Setup"). A run file
    printed in TREC format is the text's data: the sections after it take its queries one by one
    ("## q1: the tie")."""
    if e.kind == "run file":
        return True
    headings, _ = _parts(text)
    section = max([h for h in headings if h <= e.start] or [0])
    return bool(_RUNNING.search(text[section:e.end]))


_QUERY_ID = re.compile(r"\b(?:q\d+|(?:topic|query)\s+(?:q?\d+)|(?-i:[A-Z]\d{1,3}))\b", re.IGNORECASE)


def _names_query_of(text: str, e: Example, start: int, end: int) -> bool:
    """Whether the statement at ``text[start:end]`` names the query the example was introduced with ("topic q7 has
    |R| = 5 …" before the table; "so RR = 1 for q7" after a heading)."""
    headings, _ = _parts(text)
    intro = max([h for h in headings if h <= e.start] + [max(0, e.start - 600)])
    ids = {m.group(0).lower().split()[-1] for m in _QUERY_ID.finditer(text, intro, e.end)}
    said = {m.group(0).lower().split()[-1] for m in _QUERY_ID.finditer(text, start, end)}
    return bool(ids) and bool(said) and said <= ids


def _between(headings: list[int], a: int, b: int) -> bool:
    return any(a <= h < b for h in headings)


def _owner(examples: list[Example], headings: list[int], a: int, b: int, text: str) -> Example | None:
    """The example a fact at ``text[a:b]`` speaks of: the one whose region holds it; else the next example when
    nothing but prose without a measure lies between (the fact introduces it); else the example it follows."""
    from audit.text.scan import METRIC
    inside = next((e for e in examples if e.start <= a < e.end), None)
    if inside:
        return inside
    after = next((e for e in examples if e.start >= b), None)
    if after and not _between(headings, b, after.start) and not METRIC.search(text[b:after.start]):
        return after
    before = [e for e in examples if e.end <= a]
    if before and not _between(headings, before[-1].end, a):
        return before[-1]
    return None


def attach(text: str, examples: list[Example]) -> None:
    """Attach to each example what the text states about its query: |R| ("the query has five relevant documents")
    and the ideal's grades ("the ideal order is [3, 3, 2, 1]", ``ideal = sorted(relevance, reverse=True)``). Two
    facts that disagree leave the example undetermined for the measures that need them."""
    from audit.draft.examples import grade_list, positions
    headings = _headings(text)
    for a, b, n, quote in positions.facts(text):
        e = _owner(examples, headings, a, b, text)
        if e is None or _NEW_RANKING.search(quote) and not e.start <= a < e.end:
            continue   # "another query has three relevant documents" is not the example's
        if e.relevant is not None and e.relevant != n:
            e.conflict = (f"the text gives this query {e.relevant} and {n} relevant documents: "
                          "how many relevant documents does this query have?")
        e.relevant = n
        e.facts.append(quote)
    for m in _IDEAL_OWN.finditer(text):
        # before every example (the text's own preamble): the ideal of each; else the example it speaks of
        owners = examples if examples and m.end() <= examples[0].start else [
            _owner(examples, headings, m.start(), m.end(), text)]
        for e in owners:
            if e is not None and e.judged is None:
                e.judged = [g for _, g in e.ranking if g is not None]
                e.facts.append(m.group(0))
    for a, b, grades, quote in grade_list.ideals(text):
        e = _owner(examples, headings, a, b, text)
        if e is None:
            continue
        stated = [g for _, g in e.ranking if g is not None] if isinstance(grades, str) else list(grades)
        if e.judged is not None and sorted(e.judged) != sorted(stated):
            e.conflict = (f"the text gives two ideal rankings for this query ({describe_grades(e.judged)} and "
                          f"{describe_grades(stated)}): which grades do its judged documents have?")
        e.judged = stated
        e.facts.append(quote)
    # one ranking written twice ("at positions 1, 3, 4, 6 and 9" and then "as a relevance vector: 1 0 1 1 0 1 …"):
    # what the text says of one is said of the other
    for first, second in zip(examples, examples[1:]):
        if [g for _, g in first.ranking] == [g for _, g in second.ranking] and not _between(headings, first.start,
                                                                                             second.start):
            for e, other in ((first, second), (second, first)):
                if e.relevant is None and other.relevant is not None:
                    e.relevant, e.facts = other.relevant, e.facts + other.facts
                if e.judged is None and other.judged is not None:
                    e.judged = other.judged


#: A ranking named by the change that made it ("For the flipped list:", "on the reversed ranking"): the example the
#: text introduced with that change ("Flip it to [1, 2, 3, 4]"), wherever it stands.
_BACK = re.compile(r"\bthe\s+(?:(?P<verb>flipped|reversed|reordered|shuffled|swapped)\s+(?:list|ranking|order|run)|"
                   r"(?P<noun>flip|reversal|reordering|shuffle|swap))\b", re.IGNORECASE)


def _introduced_by(text: str, e: Example) -> str:
    """The sentence that introduces example ``e``, up to the end of the example."""
    return text[max(text.rfind("\n\n", 0, e.start), text.rfind(". ", 0, e.start)) + 1:e.end]


def _named(examples: list[Example], text: str, reference: re.Match, before: int) -> Example | None:
    """The example before ``before`` that the text introduced with the change ``reference`` names, when exactly one
    was ("Flip it to [1, 2, 3, 4]" for "the flipped list")."""
    root = (reference.group("verb") or reference.group("noun")).lower()[:4]   # flip, reve, reor, shuf, swap
    named = [e for e in examples if e.end <= before and re.search(rf"\b{root}", _introduced_by(text, e), re.IGNORECASE)]
    return named[0] if len(named) == 1 else None


def bound(examples: list[Example], start: int, end: int, text: str) -> Example | None:
    """The example a statement at ``text[start:end]`` speaks of: the last one begun before it ends, unless a heading
    (for the text's running example, only a sentence turning to another ranking) has begun another part since. A
    statement that names the ranking by the change that made it ("For the flipped list: ERR@4 = …", or after the
    lead-in "For the flipped list:") speaks of the example the text introduced with that change, if exactly one."""
    before = [e for e in examples if e.start < end]
    if not before:
        return None
    e = before[-1]
    headings, turns = _parts(text)
    lead = max([t for t in turns if e.end <= t < start and not _between(list(headings), t, start)] or [start])
    reference = _BACK.search(text, lead, end)
    if reference and not e.start <= reference.start() < e.end:
        return _named(examples, text, reference, lead)
    # a heading ends the example, except the text's running example, which later sections go on using, and in a
    # section that speaks of "our list" before the statement
    section = max([h for h in headings if h <= start] or [0])
    printed = [x for x in before if x.kind != "positions"]
    back = printed[-1] if printed else e
    # the example whose query the statement names ("so RR = 1 for q7"), or, for a running example, whose query its
    # section names ("## Summary for L6"): the text goes back to it past other rankings and turns
    named = next((x for x in reversed(printed or [e]) if _names_query_of(text, x, start, end)
                  or (_running(text, x) and _names_query_of(text, x, section, end))), None)
    if named is not None and (not _running(text, e) or _running(text, named)):
        e = named
        ends = [t for t in turns if t >= section]
    elif _OURS.search(text[section:end]) and not _running(text, e):
        # a section that turns back to "our list": what an earlier section supposed of another query has ended, and
        # the ranking the text printed is the one it speaks of
        e = back
        ends = [t for t in turns if t >= section]
    else:
        ends = turns if _running(text, e) else headings + turns
    if _other_label(text, e, start, end):
        return None
    return None if _between(ends, e.end, start) else e


#: A query's label opening any line of a statement.
_LINE_LABEL = re.compile(r"(?:^|\n)\W{0,3}(?:query|q|topic|question)\s*#?\s*(\d+)\s*[:—–-]", re.IGNORECASE)
#: A query's label opening a line or a statement ("Query 3:", "Q2 —", "topic 401:").
_LABEL = re.compile(r"^\W{0,3}(?:query|q|topic|question)\s*#?\s*(\d+)\s*[:—–-]", re.IGNORECASE)


def _other_label(text: str, e: Example, start: int, end: int) -> bool:
    """Whether the statement opens with another query's label than the line its example was read from ("Query 3: No
    relevant results → RR = 0" after "Query 2: First relevant at rank 3"): it speaks of another query."""
    mine = _LABEL.match(text[start:end])
    if mine is None:
        return False
    theirs = _LABEL.match(text[text.rfind("\n", 0, e.start) + 1:e.end])
    return theirs is not None and theirs.group(1) != mine.group(1)


_LEVEL = r"(?:0?\.\d|[01](?:\.0)?)"
#: Interpolated precision's value over a run of standard recall levels, in prose: "is 1 at every standard recall
#: level from 0.0 up to 0.5", "then 0.75 at the levels 0.6 and 0.7", "and 0.27 from 0.8 to 1.0".
_IPREC_RUN = re.compile(rf"(?P<v>\d*\.\d+|\b[01]\b)\s+(?:at\s+(?:every|each|all)\s+(?:the\s+)?(?:standard\s+)?(?:recall\s+)?"
                        rf"levels?\s+from\s+|at\s+(?:the\s+)?(?:standard\s+)?(?:recall\s+)?levels?\s+(?:from\s+)?|from\s+)"
                        rf"(?P<a>{_LEVEL})(?:\s+(?:up\s+)?to\s+(?P<b>{_LEVEL})|\s+and\s+(?P<c>{_LEVEL}))?(?![\d.]\d)",
                        re.IGNORECASE)
_INTERPOLATED = re.compile(r"\binterpolated\s+precision\b", re.IGNORECASE)


def _levels(a: str, b: str | None, c: str | None) -> list[str]:
    """The standard recall levels a run names: a to b in steps of 0.1, or a and c, or a alone."""
    lo = round(float(a) * 10)
    if b is not None:
        hi = round(float(b) * 10)
        return [f"{i / 10:.1f}" for i in range(lo, hi + 1)] if lo <= hi else []
    return [f"{lo / 10:.1f}"] + ([f"{round(float(c) * 10) / 10:.1f}"] if c is not None else [])


def interpolated_runs(s, example: Example) -> tuple[list[dict], str]:
    """Value claims for interpolated precision printed over runs of recall levels in a sentence about the example
    ("interpolated precision is 1 at every standard recall level from 0.0 up to 0.5, then 0.75 at the levels 0.6
    and 0.7"): one claim per run, each level a measure, when the example determines it (|R| stated); else the
    question the draft asks. ``([], "")`` when the sentence prints no such run."""
    text = s.text
    m = _INTERPOLATED.search(text)
    runs = list(_IPREC_RUN.finditer(text, m.end())) if m else []
    if not runs or _TOOL.search(text) or _ELSEWHERE.search(text) and not s.start <= example.start < s.end:
        return [], ""
    asked = example.missing("IPrec", None)
    if asked:
        return [], f"interpolated precision needs what {example.describe()} does not state: {asked}"
    fx, why = example.fixture()
    if fx is None:
        return [], why
    out = []
    for run in runs:
        levels = _levels(run.group("a"), run.group("b"), run.group("c"))
        if not levels or float(levels[-1]) > 1:
            continue
        expects = [{"measure": f"IPrec@{level}", "claimed": run.group("v")} for level in levels]
        out.append({"kind": "value", "quote": run.group(0), "claim": f"interpolated precision is {run.group('v')} at "
                    f"recall levels {', '.join(levels)} on the worked example ({example.describe()})", "fixture": fx,
                    "expect": expects, "on example": True})
    return out, ""


#: A document of the example named with its grade or role ("the missed perfect document H", "the other result B"):
#: the words before it describe that document, not another ranking.
_NAMED_DOCUMENT = re.compile(r"\b(?:the\s+)?(?:\w+\s+){0,2}?(?:document|result|page)\s+(?P<id>[A-Z][\w-]*)\b")


def _documents_named(text: str, example: Example) -> str:
    """``text`` with each document the example holds, named with the words before it, blanked out."""
    ids = {d for d, _ in example.ranking} | set(example.unretrieved)
    return _NAMED_DOCUMENT.sub(lambda m: " " if m.group("id") in ids else m.group(0), text)


def values(s, example: Example, declared: dict[str, tuple[str, ...]] | None = None,
           local: dict[str, tuple[str, ...]] | None = None, skip: set[str] = frozenset()) -> tuple[list[dict], str]:
    """A value claim for the measures statement ``s`` prints a value of, on ``example``'s fixture, when the
    example determines each (``Example.missing``); ``skip``: measures already encoded on a fixture the sentence
    itself describes. Else ([], the question the draft asks: what the text does not say)."""
    labels = {m.group(1) for m in _LINE_LABEL.finditer(s.text)}
    if len(labels) > 1:
        # "Query 1: … RR = 1.0 / Query 2: … RR = 0.33": each line is its own query, not the example's
        return [], ("the statement gives the values of several queries (" + ", ".join(sorted(labels, key=int))
                    + "); which ranking is each query's?")
    from audit.measures.syntax import parse as parse_measure
    from audit.model.values import parse_claimed
    from audit.errors import AuditError
    from audit.draft.encode import (
        _BY,
        _ESTABLISHED,
        _MEASURE_NEEDS_CUTOFF,
        _WHOLE_VALUES,
        _name,
        _root,
        _value_after,
        measure_of,
        reproduces,
    )
    from audit.draft.examples.example import MEASURES
    from audit.text.scan import METRIC
    text = s.text
    runs, asked = interpolated_runs(s, example)
    if runs or asked:
        return runs, asked
    if (_ELSEWHERE.search(_BACK.sub(" ", _documents_named(text, example))) and not s.start <= example.start < s.end
            or _TOOL.search(text)
            or _GENERAL.search(text)):
        return [], ""   # the sentence speaks of another ranking than the example before it, or of what a tool does
    metrics = list(METRIC.finditer(text))
    expects, asked, reason = [], [], ""
    for i, m in enumerate(metrics):
        spec = measure_of(m)
        if spec is None or (m.group("notation") or "") in _MEANS:
            continue
        base, k = spec
        root = _root(base)
        if root not in MEASURES:
            continue
        if root in ("DCG", "nDCG", "IDCG") and base == root and (local or {}).get("gain") == ("exponential",):
            base = f"{root}(dcg='exp-log2')"
        name = _name(base, k)
        if name in skip:
            continue
        stop = metrics[i + 1].start() if i + 1 < len(metrics) else len(text)
        semi = text.find(";", m.end())
        stop = min(stop, semi) if semi != -1 else stop
        value = _value_after(text, m, stop)
        if value is None or re.fullmatch(r"\d+", value.strip()) and root not in _WHOLE_VALUES:
            continue
        if k == "k" or (k is None and root in _MEASURE_NEEDS_CUTOFF):
            continue
        if _BY.search(text):
            return [], ""   # what a library returns: a `by:` claim (``encode.values`` says so)
        question = example.missing(root, k if isinstance(k, int) else None)
        if question:
            asked.append(f"{name} needs what {example.describe()} does not state: {question}")
            continue
        fx, why = example.fixture()
        if fx is None:
            reason = why
            continue
        value = value.strip()
        try:
            parse_claimed(value)
            parse_measure(name)
        except AuditError as exc:
            reason = exc.message
            continue
        if root not in _ESTABLISHED:
            ok, why = reproduces(name, fx, value, declared)
            if not ok:
                reason = why
                continue
        at = text.find(value, m.end(), stop)
        quote = text[m.start():at + len(value)] if at >= 0 else text
        expects.append((quote, fx, {"measure": name, "claimed": value}, _ideal_stated(example, root, k)))
    why = "; ".join(asked + ([reason] if reason else []))
    facts = "".join(f"; {' '.join(f.split())}" for f in dict.fromkeys(example.facts))
    # one claim per measure, quoting its own words: each value gets its own verdict
    return [{"kind": "value", "quote": quote, "claim": f"{e['measure']} is {e['claimed']} on the worked example "
             f"({example.describe()}{facts})", "fixture": fx, "expect": [e], "on example": True,
             **({"conventions": own} if own else {})}
            for quote, fx, e, own in expects], why


def _ideal_stated(example: Example, root: str, k) -> dict:
    """The ideal DCG the text states for a value of nDCG or IDCG on ``example``: built from every judged document
    (``judged, cut at k``), quoted from the fact that gave the judged grades or |R|, when the example holds judged
    documents it does not retrieve (the text has named the relevant set, not the retrieved list's) and no more
    relevant judged documents than the cutoff (so whether the ideal is cut at k changes nothing the text leaves open)."""
    if root not in ("nDCG", "IDCG") or not example.facts:
        return {}
    ideal = example.ideal() or []
    retrieved = sorted((g for _, g in example.ranking if g), reverse=True)
    if sorted((g for g in ideal if g), reverse=True) == retrieved or not (isinstance(k, int) and sum(1 for g in ideal if g) <= k):
        return {}
    return {"ideal": {"value": "judged, cut at k", "quote": " ".join(example.facts[0].split())}}
