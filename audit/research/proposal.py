"""The upgrade proposal: one checked change to the snapshot per finding, or a plain "nothing needs changing".

Each qualified or contradicted claim whose fix the harness can write *and check* becomes one hunk:

* a value that holds only under some readings → the deciding convention is stated right after the
  quote (``(here nDCG's gain is the grade, linear)``); checked with ``checks.value.verify_statement``:
  with that convention stated, the printed value holds under every remaining reading;
* a value no reading gives, and only one value every reading gives → that value replaces the printed
  one; checked the same way with the new value;
* a universal statement that is false → the strong wording (``always helps``) is replaced by what
  the search supports (``never lowers``, or ``can raise or lower`` when neither direction holds);
  checked by re-running the property search with the new relation;
* a convention rule that a reference does not follow → a sentence naming what each such
  reference does, added after the rule's sentence; checked by re-running the probe on every
  reference with nothing cached.

Anything else (a listing to fix, a stale quote, an error) is listed as not proposed, with the reason.
A hunk whose check fails is withdrawn, never printed as a fix. Hunks are applied in snapshot order,
each to the text the previous ones produced, so two findings on one line are two hunks.
"""

from __future__ import annotations

import re
from fractions import Fraction

from audit.attribution.verdict import decide
from audit.errors import AuditError
from audit.evaluation.checks import CHECKERS
from audit.evaluation.checks.common import Measurements
from audit.evaluation.checks.property import WEAKER
from audit.evaluation.checks.value import (
    chapter_readings,
    declared_with_aggregate,
    verify_statement,
)
from audit.evaluation.readings import REJECTED
from audit.register.claims import Chapter
from audit.register.conventions import CONVENTIONS
from audit.register.values import display, format_exact, parse_claimed
from audit.report.results import ClaimResult, Hunk, Proposal
from audit.research.ledger import _CLAIM_CONVENTION

_ALWAYS = re.compile(r"\balways (helps|improves|raises|increases|boosts|hurts|lowers|reduces|decreases|harms)\b")
_RULE_PHRASES = {
    "keep last": "keeps only the last occurrence of a repeated ID",
    "keep first": "keeps only the first occurrence of a repeated ID",
    "keep first or keep last": "keeps one occurrence of a repeated ID",
    "count each": "counts every occurrence of a repeated ID",
    "reject": "rejects a ranking that repeats an ID",
    "docno descending": "orders tied documents by docno, descending",
    "docno ascending": "orders tied documents by docno, ascending",
    "reference order": "keeps tied documents in the listed order",
    "relevant first": "puts tied relevant documents first",
    "relevant last": "puts tied relevant documents last",
}


class _Skip(Exception):
    """No checked text for this finding; the message says why."""


class _Withdrawn(Exception):
    """A text was written but its check failed: it is not proposed as a fix."""


def _plain_phrase(name: str, value: str) -> str:
    """The convention's phrase for use inside parentheses: a tool named in parentheses is dropped,
    another parenthetical becomes a comma clause."""
    text = CONVENTIONS[name].phrase(value)
    text = re.sub(r"\s*\((?:trec_eval|pytrec_eval|ranx|ir-measures)[^)]*\)", "", text)
    return re.sub(r"\s*\(([^)]*)\)", r", \1", text)


def _locate(result: ClaimResult, lines: list[str]) -> tuple[int, int, int]:
    if not result.line or not result.column or not result.found_text:
        raise _Skip("the quote was not found in the snapshot")
    line = lines[result.line - 1]
    start = result.column - 1
    end = start + len(result.found_text)
    if line[start:end] != result.found_text:
        raise _Skip("the quote was only found after folding quotes and whitespace, so no exact edit can be placed")
    return result.line, start, end


def _sentence_end(line: str, end: int) -> int:
    """The end of the sentence holding position ``end`` (after its full stop), or the line's end."""
    if end > 0 and line[end - 1] in ".!?":
        return end
    m = re.compile(r"[.!?](?=\s|$)").search(line, end)
    return m.end() if m else len(line)


# --- one finding → (action, replaced, text, position, check sentence) --------------------------------

def _value(claim, chapter: Chapter, ms: Measurements, result: ClaimResult):
    named = sorted({e.by for e in claim.expect if e.by is not None})
    if named:
        raise _Skip(f"a sentence about what {' and '.join(named)} returns: its correction is the value the library "
                    "returned, given in the finding's response, not a text the chapter's definitions check")
    if any(e.aggregate == "both" for e in claim.expect) and result.verdict == "qualified":
        raise _Skip("the sentence itself reads two ways (a mean over queries, or a share of all relevant material); "
                    "no convention stated elsewhere settles its wording, so the finding says what to write")
    fixture = chapter.fixture(claim.fixture)
    own = chapter.declared_for(claim)
    extra: dict[str, str] = {}
    corrections: dict[str, str] = {}
    others = []
    for e in claim.expect:
        declared = declared_with_aggregate(own, e.aggregate)
        claimed = parse_claimed(e.claimed, tolerance=e.tolerance)
        readings = chapter_readings(ms, fixture, e.measure, declared, e.query)

        def holds(v, claimed=claimed) -> bool:
            return v is not None and v != REJECTED and claimed.contains(v)

        holding = [o for o in readings.outcomes if holds(o.value)]
        failing = [o for o in readings.outcomes if not holds(o.value)]
        if not failing:
            continue
        if holding:
            names = readings.deciding(holds) or list(holding[0].as_dict)
            for n in names:
                good = [v for v in CONVENTIONS[n].values if any(o.as_dict.get(n) == v for o in holding)]
                preferred = [v for v in own.values(n) if own.stated(n) and v in good]
                extra[n] = (preferred or good)[0]
            others += [o for o in failing]
        else:
            values = list(dict.fromkeys(o.value for o in readings.outcomes if o.value != REJECTED))
            if len(values) != 1 or not isinstance(values[0], Fraction):
                raise _Skip("the readings give several values and none is the printed one; the convention must be "
                            "chosen by the author first")
            printed = str(e.claimed).strip().lstrip("≈~ ").strip()
            decimals = re.search(r"\.(\d+)$", printed)
            new = (f"{float(values[0]):.{len(decimals.group(1))}f}".lstrip("0") if printed.startswith(".") else
                   f"{float(values[0]):.{len(decimals.group(1))}f}") if decimals else display(format_exact(values[0]))
            if not verify_statement(ms, fixture, e.measure, declared, e.query,
                                    parse_claimed(("≈ " if decimals else "") + new, tolerance=e.tolerance), {}):
                raise _Withdrawn(f"the corrected value {new} did not hold under every reading when re-checked")
            corrections[printed] = new
    if corrections:
        return "correct a value", corrections, (
            "re-checked: the new value holds under every reading the chapter allows (checks.value.verify_statement)")
    if not extra:
        raise _Skip("the chapter's definitions give the printed value under every reading; the qualification comes "
                    "from a reference, explained in the finding")
    for e in claim.expect:
        declared = declared_with_aggregate(own, e.aggregate)
        claimed = parse_claimed(e.claimed, tolerance=e.tolerance)
        if not verify_statement(ms, fixture, e.measure, declared, e.query, claimed,
                                {n: v for n, v in extra.items()}):
            raise _Withdrawn("no single convention makes the printed value hold under every remaining reading")
    text = " (here " + "; ".join(_plain_phrase(n, v) for n, v in extra.items()) + ")"
    alternatives = "; ".join(dict.fromkeys(f"{o.label()} gives {_show(o.value)}" for o in others))
    return "state a convention", extra, (
        "re-checked: with " + ", ".join(f"{CONVENTIONS[n].title} {v}" for n, v in extra.items())
        + " stated, the printed value holds under every remaining reading (checks.value.verify_statement)"), \
        text, alternatives


def _show(value) -> str:
    if value == REJECTED:
        return "rejected"
    text = display(format_exact(value))
    return text if "/" not in text else f"{text} (≈ {float(value):.4f})"


def _property(claim, chapter: Chapter, ms: Measurements, result: ClaimResult):
    weaker = WEAKER.get(claim.relation)
    if weaker is None or claim.compare != "next_cutoff":
        raise _Skip("no checked rewording for this kind of universal statement")

    def verdict(relation: str) -> str:
        probe = claim.model_copy(update={"relation": relation})
        return decide(CHECKERS["property"](probe, chapter, ms)).verdict

    if verdict(weaker) == "supported":
        word = "never lowers" if claim.relation == "increases" else "never raises"
        check = f"re-checked: the search for “{claim.measure}@k {weaker}” as k grows found no counterexample"
    else:
        other = "never decreases" if weaker == "never increases" else "never increases"
        if verdict(weaker) != "contradicted" or verdict(other) != "contradicted":
            raise _Withdrawn("the search did not show the measure moving both ways")
        word = "can raise or lower"
        check = (f"re-checked: the search found a case where {claim.measure}@k rises and one where it falls as k grows "
                 f"(both “{weaker}” and “{other}” have counterexamples)")
    return word, check


