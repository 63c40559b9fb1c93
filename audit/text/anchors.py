"""Re-anchoring a claim's quote in a new revision of a chapter.

A quote is a text-quote selector: the exact text, an optional ``prefix``/``suffix`` (text
just before/after it) and an optional ``line`` hint. The states:

- ``unchanged``: the exact text (after folding whitespace, quote marks and dashes) is found, at
  the hinted line when there is a hint;
- ``moved``: the exact text is found, but on another line than the hint;
- ``edited``: no exact match, but a passage of the chapter is at least ``SIMILARITY`` similar
  (difflib's ratio on the folded text, over word windows of about the quote's length); the claim
  is re-checked against the new text;
- ``ambiguous``: two separate passages match about equally (within ``MARGIN``); nothing is
  re-anchored silently, and the claim is not verified;
- ``lost``: nothing is similar enough; the claim is stale, never verified.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from audit.model.limits import (
    FUZZY_CHAPTER_PASSAGES,
    FUZZY_MAX_SCORED,
    FUZZY_MAX_WORDS,
)
from audit.text.chapter import _QUOTE_FOLD, Snapshot, _fold_with_index
from audit.text.markdown import unseen_at

#: Smallest similarity (0–1, difflib ratio) at which an edited passage still counts as the quote.
SIMILARITY = 0.75
#: Two passages whose similarities differ by less than this are "about equal": ambiguous.
MARGIN = 0.03

_WORD = re.compile(r"\S+")
#: Lines of a repeated quote named in an ambiguity's note.
_LISTED = 10


@dataclass(frozen=True)
class Anchor:
    """Where a quote is now: ``state`` (see module doc), 1-based ``line``/``column``, the passage
    found (``text``, the new wording when edited), ``similarity`` and a plain ``note``."""

    state: str
    line: int | None = None
    column: int | None = None
    text: str = ""
    similarity: float = 1.0
    count: int = 1
    note: str = ""

    @property
    def found(self) -> bool:
        return self.state in ("unchanged", "moved", "edited")


def fold(text: str) -> str:
    """Text compared the way quotes are: NFC, quote marks and dashes folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFC", text).translate(_QUOTE_FOLD).split())


@lru_cache(maxsize=8)
def line_starts(text: str) -> list[int]:
    """The offset at which each line of ``text`` starts (one pass; kept for the last few texts, so anchoring every
    claim of a chapter reads its snapshot once)."""
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _position(text: str, start: int) -> tuple[int, int]:
    """1-based line and column of offset ``start``."""
    starts = line_starts(text)
    line = bisect_right(starts, start)
    return line, start - starts[line - 1] + 1


#: What scoring one passage with ``ratio`` costs against a ``Budget``, in passages examined with
#: ``quick_ratio`` (measured: about 1 ms against 65 µs).
RATIO_COST = 15


class Budget:
    """Passages the similarity search may still examine for one chapter (``FUZZY_CHAPTER_PASSAGES``,
    a scored passage counting ``RATIO_COST``), shared by its lost quotes, so a register of many
    absent quotes cannot hang the audit."""

    def __init__(self, passages: int = FUZZY_CHAPTER_PASSAGES) -> None:
        self.size = self.left = passages


