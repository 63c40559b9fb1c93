"""The upgrade proposal as a unified diff (``reports/<chapter-id>.patch``): the snapshot and the claim register.

Every hunk of the proposal changes a sentence of the snapshot and the register entry that quotes it (its quote,
claimed value, stated conventions), so applying the patch and running the audit again reads the new text as
changed, not as a stale quote. The file opens with ``#`` comment lines, one per hunk (claim, action, check), which
``patch`` and ``git apply`` skip; then one diff section per file, each hunk of it against the file as it is now
(two findings on one line are one diff hunk holding both changes). Apply from the project root with
``patch -p0 < reports/<id>.patch`` or ``git apply -p0 reports/<id>.patch``.
"""

from __future__ import annotations

import difflib

from audit.report.results import Proposal

CONTEXT = 1


def _diff(path: str, before: str, after: str) -> list[str]:
    """The unified diff of one file, its lines without line ends; a last line without one is marked."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(old, new, fromfile=path, tofile=path, n=CONTEXT):
        if line.endswith("\n"):
            out.append(line[:-1])
        else:
            out += [line, "\\ No newline at end of file"]
    # difflib writes '--- path\t' style headers without dates; keep them plain
    return [line.rstrip("\t") if line.startswith(("--- ", "+++ ")) else line for line in out]


def _read_again(manuscript, raw: str) -> str | None:
    """The text the audit reads from a notebook or an HTML page whose file is ``raw`` (None when it cannot be read):
    a patch against the file must give the patched reading, or the file's structure was not kept."""
    from audit.text.chapter import HTML_READING, NOTEBOOK_READING, _html_text, _notebook_text
    try:
        if manuscript.reading == NOTEBOOK_READING:
            return _notebook_text(raw, manuscript.path)[0]
        if manuscript.reading == HTML_READING:
            return _html_text(raw)[0]
    except Exception:  # a file nbformat cannot read: not the patched reading
        return ""
    return None


def render(proposal: Proposal, original: str, register: str | None = None, manuscript=None) -> str:
    """The patch text; '' when the proposal has no hunk. ``register``: the claim register's text, whose edits
    are included when given. ``manuscript``: the chapter's ``Snapshot`` when it is read in another format (a
    notebook, an HTML page): the diff is then against that file (``Snapshot.file_after``), or, when a change cannot
    be placed in it, against its text reading, which the header says. Raises ``ValueError`` when a hunk does not
    match the text it is for."""
    if not proposal.hunks:
        return ""
    from audit.research.proposal import patched_text, register_text
    from audit.errors import AuditError
    try:
        after = patched_text(original, proposal)
    except AuditError as exc:
        raise ValueError(exc.message) from None
    out = [(f"# Upgrade proposal for {proposal.file}: {len(proposal.hunks)} change(s), one per finding, each checked "
            "by the harness before it was written"
            + (f"; {proposal.register_file} changes with it, so the next run reads the new text." if register
               is not None and proposal.register_file else ".")),
           "# Apply from the project root: patch -p0 < this file, or git apply -p0 this file."]
    place = (lambda line: manuscript.place(line) or f"line {line}") if manuscript is not None else \
        (lambda line: f"line {line}")
    out += [f"# {h.claim} ({place(h.snapshot_line or h.line)}): {h.action}. {h.check}." for h in proposal.hunks]
    out.append("")
    raw_after = manuscript.file_after(after) if manuscript is not None and manuscript.reading else None
    if raw_after is not None and _read_again(manuscript, raw_after) not in (None, after):
        raw_after = None   # the file, read again as the audit reads it, would not be the patched text
    if raw_after is not None:
        out += _diff(proposal.file, manuscript.raw.replace("\r\n", "\n"), raw_after)
    else:
        if manuscript is not None and manuscript.reading:
            out.insert(2, f"# {proposal.file} is read as text ({manuscript.reading.split(':')[0]}); a change could not "
                          "be placed in the file, so its section is against that text: make it there by hand.")
        out += _diff(proposal.file, original, after)
    if register is not None and proposal.register_file:
        out += _diff(proposal.register_file, register, register_text(register, proposal))
    return "\n".join(out) + "\n"
