"""Markdown report, shaped after section 9 of the chapter's research brief."""

from __future__ import annotations

import re
from typing import NamedTuple

from audit.measures.conventions import CONVENTIONS, title_of
from audit.model.values import display
from audit.model.results import ChapterReport, Check, ClaimResult, ImplValue

CHAPTER = "chapter"
_MARK = {"supported": "✅ supported", "qualified": "⚠️ qualified", "contradicted": "❌ contradicted",
         "stale": "🕸 stale", "error": "💥 error", "pending": "⏳ pending", "not checkable": "— not checkable"}


_TAG_OPEN = re.compile(r"<(?=[A-Za-z/!?])")


def no_raw_html(text: str) -> str:
    """``text`` with every ``<`` that could open raw HTML in Markdown (a tag, comment, declaration
    or processing instruction: ``<`` then a letter, ``/``, ``!`` or ``?``) written as ``&lt;``, so a
    quote or title holding ``<script>`` or ``<img onerror=…>`` is shown, never run. ``< 1`` is kept."""
    return _TAG_OPEN.sub("&lt;", text)


class Html(str):
    """Markup the report writes itself (an anchor), kept as raw HTML; every other piece of a line is passed
    through ``no_raw_html``."""


def target(name: str) -> Html:
    """``<a id="C08"></a>``: the target of ``#C08`` in CommonMark and on GitHub (which prefixes ids with
    ``user-content-`` and still follows ``#C08`` to it). ``name``: a claim id (``register.claims.Id``: letters,
    digits, ``_.-``) or a name made of them, so it needs no escaping."""
    return Html(f'<a id="{name}"></a>')


def _line(parts: tuple) -> str:
    return "".join(p if isinstance(p, Html) else no_raw_html(str(p)) for p in parts)


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
    """``line 5: “The evaluator rejects repeated…”``: the snapshot line and the quote's beginning."""
    line = (claim.place or f"line {claim.line}") if claim.line else "not found"
    return f"{line}: “{_short(claim.quote, 44)}”"


#: The research brief's required sections (section 9), in its order and with its names.
SECTIONS = ("1. Context and provenance", "2. Claim audit", "3. Source ledger", "4. Findings", "5. Upgrade proposal",
            "6. Experiment opportunities", "7. Review checklist")
#: Longest table cell before it is cut, the whole text staying in the finding.
CELL_LIMIT = 160


#: Longest identity or reading status of a bibliography entry in the Markdown ledger (whole in the HTML and JSON).
LEDGER_LIMIT = 100


def clip(text: object, claim_id: str, whole: str = "", limit: int = CELL_LIMIT) -> str:
    """A table cell's text, cut at ``limit`` characters with a pointer to where it is whole (``whole``; by
    default the claim's finding)."""
    text = str(text if text is not None else "")
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + f" … (in full {whole or f'under {claim_id} in Findings'})"


def anchor(claim_id: str) -> str:
    """The stable anchor of a claim's finding (``#C08``), the same in the Markdown and HTML reports."""
    return claim_id


#: The verdicts whose findings the Markdown writes as one line each (their evidence is in the HTML and JSON).
COMPACT = ("supported", "not checkable")
#: The verdicts a chapter's author acts on, most urgent first ("What to change").
TO_ACT = ("contradicted", "stale", "error", "qualified")
_PRIORITY = {p: i for i, p in enumerate(("high", "medium", "low", "none"))}
#: A supported claim's reason in the compact list of Findings is cut at this many characters.
REASON_LIMIT = 100
#: A title ``audit init`` writes: the claim's kind, a colon, the statement (``audit.text.init``).
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


def fenced(code: str) -> "Html":
    """``code`` as a fenced block whose fence is longer than any run of backticks in it, so no line of the code can
    close it (CommonMark 4.5): the code is shown literally, whatever it holds."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    fence = "`" * max(3, longest + 1)
    # inside a code block nothing is HTML (CommonMark 4.5): written as it is, never escaped
    return Html(f"{fence}\n{code}\n{fence}\n")


def hunk_anchor(number: int) -> str:
    """The anchor of the upgrade proposal's hunk ``number`` (1-based): ``hunk-1``, in the Markdown and HTML."""
    return f"hunk-{number}"


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


def _experiments(report: ChapterReport, w) -> None:
    research = report.research
    sc = report.scan
    if sc:
        uncovered = int(sc["uncovered"])
        listed = "; ".join(f"line {st.line} “{_short(st.text)}”" for st in report.statements if not st.covered_by)
        units = int(sc["units"])
        unread = int(sc.get("unread", 0))
        w(f"The scanner found {int(sc['statements'])} statements in {units} scanned unit{'' if units == 1 else 's'} "
          f"of the prose (sentences, table rows, lines of output: one statement per printed value with its measure "
          f"or expression, per table cell under a measure and per change, plus what else a sentence states; a "
          f"claim covers a value only by quoting and printing it)"
          + (f", and {unread} more sentence{'' if unread == 1 else 's'} that it reads as no statement hold"
             f"{'s' if unread == 1 else ''} a number, a comparison or a universal word (marked “unread”; a claim "
             f"covers one by quoting it)" if unread else "")
          + f"; {uncovered} {'is' if uncovered == 1 else 'are'} covered by no claim{': ' + listed if listed else ''}. "
          f"{scanner_quality()}\n")
    exps = research.experiments if research else []
    groups: list[list] = []   # consecutive experiments with the same criteria: the criteria written once
    for e in exps:
        if groups and (groups[-1][0].success, groups[-1][0].failure) == (e.success, e.failure):
            groups[-1].append(e)
        else:
            groups.append([e])
    for group in groups:
        which = f" ({group[0].id}–{group[-1].id})" if len(group) > 1 else ""
        first, last = shared_steps([e.method for e in group])
        if first or last:
            w(f"**Method{which}**, for each: {first} the snippet below{'; then ' + last if last else ''}.\n")
        for e in group:
            w(target(e.id), "\n")
            w(f"### {e.id} — {e.origin} · {e.status}\n")
            w(f"**What.** {e.what}\n")
            body = e.method.split("\n")[bool(first):len(e.method.split("\n")) - bool(last)]
            w("**Method.**\n")
            w("```\n" + "\n".join(body) + "\n```\n")
        w(f"**Success{which}.** {group[0].success}. **Failure.** {group[0].failure}.\n")


def shared_steps(methods: list[str]) -> tuple[str, str]:
    """The first and the last line that every method of a group of two or more shares (``Add to claims.yaml …:``,
    ``… run: audit run claims/x``), each ``""`` when not shared, so the Markdown writes them once."""
    lines = [m.split("\n") for m in methods]
    if len(lines) < 2 or min(len(x) for x in lines) < 3:
        return "", ""
    first = lines[0][0] if all(x[0] == lines[0][0] for x in lines) else ""
    last = lines[0][-1] if all(x[-1] == lines[0][-1] for x in lines) else ""
    return first.rstrip(":"), last


def _source_ledger(report: ChapterReport, w) -> None:
    research = report.research
    html = f"{report.chapter['id']}.html"
    w("### Bibliography\n")
    if research is None or not research.sources:
        w("No bibliography entry bears on this chapter's claims.\n")
    else:
        w("Entries of the project's bibliography (`audit/research/sources/bibliography.yaml`) that bear on this chapter's "
          "claims, linked through the measures each claim computes and the conventions that change its value (claims "
          "an entry qualifies or contradicts are linked). Each metadata field is verified, on the date given, or "
          "UNVERIFIED; the record each was verified against, each entry's limitations, and the whole of a text cut "
          f"here (…) are in the HTML and JSON reports (`{html}#sources`).\n")
        w("| source | identity | URL | reading status | bears on | metadata |\n"
          "|---|---|---|---|---|---|")
        for s in research.sources:
            unread = any(u.startswith(f"source {s.id}: full text UNVERIFIED") for u in research.unverified_sources)
            w("| " + " | ".join(cell(x) for x in (
                f"`{s.id}` ({s.kind})", _short(s.identity, LEDGER_LIMIT), s.url or "—",
                _short(("full text UNVERIFIED — " if unread else "") + s.reading, LEDGER_LIMIT),
                bears_on(s), metadata_short(s))) + " |")
        w("")
        if research.sources_not_bearing:
            w("Not listed (no claim of this chapter uses what they define): "
              + ", ".join(f"`{x}`" for x in research.sources_not_bearing) + ".\n")
    w("### Software\n")
    w("Each implementation's value of each convention: the chapter's as its text states it (with the quote), "
      "each reference's as observed on the probe input named in the last column (the convention value that "
      "reproduces what it returned; the values it returned are in the HTML and JSON reports).\n")
    matrix = software_matrix(report, returned=False)
    w("| convention | " + " | ".join(matrix.names) + " | probe |\n|---|" + "---|" * (len(matrix.names) + 1))
    for row in matrix.rows:
        w("| " + " | ".join(cell(x) for x in (f"**{row[0]}**", *row[1:])) + " |")
    w("")
    for name, what, topics in matrix.notes:
        w(f"- **{cell(name)}** — {cell(what)}" + "".join(f"; **{cell(k)}**: {cell(v)}" for k, v in topics))
    w("")


