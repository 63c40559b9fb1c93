"""The search for a counterexample to a property claim: the relations a claim states and the transformations it
compares a case with, cases evaluated as many queries in one call per reference (``Evaluations``, shared by
every search under one reading), and the two stages (exhaustive over a small universe, then seeded random
cases), with each finding shrunk to its simplest form. ``audit.evaluation.checks.property`` decides the verdict.
"""

from __future__ import annotations


import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache, partial
from typing import NamedTuple

from audit.errors import AuditError
from audit.evaluation import evaluator
from audit.evaluation import definitions
from audit.evaluation.checks.common import CHAPTER, Measurements
from audit.evaluation.references import Reference
from audit.evaluation.references.worker import CALL_SECONDS
from audit.model.universe import PREMISES, Case, Run, Universe, _relevant
from audit.register.claims import PropertyClaim
from audit.measures.syntax import at_cutoff
from audit.measures.syntax import parse as parse_measure
from audit.model.values import format_exact, parse_claimed
from audit.evaluation.parallel import queued


RELATIONS: dict[str, Callable[[float, float], bool]] = {
    "increases": lambda a, b: b > a,
    "decreases": lambda a, b: b < a,
    "never decreases": lambda a, b: b >= a,
    "never increases": lambda a, b: b <= a,
    "unchanged": lambda a, b: a == b,
    "equals": lambda a, b: a == b,
    "never exceeds": lambda a, b: a <= b,
    "never below": lambda a, b: a >= b,
    "always below": lambda a, b: a < b,
    "always exceeds": lambda a, b: a > b,
}
#: The weaker form a strict relation falls back to ("always larger" → "never smaller").
WEAKER = {"increases": "never decreases", "decreases": "never increases", "always below": "never exceeds",
          "always exceeds": "never below"}
_EPS = 1e-9


def holds(relation: str, left, right) -> bool:
    """Whether ``relation`` holds; floats (references) are compared with a 1e-9 tolerance."""
    if isinstance(left, Fraction) and isinstance(right, Fraction):
        return RELATIONS[relation](left, right)
    a, b = float(left), float(right)
    if abs(a - b) <= _EPS:
        b = a
    return RELATIONS[relation](a, b)


def _within(a: float, b: float) -> bool:
    return abs(a - b) <= _EPS


def _exact_test(relation: str) -> Callable[[object, object], bool]:
    """``holds`` for the chapter's values, hundreds of thousands per search: two ``Fraction`` values are
    compared as the integers ``a.numerator * b.denominator`` and ``b.numerator * a.denominator`` (denominators
    are positive, so the order is theirs), which gives ``Fraction``'s own answer without its type checks;
    anything else goes to ``holds``. The integers are read from the slots the ``numerator`` and ``denominator``
    properties return (``_SLOTS``: a third of the time), where this Python's ``Fraction`` has them."""
    rel = RELATIONS[relation]

    if _SLOTS:
        def test(a, b) -> bool:
            if type(a) is Fraction and type(b) is Fraction:
                return rel(a._numerator * b._denominator, b._numerator * a._denominator)
            return holds(relation, a, b)
    else:
        def test(a, b) -> bool:
            if type(a) is Fraction and type(b) is Fraction:
                return rel(a.numerator * b.denominator, b.numerator * a.denominator)
            return holds(relation, a, b)
    return test


#: Whether ``Fraction`` keeps its terms in the slots ``_numerator`` and ``_denominator`` that its ``numerator`` and
#: ``denominator`` properties return (CPython's ``fractions`` module, 3.2 on).
_SLOTS = {"_numerator", "_denominator"} <= set(getattr(Fraction, "__slots__", ())) and all(
    getattr(Fraction, name).fget(Fraction(-3, 4)) == getattr(Fraction(-3, 4), "_" + name)
    for name in ("numerator", "denominator"))


