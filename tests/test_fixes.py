"""Proposed fixes an author can apply as printed: a corrected number never leaves the sentence's own arithmetic
false, a caveat on a table row lands where Markdown shows it, and a bound the text words otherwise is revised, not
rewritten into a string the text does not hold. Each case comes from an expert's reading of the corpus reports
(tests/corpus/measures: QA09, TB10, RX21, GL31, LN16)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from audit.cli import main
from audit.draft.encode import breaks_arithmetic, false_arithmetic


@pytest.mark.parametrize("text, false", [
    ("so nDCG@10 = 2.59/3.64 = 0.7115", []),                                   # 0.711538 rounds to 0.7115
    # 2.59/3.64 = 0.711538 as printed, but 2.59 and 3.64 are rounded: over 2.585..2.595 and 3.635..3.645 the ratio
    # runs from 2.585/3.645 = 0.70919 to 2.595/3.635 = 0.71389, which holds 0.7114 (the GRIM reading), not 0.7050
    ("so nDCG@10 = 2.59/3.64 = 0.7114", []),
    ("so nDCG@10 = 2.59/3.64 = 0.7050", ["2.59/3.64 gives 0.711538, not the printed 0.7050"]),
    # (1.00 + 0.33 + 0.50)/3 = 0.61 as printed; over the numbers the terms round it spans [0.605, 0.615]: 0.611 (the
    # mean of 1, 1/3 and 1/2 is 11/18 = 0.6111) stands, 0.64 does not
    ("MRR = (1.00 + 0.33 + 0.50)/3 = 0.611", []),
    ("MRR = (1.00 + 0.33 + 0.50)/3 = 0.64", ["(1.00 + 0.33 + 0.50)/3 gives 0.61, not the printed 0.64"]),
    ("(6 × 1 + 2 × 0.75 + 3 × 0.27)/11 = 8.31/11 ≈ 0.7545", ["8.31/11 gives 0.755455, not the printed 0.7545"]),
    ("returns 0.2 × (1 + 0.8²) = 1.384.", ["0.2 × (1 + 0.8²) gives 0.328, not the printed 1.384"]),
    ("returns 0.2 × (1 + 0.8²) = 0.328.", []),                                 # ranx's rbp.80 on binary gains
    ("AP = (1 + 2/3)/3 ≈ 0.556", []),
    ("21/43 ≈ .4884", []),
])
def test_printed_arithmetic_is_read_link_by_link(text, false):
    assert false_arithmetic(text) == false


def test_an_edit_is_judged_by_the_arithmetic_it_makes_false():
    assert breaks_arithmetic("2.59/3.64 = 0.7115", "2.59/3.64 = 0.7050") == \
        "2.59/3.64 gives 0.711538, not the printed 0.7050"
    assert breaks_arithmetic("2.59/3.64 = 0.7050", "2.59/3.64 = 0.7050") == ""   # already false: not the edit's doing
    # within the terms' rounding, but 2.59/3.64 gave the printed 0.7115 as printed: a reader would find 0.7114 wrong
    assert breaks_arithmetic("2.59/3.64 = 0.7115", "2.59/3.64 = 0.7114") == \
        "2.59/3.64 gives 0.711538, not the printed 0.7114"
    # a slip within the rounding corrected to the plain terms' value: (1 + 1/3 + 1/2)/3 = 11/18 = 0.6111
    assert breaks_arithmetic("MRR = (1.00 + 0.33 + 0.50)/3 = 0.614", "MRR = (1.00 + 0.33 + 0.50)/3 = 0.611") == ""


SNAPSHOT = """\
# Fixes

The run returns r1, n, r2; r3 is relevant and never retrieved.

Its AP is 1.67/3 = 0.5567.

| measure | value |
|---|---|
| AP | 0.556 |

Every value in the table lies between 0 and 1.

A grade of 1 or more counts as relevant. Moving the answer from rank 1 to rank 2 leaves RR unchanged.

