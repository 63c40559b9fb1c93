"""Metric-choice sensitivity: does each conclusion survive the alternatives a reader could reasonably use?

For every value, comparison and property claim, the chapter's definitions (exact arithmetic,
``audit.evaluation.evaluator``) are re-run

* with each **other metric of the chapter's table** at the same cutoff (P, R, RR, AP, nDCG), under
  the chapter's stated conventions (unstated ones at trec_eval's defaults), and
* under **every value of every convention** the quantity can depend on, stated or not
  (``audit.evaluation.readings.explore`` with every convention free: denominators, tie rule, repeated IDs,
  unjudged documents removed, gain, ideal cut, relevance level, RR cutoff, averaging).

Each alternative gives **holds** (the statement as printed is still true), **flips** (it is not:
a different value, the opposite direction, or a counterexample), or **n/a** (the alternative
cannot be computed on the input). The conclusion follows from the cells (``conclusion``): *robust*
only when no alternative at all flips it; *holds under every convention value* (naming the other
metrics under which it does not) when only metrics flip it; *rests on one choice* (each convention
named, stated or not) when the chapter's reading holds and another value of a convention flips it;
*false under the chapter's reading* when it fails there and some value rescues it; *false under
every convention* when none does, or, for a universal statement whose weaker form holds, that the
weaker form holds and the statement as written under no convention. A value the text does not print
(derived) says so in its statement and its conclusion. Property claims are searched exhaustively
under each alternative on a small universe (rankings up to length 4 on binary grades, 3 on graded
ones, at most one judged document never retrieved, k ≤ 4), by the chapter's definitions only.
"""

from __future__ import annotations

import re
from fractions import Fraction

from audit.errors import AuditError
from audit.evaluation.checks.common import Measurements
from audit.evaluation.checks.counterexamples import WEAKER, Evaluations, pairs_for
from audit.evaluation.checks.value import conventions_for, declared_with_aggregate, printed_in_quote
from audit.evaluation.readings import REJECTED, base_reading, explore, graded_levels
from audit.model.universe import Universe
from audit.register.claims import Chapter
from audit.evaluation.evaluator import relevant_to
from audit.measures.conventions import CONVENTIONS, title_of
from audit.measures.syntax import at_cutoff
from audit.measures.syntax import parse as parse_measure
from audit.model.values import display, format_exact, parse_claimed
from audit.model.results import SensitivityCell, SensitivityRow

#: The metrics of chapter 23's table, in its order: the alternatives a reader could use at a cutoff.
METRICS = ("P", "R", "RR", "AP", "nDCG")
_MEASURE = re.compile(r"^([A-Za-z]+)(\([^)]*\))?(?:@(\d+))?$")
#: The universe property claims are re-searched on under each alternative (smaller than the claim's own).
MAX_LENGTH, MAX_K = 4, 4


def _split(measure: str) -> tuple[str, str, str | None]:
    m = _MEASURE.match(measure.strip())
    if not m:
        return measure, "", None
    return m.group(1), m.group(2) or "", m.group(3)


def _alternatives(measure: str) -> list[str]:
    """The other metrics of the table at the same cutoff (``P@4`` → ``R@4``, ``RR@4``, …)."""
    name, _, k = _split(measure)
    if name not in METRICS:
        return []
    return [f"{alt}@{k}" if k else alt for alt in METRICS if alt != name]


def _show(value) -> str:
    if value is None:
        return "n/a"
    if value == REJECTED:
        return "rejected"
    if isinstance(value, Fraction):
        text = display(format_exact(value))
        return text if "/" not in text else f"{text} (≈ {float(value):.4f})"
    return str(value)


