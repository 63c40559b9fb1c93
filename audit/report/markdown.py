"""Markdown report, shaped after section 9 of the chapter's research brief."""

from __future__ import annotations

import re

from audit.register.conventions import CONVENTIONS
from audit.register.values import display
from audit.report.results import ChapterReport, Check, ClaimResult, ImplValue

CHAPTER = "chapter"
_MARK = {"supported": "✅ supported", "qualified": "⚠️ qualified", "contradicted": "❌ contradicted",
         "stale": "🕸 stale", "error": "💥 error", "pending": "⏳ pending", "not checkable": "— not checkable"}


_TAG_OPEN = re.compile(r"<(?=[A-Za-z/!?])")


def no_raw_html(text: str) -> str:
    """``text`` with every ``<`` that could open raw HTML in Markdown (a tag, comment, declaration
    or processing instruction: ``<`` then a letter, ``/``, ``!`` or ``?``) written as ``&lt;``, so a
    quote or title holding ``<script>`` or ``<img onerror=…>`` is shown, never run. ``< 1`` is kept."""
    return _TAG_OPEN.sub("&lt;", text)


def cell(text: object) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ").strip()


def short(v: ImplValue, check: Check) -> str:
    """One implementation's value for one check, as short as it can be and still exact."""
    if v.status == "not applicable":
        return "n/a"
    if v.status == "error":
        return "error"
    if v.behaviour and v.implementation is not None and "probe" in check.label:
        return ("rejects" if v.status == "rejected" else v.behaviour)
    if v.status == "rejected":
        return "rejects"
    if "left" in v.per_query:
        return f"{v.per_query['left']} → {v.per_query['right']}"
    if "before" in v.per_query and "after" in v.per_query and v.status == "ok":
        return f"{v.per_query['before']} → {v.per_query['after']}"
    if v.exact is not None:
        return display(v.exact)
    return f"{v.value:.4f}" if v.value is not None else "—"


def implementations(report: ChapterReport) -> list[str]:
    return [CHAPTER] + [r.name for r in report.references]


def values_cell(claim: ClaimResult, name: str) -> str:
    """One implementation's values for a claim; labelled by measure when the claim has several checks."""
    parts = []
    for check in claim.checks:
        for v in check.values:
            if v.implementation == name:
                label = check.measure or "exact"
                before, _, after = label.partition(" → ")
                if after and before == after:
                    label = before
                if "left" in v.per_query:
                    label = f"{check.claimed} ({label})"
                if name == CHAPTER and v.behaviour and "probe" not in check.label and "before" not in v.per_query:
                    label = f"{label}, {v.behaviour}"
                parts.append((label, short(v, check)))
    if not parts:
        return "no counterexample" if claim.kind == "property" and claim.verdict == "supported" else ""
    if len({p[1] for p in parts}) == 1 and parts[0][1] in ("n/a", "error"):
        return parts[0][1]
    if len(parts) == 1:
        return parts[0][1]
    applicable = {value for _, value in parts if value != "n/a"}
    if len(applicable) == 1 and any("probe" in c.label for c in claim.checks):
        missing = [label for label, value in parts if value == "n/a"]
        return applicable.pop() + (f" (n/a: {', '.join(missing)})" if missing else "")
    return "; ".join(f"{label}: {value}" for label, value in parts)


def _where(claim: ClaimResult) -> str:
    quote = claim.quote if len(claim.quote) <= 90 else claim.quote[:87] + "…"
    line = f"line {claim.line}" if claim.line else "not found"
    return f"“{quote}” ({line})"


#: The research brief's required sections (section 9), in its order and with its names.
SECTIONS = ("1. Context and provenance", "2. Claim audit", "3. Source ledger", "4. Findings", "5. Upgrade proposal",
            "6. Experiment opportunities", "7. Review checklist")
#: Longest table cell before it is cut, the whole text staying in the finding.
CELL_LIMIT = 220


