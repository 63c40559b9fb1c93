"""Experiment opportunities: what should be tested next, how, and what would count as success or failure.

Three origins:

* each **uncovered statement** the scanner found → encode it as a claim: the method is the register
  snippet ``audit init``'s encoder writes for it (a complete claim, or a draft naming what is missing)
  and the command that checks it;
* each **open condition** of a qualified claim (a convention the text leaves open, a reference that
  differs, a listing that fails an edge case) → a test in the chapter's own notebook or code, with
  the values that would tell the readings apart;
* the research brief's **open gaps**: the metric-choice sensitivity (run by this harness: its table
  is in the report) and the comparison of the coverage metric with alternatives (UNRUN unless the
  text defining coverage is in the snapshot).

Every experiment is UNRUN unless the harness ran it.
"""

from __future__ import annotations

import bisect
import re

import yaml

from audit.errors import AuditError
from audit.register.claims import Chapter
from audit.model.limits import MAX_QUOTE_CHARS
from audit.model.results import ClaimResult, Experiment, SensitivityRow
from audit.text import coverage
from audit.text.anchors import line_starts
from audit.text.scan import scan

_COVERAGE_DEFINED = re.compile(r"\bcoverage(@k|\s*@\s*\d+)?\s*(=|is defined as|is the (fraction|share|number))",
                               re.IGNORECASE)


def _snippet(claims: list[dict]) -> str:
    return yaml.safe_dump({"claims": claims}, sort_keys=False, allow_unicode=True, width=100).strip()


def _for(part: coverage.Part, encoded: list[dict]) -> list[dict]:
    """Of the claims the encoder writes for a statement's sentence, those that cover the statement; the sentence's
    draft when none does."""
    unit = part.unit
    covering, drafts = [], []
    for i, claim in enumerate(encoded):
        quote = str(claim.get("quote", "")).strip()
        at = unit.text.find(quote) if quote else -1
        span = (unit.start + at, unit.start + at + len(quote)) if at >= 0 else (unit.start, unit.end)
        if claim.get("kind") == "draft":
            drafts.append(claim)
        elif coverage.covered_by(part, [coverage.use_of({**claim, "id": f"#{i}"}, span)]):
            covering.append(claim)
    return covering or drafts[:1]


#: Uncovered statements given a register snippet each; the others are listed in one experiment, by line (a chapter
#: dense with numbers would otherwise get one experiment, and one YAML snippet, per statement: 40,000 of them for a
#: 1 MB table dump).
MAX_SNIPPETS = 200