def _convention_cells(fn, holds, declared, names, restrict) -> tuple[list[SensitivityCell], list[str]]:
    """One cell per value of each convention that changes the quantity (``readings.explore`` with the
    convention free), changed one at a time from the chapter's reading (its stated values, unstated
    ones at trec_eval's defaults): what a reader who makes only that choice differently gets."""
    base = base_reading(declared)
    cells, deciding = [], []
    for name in names:
        values = tuple(v for v in CONVENTIONS[name].values if name not in restrict or v in restrict[name])
        if len(values) < 2:
            continue
        if name not in explore(fn, declared, [name], free=[name], restrict=restrict).varied:
            continue
        stated = declared.values(name) if declared.stated(name) else ()
        outcomes = []
        for value in values:
            try:
                got = fn({**base, name: value})
            except AuditError:
                got = None
            if got is None:
                cells.append(SensitivityCell(alternative=f"{CONVENTIONS[name].title}: {value}", axis=name,
                                             value="n/a", outcome="n/a", stated=value in stated))
                continue
            outcomes.append(holds(got))
            cells.append(SensitivityCell(alternative=f"{CONVENTIONS[name].title}: {value}", axis=name,
                                         value=_show(got), outcome="holds" if holds(got) else "flips",
                                         stated=value in stated))
        if len(set(outcomes)) > 1:
            deciding.append(name)
    return cells, deciding


#: The beginnings of the conclusions (``conclusion``), for the reports' counts.
ROBUST, HOLDS, RESTS, FAILS_HERE, FAILS = ("robust", "holds under every convention value", "rests on one choice",
                                          "false under the chapter's reading", "false under every convention")
WEAKER_HOLDS = "only the weaker"
#: Said of a derived value the quote does not print (``checks.value.printed_in_quote``).
NOT_PRINTED = "the value is derived, not printed"


def flipping_conventions(cells: list[SensitivityCell]) -> tuple[list[str], set[str]]:
    """The conventions whose other values flip a statement, in the cells' order, and the conventions the chapter
    states (one of whose cells is the chapter's own value)."""
    conv = [c for c in cells if c.axis != "metric"]
    return list(dict.fromkeys(c.axis for c in conv if c.outcome == "flips")), {c.axis for c in conv if c.stated}


def conclusion(cells: list[SensitivityCell], own_holds: bool, *, unprinted: bool = False,
               weaker: str | None = None, weak_holds: bool | None = None) -> str:
    """What the cells say about the statement, in words that follow from them.

    ``own_holds``: whether it holds under the chapter's own reading (its stated conventions, unstated ones at
    trec_eval's defaults); ``unprinted``: the value is derived, not printed by the text; ``weaker``/``weak_holds``:
    for a universal statement false as written, its weaker form (``never decreases``) and whether it holds under
    every convention value searched. Never *robust* beside a cell that flips."""
    conv = [c for c in cells if c.axis != "metric"]
    metric = [c for c in cells if c.axis == "metric"]
    other_metrics = [c.alternative for c in metric if c.outcome == "flips"]
    axes, stated = flipping_conventions(cells)
    suffix = f"; {NOT_PRINTED}" if unprinted else ""
    if not own_holds:
        rescued = [c for c in conv if c.outcome == "holds"]
        if rescued:
            return f"{FAILS_HERE}; holds under " + ", ".join(
                c.alternative + (" (stated)" if c.stated else "") for c in rescued) + suffix
        if weaker and weak_holds:
            return (f"{WEAKER_HOLDS} “{weaker}” holds under every convention value; as written it holds under "
                    "none" + suffix)
        if weaker and weak_holds is False:
            return f"{FAILS}, and so does the weaker “{weaker}”" + suffix
        return FAILS + suffix
    if not axes:
        if not other_metrics:
            return ROBUST + suffix
        return f"{HOLDS}; not under {', '.join(other_metrics)}" + suffix
    text = f"{RESTS}: " + ", ".join(f"{title_of(a)} ({'stated' if a in stated else 'not stated'})" for a in axes)
    return text + (f"; not under {', '.join(other_metrics)}" if other_metrics else "") + suffix