#: ``holds`` for two floats, one closure per relation (the comparisons of a reference's values, hundreds of
#: thousands per search): the same results, without converting or looking the relation up on each call.
_FLOAT_TESTS: dict[str, Callable[[float, float], bool]] = {
    "increases": lambda a, b: b > a and not _within(a, b),
    "decreases": lambda a, b: b < a and not _within(a, b),
    "never decreases": lambda a, b: b >= a or _within(a, b),
    "never increases": lambda a, b: b <= a or _within(a, b),
    "unchanged": lambda a, b: a == b or _within(a, b),
    "equals": lambda a, b: a == b or _within(a, b),
    "never exceeds": lambda a, b: a <= b or _within(a, b),
    "never below": lambda a, b: a >= b or _within(a, b),
    "always below": lambda a, b: a < b and not _within(a, b),
    "always exceeds": lambda a, b: a > b and not _within(a, b),
}


# --- transformations: case → variants (empty when the case does not apply) --------------------

def _is_rel(g) -> bool:
    return g is not None and g >= 1


def _promote_second(case: Case, grades) -> list[Case]:
    r = case.ranked
    if len(r) >= 2 and _is_rel(r[1]) and not _is_rel(r[0]):
        return [Case((r[1], r[0]) + r[2:], case.unretrieved)]
    return []


def _change_after_first_relevant(case: Case, grades) -> list[Case]:
    first = next((i for i, g in enumerate(case.ranked) if _is_rel(g)), None)
    if first is None:
        return []
    head, tail = case.ranked[:first + 1], case.ranked[first + 1:]
    top = max(grades)
    variants = [Case(head, case.unretrieved), Case(head + tuple(reversed(tail)), case.unretrieved),
                Case(head + tuple(top for _ in tail) + (top,), case.unretrieved)]
    return [v for v in variants if v != case]


def _add_unretrieved_relevant(case: Case, grades) -> list[Case]:
    return [Case(case.ranked, tuple(sorted(case.unretrieved + (max(grades),))))]


def _regrade_positives(case: Case, grades) -> list[Case]:
    positive = sorted(g for g in grades if g >= 1)
    if not any(_is_rel(g) for g in case.ranked + case.unretrieved):
        return []
    out = []
    for target in (positive[0], positive[-1]):
        def regrade(g):
            return target if _is_rel(g) else g
        out.append(Case(tuple(regrade(g) for g in case.ranked), tuple(regrade(g) for g in case.unretrieved)))
    return [v for v in out if v != case]


def _judge_unjudged_as_zero(case: Case, grades) -> list[Case]:
    if None not in case.ranked:
        return []
    return [Case(tuple(0 if g is None else g for g in case.ranked), case.unretrieved)]


TRANSFORMS = {
    "promote_second_relevant": (_promote_second, "the relevant document at rank 2 is swapped with a non-relevant "
                                "one at rank 1"),
    "change_after_first_relevant": (_change_after_first_relevant, "everything after the first relevant document is "
                                    "removed, reversed, or replaced by relevant documents"),
    "add_unretrieved_relevant": (_add_unretrieved_relevant, "a relevant document that is never retrieved is added "
                                 "to the judgements"),
    "regrade_positives": (_regrade_positives, "every positive grade is set to the lowest, or to the highest, "
                          "positive grade"),
    "judge_unjudged_as_zero": (_judge_unjudged_as_zero, "every unjudged returned document is judged non-relevant"),
}


# --- evaluation of many cases, batched per reference -------------------------------------------

class Pair(NamedTuple):
    """One comparison: ``left`` measured on (case, k), ``right`` on (other, k2) with ``right_measure``."""

    case: Case
    k: int
    other: Case
    k2: int
    right_measure: str


class Group(NamedTuple):
    """The comparisons one case makes: ``measure`` on (case, k) against ``right_measure`` on (other, k2) for
    every (k, k2) in ``ks`` and every case in ``others``, in that order (k first)."""

    case: Case
    others: tuple[Case, ...]
    right_measure: str
    ks: tuple[tuple[int, int], ...]


def comparisons(groups: Sequence[Group]) -> int:
    """How many comparisons ``groups`` make."""
    return sum(len(g.ks) * len(g.others) for g in groups)


@dataclass
class Finding:
    pair: Pair
    values: dict[str, tuple[object, object]] = field(default_factory=dict)  # impl → (left, right)


