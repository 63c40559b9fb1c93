"""The research brief's sections beyond the claim audit, built onto a chapter's report.

``complete`` runs what must be computed (the metric-choice sensitivity, the checked upgrade
proposal) and links the bibliography and the experiments; ``finish`` derives what follows from
the report alone (dependencies, evidence classes, the review checklist, the UNVERIFIED list) and
is re-run after book-level conflicts are added. Reporters only render the result.
"""

from __future__ import annotations

import os
from pathlib import Path

from audit.evaluation.checks.common import Measurements
from audit.register.claims import Chapter
from audit.model.results import ChapterReport, Research
from audit.research.checklist import checklist, dependencies, evidence
from audit.research.experiments import experiments
from audit.research.ledger import ledger, unread
from audit.research.proposal import propose, respond
from audit.research.sensitivity import sensitivity


def _patch_path(chapter: Chapter, name: str | None = None) -> str:
    """A chapter file's path as the patch names it (the snapshot's, or ``name`` in the chapter folder): relative to
    the working directory when it lies under it (apply from there with ``-p0``), else relative to the chapter
    folder (apply from there)."""
    name = name or chapter.identity.snapshot.file
    path = chapter.folder / name
    try:
        rel = Path(os.path.relpath(path.resolve(), Path.cwd().resolve()))
    except ValueError:
        return name
    return name if rel.parts[:1] == ("..",) else rel.as_posix()


def named_paths(chapter: Chapter) -> list[str]:
    """How the research sections name the chapter's files: its folder as given (the experiments' commands) and the
    snapshot's and register's paths as the patch names them (they depend on the working directory and on where a
    linked snapshot lies). Part of the key the sections are cached under (``audit.run.cache.research_key``)."""
    return [chapter.folder.as_posix(), _patch_path(chapter), _patch_path(chapter, chapter.claims_path.name)]


def complete(report: ChapterReport, chapter: Chapter, ms: Measurements, rows: list | None = None,
             rechecks=None) -> None:
    """Add the research sections to ``report`` (in place). ``rows``: the metric-choice sensitivity table when
    it was computed already (it needs the chapter's definitions only, so it can run while the references
    evaluate the claims); None computes it here. ``rechecks``: where what is derived from one claim alone is
    kept per claim key (``audit.run.cache.PerClaimCache``: the proposal's re-checks, the claim's sensitivity
    rows), or None to compute all of it."""
    notebook = getattr(chapter.identity, "notebook", None)
    if notebook:
        report.chapter["notebook"] = notebook
    if rows is None:
        rows = sensitivity(chapter, ms, {c.id for c in report.claims if c.line}, rechecks)
    sources, others = ledger(report.claims, chapter.register.claims, rows)
    _, snapshot_path, register_path = named_paths(chapter)
    proposal = propose(report.claims, chapter, ms, snapshot_path, rechecks, register_path)
    report.research = Research(sources=sources, sources_not_bearing=others, sensitivity=rows, proposal=proposal,
                               experiments=experiments(report.claims, chapter, report.statements, rows, proposal))
    finish(report)


def finish(report: ChapterReport) -> None:
    """Re-derive dependencies, evidence classes, the checklist and the UNVERIFIED list from the report."""
    research = report.research
    if research is None:
        return
    respond(report.claims, research.proposal)
    dependencies(report)
    evidence(report)
    research.checklist = checklist(report)
    research.unverified_sources = unverified_sources(report)
    research.unverified = unverified(report)


def unverified(report: ChapterReport) -> list[str]:
    """Everything the report could not verify, each sentence carrying the word UNVERIFIED: about the chapter
    itself first (its fingerprint, the full text, its notebook), then about the bibliography entries
    (``unverified_sources``), then the experiments that could not be set up."""
    out = []
    if report.snapshot.get("source_differs"):
        out.append(f"{report.snapshot['source_differs']}: the current text is UNVERIFIED")
    fp = report.fingerprint
    if fp.recorded and not fp.matches:
        out.append(f"recorded fingerprint {fp.recorded}: UNVERIFIED — it does not match the text read")
    if report.snapshot.get("excerpt"):
        url = report.chapter.get("url") or "the chapter's URL"
        out.append(f"the full snapshot at the chapter's download URL ({url}): UNVERIFIED — not fetched; only the "
                   f"excerpt in {report.snapshot['file']} was read")
    nb = report.notebook
    if nb is not None and nb.status in ("unverified", "not run"):
        out.append(f"the chapter's notebook ({nb.path}): UNVERIFIED — {nb.summary.removeprefix('UNVERIFIED: ')}")
    elif nb is None and report.chapter.get("notebook"):
        out.append(f"the chapter's notebook ({report.chapter['notebook']}): UNVERIFIED — not run")
    out += unverified_sources(report)
    research = report.research
    if research:
        for e in research.experiments:
            if e.status.startswith("UNRUN") and "UNVERIFIED" in e.status:
                out.append(f"{e.id}: {e.status.split(': ', 1)[-1]}")
    return out


def unverified_sources(report: ChapterReport) -> list[str]:
    """What is UNVERIFIED about the bibliography entries bearing on the chapter: metadata fields no primary record
    was checked for, and full texts not read."""
    out = []
    for s in (report.research.sources if report.research else []):
        fields = [m.field for m in s.metadata if m.status == "UNVERIFIED"]
        if fields:
            out.append(f"source {s.id}: {', '.join(fields)} UNVERIFIED (no primary record checked)")
        if unread(s):
            out.append(f"source {s.id}: full text UNVERIFIED — reading status: {s.reading}")
    return out