ERR rates it at less than a third of the ideal list's ERR.

The appendix sets these values beside scikit-learn's average_precision_score.
"""
CLAIMS = """\
fixtures:
  short:
    qrels: {q1: {r1: 1, r2: 1, r3: 1, n: 0}}
    run: {q1: [r1, n, r2]}
  top:
    qrels: {q1: {r: 1, n: 0}}
    run: {q1: [r, n]}
  second:
    qrels: {q1: {r: 1, n: 0}}
    run: {q1: [n, r]}
claims:
  - {id: F4, title: RR unchanged, kind: comparison, quote: "Moving the answer from rank 1 to rank 2 leaves RR unchanged",
     claim: RR unchanged, before: top, after: second, expect: [{measure: RR, change: unchanged}]}
  - {id: F5, title: a third, kind: arithmetic, quote: "ERR rates it at less than a third of the ideal list's ERR",
     claim: The ratio of the two printed ERR values is below 1/3., expression: "0.3619/0.954", claimed: "< 1/3"}
  - {id: F1, title: rounded terms, kind: value, quote: "Its AP is 1.67/3 = 0.5567.", claim: AP is 5/9,
     fixture: short, expect: [{measure: AP, claimed: "0.5567"}]}
  - {id: F2, title: table row, kind: value, quote: "| AP | 0.556 |", claim: AP over |R|, fixture: short,
     expect: [{measure: AP, claimed: "0.556"}]}
  - {id: F3, title: a bound in words, kind: value, quote: "Every value in the table lies between 0 and 1.",
     claim: the count of relevant documents is at most 1, fixture: short,
     expect: [{measure: NumRel, claimed: "<= 1", derived: "every value, the counts included"}]}