#: Per reference, in this process: [cases evaluated, case × cutoff evaluations, seconds of its calls (from the
#: moment its worker has the call to its answer, in parallel with the other references'; not the wait behind
#: an earlier call to the same worker), CPU seconds its worker spent on them]. On a busy machine the seconds
#: include time the worker waited for a core; the CPU seconds are the library's own cost.
TALLY: dict[str, list] = {}


#: What a batch asks for: (measure, case) → the cutoffs wanted.
Requests = dict[tuple[str, Case], set[int]]
#: What a batch returns, per implementation: (measure, case) → {k: value}. A reference's row holds only the
#: values it returned.
Table = dict[tuple[str, Case], dict[int, object]]


def requests_for(measure: str, groups: Sequence[Group]) -> Requests:
    """The (measure, case) → cutoffs both sides of ``groups`` need."""
    out: Requests = {}
    for g in groups:
        left = (measure, g.case)
        out.setdefault(left, set()).update(k for k, _ in g.ks)
        for other in g.others:
            out.setdefault((g.right_measure, other), set()).update(k2 for _, k2 in g.ks)
    return out


#: The cutoff of a comparison made on whole rankings (``at: whole ranking``): the measures without a cutoff.
WHOLE = 0


def measure_at(measure: str, k: int | str) -> str:
    """``measure`` at cutoff ``k`` (``at_cutoff``), or without one for ``WHOLE``."""
    return measure if k == WHOLE else at_cutoff(measure, k)


#: How a group names a constant on its right side: ``=`` and the exact bound (``=1``).
CONSTANT = "="


@lru_cache(maxsize=1024)
def _constant(right_measure: str) -> Fraction | None:
    """The bound a group's right side names (``compare: constant``), else None."""
    return Fraction(right_measure[1:]) if right_measure.startswith(CONSTANT) else None


#: How a group names the smaller or larger of two measures on its right side (``relation: between``):
#: ``min(P; R)``, ``max(P; R)``.
_EXTREMES = {"min": min, "max": max}


def extreme(name: str, measures: Sequence[str]) -> str:
    """The right side ``min(A; B)`` / ``max(A; B)``: at each cutoff the smaller / larger of the measures' values."""
    return f"{name}({'; '.join(measures)})"


@lru_cache(maxsize=1024)
def _extreme_parts(measure: str) -> tuple[Callable, list[str]] | None:
    """(min or max, the measures) of a right side written by ``extreme``, else None."""
    for name, fn in _EXTREMES.items():
        if measure.startswith(name + "(") and measure.endswith(")"):
            return fn, measure[len(name) + 1:-1].split("; ")
    return None


#: How a group names a measure computed under other conventions (``other_conventions``): ``AP under
#: ap_denominator=|R|``; only the chapter's definitions compute it.
_UNDER = " under "


def under(measure: str, conventions: dict[str, str]) -> str:
    """The right side ``measure`` computed under ``conventions`` (name → value)."""
    return measure + _UNDER + "; ".join(f"{name}={value}" for name, value in sorted(conventions.items()))


@lru_cache(maxsize=1024)
def _under_parts(measure: str) -> tuple[str, dict[str, str]] | None:
    """(measure, conventions) of a side written by ``under``, else None."""
    if _UNDER not in measure:
        return None
    base, rest = measure.split(_UNDER, 1)
    return base, dict(item.split("=", 1) for item in rest.split("; "))


def _with_parts(requests: Requests) -> Requests:
    """``requests`` with each ``min``/``max`` side's measures requested too, for the same cases and cutoffs, and
    each request on a run of several queries made for each of its queries too."""
    measures = {m for m, _ in requests}
    extremes = {m for m in measures if _extreme_parts(m) is not None}
    runs = any(isinstance(case, Run) for _, case in requests)
    if not extremes and not runs:
        return requests
    out = {key: set(ks) for key, ks in requests.items()}
    for (measure, case), ks in requests.items():
        if measure in extremes:
            for part in _extreme_parts(measure)[1]:
                out.setdefault((part, case), set()).update(ks)
    for (measure, case), ks in list(out.items()):
        if isinstance(case, Run) and _constant(measure) is None and _extreme_parts(measure) is None:
            for query in case.queries:
                out.setdefault((measure, query), set()).update(ks)
    return out


