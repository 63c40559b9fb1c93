"""The text is the source of truth across revisions: what ``audit init`` derived from a sentence is derived again when
the author edits the sentence, a field the author wrote is kept and named, and a hand-written value the new sentence
no longer prints is stale — never a verdict that sends the author back to the old text."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
import yaml

from audit.cli import main
from audit.register.claims import load_chapter
from audit.register.derived import field_print, hand_written
from audit.draft.init import create_chapter

#: Lecture notes on average precision: a rank table, then the computation under it. Five documents are relevant to
#: the query, three of them retrieved (ranks 1, 3 and 6), so AP = (1 + 2/3 + 3/6)/5 = 13/30 ≈ 0.4333; the sentence
#: first divides by the three retrieved ones instead (13/24 ≈ 0.5417: right arithmetic, wrong denominator).
NOTES = """\
# Lecture 4: average precision

For query q7 the assessors marked five documents relevant. Our baseline returned six documents:

| rank | doc | relevant |
|------|-----|----------|
| 1    | d12 | yes      |
| 2    | d40 | no       |
| 3    | d03 | yes      |
| 4    | d27 | no       |
| 5    | d18 | no       |
| 6    | d09 | yes      |

Average precision sums the precision at each rank where a relevant document appears and divides by the number of
relevant documents. The precision values at the three hits are 1, 2/3 and 3/6. Here AP = (1 + 2/3 + 3/6)/4 = 0.5417.

Two of the five relevant documents were never retrieved, and they still count in the denominator.
"""

OLD = "Here AP = (1 + 2/3 + 3/6)/4 = 0.5417."
NEW = "Here AP = (1 + 2/3 + 3/6)/5 = 0.4333."


def run(folder: Path, reports: Path, *extra: str, cache: bool = False) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["run", str(folder), "--reports", str(reports), *([] if cache else ["--no-cache"]), "--quiet",
                     "--fail-on", "contradicted,stale,error", *extra])
    return code, out.getvalue()


def report(reports: Path, chapter: str = "notes") -> dict:
    data = json.loads((reports / f"{chapter}.json").read_text(encoding="utf-8"))
    return {c["id"]: c for c in data["claims"]}


def arithmetic(claims: dict, expression: str) -> dict:
    found = [c for c in claims.values() if c["kind"] == "arithmetic" and c["claimed"].startswith(expression)]
    assert len(found) == 1, [c["claimed"] for c in claims.values()]
    return found[0]


def edit(folder: Path, old: str, new: str) -> None:
    """The author's edit of the chapter as the audit reads it."""
    path = folder / load_chapter(folder).identity.snapshot.file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


def edit_register(folder: Path, claim_id: str, **fields) -> None:
    path = folder / "claims.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for c in data["claims"]:
        if c["id"] == claim_id:
            c.update(fields)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


@pytest.fixture
def chapter(tmp_path) -> Path:
    source = tmp_path / "lecture-4.md"
    source.write_text(NOTES, encoding="utf-8")
    folder, _ = create_chapter(source, "notes", tmp_path / "claims")
    return folder


def test_init_records_the_sentence_and_the_fields_it_derived(chapter):
    claim = next(c for c in load_chapter(chapter).register.claims if c.kind == "arithmetic")
    assert claim.derived is not None and claim.derived.sentence == OLD
    assert {"quote", "expression", "claimed", "kind"} <= set(claim.derived.fields)
    assert claim.derived.fields["claimed"] == field_print("0.5417")
    assert hand_written(claim) == []   # as init wrote it, nothing is the author's


