"""Markdown report, shaped after section 9 of the chapter's research brief."""

from __future__ import annotations

import re

from audit.model.results import ChapterReport, ClaimResult
from audit.report.cells import CHAPTER, CELL_LIMIT, SECTIONS, _line, _short, anchor, cell, clip, hunk_anchor, short, target
from audit.report.research_sections import _check_table, _experiments, _proposal, _sensitivity, _source_ledger, id_ranges

_MARK = {"supported": "✅ supported", "qualified": "⚠️ qualified", "contradicted": "❌ contradicted",
         "stale": "🕸 stale", "error": "💥 error", "pending": "⏳ pending", "not checkable": "— not checkable"}


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
    """``line 5: “The evaluator rejects repeated…”``: the snapshot line and the quote's beginning."""
    line = (claim.place or f"line {claim.line}") if claim.line else "not found"
    return f"{line}: “{_short(claim.quote, 44)}”"


#: The verdicts whose findings the Markdown writes as one line each (their evidence is in the HTML and JSON).
COMPACT = ("supported", "not checkable")
#: The verdicts a chapter's author acts on, most urgent first ("What to change").
TO_ACT = ("contradicted", "stale", "error", "qualified")
_PRIORITY = {p: i for i, p in enumerate(("high", "medium", "low", "none"))}
#: A supported claim's reason in the compact list of Findings is cut at this many characters.
REASON_LIMIT = 100
#: A title ``audit init`` writes: the claim's kind, a colon, the statement (``audit.draft.init``).
_INIT_TITLE = re.compile(r"^(arithmetic|value|comparison|property|code|convention|draft|not checkable): ")
_MEASURE_NAME = re.compile(r"[A-Za-z]+(\([^)]*\))?@[\w+]+")


def to_act(report: ChapterReport) -> list[ClaimResult]:
    """The claims whose verdict asks the author to act (``TO_ACT``): by verdict, then priority, then claim order."""
    return sorted((c for c in report.claims if c.verdict in TO_ACT),
                  key=lambda c: (TO_ACT.index(c.verdict), _PRIORITY.get(c.priority, 9)))


def fix_text(claim: ClaimResult) -> str:
    """The claim's proposed response as the finding gives it, less the register's free-text rewording, which the
    harness did not check (the finding and the review checklist show that)."""
    from audit.research.checklist import FREE_TEXT
    return FREE_TEXT.sub("", claim.response).strip()


def hunk_numbers(report: ChapterReport) -> dict[str, list[int]]:
    """claim id → the numbers of its hunks in the upgrade proposal (``#hunk-1``)."""
    proposal = report.research.proposal if report.research else None
    out: dict[str, list[int]] = {}
    for i, h in enumerate(proposal.hunks if proposal else [], 1):
        for cid in h.claims or [h.claim]:
            out.setdefault(cid, []).append(i)
    return out


def _stale(text: str, claim: ClaimResult) -> bool:
    """Whether ``text`` prints a number (measure names aside: the 4 of ``P@4``) that is printed neither in the passage
    read now nor in the claimed value."""
    from audit.text.scan import printed_values
    current = set(printed_values(claim.found_text or claim.quote)) | set(printed_values(claim.claimed or ""))
    return any(n not in current for n in printed_values(_MEASURE_NAME.sub(" ", text)))


def _by_init(claim: ClaimResult) -> re.Match | None:
    return _INIT_TITLE.match(claim.title)


def shown_title(claim: ClaimResult) -> str:
    """The claim's title as a report shows it. A title ``audit init`` wrote (``value: P@4 = 1/3 …``) copies the
    numbers the sentence printed then; when one of them is printed neither in the passage read now nor in the
    claimed value, the title shows the claimed value instead (``value: P@4 = 1/4``), never a stale number beside a
    verdict on another one. An edited passage is shown as it now reads."""
    if claim.anchor_state == "edited" and claim.found_text:
        return f"edited in this revision: “{_short(claim.found_text, 90)}”"
    m = _by_init(claim)
    if not m or not _stale(claim.title[m.end():], claim):
        return claim.title
    if claim.claimed:
        return f"{claim.kind}: {claim.claimed}"
    return f"{claim.kind}: “{_short(claim.found_text or claim.quote, 70)}”"


def shown_claim(claim: ClaimResult) -> str:
    """The claim's statement as a report shows it: the one ``audit init`` wrote (its title repeats it) follows the
    same rule as its title (``shown_title``); the claimed value stands in for a stale one."""
    m = _by_init(claim)
    if not m or not claim.claim.startswith(claim.title[m.end():].rstrip("…")) or not _stale(claim.claim, claim):
        return claim.claim
    return claim.claimed or f"“{claim.found_text or claim.quote}”"


