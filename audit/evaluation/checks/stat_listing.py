"""A listing that computes a statistic of a comparison of two systems: a paired t-test, a sign test, a randomization
(permutation) test, a Wilcoxon signed-rank test, a percentile bootstrap interval, Cohen's d. A ``code`` claim names
the test as its ``measure`` (one of ``LISTING_TESTS``), the role of each parameter (``STAT_ROLES``) and, in
``returns``, what each returned value is (``ELEMENTS``: ``[t, p]``, ``[low, high]``, ``[d]``).

The listing is run in the listing sandbox on generated paired data (``SAMPLE`` inputs of 6 to 12 topics, per-topic
scores printed to three decimals, differences distinct and non-zero so every test has its exact value), and each
returned value is compared with the exact computation (``audit.evaluation.significance``) and with scipy.stats:

* a deterministic value (t, df, an exact p, W, d, the mean difference) must be the exact value to 1e-9 (relative);
  a p that is the one-sided one on every input is named ("the listing computes the one-sided p");
* a Monte Carlo value (a bootstrap endpoint, a randomization p drawn from ``resamples`` random resamples) is held to
  the exact value within its Monte Carlo error (``audit.evaluation.monte_carlo``: 4 standard errors plus 1/B), never
  to the exact value alone; scipy's own random resamples are not compared with it.

Each call the text shows (``calls``) runs as printed, with the listing's own seed: its printed output must be what
the listing returns (at the printed precision), and the exact value must lie within the Monte Carlo error of what is
printed (for a deterministic statistic, be it)."""

from __future__ import annotations

import random
from fractions import Fraction

from audit.text.python_code import parse_code
from audit.evaluation import monte_carlo, significance
from audit.evaluation.checks import code
from audit.evaluation.checks.common import CHAPTER, Measurements, fmt_float
from audit.evaluation.references import scipy_stats
from audit.evaluation.sandbox import CallResult, run_listing
from audit.evaluation.sandbox.quote import quote
from audit.evaluation.significance import Span
from audit.model.evidence import Evidence, Point
from audit.model.results import Check, ImplValue
from audit.model.values import parse_claimed, parse_claimed_parts
from audit.register.claims import Chapter, CodeClaim, parameter_defaults, shown_arguments
from audit.register.listing_rules import ESTIMATED
from audit.text.listings import function_source

SAMPLE = 30
SAMPLE_MONTE_CARLO = 12
SEED = 20261206


def _parameters(claim: CodeClaim, source: str) -> list[str]:
    import ast

    node = next(n for n in parse_code(source).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and n.name == claim.function)
    return [a.arg for a in node.args.posonlyargs + node.args.args]


def _confidence(claim: CodeClaim) -> Fraction:
    for p, role in claim.arguments.items():
        if role == "confidence level":
            return Fraction(str(claim.constants[p]))
    return Fraction(95, 100)


def _generated(n: int, seed: int) -> list[tuple[list[str], list[str]]]:
    """Paired per-topic scores as printed (three decimals): 6 to 12 topics, differences distinct and non-zero, most
    of them favouring a."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        topics = rng.randint(6, 12)
        magnitudes = rng.sample(range(1, 200), topics)
        bias = rng.choice((0.5, 0.7, 0.9))
        a, b = [], []
        for m in magnitudes:
            base = rng.randint(250, 750)
            diff = m if rng.random() < bias else -m
            a.append(f"{(base + diff) / 1000:.3f}")
            b.append(f"{base / 1000:.3f}")
        out.append((a, b))
    return out


def _args(claim: CodeClaim, params: list[str], a: list[str], b: list[str]) -> list:
    by_role = {"scores a": [float(x) for x in a], "scores b": [float(x) for x in b],
               "differences": [float(Fraction(x) - Fraction(y)) for x, y in zip(a, b)]}
    return [claim.constants[p] if claim.arguments[p] in ("constant", "confidence level") else by_role[claim.arguments[p]]
            for p in params]


def _data(claim: CodeClaim, values: dict) -> list[Fraction] | None:
    """The differences a shown call passes (by parameter), each number as printed; None when not numbers."""
    roles = {role: values.get(p) for p, role in claim.arguments.items()}
    try:
        if roles.get("differences") is not None:
            return [Fraction(str(x)) for x in roles["differences"]]
        return [Fraction(str(x)) - Fraction(str(y)) for x, y in zip(roles["scores a"], roles["scores b"])]
    except (TypeError, ValueError, KeyError):
        return None


def exact(claim: CodeClaim, d: list[Fraction], side: str = "two") -> dict[str, object]:
    """Each element's exact value on the differences ``d`` (``significance``): a number, a ``Span``, or a reason."""
    values = significance.values(claim.measure, d, side, _confidence(claim))
    if "interval" in values:
        values["low"], values["high"] = values["interval"].low, values["interval"].high
    return values


