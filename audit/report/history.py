"""The book's audit history (``reports/history.json``): for each chapter, one entry per revision or change of
verdicts — the snapshot's fingerprint, the report's date, the verdict counts and each claim's verdict — so the
index can show how verdicts moved across revisions. A rerun that changes nothing adds nothing, so the file stays
byte-identical and diffs show only real moves."""

from __future__ import annotations

import json
from pathlib import Path

HISTORY = "history.json"
#: Entries kept per chapter (the oldest are dropped first).
KEPT = 50


def read(folder: Path) -> dict[str, list[dict]]:
    """The history in ``folder``, {chapter id: [entry, …] oldest first}; empty when there is none or it cannot be
    read (it is rebuilt from the next run)."""
    try:
        data = json.loads((folder / HISTORY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): [e for e in v if isinstance(e, dict)] for k, v in data.items() if isinstance(v, list)}


def entry(report) -> dict:
    """What the history keeps of a chapter report."""
    return {"fingerprint": report.fingerprint.computed, "date": str(report.provenance.date),
            "summary": {k: v for k, v in report.summary.items() if v},
            "verdicts": {c.id: c.verdict for c in report.claims}}


def record(folder: Path, report) -> str | None:
    """Add ``report`` to the history in ``folder`` when its fingerprint or a verdict differs from the chapter's
    last entry; return the path written, or None when nothing changed."""
    from audit.report.writer import write_text
    history = read(folder)
    chapter = str(report.chapter["id"])
    new = entry(report)
    past = history.get(chapter, [])
    if past and {k: past[-1].get(k) for k in ("fingerprint", "verdicts")} == \
            {k: new[k] for k in ("fingerprint", "verdicts")}:
        return None
    history[chapter] = (past + [new])[-KEPT:]
    return write_text(folder / HISTORY, json.dumps(dict(sorted(history.items())), indent=1, ensure_ascii=False) + "\n")


def moves(before: dict, after: dict) -> list[str]:
    """How verdicts moved from one entry to the next, in words ("C08 supported → contradicted", "C12 new:
    supported", "C03 removed")."""
    old, new = before.get("verdicts", {}), after.get("verdicts", {})
    out = [f"{c} {old[c]} → {new[c]}" for c in new if c in old and old[c] != new[c]]
    out += [f"{c} new: {new[c]}" for c in new if c not in old]
    out += [f"{c} removed" for c in old if c not in new]
    return out