def test_a_corrected_sentence_is_derived_again_and_passes_the_gate(chapter, tmp_path):
    reports = tmp_path / "reports"
    code, out = run(chapter, reports)
    first = arithmetic(report(reports), "(1 + 2/3 + 3/6)/4")
    # 1 + 2/3 + 1/2 = 13/6, and 13/6 / 4 = 13/24 = 0.541666…: the printed arithmetic itself is right
    assert first["verdict"] == "supported" and "revision" not in first, out
    edit(chapter, OLD, NEW)   # the author corrects the denominator in the manuscript; the register is not touched
    code, out = run(chapter, reports)
    claims = report(reports)
    now = arithmetic(claims, "(1 + 2/3 + 3/6)/5")
    # 13/6 / 5 = 13/30 = 0.43333…, printed 0.4333
    assert now["verdict"] == "supported", now["reason"]
    assert now["quote"] == "(1 + 2/3 + 3/6)/5 = 0.4333" and now["id"] == first["id"]
    assert now["revision"]["sentence"] == OLD and now["revision"]["now"] == NEW
    assert {"expression", "claimed", "quote"} <= set(now["revision"]["rederived"])
    assert now["revision"]["hand_written"] == [] and now["revision"]["stale"] == []
    assert code == 0, out   # --fail-on contradicted,stale,error: no claim holds the new text to the old one
    assert not [c["id"] for c in claims.values() if c["verdict"] in ("contradicted", "stale", "error")]
    markdown = (reports / "notes.md").read_text(encoding="utf-8")
    assert "**Derived again from edited sentences**" in markdown
    assert f"[{now['id']}](#{now['id']}) (supported): now “{NEW}”, was “{OLD}”" in markdown


def test_an_edit_that_breaks_the_arithmetic_is_judged_on_the_new_text(chapter, tmp_path):
    """The author changes the denominator and forgets the value: the sentence as now printed is wrong (13/30 is
    0.4333), and that — not the old sentence — is what the verdict is about."""
    reports = tmp_path / "reports"
    edit(chapter, OLD, "Here AP = (1 + 2/3 + 3/6)/5 = 0.5417.")
    code, _ = run(chapter, reports)
    now = arithmetic(report(reports), "(1 + 2/3 + 3/6)/5")
    assert now["verdict"] == "contradicted" and code == 1
    assert "0.4333" in now["response"]


def test_a_hand_written_value_the_new_sentence_no_longer_prints_is_stale_naming_the_field(chapter, tmp_path):
    reports = tmp_path / "reports"
    claim = next(c for c in load_chapter(chapter).register.claims if c.kind == "arithmetic")
    # the author rounded the claimed value by hand, and added a note
    edit_register(chapter, claim.id, claimed="0.542", note="rounded as the slides print it")
    assert sorted(hand_written(next(c for c in load_chapter(chapter).register.claims if c.id == claim.id))) == \
        ["claimed", "note"]
    edit(chapter, OLD, NEW)
    code, _ = run(chapter, reports)
    now = report(reports)[claim.id]
    assert now["verdict"] == "stale" and code == 1
    assert "`claimed` (0.542) is written by hand and the sentence no longer prints 0.542" in now["reason"]
    assert sorted(now["revision"]["hand_written"]) == ["claimed", "note"]
    assert "expression" in now["revision"]["rederived"] and "claimed" not in now["revision"]["rederived"]
    assert "Update `claimed`" in now["response"]
    assert now["note"] == "rounded as the slides print it"   # kept


def test_a_hand_written_field_the_new_sentence_bears_out_is_kept_and_checked(chapter, tmp_path):
    reports = tmp_path / "reports"
    claim = next(c for c in load_chapter(chapter).register.claims if c.kind == "arithmetic")
    edit_register(chapter, claim.id, claimed="≈ 0.4333")   # the author already wrote the corrected value, as rounded
    edit(chapter, OLD, NEW)
    code, _ = run(chapter, reports)
    now = report(reports)[claim.id]
    assert now["verdict"] == "supported" and code == 0, now["reason"]
    assert now["revision"]["hand_written"] == ["claimed"] and now["claimed"] == "(1 + 2/3 + 3/6)/5 ≈ 0.4333"