def held(claim: CodeClaim, element: str, value, d: list[Fraction]):
    """What the listing may return for ``element`` when the exact value is ``value``: a ``Span`` for a Monte Carlo
    estimate over the claim's resamples (``monte_carlo``), else ``value`` itself."""
    if claim.resamples is None or element not in ESTIMATED.get(claim.measure, ()) or isinstance(value, str):
        return value
    if element == "p":
        return monte_carlo.p_band(value, claim.resamples)
    band = monte_carlo.bootstrap_band(d, _confidence(claim), claim.resamples)
    return band.low if element == "low" else band.high


def _agrees(got: float, want) -> bool:
    if isinstance(want, str) or want is None:
        return False
    if isinstance(want, Span):
        return float(want.lo) - 1e-12 <= got <= float(want.hi) + 1e-12
    target = float(want)
    return abs(got - target) <= 1e-9 * max(1.0, abs(target))


def _show(v) -> str:
    if isinstance(v, Span):
        return fmt_float(float(v.lo)) if v.lo == v.hi else f"[{float(v.lo):.6g}, {float(v.hi):.6g}]"
    if isinstance(v, str):
        return v
    return f"{float(v):.6g}"


def _returned(result: CallResult, n: int) -> list[float] | None:
    if n == 1 and result.status == "ok" and result.value is not None:
        return [result.value]
    if result.status == "values" and result.values is not None and len(result.values) == n \
            and all(k is None for k, _ in result.values):
        return [v for _, v in result.values]
    return None


def _problem(result: CallResult, n: int) -> str:
    if result.status == "raises":
        return f"raises ({quote(code.LISTING_EXCEPTION, result.text)})"
    if result.status in ("ok", "values", "returns"):
        return f"returns {quote(code.LISTING_VALUE, result.text or fmt_float(result.value))}, not {n} number(s)"
    return result.status + (f" ({result.detail})" if result.detail else "")


