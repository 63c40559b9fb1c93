"""Fixtures a sentence describes ("three relevant documents at ranks 1, 4 and 5 among ten") and the value claims
on them, drafted only when the text determines the fixture.
"""

from __future__ import annotations

import re

from audit.errors import AuditError
from audit.measures.syntax import parse as parse_measure
from audit.model.values import parse_claimed
from audit.text.encode_arithmetic import _APPROX_WORD, _BY, _claimed, _PLAIN_VALUE, chains
from audit.text.encode_measures import _name, _root, measure_of
from audit.text.scan import METRIC, NUM, Statement, VALUE, WORD_FRACTION
from audit.text.words import QUERY_LABEL, _LIST, _list, _N, _NEEDS, _ORDINAL_POSITION, number


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


#: A value computed by a sum with elided terms, which no arithmetic can check term by term: "AP = (1/2 + 2/3 + … +
#: 10/12)/10 ≈ 0.7904" gives the value it prints last.
_ELIDED = re.compile(r"^\s*=\s*(?=[^≈=]*(?:…|\.\.\.))[\d\s+−\-×·*/().…]+?(?P<approx>≈|=)\s*(?P<v>\d*\.\d+|\d+/\d+)"
                     r"(?![\w/@]|\.\d)")


#: A display formula inside a sentence: ``$$ … $$`` or ``\\[ … \\]``.
_DISPLAY = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]", re.DOTALL)


def _formula_value(text: str, m: re.Match) -> str | None:
    """The value a LaTeX formula prints last for the measure ``m`` alone on its left (``$$\\mathrm{AP} =
    \\frac{1 + 0.67 + 0.6}{3} \\approx 0.76$$`` → ``≈ 0.76``), read in plain notation (``scan.latex_math``); None
    when ``m`` is in no formula, is not its left side, or the formula ends in no printed value."""
    from audit.text.scan import latex_math
    formulas = latex_math(text) + [(d.start() + a, d.start() + b, plain)
                                   for d in _DISPLAY.finditer(text) for a, b, plain in latex_math(d.group(0))]
    for a, b, plain in formulas:
        if not a <= m.start() < b:
            continue
        parts = re.split(r"\s*(=|≈)\s*", plain.strip())
        sides, links = parts[0::2], parts[1::2]
        if len(sides) < 2 or sides[0].strip() != "§":
            return None
        last = sides[-1].strip().rstrip(".,;")
        if not _PLAIN_VALUE.fullmatch(last):
            return None
        return _claimed("≈", last) if "≈" in links else last
    return None


def _value_after(text: str, m: re.Match, stop: int) -> str | None:
    if "\\" in text and (value := _formula_value(text, m)) is not None:
        return value
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
        elided = _ELIDED.match(text[m.end():stop])
        return _claimed(elided.group("approx"), elided.group("v")) if elided else None
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
    labels = set(QUERY_LABEL.findall(text))
    if len(labels) > 1:
        # "Query 1: First relevant at rank 1 → RR = 1.0 / Query 2: First relevant at rank 3 → …": several queries,
        # each its own ranking, not one ranking all the values are of
        return None, (f"{base} needs what the statement does not state as one ranking: it gives the values of several "
                      f"queries ({', '.join(sorted(labels, key=int))}); encode one value claim per query, each on its own "
                      "ranking")
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
    if listed and not multi and ranks != sorted(ranks):
        # "the first relevant items sit at ranks 2, 1, 3, giving reciprocal ranks 1/2, 1, 1/3": one ranking lists its
        # relevant ranks in order, so ranks out of order are several queries' first relevant ranks, one value each
        return None, (f"{_name(base, k)} needs what the sentence does not state: the ranks {', '.join(map(str, ranks))} "
                      "are out of order, so they read as several queries' first relevant ranks; which query is each "
                      "value of?")
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
        from audit.draft.examples.positions import _ONE_OF, _RELEVANT_BEFORE, conflict
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
            from audit.draft.examples.example import ASK_LENGTH
            return None, f"{_name(base, k)} needs what the sentence does not state: {ASK_LENGTH.format(n=max(positions))}"
        length = length or max(positions)
        if root in _NEEDS_R and total is None:
            from audit.draft.examples.example import ASK_RELEVANT
            return None, f"{_name(base, k)} needs what the sentence does not state: {ASK_RELEVANT}"
        if total is not None and total < len(positions):
            return None, "more relevant positions than relevant documents"
        return _ranking(positions, length, total), ""
    if first and base == "RR":
        if len(list(_FIRST_AT.finditer(text))) > 1:
            return None, ("RR needs what the sentence does not state as one ranking: it gives several queries' first "
                          "relevant ranks; encode one value claim per query, each on its own ranking")
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


#: A measure written as a mean over queries: MRR, MAP, GMAP, "mean reciprocal rank", "… averaged over the queries".
_MEAN_NOTATION = {"MAP", "MRR", "GMAP"}
_MEAN_BEFORE = re.compile(r"\b(?:mean|average)\s+$", re.IGNORECASE)
_OVER_AFTER = re.compile(r"^\s*(?:@\s*\d+\s*)?,?\s*(?:averaged\s+|taken\s+|computed\s+)?over\s+(?:the\s+|all\s+|both\s+|its\s+|our\s+)?"
                         r"(?:\w+\s+)?(?:queries|topics|questions|users)\b", re.IGNORECASE)


def over_queries(m: re.Match) -> bool:
    """Whether the measure ``m`` names is a mean over queries by its notation or the words around it ("MRR", "the
    mean reciprocal rank", "AP averaged over the two queries"), not the one ranking's value."""
    if (m.group("notation") or "") in _MEAN_NOTATION or re.match(r"(?i)mean\b", m.group(0)):
        return True
    return bool(_MEAN_BEFORE.search(m.string[max(0, m.start() - 12):m.start()])
                or _OVER_AFTER.match(m.string[m.end():m.end() + 60]))


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
        if over_queries(m):
            # the sentence describes one ranking; "MRR … over the two queries" averages others the text gave before
            reason = (f"{m.group(0)} is a mean over queries, and the sentence describes one query's ranking: which "
                      "queries does it average? (a fixture with each of them)")
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
