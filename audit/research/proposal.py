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
A hunk whose check fails is withdrawn, never printed as a fix. The findings' changes to one sentence (every claim
quoting it) are composed into one hunk: each change made once, words added at one place joined, and the new sentence
re-checked with every claim quoting it (``_compose``); changes that need different words in one place, a new text
that would change the chapter's Markdown structure (parsed before and after), or a failed joint re-check withdraw
the sentence's hunk. Words are never added inside a display formula, a code block, a table (but a row's label) or a
doctest. Hunks are applied in snapshot order, each to the text the previous ones produced.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction

from audit.attribution.verdict import decide
from audit.errors import AuditError
from audit.evaluation.checks import CHECKERS
from audit.evaluation.checks.common import Measurements
from audit.evaluation.checks.counterexamples import WEAKER
from audit.evaluation.checks.value import (
    chapter_readings,
    sentence_declared,
    verify_statement,
)
from audit.evaluation.readings import REJECTED
from audit.register.claims import Chapter
from audit.measures.conventions import CONVENTIONS, join_alike
from audit.model.values import display, format_exact, parse_claimed, rounded_decimals
from audit.text.scan import printed_correction
from audit.register.claims import canonical_rule
from audit.register.options import reference_name
from audit.evaluation.checks.arithmetic import correction as arithmetic_correction
from audit.evaluation.checks.arithmetic import recount
from audit.text.encode_arithmetic import (
    breaks_arithmetic,
    breaks_replacing,
    divisor_correction,
    normal_expression,
    printed_expressions,
)
from audit.model.results import ClaimResult, Hunk, Proposal
from audit.research.ledger import _CLAIM_CONVENTION
from audit.research.register_edit import Edit, RegisterEditError, set_field
from audit.text.anchors import edited_claim, line_starts
from audit.text.markdown import block_end, changed_structure, closed_spans
from audit.research.register_edit import apply as apply_edits
from audit.research.sentence_words import at_stake

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


#: Why a value printed in a code block gets no hunk: the block shows what a program printed.
PROGRAM_OUTPUT = ("the value is printed in a code block, as a program's output: a corrected number there would show "
                  "an output the program does not print. If the program does print it, the definition the value is "
                  "held to is not the program's: correct the sentence that states the convention, or the code; the "
                  "finding gives the value under each reading")


#: What a finding on a program's printed output asks of the author (instead of a new output line).
_OUTPUT_RESPONSE = ("Leave the printed output as the program prints it; if the program does print it, correct the "
                    "sentence that states the definition it is held to, or the code.")
#: The same for a printed line whose own arithmetic is false (``query #2 = 1/1 = 1.5``): no definition is involved.
_OUTPUT_ARITHMETIC = ("The program's printed line is false on its own terms: correct the code that prints it (the "
                      "listing before the output), then print its output again; never edit the output by hand.")


def _authors_comment(snapshot: str, start: int) -> bool:
    """Whether the quote at ``start`` lies in a code comment the author wrote (``ndcg(r, k=4)  # → 0.78514``), which a
    hunk may correct like prose, rather than in a program's output or a result pasted as a comment
    (``# {AP: 0.75}``), which the program prints."""
    from audit.text.scan import COMMENT_RESULT
    line_start = snapshot.rfind("\n", 0, start) + 1
    line_end = snapshot.find("\n", start)
    line = snapshot[line_start:len(snapshot) if line_end < 0 else line_end]
    comment = re.search(r"(?:^|\s)#\s", line)
    return comment is not None and comment.end() <= start - line_start and not COMMENT_RESULT.match(line)


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


def _locate(result: ClaimResult, text: str, starts: list[int]) -> tuple[int, int]:
    """Where the quote is in the snapshot ``text`` (``starts``: each line's offset), as offsets: it may run over a
    line break, as a sentence of wrapped Markdown does."""
    if not result.line or not result.column or not result.found_text:
        raise _Skip("the quote was not found in the snapshot")
    start = starts[result.line - 1] + result.column - 1
    end = start + len(result.found_text)
    if text[start:end] != result.found_text:
        raise _Skip("the quote was only found after folding quotes and whitespace, so no exact edit can be placed")
    return start, end


def _sentence_end(text: str, end: int, markdown: bool = True) -> tuple[int, str]:
    """Where words added after the sentence holding position ``end`` go, and what precedes them: after its full stop,
    or at its paragraph's end (read as Markdown when ``markdown``) when no full stop follows in it. A full stop inside
    a formula or a code span does not end the sentence; a sentence that ends in a display formula gets the words on a
    line of their own after it (``"\\n"``), never on the formula's ``$$`` line. Raises ``_Skip`` when that place is in a
    code block, a table or a doctest."""
    closed = closed_spans(text, markdown)
    limit = block_end(text, end, markdown)
    spot = None
    if end > 0 and text[end - 1] in ".!?" and not any(c.holds(end - 1) for c in closed):
        spot = end
    else:
        for m in re.compile(r"[.!?](?=\s|$)").finditer(text, end, limit):
            if not any(c.start <= m.start() < c.end for c in closed):
                spot = m.end()
                break
    at = limit if spot is None else spot
    for c in closed:
        if c.kind == "display formula in a paragraph" and c.start < at <= c.end:
            return c.end, "\n"
        if c.holds(at):
            raise _Skip(f"the sentence ends in a {c.kind}; words added there would break it, so the finding says what "
                        "to state and where is the author's choice")
    return at, ""


def _reads_markdown(chapter: Chapter) -> bool:
    """Whether the snapshot's text is read as Markdown for the patch's checks: a Markdown file, a notebook's reading,
    an HTML page's reading (which writes headings, tables and listings as Markdown)."""
    snap = chapter.snapshot
    return bool(getattr(snap, "markdown", False) or getattr(snap, "reading", ""))


def _closed_at(closed, a: int, b: int, plan: dict) -> str:
    """The kind of block or span an insertion at ``a`` (``a == b``) would put words inside ('' when none): a table
    row's label is where a caveat on a row goes (``row_label``), anything else closed is not written into."""
    if a != b:
        return ""
    for c in closed:
        if c.holds(a) and not (c.kind == "table" and plan.get("row_label")):
            return c.kind
    return ""


# --- one finding → (action, replaced, text, position, check sentence) --------------------------------

def _value(claim, chapter: Chapter, ms: Measurements, result: ClaimResult):
    by_reference = _by_reference(claim, result)
    if any(e.aggregate == "both" for e in claim.expect) and result.verdict == "qualified":
        raise _Skip("the sentence itself reads two ways (a mean over queries, or a share of all relevant material); "
                    "no convention stated elsewhere settles its wording, so the finding says what to write")
    fixture = chapter.fixture(claim.fixture)
    own = chapter.declared_for(claim)
    extra: dict[str, str] = {}
    corrections: dict[str, str] = dict(by_reference)
    exacts: dict[str, Fraction] = {}
    others = []
    for e in claim.expect:
        if reference_name(e.by) is not None:
            continue   # decided by that reference (``_by_reference``)
        claimed = parse_claimed(e.claimed, tolerance=e.tolerance)
        if claimed.nominal is None and result.verdict == "contradicted":
            raise _Skip(f"a bound ({e.claimed}) the value breaks: whether the bound or the statement's measure is "
                        "wrong is the author's decision; the finding gives the value")
        declared = sentence_declared(ms, chapter, claim, fixture, e.measure, claimed, e.query, e.aggregate)
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
            exacts[printed] = values[0]
    if corrections:
        return "correct a value", corrections, (
            "re-checked: the new value holds under every reading the chapter allows (checks.value.verify_statement)"), \
            exacts
    if not extra:
        raise _Skip("the chapter's definitions give the printed value under every reading; the qualification comes "
                    "from a reference, explained in the finding")
    for e in claim.expect:
        claimed = parse_claimed(e.claimed, tolerance=e.tolerance)
        declared = sentence_declared(ms, chapter, claim, fixture, e.measure, claimed, e.query, e.aggregate)
        if not verify_statement(ms, fixture, e.measure, declared, e.query, claimed,
                                {n: v for n, v in extra.items()}):
            raise _Withdrawn("no single convention makes the printed value hold under every remaining reading")
    text = " (here " + "; ".join(_plain_phrase(n, v) for n, v in extra.items()) + ")"
    alternatives = "; ".join(dict.fromkeys(f"{o.label()} gives {_show(o.value)}" for o in others))
    return "state a convention", extra, (
        "re-checked: with " + ", ".join(f"{CONVENTIONS[n].title} {v}" for n, v in extra.items())
        + " stated, the printed value holds under every remaining reading (checks.value.verify_statement)"), \
        text, alternatives


def _by_reference(claim, result: ClaimResult) -> dict[str, str]:
    """Printed value → correction, for each expectation about what a reference returns that it does not: the
    value that reference returned (the claim re-run on the corrected sentence, by ``_correction``, decides again
    by that reference)."""
    corrections: dict[str, str] = {}
    if result.verdict != "contradicted":
        return corrections
    for e in claim.expect:
        name = reference_name(e.by)
        if name is None:
            continue
        rows = [v for c in result.checks if c.claimed == str(e.claimed) and c.measure.startswith(e.measure)
                for v in c.values if v.implementation == name]
        if not rows or rows[0].in_interval:
            continue
        value = rows[0].value
        if rows[0].status != "ok" or value is None or value != value:
            shown = "nan" if value is not None and value != value else rows[0].status
            raise _Skip(f"{e.by} returns no number here ({shown}{': ' + rows[0].detail if rows[0].detail else ''}); "
                        "the sentence must say what it does instead, which the author words")
        claimed = parse_claimed(e.claimed, tolerance=e.tolerance)
        exact = Fraction(value).limit_denominator(10**6)
        new = claimed.write_like(exact if abs(float(exact) - value) < 1e-12 else Fraction(value))
        printed = str(e.claimed).strip().lstrip("≈~ ").strip()
        corrections[printed] = new.strip().lstrip("≈~ ").strip()
    return corrections


