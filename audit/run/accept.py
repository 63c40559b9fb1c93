"""``audit accept``: the author accepts a revision of the chapter as the one the register is written for.

After any edit of the chapter the recorded fingerprint no longer matches the text, and the report says so
(UNVERIFIED). Accepting is done by the tool, never by pasting a hash: the revision must have been audited (the
chapter's JSON report in the reports folder was made from this very text); its fingerprint is then written into
``chapter.yaml`` (the rest of the file, comments included, is kept as written) and an entry is added to the chapter's
history (``reports/history/<id>.json``: the fingerprint accepted, the one it replaces, the date and the verdicts of
the audit the acceptance rests on).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path

from audit.errors import AuditError
from audit.register.claims import CHAPTER_FILE, load_chapter
from audit.report.history import HISTORY, KEPT, read

_FINGERPRINT = re.compile(r"^fingerprint:[ \t]*(?:[\"']?[0-9a-f]{64}[\"']?|null|~)?[ \t]*(?:#.*)?$", re.MULTILINE)


def accept(folder: Path, reports: Path, today: str | None = None) -> tuple[str, str | None, list[Path]]:
    """Record the fingerprint of the chapter in ``folder`` as accepted. Returns the fingerprint, the one recorded
    before (None when there was none) and the files written (none when it was already the recorded one).

    Raises ``AuditError`` naming the file when the revision has not been audited into ``reports`` (no report, or one
    made from another text), or when ``chapter.yaml`` states its fingerprint in a form this cannot rewrite."""
    chapter = load_chapter(folder)
    ident = chapter.identity
    computed = chapter.snapshot.fingerprint()
    before = ident.fingerprint
    if before == computed:
        return computed, before, []
    path = reports / f"{ident.id}.json"
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
        audited = report["fingerprint"]["computed"]
        verdicts = {str(c["id"]): str(c["verdict"]) for c in report["claims"]}
        summary = {str(k): v for k, v in report.get("summary", {}).items() if v}
    except FileNotFoundError:
        raise AuditError(f"this revision has not been audited: no report of chapter {ident.id!r} here; run "
                         f"`audit run {folder}` (with the same --reports) first, read it, then accept",
                         file=str(path)) from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise AuditError("not a chapter-audit JSON report; rerun `audit run` to write it again", file=str(path)) \
            from None
    if audited != computed:
        raise AuditError(f"the report was made from another text ({audited[:12]}…) than the chapter as it is now "
                         f"({computed[:12]}…); run `audit run {folder}` on this revision first, read it, then accept",
                         file=str(path))
    chapter_path = folder / CHAPTER_FILE
    text = chapter_path.read_text(encoding="utf-8")
    line = f"fingerprint: {computed}"
    if before is None and not _FINGERPRINT.search(text):
        new = text + ("" if text.endswith("\n") or not text else "\n") + line + "\n"
    else:
        new, count = _FINGERPRINT.subn(line, text)
        if count != 1:
            raise AuditError("the recorded fingerprint is not written as one `fingerprint: <64 hex digits>` line; "
                             "write it so, then accept again", file=str(chapter_path))
    chapter_path.write_text(new, encoding="utf-8")
    if load_chapter(folder).identity.fingerprint != computed:  # what was written must read back as accepted
        chapter_path.write_text(text, encoding="utf-8")
        raise AuditError("could not record the fingerprint (chapter.yaml restored as it was)", file=str(chapter_path))
    entry = {"fingerprint": computed, "date": today or _dt.date.today().isoformat(), "summary": summary,
             "verdicts": verdicts, "accepted": {"replaces": before}}
    past = read(reports).get(str(ident.id), [])
    history = reports / HISTORY / f"{ident.id}.json"
    history.parent.mkdir(parents=True, exist_ok=True)
    history.write_text(json.dumps((past + [entry])[-KEPT:], indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return computed, before, [chapter_path, history]