def _uncovered(chapter: Chapter, statements) -> list[Experiment]:
    from audit.draft.examples.rank_table import fixture_tables
    from audit.draft.init import encode_statement
    from audit.draft.init import _shortened as shortened
    text = chapter.snapshot.text
    uncovered = [s for s in statements if not s.covered_by]
    if not uncovered:
        return []
    starts = line_starts(text)
    found = {(bisect.bisect_right(starts, p.start), p.text): p
             for u in scan(chapter.snapshot) for p in coverage.statements(u)}
    tables = fixture_tables(text)
    out = []
    folder = chapter.folder.as_posix()
    rest = uncovered[MAX_SNIPPETS:]
    by_sentence: dict[tuple[int, str], list[dict]] = {}  # a sentence is encoded once, whatever it prints
    for s in uncovered[:MAX_SNIPPETS]:
        encoded = []
        part = found.get((s.line, s.text))
        if part is not None:
            unit = (part.unit.start, part.unit.text)
            if unit not in by_sentence:
                try:
                    by_sentence[unit] = encode_statement(part.unit, tables)
                except (AuditError, ValueError, KeyError, TypeError):  # a failure leaves the snippet a draft
                    by_sentence[unit] = []
            encoded = _for(part, [dict(c) for c in by_sentence[unit]])
            # a quote the register could not hold (a sentence of thousands of values) as init drafts it
            encoded = [c if len(str(c.get("quote", ""))) <= MAX_QUOTE_CHARS
                       else shortened(c, part.unit, c["quote"], text)[0] for c in encoded]
        if not encoded and s.kind.startswith("unread"):
            encoded = [{"kind": "draft", "quote": s.text, "statement": s.kind,
                        "claim": "TODO: encode what the sentence states, or make it a `not checkable` claim with "
                                 "its reason"}]
        if not encoded:
            encoded = [{"kind": "draft", "quote": part.quote if part else s.text, "statement": s.text}]
        for i, claim in enumerate(encoded, 1):
            claim = {"id": f"NEW{s.line}_{i}", **{k: v for k, v in claim.items() if k != "id"}}
            encoded[i - 1] = claim
        complete = all(c.get("kind") != "draft" for c in encoded)
        out.append(Experiment(
            id="", origin=f"uncovered statement, {chapter.snapshot.place(s.line) or f'snapshot line {s.line}'}",
            what=(f"Whether the sentence “{s.text}” states something to check: it holds "
                  f"{_reasons(s.kind)}, but the scanner reads it as no statement, so this snippet is a draft."
                  if s.kind.startswith("unread") else
                  f"Whether the statement “{s.text}” holds as printed ({s.kind})"
                  + (f", in “{s.unit}”." if s.unit else ".")),
            method=("Add to claims.yaml (give it the next free id; ids already in the register stay as they are):\n" + _snippet(encoded)
                    + (f"\n{'' if complete else 'complete the draft (its claim field says what is missing), then '}"
                       f"run: audit run {folder}")),
            success="the new claim is supported (the chapter's definitions and every reference give the printed "
                    "value or relation)",
            failure="it is qualified (a convention the text leaves open decides it) or contradicted"))
    if rest:
        lines = sorted({s.line for s in rest})
        out.append(Experiment(
            id="", origin=f"{len(rest):,} more uncovered statements, snapshot lines {lines[0]}–{lines[-1]}",
            what=(f"Whether the {len(rest):,} uncovered statements past the first {MAX_SNIPPETS} hold as printed "
                  f"(on {len(lines):,} lines, from line {lines[0]} to {lines[-1]})."),
            method=(f"Draft their claims with audit init on the chapter text (it writes one per statement, as the "
                    f"{MAX_SNIPPETS} snippets above), move them into claims.yaml, and run: audit run {folder}"),
            success="each new claim is supported",
            failure="a new claim is qualified or contradicted"))
    return out


def _reasons(kind: str) -> str:
    """``unread: number, universal`` → "a number and a universal word"."""
    names = {"number": "a number", "comparison": "a comparison", "universal": "a universal word"}
    parts = [names.get(p.strip(), p.strip()) for p in kind.split(":", 1)[1].split(",")]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _open_conditions(results: list[ClaimResult], chapter: Chapter, rows: list[SensitivityRow],
                     proposal=None) -> list[Experiment]:
    notebook = getattr(chapter.identity, "notebook", None)
    # the notebook's address is in section 1 of the report (chapter.yaml ``notebook``), not repeated per experiment
    where = "the chapter's notebook (chapter.yaml, notebook)" if notebook else "the chapter's own evaluation code " \
        "(no notebook is recorded in chapter.yaml)"
    it = "the notebook" if notebook else "that code"   # the method's name for it
    out = []
    for r in results:
        if r.verdict != "qualified":
            continue
        if r.kind in ("value", "comparison"):
            cells = [c for row in rows if row.claim == r.id for c in row.cells if c.axis != "metric"
                     and c.outcome in ("holds", "flips")]
            deciding = [c for c in cells if any(o.axis == c.axis and o.outcome != c.outcome for o in cells)]
            if not deciding:
                continue
            values = "; ".join(f"{c.alternative} → {c.value} ({c.outcome})" for c in deciding)
            check = r.checks[0] if r.checks else None
            fixture = check.label.split(" on ", 1)[-1] if check else "the claim's fixture"
            out.append(Experiment(
                id="", origin=f"open condition of {r.id}", claims=[r.id],
                what=f"Which convention {where} actually uses for {r.claimed}.",
                method=(f"Run {it} on {fixture} (the input in claims.yaml, claim {r.id}) and read the value it "
                        f"prints; the readings give: {values}."),
                success="it prints the value of the reading the proposed wording states: the chapter, its code and "
                        "the wording agree",
                failure="it prints another reading's value: the text and the code disagree, and the wording must "
                        "state the code's convention instead"))
        elif r.kind == "convention":
            out.append(Experiment(
                id="", origin=f"open condition of {r.id}", claims=[r.id],
                what=f"Whether {where} enforces “{r.claimed}” as the chapter says.",
                method=f"Feed {it} the probe of claim {r.id} in claims.yaml and compare with each implementation's "
                       "value in the finding.",
                success="it follows the chapter's rule (as the chapter's definitions do)",
                failure="it follows a reference's rule instead: the text describes an evaluator the code does not "
                        "implement"))
        elif r.kind == "code":
            rewritten = next((i for i, h in enumerate(proposal.hunks if proposal is not None else [], 1)
                              if h.claim == r.id and h.action == "correct a listing"), None)
            out.append(Experiment(
                id="", origin=f"open condition of {r.id}", claims=[r.id],
                what=f"Whether the edited listing ({r.claimed}) passes the edge cases named in the finding.",
                method=f"Edit the listing in the snapshot as the finding says, then run: audit run "
                       f"{chapter.folder.as_posix()}",
                success=f"{r.id} is supported",
                failure=f"{r.id} stays qualified or becomes contradicted (the finding names the failing input)",
                **({"status": f"RUN by this harness: the corrected listing of hunk {rewritten}, run through the same "
                              f"differential test, is {proposal.hunks[rewritten - 1].check.split(', is ')[-1]}"}
                   if rewritten else {})))
    return out


