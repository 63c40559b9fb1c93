"""Reference libraries evaluated in worker processes, so a native crash is one reference's error.

pytrec_eval, ranx (numba) and the C parts of numpy can crash the interpreter (a segmentation
fault) on input they do not expect. ``IsolatedReference`` wraps an adapter: the adapter's own
``evaluate`` and ``evaluate_run_file`` run in a long-lived worker process (one per reference,
started once per audit and restarted only after a crash), and a worker that dies or overruns
``timeout`` seconds becomes an ``"error"`` outcome for every measure of that call — the audit
goes on, the other references' values are kept. Batching is unchanged: one call per reference
still carries every fixture of a chapter.

Workers are started with the ``spawn`` method (no inherited threads or locks), exit when their
parent's end of the pipe closes (the parent ended, however it ended), and are daemonic, so the
interpreter terminates them at exit.
"""

from __future__ import annotations

import importlib
import multiprocessing
import signal
import threading
from collections.abc import Mapping, Sequence

from .base import Outcome, Reference, ScoredRun, Support

#: Seconds one call (one batch of fixtures and measures) may take in a worker before the worker is
#: killed and the call becomes an error. Generous: ranx compiles its metrics on first use in an
#: installation (about 40 s), and a chapter's batch is evaluated in one call.
TIMEOUT = 300.0

#: Modules each worker imports as soon as it starts, so the import overlaps with the parent's
#: loading of registers instead of delaying the first evaluation.
_PRELOAD = {"pytrec_eval": ("pytrec_eval",), "ir_measures": ("ir_measures",), "ranx": ()}


def _negative_as_zero(qrels: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Negative grades given as 0 (judged, non-relevant).

    trec_eval reads grades as small non-negative integers (its ``form_res_rels`` uses a grade as
    an array index; −1 and −2 are its own codes for "not pooled" and "unjudged"): a query whose
    grades are all negative, evaluated after an earlier evaluator in the same process, crashes
    pytrec_eval with SIGSEGV (observed with −5), and ir-measures with it (it calls pytrec_eval).
    Where they do not crash, pytrec_eval, ir-measures (Judged@k included: a negative grade is
    judged) and ranx give a negative grade exactly the values of grade 0 for every measure the
    chapter evaluator models (``tests/test_worker.py`` holds this), so the substitution changes no
    value reported. (trec_eval's own judged-based measures, bpref and num_nonrel_judged_ret, count
    a negative grade as unjudged; the adapter never asks for them.)
    """
    return {q: {d: (g if g >= 0 else 0) for d, g in docs.items()} for q, docs in qrels.items()}


#: Input known to crash a library, made safe before it is sent (see ``_negative_as_zero``).
GUARDS = {"pytrec_eval": _negative_as_zero, "ir_measures": _negative_as_zero}


def _serve(conn, cls: type) -> None:
    """Worker main loop: build the adapter, then answer ``(method, measure names, qrels, arg)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and closes the pipe
    ref = cls()
    for module in _PRELOAD.get(ref.name, ()):
        try:
            importlib.import_module(module)
        except Exception:
            pass  # the evaluation itself reports a missing library
    if ref.name == "ranx":
        try:
            from .ranx_ref import _import_ranx
            _import_ranx()
        except Exception:
            pass
    import ir_measures

    while True:
        try:
            method, names, qrels, arg = conn.recv()
        except (EOFError, OSError):
            return
        try:
            measures = [ir_measures.parse_measure(n) for n in names]
            result = getattr(ref, method)(measures, qrels, arg)
            result = {k: Outcome(o.status, dict(o.per_query), o.provider, o.detail) for k, o in result.items()}
        except Exception as exc:  # the adapter promises not to raise; keep the worker alive if it does
            result = {n: Outcome("error", detail=f"{type(exc).__name__}: {exc}"[:500]) for n in names}
        try:
            conn.send(result)
        except (BrokenPipeError, OSError):
            return


def _death(exitcode: int | None) -> str:
    """``"crashed with SIGSEGV (segmentation fault)"`` from a process exit code."""
    if exitcode is not None and exitcode < 0:
        try:
            sig = signal.Signals(-exitcode)
            return f"crashed with {sig.name} ({(signal.strsignal(sig) or 'signal').lower()})"
        except ValueError:
            return f"crashed with signal {-exitcode}"
    return f"ended unexpectedly (exit code {exitcode})"


class IsolatedReference(Reference):
    """``inner``'s evaluations, run in a worker process (see the module doc).

    ``name``, ``library``, ``title``, ``version``, ``conventions`` and ``supports`` are the inner
    adapter's, answered in this process (they import no evaluation code). ``evaluate`` and
    ``evaluate_run_file`` return the inner adapter's outcomes, or, when the worker crashed or
    overran ``timeout`` seconds, an ``"error"`` outcome per measure whose ``detail`` says so.
    """

    def __init__(self, inner: Reference, timeout: float = TIMEOUT) -> None:
        self.inner = inner
        self.name, self.library, self.title = inner.name, inner.library, inner.title
        self.timeout = timeout
        self._process = None
        self._conn = None
        self._lock = threading.Lock()

    # -- answered here --------------------------------------------------------------------------
    def version(self) -> str:
        return self.inner.version()

    def conventions(self) -> dict[str, str]:
        return self.inner.conventions()

    def supports(self, measure) -> Support:
        return self.inner.supports(measure)

    # -- the worker ----------------------------------------------------------------------------
    def start(self) -> None:
        """Start the worker if it is not running (it imports its library in the background)."""
        if self._process is not None and self._process.is_alive():
            return
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        process = ctx.Process(target=_serve, args=(child, type(self.inner)), daemon=True,
                              name=f"chapter-audit-{self.name}")
        process.start()
        child.close()
        self._process, self._conn = process, parent

    def stop(self, wait: float = 2.0) -> None:
        """End the worker, waiting up to ``wait`` seconds before killing it (it is started again on
        the next evaluation)."""
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            process.join(timeout=wait)
            if process.is_alive():
                process.kill()
                process.join(timeout=2)

    def _call(self, method: str, measures: Sequence[object], qrels, arg) -> dict[str, Outcome]:
        names = [str(m) for m in measures]
        if not names:
            return {}
        qrels = GUARDS.get(self.name, dict)(qrels)
        with self._lock:
            self.start()
            process, conn = self._process, self._conn
            try:
                conn.send((method, names, {q: dict(j) for q, j in qrels.items()}, arg))
                if conn.poll(self.timeout):
                    return conn.recv()
                problem = f"did not finish within {self.timeout:g} s and was stopped"
                process.kill()
            except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
                process.join(timeout=5)
                problem = _death(process.exitcode)
            except BaseException:  # interrupted (Ctrl-C, a claim's time limit): its answer would arrive late
                self.stop(wait=0)
                raise
            self.stop(wait=0)
        detail = (f"{self.library} {problem} while evaluating this input in its worker process; "
                  "the other references' values are kept")
        return {n: Outcome("error", provider=self.name, detail=detail) for n in names}

    def evaluate(self, measures: Sequence[object], qrels: Mapping[str, Mapping[str, int]],
                 run: ScoredRun) -> dict[str, Outcome]:
        return self._call("evaluate", measures, qrels, {q: dict(docs) for q, docs in run.items()})

    def evaluate_run_file(self, measures: Sequence[object], qrels: Mapping[str, Mapping[str, int]],
                          path: str) -> dict[str, Outcome]:
        return self._call("evaluate_run_file", measures, qrels, str(path))