def test_an_unchanged_sentence_gives_the_same_report_as_a_register_without_records(chapter, tmp_path):
    reports = tmp_path / "reports"
    run(chapter, reports)
    with_records = {n: (reports / n).read_bytes() for n in ("notes.md", "notes.json", "notes.html")}
    run(chapter, reports)
    assert {n: (reports / n).read_bytes() for n in with_records} == with_records   # a rerun: byte-identical
    path = chapter / "claims.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for c in data["claims"]:
        c.pop("derived", None)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    run(chapter, reports)

    def unrecorded(node):
        """The JSON report without the patch's edits of the records (the patch brings each edited claim's record to
        the patched sentence; a register without records has none to edit)."""
        if isinstance(node, list):
            return [unrecorded(x) for x in node if not (isinstance(x, dict) and x.get("field") == "derived")]
        if isinstance(node, dict):
            return {k: unrecorded(v) for k, v in node.items()}
        return node

    def placed(texts: dict[str, bytes]) -> dict[str, object]:
        """The reports with the claims' lines in claims.yaml left out: the records take lines of the register."""
        out = {n: re.sub(rb"(register line |\"register_line\": )\d+", rb"\1N", t) for n, t in texts.items()}
        out["notes.json"] = unrecorded(json.loads(re.sub(rb'("register_line": )\d+', rb'\1"N"', texts["notes.json"])))
        return out

    # the records add nothing else to any report
    assert placed({n: (reports / n).read_bytes() for n in with_records}) == placed(with_records)


#: A tutorial's worked example in prose: the ranking's relevant hit and the measure printed in one sentence, and a
#: second sentence printing the same fraction, which the edit makes repeat.
TUTORIAL = """\
# Reciprocal rank, by hand

Take one query whose only relevant document comes back below a single non-relevant one.

The first relevant document is at rank 2, so RR = 1/2 = 0.5. At cutoff three, P@3 = 1/3 ≈ 0.333.
"""
RR_OLD = "The first relevant document is at rank 2, so RR = 1/2 = 0.5."
RR_NEW = "The first relevant document is at rank 3, so RR = 1/3 ≈ 0.333."


@pytest.fixture
def tutorial(tmp_path) -> Path:
    source = tmp_path / "rr.md"
    source.write_text(TUTORIAL, encoding="utf-8")
    folder, _ = create_chapter(source, "notes", tmp_path / "claims")
    return folder


def value_claim(folder: Path):
    return next(c for c in load_chapter(folder).register.claims if c.kind == "value")


def test_a_value_claim_follows_its_sentence_to_a_new_ranking(tutorial, tmp_path):
    """Rank 2 → rank 3: init's ranking had its hit at rank 2 (RR = 1/2); the claim derived from the new sentence has
    it at rank 3, where RR = 1/3 ≈ 0.333 — not the old ranking held to the new number (a false contradiction)."""
    before = value_claim(tutorial)
    assert before.fixture.run["q1"].index("a") == 1   # the hit at rank 2 as init derived it
    reports = tmp_path / "reports"
    edit(tutorial, RR_OLD, RR_NEW)
    code, out = run(tutorial, reports)
    claims = report(reports)
    now = claims[before.id]
    assert now["verdict"] == "supported" and now["claimed"] == "RR ≈ 0.333", now["reason"]
    assert {"fixture", "expect", "quote"} <= set(now["revision"]["rederived"])
    # "1/3 ≈ 0.333" is now printed twice; the arithmetic claim's own sentence, unchanged, tells which one is its own
    other = next(c for c in claims.values() if c["kind"] == "arithmetic")
    assert other["verdict"] == "supported" and other["anchor_state"] == "unchanged" and "revision" not in other
    assert "the one in the sentence the claim was derived from is used" in other["anchor"]
    assert code == 0, out


def test_a_hand_written_ranking_whose_derivation_changed_is_stale_not_judged(tutorial, tmp_path):
    """The author replaced init's stand-in ranking by the tutorial's own (hit at rank 2). After the sentence moves
    the hit to rank 3, that ranking may no longer be the sentence's: it is named stale, not held to RR = 1/3."""
    claim = value_claim(tutorial)
    edit_register(tutorial, claim.id, fixture={"qrels": {"q1": {"d3": 1}}, "run": {"q1": ["d1", "d3", "d5"]}})
    reports = tmp_path / "reports"
    edit(tutorial, RR_OLD, RR_NEW)
    code, _ = run(tutorial, reports)
    now = report(reports)[claim.id]
    assert now["verdict"] == "stale" and code == 1
    assert now["revision"]["hand_written"] == ["fixture"]
    assert "`fixture` is written by hand, and what init derives for it changed with the sentence" in now["reason"]


