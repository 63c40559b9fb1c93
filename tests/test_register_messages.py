"""An error names what failed: a register mistake says which field is wrong and how to fix it; "A reference failed"
and "Investigate the failure" are said only when a reference did fail."""

from __future__ import annotations

from pathlib import Path

from audit.attribution.verdict import Evidence, decide
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

REFERENCE_WORDING = ("A reference failed", "Investigate the failure")


def _chapter(tmp_path: Path, snapshot: str, claims: str):
    folder = tmp_path / "messages"
    folder.mkdir()
    (folder / "chapter.yaml").write_text("id: messages\ntitle: Messages\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text(snapshot, encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return load_chapter(folder)


def test_a_claimed_value_the_quote_does_not_print_names_the_field_and_the_fix(tmp_path):
    """The quote prints AP ≈ 0.491; the register claims ≈ 0.8333 (AP of a, n, b with |R| = 2 is (1 + 2/3)/2 = 5/6 by
    hand, so the register holds a value the text does not print). No reference failed: the message says the claim's
    `claimed` is wrong and how to fix it, never that a reference failed."""
    chapter = _chapter(tmp_path, "Here AP ≈ 0.491 on this ranking.\n",
                       "fixtures:\n  f: {qrels: {q1: {a: 1, b: 1, n: 0}}, run: {q1: [a, n, b]}}\nclaims:\n"
                       "  - {id: A1, title: edited, kind: value, quote: \"Here AP ≈ 0.491 on this ranking.\", "
                       "claim: AP = 5/6, fixture: f, expect: [{measure: AP, claimed: \"≈ 0.8333\"}]}\n")
    (claim,) = audit_chapter(chapter, all_references(), collect([])).claims
    assert claim.verdict == "error"
    assert "the claimed value '≈ 0.8333' is not printed in the quote" in claim.reason
    assert claim.concern.startswith("The register does not encode what the text says")
    assert claim.response.startswith("In the register, fix `claimed`: write the value as the quote prints it")
    assert not any(w in claim.concern + claim.response for w in REFERENCE_WORDING)


def test_only_a_reference_failure_is_called_one():
    """decide() words an error by what failed: a reference (named so), the register (field and fix, with the
    reference's failure added when both happened), or a check that cannot decide (neither)."""
    ref = Evidence()
    ref.reference_errors(["ranx (ranx) failed on fixture 'f': numba cache not writable"])
    d = decide(ref)
    assert d.verdict == "error" and d.concern.startswith("A reference failed")
    assert d.response.startswith("Investigate the failure")
    both = Evidence()
    both.register_error("the claimed value '0.8' is not printed in the quote", "claimed", "write the printed value")
    both.reference_errors(["ranx (ranx) failed on fixture 'f': boom"])
    d = decide(both)
    assert d.response.startswith("In the register, fix `claimed`: write the printed value.")
    assert "A reference failed as well" in d.response
    undecided = Evidence()
    undecided.undecided("sqrt(2)**2 is within about 1e-40 of a bound of the claimed 2")
    d = decide(undecided)
    assert not any(w in d.concern + d.response for w in REFERENCE_WORDING)
    assert "cannot decide" in d.concern
    plain = Evidence()
    plain.errors.append("not run: isolation unavailable (no user namespaces)")
    d = decide(plain)
    assert not any(w in d.concern + d.response for w in REFERENCE_WORDING)
