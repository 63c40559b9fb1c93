"""audit.cli.main and audit.report.files.write_text, with every path under tmp_path.

The CLI runs the real references (one process-wide list, see
audit.evaluation.references.all_references), so the chapters here are tiny: one or two value
claims each. Exit codes are the ones documented in audit/cli.py (0 ok, 1 --fail-on hit,
2 usage, 3 invalid chapter).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from audit.cli import EXIT_INPUT, main
from audit.errors import AuditError
from audit.report.files import write_text

SNAPSHOT = "At cutoff four, a single relevant result gives P@4 = 1/4. A draft said P@4 = 1/3.\n"

FIXTURE = """\
fixtures:
  one-hit:
    qrels: {q1: {a: 1}}
    run: {q1: [a]}
"""

# One relevant result at cutoff 4: P@4 = 1/4 (chapter 23), so "1/4" is supported, "1/3" contradicted.
SUPPORTED_CLAIM = """\
  - id: C1
    title: right
    kind: value
    quote: "a single relevant result gives P@4 = 1/4"
    claim: P@4 = 1/4 for one hit.
    fixture: one-hit
    expect:
      - {measure: "P@4", claimed: "1/4"}
"""

NOT_CHECKABLE_CLAIM = """\
  - id: C2
    title: prose
    kind: not checkable
    quote: "At cutoff four"
    claim: The cutoff is four.
    reason: framing only.
"""

CONTRADICTED_CLAIM = """\
  - id: C3
    title: wrong
    kind: value
    quote: "A draft said P@4 = 1/3."
    claim: P@4 = 1/3 for one hit.
    fixture: one-hit
    expect:
      - {measure: "P@4", claimed: "1/3"}
