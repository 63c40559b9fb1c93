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
re-checked with every claim quoting it (``compose``); changes that need different words in one place, a new text
that would change the chapter's Markdown structure (parsed before and after), or a failed joint re-check withdraw
the sentence's hunk. Words are never added inside a display formula, a code block, a table (but a row's label) or a
doctest. Hunks are applied in snapshot order, each to the text the previous ones produced.
"""

from __future__ import annotations

import re
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
from audit.model.values import display, format_exact, parse_claimed
from audit.model.expressions import rounded_decimals
from audit.text.scan import printed_correction
from audit.register.claims import canonical_rule
from audit.register.options import reference_name
from audit.evaluation.checks.arithmetic import correction as arithmetic_correction
from audit.evaluation.checks.arithmetic import mean_divisor
from audit.evaluation.checks.arithmetic import recount
from audit.text.encode_arithmetic import printed_expressions
from audit.model.results import ClaimResult, Hunk, Proposal
from audit.research.ledger import _CLAIM_CONVENTION
from audit.research.register_edit import Edit, RegisterEditError
from audit.text.anchors import edited_claim
from audit.text.markdown import block_end, closed_spans
from audit.research.register_edit import apply as apply_edits
from audit.research.outcomes import Skip, Withdrawn
from audit.research.rewrite import correction, own_words, recheck, replace_once
from audit.research.listing_plan import code_plan
from audit.research.compose import Change, compose
from audit.research.shared_quotes import shared_quotes, shared_words

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
        raise Skip("the quote was not found in the snapshot")
    start = starts[result.line - 1] + result.column - 1
    end = start + len(result.found_text)
    if text[start:end] != result.found_text:
        raise Skip("the quote was only found after folding quotes and whitespace, so no exact edit can be placed")
    return start, end


def _sentence_end(text: str, end: int, markdown: bool = True) -> tuple[int, str]:
    """Where words added after the sentence holding position ``end`` go, and what precedes them: after its full stop,
    or at its paragraph's end (read as Markdown when ``markdown``) when no full stop follows in it. A full stop inside
    a formula or a code span does not end the sentence; a sentence that ends in a display formula gets the words on a
    line of their own after it (``"\\n"``), never on the formula's ``$$`` line. Raises ``Skip`` when that place is in a
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
            raise Skip(f"the sentence ends in a {c.kind}; words added there would break it, so the finding says what "
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
        raise Skip("the sentence itself reads two ways (a mean over queries, or a share of all relevant material); "
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
            raise Skip(f"a bound ({e.claimed}) the value breaks: whether the bound or the statement's measure is "
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
                raise Skip("the readings give several values and none is the printed one; the convention must be "
                           "chosen by the author first")
            printed = str(e.claimed).strip().lstrip("≈~ ").strip()
            decimals = re.search(r"\.(\d+)$", printed)
            new = (f"{float(values[0]):.{len(decimals.group(1))}f}".lstrip("0") if printed.startswith(".") else
                   f"{float(values[0]):.{len(decimals.group(1))}f}") if decimals else display(format_exact(values[0]))
            if not verify_statement(ms, fixture, e.measure, declared, e.query,
                                    parse_claimed(("≈ " if decimals else "") + new, tolerance=e.tolerance), {}):
                raise Withdrawn(f"the corrected value {new} did not hold under every reading when re-checked")
            corrections[printed] = new
            exacts[printed] = values[0]
    if corrections:
        return "correct a value", corrections, (
            "re-checked: the new value holds under every reading the chapter allows (checks.value.verify_statement)"), \
            exacts
    if not extra:
        raise Skip("the chapter's definitions give the printed value under every reading; the qualification comes "
                   "from a reference, explained in the finding")
    for e in claim.expect:
        claimed = parse_claimed(e.claimed, tolerance=e.tolerance)
        declared = sentence_declared(ms, chapter, claim, fixture, e.measure, claimed, e.query, e.aggregate)
        if not verify_statement(ms, fixture, e.measure, declared, e.query, claimed,
                                {n: v for n, v in extra.items()}):
            raise Withdrawn("no single convention makes the printed value hold under every remaining reading")
    text = " (here " + "; ".join(_plain_phrase(n, v) for n, v in extra.items()) + ")"
    alternatives = "; ".join(dict.fromkeys(f"{o.label()} gives {_show(o.value)}" for o in others))
    return "state a convention", extra, (
        "re-checked: with " + ", ".join(f"{CONVENTIONS[n].title} {v}" for n, v in extra.items())
        + " stated, the printed value holds under every remaining reading (checks.value.verify_statement)"), \
        text, alternatives


def _by_reference(claim, result: ClaimResult) -> dict[str, str]:
    """Printed value → correction, for each expectation about what a reference returns that it does not: the
    value that reference returned (the claim re-run on the corrected sentence, by ``correction``, decides again
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
            raise Skip(f"{e.by} returns no number here ({shown}{': ' + rows[0].detail if rows[0].detail else ''}); "
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
        raise Skip("no checked rewording for this kind of universal statement")
    weak = decide(CHECKERS["property"](claim.model_copy(update={"relation": weaker}), chapter, ms))
    if weak.verdict == "supported":
        word = "never lowers" if claim.relation == "increases" else "never raises"
        return word, f"re-checked: the search for “{claim.measure}@k {weaker}” as k grows found no counterexample"
    both = CHECKERS["property"](claim.model_copy(update={"relation": "rises or falls"}), chapter, ms)
    if decide(both).verdict != "supported":
        raise Withdrawn("the search did not show the measure moving both ways")
    return "can raise or lower", "re-checked: " + "; ".join(both.scopes)


#: The register fields a reworded universal statement changes besides its relation: none of them is searched, so
#: the claim re-run on the new sentence is the search ``_property`` just ran for the new relation.
_WORDS_ONLY = frozenset({"quote", "title", "claim"})


def _convention(claim, chapter: Chapter, result: ClaimResult, references, book, rechecks=None):
    """The caveat naming what each reference does, from the probe run again on every reference with nothing
    cached; kept in ``rechecks`` (by the claim's key) when every reference answered."""
    if claim.by:
        # a caveat after a false sentence about a library would leave the sentence in place
        raise Skip(f"a sentence about what {claim.by} does: the finding names the rule {claim.by} was seen to follow "
                   "on the probe; the sentence must say that instead, and no caveat added after it would")
    stored = rechecks.get(claim.id, "convention caveat") if rechecks is not None else None
    if stored is not None and isinstance(stored.get("text"), str) and isinstance(stored.get("check"), str):
        return stored["text"], stored["check"]
    if stored is not None and isinstance(stored.get("withdrawn"), str):
        raise Withdrawn(stored["withdrawn"])
    try:
        text, check, complete = _convention_caveat(claim, chapter, references, book)
    except Withdrawn as failed:
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
        withdrawn = Withdrawn("re-running the probe, every reference follows the chapter's rule")
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


def _value_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, quote: str, rechecks) -> dict:
    out = _value(claim, chapter, ms, r)
    if out[0] == "correct a value":
        fields = []
        for i, e in enumerate(claim.expect):
            claimed = str(e.claimed)
            for old, new in out[1].items():
                changed = replace_once(claimed, old, new)
                if changed is not None:
                    fields.append((f"expect.{i}.claimed", changed))
                    claimed = changed
        by = any(reference_name(e.by) is not None for e in claim.expect)
        return correction(claim, r, quote, out[1], fields, chapter, ms,
                          "decided again by the library the sentence is about" if by else
                          "the new value holds under every reading the chapter allows", rechecks, exacts=out[3],
                          every_reading=not by)
    _, extra, check, text, alternatives = out
    conventions = {**{k: v for k, v in (claim.model_dump(mode="json").get("conventions") or {}).items()},
                   **{n: {"value": v, "quote": text.strip()[1:-1]} for n, v in extra.items()}}
    edits = [Edit(claim.id, "conventions", conventions)]
    # the chapter's readings all hold with it stated (``_value`` checked that); a reference that follows another
    # convention still qualifies the claim, and its own finding says what to add
    verdict = recheck(claim, edits, chapter, ms, rechecks)
    if verdict not in ("supported", "qualified"):
        raise Withdrawn(f"the claim re-run with the convention stated is {verdict}")
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
        raise Skip("the printed arithmetic holds; the qualification is explained in the finding")
    if claim.computes is not None:
        measured = next((Fraction(v.exact) for check in r.checks if check.label.startswith(_COMPUTES)
                         for v in check.values if v.implementation == "chapter" and v.status == "ok" and v.exact), None)
        fix = recount(claim, measured) if measured is not None else None
        if fix is None:
            raise Skip("the printed value is computed from printed terms; which term or total to change is the "
                       "author's choice, given in the finding")
        return correction(claim, r, quote, {fix[0]: fix[1]}, [("expression", fix[3]), ("claimed", fix[4])], chapter,
                          ms, f"the measure it computes is {display(format_exact(measured))} and the printed terms "
                          "over the corrected count give it", rechecks)
    divided = mean_divisor(claim, chapter)
    if divided is not None:
        # the sentence calls the sum a mean: its divisor is what is missing, not another value
        old_expression, new_expression, mean = divided
        return correction(claim, r, quote, {old_expression: new_expression}, [("expression", new_expression)], chapter,
                          ms, f"the sentence calls it a mean, and {new_expression} ≈ {float(mean):.6f} gives the "
                          f"printed {claim.claimed}", rechecks)
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
        raise Skip("the printed value is written as the expression's value would be; the finding explains the "
                   "difference")
    plan = correction(claim, r, quote, {old_num: new_num}, [("claimed", new)], chapter, ms, how, rechecks)
    for o, n in words:
        plan["edits"] += [e for e in own_words(claim, o, n)
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
            raise Skip("the rounded terms are not printed in the sentence as the finding read them")
        old_expression = found[0]
    old_terms = [old_expression[a:b] for a, b, _, _ in rounded_decimals(old_expression)]
    new_terms = [new_expression[a:b] for a, b, _, _ in rounded_decimals(new_expression)]
    if len(old_terms) != len(new_terms):
        raise Skip("the terms to print to more places cannot be matched with the printed ones")
    corrections = {o: n for o, n in zip(old_terms, new_terms) if o != n}
    old_value = claimed_text.strip().lstrip("≈~ ").strip()
    corrections[old_value] = new_value.strip()
    if claim.kind == "arithmetic":
        new_claimed = claimed_text.replace(old_value, new_value.strip(), 1)
        fields = [("expression", new_expression), ("claimed", new_claimed)]
    else:
        fields = [(f"expect.{i}.claimed", str(e.claimed).replace(old_value, new_value.strip(), 1))
                  for i, e in enumerate(claim.expect) if str(e.claimed) == claimed_text]
    plan = correction(claim, r, quote, corrections, fields, chapter, ms,
                      "the new terms, as printed and exactly, give the new value", rechecks)
    plan["rationale"] = f"{r.concern} {r.reason}"
    return plan


def _statistic_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, quote: str, rechecks) -> dict:
    """A wrong printed statistic replaced by the one its first reading gives, and a wrong conclusion turned (“not
    significant”), the claim re-run on the new sentence."""
    from audit.evaluation.checks.statistic import corrections, flip_decision
    if r.verdict != "contradicted":
        raise Skip("the printed values hold under a reading the text leaves open; the finding says which to state")
    try:
        changes, fields, decision = corrections(claim, chapter, ms)
    except AuditError as exc:
        raise Skip(exc.message)
    if not changes and decision is None:
        raise Skip("no printed number or conclusion of the sentence is what no reading gives; the finding says what "
                   "to change")
    reword = None
    if decision is not None:
        said = claim.decision
        reword = (lambda text: flip_decision(text, said),
                  ("significant", "not significant") if said == "significant" else ("not significant", "significant"))
    plan = correction(claim, r, quote, changes, fields, chapter, ms,
                      "recomputed exactly and by scipy on the sentence's data", rechecks, reword)
    # a reported test's new p that crosses α: the conclusion drawn elsewhere must change too (the finding says so)
    turn = r.response.find(" The difference is then")
    if turn >= 0:
        plan["response"] = plan["response"].rstrip(".") + "." + r.response[turn:]
    return plan


def _property_plan(claim, chapter: Chapter, ms: Measurements, r: ClaimResult, quote: str) -> dict:
    if WEAKER.get(claim.relation) is None or claim.compare != "next_cutoff":
        raise Skip("no checked rewording for this kind of universal statement (only a strict change with k has a "
                   "weaker form to propose); the finding shows the counterexample")
    m = _ALWAYS.search(quote)
    if not m:
        raise Skip("the universal wording (“always …”) was not recognised in the quote")
    word, check = _property(claim, chapter, ms, r)
    relation = WEAKER[claim.relation] if word.startswith("never") else "rises or falls"
    register_quote = claim.quote.replace(m.group(0), word, 1) if claim.quote.count(m.group(0)) == 1 else None
    if register_quote is None:
        raise Skip("the universal wording appears more than once in the register's quote")
    edits = [Edit(claim.id, "quote", register_quote), Edit(claim.id, "relation", relation)]
    edits += [e for e in own_words(claim, m.group(0), word) if e.field == "title"]
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
        raise Withdrawn("re-running the probe, no reference's departure from the chapter's rule could be named")
    pos, lead = _sentence_end(text_all, end, markdown)
    text = lead + text.lstrip() if lead else text
    register_quote = claim.quote + (text_all[end:pos] + text).replace("\n", " ")
    edits = [Edit(claim.id, "quote", register_quote), Edit(claim.id, "others", others)]
    verdict = recheck(claim, edits, chapter, ms, rechecks)
    if verdict != "supported":
        raise Withdrawn(f"the claim re-run with the caveat is {verdict}, not supported")
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


def propose(results: list[ClaimResult], chapter: Chapter, ms: Measurements, snapshot_file: str,
            rechecks=None, register_file: str = "") -> Proposal:
    """Hunks for the findings (qualified or contradicted claims), in snapshot order, each checked: the claim re-run
    on the new sentence (with its register entry edited to match) must be supported. Each hunk carries the response
    its finding proposes (``respond`` puts it there), so Findings, the patch and the checklist say the same.
    ``rechecks``: where re-checks that need the references are kept per claim key (or None)."""
    claims = {c.id: c for c in chapter.register.claims}
    snapshot = chapter.snapshot.text
    starts = [0] + [i + 1 for i, ch in enumerate(snapshot) if ch == "\n"]
    planned: list[Change] = []   # each finding's change, offsets in the snapshot
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
                raise Skip("the claim could not be checked against this revision; fix the register first")
            if r.verdict == "error":
                raise Skip("the check did not complete (see the claim's response); nothing about the text was "
                           "decided")
            start, end = _locate(r, snapshot, starts)
            quote = snapshot[start:end]
            if claim.kind in ("value", "arithmetic", "statistic") and any(
                    c.kind == "code block" and c.start <= start < c.end for c in closed) and not _authors_comment(
                    snapshot, start):
                raise Skip(PROGRAM_OUTPUT)
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
                plan = code_plan(claim, chapter, ms, r, snapshot, start, rechecks)
            else:
                raise Skip(f"no checked text for a {claim.kind} claim")
        except Skip as skip:
            proposal.not_proposed.append({"claim": r.id, "reason": str(skip)})
            continue
        except Withdrawn as failed:
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
        planned.append(Change(r.id, plan, a, b, plan["text"], min(start, a), max(end, b)))
        for x, y, text in plan.get("more", []):  # further spans of the same finding (a value printed after a call)
            planned.append(Change(r.id, {**plan, "text": text, "replaced": snapshot[x:y], "edits": [],
                                          "action": "correct a value after a call"}, x, y, text, x, y, more=True))
    located = {}
    for r in results:
        if r.line and r.column and r.found_text and r.verdict in ("supported", "qualified", "contradicted"):
            s0 = starts[r.line - 1] + r.column - 1
            if snapshot[s0:s0 + len(r.found_text)] == r.found_text:
                located[r.id] = (s0, s0 + len(r.found_text), r.verdict)
    groups = compose(planned, located, chapter, ms, claims, rechecks, proposal, closed_markdown)
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
    shared_quotes(proposal, chapter)
    shared_words(proposal, chapter)
    return proposal


#: Where a finding's response goes on past its first proposal: alternatives the check offers ("Or, if this example
#: means …"), the register's own free-text rewording. They are kept after the hunk's wording.
_RESPONSE_TAILS = (" Or, ", " The register also suggests")


_WITHDRAWN_NOTE = "Not in the patch, which leaves this sentence to you:"


def respond(results: list[ClaimResult], proposal: Proposal) -> None:
    """Each finding with a hunk proposes that hunk's change, in the hunk's words (one source for Findings, the patch
    and the checklist); what the finding offered beyond its first proposal is kept after it. Idempotent."""
    by_claim: dict[str, Hunk] = {}
    for h in proposal.hunks:
        if h.response:
            for cid in h.claims or [h.claim]:
                by_claim.setdefault(cid, h)
    outputs = {n["claim"] for n in proposal.not_proposed if n["reason"] == PROGRAM_OUTPUT}
    withdrawn = {w["claim"]: w["reason"] for w in proposal.withdrawn}
    for r in results:
        if r.id in withdrawn and r.id not in by_claim and r.response and _WITHDRAWN_NOTE not in r.response:
            # the change the finding offers was written and its joint re-check failed: the finding says so, never
            # offering it as a checked fix the patch would make
            r.response = r.response.rstrip() + f" {_WITHDRAWN_NOTE} {withdrawn[r.id].rstrip('.')}."
            continue
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