def _fill_runs(table: Table, requests: Requests, reading) -> None:
    """Each row of a run of several queries from its queries' rows, combined as the measure combines values over
    queries (``evaluator.combine``: the mean, the geometric mean for GMAP, the sum for counts): a value only where
    every query has one."""
    if not any(isinstance(case, Run) for _, case in requests):
        return
    for (measure, case), ks in requests.items():
        if not isinstance(case, Run) or _constant(measure) is not None or _extreme_parts(measure) is not None:
            continue
        shifted = _under_parts(measure)
        name, how = (measure, reading) if shifted is None else (
            shifted[0], {**(reading or definitions.DEFAULT_READING), **shifted[1]})
        spec = parse_measure(at_cutoff(name, 1))[1]
        rows = [table.get((measure, q)) or {} for q in case.queries]
        row = table.setdefault((measure, case), {})
        for k in ks:
            values = {str(i): r.get(k) for i, r in enumerate(rows)}
            if all(v is not None for v in values.values()):
                row[k] = evaluator.combine(spec.name, values, how)


def _fill_extremes(table: Table, requests: Requests) -> None:
    """Each ``min``/``max`` row of ``table`` from its measures' rows: a value only where every measure has one."""
    if not any(_extreme_parts(m) is not None for m in {m for m, _ in requests}):
        return
    for (measure, case), ks in requests.items():
        parts = _extreme_parts(measure)
        if parts is None:
            continue
        fn, names = parts
        rows = [table.get((m, case)) or {} for m in names]
        row = table.setdefault((measure, case), {})
        for k in ks:
            values = [r.get(k) for r in rows]
            if all(v is not None for v in values):
                row[k] = fn(values)


def pair_values(table: Table, measure: str, p: Pair) -> tuple[object, object]:
    """(left, right) of one comparison in one implementation's table; None where it gave no value."""
    left, right = table.get((measure, p.case)), table.get((p.right_measure, p.other))
    return (left.get(p.k) if left else None), (right.get(p.k2) if right else None)


