"""Code claims: a listing in the chapter, run in isolation and compared with the chapter's
definitions and the references on edge cases a reviewer would try and on generated input."""

from __future__ import annotations

from collections.abc import Mapping
import ast
import math
import random
import re
import time
from dataclasses import dataclass, replace
from fractions import Fraction

from audit.model.evidence import Evidence, Point
from audit.text.literals import ArrayLiteral
from audit.errors import AuditError, RepeatedIDError
from audit.evaluation import evaluator
from audit.evaluation import definitions
from audit.evaluation.checks import computes
from audit.evaluation.checks.common import CHAPTER, Measurements, fmt_float
from audit.evaluation.listing_syntax import ALLOWED as ALLOWED_MODULES, ALLOWED_TEXT, findings as beyond_computing
from audit.evaluation.readings import base_reading
from audit.evaluation.sandbox import CallResult, run_listing
from audit.evaluation.sandbox.environment import how_to_provide, missing_module, removed_numpy, \
    removed_numpy_finding, with_numpy_replacements
from audit.evaluation.sandbox.quote import clean, markdown_literal, quote
from audit.evaluation.checks.refusals import Guard, guards, refusal
from audit.evaluation.checks.rounding import places_text, rounded_places
from audit.evaluation.checks import text_calls
from audit.evaluation.checks.text_calls import DEFAULT as DEFAULT_CALLS, TextCalls
from audit.register.claims import (
    CODE_ROLES as ROLES,
    GRADED_ROLES,
    MULTI_ROLES,
    SCORED_ROLES,
    Chapter,
    CodeClaim,
    parameter_defaults,
    shown_arguments,
)
from audit.measures.conventions import CONVENTIONS
from audit.measures.syntax import parse as parse_measure
from audit.model.values import display, format_exact, parse_claimed, parse_claimed_parts
from audit.model.results import Check, ImplValue
from audit.text.doctests import unwrapped
from audit.text.listings import function_source

#: The exceptions by which a listing refuses a bad argument on purpose (k < 1): ``raise ValueError(…)`` or ``assert``.
REFUSALS = ("ValueError:", "AssertionError:")
LISTING_EXCEPTION = "the listing's exception:"  # labels of the listing's own text wherever a result quotes it
LISTING_VALUE = "the listing's value:"
LISTING_CHECK = "the listing's check:"
#: A listing refusing more than this share of the generated inputs by its own checks is not certified on them.
REFUSED_AT_MOST = 0.5
NOT_CERTIFIED = "the listing is not certified"  # opens the error of a listing whose text does more than compute
CALL_LIMIT = 2.0     # seconds of wall-clock and CPU time for one call of a listing
CLAIM_BUDGET = 60.0  # seconds for everything one listing runs: edge cases, generated input, shrinking
SAMPLE = 300
SEED = 20261130


@dataclass(frozen=True)
class Input:
    """One call of a listing: a ranking, a relevant set and a cutoff (None when the listing has none); ``grades``:
    the judgements as (document, grade) pairs when the listing takes grades (``GRADED_ROLES``), else empty (every
    relevant document is then judged 1, nothing else is judged)."""

    ranking: tuple
    relevant: frozenset
    k: int | None
    label: str = "generated"
    grades: tuple = ()
    #: a run of several queries, as (query ID, that query's input) pairs, for a listing that takes a run and qrels
    #: by query (``MULTI_ROLES``); ``ranking`` and ``relevant`` are then empty
    queries: tuple = ()
    #: the cutoffs of a listing that takes a list of them (role ``cutoffs``), in the order passed
    cutoffs: tuple = ()

    def qrels(self) -> dict[str, int]:
        """The judgements, IDs as text (as in a qrels file)."""
        return {str(d): g for d, g in self.grades} if self.grades else {str(d): 1 for d in self.relevant}

    def size(self) -> int:
        """How big the input is, for choosing the smallest failing one."""
        if self.queries:
            return sum(i.size() for _, i in self.queries) + (self.k or 0) + len(self.queries) + sum(self.cutoffs)
        return len(self.ranking) + len(self.relevant) + (self.k or 0) + sum(self.cutoffs)

    def longest(self) -> int:
        """The length of the longest ranking (of its queries, for a run)."""
        return max((len(i.ranking) for _, i in self.queries), default=0) if self.queries else len(self.ranking)

    def _cut(self) -> str:
        if self.cutoffs:
            return f", cutoffs {list(self.cutoffs)}"
        return f", k = {self.k}" if self.k is not None else ""

    def describe(self) -> str:
        if self.queries:
            return "; ".join(f"query {q}: {i.describe()}" for q, i in self.queries) + self._cut().replace(",", ";", 1)
        ranking = "[" + ", ".join(repr(d) for d in self.ranking) + "]"
        if self.grades:
            judged = "{" + ", ".join(f"{d!r}: {g}" for d, g in sorted(self.grades, key=repr)) + "}"
            return f"ranking {ranking}, grades {judged}" + self._cut()
        relevant = "{" + ", ".join(repr(d) for d in sorted(self.relevant, key=repr)) + "}" if self.relevant else "set()"
        return f"ranking {ranking}, relevant {relevant}" + self._cut()


def _graded(claim: CodeClaim) -> bool:
    """Whether the listing takes grades (ranked grades or a qrels mapping), so inputs are graded judgements."""
    return any(role in GRADED_ROLES for role in claim.arguments.values())


def _multi(claim: CodeClaim) -> bool:
    """Whether the listing takes a run and qrels of several queries (``MULTI_ROLES``)."""
    return any(role in MULTI_ROLES for role in claim.arguments.values())


def _scored(claim: CodeClaim) -> bool:
    """Whether the listing takes one query's ranking as scores (``SCORED_ROLES``): a {document: score} mapping
    holds no repeated ID."""
    return any(role in SCORED_ROLES for role in claim.arguments.values())


def _cutoff_role(claim: CodeClaim) -> str | None:
    """The role through which the listing takes its cutoff: ``cutoff``, ``cutoffs`` or None."""
    roles = set(claim.arguments.values())
    return "cutoff" if "cutoff" in roles else "cutoffs" if "cutoffs" in roles else None


def run_input(queries: list[tuple[str, Input]], k: int | None, label: str = "generated", cutoffs: tuple = ()) -> Input:
    """Several queries' inputs as one call's: a run and qrels by query."""
    return Input((), frozenset(), k, label, (), tuple(queries), tuple(cutoffs))


def parts(claim: CodeClaim, item: Input, reading=None) -> list[tuple[object, Input]]:
    """What the listing returns on ``item``, as (key, input) pairs whose measure values make it up (``shape``): one
    pair (key None) for a number; a query's own input per query the chapter's definitions keep (under
    ``reading``); the input at each cutoff (the ``cutoffs`` passed; else 1 … k; else 1 … the longest ranking)."""
    if claim.shape == "per query":
        kept = chapter_value(claim, item, reading) if item.k != 0 else None  # at k = 0 every query scores 0
        keys = {q for q, v in kept if v is not None} if isinstance(kept, tuple) else {q for q, _ in item.queries}
        return [(q, run_input([(q, i)], item.k, item.label)) for q, i in item.queries if q in keys]
    if claim.shape == "at each k":
        longest = item.longest()
        ks = item.cutoffs or tuple(range(1, (item.k if item.k is not None else longest) + 1))
        return [(k, replace(item, k=k, cutoffs=())) for k in ks]
    return [(None, item)]


def graded_input(ranking: tuple, grades: Mapping[str, int], k: int | None, label: str = "generated") -> Input:
    return Input(tuple(ranking), frozenset(d for d, g in grades.items() if g >= 1), k, label,
                 tuple(sorted(grades.items(), key=lambda pair: repr(pair[0]))))


_REPEAT_FIX = "reject a ranking that repeats an ID ({rule}), or count each ID once, dropping its later copies before cutting at k"

# Edge cases every reviewer would try: (label, ranking, relevant, k, suggested fix when the listing fails; ``{rule}``
# is whose rule rejecting a repeated ID is, filled in by ``check``).
EDGES = [
    ("repeated ID in the ranking", ("n", "n", "a", "a"), {"a"}, 4, _REPEAT_FIX),
    # deduplicating before the cut (c1, c2: P@2 = 1/2) and after it (c1: 0) differ here
    ("repeated ID before the cutoff", ("c1", "c1", "c2", "c3"), {"c2"}, 2, _REPEAT_FIX),
    ("empty relevant set", ("a", "b"), set(), 2,
     "return 0.0 when the relevant set is empty, as trec_eval, ir-measures and ranx do"),
    ("empty ranking", (), {"a"}, 3, "return 0.0 for an empty ranking"),
    ("k = 0", ("a",), {"a"}, 0, "return 0.0 for k = 0 (an empty prefix), or reject k < 1 with a ValueError"),
    ("k larger than the ranking", ("a", "n"), {"a", "b"}, 10, "cut at min(k, len(ranking))"),
    ("IDs of mixed type", (1, "b"), {"1", "b"}, 2, "compare IDs as strings (str(doc_id)) on both sides"),
    ("relevant documents never retrieved", ("n", "m"), {"a", "b"}, 2, "return 0.0 when nothing relevant is found"),
]


#: Edge cases whose right answer no chapter defines: reported, not counted against the listing.
ADVISORY = {"IDs of mixed type"}