"""


@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    """Audit, apply the patch with patch -p0 from the project root (the patch names files relative to it), audit
    again."""
    root = tmp_path_factory.mktemp("fixes")
    mp = pytest.MonkeyPatch()
    mp.chdir(root)
    try:
        yield _rounds(root)
    finally:
        mp.undo()


def _rounds(root: Path):
    folder = Path("claims") / "fixes"
    folder.mkdir(parents=True)
    (folder / "snapshot.md").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text(
        'id: fixes\ntitle: Fixes\nsnapshot: {file: snapshot.md}\nconventions:\n  relevance_level: {value: "1", quote: '
        '"A grade of 1 or more counts as relevant."}\n', encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    reports = Path("reports")
    assert main(["run", str(folder), "--reports", str(reports), "--quiet", "--no-cache"]) in (0, 1)
    first = {c["id"]: c for c in json.loads((reports / "fixes.json").read_text(encoding="utf-8"))["claims"]}
    patch = (reports / "fixes.patch").read_text(encoding="utf-8")
    applied = subprocess.run(["patch", "-p0", "-s"], input=patch, cwd=root, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert main(["run", str(folder), "--reports", str(reports), "--quiet", "--no-cache"]) in (0, 1)
    second = {c["id"]: c for c in json.loads((reports / "fixes.json").read_text(encoding="utf-8"))["claims"]}
    return first, patch, second, folder


def test_a_corrected_value_the_printed_terms_gave_otherwise_is_a_revision_not_a_hunk(rounds):
    """AP by hand: precision 1 at rank 1 and 2/3 at rank 3 over |R| = 3 gives 5/9 = 0.5556 (trec_eval map,
    ir_measures AP, ranx map). The sentence prints 1.67/3 = 0.5567, and 1.67/3 = 0.556667 exactly: 0.5556 is within
    what the rounded 1.67 allows, but a reader who divides the printed 1.67 by 3 would find it wrong, so changing
    0.5567 to 0.5556 alone is no hunk and the finding says why."""
    first, patch, _, _ = rounds
    f1 = first["F1"]
    assert f1["verdict"] == "contradicted"
    assert "would leave the printed arithmetic false (1.67/3 gives 0.556667, not the printed" in f1["response"], \
        f1["response"]
    assert "1.67/3 = 0.5556" not in patch and "1.67/3 ≈ 0.5556" not in patch


def test_a_corrected_value_that_would_make_the_printed_arithmetic_false_is_a_revision_not_a_hunk():
    """A correction that no number the printed terms round to gives is not written alone: 0.30/2 spans
    [0.1475, 0.1525] whatever 0.30 rounds, so changing its printed 0.15 to 0.25 leaves the arithmetic false."""
    assert breaks_arithmetic("so P = 0.30/2 = 0.15.", "so P = 0.30/2 = 0.25.") == \
        "0.30/2 gives 0.15, not the printed 0.25"


def test_a_caveat_on_a_table_row_goes_into_the_rows_label_and_the_rerun_supports_it(rounds):
    """The bare 0.556 is 5/9 over |R| and 5/6 over the relevant retrieved (scikit-learn's average_precision_score on
    the returned list, which the text cites, so that reading is one of its readers'): qualified, fixed by stating
    the denominator. Text after a row's last cell is dropped by
    GitHub-flavoured Markdown (cells beyond the header's are ignored), so the caveat goes into the label cell."""
    first, patch, second, folder = rounds
    assert first["F2"]["verdict"] == "qualified"
    assert "+| AP (here AP divides by the number of relevant documents, retrieved or not) | 0.556 |" in patch
    assert first["F2"]["response"].startswith("Add “(here AP divides by the number of relevant documents, retrieved or "
                                              "not)” to the row's label “AP”")
    assert second["F2"]["verdict"] == "supported", second["F2"]["reason"]
    assert second["F2"]["anchor"] == "found"


def test_a_bound_the_text_words_otherwise_is_revised_not_rewritten(rounds):
    """NumRel is 3 here (three documents judged relevant): the register's "<= 1" stands for the sentence's "between
    0 and 1", which holds no "<= 1" to change and whose bound is not one number to move: revise."""
    first, patch, _, _ = rounds
    f3 = first["F3"]
    assert f3["verdict"] == "contradicted"
    assert f3["response"].startswith("Revise the statement: NumRel is 3 here, not ≤ 1."), f3["response"]
    assert "<= 1" not in f3["response"]


def test_a_reading_under_which_the_measure_vanishes_on_both_sides_is_not_named_as_a_cause(rounds):
    """RR moves from 1 (r at rank 1) to 1/2 (r at rank 2): it decreases, so "unchanged" is wrong. With the relevance
    level at 2, above every grade judged, RR is 0 before and after, "unchanged" only because nothing is relevant:
    that reading is not named as one that gives the claimed change (the graded lab's GL15 named level 3 for bpref)."""
    first, _, _, _ = rounds
    f4 = first["F4"]
    assert f4["verdict"] == "contradicted"
    assert "set to “2”" not in f4["reason"] and "relevance level" not in f4["reason"], f4["reason"]
    assert f4["response"].startswith("Revise: the measure decreases (1 → 1/2) here; state that instead of "
                                     "“unchanged”."), f4["response"]


def test_a_corrected_bound_follows_into_the_registers_own_words(rounds):
    """0.3619/0.954 = 3619/9540 ≈ 0.379: “a third” becomes “two fifths” in the sentence, and the register's claim
    text, which writes the bound as 1/3, follows (2/5), so no register text keeps the old bound."""
    first, patch, second, _ = rounds
    assert first["F5"]["response"].startswith("Change “a third” to “two fifths”")
    added = [line for line in patch.splitlines() if line.startswith("+") and "id: F5" not in line]
    assert any('claim: "The ratio of the two printed ERR values is below 2/5."' in line and 'claimed: "< 2/5"' in line
               for line in added), patch
    assert second["F5"]["verdict"] == "supported"
