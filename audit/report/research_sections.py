"""The research brief's own sections of the Markdown report (section 9 of the brief): the source ledger with its
software matrix and sensitivity table, the upgrade proposal's hunks, and the experiment opportunities."""

from __future__ import annotations

import re
from typing import NamedTuple

from audit.measures.conventions import CONVENTIONS, title_of
from audit.model.results import ChapterReport, Check
from audit.model.values import display
from audit.report.cells import CHAPTER, LEDGER_LIMIT, _short, anchor, cell, fenced, hunk_anchor, target


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