def _show(value) -> str:
    if value == REJECTED:
        return "rejected"
    text = display(format_exact(value))
    return text if "/" not in text else f"{text} (≈ {float(value):.4f})"


def _property(claim, chapter: Chapter, ms: Measurements, result: ClaimResult):
    """The weaker wording that holds, and the check that shows it: "never lowers" ("never raises") when the search
    finds no counterexample to the weaker relation, else "can raise or lower" when it finds a case each way."""
    weaker = WEAKER.get(claim.relation)
    if weaker is None or claim.compare != "next_cutoff":
        raise _Skip("no checked rewording for this kind of universal statement")
    weak = decide(CHECKERS["property"](claim.model_copy(update={"relation": weaker}), chapter, ms))
    if weak.verdict == "supported":
        word = "never lowers" if claim.relation == "increases" else "never raises"
        return word, f"re-checked: the search for “{claim.measure}@k {weaker}” as k grows found no counterexample"
    both = CHECKERS["property"](claim.model_copy(update={"relation": "rises or falls"}), chapter, ms)
    if decide(both).verdict != "supported":
        raise _Withdrawn("the search did not show the measure moving both ways")
    return "can raise or lower", "re-checked: " + "; ".join(both.scopes)


#: The register fields a reworded universal statement changes besides its relation: none of them is searched, so
#: the claim re-run on the new sentence is the search ``_property`` just ran for the new relation.
_WORDS_ONLY = frozenset({"quote", "title", "claim"})


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
        said = join_alike([(_RULE_PHRASES.get(rule, f"follows “{rule}”"),
                            f"for {', '.join(measures)}" if len(rules) > 1 else "") for rule, measures in rules.items()])
        by_said.setdefault(said, []).append(ref)
    titles = {r.name: r.title for r in references}
    parts = [(f"{' and '.join(titles.get(r, r) for r in refs)} " + re.sub(r"^(\w+)s\b", r"\1", said)
              if len(refs) > 1 else f"{titles.get(refs[0], refs[0])} {said}")
             for said, refs in by_said.items()]
    text = (" Scoring libraries differ here: " + "; ".join(parts)
            + "; check inputs for this before comparing their numbers with this evaluator's.")
    check = ("re-checked: the probe was run again on every reference with nothing cached, and each reference named "
             "follows the rule stated for it")
    return text, check, not evidence.errors


# --- the proposal ---------------------------------------------------------------------------------

def _replace_once(text: str, old: str, new: str, near: str = "") -> str | None:
    """``text`` with the printed ``old`` replaced by ``new``: its one occurrence as a number (not inside another
    number), or, when it occurs more than once, the first one after ``near`` (the measure's name). None when it
    cannot be told which occurrence is meant."""
    pattern = re.compile(r"(?<![\w.])" + re.escape(old) + r"(?![\d])")
    spots = [m for m in pattern.finditer(text)]
    if len(spots) > 1 and near and near in text:
        after = text.index(near)
        spots = [m for m in spots if m.start() > after][:1]
    if len(spots) != 1:
        return None
    m = spots[0]
    return text[:m.start()] + new + text[m.end():]


def _recheck(claim, edits: list[Edit], chapter: Chapter, ms: Measurements, store) -> str:
    """The verdict of ``claim`` with ``edits`` made to its register entry: the same claim run on the new sentence,
    kept per claim key and edit in ``store`` (the run's ``audit.run.cache.PerClaimCache``, or None), so that a rerun
    whose claim is unchanged reads its hunk's re-check instead of running the references again."""
    what = "recheck " + json.dumps([e.as_dict() for e in edits], sort_keys=True, ensure_ascii=False)
    stored = store.get(claim.id, what) if store is not None else None
    if stored is not None and stored.get("verdict") in ("supported", "qualified", "contradicted", "error"):
        return stored["verdict"]
    verdict = _run_edited(claim, edits, chapter, ms)
    if store is not None:
        store.put(claim.id, what, {"verdict": verdict})
    return verdict


def _run_edited(claim, edits: list[Edit], chapter: Chapter, ms: Measurements) -> str:
    data = claim.model_dump(mode="json", exclude_unset=True)
    for e in edits:
        set_field(data, e)
    new = type(claim).model_validate(data)
    return decide(CHECKERS[new.kind](new, chapter, ms)).verdict


def _own_words(claim, old: str, new: str) -> list[Edit]:
    """The register's title and claim text follow a changed number or word where they print it once."""
    out = []
    for name in ("title", "claim"):
        text = getattr(claim, name, "") or ""
        changed = _replace_once(text, old, new)
        if changed is not None and changed != text:
            out.append(Edit(claim.id, name, changed))
    return out


def _reworded_words(claim, change, said: str, sentence: str, edits: list[Edit]) -> list[Edit]:
    """The register's title and claim text follow a reworded conclusion ("significant" → "not significant"): the
    same change made in each; one that states the old conclusion in words the change cannot find takes the new
    sentence, so no register text keeps a conclusion the patch turned."""
    out = []
    for name in ("title", "claim"):
        current = next((e.value for e in edits if e.field == name), None) or getattr(claim, name, "") or ""
        if not re.search(r"signific", current, re.IGNORECASE):
            continue
        turned = change(current)
        value = turned if turned is not None else sentence
        out = [e for e in out if e.field != name] + [Edit(claim.id, name, value)]
    kept = {e.field for e in out}
    edits[:] = [e for e in edits if e.field not in kept]
    return out


def _correction(claim, r: ClaimResult, quote: str, corrections: dict[str, str], fields: list[tuple[str, str]],
                chapter: Chapter, ms: Measurements, why: str, rechecks, reword=None,
                exacts: dict[str, Fraction] | None = None) -> dict:
    """A corrected value: the printed numbers replaced in the sentence and in the register (quote, claimed values,
    title, claim text), then the claim re-run on the new sentence, which must be supported. ``reword``: a further
    change of wording, ``(function of a sentence giving the new one or None, what it changes as (old, new))``.
    ``exacts``: the exact value behind a corrected number; a printed mean that gives the old number is corrected
    with it when its count alone is wrong (``divisor_correction``: "(1 + 2/3 + 3/6)/4 = 0.5417" → "…/5 = 0.4333")."""
    numbers: list[tuple[str, str]] = []
    recounted: list[Edit] = []
    for old, new in list(corrections.items()):
        if exacts and old in exacts and breaks_replacing(quote, old, new):
            recount = divisor_correction(quote, old, new, exacts[old])
            if recount is not None:
                del corrections[old]
                corrections[recount[0]] = recount[1]
                numbers.append((old, new))
                recounted += _recounted_arithmetic(claim, chapter, quote, old, new, recount[2], recount[3])
    # the register's quote follows the sentence as found (an edited anchor's quote is refreshed with it); one that
    # differs from it only in where the lines break keeps its own spacing
    new_quote, register_quote = quote, claim.quote if claim.quote.split() == quote.split() else quote
    edits: list[Edit] = []
    near = " ".join(re.findall(r"[A-Za-z]+@\d+|[A-Za-z]+", claim.title)[:1])
    for old, new in corrections.items():
        if old not in quote:
            raise _Skip(f"the value ({old}) is not printed in the sentence, only implied by it: how to reword the "
                        "sentence is the author's decision; the finding gives the value")
        new_quote = _replace_once(new_quote, old, new, near)
        register_quote = _replace_once(register_quote, old, new, near) if register_quote is not None else None
        if new_quote is None or register_quote is None:
            raise _Skip(f"the printed {old} cannot be told apart from another number in the quote, so no exact edit "
                        "can be placed; the finding gives the value")
        edits += _own_words(claim, old, new)
    for old, new in numbers:   # the register's title and claim text print the value, not the mean's terms
        edits += [e for e in _own_words(claim, old, new) if not any(x.field == e.field for x in edits)]
    if reword is not None:
        change, _ = reword
        new_quote, register_quote = change(new_quote), change(register_quote) if register_quote is not None else None
        if new_quote is None or register_quote is None:
            raise _Skip("the sentence words its conclusion so that no single word can be changed; the finding gives "
                        "the conclusion the data support")
        edits += _reworded_words(claim, change, reword[1][0], register_quote, edits)
    broken = breaks_arithmetic(quote, new_quote)
    if broken:
        raise _Skip(f"the corrected value would follow printed arithmetic that does not give it ({broken}); the "
                    "printed terms must change with it, which is the author's choice, given in the finding")
    edits.insert(0, Edit(claim.id, "quote", register_quote))
    for field, value in fields:
        edits.append(Edit(claim.id, field, value))
    verdict = _recheck(claim, edits, chapter, ms, rechecks)
    edits += recounted   # the arithmetic claims of the mean follow it; the sentence's joint re-check runs them
    if verdict != "supported":
        raise _Withdrawn(f"the claim re-run on the corrected sentence is {verdict}, not supported")
    change = "; ".join(f"“{o}” to “{n}”" for o, n in [*corrections.items(), *([reword[1]] if reword else [])])
    return dict(action="correct a value", replaced=quote, text=new_quote, edits=edits,
                check=f"re-checked: the claim re-run on the corrected sentence is supported; {why}",
                response=f"Change {change}.",
                rationale=f"{r.concern} The chapter's definitions give "
                          + ", ".join([f"{n} where it prints {o}" for o, n in corrections.items()]
                                      + ([f"“{reword[1][1]}” where it says “{reword[1][0]}”"] if reword else [])) + ".",
                tradeoff=("None beyond the edit; any later sentence, figure or notebook cell that reuses the old "
                          "number must change with it."))


def _recounted_arithmetic(claim, chapter: Chapter, quote: str, old: str, new: str, expression: str,
                          recounted: str) -> list[Edit]:
    """The register edits of each arithmetic claim on ``quote`` that encodes the printed mean a corrected count
    changes (``divisor_correction``): its expression, its claimed value and the words of its title and claim text."""
    edits: list[Edit] = []
    target = normal_expression(expression).replace(" ", "")
    old_number, new_number = (n.strip().lstrip("≈~ ").strip() for n in (old, new))
    for other in chapter.register.claims:
        if other.id == claim.id or other.kind != "arithmetic" or other.quote not in quote and quote not in other.quote:
            continue
        if normal_expression(str(other.expression)).replace(" ", "") != target:
            continue
        claimed = _replace_once(str(other.claimed), old_number, new_number)
        if claimed is None:
            continue
        edits += [Edit(other.id, "expression", recounted), Edit(other.id, "claimed", claimed)]
        for name in ("title", "claim"):
            text = getattr(other, name, "") or ""
            changed = text.replace(expression, recounted, 1)
            changed = _replace_once(changed, old_number, new_number) or changed
            if changed != text:
                edits.append(Edit(other.id, name, changed))
    return edits