class SoftwareMatrix(NamedTuple):
    """The software ledger as a table: ``names`` the implementations; ``rows`` [convention, each implementation's
    value, the probe]; ``notes`` (implementation, what it is, [(topic, how it is called)])."""

    names: list[str]
    rows: list[list[str]]
    notes: list[tuple[str, str, list[tuple[str, str]]]]


def observed_parts(sentence: str) -> tuple[str, str]:
    """An observation (``evaluation.observe.Observation.sentence``: ``tie rule: docno descending — observed RR q1
    1.0000 (probe: …)``) as what the reference did and the probe it did it on; the whole sentence and no probe
    when it has another form."""
    head, sep, probe = sentence.partition(" (probe: ")
    body = head.split(": ", 1)[1] if ": " in head else head
    return (body, probe[:-1] if probe.endswith(")") else probe) if sep else (sentence, "")


def software_matrix(report: ChapterReport, returned: bool = True) -> SoftwareMatrix:
    """Conventions by implementation: the chapter's stated ones (the rest named as unstated, checked under every
    value) and each reference's observed ones, one row per convention; each probe written once. ``returned``:
    keep the values each reference returned on the probe (``— observed P@4 q1 0.2500``) beside the rule."""
    names = [CHAPTER] + [r.name for r in report.references]
    keys = list(dict.fromkeys([*report.conventions, *(k for r in report.references for k in r.observed)]))
    rows = []
    for key in keys:
        stated = report.conventions.get(key)
        mine = (" / ".join(st["value"] + (f" (“{st['quote']}”)" if st.get("quote") else "") for st in stated)
                if stated else "unstated (every value checked)")
        probe, theirs = "", []
        for r in report.references:
            if key in r.observed:
                body, seen = observed_parts(r.observed[key])
                probe = probe or seen
                theirs.append(body if returned else body.split("; observed ")[0].split(" — observed ")[0])
            else:
                theirs.append("—")
        title = title_of(key)
        rows.append([title, mine, *theirs, probe or "—"])
    unstated = [n for n in report.unstated if n not in keys]
    notes = [(CHAPTER, f"this project (`audit.evaluation.evaluator`, exact), {report.tool.split()[-1]}",
              [("unstated, every value checked", ", ".join(CONVENTIONS[n].title for n in unstated))] if unstated
              else [])]
    notes += [(r.name, f"{r.title} (`{r.library}` {r.version})", list(r.conventions.items()))
              for r in report.references]
    return SoftwareMatrix(names, rows, notes)


def bears_on(source) -> str:
    """``supports C01, C03; qualifies [C08](#C08) (via measure RR, convention repeated IDs)``: the claims an entry
    bears on, linked where it qualifies or contradicts them."""
    parts = []
    for rel in ("supports", "qualifies", "contradicts"):
        ids = list(dict.fromkeys(link.claim for link in source.links if link.relation == rel))
        if ids:
            parts.append(f"{rel} " + (id_ranges(ids) if rel == "supports" else
                                      ", ".join(f"[{i}](#{anchor(i)})" for i in ids)))
    vias = ", ".join(dict.fromkeys(link.via.split(" (")[0] for link in source.links))
    return "; ".join(parts) + (f" (via {vias})" if vias else "")


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def id_ranges(ids: list[str]) -> str:
    """``C02–C04, C06, C08``: claim ids with runs of three or more consecutive numbers joined."""
    out: list[list[str]] = []
    for i in ids:
        m, last = _NUMBERED.match(i), _NUMBERED.match(out[-1][-1]) if out else None
        if m and last and m.group(1) == last.group(1) and len(m.group(2)) == len(last.group(2)) \
                and int(m.group(2)) == int(last.group(2)) + 1:
            out[-1].append(i)
        else:
            out.append([i])
    return ", ".join(f"{run[0]}–{run[-1]}" if len(run) > 2 else ", ".join(run) for run in out)