class Evaluations:
    """Per-implementation values of (measure, case, k), filled one batch at a time.

    Each batch costs one call per reference: every case is a query, every cutoff a measure. The
    chapter's values are computed once per (measure, case) for all its cutoffs (``evaluate_cutoffs``)
    and kept for later batches.
    """

    def __init__(self, references: Sequence[Reference], reading=None, chapter: Table | None = None,
                 ms: Measurements | None = None) -> None:
        self.references = list(references)
        self.reading = reading  # the chapter's stated conventions (unstated ones at trec_eval's defaults)
        # the chapter's values under this reading; shared between searches under the same reading
        self._chapter: Table = {} if chapter is None else chapter
        self._specs: dict[str, object] = {}
        # where the references' batches are started and shared (``Measurements.search_batch``); a chapter-only
        # view's searches start them and go on with the chapter's values alone
        self._ms = ms

    def compute(self, requests: Requests) -> dict[str, Table]:
        """Every implementation's value of each requested (measure, case) at each cutoff: the references
        evaluate the batch in their worker processes in parallel while this process computes the chapter's
        values."""
        asked, requests = requests, _with_parts(requests)
        # queries in the order the requests name them: the same groups give the same batch (and key); a run of
        # several queries is evaluated through its queries
        cases = [c for c in dict.fromkeys(case for _, case in requests) if not isinstance(c, Run)]
        index = {case: f"c{i}" for i, case in enumerate(cases)}
        qrels = {index[c]: c.qrels() for c in cases}
        futures, calls = [], []
        if self.references:
            derived = {m for m in {m for m, _ in requests}
                       if _constant(m) is not None or _extreme_parts(m) is not None or _under_parts(m) is not None}
            wanted = sorted({(measure, k) for (measure, _), ks in requests.items() if measure not in derived
                             for k in ks})
            parsed = {(measure, k): parse_measure(measure_at(measure, k))[0] for measure, k in wanted}
            names = {key: str(m) for key, m in parsed.items()}
            calls = [(ref, usable) for ref in self.references
                     if (usable := [m for m in parsed.values() if ref.supports(m).ok])]
            built: list[dict] = []

            def evaluate(ref, usable):
                if not built:
                    built.append({index[c]: {d: float(len(c.ranked) - i) for i, d in enumerate(c.ranking())}
                                  for c in cases})
                started, cpu = time.perf_counter(), time.process_time()
                CALL_SECONDS.value = CALL_SECONDS.cpu = None
                outcomes = ref.evaluate(usable, qrels, built[0])
                tally = TALLY.setdefault(ref.name, [0, 0, 0.0, 0.0])
                tally[0] += len(qrels)
                tally[1] += len(qrels) * len(usable)
                # a worker's time on the call (not the wait behind an earlier call), and its CPU seconds; in
                # this process (no worker), the call's wall time and this process's CPU time over it
                tally[2] += CALL_SECONDS.value or (time.perf_counter() - started)
                tally[3] += CALL_SECONDS.cpu if CALL_SECONDS.cpu is not None else time.process_time() - cpu
                return outcomes

            # a batch is its cases (in query order) and the measures asked of the reference: the same key is
            # the same call
            batch = tuple(cases)
            for ref, usable in calls:
                call = partial(evaluate, ref, usable)
                futures.append(self._ms.search_batch(ref, (ref.name, batch, tuple(str(m) for m in usable)), call)
                               if self._ms is not None else queued(ref.name, call))
        cache = self._chapter
        for key, ks in requests.items():  # every cutoff of a case in one pass
            row = cache.get(key)
            todo = sorted(ks if row is None else (k for k in ks if k not in row))
            if todo:
                measure, case = key
                bound = _constant(measure)
                if bound is not None:  # a bound (compare: constant) is its own value at every cutoff
                    cache.setdefault(key, {}).update((k, bound) for k in todo)
                    continue
                if _extreme_parts(measure) is not None or isinstance(case, Run):  # filled from their parts below
                    continue
                shifted = _under_parts(measure)
                name, reading = (measure, self.reading) if shifted is None else (
                    shifted[0], {**(self.reading or definitions.DEFAULT_READING), **shifted[1]})
                spec = self._specs.get(name) or self._specs.setdefault(name, parse_measure(at_cutoff(name, 1))[1])
                whole = [evaluator.evaluate_query(replace(spec, cutoff=None), qrels[index[case]], case.ranking(), reading)
                         ] if WHOLE in todo else []
                todo = [k for k in todo if k != WHOLE]
                values = whole + evaluator.evaluate_cutoffs(spec, qrels[index[case]], case.ranking(), todo, reading)
                todo = ([WHOLE] if whole else []) + todo
                cache.setdefault(key, {}).update(zip(todo, values))
        _fill_runs(cache, requests, self.reading)
        _fill_extremes(cache, asked)
        out: dict[str, Table] = {CHAPTER: cache}
        if self._ms is not None and not self._ms.waits:
            return out  # started; the real search collects them
        for (ref, _), future in zip(calls, futures):
            outcomes = future.result()
            for outcome in outcomes.values():
                if outcome.status == "error":
                    raise AuditError(f"{ref.name} failed while searching: {outcome.detail}")
            columns = {}
            for key, name in names.items():
                outcome = outcomes.get(name)
                if outcome is not None and outcome.status == "ok":
                    columns[key] = outcome.per_query
            table: Table = {}
            for (measure, case), ks in requests.items():
                if isinstance(case, Run) and _constant(measure) is None:
                    continue  # filled from its queries' rows below
                qid = index.get(case)
                bound = _constant(measure)
                if bound is not None:
                    table[(measure, case)] = {k: float(bound) for k in ks}
                    continue
                if _extreme_parts(measure) is not None or _under_parts(measure) is not None or isinstance(case, Run):
                    continue
                row = {}
                for k in ks:
                    column = columns.get((measure, k))
                    if column is not None and qid in column:
                        row[k] = column[qid]  # only values it returned
                table[(measure, case)] = row
            _fill_runs(table, requests, None)
            _fill_extremes(table, asked)
            out[ref.name] = table
        return out

    def violations(self, measure: str, relation: str, groups: Sequence[Group]) -> dict[str, Finding]:
        """The first violating comparison per implementation (groups are given smallest case first)."""
        values = self.compute(requests_for(measure, groups))
        found: dict[str, Finding] = {}
        test = _exact_test(relation)
        for impl, table in values.items():
            hit = _first_violation(table, measure, groups, test if impl == CHAPTER else
                                   _FLOAT_TESTS[relation])
            if hit is not None:
                found[impl] = Finding(hit)
        for finding in found.values():
            for impl, table in values.items():
                left, right = pair_values(table, measure, finding.pair)
                if left is not None and right is not None:
                    finding.values[impl] = (left, right)
        return found