def _parameters(claim: CodeClaim, source: str) -> list[str]:
    """The function's parameters, each mapped to a role; raises ``AuditError`` on a mismatch."""
    node = next(n for n in ast.parse(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == claim.function)
    params = [a.arg for a in node.args.args]
    unknown = [p for p in params if p not in claim.arguments]
    if unknown:
        raise AuditError(f"{claim.function}() takes {', '.join(params)}; the claim's arguments do not map "
                         f"{', '.join(unknown)} (roles: {', '.join(ROLES)})")
    for p, role in claim.arguments.items():
        if role not in ROLES:
            raise AuditError(f"argument {p!r} has role {role!r}; expected one of {', '.join(ROLES)}")
    return params


def _function_lines(listing, function: str) -> tuple[int, int]:
    """The snapshot lines of ``function`` within its listing."""
    node = next(n for n in ast.parse(listing.code).body if isinstance(n, ast.FunctionDef) and n.name == function)
    return listing.start + node.lineno - 1, listing.start + node.end_lineno - 1


def _where(listing, source: str, line: int) -> str:
    """Where line ``line`` of ``source`` (what runs: the listing's imports and the definitions its function uses)
    is in the snapshot: its line in ``listing``, or an earlier listing it builds on."""
    lines = source.splitlines()
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    mine = [i for i, own in enumerate(listing.code.splitlines()) if text and own.strip() == text]
    return f"snapshot line {listing.start + mine[0]}" if mine else "in a listing it builds on"


def _measure(claim: CodeClaim, k: int | None) -> str:
    return claim.measure.replace("@k", f"@{k}") if "@k" in claim.measure else claim.measure


def chapter_value(claim: CodeClaim, item: Input, reading=None) -> Fraction | str | tuple:
    """The chapter's value for an input under its stated conventions (``reading``), or ``"rejects"`` for a
    ranking that repeats an ID when the reading rejects repeats. IDs are compared as text, as in qrels and runs.
    For a listing returning a list or mapping (``shape``): the (key, value) pairs of ``parts``."""
    if claim.shape == "per query" and item.k != 0:
        # the queries the chapter's definitions keep (a query that retrieved nothing, or has no judgements, may be
        # left out, as trec_eval leaves it out), each with its value
        try:
            _, spec = parse_measure(_measure(claim, item.k))
            kept = evaluator.evaluate(spec, {q: i.qrels() for q, i in item.queries},
                                      {q: [str(d) for d in i.ranking] for q, i in item.queries}, reading)
        except RepeatedIDError:
            return "rejects"
        return tuple((q, kept.get(q)) for q, _ in item.queries)  # None: a query the definitions leave out
    if claim.shape != "number":
        out = []
        for key, part in parts(claim, item):
            value = _value(claim, part, reading)
            if isinstance(value, str):
                return value
            out.append((key, value))
        return tuple(out)
    return _value(claim, item, reading)


def _value(claim: CodeClaim, item: Input, reading=None) -> Fraction | str:
    measure = _measure(claim, item.k)
    if item.queries:  # the measure over a run: each query's value, combined as the measure combines them
        try:
            if item.k == 0:
                return Fraction(0)
            _, spec = parse_measure(measure)
            per_query = evaluator.evaluate(spec, {q: i.qrels() for q, i in item.queries},
                                           {q: [str(d) for d in i.ranking] for q, i in item.queries}, reading)
            return Fraction(evaluator.combine(spec.name, per_query, reading)) if per_query else Fraction(0)
        except RepeatedIDError:
            return "rejects"
    ranking = [str(d) for d in item.ranking]
    qrels = item.qrels()
    try:
        if item.k == 0:
            definitions.prefix(ranking, 0, reading)
            return Fraction(0)
        _, spec = parse_measure(measure)
        return evaluator.evaluate_query(spec, qrels, ranking, reading)
    except RepeatedIDError:
        return "rejects"


def _scores(ranking: tuple) -> list[tuple[object, float]]:
    """A ranking as (document, score) pairs, scores strictly decreasing down the ranking, listed in the order of
    the documents' IDs (not rank order), so a listing that does not sort by score is seen."""
    return sorted(((d, float(len(ranking) - r)) for r, d in enumerate(ranking)), key=lambda pair: repr(pair[0]))


def described(claim: CodeClaim, item: Input) -> str:
    """``item`` in words as the listing received it: a ranking handed over as scores is shown as the scores (in the
    order passed) or the (document, score) pairs, so the author reads the argument the function saw."""
    text = item.describe()
    roles = set(claim.arguments.values())
    if item.queries or not roles & set(SCORED_ROLES):
        return text
    ranking = "ranking [" + ", ".join(repr(d) for d in item.ranking) + "]"
    pairs = _scores(item.ranking)
    shown = ("scores {" + ", ".join(f"{d!r}: {s:g}" for d, s in pairs) + "}" if "scores" in roles else
             "pairs [" + ", ".join(f"({d!r}, {s:g})" for d, s in pairs) + "]")
    return text.replace(ranking, shown, 1)


def _judged(item: Input) -> dict:
    """The judgements as the listing receives them: ``{document: grade}`` with the IDs as the input holds them (ints
    for a text whose calls pass ints), never made text on the harness's side."""
    return dict(item.grades) if item.grades else {d: 1 for d in item.relevant}


def _call(params: list[str], claim: CodeClaim, item: Input, reading=None, calls: TextCalls = DEFAULT_CALLS) -> list:
    """The arguments of one call, by role: the ranking, the relevant documents (in the container the text passes
    them in, ``calls``), the cutoff (or cutoffs), the grades of
    the ranked documents in rank order (unjudged 0), the judgements as a {document: grade} mapping, the ranking as
    scores, a constant (``claim.constants``, else the listing's default); over several queries, the run and qrels
    by query, each query's ranked grades, or the measure's per-query values (the chapter's, under ``reading``)."""
    defaults = {p: claim.constants[p] for p in params if p in claim.constants}
    by_role = {"cutoff": item.k, "cutoffs": list(item.cutoffs)}
    if item.queries:
        by_role.update({
            "run": {q: list(i.ranking) for q, i in item.queries},
            "scored run": {q: dict(_scores(i.ranking)) for q, i in item.queries},
            "qrels by query": {q: _judged(i) for q, i in item.queries},
            "ranked grades by query": [[i.qrels().get(str(d), 0) for d in i.ranking] for _, i in item.queries]})
        if "per-query values" in claim.arguments.values():
            # the measure's values of the queries the run holds, as trec_eval reports them per query
            spec = parse_measure(_measure(claim, item.k if item.k is not None else 1))[1]
            by_role["per-query values"] = {} if item.k == 0 else {
                q: float(v) for q, v in evaluator.evaluate(spec, {q: i.qrels() for q, i in item.queries},
                                                           {q: [str(d) for d in i.ranking] for q, i in item.queries},
                                                           reading).items()}
    else:
        qrels = item.qrels()
        scores = _scores(item.ranking)
        by_role.update({"ranking": list(item.ranking), "relevant set": calls.container(item.relevant),
                        "ranked grades": [qrels.get(str(d), 0) for d in item.ranking],
                        "judged grades": sorted(qrels.values()), "qrels": _judged(item),
                        "scores": dict(scores), "scored pairs": scores})
    values = [defaults[p] if claim.arguments[p] == "constant" and p in defaults else by_role[claim.arguments[p]]
              for p in params]
    # a parameter the text's calls pass as a NumPy array is passed as one (``np.array([3, 2, 0])``)
    return [ArrayLiteral(v) if p in calls.arrays and isinstance(v, list) and not isinstance(v, ArrayLiteral) else v
            for p, v in zip(params, values)]


def _generated(claim: CodeClaim, n: int, seed: int, repeats: bool = False) -> list[Input]:
    """Well-formed input: distinct string IDs, a non-empty relevant set, 1 ≤ k ≤ len + 2; for a listing that takes
    grades, judgements with grades 0–3 of some of the documents (the rest unjudged), at least one of them ≥ 1.
    ``repeats``: the chapter's rule scores a ranking that repeats an ID (keep first, keep last, count each), so a
    third of the single-query inputs repeat one of their documents at a later rank."""
    out = _generated_inputs(claim, n, seed)
    if not repeats or _multi(claim) or not sees_ids(claim):
        return out
    rng = random.Random(seed + 1)
    for i in range(0, len(out), 3):
        item = out[i]
        if item.ranking:
            ranking = list(item.ranking)
            ranking.insert(rng.randint(1, len(ranking)), rng.choice(ranking))
            out[i] = replace(item, ranking=tuple(ranking))
    return out


def _repeats(item: Input) -> bool:
    return len(set(map(str, item.ranking))) < len(item.ranking)


def _edge_like(item: Input) -> bool:
    """A generated input of an edge case's kind, in some query: an empty ranking, or one that retrieves no relevant
    document at all ("relevant documents never retrieved"). A ranking with relevant documents only past k is
    ordinary input: a cutoff applied wrongly shows there."""
    if item.queries:
        return any(_edge_like(Input(i.ranking, i.relevant, item.k, i.label, i.grades)) for _, i in item.queries)
    return not item.ranking or not any(str(d) in {str(x) for x in item.relevant} for d in item.ranking)


def _with_cutoffs(claim: CodeClaim, items: list[Input], rng: random.Random) -> list[Input]:
    """For a listing that takes a list of cutoffs: each input with one to three distinct cutoffs in 1 … len + 2,
    in increasing order (as a reader passes [1, 5, 10])."""
    if _cutoff_role(claim) != "cutoffs":
        return items
    out = []
    for item in items:
        longest = item.longest()
        pool = range(1, longest + 3)
        out.append(replace(item, k=None, cutoffs=tuple(sorted(rng.sample(pool, rng.randint(1, min(3, len(pool))))))))
    return out


def _generated_inputs(claim: CodeClaim, n: int, seed: int) -> list[Input]:
    return _with_cutoffs(claim, _inputs(claim, n, seed), random.Random(seed + 2))


def _inputs(claim: CodeClaim, n: int, seed: int) -> list[Input]:
    rng = random.Random(seed)
    uses_k = _cutoff_role(claim) == "cutoff"
    graded = _graded(claim) or _multi(claim)
    out = []
    if _multi(claim):  # runs of one to four queries, each judged as a graded single query is
        for _ in range(n):
            queries = []
            for q in range(rng.randint(1, 4)):
                pool = [f"d{i}" for i in range(rng.randint(1, 8))]
                judged = rng.sample(pool, rng.randint(1, len(pool)))
                grades = {d: rng.randint(0, 3) for d in judged}
                grades[rng.choice(judged)] = rng.randint(1, 3)
                # every query returns something: a query with an empty ranking is the edge case of its own
                queries.append((f"q{q + 1}", graded_input(tuple(rng.sample(pool, rng.randint(1, len(pool)))),
                                                          grades, None)))
            k = rng.randint(1, max(len(i.ranking) for _, i in queries) + 2) if uses_k else None
            out.append(run_input(queries, k))
        return out
    for _ in range(n):
        pool = [f"d{i}" for i in range(rng.randint(1, 12))]
        ranking = tuple(rng.sample(pool, rng.randint(0, len(pool))))
        k = rng.randint(1, len(ranking) + 2) if uses_k else None
        if graded:
            judged = rng.sample(pool, rng.randint(1, len(pool)))
            grades = {d: rng.randint(0, 3) for d in judged}
            grades[rng.choice(judged)] = rng.randint(1, 3)
            out.append(graded_input(ranking, grades, k))
            continue
        relevant = frozenset(rng.sample(pool, rng.randint(1, len(pool))))
        out.append(Input(ranking, relevant, k))
    return out


def _agrees(result: CallResult, expected) -> bool:
    if isinstance(expected, tuple):
        return result.status == "ok" and _paired(result, expected) is not None and all(
            abs(got - float(want)) <= 1e-9 for got, want in _paired(result, expected))  # (left-out queries: none)
    return result.status == "ok" and result.value is not None and not isinstance(expected, str) \
        and abs(result.value - float(expected)) <= 1e-9


def _paired(result: CallResult, expected: tuple) -> list[tuple[float, Fraction]] | None:
    """The listing's returned list or mapping against the chapter's (key, value) pairs, entry by entry: a list in
    order, a mapping by key (keys compared as text); None when the entries do not correspond (another length, a key
    missing or unknown). An expected value None is a query the chapter's definitions leave out (trec_eval reports
    none for a query that retrieved nothing): the listing may give it a value or leave it out; it is not compared."""
    got = result.values or ()
    kept = [(k, e) for k, e in expected if e is not None]
    if all(k is None for k, _ in got):
        if len(got) == len(expected):
            return [(v, e) for (_, v), (_, e) in zip(got, expected) if e is not None]
        if len(got) == len(kept):
            return [(v, e) for (_, v), (_, e) in zip(got, kept)]
        return None
    mine = dict(got)
    if len(mine) != len(got) or not {str(k) for k, _ in kept} <= set(mine) <= {str(k) for k, _ in expected}:
        return None
    return [(mine[str(k)], e) for k, e in kept]


def _numbers(result: CallResult) -> list[float]:
    """The numbers a call returned (one, or each entry of a list or mapping)."""
    return [v for _, v in result.values] if result.values is not None else [result.value]


def returned_text(result: CallResult, precise: bool = False) -> str:
    """What a call returned that agrees in shape, for a table cell: a number, or its list or mapping of numbers
    (``precise``: a number below 0.01 to four significant digits, as a printed value is compared with it)."""
    def number(v: float) -> str:
        return f"{v:.4g}" if precise and v and abs(v) < 0.01 else fmt_float(v)
    if result.values is None:
        return number(result.value)
    if not result.values:
        return result.text or "[]"
    if all(k is None for k, _ in result.values):
        return "[" + ", ".join(number(v) for _, v in result.values) + "]"
    return "{" + ", ".join(f"{k!r}: {number(v)}" for k, v in result.values) + "}"


def exact_text(expected) -> str:
    """The chapter's value for a table cell or a sentence: an exact value, or its list or mapping (keyed by query
    or cutoff)."""
    if isinstance(expected, tuple):
        if all(isinstance(k, int) for k, _ in expected) and expected:
            return "[" + ", ".join(f"@{k}: {display(format_exact(v))}" for k, v in expected) + "]"
        return "{" + ", ".join(f"{k!r}: {display(format_exact(v)) if v is not None else 'left out'}"
                               for k, v in expected) + "}"
    return display(format_exact(expected))


def shaped(claim: CodeClaim, result: CallResult) -> CallResult:
    """A call's result read in the claim's return shape: a list or mapping of numbers where the listing is said to
    return one number is a non-number, and a number where it is said to return a list or mapping is one too; a
    list or mapping of the right kind is ``ok`` with its ``values``."""
    if claim.shape == "number":
        return replace(result, status="returns", values=None) if result.status == "values" else result
    if result.status == "values":
        return replace(result, status="ok")
    if result.status == "ok":
        return replace(result, status="returns", text=fmt_float(result.value), value=None)
    return result


def _bounded(claim: CodeClaim) -> bool:
    """Whether the claim's measure lies in [0, 1] (DCG and the counts do not)."""
    spec = parse_measure(_measure(claim, 1))[1]
    return spec is None or evaluator.CATALOGUE[spec.name].bounded


def _problem(result: CallResult, expected, item: Input, book_rule: str, stated: bool, bounded: bool = True) -> str:
    """How a call went wrong, in words (empty when it agrees). ``book_rule``: the chapters of the same book that
    state the repeated-ID rule; ``stated``: this chapter states it. The listing's own text (its exception, the repr of
    what it returned) is shown only as a labelled quote; the sandbox's account is the sandbox's words."""
    if result.status == "raises":
        if expected == "rejects":
            return ""  # the chapter rejects the input too (a repeated ID)
        if (item.k == 0 or 0 in item.cutoffs) and result.text.startswith(REFUSALS):
            return ""  # the listing refuses k < 1 as a bad argument, as the fix allows (a ZeroDivisionError does not)
        return f"raises ({quote(LISTING_EXCEPTION, result.text)})"
    if result.status == "returns":
        what = "neither a list nor a mapping of numbers" if isinstance(expected, tuple) else "a non-number"
        return f"returns {what} ({quote(LISTING_VALUE, result.text)})"
    if result.status in ("timeout", "crashed", "not run", "violation"):
        what = {"timeout": "hangs", "crashed": "crashes the interpreter", "not run": "was not run",
                "violation": "was stopped by the sandbox"}[result.status]
        return f"{what} ({result.detail})" if result.detail else what
    got = returned_text(result)
    in_range = not bounded or all(0 <= v <= 1 for v in _numbers(result))
    if expected == "rejects":
        out_of_range = " — outside [0, 1]" if not in_range else ""
        if book_rule or stated:
            return (f"returns {got}{out_of_range} where {book_rule or 'the chapter'} rejects a "
                    "ranking that repeats an ID")
        return (f"returns {got}{out_of_range} on a ranking that repeats an ID, for which the "
                "chapter states no rule (its definitions then reject the ranking, as trec_eval does)")
    if not in_range:
        return f"returns {got}, outside [0, 1] (the chapter gives {exact_text(expected)})"
    if not _agrees(result, expected):
        if isinstance(expected, tuple):
            pairs = _paired(result, expected)
            off = (f"off by up to {max(abs(g - float(e)) for g, e in pairs):.4g}" if pairs else
                   f"{len(result.values)} entr{'y' if len(result.values) == 1 else 'ies'}; the chapter's has "
                   f"{len(expected)}" if len(result.values) != len(expected)
                   else "other keys")
            return f"returns {got} where the chapter's definition gives {exact_text(expected)} ({off})"
        return (f"returns {got} where the chapter's definition gives "
                f"{exact_text(expected)} (off by {abs(result.value - float(expected)):.4g})")
    return ""


def _size(item: Input) -> int:
    return item.size()


def _minimal(claim: CodeClaim, source: str, params: list[str], bad: Input, bad_result: CallResult,
             deadline: float, reading=None, own_guards: list[Guard] = (),
             calls: TextCalls = DEFAULT_CALLS) -> tuple[Input, CallResult, bool]:
    """Shrink a failing generated input with Hypothesis to the smallest one that still fails.

    Every run counts against the claim's ``deadline`` (``time.monotonic()`` seconds); once it
    has passed, no further input is run (each counts as not failing), so Hypothesis ends with the
    smallest failing input it has seen. Returns (input, the listing's result on it, whether
    shrinking finished within the budget).
    """
    from hypothesis import HealthCheck, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    seen: dict[Input, CallResult] = {}
    spent = [False]

    uses_k = _cutoff_role(claim) == "cutoff"
    ids = st.sampled_from(list(range(1, 7)) if calls.ids == "int" else [f"d{i}" for i in range(6)])

    graded = _graded(claim) or _multi(claim)

    @st.composite
    def queries(draw):
        ranking = tuple(draw(st.lists(ids, unique=True, min_size=1, max_size=6)))
        grades = draw(st.dictionaries(ids, st.integers(0, 3), min_size=1))
        if not any(g >= 1 for g in grades.values()):
            grades[next(iter(grades))] = 1
        return graded_input(ranking, grades, None)

    @st.composite
    def runs(draw):
        qs = draw(st.lists(queries(), min_size=1, max_size=3))
        k = draw(st.integers(1, max(len(i.ranking) for i in qs) + 2)) if uses_k else None
        return run_input([(f"q{j + 1}", i) for j, i in enumerate(qs)], k)

    @st.composite
    def inputs(draw):
        item = draw(plain())
        if _cutoff_role(claim) != "cutoffs":
            return item
        longest = item.longest()
        return replace(item, cutoffs=tuple(sorted(draw(st.sets(st.integers(1, longest + 2), min_size=1, max_size=3)))))

    @st.composite
    def plain(draw):
        if _multi(claim):
            return draw(runs())
        ranking = tuple(draw(st.lists(ids, unique=True, max_size=6)))
        k = draw(st.integers(1, len(ranking) + 2)) if uses_k else None
        if graded:
            grades = draw(st.dictionaries(ids, st.integers(0, 3), min_size=1))
            if not any(g >= 1 for g in grades.values()):
                grades[next(iter(grades))] = 1
            return graded_input(ranking, grades, k)
        relevant = frozenset(draw(st.sets(ids, min_size=1)))
        return Input(ranking, relevant, k)

    def fails(item: Input) -> bool:
        if item in seen:
            return refusal(seen[item], own_guards) is None and \
                not _agrees(seen[item], chapter_value(claim, item, reading))
        left = deadline - time.monotonic()
        if spent[0] or left <= 0:
            spent[0] = True
            return False
        run = run_listing(source, claim.function, [_call(params, claim, item, reading, calls)], time_limit=left,
                          call_limit=CALL_LIMIT)
        if run.budget_exhausted or run.results[0].status == "not run":
            spent[0] = True
            return False
        seen[item] = shaped(claim, run.results[0])
        return refusal(seen[item], own_guards) is None and \
            not _agrees(seen[item], chapter_value(claim, item, reading))

    try:
        found = find(inputs(), fails, random=random.Random(SEED),
                     settings=settings(max_examples=200, database=None, deadline=None,
                                       suppress_health_check=list(HealthCheck)))
    except NoSuchExample:
        return bad, bad_result, not spent[0]
    return found, seen[found], not spent[0]


#: How a finding opens that says a listing follows a reading the text leaves open (its fix is stating the reading).
FOLLOWS_OPEN_READING = "a reading the text does not rule out (the chapter's definitions set so"


#: The roles through which a listing can receive a ranking that repeats a document ID (a list of IDs, of (document,
#: score) pairs, a run of lists): only such a listing meets the repeated-ID cases. A {document: score} mapping cannot
#: hold a repeat, and a function of grades or of per-query values never sees an ID: dropping a repeated document is
#: then the job of whatever builds its input, which the finding says.
_ID_LISTS = {"ranking", "scored pairs", "run"}


def sees_ids(claim: CodeClaim) -> bool:
    """Whether the listing can receive a ranking that repeats a document ID (``_ID_LISTS``)."""
    return bool(_ID_LISTS & set(claim.arguments.values()))


def takes_no_ids(claim: CodeClaim) -> bool:
    """Whether the listing receives no document ID at all (grades, per-query values): a repeated document is then
    its caller's to drop, which its finding says. A score mapping holds IDs, though never a repeated one."""
    return not sees_ids(claim) and not {"scores", "scored run"} & set(claim.arguments.values())


def edge_inputs(claim: CodeClaim) -> list[Input]:
    """The edge cases (``EDGES``) as the listing's input: graded (the relevant documents judged 1, the other ranked
    ones 0, IDs as text) for a listing taking grades; the run of one query for one over several; the cutoff as the
    one cutoff of a list for a listing taking cutoffs; without a cutoff's cases for one taking none, and without a
    repeated ID's for one whose input cannot repeat an ID."""
    cut = _cutoff_role(claim)
    repeats = sees_ids(claim)
    out = []
    for label, r, rel, k, _ in EDGES:
        if (not cut and label in ("k = 0", "k larger than the ranking")) or (not repeats and "repeated" in label):
            continue
        if _graded(claim):
            item = graded_input(tuple(r), {**{str(d): 0 for d in r if str(d) not in {str(x) for x in rel}},
                                           **{str(d): 1 for d in rel}}, None, label)
        else:
            item = Input(tuple(r), frozenset(rel), None, label)
        if _multi(claim):
            item = run_input([("q1", item)], None, label)
        out.append(replace(item, k=k if cut == "cutoff" else None, cutoffs=(k,) if cut == "cutoffs" else ()))
    return out


def _run_as_called(claim: CodeClaim, source: str, params: list[str], items: list[Input], shown: list[dict],
                   reading, calls: TextCalls, own_guards: list[Guard]):
    """The listing run on ``items`` (then the text's shown calls) as the text calls it (``calls``), results read in
    the claim's shape. Where the text does not say which container the relevant documents come in and the listing
    fails on more inputs with the default than with the other (an exception, or a value off the chapter's, that only
    the harness's choice provokes), the run with the other container is the one checked. Returns (run, calls)."""
    def once(how: TextCalls):
        run = run_listing(source, claim.function, [_call(params, claim, i, reading, how) for i in items]
                          + [[values[p] for p in params] for values in shown], time_limit=CLAIM_BUDGET,
                          call_limit=CALL_LIMIT)
        run.results = [shaped(claim, r) for r in run.results]
        return run

    def failing(run) -> int:
        return sum(1 for i, r in zip(items, run.results) if not _repeats(i) and r.status in ("ok", "raises")
                   and refusal(r, own_guards) is None and not _agrees(r, chapter_value(claim, i, reading)))

    run = once(calls)
    if calls.relevant_said or "relevant set" not in claim.arguments.values() or run.load_error or run.unavailable:
        return run, calls
    first = failing(run)
    if not first:
        return run, calls
    other = calls.other()
    again = once(other)
    second = failing(again)
    if second < first:
        return again, replace(other, relevant_why=f"the text does not say which: no type hint, shown call or "
                                                  f"docstring does; given a {calls.relevant} it fails on {first} of "
                                                  f"{len(items)} inputs, given a {other.relevant} on {second}")
    return run, calls


def check(claim: CodeClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    book = ms.book
    listing, source = function_source(chapter.snapshot.text, claim.quote, claim.function, claim.builds_on,
                                      claim.occurrence)
    source, unused = text_calls.without_unused_imports(source)  # an import it never uses blocks nothing
    evidence.scopes.extend(unused)
    printed = source  # what the syntax check reads: the listing's own lines, never the replacements put before them
    removed = removed_numpy(source)
    if removed:
        # a name the installed NumPy removed: named, and the listing's logic checked with its replacement
        source = with_numpy_replacements(source, removed)
        evidence.conditions.append(Point(*removed_numpy_finding(removed)))
    params = _parameters(claim, source)
    defaults = parameter_defaults(source, claim.function)
    own_guards = guards(source, claim.function)  # the preconditions it checks and raises on, on purpose
    # a constant the claim does not give is called with the listing's own default
    claim = claim.model_copy(update={"constants": {**{p: defaults[p] for p, role in claim.arguments.items()
                                                      if role == "constant" and p in defaults}, **claim.constants}})
    reading = base_reading(chapter.declared_for(claim))
    shown = [shown_arguments(claim, c.call, params, defaults, c.given) for c in claim.calls]
    # how the text calls the function (the container of the relevant documents, the type of the IDs): the harness
    # calls it so
    calls = text_calls.read(claim.arguments, source, claim.function,
                            shown + text_calls.shown_call_values(chapter.snapshot.text, claim.function, params))
    edges = [text_calls.with_ids(e, calls) for e in edge_inputs(claim)]
    scored_repeats = reading["repeated_ids"] != "reject"
    generated = [text_calls.with_ids(g, calls) for g in _generated(claim, SAMPLE, SEED, repeats=scored_repeats)]
    items = edges + generated
    deadline = time.monotonic() + CLAIM_BUDGET
    run, calls = _run_as_called(claim, source, params, items, shown, reading, calls, own_guards)
    said = text_calls.how_called(claim.function, claim.arguments, calls)
    if said:
        evidence.scopes.append(said)
    shown_results = run.results[len(items):]
    run.results = run.results[:len(items)]
    uncertified = beyond_computing(printed)
    if uncertified:
        # Decided from its text, whatever it returned: what it does could make it answer the audit otherwise than
        # a reader who calls it. It still runs (in the sandbox) so that the report shows what it did there.
        evidence.errors.append(
            f"{NOT_CERTIFIED}: it " + "; it ".join(f"{what} ({_where(listing, printed, line)})"
                                                   for line, what in uncertified)
            + ". Metric code needs none of this, and a listing that uses it can answer the audit otherwise than a "
            "reader who calls it, so no result of it is certified"
            + (f" ({ALLOWED_TEXT})" if any(what.startswith("imports ") for _, what in uncertified) else ""))
        evidence.error_concern = ("The listing does more than compute; what it returns here may not be what a reader who "
                                  "runs it gets.")
    if run.unavailable:
        evidence.errors.append(f"not run: isolation unavailable ({run.unavailable}); listings never run unconfined")
        return evidence
    absent = next(filter(None, (missing_module(said) for said in
                                [run.load_error, *(r.text for r in run.results + shown_results if r.status == "raises")])),
                  None)
    if absent:
        # not the listing's fault: the sandbox could not give it a module it imports; nothing of it was checked.
        # The name is the listing's (an identifier): shown literally
        allowed = absent in ALLOWED_MODULES
        absent = markdown_literal(clean(absent))
        # exactly what happened: it did not load, so nothing ran; an error about certifying its results says nothing
        evidence.errors[:] = [e for e in evidence.errors if not e.startswith(NOT_CERTIFIED)]
        evidence.error_concern = ""
        evidence.errors.append(f"not run: the listing imports {absent} and uses it, and the listing sandbox cannot "
                               f"provide it (it offers the standard library and the packages installed beside "
                               f"chapter-audit), so the listing did not load and nothing it computes was run or checked")
        evidence.concern = "The listing was not run, so nothing it computes was checked."
        evidence.response = (f"To check it, {how_to_provide(absent)}; then rerun." if allowed else
                             f"{absent} is also outside what a listing may import ({ALLOWED_TEXT}): to check it, "
                             f"compute the measure without {absent}, or {how_to_provide(absent)} and expect the result "
                             "to be reported as not certified; then rerun.")
        return evidence
    unbound = _earlier_name(chapter.snapshot.text, listing,
                            [run.load_error, *(r.text for r in run.results + shown_results if r.status == "raises")])
    if unbound:
        # never the listing's fault: the text binds the name before it, in a way the audit did not bring along
        name, line = unbound
        evidence.errors.append(f"not checked: the listing uses {name}, which an earlier listing binds (snapshot line "
                               f"{line}), and it ran without it (NameError)")
        evidence.concern = "The listing was not run as the text runs it, so nothing it computes was checked."
        evidence.response = (f"Add the line that binds {name} (snapshot line {line}) to the claim's builds_on, or bind "
                             f"it at module level in that listing; then rerun.")
        return evidence
    in_prose = _prose_name(chapter.snapshot.text, [run.load_error, *(r.text for r in run.results + shown_results
                                                                      if r.status == "raises")])
    if in_prose:
        # the listing reads a global the text gives in its prose ("Relevant: `[...]`"), not in code: every input
        # that reaches it raises a NameError, which says nothing about what the function computes
        name, line = in_prose
        evidence.errors.append(f"not checked: the listing uses {name}, which no listing binds; the text gives it in "
                               f"prose (snapshot line {line}), so the listing raised a NameError wherever it reads it")
        evidence.concern = "The listing was not run as the text runs it, so nothing it computes was checked."
        evidence.response = (f"The audit gives a listing only its parameters and what earlier listings bind: mark the "
                             f"claim `not checkable` with this reason, or check the values the text prints with "
                             f"value claims; a listing that binds {name} before this one would let it run.")
        return evidence
    if run.load_error:
        evidence.failures.append(Point(f"the listing does not load ({quote(LISTING_EXCEPTION, run.load_error)})",
                                       "Fix the listing so it runs as printed."))
        return evidence
    for v in run.violations:
        evidence.failures.append(Point(f"the sandbox stopped the listing: it {v}",
                                       "Remove the side effect from the listing: it must only compute its value."))
    book_rule = book.repeated_id_rule(chapter.identity.id) if book else ""
    declared = chapter.declared_for(claim)
    stated_rule = declared.stated("repeated_ids")
    rule = f"{book_rule}'s rule" if book_rule else "the chapter's rule" if stated_rule else "as trec_eval does"
    fixes = {label: fix.format(rule=rule) if _cutoff_role(claim) else fix.format(rule=rule).replace(" before cutting at k", "")
             for label, _, _, _, fix in EDGES}
    shown_inputs = [shown_input(claim, values) for values in shown]
    known = [(i, item) for i, item in enumerate(shown_inputs) if item is not None and not _repeats(item)]
    theirs = reference_values(claim, ms, [item for _, item in known], base_reading(declared))
    shown_refs = [{} for _ in shown]
    for (i, _), values in zip(known, theirs):
        shown_refs[i] = values
    sessions = session_calls(chapter.snapshot.text)
    undecided = _shown_calls(claim, shown, shown_results, base_reading(declared), book_rule, bool(stated_rule),
                             evidence, shown_refs, [c.call in sessions and unwrapped(c.call) == c.call
                                                    for c in claim.calls])  # round(…, 4) prints 4 decimals
    # Edge cases: one row each.
    edge_rows = []
    reading = base_reading(declared)
    conflicted = False
    failing = [(n, item) for n, (item, result) in enumerate(zip(edges, run.results))
               if not _repeats(item) and not _finite_value(result) and result.status in ("ok", "raises")]
    edge_refs = dict(zip((n for n, _ in failing),
                         reference_values(claim, ms, [item for _, item in failing], reading)))
    refused_edges: dict[Guard, list[tuple[str, str]]] = {}
    for n, (item, result) in enumerate(zip(edges, run.results)):
        expected = chapter_value(claim, item, reading)
        problem = _problem(result, expected, item, book_rule, stated_rule, _bounded(claim))
        guard = refusal(result, own_guards) if problem and expected != "rejects" else None
        if guard is not None:
            # outside what the listing claims: it checks this precondition and refuses the input on purpose
            refused_edges.setdefault(guard, []).append((item.label, result.text))
            edge_rows.append([item.label, described(claim, item), exact_text(expected), result.status,
                              f"refuses it by its own check ({_refused(guard, result)})"])
            continue
        said = references_text(edge_refs.get(n, {}))
        if problem and said:
            # an exception or a nan where readers' tools give a value: what they give is named
            problem += f", where {said}" if result.status == "raises" else f"; {said}"
        refused = result.status == "raises" and not problem  # a refusal the chapter allows is not agreement in value
        edge_rows.append([item.label, described(claim, item), "rejects" if expected == "rejects" else
                          exact_text(expected),
                          returned_text(result) if result.status == "ok" else result.status,
                          problem or ("refuses it, as the chapter rejects such a ranking" if refused and
                                      expected == "rejects" else "refuses k < 1, which the fix allows" if refused
                                      else "agrees")])
        if problem and item.label in ADVISORY and (result.status == "ok" or calls.ids == "int"):
            # No chapter (and no TREC file) defines IDs that are not text: how a listing compares 1 and "1" is
            # reported, never counted against it; nor is an exception on a text ID mixed in, where the text's own
            # calls pass integer IDs (an int() of it, an index into an array of items).
            evidence.scopes.append(f"on {item.label} ({described(claim, item)}) it {problem.replace(chr(39) + 's definition', chr(39) + 's text-ID reading')}"
                                   " — not counted: the chapter does not define IDs that are not text")
        elif problem:
            fix = fixes[item.label]
            if "per-query values" in claim.arguments.values() and not any(_call(params, claim, item, reading, calls)):
                fix = ("return 0.0 when given no per-query values (the chapter's definitions give none for a run "
                       "whose one query is dropped)")
            evidence.conditions.append(Point(f"on {item.label} ({described(claim, item)}) it {problem}", fix))
            if expected == "rejects" and book is not None and not conflicted:
                conflicted = True  # one book-level conflict per listing, on the first repeated-ID case
                head = problem.split(" where ")[0] if result.status == "ok" else problem  # never cut inside a quote
                book.conflict(chapter.identity.id, claim.id, f"{claim.function}() {head} "
                              f"on a ranking that repeats an ID ({described(claim, item)})")
    first, last = _function_lines(listing, claim.function)
    place = chapter.snapshot.place(first)
    evidence.checks.append(Check(label=f"{claim.function}() (snapshot lines {first}–{last}"
                                       + (f"; {place}" if place else "") + ") on the edge cases; "
                                       f"run in {run.isolation}",
                                 measure=claim.measure, table=[["edge case", "input", "chapter", "listing", "finding"]]
                                 + edge_rows))
    # Generated input, against the chapter and every reference: the inputs its own checks refuse are outside what
    # it claims, and it is compared on the others
    gen_results = run.results[len(edges):]
    refused_generated = [(i, r, refusal(r, own_guards)) for i, r in zip(generated, gen_results)]
    refused_generated = [(i, r, g) for i, r, g in refused_generated
                         if g is not None and not _agrees(r, chapter_value(claim, i, reading))]
    if refused_generated:
        out = {id(i) for i, _, _ in refused_generated}
        accepted = [(i, r) for i, r in zip(generated, gen_results) if id(i) not in out]
        generated, gen_results = [i for i, _ in accepted], [r for _, r in accepted]
    refusal_notes = _refusal_notes(claim, refused_edges, refused_generated, len(generated) + len(refused_generated))
    evidence.scopes.extend(refusal_notes)
    # a listing cannot pass certification by refusing the inputs it is checked on: of the ordinary ones (k within a
    # ranking that retrieves something relevant, no repeated ID), it must accept most
    ordinary = [i for i in [*generated, *(i for i, _, _ in refused_generated)]
                if not (_past_end(i) or _edge_like(i) or _repeats(i))]
    refused_ordinary = [i for i, _, _ in refused_generated if not (_past_end(i) or _edge_like(i) or _repeats(i))]
    if refused_ordinary and len(refused_ordinary) > REFUSED_AT_MOST * len(ordinary):
        evidence.conditions.append(Point(
            f"it refuses {len(refused_ordinary)} of the {len(ordinary)} ordinary generated inputs (k within a "
            "ranking that retrieves something relevant) by its own checks, so what it computes was compared on "
            f"{len(generated)} of {len(generated) + len(refused_generated)} generated inputs only; the smallest "
            f"refused, {described(claim, min(refused_ordinary, key=lambda i: (_size(i), described(claim, i))))}, "
            "where the chapter's definition and the references give a value",
            "Compute the measure on every well-formed input readers pass (the references give a value on each), or "
            "state in the text which inputs the function takes."))
    bad = [(i, r) for i, r in zip(generated, gen_results) if not _agrees(r, chapter_value(claim, i, reading))]
    for point in undecided if bad else []:  # wrong on generated input: the listing may be at fault on the call too
        point.wording = point.wording[:-1] + ", or correct the listing."
    ref_rows = _references(claim, ms, generated, gen_results, reading)
    evidence.checks.append(Check(label=f"{claim.function}() on {len(generated)} generated well-formed inputs "
                                       + ("(a third repeating one ID, which the chapter's rule scores; the "
                                          "references are compared on the others; " if scored_repeats and
                                          not _multi(claim) and sees_ids(claim)
                                          else "(distinct IDs, ")
                                       + f"non-empty relevant set; seed {SEED})",
                                 measure=claim.measure, values=ref_rows))
    stopped = [r for r in gen_results if r.status == "not run"]
    if stopped:
        evidence.failures.append(Point(
            f"not tried on every input: {len(stopped)} of {len(generated)} generated inputs were not run "
            f"({stopped[0].detail}; {CALL_LIMIT:g} s per call, {CLAIM_BUDGET:g} s for the listing)",
            "Make the listing finish promptly on every input."))
        return evidence
    if not generated:
        return evidence  # every generated input refused: nothing it computes was compared (said above)
    if bad and (run.violations or uncertified):
        return evidence  # the sandbox's verdict, or the listing's text, is the finding; no shrinking
    found = listing_reading(claim, generated, gen_results, reading) if bad else []
    if found and not any(declared.stated(n) or not declared.reads(n, v) for n, v in found):
        # where it returns a number it follows a reading the text leaves open (and someone uses): qualified, as a
        # printed value under such a reading is, not wrong; what remains (exceptions) is judged below
        settings = " and ".join(f"{CONVENTIONS[n].title} “{v}”" for n, v in found)
        evidence.conditions.append(Point(
            f"where it returns a number it computes {claim.measure} with {settings}, {FOLLOWS_OPEN_READING} give the "
            f"listing's value on every generated input where it "
            f"returns one; " + "; ".join(f"{CONVENTIONS[n].title}: {CONVENTIONS[n].source}" for n, _ in found) + ")",
            "State the convention the listing follows, e.g. “Here "
            + "; ".join(CONVENTIONS[n].phrase(v) for n, v in found) + ".”"))
        evidence.lead = ""
        bad = [(i, r) for i, r in bad if r.status != "ok"]
    rounding = _rounding(claim, generated, gen_results, reading) if bad and not found else None
    if rounding:
        # it computes the measure and rounds it for display: qualified by the places it keeps, never wrong
        evidence.conditions.append(rounding)
        evidence.lead = ""
        bad = [(i, r) for i, r in bad if r.status != "ok"]
    # an exception only where k is past the end of a ranking is of the edge case's kind too
    edgy = [(i, r) for i, r in bad if _edge_like(i) or _repeats(i) or (r.status == "raises" and _past_end(i))]
    if bad and len(edgy) == len(bad):
        # it fails only on inputs of the edge cases' kinds (a repeated ID, nothing relevant in the first k, nothing
        # retrieved, k past the end of the ranking where it raises): qualified as the edge cases are, not wrong on
        # ordinary input
        smallest, result = min(edgy, key=lambda pair: (_size(pair[0]), described(claim, pair[0])))
        expected = chapter_value(claim, smallest, reading)
        kinds = " or ".join(dict.fromkeys(("repeating an ID" if _repeats(i) else
                                            "retrieving nothing relevant (or nothing at all)" if _edge_like(i) else
                                            "with k past the end of the ranking")
                                           for i, _ in edgy))
        said = references_text(reference_values(claim, ms, [smallest], reading)[0]) \
            if not _repeats(smallest) and not _finite_value(result) else ""
        evidence.conditions.append(Point(
            f"on {len(edgy)} of {len(generated)} generated inputs, each {kinds}, it disagrees with the chapter's "
            f"definition; the smallest, {described(claim, smallest)}: it "
            f"{_problem(result, expected, smallest, book_rule, stated_rule, _bounded(claim))}"
            + (f" where the chapter's definition gives {exact_text(expected)}"
               if result.status != "ok" and not isinstance(expected, str) else "")
            + (f" ({said})" if said else ""),
            fixes["repeated ID before the cutoff"] if _repeats(smallest) else
            "return 0.0 when nothing relevant is found" if _edge_like(smallest) else
            fixes["k larger than the ranking"]))
        bad = []
    if bad:
        if len(bad) == len(generated):
            # Wrong everywhere: the smallest generated input is as telling as a shrunk one.
            smallest, result = min(bad, key=lambda pair: (_size(pair[0]), described(claim, pair[0])))
            how = "the smallest of them"
        else:
            smallest, result, finished = _minimal(claim, source, params, bad[0][0], bad[0][1], deadline, reading,
                                                  own_guards, calls)
            how = "the smallest" if finished else (f"the smallest found before the listing's {CLAIM_BUDGET:g} s "
                                                   "time limit ran out")
        expected = chapter_value(claim, smallest, reading)
        settings = " and ".join(f"{CONVENTIONS[n].title} “{v}”" for n, v in found)
        chapters = " and ".join(f"{CONVENTIONS[n].title} “{reading[n]}”" for n, _ in found)
        cause = (f"; where it returns a number it computes {claim.measure} with {settings}, where the chapter's is "
                 f"{chapters} (the chapter's definitions set so give the listing's value on every such input)"
                 if found else "")
        fixes = [CONVENTIONS[n].phrase(reading[n]) for n, _ in found]
        shift = cutoff_shift(claim, generated, gen_results, reading) if not found else None
        order = score_order(claim, generated, gen_results, reading) if not found and not shift else ""
        named = named_computation(claim, generated, gen_results, reading) if not found and not shift and not order \
            else None
        if named:
            computation, changed = named
            also = computes.changes_text(changed)
            cause = (f"; where it returns a number {computation.cause}"
                     + (f"; and with {also}" if also else "")
                     + " (that computation gives the listing's value on every such input)")
            fixes.append(computation.fix)
            fixes += [CONVENTIONS[n].phrase(reading[n]) for n in changed]
        if order:
            cause = ("; where it returns a number it ranks the documents "
                     + ("in the order their scores are listed, not by score" if order == "listed" else
                        "by score lowest first, not highest first")
                     + " (the chapter's definitions on that order give the listing's value on every such input)")
            fixes.append("it sorts the documents by score, highest first, before ranking them"
                         + (" (sorted(…, reverse=True))" if order == "ascending" else ""))
        if shift:
            late = shift > 0
            cause = (f"; where it returns a number it applies the cutoff {abs(shift)} rank{'s' * (abs(shift) > 1)} "
                     f"{'late' if late else 'early'}: it scores the first k {'+' if late else '−'} {abs(shift)} "
                     f"documents (the chapter's definitions at k {'+' if late else '−'} {abs(shift)} give the "
                     "listing's value on every such input)")
            fixes.append(f"it keeps the first k documents (ranking[:k]), not the first k {'+' if late else '−'} "
                         f"{abs(shift)}")
        if result.status == "raises":
            fixes.append(f"it returns {exact_text(expected)} on {described(claim, smallest)}, where it raises"
                         if not isinstance(expected, str) else "it does not raise on ordinary input")
        evidence.failures.append(Point(
            f"wrong on ordinary input: {len(bad)} of {len(generated)} generated inputs disagree with the chapter's "
            f"definition of {claim.measure}; {how}, {described(claim, smallest)}: it "
            f"{_problem(result, expected, smallest, book_rule, stated_rule, _bounded(claim))}{cause}",
            ("Correct the listing so that " + "; ".join(fixes) + ".") if fixes else
            "Correct the listing so it computes the measure as the chapter defines it."))
        return evidence
    evidence.scopes.append(f"{claim.function}() matches the chapter's definition of {claim.measure} on all "
                           f"{len(generated)} generated well-formed inputs (seed {SEED})"
                           + "".join(f"; {v.implementation} agrees on {v.detail}" for v in ref_rows if v.status == "ok")
                           + f", and on {sum(1 for r in edge_rows if r[-1] == 'agrees' or r[-1].startswith('refuses'))} of {len(edge_rows)} edge cases")
    if takes_no_ids(claim):
        # never a qualification: the function cannot be given an ID, so the rule is its caller's to keep
        evidence.scopes.append(f"{claim.function}() takes no document IDs, so a ranking that repeats one never reaches "
                               "it: reject or drop the repeat where its input is built")
    if evidence.conditions:
        evidence.lead = "It matches on well-formed input, but "
        evidence.concern = ("Readers who copy the listing get an exception or a wrong value on inputs they will "
                            "meet in practice.")
        fixes_text = "; ".join(dict.fromkeys(p.wording for p in evidence.conditions))
        for point in evidence.conditions:
            point.wording = ""
        evidence.conditions[0].wording = f"Fix the listing: {fixes_text}."
    return evidence


def _earlier_name(text: str, listing, said: list[str | None]) -> tuple[str, int] | None:
    """``(name, snapshot line)`` for a NameError the listing raised on a name an earlier listing binds; else None."""
    from audit.text.listings import bound_earlier

    for one in said:
        m = re.match(r"NameError: name '([A-Za-z_]\w*)' is not defined", one or "")
        if m:
            line = bound_earlier(text, listing, m.group(1))
            if line is not None:
                return m.group(1), line
    return None


def _prose_name(text: str, said: list[str | None]) -> tuple[str, int] | None:
    """``(name, snapshot line)`` for a NameError the listing raised on a name no listing binds and the text gives
    in its prose (``audit.text.listings.given_in_prose``); else None: a name the text gives nowhere is the
    listing's own mistake."""
    from audit.text.listings import given_in_prose

    for one in said:
        m = re.match(r"NameError: name '([A-Za-z_]\w*)' is not defined", one or "")
        if m:
            line = given_in_prose(text, m.group(1))
            if line is not None:
                return m.group(1), line
    return None


def _refused(guard: Guard, result: CallResult) -> str:
    """A refusal as the report shows it: the listing's check and its exception, each quoted as the listing's text."""
    return f"{quote(LISTING_CHECK, guard.wording())}, {quote(LISTING_EXCEPTION, result.text)}"


def _refusal_notes(claim: CodeClaim, edges: dict[Guard, list[tuple[str, str]]], generated: list,
                   total: int) -> list[str]:
    """One note for each of the listing's own checks that refused an input: the edge cases and the number of generated
    inputs it refused, which are outside what the listing claims to compute."""
    out = []
    for guard in dict.fromkeys([*edges, *(g for _, _, g in generated)]):
        mine = [(i, r) for i, r, g in generated if g == guard]
        labels = [label for label, _ in edges.get(guard, [])]
        what = [f"the edge case{'s' * (len(labels) > 1)} " + ", ".join(labels)] if labels else []
        if mine:
            what.append(f"{len(mine)} of {total} generated inputs")
        text = mine[0][1].text if mine else edges[guard][0][1] if labels else None
        out.append(f"{claim.function}() checks its arguments and refuses {' and '.join(what)} on purpose ("
                   + quote(LISTING_CHECK, guard.wording())
                   + (f", {quote(LISTING_EXCEPTION, text)}" if text else "")
                   + "): inputs outside what it computes, not counted against it")
    return out


def shown_input(claim: CodeClaim, values: Mapping[str, object]) -> Input | None:
    """The chapter's input for a call the text shows (its arguments by parameter name): the ranking, relevant set,
    cutoff, grades in rank order (documents named r1, r2 … when no ranking is given) or judgements the call passes;
    None when its arguments are not of those shapes."""
    by_role = {role: values[p] for p, role in claim.arguments.items() if p in values}
    try:
        item = _shown_input(by_role)
        if item is None or "cutoffs" not in by_role:
            return item
        cutoffs = tuple(by_role["cutoffs"])
        if any(isinstance(c, bool) or not isinstance(c, int) for c in cutoffs):
            return None
        return replace(item, cutoffs=cutoffs)
    except (TypeError, ValueError):
        return None


def _by_score(scored) -> tuple:
    """The documents of a {document: score} mapping or (document, score) pairs, highest score first (equal scores
    in the order listed)."""
    pairs = list(dict(scored).items()) if isinstance(scored, Mapping) else [tuple(pair) for pair in scored]
    return tuple(d for d, _ in sorted(pairs, key=lambda pair: -float(pair[1])))


def _shown_input(by_role: dict) -> Input | None:
    k = by_role.get("cutoff")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int)):
        return None
    if "per-query values" in by_role:
        return None  # the values are the input: the chapter's definitions have no ranking to score
    if "ranked grades by query" in by_role:
        queries = [(f"q{j}", graded_input(tuple(f"r{i}" for i in range(1, len(grades) + 1)),
                                          {f"r{i}": int(g) for i, g in enumerate(grades, start=1)}, None, "shown"))
                   for j, grades in enumerate(by_role["ranked grades by query"], start=1)]
        return run_input(queries, k, "shown")
    for role in SCORED_ROLES:
        if role in by_role:
            by_role = {**by_role, "ranking": _by_score(by_role[role])}
    if "qrels by query" in by_role:
        judged = {str(q): {str(d): int(g) for d, g in dict(j).items()} for q, j in dict(by_role["qrels by query"]).items()}
        if "scored run" in by_role:
            ranked = {str(q): list(_by_score(docs)) for q, docs in dict(by_role["scored run"]).items()}
        else:
            ranked = {str(q): list(docs) for q, docs in dict(by_role["run"]).items()}
        queries = [(q, graded_input(tuple(ranked.get(q, ())), judged[q], None, "shown")) for q in judged]
        return run_input(queries, k, "shown")
    if "ranked grades" in by_role:
        grades = [int(g) for g in by_role["ranked grades"]]
        ranking = tuple(by_role.get("ranking") or (f"r{i}" for i in range(1, len(grades) + 1)))
        judged = {str(d): g for d, g in zip(ranking, grades)}
        if by_role.get("judged grades") is not None:
            # the judged grades the ranking does not hold belong to documents it did not retrieve
            rest = sorted(int(g) for g in by_role["judged grades"])
            for g in grades:
                if g in rest:
                    rest.remove(g)
                elif g != 0:  # a ranked grade that is not judged: the call contradicts itself
                    return None
            judged.update({f"u{i}": g for i, g in enumerate(rest, start=1)})
        return graded_input(ranking, judged, k, "shown")
    if "qrels" in by_role:
        qrels = {str(d): int(g) for d, g in dict(by_role["qrels"]).items()}
        return graded_input(tuple(by_role.get("ranking") or ()), qrels, k, "shown")
    return Input(tuple(by_role.get("ranking") or ()), frozenset(by_role.get("relevant set") or ()), k, "shown")