def _value_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, quote: str, rechecks) -> dict:
    out = _value(claim, chapter, ms, r)
    if out[0] == "correct a value":
        fields = []
        for i, e in enumerate(claim.expect):
            claimed = str(e.claimed)
            for old, new in out[1].items():
                changed = _replace_once(claimed, old, new)
                if changed is not None:
                    fields.append((f"expect.{i}.claimed", changed))
                    claimed = changed
        by = any(reference_name(e.by) is not None for e in claim.expect)
        return _correction(claim, r, quote, out[1], fields, chapter, ms,
                           "decided again by the library the sentence is about" if by else
                           "the new value holds under every reading the chapter allows", rechecks, exacts=out[3])
    _, extra, check, text, alternatives = out
    conventions = {**{k: v for k, v in (claim.model_dump(mode="json").get("conventions") or {}).items()},
                   **{n: {"value": v, "quote": text.strip()[1:-1]} for n, v in extra.items()}}
    edits = [Edit(claim.id, "conventions", conventions)]
    # the chapter's readings all hold with it stated (``_value`` checked that); a reference that follows another
    # convention still qualifies the claim, and its own finding says what to add
    verdict = _recheck(claim, edits, chapter, ms, rechecks)
    if verdict not in ("supported", "qualified"):
        raise _Withdrawn(f"the claim re-run with the convention stated is {verdict}")
    if verdict == "qualified":
        check += "; a reference following another convention still qualifies it, as its finding says"
    label = row_label_end(quote)
    return dict(action="state a convention", replaced="", text=text, edits=edits, check=check,
                response=(f"Add “{text.strip()}” to the row's label “{quote[:label].strip(' |')}”." if label is not None
                          else f"Add “{text.strip()}” after “{_tail(quote)}”."), at_end=True,
                rationale=f"The printed value rests on a convention the chapter does not state: {r.concern}",
                tradeoff=("Pins the value to one convention; a reader whose tool uses another gets a different "
                          f"number ({alternatives}), and now knows why."), conventions=list(extra))


def row_label_end(quote: str) -> int | None:
    """Where the first cell's text ends in a quote that is a whole Markdown table row (``| AP | 0.593 |`` → 4, after
    ``AP``), or None for any other quote. Text added after a row's last cell is not shown (GitHub-flavoured Markdown
    drops cells beyond the header's), so a caveat on a row goes into its label."""
    text = quote.strip()
    if not (text.startswith("|") and text.endswith("|") and text.count("|") >= 3):
        return None
    first = quote.index("|")
    second = quote.index("|", first + 1)
    end = second
    while end > first + 1 and quote[end - 1] == " ":
        end -= 1
    return end if end > first + 1 else None


def _tail(quote: str, words: int = 6) -> str:
    parts = quote.split()
    return ("… " if len(parts) > words else "") + " ".join(parts[-words:])


#: The label of the check of the measure an arithmetic claim's expression computes (``checks.arithmetic``).
_COMPUTES = "the measure the expression computes: "


def _arithmetic_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, quote: str, rechecks) -> dict:
    if r.verdict != "contradicted":
        raise _Skip("the printed arithmetic holds; the qualification is explained in the finding")
    if claim.computes is not None:
        measured = next((Fraction(v.exact) for check in r.checks if check.label.startswith(_COMPUTES)
                         for v in check.values if v.implementation == "chapter" and v.status == "ok" and v.exact), None)
        fix = recount(claim, measured) if measured is not None else None
        if fix is None:
            raise _Skip("the printed value is computed from printed terms; which term or total to change is the "
                        "author's choice, given in the finding")
        return _correction(claim, r, quote, {fix[0]: fix[1]}, [("expression", fix[3]), ("claimed", fix[4])], chapter,
                           ms, f"the measure it computes is {display(format_exact(measured))} and the printed terms "
                           "over the corrected count give it", rechecks)
    value, exact, how = arithmetic_correction(claim.expression)
    claimed = parse_claimed(claim.claimed, tolerance=claim.tolerance)
    new = claimed.write_like(value, exact=exact)
    old_num, new_num = str(claim.claimed).strip().lstrip("≈~ ").strip(), new.strip().lstrip("≈~ ").strip()
    printed = printed_correction(claim.quote, claimed, new)  # the sentence writes it otherwise ("a third")
    words: list[tuple[str, str]] = []
    if printed is not None:
        old_num, new_num = printed
        # the register's own text says the number as the register writes it ("below 1/3"): it follows too
        b0, b1 = parse_claimed(str(claim.claimed)).number, parse_claimed(new).number
        if b0 is not None and b1 is not None:
            words.append((format_exact(b0), format_exact(b1)))
    if old_num == new_num:
        raise _Skip("the printed value is written as the expression's value would be; the finding explains the "
                    "difference")
    plan = _correction(claim, r, quote, {old_num: new_num}, [("claimed", new)], chapter, ms, how, rechecks)
    for o, n in words:
        plan["edits"] += [e for e in _own_words(claim, o, n)
                          if not any(x.field == e.field and x.claim == e.claim for x in plan["edits"])]
    return plan



#: The fix of a value whose sentence prints its terms rounded (``checks.printed_terms.TermRounding.fix``).
_MORE_PLACES = re.compile(r"Print the rounded terms to more places, with the value they then give: “(.+?) = ([^”=]+)”")


def _rounding_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, quote: str, rechecks) -> dict:
    """The rounded terms the sentence prints, printed to more places, and the value they then give
    ("3/1 + 3/1.58 + 2/2 + 1/2.32 = 6.33" → "3/1 + 3/1.585 + 2/2 + 1/2.322 = 6.32"): the terms and the value changed in
    the sentence and in the register (an arithmetic claim's expression and claimed value, a value claim's claimed
    value), and the claim re-run on the new sentence, which must be supported."""
    new_expression, new_value = _MORE_PLACES.search(r.response).groups()
    if claim.kind == "arithmetic":
        old_expression, claimed_text = claim.expression, str(claim.claimed)
    else:
        claimed_text = next((str(e.claimed) for e in claim.expect if printed_expressions(quote, str(e.claimed))), "")
        found = printed_expressions(quote, claimed_text) if claimed_text else []
        if not found:
            raise _Skip("the rounded terms are not printed in the sentence as the finding read them")
        old_expression = found[0]
    old_terms = [old_expression[a:b] for a, b, _, _ in rounded_decimals(old_expression)]
    new_terms = [new_expression[a:b] for a, b, _, _ in rounded_decimals(new_expression)]
    if len(old_terms) != len(new_terms):
        raise _Skip("the terms to print to more places cannot be matched with the printed ones")
    corrections = {o: n for o, n in zip(old_terms, new_terms) if o != n}
    old_value = claimed_text.strip().lstrip("≈~ ").strip()
    corrections[old_value] = new_value.strip()
    if claim.kind == "arithmetic":
        new_claimed = claimed_text.replace(old_value, new_value.strip(), 1)
        fields = [("expression", new_expression), ("claimed", new_claimed)]
    else:
        fields = [(f"expect.{i}.claimed", str(e.claimed).replace(old_value, new_value.strip(), 1))
                  for i, e in enumerate(claim.expect) if str(e.claimed) == claimed_text]
    plan = _correction(claim, r, quote, corrections, fields, chapter, ms,
                       "the new terms, as printed and exactly, give the new value", rechecks)
    plan["rationale"] = f"{r.concern} {r.reason}"
    return plan


