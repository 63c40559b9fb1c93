"""Writing a chapter's reports (JSON, Markdown, HTML, the patch) and the book index into a reports folder, each file
through ``audit.report.files.write_text``."""

from __future__ import annotations

from pathlib import Path

from audit.errors import AuditError
from audit.report.files import write_text

def write_chapter_reports(report, snapshot_text: str, folder: Path, claims: list[str] | None = None,
                          register_text: str | None = None, manuscript=None) -> list[str]:
    """Write ``<id>.json``, ``.md``, ``.html`` and, when the upgrade proposal has hunks, ``.patch``
    (a stale ``.patch`` is removed when nothing needs changing); return where each went.

    ``claims``: the claim ids of a partial audit (``audit run --claims``), recorded in its reproducing command.
    ``register_text``: the claim register as read, so the patch carries the register edits of its hunks.
    ``manuscript``: the chapter's ``Snapshot``, so the patch of a notebook or an HTML page is against that file.
    The recorded command and date are made reproducible first (``report.stable``), so a rerun whose
    results have not changed leaves every file byte-identical. Raises ``AuditError`` naming the path.
    """
    from audit.report import html_report, json_report, markdown, patch
    from audit.register.claims import RESERVED_IDS
    from audit.report.stable import stabilise
    base = str(report.chapter["id"])
    if base.lower() in RESERVED_IDS:
        raise AuditError(f"the chapter id {base!r} would overwrite {base.lower()}.md and .html of the reports folder; "
                         "choose another id", file=str(folder))
    stabilise(report, folder / f"{base}.json", claims)
    proposal = report.research.proposal if report.research else None
    if proposal is not None and register_text is not None and proposal.register_file:
        from audit.research.proposal import fit_register
        fit_register(register_text, proposal)  # a hunk whose register edit does not fit is withdrawn, in every report
    texts = {".json": json_report.render(report), ".md": markdown.render(report),
             ".html": html_report.render(report, snapshot_text),
             ".patch": patch.render(proposal, snapshot_text, register_text, manuscript) if proposal else ""}
    written = [write_text(folder / f"{base}{suffix}", text) for suffix, text in texts.items() if text]
    if texts[".patch"]:
        _check_patch(folder / f"{base}.patch", Path(str(report.snapshot.get("folder") or ".")))
    if claims is None:  # a whole chapter's report: its verdicts join the book's history when they moved
        from audit.report.history import record
        recorded = record(folder, report)
        if recorded:
            written.append(recorded)
    stale = folder / f"{base}.patch"
    if not texts[".patch"] and stale.exists():
        try:
            stale.unlink()
        except OSError as exc:
            raise AuditError(f"cannot remove the outdated patch: {exc.strerror or exc}", file=str(stale))
    return written


def _check_patch(path: Path, chapter_folder: Path) -> None:
    """Read the written patch back as ``patch`` will: it must name only existing files of the chapter's book (each
    relative to the working folder, or to the chapter folder when it lies outside it, as the patch is built), each
    once, none in a dot-folder of the book (``.git``, ``.github``) or hidden, with nothing outside its sections.
    Otherwise the patch is removed and ``AuditError`` names it."""
    from audit.register.claims import book_root, hidden_part
    from audit.report.patch import files_named
    try:
        names = files_named(path.read_text(encoding="utf-8"))
        root = book_root(chapter_folder)
        for name in names:
            here = Path(name) if (Path.cwd() / name).is_file() else chapter_folder / name
            if Path(name).is_absolute() or not here.is_file() or not here.resolve().is_relative_to(root):
                raise ValueError(f"it names {name!r}, which is no file of the chapter's book ({root})")
            hidden = hidden_part(here.resolve(), root)
            if hidden:
                raise ValueError(f"it names {name!r}, which lies in {hidden!r}, a dot-folder or hidden file of the "
                                 f"chapter's book ({root}) that no patch may change")
    except (OSError, ValueError) as exc:
        try:
            path.unlink()
        except OSError:
            pass
        raise AuditError(f"the upgrade proposal's patch was not kept: {exc}", file=str(path))


def write_index(folder: Path) -> list[str]:
    """Write the book index (``index.md``, ``index.html``) from every chapter report in ``folder``."""
    from audit.report.index import entries, render_html, render_markdown
    items = entries(folder)
    return [write_text(folder / "index.md", render_markdown(items)),
            write_text(folder / "index.html", render_html(items))]
