"""Reports already in place (``audit.run.rendered``): a rerun whose reports would come out byte for byte as the ones in
the reports folder leaves those files as they are (same inode: not even rewritten) and says so; a report edited,
removed or left over, a changed sentence, a record that is not trusted, and ``--no-cache`` each write the reports
again, as a run without the record does.

The chapter is test_cli's: P@4 = 1/4 supported, P@4 = 1/3 contradicted (so the run writes a patch)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from test_cache import run_here
from test_cli import CONTRADICTED_CLAIM, SUPPORTED_CLAIM, write_chapter

SUFFIXES = (".json", ".md", ".html", ".patch")


def _setup(tmp_path: Path):
    folder = write_chapter(tmp_path / "claims", "inplace", SUPPORTED_CLAIM, CONTRADICTED_CLAIM)
    reports, cache = tmp_path / "reports", tmp_path / "cache"
    return folder, reports, cache


def _audit(folder: Path, reports: Path, cache: Path, monkeypatch, capsys, *extra: str) -> subprocess.CompletedProcess:
    done = run_here(["run", str(folder), "--reports", str(reports), *extra], cache, monkeypatch, capsys)
    assert done.returncode in (0, 1), done.stderr
    return done


def _files(reports: Path) -> dict[str, tuple[int, bytes]]:
    return {s: ((reports / f"inplace{s}").stat().st_ino, (reports / f"inplace{s}").read_bytes()) for s in SUFFIXES
            if (reports / f"inplace{s}").exists()}


def test_a_rerun_with_nothing_changed_leaves_every_report_file_in_place(tmp_path, monkeypatch, capsys):
    folder, reports, cache = _setup(tmp_path)
    first = _audit(folder, reports, cache, monkeypatch, capsys)
    before = _files(reports)
    assert set(before) == set(SUFFIXES)  # the contradicted claim's correction makes a patch
    assert f"wrote {reports / 'inplace.md'}" in first.stdout
    again = _audit(folder, reports, cache, monkeypatch, capsys)
    assert _files(reports) == before     # the same bytes in the same files: none rewritten
    for suffix in SUFFIXES:
        assert f"unchanged {reports / f'inplace{suffix}'}" in again.stdout
    assert f"wrote {reports / 'inplace.md'}" not in again.stdout
    assert again.returncode == first.returncode
    assert "contradicted" in again.stdout   # the claims' table as before
    gated = _audit(folder, reports, cache, monkeypatch, capsys, "--fail-on", "contradicted")
    assert gated.returncode != 0 and "unchanged" in gated.stdout  # the gate reads the verdicts, not the files


def test_an_edited_or_removed_report_is_written_again(tmp_path, monkeypatch, capsys):
    folder, reports, cache = _setup(tmp_path)
    _audit(folder, reports, cache, monkeypatch, capsys)
    before = _files(reports)
    (reports / "inplace.md").write_text("# edited by hand\n", encoding="utf-8")
    (reports / "inplace.patch").unlink()
    again = _audit(folder, reports, cache, monkeypatch, capsys)
    after = _files(reports)
    assert {s: text for s, (_, text) in after.items()} == {s: text for s, (_, text) in before.items()}
    assert f"wrote {reports / 'inplace.md'}" in again.stdout and "unchanged" not in again.stdout


def test_a_patch_left_over_where_none_is_due_is_removed(tmp_path, monkeypatch, capsys):
    folder = write_chapter(tmp_path / "claims", "inplace", SUPPORTED_CLAIM)
    reports, cache = tmp_path / "reports", tmp_path / "cache"
    _audit(folder, reports, cache, monkeypatch, capsys)
    assert not (reports / "inplace.patch").exists()
    (reports / "inplace.patch").write_text("--- a\n+++ b\n", encoding="utf-8")  # from an earlier revision
    again = _audit(folder, reports, cache, monkeypatch, capsys)
    assert not (reports / "inplace.patch").exists()
    assert "unchanged" not in again.stdout


def test_a_changed_sentence_writes_the_reports_again(tmp_path, monkeypatch, capsys):
    folder, reports, cache = _setup(tmp_path)
    _audit(folder, reports, cache, monkeypatch, capsys)
    before = _files(reports)
    snapshot = folder / "snapshot.txt"
    snapshot.write_text(snapshot.read_text(encoding="utf-8").replace("A draft said", "An early draft said"),
                        encoding="utf-8")
    _audit(folder, reports, cache, monkeypatch, capsys)
    after = _files(reports)
    assert after[".md"] != before[".md"] and after[".patch"][1] != before[".patch"][1]
    assert b"An early draft said" in after[".patch"][1]


def test_an_untrusted_record_and_no_cache_write_every_report(tmp_path, monkeypatch, capsys):
    folder, reports, cache = _setup(tmp_path)
    _audit(folder, reports, cache, monkeypatch, capsys)
    before = _files(reports)
    [entry] = sorted((cache / "rendered").rglob("*.entry"))
    header, _, body = entry.read_bytes().partition(b"\n")
    record = json.loads(body)
    assert set(record) == {"kept", "withdrawn", "digests"} and set(record["digests"]) == set(SUFFIXES)
    entry.write_bytes(header + b"\n" + body.replace(b'"kept":[0]', b'"kept":[]'))  # altered: its signature fails
    again = _audit(folder, reports, cache, monkeypatch, capsys)
    after = _files(reports)
    assert all(after[s][0] != before[s][0] and after[s][1] == before[s][1] for s in SUFFIXES)  # rewritten, same text
    assert "unchanged" not in again.stdout
    fresh = _audit(folder, reports, cache, monkeypatch, capsys, "--no-cache")
    assert "unchanged" not in fresh.stdout and f"wrote {reports / 'inplace.json'}" in fresh.stdout