def render(report: ChapterReport) -> str:
    from audit.report.shown import for_markdown
    report = for_markdown(report)  # every string from the book made literal before any line is written
    ch = report.chapter
    out: list[str] = []

    def w(*parts) -> None:
        out.append(_line(parts))

    where = ", ".join(str(x) for x in (ch.get("book"), f"chapter {ch['chapter']}" if ch.get("chapter") else
                                        ch.get("kind")) if x)
    w(f"# Claim audit: {where}, “{ch['title']}”\n")
    w("Generated by `" + report.tool + "`. Verdicts: supported, qualified, contradicted; "
      "stale, error and not checkable are not verdicts on the claim but on whether it could be checked. "
      "Evidence classes: established background, reported by a source, reproduced locally, hypothesis, "
      "proposed experiment. UNVERIFIED marks what this audit could not check; UNRUN an experiment it did not run.\n")
    counts = ", ".join(f"{n} {v}" for v, n in report.summary.items() if n)
    w(f"**Summary:** {len(report.claims)} claims — {counts}.\n")
    _what_to_change(report, w)
    _revised(report, w)

    w(f"## {SECTIONS[0]}\n")
    _context(report, w)
    w(f"## {SECTIONS[1]}\n")
    _claim_table(report, w)
    w(f"## {SECTIONS[2]}\n")
    _source_ledger(report, w)
    w(f"## {SECTIONS[3]}\n")
    _findings(report, w)
    w(f"## {SECTIONS[4]}\n")
    _proposal(report, w)
    w(f"## {SECTIONS[5]}\n")
    _experiments(report, w)
    w(f"## {SECTIONS[6]}\n")
    research = report.research
    items = research.checklist if research else []
    if not items:
        w("Nothing to decide: every checkable claim is supported.\n")
    hunks = {}
    for n, h in enumerate(research.proposal.hunks if research and research.proposal else [], 1):
        hunks[(f"{h.claim}: {h.action} — “{h.text}”", f"{h.check}. {h.tradeoff}")] = (n, h)
    for i in items:
        found = hunks.get((i.subject, i.reason)) if i.recommendation == "accept" else None
        if found:  # a checked hunk: its text, check and trade-off are in the upgrade proposal
            n, h = found
            w(f"- [ ] **accept** — [hunk {n}](#{hunk_anchor(n)}) for {h.claim} ({h.action}); its text, check and "
              "trade-off are in the upgrade proposal.")
            continue
        w(f"- [ ] **{i.recommendation}** — {i.subject.rstrip('.')}. {i.reason}")
    w("")
    return "\n".join(out)


def _what_to_change(report: ChapterReport, w) -> None:
    """The claims to act on, each with its verdict, the finding's proposed response and a link to the finding."""
    acts = to_act(report)
    tensions = stated_tensions(report)
    notebook = notebook_acts(report)
    if not acts and not tensions and not notebook:
        w("**What to change:** nothing — no claim is contradicted, qualified, stale or in error.\n")
        return
    hunks = hunk_numbers(report)
    also = f" and {len(tensions)} convention{'' if len(tensions) == 1 else 's'} the chapter sets two ways" \
        if tensions else ""
    w(f"**What to change** — {len(acts)} claim{'' if len(acts) == 1 else 's'} to act on{also}, most urgent first. Each "
      "fix is the proposed response of the claim's finding (section 4); a hunk is its checked text in the patch "
      "(section 5).\n")
    for c in acts:
        patch = ", ".join(f"[hunk {n}](#{hunk_anchor(n)})" for n in hunks.get(c.id, []))
        w(f"- {_MARK[c.verdict]} · {c.priority} — [{c.id}](#{anchor(c.id)}) {cell(shown_title(c))}: "
          f"{cell(fix_text(c))}" + (f" Patch: {patch}." if patch else ""))
    for t in tensions:
        w(f"- ⚠️ tension — [{cell(t.title)} is set two ways](#tensions): {cell(t.settings('**'))}. "
          f"{TENSION_FIX}")
    for text in notebook:
        w(f"- 📓 notebook — [{cell(report.notebook.path)}](#notebook): {cell(text)}")
    w("")


