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
    assert set(record) == {"kept", "withdrawn", "digests", "sizes"} and set(record["digests"]) == set(SUFFIXES)
    entry.write_bytes(header + b"\n" + body.replace(b'"kept":[0]', b'"kept":[]'))  # altered: its signature fails
    again = _audit(folder, reports, cache, monkeypatch, capsys)
    after = _files(reports)
    assert all(after[s][0] != before[s][0] and after[s][1] == before[s][1] for s in SUFFIXES)  # rewritten, same text
    assert "unchanged" not in again.stdout
    fresh = _audit(folder, reports, cache, monkeypatch, capsys, "--no-cache")
    assert "unchanged" not in fresh.stdout and f"wrote {reports / 'inplace.json'}" in fresh.stdout


def _same_as_without_cache(folder_arg: str, reports: Path, cache: Path, reference: Path, monkeypatch, capsys):
    """Audit ``folder_arg`` with the cache into ``reports`` and without it into ``reference`` (from the same working
    directory); the two folders' reports must be the same but for the ``--no-cache`` the reference's command
    records."""
    cached = _audit(Path(folder_arg), reports, cache, monkeypatch, capsys)
    fresh = _audit(Path(folder_arg), reference, cache, monkeypatch, capsys, "--no-cache")
    assert cached.returncode == fresh.returncode == 0, cached.stderr
    for suffix in SUFFIXES:
        mine, theirs = (reports / f"inplace{suffix}").read_text(encoding="utf-8"), \
            (reference / f"inplace{suffix}").read_text(encoding="utf-8")
        assert mine == theirs.replace(" --no-cache", ""), suffix
    return cached


def test_the_chapter_named_from_another_folder_gets_the_paths_of_that_run(tmp_path, monkeypatch, capsys):
    """The research sections name the chapter's files as the run reaches them: the patch's paths from the working
    directory, the experiments' ``audit run <folder>`` as the folder was given. Audited from the book's root, then
    from its claims folder, the second run's patch names ``inplace/snapshot.txt`` (applied from there); a cached
    proposal naming ``claims/inplace/snapshot.txt`` was refused as no file of the book, and the patch dropped."""
    folder, reports, cache = _setup(tmp_path)
    monkeypatch.chdir(tmp_path)
    _audit(Path("claims/inplace"), Path("reports"), cache, monkeypatch, capsys)
    assert "+++ claims/inplace/snapshot.txt" in (reports / "inplace.patch").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path / "claims")
    again = _same_as_without_cache("inplace", Path("../reports"), cache, Path("../reference"), monkeypatch, capsys)
    assert "+++ inplace/snapshot.txt" in (reports / "inplace.patch").read_text(encoding="utf-8")
    assert "audit run inplace" in (reports / "inplace.md").read_text(encoding="utf-8")
    assert "error" not in again.stderr


def test_a_snapshot_moved_behind_a_link_gets_a_patch_of_the_file_it_reaches(tmp_path, monkeypatch, capsys):
    """The patch names the file a linked snapshot resolves to; moving the text behind a link (its words unchanged)
    makes the reports name the new file, not the cached ones' old path."""
    folder, reports, cache = _setup(tmp_path)
    monkeypatch.chdir(tmp_path)
    _audit(Path("claims/inplace"), Path("reports"), cache, monkeypatch, capsys)
    (folder / "txt").mkdir()
    (folder / "snapshot.txt").rename(folder / "txt" / "snapshot.txt")
    (folder / "snapshot.txt").symlink_to(Path("txt") / "snapshot.txt")
    again = _same_as_without_cache("claims/inplace", Path("reports"), cache, Path("reference"), monkeypatch, capsys)
    assert "+++ claims/inplace/txt/snapshot.txt" in (reports / "inplace.patch").read_text(encoding="utf-8")
    assert "unchanged" not in again.stdout


def test_a_huge_file_or_a_fifo_in_place_of_a_report_is_replaced_without_reading_it(tmp_path):
    """A report file of the wrong size is never read (a sparse 8 GB file in place of the HTML page), and a FIFO in
    place of the JSON report is neither opened to wait on (the earlier report's date, the history, the index read
    it) nor kept: each is replaced by the report, in a run that ends."""
    import os
    import sys

    folder, reports, cache = _setup(tmp_path)
    env = {**os.environ, "CHAPTER_AUDIT_CACHE": str(cache), "COLUMNS": "1000"}
    command = [sys.executable, "-c", "import sys; from audit.cli import main; sys.exit(main(sys.argv[1:]))",
               "run", str(folder), "--reports", str(reports)]
    assert subprocess.run(command, env=env, capture_output=True, timeout=600).returncode == 0
    before = _files(reports)
    with open(reports / "inplace.html", "r+b") as handle:
        handle.truncate(8 * 2**30)
    (reports / "inplace.json").unlink()
    os.mkfifo(reports / "inplace.json")
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    after = _files(reports)
    assert {s: text for s, (_, text) in after.items()} == {s: text for s, (_, text) in before.items()}
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
