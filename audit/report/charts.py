"""Small inline SVG charts: a claimed interval with each implementation's value, measure@k curves and a
comparison's per-query differences, drawn (``audit.report.drawings``) ahead, in the chart worker when there is one,
and kept in the chart store."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from functools import wraps

from audit.report.chart_worker import ChartWorker
from audit.report.drawings import _curve_svg, _differences_svg, _interval_svg
from audit.model.results import Check
from audit.evaluation.parallel import queued

#: The chart store, installed by the run stage (``audit.run.cache.memoised_call``): called as
#: ``store(namespace, libraries, function, args, kwargs)`` it returns the stored SVG, or draws and keeps it. Empty
#: (no run stage, or the caches never set up): charts are drawn each time.
STORE: list = []


def memoised(namespace: str, *libraries: str):
    """Keep a drawing function's SVG text in the chart store under ``namespace``, keyed by its arguments and the
    versions of ``libraries``, once the run stage has installed the store (``STORE``)."""
    def decorate(fn):
        @wraps(fn)
        def wrapper(*args, **kwargs):
            if STORE:
                return STORE[0](namespace, libraries, fn, args, kwargs)
            return fn(*args, **kwargs)
        return wrapper
    return decorate


#: One chart at a time in this process: pyplot's figures are shared state, not safe to draw from two threads.
_DRAWING = threading.Lock()
#: Charts being drawn ahead, in the "charts" queue: (chart, the check as JSON) → its SVG.
_AHEAD: dict[tuple[str, str], Future] = {}
#: The process drawing the charts while the audit runs (``prepare``); None: they are drawn in this process.
_WORKER: ChartWorker | None = None


def prepare() -> None:
    """Start the chart worker (``audit.report.chart_worker``), which imports matplotlib (about 0.4 s) while the
    audit waits on its references; from then on charts are drawn there."""
    global _WORKER
    if _WORKER is None:
        _WORKER = ChartWorker()
    _WORKER.start()


def _forget_parents_drawing() -> None:
    """In a forked child (``audit run -j N``): the parent's worker, its charts under way and its drawing lock are the
    parent's. The futures of charts it was drawing ahead would never end here (their threads were not forked), and
    its lock may have been held by one of them; the child draws its own charts, here unless it prepares a worker."""
    global _WORKER, _DRAWING
    if _WORKER is not None:
        _WORKER.forget()
    _WORKER = None
    _AHEAD.clear()
    _DRAWING = threading.Lock()


os.register_at_fork(after_in_child=_forget_parents_drawing)


def draw_ahead(checks: Sequence[Check]) -> None:
    """Start drawing these checks' charts in the background (one thread, "charts", asking the chart worker): while
    the audit runs, the charts of the claims already done are drawn, and the reports find them ready. A chart is
    matched by the whole content of its check, so one whose check changed since is drawn again."""
    for check in checks:
        text = check.model_dump_json()
        for fn in (_interval_chart, _curve_chart) + ((_differences_chart,) if check.differences else ()):
            key = (fn.__name__, text)
            if key not in _AHEAD:
                _AHEAD[key] = queued("charts", fn, check)


def store_ahead() -> None:
    """Wait until every chart started by ``draw_ahead`` is drawn, and so kept in the chart store (``memoised``, when
    the caches are on): a chapter process of ``audit run -j N`` draws its charts ahead like this, and the parent,
    which writes the reports, finds them stored instead of drawing them all at the end. A chart that failed is
    drawn again, and its error reported, when its report is written."""
    for future in list(_AHEAD.values()):
        try:
            future.result()
        except Exception:
            pass
    _AHEAD.clear()


def _drawn(fn, check: Check) -> str:
    future = _AHEAD.pop((fn.__name__, check.model_dump_json()), None) if _AHEAD else None
    return future.result() if future is not None else fn(check)


def _draw(fn, check: Check) -> str:
    """``fn(check)`` (a drawing of ``DRAWINGS``): by the chart worker when there is one, else (or when it could not
    give the chart) here."""
    worker = _WORKER
    if worker is not None:
        text = worker.draw(fn.__name__, check)
        if text is not None:
            return text
    with _DRAWING:
        return fn(check)


def interval_chart(check: Check) -> str:
    """The claimed interval (band or line) and each implementation's value (dots) as inline SVG; '' when there
    is nothing to draw."""
    return _drawn(_interval_chart, check)


def curve_chart(check: Check) -> str:
    """measure@k against k for each curve of the check, as inline SVG; '' when the check has none."""
    return _drawn(_curve_chart, check)


def differences_chart(check: Check) -> str:
    """A comparison's per-query differences, their zero line and mean, as inline SVG; '' when the check has none."""
    return _drawn(_differences_chart, check)


@memoised("charts", "matplotlib")
def _interval_chart(check: Check) -> str:
    return _draw(_interval_svg, check)


@memoised("charts", "matplotlib")
def _curve_chart(check: Check) -> str:
    return _draw(_curve_svg, check)


@memoised("charts", "matplotlib")
def _differences_chart(check: Check) -> str:
    return _draw(_differences_svg, check)