def _revised(report: ChapterReport, w) -> None:
    """The claims derived again from a sentence edited since ``audit init`` derived them, each with the sentence it
    was derived from, the sentence as now printed, the fields derived again and those written by hand (kept)."""
    revised = [c for c in report.claims if c.revision is not None]
    if not revised:
        return
    w(f"**Derived again from edited sentences** — {len(revised)} claim{'' if len(revised) == 1 else 's'} whose "
      "sentence changed since `audit init` derived it; each was checked as derived from the sentence as now printed, "
      "or is stale — never held to the old one.\n")
    for c in revised:
        r = c.revision
        parts = [f"now “{cell(_short(r.now.strip(), 160))}”, was “{cell(_short(r.sentence.strip(), 160))}”" if r.now
                 else f"was “{cell(_short(r.sentence.strip(), 160))}”, not printed now",
                 ]
        if r.now:
            parts.append("re-derived: " + (", ".join(r.rederived) if r.rederived else "nothing init wrote changed"))
        if r.hand_written:
            parts.append("written by hand, kept: " + ", ".join(r.hand_written))
        if r.stale:
            parts.append("STALE: " + cell("; ".join(r.stale)))
        w(f"- [{c.id}](#{anchor(c.id)}) ({c.verdict}): " + "; ".join(parts) + ".")
    w("")


def _literal(text: str) -> str:
    """Text that carries what the notebook printed (its error, an output line) made literal for Markdown, as a
    listing's text is (``sandbox.quote``): no link, image, HTML or emphasis can come from a notebook."""
    from audit.evaluation.sandbox.quote import clean, markdown_literal
    return markdown_literal(clean(text, 2000))


def notebook_acts(report: ChapterReport, literal=_literal) -> list[str]:
    """What to change about the chapter's notebook: how its run stopped, and each number of it a claim names that
    its chapter contradicts (both fail ``--fail-on notebook``). ``literal``: how the notebook's own text is made
    safe (Markdown by default; the HTML report escapes it itself)."""
    nb = report.notebook
    if nb is None or not nb.failing:
        return []
    out = []
    if nb.status not in ("ran", "unverified", "not run"):
        out.append(f"it does not run through: {literal(nb.summary)}. Fix "
                   + (f"cell {nb.cell}" if nb.cell else "the notebook") + " and rerun the audit.")
    out += [f"{literal(f.text)}." for f in nb.findings if f.fix != "sentence"]
    if nb.stale:
        out.append(f"its committed outputs are stale in {len(nb.stale)} cell(s) (listed under the notebook's run): "
                   "execute it and save it with its outputs.")
    return out


def notebook_lines(report: ChapterReport) -> list[str]:
    """The notebook section's paragraphs and lists (Markdown), each a block: its run, what it ran under, the numbers
    claims name, the committed outputs it no longer prints, and the numbers it shows."""
    nb = report.notebook
    if nb is None or nb.status == "unverified":  # a URL: the context table and the UNVERIFIED list say so
        return []
    out = [f"**Notebook** `{nb.path}`: {_literal(nb.summary)}."]
    if nb.isolation:
        out.append(f"Ran in {nb.isolation}.")
    held = [f"- ❌ {_literal(f.text)}" for f in nb.findings] + [f"- ✅ {_literal(a)}" for a in nb.agreements]
    if held:
        out.append("Numbers the claims name as evidence:\n\n" + "\n".join(held))
    if nb.stale:
        out.append(f"Stale committed outputs, which differ from the re-executed ones ({len(nb.stale)}):\n\n"
                   + "\n".join(f"- {_literal(line)}" for line in nb.stale))
    if nb.numbers:
        shown = ", ".join(f"cell {n.cell}: {_literal(n.label) + ' = ' if n.label else ''}{_literal(n.value)}"
                          for n in nb.numbers[:40])
        more = f" (and {len(nb.numbers) - 40} more)" if len(nb.numbers) > 40 else ""
        out.append(f"Numbers its outputs show ({len(nb.numbers)}): {shown}{more}.")
    return out


#: What the author does about a convention the chapter sets two ways (What to change, in both reports).
TENSION_FIX = "State the one the chapter means, in the text and in chapter.yaml's conventions."


def stated_tensions(report: ChapterReport) -> list:
    """The conventions the chapter's text sets to two values (not those two claims need differently)."""
    return [t for t in report.tensions if not t.claims]


