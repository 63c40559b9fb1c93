"""Work started ahead of need: per-reference queues, property-search batches started by the chapter-only
pass and collected by the real searches, charts drawn while the audit waits, and the workers' priorities."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time

import pytest
import yaml

from audit.evaluation.references import all_references
from audit.evaluation.references.pytrec_eval_ref import PytrecEvalReference
from audit.evaluation.references.worker import NICENESS
from audit.register.claims import load_chapter
from audit.run import audit as audit_module
from audit.run.audit import audit_chapter
from audit.evaluation.parallel import queued
from audit.run.provenance import collect


def test_a_queue_runs_its_calls_in_order_while_another_queue_goes_on():
    gate, order = threading.Event(), []
    first = queued("test-a", lambda: (gate.wait(10), order.append(1)))
    second = queued("test-a", order.append, 2)
    other = queued("test-b", lambda: "b done")
    assert other.result(timeout=10) == "b done"  # not held up by queue a's blocked call
    assert order == []
    gate.set()
    first.result(timeout=10)
    second.result(timeout=10)
    assert order == [1, 2]


def test_a_queued_call_cancelled_before_it_starts_never_runs():
    gate, ran = threading.Event(), []
    blocker = queued("test-c", gate.wait, 10)
    dropped = queued("test-c", ran.append, "dropped")
    assert dropped.cancel()
    gate.set()
    blocker.result(timeout=10)
    queued("test-c", ran.append, "kept").result(timeout=10)
    assert ran == ["kept"]


def test_a_failing_queued_call_raises_from_its_future():
    def fail():
        raise ValueError("bad input")
    with pytest.raises(ValueError, match="bad input"):
        queued("test-d", fail).result(timeout=10)
    assert queued("test-d", lambda: 3).result(timeout=10) == 3  # the queue goes on


def _queue_in_child() -> str:
    return queued("test-fork", str, "ran").result(timeout=10)


def test_a_queue_used_before_a_fork_runs_calls_in_the_forked_process():
    """``audit run -j N`` forks a process per chapter (``audit.run.jobs``): a queue made before the fork has no
    thread in the child (threads are not forked), so a call queued there must get a new one rather than wait
    for ever."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    assert queued("test-fork", str, "here").result(timeout=10) == "here"  # the queue exists in this process
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        assert pool.submit(_queue_in_child).result(timeout=60) == "ran"


# --- property-search batches --------------------------------------------------------------------------------

SNAPSHOT = "Raising k always hurts precision. Recall never falls. RR ignores later items.\n"
SMALL = {"max_length": 3, "documents": 4, "grades": [0, 1], "max_k": 4}
CLAIMS = [  # one false with its weaker and opposite forms searched too, one true, one transform
    {"id": "P1", "title": "P1", "kind": "property", "quote": "always hurts precision", "claim": "P decreases",
     "measure": "P", "relation": "decreases", "compare": "next_cutoff", "universe": SMALL,
     "search": {"random_cases": 300, "max_length": 10}},
    {"id": "P2", "title": "P2", "kind": "property", "quote": "Recall never falls.", "claim": "R never decreases",
     "measure": "R", "relation": "never decreases", "compare": "next_cutoff", "universe": SMALL,
     "search": {"random_cases": 300, "max_length": 10}},
    {"id": "P3", "title": "P3", "kind": "property", "quote": "RR ignores later items.", "claim": "RR unchanged",
     "measure": "RR", "relation": "unchanged", "compare": "transform", "transform": "change_after_first_relevant",
     "universe": SMALL, "search": {"random_cases": 300, "max_length": 10}},
]


class Counting(PytrecEvalReference):
    """pytrec_eval in this process, recording each call's content (qrels, run, measures) and when it came."""

    def __init__(self, phase: list[str]) -> None:
        super().__init__()
        self.phase = phase
        self.calls: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def evaluate(self, measures, qrels, run):
        digest = hashlib.sha1(json.dumps([sorted(str(m) for m in measures), qrels, run], sort_keys=True)
                              .encode()).hexdigest()
        with self.lock:
            self.calls.append((digest, self.phase[0]))
        return super().evaluate(measures, qrels, run)


_CHAPTER_SIDE = audit_module._chapter_side


