"""Why two implementations differ, found by experiment: re-evaluate with one candidate cause removed at a time.

Two kinds of experiment, each on the input that showed the difference:

* **a convention changed**: the chapter's definitions are re-run with one convention set to
  another value (ties by docno descending, P@k over the number returned, RR cutoff ignored,
  exponential gain, queries without relevant documents left out, …); if the chapter then gives
  exactly the reference's per-query values, the reference follows that value;
* **an input cause removed**: the input is rewritten so the candidate cause cannot act (ties
  broken by one rule with strictly decreasing scores, scores made distinct in single
  precision, unjudged documents judged 0, negative grades set to 0, the ranking padded to k or
  cut at k, queries without relevant documents or results dropped) and both implementations
  are re-run; if they now agree, that cause made the difference.

A cause is named only when an experiment made the values agree; when none does, the
difference is reported as unexplained, with the values. Nothing here is looked up by measure
name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction


from audit.evaluation import evaluator
from audit.evaluation.agreement import agree
from audit.model.expressions import fmt_float
from audit.evaluation.definitions import order_ties, relevant_set
from audit.measures.conventions import CONVENTIONS

Qrels = Mapping[str, Mapping[str, int]]
ScoredRun = Mapping[str, Mapping[str, float]]
PerQuery = Mapping[str, float | Fraction]

@dataclass
class Cause:
    """A cause shown to produce a difference: what it is, what the reference does, how it was shown."""

    name: str          # a convention name, or an input cause
    value: str = ""    # the convention value the reference follows
    phrase: str = ""   # what the reference does, in words
    shown_by: list[str] = field(default_factory=list)

    def sentence(self, who: str) -> str:
        return f"{who} {self.phrase}" if self.phrase else f"{who}: {self.name}"


@dataclass
class Attribution:
    causes: list[Cause] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)
    joint: bool = False   # the causes act together (two conventions changed at once), not as alternatives
    pairs_tried: int = 0  # pairs of convention values tried when no single cause explained

    @property
    def explained(self) -> bool:
        return bool(self.causes)

    def summary(self, who: str) -> str:
        if not self.causes:
            pairs = f" nor any of {self.pairs_tried} pairs of those conventions" if self.pairs_tried else ""
            return (f"unexplained: no single cause tried ({', '.join(self.tried) or 'none applied'}){pairs} makes "
                    f"{who} agree with the chapter's definitions")
        if self.joint:
            return " and ".join(c.sentence(who) for c in self.causes) + " (both together: neither alone explains it)"
        return "; or ".join(c.sentence(who) for c in self.causes)

    def evidence(self) -> str:
        return " ".join(s for c in self.causes for s in c.shown_by)


def fmt(values: PerQuery) -> str:
    """Per-query values as ``fmt_float`` shows one (so 0.00001 does not read as 0)."""
    return ", ".join(f"{q}: {fmt_float(v)}" for q, v in values.items()) or "no query"


# --- input rewrites: each removes one candidate cause ------------------------------------------------

@dataclass
class Input:
    qrels: dict[str, dict[str, int]]
    run: dict[str, list[str]]           # listed order
    scores: dict[str, dict[str, float]]  # what references see


def _has_ties(inp: Input, as_float32: bool) -> bool:
    import numpy as np  # here: a run whose claims all come from the cache never loads it
    for q, s in inp.scores.items():
        vals = [float(np.float32(v)) if as_float32 else float(v) for v in s.values()]
        if len(set(vals)) < len(vals):
            return True
    return False


def _respaced(inp: Input, order: Callable[[str, list[str]], list[str]]) -> Input:
    run = {q: order(q, r) for q, r in inp.run.items()}
    scores = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in run.items()}
    return Input(inp.qrels, run, scores)


def rewrites(inp: Input, k: int | None, reading: Mapping[str, str]) -> dict[str, tuple[str, Input]]:
    """The input causes present in ``inp``, each with a sentence and the input with that cause removed."""
    out: dict[str, tuple[str, Input]] = {}
    rule = reading["ties"]
    if _has_ties(inp, as_float32=False):
        out["ties"] = ("tied scores given strictly decreasing scores in the order the chapter's tie rule "
                       f"({rule}) gives", _respaced(inp, lambda q, r: order_ties(r, inp.scores.get(q), rule)))
    elif _has_ties(inp, as_float32=True):
        out["single precision"] = ("scores that differ only beyond single precision made distinct as 32-bit floats",
                                   _respaced(inp, lambda q, r: list(r)))
    if any(d not in inp.qrels.get(q, {}) for q, r in inp.run.items() if inp.qrels.get(q) for d in r):
        # only queries that have judgements: judging an empty qrels entry would change what is being tested
        qrels = {q: {**j, **{d: 0 for d in inp.run.get(q, []) if d not in j}} if j else dict(j)
                 for q, j in inp.qrels.items()}
        out["unjudged"] = ("unjudged documents judged non-relevant (grade 0)", Input(qrels, inp.run, inp.scores))
    if any(g < 0 for j in inp.qrels.values() for g in j.values()):
        qrels = {q: {d: max(g, 0) for d, g in j.items()} for q, j in inp.qrels.items()}
        out["negative grades"] = ("negative grades set to 0", Input(qrels, inp.run, inp.scores))
    level = int(reading["relevance_level"])
    lacking = [q for q, j in inp.qrels.items() if j and all(g >= level for g in j.values())]
    if lacking:
        # a judged non-relevant document that is never retrieved: bpref's min(|R|, |N|) is then 1 instead of 0;
        # no measure of a ranking changes otherwise
        qrels = {q: {**j, "~nonrelevant": 0} if q in lacking else dict(j) for q, j in inp.qrels.items()}
        out["no judged non-relevant"] = (f"a judged non-relevant document, never retrieved, added to "
                                         f"{', '.join(lacking)}", Input(qrels, inp.run, inp.scores))
    if k is not None and any(len(r) < k for r in inp.run.values()):
        run = {q: list(r) + [f"~pad{i}" for i in range(k - len(r))] for q, r in inp.run.items()}
        qrels = {q: {**j, **{d: 0 for d in run[q] if d.startswith("~pad")}} for q, j in inp.qrels.items()}
        # the original scores are kept (ties stay ties); padding documents score below every one of them
        floor = min((v for sc in inp.scores.values() for v in sc.values()), default=0.0)
        scores = {q: {**inp.scores.get(q, {}), **{d: floor - 1.0 - i for i, d in enumerate(
            x for x in run[q] if x.startswith("~pad"))}} for q in run}
        out["precision_denominator"] = (f"each ranking padded with judged non-relevant documents to k = {k} results",
                                        Input(qrels, run, scores))
    if k is not None and any(len(r) > k for r in inp.run.values()):
        run = {q: list(r)[:k] for q, r in inp.run.items()}
        out["rr_cutoff"] = (f"each ranking cut at k = {k}",
                            Input(inp.qrels, run, {q: {d: inp.scores[q][d] for d in run[q]} for q in run}))
    empty = [q for q, j in inp.qrels.items() if not relevant_set(j, 1) or not inp.run.get(q)]
    if empty and len(empty) < len(inp.qrels):
        keep = [q for q in inp.qrels if q not in empty]
        key = "no_qrels" if all(not inp.qrels[q] for q in empty) else "no_relevant"
        out[key] = (f"queries without a relevant document or without results ({', '.join(empty)}) dropped",
                              Input({q: inp.qrels[q] for q in keep}, {q: inp.run[q] for q in keep if q in inp.run},
                                    {q: inp.scores[q] for q in keep if q in inp.scores}))
    return out


_INPUT_PHRASE = {
    "ties": "breaks tied scores by another rule than the chapter's",
    "single precision": "reads scores as 32-bit floats, so scores that differ only beyond single precision tie "
                        "and are ordered by its tie rule",
    "unjudged": "treats unjudged documents differently",
    "negative grades": "treats negative grades differently",
    "no judged non-relevant": "cannot evaluate a query with no judged non-relevant document (it divides by "
                              "min(|R|, |N|) = 0: ranx's bpref)",
}


def attribute(who: str, observed: PerQuery, chapter: Callable[[Mapping[str, str], Input], PerQuery],
              reference: Callable[[Input], PerQuery | None], inp: Input, k: int | None,
              base: Mapping[str, str], names: list[str],
              known: Mapping[str, list[str]] | None = None) -> Attribution:
    """Find the cause(s) of ``who``'s values ``observed`` differing from the chapter's under ``base``.

    ``chapter(reading, input)`` gives the chapter's per-query values; ``reference(input)`` re-runs
    the reference (None when it fails). ``names``: conventions the measure depends on; ``known``: the
    values each convention was observed to follow on the reference's probes (``observe.follows``).
    """
    result = Attribution()
    try:
        baseline = chapter(base, inp)
    except Exception:  # the chapter's reading cannot take this input: every variant is judged on its own
        baseline = None
    if baseline is not None and agree(baseline, observed):
        # the chapter's own definitions already give these values: no convention or input changes anything here,
        # and a variant that "fits" would name a cause no experiment showed
        result.tried.append(f"none: the chapter's definitions already give {who}'s values ({fmt(observed)})")
        return result
    by_name: dict[str, Cause] = {}
    for name in names:
        conv = CONVENTIONS[name]
        matching = []
        for value in conv.values:
            if value == base[name]:
                continue
            try:
                variant = chapter({**base, name: value}, inp)
            except Exception:  # a reading the input cannot take (e.g. reject on repeats)
                continue
            result.tried.append(f"{conv.title} {value}")
            if agree(variant, observed) and (baseline is None or not agree(variant, baseline)):
                matching.append(value)
        if not matching:
            continue
        # several values can reproduce the numbers on one input; the reference's observed rule (its probe in
        # the ledger) tells them apart when it is among them
        probed = (known or {}).get(name) or []
        seen = [v for v in matching if v in probed]
        if probed and not seen:
            # the reference's own probe shows another value: that value fitting this input is a coincidence of the
            # input, not the reference's rule, so it is not offered as a cause
            result.tried.append(f"{conv.title} {' or '.join(matching)} (fits this input, but {who}'s probe shows "
                                f"{' or '.join(probed)})")
            continue
        chosen = seen or matching
        value = " or ".join(chosen)
        note = (f" (this input cannot tell {' and '.join(chosen)} apart)" if len(chosen) > 1 else
                f" ({' and '.join(v for v in matching if v not in chosen)} also fits this input; the reference's "
                "probe shows " + chosen[0] + ")" if len(matching) > 1 else "")
        by_name[name] = Cause(name, chosen[0] if len(chosen) == 1 else "", "",
                              [f"The chapter's definitions with {conv.title} “{value}” instead of “{base[name]}” "
                               f"give exactly {who}'s values ({fmt(observed)}){note}."])
        if len(chosen) > 1:
            by_name[name].phrase = f"follows {conv.title} {value}"
    relevant_inputs = set(names) | {"ties", "single precision", "negative grades", "no judged non-relevant"}
    for name, (sentence, rewritten) in rewrites(inp, k, base).items():
        if name not in relevant_inputs:
            continue
        result.tried.append(sentence)
        try:
            own = chapter(base, rewritten)
        except Exception:
            continue
        theirs = reference(rewritten)
        if theirs is None or not agree(own, theirs):
            continue
        shown = f"With {sentence}, {who} gives {fmt(theirs)}, as the chapter's definitions do."
        if name in by_name:
            by_name[name].shown_by.append(shown)
        elif name in CONVENTIONS and name not in _INPUT_PHRASE:
            # the input cause is a convention the chapter-variant experiment did not pin to one value
            by_name[name] = Cause(name, "", f"follows another {CONVENTIONS[name].title} than the chapter", [shown])
        else:
            by_name[name] = Cause(name, "", _INPUT_PHRASE.get(name, name), [shown])
    result.causes = list(by_name.values())
    if not result.causes:
        result.causes = _joint(result, who, observed, chapter, inp, base, names, known or {})
    for cause in result.causes:
        if cause.name in CONVENTIONS and cause.value:
            cause.phrase = _reference_phrase(CONVENTIONS[cause.name].phrase(cause.value))
    return result


def _joint(result: Attribution, who: str, observed: PerQuery, chapter, inp: Input, base: Mapping[str, str],
           names: list[str], known: Mapping[str, list[str]]) -> list[Cause]:
    """When no single cause explains ``observed``: the pairs of convention values that, changed together in the
    chapter's definitions, give exactly those values. A pair the reference's probes show (both values among its
    observed rules) is preferred; the first remaining pair is named, any other that fits is said to fit too.
    Sets ``result.joint`` and ``result.pairs_tried``; returns the pair's two causes, or none."""
    alternatives = [(n, v) for n in names for v in CONVENTIONS[n].values if v != base[n]]
    fitting = []
    for i, (n1, v1) in enumerate(alternatives):
        for n2, v2 in alternatives[i + 1:]:
            if n2 == n1:
                continue
            try:
                variant = chapter({**base, n1: v1, n2: v2}, inp)
            except Exception:  # a reading the input cannot take
                continue
            result.pairs_tried += 1
            if agree(variant, observed):
                fitting.append(((n1, v1), (n2, v2)))
    # a pair with a value the reference's own probe contradicts is not its rule (see ``attribute``)
    fitting = [pair for pair in fitting if all(not known.get(n) or v in known[n] for n, v in pair)]
    if not fitting:
        return []
    seen = [pair for pair in fitting if all(v in known.get(n, []) for n, v in pair)]
    (n1, v1), (n2, v2) = (seen or fitting)[0]
    c1, c2 = CONVENTIONS[n1], CONVENTIONS[n2]
    others = [pair for pair in fitting if pair != (seen or fitting)[0]]
    also = (" Also fitting this input: " + "; ".join(f"{CONVENTIONS[a].title} “{x}” with {CONVENTIONS[b].title} “{y}”"
                                                     for (a, x), (b, y) in others) + ".") if others else ""
    shown = (f"The chapter's definitions with {c1.title} “{v1}” instead of “{base[n1]}” and {c2.title} “{v2}” "
             f"instead of “{base[n2]}”, both changed, give exactly {who}'s values ({fmt(observed)}); neither "
             f"change alone does.{also}")
    result.joint = True
    return [Cause(n1, v1, "", [shown]), Cause(n2, v2, "", [])]