def value_rows(claim, chapter: Chapter, ms: Measurements) -> list[SensitivityRow]:
    rows = []
    fixture = chapter.fixture(claim.fixture)
    for e in claim.expect:
        measure, query = e.measure, e.query
        shown = str(e.claimed).strip()
        unprinted = bool(e.derived) and not printed_in_quote(shown, claim.quote)
        statement = (f"{measure}{' ' if shown[:1] in '≈~<>≤≥' else ' = '}{shown}"
                     + (f" ({query})" if query else "") + (" (derived, not printed)" if unprinted else ""))
        if parse_measure(measure, True)[1] is None:
            rows.append(SensitivityRow(claim=claim.id, statement=statement, kind="value",
                                       conclusion="not applicable",
                                       note="a measure the chapter's definitions do not implement"))
            continue
        claimed = parse_claimed(e.claimed, tolerance=e.tolerance)
        declared = declared_with_aggregate(chapter.declared_for(claim), e.aggregate)

        def holds(v, claimed=claimed) -> bool:
            return v is not None and v != REJECTED and claimed.contains(v)

        base = base_reading(declared)
        cells = []
        for alt in _alternatives(measure):
            try:
                value = ms.chapter_value(fixture, alt, base, query)
            except AuditError:
                value = None
            cells.append(SensitivityCell(alternative=alt, axis="metric", value=_show(value),
                                         outcome="n/a" if value is None else "holds" if holds(value) else "flips"))
        names = conventions_for(measure, fixture, query)
        try:
            conv, deciding = _convention_cells(lambda r, m=measure, q=query: ms.chapter_value(fixture, m, r, q),
                                               holds, declared, names, graded_levels(fixture.qrels))
        except AuditError as exc:
            rows.append(SensitivityRow(claim=claim.id, statement=statement, kind="value", cells=cells,
                                       conclusion="not applicable", note=exc.message))
            continue
        cells += conv
        try:
            own = holds(ms.chapter_value(fixture, measure, base, query))
        except AuditError:
            own = False
        rows.append(SensitivityRow(claim=claim.id, statement=statement, kind="value", cells=cells,
                                   conclusion=conclusion(cells, own, unprinted=unprinted),
                                   deciding=[CONVENTIONS[n].title for n in deciding]))
    return rows


def _direction(before, after) -> str | None:
    if before is None or after is None or REJECTED in (before, after):
        return None
    return "increases" if after > before else "decreases" if after < before else "unchanged"


def comparison_rows(claim, chapter: Chapter, ms: Measurements) -> list[SensitivityRow]:
    rows = []
    before, after = chapter.fixture(claim.before), chapter.fixture(claim.after)
    declared = chapter.declared_for(claim)
    base = base_reading(declared)
    for e in claim.expect:
        right = e.after_measure or e.measure
        statement = f"{e.measure}{' → ' + right if right != e.measure else ''} {e.change}"

        def pair(reading, left_m=e.measure, right_m=right):
            try:
                b = ms.chapter_value(before, left_m, reading)
                a = ms.chapter_value(after, right_m, reading)
            except AuditError:
                return None
            return None if b is None or a is None else f"{_show(b)} → {_show(a)}|{_direction(b, a)}"

        def holds(v, change=e.change) -> bool:
            return v is not None and v != REJECTED and v.split("|")[1] == change

        cells = []
        for alt in _alternatives(e.measure):
            right_k = _split(right)[2]
            v = pair(base, alt, f"{_split(alt)[0]}@{right_k}" if right_k else _split(alt)[0])
            cells.append(SensitivityCell(alternative=alt, axis="metric", value="n/a" if v is None else
                                         f"{v.split('|')[0]} ({v.split('|')[1]})",
                                         outcome="n/a" if v is None else "holds" if holds(v) else "flips"))
        names = list(dict.fromkeys(relevant_to(_split(e.measure)[0], several_queries=len(before.qrels) > 1)
                                   + relevant_to(_split(right)[0], several_queries=len(after.qrels) > 1)))
        conv, deciding = _convention_cells(pair, holds, declared, names, graded_levels(before.qrels, after.qrels))
        for c in conv:
            c.value = "; ".join(f"{x.split('|')[0]} ({x.split('|')[1]})" if "|" in x else x
                                for x in c.value.split(", "))
        cells += conv
        own = holds(pair(base))
        opposite = {"increases": "decreases", "decreases": "increases"}.get(e.change)
        order = [c.alternative for c in cells if opposite and f"({opposite})" in c.value]
        rows.append(SensitivityRow(claim=claim.id, statement=statement, kind="comparison", cells=cells,
                                   conclusion=conclusion(cells, own),
                                   deciding=[CONVENTIONS[n].title for n in deciding],
                                   note=("the order of the two rankings flips under " + ", ".join(order)) if order
                                   else "the order of the two rankings never flips" if opposite else ""))
    return rows