def _gaps(chapter: Chapter, rows: list[SensitivityRow]) -> list[Experiment]:
    out = [Experiment(
        id="", origin="research gap: sensitivity of the conclusions to the choice of metric",
        what="Whether each value, comparison and universal claim survives the other metrics of the chapter's table "
             "and every value of each convention.",
        method=f"audit run {chapter.folder.as_posix()} (audit.research.sensitivity: the chapter's definitions under each "
               "alternative; property claims searched exhaustively on rankings up to length 4, k ≤ 4)",
        success="a conclusion holds under every convention value (robust)",
        failure="a convention value flips it: the conclusion rests on that choice, which the text must state",
        status=f"RUN by this harness: {len(rows)} statements, table in the metric-choice sensitivity section")]
    text = chapter.snapshot.text
    if re.search(r"\bcoverage\b", text, re.IGNORECASE):
        defined = bool(_COVERAGE_DEFINED.search(text))
        out.append(Experiment(
            id="", origin="research gap: the coverage metric compared with alternatives",
            what="Whether the chapter's coverage metric ranks systems as Recall@k, Judged@k and Success@k do, "
                 "and where it disagrees.",
            method=("Encode the chapter's coverage definition as a measure, then add comparison claims for two "
                    "rankings that differ in coverage, with expect entries for R@k, Judged@k and Success@k, and run "
                    f"audit run {chapter.folder.as_posix()}"),
            success="the table shows which alternatives order the rankings as coverage does, and which reverse them",
            failure="no alternative agrees with coverage on any ranking pair: coverage answers a question none of "
                    "them does, which the chapter should say",
            status="UNRUN" + ("" if defined else ": the text defining the coverage metric is not in the snapshot "
                              "(it lies past the excerpt), so its definition is UNVERIFIED")))
    return out


def experiments(results: list[ClaimResult], chapter: Chapter, statements, rows: list[SensitivityRow],
                proposal=None) -> list[Experiment]:
    """Every experiment, numbered E1, E2, … in the order: open conditions, uncovered statements, gaps; an open
    condition the proposal's checked hunk settles (a corrected listing) is marked as run by the harness."""
    out = _open_conditions(results, chapter, rows, proposal) + _uncovered(chapter, statements) + _gaps(chapter, rows)
    for i, e in enumerate(out, 1):
        e.id = f"E{i}"
    return out
