"""The review checklist and the evidence classes of each finding, derived from a finished report.

Pure functions of the report model (no computation of their own), so they can be rebuilt after
book-level findings are added. Recommendations:

* **accept** — a hunk of the upgrade proposal (its text was checked by the harness), or qualitative
  prose kept as not checkable;
* **revise** — the author must write the change (a listing, the register of a stale or failing
  claim, a neighbouring chapter named by a book-level conflict);
* **defer** — an experiment that was not run, a qualification that needs no text change, the audit
  of text past an excerpt;
* **reject** — text offered as a fix that was not checked (a register's free-text rewording) or
  that failed its check.
"""

from __future__ import annotations

import re

from audit.measures.conventions import CONVENTIONS
from audit.model.results import ChapterReport, ChecklistItem, EvidenceItem

#: The register's free-text rewording, which `audit.run.audit` appends to a proposed response (never checked).
FREE_TEXT = re.compile(r"The register also suggests \(free text, not checked by the harness\): “(.*)”\s*$", re.DOTALL)
_URGENCY = {"contradicted": 0, "stale": 1, "error": 1, "qualified": 2}


def register_mistake(response: str) -> bool:
    """Whether an error's response names a register field to fix (``Evidence.register_error``)."""
    return response.startswith("In the register, fix `")


def _urgency(report: ChapterReport, claim_id: str) -> int:
    verdict = next((c.verdict for c in report.claims if c.id == claim_id), "qualified")
    return _URGENCY.get(verdict, 3)


def dependencies(report: ChapterReport) -> None:
    """Fill each hunk's dependencies: the notebook, a neighbouring chapter named by a book-level
    conflict, the bibliography entries to cite, other claims resting on the same convention."""
    research = report.research
    if research is None or research.proposal is None:
        return
    chapter_id = str(report.chapter["id"])
    notebook = report.chapter.get("notebook")
    for h in research.proposal.hunks:
        deps = []
        if notebook and report.notebook is not None and report.notebook.status not in ("unverified", "not run"):
            deps.append(f"the chapter's notebook ({notebook}) runs on every audit: a number of it that a claim names "
                        "(expect[].notebook) is held to the new wording on the next run; name the one that computes "
                        "this sentence's value if none does")
        elif notebook:
            deps.append(f"the chapter's notebook ({notebook}): if it computes what this sentence states, re-run "
                        "it and compare with the new wording (UNRUN)")
        for conflict in report.book_conflicts:
            if f"{chapter_id} {h.claim}" in conflict:
                deps.append(f"neighbouring chapter (book-level conflict): {conflict}")
        titles = {CONVENTIONS[n].title for n in h.conventions}
        cited = [s.id for s in research.sources for link in s.links if link.claim == h.claim and (
            any(t in link.via for t in titles) if titles else True)]
        if cited:
            deps.append("bibliography: cite " + ", ".join(dict.fromkeys(cited)) + (
                f" for the {' and '.join(sorted(titles))}" if titles else "") + " (entries in the source ledger)")
        if h.action == "state a convention":
            axes = {row.claim: {c.axis for c in row.cells if c.outcome == "flips"} for row in research.sensitivity}
            others = sorted({cid for cid, a in axes.items() if cid != h.claim and a & set(h.conventions)})
            if others:
                deps.append("other claims whose value also moves with this convention: " + ", ".join(others)
                            + " (state it once for the chapter rather than per sentence)")
        h.dependencies = list(dict.fromkeys(deps))


def evidence(report: ChapterReport) -> None:
    """Label each finding's evidence with its class (``results.EVIDENCE_CLASSES``)."""
    research = report.research
    for c in report.claims:
        items = []
        if c.verdict in ("supported", "qualified", "contradicted"):
            items.append(EvidenceItem(cls="reproduced locally", text=c.reason))
        if research is not None:
            for row in research.sensitivity:
                if row.claim == c.id:
                    items.append(EvidenceItem(cls="reproduced locally",
                                              text=f"metric-choice sensitivity of {row.statement}: {row.conclusion}"))
            for s in research.sources:
                for link in s.links:
                    if link.claim != c.id:
                        continue
                    cls = "established background" if s.kind == "paper" and link.relation == "supports" \
                        else "reported by a source"
                    items.append(EvidenceItem(cls=cls, cite=s.id, text=f"{link.relation} via {link.via}: {link.how}"))
            for e in research.experiments:
                if c.id in e.claims:
                    items.append(EvidenceItem(cls="proposed experiment", cite=e.id, text=f"{e.what} ({e.status})"))
        if c.verdict in ("qualified", "contradicted"):
            items.append(EvidenceItem(cls="hypothesis", text=f"Concern (what a reader may do; not tested): {c.concern}"))
        c.evidence = items