"""


def write_chapter(root: Path, chapter_id: str, *claims: str) -> Path:
    folder = root / chapter_id
    folder.mkdir(parents=True)
    (folder / "chapter.yaml").write_text(f"id: {chapter_id}\nbook: Test Book\ntitle: CLI test\n"
                                           "conventions: {precision_denominator: k}\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "claims.yaml").write_text(FIXTURE + "claims:\n" + "".join(claims), encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    # rich wraps stderr at 80 columns when not on a terminal; keep messages on one line.
    monkeypatch.setenv("COLUMNS", "1000")


def run(*args) -> int:
    return main(["run", *map(str, args), "--quiet"])


def test_run_writes_markdown_and_json(tmp_path):
    chapter = write_chapter(tmp_path / "claims", "good", SUPPORTED_CLAIM, NOT_CHECKABLE_CLAIM)
    reports = tmp_path / "reports"
    assert run(chapter, "--reports", reports) == 0
    # every claim supported or not checkable: nothing to patch; the book index lists the chapter
    assert sorted(p.name for p in reports.iterdir()) == [".audit.lock", "good.html", "good.json", "good.md",
                                                           "history", "index.html", "index.md"]  # the lock: files.locked
    assert sorted(p.name for p in (reports / "history").iterdir()) == ["good.json"]  # its verdicts' history


def test_json_report_has_format_version_and_every_claim(tmp_path):
    chapter = write_chapter(tmp_path / "claims", "good", SUPPORTED_CLAIM, NOT_CHECKABLE_CLAIM)
    reports = tmp_path / "reports"
    run(chapter, "--reports", reports)
    data = json.loads((reports / "good.json").read_text(encoding="utf-8"))
    assert data["format_version"] == "2.4"  # audit.model.results.FORMAT_VERSION
    assert [(c["id"], c["verdict"]) for c in data["claims"]] == [("C1", "supported"), ("C2", "not checkable")]


def test_default_chapters_come_from_claims_dir(tmp_path, monkeypatch):
    write_chapter(tmp_path / "claims", "good", SUPPORTED_CLAIM)
    monkeypatch.chdir(tmp_path)
    assert run() == 0  # defaults: --claims-dir claims, --reports reports
    assert (tmp_path / "reports" / "good.md").is_file()


# (claims, expected exit code with --fail-on contradicted)
FAIL_ON = [
    ((SUPPORTED_CLAIM, CONTRADICTED_CLAIM), 1),   # C3 is contradicted
    ((SUPPORTED_CLAIM, NOT_CHECKABLE_CLAIM), 0),  # nothing contradicted
]


@pytest.mark.parametrize("claims, code", FAIL_ON, ids=["contradicted", "none contradicted"])
def test_fail_on_contradicted(tmp_path, claims, code):
    chapter = write_chapter(tmp_path / "claims", "ch", *claims)
    assert run(chapter, "--reports", tmp_path / "reports", "--fail-on", "contradicted") == code


def test_fail_on_unknown_verdict_is_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        run(tmp_path, "--fail-on", "nonsense")
    assert info.value.code == 2
    assert "--fail-on" in capsys.readouterr().err


def test_invalid_chapter_among_two(tmp_path, capsys):
    good = write_chapter(tmp_path / "claims", "good", SUPPORTED_CLAIM)
    bad = write_chapter(tmp_path / "claims", "bad", SUPPORTED_CLAIM.replace("kind: value", "kind: valeu"))
    reports = tmp_path / "reports"
    assert run(bad, good, "--reports", reports) == 3
    # The valid chapter is still audited and reported.
    assert (reports / "good.json").is_file() and (reports / "good.md").is_file()
    assert not (reports / "bad.json").exists()
    err = capsys.readouterr().err
    assert str(bad / "claims.yaml") in err
    assert "unknown kind 'valeu'" in err
    assert "Traceback" not in err


# --- write_text: atomic, errors name the path ---------------------------------------------------------


def test_write_text_parent_is_a_file(tmp_path):
    blocker = tmp_path / "reports"
    blocker.write_text("not a folder", encoding="utf-8")
    target = blocker / "chapter.md"
    with pytest.raises(AuditError) as info:
        write_text(target, "# report\n")
    assert str(target) in str(info.value)


def test_write_text_failure_keeps_old_report(tmp_path, monkeypatch):
    target = tmp_path / "chapter.md"
    target.write_text("old report\n", encoding="utf-8")

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(AuditError) as info:
        write_text(target, "new report\n")
    assert str(target) in str(info.value)
    assert target.read_text(encoding="utf-8") == "old report\n"
    assert [name for name in os.listdir(tmp_path) if name.endswith(".tmp")] == []


def test_write_text_replaces_content(tmp_path):
    target = tmp_path / "sub" / "chapter.md"
    assert write_text(target, "# report\n") == str(target)
    assert target.read_text(encoding="utf-8") == "# report\n"


def test_duplicate_chapter_ids_do_not_overwrite_each_other(tmp_path, capsys, monkeypatch):
    """Regression: two folders with one id wrote the same report file, the second silently replacing the first.
    The two folders hold different registers under one chapter id (``same``): the first is audited and reported,
    the second refused by name."""
    monkeypatch.setenv("COLUMNS", "1000")
    a = write_chapter(tmp_path / "a", "same", SUPPORTED_CLAIM)
    b = write_chapter(tmp_path / "b", "same", CONTRADICTED_CLAIM)
    code = main(["run", str(a), str(b), "--reports", str(tmp_path / "out"), "--quiet"])
    assert code == EXIT_INPUT
    err = capsys.readouterr().err
    assert "also used by" in err and str(b) in err
    report = json.loads((tmp_path / "out" / "same.json").read_text(encoding="utf-8"))
    assert [(c["id"], c["verdict"]) for c in report["claims"]] == [("C1", "supported")]   # the first folder's
    assert sorted(p.name for p in (tmp_path / "out").glob("same*")) == ["same.html", "same.json", "same.md"]


def test_unexpected_failure_exits_4_without_traceback(tmp_path, capsys, monkeypatch):
    """An internal fault must not look like a failed --fail-on gate (exit 1) nor print a traceback."""
    import audit.cli as cli

    def boom(args):
        raise RuntimeError("simulated fault")
    monkeypatch.setattr(cli, "run", boom)
    assert main(["run"]) == cli.EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "simulated fault" in err and "Traceback" not in err


def test_reports_are_readable_by_others(tmp_path):
    """Regression: mkstemp made reports 0600; they are meant to be shared."""
    import stat

    from audit.report.files import write_text
    path = tmp_path / "r.md"
    write_text(path, "x")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_dotted_chapter_ids_keep_their_own_reports(tmp_path):
    """Regression: Path.with_suffix dropped everything after a dot, so 'book.ch1' and 'book.ch2' both wrote book.*."""
    from audit.draft.init import create_chapter
    snapshot = tmp_path / "s.txt"
    snapshot.write_text("Recall is 21/43 ≈ .4884 here.\n", encoding="utf-8")
    for cid in ("book.ch1", "book.ch2"):
        create_chapter(snapshot, cid, tmp_path / "claims")
    assert main(["run", "--claims-dir", str(tmp_path / "claims"), "--reports", str(tmp_path / "r"), "--quiet"]) == 0
    assert sorted(p.name for p in (tmp_path / "r").glob("*.json")) == ["book.ch1.json", "book.ch2.json"]


def test_diff_refuses_reports_of_two_chapters(tmp_path, capsys):
    import json as _json
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(_json.dumps({"chapter": {"id": "one"}, "claims": []}), encoding="utf-8")
    b.write_text(_json.dumps({"chapter": {"id": "two"}, "claims": []}), encoding="utf-8")
    assert main(["diff", str(a), str(b)]) == EXIT_INPUT
    assert "different chapters (one and two)" in capsys.readouterr().err
    assert main(["diff", str(tmp_path), str(b)]) == EXIT_INPUT          # a folder: one line, no traceback
    assert "Traceback" not in capsys.readouterr().err


def test_crosscheck_with_a_missing_expected_file_is_a_clear_error(tmp_path, capsys):
    qrels, run = tmp_path / "q", tmp_path / "r"
    qrels.write_text("1 0 a 1\n", encoding="utf-8")
    run.write_text("1 Q0 a 1 2.0 x\n", encoding="utf-8")
    code = main(["crosscheck", "--qrels", str(qrels), "--run", str(run), "--measures", "P@5",
                 "--expected", str(tmp_path / "missing"), "--out", str(tmp_path / "out")])
    assert code == EXIT_INPUT and "cannot read trec_eval's output" in capsys.readouterr().err