def clip(text: object, claim_id: str) -> str:
    """A table cell's text, cut at ``CELL_LIMIT`` characters with a pointer to the claim's finding."""
    text = str(text if text is not None else "")
    if len(text) <= CELL_LIMIT:
        return text
    return text[:CELL_LIMIT].rsplit(" ", 1)[0] + f" … (in full under {claim_id} in Findings)"


def anchor(claim_id: str) -> str:
    """The stable anchor of a claim's finding (``#C08``), the same in the Markdown and HTML reports."""
    return claim_id


def render(report: ChapterReport) -> str:
    ch, fp, pv = report.chapter, report.fingerprint, report.provenance
    research = report.research
    names = implementations(report)
    out: list[str] = []
    w = out.append
    where = ", ".join(str(x) for x in (ch.get("book"), f"chapter {ch['chapter']}" if ch.get("chapter") else
                                        ch.get("kind")) if x)
    w(f"# Claim audit: {where}, “{ch['title']}”\n")
    w("Generated by `" + report.tool + "`. Verdicts: supported, qualified, contradicted; "
      "stale, error and not checkable are not verdicts on the claim but on whether it could be checked. "
      "Evidence classes: established background, reported by a source, reproduced locally, hypothesis, "
      "proposed experiment. UNVERIFIED marks what this audit could not check; UNRUN an experiment it did not run.\n")
    counts = ", ".join(f"{n} {v}" for v, n in report.summary.items() if n)
    w(f"**Summary:** {len(report.claims)} claims — {counts}.\n")

    w(f"## {SECTIONS[0]}\n")
    w("| field | value |\n|---|---|")
    rows = [("chapter id", ch["id"]), ("book", ch.get("book") or "—"),
            ("chapter", f"{ch['chapter']} — {ch['title']}" if ch.get("chapter") else ch["title"]),
            ("kind", ch["kind"]), ("chapter URL", ch.get("url") or "—"),
            ("research pack", ch.get("research_pack") or "—")]
    if ch.get("notebook"):
        rows.append(("notebook", f"{ch['notebook']} (UNVERIFIED: not run by this audit)"))
    rows += [("snapshot read", (f"{report.snapshot['file']} ({report.snapshot['lines']} lines, "
                                f"{report.snapshot['characters']} characters)")),
             ("scope", "an excerpt, not the whole chapter — " + str(report.snapshot["source"])
              + " The full snapshot at the chapter's download URL is UNVERIFIED (not fetched)."
              if report.snapshot["excerpt"] else "the whole chapter as supplied"),
             ("recorded fingerprint", (fp.recorded + (" (UNVERIFIED: does not match the text read)"
                                                      if not fp.matches else " (matches)")) if fp.recorded
              else "none recorded"),
             ("computed fingerprint", fp.computed),
             ("fingerprints", fp.statement),
             ("normalisation", fp.normalisation),
             ("date", pv.date), ("command", f"`{pv.command}`"), ("Python", pv.python)]
    rows += [(name, ver) for name, ver in pv.versions.items()]
    for k, v in rows:
        w(f"| {cell(k)} | {cell(v)} |")
    w("")
    w("**Execution limits.** References ran in this process on the claims' fixtures; code listings ran in the "
      "sandbox described in the README; property claims were searched, not proved; nothing was fetched from the "
      "network" + (", so the chapter's notebook was not run" if ch.get("notebook") else "") + ".\n")
    if research and research.unverified:
        w("**Not verified by this audit:**\n")
        for item in research.unverified:
            w(f"- {item}")
        w("")

    w(f"## {SECTIONS[1]}\n")
    w("One row per claim; the id links to its finding. Values: the chapter's definitions in exact arithmetic, "
      "then each reference (n/a: the reference cannot express the measure; see the ledger). Comparisons show "
      "before → after; convention probes show the rule each implementation was observed to follow. A cell longer "
      f"than {CELL_LIMIT} characters is cut; the finding has it whole.\n")
    header = ["id", "where (quote, snapshot line)", "claim", "claimed", *names, "verdict", "concern", "response",
              "priority"]
    w("| " + " | ".join(header) + " |")
    w("|" + "---|" * len(header))
    for c in report.claims:
        row = [f"[{c.id}](#{anchor(c.id)})", _where(c), clip(c.claim, c.id), clip(c.claimed or "—", c.id),
               *[clip(values_cell(c, n) or "—", c.id) for n in names],
               _MARK[c.verdict], clip(c.concern, c.id), clip(c.response, c.id), c.priority]
        w("| " + " | ".join(cell(x) for x in row) + " |")
    w("")

    w(f"## {SECTIONS[2]}\n")
    _source_ledger(report, w)

    w(f"## {SECTIONS[3]}\n")
    if report.tensions:
        w("### Internal tensions\n")
        for t in report.tensions:
            if t.claims:
                needs = "; ".join(f"{st['claim']} (“{st['quote']}”) holds only with **{st['value']}**"
                                  for st in t.statements)
                w(f"- **{t.title}**, which the chapter does not state, is needed two ways by its claims: "
                  f"{cell(needs)}. {cell(t.probe)}: state the one the chapter means.")
                continue
            quotes = "; ".join(f"“{st['quote']}” sets it to **{st['value']}**" for st in t.statements)
            w(f"- **{t.title}** is set two ways by the chapter: {cell(quotes)}. {cell(t.probe)}. Every claim that "
              "depends on it is checked under both values.")
        w("")
    labels = {"contradicted": "Contradicted", "stale": "Unresolved: stale", "error": "Unresolved: error",
              "qualified": "Qualified", "pending": "Unresolved: pending", "supported": "Supported",
              "not checkable": "Not checkable"}
    for verdict in ("contradicted", "stale", "error", "qualified", "pending", "supported", "not checkable"):
        group = [c for c in report.claims if c.verdict == verdict]
        if not group:
            continue
        w(f"### {labels[verdict]} ({len(group)})\n")
        for c in group:
            heading = c.title
            if c.anchor_state == "edited" and c.found_text:
                heading = f"edited in this revision: “{c.found_text if len(c.found_text) <= 90 else c.found_text[:87] + '…'}”"
            w(f'<a id="{anchor(c.id)}"></a>\n')
            w(f"#### {c.id} — {heading}\n")
            w(f"> {c.found_text or c.quote}\n")
            w(f"*Snapshot line {c.line or '—'}; register line {c.register_line or '—'}; kind {c.kind}; "
              f"anchor {c.anchor}.*\n")
            w(f"**Claim.** {c.claim}\n")
            w(f"**Reason.** {c.reason}\n")
            if verdict not in ("supported", "not checkable"):
                w(f"**Concern.** {c.concern}\n")
                w(f"**Proposed response** (priority {c.priority}). {c.response}\n")
            if c.note:
                w(f"**Note.** {c.note}\n")
            if c.evidence:
                w("**Evidence.**\n")
                for e in c.evidence:
                    w(f"- *{e.cls}*" + (f" [{e.cite}]" if e.cite else "") + f": {cell(e.text)}")
                w("")
            for check in c.checks:
                w(_check_table(check))
    if report.book_conflicts:
        w("### Cross-chapter consistency\n")
        w("Conventions one audited chapter states and another chapter's code breaks (the chapter that states "
          "the convention needs no change for it):\n")
        for text in report.book_conflicts:
            w(f"- {text}")
        w("")
    if research:
        _sensitivity(research, w)

    w(f"## {SECTIONS[4]}\n")
    _proposal(report, w)

    w(f"## {SECTIONS[5]}\n")
    sc = report.scan
    if sc:
        uncovered = int(sc["uncovered"])
        listed = "; ".join(f"line {st.line} “{_short(st.text)}”" for st in report.statements if not st.covered_by)
        units = int(sc["units"])
        w(f"The scanner found {int(sc['statements'])} statements in {units} scanned unit{'' if units == 1 else 's'} "
          f"of the prose (sentences, table rows, lines of output: one statement per printed value with its measure "
          f"or expression, per table cell under a measure and per change, plus what else a sentence states; a "
          f"claim covers a value only by quoting and printing it); {uncovered} {'is' if uncovered == 1 else 'are'} "
          f"covered by no claim{': ' + listed if listed else ''}. {scanner_quality()} On this register it finds "
          f"{int(sc['numeric_claims_found'])} of {int(sc['numeric_claims'])} claims whose quote states a number "
          f"({sc['recall']:.0%}).\n")
    for e in (research.experiments if research else []):
        w(f"### {e.id} — {e.origin} · {e.status}\n")
        w(f"**What.** {e.what}\n")
        w("**Method.**\n")
        w("```\n" + e.method + "\n```\n")
        w(f"**Success.** {e.success}. **Failure.** {e.failure}.\n")
    w(f"## {SECTIONS[6]}\n")
    items = research.checklist if research else []
    if not items:
        w("Nothing to decide: every checkable claim is supported.\n")
    for i in items:
        w(f"- [ ] **{i.recommendation}** — {i.subject.rstrip('.')}. {i.reason}")
    w("")
    return no_raw_html("\n".join(out))


def _source_ledger(report: ChapterReport, w) -> None:
    research = report.research
    w("### Bibliography\n")
    if research is None or not research.sources:
        w("No bibliography entry bears on this chapter's claims.\n")
    else:
        w("Entries of the project's bibliography (`audit/research/sources/bibliography.yaml`) that bear on this chapter's "
          "claims, linked through the measures each claim computes and the conventions that change its value. "
          "Each metadata field is verified (against the record named, on the date given) or UNVERIFIED.\n")
        w("| source | identity | verified metadata | URL | reading status | bears on | limitations | verified / "
          "accessed |\n|---|---|---|---|---|---|---|---|")
        for s in research.sources:
            meta = metadata_text(s)
            bears = "; ".join(f"{rel} " + ", ".join(dict.fromkeys(f"[{link.claim}](#{link.claim})" for link in s.links
                                                               if link.relation == rel))
                              for rel in ("supports", "qualifies", "contradicts")
                              if any(link.relation == rel for link in s.links))
            vias = ", ".join(dict.fromkeys(link.via.split(" (")[0] for link in s.links))
            w("| " + " | ".join(cell(x) for x in (
                f"`{s.id}` ({s.kind})", s.identity, meta, s.url or "—", s.reading, f"{bears} (via {vias})",
                s.limits, ", ".join(s.accessed) or "UNVERIFIED: no check recorded")) + " |")
        w("")
        if research.sources_not_bearing:
            w("Not listed (no claim of this chapter uses what they define): "
              + ", ".join(f"`{x}`" for x in research.sources_not_bearing) + ".\n")
    w("### Software\n")
    w("Conventions of each implementation. The chapter's are the ones its text states (with the quote); each "
      "reference's were observed on probe inputs (what it returned, and which convention value reproduces it).\n")
    w("| implementation | library | version | conventions |\n|---|---|---|---|")
    stated = "; ".join(f"**{CONVENTIONS[k].title}**: " + " / ".join(
        f"{st['value']}" + (f" (“{st['quote']}”)" if st.get("quote") else "") for st in v)
        for k, v in report.conventions.items()) or "none stated"
    unstated = ", ".join(CONVENTIONS[n].title for n in report.unstated)
    chapter_conventions = f"stated — {stated}" + (f"; unstated (every value checked) — {unstated}" if unstated else "")
    w(f"| chapter | this project (`audit.evaluation.evaluator`, exact) | {report.tool.split()[-1]} | {cell(chapter_conventions)} |")
    for r in report.references:
        conv = "; ".join([f"**observed** {v}" for v in r.observed.values()] +
                         [f"**{k}**: {v}" for k, v in r.conventions.items()])
        w(f"| {cell(r.name)} | {cell(r.title)} (`{r.library}`) | {cell(r.version)} | {cell(conv)} |")
    w("")


