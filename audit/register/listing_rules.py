"""The load's rules for claims whose checks live in ``audit.evaluation.checks``: what a listing's returned tuple may
hold (``returned``), what a listing computing a statistic takes and returns (``stat_listing``), and what a sentence
comparing systems must encode (``standing``). They read the claim only, so the register can apply them when it loads;
the checkers import them from here."""

from __future__ import annotations

import re

from audit.errors import AuditError
from audit.measures.syntax import parse as parse_measure
from audit.model.values import parse_claimed


# --- a listing returning several results ----------------------------------------------------------------------

#: The quantities an element may name besides a measure, each with the measure that defines it.
RETURNED = {"residual": "RBP"}


def element_problem(claim, element: str) -> str:
    """What is wrong with one element of ``returns`` ("" when it is a measure or a quantity the claim's measure
    defines). A measure element is parsed by the register's own measure check."""
    name = element.strip()
    if name in RETURNED:
        try:
            spec = parse_measure(claim.measure.replace("@k", "@1"))[1]
        except AuditError:
            return ""  # the claim's measure is reported under measure
        if spec is None or spec.name != RETURNED[name]:
            return f"{name!r} is a quantity of {RETURNED[name]}; the claim's measure is {claim.measure!r}"
        return ""
    uses_k = bool({"cutoff", "cutoffs"} & set(claim.arguments.values()))
    if uses_k != ("@k" in name):
        return (f"{name!r}: with a cutoff argument each measure element is written with @k (e.g. P@k); without one, "
                "on the whole ranking")
    return ""


# --- a listing computing a statistic --------------------------------------------------------------------------

#: The tests a listing may compute (paired data).
LISTING_TESTS = ("paired t", "sign", "permutation", "wilcoxon", "bootstrap")
#: The roles of a statistics listing's parameters: each system's per-topic scores (lists in topic order, paired), or
#: their differences a − b; a fixed value (``constant``: the number of resamples, a seed); the confidence level of
#: an interval (``confidence level``: from ``constants``, else the listing's literal default, else 0.95).
STAT_ROLES = ("scores a", "scores b", "differences", "constant", "confidence level")
#: What a returned value may be, by test (``low`` and ``high``: the bootstrap interval's endpoints).
ELEMENTS = {"paired t": ("t", "p", "df", "mean difference", "d"),
            "sign": ("p", "positives", "mean difference", "d"),
            "permutation": ("p", "mean difference", "d"),
            "wilcoxon": ("p", "W", "mean difference", "d"),
            "bootstrap": ("low", "high", "mean difference", "d")}
#: The values a Monte Carlo listing estimates.
ESTIMATED = {"permutation": ("p",), "bootstrap": ("low", "high")}
#: A listing that draws random numbers (a seeded generator, the random module, numpy's).
RANDOM = re.compile(r"\brandom\.|\bdefault_rng\b|\bnp\.random\b|\bnumpy\.random\b|\bRandomState\b|"
                    r"\bfrom random import\b|\bimport random\b")


def register_problem(claim, params: list[str], defaults: dict, source: str = "") -> tuple[str, str] | None:
    """(field, what is wrong) with a statistics listing's claim, or None. A listing drawing random numbers whose
    returned values include an estimate (``ESTIMATED``) needs ``resamples``: without it, it would be held to the exact
    value alone."""
    for p, role in claim.arguments.items():
        if role not in STAT_ROLES:
            return f"arguments.{p}", f"role {role!r}: a listing computing {claim.measure} takes {', '.join(STAT_ROLES)}"
        if p not in params:
            return f"arguments.{p}", f"{claim.function}() has no parameter {p!r}; it takes {', '.join(params)}"
    unmapped = [p for p in params if p not in claim.arguments]
    if unmapped:
        return "arguments", f"{claim.function}() takes {', '.join(params)}; give each a role: {', '.join(unmapped)} has none"
    roles = sorted(claim.arguments.values())
    data = [r for r in roles if r in ("scores a", "scores b", "differences")]
    if data not in (["scores a", "scores b"], ["differences"]):
        return "arguments", "a statistics listing takes the two systems' per-topic scores (scores a, scores b) or their differences"
    for p, role in claim.arguments.items():
        if role in ("constant", "confidence level") and p not in claim.constants and p not in defaults:
            return f"arguments.{p}", f"a {role} needs its value: give it in constants ({p}: …) or as the listing's literal default"
    if not claim.returns:
        return "returns", (f"name what {claim.function}() returns, in order, from {', '.join(ELEMENTS[claim.measure])} "
                           "(e.g. returns: [t, p])")
    for i, element in enumerate(claim.returns):
        if element.strip() not in ELEMENTS[claim.measure]:
            return f"returns[{i}]", (f"{element!r} is not a value {claim.measure} gives; one of "
                                     f"{', '.join(ELEMENTS[claim.measure])}")
    estimated = [e for e in claim.returns if e.strip() in ESTIMATED.get(claim.measure, ())]
    if claim.resamples is None and estimated and RANDOM.search(source):
        return "resamples", (f"{claim.function}() draws random numbers, so its {', '.join(estimated)} "
                             f"{'is' if len(estimated) == 1 else 'are'} a Monte Carlo estimate: give resamples (how "
                             "many it draws) so that it is held to the exact value within its Monte Carlo error, not "
                             "to the exact value alone")
    if claim.resamples is not None and not estimated:
        return "resamples", f"no value {claim.function}() returns is a Monte Carlo estimate of {claim.measure}"
    if claim.shape != "number":
        return "shape", "a statistics listing returns its values as a tuple: leave shape out and name them in returns"
    return None