class Printed:
    """The value a text prints after a call: one number, or a list or mapping of numbers (``shape``), each read
    with its printed precision."""

    def __init__(self, claim: CodeClaim, text, tolerance: str | None):
        self.text = str(text)
        self.entries = ([(None, parse_claimed(text, tolerance=tolerance))] if claim.shape == "number" else
                        parse_claimed_parts(text, tolerance=tolerance))
        self.single = claim.shape == "number"

    def _pairs(self, values: list[tuple]) -> list[tuple] | None:
        if len(values) != len(self.entries):
            return None
        if self.single or all(k is None for k, _ in self.entries):
            return [(c, v) for (_, c), (_, v) in zip(self.entries, values)]
        mine = {k: c for k, c in self.entries}
        if set(mine) != {str(k) for k, _ in values}:
            return None
        return [(mine[str(k)], v) for k, v in values]

    def holds(self, values: list[tuple]) -> bool:
        """Whether (key, number) pairs lie in the printed intervals, entry by entry, each at its printed precision
        (``printed_holds``)."""
        pairs = self._pairs(values)
        return pairs is not None and all(printed_holds(c, v) for c, v in pairs)

    def written_like(self, values: list[tuple], doctest: bool = False) -> str:
        """``values`` printed as the text printed its own (each entry's precision and style; keys kept); for a
        doctest's output, one number as Python prints the float (its shortest repr, what doctest compares)."""
        pairs = self._pairs(values)
        if self.single and doctest:
            return repr(float(pairs[0][1]))
        if self.single:
            return pairs[0][0].write_like(pairs[0][1])
        out, at = [], 0
        for c, v in pairs:
            if not self.single and ":" in self.text[at:] and any(k is not None for k, _ in self.entries):
                colon = self.text.index(":", at) + 1
                out.append(self.text[at:colon])
                at = colon
            i = self.text.index(c.text, at)
            new = c.write_like(v)
            out += [self.text[at:i], new if c.text.lstrip().startswith(("≈", "~")) else new.removeprefix("≈ ")]
            at = i + len(c.text)
        return "".join(out) + self.text[at:]