def _search(claim, measure: str, relation: str, reading, ms: Measurements) -> str | None:
    """The smallest counterexample by the chapter's definitions under ``reading``, or None; the chapter's
    values are shared with the audit's other searches under that reading (``Measurements.chapter_table``)."""
    u = claim.universe
    length = MAX_LENGTH if len(set(u.grades)) <= 2 else MAX_LENGTH - 1  # graded universes grow fast
    length = min(u.max_length, length)
    universe = Universe(length, min(u.documents, length + 1), tuple(u.grades), min(u.max_k, MAX_K), u.unjudged,
                        u.relevant)
    probe = claim.model_copy(update={"measure": measure})
    groups = pairs_for(probe, list(universe.cases()), universe.max_k, u.grades)
    if not groups:
        return "no case"
    ev = Evaluations([], reading, ms.chapter_table(reading))
    found = ev.violations(measure, relation, groups).get("chapter")
    if found is None:
        return None
    p = found.pair
    left, right = found.values.get("chapter", (None, None))
    where = f"k = {p.k}" + (f" → {p.k2}" if p.k2 != p.k else "")
    return f"{p.case.describe()}, {where}: {_show(left)} → {_show(right)}"


def property_rows(claim, chapter: Chapter, ms: Measurements) -> list[SensitivityRow]:
    if claim.relation == "rises or falls":
        return [SensitivityRow(claim=claim.id, statement=f"{claim.measure} rises or falls", kind="property",
                               conclusion="not applicable",
                               note="a statement that the measure moves both ways, not a universal one")]
    if claim.universe.queries > 1:
        return [SensitivityRow(claim=claim.id, statement=f"{claim.measure} {claim.relation} over runs", kind="property",
                               conclusion="not applicable",
                               note="a statement about values over queries: its search is not repeated per reading")]
    if claim.compare == "measure":
        return [SensitivityRow(claim=claim.id, statement=f"{claim.measure} {claim.relation} {' and '.join(claim.others)}",
                               kind="property", conclusion="not applicable",
                               note="a relation between two named measures: no metric alternative")]
    declared = chapter.declared_for(claim)
    base = base_reading(declared)
    weaker = WEAKER.get(claim.relation)
    statement = f"{claim.measure}@k {claim.relation}" + (" as k grows" if claim.compare == "next_cutoff" else
                                                          f" {claim.bound}" if claim.compare == "constant" else
                                                          f" ({claim.transform})")

    weak_fails: set[int] = set()   # cells (by id) under which the weaker form fails too

    def cell(alt: str, axis: str, measure: str, reading, stated=False) -> SensitivityCell:
        strict = _search(claim, measure, claim.relation, reading, ms)
        if strict == "no case":
            return SensitivityCell(alternative=alt, axis=axis, value="no case", outcome="n/a", stated=stated)
        value = "no counterexample" if strict is None else f"counterexample: {strict}"
        weak = None
        if strict is not None and weaker:
            weak = _search(claim, measure, weaker, reading, ms)
            value += (f"; “{weaker}” holds" if weak is None else f"; “{weaker}” fails too: {weak}")
        made = SensitivityCell(alternative=alt, axis=axis, value=value, stated=stated,
                               outcome="holds" if strict is None else "flips")
        if weak is not None:
            weak_fails.add(id(made))
        return made

    cells = [cell(alt, "metric", alt, base) for alt in METRICS if alt != claim.measure]
    for name in relevant_to(parse_measure(at_cutoff(claim.measure, 1))[1].name, several_queries=False):
        values = CONVENTIONS[name].values
        if name == "relevance_level":
            values = tuple(v for v in values if int(v) <= max(max(claim.universe.grades), 1))
        if name == "gain" and max(claim.universe.grades) <= 1:
            continue  # gain does not change anything on binary grades
        for value in values:
            cells.append(cell(f"{CONVENTIONS[name].title}: {value}", name, claim.measure, {**base, name: value},
                              stated=declared.stated(name) and value in declared.values(name)))
    # a convention whose every value gives the same outcome changes nothing: keep only those that differ
    by_axis: dict[str, set[str]] = {}
    for c in cells:
        if c.axis != "metric":
            by_axis.setdefault(c.axis, set()).add(c.value)
    cells = [c for c in cells if c.axis == "metric" or len(by_axis[c.axis]) > 1]
    own = _search(claim, claim.measure, claim.relation, base, ms)
    baseline = ("holds on the universe under the chapter's conventions" if own is None
                else f"false under the chapter's conventions ({own})")
    weak_holds = None
    if own is not None and weaker:
        conv = [c for c in cells if c.axis != "metric" and c.outcome != "n/a"]
        weak_holds = (_search(claim, claim.measure, weaker, base, ms) is None
                      and not any(id(c) in weak_fails for c in conv))
    metrics_holding = [c.alternative for c in cells if c.axis == "metric" and c.outcome == "holds"]
    note = baseline + ("; holds as written for " + ", ".join(metrics_holding) if metrics_holding
                       else "; holds as written for no other metric of the table")
    return [SensitivityRow(claim=claim.id, statement=statement, kind="property", cells=cells,
                           conclusion=conclusion(cells, own is None, weaker=weaker, weak_holds=weak_holds),
                           note=note)]