def checklist(report: ChapterReport) -> list[ChecklistItem]:
    """Every decision, most urgent first, one item per subject."""
    research = report.research
    items: list[ChecklistItem] = []
    proposal = research.proposal if research else None
    hunked = {cid for h in proposal.hunks for cid in h.claims or [h.claim]} if proposal else set()
    if proposal:
        for h in proposal.hunks:
            ids = h.claims or [h.claim]
            items.append(ChecklistItem(
                subject=f"{h.claim}: {h.action} — “{h.text}”", claims=ids, recommendation="accept",
                reason=f"{h.check}. {h.tradeoff}", urgency=min(_urgency(report, cid) for cid in ids)))
        for w in proposal.withdrawn:
            items.append(ChecklistItem(
                subject=f"{w['claim']}: the harness's candidate text", claims=[w["claim"]], recommendation="reject",
                reason=f"its check failed ({w['reason']}); the author must choose the wording, then rerun",
                urgency=_urgency(report, w["claim"])))
        for n in proposal.not_proposed:
            cid = n["claim"]
            claim = next(c for c in report.claims if c.id == cid)
            if claim.verdict == "stale" or (claim.verdict == "error" and register_mistake(claim.response)):
                rec, why = "revise", f"update the register entry: {claim.response}"
            elif claim.verdict == "error":
                rec, why = "defer", f"the check did not complete, through no fault of the register: {claim.response}"
            elif claim.kind == "code":
                rec, why = "revise", f"edit the listing: {claim.response}"
                conflicts = [x for x in report.book_conflicts if f" {cid}" in x]
                if conflicts:
                    why += " Book-level conflict: " + " ".join(conflicts)
            elif claim.verdict == "contradicted":
                rec, why = "revise", (f"the text is wrong here and no text change is checked for it ({n['reason']}): "
                                      f"{claim.response}")
            elif claim.reason.startswith("False as written"):
                rec, why = "revise", (f"the statement is false as written; only a weaker form holds, and no text change "
                                      f"is checked for it ({n['reason']}): {claim.response}")
            else:
                rec, why = "defer", (f"no text change is checked for it ({n['reason']}); decide whether readers "
                                     "need the difference spelled out")
            items.append(ChecklistItem(subject=f"{cid}: {claim.title}", claims=[cid], recommendation=rec,
                                       reason=why, urgency=_urgency(report, cid)))
    for t in report.tensions:
        if not t.claims:   # the chapter states one convention two ways: every claim that rests on it is in doubt
            said = t.settings()
            items.append(ChecklistItem(subject=f"{t.title} is set two ways by the chapter", recommendation="revise",
                                       reason=f"{said}; state the one the chapter means (in the text, and in "
                                              "chapter.yaml's conventions)", urgency=1))
    free: dict[str, list[str]] = {}
    for c in report.claims:
        m = FREE_TEXT.search(c.response)
        if m:
            free.setdefault(m.group(1), []).append(c.id)
    for text, ids in free.items():
        covered = [i for i in ids if i in hunked]
        why = ("free text in the register that the harness did not check"
               + (f"; the checked hunks for {', '.join(covered)} cover the finding" if covered else
                  "; encode and check it before using it"))
        items.append(ChecklistItem(subject=f"{', '.join(ids)}: the register's rewording “{text}”", claims=ids,
                                   recommendation="reject", reason=why,
                                   urgency=min(_urgency(report, i) for i in ids) + 1))
    if research:
        uncovered = [e for e in research.experiments if e.origin.startswith("uncovered")]
        if uncovered:
            items.append(ChecklistItem(
                subject=f"Encode the {len(uncovered)} statement(s) no claim covers ({', '.join(e.id for e in uncovered)})",
                recommendation="defer", reason="UNRUN: each has a register snippet and a command in Experiment "
                "opportunities; until then they are unaudited", urgency=3))
        for e in research.experiments:
            if e.origin.startswith("open condition") or (e.origin.startswith("research gap") and e.status.startswith(
                    "UNRUN")):
                items.append(ChecklistItem(subject=f"{e.id}: {e.what.rstrip('.')}", claims=e.claims,
                                           recommendation="defer",
                                           reason=f"{e.status}: {e.success} would confirm the wording; "
                                                  f"{e.failure}", urgency=3))
    if report.snapshot.get("excerpt"):
        items.append(ChecklistItem(
            subject="Audit the whole chapter, not only the excerpt", recommendation="defer",
            reason="only an excerpt was read: claims past it are unaudited, and the full snapshot at the chapter's "
                   "download URL is UNVERIFIED (not fetched)", urgency=3))
    nc = [c.id for c in report.claims if c.verdict == "not checkable"]
    if nc:
        items.append(ChecklistItem(subject="Keep the qualitative statements as prose: " + ", ".join(nc), claims=nc,
                                   recommendation="accept", reason="they state no measurable value; kept in the "
                                   "register so coverage stays visible", urgency=4))
    seen, unique = set(), []
    for item in sorted(items, key=lambda i: (i.urgency, i.claims[:1], i.subject)):
        key = (item.subject, item.recommendation)
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique
