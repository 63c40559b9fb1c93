"""Reference libraries evaluated in worker processes, so a native crash is one reference's error.

pytrec_eval, ranx (numba) and the C parts of numpy can crash the interpreter (a segmentation
fault) on input they do not expect. ``IsolatedReference`` wraps an adapter: the adapter's own
``evaluate`` and ``evaluate_run_file`` run in a long-lived worker process (one per reference,
started once per audit and restarted only after a crash), and a worker that dies or overruns
``timeout`` seconds becomes an ``"error"`` outcome for every measure of that call — the audit
goes on, the other references' values are kept. Each worker runs under a memory limit
(``processes.memory_limit_mb``; a call that reads TREC files is given ``MEMORY_MB_PER_INPUT_MB`` more per MB of
them): a call that runs out of it, whether the library raises ``MemoryError`` or dies, is an ``"error"`` outcome
saying so and naming the limit, and the worker is started afresh for the next call. Batching is unchanged: one
call per reference still carries every fixture of a chapter.

A worker is a fresh interpreter (``python -m audit.evaluation.references.worker``: no inherited threads or
locks, and unlike ``multiprocessing``'s spawn it never re-imports the caller's main script). It
talks over its stdin and a duplicate of its stdout (pickled messages; the library's own output
goes to stderr), ignores Ctrl-C (the parent handles it), and exits when its stdin closes — when
the parent ends, however it ends.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from multiprocessing.connection import Connection

from audit.evaluation.references.base import Outcome, Reference, ScoredRun, Support
from audit.evaluation import processes

#: Seconds one call (one batch of fixtures and measures) may take in a worker before the worker is
#: killed and the call becomes an error. Generous: ranx compiles its metrics on first use in an
#: installation (about 40 s), and a chapter's batch is evaluated in one call.
TIMEOUT = 300.0

#: Further seconds an ``evaluate_files`` call may take per MB of its two files: the libraries read
#: and evaluate a large run at a few MB per second (ranx about 4 MB/s on a 280 MB run).
SECONDS_PER_MB = 3.0

#: Further megabytes of memory an ``evaluate_files`` (or ``reader_verdict``) call may use per MB of its files, beyond
#: the workers' limit: ranx holds a run read from a file in about 24 times its size (a 14 MB run of 500 queries ×
#: 1,000 documents: 670 MB at its peak, 330 MB of it the interpreter and numba).
MEMORY_MB_PER_INPUT_MB = 32

#: A worker's answer to a call that ran out of memory (its library raised ``MemoryError``, or a message of one).
OUT_OF_MEMORY = "out of memory"

#: How much lower (``nice``) the workers of references that load quickly run than a reference whose
#: ``slow_to_load`` is set: they finish their work while it loads, and never delay it. Chapter 23 cold, on
#: two cores: 12.3 s at equal priority, 11.2 s with this (``benchmarks/bench_reruns.py``).
NICENESS = 10

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


def _serve(incoming: Connection, outgoing: Connection) -> None:
    """Worker main loop: read ``(sys.path, adapter class, niceness)``, build the adapter, then answer
    ``(method, measure names, qrels, arg)`` until the parent closes the pipe."""
    try:
        path, module, qualname, niceness = incoming.recv()
    except (EOFError, OSError):
        return
    processes.settle(path, niceness)
    cls = importlib.import_module(module)
    for part in qualname.split("."):
        cls = getattr(cls, part)
    conn = outgoing
    ref = cls()
    gc.disable()  # as during a call (below): loading a library allocates much and frees little
    for module in _PRELOAD.get(ref.name, ()):
        try:
            importlib.import_module(module)
        except Exception:
            pass  # the evaluation itself reports a missing library
    if ref.name == "ranx":
        try:
            from audit.evaluation.references.ranx_ref import _import_ranx
            _import_ranx()
        except Exception:
            pass
    gc.enable()

    while True:
        try:
            method, names, qrels, arg, memory_mb = incoming.recv()
        except (EOFError, OSError):
            return
        except MemoryError:  # the call's input did not fit under the limit of the call before
            try:
                conn.send((OUT_OF_MEMORY, 0.0))
            except (BrokenPipeError, OSError):
                pass
            return
        processes.limit_memory(memory_mb)
        cpu = time.process_time()
        exhausted = False
        # No cyclic garbage collection during a call: a library reading a large file holds millions of new
        # objects until the call ends, and each collection walks them all again (ir-measures' run reader on
        # 2000 queries × 1000 documents: 4.8 s of CPU with it, 3.3 s without). Refcounting frees them as
        # usual; cycles are collected once the call is over.
        gc.disable()
        try:
            if names:  # imported on the first call that names measures (a significance test names none)
                import ir_measures

                import audit.measures.names  # noqa: F401  (the measures ir-measures' parser learns here)
            measures = [ir_measures.parse_measure(n) for n in names] if names else []
            if method == "reader_verdict":
                result = ref.reader_verdict(*arg)
            elif method == "significance":
                result = ref.significance(*arg)
            elif method == "evaluate_files":
                result = dict(ref.evaluate_files(measures, *arg))  # the adapter's Outcome objects, whole
            else:
                result = dict(getattr(ref, method)(measures, qrels, arg))
        except MemoryError:
            result, exhausted = None, True
        except Exception as exc:  # the adapter promises not to raise; keep the worker alive if it does
            result = ({"error": f"{type(exc).__name__}: {exc}"[:500]} if method == "significance" else
                      {n: Outcome("error", detail=f"{type(exc).__name__}: {exc}"[:500]) for n in names})
        finally:
            gc.enable()
        if exhausted or _ran_out(result):
            # the library's state after a failed allocation is not to be trusted: answer, then end (the parent
            # starts a fresh worker for the next call)
            result = None
            try:
                conn.send((OUT_OF_MEMORY, time.process_time() - cpu))
            except (BrokenPipeError, OSError):
                pass
            return
        try:
            conn.send((result, time.process_time() - cpu))  # with the CPU seconds it took, every thread's
        except (BrokenPipeError, OSError):
            return
        del qrels, arg, result
        if method in ("evaluate_files", "reader_verdict"):
            _release_memory()  # the library's reading of the files is garbage now; give it back before the next call


def _ran_out(result: object) -> bool:
    """Whether an adapter's answer reports a ``MemoryError`` (adapters turn a library's exception into an ``"error"``
    outcome or a reader's verdict, with the exception's name in its text)."""
    texts: list[str] = []
    if isinstance(result, str):
        texts.append(result)
    elif isinstance(result, dict):
        for value in result.values():
            if isinstance(value, Outcome):
                if value.status in ("error", "rejected"):
                    texts.append(value.detail)
                texts.extend((value.readers or {}).values())
            elif isinstance(value, str):
                texts.append(value)
    return any("MemoryError" in text or "std::bad_alloc" in text for text in texts)


def _release_memory() -> None:
    """Return freed heap memory to the system (glibc's ``malloc_trim``), so a worker that has read large
    files does not keep their size while the next worker reads them. Does nothing elsewhere."""
    import ctypes

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


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

    def __init__(self, inner: Reference, timeout: float = TIMEOUT, memory_mb: int | None = None) -> None:
        self.inner = inner
        self.name, self.library, self.title = inner.name, inner.library, inner.title
        self.options = inner.options
        self.SIGNIFICANCE = inner.SIGNIFICANCE
        self.timeout = timeout
        #: The worker's memory limit in MB; None: ``processes.memory_limit_mb()`` (the default, or the variable's).
        self.memory_mb = memory_mb
        self._process: subprocess.Popen | None = None
        self._send: Connection | None = None
        self._recv: Connection | None = None
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
        """Start the worker if it is not running (it imports its library in the background). Raises
        ``ProcessExiting`` once this process's exit handler has stopped the workers."""
        if self._process is not None and self._process.poll() is None:
            return
        with _STARTING:
            if _ENDING.is_set():
                raise ProcessExiting("this process is exiting; no reference worker is started")
            self._process, self._send, self._recv = processes.spawn("audit.evaluation.references.worker",
                                                                    self.memory_limit())
            _RUNNING.add(self)
        cls = type(self.inner)
        # The reference slowest to load runs at the audit's priority and the others below it, so on a
        # busy machine the one every result waits for gets the CPU first.
        niceness = 0 if self.inner.slow_to_load else NICENESS
        self._send.send((list(sys.path), cls.__module__, cls.__qualname__, niceness))

    def memory_limit(self, input_mb: float = 0) -> int:
        """The memory limit in MB of a call reading ``input_mb`` MB of files (``MEMORY_MB_PER_INPUT_MB`` per MB
        beyond the worker's own limit)."""
        base = self.memory_mb if self.memory_mb is not None else processes.memory_limit_mb()
        return base + int(MEMORY_MB_PER_INPUT_MB * input_mb)

    def stop(self, wait: float = 2.0) -> None:
        """End the worker, waiting up to ``wait`` seconds before killing it (it is started again on
        the next evaluation)."""
        process, send, recv = self._process, self._send, self._recv
        self._process = self._send = self._recv = None
        _RUNNING.discard(self)
        processes.end(process, send, recv, wait)

    def interrupt(self) -> None:
        """Kill the worker now, from any thread: a call waiting on it ends as the worker's death (an
        ``"error"`` outcome), and the next call starts a new worker. For a caller that no longer wants
        the answer (its input turned out malformed)."""
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()

    def _call(self, method: str, measures: Sequence[object], qrels, arg, timeout: float | None = None,
              input_mb: float = 0) -> dict[str, Outcome]:
        names = [str(m) for m in measures]
        if not names:
            return {}
        qrels = GUARDS.get(self.name, dict)(qrels)
        answer, problem = self._request((method, names, {q: dict(j) for q, j in qrels.items()}, arg), timeout,
                                        input_mb)
        if problem is None:
            return answer
        detail = (f"{self.library} {problem} while evaluating this input in its worker process; "
                  "the other references' values are kept")
        return {n: Outcome("error", provider=self.name, detail=detail) for n in names}

    def _request(self, message: tuple, timeout: float | None = None, input_mb: float = 0) -> tuple[object, str | None]:
        """Send ``message`` to the worker and wait for its answer: ``(answer, None)``, or ``(None, problem)``
        when the worker crashed, ran out of memory (``memory_limit(input_mb)`` MB) or overran ``timeout`` seconds
        (default ``self.timeout``; it is then stopped, and started again on the next call)."""
        timeout = self.timeout if timeout is None else timeout
        memory = self.memory_limit(input_mb)
        message = (*message, memory)
        with self._lock:
            try:
                self.start()
            except ProcessExiting:
                return None, "was not asked: this process is exiting"
            process, send, recv = self._process, self._send, self._recv
            started = time.perf_counter()
            try:
                send.send(message)
                if recv.poll(timeout):
                    answer, cpu = recv.recv()
                    CALL_SECONDS.value = time.perf_counter() - started
                    CALL_SECONDS.cpu = cpu
                    if not (isinstance(answer, str) and answer == OUT_OF_MEMORY):
                        return answer, None
                    problem = _out_of_memory(memory)  # the worker ends after saying so
                else:
                    problem = f"did not finish within {timeout:g} s and was stopped"
                    process.kill()
            except (EOFError, BrokenPipeError, ConnectionResetError, OSError):
                peak_kb = _reap(process)
                problem = _death(process.returncode)
                if peak_kb is not None and peak_kb * 1024 >= 0.8 * memory * 2**20:
                    problem = f"{_out_of_memory(memory)}: it {problem}"
            except BaseException:  # interrupted (Ctrl-C, a claim's time limit): its answer would arrive late
                self.stop(wait=0)
                raise
            self.stop(wait=0)
        return None, problem

    def evaluate(self, measures: Sequence[object], qrels: Mapping[str, Mapping[str, int]],
                 run: ScoredRun) -> dict[str, Outcome]:
        return self._call("evaluate", measures, qrels, {q: dict(docs) for q, docs in run.items()})

    def evaluate_run_file(self, measures: Sequence[object], qrels: Mapping[str, Mapping[str, int]],
                          path: str) -> dict[str, Outcome]:
        return self._call("evaluate_run_file", measures, qrels, str(path))

    def evaluate_files(self, measures: Sequence[object], qrels_path: str, run_path: str) -> dict[str, Outcome]:
        size = _megabytes(qrels_path, run_path)
        return self._call("evaluate_files", measures, {}, (str(qrels_path), str(run_path)),
                          self.timeout + SECONDS_PER_MB * size, size)

    def significance(self, test: str, a, b) -> dict[str, object] | None:
        if test not in self.SIGNIFICANCE:  # the library has no such test: no worker call
            return None
        answer, problem = self._request(("significance", [], {}, (test, [float(x) for x in a], [float(x) for x in b])))
        return answer if problem is None else {"error": f"{self.library} {problem} while testing in its worker process"}

    def reader_verdict(self, path: str, kind: str) -> str:
        size = _megabytes(path)
        answer, problem = self._request(("reader_verdict", [], {}, (str(path), kind)),
                                        self.timeout + SECONDS_PER_MB * size, size)
        return answer if problem is None else f"fails: {self.library} {problem} while reading it in its worker process"


def _out_of_memory(memory_mb: int) -> str:
    """The problem of a call that ran out of memory, naming the limit and how to raise it."""
    return (f"ran out of memory (limit {memory_mb:,} MB; the environment variable {processes.MEMORY_VARIABLE} "
            "raises it)")


def _reap(process: subprocess.Popen, wait: float = 5.0) -> int | None:
    """Wait up to ``wait`` seconds for a worker that is ending (then kill it) and reap it: its peak resident memory
    in KB, from the kernel's accounting of the reaped process (``wait4``), or None when it was reaped elsewhere.
    A worker that died this near its memory limit ran out of it (a library that cannot allocate may abort, as
    numba's LLVM does, instead of raising ``MemoryError``)."""
    deadline, killed = time.monotonic() + wait, False
    while process.returncode is None:
        try:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        except ChildProcessError:  # reaped by another wait: its exit code is known, its memory is not
            process.poll()
            return None
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_maxrss
        if time.monotonic() >= deadline:
            if killed:
                return None
            process.kill()
            killed, deadline = True, time.monotonic() + wait
        time.sleep(0.01)
    return None


def _megabytes(*paths: str) -> float:
    """The files' total size in MB (a file that cannot be examined counts 0: its reader will say why)."""
    total = 0
    for path in paths:
        try:
            total += os.stat(path).st_size
        except OSError:
            pass
    return total / 2**20


#: In each thread, for its last answered call: ``value``, the seconds it took once the worker had it (the
#: worker's own time and the pipe's, not the wait for an earlier call to the same worker); ``cpu``, the CPU
#: seconds the worker process spent on it (all its threads).
CALL_SECONDS = threading.local()


#: Workers running in this process, stopped at exit (they would also end on their own when the
#: pipe closes).
_RUNNING: set[IsolatedReference] = set()
#: Set by the exit handler: from then on no worker is started (a call still running in a daemon thread, such
#: as a queued property-search batch, would start one that outlives this process).
_ENDING = threading.Event()
#: Held while a worker is started and registered, so the exit handler sees every worker started before it.
_STARTING = threading.Lock()


class ProcessExiting(RuntimeError):
    """A worker was asked for after this process began to exit."""


@atexit.register
def _stop_all() -> None:
    with _STARTING:
        _ENDING.set()
    for ref in list(_RUNNING):
        ref.stop(wait=1)


if __name__ == "__main__":
    processes.serve_main(_serve)
