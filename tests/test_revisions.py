"""Chapter revisions: synthetic edits of chapter 23 through anchors, verdicts, fingerprint, scan and diff."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from audit.cli import main
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.report.diff import diff_reports
from audit.run.audit import audit_chapter
from audit.run.provenance import collect
from audit.text.anchors import SIMILARITY, locate, number_changes
from audit.text.chapter import Snapshot
from audit.draft.init import create_chapter

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "claims" / "retrieval-23-chapter"
KEEP = {"C02", "C03", "C08", "C14", "C17", "C41", "C45"}   # fast claims spread over the excerpt


def revision(tmp_path: Path, name: str, edit=None, *, register=None) -> Path:
    """A copy of chapter 23 with a trimmed register and ``edit`` applied to the snapshot text."""
    folder = tmp_path / name
    shutil.copytree(SHIPPED, folder)
    data = yaml.safe_load((SHIPPED / "claims.yaml").read_text(encoding="utf-8"))
    data["claims"] = [c for c in data["claims"] if c["id"] in KEEP]
    for c in data["claims"]:
        c.update((register or {}).get(c["id"], {}))
    (folder / "claims.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    if edit:
        path = folder / "snapshot.txt"
        path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return folder


def audited(folder: Path):
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    return report, {c.id: c for c in report.claims}


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    return audited(revision(tmp_path_factory.mktemp("original"), "chapter"))


def swap_lines_2_and_3(text: str) -> str:
    lines = text.split("\n")
    lines[1], lines[2] = lines[2], lines[1]
    return "\n".join(lines)


def test_a_moved_paragraph_keeps_its_claims_and_the_diff_says_moved(tmp_path, original):
    report, claims = audited(revision(tmp_path, "moved", swap_lines_2_and_3))
    assert claims["C03"].verdict == "supported" and claims["C03"].line == 3
    change = diff_reports(original[0].model_dump(mode="json"), report.model_dump(mode="json"))
    assert ("C03", 2, 3) in change.moved and not change.verdicts and not change.edited


def test_a_line_hint_makes_a_move_an_explicit_anchor_state(tmp_path):
    folder = revision(tmp_path, "hinted", swap_lines_2_and_3, register={"C03": {"line": 2}})
    _, claims = audited(folder)
    assert claims["C03"].anchor_state == "moved" and "moved from line 2 to line 3" in claims["C03"].anchor


def test_a_number_changed_from_1_4_to_1_3_is_edited_and_contradicted(tmp_path, original):
    """The sentence now says P@4 = 1/3; the chapter's definition still gives 1/4 (one hit over k = 4)."""
    report, claims = audited(revision(tmp_path, "edited", lambda t: t.replace("P@4 = 1/4, not one", "P@4 = 1/3, not one")))
    c14 = claims["C14"]
    assert c14.anchor_state == "edited" and c14.similarity >= SIMILARITY
    assert c14.found_text.endswith("gives P@4 = 1/3, not one.")
    assert c14.verdict == "contradicted" and "numbers changed in the new wording (1/4 → 1/3)" in c14.reason
    assert c14.response == ("Change “1/3” to “1/4” (checked: the claim re-run on the corrected "
                                   "sentence is supported; the new value holds under every reading the chapter allows).")
    change = diff_reports(original[0].model_dump(mode="json"), report.model_dump(mode="json"))
    assert [v[:3] for v in change.verdicts] == [("C14", "supported", "contradicted")]
    assert change.edited[0][0] == "C14"


def test_a_deleted_sentence_makes_its_claim_stale_never_verified(tmp_path, original):
    quote = next(c.quote for c in original[0].claims if c.id == "C41")
    report, claims = audited(revision(tmp_path, "deleted", lambda t: t.replace(quote, "")))
    assert claims["C41"].anchor_state == "lost" and claims["C41"].verdict == "stale"
    assert claims["C41"].checks == []
    change = diff_reports(original[0].model_dump(mode="json"), report.model_dump(mode="json"))
    before = next(c.verdict for c in original[0].claims if c.id == "C41")
    assert ("C41", before, "stale") in [v[:3] for v in change.verdicts]


def test_deleting_the_sentence_a_convention_quotes_stops_the_load_naming_the_convention(tmp_path):
    """chapter.yaml's repeated_ids rests on "The evaluator rejects repeated result IDs"; with that sentence gone the
    text no longer states the rule, and a convention is never applied on a quote the text does not hold: the load
    stops naming the file and the field, so the author updates the convention or states the rule again."""
    from audit.errors import RegisterError
    deleted = ("The evaluator rejects repeated result IDs: returning the same document twice cannot count as two "
               "discoveries. ")
    folder = revision(tmp_path, "deleted", lambda t: t.replace(deleted, ""))
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.field == "conventions.repeated_ids[0].quote"
    assert str(caught.value.file).endswith("chapter.yaml")