def _reference_phrase(phrase: str) -> str:
    """'tied documents are ordered by docno, descending' → 'orders tied documents by docno, descending'-like
    text, kept simple: the convention's own phrase, introduced as what the reference follows."""
    return f"follows the convention that {phrase}"


def explain_reference(ref, measure, spec, observed: PerQuery, inp: Input, base: Mapping[str, str], names: list[str],
                      query: str | None = None) -> Attribution:
    """``attribute`` for a reference adapter ``ref`` on ``measure`` (the ir-measures object; ``spec`` the
    chapter's): the chapter's definitions and the reference are both re-run on each rewritten input, and
    only ``query`` is compared when given. The reference's observed rules tell apart values that fit equally."""
    from audit.evaluation.observe import known_rules

    def only(values: Mapping) -> dict:
        if query is None:
            return dict(values)
        return {query: values[query]} if query in values else {}

    def chapter(reading, i: Input):
        return only(evaluator.evaluate(spec, i.qrels, i.run, reading, i.scores))

    def rerun(i: Input):
        outcome = ref.evaluate([measure], i.qrels, i.scores)[str(measure)]
        return only(outcome.per_query) if outcome.status == "ok" else None

    return attribute(ref.title, only(observed), chapter, rerun, inp, spec.cutoff, base, names, known_rules(ref))
