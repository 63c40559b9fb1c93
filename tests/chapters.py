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


def cli(*args: str) -> tuple[int, str]:
    """``audit`` run in this process as an author runs it: (exit code, what it printed)."""
    import contextlib
    import io

    from audit.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(list(args))
    return code, out.getvalue()


def init_and_run(root: Path, name: str, text: str, chapter_id: str, *run_args: str) -> tuple[int, str, list[dict]]:
    """A book repository at ``root`` holding the manuscript ``name``: ``audit init`` on it, then ``audit run`` of its
    draft with no register edit. Returns (the run's exit code, chapter.yaml as init wrote it, the report's claims)."""
    import contextlib
    import json

    (root / ".git").mkdir(exist_ok=True)
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text, encoding="utf-8")
    with contextlib.chdir(root):
        assert cli("init", name, "--id", chapter_id)[0] == 0
        code, _ = cli("run", "--quiet", "--no-cache", *run_args, f"claims/{chapter_id}")
    chapter = (root / "claims" / chapter_id / "chapter.yaml").read_text(encoding="utf-8")
    claims = json.loads((root / "reports" / f"{chapter_id}.json").read_text(encoding="utf-8"))["claims"]
    return code, chapter, claims
