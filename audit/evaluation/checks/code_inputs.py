"""What a code claim's listing is run on and how its answers are read: the input (a ranking with its judgements,
queries, cutoffs), the edge cases and generated inputs, the chapter's value on each, and the wording of a listing's
value, exception or check in a finding. The ground the code check (``code``), its shown calls (``code_shown``) and
the causes it finds (``code_causes``) stand on."""

from __future__ import annotations

from collections.abc import Mapping
import ast
import random
from dataclasses import dataclass, replace
from fractions import Fraction

from audit.text.python_code import parse_code
from audit.text.literals import ArrayLiteral
from audit.errors import AuditError, RepeatedIDError
from audit.evaluation import evaluator
from audit.evaluation import definitions
from audit.evaluation.checks.common import fmt_float
from audit.evaluation.sandbox import CallResult
from audit.evaluation.sandbox.quote import quote
from audit.evaluation.checks.text_calls import DEFAULT as DEFAULT_CALLS, TextCalls
from audit.register.claims import CODE_ROLES as ROLES, GRADED_ROLES, MULTI_ROLES, SCORED_ROLES, CodeClaim
from audit.measures.syntax import parse as parse_measure
from audit.model.values import display, format_exact


#: The exceptions by which a listing refuses a bad argument on purpose (k < 1): ``raise ValueError(…)`` or ``assert``.
REFUSALS = ("ValueError:", "AssertionError:")


LISTING_EXCEPTION = "the listing's exception:"  # labels of the listing's own text wherever a result quotes it


LISTING_VALUE = "the listing's value:"


LISTING_CHECK = "the listing's check:"


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

#: The case of a grade above 1, tried where the text's calls pass grades 0 and 1 only (``text_calls.binary_grades``):
#: a binary measure counts a document of grade 2 as relevant, as trec_eval does at its default relevance level.
GRADE_EDGE = ("a grade of 2", {"a": 2, "b": 0, "c": 1}, 3,
              "count a document as relevant when its grade is 1 or more (grade >= 1), as trec_eval does")