def locate(snapshot: Snapshot, quote: str, *, prefix: str = "", suffix: str = "",
           line: int | None = None, budget: Budget | None = None) -> Anchor:
    """Anchor ``quote`` in ``snapshot`` (see the module doc for the states); ``budget`` bounds the
    similarity search across the calls that share it (unbounded per chapter without one)."""
    text = snapshot.text
    exact = [m.start() for m in re.finditer(re.escape(quote), text)] if quote else []
    if not exact and quote:
        # with whitespace, quote marks and dashes folded (as ``Snapshot.find``), the snapshot folded once
        folded, index = _folded(text)
        needle = " ".join(unicodedata.normalize("NFC", quote).translate(_QUOTE_FOLD).split())
        at = folded.find(needle) if needle else -1
        if at >= 0:
            exact = [index[at]]
    if exact and snapshot.markdown:
        # a quote a reader never sees (a comment, a link definition) is not the chapter's sentence
        seen = [at for at in exact if not unseen_at(text, at, at + len(quote))]
        if not seen:
            return unseen_anchor(text, exact[0], len(quote))
        exact = seen
    if exact:
        return _choose(text, quote, exact, prefix, suffix, line)
    found = _fuzzy(text, quote, line, budget or Budget())
    if found.found and snapshot.markdown:
        at = line_starts(text)[found.line - 1] + found.column - 1
        if unseen_at(text, at, at + len(found.text)):
            return unseen_anchor(text, at, len(found.text))
    return found


#: How the note of a quote printed only where a reader never sees it begins (``stale`` words its reason so).
UNSEEN = "it is printed only in"


def unseen_anchor(text: str, at: int, length: int) -> Anchor:
    """A ``lost`` anchor for a quote printed only in a span of the Markdown ``text`` no rendering shows
    (``markdown.unseen``)."""
    line, column = _position(text, at)
    what = unseen_at(text, at, at + length)
    return Anchor("lost", similarity=0.0,
                  note=f"{UNSEEN} {what} (line {line}), which a reader of the rendered chapter never sees; quote "
                       "the sentence a reader reads")


@lru_cache(maxsize=2)
def _folded(text: str) -> tuple[str, array]:
    """``text`` folded as quotes are searched for, with each character's offset (kept for the last two texts, the
    offsets packed: 4 bytes a character)."""
    folded, index = _fold_with_index(text)
    return folded, array("I", index)


def _choose(text: str, quote: str, starts: list[int], prefix: str, suffix: str, hint: int | None) -> Anchor:
    def context_score(start: int) -> int:
        score = 0
        if prefix and fold(text[max(0, start - len(prefix) - 5):start]).endswith(fold(prefix)):
            score += 1
        if suffix and fold(text[start + len(quote):start + len(quote) + len(suffix) + 5]).startswith(fold(suffix)):
            score += 1
        return score

    ranked = sorted(starts, key=lambda s: (-context_score(s), abs(_position(text, s)[0] - hint) if hint else 0, s))
    best = ranked[0]
    line, column = _position(text, best)
    note = ""
    if len(starts) > 1:
        tied = [s for s in ranked if context_score(s) == context_score(best)
                and (not hint or abs(_position(text, s)[0] - hint) == abs(line - hint))]
        if len(tied) > 1:
            lines = ", ".join(str(_position(text, s)[0]) for s in tied[:_LISTED])
            lines += f" and {len(tied) - _LISTED:,} more" if len(tied) > _LISTED else ""
            return Anchor("ambiguous", line, column, quote, 1.0, len(starts),
                          f"the quote occurs {len(tied)} times (lines {lines}) and nothing tells them apart; add a "
                          "prefix, suffix or line hint to the claim")
        note = f"the quote occurs {len(starts)} times; the one matching the claim's context is used"
    state = "moved" if hint is not None and line != hint else "unchanged"
    if state == "moved":
        note = (note + "; " if note else "") + f"moved from line {hint} to line {line}"
    return Anchor(state, line, column, text[best:best + len(quote)], 1.0, len(starts), note)