def _context(report: ChapterReport, w) -> None:
    ch, fp, pv = report.chapter, report.fingerprint, report.provenance
    research = report.research
    w("| field | value |\n|---|---|")
    rows = [("chapter id", ch["id"]), ("book", ch.get("book") or "—"),
            ("chapter", f"{ch['chapter']} — {ch['title']}" if ch.get("chapter") else ch["title"]),
            ("kind", ch["kind"]), ("chapter URL", ch.get("url") or "—"),
            ("research pack", ch.get("research_pack") or "—")]
    if report.notebook is not None:
        rows.append(("notebook", f"{report.notebook.path}: {_literal(report.notebook.summary)}"))
    elif ch.get("notebook"):
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
      "sandbox described in docs/sandbox.md; property claims were searched, not proved; nothing was fetched from the "
      "network" + (", so the chapter's notebook was not run" if report.notebook is not None and
                   report.notebook.status == "unverified" else "; the chapter's notebook ran in the notebook sandbox"
                   if report.notebook is not None and report.notebook.status != "not run" else "") + ".\n")
    lines = notebook_lines(report)
    if lines:
        w(target("notebook"))
        for block in lines:
            w(block + "\n")
    mine = chapter_unverified(report)
    if mine:
        w("**Not verified about the chapter:**\n")
        for item in mine:
            w(f"- {item}")
        w("")
    if research and research.unverified_sources:
        w(f"What is UNVERIFIED about the bibliography entries ({len(research.unverified_sources)} items) is listed "
          "in the source ledger (section 3).\n")


def chapter_unverified(report: ChapterReport) -> list[str]:
    """The UNVERIFIED items about the chapter itself: ``research.unverified`` less those about bibliography
    entries (``research.unverified_sources``, shown in the source ledger)."""
    research = report.research
    if research is None:
        return []
    sources = set(research.unverified_sources)
    return [u for u in research.unverified if u not in sources]


def _claim_table(report: ChapterReport, w) -> None:
    names = implementations(report)
    w("One row per claim; the id links to its finding, or for a supported claim with nothing to do (this row is "
      "its finding) to its full evidence in the HTML report. Concern and response are left blank (—) where there is "
      "nothing to do. Values: the chapter's definitions in exact arithmetic, "
      "then each reference (n/a: the reference cannot express the measure; see the ledger). Comparisons show "
      "before → after; convention probes show the rule each implementation was observed to follow. A cell longer "
      f"than {CELL_LIMIT} characters is cut; the finding has it whole.\n")
    header = ["id", "where (quote, snapshot line)", "claim", "claimed", *names, "verdict", "concern", "response",
              "priority"]
    w("| " + " | ".join(header) + " |")
    w("|" + "---|" * len(header))
    html = f"{report.chapter['id']}.html"
    for c in report.claims:
        # a supported or not checkable claim's finding is one line here: its whole texts are in the HTML report
        whole = f"in the HTML report, {html}#{anchor(c.id)}" if c.verdict in COMPACT else ""
        in_row = settled(c)
        row = [f"[{c.id}]({html}#{anchor(c.id)})" if in_row else f"[{c.id}](#{anchor(c.id)})", _where(c), clip(shown_claim(c), c.id, whole),
               clip(c.claimed or "—", c.id, whole),
               *[clip(values_cell(c, n) or "—", c.id, whole) for n in names],
               _MARK[c.verdict], *((clip(c.concern, c.id, whole), clip(c.response, c.id, whole))
                                   if c.priority != "none" else ("—", "—")), c.priority]
        w("| ", *((target(anchor(c.id)),) if in_row else ()), " | ".join(cell(x) for x in row) + " |")
    w("")


def settled(c: ClaimResult) -> bool:
    """A supported claim that asks for nothing: its row in the claim table is its whole finding in the Markdown
    (the anchor ``#C01`` is on that row; its checks, values and sources are in the HTML and JSON reports)."""
    return c.verdict == "supported" and c.priority == "none"


#: The headings of Findings, by verdict, in their order.
_GROUPS = {"contradicted": "Contradicted", "stale": "Unresolved: stale", "error": "Unresolved: error",
           "qualified": "Qualified", "pending": "Unresolved: pending", "supported": "Supported",
           "not checkable": "Not checkable"}


