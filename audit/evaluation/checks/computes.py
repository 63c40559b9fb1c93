"""What a listing really computes: known computations that are not the measure they are passed off as.

When a listing disagrees with the chapter's definition of its measure, the code check looks for what it computes
instead, by experiment: a convention the text leaves open (``listing_reading``), a cutoff applied off by one
(``cutoff_shift``), scores read in the wrong order (``score_order``), and the computations here, each a formula
widely copied under the measure's name. Each entry gives the value the computation takes on one query's input, the
measures it is mistaken for, how the finding names it and its fix; it is named only when it gives the listing's
value on every input where the listing returned a number.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass




from audit.evaluation import definitions
@dataclass(frozen=True)
class Computation:
    """A computation mistaken for a measure: ``measures``, the catalogue names it is passed off as; ``value``, its
    value on a ranking (document IDs as text), judgements and cutoff under a reading (None where it has none);
    ``conventions``, the conventions whose values it is tried under (the chapter's first, then each other value);
    ``cause``, what the finding says it computes; ``fix``, what the listing must do instead."""

    name: str
    measures: frozenset[str]
    value: Callable[[list[str], Mapping[str, int], int | None, Mapping[str, str]], float | None]
    conventions: tuple[str, ...]
    cause: str
    fix: str


def _relevant(judgements: Mapping[str, int], reading: Mapping[str, str]) -> set[str]:
    return definitions.relevant_set(judgements, int(reading.get("relevance_level", "1")))


def _precision_at_last_relevant(ranking, judgements, k, reading) -> float | None:
    """Precision at the rank of the last relevant document retrieved (0 when none is): what ``r_precision`` of the
    widely copied rank_metrics.py returns."""
    relevant = _relevant(judgements, reading)
    flags = [d in relevant for d in (ranking[:k] if k is not None else ranking)]
    last = max((i for i, hit in enumerate(flags, start=1) if hit), default=0)
    return sum(flags[:last]) / last if last else 0.0


def _gain(grade: int, reading) -> float:
    if grade <= 0:
        return 0.0
    return float(grade) if reading.get("gain", "linear") == "linear" else 2.0 ** grade - 1


def _flat_head_dcg(grades: list[int], reading) -> float:
    """Σ gain(g_i) / log2(max(i, 2)): ranks 1 and 2 undiscounted, rank i ≥ 2 divided by log2 i."""
    return sum(_gain(g, reading) / (1.0 if i <= 2 else math.log2(i)) for i, g in enumerate(grades, start=1))


def _ranked_grades(ranking, judgements, k) -> list[int]:
    return [judgements.get(d, 0) for d in (ranking[:k] if k is not None else ranking)]


def _flat_head_dcg_value(ranking, judgements, k, reading) -> float | None:
    return _flat_head_dcg(_ranked_grades(ranking, judgements, k), reading)


def _flat_head_ndcg_value(ranking, judgements, k, reading) -> float | None:
    ideal = _flat_head_dcg(definitions.ideal_order(judgements, ranking, k, reading), reading)
    return _flat_head_dcg(_ranked_grades(ranking, judgements, k), reading) / ideal if ideal else 0.0


_FLAT_HEAD = ("it discounts rank i by log2(max(i, 2)), so ranks 1 and 2 both count in full (Järvelin and "
              "Kekäläinen's original DCG with base 2), not by log2(i + 1) as the chapter's definition and trec_eval, "
              "ir-measures and ranx do")
_FLAT_HEAD_FIX = "it divides the gain at rank i by log2(i + 1) for every rank, the first included"

COMPUTATIONS: tuple[Computation, ...] = (
    Computation(
        "precision at the last relevant rank", frozenset({"Rprec"}), _precision_at_last_relevant, (),
        "it computes precision at the rank of the last relevant document it retrieved, not R-precision, which is "
        "precision at rank |R|, |R| the number of relevant documents (Buckley and Voorhees 2000; trec_eval Rprec, "
        "ir-measures and ranx alike)",
        "it cuts the ranking at rank |R|, the number of relevant documents, and divides the relevant documents "
        "found there by |R| (0 when there are none)"),
    Computation("DCG with ranks 1 and 2 undiscounted", frozenset({"DCG"}), _flat_head_dcg_value, ("gain",),
                _FLAT_HEAD, _FLAT_HEAD_FIX),
    Computation("nDCG with ranks 1 and 2 undiscounted", frozenset({"nDCG"}), _flat_head_ndcg_value,
                ("gain", "ideal"), _FLAT_HEAD, _FLAT_HEAD_FIX),
)


#: Convention values a computation here stands for, with its source and its fix (the ``discount`` convention's
#: ``log2(max(i, 2))`` is Järvelin and Kekäläinen's DCG with base 2): a listing that departs to one of them is named by
#: the computation, so ``listing_reading`` leaves these values to it.
NAMED_VALUES = frozenset({("discount", "log2(max(i, 2))")})


def candidates(measure: str) -> list[Computation]:
    """The computations mistaken for ``measure`` (a catalogue name: Rprec, DCG, nDCG)."""
    return [c for c in COMPUTATIONS if measure in c.measures]


def readings(computation: Computation, reading: Mapping[str, str]) -> list[dict[str, str]]:
    """The readings a computation is tried under: the chapter's, then each other value of one of its conventions,
    then of two (as changes to ``reading``)."""
    from audit.measures.conventions import CONVENTIONS
    import itertools

    options = [(n, v) for n in computation.conventions for v in CONVENTIONS[n].values if v != reading.get(n)]
    out: list[dict[str, str]] = [{}]
    for size in (1, 2):
        out += [dict(combo) for combo in itertools.combinations(options, size) if len({n for n, _ in combo}) == size]
    return out


#: The ideal DCG rules that build the ideal from the returned list, not from the judgements.
IDEAL_FROM_LIST = frozenset({"retrieved only", "all retrieved, cut at k"})


def changes_text(changed: Mapping[str, str]) -> str:
    """The convention values a computation was found under, in words: an ideal built from the returned list is
    named as such (a relevant document the list misses never lowers the score), the others by title and value."""
    from audit.measures.conventions import CONVENTIONS

    out = []
    for name, value in changed.items():
        if name == "ideal" and value in IDEAL_FROM_LIST:
            out.append(f"its ideal DCG built from the returned list alone (ideal DCG “{value}”), so a relevant "
                       "document the list misses never lowers its score, where trec_eval, ir-measures and ranx sort "
                       "every judged grade")
        else:
            out.append(f"{CONVENTIONS[name].title} “{value}”")
    return " and ".join(out)
