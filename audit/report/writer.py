"""The one function that writes report files: atomic, parent folders created, says where it wrote; and the lock
under which one audit writes a reports folder."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from audit.errors import AuditError

#: The sub-folder of the reports folder that holds the reports of a partial audit (``audit run --claims``): they
#: never replace a chapter's own reports.
SELECTED = "selected"

#: The lock file of a reports folder (``locked``).
LOCK = ".audit.lock"


@contextmanager
def locked(folder: Path, waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the reports folder's lock (``fcntl.flock`` on ``folder/.audit.lock``, exclusive) while writing it, so two
    audits writing one folder write one after the other: every chapter report and the index of one run, then
    every one of the other's, never some of each. ``waiting`` is told when another audit holds the lock. The lock
    ends with the process, however it ends. Raises ``AuditError`` naming the folder when the lock file cannot be
    made (where ``fcntl`` does not exist, nothing is locked)."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    path = Path(folder) / LOCK
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                     0o644)
    except OSError as exc:
        raise AuditError(f"cannot lock the reports folder: {exc.strerror or exc}", file=str(path))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting is not None:
                waiting(f"another audit is writing {folder}; waiting for it to finish")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def write_text(path: Path | str, text: str) -> str:
    """Write ``text`` to ``path`` atomically (``-`` means stdout); return where it went.

    The file is written beside its destination and renamed into place, so a failure
    never leaves a half-written report. Raises ``AuditError`` naming the path on an OS error.
    """
    if str(path) == "-":
        sys.stdout.write(text)
        return "stdout"
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            os.chmod(tmp, 0o644)  # mkstemp creates 0600; reports are meant to be shared
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise AuditError(f"cannot write report: {exc.strerror or exc}", file=str(path))
    return str(path)


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
