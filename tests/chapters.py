"""A chapter folder written for a test and audited: chapter.yaml, the snapshot and claims.yaml, as an author keeps
them, then the whole audit with the three references."""

from __future__ import annotations

from pathlib import Path

from audit.model.results import ChapterReport


def audit_text(folder: Path, snapshot: str, claims: str, *, title: str, suffix: str = ".md") -> ChapterReport:
    """Write ``snapshot`` and the register ``claims`` into ``folder`` (a chapter with ``folder``'s name as its id
    and ``title``) and audit it."""
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect

    (folder / "chapter.yaml").write_text(f"id: {folder.name}\ntitle: {title}\nsnapshot: {{file: snapshot{suffix}}}\n",
                                         encoding="utf-8")
    (folder / f"snapshot{suffix}").write_text(snapshot, encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
