"""The manuscript is the source: read in place from the book's repository, or, for a frozen copy, compared with it.

Right values by hand: "One relevant result at rank 2 of four gives P@4 = 1/3." is wrong (P@4 = 1/4, pytrec_eval
``P_4`` 0.25), so the patch corrects 1/3 to 1/4 in the manuscript itself when ``snapshot.file`` names it.
"""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction

import pytest
import yaml

from audit.cli import EXIT_INPUT, main

SENTENCE = "One relevant result at rank 2 of four gives P@4 = 1/3.\n"
CLAIMS = """\
fixtures:
  one-at-two:
    qrels: {q1: {a: 1, x: 0, y: 0, z: 0}}
    run: {q1: [x, a, y, z]}
claims:
  - id: M1
    title: One hit at rank 2 gives P@4 = 1/3
    kind: value
    quote: "One relevant result at rank 2 of four gives P@4 = 1/3."
    claim: P@4 = 1/3.
    fixture: one-at-two
    expect:
      - {measure: "P@4", claimed: "1/3"}
"""


def _book(tmp_path, snapshot_line: str):
    (tmp_path / ".git").mkdir()                       # the book's repository
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "ch01.md").write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    folder = tmp_path / "claims" / "ch01"
    folder.mkdir(parents=True)
    (folder / "chapter.yaml").write_text(f"id: ch01\ntitle: Chapter 1\nsnapshot:\n{snapshot_line}", encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    return folder


def test_the_manuscript_is_read_in_place_and_the_patch_fixes_it(tmp_path, monkeypatch):
    _book(tmp_path, "  file: ../../book/ch01.md\n")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--quiet", "--no-cache", "claims/ch01"]) == 0
    report = json.loads((tmp_path / "reports" / "ch01.json").read_text(encoding="utf-8"))
    assert {c["id"]: c["verdict"] for c in report["claims"]} == {"M1": "contradicted"}
    patch = (tmp_path / "reports" / "ch01.patch").read_text(encoding="utf-8")
    assert "--- book/ch01.md" in patch and "--- claims/ch01/claims.yaml" in patch
    subprocess.run(["patch", "-p0", "-s"], input=patch, cwd=tmp_path, text=True, check=True)
    assert "P@4 = 1/4." in (tmp_path / "book" / "ch01.md").read_text(encoding="utf-8")
    assert main(["run", "--quiet", "--no-cache", "--fail-on", "contradicted,stale,error", "claims/ch01"]) == 0


def test_a_frozen_copy_that_differs_from_its_source_is_said_first(tmp_path, monkeypatch, capsys):
    folder = _book(tmp_path, "  file: snapshot.txt\n  source: ../../book/ch01.md\n")
    (folder / "snapshot.txt").write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    main(["run", "--quiet", "--no-cache", "claims/ch01"])
    assert "differs from its source" not in capsys.readouterr().err
    # the author fixes the manuscript, not the copy
    (tmp_path / "book" / "ch01.md").write_text("# Chapter 1\n\n" + SENTENCE.replace("1/3", "1/4"), encoding="utf-8")
    main(["run", "--quiet", "--no-cache", "claims/ch01"])
    err = capsys.readouterr().err
    assert "warning:" in err and "the snapshot snapshot.txt differs from its source ../../book/ch01.md" in err
    report = json.loads((tmp_path / "reports" / "ch01.json").read_text(encoding="utf-8"))
    assert report["snapshot"]["source_differs"].startswith("the snapshot snapshot.txt differs")
    assert any("differs from its source" in u and "UNVERIFIED" in u for u in report["research"]["unverified"])


def test_a_snapshot_outside_the_books_repository_is_refused(tmp_path, monkeypatch, capsys):
    book = tmp_path / "repo"
    book.mkdir()
    _book(book, "  file: ../../../outside.md\n")
    (tmp_path / "outside.md").write_text(SENTENCE, encoding="utf-8")
    monkeypatch.chdir(book)
    assert main(["run", "--quiet", "--no-cache", "claims/ch01"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "snapshot.file" in err and "outside the book's repository" in err and "Traceback" not in err


#: Lecture notes in the shape real ones have: a rank table with check marks, |R| said in prose before it, and the
#: mean of precisions under it divided by the hits retrieved instead of |R|. Ranks 1, 3 and 5 are relevant of four
#: relevant documents, so AP = (1 + 2/3 + 3/5)/4 = 17/30 ≈ 0.5667 (pytrec_eval ``map`` on the fixture below, in the
#: test); the planted sentence prints (1 + 2/3 + 3/5)/3 = 0.7556, right arithmetic over the wrong count.
LECTURE = """\
# Week 5: average precision by hand

The judges marked four documents relevant to topic 301. The system returned five:

| rank | document | relevant |
|------|----------|----------|
| 1    | FT-17    | ✓        |
| 2    | LA-03    | ✗        |
| 3    | FT-92    | ✓        |
| 4    | AP-55    | ✗        |
| 5    | LA-40    | ✓        |

Precision at each relevant rank is 1, 2/3 and 3/5, so AP = (1 + 2/3 + 3/5)/3 = 0.7556.
"""
PLANTED_MEAN = "(1 + 2/3 + 3/5)/3 = 0.7556"
RIGHT_MEAN = "(1 + 2/3 + 3/5)/4 = 0.5667"


def _lecture(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes").mkdir()
    manuscript = tmp_path / "notes" / "week5.md"
    manuscript.write_text(LECTURE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["init", "notes/week5.md", "--id", "week5"]) == 0
    return manuscript


def _audit(tmp_path) -> tuple[int, dict]:
    code = main(["run", "--quiet", "--no-cache", "--fail-on", "contradicted,stale,error", "claims/week5"])
    report = json.loads((tmp_path / "reports" / "week5.json").read_text(encoding="utf-8"))
    return code, {c["quote"]: c for c in report["claims"]}


def test_the_planted_mean_and_its_truth_by_reference():
    import pytrec_eval
    qrels = {"q": {"FT-17": 1, "FT-92": 1, "LA-40": 1, "unretrieved": 1, "LA-03": 0, "AP-55": 0}}
    run = {"q": {"FT-17": 5.0, "LA-03": 4.0, "FT-92": 3.0, "AP-55": 2.0, "LA-40": 1.0}}
    ap = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)["q"]["map"]
    assert abs(ap - 17 / 30) < 1e-12 and f"{ap:.4f}" == "0.5667"


def test_init_reads_the_manuscript_in_place(tmp_path, monkeypatch):
    _lecture(tmp_path, monkeypatch)
    identity = yaml.safe_load((tmp_path / "claims" / "week5" / "chapter.yaml").read_text(encoding="utf-8"))
    assert identity["snapshot"] == {"file": "../../notes/week5.md", "excerpt": False}
    assert not list((tmp_path / "claims" / "week5").glob("snapshot*"))


@pytest.mark.parametrize("how", ["by hand", "by the patch"])
def test_a_planted_value_under_a_rank_table_is_found_and_the_corrected_manuscript_passes(tmp_path, monkeypatch, how):
    """init and the audit with no register edit: the AP value drafted on the table (|R| = 4 from the prose) is
    contradicted; the manuscript corrected by hand, or by the patch, reruns supported with a clean gate."""
    manuscript = _lecture(tmp_path, monkeypatch)
    code, claims = _audit(tmp_path)
    value = claims[f"AP = {PLANTED_MEAN}"]
    assert value["kind"] == "value" and value["verdict"] == "contradicted" and code == 1
    assert f"Change “{PLANTED_MEAN}” to “{RIGHT_MEAN}”" in value["response"]
    assert claims[PLANTED_MEAN]["verdict"] == "supported"   # the arithmetic as printed is right
    if how == "by hand":
        manuscript.write_text(LECTURE.replace(PLANTED_MEAN, RIGHT_MEAN), encoding="utf-8")
    else:
        patch = (tmp_path / "reports" / "week5.patch").read_text(encoding="utf-8")
        assert "--- notes/week5.md" in patch
        subprocess.run(["patch", "-p0", "-s"], input=patch, cwd=tmp_path, text=True, check=True)
        assert manuscript.read_text(encoding="utf-8") == LECTURE.replace(PLANTED_MEAN, RIGHT_MEAN)
    code, claims = _audit(tmp_path)
    assert code == 0
    assert claims[f"AP = {RIGHT_MEAN}"]["verdict"] == "supported"
    assert claims[RIGHT_MEAN]["verdict"] == "supported"


@pytest.mark.parametrize("text, old, new, exact, expected", [
    # AP over |R| = 5, not the 4 printed: 13/6 / 5 = 13/30 = 0.43333…
    ("Here AP = (1 + 2/3 + 3/6)/4 = 0.5417.", "0.5417", "0.4333", Fraction(13, 30),
     ("(1 + 2/3 + 3/6)/4 = 0.5417", "(1 + 2/3 + 3/6)/5 = 0.4333", "(1 + 2/3 + 3/6)/4", "(1 + 2/3 + 3/6)/5")),
    # MRR over three queries: (1 + 1/2 + 1/3)/3 = 11/18 = 0.6111…
    ("MRR = (1 + 1/2 + 1/3)/2 ≈ 0.92.", "0.92", "0.61", Fraction(11, 18),
     ("(1 + 1/2 + 1/3)/2 ≈ 0.92", "(1 + 1/2 + 1/3)/3 ≈ 0.61", "(1 + 1/2 + 1/3)/2", "(1 + 1/2 + 1/3)/3")),
    # the terms themselves are wrong (13/31 is no whole count over 13/6): the author's choice, no recount
    ("Here AP = (1 + 2/3 + 3/6)/4 = 0.5417.", "0.5417", "0.4194", Fraction(13, 31), None),
])
def test_a_mean_is_corrected_by_its_count_only_when_the_count_alone_is_wrong(text, old, new, exact, expected):
    from audit.text.encode_arithmetic import divisor_correction
    assert divisor_correction(text, old, new, exact) == expected


@pytest.mark.parametrize("sentence, n", [
    ("The judges marked four documents relevant to topic 301.", 4),
    ("For query q7 the assessors judged five documents as relevant.", 5),
    ("There are three relevant documents in total.", 3),
])
def test_relevant_counts_said_in_prose_are_read(sentence, n):
    from audit.draft.examples.positions import facts
    assert [f[2] for f in facts(sentence)] == [n]