def metadata_short(source) -> str:
    """``authors, title verified (2026-11-30); doi UNVERIFIED``: each metadata field's state and date, without the
    record it was checked against (``metadata_text`` names it)."""
    groups: dict[str, list[str]] = {}
    for m in source.metadata:
        groups.setdefault(m.accessed if m.status == "verified" else "", []).append(m.field)
    parts = [f"{', '.join(fields)} verified ({date})" for date, fields in groups.items() if date]
    if groups.get(""):
        parts.append(f"{', '.join(groups[''])} UNVERIFIED")
    if not source.accessed:
        parts.append("UNVERIFIED: no check recorded")
    return "; ".join(parts)


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
    """``R@4: 1, **flips**; RR@4: 1, **flips**`` for the metric cells, or the convention cells, of one row."""
    cells = [c for c in row.cells if (c.axis == "metric") == (axis == "metric")]
    return "; ".join(f"{c.alternative}{' (stated)' if c.stated else ''}: {c.value}, "
                     + (f"**{c.outcome}**" if c.outcome == "flips" else c.outcome) for c in cells) or "—"


def sensitivity_counts(rows) -> str:
    """How many statements each kind of conclusion has, with the claims (``research.sensitivity.conclusion``)."""
    from audit.research.sensitivity import FAILS, FAILS_HERE, HOLDS, RESTS, ROBUST, WEAKER_HOLDS
    kinds = ((("is robust: no alternative flips it", "are robust: no alternative flips them"), (ROBUST,)),
             (("holds under every convention value but not under every other metric",
               "hold under every convention value but not under every other metric"), (HOLDS,)),
             (("rests on one choice: a convention value flips it", "rest on one choice: a convention value flips them"),
              (RESTS,)),
             (("holds only in a weaker form", "hold only in a weaker form"), (WEAKER_HOLDS,)),
             (("does not hold as printed under the chapter's reading",
               "do not hold as printed under the chapter's reading"), (FAILS_HERE, FAILS)))
    parts = []
    for (one, many), prefixes in kinds:
        mine = [r for r in rows if r.conclusion.startswith(prefixes)]
        if mine:
            parts.append(f"{len(mine)} {one if len(mine) == 1 else many} ({_of_claims(mine)})")
    rest = [r for r in rows if r.conclusion == "not applicable"]
    if rest:
        parts.append(f"{len(rest)} not applicable ({_of_claims(rest)})")
    return "; ".join(parts)


def _of_claims(rows) -> str:
    """``C02, C03`` when each statement is its own claim's; ``2 claims: C18, C19`` when the statements (one per
    printed value and change) are fewer claims, so a count of 6 beside one id reads as what it is."""
    ids = list(dict.fromkeys(r.claim for r in rows))
    return ", ".join(ids) if len(ids) == len(rows) else \
        f"{len(ids)} claim{'s' if len(ids) > 1 else ''}: {', '.join(ids)}"


_APPROX = re.compile(r"(\b-?\d+/\d+) \(≈ -?\d+\.\d+\)")


def _exact_only(text: str) -> str:
    """``1/2 (≈ 0.5000)`` as ``1/2``: the fraction is exact, its decimal is for the HTML report's readers."""
    return _APPROX.sub(r"\1", text)


def flipping_cells(row) -> str:
    """The convention values under which a statement does not hold as printed, with what each gives, or ``—``."""
    cells = [c for c in row.cells if c.axis != "metric" and c.outcome == "flips"]
    return "; ".join(f"{c.alternative}: {_exact_only(c.value)}" for c in cells) or "—"


def stated_flips(row) -> list[str] | None:
    """The conventions whose other values flip a statement (``sensitivity.flipping_conventions``), when every one
    of them is a convention the chapter states; None when an unstated one flips it."""
    from audit.research.sensitivity import flipping_conventions
    axes, stated = flipping_conventions(row.cells)
    return axes if axes and all(a in stated for a in axes) else None