def _audit(tmp_path, monkeypatch, ahead: bool):
    folder = tmp_path / ("ahead" if ahead else "plain")
    folder.mkdir()
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: props\ntitle: Properties\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(yaml.safe_dump({"claims": CLAIMS}), encoding="utf-8")
    phase = ["claims"]
    ref = Counting(phase)
    real = _CHAPTER_SIDE

    def chapter_side(*args):
        phase[0] = "chapter-only pass"
        if ahead:
            real(*args)
            queued(ref.name, lambda: None).result(timeout=60)  # the batches it queued have run
        phase[0] = "claims"
    monkeypatch.setattr(audit_module, "_chapter_side", chapter_side)
    report = audit_chapter(load_chapter(folder), [ref], collect(["audit", "run"]), ledger=False)  # searches only
    return report, ref.calls


def test_the_chapter_only_pass_starts_the_searches_batches_and_the_searches_collect_them(tmp_path, monkeypatch):
    plain, plain_calls = _audit(tmp_path, monkeypatch, ahead=False)
    ahead, ahead_calls = _audit(tmp_path, monkeypatch, ahead=True)
    # the same verdicts and reasons, word for word
    assert [(c.id, c.verdict, c.reason) for c in ahead.claims] == [(c.id, c.verdict, c.reason) for c in plain.claims]
    assert [c.verdict for c in ahead.claims] == ["contradicted", "supported", "supported"]  # P@k moves both ways
    started = {d for d, phase in ahead_calls if phase == "chapter-only pass"}
    assert started, "the chapter-only pass started no batch"
    # each batch went to the reference once: the searches found the started ones, and a search repeated
    # under the same reading (P1's weaker and opposite forms) shares them
    digests = [d for d, _ in ahead_calls]
    assert len(digests) == len(set(digests))
    # every batch the searches need was evaluated, and none was evaluated twice without the pass either
    assert {d for d, _ in plain_calls} <= set(digests)
    assert len(plain_calls) == len({d for d, _ in plain_calls})


# --- charts -------------------------------------------------------------------------------------------------

def test_a_chart_drawn_ahead_is_the_chart_drawn_in_place_and_a_changed_check_is_drawn_again():
    from audit.report import charts
    from audit.model.results import Check, ImplValue
    from audit.run.cache import set_memo
    set_memo(False)
    try:
        check = Check(label="P@4", measure="P@4", claimed="1/4", low=0.25, high=0.25,
                      values=[ImplValue(implementation="chapter", value=0.25),
                              ImplValue(implementation="ranx", value=0.25)])
        in_place = charts.interval_chart(check)
        charts.draw_ahead([check])
        assert charts.interval_chart(check) == in_place
        assert charts.curve_chart(check) == ""  # no curves
        assert not charts._AHEAD  # taken, not kept
        charts.draw_ahead([check])
        check.values[1].value = 0.2  # changed after it was queued: the report must show 0.2
        changed = charts.interval_chart(check)
        assert changed != in_place
        assert changed == charts.interval_chart(check.model_copy(deep=True))
        charts.curve_chart(check)
    finally:
        set_memo(True)
        charts._AHEAD.clear()


def _checks():
    from audit.model.results import Check, ImplValue
    interval = Check(label="P@4", measure="P@4", claimed="1/4", low=0.25, high=0.3,
                     values=[ImplValue(implementation="chapter", value=0.25),
                             ImplValue(implementation="ranx", value=0.2),
                             ImplValue(implementation="chapter", behaviour="unjudged removed", value=0.33)])
    curve = Check(label="P@k", measure="P@k", claimed="decreases", curves={"P@k": [1.0, 0.5, 0.6667, 0.5]})
    return interval, curve


