"""What ``audit init`` derived from a sentence, recorded on each claim it writes (``derived:``).

A claim init drafts from a statement of the chapter carries the statement as it was printed (``sentence``) and, for
each field init wrote (``quote``, ``claim``, ``expression``, ``claimed``, ``expect``, ``fixture`` …), a short
fingerprint of the value it wrote (``fields``). The register stays readable: the author sees the sentence the claim
came from and which fields are init's; a field whose value no longer has its fingerprint, or that is not listed, is
the author's. When the sentence changes, ``audit.run.revise`` derives init's fields again from the new sentence and
keeps the author's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping

from audit.model.limits import MAX_QUOTE_CHARS

#: Fields that are never derived: the claim's id (stable across revisions), the line hint (where the sentence was)
#: and the record itself.
NOT_DERIVED = ("id", "line", "derived")


def field_print(value: object) -> str:
    """The fingerprint of one field's value as the register loads it: 12 hex digits of the SHA-256 of its canonical
    JSON (keys sorted), so that the same value written in another YAML layout keeps its fingerprint."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def fields_of(claim) -> dict[str, object]:
    """A claim's fields as written in the register (pydantic's JSON form, only the fields set), without those that
    are never derived."""
    data = claim.model_dump(mode="json", exclude_unset=True)
    return {name: value for name, value in data.items() if name not in NOT_DERIVED}


def record(claim, sentence: str) -> dict | None:
    """The ``derived:`` mapping for ``claim`` (a loaded claim model, as init wrote it) derived from ``sentence``;
    None when the sentence is too long to record as a quote is."""
    if not sentence.strip() or len(sentence) > MAX_QUOTE_CHARS:
        return None
    return {"sentence": sentence, "fields": {name: field_print(value) for name, value in fields_of(claim).items()}}


def hand_written(claim) -> list[str]:
    """The fields of ``claim`` the author wrote: set in the register and either not in its ``derived`` record or
    holding another value than the one recorded. Empty for a claim without a record."""
    if claim.derived is None:
        return []
    recorded = claim.derived.fields
    return [name for name, value in fields_of(claim).items()
            if name not in recorded or recorded[name] != field_print(value)]


def statement_of(entry: Mapping, statements: Iterable) -> object | None:
    """The scanned statement (``audit.text.scan.Statement``) a claim init drafted was drafted from: the one whose text
    holds the claim's quote, on whose lines the claim's ``line`` falls (init writes the quote's line)."""
    quote, line = str(entry.get("quote", "")).strip(), entry.get("line")
    for s in statements:
        last = s.line + s.text.count("\n")
        if quote and quote in s.text and (line is None or s.line <= line <= last):
            return s
    return None


def attach(entries: list[dict], snapshot) -> None:
    """Give each claim ``init`` drafted (``entries``, the register's claim mappings, in place) its ``derived:``
    record: the statement it was drafted from and the fingerprints of the fields init wrote. A claim that does not
    load as the register would read it, or whose statement is not found, gets none (it is then the author's)."""
    from pydantic import TypeAdapter, ValidationError

    from audit.register.claims import Claim
    from audit.text.scan import scan

    adapter = TypeAdapter(Claim)
    statements = scan(snapshot)
    for entry in entries:
        s = statement_of(entry, statements)
        if s is None:
            continue
        try:
            claim = adapter.validate_python({k: v for k, v in entry.items() if k != "derived"})
        except ValidationError:
            continue
        made = record(claim, s.text)
        if made is not None:
            entry["derived"] = made
