"""Worker processes: a fresh interpreter running one of this package's modules, spoken to in pickled messages.

The references' workers (``audit.evaluation.references.worker``) and the chart worker
(``audit.report.chart_worker``) are such processes. A worker is ``python -m <module>``: no inherited threads or
locks, and unlike ``multiprocessing``'s spawn it never re-imports the caller's main script. The parent writes
to its stdin and reads a duplicate of its stdout (``multiprocessing.connection.Connection``: pickled messages);
the worker's own prints, and its libraries', go to stderr; it exits when its stdin closes, however the parent
ends. A worker ignores SIGINT from its first instruction on: a terminal's Ctrl-C reaches every process of the
audit's process group, and the audit handles it by ending its workers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection


def spawn(module: str) -> tuple[subprocess.Popen, Connection, Connection]:
    """Start ``python -m module``; returns the process and the connections to send to it and receive from it.
    Raises ``OSError`` when the process cannot be started.

    The worker starts with SIGINT blocked (a thread's signal mask is kept through fork and exec, where a Python
    handler is not) and ``serve_main`` ignores it before unblocking it: a Ctrl-C in the interpreter's first
    milliseconds, before any of the worker's code runs, would otherwise kill it, with a KeyboardInterrupt
    traceback on the user's terminal. Only the calling thread's mask changes, and only for the ``Popen`` call:
    a SIGINT meanwhile reaches this process once it is restored, as before."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process = subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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
    (the parent handles Ctrl-C and closes the pipe)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    incoming = Connection(os.dup(0), writable=False)
    outgoing = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    serve(incoming, outgoing)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
