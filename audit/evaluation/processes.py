"""Worker processes: a fresh interpreter running one of this package's modules, spoken to in pickled messages.

The references' workers (``audit.evaluation.references.worker``) and the chart worker
(``audit.report.chart_worker``) are such processes. A worker is ``python -m <module>``: no inherited threads or
locks, and unlike ``multiprocessing``'s spawn it never re-imports the caller's main script. The parent writes
to its stdin and reads a duplicate of its stdout (``multiprocessing.connection.Connection``: pickled messages);
the worker's own prints, and its libraries', go to stderr; it exits when its stdin closes, however the parent
ends. A worker ignores SIGINT from its first instruction on: a terminal's Ctrl-C reaches every process of the
audit's process group, and the audit handles it by ending its workers.

Every worker runs under a memory limit (``memory_limit_mb``): its data memory (``RLIMIT_DATA``: the heap and every
private writable mapping, which is where a library's arrays and objects live) is bounded from its first instruction
on, so an input that makes a library allocate without end ends as that worker's ``MemoryError`` (or its death),
never as the machine's memory exhausted. The data limit, not the address space's (``RLIMIT_AS``): numba's LLVM and
glibc's per-thread heaps reserve address space they never use (ranx's worker maps about twice the memory it
writes), and that reservation grows with the machine's number of cores.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection


#: Megabytes of data memory a worker may use unless ``CHAPTER_AUDIT_WORKER_MEMORY_MB`` says otherwise. Measured
#: (peak ``VmData``; peak resident set in brackets): on chapter 23, ranx's worker 385 MB (340 MB), pytrec_eval's and
#: ir-measures' 120 MB (70 MB); on trec_eval's test collection through ``audit crosscheck``, ranx 360 MB (310 MB);
#: on a 14 MB run (500 queries × 1,000 documents), ranx 670 MB (670 MB), ir-measures 140 MB, pytrec_eval 95 MB.
#: A call that reads TREC files is given more, in proportion to their size (``MEMORY_MB_PER_INPUT_MB``).
MEMORY_MB = 4096
#: The environment variable that sets every worker's memory limit, in megabytes.
MEMORY_VARIABLE = "CHAPTER_AUDIT_WORKER_MEMORY_MB"
#: The lowest limit the variable may set: a worker's interpreter and its library need about 100 MB to start, ranx
#: about 400 MB.
MIN_MEMORY_MB = 64


def memory_limit_mb() -> int:
    """The workers' memory limit in megabytes: ``$CHAPTER_AUDIT_WORKER_MEMORY_MB``, else ``MEMORY_MB``. Raises
    ``AuditError`` naming the variable when it is set to anything but a whole number of megabytes from
    ``MIN_MEMORY_MB``."""
    text = os.environ.get(MEMORY_VARIABLE, "").strip()
    if not text:
        return MEMORY_MB
    if not (text.isascii() and text.isdigit() and len(text) <= 9 and int(text) >= MIN_MEMORY_MB):
        from audit.errors import AuditError
        from audit.model.limits import trim

        raise AuditError(f"{MEMORY_VARIABLE}={trim(text, 40)} is not a whole number of megabytes from "
                         f"{MIN_MEMORY_MB} up (the workers' memory limit; the default is {MEMORY_MB:,})")
    return int(text)


def limit_memory(megabytes: int) -> None:
    """In a worker: bound its data memory (``RLIMIT_DATA``'s soft limit) to ``megabytes``. The hard limit is left
    as it is, so a later call may raise it again (a call that reads large files is given more)."""
    soft = megabytes * 2**20
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def spawn(module: str, memory_mb: int | None = None) -> tuple[subprocess.Popen, Connection, Connection]:
    """Start ``python -m module`` with a memory limit of ``memory_mb`` (default ``memory_limit_mb()``), which
    ``serve_main`` applies before the worker reads anything; returns the process and the connections to send to it
    and receive from it.
    Raises ``OSError`` when the process cannot be started.

    The worker starts with SIGINT blocked (a thread's signal mask is kept through fork and exec, where a Python
    handler is not) and ``serve_main`` ignores it before unblocking it: a Ctrl-C in the interpreter's first
    milliseconds, before any of the worker's code runs, would otherwise kill it, with a KeyboardInterrupt
    traceback on the user's terminal. Only the calling thread's mask changes, and only for the ``Popen`` call:
    a SIGINT meanwhile reaches this process once it is restored, as before."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process = subprocess.Popen([sys.executable, "-m", module, str(memory_mb or memory_limit_mb())],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   close_fds=True)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    send = Connection(os.dup(process.stdin.fileno()), readable=False)
    recv = Connection(os.dup(process.stdout.fileno()), writable=False)
    process.stdin.close()
    process.stdout.close()
    return process, send, recv


def end(process: subprocess.Popen | None, send: Connection | None, recv: Connection | None,
        wait: float | None) -> None:
    """Close the connections (the worker then exits on its own) and wait up to ``wait`` seconds for it before
    killing it; ``wait=None`` kills it at once."""
    for conn in (send, recv):
        if conn is not None:
            conn.close()
    if process is None:
        return
    if wait is not None:
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            pass
    process.kill()
    process.wait(timeout=5)


def settle(path: list[str], niceness: int) -> None:
    """In a worker, first: lower its priority by ``niceness`` (a preference: refused, it is left as it is) and put
    the parent's ``sys.path`` entries it lacks in front of its own, so it imports what the parent imports."""
    if niceness:
        try:
            os.nice(niceness)
        except OSError:
            pass
    sys.path[:0] = [p for p in path if p not in sys.path]


def serve_main(serve: Callable[[Connection, Connection], None]) -> None:
    """The entry point of a worker process: ``serve(incoming, outgoing)`` on fd 0 and a duplicate of fd 1, with
    fd 1 then pointing at stderr (a library's prints never corrupt the protocol) and fd 0 at /dev/null. When
    ``serve`` returns (the parent closed the pipe), the process exits at once: every call's files are removed
    as it ends, so nothing is left to clean up, and the interpreter's teardown takes a library like ranx
    (numba) a noticeable time. SIGINT, blocked since the process started (``spawn``), is ignored from here on
    (the parent handles Ctrl-C and closes the pipe). The memory limit ``spawn`` passed as the first argument is
    applied first."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if len(sys.argv) > 1 and sys.argv[1].isdigit():
        limit_memory(int(sys.argv[1]))
    incoming = Connection(os.dup(0), writable=False)
    outgoing = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    serve(incoming, outgoing)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