def test_the_chart_worker_draws_what_this_process_draws_and_a_failure_is_drawn_here(monkeypatch):
    """Charts drawn by the chart worker are byte for byte the ones drawn in this process (same function, same
    matplotlib); a worker that died, or that cannot draw a chart, leaves the chart to this process, and the
    report still gets it."""
    from audit.report import chart_worker, charts
    from audit.run.cache import set_memo
    set_memo(False)
    interval, curve = _checks()
    here = [charts._interval_svg(interval), charts._curve_svg(curve)]
    assert all(here)
    worker = chart_worker.ChartWorker()
    monkeypatch.setattr(charts, "_WORKER", worker)
    try:
        asked = []
        real_draw = worker.draw
        # only this test's checks: a chart an earlier audit in this process is still drawing ahead (in a background
        # thread, slower on a busy machine) may also reach the patched worker
        monkeypatch.setattr(worker, "draw", lambda *a: (asked.append(a[0]) if a[1] in (interval, curve) else None)
                            or real_draw(*a))
        assert [charts.interval_chart(interval), charts.curve_chart(curve)] == here
        assert asked == ["_interval_svg", "_curve_svg"]
        assert worker.draw("_interval_svg", interval) == here[0]  # the worker's own answer
        assert worker.draw("no such chart", interval) is None  # refused: the caller draws it
        pid = worker._process.pid
        worker._process.kill()  # dies: the chart is drawn here, and the worker is not started again
        worker._process.wait()
        assert charts.interval_chart(interval) == here[0]
        assert worker._broken and worker._process is None
        assert charts.curve_chart(curve) == here[1]
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    finally:
        worker.stop()
        set_memo(True)
        charts._AHEAD.clear()


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # matplotlib placing the NaN
def test_the_chart_worker_gets_the_check_itself_not_its_json(monkeypatch):
    """A check reaches the chart worker as it is: JSON holds no NaN or infinity (pydantic writes them as null, read
    back as None), so a check sent as JSON could be drawn differently by the worker than in this process. A
    reference's NaN value is drawn by both (the same SVG), and an infinite bound makes matplotlib refuse the axis
    limits in both (``ValueError: Axis limits cannot be NaN or Inf``): the worker then gives nothing, and the
    chart drawn here raises as it did before there was a worker."""
    from audit.report import chart_worker, charts
    from audit.model.results import Check, ImplValue
    from audit.run.cache import set_memo
    set_memo(False)
    nan_value = Check(label="nDCG@4", measure="nDCG@4", claimed="1", low=0.9, high=1.0,
                      values=[ImplValue(implementation="chapter", value=1.0),
                              ImplValue(implementation="ranx", value=float("nan"))])
    open_bound = Check(label="P@4", measure="P@4", claimed="> 0", low=0.0, high=float("inf"),
                       values=[ImplValue(implementation="chapter", value=0.5)])
    here = charts._interval_svg(nan_value)
    with pytest.raises(ValueError, match="NaN or Inf"):
        charts._interval_svg(open_bound)
    worker = chart_worker.ChartWorker()
    monkeypatch.setattr(charts, "_WORKER", worker)
    try:
        assert worker.draw("_interval_svg", nan_value) == here
        assert worker.draw("_interval_svg", open_bound) is None
        assert charts.interval_chart(nan_value) == here
        with pytest.raises(ValueError, match="NaN or Inf"):
            charts.interval_chart(open_bound)
    finally:
        worker.stop()
        set_memo(True)
        charts._AHEAD.clear()


