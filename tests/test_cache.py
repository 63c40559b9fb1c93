"""The claim cache (audit.run.cache): what its key covers, that a damaged or foreign entry is recomputed, that
reports are byte-identical with and without it, that a run in which every claim is cached loads no
reference library, and that --claims, pytest -k and -j compute what they should.

The chapters are the tiny ones of test_cli (one relevant result at cutoff 4: P@4 = 1/4 by chapter 23's
definition, so C1 "1/4" is supported and C3 "1/3" contradicted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from test_cli import (
    CONTRADICTED_CLAIM,
    FIXTURE,
    NOT_CHECKABLE_CLAIM,
    SUPPORTED_CLAIM,
    write_chapter,
)

from audit.register.claims import load_chapter
from audit.model.results import ClaimResult
from audit.run.cache import ClaimCache, claim_key, environment
from audit.text.anchors import locate

ROOT = Path(__file__).resolve().parent.parent
MAIN = "import sys; from audit.cli import main; sys.exit(main(sys.argv[1:]))"


def run_cli(args: list[str], cache: Path, code: str = MAIN) -> subprocess.CompletedProcess:
    env = {**os.environ, "CHAPTER_AUDIT_CACHE": str(cache), "COLUMNS": "1000"}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=600)


def run_here(args: list[str], cache: Path, monkeypatch, capsys) -> subprocess.CompletedProcess:
    """``run_cli`` in this process, for a test that needs no fresh one (no probe of what a run loads, no
    interrupt): the reference workers this process has started serve it. Exit code, stdout and stderr."""
    from audit.cli import main
    monkeypatch.setenv("CHAPTER_AUDIT_CACHE", str(cache))
    monkeypatch.setenv("COLUMNS", "1000")
    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, out, err)


def entries(cache: Path) -> list[Path]:
    return sorted((cache / "claims").rglob("*.entry"))


def key_of(folder: Path, claim_id: str) -> str:
    chapter = load_chapter(folder)
    claim = next(c for c in chapter.register.claims if c.id == claim_id)
    anchor = locate(chapter.snapshot, claim.quote)
    return claim_key(claim, chapter, anchor, environment({"ranx": "0.3.21"}, 60.0))


def test_key_changes_with_what_can_change_the_result(tmp_path):
    folder = write_chapter(tmp_path, "keys", SUPPORTED_CLAIM, CONTRADICTED_CLAIM)
    first = key_of(folder, "C1")
    assert key_of(folder, "C1") == first                      # same content, same key
    assert key_of(folder, "C3") != first                      # another claim
    claims = folder / "claims.yaml"
    original = claims.read_text(encoding="utf-8")
    claims.write_text(original.replace("run: {q1: [a]}", "run: {q1: [b, a]}"), encoding="utf-8")
    assert key_of(folder, "C1") != first                      # its fixture
    claims.write_text(original, encoding="utf-8")
    chapter_yaml = folder / "chapter.yaml"
    chapter_yaml.write_text(chapter_yaml.read_text(encoding="utf-8").replace(
        "precision_denominator: k", "precision_denominator: number returned"), encoding="utf-8")
    assert key_of(folder, "C1") != first                      # the chapter's declared conventions
    chapter_yaml.write_text(chapter_yaml.read_text(encoding="utf-8").replace(
        "precision_denominator: number returned", "precision_denominator: k"), encoding="utf-8")
    assert key_of(folder, "C1") == first
    snapshot = folder / "snapshot.txt"
    snapshot.write_text("Added first line.\n" + snapshot.read_text(encoding="utf-8"), encoding="utf-8")
    assert key_of(folder, "C1") == first                      # a moved quote: its position is not in the key
    snapshot.write_text(snapshot.read_text(encoding="utf-8").replace("P@4 = 1/4", "P@4 = 1/5"), encoding="utf-8")
    assert key_of(folder, "C1") != first                      # the quote's printed number
    chapter = load_chapter(folder)
    claim = chapter.register.claims[0]
    anchor = locate(chapter.snapshot, claim.quote)
    assert claim_key(claim, chapter, anchor, environment({"ranx": "0.3.22"}, 60.0)) != \
        claim_key(claim, chapter, anchor, environment({"ranx": "0.3.21"}, 60.0))   # a library's version


def _result(verdict: str = "supported") -> ClaimResult:
    return ClaimResult(id="C1", kind="value", title="t", claim="c", quote="q", anchor="found", verdict=verdict,
                       reason="r", concern="", response="", priority="none")


def test_damaged_or_foreign_entries_are_ignored(tmp_path):
    cache = ClaimCache(tmp_path / "claims")
    key = "ab" + "0" * 62
    assert cache.get(key) is None
    cache.put(key, _result())
    assert cache.get(key)[0] == _result()
    path = tmp_path / "claims" / key[:2] / f"{key}.entry"
    stored = path.read_bytes()
    header, body = stored.split(b"\n", 1)
    path.write_bytes(stored.replace(b'"verdict":"supported"', b'"verdict":"contradicted"'))  # signature no longer fits
    assert cache.get(key) is None
    path.write_bytes(header.replace(b" 2 ", b" 3 ", 1) + b"\n" + body)   # another format
    assert cache.get(key) is None
    path.write_bytes(header.replace(key.encode(), b"cd" + b"0" * 62) + b"\n" + body)  # stored under another key
    assert cache.get(key) is None
    path.write_bytes(header.replace(b" claims ", b" research ") + b"\n" + body)   # of another namespace
    assert cache.get(key) is None
    for damaged in (b"{not json", b"\xff\xfe", b"", header, stored[:-1]):
        path.write_bytes(damaged)
        assert cache.get(key) is None
    path.write_bytes(stored)
    assert cache.get(key)[0] == _result()
    cache.put(key, _result("error"))          # an error depends on the machine: never stored
    assert cache.get(key)[0] == _result()
    assert ClaimCache(tmp_path / "claims", enabled=False).get(key) is None


def test_reports_identical_with_and_without_cache_and_hits_load_no_library(tmp_path):
    folder = write_chapter(tmp_path / "claims", "cached", SUPPORTED_CLAIM, NOT_CHECKABLE_CLAIM, CONTRADICTED_CLAIM)
    reports, cache = tmp_path / "reports", tmp_path / "cache"
    args = ["run", str(folder), "--reports", str(reports), "--quiet"]

    def texts() -> dict[str, bytes]:
        return {p.relative_to(reports).as_posix(): p.read_bytes() for p in sorted(reports.rglob("*")) if p.is_file()}

    cold = run_cli(args, cache)                         # every claim computed, then stored
    assert cold.returncode == 0, cold.stderr
    computed = texts()
    assert len(entries(cache)) == 3
    assert len(sorted((cache / "research").rglob("*.entry"))) == 1   # the chapter's research sections, stored
    probe = ("import audit.research.sections as R; calls = []; _complete = R.complete; "
             "R.complete = lambda *a, **k: (calls.append(1), _complete(*a, **k)); "
             + MAIN.replace("sys.exit(main(sys.argv[1:]))", "code = main(sys.argv[1:])")
             + "; import json; from audit.evaluation.references import all_references"
             + "; print(json.dumps({'modules': sorted(m for m in ('pytrec_eval', 'ranx', 'numba') if m in sys.modules),"
             + " 'workers': [r._process is not None for r in all_references(start=False)], 'research': len(calls)}));"
             + " sys.exit(code)")
    warm = run_cli(args, cache, probe)                  # every claim from the cache
    assert warm.returncode == 0, warm.stderr
    assert texts() == computed
    loaded = json.loads(warm.stdout.strip().splitlines()[-1])
    # no library loaded, no worker started, and the research sections (sensitivity, proposal) not recomputed
    assert loaded == {"modules": [], "workers": [False, False, False], "research": 0}
    # --no-cache computes everything again: the same reports but for the command line they record
    fresh = run_cli(args + ["--no-cache"], tmp_path / "unused")
    assert fresh.returncode == 0, fresh.stderr
    assert not (tmp_path / "unused").exists()
    for name, text in texts().items():
        assert text.replace(b" --no-cache", b"") == computed[name], name


def test_corrupt_entry_is_recomputed_in_a_run(tmp_path, monkeypatch, capsys):
    folder = write_chapter(tmp_path / "claims", "corrupt", CONTRADICTED_CLAIM)
    reports, cache = tmp_path / "reports", tmp_path / "cache"
    args = ["run", str(folder), "--reports", str(reports), "--quiet"]
    assert run_here(args, cache, monkeypatch, capsys).returncode == 0
    first = (reports / "corrupt.json").read_bytes()
    [entry] = entries(cache)
    data = entry.read_bytes()
    assert b'"verdict":"contradicted"' in data
    entry.write_bytes(data.replace(b'"verdict":"contradicted"', b'"verdict":"supported"'))  # a forged verdict
    assert run_here(args, cache, monkeypatch, capsys).returncode == 0
    assert (reports / "corrupt.json").read_bytes() == first
    assert json.loads(first)["claims"][0]["verdict"] == "contradicted"


def test_claims_option_computes_only_the_selected_claims(tmp_path, monkeypatch, capsys):
    folder = write_chapter(tmp_path / "claims", "select", SUPPORTED_CLAIM, NOT_CHECKABLE_CLAIM, CONTRADICTED_CLAIM)
    reports, cache = tmp_path / "reports", tmp_path / "cache"
    done = run_here(["run", str(folder), "--reports", str(reports), "--quiet", "--claims", "C3"], cache, monkeypatch,
                    capsys)
    assert done.returncode == 0, done.stderr
    report = json.loads((reports / "selected" / "select.json").read_text(encoding="utf-8"))
    assert [c["id"] for c in report["claims"]] == ["C3"]
    assert report["claims"][0]["verdict"] == "contradicted"
    assert report["provenance"]["command"] == f"audit run {folder.as_posix()} --claims C3"  # reproduces it
    assert len(entries(cache)) == 1                      # only C3 was computed
    unknown = run_here(["run", str(folder), "--reports", str(reports), "--claims", "C9"], cache, monkeypatch,
                       capsys)
    assert unknown.returncode == 2 and "C9" in unknown.stderr


def test_a_partial_audit_leaves_the_chapters_own_reports_and_skips_a_chapter_without_the_claims(tmp_path, monkeypatch,
                                                                                                capsys):
    """``--claims`` writes its reports to ``reports/selected/``: the chapters' full reports and the book index are
    not replaced by partial ones, and a chapter that has none of the claims is neither audited nor emptied."""
    root = tmp_path / "claims"
    first = write_chapter(root, "one", SUPPORTED_CLAIM, CONTRADICTED_CLAIM)
    second = write_chapter(root, "two", NOT_CHECKABLE_CLAIM)
    reports, cache = tmp_path / "reports", tmp_path / "cache"
    full = run_here(["run", str(first), str(second), "--reports", str(reports), "--quiet"], cache, monkeypatch,
                    capsys)
    assert full.returncode == 0, full.stderr
    before = {p.relative_to(reports): p.read_bytes() for p in reports.rglob("*") if p.is_file()}
    # C3 is a claim of chapter "one" only ("two" has C2 alone)
    done = run_here(["run", str(first), str(second), "--reports", str(reports), "--claims", "C3"], cache,
                    monkeypatch, capsys)
    assert done.returncode == 0, done.stderr
    after = {p.relative_to(reports): p.read_bytes() for p in reports.rglob("*") if p.is_file()}
    assert {p: b for p, b in after.items() if p.parts[0] != "selected"} == before
    assert sorted(str(p) for p in after if p.parts[0] == "selected") == [
        "selected/one.html", "selected/one.json", "selected/one.md", "selected/one.patch"]
    assert "skipped (none of the selected claims): two" in done.stderr
    assert "one (claims C3): no change since the previous report" in done.stdout


def test_pytest_k_computes_only_the_selected_claim(tmp_path):
    folder = write_chapter(tmp_path / "claims", "pyk", SUPPORTED_CLAIM, NOT_CHECKABLE_CLAIM, CONTRADICTED_CLAIM)
    cache = tmp_path / "cache"
    env = {**os.environ, "CHAPTER_AUDIT_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--audit", str(folder),
                           "-k", "C3", "-q"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert "1 failed" in done.stdout and "2 deselected" in done.stdout, done.stdout
    assert len(entries(cache)) == 1


def test_parallel_chapters_give_the_same_reports(tmp_path):
    root = tmp_path / "claims"
    first = write_chapter(root, "one", SUPPORTED_CLAIM)
    second = write_chapter(root, "two", CONTRADICTED_CLAIM, NOT_CHECKABLE_CLAIM)
    outputs = {}
    for jobs in ("1", "2"):
        reports = tmp_path / f"reports-{jobs}"
        done = run_cli(["run", str(first), str(second), "--reports", str(reports), "--no-cache", "-j", jobs],
                       tmp_path / "cache")
        assert done.returncode == 0, done.stderr
        outputs[jobs] = ({p.relative_to(reports).as_posix(): p.read_text(encoding="utf-8")
                          .replace(f"reports-{jobs}", "reports").replace(f"-j {jobs}", "-j N")
                          for p in sorted(reports.rglob("*")) if p.is_file()},
                         done.stdout.replace(f"reports-{jobs}", "reports"))
    assert outputs["1"] == outputs["2"]
    # .html, .md and .json per chapter, the patch for chapter "two" (its contradicted claim has a checked
    # correction), each chapter's verdict history and the book index in two formats
    assert sorted(outputs["1"][0]) == [".audit.lock", "history/one.json", "history/two.json", "index.html",
                                       "index.md", "one.html", "one.json", "one.md", "two.html", "two.json", "two.md",
                                       "two.patch"]


def test_pytest_xdist_runs_claims_across_processes(tmp_path):
    """pytest-xdist is an optional extra; each worker audits the claims it is given."""
    import pytest
    pytest.importorskip("xdist")
    folder = write_chapter(tmp_path / "claims", "xd", SUPPORTED_CLAIM, NOT_CHECKABLE_CLAIM, CONTRADICTED_CLAIM)
    env = {**os.environ, "CHAPTER_AUDIT_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "-q", "-rfs",
                           str(folder)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    # C1 supported (passed), C2 not checkable (skipped), C3 contradicted: P@4 = 1/4, not 1/3 (failed)
    assert "1 failed, 1 passed, 1 skipped" in done.stdout, done.stdout
    assert "FAILED" in done.stdout and "C3" in done.stdout


REPEATED_ID_CHAPTER = FIXTURE + """\
  repeated-id-probe:
    qrels: {q1: {a: 1, b: 1, n: 0}}
    run: {q1: [a, n, a, b]}
