"""audit.evaluation.references.worker: a reference that crashes is that reference's error, not the audit's end;
and how each implementation treats negative grades (observed, not assumed).

The crash reproduced here: pytrec_eval (pytrec-eval-terrier 0.5.x) dies with SIGSEGV when a query
whose judged grades are all negative (−5) is evaluated after an earlier evaluator in the same
process; the unguarded reproduction runs in a child interpreter so this test process survives it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from audit.evaluation.references.base import Outcome, Reference, Support
from audit.evaluation.references.ir_measures_ref import IrMeasuresReference
from audit.evaluation.references.pytrec_eval_ref import PytrecEvalReference
from audit.evaluation.references.ranx_ref import RanxReference
from audit.evaluation.references.worker import IsolatedReference
from audit.measures.syntax import parse

P1 = parse("P@1")[0]


class Segfaulting(Reference):
    """A reference whose library crashes the interpreter on a query named ``crash``."""

    name = library = title = "segfaulting"

    def version(self) -> str:
        return "0"

    def conventions(self) -> dict[str, str]:
        return {}

    def supports(self, measure) -> Support:
        return Support(True)

    def evaluate(self, measures, qrels, run):
        if "crash" in qrels:
            os.kill(os.getpid(), signal.SIGSEGV)
        return {str(m): Outcome("ok", per_query={q: 1.0 for q in run}, provider="test") for m in measures}

    def evaluate_run_file(self, measures, qrels, path):
        return self.evaluate(measures, qrels, {})


class Sleeping(Segfaulting):
    name = library = title = "sleeping"

    def evaluate(self, measures, qrels, run):
        import time
        time.sleep(60)


@pytest.fixture
def isolated():
    made = []

    def make(inner, **kwargs):
        ref = IsolatedReference(inner, **kwargs)
        made.append(ref)
        return ref

    yield make
    for ref in made:
        ref.stop(wait=0)


def test_a_segfault_is_an_error_outcome_and_the_worker_restarts(isolated):
    ref = isolated(Segfaulting())
    crashed = ref.evaluate([P1], {"crash": {"a": 1}}, {"crash": {"a": 1.0}})[str(P1)]
    assert crashed.status == "error" and "SIGSEGV" in crashed.detail
    # The next call runs in a fresh worker and succeeds.
    after = ref.evaluate([P1], {"q1": {"a": 1}}, {"q1": {"a": 1.0}})[str(P1)]
    assert after.status == "ok" and after.per_query == {"q1": 1.0}


def test_a_call_past_the_timeout_is_an_error_outcome(isolated):
    ref = isolated(Sleeping(), timeout=1)
    outcome = ref.evaluate([P1], {"q1": {"a": 1}}, {"q1": {"a": 1.0}})[str(P1)]
    assert outcome.status == "error" and "did not finish within 1 s" in outcome.detail


def test_isolated_values_equal_the_adapters_own(isolated):
    # Same numbers through the worker as in this process: the worker changes where, not what.
    measures = [parse(m)[0] for m in ("P@2", "RR", "nDCG@2", "AP")]
    qrels, run = {"q1": {"a": 0, "b": 2}}, {"q1": {"a": 2.0, "b": 1.0}}
    for inner in (PytrecEvalReference(), IrMeasuresReference(), RanxReference()):
        direct = inner.evaluate(measures, qrels, run)
        through = isolated(type(inner)()).evaluate(measures, qrels, run)
        assert {k: o.per_query for k, o in through.items()} == {k: o.per_query for k, o in direct.items()}


REPRODUCE = textwrap.dedent("""
    import pytrec_eval
    first = pytrec_eval.RelevanceEvaluator({"q1": {"a": 1, "b": 0}}, {"P.4"})
    first.evaluate({"q1": {"a": 2.0, "b": 1.0}})
    second = pytrec_eval.RelevanceEvaluator({"q1": {"a": -5}}, {"P.4", "map", "ndcg_cut.4"})
    print(second.evaluate({"q1": {"a": 1.0}}))
