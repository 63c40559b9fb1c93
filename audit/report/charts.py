"""Small inline SVG charts (matplotlib): a claimed interval with each implementation's value,
and measure@k curves. Rendering only: every number comes from the result model."""

from __future__ import annotations

import io
import os
import re
import threading
from collections.abc import Sequence
from concurrent.futures import Future

from audit.report.chart_worker import ChartWorker
from audit.report.results import Check
from audit.run.cache import memoised
from audit.run.parallel import queued

_COLOURS = {"chapter": "#1f4e79", "pytrec_eval": "#c55a11", "ir_measures": "#548235", "ranx": "#7030a0"}


#: Inches around the axes: room for one line of tick labels below, half a tick label of room at the right, and a little space above.
_BOTTOM, _TOP, _RIGHT, _GAP = 0.28, 0.08, 0.3, 0.12


def _text_width(texts, size: float = 8) -> float:
    """The widest of ``texts`` in inches, set in the charts' font at ``size`` points (as matplotlib lays it out)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath
    measure = TextToPath()
    prop = FontProperties(size=size)
    return max((measure.get_text_width_height_descent(t, prop, ismath=False)[0] for t in texts), default=0.0) / 72


def _figure(plt, axes_width: float, axes_height: float, left: float, bottom: float = _BOTTOM):
    """A figure whose axes are ``axes_width`` × ``axes_height`` inches with ``left`` and ``bottom`` inches for
    the labels: the layout is computed here, from the labels' measured widths, so the figure is drawn once
    (``bbox_inches="tight"`` draws it twice to find the same box)."""
    width, height = left + axes_width + _RIGHT, bottom + axes_height + _TOP
    fig, ax = plt.subplots(figsize=(width, height))
    fig.subplots_adjust(left=left / width, right=1 - _RIGHT / width, bottom=bottom / height, top=1 - _TOP / height)
    return fig, ax


def _svg(fig) -> str:
    """The figure as inline SVG, byte-for-byte the same on every run (no date, fixed id salt), with
    ids prefixed by a hash of the chart so several charts on one page never clash."""
    import hashlib

    import matplotlib.pyplot as plt
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    prefix = "c" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]
    return re.sub(r'(id="|url\(#|href="#)([A-Za-z0-9_-]+)', lambda m: m.group(1) + prefix + m.group(2), text)


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"svg.fonttype": "none", "font.size": 8, "svg.hashsalt": "chapter-audit"})
    return plt


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
        for fn in (_interval_chart, _curve_chart):
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


def _label(v) -> str:
    """The implementation's name; a chapter reading's label when the chapter gives several values."""
    if v.implementation != "chapter" or not v.behaviour:
        return v.implementation
    text = v.behaviour if len(v.behaviour) <= 40 else v.behaviour[:38] + "…"
    return f"chapter ({text})"


@memoised("charts", "matplotlib")
def _interval_chart(check: Check) -> str:
    return _draw(_interval_svg, check)


@memoised("charts", "matplotlib")
def _curve_chart(check: Check) -> str:
    return _draw(_curve_svg, check)


def _interval_svg(check: Check) -> str:
    points = [(_label(v), v.value) for v in check.values if v.status == "ok" and v.value is not None
              and "left" not in v.per_query and "before" not in v.per_query]
    if not points or (check.low is None and check.high is None):
        return ""
    plt = _pyplot()
    values = [x for _, x in points] + [b for b in (check.low, check.high) if b is not None]
    lo, hi = min(values), max(values)
    pad = max((hi - lo) * 0.25, 0.01)
    labels = [n for n, _ in points]
    fig, ax = _figure(plt, 3.9, 0.3 * len(points) + 0.1, _text_width(labels) + _GAP)
    left = check.low if check.low is not None else lo - pad
    right = check.high if check.high is not None else hi + pad
    if right - left < 1e-12:
        ax.axvline(left, color="#2e7d32", linewidth=2, label="claimed")
    else:
        ax.axvspan(left, right, color="#c8e6c9", label="claimed")
    for i, (name, x) in enumerate(points):
        ax.plot([x], [i], "o", color=_COLOURS.get(name.split(" (")[0], "#444"))
    ax.set_yticks(range(len(points)), labels)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(-0.6, len(points) - 0.4)
    ax.invert_yaxis()
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


def _curve_svg(check: Check) -> str:
    if not check.curves:
        return ""
    plt = _pyplot()
    # y tick labels are 0.0 … 1.0; below the axes, tick labels and the "cutoff k" label
    fig, ax = _figure(plt, 3.3, 1.75, _text_width(["0.0"]) + _GAP + 0.05, _BOTTOM + 0.17)
    for name, ys in check.curves.items():
        ax.plot(range(1, len(ys) + 1), ys, marker="o", markersize=3, label=name)
    ax.set_xlabel("cutoff k")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xticks(range(1, max(len(ys) for ys in check.curves.values()) + 1))
    ax.legend(frameon=False, fontsize=7)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


#: The drawings a chart worker can be asked for, by name.
DRAWINGS = {fn.__name__: fn for fn in (_interval_svg, _curve_svg)}
