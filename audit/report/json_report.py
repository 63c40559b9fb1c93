"""JSON report: the result model as stable, diffable JSON (with ``format_version``).

A ``sections`` key maps each of the research brief's seven sections to the keys that hold it.
"""

from __future__ import annotations

import json

from audit.report.cells import SECTIONS
from audit.model.results import ChapterReport

#: Where each section of the brief lives in the JSON report.
SECTION_KEYS = dict(zip(SECTIONS, (
    ["chapter", "snapshot", "fingerprint", "provenance", "research.unverified"],
    ["claims", "summary"],
    ["research.sources", "research.sources_not_bearing", "research.unverified_sources", "references"],
    ["claims[].evidence", "claims[].checks", "tensions", "book_conflicts", "research.sensitivity"],
    ["research.proposal"],
    ["research.experiments", "statements", "scan"],
    ["research.checklist"],
)))


def render(report: ChapterReport) -> str:
    data = report.model_dump(mode="json")
    for claim in data.get("claims", []):
        if claim.get("revision") is None:
            claim.pop("revision", None)  # only a claim derived again from an edited sentence carries one
        if not claim.get("page"):
            claim.pop("page", None)  # only a value claim whose register names where the book prints it has one
    data = {"format_version": data.pop("format_version"), "sections": SECTION_KEYS, **data}
    return json_text(data)


def json_text(data) -> str:
    """``data`` as JSON text: non-ASCII letters kept as they are, every control character (``json`` does it) and
    every format or separator character (a right-to-left override, a zero-width space, U+2028) written as a
    ``\\uXXXX`` escape, so reading the file in a terminal or an editor shows the book's text, never reorders it.
    The data read back is the same."""
    from audit.report.shown import FORMAT_CHARACTER
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return FORMAT_CHARACTER.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
