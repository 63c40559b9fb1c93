"""Statements comparing one system with several ("System A is the best of the three on MAP", "only loses to System
2 on nDCG@10", "the highest mean"), checked on the per-topic table they rest on: each system's mean over the topics,
exact in the printed numbers.

Each half of the sentence is a part of the claim, with the words it encodes (``says``). Every part must hold for the
claim to be supported; a false part contradicts it, and the finding names that half. A sentence one of whose halves
is left out of the register is refused when the register loads (``register_problem``): every comparative word of the
quote (best, highest, only, loses, beats …) and every system of the table the quote names must lie in some part's
words, so a true half alone is never shown as the whole sentence's support.

Relations (``RELATIONS``), on the means over the table's topics:

* ``best`` / ``worst``: the system's mean is above (below) every other system's; a tie at the top (bottom) qualifies
  the claim, naming the systems tied;
* ``beats`` / ``loses to``: above (below) each system of ``others``;
* ``only loses to`` / ``only beats``: the systems whose means are above (below) the system's are exactly ``others``.
"""

from __future__ import annotations

from fractions import Fraction

from audit.evaluation.checks.common import CHAPTER, Measurements
from audit.model.evidence import Evidence, Point
from audit.model.results import Check, ImplValue
from audit.model.values import parse_claimed
from audit.register.claims import Chapter, StandingClaim
from audit.register.listing_rules import part_table as _table


def means(table: dict) -> dict[str, Fraction]:
    """Each system's mean over the topics, exact in the printed values."""
    return {s: sum((parse_claimed(v).nominal for v in vs), Fraction(0)) / len(vs) for s, vs in table.items()}


def _mean_text(x: Fraction) -> str:
    return f"{float(x):.4f}" + ("" if x.denominator <= 10 ** 4 and Fraction(f"{float(x):.4f}") == x else "…")


def check(claim: StandingClaim, chapter: Chapter, ms: Measurements) -> Evidence:
    evidence = Evidence()
    rows: dict[str, list] = {name: [] for name in claim.tables}
    for part in claim.parts:
        measure, table = _table(claim, part)
        m = means(table)
        order = sorted(m, key=lambda s: -m[s])
        ranked = ", ".join(f"{s} {_mean_text(m[s])}" for s in order)
        mine = m[part.system]
        above = sorted((s for s in m if s != part.system and m[s] > mine), key=lambda s: -m[s])
        below = sorted((s for s in m if s != part.system and m[s] < mine), key=lambda s: -m[s])
        tied = [s for s in m if s != part.system and m[s] == mine]
        holds, why = True, ""
        if part.relation in ("best", "worst"):
            beyond = above if part.relation == "best" else below
            holds = not beyond
            why = (f"{', '.join(beyond)} {'has' if len(beyond) == 1 else 'have'} a "
                   f"{'higher' if part.relation == 'best' else 'lower'} mean" if beyond else "")
            if holds and tied:
                evidence.conditions.append(Point(
                    f"“{part.says}”: {part.system} ties {', '.join(tied)} at {_mean_text(mine)} {measure} "
                    f"(means: {ranked})", f"Say that {part.system} and {', '.join(tied)} tie for the "
                                          f"{'top' if part.relation == 'best' else 'bottom'}."))
                evidence.lead = ""
        elif part.relation in ("beats", "loses to"):
            wrong = [o for o in part.others if not (m[o] < mine if part.relation == "beats" else m[o] > mine)]
            holds = not wrong
            why = ", ".join(f"{o}'s mean is {_mean_text(m[o])}" for o in wrong)
        else:
            said, truly = sorted(part.others), sorted(above if part.relation == "only loses to" else below)
            holds = said == truly and not (set(tied) & set(part.others))
            verb = "loses to" if part.relation == "only loses to" else "beats"
            why = f"{part.system} {verb} {', '.join(truly) or 'no system'}" + (
                f", and ties {', '.join(tied)}" if tied else "")
        rows[measure].append(ImplValue(implementation=CHAPTER, provider="exact means of the printed values",
                                       behaviour=f"“{part.says}”", detail="holds" if holds else why,
                                       in_interval=holds))
        if holds:
            evidence.scopes.append(f"“{part.says}”: {part.system}'s mean {measure} is {_mean_text(mine)} ({ranked})")
        else:
            evidence.failures.append(Point(
                f"“{part.says}” does not hold on the table: {why} (means of {measure} over "
                f"{len(next(iter(table.values())))} topics: {ranked})",
                f"Revise “{part.says}”: on the table the order by mean {measure} is {' > '.join(order)}."))
    for measure, table in claim.tables.items():
        m = means(table)
        grid = [["topic", *table]] + [[str(i + 1), *(str(table[s][i]) for s in table)]
                                      for i in range(len(next(iter(table.values()))))]
        grid.append(["mean", *(_mean_text(m[s]) for s in table)])
        evidence.checks.append(Check(label=f"each system's mean {measure} over the per-topic table, and each part of "
                                           "the sentence that reads it", measure=measure, values=rows[measure],
                                     table=grid))
    if evidence.failures and len(claim.parts) > 1:
        evidence.concern = ("Part of the sentence is true, so readers will trust the whole of it; the part that is "
                            "false is named in the finding.")
    return evidence
