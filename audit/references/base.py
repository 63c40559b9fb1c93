"""What every reference adapter declares and returns."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

#: Run as references receive it: {query_id: {doc_id: score}}.
ScoredRun = Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class Support:
    """Whether a reference can express a measure, and how (a translation note) or why not."""

    ok: bool
    how: str = ""
    reason: str = ""


@dataclass
class Outcome:
    """One reference's result for one measure on one input.

    ``status``: ``"ok"`` (``per_query`` filled), ``"not applicable"`` (``detail`` says why),
    ``"error"`` (the library raised; ``detail`` has the exception) or ``"rejected"`` (the
    library refused the input on purpose, e.g. a run with a repeated ID).
    """

    status: str
    per_query: dict[str, float] = field(default_factory=dict)
    provider: str = ""
    detail: str = ""

    @property
    def mean(self) -> float | None:
        if self.status != "ok" or not self.per_query:
            return None if self.status != "ok" else 0.0
        return sum(self.per_query.values()) / len(self.per_query)


class Reference(abc.ABC):
    """A reference implementation. Subclasses translate measure names and inputs.

    ``name``: short id used in reports; ``library``: the distribution name for its version.
    """

    name: str = ""
    library: str = ""
    title: str = ""

    @abc.abstractmethod
    def version(self) -> str: ...

    @abc.abstractmethod
    def conventions(self) -> dict[str, str]:
        """Plain statements of the conventions this reference follows (ties, repeated IDs, …)."""

    @abc.abstractmethod
    def supports(self, measure: object) -> Support:
        """Whether ``measure`` (an ir-measures measure object) can be computed, and how."""

    @abc.abstractmethod
    def evaluate(self, measures: Sequence[object], qrels: Mapping[str, Mapping[str, int]],
                 run: ScoredRun) -> dict[str, Outcome]:
        """Per-query values for each measure, keyed by ``str(measure)``.

        Never raises for a library failure: the failure becomes an ``Outcome`` with status
        ``"error"`` so the other references' results are kept.
        """

    def evaluate_files(self, measures: Sequence[object], qrels_path: str, run_path: str) -> dict[str, Outcome]:
        """Evaluate TREC files the way the library's users do: its own readers, its own defaults (every
        qrels query it keeps, its own rule for a query missing from the run). A reader that refuses a
        file gives status ``"rejected"`` for every measure, never a value from another path."""
        return {str(m): Outcome("not applicable", detail="no file interface") for m in measures}

    @abc.abstractmethod
    def evaluate_run_file(self, measures: Sequence[object], qrels: Mapping[str, Mapping[str, int]],
                          path: str) -> dict[str, Outcome]:
        """Like ``evaluate`` but the run is read from a TREC run file by the library's own reader.

        Used for convention probes whose input a dict cannot hold (a repeated doc ID).
        """


def reader_rejected(measures: Sequence[object], exc: BaseException, provider: str, which: str) -> dict[str, Outcome]:
    """Outcomes for a file the library's own reader refused (``which``: "qrels" or "run")."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return {str(m): Outcome("rejected", provider=provider, detail=f"its {which} reader refuses the file ({text[:200]})")
            for m in measures}


def not_applicable(measures: Sequence[object], support: Mapping[str, Support]) -> dict[str, Outcome]:
    """Outcomes for measures a reference cannot express."""
    return {str(m): Outcome("not applicable", detail=support[str(m)].reason)
            for m in measures if not support[str(m)].ok}


def error_outcome(exc: BaseException, provider: str = "") -> Outcome:
    """A library failure as an ``Outcome``; an empty assertion says so."""
    text = str(exc) or "(no message)"
    return Outcome("error", provider=provider, detail=f"{type(exc).__name__}: {text}")
