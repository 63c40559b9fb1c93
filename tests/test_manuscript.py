"""The manuscript is the source: read in place from the book's repository, or, for a frozen copy, compared with it.

Right values by hand: "One relevant result at rank 2 of four gives P@4 = 1/3." is wrong (P@4 = 1/4, pytrec_eval
``P_4`` 0.25), so the patch corrects 1/3 to 1/4 in the manuscript itself when ``snapshot.file`` names it.
"""

from __future__ import annotations

import json
import subprocess

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
