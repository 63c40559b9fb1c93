"""The upgrade proposal as a unified diff against the snapshot (``reports/<chapter-id>.patch``).

One diff section per hunk, each preceded by ``#`` comment lines (claim, action, check), which
``patch`` and ``git apply`` skip. Sections on the same file apply in order, each to the text the
previous ones produced, so two findings on one line stay two hunks. Apply from the project root
with ``patch -p0 < reports/<id>.patch`` or ``git apply -p0 reports/<id>.patch``.
"""

from __future__ import annotations

from audit.report.results import Proposal

CONTEXT = 1


def render(proposal: Proposal, original: str) -> str:
    """The patch text; '' when the proposal has no hunk."""
    if not proposal.hunks:
        return ""
    lines = original.split("\n")
    ends_with_newline = original.endswith("\n")
    if ends_with_newline:
        lines = lines[:-1]
    out = [(f"# Upgrade proposal for {proposal.file}: {len(proposal.hunks)} hunk(s), one per finding, each checked "
            "by the harness before it was written."),
           "# Apply from the project root: patch -p0 < this file, or git apply -p0 this file.", ""]
    for h in proposal.hunks:
        i = h.line - 1
        if lines[i] != h.old:
            raise ValueError(f"hunk for {h.claim} does not match line {h.line} of {proposal.file}")
        first, last = max(0, i - CONTEXT), min(len(lines) - 1, i + CONTEXT)
        out += [f"# {h.claim}: {h.action}. {h.check}.", f"--- {proposal.file}", f"+++ {proposal.file}",
                f"@@ -{first + 1},{last - first + 1} +{first + 1},{last - first + 1} @@"]
        for j in range(first, last + 1):
            if j == i:
                out.append(f"-{lines[j]}")
                if j == len(lines) - 1 and not ends_with_newline:
                    out.append("\\ No newline at end of file")
                out.append(f"+{h.new}")
            else:
                out.append(f" {lines[j]}")
            if j == len(lines) - 1 and not ends_with_newline:
                out.append("\\ No newline at end of file")
        lines[i] = h.new
        out.append("")
    return "\n".join(out)