def sensitivity(chapter: Chapter, ms: Measurements, found: set[str], per_claim=None) -> list[SensitivityRow]:
    """The table for every value, comparison and property claim whose quote was found (``found``: ids).

    A claim's rows depend on the claim alone (its encoding, fixtures and the chapter's conventions): with
    ``per_claim`` (``audit.run.cache.PerClaimCache``) they are kept by the claim's key, so a revision of
    another claim does not compute them again."""
    rows: list[SensitivityRow] = []
    for claim in chapter.register.claims:
        if claim.id not in found or claim.kind not in ("value", "comparison", "property"):
            continue
        stored = per_claim.get(claim.id, "sensitivity") if per_claim is not None else None
        if stored is not None:
            try:
                rows += [SensitivityRow.model_validate(r) for r in stored["rows"]]
                continue
            except (KeyError, TypeError, ValueError):
                pass  # a foreign or corrupt entry: computed again
        try:
            mine = {"value": value_rows, "comparison": comparison_rows, "property": property_rows}[claim.kind](
                claim, chapter, ms)
        except AuditError as exc:
            mine = [SensitivityRow(claim=claim.id, statement=claim.title, kind=claim.kind,
                                   conclusion="not applicable", note=f"could not be evaluated: {exc.message}")]
        rows += mine
        if per_claim is not None:
            per_claim.put(claim.id, "sensitivity", {"rows": [r.model_dump(mode="json") for r in mine]})
    return rows
