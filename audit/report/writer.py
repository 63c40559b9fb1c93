"""Writing a chapter's reports (JSON, Markdown, HTML, the patch) and the book index into a reports folder, each file
through ``audit.report.files.write_text``."""

from __future__ import annotations

import os
from pathlib import Path

from audit.errors import AuditError
from audit.report.files import write_text

def write_chapter_reports(report, snapshot_text: str, folder: Path, claims: list[str] | None = None,
                          register_text: str | None = None, manuscript=None, rendered=None) -> list[str]:
    """Write ``<id>.json``, ``.md``, ``.html`` and, when the upgrade proposal has hunks, ``.patch``
    (a stale ``.patch`` is removed when nothing needs changing); return where each went.

    ``claims``: the claim ids of a partial audit (``audit run --claims``), recorded in its reproducing command.
    ``register_text``: the claim register as read, so the patch carries the register edits of its hunks.
    ``manuscript``: the chapter's ``Snapshot``, so the patch of a notebook or an HTML page is against that file.
    The recorded command and date are made reproducible first (``report.stable``), so a rerun whose
    results have not changed leaves every file byte-identical. ``rendered``: the record of reports written
    (``audit.run.rendered.RenderedReports``); when it shows that the folder already holds, byte for byte, the reports
    these inputs render, they are left in place and their paths come back marked ``(unchanged)``. Raises
    ``AuditError`` naming the path.
    """
    from audit.report import json_report
    from audit.register.claims import RESERVED_IDS
    from audit.report.stable import stabilise
    base = str(report.chapter["id"])
    if base.lower() in RESERVED_IDS:
        raise AuditError(f"the chapter id {base!r} would overwrite {base.lower()}.md and .html of the reports folder; "
                         "choose another id", file=str(folder))
    stabilise(report, folder / f"{base}.json", claims)
    proposal = report.research.proposal if report.research else None
    key = unfitted = None
    if rendered is not None:
        unfitted = json_report.render(report)  # the JSON report too, unless fitting the register edits changes it
        key = rendered.key(unfitted, snapshot_text, "" if register_text is None else register_text,
                           _manuscript_key(manuscript), repr(claims))
        in_place = _in_place(rendered.get(key), report, proposal, folder, base, unfitted)
        if in_place:
            if any(path.endswith(".patch") for path in in_place):
                _check_patch(folder / f"{base}.patch", Path(str(report.snapshot.get("folder") or ".")))
            return _finish(report, folder, base, claims, in_place, [f"{path} (unchanged)" for path in in_place])
    from audit.report import html_report, markdown, patch  # (jinja2 and the charts: not for reports in place)
    hunks, withdrawn = (list(proposal.hunks), len(proposal.withdrawn)) if proposal is not None else ([], 0)
    if proposal is not None and register_text is not None and proposal.register_file:
        from audit.research.proposal import fit_register
        fit_register(register_text, proposal)  # a hunk whose register edit does not fit is withdrawn, in every report
    fitted = proposal is not None and (len(proposal.hunks), len(proposal.withdrawn)) != (len(hunks), withdrawn)
    texts = {".json": unfitted if unfitted is not None and not fitted else json_report.render(report),
             ".md": markdown.render(report),
             ".html": html_report.render(report, snapshot_text),
             ".patch": patch.render(proposal, snapshot_text, register_text, manuscript) if proposal else ""}
    written = [write_text(folder / f"{base}{suffix}", text) for suffix, text in texts.items() if text]
    if texts[".patch"]:
        _check_patch(folder / f"{base}.patch", Path(str(report.snapshot.get("folder") or ".")))
    written = _finish(report, folder, base, claims, written, written)
    if key is not None:
        kept = [i for i, h in enumerate(hunks) if any(k is h for k in proposal.hunks)] if proposal is not None else []
        data = {suffix: text.encode("utf-8") for suffix, text in texts.items() if text}
        rendered.put(key, kept, list(proposal.withdrawn[withdrawn:]) if proposal is not None else [],
                     {suffix: _sha256(b) for suffix, b in data.items()}, {suffix: len(b) for suffix, b in data.items()})
    return written


def _finish(report, folder: Path, base: str, claims, present: list[str], written: list[str]) -> list[str]:
    """After the reports are in place (``present``): record the verdicts in the book's history, and remove a patch
    left over from an earlier run; return ``written`` with the history's path when it was written."""
    written = list(written)
    if claims is None:  # a whole chapter's report: its verdicts join the book's history when they moved
        from audit.report.history import record
        recorded = record(folder, report)
        if recorded:
            written.append(recorded)
    stale = folder / f"{base}.patch"
    if not any(str(p).endswith(f"{base}.patch") for p in present) and stale.exists():
        try:
            stale.unlink()
        except OSError as exc:
            raise AuditError(f"cannot remove the outdated patch: {exc.strerror or exc}", file=str(stale))
    return written


def _sha256(data: bytes) -> str:
    import hashlib
    return hashlib.sha256(data).hexdigest()


def _file_sha256(path: Path, size: int) -> str | None:
    """The SHA-256 of ``path`` when it is a regular file (not a link to one) of ``size`` bytes, read in blocks; else
    None (a FIFO is never opened to block, a huge file never read)."""
    import hashlib
    import stat

    from audit.model.files import open_regular
    if not stat.S_ISREG(os.lstat(path).st_mode):
        return None
    with open_regular(path, "report") as handle:
        if os.fstat(handle.fileno()).st_size != size:
            return None
        h = hashlib.sha256()
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _manuscript_key(manuscript) -> str:
    """What a patch reads of the chapter's ``Snapshot``, as one text."""
    if manuscript is None:
        return ""
    return repr((str(manuscript.path), manuscript.reading, manuscript.raw, manuscript.origin, manuscript.text))


def _in_place(entry: dict | None, report, proposal, folder: Path, base: str, unfitted: str) -> list[str]:
    """The paths of the chapter's reports when ``entry`` (what was written from the same inputs) shows that
    ``folder`` holds them as they would be written now: its fitting of the register edits made again, the JSON report
    (``unfitted`` when that fitting changed nothing, else rendered again) equal to the recorded one, and every report
    file (and no other) with its recorded digest. Else [] with ``report`` as it came."""
    if entry is None:
        return []
    from audit.report import json_report
    hunks, withdrawn = (list(proposal.hunks), list(proposal.withdrawn)) if proposal is not None else ([], [])
    if any(i >= len(hunks) for i in entry["kept"]) or (proposal is None and (entry["kept"] or entry["withdrawn"])):
        return []
    if proposal is not None:
        proposal.hunks = [hunks[i] for i in entry["kept"]]
        proposal.withdrawn = withdrawn + [dict(w) for w in entry["withdrawn"]]
    digests, sizes = entry["digests"], entry["sizes"]
    try:
        refitted = entry["kept"] != list(range(len(hunks))) or entry["withdrawn"]
        if _sha256((json_report.render(report) if refitted else unfitted).encode("utf-8")) == digests.get(".json"):
            paths = []
            for suffix in (".json", ".md", ".html", ".patch"):
                path = folder / f"{base}{suffix}"
                if suffix not in digests:
                    if os.path.lexists(path):
                        break
                    continue
                if _file_sha256(path, sizes[suffix]) != digests[suffix]:
                    break
                paths.append(str(path))
            else:
                return paths
    except (OSError, AuditError):
        pass
    if proposal is not None:
        proposal.hunks, proposal.withdrawn = hunks, withdrawn
    return []


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