# --- a sentence comparing one system with several ------------------------------------------------------------

RELATIONS = ("best", "worst", "beats", "loses to", "only loses to", "only beats")
#: Words by which a sentence compares systems: each must be encoded by some part.
COMPARATIVE = re.compile(r"\b(?:best|worst|highest|lowest|top|bottom|beat(?:s|en)?|outperform(?:s|ed)?|"
                         r"los(?:es|e|t|ing)|wins?|won|better|worse|ahead|behind|only|leads?|trails?|"
                         r"strongest|weakest|first|last)\b", re.IGNORECASE)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()



def part_table(claim, part) -> tuple[str, dict]:
    """The measure a part reads and its table."""
    name = part.measure if part.measure is not None else next(iter(claim.tables))
    return name, claim.tables[name]


def systems_problem(claim) -> tuple[str, str] | None:
    """(field, what is wrong), or None."""
    for measure, table in claim.tables.items():
        lengths = {len(v) for v in table.values()}
        if len(table) < 2 or len(lengths) != 1 or 0 in lengths:
            return f"tables.{measure}", ("give two or more systems' per-topic values, for the same topics in the same "
                                         "order")
        for system, values in table.items():
            for i, v in enumerate(values):
                try:
                    parse_claimed(v)
                except AuditError as exc:
                    return f"tables.{measure}.{system}[{i}]", exc.message
    quote = _fold(claim.quote)
    spans = []
    systems = list(dict.fromkeys(s for t in claim.tables.values() for s in t))
    for i, part in enumerate(claim.parts):
        if part.measure is None and len(claim.tables) > 1:
            return f"parts[{i}].measure", f"name the table this part reads: one of {', '.join(claim.tables)}"
        if part.measure is not None and part.measure not in claim.tables:
            return f"parts[{i}].measure", f"{part.measure!r} is not one of the tables ({', '.join(claim.tables)})"
        _, table = part_table(claim, part)
        for name in [part.system, *part.others]:
            if name not in table:
                return f"parts[{i}]", f"{name!r} is not a system of the table ({', '.join(table)})"
        if part.relation in ("best", "worst") and part.others:
            return f"parts[{i}].others", f"“{part.relation}” compares {part.system} with every other system: leave out others"
        if part.relation not in ("best", "worst") and not part.others:
            return f"parts[{i}].others", f"“{part.relation}” needs the systems it names (others)"
        if part.system in part.others:
            return f"parts[{i}].others", f"{part.system} is compared with itself"
        says = _fold(part.says)
        at = quote.find(says)
        if at < 0:
            return f"parts[{i}].says", f"“{says}” is not in the quote; give the words of the quote this part encodes"
        spans.append((at, at + len(says)))

    def covered(start: int, end: int) -> bool:
        return any(a <= start and end <= b for a, b in spans)

    loose = [m.group(0) for m in COMPARATIVE.finditer(quote) if not covered(m.start(), m.end())]
    for name in systems:
        loose += [m.group(0) for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", quote)
                  if not covered(m.start(), m.end())]
    if loose:
        return "parts", (f"the quote says more than its parts encode ({', '.join(f'“{w}”' for w in loose)} lies in no "
                         "part's says): encode each half of the sentence as a part, so that a true half alone is never "
                         "shown as the sentence's support")
    return None
