"""The readings a value claim is checked under: the conventions its measure hangs on, the chapter's declared ones
with the claim's aggregate, and the chapter's definitions' values under every reading left open; the claimed value's
bounds as a check shows them."""

from __future__ import annotations

from audit.evaluation.checks.common import Measurements
from audit.evaluation.readings import Readings, explore, graded_levels
from audit.evaluation.evaluator import relevant_to
from audit.measures.conventions import CONVENTIONS, Declared, Statement
from audit.measures.syntax import parse as parse_measure


_AGGREGATE = {"mean": ("queries with results", "all judged queries"), "pooled": ("pooled",)}


def bounds(claimed) -> dict:
    """The claimed interval as floats for charts."""
    return {"low": None if claimed.low is None else float(claimed.low),
            "high": None if claimed.high is None else float(claimed.high)}


def conventions_for(measure: str, fixture, query: str | None) -> list[str]:
    """The conventions ``measure`` on ``fixture`` can depend on, minus those the measure name fixes."""
    _, spec = parse_measure(measure)
    names = relevant_to(spec.name, several_queries=query is None and len(fixture.qrels) > 1)
    if spec.gain is not None:
        names = [n for n in names if n != "gain"]
    if spec.rel is not None:
        names = [n for n in names if n != "relevance_level"]
    return names


def declared_with_aggregate(declared: Declared, aggregate: str | None) -> Declared:
    """An expectation's ``aggregate`` (mean / pooled) is a statement about averaging; ``both`` leaves it open."""
    if aggregate in _AGGREGATE:
        stated = [Statement(v, "", "claim") for v in _AGGREGATE[aggregate]
                  if v in declared.values("averaging")] or [Statement(v, "", "claim") for v in _AGGREGATE[aggregate]]
        return declared.overlay(Declared({"averaging": stated}))
    if aggregate == "both":
        # every averaging is checked; the chapter's own statement (if any) stays first, so a proposal prefers it
        own = [st for st in declared.statements.get("averaging", []) if st.origin != "claim"]
        # a reading nobody reads the text with (``Declared.reads``) is not one the wording fits, unless stated
        others = [Statement(v, "", "claim") for v in CONVENTIONS["averaging"].values
                  if v not in {st.value for st in own} and CONVENTIONS["averaging"].reads(v, declared.cited)]
        return declared.overlay(Declared({"averaging": own + others}))
    return declared


def chapter_readings(ms: Measurements, fixture, measure: str, declared: Declared, query: str | None,
                     free=()) -> Readings:
    names = conventions_for(measure, fixture, query)
    readings = explore(lambda r: ms.chapter_value(fixture, measure, r, query), declared, names, free=free,
                       restrict=graded_levels(fixture.qrels))
    readings.outcomes = [o for o in readings.outcomes if o.value is not None]
    return readings