def accept(folder: Path, reports: Path) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["accept", str(folder), "--reports", str(reports)])
    return code, out.getvalue()


def test_accepting_a_revision_records_its_fingerprint_and_history(chapter, tmp_path):
    from audit.text.chapter import Snapshot
    reports = tmp_path / "reports"
    first = load_chapter(chapter).identity.fingerprint
    edit(chapter, OLD, NEW)
    now = Snapshot.read(chapter / load_chapter(chapter).identity.snapshot.file).fingerprint()
    code, out = accept(chapter, reports)   # not audited yet: nothing is recorded
    assert code != 0 and "this revision has not been audited" in out
    assert load_chapter(chapter).identity.fingerprint == first
    run(chapter, reports)
    assert json.loads((reports / "notes.json").read_text(encoding="utf-8"))["fingerprint"]["matches"] is False
    code, out = accept(chapter, reports)
    assert code == 0 and f"accepted revision {now[:12]}… (was {first[:12]}…)" in out
    text = (chapter / "chapter.yaml").read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=") and f"\nfingerprint: {now}\n" in text  # comments kept
    history = json.loads((reports / "history" / "notes.json").read_text(encoding="utf-8"))
    assert history[-1]["fingerprint"] == now and history[-1]["accepted"] == {"replaces": first}
    run(chapter, reports)
    assert json.loads((reports / "notes.json").read_text(encoding="utf-8"))["fingerprint"]["matches"] is True
    assert json.loads((reports / "history" / "notes.json").read_text(encoding="utf-8")) == history  # nothing moved
    edit(chapter, NEW, OLD)   # another revision, whose report is not written yet: refused
    code, out = accept(chapter, reports)
    assert code != 0 and "the report was made from another text" in out
    assert load_chapter(chapter).identity.fingerprint == now


def test_a_sentence_rewritten_past_recognition_leaves_its_claim_stale(chapter, tmp_path):
    """The computation is taken out of the text: no passage is that sentence edited, so the claim derived from it is
    stale — never re-anchored to a passage that merely looks alike and checked with the old numbers."""
    reports = tmp_path / "reports"
    claim = next(c for c in load_chapter(chapter).register.claims if c.kind == "arithmetic")
    edit(chapter, OLD, "Working out AP for this ranking is left as an exercise.")
    code, _ = run(chapter, reports)
    now = report(reports)[claim.id]
    assert now["verdict"] == "stale" and code == 1
    assert "is no longer printed as it was" in now["reason"] and now["revision"]["now"] == ""


def test_a_derived_again_claim_is_the_same_from_the_cache(chapter, tmp_path):
    edit(chapter, OLD, NEW)
    computed = {}
    for name, cache in (("fresh", False), ("stored", True), ("read", True)):
        run(chapter, tmp_path / name, cache=cache)
        computed[name] = {n: (tmp_path / name / n).read_bytes().replace(b" --no-cache", b"")
                          for n in ("notes.md", "notes.json")}
    assert computed["fresh"] == computed["stored"] == computed["read"]
    assert b"Derived again from edited sentences" in computed["read"]["notes.md"]


def test_a_field_that_holds_what_the_new_sentence_gives_is_not_the_authors(chapter, tmp_path):
    """The author (or an applied patch) already wrote the corrected value exactly as init derives it from the new
    sentence: nothing is hand-written, nothing is stale."""
    reports = tmp_path / "reports"
    claim = next(c for c in load_chapter(chapter).register.claims if c.kind == "arithmetic")
    edit_register(chapter, claim.id, claimed="0.4333", quote="(1 + 2/3 + 3/6)/5 = 0.4333")
    edit(chapter, OLD, NEW)
    code, _ = run(chapter, reports)
    now = report(reports)[claim.id]
    assert now["verdict"] == "supported" and code == 0 and now["revision"]["hand_written"] == []