claims:
""" + SUPPORTED_CLAIM + """\
  - id: R1
    title: repeated IDs rejected
    kind: convention
    quote: "The evaluator rejects repeated result IDs."
    claim: A ranking that repeats an ID is rejected.
    convention: repeated_ids
    rule: reject
    probe: repeated-id-probe
    measures: ["RR@4"]
"""


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_a_revision_elsewhere_reuses_the_proposals_recheck(tmp_path):
    """R1 is qualified (ir-measures and ranx keep the last copy of a repeated ID: test_verdicts), so the proposal
    adds a caveat, re-checked by running the probe on every reference with nothing cached. Revising C1's number
    (1/4 → 2/4, an edited anchor) changes no input of that re-check, so the rerun starts no reference worker,
    and its reports are those of a run without the cache."""
    folder = tmp_path / "claims" / "revised"
    folder.mkdir(parents=True)
    (folder / "chapter.yaml").write_text("id: revised\nbook: Test Book\ntitle: revision\n", encoding="utf-8")
    snapshot = ("At cutoff four, a single relevant result gives P@4 = 1/4. "
                "The evaluator rejects repeated result IDs.\n")
    (folder / "snapshot.txt").write_text(snapshot, encoding="utf-8")
    (folder / "claims.yaml").write_text(REPEATED_ID_CHAPTER, encoding="utf-8")
    reports, cache = tmp_path / "reports", tmp_path / "cache"
    args = ["run", str(folder), "--reports", str(reports), "--quiet"]
    cold = run_cli(args, cache)
    assert cold.returncode == 0, cold.stderr
    hunks = json.loads((reports / "revised.json").read_text())["research"]["proposal"]["hunks"]
    assert "R1" in [h["claim"] for h in hunks]
    (folder / "snapshot.txt").write_text(snapshot.replace("P@4 = 1/4", "P@4 = 2/4"), encoding="utf-8")
    probe = (MAIN.replace("sys.exit(main(sys.argv[1:]))", "code = main(sys.argv[1:])")
             + "; import json; from audit.evaluation.references import all_references"
             + "; print(json.dumps([r._process is not None for r in all_references(start=False)])); sys.exit(code)")
    warm = run_cli(args, cache, probe)
    assert warm.returncode in (0, 1), warm.stderr
    assert json.loads(warm.stdout.strip().splitlines()[-1]) == [False, False, False]
    cached = {p.relative_to(reports).as_posix(): p.read_bytes() for p in sorted(reports.rglob("*")) if p.is_file()}
    fresh = run_cli(args + ["--no-cache"], tmp_path / "unused")
    assert fresh.returncode == warm.returncode, fresh.stderr
    for p in sorted(q for q in reports.rglob("*") if q.is_file()):
        name = p.relative_to(reports).as_posix()
        assert p.read_bytes().replace(b" --no-cache", b"") == cached[name], name


def test_sensitivity_rows_are_kept_per_claim_and_only_a_changed_claims_are_computed_again(tmp_path, monkeypatch):
    """A claim's rows of the sensitivity table depend on that claim alone: with a per-claim cache, a second
    table computes nothing, and after one claim's key changes (a revision of its sentence) only its rows are
    computed again. The rows are those of a table computed without the cache."""
    from audit.evaluation.checks.common import Measurements
    from audit.research import sensitivity as module
    from audit.run.cache import PerClaimCache
    chapter = load_chapter(ROOT / "claims" / "recall-and-precision")
    found = {c.id for c in chapter.register.claims}
    fresh = module.sensitivity(chapter, Measurements([]), found)
    assert {r.kind for r in fresh} >= {"value", "property"}
    keys = {c.id: f"key-{c.id}" for c in chapter.register.claims}
    computed: list[str] = []
    for name in ("value_rows", "comparison_rows", "property_rows"):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda claim, *a, real=real: computed.append(claim.id) or real(claim, *a))
    first = module.sensitivity(chapter, Measurements([]), found, PerClaimCache(tmp_path, keys))
    assert first == fresh and computed
    computed.clear()
    again = module.sensitivity(chapter, Measurements([]), found, PerClaimCache(tmp_path, keys))
    assert again == fresh and computed == []
    revised = fresh[0].claim
    keys[revised] = "key-after-a-revision"
    third = module.sensitivity(chapter, Measurements([]), found, PerClaimCache(tmp_path, keys))
    assert third == fresh and computed == [revised]


def _session(sid: int) -> list[tuple[int, str, str]]:
    """(pid, state, command line) of every process in session ``sid`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[3]) == sid:  # fields after the command name: state, ppid, pgrp, session
            out.append((int(entry.name), fields[0], cmdline))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_parallel_chapters_end_with_their_parent_however_it_ends(tmp_path):
    """``audit run -j 2`` killed outright (SIGKILL: no handler runs) leaves no chapter process and no reference
    worker running: each chapter process asked the kernel to end it with its parent, and its workers end when
    their pipes close."""
    import signal
    import time

    root = Path(__file__).resolve().parent.parent / "claims"
    process = subprocess.Popen([sys.executable, "-c", MAIN, "run", str(root / "retrieval-23-chapter"),
                                str(root / "recall-and-precision"), "--reports", str(tmp_path / "reports"),
                                "--no-cache", "-j", "2", "--quiet"],
                               env={**os.environ, "CHAPTER_AUDIT_CACHE": str(tmp_path / "cache")},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # both chapters are under way: their reference workers have started
        if sum("references.worker" in cmd for _, _, cmd in _session(process.pid)) >= 4:
            break
        time.sleep(0.05)
    else:
        process.kill()
        pytest.fail("the chapter processes did not start their reference workers")
    process.kill()
    process.wait()
    # a worker notices its closed pipe once it reads it, after importing its library: seconds on an idle machine,
    # longer on a loaded one
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        alive = [(pid, cmd) for pid, state, cmd in _session(process.pid) if state != "Z"]
        if not alive:
            break
        time.sleep(0.1)
    else:
        for pid, _ in alive:
            os.kill(pid, signal.SIGKILL)
        pytest.fail(f"still running after their parent was killed: {alive}")


def test_parallel_chapters_draw_their_charts_ahead_for_the_parent(tmp_path, monkeypatch):
    """With ``-j 2`` and the caches on, each chapter process draws its charts ahead (its own chart worker) into the
    chart store, and the parent that writes the reports draws none itself; the reports are those of ``-j 1``."""
    from audit.cli import main
    from audit.report import charts

    root = tmp_path / "claims"
    first = write_chapter(root, "one", SUPPORTED_CLAIM, CONTRADICTED_CLAIM)
    second = write_chapter(root, "two", SUPPORTED_CLAIM)
    monkeypatch.setenv("CHAPTER_AUDIT_CACHE", str(tmp_path / "cache"))
    # a chart this process was still drawing ahead when the chapter processes were forked (as an earlier audit in the
    # same process can leave): its future never ends in a child, which must not wait for it
    from concurrent.futures import Future
    monkeypatch.setitem(charts._AHEAD, ("_interval_chart", "left by an earlier audit"), Future())
    # and the shared thread pool used before the fork, as an earlier audit in this process does: its threads are not
    # in a child
    from audit.evaluation.parallel import map_each
    assert map_each(abs, [-1, -2]) == [1, 2]
    drawn_here = []
    for name in ("_interval_svg", "_curve_svg"):
        real = getattr(charts, name)

        def counted(check, real=real):
            drawn_here.append(os.getpid())
            return real(check)
        counted.__name__ = name  # the chart worker is asked for a drawing by this name
        monkeypatch.setattr(charts, name, counted)
    reports = {}
    for jobs in ("2", "1"):
        folder = tmp_path / f"reports-{jobs}"
        status = []
        run = threading.Thread(target=lambda: status.append(main(["run", str(first), str(second), "--reports",
                                                                  str(folder), "--quiet", "-j", jobs])), daemon=True)
        run.start()
        run.join(300)
        assert status == [0], "the audit did not finish (a chapter process waited for the parent's charts?)"
        reports[jobs] = {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
                         .replace(f"reports-{jobs}", "reports") for p in sorted(folder.rglob("*")) if p.is_file()}
        if jobs == "2":
            assert os.getpid() not in drawn_here  # every chart was found stored
            assert any("<svg" in text for name, text in reports[jobs].items() if name.endswith(".html"))
    assert reports["1"] == reports["2"]


# --- the end of a run: the reports folder's lock, an interrupt while finishing, the numba cache ------------------

def test_an_interrupt_while_the_program_finishes_exits_non_zero_without_a_traceback(tmp_path):
    """A Ctrl-C that arrives after the reports are written, while the interpreter shuts down (its exit handlers end
    the reference workers), used to print "Exception ignored in atexit callback … KeyboardInterrupt" and exit 0."""
    folder = write_chapter(tmp_path / "claims", "late", SUPPORTED_CLAIM)
    script = ("import atexit, os, signal, sys, time\n"
              "from audit.cli import main\n"
              f"sys.argv = ['audit', 'run', {str(folder)!r}, '--reports', {str(tmp_path / 'reports')!r}, '--quiet']\n"
              "code = main()\n"
              "def interrupt():\n"
              "    os.kill(os.getpid(), signal.SIGINT)\n"
              "    time.sleep(5)\n"
              "atexit.register(interrupt)\n"   # runs first of the exit handlers
              "sys.exit(code)\n")
    done = run_cli([], tmp_path / "cache", code=script)
    assert done.returncode == 4, (done.returncode, done.stderr)
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr
    assert "interrupted while finishing; reports already written are complete" in done.stderr
    assert json.loads((tmp_path / "reports" / "late.json").read_text())["claims"][0]["verdict"] == "supported"


def test_the_program_ends_its_workers_before_it_returns(tmp_path):
    folder = write_chapter(tmp_path / "claims", "ends", SUPPORTED_CLAIM)
    script = ("import sys\n"
              "from audit.cli import main\n"
              f"sys.argv = ['audit', 'run', {str(folder)!r}, '--reports', {str(tmp_path / 'reports')!r}, '--quiet']\n"
              "code = main()\n"
              "from audit.evaluation.references import worker\n"
              "from audit.report import chart_worker\n"
              "print(len(worker._RUNNING), len(chart_worker._RUNNING))\n"
              "sys.exit(code)\n")
    done = run_cli([], tmp_path / "cache", code=script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == ["0", "0"]


def test_audits_writing_one_reports_folder_write_one_after_the_other(tmp_path):
    """Two audits of two revisions of a book (chapters a and b) writing one reports folder: each writes all its
    reports and the index under the folder's lock, so the folder ends with one revision's a and b, never a of one
    and b of the other. The test holds the lock while both audits wait for it."""
    import time

    from audit.report.files import locked

    reports = tmp_path / "reports"
    procs = []
    for revision in ("1", "2"):
        root = tmp_path / f"claims-{revision}"
        for name in ("a", "b"):
            folder = write_chapter(root, name, SUPPORTED_CLAIM)
            (folder / "snapshot.txt").write_text(f"Revision {revision}. At cutoff four, a single relevant result "
                                                 "gives P@4 = 1/4.\n", encoding="utf-8")
    with locked(reports):
        for revision in ("1", "2"):
            root = tmp_path / f"claims-{revision}"
            env = {**os.environ, "CHAPTER_AUDIT_CACHE": str(tmp_path / f"cache-{revision}"), "COLUMNS": "1000"}
            procs.append(subprocess.Popen([sys.executable, "-c", MAIN, "run", str(root / "a"), str(root / "b"),
                                           "--reports", str(reports)], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
        deadline = time.monotonic() + 300
        waiting: list[str] = []
        for proc in procs:  # each has audited its chapters and now waits for the folder
            line = ""
            while "waiting for it to finish" not in line and time.monotonic() < deadline:
                line = proc.stderr.readline()
                assert line or proc.poll() is None, "the audit ended without waiting for the lock"
            waiting.append(line)
        assert all("another audit is writing" in line for line in waiting)
        assert not any(p.suffix == ".json" for p in reports.iterdir())   # nothing written while the lock is held
    for proc in procs:
        proc.wait(timeout=300)
        assert proc.returncode == 0, proc.stderr.read()
    a, b = (json.loads((reports / f"{name}.json").read_text()) for name in ("a", "b"))
    assert a["fingerprint"]["computed"] == b["fingerprint"]["computed"]     # both of one revision
    assert "a.html" in (reports / "index.md").read_text() and "b.html" in (reports / "index.md").read_text()


def test_a_ranx_error_from_a_full_disk_gets_a_hint_naming_the_numba_cache(tmp_path):
    from types import SimpleNamespace

    from audit.cli import _numba_hint
    from audit.model.results import Check, ImplValue
    failed = ImplValue(implementation="ranx", status="error", detail="OSError: [Errno 28] No space left on device")
    report = SimpleNamespace(chapter={"id": "ch"}, claims=[SimpleNamespace(id="C1", checks=[
        Check(label="P@4", values=[ImplValue(implementation="chapter", value=0.25), failed])])])
    hint = _numba_hint([report], str(tmp_path / "numba"))
    assert "ranx failed with “OSError: [Errno 28] No space left on device” on C1 of ch" in hint
    assert str(tmp_path / "numba") in hint and "MB free" in hint and "NUMBA_CACHE_DIR" in hint
    assert _numba_hint([SimpleNamespace(chapter={"id": "ch"}, claims=[])], "x") == ""


def test_little_room_for_the_numba_cache_is_said_before_the_audit(tmp_path, monkeypatch, capsys):
    import audit.cli as cli
    monkeypatch.setattr(cli, "_free_bytes", lambda folder: 3 * 2**20)
    monkeypatch.setenv("COLUMNS", "1000")
    folder = write_chapter(tmp_path / "claims", "room", NOT_CHECKABLE_CLAIM)
    assert cli.main(["run", str(folder), "--reports", str(tmp_path / "reports"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "warning: ranx keeps its compiled metrics in the numba cache" in err and "3.0 MB free" in err


def _tmpfs(path: Path, size: str) -> bool:
    """Mount a small tmpfs at ``path`` (root only); whether it worked."""
    path.mkdir(parents=True)
    try:
        return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mounts a small disk (root only)")
def test_a_full_numba_cache_disk_gets_a_hint(tmp_path):
    """ranx compiling into a full NUMBA_CACHE_DIR fails with "[Errno 28] No space left on device": the claims are
    errors (as they must be: nothing was verified by ranx), and the run says where the numba cache is and why."""
    disk = tmp_path / "full"
    if not _tmpfs(disk, "64k"):
        pytest.skip("cannot mount a tmpfs here")
    try:
        folder = write_chapter(tmp_path / "claims", "numba", SUPPORTED_CLAIM)
        env = {**os.environ, "CHAPTER_AUDIT_CACHE": str(tmp_path / "cache"), "COLUMNS": "1000",
               "NUMBA_CACHE_DIR": str(disk / "numba")}
        done = subprocess.run([sys.executable, "-c", MAIN, "run", str(folder), "--reports", str(tmp_path / "reports"),
                               "--no-cache"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
        assert "Traceback" not in done.stderr
        assert "warning: ranx keeps its compiled metrics in the numba cache" in done.stderr     # before the audit
        assert f"hint: ranx failed with “OSError: [Errno 28] No space left on device”" in done.stderr, done.stderr
        assert str(disk / "numba") in done.stderr
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True, timeout=30)
