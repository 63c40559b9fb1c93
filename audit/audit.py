"""Audit one chapter: anchor each claim, run its checker, decide its verdict, build the report model."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from collections.abc import Callable, Sequence

from . import __version__
from .book import Book
from .checks import CHECKERS, NEEDS, Measurements
from .chapter import NORMALISATION
from .errors import AuditError
from .references import Reference
from .register import Chapter
from .results import VERDICTS, ChapterReport, ClaimResult, Fingerprint, Provenance, ReferenceInfo
from .verdict import Decision, Evidence, decide, not_checkable, pending, stale


def fingerprint_statement(chapter: Chapter) -> Fingerprint:
    """Recorded vs computed fingerprint, with a plain statement of what a difference can mean."""
    computed = chapter.snapshot.fingerprint()
    recorded = chapter.identity.fingerprint
    excerpt = chapter.identity.snapshot.excerpt
    if recorded is None:
        statement = "No fingerprint is recorded for this chapter; the computed one identifies the snapshot read."
    elif recorded == computed:
        statement = "The snapshot is the revision the register was written for (fingerprints match)."
    elif excerpt:
        statement = ("The fingerprints differ because the snapshot is an excerpt, as the register records: the "
                     "recorded fingerprint covers the whole chapter, the computed one only the excerpt. A hash cannot "
                     "tell an excerpt from another revision, so whether the excerpt's text matches the recorded "
                     "revision is not known; the recorded normalisation is not stated either. Claims outside the "
                     "excerpt were not audited.")
    else:
        statement = ("The fingerprints differ: the snapshot is another revision than the one the register "
                     "was written for, or was normalised differently. Check anchors and rerun after updating the register.")
    return Fingerprint(recorded=recorded, computed=computed, matches=recorded == computed,
                       normalisation=NORMALISATION, statement=statement)


def _relation(claimed) -> str:
    """`` = 1/4``, `` ≈ .4884`` or `` < 1``: the claimed value with the right relation sign."""
    text = str(claimed).strip()
    return f" {text}" if text[:1] in "≈~<>≤≥" else f" = {text}"


def audit_claim(claim, chapter: Chapter, ms: Measurements) -> ClaimResult:
    """One claim's result; checker failures become an ``error`` verdict, never a crash."""
    anchor = chapter.snapshot.find(claim.quote)
    evidence = Evidence()
    if not anchor.found:
        decision = stale(claim.quote)
    elif claim.kind == "not checkable":
        decision = not_checkable(claim.reason)
    elif claim.kind not in CHECKERS:
        decision = pending(claim.kind)
    else:
        try:
            evidence = CHECKERS[claim.kind](claim, chapter, ms)
            decision = decide(evidence)
            if claim.rewording and decision.verdict in ("qualified", "contradicted"):
                decision = replace(decision, response=f"Replace with: “{claim.rewording.strip()}”")
        except AuditError as exc:
            decision = Decision("error", f"The check could not run: {exc.message}.",
                                "The claim's encoding or fixture is faulty; nothing was verified.",
                                "Fix the register entry named in the reason, then rerun.", "high")
    anchor_text = {"exact": "found", "normalised": "found (whitespace or quote marks differ)",
                   "not found": "not found"}[anchor.status]
    if anchor.count > 1:
        anchor_text += f"; the quote occurs {anchor.count} times, the first is used"
    claimed = ""
    if claim.kind == "value":
        claimed = "; ".join(f"{e.measure}{_relation(e.claimed)}" + (" (derived, not printed)" if e.derived else "")
                            for e in claim.expect)
    elif claim.kind == "comparison":
        claimed = "; ".join(f"{e.measure}{' → ' + e.after_measure if e.after_measure else ''} {e.change}"
                            + (f" ({e.before} → {e.after})" if e.before is not None and e.after is not None else
                               f" (before {e.before})" if e.before is not None else
                               f" (after {_relation(e.after).strip().removeprefix('= ')})" if e.after is not None
                               else "")
                            for e in claim.expect)
    elif claim.kind == "arithmetic":
        claimed = f"{claim.expression}{_relation(claim.claimed)}"
    elif claim.kind == "convention":
        claimed = f"{claim.convention.replace('_', ' ')}: {claim.rule}"
    elif claim.kind == "property":
        from .checks.property import TRANSFORMS
        target = {"next_cutoff": "as k grows", "measure": f"{claim.other}@k",
                  "transform": f"when {TRANSFORMS[claim.transform][1]}" if claim.transform else ""}[claim.compare]
        claimed = f"{claim.measure}@k {claim.relation} {target}"
    elif claim.kind == "code":
        claimed = f"{claim.function} computes {claim.measure}"
    return ClaimResult(id=claim.id, kind=claim.kind, title=claim.title, claim=claim.claim, quote=claim.quote,
                       anchor=anchor_text, line=anchor.line, column=anchor.column,
                       register_line=chapter.lines.get(claim.id), verdict=decision.verdict, reason=decision.reason,
                       concern=decision.concern, response=decision.response, priority=decision.priority,
                       claimed=claimed, checks=evidence.checks, note=claim.note)


def audit_chapter(chapter: Chapter, references: Sequence[Reference], provenance: Provenance,
                  progress: Callable[[str], None] | None = None, book: Book | None = None) -> ChapterReport:
    """Audit every claim of ``chapter`` in register order and return the report model.

    ``book``: the chapters audited together, so a listing can be held to a convention another
    chapter states; conflicts are added to ``book.conflicts`` (see ``add_book_findings``).
    """
    ms = Measurements(references, book)
    requests = []
    for claim in chapter.register.claims:
        if claim.kind in NEEDS and chapter.snapshot.find(claim.quote).found:
            requests += NEEDS[claim.kind](claim, chapter)
    ms.prefetch(requests)
    results = []
    for claim in chapter.register.claims:
        if progress:
            progress(claim.id)
        results.append(audit_claim(claim, chapter, ms))
    counts = Counter(r.verdict for r in results)
    ident = chapter.identity
    return ChapterReport(
        tool=f"chapter-audit {__version__}",
        chapter={"id": ident.id, "book": ident.book, "chapter": ident.chapter, "title": ident.title,
                 "kind": ident.kind, "url": ident.url, "research_pack": ident.research_pack},
        snapshot={"file": str(chapter.folder / ident.snapshot.file), "excerpt": ident.snapshot.excerpt,
                  "source": ident.snapshot.source, "characters": len(chapter.snapshot.text),
                  "lines": len(chapter.snapshot.text.splitlines())},
        fingerprint=fingerprint_statement(chapter),
        provenance=provenance,
        references=[ReferenceInfo(name=r.name, title=r.title, library=r.library, version=r.version(),
                                  conventions=r.conventions()) for r in references],
        summary={v: counts.get(v, 0) for v in VERDICTS},
        claims=results)


def add_book_findings(report: ChapterReport, book: Book) -> None:
    """Record the book-level conflicts that involve this chapter in its report."""
    report.book_conflicts = [c.sentence() for c in book.involving(str(report.chapter["id"]))]
