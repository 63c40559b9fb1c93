"""Rewriting a claim's own words and re-checking the claim as rewritten: a value replaced once in its quote (near
the words that locate it), the register edits that follow it (quote, claim text, expected value), and the re-run of
the edited claim that a hunk must pass before it is proposed."""

from __future__ import annotations

import json
import re
from fractions import Fraction

from audit.attribution.verdict import decide
from audit.evaluation.checks import CHECKERS
from audit.evaluation.checks.common import Measurements
from audit.register.claims import Chapter
from audit.text.encode_arithmetic import breaks_arithmetic, breaks_replacing, divisor_correction, normal_expression
from audit.model.results import ClaimResult
from audit.research.register_edit import Edit, set_field
from audit.research.outcomes import Skip, Withdrawn


def replace_once(text: str, old: str, new: str, near: str = "") -> str | None:
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


def recheck(claim, edits: list[Edit], chapter: Chapter, ms: Measurements, store) -> str:
    """The verdict of ``claim`` with ``edits`` made to its register entry: the same claim run on the new sentence,
    kept per claim key and edit in ``store`` (the run's ``audit.run.cache.PerClaimCache``, or None), so that a rerun
    whose claim is unchanged reads its hunk's re-check instead of running the references again."""
    what = "recheck " + json.dumps([e.as_dict() for e in edits], sort_keys=True, ensure_ascii=False)
    stored = store.get(claim.id, what) if store is not None else None
    if stored is not None and stored.get("verdict") in ("supported", "qualified", "contradicted", "error"):
        return stored["verdict"]
    verdict = run_edited(claim, edits, chapter, ms)
    if store is not None:
        store.put(claim.id, what, {"verdict": verdict})
    return verdict


def run_edited(claim, edits: list[Edit], chapter: Chapter, ms: Measurements) -> str:
    data = claim.model_dump(mode="json", exclude_unset=True)
    for e in edits:
        set_field(data, e)
    new = type(claim).model_validate(data)
    return decide(CHECKERS[new.kind](new, chapter, ms)).verdict


def own_words(claim, old: str, new: str) -> list[Edit]:
    """The register's title and claim text follow a changed number or word where they print it once."""
    out = []
    for name in ("title", "claim"):
        text = getattr(claim, name, "") or ""
        changed = replace_once(text, old, new)
        if changed is not None and changed != text:
            out.append(Edit(claim.id, name, changed))
    return out


def reworded_words(claim, change, said: str, sentence: str, edits: list[Edit]) -> list[Edit]:
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


def correction(claim, r: ClaimResult, quote: str, corrections: dict[str, str], fields: list[tuple[str, str]],
               chapter: Chapter, ms: Measurements, why: str, rechecks, reword=None,
               exacts: dict[str, Fraction] | None = None, every_reading: bool = False) -> dict:
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
                recounted += recounted_arithmetic(claim, chapter, quote, old, new, recount[2], recount[3])
    # the register's quote follows the sentence as found (an edited anchor's quote is refreshed with it); one that
    # differs from it only in where the lines break keeps its own spacing
    new_quote, register_quote = quote, claim.quote if claim.quote.split() == quote.split() else quote
    edits: list[Edit] = []
    near = " ".join(re.findall(r"[A-Za-z]+@\d+|[A-Za-z]+", claim.title)[:1])
    for old, new in corrections.items():
        if old not in quote:
            raise Skip(f"the value ({old}) is not printed in the sentence, only implied by it: how to reword the "
                       "sentence is the author's decision; the finding gives the value")
        new_quote = replace_once(new_quote, old, new, near)
        register_quote = replace_once(register_quote, old, new, near) if register_quote is not None else None
        if new_quote is None or register_quote is None:
            raise Skip(f"the printed {old} cannot be told apart from another number in the quote, so no exact edit "
                       "can be placed; the finding gives the value")
        edits += own_words(claim, old, new)
    for old, new in numbers:   # the register's title and claim text print the value, not the mean's terms
        edits += [e for e in own_words(claim, old, new) if not any(x.field == e.field for x in edits)]
    if reword is not None:
        change, _ = reword
        new_quote, register_quote = change(new_quote), change(register_quote) if register_quote is not None else None
        if new_quote is None or register_quote is None:
            raise Skip("the sentence words its conclusion so that no single word can be changed; the finding gives "
                       "the conclusion the data support")
        edits += reworded_words(claim, change, reword[1][0], register_quote, edits)
    broken = breaks_arithmetic(quote, new_quote)
    if broken:
        raise Skip(f"the corrected value would follow printed arithmetic that does not give it ({broken}); the "
                   "printed terms must change with it, which is the author's choice, given in the finding")
    edits.insert(0, Edit(claim.id, "quote", register_quote))
    for field, value in fields:
        edits.append(Edit(claim.id, field, value))
    verdict = recheck(claim, edits, chapter, ms, rechecks)
    edits += recounted   # the arithmetic claims of the mean follow it; the sentence's joint re-check runs them
    # a value the chapter's definitions give under every reading it allows may stay qualified by what the references
    # do (a stated gain they do not follow): no other number would do better, and the gate takes it
    settled = verdict == "supported" or (every_reading and verdict == "qualified")
    if not settled:
        raise Withdrawn(f"the claim re-run on the corrected sentence is {verdict}, not supported")
    change = "; ".join(f"“{o}” to “{n}”" for o, n in [*corrections.items(), *([reword[1]] if reword else [])])
    return dict(action="correct a value", replaced=quote, text=new_quote, edits=edits,
                check=f"re-checked: the claim re-run on the corrected sentence is {verdict}; {why}",
                settled=verdict,
                response=f"Change {change}.",
                rationale=f"{r.concern} The chapter's definitions give "
                          + ", ".join([f"{n} where it prints {o}" for o, n in corrections.items()]
                                      + ([f"“{reword[1][1]}” where it says “{reword[1][0]}”"] if reword else [])) + ".",
                tradeoff=("None beyond the edit; any later sentence, figure or notebook cell that reuses the old "
                          "number must change with it."))


def recounted_arithmetic(claim, chapter: Chapter, quote: str, old: str, new: str, expression: str,
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
        claimed = replace_once(str(other.claimed), old_number, new_number)
        if claimed is None:
            continue
        edits += [Edit(other.id, "expression", recounted), Edit(other.id, "claimed", claimed)]
        for name in ("title", "claim"):
            text = getattr(other, name, "") or ""
            changed = text.replace(expression, recounted, 1)
            changed = replace_once(changed, old_number, new_number) or changed
            if changed != text:
                edits.append(Edit(other.id, name, changed))
    return edits