def _convention(claim, chapter: Chapter, result: ClaimResult, references, book, rechecks=None):
    """The caveat naming what each reference does, from the probe run again on every reference with nothing
    cached; kept in ``rechecks`` (by the claim's key) when every reference answered."""
    if claim.by:
        # a caveat after a false sentence about a library would leave the sentence in place
        raise _Skip(f"a sentence about what {claim.by} does: the finding names the rule {claim.by} was seen to follow "
                    "on the probe; the sentence must say that instead, and no caveat added after it would")
    stored = rechecks.get(claim.id, "convention caveat") if rechecks is not None else None
    if stored is not None and isinstance(stored.get("text"), str) and isinstance(stored.get("check"), str):
        return stored["text"], stored["check"]
    if stored is not None and isinstance(stored.get("withdrawn"), str):
        raise _Withdrawn(stored["withdrawn"])
    try:
        text, check, complete = _convention_caveat(claim, chapter, references, book)
    except _Withdrawn as failed:
        if rechecks is not None and getattr(failed, "complete", False):
            rechecks.put(claim.id, "convention caveat", {"withdrawn": str(failed)})
        raise
    if rechecks is not None and complete:
        rechecks.put(claim.id, "convention caveat", {"text": text, "check": check})
    return text, check


def _convention_caveat(claim, chapter: Chapter, references, book) -> tuple[str, str, bool]:
    """(caveat, check, whether every reference answered without an error)."""
    fresh = Measurements(references, book)
    evidence = CHECKERS["convention"](claim, chapter, fresh)
    differing: dict[str, dict[str, list[str]]] = {}
    for check in evidence.checks:
        for v in check.values:
            if v.implementation != "chapter" and v.in_interval is False and v.behaviour:
                differing.setdefault(v.implementation, {}).setdefault(v.behaviour, []).append(
                    check.measure or "")
    if not differing:
        withdrawn = _Withdrawn("re-running the probe, every reference follows the chapter's rule")
        withdrawn.complete = not evidence.errors
        raise withdrawn
    by_said: dict[str, list[str]] = {}
    for ref, rules in differing.items():
        definite = {r for r in rules if " or " not in r}
        # "keep first or keep last" on one probe and "keep last" on another: the definite rule explains both
        rules = {r: m for r, m in rules.items() if " or " not in r or not definite & set(r.split(" or "))}
        said = []
        for rule, measures in rules.items():
            phrase = _RULE_PHRASES.get(rule, f"follows “{rule}”")
            said.append(phrase + (f" ({', '.join(measures)})" if len(rules) > 1 else ""))
        by_said.setdefault(" and ".join(said), []).append(ref)
    parts = [(f"{' and '.join(refs)} " + re.sub(r"^(\w+)s\b", r"\1", said) if len(refs) > 1 else f"{refs[0]} {said}")
             for said, refs in by_said.items()]
    text = (" Scoring libraries differ here: " + "; ".join(parts)
            + "; check inputs for this before comparing their numbers with this evaluator's.")
    check = ("re-checked: the probe was run again on every reference with nothing cached, and each reference named "
             "follows the rule stated for it")
    return text, check, not evidence.errors


# --- the proposal ---------------------------------------------------------------------------------