def _code_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, snapshot: str, start: int,
               rechecks) -> dict:
    """A corrected listing: the function rewritten from the chapter's definition in the listing's signature
    (``audit.research.listing_fix``), the values printed after the calls the text shows brought in line with it, and
    the claim re-run on the patched chapter — the same differential test as the listing's, edge cases, generated
    input, references and shown calls — which must be supported before the listing is printed."""
    import ast

    from audit.evaluation.checks.code import (
        FOLLOWS_OPEN_READING,
        _function_lines,
        chapter_value,
        printed_holds,
        printed_like,
        session_calls,
        shown_input,
        takes_no_ids,
    )
    from audit.evaluation.readings import base_reading
    from audit.register.claims import parameter_defaults, shown_arguments
    from audit.evaluation.checks.text_calls import unregistered_examples
    from audit.research.listing_fix import NotWritten, write
    from audit.text.doctests import unwrapped
    from audit.text.listings import function_source

    if FOLLOWS_OPEN_READING in r.reason:
        raise _Skip("the listing follows a reading the text leaves open; the finding says which convention to state")
    if claim.returns:
        raise _Skip("a listing returning several values, or a statistic, gets the finding's fixes without a rewrite")
    printed = re.findall(r"Change “(.+?)” to “(.+?)” after the call\.", r.response)
    if printed and "Wrong on ordinary input" not in r.reason and "It matches on well-formed input, but" not in r.reason:
        return _printed_plan(claim, chapter, ms, snapshot, start, rechecks, dict(printed))
    listing, source = function_source(snapshot, claim.quote, claim.function, claim.builds_on, claim.occurrence)
    reading = base_reading(chapter.declared_for(claim))
    try:
        rewrite = write(claim, reading, source)
    except NotWritten as exc:
        raise _Skip(str(exc))
    first, last = _function_lines(listing, claim.function)
    lines = snapshot.split("\n")
    node = next(n for n in ast.parse(listing.code).body if isinstance(n, ast.FunctionDef) and n.name == claim.function)
    code_line = listing.code.split("\n")[node.lineno - 1]
    prefix = lines[first - 1][:len(lines[first - 1]) - len(code_line)] if lines[first - 1].endswith(code_line) else ""
    new_lines = rewrite.source.rstrip("\n").split("\n")
    kept = _kept_docstring(listing, node, lines, new_lines)
    if kept is not None:
        new_lines = kept.lines
    if rewrite.needs_math and not re.search(r"^\s*import math\b", source, re.M):
        new_lines = ["import math", "", ""] + new_lines
    function_text = "\n".join(prefix + line if line else "" for line in new_lines)
    a = sum(len(line) + 1 for line in lines[:first - 1])
    b = sum(len(line) + 1 for line in lines[:last]) - 1
    if kept is not None:
        function_text = function_text.replace(prefix + _DOCSTRING_MARK, snapshot[kept.start:kept.end], 1)
    if [line.rstrip() for line in snapshot[a:b].split("\n")] == [line.rstrip() for line in function_text.split("\n")]:
        raise _Skip("the listing is already the corrected listing; what is left is not the function's to change (the "
                    "finding says what)")
    spans = [(a, b, function_text)]
    new_claim = claim.model_copy(update={"arguments": rewrite.arguments, "quote": rewrite.source.split("\n")[0]})
    edits = [Edit(claim.id, "quote", new_claim.quote), Edit(claim.id, "arguments", rewrite.arguments)]
    defaults = parameter_defaults(rewrite.source, claim.function)
    params = [x.arg for x in ast.parse(rewrite.source).body[0].args.args]
    changed = []
    calls = []
    sessions = session_calls(snapshot)
    # the text's own examples of the function that the register does not hold are re-checked too (a corrected
    # listing must still give what its doctests print, or they are corrected with it); they change no register entry
    after = _listing_offset(snapshot, claim)
    extra = []
    for c in unregistered_examples(snapshot, claim.function, claim.calls, after, _next_definition(snapshot, claim)):
        try:
            shown_arguments(new_claim, c.call, params, defaults, c.given)
        except AuditError:
            continue
        extra.append(c)
    for i, c in [*enumerate(claim.calls), *((None, c) for c in extra)]:
        calls.append(c)
        if c.returns is None:
            continue
        item = shown_input(new_claim, shown_arguments(new_claim, c.call, params, defaults, c.given))
        value = chapter_value(new_claim, item, reading) if item is not None else None
        printed = parse_claimed(c.returns, tolerance=c.tolerance)
        if value is None or isinstance(value, str) or printed_holds(printed, value):
            continue
        # doctest prints the float (round(f(…), 4) its value at the printed precision)
        new = printed.write_like(value) if c.call not in sessions or unwrapped(c.call) != c.call \
            else repr(float(value))
        new = printed_like(new, c)
        spans.append(_printed_span(snapshot, c, new, after))
        if i is not None:
            edits.append(Edit(claim.id, f"calls.{i}.returns", new))
        calls[-1] = c.model_copy(update={"returns": new})
        changed.append((str(c.returns), new))
    new_claim = new_claim.model_copy(update={"calls": calls})
    if kept is not None:
        # a corrected output inside the kept docstring (a doctest's) is made in the corrected listing's copy of it
        inside = sorted((x, y, t) for x, y, t in spans[1:] if kept.start <= x and y <= kept.end)
        doc = snapshot[kept.start:kept.end]
        for x, y, t in reversed(inside):
            doc = doc[:x - kept.start] + t + doc[y - kept.start:]
        function_text = "\n".join(prefix + line if line else "" for line in new_lines).replace(
            prefix + _DOCSTRING_MARK, doc, 1)
        spans = [(a, b, function_text)] + [span for span in spans[1:] if span not in inside]
        if any(x < b and a < y for x, y, _ in spans[1:]):
            raise _Skip("a value printed after a call inside the function could not be placed in its docstring; the "
                        "finding gives it")
    occurrence = _one_definition(snapshot, spans, claim.quote, new_claim.quote, claim.function, claim.occurrence)
    if occurrence != claim.occurrence:
        # the corrected listing's def line may now be printed by more (or fewer) listings: the claim still means it
        new_claim = new_claim.model_copy(update={"occurrence": occurrence})
        edits.append(Edit(claim.id, "occurrence", occurrence))
    what = "recheck listing " + json.dumps([rewrite.source, [e.as_dict() for e in edits]], ensure_ascii=False)
    verdict = _recheck_listing(new_claim, chapter, ms, snapshot, spans, rechecks, what)
    if verdict != "supported":
        raise _Withdrawn(f"the corrected listing, run through the same differential test, is {verdict}, not supported")
    added = (f" It takes the judged grades as `{rewrite.added}` (optional: without it the ranked grades are all of "
             "them), which the signature could not see." if rewrite.added else "")
    if takes_no_ids(new_claim):
        added += (" A ranking that repeats an ID cannot reach a function without document IDs: reject or drop the "
                  "repeat where its input is built.")
    # the finding's own wording (each defect and its fix) stays first; the corrected listing is how to make it
    # where a fix offers two ways, say which the corrected listing takes (read off its own code)
    choices = []
    if "repeats an ID" in r.response:
        choices.append("it rejects a ranking that repeats an ID" if "may not repeat" in rewrite.source else
                       "it counts each ID once, where it first appears" if "dict.fromkeys(" in rewrite.source and
                       "reversed(" not in rewrite.source else "it counts each ID once, where it last appears"
                       if "reversed(" in rewrite.source else "")
    if "for k = 0" in r.response:
        choices.append("it rejects k < 1" if "must be at least 1" in rewrite.source else "it returns 0 for k = 0")
    choices = [c for c in choices if c]
    response = (r.response.rstrip().rstrip(".") + ". The corrected listing makes these fixes"
                + (f" ({'; '.join(choices)})" if choices else "") + ": replace "
                f"{claim.function}() by it" + (" and print " + ", ".join(f"“{n}” for “{o}”" for o, n in changed)
                                                 + " after the call" if changed else "") + "." + added)
    return dict(action="correct a listing", replaced=snapshot[a:b], text=function_text, edits=edits,
                span=(a - start, b - start), more=spans[1:],
                check="re-checked: the corrected listing, run through the same differential test (edge cases, "
                      "generated input against the chapter's definitions and every reference, the calls the text "
                      "shows), is supported",
                response=response,
                rationale=f"{r.concern} The listing is rewritten from the chapter's definition of {claim.measure}.",
                tradeoff="The listing's body changes; its name, parameters and what the text says it computes stay.")


_DOCSTRING_MARK = "\x00docstring\x00"


@dataclass(frozen=True)
class _Kept:
    """The listing's docstring, kept in its corrected listing: ``lines``, the rewrite's lines with the docstring's
    place marked (``_DOCSTRING_MARK``), and the docstring's span in the snapshot (``start``, ``end``: its first line's
    start to its last line's end, as printed)."""

    lines: list[str]
    start: int
    end: int


def _kept_docstring(listing, node, lines: list[str], new_lines: list[str]) -> "_Kept | None":
    """Where the rewrite of a function keeps the listing's own docstring (its prose and its ``>>>`` examples): after
    the rewrite's ``def`` line, in place of the rewrite's own docstring, exactly as printed. None when the function has
    no docstring on lines of its own, or the rewrite's body is indented otherwise than the docstring (re-indenting
    would change the docstring's text)."""
    import ast

    body = node.body
    if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        return None
    doc = body[0]
    code = listing.code.split("\n")
    if doc.lineno <= node.lineno or code[doc.lineno - 1][:doc.col_offset].strip() or \
            code[doc.end_lineno - 1][doc.end_col_offset:].strip() or \
            (len(body) > 1 and body[1].lineno == doc.end_lineno):
        return None
    try:
        tree = ast.parse("\n".join(new_lines))
    except SyntaxError:
        return None
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == node.name), None)
    if fn is None:
        return None
    rest = fn.body[1:] if (isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant)
                           and isinstance(fn.body[0].value.value, str)) else fn.body
    if not rest or rest[0].col_offset - fn.col_offset != doc.col_offset - node.col_offset:
        return None
    head = new_lines[:fn.body[0].lineno - 1]
    kept = head + [_DOCSTRING_MARK] + new_lines[rest[0].lineno - 1:]
    first = listing.start + doc.lineno - 1  # 1-based snapshot lines
    last = listing.start + doc.end_lineno - 1
    start = sum(len(line) + 1 for line in lines[:first - 1])
    end = sum(len(line) + 1 for line in lines[:last]) - 1
    return _Kept(kept, start, end)


def _one_definition(snapshot: str, spans, old_quote: str, new_quote: str, function: str,
                    occurrence: int | None = None) -> int | None:
    """The patched listing must parse and define the function as often, and as deeply, as the listing did: a rewrite
    placed over part of the old function would leave one ``def`` inside another. The listing before is the one the
    claim means (``claimed_listing``, by its ``occurrence``), the one after is the listing of the patched text where
    the first of ``spans`` (the function's) starts: never another listing printing the same ``def`` line. Returns the
    ``occurrence`` the claim needs in the patched text (None when its new quote is printed by that listing alone).
    Raises ``_Withdrawn`` otherwise."""
    import ast

    from audit.errors import AuditError
    from audit.text.listings import claimed_listing, find_listings, holds, occurrence_of

    def counted(listing):
        try:
            tree = ast.parse(listing.code)
        except SyntaxError as exc:
            raise _Withdrawn(f"the patched listing is not valid Python ({exc.msg}, listing line {exc.lineno})")
        named = (ast.FunctionDef, ast.AsyncFunctionDef)
        total = sum(1 for n in ast.walk(tree) if isinstance(n, named) and n.name == function)
        nested = sum(1 for outer in ast.walk(tree) if isinstance(outer, named)
                     for n in ast.walk(outer) if n is not outer and isinstance(n, named) and n.name == function)
        return total, nested

    patched = snapshot
    for x, y, text in sorted(spans, reverse=True):
        patched = patched[:x] + text + patched[y:]
    line = patched.count("\n", 0, spans[0][0]) + 1
    listings = find_listings(patched)
    place = next((i for i, item in enumerate(listings) if item.start <= line <= item.end), None)
    if place is None or not holds(listings[place], new_quote):
        raise _Withdrawn("the corrected listing could not be found again in the patched text")
    after = counted(listings[place])
    try:
        old = find_listings(snapshot)
        before = counted(old[claimed_listing(old, old_quote, function, occurrence)])
    except AuditError:
        before = None
    if after[0] < 1 or (before is not None and (after[0] > before[0] or after[1] > before[1])) or \
            (before is None and after != (1, 0)):
        raise _Withdrawn(f"the patched listing would define {function}() {after[0]} time(s), {after[1]} inside "
                         "another function; the finding says what to change in it")
    return occurrence_of(listings, place, new_quote, function)


def _listing_offset(snapshot: str, claim) -> int:
    """Where the listing a code claim means starts in ``snapshot`` (its first line's offset; 0 when it cannot be
    told)."""
    from audit.errors import AuditError
    from audit.text.listings import claimed_listing, find_listings

    listings = find_listings(snapshot)
    try:
        listing = listings[claimed_listing(listings, claim.quote, claim.function, claim.occurrence)]
    except AuditError:
        return 0
    return line_starts(snapshot)[listing.start - 1]


def _next_definition(snapshot: str, claim) -> int | None:
    """Where the next listing after the one a code claim means that defines its function again starts (the end of
    the text where this version is in force), or None."""
    from audit.text.listings import claimed_listing, find_listings

    listings = find_listings(snapshot)
    try:
        at = claimed_listing(listings, claim.quote, claim.function, claim.occurrence)
    except AuditError:
        return None
    for later in listings[at + 1:]:
        if re.search(rf"^\s*def\s+{re.escape(claim.function)}\s*\(", later.code, re.M):
            return line_starts(snapshot)[later.start - 1]
    return None


def _printed_span(snapshot: str, call, new: str, after: int = 0) -> tuple[int, int, str]:
    """The span of the value the text prints after a shown call (``call``: the claim's ``calls`` entry) and the text
    that replaces it; ``after``: the offset of the listing the claim means (its call is looked for there first, not at
    a call of an earlier version of the function). Raises ``_Skip`` when it cannot be placed."""
    from audit.text.coverage import printed_after
    from audit.text.doctests import place
    at = place(snapshot, call.call, call.given, after) or 0  # the place where its names are bound as the claim says
    found = printed_after(snapshot[at:], call.call, str(call.returns))
    found = (found[0] + at, found[1] + at) if found is not None else None
    if found is None:
        raise _Skip(f"the value printed after `{call.call}` cannot be placed in the text; the finding gives it")
    return found[1], found[1] + len(str(call.returns)), new


def _recheck_listing(new_claim, chapter: Chapter, ms: Measurements, snapshot: str, spans, rechecks, what: str) -> str:
    """The code claim's verdict on the chapter with ``spans`` ((start, end, text) in ``snapshot``) replaced, the
    same differential test as the listing's; kept in ``rechecks`` under ``what``."""
    import dataclasses

    from audit.text.chapter import Snapshot

    stored = rechecks.get(new_claim.id, what) if rechecks is not None else None
    if stored is not None and stored.get("verdict") in ("supported", "qualified", "contradicted", "error"):
        return stored["verdict"]
    patched = snapshot
    for x, y, text in sorted(spans, reverse=True):
        patched = patched[:x] + text + patched[y:]
    trial = dataclasses.replace(chapter, snapshot=Snapshot(chapter.snapshot.path, patched))
    verdict = decide(CHECKERS["code"](new_claim, trial, ms)).verdict
    if rechecks is not None:
        rechecks.put(new_claim.id, what, {"verdict": verdict})
    return verdict


def _printed_plan(claim, chapter: Chapter, ms: Measurements, snapshot: str, start: int, rechecks,
                  changes: dict[str, str]) -> dict:
    """The values printed after the calls the text shows, where only they are wrong (the listing agrees with the
    chapter's definitions on every input): each replaced by the value the call returns, printed the same way, and the
    claim re-run on the patched chapter, which must be supported."""
    spans, edits, calls = [], [], []
    for i, c in enumerate(claim.calls):
        calls.append(c)
        new = changes.get(str(c.returns)) if c.returns is not None else None
        if new is None:
            continue
        spans.append(_printed_span(snapshot, c, new, _listing_offset(snapshot, claim)))
        edits.append(Edit(claim.id, f"calls.{i}.returns", new))
        calls[-1] = c.model_copy(update={"returns": new})
    if not spans:
        raise _Skip("no printed value to correct was found after the calls the text shows")
    new_claim = claim.model_copy(update={"calls": calls})
    what = "recheck printed " + json.dumps([[x, y, t] for x, y, t in spans], ensure_ascii=False)
    verdict = _recheck_listing(new_claim, chapter, ms, snapshot, spans, rechecks, what)
    if verdict != "supported":
        raise _Withdrawn(f"with the printed values corrected, the claim is {verdict}, not supported")
    (x, y, text), more = spans[0], spans[1:]
    return dict(action="correct a value after a call", replaced=snapshot[x:y], text=text, edits=edits,
                span=(x - start, y - start), more=more,
                check="re-checked: with the values the calls return printed after them, the listing's claim is "
                      "supported (the same differential test: edge cases, generated input, references, shown calls)",
                response="Print what the calls return: " + ", ".join(f"“{n}” for “{o}”" for o, n in changes.items())
                         + ". The listing itself is right.",
                rationale="The text's own example prints a value the listing does not return.",
                tradeoff="Only the printed values change; the listing stays as it is.")


def _statistic_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, quote: str, rechecks) -> dict:
    """A wrong printed statistic replaced by the one its first reading gives, and a wrong conclusion turned (“not
    significant”), the claim re-run on the new sentence."""
    from audit.evaluation.checks.statistic import corrections, flip_decision
    if r.verdict != "contradicted":
        raise _Skip("the printed values hold under a reading the text leaves open; the finding says which to state")
    try:
        changes, fields, decision = corrections(claim, chapter, ms)
    except AuditError as exc:
        raise _Skip(exc.message)
    if not changes and decision is None:
        raise _Skip("no printed number or conclusion of the sentence is what no reading gives; the finding says what "
                    "to change")
    reword = None
    if decision is not None:
        said = claim.decision
        reword = (lambda text: flip_decision(text, said),
                  ("significant", "not significant") if said == "significant" else ("not significant", "significant"))
    plan = _correction(claim, r, quote, changes, fields, chapter, ms,
                       "recomputed exactly and by scipy on the sentence's data", rechecks, reword)
    # a reported test's new p that crosses α: the conclusion drawn elsewhere must change too (the finding says so)
    turn = r.response.find(" The difference is then")
    if turn >= 0:
        plan["response"] = plan["response"].rstrip(".") + "." + r.response[turn:]
    return plan


def _property_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, quote: str) -> dict:
    if WEAKER.get(claim.relation) is None or claim.compare != "next_cutoff":
        raise _Skip("no checked rewording for this kind of universal statement (only a strict change with k has a "
                    "weaker form to propose); the finding shows the counterexample")
    m = _ALWAYS.search(quote)
    if not m:
        raise _Skip("the universal wording (“always …”) was not recognised in the quote")
    word, check = _property(claim, chapter, ms, r)
    relation = WEAKER[claim.relation] if word.startswith("never") else "rises or falls"
    register_quote = claim.quote.replace(m.group(0), word, 1) if claim.quote.count(m.group(0)) == 1 else None
    if register_quote is None:
        raise _Skip("the universal wording appears more than once in the register's quote")
    edits = [Edit(claim.id, "quote", register_quote), Edit(claim.id, "relation", relation)]
    edits += [e for e in _own_words(claim, m.group(0), word) if e.field == "title"]
    edits.append(Edit(claim.id, "claim", f"{claim.measure}@k {relation} as k grows."))
    # ``_property`` searched the new relation and found it supported; the other edits are words no search reads
    assert all(e.field in _WORDS_ONLY | {"relation"} for e in edits)
    return dict(action="reword", replaced=m.group(0), text=word, edits=edits, check=check, span=m.span(),
                response=f"Change “{m.group(0)}” to “{word}”.", rationale=r.reason,
                tradeoff=("The new wording is weaker and less quotable, but it is what holds on every case searched; "
                          "the counterexample can be shown to readers as an example."))


def _convention_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, quote: str, text_all: str,
                     end: int, rechecks, markdown: bool = True) -> dict:
    """A caveat after the sentence the quote ends in (``end``: the quote's end in the snapshot ``text_all``)."""
    text, check = _convention(claim, chapter, r, ms.references, ms.book, rechecks)
    stored = rechecks.get(claim.id, "departures") if rechecks is not None else None
    if stored is not None and _names_rules(claim, stored["others"]):
        others = stored["others"]
    else:
        others = _departures(claim, chapter, ms)
        if rechecks is not None and others:
            rechecks.put(claim.id, "departures", {"others": others})
    if not others:
        raise _Withdrawn("re-running the probe, no reference's departure from the chapter's rule could be named")
    pos, lead = _sentence_end(text_all, end, markdown)
    text = lead + text.lstrip() if lead else text
    register_quote = claim.quote + (text_all[end:pos] + text).replace("\n", " ")
    edits = [Edit(claim.id, "quote", register_quote), Edit(claim.id, "others", others)]
    verdict = _recheck(claim, edits, chapter, ms, rechecks)
    if verdict != "supported":
        raise _Withdrawn(f"the claim re-run with the caveat is {verdict}, not supported")
    return dict(action="add a caveat", replaced="", text=text, edits=edits, check=check, at=pos,
                response=f"Add after the sentence: “{text.strip()}”", rationale=r.reason,
                tradeoff=("Adds library-specific detail that can date as the libraries change (versions in the "
                          "provenance); leaving it out leaves readers to discover the difference."),
                conventions=[_CLAIM_CONVENTION.get(claim.convention, claim.convention)])