#: Significant digits beyond which a printed decimal says more than double arithmetic carries (a double holds 15 to
#: 17): such an output (Python 2's ``repr``, ``%.17g``) is read as the double it denotes.
DOUBLE_DIGITS = 16
#: Units in the last place by which a computed double may miss the exact value: a metric sums and divides a few
#: dozen terms, each rounded once.
DOUBLE_ULPS = 8


def significant_digits(text: str) -> int:
    """The significant digits of the number printed in ``text`` (0.61314719276545848: 17; 0.50: 2; 3.0: 2)."""
    m = re.search(r"\d[\d_]*(?:\.\d*)?|\.\d+", str(text))
    if not m:
        return 0
    digits = m.group().replace(".", "").replace("_", "").lstrip("0")
    return len(digits)


def printed_holds(printed, value) -> bool:
    """Whether ``value`` (a listing's float or the chapter's exact value) is the number a text prints, compared at
    its printed precision: a decimal of ``DOUBLE_DIGITS`` or more significant digits is the double it denotes,
    within ``DOUBLE_ULPS`` of the value (a 17-digit 0.61314719276545848 is the double 0.6131471927654585, and 1/3
    is 0.33333333333333331); a shorter decimal is its interval (0.6131 is [0.61305, 0.61315]), so a wrong digit at
    the printed precision never holds; an exact value (1/3) is compared as a printed value always is."""
    if printed.nominal is None or printed.exact or printed.approximate or printed.style not in ("decimal",):
        return printed.contains(value)
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if significant_digits(printed.text) >= DOUBLE_DIGITS:
        near = float(value)
        return abs(float(printed.nominal) - near) <= DOUBLE_ULPS * math.ulp(near)
    if isinstance(value, float):
        x = Fraction(value)
        # a double's rounding, but never as much as a thousandth of the printed interval
        slack = min(max(abs(x), Fraction(1)) * Fraction(1, 10 ** 9), (printed.high - printed.low) / 1000)
        return printed._inside(x, slack)
    return printed.contains(value)


