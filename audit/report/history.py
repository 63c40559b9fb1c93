"""The book's audit history (``reports/history/<chapter id>.json``, a file a chapter, so ``reports/*.json`` holds
only chapter reports): one entry per revision or change of verdicts — the snapshot's fingerprint, the report's
date, the verdict counts and each claim's verdict — so the index can show how verdicts moved across revisions. A
rerun that changes nothing adds nothing, so the file stays byte-identical and diffs show only real moves."""

from __future__ import annotations

import json
from pathlib import Path

HISTORY = "history"
#: Entries kept per chapter (the oldest are dropped first).
KEPT = 50


def read(folder: Path) -> dict[str, list[dict]]:
    """The history in ``folder``, {chapter id: [entry, …] oldest first}; a file that cannot be read is left out
    (it is rebuilt from the chapter's next run)."""
    from audit.report.files import read_json
    out = {}
    for path in sorted((folder / HISTORY).glob("*.json")):
        data = read_json(path)
        if isinstance(data, list):
            out[path.stem] = [e for e in data if _well_formed(e)]
    return out


def _well_formed(e: object) -> bool:
    """Whether a history entry has the shape ``entry`` writes (text fingerprint and date, verdict counts by verdict,
    each claim's verdict): a file a contributor wrote otherwise is not read as one."""
    from audit.model.results import VERDICTS
    return (isinstance(e, dict) and isinstance(e.get("fingerprint"), str) and isinstance(e.get("date"), str)
            and isinstance(e.get("summary"), dict) and all(
                k in VERDICTS and isinstance(v, int) and not isinstance(v, bool) for k, v in e["summary"].items())
            and isinstance(e.get("verdicts"), dict) and all(
                isinstance(k, str) and v in VERDICTS for k, v in e["verdicts"].items()))


def entry(report) -> dict:
    """What the history keeps of a chapter report."""
    return {"fingerprint": report.fingerprint.computed, "date": str(report.provenance.date),
            "summary": {k: v for k, v in report.summary.items() if v},
            "verdicts": {c.id: c.verdict for c in report.claims}}


def record(folder: Path, report) -> str | None:
    """Add ``report`` to the history in ``folder`` when its fingerprint or a verdict differs from the chapter's
    last entry; return the path written, or None when nothing changed."""
    from audit.report.files import write_text
    chapter = str(report.chapter["id"])
    new = entry(report)
    past = read(folder).get(chapter, [])
    if past and {k: past[-1].get(k) for k in ("fingerprint", "verdicts")} == \
            {k: new[k] for k in ("fingerprint", "verdicts")}:
        return None
    return write_text(folder / HISTORY / f"{chapter}.json",
                      json.dumps((past + [new])[-KEPT:], indent=1, ensure_ascii=False) + "\n")


def moves(before: dict, after: dict) -> list[str]:
    """How verdicts moved from one entry to the next, in words ("C08 supported → contradicted", "C12 new:
    supported", "C03 removed")."""
    old, new = before.get("verdicts", {}), after.get("verdicts", {})
    out = [f"{c} {old[c]} → {new[c]}" for c in new if c in old and old[c] != new[c]]
    out += [f"{c} new: {new[c]}" for c in new if c not in old]
    out += [f"{c} removed" for c in old if c not in new]
    return out
