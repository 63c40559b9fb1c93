"""What a listing computes instead, found by experiment on the generated inputs: a rounding, a reading the text
leaves open, a cutoff applied late, scores in the wrong order, a known computation; and what the references give on
the same inputs."""

from __future__ import annotations

from collections.abc import Mapping
import math
from dataclasses import replace
from fractions import Fraction

from audit.model.evidence import Point
from audit.evaluation import evaluator
from audit.evaluation import definitions
from audit.evaluation.checks import computes
from audit.evaluation.checks.common import CHAPTER, Measurements, fmt_float
from audit.evaluation.sandbox import CallResult
from audit.evaluation.checks.rounding import places_text, rounded_places
from audit.register.claims import CodeClaim
from audit.measures.conventions import CONVENTIONS
from audit.measures.syntax import parse as parse_measure
from audit.model.results import ImplValue
from audit.evaluation.checks.code_inputs import (  # noqa: F401
    Input,
    _agrees,
    _cutoff_role,
    _entries,
    _measure,
    _multi,
    _paired,
    _repeats,
    _scored,
    _scores,
    _value,
    chapter_value,
    exact_text,
    parts,
)


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
                reading=None, follows: list | None = None) -> list[ImplValue]:
    """How often each reference agrees with the listing on the generated inputs (one call per reference): each
    entry the listing returns (one number, a query's value, the value at a cutoff) against the reference's value
    of the same measure on the same queries, combined as the measure combines queries. ``follows``, when given,
    receives (reference, convention, its value, agreeing inputs, inputs compared) for each reference whose
    difference one convention value explains (``_reference_reading``)."""
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
        cause = _reference_cause(claim, {i: items[i] for i in theirs}, theirs, reading) if agree < total else None
        why = _cause_words(cause, reading)
        if cause is not None and follows is not None:
            follows.append((ref.name, *cause, agree, total))
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


def _reference_reading(claim: CodeClaim, items: dict[int, Input], theirs: dict[int, list[float]], reading) -> str:
    """Why a reference's values differ from the listing's (``_reference_cause``), as words to add to its row; ""
    when no convention explains it (the finding then shows the values only)."""
    return _cause_words(_reference_cause(claim, items, theirs, reading), reading)


def _cause_words(cause: tuple[str, str] | None, reading) -> str:
    """A reference's cause (``_reference_cause``) as words to add to its row; "" for none."""
    if cause is None:
        return ""
    name, value = cause
    return (f"; it follows {CONVENTIONS[name].title} “{value}” where the chapter's is “{reading[name]}” "
            "(the chapter's definitions set so give its value on every input compared)")


def _reference_cause(claim: CodeClaim, items: dict[int, Input], theirs: dict[int, list[float]],
                     reading) -> tuple[str, str] | None:
    """Why a reference's values differ from the listing's, found by experiment: the one convention value under which
    the chapter's definitions give the reference's value on every input compared (its gain, its RBP gain, its
    ideal …), as (convention, value); None when none does, or when the reference gives the chapter's own values on
    every input (another reading that gives them too, ``min(k, |R|)`` for AP with no cutoff, explains nothing)."""
    spec = parse_measure(_measure(claim, 1))[1]
    if spec is None:
        return None
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
    if not differing:  # the reference gives the chapter's values: the listing alone differs, no reading explains it
        return None
    order = differing + sorted(set(items) - set(differing))
    for name in names:
        for value in CONVENTIONS[name].values:
            if value == reading.get(name):
                continue
            under = {**reading, name: value}
            if all(same(values(items[i], under), i) for i in order):
                return name, value
    return None