def metadata_text(source) -> str:
    """The source's metadata grouped by check: ``authors, title verified against … (2026-11-30); doi UNVERIFIED``."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for m in source.metadata:
        groups.setdefault((m.status, m.against, m.accessed), []).append(m.field)
    parts = [f"{', '.join(fields)} " + (f"verified against {against} ({accessed})" if status == "verified"
                                         else "UNVERIFIED")
             for (status, against, accessed), fields in groups.items()]
    return "; ".join(parts)


def sensitivity_cells(row, axis: str) -> str:
    """``R@4 1 (flips); RR@4 1 (flips)`` for the metric cells, or the convention cells, of one row."""
    cells = [c for c in row.cells if (c.axis == "metric") == (axis == "metric")]
    return "; ".join(f"{c.alternative}{' (stated)' if c.stated else ''}: {c.value}, "
                     + (f"**{c.outcome}**" if c.outcome != "holds" else "holds") for c in cells) or "—"


def _sensitivity(research, w) -> None:
    w("### Metric-choice sensitivity\n")
    w("*Reproduced locally* (run by this audit, not proposed). Each statement re-evaluated by the chapter's "
      "definitions with each other metric of the chapter's table at the same cutoff (under the chapter's stated "
      "conventions), and with each value of each convention that changes it, one at a time (stated: the "
      "chapter's own choice). holds: the statement as printed stays true; flips: it does not; n/a: the "
      "alternative cannot be computed. Universal claims are searched exhaustively under each alternative on small "
      "rankings (up to length 4, k ≤ 4).\n")
    if not research.sensitivity:
        w("No value, comparison or universal claim to re-evaluate.\n")
        return
    robust = [r for r in research.sensitivity if r.conclusion == "robust"]
    resting = [r for r in research.sensitivity if r.conclusion.startswith("rests")]
    false = [r for r in research.sensitivity if r.conclusion.startswith("false")]
    w(f"{len(robust)} of {len(research.sensitivity)} statements are robust to every convention value; "
      f"{len(resting)} rest on one choice ({', '.join(dict.fromkeys(r.claim for r in resting)) or 'none'}); "
      f"{len(false)} are false under every convention ({', '.join(dict.fromkeys(r.claim for r in false)) or 'none'}).\n")
    w("| claim | statement | other metrics, same cutoff | convention values | conclusion | note |\n"
      "|---|---|---|---|---|---|")
    for r in research.sensitivity:
        w("| " + " | ".join(cell(x) for x in (
            f"[{r.claim}](#{r.claim})", r.statement, sensitivity_cells(r, "metric"), sensitivity_cells(r, "convention"),
            r.conclusion + (f" (deciding: {', '.join(r.deciding)})" if r.deciding else ""), r.note or "")) + " |")
    w("")


def _proposal(report: ChapterReport, w) -> None:
    research = report.research
    proposal = research.proposal if research else None
    if proposal is None or (not proposal.hunks and not proposal.not_proposed and not proposal.withdrawn):
        w("Nothing needs changing: no claim is qualified or contradicted, so no edit to the chapter is proposed.\n")
        return
    if proposal.hunks:
        w(f"{len(proposal.hunks)} change(s), one hunk per finding, as a unified diff against the snapshot in "
          f"`{report.chapter['id']}.patch` beside this report (apply from the project root: `patch -p0 < "
          f"reports/{report.chapter['id']}.patch`, or `git apply -p0`). Every new text below was checked by the "
          "harness before it was written; a text whose check failed is not proposed.\n")
    else:
        w("No checked text change: the findings below need the author's own change.\n")
    for i, h in enumerate(proposal.hunks, 1):
        w(f"### Hunk {i} — [{h.claim}](#{h.claim}): {h.action} (snapshot line {h.line})\n")
        if h.replaced:
            w(f"Replace “{h.replaced}” with “{h.text}”.\n")
        else:
            w(f"Add “{h.text}”.\n")
        w(f"**Rationale.** {h.rationale}\n")
        w(f"**Trade-off.** {h.tradeoff}\n")
        w(f"**Check.** {h.check}.\n")
        if h.dependencies:
            w("**Dependencies.**\n")
            for d in h.dependencies:
                w(f"- {d}")
            w("")
    if proposal.not_proposed:
        w("### Findings without a proposed text\n")
        for n in proposal.not_proposed:
            w(f"- [{n['claim']}](#{n['claim']}): {n['reason']}.")
        w("")
    if proposal.withdrawn:
        w("### Withdrawn (the check of the candidate text failed)\n")
        for n in proposal.withdrawn:
            w(f"- [{n['claim']}](#{n['claim']}): {n['reason']}.")
        w("")


def _case_table(rows: list[list[str]]) -> str:
    if not rows:
        return ""
    lines = ["| " + " | ".join(cell(x) for x in rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(cell(x) for x in r) + " |" for r in rows[1:]]
    return "\n".join(lines) + "\n\n"


def _check_table(check: Check) -> str:
    lines = [f"*{check.label}*" + (f" — claimed {check.claimed}" if check.claimed else "")
             + (f", interval {check.interval}" if check.interval else "")
             + (f"; expected value derived from the claim: {check.derived}" if check.derived else ""), "",
             "| implementation | provider | status | value | per query | agrees / holds | detail |",
             "|---|---|---|---|---|---|---|"]
    if check.table:
        lines.insert(1, "\n" + _case_table(check.table).rstrip("\n") + "\n")
    if not check.values:
        return "\n".join(lines[:2]) + "\n"
    for v in check.values:
        value = display(v.exact) if v.exact else (f"{v.value:.6f}" if v.value is not None else "—")
        if "left" in v.per_query:
            lines.append("| " + " | ".join(cell(x) for x in (
                v.implementation, v.provider or "—", v.status, f"{v.per_query['left']} → {v.per_query['right']}",
                "—", {True: "holds", False: "**breaks**", None: "—"}[v.in_interval], v.detail or "")) + " |")
            continue
        if v.behaviour and "probe" in check.label:
            value = v.behaviour
        if "before" in v.per_query and v.status == "ok":
            value = f"{v.per_query['before']} → {v.per_query['after']} ({v.behaviour})"
            per_query = ""
        elif "before" in v.per_query:
            value, per_query = "—", ""
        else:
            per_query = ", ".join(f"{q}: {x}" for q, x in v.per_query.items())
        agrees = {True: "yes", False: "**no**", None: "—"}[v.in_interval]
        who = v.implementation
        if v.implementation == "chapter" and v.behaviour and "probe" not in check.label and "before" not in v.per_query:
            who = f"chapter ({v.behaviour})"  # one row per reading that gives a distinct value
        lines.append("| " + " | ".join(cell(x) for x in (who, v.provider or "—", v.status, value,
                                                          per_query or "—", agrees, v.detail or "")) + " |")
    return "\n".join(lines) + "\n"


def _short(text: str, limit: int = 100) -> str:
    """A statement on one line, cut at a word after ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def scanner_quality() -> str:
    """The scanner's measured recall and precision (``audit.text.scan.MEASURED``), as a sentence."""
    from audit.text.scan import MEASURED as m
    return (f"Measured on a hand-labelled corpus of {m['statements']} sentences, rows and def lines in {m['texts']} "
            f"chapter texts, the scanner's recall is {m['recall']:.0%} and its precision {m['precision']:.0%}; on the "
            f"text held out while it was written ({m['held_out_statements']} of them), recall "
            f"{m['held_out_recall']:.0%} and precision {m['held_out_precision']:.0%}. A statement it misses is not "
            "counted here.")