def _names_rules(claim, others: dict) -> bool:
    """Whether ``others`` (kept from an earlier run) is what the claim's ``others`` field accepts: known references,
    rules of its convention, measures of its probe (the register's own validation)."""
    try:
        type(claim).model_validate({**claim.model_dump(mode="json", exclude_unset=True), "others": others})
    except ValueError:
        return False
    return True


def _departures(claim, chapter: Chapter, ms: Measurements) -> dict:
    """What each reference does on the claim's probe where it departs from the chapter's rule, as ``others``."""
    evidence = CHECKERS["convention"](claim, chapter, ms)
    rule = canonical_rule(claim.convention, claim.rule)
    seen: dict[str, dict[str, list[str]]] = {}   # reference → measure → the rules its values fit
    for check in evidence.checks:
        for v in check.values:
            if v.implementation != "chapter" and v.in_interval is False and v.behaviour:
                seen.setdefault(v.implementation, {})[check.measure] = [
                    canonical_rule(claim.convention, b) for b in v.behaviour.split(" or ") if b != rule]
    out: dict[str, dict[str, str]] = {}
    for ref, by_measure in seen.items():
        definite = {rules[0] for rules in by_measure.values() if len(rules) == 1}
        for measure, rules in by_measure.items():
            # "keep first or keep last" on one probe and "keep last" on another: the definite rule explains both
            fits = rules if len(rules) == 1 else [r for r in rules if r in definite]
            if len(fits) == 1:
                out.setdefault(ref, {})[measure] = fits[0]
    return {ref: (next(iter(by.values())) if len(set(by.values())) == 1 and len(by) == len(seen[ref]) else by)
            for ref, by in out.items()}


@dataclass(frozen=True)
class _Change:
    """One finding's change to the snapshot: ``text`` replaces ``a:b`` (an insertion when ``a == b``); ``qs:qe``
    is the claim's quote with its own change (a caveat after the sentence included); ``more``: a further span of the
    same finding (a value printed after a call)."""

    claim: str
    plan: dict
    a: int
    b: int
    text: str
    qs: int
    qe: int
    more: bool = False


@dataclass
class _Group:
    """The composed change to one sentence: ``text`` replaces ``start:end``; the rest is the hunk's."""

    start: int
    end: int
    text: str
    claims: list[str]
    action: str
    replaced: str
    shown: str
    rationale: str
    tradeoff: str
    check: str
    conventions: list[str]
    register_edits: list[dict]
    response: str


def _word(ch: str) -> bool:
    return ch.isalnum() or ch in "._%@"


def _minimal(text: str, a: int, b: int, new: str) -> tuple[int, int, str]:
    """The replacement of ``text[a:b]`` by ``new`` narrowed to the words it changes (whole words, so that two
    changes to one number are seen to meet), for composing it with other changes of the same sentence."""
    old = text[a:b]
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    q = 0
    while q < min(len(old), len(new)) - p and old[len(old) - 1 - q] == new[len(new) - 1 - q]:
        q += 1
    while p > 0 and _word(old[p - 1]):
        p -= 1
    while q > 0 and _word(old[len(old) - q]):
        q -= 1
    return a + p, b - q, new[p:len(new) - q]


_HERE = re.compile(r"^ \(here (.*)\)$", re.DOTALL)


def _merge_insertions(texts: list[str]) -> str:
    """Several words added at one place, each once: "(here …)" statements joined in one parenthesis."""
    texts = list(dict.fromkeys(texts))
    if len(texts) > 1 and all(_HERE.match(t) for t in texts):
        return " (here " + "; ".join(_HERE.match(t).group(1) for t in texts) + ")"
    return "".join(texts)


_RANK = {"contradicted": 0, "qualified": 1, "supported": 2}


def _compose(planned: list[_Change], located: dict, chapter: Chapter, ms: Measurements, claims: dict, rechecks,
             proposal: Proposal, markdown: bool) -> list[_Group]:
    """The findings' changes composed per sentence: the changes of every claim quoting one sentence made at once
    (identical ones once, words added at one place joined), the new sentence checked for the chapter's structure
    (parsed before and after) and re-checked with every claim that quotes it, each claim re-run with its register
    entry following the new sentence. A group whose changes collide, whose new text would change the structure or
    whose joint re-check fails is withdrawn, each claim with the reason."""
    snapshot = chapter.snapshot.text
    changes = []
    for c in planned:
        if c.a < c.b and not c.more and c.plan.get("action") != "correct a listing":
            a, b, t = _minimal(snapshot, c.a, c.b, c.text)
            c = _Change(c.claim, c.plan, a, b, t, c.qs, c.qe)
        changes.append(c)
    clusters: list[list[_Change]] = []
    hi = -1
    for c in sorted(changes, key=lambda c: (min(c.qs, c.a), c.a, c.claim)):
        lo = min(c.qs, c.a)
        if clusters and lo < hi:
            clusters[-1].append(c)
            hi = max(hi, c.qe, c.b)
        else:
            clusters.append([c])
            hi = max(c.qe, c.b)
    out: list[_Group] = []
    for members in clusters:
        group = _compose_one(members, located, chapter, ms, claims, rechecks, proposal, markdown, snapshot)
        if group is not None:
            out.append(group)
    return out


def _withdraw(proposal: Proposal, ids, reason: str) -> None:
    for cid in dict.fromkeys(ids):
        if not any(w["claim"] == cid for w in proposal.withdrawn):
            proposal.withdrawn.append({"claim": cid, "reason": reason})


def _compose_one(members: list[_Change], located: dict, chapter: Chapter, ms: Measurements, claims: dict, rechecks,
                 proposal: Proposal, markdown: bool, snapshot: str) -> _Group | None:
    while True:   # collisions: two claims wanting different words in one place cannot both be written
        spots: dict[tuple[int, int], dict[str, list[str]]] = {}
        for m in members:
            spots.setdefault((m.a, m.b), {}).setdefault(m.text, []).append(m.claim)
        edits: list[tuple[int, int, str, list[str]]] = []
        clash = None
        for (a, b), texts in sorted(spots.items()):
            ids = [cid for ids in texts.values() for cid in ids]
            if a < b and len(texts) > 1:
                clash = (ids, f"the claims quoting this sentence need different words in place of “{snapshot[a:b]}” ("
                              + "; ".join(f"{', '.join(dict.fromkeys(i))}: “{t}”" for t, i in texts.items()) + ")")
                break
            edits.append((a, b, _merge_insertions(list(texts)) if a == b else next(iter(texts)), ids))
        if clash is None:
            for (a1, b1, _, i1), (a2, b2, _, i2) in zip(edits, edits[1:]):
                if a2 < b1 or (a1 < a2 < b1):
                    clash = (i1 + i2, f"the changes for {', '.join(dict.fromkeys(i1))} and "
                                      f"{', '.join(dict.fromkeys(i2))} overlap in “{snapshot[a1:max(b1, b2)]}”")
                    break
        if clash is None:
            break
        ids, why = clash
        _withdraw(proposal, ids, why + "; no one sentence holds them all, so the author words it (each finding "
                                     "gives its value)")
        members = [m for m in members if m.claim not in ids]
        if not members:
            return None
    # the hunk holds the sentence: every finding's quote with its change, so the lines shown are the whole sentence
    start = min([e[0] for e in edits] + [m.qs for m in members if not m.more])
    end = max([e[1] for e in edits] + [m.qe for m in members if not m.more])
    text = snapshot[start:end]
    for a, b, t, _ in sorted(edits, reverse=True):
        text = text[:a - start] + t + text[b - start:]
    after = snapshot[:start] + text + snapshot[end:]
    plan_ids = list(dict.fromkeys(m.claim for m in members))
    if markdown:
        first, last = snapshot.count("\n", 0, start), snapshot.count("\n", 0, end)
        broken = changed_structure(snapshot, after, (first, last), text.count("\n") - snapshot[start:end].count("\n"))
        if broken:
            _withdraw(proposal, plan_ids, f"the new text would change the chapter's structure outside the sentence "
                                          f"({broken}); the finding says what to change")
            return None

    left, right = _sentence_bounds(snapshot, start, end)
    # a listing's rewrite is code, checked by running it: the words at stake are those of prose
    stake = "" if any(claims[cid].kind == "code" for cid in plan_ids) else at_stake(
        snapshot[left:right], snapshot[left:start] + text + snapshot[end:right],
        [(snapshot[a:b], t) for a, b, t, _ in edits])
    if stake:
        _withdraw(proposal, plan_ids, f"{stake}; the finding gives the value, and the author words the sentence")
        return None

    def moved(p: int, own: str | None, end_side: bool) -> int:
        """Offset ``p`` of the snapshot in ``after``: words added at ``p`` come before it, unless ``p`` ends a
        quote whose own claim added them there."""
        shift = 0
        for a, b, t, ids in edits:
            if b < p or (a < p and b <= p) or (a == b == p and end_side and own in ids):
                shift += len(t) - (b - a)
        return p + shift

    spans = {}
    for m in members:
        if not m.more:
            s0, e0 = spans.get(m.claim, (m.qs, m.qe))
            spans[m.claim] = (min(s0, m.qs), max(e0, m.qe))
    others = [cid for cid, (s0, e0, verdict) in located.items() if cid not in spans and verdict in _RANK
              and claims[cid].kind != "code"
              and any((s0 < b and a < e0) if a < b else s0 < a < e0 for a, b, _, _ in edits)]
    for cid in others:
        spans[cid] = located[cid][:2]
    register: dict[tuple[str, str], Edit] = {}
    for m in members:
        for e in m.plan["edits"]:
            register[(e.claim, e.field)] = e
    quotes = {}
    for cid, (s0, e0) in spans.items():
        if any(m.more for m in members if m.claim == cid) and not any(not m.more for m in members if m.claim == cid):
            continue
        if claims[cid].kind == "code":
            continue   # a listing's quote is its signature line, which its own plan rewrites
        q = after[moved(s0, None, False):moved(e0, cid, True)]
        quotes[cid] = q if "\n" in claims[cid].quote else q.replace("\n", " ")
        if cid in plan_ids or quotes[cid] != claims[cid].quote:
            register[(cid, "quote")] = Edit(cid, "quote", quotes[cid])
    _rederive_records(register, claims, snapshot, after, edits, moved)
    joint = len(plan_ids) > 1 or bool(others)
    verdicts: dict[str, str] = {}
    if joint:
        import dataclasses
        trial = dataclasses.replace(chapter, snapshot=dataclasses.replace(chapter.snapshot, text=after))
        for cid in [*plan_ids, *others]:
            if cid not in quotes:
                continue
            own = [e for (c, _), e in register.items() if c == cid]
            try:
                verdicts[cid] = _recheck_joint(claims[cid], own, trial, ms, rechecks, after[start:end])
            except (AuditError, RegisterEditError, ValueError) as exc:
                verdicts[cid] = f"error ({getattr(exc, 'message', exc)})"
        failed = []
        for cid, verdict in verdicts.items():
            if cid in plan_ids:
                actions = {m.plan["action"] for m in members if m.claim == cid}
                ok = verdict == "supported" or (verdict == "qualified" and actions == {"state a convention"})
            else:   # a claim quoting the changed words: the new sentence must hold for it too
                ok = _RANK.get(verdict, -1) >= max(_RANK[located[cid][2]], _RANK["qualified"])
            if not ok:
                failed.append(f"{cid} is {verdict}" + ("" if cid in plan_ids else f" (it quotes the changed words; "
                                                          f"it was {located[cid][2]})"))
        if failed:
            _withdraw(proposal, plan_ids, "the changes for " + ", ".join(plan_ids) + " made at once, and every claim "
                      "quoting the sentence re-run on the new text: " + "; ".join(failed)
                      + "; the sentence must be worded by the author (each finding gives its value)")
            return None
    plans = [m.plan for m in members if not m.more] or [members[0].plan]
    first_plan = plans[0]
    checks = list(dict.fromkeys(p["check"] for p in plans))
    if len(plan_ids) == 1:
        p = first_plan
        check = p["check"] + (("; every other claim quoting the sentence re-run on the new text keeps its verdict ("
                               + ", ".join(f"{c} {verdicts[c]}" for c in others if c in verdicts) + ")")
                              if others else "")
        shown = p["text"].strip() if not members[0].more else members[0].text.strip()
        replaced = p["replaced"]
        if any(m.more for m in members):
            replaced, shown = members[0].plan["replaced"], members[0].text.strip()
        response = (f"{p['response'].rstrip('.')} ({check.replace('re-checked: ', 'checked: ', 1)})."
                    + p.get("then", ""))
        action, rationale, tradeoff = p["action"], p["rationale"], p["tradeoff"]
    else:
        s0 = min(spans[c][0] for c in plan_ids)
        e0 = max(spans[c][1] for c in plan_ids)
        replaced = snapshot[s0:e0]
        shown = " ".join(after[moved(s0, None, False):moved(e0, plan_ids[-1], True)].split())
        check = ("re-checked together: the changes for " + ", ".join(plan_ids) + " made at once in one sentence, and "
                 "every claim quoting it re-run on the new text (" + ", ".join(f"{c} {v}" for c, v in verdicts.items())
                 + "); " + "; ".join(c.replace("re-checked: ", "", 1) for c in checks))
        action = " and ".join(dict.fromkeys(p["action"] for p in plans))
        rationale = " ".join(dict.fromkeys(p["rationale"] for p in plans))
        tradeoff = " ".join(dict.fromkeys(p["tradeoff"] for p in plans))
        response = ("One change to the sentence for " + ", ".join(plan_ids) + ": "
                    + "; ".join(dict.fromkeys(_lower_first(p["response"].rstrip(".")) for p in plans))
                    + f", so that it reads “{shown}” ({check.replace('re-checked together: ', 'checked: ', 1)})."
                    + "".join(dict.fromkeys(p.get("then", "") for p in plans)))
    conventions = list(dict.fromkeys(n for p in plans for n in p.get("conventions", [])))
    return _Group(start, end, text, plan_ids, action, replaced, shown, rationale, tradeoff, check, conventions,
                  [e.as_dict() for e in register.values()], response)


