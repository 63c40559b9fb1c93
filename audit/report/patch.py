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
import re
import unicodedata

from audit.model.results import Proposal

CONTEXT = 1
HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _lines(text: str) -> list[str]:
    """``text``'s lines as ``patch`` reads them: split at newlines only (a form feed or a line separator inside a
    line stays in it), each with its newline."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _one_line(text: str) -> str:
    """``text`` for a ``#`` comment line: every control or format character shown as ⟨U+XXXX⟩, never sent."""
    return "".join(f"⟨U+{ord(ch):04X}⟩" if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch
                   for ch in str(text))


def _name(path: str) -> str:
    """A file name for a diff header. Raises ``ValueError`` for one ``patch`` would read otherwise: empty, with a
    control or format character (a newline would start a header of its own), or starting or ending with a blank."""
    if not path or path != path.strip() or any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in path):
        raise ValueError(f"the file name {path!r} cannot be named in a patch")
    return path


def _header(path: str) -> str:
    """``path`` as a diff header names it: as it is, or, where it holds a blank, a quote or a backslash, in double
    quotes with ``"`` and ``\\`` escaped, as git writes such names; GNU patch and ``git apply`` both read it so
    (unquoted, ``patch`` would cut ``notes/ch 1.md`` at the blank and patch ``notes/ch``)."""
    if not re.search(r'[\s"\\]', path):
        return path
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unheader(name: str) -> str:
    """A diff header's file name as ``_header`` wrote it, unquoted."""
    if len(name) >= 2 and name[0] == name[-1] == '"':
        return re.sub(r'\\(["\\])', r"\1", name[1:-1])
    return name


def files_named(text: str) -> list[str]:
    """The files a patch changes, each once in order, read as ``patch`` reads it: ``#`` comment lines and blank
    lines before the first section, then sections of a ``--- name`` and ``+++ name`` header (the same name) and
    hunks whose lines are exactly as many as their ``@@`` headers say. Raises ``ValueError`` for anything else (a
    header inside a hunk's text, a line outside every hunk, another format)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    names: list[str] = []
    i = 0
    while i < len(lines) and not lines[i].startswith("--- "):
        if lines[i] and not lines[i].startswith("#"):
            raise ValueError(f"line {i + 1} of the patch is neither a comment nor a diff header")
        i += 1
    while i < len(lines):
        old = lines[i]
        new = lines[i + 1] if i + 1 < len(lines) else ""
        if not old.startswith("--- ") or new != "+++ " + old[4:]:
            raise ValueError(f"line {i + 1} of the patch is not a diff header of one file")
        names.append(_unheader(old[4:]))
        i += 2
        if i >= len(lines) or not HUNK.fullmatch(lines[i]):
            raise ValueError(f"the section of {old[4:]!r} has no hunk")
        while i < len(lines) and (match := HUNK.fullmatch(lines[i])):
            left = int(match[2] if match[2] is not None else 1)
            right = int(match[4] if match[4] is not None else 1)
            i += 1
            while left > 0 or right > 0:
                if i >= len(lines) or lines[i][:1] not in (" ", "-", "+"):
                    raise ValueError(f"line {i + 1} of the patch cuts a hunk short")
                tag = lines[i][:1]
                left -= tag in " -"
                right -= tag in " +"
                if left < 0 or right < 0:
                    raise ValueError(f"line {i + 1} of the patch overruns its hunk")
                i += 1
                if i < len(lines) and lines[i] == "\\ No newline at end of file":
                    i += 1
    if len(set(names)) != len(names):
        raise ValueError("the patch names a file twice")
    return names


def _diff(path: str, before: str, after: str) -> list[str]:
    """The unified diff of one file, its lines without line ends; a last line without one is marked."""
    path = _name(path)
    old, new = _lines(before), _lines(after)
    out = []
    for line in difflib.unified_diff(old, new, fromfile=_header(path), tofile=_header(path), n=CONTEXT):
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
    _name(proposal.file)
    if register is not None and proposal.register_file:
        _name(proposal.register_file)
    out = [(f"# Upgrade proposal for {proposal.file}: {len(proposal.hunks)} change(s), one per finding, each checked "
            "by the harness before it was written"
            + (f"; {proposal.register_file} changes with it, so the next run reads the new text." if register
               is not None and proposal.register_file else ".")),
           "# Apply from the project root: patch -p0 < this file, or git apply -p0 this file."]
    place = (lambda line: manuscript.place(line) or f"line {line}") if manuscript is not None else \
        (lambda line: f"line {line}")
    out += [_one_line(f"# {h.claim} ({place(h.snapshot_line or h.line)}): {h.action}. {h.check}.")
            for h in proposal.hunks]
    out.append("")
    raw_after = manuscript.file_after(after) if manuscript is not None and manuscript.reading else None
    if raw_after is not None and _read_again(manuscript, raw_after) not in (None, after):
        raw_after = None   # the file, read again as the audit reads it, would not be the patched text
    if raw_after is not None:
        out += _diff(proposal.file, manuscript.raw.replace("\r\n", "\n"), raw_after)
    else:
        if manuscript is not None and manuscript.reading:
            out.insert(2, _one_line(f"# {proposal.file} is read as text ({manuscript.reading.split(':')[0]}); a "
                                    "change could not be placed in the file, so its section is against that text: "
                                    "make it there by hand."))
        out += _diff(proposal.file, original, after)
    if register is not None and proposal.register_file:
        out += _diff(proposal.register_file, register, register_text(register, proposal))
    text = "\n".join(out) + "\n"
    intended = [proposal.file] + ([proposal.register_file] if register is not None and proposal.register_file else [])
    if not set(files_named(text)) <= set(intended):
        raise ValueError("the patch names a file it was not built for")
    return text