""")


def test_pytrec_eval_crash_is_real_and_contained(isolated):
    # Unguarded, in a child interpreter: the library itself dies from the heap it corrupted, with SIGSEGV (return
    # code −11) or, when glibc's allocator notices first ("corrupted size vs. prev_size"), SIGABRT (−6).
    child = subprocess.run([sys.executable, "-c", REPRODUCE], capture_output=True, timeout=120)
    assert child.returncode in (-signal.SIGSEGV, -signal.SIGABRT), (child.returncode, child.stderr[-200:])
    # Through the worker, after an earlier call, the same input gives trec_eval's value: nothing is
    # relevant in q1, so P@4 = 0 (and the guard sends −5 as 0, which trec_eval reads identically).
    ref = isolated(PytrecEvalReference())
    ref.evaluate([parse("P@4")[0]], {"q1": {"a": 1, "b": 0}}, {"q1": {"a": 2.0, "b": 1.0}})
    outcome = ref.evaluate([parse("P@4")[0]], {"q1": {"a": -5}}, {"q1": {"a": 1.0}})[str(parse("P@4")[0])]
    assert outcome.status == "ok" and outcome.per_query == {"q1": 0.0}


# --- how each implementation treats a negative grade ----------------------------------------------

MEASURES = ["P@3", "R@3", "AP@3", "AP", "nDCG@3", "nDCG", "nDCG(dcg='exp-log2')@3", "RR", "Judged@3",
            "Success@3", "SetP", "SetR"]

OBSERVE = textwrap.dedent("""
    import json, sys
    from audit.measures.syntax import parse
    from audit.evaluation.references.ir_measures_ref import IrMeasuresReference
    from audit.evaluation.references.pytrec_eval_ref import PytrecEvalReference
    from audit.evaluation.references.ranx_ref import RanxReference
    ref = {"pytrec_eval": PytrecEvalReference, "ir_measures": IrMeasuresReference, "ranx": RanxReference}[sys.argv[1]]()
    measures = [parse(m)[0] for m in json.loads(sys.argv[3])]
    # a (grade g) ranked first, b relevant second, x unjudged third; c judged non-relevant, not ranked.
    qrels = {"q1": {"a": int(sys.argv[2]), "b": 1, "c": 0}}
    out = ref.evaluate(measures, qrels, {"q1": {"a": 3.0, "b": 2.0, "x": 1.0}})
    print(json.dumps({k: (o.per_query["q1"] if o.status == "ok" else o.status) for k, o in out.items()}))
