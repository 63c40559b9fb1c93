"""The cross-check's large-input path gives what the whole-file path gives: the run read one query at a
time (and whole when its queries are not grouped), only differing queries read again, the ranking ordered
once per query for every measure, and each library's reader verdicts taken from its own evaluation."""

from __future__ import annotations

import random
from pathlib import Path

import ir_measures
import pytest

from audit.attribution.crosscheck import _chapter_order, _chapter_query, _chapter_values, _read_run, _ties, crosscheck
from audit.attribution.trec_files import read_trec
from audit.errors import AuditError
from audit.evaluation import evaluator
from audit.evaluation.references import all_references
from audit.model.files import open_regular
from audit.measures.syntax import parse as parse_measure

MEASURES = ["P@2", "R@3", "RR", "AP", "nDCG@3", "SetP"]
QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 d 1\nq2 0 e -1\nq3 0 f 1\n"
# comments, a blank line, CRLF, extra fields, a repeated docno (q2's d), a NaN and an infinite score
RUN = ("# a comment\nq1 Q0 a 1 2.0 r\r\nq1 Q0 b 2 2.0 r extra\n\nq1 Q0 c 3 1.5 r\nq1 Q0 x 4 nan r\n"
       "q2 Q0 d 1 3.0 r\nq2 Q0 e 2 -inf r\nq2 Q0 d 3 1.0 r\nq9 Q0 z 1 1.0 r\nq3 Q0 f 1 0.5 r\nq3 Q0 g 2 0.5 r\n")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def specs() -> dict:
    return {m: parse_measure(m, True)[1] for m in MEASURES}


def whole_file_values(qrels: dict, run_path: Path) -> tuple[dict, list]:
    """The chapter's values as computed before the one-query-at-a-time reading: read_trec, then
    _chapter_values on every shared query, queries repeating a docno left out."""
    whole = read_trec(run_path, "run", check_readers=False)
    repeated = {i.text.split()[0] for i in whole.issues if i.cause.startswith("repeats")}
    common = {q: docs for q, docs in whole.data.items() if q in qrels}
    values = _chapter_values(MEASURES, qrels, common, whole.order, repeated)
    return {m: v[0] for m, v in values.items() if v[2] == "ok"}, whole.issues


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "not grouped"])
def test_reading_one_query_at_a_time_gives_the_whole_file_values_and_issues(tmp_path, grouped):
    qrels = read_trec(write(tmp_path, "qrels", QRELS), "qrels", check_readers=False).data
    text = RUN if grouped else RUN + "q1 Q0 late 5 0.1 r\n"  # q1 comes back after q3: read whole
    run_path = write(tmp_path, "run", text)
    expected, issues = whole_file_values(qrels, run_path)
    with open_regular(run_path, "run file") as handle:
        read = _read_run(handle, run_path, qrels, specs())
    assert read.chapter == expected
    assert [(i.line, i.cause, i.text) for i in read.issues] == [(i.line, i.cause, i.text) for i in issues]
    assert read.queries == ["q1", "q2", "q9", "q3"] and "q2" not in read.chapter["AP"]  # q2 repeats d
    assert (read.whole is None) == grouped
    # what the experiments read again is exactly read_trec's reading of those queries
    whole = read_trec(run_path, "run", check_readers=False)
    again, order = read.rankings(["q1", "q2", "q4"])
    # repr: a NaN score is not equal to itself; repr also holds the dicts' order
    assert repr(again) == repr({q: whole.data[q] for q in ("q1", "q2")})
    assert order == {q: whole.order[q] for q in ("q1", "q2")}


def test_one_sort_per_query_is_the_chapter_order_for_every_measure():
    """_chapter_query orders the ranking once (a stable descending sort); the values are
    evaluate_query's on _chapter_order's ranking (score descending, ties in file order), ties and
    NaN scores included."""
    rng = random.Random(3)
    chosen = [s for s in specs().values() if s is not None]
    for _ in range(300):
        docs = [f"d{i}" for i in range(rng.randint(1, 12))]
        rng.shuffle(docs)
        scores = {d: rng.choice([1.0, 2.0, 2.0, 0.5, -0.0, 0.0, float("inf"), float("nan")]) for d in docs}
        judgements = {d: rng.choice([0, 1, 2]) for d in rng.sample(docs, rng.randint(0, len(docs)))}
        ranking = _chapter_order(scores, docs)
        assert _chapter_query(chosen, judgements, scores, docs) == [
            float(evaluator.evaluate_query(s, judgements, ranking)) for s in chosen]


def test_ties_in_double_and_single_precision():
    # 0.1 and 0.1 + 2**-40 differ as doubles and are equal as 32-bit floats (float32 keeps 24 bits)
    assert _ties({"a": 1.0, "b": 1.0}) == (True, False)
    assert _ties({"a": 0.1, "b": 0.1 + 2**-40}) == (False, True)
    assert _ties({"a": 1.0, "b": 2.0}) == (False, False)


