"""Small inline SVG charts (matplotlib): a claimed interval with each implementation's value,
and measure@k curves. Rendering only: every number comes from the result model."""

from __future__ import annotations

import io
import re

from audit.report.results import Check
from audit.run.cache import memoised

_COLOURS = {"chapter": "#1f4e79", "pytrec_eval": "#c55a11", "ir_measures": "#548235", "ranx": "#7030a0"}


def _svg(fig) -> str:
    """The figure as inline SVG, byte-for-byte the same on every run (no date, fixed id salt), with
    ids prefixed by a hash of the chart so several charts on one page never clash."""
    import hashlib

    import matplotlib.pyplot as plt
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
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


def _label(v) -> str:
    """The implementation's name; a chapter reading's label when the chapter gives several values."""
    if v.implementation != "chapter" or not v.behaviour:
        return v.implementation
    text = v.behaviour if len(v.behaviour) <= 40 else v.behaviour[:38] + "…"
    return f"chapter ({text})"


@memoised("charts", "matplotlib")
def interval_chart(check: Check) -> str:
    """The claimed interval (band or line) and each implementation's value (dots); '' when nothing to draw."""
    points = [(_label(v), v.value) for v in check.values if v.status == "ok" and v.value is not None
              and "left" not in v.per_query and "before" not in v.per_query]
    if not points or (check.low is None and check.high is None):
        return ""
    plt = _pyplot()
    values = [x for _, x in points] + [b for b in (check.low, check.high) if b is not None]
    lo, hi = min(values), max(values)
    pad = max((hi - lo) * 0.25, 0.01)
    fig, ax = plt.subplots(figsize=(5.0, 0.6 + 0.3 * len(points)))
    left = check.low if check.low is not None else lo - pad
    right = check.high if check.high is not None else hi + pad
    if right - left < 1e-12:
        ax.axvline(left, color="#2e7d32", linewidth=2, label="claimed")
    else:
        ax.axvspan(left, right, color="#c8e6c9", label="claimed")
    for i, (name, x) in enumerate(points):
        ax.plot([x], [i], "o", color=_COLOURS.get(name.split(" (")[0], "#444"))
    ax.set_yticks(range(len(points)), [n for n, _ in points])
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(-0.6, len(points) - 0.4)
    ax.invert_yaxis()
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)


@memoised("charts", "matplotlib")
def curve_chart(check: Check) -> str:
    """measure@k against k for each curve of the check; '' when the check has none."""
    if not check.curves:
        return ""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.2, 2.2))
    for name, ys in check.curves.items():
        ax.plot(range(1, len(ys) + 1), ys, marker="o", markersize=3, label=name)
    ax.set_xlabel("cutoff k")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xticks(range(1, max(len(ys) for ys in check.curves.values()) + 1))
    ax.legend(frameon=False, fontsize=7)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(fig)