""")


def observe(name: str, grade: int) -> dict:
    """Each measure's value for the probe with grade ``grade`` on document a, in a fresh interpreter
    (one evaluator call, so pytrec_eval does not crash), without the worker's guard."""
    child = subprocess.run([sys.executable, "-c", OBSERVE, name, str(grade), json.dumps(MEASURES)],
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr[-2000:]
    return json.loads(child.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["pytrec_eval", "ir_measures", "ranx"])
def test_a_negative_grade_is_read_as_grade_zero(name):
    # Observed: every implementation gives a document of grade −5 the values of a judged,
    # non-relevant document (grade 0) — so the worker's guard (negative → 0 for pytrec_eval and
    # ir-measures) changes no value. P@3 = 1/3 (only b is relevant), RR = 1/2 (b at rank 2).
    negative, zero = observe(name, -5), observe(name, 0)
    assert negative == zero
    assert negative["P@3"] == pytest.approx(1 / 3) and negative["RR"] == pytest.approx(0.5)


def test_ir_measures_counts_a_negative_grade_as_judged():
    # Judged@3 on [a (grade −5), b (1), x (unjudged)] = 2/3: the negative grade is judged.
    assert observe("ir_measures", -5)["Judged@3"] == pytest.approx(2 / 3)


TREC_JUDGED = textwrap.dedent("""
    import json, sys, pytrec_eval
    evaluator = pytrec_eval.RelevanceEvaluator({"q1": {"a": int(sys.argv[1]), "b": 1, "c": 0}},
                                               {"num_nonrel_judged_ret", "bpref"})
    print(json.dumps(evaluator.evaluate({"q1": {"a": 3.0, "b": 2.0, "x": 1.0}})["q1"]))
""")


def test_trec_eval_counts_a_negative_grade_as_unjudged():
    # trec_eval's own judged-based measures (not asked for by the adapter) tell −5 from 0: with a
    # ranked above the relevant b, grade 0 is a judged non-relevant document retrieved (1, and
    # bpref 0), grade −5 is not judged (0, and bpref 1). In a child interpreter: pytrec_eval
    # indexes arrays by grade, so negative grades are kept out of this process.
    def run(grade):
        child = subprocess.run([sys.executable, "-c", TREC_JUDGED, str(grade)], capture_output=True, text=True,
                               timeout=120)
        assert child.returncode == 0, child.stderr[-2000:]
        return json.loads(child.stdout)

    assert run(0) == {"num_nonrel_judged_ret": 1.0, "bpref": 0.0}
    assert run(-5) == {"num_nonrel_judged_ret": 0.0, "bpref": 1.0}


class Reporting(Segfaulting):
    """``evaluate``: 1.0 for each query if the cyclic garbage collector is on during the call, else 0.0, and
    under ``"after"`` whether it was on 0.3 s after the last ``evaluate_run_file`` call returned."""

    name = library = title = "reporting"
    seen_after: list[float] = []

    def evaluate(self, measures, qrels, run):
        import gc
        values = {q: float(gc.isenabled()) for q in qrels}
        values.update({"after": v for v in self.seen_after[-1:]})
        return {str(m): Outcome("ok", per_query=values, provider="test") for m in measures}

    def evaluate_run_file(self, measures, qrels, path):
        import gc
        import threading
        threading.Timer(0.3, lambda: self.seen_after.append(float(gc.isenabled()))).start()
        return {str(m): Outcome("ok", per_query={}, provider="test") for m in measures}


def test_a_call_runs_without_cyclic_collection_and_the_worker_collects_after_it(isolated):
    """A library reading a large file holds millions of new objects during one call; collecting them again and
    again cost ir-measures a third more CPU on a 2000 × 1000 run. The worker pauses the collector during a
    call and turns it back on after."""
    import time
    ref = isolated(Reporting())
    assert ref.evaluate([P1], {"q1": {"a": 1}}, {"q1": {"a": 1.0}})[str(P1)].per_query == {"q1": 0.0}
    assert ref.evaluate_run_file([P1], {"q1": {"a": 1}}, "unused")[str(P1)].status == "ok"
    time.sleep(1.0)  # the timer looks 0.3 s after that call returned, while the worker waits for the next
    assert ref.evaluate([P1], {"q1": {"a": 1}}, {"q1": {"a": 1.0}})[str(P1)].per_query == {"q1": 0.0, "after": 1.0}


def test_no_worker_starts_once_the_exit_handler_has_stopped_them(isolated, monkeypatch):
    """Calls queued for a reference run in a daemon thread, which goes on while the process exits (after
    Ctrl-C): once the exit handler has stopped the workers, a call still taken from the queue must not start
    a new one, which would outlive the audit (seen: a ranx worker, its parent gone, loading its library for
    5 s after Ctrl-C). The call is the reference's error, as when its worker dies."""
    import threading

    from audit.evaluation.references import worker
    monkeypatch.setattr(worker, "_ENDING", threading.Event())  # this test process goes on after it
    ref = isolated(Segfaulting())
    assert ref.evaluate([P1], {"q1": {"a": 1}}, {"q1": {"a": 1.0}})[str(P1)].status == "ok"
    first = ref._process
    worker._stop_all()
    assert first.poll() is not None  # stopped by the exit handler
    late = ref.evaluate([P1], {"q1": {"a": 1}}, {"q1": {"a": 1.0}})[str(P1)]
    assert late.status == "error" and "exiting" in late.detail
    assert ref._process is None  # no worker started


# --- Ctrl-C while a worker starts -------------------------------------------------------------------

CTRL_C_AT_START = textwrap.dedent("""
    import os, signal, sys, time
    from audit.evaluation.references.pytrec_eval_ref import PytrecEvalReference
    from audit.evaluation.references.worker import IsolatedReference
    from audit.measures.syntax import parse
    from audit.report.chart_worker import ChartWorker
    from audit.model.results import Check, ImplValue

    # this process plays the audit, which handles its own Ctrl-C (a handler, not SIG_IGN: an ignored signal
    # stays ignored in the programs it starts, a handled one does not)
    signal.signal(signal.SIGINT, lambda *_: None)
    chart, ref = ChartWorker(), IsolatedReference(PytrecEvalReference())
    chart.start()
    ref.start()
    pids = [chart._process.pid, ref._process.pid]
    end = time.monotonic() + 1.5
    while time.monotonic() < end:  # a terminal's Ctrl-C reaches every process of the foreground group
        for pid in pids:
            os.kill(pid, signal.SIGINT)
        time.sleep(0.005)
    alive = [chart._process.poll() is None, ref._process.poll() is None]
    check = Check(label="P@4", measure="P@4", claimed="1/4", low=0.25, high=0.3,
                  values=[ImplValue(implementation="chapter", value=0.25)])
    drawn = chart.draw("_interval_svg", check)
    p1 = parse("P@1")[0]
    outcome = ref.evaluate([p1], {"q1": {"a": 1}}, {"q1": {"a": 1.0}})[str(p1)]
    print(alive, drawn is not None and drawn.startswith("<svg"), outcome.status, outcome.per_query, flush=True)
    chart.stop()
    ref.stop()
""")


def test_ctrl_c_while_a_worker_starts_neither_kills_it_nor_prints_a_traceback():
    """Ctrl-C in a terminal sends SIGINT to the audit and to every worker it started (one process group). The
    audit handles it and ends its workers; a worker ignores it at every moment, the first milliseconds of its
    interpreter included (before it had ignored it, SIGINT there killed it with a KeyboardInterrupt traceback
    on the user's terminal). Here SIGINT is sent to a chart worker and a reference worker (pytrec_eval)
    throughout their first 1.5 s: both are still running, both answer (the chart's SVG; P@1 = 1 for a relevant
    document at rank 1, by hand), and nothing about an interrupt reaches stderr."""
    done = subprocess.run([sys.executable, "-c", CTRL_C_AT_START], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "KeyboardInterrupt" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.stdout.split("\n")[0] == "[True, True] True ok {'q1': 1.0}"


# --- memory limit -----------------------------------------------------------------------------------

class Hungry(Segfaulting):
    """A reference whose library allocates without end on a query named ``hungry``: ``raise`` lets the
    ``MemoryError`` out, ``catch`` turns it into an error outcome as the real adapters do, ``abort`` ends the
    process once an allocation fails (as numba's LLVM does: "LLVM ERROR: out of memory")."""

    name = library = title = "hungry"
    how = "raise"

    def evaluate(self, measures, qrels, run):
        if "hungry" not in qrels:
            return super().evaluate(measures, qrels, run)
        held = []
        try:
            while True:
                held.append(bytearray(b"x") * 2**24)  # 16 MB, every page written
        except MemoryError as exc:
            if self.how == "abort":
                held.clear()
                os.abort()
            if self.how == "catch":
                held.clear()
                return {str(m): Outcome("error", detail=f"{type(exc).__name__}: {exc}") for m in measures}
            raise


class HungryCatching(Hungry):
    how = "catch"


class HungryAborting(Hungry):
    how = "abort"


@pytest.mark.parametrize("inner", [Hungry, HungryCatching, HungryAborting], ids=["raises", "caught", "aborts"])
def test_a_worker_past_its_memory_limit_is_that_references_error(isolated, inner):
    """Issue 39.4: a run with one 16 KB document ID drove ranx's worker to 10.9 GB. Every worker now runs under a
    data-memory limit (RLIMIT_DATA), here 160 MB: the call that exceeds it is an error naming the limit and the
    variable that raises it (whether the library raises MemoryError, reports it, or aborts), and the next call
    runs in a fresh worker under the same limit."""
    ref = isolated(inner(), memory_mb=160)
    outcome = ref.evaluate([P1], {"hungry": {"a": 1}}, {"hungry": {"a": 1.0}})[str(P1)]
    assert outcome.status == "error" and outcome.per_query == {}
    assert "hungry" in outcome.detail and "ran out of memory (limit 160 MB" in outcome.detail, outcome.detail
    assert "CHAPTER_AUDIT_WORKER_MEMORY_MB" in outcome.detail
    after = ref.evaluate([P1], {"q1": {"a": 1}}, {"q1": {"a": 1.0}})[str(P1)]
    assert after.status == "ok" and after.per_query == {"q1": 1.0}
    assert ref._process is not None and resource_limit(ref._process.pid) == 160 * 2**20


def resource_limit(pid: int) -> int:
    """The soft RLIMIT_DATA of process ``pid``, read from /proc/<pid>/limits."""
    for line in open(f"/proc/{pid}/limits"):
        if line.startswith("Max data size"):
            return int(line.split()[3])
    raise AssertionError("no data limit listed")


def test_a_real_library_past_its_limit_is_an_error_and_the_others_answer(isolated):
    """pytrec_eval's worker under a limit below what it needs (64 MB; its interpreter, NumPy and trec_eval's
    evaluator use about 100 MB, and OpenBLAS aborts when it cannot allocate) fails with that reference's error
    naming the limit; ir-measures, under the default limit, answers the same input (P@1 = 1: the first ranked
    document is relevant)."""
    docs = {f"d{i}": float(20_000 - i) for i in range(20_000)}
    qrels, run = {"q1": {"d0": 1}}, {"q1": docs}
    tight = isolated(PytrecEvalReference(), memory_mb=64)
    roomy = isolated(IrMeasuresReference())
    failed = tight.evaluate([P1], qrels, run)[str(P1)]
    assert failed.status == "error", failed.detail
    assert "pytrec-eval-terrier ran out of memory (limit 64 MB" in failed.detail, failed.detail
    assert roomy.evaluate([P1], qrels, run)[str(P1)].per_query == {"q1": 1.0}


def test_the_limit_is_the_default_unless_the_variable_sets_it(monkeypatch):
    from audit.errors import AuditError
    from audit.evaluation import processes
    monkeypatch.delenv(processes.MEMORY_VARIABLE, raising=False)
    assert processes.memory_limit_mb() == processes.MEMORY_MB == 4096
    monkeypatch.setenv(processes.MEMORY_VARIABLE, "12000")
    assert processes.memory_limit_mb() == 12000
    # a file-reading call is given 32 MB more per MB of its files
    assert IsolatedReference(Segfaulting()).memory_limit(10.5) == 12000 + 336
    for bad in ("4G", "-1", "10", "", "１２"):
        monkeypatch.setenv(processes.MEMORY_VARIABLE, bad)
        if bad == "":
            assert processes.memory_limit_mb() == 4096
            continue
        with pytest.raises(AuditError, match="CHAPTER_AUDIT_WORKER_MEMORY_MB"):
            processes.memory_limit_mb()


def test_a_reference_out_of_memory_in_an_audit_supports_no_verdict(tmp_path, monkeypatch):
    """In an audit, pytrec_eval's worker out of memory (its limit set to 64 MB for this test) makes its value an error
    naming the limit; the claim (P@4 = 1/4 for one relevant document of four ranked, by hand) is not called
    supported on the other references alone, and the audit ends normally with its report."""
    from audit.cli import main
    from audit.evaluation.references import all_references
    folder = tmp_path / "ch"
    folder.mkdir()
    (folder / "chapter.yaml").write_text("id: ch\ntitle: Memory\nconventions: {precision_denominator: k}\n",
                                         encoding="utf-8")
    (folder / "snapshot.txt").write_text("At cutoff four, a single relevant result gives P@4 = 1/4.\n",
                                         encoding="utf-8")
    (folder / "claims.yaml").write_text(textwrap.dedent("""\
        fixtures:
          one-hit:
            qrels: {q1: {a: 1, b: 0, c: 0, d: 0}}
            run: {q1: [a, b, c, d]}
        claims:
          - id: C1
            title: one hit
            kind: value
            quote: "a single relevant result gives P@4 = 1/4"
            claim: P@4 = 1/4 for one hit.
            fixture: one-hit
            expect:
              - {measure: "P@4", claimed: "1/4"}
        """), encoding="utf-8")
    [pytrec] = [r for r in all_references() if r.name == "pytrec_eval"]
    monkeypatch.setattr(pytrec, "memory_mb", 64)
    monkeypatch.setenv("CHAPTER_AUDIT_CACHE", str(tmp_path / "cache"))
    # a worker started by an earlier test of this process already holds its heap, and a small call may then fit under
    # any limit: the audit starts pytrec_eval's worker afresh, under the test's limit, and the next test afresh again
    pytrec.stop()
    try:
        code = main(["run", str(folder), "--reports", str(tmp_path / "reports"), "--quiet", "--no-cache"])
    finally:
        pytrec.stop()
    report = json.loads((tmp_path / "reports" / "ch.json").read_text(encoding="utf-8"))
    [result] = report["claims"]
    values = {v["implementation"]: v for check in result["checks"] for v in check["values"]}
    assert values["pytrec_eval"]["status"] == "error", values["pytrec_eval"]
    assert "ran out of memory (limit 64 MB" in json.dumps(values["pytrec_eval"])
    assert values["ranx"]["status"] == "ok" and values["ranx"]["value"] == 0.25
    assert result["verdict"] != "supported", (result["verdict"], result["reason"])
    assert code in (0, 1), code
