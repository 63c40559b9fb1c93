"""What a checker finds for one claim (``Evidence``, made of ``Point``s): gathered by the checks, turned into a verdict
by the verdict rules alone (``audit.attribution.verdict``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from audit.model.results import Check


@dataclass
class Point:
    """A finding from a checker: what was seen, and a concrete wording change if one is due."""

    text: str
    wording: str = ""
    #: Points with the same key are one finding seen on several inputs (the same libraries, the same cause): they
    #: are merged, the first kept whole and the others' ``seen`` listed after it (``merge_repeats``).
    key: tuple | None = None
    seen: str = ""


def merge_repeats(points: list[Point]) -> list[Point]:
    """``points`` with those sharing a ``key`` merged into the first of them."""
    out: list[Point] = []
    first: dict[tuple, Point] = {}
    for p in points:
        if p.key is None or p.key not in first:
            out.append(p)
            if p.key is not None:
                first[p.key] = p
            continue
        head = first[p.key]
        head.text = head.text.rstrip(".") + (". The same on " if " The same on " not in head.text else "; ") + p.seen
    return out


@dataclass
class Evidence:
    """What a checker found for one claim.

    ``failures``: the chapter's own definition does not give the claim (→ contradicted).
    ``conditions``: the claim holds only under a condition a reference or a variant does
    not share (→ qualified). ``errors``: an implementation or the fixture failed (→ error;
    the other values are kept). ``scope``: what was checked, for the supported reason.
    """

    checks: list[Check] = field(default_factory=list)
    failures: list[Point] = field(default_factory=list)
    conditions: list[Point] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    scope: str = ""
    notes: list[str] = field(default_factory=list)  # side observations worth stating in the reason
    scopes: list[str] = field(default_factory=list)  # what each check covered, for a supported reason
    lead: str = "Holds by the chapter's definition, but "  # how a qualified reason opens
    concern: str = ""  # what the finding means for a reader, when the default sentence does not fit
    error_concern: str = ""  # what an error means, when it is not a reference's failure
    response: str = ""  # what to do about an error, when the default sentence does not fit
    #: what kind of error ``errors`` holds, for the default concern and response: ``reference`` (a reference
    #: implementation failed), ``register`` (a field of the claim cannot be checked as written; ``fixes`` says which
    #: and how to fix it), ``undecided`` (the check cannot decide). An error added to ``errors`` directly is none of
    #: these, and is never said to be a reference's failure.
    error_kinds: set[str] = field(default_factory=set)
    fixes: list[str] = field(default_factory=list)

    def register_error(self, message: str, field_name: str, fix: str) -> None:
        """A register mistake: the claim's ``field_name`` cannot be checked as written; ``fix`` says how to fix it."""
        self.errors.append(message)
        self.error_kinds.add("register")
        self.fixes.append(f"In the register, fix `{field_name}`: {fix}")

    def reference_errors(self, messages: list[str]) -> None:
        """Failures of reference implementations (each naming the reference)."""
        self.errors += messages
        if messages:
            self.error_kinds.add("reference")

    def undecided(self, message: str) -> None:
        """A check that ran but cannot decide (a value within its own precision of a bound)."""
        self.errors.append(message)
        self.error_kinds.add("undecided")

    def absorb_errors(self, other: "Evidence") -> None:
        """``other``'s errors with their kinds and fixes (a sub-check's)."""
        self.errors += other.errors
        self.error_kinds |= other.error_kinds
        self.fixes += [f for f in other.fixes if f not in self.fixes]
    #: convention → the values under which alone the claim holds (a claim qualified by an unstated convention), so
    #: claims that need opposite values of one convention can be shown as a tension
    holds_only: dict[str, set[str]] = field(default_factory=dict)