def test_each_library_reader_verdict_comes_with_its_evaluation(tmp_path):
    """A run repeating docno a: pytrec_eval.parse_run fails an assertion on it (the existing
    "rejected" test), ir-measures and ranx read it. Each evaluate_files outcome carries both verdicts,
    the same words as a reader asked about the file alone."""
    qrels = write(tmp_path, "qrels", "q1 0 a 1\nq1 0 b 0\n")
    run = write(tmp_path, "run", "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 a 3 1 t\n")
    measure = ir_measures.parse_measure("RR")
    for ref in all_references():
        (outcome,) = ref.evaluate_files([measure], str(qrels), str(run)).values()
        assert outcome.readers == {"qrels": ref.reader_verdict(str(qrels), "qrels"),
                                   "run": ref.reader_verdict(str(run), "run")}
        assert outcome.readers["qrels"] == "reads it"
        if ref.name == "pytrec_eval":
            assert outcome.status == "rejected"
            assert outcome.readers["run"] == "rejects it (its reader fails an assertion)"
        else:
            assert outcome.status == "ok" and outcome.readers["run"] == "reads it"


def test_the_report_carries_the_verdicts_of_the_evaluation_itself(tmp_path):
    qrels = write(tmp_path, "qrels", "q1 0 a 1\nq1 0 b 0\n")
    run = write(tmp_path, "run", "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 a 3 1 t\n")
    report = crosscheck(qrels, [run], ["RR"], all_references())
    assert report.qrels_readers == {"pytrec_eval": "reads it", "ir_measures": "reads it", "ranx": "reads it"}
    assert report.runs[0].readers == {"pytrec_eval": "rejects it (its reader fails an assertion)",
                                      "ir_measures": "reads it", "ranx": "reads it"}
    assert crosscheck(qrels, [run], ["RR"], all_references(), check_readers=False).runs[0].readers == {}


@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_reading_in_pieces_cuts_no_line(tmp_path, monkeypatch, chunk):
    """Files are read in pieces of CHUNK bytes cut after a newline; with tiny pieces (every line cut
    across several reads) the values, issues and line numbers are those of one whole piece."""
    import audit.attribution.trec_files as trec_files

    qrels = read_trec(write(tmp_path, "qrels", QRELS), "qrels", check_readers=False).data
    run_path = write(tmp_path, "run", RUN.replace("q3 Q0 g", "q3 Q0 gé"))  # a non-ASCII docno
    with open_regular(run_path, "run file") as handle:
        whole = _read_run(handle, run_path, qrels, specs())
    monkeypatch.setattr(trec_files, "CHUNK", chunk)
    with open_regular(run_path, "run file") as handle:
        pieces = _read_run(handle, run_path, qrels, specs())
    assert pieces.chapter == whole.chapter and pieces.spans == whole.spans
    assert [(i.line, i.cause) for i in pieces.issues] == [(i.line, i.cause) for i in whole.issues]
    assert "gé" in pieces.rankings(["q3"])[0]["q3"]
    bad = write(tmp_path, "bad", RUN.replace("q3 Q0 f 1", "q3 Q0 f\x00 1"))
    with pytest.raises(AuditError, match="line 11 holds a NUL byte"):
        read_trec(bad, "run", check_readers=False)


@pytest.mark.parametrize("path_taken", ["whole", "one query at a time", "read again"])
def test_a_docno_repeated_many_times_is_read_in_linear_time(tmp_path, path_taken):
    """A run of one query listing 30,000 docnos and then repeating the first 30,000 times: each repeat moves the
    docno to the end of the file order (the last line is used, as ir-measures and ranx do). Each move scanned the
    whole order list (30,000 × 30,000 steps, about 40 s); now each is one step. The order is the file's with d0
    last, its score the last line's (0.5)."""
    import time

    from audit.attribution.crosscheck import _chapter_specs
    from audit.attribution.trec_files import _reread
    n = 30_000
    text = "".join(f"q1 Q0 d{i} {i + 1} {n - i} r\n" for i in range(n)) + \
        "".join(f"q1 Q0 d0 {n + i + 1} 0.5 r\n" for i in range(n))
    path = write(tmp_path, "run", text)
    started = time.perf_counter()
    if path_taken == "whole":
        read = read_trec(path, "run", check_readers=False)
        order, score = read.order["q1"], read.data["q1"]["d0"]
    elif path_taken == "one query at a time":
        with open_regular(path, "run file") as handle:
            run_read = _read_run(handle, path, {"q1": {"d0": 1}}, _chapter_specs(["P@2"]))
        run, orders = run_read.rankings(["q1"])
        order, score = orders["q1"], run["q1"]["d0"]
    else:
        run, orders = _reread(path, {"q1": (0, len(text))})
        order, score = orders["q1"], run["q1"]["d0"]
    elapsed = time.perf_counter() - started
    assert order == [f"d{i}" for i in range(1, n)] + ["d0"] and score == 0.5
    assert elapsed < 10, f"{elapsed:.1f} s"
