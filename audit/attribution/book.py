"""The book: conventions that one registered chapter states and another chapter's code breaks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from audit.register.claims import Chapter


@dataclass(frozen=True)
class Conflict:
    """A listing (``chapter``/``claim``) that breaks a convention stated by ``rule_chapter``/``rule_claim``."""

    chapter: str
    claim: str
    rule_chapter: str
    rule_claim: str
    rule: str
    text: str

    def sentence(self) -> str:
        return (f"{self.chapter} {self.claim}: {self.text} — but {self.rule_chapter} {self.rule_claim} states "
                f"“{self.rule}”")


@dataclass
class Book:
    """Every chapter audited in one run, and the conflicts found between chapters of the same book."""

    chapters: Sequence[Chapter]
    conflicts: list[Conflict] = field(default_factory=list)

    def _same_book(self, chapter_id: str) -> list[Chapter]:
        """The chapters of ``chapter_id``'s book in this run: those whose chapter.yaml names the same ``book``, or
        the chapter alone when it names none (two chapters audited together are not one book by that alone)."""
        mine = next((c for c in self.chapters if c.identity.id == chapter_id), None)
        if mine is None:
            return []
        book = getattr(mine.identity, "book", None)
        return [c for c in self.chapters if c is mine or (book and getattr(c.identity, "book", None) == book)]

    def rejecting(self, chapter_id: str):
        """(chapter id, claim) for each convention claim of the same book stating that repeated IDs are rejected."""
        for chapter in self._same_book(chapter_id):
            for claim in chapter.register.claims:
                if claim.kind == "convention" and claim.convention == "repeated_ids" and claim.rule == "reject" \
                        and not claim.by:
                    yield chapter.identity.id, claim

    def repeated_id_rule(self, chapter_id: str) -> str:
        """How to name the book's repeated-ID rule in a finding ('' when no chapter states one)."""
        rules = [f"{cid} {claim.id}" for cid, claim in self.rejecting(chapter_id)]
        return " and ".join(rules)

    def conflict(self, chapter_id: str, claim_id: str, text: str) -> None:
        for rule_chapter, rule in self.rejecting(chapter_id):
            found = Conflict(chapter_id, claim_id, rule_chapter, rule.id, rule.quote, text)
            if found not in self.conflicts:
                self.conflicts.append(found)

    def involving(self, chapter_id: str) -> list[Conflict]:
        return [c for c in self.conflicts if chapter_id in (c.chapter, c.rule_chapter)]