def _entries(result: CallResult) -> list[tuple]:
    return list(result.values) if result.values is not None else [(None, result.value)]


def _expected_entries(expected) -> list[tuple]:
    return list(expected) if isinstance(expected, tuple) else [(None, expected)]


def session_calls(text: str) -> set[str]:
    """The calls the text's doctests make (``>>> f(…)`` or ``>>> print(f(…))``), as a claim's ``calls`` write them."""
    from audit.text.doctests import examples

    return {e.source[len("print("):-1] if e.source.startswith("print(") and e.source.endswith(")") else e.source
            for e in examples(text)}  # round(f(…), 4) as printed: its output is compared at the printed precision


def printed_like(written: str, call) -> str:
    """A corrected output as the text printed the call's: approximately (“≈ 0.6667”) only when the text printed an
    approximation; otherwise the value at its precision (“0.6667”), as a doctest or an output comment prints it.
    The finding's wording and the patch both write it so."""
    if not str(call.returns).lstrip().startswith(("≈", "~")):
        return written.removeprefix("≈ ")
    return written


#: A float a doctest prints in full (its repr, 15 or more digits after the point): doctest compares it as text.
_FULL_REPR = re.compile(r"-?\d+\.\d{15,}")


def _doctest_prints(printed: str, entries: list[tuple]) -> bool:
    """Whether the float a doctest prints in full (``printed``) is the float returned: printed to 16 or 17 digits, a
    float names one double, so 0.9488107485678985 is not what a doctest printing 0.9488107485678984 saw, though both
    round alike (0.33333333333333331, as Python 2 printed it, names the double Python 3 prints 0.3333333333333333).
    Any other output is held at its printed precision (``Printed.holds``)."""
    text = str(printed).strip()
    if not _FULL_REPR.fullmatch(text) or len(entries) != 1:
        return True
    value = entries[0][1]
    try:
        return float(text) == float(value)
    except (TypeError, ValueError, OverflowError):
        return True