def test_two_claims_of_one_sentence_each_follow_their_own_computation(tmp_path):
    """A sentence printing two ratios; the author edits the second. Each register claim is derived again from its own
    computation (20/43 = 0.465116…, printed .4651; 21/43 = 0.488372…, printed .4884), never both from one."""
    source = tmp_path / "split.md"
    source.write_text("# Promotion and demotion\n\nOf the 43 promoted items 21 were correct.\n\n"
                      "Promotion recall is 21/43 ≈ .4884 and demotion recall is 27/28 ≈ .9643 on this split.\n",
                      encoding="utf-8")
    folder, _ = create_chapter(source, "notes", tmp_path / "claims")
    ids = {c.quote: c.id for c in load_chapter(folder).register.claims if c.kind == "arithmetic"}
    assert set(ids) == {"21/43 ≈ .4884", "27/28 ≈ .9643"}
    edit(folder, "27/28 ≈ .9643", "20/43 ≈ .4651")
    code, _ = run(folder, tmp_path / "reports")
    claims = report(tmp_path / "reports")
    assert claims[ids["21/43 ≈ .4884"]]["claimed"] == "21/43 ≈ .4884"
    assert claims[ids["27/28 ≈ .9643"]]["claimed"] == "20/43 ≈ .4651"
    assert all(claims[i]["verdict"] == "supported" for i in ids.values()) and code == 0


def test_a_hand_written_expression_no_longer_in_the_sentence_is_stale_naming_it(chapter, tmp_path):
    claim = next(c for c in load_chapter(chapter).register.claims if c.kind == "arithmetic")
    edit_register(chapter, claim.id, expression="(1 + 2/3 + 1/2)/4")   # the author simplified 3/6 by hand
    edit(chapter, OLD, NEW)
    code, _ = run(chapter, tmp_path / "reports")
    now = report(tmp_path / "reports")[claim.id]
    assert now["verdict"] == "stale" and code == 1
    assert "`expression` ((1 + 2/3 + 1/2)/4) is written by hand and is no longer in the sentence" in now["reason"]
    assert "Update `expression`" in now["response"]


def test_the_html_report_lists_the_claims_derived_again_escaped(chapter, tmp_path):
    edit(chapter, OLD, "Here AP = (1 + 2/3 + 3/6)/5 = 0.4333 <b>exactly</b>.")
    run(chapter, tmp_path / "reports")
    html = (tmp_path / "reports" / "notes.html").read_text(encoding="utf-8")
    block = html[html.index('<div id="derived-again">'):]
    block = block[:block.index("</div>")]
    assert f"was “{OLD}”" in block and "&lt;b&gt;exactly&lt;/b&gt;" in block and "<b>" not in block


HITS_OLD = "The precision values at the three hits are 1, 2/3 and 3/6."


def finish_by_hand(folder: Path) -> str:
    """The author encodes init's draft of the precision sentence as a value claim on the lecture's rank table (hits at
    ranks 1, 3 and 6, the three misses judged non-relevant, two relevant documents not retrieved; P@1 = 1,
    P@3 = 2/3, P@6 = 3/6), keeping init's quote."""
    claim = next(c for c in load_chapter(folder).register.claims if c.quote == HITS_OLD)
    ranking = ["d12", "d40", "d03", "d27", "d18", "d09"]
    qrels = {"q7": {**{d: 1 for d in ("d12", "d03", "d09", "d51", "d66")}, **{d: 0 for d in ("d40", "d27", "d18")}}}
    edit_register(folder, claim.id, kind="value", claim="precision at each hit of the rank table",
                  fixture={"qrels": qrels, "run": {"q7": ranking}},
                  expect=[{"measure": "P@1", "claimed": "1"}, {"measure": "P@3", "claimed": "2/3"},
                          {"measure": "P@6", "claimed": "3/6"}], statement=None)
    path = folder / "claims.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for c in data["claims"]:
        c.pop("statement", None) if c["id"] == claim.id else None
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return claim.id


