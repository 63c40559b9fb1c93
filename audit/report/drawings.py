"""The charts' drawings (matplotlib): each a function of a check giving inline SVG, named in ``DRAWINGS`` so the
chart worker (``audit.report.chart_worker``) and this process draw them alike. Rendering only: every number comes
from the result model."""

from __future__ import annotations

import io
import re

from audit.model.results import Check

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


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"svg.fonttype": "none", "font.size": 8, "svg.hashsalt": "chapter-audit"})
    return plt


def _label(v) -> str:
    """The implementation's name; a chapter reading's label when the chapter gives several values."""
    if v.implementation != "chapter" or not v.behaviour:
        return v.implementation
    text = v.behaviour if len(v.behaviour) <= 40 else v.behaviour[:38] + "…"
    return f"chapter ({text})"


def _interval_svg(check: Check) -> str:
    points = [(_label(v), v.value) for v in check.values if v.status == "ok" and v.value is not None
              and "left" not in v.per_query and "before" not in v.per_query]
    if not points or (check.low is None and check.high is None):
        return ""
    plt = pyplot()
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
    plt = pyplot()
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


def _differences_svg(check: Check) -> str:
    """The per-query differences a − b of a comparison (dots, one row per query), the zero line and their mean."""
    if not check.differences:
        return ""
    plt = pyplot()
    names = list(check.differences)
    values = [check.differences[q] for q in names]
    fig, ax = _figure(plt, 3.9, 0.16 * len(names) + 0.15, _text_width(names) + _GAP)
    ax.axvline(0, color="#888", linewidth=0.8)
    mean = sum(values) / len(values)
    ax.axvline(mean, color="#1f4e79", linewidth=1, linestyle="--", label=f"mean {mean:.4g}")
    for i, x in enumerate(values):
        ax.plot([0, x], [i, i], color="#9db3cc", linewidth=1)
        ax.plot([x], [i], "o", markersize=3, color=_COLOURS["chapter"] if x >= 0 else "#c00000")
    ax.set_yticks(range(len(names)), names)
    ax.set_ylim(-0.6, len(names) - 0.4)
    ax.invert_yaxis()
    ax.legend(frameon=False, fontsize=7, loc="lower right")
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


#: The drawings a chart worker can be asked for, by name.
DRAWINGS = {fn.__name__: fn for fn in (_interval_svg, _curve_svg, _differences_svg)}
