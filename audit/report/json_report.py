"""JSON report: the result model as stable, diffable JSON (with ``format_version``)."""

from __future__ import annotations

import json

from ..results import ChapterReport


def render(report: ChapterReport) -> str:
    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
