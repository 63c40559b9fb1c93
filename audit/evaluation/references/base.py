"""What every reference adapter declares and returns."""

from __future__ import annotations

import abc
import functools
import warnings
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
    library refused the input on purpose, e.g. a run with a repeated ID). ``readers``: from
    ``evaluate_files`` only, what the library's own readers did with each file,
    ``{"qrels": verdict, "run": verdict}`` (``reader_verdict``'s words).
    """

    status: str
    per_query: dict[str, float] = field(default_factory=dict)
    provider: str = ""
    detail: str = ""
    readers: dict[str, str] = field(default_factory=dict)

    @property
    def mean(self) -> float | None:
        if self.status != "ok" or not self.per_query:
            return None if self.status != "ok" else 0.0
        return sum(self.per_query.values()) / len(self.per_query)


class Reference(abc.ABC):
    """A reference implementation. Subclasses translate measure names and inputs.

    ``name``: short id used in reports; ``library``: the distribution name for its version;
    ``slow_to_load``: its first evaluation in a process takes seconds (every audit waits for it), so its
    worker process is given the CPU first (``audit.evaluation.references.worker``).
    """

    name: str = ""
    library: str = ""
    title: str = ""
    slow_to_load: bool = False
    #: The reference's own options that follow a convention value its defaults do not: (convention, value) →
    #: (the measure parameters that select it, in ir-measures' syntax, and how a reader names the option).
    #: A claim qualified because the reference's default follows another value names the option when the
    #: reference, run with it, returns the claimed value.
    options: dict[tuple[str, str], tuple[dict[str, object], str]] = {}

    def version(self) -> str:
        """The installed version of the library's distribution (``library``), as pip names it. Raises
        ``importlib.metadata.PackageNotFoundError`` when it is not installed."""
        return _installed_version(self.library)

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

    #: The significance tests the library has, by name in ``audit.register.claims.TESTS`` → (its function, how it runs).
    SIGNIFICANCE: dict[str, tuple[str, str]] = {}

    def significance(self, test: str, a: Sequence[float], b: Sequence[float]) -> dict[str, object] | None:
        """The library's own two-sided significance test ``test`` (a name of ``audit.register.claims.TESTS``) on the
        paired per-query values ``a`` and ``b`` of two systems (the same queries, in order): ``{"p": float, "how":
        what the library ran}``, ``{"error": message}`` when it raised, or None when it has no such test."""
        return None

    def evaluate_files(self, measures: Sequence[object], qrels_path: str, run_path: str) -> dict[str, Outcome]:
        """Evaluate TREC files the way the library's users do: its own readers, its own defaults (every
        qrels query it keeps, its own rule for a query missing from the run). A reader that refuses a
        file gives status ``"rejected"`` for every measure, never a value from another path. Every
        outcome carries both readers' verdicts (``Outcome.readers``): the files are read once, for
        the verdicts and the evaluation alike."""
        return {str(m): Outcome("not applicable", detail="no file interface") for m in measures}

    def read_file(self, path: str, kind: str) -> object:
        """The library's own reader on a TREC ``kind`` ("qrels" or "run") file: what it returns, or
        what it raises. Adapters without a file interface raise ``NotImplementedError``."""
        raise NotImplementedError(f"{self.name} has no file reader")

    def reader_verdict(self, path: str, kind: str) -> str:
        """What the library's own reader does with the file at ``path`` (``reader_verdict``'s words)."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.read_file(path, kind)
        except Exception as exc:
            return reader_verdict(exc)
        return reader_verdict(None)

    def read_both(self, qrels_path: str, run_path: str) -> tuple[object, object, dict[str, str], tuple[str, Exception] | None]:
        """Both files through the library's own readers: ``(qrels, run, verdicts, refusal)``, where
        ``verdicts`` is ``{"qrels": …, "run": …}`` and ``refusal`` the first file refused and why (None
        when both were read). The run is read even when the qrels is refused, so both verdicts are known."""
        read, verdicts, refusal = {}, {}, None
        for kind, path in (("qrels", qrels_path), ("run", run_path)):
            read[kind], verdicts[kind], exc = self.read_one(path, kind)
            if exc is not None:
                refusal = refusal or (kind, exc)
        return read.get("qrels"), read.get("run"), verdicts, refusal

    def read_one(self, path: str, kind: str) -> tuple[object, str, Exception | None]:
        """One file through the library's own reader (warnings silenced): ``(what it returned or None, its
        verdict in words, what it raised or None)``."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                read = self.read_file(path, kind)
        except Exception as exc:
            return None, reader_verdict(exc), exc
        return read, reader_verdict(None), None

    @abc.abstractmethod
    def evaluate_run_file(self, measures: Sequence[object], qrels: Mapping[str, Mapping[str, int]],
                          path: str) -> dict[str, Outcome]:
        """Like ``evaluate`` but the run is read from a TREC run file by the library's own reader.

        Used for convention probes whose input a dict cannot hold (a repeated doc ID).
        """


def reader_verdict(exc: BaseException | None) -> str:
    """A library reader's verdict on a file, in words: ``"reads it"`` (``exc`` None), ``"rejects it (its
    reader fails an assertion)"`` (an ``AssertionError``, pytrec_eval's way of refusing a line) or
    ``"fails: <exception type>: <message, at most 120 characters>"``."""
    if exc is None:
        return "reads it"
    if isinstance(exc, AssertionError):
        return "rejects it (its reader fails an assertion)"
    return f"fails: {type(exc).__name__}: {str(exc)[:120]}"


def reader_rejected(measures: Sequence[object], exc: BaseException, provider: str, which: str,
                    readers: dict[str, str] | None = None) -> dict[str, Outcome]:
    """Outcomes for a file the library's own reader refused (``which``: "qrels" or "run"); ``readers``:
    both readers' verdicts, carried by each outcome."""
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return {str(m): Outcome("rejected", provider=provider, detail=f"its {which} reader refuses the file ({text[:200]})",
                            readers=dict(readers or {})) for m in measures}


def with_readers(outcomes: dict[str, Outcome], readers: dict[str, str]) -> dict[str, Outcome]:
    """``outcomes``, each carrying the readers' verdicts (``Outcome.readers``)."""
    for outcome in outcomes.values():
        outcome.readers = dict(readers)
    return outcomes


def not_applicable(measures: Sequence[object], support: Mapping[str, Support]) -> dict[str, Outcome]:
    """Outcomes for measures a reference cannot express."""
    return {str(m): Outcome("not applicable", detail=support[str(m)].reason)
            for m in measures if not support[str(m)].ok}


def error_outcome(exc: BaseException, provider: str = "") -> Outcome:
    """A library failure as an ``Outcome``; an empty assertion says so."""
    text = str(exc) or "(no message)"
    return Outcome("error", provider=provider, detail=f"{type(exc).__name__}: {text}")


@functools.lru_cache(maxsize=None)
def _installed_version(library: str) -> str:
    """``importlib.metadata.version(library)``, read once per process: an audit asks for each reference's
    version hundreds of times (every cache key holds it), and each read of the package metadata takes about
    a millisecond."""
    from importlib.metadata import version
    return version(library)
