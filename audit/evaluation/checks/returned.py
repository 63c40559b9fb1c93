"""A listing returning several results: ``rbp(ranking, relevant, p)`` returning ``(score, residual)``. The code
claim's ``returns`` names each element of the returned tuple in order; each element is compared, on the edge cases,
on generated input and on the calls the text shows, with the chapter's definition of that element and, for a
measure, with every reference's value of it. A finding names the element that is wrong.

An element is a measure in ir-measures' syntax (``RBP(p=0.8)``, ``P@k``: its cutoff is the ``cutoff`` argument), or a
quantity of ``RETURNED`` that the claim's measure defines:

* ``residual`` — RBP's residual (Moffat and Zobel 2008, “Rank-biased precision for measurement of retrieval
  effectiveness”, ACM TOIS 27(1), §4): the most RBP could still rise if every document it has not seen judged were
  relevant, p^d for the unseen tail beyond the evaluated depth d (the prefix's length, min(k, |ranking|)), plus
  (1 − p)·p^(i−1) for each unjudged document at a rank i ≤ d. Only a listing given the judgements (``qrels``) can
  tell an unjudged document from a non-relevant one; for one given a relevant set or ranked grades every ranked
  document counts as judged, and the residual is p^d. Exact for a rational p.
"""

from __future__ import annotations

from fractions import Fraction

from audit.errors import RepeatedIDError
from audit.evaluation import definitions
from audit.evaluation.checks import code, text_calls
from audit.evaluation.checks.common import CHAPTER, Measurements, fmt_float
from audit.evaluation.sandbox import CallResult, run_listing
from audit.evaluation.sandbox.quote import quote
from audit.measures.syntax import parse as parse_measure
from audit.model.evidence import Evidence, Point
from audit.model.results import Check, ImplValue
from audit.model.values import display, format_exact, parse_claimed_parts
from audit.register.claims import CodeClaim, Chapter
from audit.register.listing_rules import RETURNED

#: Where the residual's definition comes from.
RESIDUAL_SOURCE = ("Moffat and Zobel (2008), “Rank-biased precision for measurement of retrieval effectiveness”, "
                   "ACM TOIS 27(1)")
#: The residual's definition in words.
RESIDUAL_DEFINITION = ("p^d for the ranks beyond the evaluated depth d plus the weight (1 − p)·p^(i−1) of each "
                       "unjudged document within it")


def _element_claim(claim: CodeClaim, element: str) -> CodeClaim:
    return claim.model_copy(update={"measure": element.strip(), "returns": None})


def _sees_judgements(claim: CodeClaim) -> bool:
    return "qrels" in claim.arguments.values()


def residual(claim: CodeClaim, item: code.Input, reading, unjudged_counted: bool | None = None) -> Fraction | str:
    """RBP's residual on ``item`` (the module's description), exactly; ``"rejects"`` for a repeated ID the reading
    rejects. ``unjudged_counted`` False: p^d alone (the default: whether the listing is given the judgements)."""
    spec = parse_measure(code._measure(claim, item.k if item.k is not None else 1))[1]
    p = spec.p if spec.p is not None else Fraction(4, 5)
    try:
        seen = definitions.prefix([str(d) for d in item.ranking], item.k, reading)
    except RepeatedIDError:
        return "rejects"
    if unjudged_counted is None:
        unjudged_counted = _sees_judgements(claim)
    judged = set(item.qrels()) if unjudged_counted else set(seen)
    unjudged = sum(((1 - p) * p ** (i - 1) for i, d in enumerate(seen, start=1) if d not in judged), Fraction(0))
    return p ** len(seen) + unjudged


def expected(claim: CodeClaim, element: str, item: code.Input, reading) -> Fraction | str:
    """The chapter's value of one element on ``item``."""
    if element.strip() in RETURNED:
        return residual(claim, item, reading)
    return code.chapter_value(_element_claim(claim, element), item, reading)


