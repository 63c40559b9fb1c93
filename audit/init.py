"""``audit init``: a new chapter folder whose register starts from the numeric scan."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml

from .chapter import Snapshot
from .errors import AuditError
from .register import CHAPTER_FILE, CLAIMS_FILE, load_chapter
from .scan import scan
from .values import parse_claimed, parse_expression

_RATIO = re.compile(r"^(?P<expr>.+?)\s*(?P<rel>≈|=)\s*(?P<value>\S+)$")


def _arithmetic(text: str) -> tuple[str, str] | None:
    """``21/43 ≈ .4884`` → (``21/43``, ``≈ .4884``) when both sides parse without a fixture."""
    m = _RATIO.match(text.strip())
    if not m:
        return None
    claimed = ("≈ " if m.group("rel") == "≈" else "") + m.group("value")
    try:
        parse_expression(m.group("expr"))
        parse_claimed(claimed)
    except AuditError:
        return None
    return m.group("expr").strip(), claimed


def create_chapter(snapshot: Path, chapter_id: str, claims_dir: Path, *, title: str | None = None,
                   book: str | None = None) -> tuple[Path, dict[str, int]]:
    """Create ``claims_dir/chapter_id`` with chapter.yaml, the snapshot and a register holding one
    claim per numeric statement: arithmetic statements encoded, the others as drafts to encode.
    Raises ``AuditError`` if the folder exists or the snapshot cannot be read."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", chapter_id):
        raise AuditError(f"chapter id {chapter_id!r} must be letters, digits, '.', '_' or '-'")
    if not snapshot.is_file():
        raise AuditError("no such snapshot file (give the chapter text as a plain-text or Markdown file)",
                         file=str(snapshot))
    folder = claims_dir / chapter_id
    if folder.exists():
        raise AuditError("already exists; choose another id or remove the folder", file=str(folder))
    text = Snapshot.read(snapshot)
    statements = scan(text)
    folder.mkdir(parents=True)
    shutil.copyfile(snapshot, folder / "snapshot.txt")
    first_line = next((ln.strip() for ln in text.text.split("\n") if ln.strip()), chapter_id)
    identity = {"id": chapter_id, "book": book, "title": title or first_line[:120], "kind": "chapter",
                "fingerprint": text.fingerprint(),
                "snapshot": {"file": "snapshot.txt", "excerpt": False, "source": str(snapshot.resolve())}}
    claims, counts = [], {"statements": len(statements), "arithmetic": 0, "draft": 0}
    for i, s in enumerate(statements, start=1):
        base = {"id": f"S{i:02d}", "title": f"{s.kind}: {s.text[:60]}", "quote": s.text, "line": s.line}
        encoded = _arithmetic(s.text) if s.kind == "ratio" else None
        if encoded:
            counts["arithmetic"] += 1
            claims.append({**base, "kind": "arithmetic", "claim": f"{encoded[0]} is {encoded[1]}",
                           "expression": encoded[0], "claimed": encoded[1]})
        else:
            counts["draft"] += 1
            claims.append({**base, "kind": "draft", "claim": f"TODO: state what “{s.text}” claims",
                           "statement": s.kind})
    header = ("# Claim register started by `audit init` from the numeric statements in the snapshot.\n"
              "# Arithmetic statements are encoded; each draft needs a kind, a fixture and expected values\n"
              "# (see README, 'Writing claims for a new chapter'). Ids are stable: do not renumber.\n")
    (folder / CHAPTER_FILE).write_text(yaml.safe_dump(identity, sort_keys=False, allow_unicode=True), encoding="utf-8")
    (folder / CLAIMS_FILE).write_text(header + yaml.safe_dump({"claims": claims} if claims else {"claims": []},
                                                              sort_keys=False, allow_unicode=True, width=110),
                                      encoding="utf-8")
    if claims:
        load_chapter(folder)  # what init writes must load
    return folder, counts