def _first_violation(table: Table, measure: str, groups: Sequence[Group], test) -> Pair | None:
    """The first comparison of ``groups``, in order, whose two values in ``table`` fail ``test``."""
    empty: dict = {}
    for g in groups:
        left_row = table.get((measure, g.case)) or empty
        rows = [(other, table.get((g.right_measure, other)) or empty) for other in g.others]
        for k, k2 in g.ks:
            left = left_row.get(k)
            if left is None:
                continue
            for other, row in rows:
                right = row.get(k2)
                if right is not None and not test(left, right):
                    return Pair(g.case, k, other, k2, g.right_measure)
    return None


# --- the search ---------------------------------------------------------------------------------

@lru_cache(maxsize=1 << 16)
def _variants(transform: str, case: Case, grades: tuple[int, ...]) -> tuple[Case, ...]:
    """``TRANSFORMS[transform]`` applied to ``case``, computed once per process: the searches of one claim under
    every reading of the sensitivity table, and its weaker form's, transform the same cases."""
    return tuple(TRANSFORMS[transform][0](case, grades))


def _right(claim: PropertyClaim) -> str:
    """What a claim's comparisons put on the right: the measure itself (next cutoff, transform), the other measure
    (under ``other_conventions`` when given), or the bound."""
    if claim.compare == "constant":
        return CONSTANT + format_exact(parse_claimed(claim.bound).low)
    if claim.compare != "measure":
        return claim.measure
    if claim.other_conventions:
        return under(claim.other, claim.other_reading())
    return claim.other


def pairs_for(claim: PropertyClaim, cases: Sequence[Case], max_k: int, grades) -> list[Group]:
    """Every comparison the claim makes on these cases, grouped by case, smallest case and cutoff first."""
    out: list[Group] = []
    ks = range(1, max_k + (0 if claim.compare == "next_cutoff" else 1))
    if claim.at == "whole ranking":
        steps = ((WHOLE, WHOLE),)
    elif claim.compare == "next_cutoff":
        steps = tuple((k, k + 1) for k in ks)
    else:
        steps = tuple((k, k) for k in ks)
    if not steps:
        return out
    right = _right(claim)
    if claim.given is not None:
        premise = PREMISES[claim.given].holds
        cases = [c for c in cases if all(premise(q, tuple(grades)) for q in (c.queries if isinstance(c, Run) else (c,)))]
    for case in cases:
        if claim.at == "|R|":
            r = _relevant(case)
            if r and claim.compare != "transform":
                out.append(Group(case, (case,), right, ((r, r),)))
            continue
        if claim.compare == "next_cutoff":
            out.append(Group(case, (case,), claim.measure, steps))
        elif claim.compare in ("measure", "constant"):
            out.append(Group(case, (case,), right, steps))
        else:
            variants = _variants(claim.transform, case, tuple(grades))
            if variants:
                out.append(Group(case, variants, claim.measure, steps))
    return out


@dataclass
class SearchResult:
    relation: str
    exhaustive_cases: int = 0
    exhaustive_pairs: int = 0
    random_cases: int = 0
    findings: dict[str, Finding] = field(default_factory=dict)
    timed_out: bool = False