def _exception_name(text: str) -> str:
    """The exception's class name in ``Type: message`` (a dotted ``module.Type`` named by its last part)."""
    return text.split(":", 1)[0].strip().rsplit(".", 1)[-1]


def _shown_calls(claim: CodeClaim, shown: list[dict], results: list[CallResult], reading, book_rule: str,
                 stated: bool, evidence: Evidence, refs: list[dict[str, float]] | None = None,
                 sessions: list[bool] | None = None) -> list[Point]:
    """Each call the text shows, run as printed (a doctest as doctest runs it): what it returns against the value the
    text prints, at its printed precision, or the exception it raises against the one a doctest expects; and against
    the chapter's definition and each reference's value on the same input (``refs``); a correction of a doctest's
    output (``sessions``: the call is a ``>>>`` example) is the float as Python prints it. A listing that returns the
    printed value where the chapter's definition gives another is wrong on the text's own example. Returns the points
    of a wrong printed value on a call the chapter's definitions could not be computed for (per-query values):
    whether the listing may be at fault too is known only once it has met the generated input (``check``)."""
    rows = []
    undecided = []
    refs = refs or [{} for _ in shown]
    sessions = sessions or [False for _ in shown]
    for c, values, result, theirs, session in zip(claim.calls, shown, results, refs, sessions):
        item = shown_input(claim, values)
        expected = chapter_value(claim, item, reading) if item is not None else None
        got = returned_text(result, precise=True) if result.status == "ok" else result.status
        printed = Printed(claim, c.returns, c.tolerance) if c.returns is not None else None
        right_code = expected is not None and not isinstance(expected, str) and _agrees(result, expected)
        said = references_text(theirs)
        problems = []
        if c.raises is not None:
            want = _exception_name(c.raises)
            if result.status == "raises" and _exception_name(result.text) == want:
                message = c.raises.partition(":")[2].strip()
                if message and result.text.partition(":")[2].strip() != message:
                    problems.append(f"raises {want} with another message ({quote(LISTING_EXCEPTION, result.text)})")
                    evidence.conditions.append(Point(
                        f"called as `{c.call}`, as the text shows, it raises {want} as the doctest expects, but "
                        f"with another message ({quote(LISTING_EXCEPTION, result.text)}), so doctest fails it",
                        f"Print the exception the call raises after it, or make the listing's message “{message}”."))
                got = f"raises {want}"
                if not problems:
                    problems.append(f"raises {want}, as the doctest expects")
            else:
                what = (f"returns {got}" if result.status == "ok" else
                        f"raises {quote(LISTING_EXCEPTION, result.text)}" if result.status == "raises" else
                        _problem(result, 0, item or Input((), frozenset(), None), book_rule, stated, _bounded(claim)))
                problems.append(f"{what}, not the {want} the doctest expects")
                evidence.failures.append(Point(
                    f"called as `{c.call}`, as the text shows, it {what}, where the doctest expects {want}",
                    "Print what the call returns after it, or make the listing raise "
                    f"{want} on this input."))
                got = what.removeprefix("returns ") if result.status == "ok" else got
            if expected is not None and not isinstance(expected, str):
                # a refusal is the listing's design; readers' tools give a value here (the edge cases judge it)
                problems.append(f"the chapter's definition gives {exact_text(expected)}"
                                + (f" ({said})" if said else ""))
        elif result.status != "ok":
            problems.append(_problem(result, expected if expected is not None else 0, item or Input((), frozenset(),
                                                                                                     None),
                                     book_rule, stated, _bounded(claim)))
        elif printed is not None and (not printed.holds(_entries(result)) or session and not _doctest_prints(
                c.returns, _entries(result))):
            problems.append(f"returns {got}, not the printed {c.returns}")
            # where the listing agrees with the chapter's definition here, the printed value alone is wrong
            either = "." if right_code or expected is None else ", or correct the listing."
            fix = ("Change “{}” to “{}” after the call{}".format(
                c.returns, printed.written_like([(k, v) for k, v in _entries(result)], True) if session else
                printed_like(printed.written_like([(k, Fraction(v).limit_denominator(10 ** 6)) for k, v in
                                             _entries(result)]), c),
                either)
                   if printed._pairs(_entries(result)) is not None else
                   f"Print what the call returns ({got}) after it{either}")
            point = Point(f"called as `{c.call}`, as the text shows, it returns {got}, not the printed {c.returns}", fix)
            evidence.failures.append(point)
            if expected is None:
                undecided.append(point)
        if c.raises is None and expected is not None and not isinstance(expected, str) and result.status == "ok" \
                and not _agrees(result, expected):
            problems.append(f"the chapter's definition gives {exact_text(expected)}" + (f" ({said})" if said else ""))
            right = (printed.written_like(_expected_entries(expected), session)
                     if printed is not None and printed._pairs(_expected_entries(expected)) is not None else None)
            evidence.failures.append(Point(
                f"called as `{c.call}`, as the text shows, it returns {got} where the chapter's definition of "
                f"{_measure(claim, item.k) if claim.shape == 'number' else claim.measure} gives "
                f"{exact_text(expected)} on the same input" + (f" ({said})" if said else ""),
                f"Once the listing is corrected, the call returns {exact_text(expected)}: print “{right}” after it."
                if right is not None else "Correct the listing so it computes the measure as the chapter defines it."))
        elif c.raises is None and result.status != "ok":
            evidence.failures.append(Point(f"called as `{c.call}`, as the text shows, it {problems[0]}",
                                           "Correct the listing so the call the text shows runs."))
        if printed is not None and expected is not None and not isinstance(expected, str) \
                and not printed.holds(_expected_entries(expected)) and result.status == "ok" \
                and printed.holds(_entries(result)):
            problems.append("the printed value is the listing's, not the measure's")
        shown_as = str(c.returns) if c.returns is not None else f"raises {c.raises}" if c.raises else "—"
        rows.append([c.call, shown_as, got,
                     exact_text(expected) if expected is not None and not isinstance(expected, str)
                     else (expected or "—"), said or "—", "; ".join(problems) or "agrees"])
    if rows:
        evidence.checks.append(Check(label=f"{claim.function}() on the calls the text shows", measure=claim.measure,
                                     table=[["call", "printed", "listing", "chapter", "references", "finding"]] + rows))
        agreeing = [r for r in rows if r[-1] == "agrees"]
        for checked in (True, False):  # the calls the chapter's definitions were computed for, and the others
            these = [r[0] for r in agreeing if (r[3] != "—") == checked]
            if these:
                evidence.scopes.append(
                    f"the call{'s' if len(these) > 1 else ''} the text shows (" + ", ".join(f"`{a}`" for a in these)
                    + f") return{'' if len(these) > 1 else 's'} what the text prints"
                    + (" and the chapter's definition gives" if checked else
                       " (the chapter's definitions have no input to compare: the call passes per-query values)"))
        raising = [r[0] for r in rows if r[1].startswith("raises ") and r[-1].startswith(f"{r[2]}, as the doctest")]
        if raising:
            evidence.scopes.append(
                f"the call{'s' if len(raising) > 1 else ''} " + ", ".join(f"`{a}`" for a in raising)
                + f" raise{'' if len(raising) > 1 else 's'} the exception the doctest expects")
    return undecided


