"""HTML report: one self-contained page (inline CSS, JavaScript and SVG charts; no network)."""

from __future__ import annotations

import functools

from html import escape

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from audit.report import charts
from audit.report.cells import SECTIONS, _short, clip
from audit.report.markdown import (
    REASON_LIMIT,
    chapter_unverified,
    fix_text,
    hunk_numbers,
    implementations,
    notebook_acts,
    shown_claim,
    shown_title,
    stated_tensions,
    to_act,
    TENSION_FIX,
    values_cell,
)
from audit.report.research_sections import metadata_text, sensitivity_counts, software_matrix
from audit.model.results import ChapterReport, ClaimResult, ImplValue
from audit.report.text import value_text

#: The HTML ids of the seven sections, in order (``…html#findings``); claims are anchored by id (``#C08``).
SECTION_IDS = ("context", "claim-audit", "source-ledger", "findings", "upgrade-proposal", "experiments", "checklist")
_ORDER = ("contradicted", "stale", "error", "qualified", "pending", "supported", "not checkable")


def _context(report_text: str, claim: ClaimResult) -> Markup:
    """The snapshot line holding the quote, with the quote highlighted."""
    if not claim.line:
        return Markup(f"<em>quote not found:</em> “{escape(claim.quote)}”")
    line = report_text.split("\n")[claim.line - 1]
    start = (claim.column or 1) - 1
    found = claim.found_text or claim.quote
    end = start + len(found)
    if line[start:end] != found:  # found after folding quotes/whitespace: highlight nothing, show the line
        return Markup(escape(line))
    before, after = line[:start], line[end:]
    # At most about 240 characters of context on each side, cut at a word.
    if len(before) > 240:
        before = "… " + before[-240:].split(" ", 1)[-1]
    if len(after) > 240:
        after = after[:240].rsplit(" ", 1)[0] + " …"
    return Markup(f"{escape(before)}<mark>{escape(line[start:end])}</mark>{escape(after)}")


def _per_query_text(v: ImplValue) -> str:
    if "left" in v.per_query or "before" in v.per_query:
        return ""
    return ", ".join(f"{q}: {x}" for q, x in v.per_query.items())


@functools.lru_cache(maxsize=1)
def _template():
    """The page template, compiled once per process (every chapter's page is rendered from it)."""
    env = Environment(loader=PackageLoader("audit.report", "templates"), autoescape=select_autoescape(["j2", "html"]))
    return env.get_template("report.html.j2")


def render(report: ChapterReport, snapshot_text: str) -> str:
    """The page for ``report``; ``snapshot_text`` supplies each quote's context line. Every string of the report
    and the snapshot shows its control and format characters (``shown.for_html``); the template escapes HTML."""
    from audit.report.shown import for_html, visible_lines
    report, snapshot_text = for_html(report), visible_lines(snapshot_text)
    impls = implementations(report)
    charts_by_key = {}
    for c in report.claims:
        for i, check in enumerate(c.checks):
            charts_by_key[f"{c.id}:{i}"] = Markup(charts.interval_chart(check) + charts.curve_chart(check)
                                                    + charts.differences_chart(check))
    ch = report.chapter
    subtitle = ", ".join(str(x) for x in (ch.get("book"), f"chapter {ch['chapter']}" if ch.get("chapter")
                                          else ch.get("kind")) if x)
    research = report.research

    def links_of(source, relation: str) -> list[str]:
        return list(dict.fromkeys(link.claim for link in source.links if link.relation == relation))

    return _template().render(
        report=report, ch=ch, subtitle=subtitle, impls=impls, research=research, sections=SECTIONS,
        section_ids=SECTION_IDS, links_of=links_of, metadata_text=metadata_text, title=shown_title,
        claim_text=shown_claim, clip=clip,
        acts=to_act(report), tensions=stated_tensions(report), notebook_acts=notebook_acts(report, literal=str), tension_fix=TENSION_FIX, fix=fix_text, hunks=hunk_numbers(report), chapter_unverified=chapter_unverified(report),
        matrix=software_matrix(report), short=lambda text: _short(text, REASON_LIMIT),
        sensitivity_counts=sensitivity_counts(research.sensitivity) if research else "",
        source_ids={s.id for s in research.sources} if research else set(),
        cells={c.id: {n: values_cell(c, n) for n in impls} for c in report.claims},
        ordered=sorted(report.claims, key=lambda c: _ORDER.index(c.verdict)),
        contexts={c.id: _context(snapshot_text, c) for c in report.claims},
        charts=charts_by_key, check_key=lambda c, i: f"{c.id}:{i}",
        value_text=value_text, per_query_text=_per_query_text)