def check(claim: CodeClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    _, source = function_source(chapter.snapshot.text, claim.quote, claim.function, claim.builds_on)
    params = _parameters(claim, source)
    defaults = parameter_defaults(source, claim.function)
    claim = claim.model_copy(update={"constants": {**{p: defaults[p] for p, role in claim.arguments.items()
                                                      if role in ("constant", "confidence level") and p in defaults},
                                                   **claim.constants}})
    elements = [e.strip() for e in claim.returns]
    n = len(elements)
    estimated = claim.resamples is not None
    inputs = _generated(SAMPLE_MONTE_CARLO if estimated else SAMPLE, SEED)
    shown = [shown_arguments(claim, c.call, params, defaults, c.given) for c in claim.calls]
    run = run_listing(source, claim.function, [_args(claim, params, a, b) for a, b in inputs]
                      + [[values[p] for p in params] for values in shown], time_limit=code.CLAIM_BUDGET,
                      call_limit=code.CALL_LIMIT, repeat=not estimated)  # a seeded listing: its own seed's draws
    if run.unavailable:
        evidence.errors.append(f"not run: isolation unavailable ({run.unavailable}); listings never run unconfined")
        return evidence
    if run.load_error:
        evidence.failures.append(Point(f"the listing does not load ({quote(code.LISTING_EXCEPTION, run.load_error)})",
                                       "Fix the listing so it runs as printed."))
        return evidence
    results, shown_results = run.results[:len(inputs)], run.results[len(inputs):]
    wrong: dict[int, list] = {j: [] for j in range(n)}
    shape_bad, scipy_agree, scipy_seen = [], [0] * n, [0] * n
    for (a, b), result in zip(inputs, results):
        d = [Fraction(x) - Fraction(y) for x, y in zip(a, b)]
        got = _returned(result, n)
        if got is None:
            shape_bad.append(((a, b), result))
            continue
        ours = exact(claim, d)
        theirs = scipy_stats.values(claim.measure, [float(x) for x in d], "two", float(_confidence(claim)))
        for j, element in enumerate(elements):
            want = held(claim, element, ours.get(element), d)
            if not _agrees(got[j], want):
                sides = {side for side in ("greater", "less") if element == "p" and _agrees(
                    got[j], held(claim, element, exact(claim, d, side).get("p"), d))}
                wrong[j].append(((a, b), got[j], want, sides))
            ref = theirs.get(element)
            if isinstance(ref, float) and element not in ESTIMATED.get(claim.measure, ()):
                scipy_seen[j] += 1
                scipy_agree[j] += abs(got[j] - ref) <= 1e-9 * max(1.0, abs(ref))
    rows = []
    for j, element in enumerate(elements):
        ok = len(inputs) - len(shape_bad) - len(wrong[j])
        rows.append(ImplValue(implementation=CHAPTER, behaviour=element, detail=f"{ok} of {len(inputs)} inputs",
                              provider="exact" + (f", within the Monte Carlo error of {claim.resamples:,} resamples"
                                                  if element in ESTIMATED.get(claim.measure, ()) and estimated else ""),
                              in_interval=ok == len(inputs)))
        if scipy_seen[j]:
            rows.append(ImplValue(implementation="scipy", provider="scipy.stats", behaviour=element,
                                  detail=f"{scipy_agree[j]} of {scipy_seen[j]} inputs",
                                  in_interval=scipy_agree[j] == scipy_seen[j]))
    evidence.checks.append(Check(label=f"{claim.function}() on {len(inputs)} generated sets of paired per-topic scores "
                                       f"(6 to 12 topics; seed {SEED}), each returned value against "
                                       f"{significance.TESTS[claim.measure].described}; run in {run.isolation}",
                                 measure=claim.measure, values=rows))
    if shape_bad:
        (a, b), result = shape_bad[0]
        evidence.failures.append(Point(
            f"it does not return {n} value(s) ({', '.join(elements)}) on {len(shape_bad)} of {len(inputs)} generated "
            f"inputs; on {len(a)} topics it {_problem(result, n)}",
            f"Return {', '.join(elements)}, in that order."))
    for j, bad in wrong.items():
        if not bad:
            continue
        (a, b), got, want, _ = min(bad, key=lambda t: len(t[0][0]))
        element = elements[j]
        common = set.intersection(*(sides for *_, sides in bad))
        if len(bad) == len(inputs) - len(shape_bad) and len(common) == 1:
            side = next(iter(common))
            evidence.conditions.append(Point(
                f"the p it returns is the {significance.SIDES[side]} p on every generated input, not the two-sided "
                f"one (on {len(a)} topics: {fmt_float(got)} where the two-sided p is {_show(want)})",
                f"Say that the test is {significance.SIDES[side]}, or return the two-sided p."))
            evidence.lead = ""
            continue
        evidence.failures.append(Point(
            f"{element} is wrong: {len(bad)} of {len(inputs)} generated inputs disagree with "
            f"{significance.TESTS[claim.measure].described}; on {len(a)} topics (differences a − b: "
            f"{', '.join(f'{float(Fraction(x) - Fraction(y)):g}' for x, y in zip(a, b))}) it returns {fmt_float(got)} "
            f"where the exact {element} is {_show(want)}"
            + (f" (within the Monte Carlo error of {claim.resamples:,} resamples)" if isinstance(want, Span) and
               estimated else ""),
            f"Correct the listing so that its {element} is {significance.TESTS[claim.measure].described}'s."))
    right = [e for j, e in enumerate(elements) if not wrong[j]]
    if right and not shape_bad:
        evidence.scopes.append(
            f"{claim.function}() returns {', '.join(right)} as {significance.TESTS[claim.measure].described} gives "
            f"{'it' if len(right) == 1 else 'them'} on {len(inputs)} generated sets of paired scores"
            + (f" (a Monte Carlo estimate over {claim.resamples:,} resamples held to the exact value within 4 standard "
               "errors plus 1/B)" if estimated else ""))
    _shown(claim, shown, shown_results, evidence)
    return evidence


def _shown(claim: CodeClaim, shown: list[dict], results: list[CallResult], evidence: Evidence) -> None:
    """Each call the text shows, run with the listing's own seed: what it prints is what the listing returns (its
    own seed's output), and the exact value lies within the Monte Carlo error of each printed value."""
    elements = [e.strip() for e in claim.returns]
    n = len(elements)
    rows = [["call", "text", "listing", "exact", "finding"]]
    for call, values, result in zip(claim.calls, shown, results):
        got = _returned(result, n)
        d = _data(claim, values)
        printed = None
        if call.returns is not None:
            printed = ([parse_claimed(call.returns, tolerance=call.tolerance)] if n == 1 and
                       not str(call.returns).strip().startswith(("(", "[")) else
                       [c for _, c in parse_claimed_parts(call.returns, tolerance=call.tolerance)])
        ours = exact(claim, d) if d else {}
        findings = []
        if got is None:
            findings.append(f"it {_problem(result, n)}")
        if printed is not None and len(printed) != n:
            findings.append(f"the text prints {len(printed)} values, not {n}")
        for j, element in enumerate(elements):
            if printed is None or len(printed) != n:
                break
            if got is not None and not code.printed_holds(printed[j], got[j]):
                findings.append(f"{element}: the listing returns {fmt_float(got[j])} with its own seed, not the "
                                f"printed {printed[j].text}")
            want = held(claim, element, ours.get(element), d) if d else None
            if want is None or isinstance(want, str):
                continue
            if isinstance(want, Span):
                hit = printed[j].decide(want.lo, want.hi) is not False
            else:
                hit = printed[j].contains(Fraction(str(float(want))) if not isinstance(want, Fraction) else want)
            if not hit:
                findings.append(f"{element}: the exact value is {_show(ours.get(element))}"
                                + (f" (an estimate over {claim.resamples:,} resamples may print {_show(want)})"
                                   if isinstance(want, Span) and claim.resamples else "")
                                + f", not the printed {printed[j].text}")
        rows.append([call.call, str(call.returns or ""), ", ".join(fmt_float(g) for g in got) if got else result.status,
                     ", ".join(_show(ours.get(e)) for e in elements) if ours else "—", "; ".join(findings) or "agrees"])
        for f in findings:
            evidence.failures.append(Point(f"the call {call.call}: {f}",
                                           "Print what the listing returns, and check it against the exact value."))
        if not findings and call.returns is not None:
            evidence.scopes.append(f"the call {call.call} returns {call.returns} with the listing's own seed, as "
                                   "printed, and the exact value is within its Monte Carlo error" if claim.resamples
                                   else f"the call {call.call} returns {call.returns}, as printed and as the exact "
                                   "computation gives")
    if claim.calls:
        evidence.checks.append(Check(label=f"the calls of {claim.function}() the text shows", measure=claim.measure,
                                     table=rows))