def _sensitivity(research, w) -> None:
    w("### Metric-choice sensitivity\n")
    w("*Reproduced locally* (run by this audit, not proposed). Each statement re-evaluated by the chapter's "
      "definitions with each other metric of the chapter's table at the same cutoff (under the chapter's stated "
      "conventions), and with each value of each convention that changes it, one at a time. The conclusion says "
      "whether it holds under the chapter's reading, which convention values flip it (stated: the chapter states "
      "that convention) and under which other metrics it does not hold as printed; the values each alternative gives "
      "are listed where a convention flips it. Statements that hold under every convention value, or that only a "
      "convention the chapter states decides, are counted here with their claims; their rows, and every cell "
      "(holds, flips, n/a), are in the HTML and JSON reports. "
      "Universal claims are searched exhaustively under each alternative on small rankings (up to length 4, k ≤ 4). "
      "A value the text derives but does not print is marked so: no reader sees it, so a convention that flips it "
      "misleads no one.\n")
    if not research.sensitivity:
        w("No value, comparison or universal claim to re-evaluate.\n")
        return
    from audit.research.sensitivity import HOLDS, RESTS, ROBUST
    flipped = [r for r in research.sensitivity if not r.conclusion.startswith((ROBUST, HOLDS, "not applicable"))]
    by_stated: dict[str, list[str]] = {}   # convention title -> claims resting only on the chapter's stated value
    shown = []
    for r in flipped:
        axes = stated_flips(r)
        if r.conclusion.startswith(RESTS) and axes is not None:
            for axis in axes:
                by_stated.setdefault(title_of(axis), []).append(r.claim)
        else:
            shown.append(r)
    w(f"Of {len(research.sensitivity)} statements: {sensitivity_counts(research.sensitivity)}. "
      + ("\n" if flipped else "No convention value flips any of them.\n"))
    if by_stated:
        w(f"{len(flipped) - len(shown)} of those that a convention value flips rest only on conventions the chapter "
          "states, so a reader who follows the text gets the printed value (their rows are in the HTML and JSON "
          "reports); the claims, by convention: "
          + "; ".join(f"{title}: {', '.join(dict.fromkeys(ids))}" for title, ids in by_stated.items()) + ".\n")
    if not shown:
        return
    w(f"The {len(shown)} that an unstated convention value flips, or that do not hold as printed:\n")
    w("| claim | statement | conclusion | convention values that flip it | note |\n|---|---|---|---|---|")
    for r in shown:
        w("| " + " | ".join(cell(x) for x in (
            f"[{r.claim}](#{r.claim})", r.statement, r.conclusion, flipping_cells(r), r.note or "")) + " |")
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
        w(target(hunk_anchor(i)), "\n")
        w(f"### Hunk {i} — [{h.claim}](#{h.claim}): {h.action} (snapshot line {h.snapshot_line or h.line})\n")
        if "\n" in h.replaced or "\n" in h.text:  # lines of code (a corrected listing): literal, in code blocks
            w("Replace these lines:\n")
            w(fenced(h.replaced))
            w("with:\n")
            w(fenced(h.text))
        elif h.replaced:
            w(f"Replace “{h.replaced}” with “{h.text}”.\n")
        else:
            w(f"Add “{h.text}”.\n")
        reason = next((c.reason for c in report.claims if c.id == h.claim), None)
        w("**Rationale.** " + (f"The reason of the finding [{h.claim}](#{anchor(h.claim)})." if h.rationale == reason
                               else h.rationale) + "\n")
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
    """The statement recall measured on the labelled corpus (``audit.text.scan.MEASURED``), as a sentence: it is
    never computed from the register at hand (for a register ``init`` drafted it would be 100 % by construction)."""
    from audit.text.scan import MEASURED as m
    return (f"Statement recall, measured on the labelled corpus (tests/corpus: {m['corpus_statements']} statements "
            f"in {m['corpus_texts']} texts written for it and labelled by hand, not this chapter): the scanner reads "
            f"{m['corpus_recall']:.0%} of them as statements ({m['corpus_held_out_recall']:.0%} of the "
            f"{m['corpus_held_out_statements']} on texts held out while it was written), and with the sentences "
            f"marked “unread” this list names {m['corpus_swept_recall']:.0%}; a statement with none of a number, a "
            f"comparison or a universal word can still be missed, so read the chapter for those.")
