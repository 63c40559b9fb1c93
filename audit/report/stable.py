"""Reports that only change when results do: the recorded command and date are made reproducible.

The command recorded is the one that reproduces the report (``audit run <chapter folder>``), not
the command line this run was given, so flags such as ``--quiet`` or ``--fail-on`` leave the
report unchanged. When everything but the date equals the previous JSON report, the previous
date is kept: a rerun whose results have not changed rewrites every report byte for byte.
"""

from __future__ import annotations

from pathlib import Path

from audit.model.results import ChapterReport


def reproducing_command(report: ChapterReport, claims: list[str] | None = None) -> str:
    """``audit run <the chapter folder as given>``, with ``--claims <ids>`` for a partial audit."""
    # the chapter folder as given (its snapshot may be the manuscript elsewhere in the book)
    folder = report.snapshot.get("folder") or Path(str(report.snapshot["file"])).parent
    command = f"audit run {Path(str(folder)).as_posix()}"
    return command + (f" --claims {','.join(claims)}" if claims is not None else "")


def _comparable(data: dict) -> dict:
    data = {k: v for k, v in data.items() if k != "sections"}
    data["provenance"] = {k: v for k, v in data.get("provenance", {}).items() if k != "date"}
    return data


def stabilise(report: ChapterReport, previous: Path | None, claims: list[str] | None = None) -> None:
    """Record the reproducing command; keep the previous report's date when nothing else changed.

    ``previous``: the chapter's JSON report from an earlier run (missing or unreadable: ignored); ``claims``: the
    claim ids of a partial audit (``audit run --claims``).
    """
    report.provenance = report.provenance.model_copy(update={"command": reproducing_command(report, claims)})
    if previous is None:
        return
    from audit.report.files import read_json
    old = read_json(previous)
    if not isinstance(old, dict) or not isinstance(old.get("provenance"), dict):
        return
    date = old["provenance"].get("date")
    if isinstance(date, str) and _comparable(old) == _comparable(report.model_dump(mode="json")):
        report.provenance = report.provenance.model_copy(update={"date": date})