def _elements(result: CallResult, n: int) -> list[float] | None:
    """The numbers of a returned tuple (or list) of ``n`` numbers, else None."""
    if result.status != "values" or result.values is None or len(result.values) != n \
            or any(k is not None for k, _ in result.values):
        return None
    return [v for _, v in result.values]


def _shape_problem(result: CallResult, n: int) -> str:
    if result.status == "raises":
        return f"raises ({quote(code.LISTING_EXCEPTION, result.text)})"
    if result.status in ("ok", "values", "returns"):
        shown = result.text or (fmt_float(result.value) if result.value is not None else "")
        return f"returns {quote(code.LISTING_VALUE, shown)}, not a tuple of {n} numbers"
    return {"timeout": "hangs", "crashed": "crashes the interpreter", "violation": "was stopped by the sandbox",
            "not run": "was not run"}.get(result.status, result.status) + (f" ({result.detail})" if result.detail else "")


def _name(claim: CodeClaim, j: int) -> str:
    return f"element {j + 1} ({claim.returns[j]})"


def _exact(v) -> str:
    return display(format_exact(v)) if isinstance(v, Fraction) else str(v)


def check(claim: CodeClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    # the listing prepared, run and settled as every listing is (``code.prepare``, ``code.settled_by_run``): unused
    # imports, removed NumPy names, how the text calls it, what its text does beyond computing
    prep = code.prepare(claim, chapter, evidence)
    claim, reading, calls, params, shown = prep.claim, prep.reading, prep.calls, prep.params, prep.shown
    n = len(claim.returns)
    binary = calls.grades == "binary"
    edges = [text_calls.with_ids(e, calls) for e in code.edge_inputs(claim, binary) if not code._repeats(e)]
    generated = [text_calls.with_ids(g, calls) for g in code._generated(claim, code.SAMPLE, code.SEED,
                                                                         long=calls.ids != "int",
                                                                         top=1 if binary else 3)]
    items = edges + generated
    run = run_listing(prep.source, claim.function, [code._call(params, claim, i, reading, calls) for i in items]
                      + [[values[p] for p in params] for values in shown], time_limit=code.CLAIM_BUDGET,
                      call_limit=code.CALL_LIMIT)
    said = text_calls.how_called(claim.function, claim.arguments, calls)
    if said:
        evidence.scopes.append(said)
    if code.settled_by_run(prep, run, run.results[len(items):], chapter, evidence):
        return evidence
    results, shown_results = run.results[:len(items)], run.results[len(items):]
    want = [[expected(claim, e, item, reading) for e in claim.returns] for item in items]

    # Edge cases: one row each, every element compared.
    rows = [["edge case", "input", "chapter", "listing", "finding"]]
    for item, result, values in zip(edges, results, want):
        got = _elements(result, n)
        if got is None:
            problem = _shape_problem(result, n)
        else:
            wrong = [j for j in range(n) if not isinstance(values[j], str) and abs(got[j] - float(values[j])) > 1e-9]
            problem = "; ".join(f"{_name(claim, j)} is {fmt_float(got[j])} where the chapter's definition gives "
                                f"{_exact(values[j])}" for j in wrong)
        if problem and item.k == 0 and result.status == "raises" and result.text.startswith(code.REFUSALS):
            problem = ""
        rows.append([item.label, code.described(claim, item), "(" + ", ".join(_exact(v) for v in values) + ")",
                     "(" + ", ".join(fmt_float(g) for g in got) + ")" if got is not None else result.status,
                     problem or "agrees"])
        if problem and item.label not in code.ADVISORY:
            fix = next(f for label, *_, f in code.EDGES if label == item.label)
            evidence.conditions.append(Point(f"on {item.label} ({code.described(claim, item)}) it {problem}",
                                             fix.format(rule="as trec_eval does")))
    evidence.checks.append(Check(label=f"{claim.function}() on the edge cases, each of its {n} returned values "
                                       f"({', '.join(claim.returns)}); run in {run.isolation}",
                                 measure=claim.measure, table=rows))

    # Generated input: element by element, against the chapter and, for a measure, every reference.
    gen = list(zip(generated, results[len(edges):], want[len(edges):]))
    shape_bad = [(i, r) for i, r, _ in gen if _elements(r, n) is None]
    wrong: dict[int, list] = {j: [] for j in range(n)}
    for item, result, values in gen:
        got = _elements(result, n)
        if got is None:
            continue
        for j in range(n):
            if not isinstance(values[j], str) and abs(got[j] - float(values[j])) > 1e-9:
                wrong[j].append((item, got[j], values[j]))
    rows = []
    for j, element in enumerate(claim.returns):
        agree = len(gen) - len(shape_bad) - len(wrong[j])
        rows.append(ImplValue(implementation=CHAPTER, provider="book definitions, exact", behaviour=_name(claim, j),
                              detail=f"{agree} of {len(gen)} inputs", in_interval=agree == len(gen)))
        if element.strip() in RETURNED:
            continue
        one = _element_claim(claim, element)
        answered = [(i, _elements(r, n)[j]) for i, r, _ in gen if _elements(r, n) is not None]
        theirs = code.reference_values(one, ms, [i for i, _ in answered], reading)
        for ref in ms.references:
            compared = [(v, t[ref.name]) for (_, v), t in zip(answered, theirs) if ref.name in t]
            if not compared:
                rows.append(ImplValue(implementation=ref.name, behaviour=_name(claim, j), status="not applicable",
                                      detail=ref.supports(parse_measure(code._measure(one, 1))[0]).reason))
                continue
            same = sum(abs(v - t) <= 1e-9 for v, t in compared)
            why = ""
            if same < len(compared):  # found by experiment: the convention under which the chapter gives its values
                kept = [(n, item, t[ref.name]) for n, ((item, _), t) in enumerate(zip(answered, theirs))
                        if ref.name in t]
                why = code._reference_reading(one, {n: item for n, item, _ in kept}, {n: [v] for n, _, v in kept},
                                              reading)
            rows.append(ImplValue(implementation=ref.name, behaviour=_name(claim, j),
                                  detail=f"{same} of {len(compared)} inputs{why}", in_interval=same == len(compared)))
    evidence.checks.append(Check(label=f"{claim.function}() on {len(gen)} generated well-formed inputs, element by "
                                       f"element (seed {code.SEED})", measure=claim.measure, values=rows))
    if shape_bad:
        item, result = min(shape_bad, key=lambda pair: pair[0].size())
        evidence.failures.append(Point(
            f"it does not return a tuple of {n} values ({', '.join(claim.returns)}) on {len(shape_bad)} of {len(gen)} "
            f"generated inputs; the smallest, {code.described(claim, item)}: it {_shape_problem(result, n)}",
            f"Return the {n} values as a tuple, in the order the text gives them."))
    for j, bad in wrong.items():
        if not bad:
            continue
        item, got, value = min(bad, key=lambda t: (code._edge_like(t[0]), t[0].size(), code.described(claim, t[0])))
        element = claim.returns[j].strip()
        cause, fix = "", f"Correct {_name(claim, j)} so that it is the chapter's {element}."
        if element == "residual":
            tail = [(i, g) for i, g, _ in bad if abs(g - float(residual(claim, i, reading, unjudged_counted=False))) <= 1e-9]
            if len(tail) == len(bad):
                evidence.conditions.append(Point(
                    f"{_name(claim, j)} is p^d alone on {len(bad)} of {len(gen)} generated inputs with unjudged "
                    f"documents within the evaluated depth; the smallest, {code.described(claim, item)}: it gives "
                    f"{fmt_float(got)} where the residual of {RESIDUAL_SOURCE}, {RESIDUAL_DEFINITION}, is "
                    f"{_exact(value)}",
                    "Say that the residual covers only the ranks beyond the depth, or add the weight "
                    "(1 − p)·p^(i−1) of each unjudged document within it."))
                evidence.lead = ""
                continue
            cause = f" (the residual of {RESIDUAL_SOURCE}: {RESIDUAL_DEFINITION})"
        elif len(bad) < len(gen):
            results_j = [CallResult("ok", value=(_elements(r, n) or [None] * n)[j])
                         if _elements(r, n) is not None else r for _, r, _ in gen]
            found = code.listing_reading(_element_claim(claim, element), [i for i, _, _ in gen], results_j, reading)
            if found:
                from audit.measures.conventions import CONVENTIONS
                cause = (" (it computes " + element + " with " + " and ".join(
                    f"{CONVENTIONS[c].title} “{v}”" for c, v in found) + ", where the chapter's is "
                    + " and ".join(f"“{reading[c]}”" for c, _ in found) + ")")
                fix = "Correct the listing so that " + "; ".join(CONVENTIONS[c].phrase(reading[c])
                                                                 for c, _ in found) + "."
        evidence.failures.append(Point(
            f"{_name(claim, j)} is wrong on ordinary input: {len(bad)} of {len(gen)} generated inputs disagree with "
            f"the chapter's definition; the smallest, {code.described(claim, item)}: it returns {fmt_float(got)} "
            f"where the chapter's definition gives {_exact(value)}{cause}", fix))
    right = [claim.returns[j] for j in range(n) if not wrong[j]]
    if not shape_bad and right:
        evidence.scopes.append(f"{claim.function}() returns {', '.join(right)} as the chapter defines "
                               f"{'it' if len(right) == 1 else 'them'} on {len(gen) - len(shape_bad)} generated "
                               f"inputs (seed {code.SEED})")
    _shown(claim, shown, shown_results, reading, evidence)
    if evidence.conditions and not evidence.failures and evidence.lead:
        evidence.lead = "It matches on well-formed input, but "
    return evidence


def _shown(claim: CodeClaim, shown: list[dict], results: list[CallResult], reading, evidence: Evidence) -> None:
    """Each call the text shows: the listing's tuple against the printed one and the chapter's, element by element."""
    n = len(claim.returns)
    rows = [["call", "text", "listing", "chapter", "finding"]]
    for call, values, result in zip(claim.calls, shown, results):
        got = _elements(result, n)
        item = code.shown_input(claim, values)
        mine = [expected(claim, e, item, reading) for e in claim.returns] if item is not None else None
        printed = parse_claimed_parts(call.returns, tolerance=call.tolerance) if call.returns is not None else None
        findings = []
        if got is None:
            findings.append(f"it {_shape_problem(result, n)}")
        if printed is not None and len(printed) != n:
            findings.append(f"the text prints {len(printed)} values, not {n}")
        for j in range(n):
            if printed is not None and len(printed) == n:
                if got is not None and not code.printed_holds(printed[j][1], got[j]):
                    findings.append(f"{_name(claim, j)}: the listing gives {fmt_float(got[j])}, not the printed "
                                    f"{printed[j][1].text}")
                if mine is not None and not isinstance(mine[j], str) and not printed[j][1].contains(mine[j]):
                    findings.append(f"{_name(claim, j)}: the chapter's definition gives {_exact(mine[j])}, not the "
                                    f"printed {printed[j][1].text}")
        rows.append([call.call, str(call.returns or ""), "(" + ", ".join(fmt_float(g) for g in got) + ")"
                     if got is not None else result.status,
                     "(" + ", ".join(_exact(v) for v in mine) + ")" if mine is not None else "—",
                     "; ".join(findings) or "agrees"])
        for f in findings:
            evidence.failures.append(Point(f"the call {call.call}: {f}",
                                           "Print the values the call returns, in the order it returns them."))
        if not findings:
            evidence.scopes.append(f"the call {call.call} returns {call.returns}, as printed")
    if claim.calls:
        evidence.checks.append(Check(label=f"the calls of {claim.function}() the text shows", measure=claim.measure,
                                     table=rows))
