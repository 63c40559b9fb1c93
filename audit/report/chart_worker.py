"""The reports' charts drawn in a process of their own while the audit runs.

matplotlib takes about 20 ms of CPU per chart (chapter 23: 1.3 s for its 61 checks). Drawn in the audit's
process, that time is taken from the audit itself, which runs the chapter's side of the checks and reads the
references' answers. A chart worker is a fresh interpreter (``python -m audit.report.chart_worker``) at a lower
priority (``NICENESS``) that imports matplotlib once and draws each chart asked of it with the same function
and the same matplotlib as this process would, so its SVG text is the same (``tests/test_ahead.py``).
When the worker cannot start, dies, fails on a chart or takes longer than ``TIMEOUT`` seconds, the chart is
drawn in this process instead (``audit.report.charts``), so a report never lacks a chart because of it.
"""

from __future__ import annotations

import atexit
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING

from audit.evaluation import processes

if TYPE_CHECKING:
    from audit.model.results import Check

#: How much lower (``nice``) the chart worker runs than the audit: charts are needed only when the reports
#: are written, so they take the CPU the audit and the references' workers leave.
NICENESS = 10

#: Seconds one chart may take in the worker before it is drawn here instead (a chart takes milliseconds).
TIMEOUT = 60.0


class ChartWorker:
    """One worker process drawing charts by name (``audit.report.drawings.DRAWINGS``), one at a time.

    ``draw(name, check)`` returns the chart's SVG text, or None when the worker could not give it (the
    caller then draws it itself). Thread-safe. Started by ``start()`` or on the first ``draw``; after a
    failure it is not started again (the charts are drawn in the calling process)."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._send: Connection | None = None
        self._recv: Connection | None = None
        self._lock = threading.Lock()
        self._broken = False

    def start(self) -> None:
        """Start the worker if it is not running (it imports matplotlib in the background)."""
        with self._lock:
            self._start()

    def _start(self) -> bool:
        if self._broken:
            return False
        if self._process is not None:
            return True
        try:
            self._process, self._send, self._recv = processes.spawn("audit.report.chart_worker")
        except OSError:
            self._broken = True
            return False
        try:
            self._send.send((list(sys.path), NICENESS))
        except OSError:
            self._fail()
            return False
        _RUNNING.add(self)
        return True

    def draw(self, name: str, check: Check) -> str | None:
        """The SVG text of chart ``name`` for ``check``, drawn by the worker; None when the worker could not give
        it. The check is sent pickled, as it is: its JSON would hold a NaN or an infinite value as null (None),
        which draws another chart than this process would."""
        with self._lock:
            if not self._start():
                return None
            try:
                self._send.send((name, check))
                if not self._recv.poll(TIMEOUT):
                    self._fail()
                    return None
                ok, text = self._recv.recv()
            except (EOFError, OSError):
                self._fail()
                return None
            return text if ok else None

    def _fail(self) -> None:
        self._broken = True
        self._kill()

    def _kill(self) -> None:
        process, send, recv = self._process, self._send, self._recv
        self._process = self._send = self._recv = None
        _RUNNING.discard(self)
        processes.end(process, send, recv, wait=None)

    def stop(self) -> None:
        """End the worker now (a chart it is drawing is not needed any more)."""
        with self._lock:
            self._kill()

    def forget(self) -> None:
        """In a forked child: drop this process's handles on the parent's worker (the parent still uses it)."""
        processes.end(None, self._send, self._recv, wait=None)  # closes this process's copies only
        self._process = self._send = self._recv = None
        self._lock = threading.Lock()
        _RUNNING.discard(self)


#: Workers running in this process, ended at exit (they would also end on their own when their pipe closes).
_RUNNING: set[ChartWorker] = set()


@atexit.register
def _stop_all() -> None:
    for worker in list(_RUNNING):
        worker._kill()


def _serve(incoming: Connection, outgoing: Connection) -> None:
    """Worker main loop: read ``(sys.path, niceness)``, then answer ``(chart name, check)`` with
    ``(True, svg text)`` or ``(False, the error)`` until the parent closes the pipe."""
    try:
        path, niceness = incoming.recv()
    except (EOFError, OSError):
        return
    processes.settle(path, niceness)
    from audit.report import drawings

    drawings.pyplot()  # matplotlib and the charts' style, before the first chart is asked for
    while True:
        try:
            name, check = incoming.recv()
        except (EOFError, OSError):
            return
        try:
            answer = (True, drawings.DRAWINGS[name](check))
        except Exception as exc:  # drawn again by the parent, which reports it as its own drawing would
            answer = (False, f"{type(exc).__name__}: {exc}"[:500])
        try:
            outgoing.send(answer)
        except OSError:
            return


if __name__ == "__main__":
    processes.serve_main(_serve)