def propose(results: list[ClaimResult], chapter: Chapter, ms: Measurements, snapshot_file: str,
            rechecks=None) -> Proposal:
    """Hunks for the findings (qualified or contradicted claims), in snapshot order, each checked.
    ``rechecks``: where re-checks that need the references are kept per claim key (or None)."""
    claims = {c.id: c for c in chapter.register.claims}
    lines = chapter.snapshot.text.split("\n")
    planned = []   # (line, start, end, claim id, action, replaced, new text, check, rationale, tradeoff, conventions)
    proposal = Proposal(file=snapshot_file)
    for r in results:
        if r.verdict not in ("qualified", "contradicted", "stale", "error"):
            continue
        claim = claims[r.id]
        try:
            if r.verdict in ("stale", "error"):
                raise _Skip("the claim could not be checked against this revision; fix the register first")
            line, start, end = _locate(r, lines)
            quote = lines[line - 1][start:end]
            if claim.kind == "value":
                out = _value(claim, chapter, ms, r)
                if out[0] == "correct a value":
                    new_quote = quote
                    for old, new in out[1].items():
                        if new_quote.count(old) != 1:
                            raise _Skip(f"the printed {old} does not appear exactly once in the quote")
                        new_quote = new_quote.replace(old, new)
                    planned.append((line, start, end, r.id, "correct a value", quote, new_quote, out[2],
                                    f"{r.concern} The chapter's definitions give "
                                    + ", ".join(f"{n} where it prints {o}" for o, n in out[1].items()) + ".",
                                    ("None beyond the edit; any later sentence, figure or notebook cell that "
                                     "reuses the old number must change with it."), []))
                else:
                    _, extra, check, text, alternatives = out
                    planned.append((line, end, end, r.id, "state a convention", "", text, check,
                                    f"The printed value rests on a convention the chapter does not state: {r.concern}",
                                    ("Pins the value to one convention; a reader whose tool uses another gets a "
                                     f"different number ({alternatives}), and now knows why."), list(extra)))
            elif claim.kind == "property":
                if WEAKER.get(claim.relation) is None or claim.compare != "next_cutoff":
                    raise _Skip("no checked rewording for this kind of universal statement (only a strict change "
                                "with k has a weaker form to propose); the finding shows the counterexample")
                m = _ALWAYS.search(quote)
                if not m:
                    raise _Skip("the universal wording (“always …”) was not recognised in the quote")
                word, check = _property(claim, chapter, ms, r)
                planned.append((line, start + m.start(), start + m.end(), r.id, "reword", m.group(0), word, check,
                                r.reason,
                                ("The new wording is weaker and less quotable, but it is what holds on every case "
                                 "searched; the counterexample can be shown to readers as an example."), []))
            elif claim.kind == "convention":
                text, check = _convention(claim, chapter, r, ms.references, ms.book, rechecks)
                pos = _sentence_end(lines[line - 1], end)
                planned.append((line, pos, pos, r.id, "add a caveat", "", text, check,
                                r.reason,
                                ("Adds library-specific detail that can date as the libraries change (versions "
                                 "in the provenance); leaving it out leaves readers to discover the difference."),
                                [_CLAIM_CONVENTION.get(claim.convention, claim.convention)]))
            elif claim.kind == "code":
                raise _Skip("a listing fix is code the harness does not write; the finding lists each failing input "
                            "and what to change, and the listing is re-run by `audit run` once edited")
            else:
                raise _Skip(f"no checked text for a {claim.kind} claim")
        except _Skip as skip:
            proposal.not_proposed.append({"claim": r.id, "reason": str(skip)})
        except _Withdrawn as failed:
            proposal.withdrawn.append({"claim": r.id, "reason": str(failed)})
        except AuditError as exc:
            proposal.withdrawn.append({"claim": r.id, "reason": f"the check of the new text failed: {exc.message}"})
    # apply in snapshot order; later hunks on the same line see the earlier ones' text
    current = list(lines)
    shift: dict[int, list[tuple[int, int]]] = {}
    for line, start, end, cid, action, replaced, text, check, rationale, tradeoff, conventions in sorted(
            planned, key=lambda p: (p[0], p[1], p[3])):
        offset = sum(delta for pos, delta in shift.get(line, []) if pos <= start)
        old = current[line - 1]
        a, b = start + offset, end + offset
        new = old[:a] + text + old[b:]
        current[line - 1] = new
        shift.setdefault(line, []).append((start, len(text) - (end - start)))
        proposal.hunks.append(Hunk(claim=cid, line=line, old=old, new=new, action=action, replaced=replaced,
                                   text=text.strip(), rationale=rationale, tradeoff=tradeoff, check=check,
                                   conventions=conventions))
    return proposal


def patched_text(original: str, proposal: Proposal) -> str:
    """The snapshot with every hunk applied (what ``patch -p0`` produces)."""
    lines = original.split("\n")
    for h in proposal.hunks:
        if lines[h.line - 1] != h.old:
            raise AuditError(f"hunk for {h.claim} does not apply at line {h.line}")
        lines[h.line - 1] = h.new
    return "\n".join(lines)