def test_a_stored_chart_is_not_given_to_a_check_that_differs_only_by_nan(monkeypatch, tmp_path):
    """A stored chart is keyed by its check with a NaN value kept apart from no value (None): pydantic's JSON text
    writes NaN as null, and a key built from it would give the NaN check the chart stored for the other."""
    from audit.report import charts
    from audit.model.results import Check, ImplValue
    from audit.run.cache import ENV, set_memo
    monkeypatch.setenv(ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(charts, "_WORKER", None)

    def check(value):
        return Check(label="nDCG@4", measure="nDCG@4", claimed="1", low=0.9, high=1.0,
                     values=[ImplValue(implementation="chapter", value=1.0),
                             ImplValue(implementation="ranx", value=value)])
    missing, nan = check(None), check(float("nan"))
    expected = charts._interval_svg(missing), charts._interval_svg(nan)
    assert expected[0] != expected[1]  # NaN is drawn as a point with no position; None is left out
    set_memo(True)
    try:
        assert charts.interval_chart(missing) == expected[0]  # stored
        assert charts.interval_chart(nan) == expected[1]  # not the stored one
        assert charts.interval_chart(missing) == expected[0]
    finally:
        charts._AHEAD.clear()


def test_the_chart_worker_ends_with_the_audit_and_a_forked_child_draws_its_own():
    """A process that started a chart worker leaves none behind when it exits; a forked child (``audit run -j N``)
    does not use its parent's worker (their answers would mix on one pipe)."""
    script = (
        "import os, sys\n"
        "from audit.report import charts\n"
        "charts.prepare()\n"
        "print(charts._WORKER._process.pid, flush=True)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(0 if charts._WORKER is None else 1)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "print(os.waitstatus_to_exitcode(status), flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    worker_pid, child = (int(x) for x in done.stdout.split())
    assert child == 0  # the child saw no worker
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(worker_pid, 0)
        except ProcessLookupError:
            break
        try:
            with open(f"/proc/{worker_pid}/stat") as f:  # a zombie waiting for init counts as ended
                if f.read().split(")")[-1].split()[0] == "Z":
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the chart worker outlived the process that started it")


def test_long_labels_fit_inside_the_chart():
    """The layout is computed from the labels' measured widths: a long chapter reading's label starts inside
    the SVG's width (``bbox_inches="tight"`` used to find that box by drawing twice)."""
    import re

    from audit.report import charts, drawings
    from audit.model.results import Check, ImplValue
    from audit.run.cache import set_memo
    set_memo(False)
    try:
        long = "nDCG gain exponential, unjudged removed"
        check = Check(label="nDCG@4", measure="nDCG@4", claimed="0.8", low=0.75, high=0.85,
                      values=[ImplValue(implementation="chapter", behaviour=long, value=0.7),
                              ImplValue(implementation="pytrec_eval", value=0.8)])
        svg = charts.interval_chart(check)
    finally:
        set_memo(True)
    width = float(re.search(r'<svg[^>]* width="([\d.]+)pt"', svg).group(1))
    label = drawings._label(check.values[0])
    assert label in svg
    xs = [float(x) for x in re.findall(r'<text[^>]* x="(-?[\d.]+)"[^>]*>[^<]*' + re.escape(label[:20]), svg)]
    assert xs and all(0 <= x <= width for x in xs), (xs, width)


# --- the workers --------------------------------------------------------------------------------------------

def test_quick_references_run_below_the_slow_one_and_every_worker_ends_cleanly():
    from audit.measures.syntax import parse
    refs = all_references()
    measure = parse("P@1")[0]
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    try:
        for ref in refs:
            ref.evaluate([measure], {"q1": {"a": 1}}, {"q1": {"a": 1.0}})
        priorities = {ref.name: os.getpriority(os.PRIO_PROCESS, ref._process.pid) for ref in refs}
        processes = {ref.name: ref._process for ref in refs}
    finally:
        for ref in refs:
            ref.stop()
    assert priorities["ranx"] == mine  # slow_to_load: the audit waits for it
    assert priorities["pytrec_eval"] == priorities["ir_measures"] == min(19, mine + NICENESS)
    assert {name: p.returncode for name, p in processes.items()} == {n: 0 for n in processes}


def test_a_chapter_that_needs_no_reference_starts_no_worker(tmp_path):
    """Workers start ahead only when a claim to compute needs a reference: a chapter of arithmetic alone (21/43 ≈
    .4884, chapter 23's AP example) is audited without loading any library."""
    from audit.run.cache import ClaimCache
    folder = tmp_path / "arith"
    folder.mkdir()
    (folder / "snapshot.txt").write_text("AP is 21/43 ≈ .4884 here.\n", encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: arith\ntitle: Arithmetic\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(
        'claims:\n  - {id: A1, title: t, kind: arithmetic, quote: "21/43 ≈ .4884", claim: c, claimed: "0.4884", '
        'expression: "21/43"}\n', encoding="utf-8")
    refs = all_references(start=False)
    for ref in refs:  # the adapters are this process's: an earlier test in the same worker may have started them
        ref.stop()
    try:
        report = audit_chapter(load_chapter(folder), refs, collect(["audit", "run"]),
                               cache=ClaimCache(enabled=False), ledger=False)
        assert [c.verdict for c in report.claims] == ["supported"]
        assert [ref._process for ref in refs] == [None, None, None]
    finally:
        for ref in refs:
            ref.stop()