def _sentence_bounds(text: str, a: int, b: int) -> tuple[int, int]:
    """The sentence of ``text`` around ``text[a:b]``: from the end of the sentence or paragraph before it to the end
    of its own."""
    left = max([0] + [i + len(sep) for sep in (". ", "? ", "! ", "\n\n") if (i := text.rfind(sep, 0, a)) >= 0])
    right = min([len(text)] + [i + 1 for sep in (". ", "? ", "! ", ".\n", "\n\n") if (i := text.find(sep, b)) >= 0])
    return left, right


def _rederive_records(register: dict, claims: dict, snapshot: str, after: str, edits, moved) -> None:
    """The ``derived:`` record of each claim init drafted that the patch edits, brought to the patched sentence: its
    sentence as the patch prints it, and the fingerprints of the fields init wrote as the patch writes them (a field
    the author wrote stays the author's). The patch is the tool's edit: on the rerun the claim is read as the patch
    left it, not derived again from a sentence the patch changed."""
    from audit.register.derived import field_print, fields_of, hand_written
    for cid in dict.fromkeys(c for c, _ in list(register)):
        claim = claims.get(cid)
        record = getattr(claim, "derived", None)
        if record is None:
            continue
        x = snapshot.find(record.sentence)
        y = x + len(record.sentence)
        if x < 0 or not any((x < b and a < y) if a < b else x <= a <= y for a, b, _, _ in edits):
            continue
        data = claim.model_dump(mode="json", exclude_unset=True)
        try:
            for (c, _), e in list(register.items()):
                if c == cid:
                    set_field(data, e)
            new = type(claim).model_validate(data)
        except (RegisterEditError, ValueError):
            continue
        hand = set(hand_written(claim))
        fields = {name: value for name, value in record.fields.items() if name in hand}
        fields.update({name: field_print(value) for name, value in fields_of(new).items() if name not in hand})
        register[(cid, "derived")] = Edit(cid, "derived", {"sentence": after[moved(x, None, False):moved(y, cid, True)],
                                                          "fields": fields})


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:1].isupper() and text[1:2].islower() else text


def _recheck_joint(claim, edits: list[Edit], trial: Chapter, ms: Measurements, store, sentence: str) -> str:
    """The verdict of ``claim`` with ``edits`` made to its register entry, run on ``trial`` (the chapter with the
    composed sentence), kept in ``store`` under the edits and the sentence."""
    what = "recheck joint " + json.dumps([sentence, [e.as_dict() for e in edits]], sort_keys=True, ensure_ascii=False)
    stored = store.get(claim.id, what) if store is not None else None
    if stored is not None and stored.get("verdict") in ("supported", "qualified", "contradicted", "error"):
        return stored["verdict"]
    data = claim.model_dump(mode="json", exclude_unset=True)
    for e in edits:
        set_field(data, e)
    new = type(claim).model_validate(data)
    verdict = decide(CHECKERS[new.kind](new, trial, ms)).verdict
    if store is not None:
        store.put(claim.id, what, {"verdict": verdict})
    return verdict


