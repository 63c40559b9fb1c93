"""JSON report: the result model as stable, diffable JSON (with ``format_version``).

A ``sections`` key maps each of the research brief's seven sections to the keys that hold it.
"""

from __future__ import annotations

import json

from audit.report.markdown import SECTIONS
from audit.report.results import ChapterReport

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
    data = {"format_version": data.pop("format_version"), "sections": SECTION_KEYS, **data}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