def search(claim: PropertyClaim, relation: str, ev: Evaluations, deadline: float) -> SearchResult:
    """Exhaustive stage, then the seeded random stage; the first counterexample per implementation (shrunk)."""
    u = claim.universe
    universe = Universe(u.max_length, u.documents, tuple(u.grades), u.max_k, u.unjudged, u.relevant, u.queries)
    cases = list(universe.cases())
    groups = pairs_for(claim, cases, u.max_k, u.grades)
    total = comparisons(groups)
    if claim.given is not None:  # the cases searched are those satisfying the premise
        cases = list(dict.fromkeys(g.case for g in groups))
    result = SearchResult(relation, exhaustive_cases=len(cases), exhaustive_pairs=total)
    if not groups:
        raise AuditError(f"the universe yields no valid case for this property ({universe.describe()}); "
                         "widen it (a longer max_length, more documents, a larger max_k)")
    # In slices, so the claim's time limit bounds this stage too; the first violation per
    # implementation is the same as from one batch, since groups are in order.
    done = 0
    for part in _slices(groups, EXHAUSTIVE_SLICE):
        if done and time.monotonic() > deadline:
            raise AuditError(f"the exhaustive stage did not finish within search.time_limit = "
                             f"{claim.search.time_limit:g} s ({done:,} of {total:,} comparisons made); "
                             "narrow the universe or raise the time limit")
        for impl, finding in ev.violations(claim.measure, relation, part).items():
            result.findings.setdefault(impl, finding)
        done += comparisons(part)
    order = [CHAPTER] + [r.name for r in ev.references]
    result.findings = {impl: result.findings[impl] for impl in order if impl in result.findings}
    if result.findings or claim.search.random_cases == 0:
        return result
    result.findings, result.random_cases, result.timed_out = _random_stage(claim, relation, ev, deadline)
    return result


def _slices(groups: Sequence[Group], size: int) -> list[list[Group]]:
    """``groups`` in consecutive slices of about ``size`` comparisons each (a group is never split)."""
    out: list[list[Group]] = [[]]
    count = 0
    for g in groups:
        n = len(g.ks) * len(g.others)
        if count and count + n > size:
            out.append([])
            count = 0
        out[-1].append(g)
        count += n
    return out


#: Comparisons evaluated per batch in the exhaustive stage (the shipped chapters' largest universe
#: makes about 22,000: one batch); the time limit is checked between batches.
EXHAUSTIVE_SLICE = 50_000


#: Random cases evaluated per batch (one call per reference); the time limit is checked between batches.
RANDOM_SLICE = 2_000


def random_cases(claim: PropertyClaim, count: int) -> list[Case]:
    """``count`` cases beyond the exhaustive universe, drawn with ``random.Random(search.seed)``: rankings
    of 0 … ``search.max_length`` documents with the universe's grades (and unjudged documents when allowed),
    up to 5 relevant documents never retrieved; with ``universe.relevant`` set, exactly that many documents
    of grade ≥ 1, at drawn ranks or never retrieved. The same seed gives the same cases."""
    rng = random.Random(claim.search.seed)
    u, s = claim.universe, claim.search
    grades = list(u.grades)
    labels = grades + ([None] if u.unjudged else [])
    positive = [g for g in grades if g >= 1] or grades
    other = [g for g in grades if g < 1] + ([None] if u.unjudged else []) or [None]
    out = []
    for _ in range(count):
        if u.relevant is None:
            ranked = [rng.choice(labels) for _ in range(rng.randint(0, s.max_length))]
            unretrieved = [rng.choice(positive) for _ in range(rng.randint(0, 5))]
        else:
            ranked = [rng.choice(other) for _ in range(rng.randint(0, max(0, s.max_length - u.relevant)))]
            placed = rng.randint(0, u.relevant)
            for _ in range(placed):
                ranked.insert(rng.randint(0, len(ranked)), rng.choice(positive))
            unretrieved = [rng.choice(positive) for _ in range(u.relevant - placed)]
        out.append(Case(tuple(ranked), tuple(sorted(unretrieved))))
    if claim.given is not None and u.relevant is None:  # each drawn case made to satisfy the premise
        make = PREMISES[claim.given].make
        out = [make(c, tuple(grades)) for c in out]
    if u.queries > 1:  # runs of that many drawn cases
        draws = [out] + [random_cases(claim.model_copy(update={
            "universe": u.model_copy(update={"queries": 1}),
            "search": s.model_copy(update={"seed": s.seed + i})}), count) for i in range(1, u.queries)]
        out = [Run(tuple(q)) for q in zip(*draws)]
    return out


def _cutoffs(claim: PropertyClaim, cases: Sequence[Case]) -> int:
    """The largest cutoff worth comparing on these cases (one past the longest ranking)."""
    max_k = claim.search.max_length + (1 if claim.compare == "next_cutoff" else 0)
    return max(1, min(max_k, max(len(c.ranked) for c in cases) + 1))