def propose(results: list[ClaimResult], chapter: Chapter, ms: Measurements, snapshot_file: str,
            rechecks=None, register_file: str = "") -> Proposal:
    """Hunks for the findings (qualified or contradicted claims), in snapshot order, each checked: the claim re-run
    on the new sentence (with its register entry edited to match) must be supported. Each hunk carries the response
    its finding proposes (``respond`` puts it there), so Findings, the patch and the checklist say the same.
    ``rechecks``: where re-checks that need the references are kept per claim key (or None)."""
    claims = {c.id: c for c in chapter.register.claims}
    snapshot = chapter.snapshot.text
    starts = [0] + [i + 1 for i, ch in enumerate(snapshot) if ch == "\n"]
    planned: list[_Change] = []   # each finding's change, offsets in the snapshot
    proposal = Proposal(file=snapshot_file, register_file=register_file)
    closed_markdown = _reads_markdown(chapter)
    closed = closed_spans(snapshot, closed_markdown)
    for r in results:
        if r.verdict not in ("qualified", "contradicted", "stale", "error"):
            continue
        claim = claims[r.id]
        if r.anchor_state == "edited" and r.found_text:
            claim = edited_claim(claim, r.found_text)[0]   # checked as now printed, so proposed as now printed
        try:
            if r.verdict == "stale" or (r.verdict == "error" and r.response.startswith("In the register, fix `")):
                raise _Skip("the claim could not be checked against this revision; fix the register first")
            if r.verdict == "error":
                raise _Skip("the check did not complete (see the claim's response); nothing about the text was "
                            "decided")
            start, end = _locate(r, snapshot, starts)
            quote = snapshot[start:end]
            if claim.kind in ("value", "arithmetic", "statistic") and any(
                    c.kind == "code block" and c.start <= start < c.end for c in closed) and not _authors_comment(
                    snapshot, start):
                raise _Skip(PROGRAM_OUTPUT)
            if claim.kind in ("value", "arithmetic") and r.verdict == "qualified" and _MORE_PLACES.search(r.response):
                plan = _rounding_plan(claim, chapter, ms, r, quote, rechecks)
            elif claim.kind == "value":
                plan = _value_plan(claim, chapter, ms, r, quote, rechecks)
            elif claim.kind == "arithmetic":
                plan = _arithmetic_plan(claim, chapter, ms, r, quote, rechecks)
            elif claim.kind == "property":
                plan = _property_plan(claim, chapter, ms, r, quote)
            elif claim.kind == "convention":
                plan = _convention_plan(claim, chapter, ms, r, quote, snapshot, end, rechecks, closed_markdown)
            elif claim.kind == "statistic":
                plan = _statistic_plan(claim, chapter, ms, r, quote, rechecks)
            elif claim.kind == "code":
                plan = _code_plan(claim, chapter, ms, r, snapshot, start, rechecks)
            else:
                raise _Skip(f"no checked text for a {claim.kind} claim")
        except _Skip as skip:
            proposal.not_proposed.append({"claim": r.id, "reason": str(skip)})
            continue
        except _Withdrawn as failed:
            proposal.withdrawn.append({"claim": r.id, "reason": str(failed)})
            continue
        except RegisterEditError as exc:
            proposal.withdrawn.append({"claim": r.id, "reason": f"the register could not be edited to match: {exc}"})
            continue
        except AuditError as exc:
            proposal.withdrawn.append({"claim": r.id, "reason": f"the check of the new text failed: {exc.message}"})
            continue
        if "span" in plan:
            a, b = start + plan["span"][0], start + plan["span"][1]
        elif "at" in plan:
            a = b = plan["at"]
        elif plan.get("at_end") and row_label_end(quote) is not None:
            # a table row: text after the row's last cell is dropped by Markdown, so it goes into the row's label
            a = b = start + row_label_end(quote)
            plan = {**plan, "row_label": True}
        elif plan.get("at_end"):
            # inside the sentence: before the quote's own closing full stop, if it has one
            a = b = end - 1 if quote and quote[-1] in ".!?;:" else end
        else:
            a, b = start, end
        inside = _closed_at(closed, a, b, plan)
        if inside:
            proposal.not_proposed.append({"claim": r.id, "reason": (
                f"the words to add would go inside a {inside} (the sentence's end is there), which they would break; "
                "the finding says what to state, and where is the author's choice")})
            continue
        planned.append(_Change(r.id, plan, a, b, plan["text"], min(start, a), max(end, b)))
        for x, y, text in plan.get("more", []):  # further spans of the same finding (a value printed after a call)
            planned.append(_Change(r.id, {**plan, "text": text, "replaced": snapshot[x:y], "edits": [],
                                          "action": "correct a value after a call"}, x, y, text, x, y, more=True))
    located = {}
    for r in results:
        if r.line and r.column and r.found_text and r.verdict in ("supported", "qualified", "contradicted"):
            s0 = starts[r.line - 1] + r.column - 1
            if snapshot[s0:s0 + len(r.found_text)] == r.found_text:
                located[r.id] = (s0, s0 + len(r.found_text), r.verdict)
    groups = _compose(planned, located, chapter, ms, claims, rechecks, proposal, closed_markdown)
    # apply in snapshot order; a later hunk sees the earlier ones' text. A hunk holds the whole lines its change
    # touches (several, when the sentence runs over a line break), as they read before and after it.
    current, shift = snapshot, 0
    for g in groups:
        start, end, text = g.start, g.end, g.text
        a, b = start + shift, end + shift
        first = current.rfind("\n", 0, a) + 1
        last = current.find("\n", b)
        last = len(current) if last < 0 else last
        changed = current[:a] + text + current[b:]
        old, new = current[first:last], changed[first:last + len(text) - (b - a)]
        line = current.count("\n", 0, first) + 1
        current = changed
        shift += len(text) - (end - start)
        proposal.hunks.append(Hunk(claim=g.claims[0], claims=g.claims if len(g.claims) > 1 else [], line=line,
                                   snapshot_line=snapshot.count("\n", 0, start) + 1,
                                   old=old, new=new, action=g.action, replaced=g.replaced, text=g.shown,
                                   rationale=g.rationale, tradeoff=g.tradeoff, check=g.check,
                                   conventions=g.conventions, register_edits=g.register_edits, response=g.response))
    _shared_quotes(proposal, chapter)
    _shared_words(proposal, chapter)
    return proposal


def _core(old: str, new: str) -> tuple[str, str] | None:
    """The words a change replaces and writes (``_minimal``: "IDCG@3 = 4.50" → "IDCG@3 = 4.26" is "4.50" → "4.26");
    None when nothing is replaced."""
    a, b, written = _minimal(old, 0, len(old), new)
    core_old, core_new = old[a:b].strip(), written.strip()
    return (core_old, core_new) if core_old and core_old != core_new and len(core_old) <= 40 else None


def _shared_words(proposal: Proposal, chapter: Chapter) -> None:
    """Every claim quoting a sentence a hunk changes: its title and claim text follow each number or word the hunks
    change in that sentence, in the order the patch applies them, not its own alone — a claim text printing its
    siblings' numbers ("IDCG@3 = 4.50, DCG@3 = 4.26 and nDCG@3 = 0.95") follows them all — where it prints the old
    one once."""
    original = {c.id: c for c in chapter.register.claims}
    running: dict[tuple[str, str], str] = {}
    for h in proposal.hunks:
        core = _core(h.replaced, h.text)
        if core is None:
            continue
        old, new = core
        own = {(e["claim"], e["field"]): e for e in h.register_edits if e["field"] in ("title", "claim")}
        quoting = [c for c in original.values() if c.id in (h.claim, *h.claims)
                   or (c.quote and " ".join(c.quote.split()) in " ".join(h.old.split()))]
        for c in quoting:
            for name in ("title", "claim"):
                key = (c.id, name)
                first = getattr(c, name, "") or ""
                base = running.get(key, first)
                moved = _replace_once(base, old, new)
                if key in own:
                    if base != first and own[key]["value"] == _replace_once(first, old, new) and moved is not None:
                        own[key]["value"] = moved   # the own edit, made on the text the earlier hunks left
                    running[key] = own[key]["value"]
                elif moved is not None and moved != base:
                    h.register_edits.append({"claim": c.id, "field": name, "value": moved})
                    running[key] = moved


def _shared_quotes(proposal: Proposal, chapter: Chapter) -> None:
    """Every claim whose quote holds the text a hunk changes (the hunk's own claim too, when its plan left the quote
    as it was) gets its quote edited with the same change, in that hunk's register edits ("Rejected 16 6 Whole
    cohort 43 8" is C39's quote as well as C40's: correcting C40's 8 to 7 changes C39's quote too), so no claim is
    left quoting a sentence the patch rewrote. A quote is found as the anchors find it, a line break in the text
    matching its space (and written back as a space). A quote the change only partly overlaps is left for the rerun
    to report (edited)."""
    quotes = {c.id: c.quote for c in chapter.register.claims}
    for h in proposal.hunks:
        for e in h.register_edits:
            if e["field"] == "quote":
                quotes[e["claim"]] = e["value"]
        old, new = h.old, h.new
        p = 0
        while p < min(len(old), len(new)) and old[p] == new[p]:
            p += 1
        q = 0
        while q < min(len(old), len(new)) - p and old[-1 - q] == new[-1 - q]:
            q += 1
        a, b = p, len(old) - q            # the changed span of the old line
        own = any(e["field"] == "quote" and e["claim"] == h.claim for e in h.register_edits)
        for cid, quote in quotes.items():
            if (cid == h.claim and own) or not quote.split():
                continue
            pattern = re.compile(r"\s+".join(map(re.escape, quote.split())))
            if pattern.search(new):
                continue
            spots = list(pattern.finditer(old))
            if len(spots) != 1 or not (spots[0].start() <= a and b <= spots[0].end()):
                continue
            i, j = spots[0].span()
            changed = new[i:j + len(new) - len(old)].replace("\n", " ")
            h.register_edits.append(Edit(cid, "quote", changed).as_dict())
            quotes[cid] = changed


#: Where a finding's response goes on past its first proposal: alternatives the check offers ("Or, if this example
#: means …"), the register's own free-text rewording. They are kept after the hunk's wording.
_RESPONSE_TAILS = (" Or, ", " The register also suggests")


def respond(results: list[ClaimResult], proposal: Proposal) -> None:
    """Each finding with a hunk proposes that hunk's change, in the hunk's words (one source for Findings, the patch
    and the checklist); what the finding offered beyond its first proposal is kept after it. Idempotent."""
    by_claim: dict[str, Hunk] = {}
    for h in proposal.hunks:
        if h.response:
            for cid in h.claims or [h.claim]:
                by_claim.setdefault(cid, h)
    outputs = {n["claim"] for n in proposal.not_proposed if n["reason"] == PROGRAM_OUTPUT}
    for r in results:
        if r.id in outputs and not r.response.startswith((_OUTPUT_RESPONSE, _OUTPUT_ARITHMETIC)):
            said = re.search(r"to “([^”]+)”", r.response)
            if r.kind == "arithmetic":
                r.response = _OUTPUT_ARITHMETIC + (f" The expression it prints gives {said.group(1)}." if said else "")
            else:
                r.response = _OUTPUT_RESPONSE + (f" Under that definition the value is {said.group(1)}." if said else "")
            continue
        h = by_claim.get(r.id)
        if h is None or r.response.startswith(h.response):
            continue
        cuts = [r.response.find(t) for t in _RESPONSE_TAILS if r.response.find(t) >= 0]
        r.response = h.response + (r.response[min(cuts):] if cuts else "")


def register_text(original: str, proposal: Proposal) -> str:
    """The register with every hunk's edits made (what the patch's second part produces). Raises
    ``RegisterEditError`` when an edit does not fit."""
    return apply_edits(original, [Edit(**e) for h in proposal.hunks for e in h.register_edits])


def fit_register(original: str, proposal: Proposal) -> None:
    """Keep in ``proposal`` only the hunks whose register edits can be made in the register's text ``original``
    together (in their order); each other hunk is withdrawn, naming why (a quote written once and used again through
    a YAML alias, say), so the patch never leaves a register that does not read."""
    try:
        register_text(original, proposal)
        return
    except RegisterEditError:
        pass
    kept: list[Hunk] = []
    for h in proposal.hunks:
        try:
            apply_edits(original, [Edit(**e) for k in kept + [h] for e in k.register_edits])
        except RegisterEditError as exc:
            proposal.withdrawn.append({"claim": h.claim, "reason": f"the register could not be edited to match: {exc}"})
            continue
        kept.append(h)
    proposal.hunks = kept


def patched_text(original: str, proposal: Proposal) -> str:
    """The snapshot with every hunk applied (what ``patch -p0`` produces)."""
    lines = original.split("\n")
    for h in proposal.hunks:
        span = slice(h.line - 1, h.line + h.old.count("\n"))   # the lines the hunk holds
        if "\n".join(lines[span]) != h.old:
            raise AuditError(f"hunk for {h.claim} does not apply at line {h.line}")
        lines[span] = h.new.split("\n")
    return "\n".join(lines)