def _findings(report: ChapterReport, w) -> None:
    research = report.research
    if report.tensions:
        w(target("tensions"), "\n")
        w("### Internal tensions\n")
        for t in report.tensions:
            if t.claims:
                needs = "; ".join(f"{st['claim']} (“{st['quote']}”) holds only with **{st['value']}**"
                                  for st in t.statements)
                w(f"- **{t.title}**, which the chapter does not state, is needed two ways by its claims: "
                  f"{cell(needs)}. {cell(t.probe)}: state the one the chapter means.")
                continue
            quotes = t.settings("**")
            w(f"- **{t.title}** is set two ways by the chapter: {cell(quotes)}. {cell(t.probe)}. Every claim that "
              "depends on it is checked under both values.")
        w("")
    html = f"{report.chapter['id']}.html"
    for verdict, label in _GROUPS.items():
        group = [c for c in report.claims if c.verdict == verdict]
        if not group:
            continue
        w(f"### {label} ({len(group)})\n")
        if verdict == "supported":
            rows = [c.id for c in group if settled(c)]
            if rows:
                w(f"{id_ranges(rows)}: each is one row of the claim table (section 2), where its id links to its "
                  f"full evidence (its checks, values and sources) in the HTML report (`{html}`), which the JSON "
                  "report also holds.\n")
            group = [c for c in group if not settled(c)]
            if group:
                w(f"Asking for a change (the reason is cut at {REASON_LIMIT} characters):\n")
        if verdict in COMPACT:
            for c in group:
                _compact(c, html, w)
            w("")
            continue
        for c in group:
            _finding(c, w)
    if report.book_conflicts:
        w("### Cross-chapter consistency\n")
        w("Conventions one audited chapter states and another chapter's code breaks (the chapter that states "
          "the convention needs no change for it):\n")
        for text in report.book_conflicts:
            w(f"- {text}")
        w("")
    if research:
        _sensitivity(research, w)


def _compact(c: ClaimResult, html: str, w) -> None:
    """One line for a supported or not checkable claim: anchor, id, title, reason (cut), and the response when it
    asks for something (an edited passage: update the register's quote)."""
    ask = f" **{c.response}**" if c.priority != "none" and c.response else ""
    reason = _short(c.reason, REASON_LIMIT) if c.verdict == "supported" else c.reason
    link = f"[{c.id}]({html}#{anchor(c.id)})" if c.verdict == "supported" else f"**{c.id}**"
    w("- ", target(anchor(c.id)), f"{link} {cell(shown_title(c))} — {cell(reason)}{cell(ask)}")


def _finding(c: ClaimResult, w) -> None:
    """A finding in full: quote, where, claim, reason, concern, response, note, evidence and check tables."""
    w(target(anchor(c.id)), "\n")
    w(f"#### {c.id} — {shown_title(c)}\n")
    w(f"> {c.found_text or c.quote}\n")
    w(f"*Snapshot line {c.line or '—'}; register line {c.register_line or '—'}; kind {c.kind}; "
      f"anchor {c.anchor}" + (f"; printed in the book at {c.page}" if c.page else "") + ".*\n")
    w(f"**Claim.** {shown_claim(c)}\n")
    w(f"**Reason.** {c.reason}\n")
    w(f"**Concern.** {c.concern}\n")
    w(f"**Proposed response** (priority {c.priority}). {c.response}\n")
    if c.note:
        w(f"**Note.** {c.note}\n")
    if c.evidence:
        w("**Evidence.**\n")
        for cls, cites, text in evidence_lines(c):
            w(f"- *{cls}*" + (f" [{cites}]" if cites else "") + f": {cell(_evidence_text(text, c))}")
        w("")
    for check in c.checks:
        w(_check_table(check))


_VIA_REFERENCE = re.compile(r"^((?:supports|qualifies|contradicts) via reference \S+) \(([^)]*)\): (.+)$")


def evidence_lines(c: ClaimResult) -> list[tuple[str, str, str]]:
    """A claim's evidence as (class, citations, text) lines, in order; the sources of one class that bear on the
    claim through the same reference with the same result share a line, each with the measures and conventions it
    covers: ``[trec-eval (P, AP, RR); pytrec-eval-terrier (P, AP)]: supports via reference pytrec_eval: …``."""
    lines: list[tuple[str, list[str], str]] = []
    merged: dict[tuple[str, str, str], int] = {}
    for e in c.evidence:
        m = _VIA_REFERENCE.match(e.text) if e.cite else None
        if m is None:
            lines.append((e.cls, [e.cite] if e.cite else [], e.text))
            continue
        key = (e.cls, m.group(1), m.group(3))
        if key not in merged:
            merged[key] = len(lines)
            lines.append((e.cls, [], f"{m.group(1)}: {m.group(3)}"))
        lines[merged[key]][1].append(f"{e.cite} ({m.group(2)})")
    return [(cls, "; ".join(cites), text) for cls, cites, text in lines]


def _evidence_text(text: str, c: ClaimResult) -> str:
    """An evidence item's text, or a pointer to the reason or concern above when it repeats one word for word."""
    if text == c.reason:
        return "the reason above"
    if text.endswith(c.concern) and text.startswith("Concern"):
        return "the concern above (what a reader may do; not tested)"
    return text


