"""Auditing the chapters of a book side by side (``audit run -j N``), with the same reports as one by one.

Each chapter is audited in a forked process of its own (with its own reference workers); the
results come back as JSON and are taken in the order the chapters were named, and the book
conflicts each chapter's listings recorded are added to the parent's ``Book`` in that order, so
the reports and the printed output do not depend on which chapter finishes first.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Collection, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field

from audit.attribution.book import Book, Conflict
from audit.register.claims import Chapter
from audit.model.results import ChapterReport, Provenance
from audit.run.cache import ClaimCache


@dataclass
class Audited:
    """One chapter's outcome: its report, or ``error`` (an internal failure, as ``Type: message``)."""

    chapter: Chapter
    report: ChapterReport | None = None
    error: str = ""
    hits: int = 0
    misses: int = 0
    conflicts: list[dict] = field(default_factory=list)
    stats: dict = field(default_factory=dict)   # its process's cache counts (``audit.run.cache.STATS``)


#: What a forked chapter process reads (set in the parent just before the processes start).
_JOB: dict = {}


def _brief(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text[:200] + '…' if len(text) > 200 else text}"


def _end_with_parent(parent: int) -> None:
    """In a chapter process, first: ask the kernel to end it (SIGTERM) when the audit's process ends, however that
    ends (Linux ``prctl(PR_SET_PDEATHSIG)``). Otherwise a chapter process whose parent was killed goes on auditing
    and keeps its reference workers running; ended, its workers see their pipes close and end too. Elsewhere
    nothing is asked."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
            return
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent ended before the request was made
        os._exit(1)


#: ``prctl`` option: the signal this process gets when its parent ends (``linux/prctl.h``).
_PR_SET_PDEATHSIG = 1


def _audit_one(index: int) -> tuple[str, str, int, int, list[dict], dict]:
    """In a chapter process: (report JSON or "", error or "", cache hits, misses, conflicts recorded, cache counts)."""
    from audit.evaluation.references import all_references
    from audit.run.audit import audit_chapter
    from audit.run.cache import STATS, reset_stats

    job = _JOB
    chapter: Chapter = job["chapters"][index]
    book: Book = job["book"]
    cache: ClaimCache | None = job["cache"]
    before = len(book.conflicts)
    reset_stats()  # this process's own counts (a forked process starts with a copy of the parent's)
    hooks = {}
    if cache is not None and cache.enabled:
        # The charts are drawn here, ahead, by this process's chart worker while the chapter is audited, into the
        # chart store the parent reads when it writes the reports (with the caches off, the parent draws them).
        from audit.report import charts
        hooks = {"computing": charts.prepare, "computed": lambda result: charts.draw_ahead(result.checks)}
    try:
        report = audit_chapter(chapter, all_references(start=False), job["provenance"], book=book, cache=cache,
                               select=job["select"], **hooks)
        if hooks:
            charts.store_ahead()
    except Exception as exc:
        return "", _brief(exc), 0, 0, [], dict(STATS)
    hits, misses = (cache.hits, cache.misses) if cache is not None else (0, 0)
    return report.model_dump_json(), "", hits, misses, [asdict(c) for c in book.conflicts[before:]], dict(STATS)


def audit_parallel(chapters: Sequence[Chapter], book: Book, provenance: Provenance, cache: ClaimCache | None,
                   select: Collection[str] | None, jobs: int) -> list[Audited]:
    """Audit ``chapters`` in up to ``jobs`` processes; one ``Audited`` per chapter, in the given order.

    The book's conflicts are extended in chapter order. POSIX only (processes are forked, so the loaded
    registers are not read again).
    """
    _JOB.update(chapters=list(chapters), book=book, provenance=provenance, cache=cache, select=select)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=max(1, min(jobs, len(chapters))), mp_context=context,
                                 initializer=_end_with_parent, initargs=(os.getpid(),)) as pool:
            answers = list(pool.map(_audit_one, range(len(chapters))))
    finally:
        _JOB.clear()
    out = []
    for chapter, (text, error, hits, misses, conflicts, stats) in zip(chapters, answers):
        report = ChapterReport.model_validate_json(text) if text else None
        for found in conflicts:
            conflict = Conflict(**found)
            if conflict not in book.conflicts:
                book.conflicts.append(conflict)
        out.append(Audited(chapter, report, error, hits, misses, conflicts, stats))
    return out