def test_a_new_numeric_sentence_is_listed_as_uncovered(tmp_path, original):
    added = "At cutoff ten, nDCG@10 of 0.62 was measured on the pilot set. "
    report, _ = audited(revision(tmp_path, "added", lambda t: t.replace("Recall at a cutoff reverses", added + "Recall at a cutoff reverses")))
    before = {s.text for s in original[0].statements if not s.covered_by}
    uncovered = [(s.text, s.unit) for s in report.statements if not s.covered_by and s.text not in before]
    assert uncovered == [("nDCG@10 of 0.62", "At cutoff ten, nDCG@10 of 0.62 was measured on the pilot set.")]
    assert report.scan["uncovered"] == original[0].scan["uncovered"] + 1


def test_whitespace_and_quote_marks_only_change_nothing(tmp_path, original):
    def typography(text: str) -> str:
        return text.replace("’", "'").replace(". ", ".  ").replace("\n", "\r\n")
    report, claims = audited(revision(tmp_path, "typography", typography))
    assert report.fingerprint.computed == original[0].fingerprint.computed
    assert all(c.anchor_state == "unchanged" for c in claims.values())
    change = diff_reports(original[0].model_dump(mode="json"), report.model_dump(mode="json"))
    assert change.empty or (not change.verdicts and not change.edited and not change.fingerprint)


def test_two_equal_passages_are_ambiguous_not_reanchored():
    snapshot = Snapshot(Path("x"), "Precision at four is 1/4 here.\nPrecision at four is 1/4 there.\n")
    assert locate(snapshot, "Precision at four is 1/4").state == "ambiguous"
    edited = Snapshot(Path("x"), "Precision at five is 1/5 here.\nPrecision at five is 1/5 there.\n")
    assert locate(edited, "Precision at four is 1/4").state in ("ambiguous", "lost")


def test_number_changes_are_matched_in_order():
    assert number_changes("21/43 ≈ .4884", "21/43 ≈ .4883") == {".4884": ".4883"}
    assert number_changes("P@4 = 1/4", "P@4 = one quarter") == {}


@pytest.mark.parametrize("seed", ["000_c61f910db980abe1.txt", "001_d270ff231ee3f418.txt"])
def test_init_stubs_cover_every_numeric_statement(tmp_path, seed):
    source = ROOT.parent / "shared" / "seeds" / seed
    if not source.exists():
        pytest.skip(f"{source} is not available")
    folder, counts = create_chapter(source, "draft", tmp_path)
    report, _ = audited(folder)
    # every statement the scanner reads gets a claim; a sentence it cannot read (a number, a comparison or a
    # universal word with no statement shape) gets none, is counted apart by init and is listed by the audit as
    # uncovered, unless a drafted claim quotes it
    read = [s for s in report.statements if not s.kind.startswith("unread")]
    unread = [s for s in report.statements if s.kind.startswith("unread")]
    assert counts["statements"] == len(read) > 0
    assert all(s.covered_by for s in read)
    assert counts["unread"] == len([s for s in unread if not s.covered_by])
    if seed.startswith("000"):
        # 21/43 ≈ .4884, 27/43 ≈ .6279, 21/21 = 1, 27/28 ≈ .9643, 21/(21+16) ≈ .5676: encoded without a fixture
        ratios = {"21/43", "27/43", "21/21", "27/28", "21/(21+16)"}
        arithmetic = {c.claim.split(" is ")[0]: c.verdict for c in report.claims if c.kind == "arithmetic"}
        assert {r: arithmetic.get(r) for r in ratios} == {r: "supported" for r in ratios}


def test_audit_diff_command_prints_changes(tmp_path, capsys, original):
    old = tmp_path / "old.json"
    old.write_text(original[0].model_dump_json(), encoding="utf-8")
    report, _ = audited(revision(tmp_path, "edited2", lambda t: t.replace("P@4 = 1/4, not one", "P@4 = 1/3, not one")))
    new = tmp_path / "new.json"
    new.write_text(report.model_dump_json(), encoding="utf-8")
    assert main(["diff", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "verdict  C14: supported → contradicted" in out and "fingerprint" in out


def test_init_refuses_an_existing_folder(tmp_path, capsys):
    (tmp_path / "claims" / "taken").mkdir(parents=True)
    snapshot = tmp_path / "s.txt"
    snapshot.write_text("P@4 = 1/4.\n", encoding="utf-8")
    assert main(["init", str(snapshot), "--id", "taken", "--claims-dir", str(tmp_path / "claims")]) == 3
    assert "already exists" in capsys.readouterr().err


def test_register_typo_is_stale_not_edited(tmp_path):
    """A quote mistyped in the register ("one third" for the printed "1/3") must not re-anchor as an edit to a
    passage that stops before the number: the register is wrong, not the chapter, so the claim is stale."""
    from audit.register.claims import ValueClaim
    from audit.text.anchors import keeps_numbers, locate
    from audit.text.chapter import Snapshot

    path = tmp_path / "s.txt"
    path.write_text("Moving the first relevant result to rank three means its RR is 1/3.\n", encoding="utf-8")
    claim = ValueClaim(id="T1", title="t", kind="value", claim="RR = 1/3",
                       quote="Moving the first relevant result to rank three means its RR is one third.",
                       fixture="f", expect=[{"measure": "RR", "claimed": "1/3"}])
    anchor = keeps_numbers(locate(Snapshot.read(path), claim.quote), claim)
    assert anchor.state == "lost"
    assert "does not carry the claim's numbers (1/3)" in anchor.note
