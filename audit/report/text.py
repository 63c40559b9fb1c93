"""Plain-text rendering of one implementation's value, shared by the HTML report and the pytest plugin."""

from __future__ import annotations

from audit.model.values import display
from audit.model.results import ImplValue


def value_text(v: ImplValue, places: int = 6) -> str:
    """``1/4``, ``0.250000``, ``0 → 1/2`` (a change or a counterexample), a convention rule, or the status."""
    if v.status != "ok":
        return v.status
    if "left" in v.per_query:
        return f"{v.per_query['left']} → {v.per_query['right']}"
    if "before" in v.per_query:
        return f"{v.per_query['before']} → {v.per_query['after']}"
    if v.behaviour:
        return v.behaviour
    return display(v.exact) if v.exact else (f"{v.value:.{places}f}" if v.value is not None else "—")