def _simpler(case: Case | Run, grades: Sequence[int], relevant: int | None) -> list:
    """One-step simplifications of ``case``: a ranked or unretrieved document removed, a grade lowered,
    an unjudged document judged at the lowest grade, the ranking cut short; smallest first. For a run of several
    queries, one query simplified so."""
    if isinstance(case, Run):
        found = {Run(case.queries[:i] + (simpler,) + case.queries[i + 1:])
                 for i, query in enumerate(case.queries) for simpler in _simpler(query, grades, relevant)}
        return sorted(found, key=lambda r: (r.size, repr(r)))
    low = min(grades)
    found: set[Case] = set()
    r, u = case.ranked, case.unretrieved
    for i in range(len(r)):
        found.add(Case(r[:i] + r[i + 1:], u))
        if r[i] is None:
            found.add(Case(r[:i] + (low,) + r[i + 1:], u))
        else:
            for g in grades:
                if g < r[i]:
                    found.add(Case(r[:i] + (g,) + r[i + 1:], u))
    for length in range(len(r) // 2, len(r)):
        found.add(Case(r[:length], u))
    for i in range(len(u)):
        found.add(Case(r, u[:i] + u[i + 1:]))
        for g in grades:
            if 1 <= g < u[i]:
                found.add(Case(r, tuple(sorted(u[:i] + (g,) + u[i + 1:]))))
    if relevant is not None:
        found = {c for c in found if _relevant(c) == relevant}
    return sorted(found, key=lambda c: (c.size, c.ranked.__repr__(), c.unretrieved))


def _shrink(claim: PropertyClaim, relation: str, ev: Evaluations, found: dict[str, Finding],
            deadline: float) -> dict[str, Finding]:
    """Each implementation's counterexample made as small as it will go: every one-step simplification of
    the current cases is evaluated in one batch (one call per reference), and each implementation moves to
    its smallest simplification that still breaks the statement, until none does or time is up."""
    current = {impl: f.pair.case for impl, f in found.items()}
    while time.monotonic() < deadline:
        candidates = sorted({c for case in current.values() for c in _simpler(case, claim.universe.grades,
                                                                              claim.universe.relevant)},
                            key=lambda c: c.size)
        if not candidates:
            break
        groups = pairs_for(claim, candidates, _cutoffs(claim, candidates), claim.universe.grades)
        if not groups:
            break
        values = ev.compute(requests_for(claim.measure, groups))
        moved = False
        for impl, case in list(current.items()):
            smaller = [g for g in groups if g.case.size < case.size]
            hit = _first_violation(values.get(impl, {}), claim.measure, smaller,
                                   _exact_test(relation) if impl == CHAPTER else _FLOAT_TESTS[relation])
            if hit is not None:
                current[impl], moved = hit.case, True
        if not moved:
            break
    smallest = sorted(set(current.values()), key=lambda c: c.size)
    return ev.violations(claim.measure, relation, pairs_for(claim, smallest, _cutoffs(claim, smallest),
                                                           claim.universe.grades))


def _random_stage(claim: PropertyClaim, relation: str, ev: Evaluations, deadline: float):
    """The seeded random stage: ``search.random_cases`` cases (``random_cases``) evaluated in batches of
    ``RANDOM_SLICE`` as queries of one call per reference; the first counterexample per implementation
    is then shrunk (``_shrink``). Returns (findings, cases evaluated, whether the time limit stopped it)."""
    cases = random_cases(claim, claim.search.random_cases)
    done = 0
    found: dict[str, Finding] = {}
    for start in range(0, len(cases), RANDOM_SLICE):
        if time.monotonic() > deadline:
            return {}, done, True
        part = cases[start:start + RANDOM_SLICE]
        groups = pairs_for(claim, part, _cutoffs(claim, part), claim.universe.grades)
        found = ev.violations(claim.measure, relation, groups)
        done += len(part) if claim.given is None else len({g.case for g in groups})
        if found:
            break
    if not found:
        return {}, done, False
    return _shrink(claim, relation, ev, found, deadline), done, False