def _rounding(claim: CodeClaim, items: list[Input], results: list[CallResult], reading) -> Point | None:
    """The finding for a listing whose every returned number is the chapter's value rounded to a few places
    (``audit.evaluation.checks.rounding``); None when it is not so."""
    pairs = [(r.value, chapter_value(claim, i, reading)) for i, r in _answered(items, results)]
    if not pairs or any(g is None or isinstance(e, (str, tuple)) or e is None for g, e in pairs):
        return None
    places = rounded_places([(g, Fraction(e)) for g, e in pairs])
    if places is None:
        return None
    got, exact = next((g, e) for g, e in pairs if g != float(e))
    return Point(f"it returns {claim.measure} rounded to {places_text(places)}: on each of the {len(pairs)} generated "
                 f"inputs where it returns a number, its value is the chapter's rounded so (it returns {fmt_float(got)} "
                 f"where the chapter's definition gives {exact_text(exact)})",
                 f"return the unrounded value and round it where it is printed (it returns {claim.measure} rounded to "
                 f"{places_text(places)}), or say that it does")


def _answered(items: list[Input], results: list[CallResult]) -> list[tuple[Input, CallResult]]:
    """The inputs the listing answered with a value, each with its result; a ranking that repeats an ID is left out
    (an edge case's kind, judged on its own), and so is a nan or an infinity (NumPy's 0 / 0 and 1 / 0, reported on
    its own as an exception is), so the readings below are read off the others."""
    return [(i, r) for i, r in zip(items, results) if r.status == "ok" and not _repeats(i) and _finite(r)]


def _past_end(item: Input) -> bool:
    """Whether a cutoff lies past the end of a ranking (of some query, for a run)."""
    ks = [item.k] if item.k is not None else list(item.cutoffs)
    lengths = [len(i.ranking) for _, i in item.queries] if item.queries else [len(item.ranking)]
    return any(k > n for k in ks for n in lengths)


def _finite_value(result: CallResult) -> bool:
    """Whether a call returned numbers, all finite (not an exception, a nan or an infinity)."""
    return result.status == "ok" and _finite(result)


def _finite(result: CallResult) -> bool:
    """Whether every number a call returned is finite."""
    numbers = ([] if result.value is None else [result.value]) + [v for _, v in result.values or ()]
    return all(math.isfinite(v) for v in numbers)


def score_order(claim: CodeClaim, items: list[Input], results: list[CallResult],
                reading: Mapping[str, str]) -> str:
    """Whether a listing given scores ranks the documents other than by score, highest first, found by experiment:
    ``"listed"`` when the chapter's definitions on the documents in the order the scores are listed give the
    listing's value on every input where it returned a number, ``"ascending"`` when they do on the documents by
    score, lowest first; "" when neither does or the listing takes no scores."""
    if not (_scored(claim) or "scored run" in claim.arguments.values()):
        return ""
    pairs = _answered(items, results)

    def reordered(item: Input, how: str) -> Input:
        def order(one: Input) -> tuple:
            listed = tuple(d for d, _ in _scores(one.ranking))
            return listed if how == "listed" else tuple(reversed(one.ranking))
        if item.queries:
            return replace(item, queries=tuple((q, replace(i, ranking=order(i))) for q, i in item.queries))
        return replace(item, ranking=order(item))

    for how in ("listed", "ascending"):
        moved = [(reordered(i, how), r) for i, r in pairs]
        if pairs and any(m.ranking != i.ranking or m.queries != i.queries for (m, _), (i, _) in zip(moved, pairs)) \
                and all(_agrees(r, chapter_value(claim, m, reading)) for m, r in moved):
            return how
    return ""


