"""An error names what failed: a register mistake says which field is wrong and how to fix it; "A reference failed"
and "Investigate the failure" are said only when a reference did fail."""

from __future__ import annotations

from pathlib import Path

from audit.attribution.verdict import decide
from audit.model.evidence import Evidence
from audit.evaluation.checks import Measurements
from audit.evaluation.references import Outcome, Reference, Support, all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter, audit_claim
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
    # the review checklist sends the author to the register, with the same fix
    report = audit_chapter(chapter, all_references(), collect([]))
    items = [i for i in report.research.checklist if "A1" in i.claims]
    assert [(i.recommendation, i.reason) for i in items] == [("revise", f"update the register entry: {claim.response}")]


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


class Broken(Reference):
    """A reference that fails on every measure (as a library that raises would)."""

    name = "broken"
    library = "broken"
    title = "a failing reference"

    def version(self) -> str:
        return "0"

    def conventions(self) -> dict[str, str]:
        return {}

    def supports(self, measure) -> Support:
        return Support(True)

    def evaluate(self, measures, qrels, run):
        return {str(m): Outcome("error", provider="broken", detail="RuntimeError: boom") for m in measures}

    def evaluate_run_file(self, measures, qrels, path):
        return self.evaluate(measures, qrels, None)


def test_a_reference_that_did_fail_is_named_as_one(tmp_path):
    """P@3 of a, n, b with a and b relevant is 2/3 (by hand); the register is right, and one reference raises: the
    error is the reference's, and only then is the author told to investigate a failure."""
    chapter = _chapter(tmp_path, "Here P@3 = 2/3.\n",
                       "fixtures:\n  f: {qrels: {q1: {a: 1, b: 1, n: 0}}, run: {q1: [a, n, b]}}\nclaims:\n"
                       "  - {id: V1, title: p, kind: value, quote: \"P@3 = 2/3\", claim: P@3 = 2/3, fixture: f, "
                       "expect: [{measure: \"P@3\", claimed: \"2/3\"}]}\n")
    result = audit_claim(chapter.register.claims[0], chapter, Measurements([*all_references(), Broken()]))
    assert result.verdict == "error" and "broken (broken) failed" in result.reason
    assert result.concern.startswith("A reference failed")
    assert result.response.startswith("Investigate the failure")