def _fuzzy(text: str, quote: str, hint: int | None, budget: Budget) -> Anchor:
    """The most similar passage of about the quote's length, or ``lost``/``ambiguous``."""
    target = fold(quote)
    n = len(target.split())
    words = list(_WORD.finditer(text))
    if not words or not target:
        return Anchor("lost", similarity=0.0, note="the chapter has no text")
    first = 0
    if len(words) > FUZZY_MAX_WORDS:
        if hint is None:
            return Anchor("lost", similarity=0.0,
                          note=f"not found, and the chapter is longer than {FUZZY_MAX_WORDS:,} words (the limit of "
                               "the search for an edited passage); give the claim a `line` hint to search near it")
        starts = line_starts(text)
        at = starts[hint - 1] if 1 <= hint <= len(starts) else (0 if hint < 1 else len(text))
        near = min(bisect_left([w.start() for w in words], at), len(words) - 1)
        first = max(0, near - FUZZY_MAX_WORDS // 2)
        words = words[first:first + FUZZY_MAX_WORDS]
    if budget.left <= 0:
        return Anchor("lost", similarity=0.0,
                      note=f"not found; the search for edited passages already examined {budget.size:,} "
                           "passages for this chapter's lost quotes (the limit)")
    budget.left -= len(words) * 7
    matcher = SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    # quick_ratio bounds ratio from above, so windows are scored best bound first, and the search stops
    # once no remaining window can reach SIMILARITY, or the best ratio found, less MARGIN (the
    # ambiguity test): every window that can change the outcome is scored.
    candidates: list[tuple[float, int, int, str]] = []
    for i in range(len(words)):
        for size in range(max(1, n - 3), n + 4):
            j = i + size - 1
            if j >= len(words):
                break
            candidate = fold(text[words[i].start():words[j].end()])
            matcher.set_seq1(candidate)
            if matcher.real_quick_ratio() < SIMILARITY - 0.1:
                continue
            bound = matcher.quick_ratio()
            if bound >= SIMILARITY - 0.1:
                candidates.append((bound, i, j, candidate))
    candidates.sort(key=lambda c: -c[0])
    best_at: dict[int, tuple[float, int]] = {}  # start word → (best ratio, its end word; the shortest on ties)
    top_so_far = 0.0
    stopped = False
    for scored_count, (bound, i, j, candidate) in enumerate(candidates):
        if bound < max(top_so_far, SIMILARITY) - MARGIN:
            break
        if scored_count >= FUZZY_MAX_SCORED or budget.left <= 0:
            stopped = True
            break
        budget.left -= RATIO_COST
        matcher.set_seq1(candidate)
        ratio = matcher.ratio()
        held = best_at.get(i)
        if ratio > 0 and (held is None or ratio > held[0] or (ratio == held[0] and j < held[1])):
            best_at[i] = (ratio, j)
        top_so_far = max(top_so_far, ratio)
    scored = [(ratio, i, j) for i, (ratio, j) in best_at.items()]
    words = [None] * first + words  # indices below are into the whole chapter's words
    scored = [(r, a + first, b + first) for r, a, b in scored]
    if not scored:
        return Anchor("lost", similarity=0.0, note=f"no passage of the chapter is even {SIMILARITY - MARGIN:.0%} "
                                                   "similar to the quote")
    scored.sort(reverse=True)
    top, i, j = scored[0]
    start, end = words[i].start(), words[j].end()
    line, column = _position(text, start)
    if stopped and top < SIMILARITY:
        return Anchor("lost", similarity=top,
                      note=f"not found; the search for an edited passage stopped (at {FUZZY_MAX_SCORED:,} passages "
                           f"per quote or {budget.size:,} per chapter, the limits) without one "
                           f"{SIMILARITY:.0%} similar")
    if top < SIMILARITY - MARGIN:  # windows below this bound were not all scored: no exact "most similar"
        return Anchor("lost", similarity=top, note=f"no passage of the chapter is even {SIMILARITY - MARGIN:.0%} "
                                                   "similar to the quote")
    if top < SIMILARITY:
        return Anchor("lost", similarity=top,
                      note=f"the most similar passage (line {line}) is only {top:.0%} similar, below {SIMILARITY:.0%}")
    rival = next(((r, a, b) for r, a, b in scored[1:] if b < i or a > j), None)
    if rival and rival[0] >= top - MARGIN:
        other_line = _position(text, words[rival[1]].start())[0]
        return Anchor("ambiguous", line, column, text[start:end], top, 2,
                      f"two passages match about equally (lines {line} and {other_line}, {top:.0%} and "
                      f"{rival[0]:.0%}); not re-anchored")
    return Anchor("edited", line, column, text[start:end], top, 1,
                  f"the sentence was edited ({top:.0%} similar); re-checked against the new wording")


_NUMBER = re.compile(r"(?<![\w@/.])(\d+/\d+|\d+(?:\.\d+)?|\.\d+)(?![\w@/])")


def number_changes(old: str, new: str) -> dict[str, str]:
    """Numbers (integers, decimals, fractions) that changed between the quoted and the edited
    wording, matched in order: ``{"1/4": "1/3"}``; empty when the counts differ or a number
    changed two different ways."""
    a, b = _NUMBER.findall(old), _NUMBER.findall(new)
    if len(a) != len(b):
        return {}
    changes: dict[str, str] = {}
    for x, y in zip(a, b):
        if x != y:
            if changes.get(x, y) != y:
                return {}
            changes[x] = y
    return changes


def apply_numbers(text: str, changes: dict[str, str]) -> str:
    """``text`` with every whole number token in ``changes`` replaced."""
    if not changes:
        return text
    return _NUMBER.sub(lambda m: changes.get(m.group(1), m.group(1)), text)


def claim_numbers(claim) -> list[str]:
    """The numbers a claim's printed values carry (``1/3`` → ["1/3"]), from its claimed fields."""
    texts: list[str] = []
    for e in getattr(claim, "expect", []) or []:
        for field_name in ("claimed", "before", "after"):
            value = getattr(e, field_name, None)
            if value is not None and not getattr(e, "derived", ""):
                texts.append(str(value))
    if getattr(claim, "claimed", None) is not None:
        texts.append(str(claim.claimed))
    return [n for t in texts for n in _NUMBER.findall(t)]


def anchor_claim(snapshot: Snapshot, claim, budget: Budget | None = None) -> Anchor:
    """The claim's quote anchored in ``snapshot`` (its prefix, suffix and line hint), an edited match kept
    only when it carries the claim's numbers (``keeps_numbers``). A quote printed in several places is the one
    inside the sentence the claim was derived from (``derived.sentence``), when that sentence is printed once."""
    found = locate(snapshot, claim.quote, prefix=claim.prefix, suffix=claim.suffix, line=claim.line, budget=budget)
    if getattr(claim, "kind", "") == "code" and (found.count > 1 or claim.occurrence) \
            and found.state in ("unchanged", "moved", "ambiguous"):
        found = _in_listing(snapshot, claim) or found
    if found.state == "ambiguous":
        found = _in_sentence(snapshot, claim) or found
    return keeps_numbers(found, claim)


def _in_listing(snapshot: Snapshot, claim) -> Anchor | None:
    """A code claim's quote where it is printed in the listing the claim means (``claimed_listing``: the
    ``occurrence``-th of the listings holding it), so that its row, its place and its patch are that listing's; None
    when the listing cannot be told (the load says why) or the quote is not printed in it as written."""
    from audit.errors import AuditError
    from audit.text.listings import candidates, claimed_listing, find_listings

    text = snapshot.text
    listings = find_listings(text)
    try:
        listing = listings[claimed_listing(listings, claim.quote, claim.function, claim.occurrence)]
    except AuditError:
        return None
    starts = line_starts(text)
    a = starts[listing.start - 1] if listing.start - 1 < len(starts) else len(text)
    b = starts[listing.end] if listing.end < len(starts) else len(text)
    at = text.find(claim.quote, a, b)
    shown = claim.quote
    if at < 0:
        # the quote as the listing holds it with whitespace folded: the line holding its first line
        head = " ".join(claim.quote.split("\n")[0].split())
        for n in range(listing.start, listing.end + 1):
            if head and n - 1 < len(starts) and head in " ".join(text[starts[n - 1]:].split("\n", 1)[0].split()):
                printed = text[starts[n - 1]:].split("\n", 1)[0]
                at = starts[n - 1] + len(printed) - len(printed.lstrip())
                shown = printed.strip()
                break
        else:
            return None
    line, column = _position(text, at)
    count = len(candidates(listings, claim.quote, claim.function))
    state = "moved" if claim.line is not None and line != claim.line else "unchanged"
    note = (f"{count} listings hold the quote; the one the claim means is used" if count > 1 else
            "the quote is printed outside its listing too; the listing's is used") + (
        f" (occurrence {claim.occurrence})" if claim.occurrence else "")
    if state == "moved":
        note += f"; moved from line {claim.line} to line {line}"
    return Anchor(state, line, column, shown, 1.0, count, note)


def _in_sentence(snapshot: Snapshot, claim) -> Anchor | None:
    """The claim's quote where it is printed inside its derived sentence, when the sentence is printed exactly once
    and holds the quote once; None otherwise."""
    derived = getattr(claim, "derived", None)
    if derived is None or claim.quote not in derived.sentence or derived.sentence.count(claim.quote) != 1:
        return None
    text = snapshot.text
    starts = [m.start() for m in re.finditer(re.escape(derived.sentence), text)]
    if len(starts) != 1:
        return None
    at = starts[0] + derived.sentence.index(claim.quote)
    line, column = _position(text, at)
    state = "moved" if claim.line is not None and line != claim.line else "unchanged"
    count = len(re.findall(re.escape(claim.quote), text))
    note = f"the quote occurs {count} times; the one in the sentence the claim was derived from is used"
    if state == "moved":
        note += f"; moved from line {claim.line} to line {line}"
    return Anchor(state, line, column, claim.quote, 1.0, count, note)


def keeps_numbers(anchor: Anchor, claim) -> Anchor:
    """An ``edited`` anchor must carry the claim's numbers: as many numbers as the quote has, and at least
    one when the claim prints a number. Otherwise the passage is not the claim's sentence (for example a
    register typo matched to a passage that stops before the number): the anchor is ``lost``."""
    if anchor.state != "edited":
        return anchor
    found, quoted = _NUMBER.findall(anchor.text), _NUMBER.findall(claim.quote)
    if len(found) == len(quoted) and (found or not claim_numbers(claim)):
        return anchor
    return Anchor("lost", similarity=anchor.similarity,
                  note=f"the most similar passage (line {anchor.line}, {anchor.similarity:.0%} similar) does not carry "
                       f"the claim's numbers ({', '.join(claim_numbers(claim) or quoted) or 'none'}); check the "
                       "register's quote against the chapter")


def edited_claim(claim, text: str):
    """``claim`` with its printed numbers taken from its sentence as now printed (``text``, an edited anchor), and a
    note of the change; the claim unchanged and '' when no printed number changed."""
    changes = number_changes(claim.quote, text)
    if not changes:
        return claim, ""
    update: dict = {}
    if claim.kind == "value":
        update["expect"] = [e.model_copy(update={"claimed": apply_numbers(str(e.claimed), changes)})
                            if not e.derived else e for e in claim.expect]
    elif claim.kind == "comparison":
        update["expect"] = [e.model_copy(update={k: apply_numbers(str(getattr(e, k)), changes)
                                                 for k in ("before", "after") if getattr(e, k) is not None})
                            for e in claim.expect]
    elif claim.kind == "arithmetic":
        update = {"claimed": apply_numbers(str(claim.claimed), changes),
                  "expression": apply_numbers(claim.expression, changes)}
    elif claim.kind == "statistic":
        update["expect"] = [e.model_copy(update={"claimed": apply_numbers(str(e.claimed), changes)})
                            for e in claim.expect]
    update["title"] = apply_numbers(claim.title, changes)  # the heading must not print the old numbers
    update["quote"] = text  # the sentence as now printed, which the claimed values were taken from
    described = ", ".join(f"{a} → {b}" for a, b in changes.items())
    return claim.model_copy(update=update), f"numbers changed in the new wording ({described}); checked as now printed"
