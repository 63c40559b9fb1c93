"""The text is the source of truth across revisions: a claim ``audit init`` derived from a sentence follows it.

A claim with a ``derived:`` record (``audit.register.derived``) names the sentence its fields were derived from. When
that sentence is printed unchanged, nothing happens. When it was edited, the claim is checked as derived again:

- the sentence as now printed is found (the most similar passage, ``audit.text.anchors.locate``) and read as init reads
  it (``audit.draft.init.draft_register`` on the current text); of the claims init drafts from it, the one of the same
  kind whose quote is most like the register's stands in for init's fields (a draft when nothing of that kind is
  drafted now);
- a field whose value is still the one init wrote is taken from the new derivation (or dropped when the new derivation
  has no such field); a field the author wrote (another value, or a field init did not write) is kept and named as
  hand-written;
- a hand-written field that no longer matches the sentence (a claimed value the quote no longer prints, an expression
  no longer in it) makes the claim **stale**, naming the field: it is never turned into a verdict about the old text.

The claim checked keeps the register's ``derived`` record (the old sentence and fingerprints), so its cache key covers
what the revision was made from as well as what is checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from pydantic import TypeAdapter, ValidationError

from audit.register.claims import Chapter, Claim
from audit.register.derived import NOT_DERIVED, field_print, fields_of, hand_written, statement_of
from audit.model.results import Revision
from audit.text.anchors import _NUMBER, Budget, fold, line_starts, locate
from audit.text.encode_arithmetic import prints_arithmetic

_ADAPTER = TypeAdapter(Claim)


@dataclass
class Revised:
    """A claim as checked in this revision (``claim``) and what the report says about it (``revision``)."""

    claim: object
    revision: Revision
    stale: list[str] = field(default_factory=list)  # one sentence per hand-written field that no longer matches

    @property
    def stale_fields(self) -> list[str]:
        """The register fields named stale (``claimed``, ``expect[0].claimed``, ``expression``)."""
        return [m.group(1) for m in (re.match(r"`([^`]+)`", s) for s in self.stale) if m]


def revise(chapter: Chapter, budget: Budget | None = None) -> tuple[Chapter, dict[str, Revised]]:
    """``chapter`` with each claim whose derived sentence was edited replaced by the claim derived again from the
    sentence as now printed (see the module doc), and what was done to each, by claim id. A chapter none of whose
    claims' sentences changed is returned as it is."""
    recorded = [c for c in chapter.register.claims if c.derived is not None]
    if not recorded:
        return chapter, {}
    folded = fold(chapter.snapshot.text)
    edited = [c for c in recorded if fold(c.derived.sentence) not in folded]
    if not edited:
        return chapter, {}
    budget = budget or Budget()
    out: dict[str, Revised] = {}
    try:
        drafted = _drafted(chapter)
    except Exception as exc:  # init's reading of an untrusted text: its failure leaves these claims unchecked
        why = f"init could not read the chapter to derive it again ({type(exc).__name__})"
        drafted = None
    taken: set[int] = set()  # each claim init drafts now stands in for one register claim
    # claims whose quote is still printed as it was choose first (two claims of one sentence, one of them edited);
    # every claim that init drafts a claim of its own kind for chooses before any takes one of another kind
    ordered = sorted(edited, key=lambda c: fold(c.quote) not in folded)
    for same_kind in (True, False):
        for claim in ordered:
            if claim.id in out:
                continue
            if drafted is None:
                out[claim.id] = _unrevised(claim, why)
                continue
            revised = _revise(claim, chapter, drafted, budget, taken, same_kind)
            if revised is not None:
                out[claim.id] = revised
    claims = [out[c.id].claim if c.id in out else c for c in chapter.register.claims]
    register = chapter.register.model_copy(update={"claims": claims})
    return Chapter(chapter.folder, chapter.identity, chapter.snapshot, register, chapter.lines,
                   chapter.declared), out


def _drafted(chapter: Chapter) -> tuple[list, list[dict], dict]:
    """What init drafts from the text as now printed: its statements, its claims and its fixtures."""
    from audit.draft.init import draft_register
    from audit.text.scan import scan
    claims, _, fixtures, _ = draft_register(chapter.snapshot)
    return scan(chapter.snapshot), claims, fixtures


def _unrevised(claim, why: str) -> Revised:
    """``claim`` as the register holds it, stale: its sentence changed and it could not be derived again (never
    checked as it was derived from the old sentence)."""
    reason = f"the sentence the claim was derived from is no longer printed as it was, and {why}"
    return Revised(claim, Revision(sentence=claim.derived.sentence, now="", stale=[reason]), [reason])