def test_a_draft_finished_by_hand_is_checked_while_its_sentence_is_unchanged(chapter, tmp_path):
    cid = finish_by_hand(chapter)
    code, _ = run(chapter, tmp_path / "reports")
    now = report(tmp_path / "reports")[cid]
    # 1/1, 2/3 and 3/6 are the precisions at ranks 1, 3 and 6 of the table
    assert now["verdict"] == "supported" and "revision" not in now, now["reason"]


def test_a_draft_finished_by_hand_is_stale_when_its_sentence_stops_printing_a_value(chapter, tmp_path):
    """The author rewrites 3/6 as 1/2 in the text: the hand-written expectation P@6 = 3/6 is no longer printed, so
    the claim is stale naming it; the author's fixture and other expectations are kept."""
    cid = finish_by_hand(chapter)
    edit(chapter, HITS_OLD, "The precision values at the three hits are 1, 2/3 and 1/2.")
    code, _ = run(chapter, tmp_path / "reports")
    now = report(tmp_path / "reports")[cid]
    assert now["verdict"] == "stale" and code == 1
    assert "`expect[2].claimed` (3/6) is written by hand and the sentence no longer prints 3/6" in now["reason"]
    assert {"fixture", "expect", "kind"} <= set(now["revision"]["hand_written"])
    assert now["quote"] == "The precision values at the three hits are 1, 2/3 and 1/2."   # the quote follows the text


#: A write-up's sign test: nine of ten queries improve, and the sentence prints only the p-value. Two-sided, the sign
#: test's p is 2·P(X ≥ 9) for X ~ Binomial(10, 1/2) = 2·(10 + 1)/2^10 = 22/1024 = 0.021484… (scipy.stats.binomtest(9,
#: 10).pvalue gives the same), so the printed 0.022 is wrong at three decimals and 0.021 is right.
SIGN_TEST = """\
# Results

The new ranker improved nine of the ten test queries; a two-sided sign test gives p = 0.022.
"""


def test_an_expression_the_sentence_never_printed_is_not_stale_after_the_fix_is_applied(tmp_path, monkeypatch):
    """The author encoded the sign test's p by hand as arithmetic from its counts; the sentence never printed that
    expression. The audit contradicts 0.022, the patch prints 0.021, and the rerun is clean: an expression the old
    sentence did not print cannot go stale through the edit (it was stale, naming `expression`, before)."""
    import subprocess
    from scipy.stats import binomtest
    assert round(binomtest(9, 10).pvalue, 6) == round(22 / 1024, 6)
    monkeypatch.chdir(tmp_path)   # the patch names files relative to where the audit ran, as from a book's root
    source = Path("results.md")
    source.write_text(SIGN_TEST, encoding="utf-8")
    folder, _ = create_chapter(source, "notes", Path("claims"))
    # init's draft of the sentence, finished by hand (its `derived:` record kept, as an author's edit keeps it)
    path = folder / "claims.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    (claim,) = data["claims"]
    assert claim["kind"] == "draft" and "derived" in claim
    claim.pop("statement")
    claim.update(title="the sign test's p", kind="arithmetic", claim="two-sided sign test, 9 of 10 improved",
                 expression="2*(1 + 10)/2^10", claimed="0.022")
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    reports = Path("reports")
    code, out = run(folder, reports)
    first = report(reports)["C01"]
    assert first["verdict"] == "contradicted" and code == 1, out
    patch = (reports / "notes.patch").read_text(encoding="utf-8")
    assert "+The new ranker improved nine of the ten test queries; a two-sided sign test gives p = 0.021." in patch
    applied = subprocess.run(["patch", "-p0", "-s"], input=patch, cwd=tmp_path, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    code, out = run(folder, reports)
    now = report(reports)["C01"]
    # the patch brought the claim's record to the patched sentence: the rerun reads the claim as the patch left it
    assert now["verdict"] == "supported" and "revision" not in now and code == 0, now