def _parameters(claim: CodeClaim, source: str) -> list[str]:
    """The function's parameters, each mapped to a role; raises ``AuditError`` on a mismatch."""
    node = next(n for n in parse_code(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
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
    node = next(n for n in parse_code(listing.code).body if isinstance(n, ast.FunctionDef) and n.name == function)
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
            "qrels by query": {q: calls.judged(i) for q, i in item.queries},
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
        by_role.update({"ranking": calls.ranking(item.ranking), "relevant set": calls.container(item.relevant),
                        "ranked grades": [qrels.get(str(d), 0) for d in item.ranking],
                        "relevant count": sum(1 for g in qrels.values() if g >= 1),
                        "judged grades": sorted(qrels.values()), "qrels": DEFAULT_CALLS.judged(item),
                        "scores": dict(scores), "scored pairs": scores})
    values = [defaults[p] if claim.arguments[p] == "constant" and p in defaults else by_role[claim.arguments[p]]
              for p in params]
    # a parameter the text's calls pass as a NumPy array is passed as one (``np.array([3, 2, 0])``)
    return [ArrayLiteral(v) if p in calls.arrays and isinstance(v, list) and not isinstance(v, ArrayLiteral) else v
            for p, v in zip(params, values)]


def _generated(claim: CodeClaim, n: int, seed: int, repeats: bool = False, long: bool = True,
               top: int = 3) -> list[Input]:
    """Well-formed input: distinct string IDs, a non-empty relevant set, 1 ≤ k ≤ len + 2; for a listing that takes
    grades, judgements with grades 0–3 of some of the documents (the rest unjudged), at least one of them ≥ 1.
    ``repeats``: the chapter's rule scores a ranking that repeats an ID (keep first, keep last, count each), so a
    third of the single-query inputs repeat one of their documents at a later rank."""
    out = _generated_inputs(claim, n, seed, long, top)
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
    """A generated input of an edge case's kind: an empty ranking, or one that retrieves no relevant document at all
    ("relevant documents never retrieved"). A ranking with relevant documents only past k is ordinary input: a
    cutoff applied wrongly shows there. In a run of several queries, a query that retrieves nothing relevant is
    ordinary (most runs have one, and a mean that leaves it out is wrong there): the run is edge-like when a query
    retrieved nothing at all, or when no query retrieves anything relevant."""
    if _retrieves_nothing(item):
        return True
    if item.queries:
        return all(_edge_like(Input(i.ranking, i.relevant, item.k, i.label, i.grades)) for _, i in item.queries)
    return not any(str(d) in {str(x) for x in item.relevant} for d in item.ranking)


def _retrieves_nothing(item: Input) -> bool:
    """An input of the empty-ranking edge case's kind (``_edge_like``'s first test): nothing retrieved, or in a run a
    query that retrieved nothing."""
    return any(not i.ranking for _, i in item.queries) if item.queries else not item.ranking


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


def _generated_inputs(claim: CodeClaim, n: int, seed: int, long: bool = True, top: int = 3) -> list[Input]:
    return _with_cutoffs(claim, _inputs(claim, n, seed, long, top), random.Random(seed + 2))


def _inputs(claim: CodeClaim, n: int, seed: int, long: bool = True, top: int = 3) -> list[Input]:
    """``n`` generated inputs; with ``long``, the last of them are the long rankings of ``LONG`` (for a listing
    returning a list, at most 250 documents: a list is read back up to the sandbox's 256 entries). Grades are drawn
    from 0 … ``top`` (1 where the text's grades are binary: ``text_calls.binary_grades``)."""
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
                grades = {d: rng.randint(0, top) for d in judged}
                grades[rng.choice(judged)] = rng.randint(1, top)
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
            grades = {d: rng.randint(0, top) for d in judged}
            grades[rng.choice(judged)] = rng.randint(1, top)
            out.append(graded_input(ranking, grades, k))
            continue
        relevant = frozenset(rng.sample(pool, rng.randint(1, len(pool))))
        out.append(Input(ranking, relevant, k))
    if not long:
        return out
    extra = [i for i in _long_inputs(rng, uses_k, graded, top=top) if claim.shape == "number" or len(i.ranking) <= 250]
    if claim.shape != "number":  # a list or mapping compared in full: one as long as is read back
        extra += _long_inputs(rng, uses_k, graded, LONG_LIST, top)
    return out[:max(n - len(extra), 0)] + extra[:n]


#: Inputs of the size and the IDs a reader meets (a ranking of 1,000, TREC docnos): (ranking length, cutoff, docnos).
#: A listing that behaves otherwise past the short rankings and IDs of the other generated inputs meets them.
LONG = ((60, 25, False), (250, 100, True), (1000, 1000, False), (1000, 100, True))
#: For a listing returning a list or mapping (read back up to 256 entries): a ranking of 250 cut at 250, so that a
#: curve is compared at every one of its entries, not only at the first 100.
LONG_LIST = ((250, 250, False),)


def docno(i: int) -> str:
    """A document ID of TREC's shape (``LA010189-0001``), distinct for each ``i``."""
    return f"LA{(i // 10000) % 100:02d}0189-{i % 10000:04d}"


def _long_inputs(rng: random.Random, uses_k: bool, graded: bool, sizes=LONG, top: int = 3) -> list[Input]:
    out = []
    for length, k, trec in sizes:
        pool = [docno(i) if trec else f"d{i}" for i in range(length + length // 5)]
        ranking = tuple(rng.sample(pool, length))
        cut = k if uses_k else None
        if graded:
            judged = rng.sample(pool, rng.randint(5, 40))
            grades = {d: rng.randint(0, top) for d in judged}
            grades[judged[0]] = rng.randint(1, top)
            out.append(graded_input(ranking, grades, cut))
        else:
            out.append(Input(ranking, frozenset(rng.sample(pool, rng.randint(1, 30))), cut))
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


def edge_inputs(claim: CodeClaim, binary: bool = False) -> list[Input]:
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
    if binary and (_graded(claim) or _multi(claim)):  # graded input where the text's grades are 0 and 1
        label, grades, k, _ = GRADE_EDGE
        item = graded_input(tuple(grades), dict(grades), None, label)
        if _multi(claim):
            item = run_input([("q1", item)], None, label)
        out.append(replace(item, k=k if cut == "cutoff" else None, cutoffs=(k,) if cut == "cutoffs" else ()))
    return out


def _entries(result: CallResult) -> list[tuple]:
    return list(result.values) if result.values is not None else [(None, result.value)]


def _expected_entries(expected) -> list[tuple]:
    return list(expected) if isinstance(expected, tuple) else [(None, expected)]


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