def _revise(claim, chapter: Chapter, drafted, budget: Budget, taken: set[int], same_kind: bool = False
            ) -> Revised | None:
    """``claim`` derived again from its edited sentence (see the module doc). ``same_kind``: only when init drafts a
    claim of the claim's own kind from it (None otherwise, to be tried again once every claim had that chance)."""
    statements, claims, fixtures = drafted
    text = chapter.snapshot.text
    old = claim.derived.sentence
    anchor = locate(chapter.snapshot, old, line=claim.line, budget=budget)
    if not anchor.found:
        return _unrevised(claim, f"no passage of the chapter is that sentence edited ({anchor.note}); give the claim "
                          "the sentence as now printed, or remove it if the sentence is gone")
    start = line_starts(text)[anchor.line - 1] + anchor.column - 1
    end = start + len(anchor.text)
    overlap = [(min(end, s.end) - max(start, s.start), -i, s) for i, s in enumerate(statements)
               if min(end, s.end) > max(start, s.start)]
    if not overlap:
        return _unrevised(claim, "its edited passage states nothing init reads as a statement")
    statement = max(overlap, key=lambda o: o[:2])[2]
    mine = [c for c in claims if statement_of(c, [statement]) is statement and id(c) not in taken]
    hand = hand_written(claim)
    kind_by_hand = "kind" in hand
    same = [c for c in mine if c["kind"] == claim.kind]
    if same_kind and not same:
        return None
    pool = same or ([] if kind_by_hand else mine)
    new = max(pool, key=lambda c: SequenceMatcher(None, fold(c["quote"]), fold(claim.quote)).ratio(), default=None)
    if new is not None:
        taken.add(id(new))
    written = fields_of(claim)
    if new is not None:  # a field holding what init derives from the sentence as now printed is init's, whoever wrote it
        hand = [n for n in hand if n not in new or field_print(new[n]) != field_print(written[n])]
    merged: dict = {"id": claim.id}
    rederived: list[str] = []
    moved: list[str] = []
    if new is not None:
        new = {k: v for k, v in new.items() if k not in NOT_DERIVED}
        # a hand-written encoding field over which init now derives another value than it did from the old sentence
        recorded = claim.derived.fields
        moved = [n for n in hand if n not in PROSE + CHECKED and n in recorded and n in new
                 and field_print(new[n]) != recorded[n] and field_print(written[n]) != field_print(new[n])]
        if isinstance(new.get("fixture"), str) and new["fixture"] in fixtures:
            new["fixture"] = fixtures[new["fixture"]]  # init's table fixture, written out on the claim
        for name, value in written.items():
            if name in hand:
                merged[name] = value
            elif name in new:
                merged[name] = new[name]
                if value != new[name]:
                    rederived.append(name)
            else:
                rederived.append(name)  # init no longer derives it from the sentence
        for name, value in new.items():
            if name not in merged:
                merged[name] = value
                rederived.append(name)
    else:
        merged.update(written)
        if "quote" not in hand:
            merged["quote"] = statement.text
            rederived.append("quote")
    merged["line"] = statement.line + statement.text[:max(statement.text.find(str(merged["quote"])), 0)].count("\n")
    merged["derived"] = claim.derived.model_dump(mode="json")
    order = [n for n in written if n in merged] + [n for n in merged if n not in written]
    revision = Revision(sentence=old, now=statement.text, rederived=sorted(set(rederived), key=order.index)
                        if rederived else [], hand_written=hand)
    try:
        checked = _ADAPTER.validate_python(merged)
    except ValidationError as exc:
        fields = sorted({str(e["loc"][1]) if len(e["loc"]) > 1 else str(e["loc"][0]) for e in exc.errors()})
        reason = (f"the fields written by hand ({', '.join(hand) or 'none'}) do not fit the claim derived again "
                  f"from the new sentence (it refuses {', '.join(fields)})")
        return Revised(claim.model_copy(update={"line": merged["line"]}), revision.model_copy(
            update={"stale": [reason]}), [reason])
    stale = _stale_fields(checked, hand, old) + [
        f"`{n}` is written by hand, and what init derives for it changed with the sentence; check it against the "
        "sentence as now printed" for n in moved]
    revision = revision.model_copy(update={"stale": stale})
    return Revised(checked, revision, stale)


_SPACE = re.compile(r"\s+")
#: Fields that describe a claim in words: kept when written by hand, never stale.
PROSE = ("title", "claim", "note", "rewording", "quote", "prefix", "suffix", "statement", "page")
#: Fields a hand-written value of is held to the sentence directly (``_stale_fields``).
CHECKED = ("claimed", "expect", "expression")


def _numbers(text: str) -> dict[str, str]:
    """The numbers ``text`` prints, each under its form without a leading zero (``0.5`` and ``.5`` are one number)."""
    return {n[1:] if n.startswith("0.") else n: n for n in _NUMBER.findall(text)}


def _printed(claim) -> list[tuple[str, str]]:
    """(field, value text) for each value the claim says its sentence prints."""
    out: list[tuple[str, str]] = []
    if claim.kind in ("arithmetic",):
        out.append(("claimed", str(claim.claimed)))
    for i, e in enumerate(getattr(claim, "expect", None) or []):
        for name in ("claimed", "before", "after"):
            value = getattr(e, name, None)
            if value is not None and not getattr(e, "derived", ""):
                out.append((f"expect[{i}].{name}", str(value)))
    for i, call in enumerate(getattr(claim, "calls", None) or []):
        if call.returns is not None:
            out.append((f"calls[{i}].returns", str(call.returns)))
    return out


def _stale_fields(claim, hand: list[str], before: str) -> list[str]:
    """One sentence for each hand-written field of ``claim`` that its quote (the sentence as now printed) no longer
    bears out: a printed value it no longer prints, an expression no longer in it that the sentence ``before`` the
    edit printed (or a sentence printing arithmetic printed in another notation). A hand-written expression of a
    sentence that printed none is the author's computation of a value the sentence states in words (a sign test's p
    from its counts), which no edit of the sentence makes stale."""
    quote = claim.quote
    printed = _numbers(quote)
    out = []
    for name, value in _printed(claim):
        if name.split("[")[0].split(".")[0] not in hand:
            continue
        missing = [shown for n, shown in _numbers(value).items() if n not in printed]
        if missing:
            out.append(f"`{name}` ({value}) is written by hand and the sentence no longer prints "
                       f"{', '.join(sorted(missing))}")
    if "expression" in hand and getattr(claim, "expression", None):
        expression = _SPACE.sub("", claim.expression)
        if expression not in _SPACE.sub("", quote) and (expression in _SPACE.sub("", before)
                                                        or prints_arithmetic(before)):
            out.append(f"`expression` ({claim.expression}) is written by hand and is no longer in the sentence")
    return out