def cutoff_shift(claim: CodeClaim, items: list[Input], results: list[CallResult],
                 reading: Mapping[str, str]) -> int:
    """Whether the listing applies its cutoff off by one, found by experiment: +1 when the chapter's definitions at
    k + 1 (each cutoff one rank later) give the listing's value on every input where it returned a number, −1 when
    they do at k − 1; 0 when neither does, or the listing takes no cutoff."""
    if not _cutoff_role(claim) and claim.shape != "at each k":
        return 0
    pairs = _answered(items, results)

    def moved(item: Input, d: int):
        out = []
        for key, part in parts(claim, item, reading):
            if part.k is None or part.k + d < 0:
                return None
            value = _value(claim, replace(part, k=part.k + d), reading)
            if isinstance(value, str):
                return None
            out.append((key, value))
        if claim.shape == "per query":  # the queries the definitions leave out stay out (None), as in chapter_value
            out = [(q, dict(out).get(q)) for q, _ in item.queries]
        return out[0][1] if claim.shape == "number" else tuple(out)

    for d in (1, -1):
        values = [moved(i, d) for i, _ in pairs]
        if pairs and all(v is not None for v in values) and all(_agrees(r, v) for (_, r), v in zip(pairs, values)):
            return d
    return 0


def named_computation(claim: CodeClaim, items: list[Input], results: list[CallResult],
                      reading: Mapping[str, str]) -> tuple[computes.Computation, dict[str, str]] | None:
    """Which known computation mistaken for the claim's measure (``computes.COMPUTATIONS``: precision at the last
    relevant rank for R-precision, DCG with ranks 1 and 2 undiscounted …) the listing computes, found by experiment:
    the first whose value, under the chapter's reading or the fewest changes to the conventions it is tried under,
    is the listing's on every input where the listing returned a number; with those changes. None when none is, or
    the listing is over several queries."""
    if _multi(claim):
        return None
    pairs = _answered(items, results)
    if not pairs:
        return None
    spec = parse_measure(_measure(claim, 1))[1]
    for computation in computes.candidates(spec.name):
        for changed in computes.readings(computation, reading):
            under = {**reading, **changed}

            def value(item: Input):
                out = []
                for key, part in parts(claim, item, under):
                    v = computation.value([str(d) for d in part.ranking], part.qrels(), part.k, under)
                    if v is None:
                        return None
                    out.append((key, v))
                return out[0][1] if claim.shape == "number" else tuple(out)

            values = [value(i) for i, _ in pairs]
            if any(v is None for v in values):
                continue
            if all(_agrees(r, v) for (_, r), v in zip(pairs, values)):
                return computation, changed
    return None


def listing_reading(claim: CodeClaim, items: list[Input], results: list[CallResult],
                    reading: Mapping[str, str]) -> list[tuple[str, str]]:
    """What the listing computes differently, found by experiment: the fewest conventions of the measure (one,
    then two) whose other values make the chapter's definitions return the listing's value on every input where the
    listing returned a number (an exception is reported on its own), as (convention, value) pairs; empty when no
    such reading exists or the listing returned no number. The ideal built from the ranking's own grades, linear
    gain where the chapter's is exponential, a cutoff not applied … each is such a reading."""
    import itertools

    pairs = _answered(items, results)
    if not pairs:
        return []
    spec = parse_measure(_measure(claim, 1))[1]
    names = [n for n in evaluator.relevant_to(spec.name, several_queries=any(i.queries for i, _ in pairs))
             if n not in ("repeated_ids", "ties", "prefix")]  # generated inputs repeat no ID and tie no score
    # a value a known computation stands for is left to it (``computes.NAMED_VALUES``), which names its source
    options = [(n, v) for n in names for v in CONVENTIONS[n].values
               if v != reading.get(n) and (n, v) not in computes.NAMED_VALUES]

    def agrees(changed: dict[str, str]) -> bool:
        under = {**reading, **changed}
        values = [chapter_value(claim, i, under) for i, _ in pairs]
        # a reading under which the definitions give one value everywhere (a relevance level above every grade:
        # nothing relevant) explains nothing: a listing returning that constant matches it trivially
        if changed and len({v for v in values if not isinstance(v, str)}) <= 1:
            return False
        return all(_agrees(r, v) for (_, r), v in zip(pairs, values))

    if agrees({}):
        return []  # where it returns a number it is the chapter's value: no convention explains a difference

    for size in (1, 2):
        for combo in itertools.combinations(options, size):
            if len({n for n, _ in combo}) == size and agrees(dict(combo)):
                return list(combo)
    return []


def _references(claim: CodeClaim, ms: Measurements, items: list[Input], results: list[CallResult],
                reading=None) -> list[ImplValue]:
    """How often each reference agrees with the listing on the generated inputs (one call per reference): each
    entry the listing returns (one number, a query's value, the value at a cutoff) against the reference's value
    of the same measure on the same queries, combined as the measure combines queries."""
    # a {document: score} run cannot hold a repeated ID: those inputs are the chapter's alone
    kept = [(i, item) for i, item in enumerate(items) if not _repeats(item)]
    queries = {i: (list(item.queries) if item.queries else [("", item)]) for i, item in kept}
    qrels = {f"g{i}~{q}": one.qrels() for i, ps in queries.items() for q, one in ps}
    run = {f"g{i}~{q}": {str(d): float(len(one.ranking) - r) for r, d in enumerate(one.ranking)}
           for i, ps in queries.items() for q, one in ps}
    # each input's entries: (measure, its name, the queries it is over, the listing's value)
    entries: dict[int, list[tuple]] = {}
    for i, item in kept:
        listing = _entries(results[i]) if results[i].status == "ok" else None
        mine = []
        for n, (key, part) in enumerate(parts(claim, item, reading)):
            measure, spec = parse_measure(_measure(claim, part.k if part.k else 1))
            if part.k is not None:
                measure = parse_measure(_measure(claim, part.k))[0]
            over = [q for q, _ in part.queries] if part.queries else [""]
            value = None
            if listing is not None:
                got = _paired(results[i], chapter_value(claim, item, reading)) if claim.shape != "number" else None
                value = listing[0][1] if claim.shape == "number" else (got[n][0] if got is not None else None)
            mine.append((measure, spec.name, over, value))
        entries[i] = mine
    distinct = list({str(m): m for es in entries.values() for m, _, _, _ in es}.values())
    rows = [ImplValue(implementation=CHAPTER, provider="book definitions, exact",
                      detail=f"{sum(_agrees(r, chapter_value(claim, i, reading)) for i, r in zip(items, results))} of "
                             f"{len(items)} inputs")]
    if not distinct:
        return rows
    for ref in ms.references:
        usable = [m for m in distinct if ref.supports(m).ok]
        if not usable:
            rows.append(ImplValue(implementation=ref.name, status="not applicable",
                                  detail=ref.supports(distinct[0]).reason))
            continue
        outcomes = ref.evaluate(usable, qrels, run)
        agree = total = 0
        provider = ""
        theirs: dict[int, list[float]] = {}  # each compared input's values by the reference, entry by entry
        for i, mine in entries.items():
            found = [outcomes.get(str(m)) for m, _, _, _ in mine]
            if any(o is None or o.status != "ok" for o in found):
                continue
            provider = found[0].provider if found else provider
            total += 1
            ok = True
            theirs[i] = []
            for outcome, (_, name, over, value) in zip(found, mine):
                values = {q: outcome.per_query[f"g{i}~{q}"] for q in over if f"g{i}~{q}" in outcome.per_query}
                theirs[i].append(float(evaluator.combine(name, values)) if values else 0.0)
                ok = ok and value is not None and abs(value - theirs[i][-1]) <= 1e-9
            agree += ok
        why = _reference_reading(claim, {i: items[i] for i in theirs}, theirs, reading) if agree < total else ""
        rows.append(ImplValue(implementation=ref.name, provider=provider, detail=f"{agree} of {total} inputs{why}",
                              in_interval=agree == total))
    return rows


def reference_values(claim: CodeClaim, ms: Measurements, items: list[Input], reading=None) -> list[dict[str, float]]:
    """Each reference's value of the claim's measure on each input (one call per reference), for a listing that
    returns one number: ``{reference: value}`` per input, a reference left out where it cannot express the measure,
    fails or returns nothing for the input's queries (trec_eval leaves out a query that retrieved nothing)."""
    out: list[dict[str, float]] = [{} for _ in items]
    if claim.shape != "number" or not items or not ms.references:
        return out
    queries = {i: (list(item.queries) if item.queries else [("", item)]) for i, item in enumerate(items)}
    qrels = {f"s{i}~{q}": one.qrels() for i, ps in queries.items() for q, one in ps}
    run = {f"s{i}~{q}": {str(d): float(len(one.ranking) - r) for r, d in enumerate(one.ranking)}
           for i, ps in queries.items() for q, one in ps}
    measures = {}
    for i, item in enumerate(items):
        if item.k == 0:
            continue  # no reference takes a cutoff of 0
        measures[i] = parse_measure(_measure(claim, item.k if item.k is not None else 1))
    distinct = list({str(m): m for m, _ in measures.values()}.values())
    for ref in ms.references:
        usable = [m for m in distinct if ref.supports(m).ok]
        if not usable:
            continue
        outcomes = ref.evaluate(usable, qrels, run)
        for i, (measure, spec) in measures.items():
            outcome = outcomes.get(str(measure))
            if outcome is None or outcome.status != "ok":
                continue
            values = {q: outcome.per_query[f"s{i}~{q}"] for q, _ in queries[i] if f"s{i}~{q}" in outcome.per_query}
            if values:
                out[i][ref.name] = float(evaluator.combine(spec.name, values))
    return out


def references_text(values: Mapping[str, float]) -> str:
    """The references' values in words: "trec_eval, ir-measures and ranx give 0" when they agree, else each
    one's ("trec_eval 0.25, ranx 0.2"); "" for none."""
    if not values:
        return ""
    if len({round(v, 12) for v in values.values()}) == 1:
        names = list(values)
        who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"{who} give{'s' if len(names) == 1 else ''} {fmt_float(next(iter(values.values())))}"
    return ", ".join(f"{name} {fmt_float(v)}" for name, v in values.items())


def _reference_reading(claim: CodeClaim, items: dict[int, Input], theirs: dict[int, list[float]], reading) -> str:
    """Why a reference's values differ from the listing's, found by experiment: the one convention value under which
    the chapter's definitions give the reference's value on every input compared (its gain, its RBP gain, its
    ideal …), as words to add to its row; "" when none does (the finding then shows the values only)."""
    spec = parse_measure(_measure(claim, 1))[1]
    if spec is None:
        return ""
    several = any(i.queries for i in items.values())
    names = [n for n in evaluator.relevant_to(spec.name, several_queries=several)
             if n not in ("repeated_ids", "ties", "prefix")]

    def values(item: Input, under) -> list | None:
        value = chapter_value(claim, item, under)
        if isinstance(value, str):
            return None
        return [float(v) for _, v in value if v is not None] if isinstance(value, tuple) else [float(value)]

    def same(got: list | None, i: int) -> bool:
        return got is not None and len(got) == len(theirs[i]) and all(abs(a - b) <= 1e-6 for a, b in zip(got, theirs[i]))

    # the inputs where the chapter's reading differs from the reference come first: most readings fail on them at once
    differing = [i for i in items if not same(values(items[i], reading), i)]
    order = differing + sorted(set(items) - set(differing))
    for name in names:
        for value in CONVENTIONS[name].values:
            if value == reading.get(name):
                continue
            under = {**reading, name: value}
            if all(same(values(items[i], under), i) for i in order):
                return (f"; it follows {CONVENTIONS[name].title} “{value}” where the chapter's is “{reading[name]}” "
                        "(the chapter's definitions set so give its value on every input compared)")
    return ""
