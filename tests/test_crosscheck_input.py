"""audit crosscheck: malformed TREC input stops with the file and line (exit 3), bad measure names
are usage errors (exit 2), and one run's problem does not cost the other runs their report.

Inline two-line files; each test changes one thing. Exit codes are audit/cli.py's.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from audit.attribution.trec_files import read_trec
from audit.cli import EXIT_INPUT, EXIT_OK, EXIT_USAGE, main
from audit.errors import AuditError

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"
RUN = "q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\nq2 Q0 c 1 1.0 r\n"


def files(tmp_path: Path, qrels: str | bytes = QRELS, run: str | bytes = RUN) -> tuple[Path, Path]:
    q, r = tmp_path / "qrels", tmp_path / "run"
    for path, text in ((q, qrels), (r, run)):
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return q, r


def crosscheck(tmp_path: Path, qrels: Path, *runs: Path, measures: str = "P@2 RR") -> int:
    args = ["crosscheck", "--qrels", str(qrels), "--measures", measures, "--out", str(tmp_path / "out")]
    for run in runs:
        args += ["--run", str(run)]
    return main(args)


@pytest.mark.parametrize("grade", ["0.5", "1.0", "inf", "1e400", "nan"])
def test_non_integer_grade_is_refused_with_file_and_line(tmp_path, capsys, grade):
    # 0.5 was truncated to 0 and evaluated; inf and 1e400 raised OverflowError. The README
    # promises that malformed input stops.
    qrels, run = files(tmp_path, qrels=QRELS.replace("q2 0 c 2", f"q2 0 c {grade}"))
    assert crosscheck(tmp_path, qrels, run) == EXIT_INPUT
    err = capsys.readouterr().err
    assert str(qrels) in err and "line 3" in err and "not a whole number" in err and "Traceback" not in err


def test_grade_past_the_limit_is_refused(tmp_path, capsys):
    # 2**31 wraps in trec_eval's C int (it returned 0, reported as a denominator convention).
    qrels, run = files(tmp_path, qrels=QRELS.replace("q2 0 c 2", f"q2 0 c {2**31}"))
    assert crosscheck(tmp_path, qrels, run) == EXIT_INPUT
    assert "line 3" in capsys.readouterr().err


def test_repeated_qrels_pair_is_reported_not_crashed_on(tmp_path):
    # Once ValueError (exit 4): the qrels reader removed the doc from a run-only list.
    qrels, run = files(tmp_path, qrels=QRELS + "q1 0 a 0\n")
    read = read_trec(qrels, "qrels", check_readers=False)
    assert [(i.line, i.cause.split(";")[0]) for i in read.issues] == [(4, "repeats document a of query q1 (line 1)")]
    assert read.data["q1"]["a"] == 0  # the last line is used, as ir-measures and ranx do
    assert crosscheck(tmp_path, qrels, run) == EXIT_OK


@pytest.mark.parametrize("score, word", [("nan", "NaN"), ("inf", "infinite"), ("-inf", "infinite")])
def test_non_finite_scores_are_named(tmp_path, score, word):
    qrels, run = files(tmp_path, run=RUN.replace("q1 Q0 a 1 2.0 r", f"q1 Q0 a 1 {score} r"))
    read = read_trec(run, "run", check_readers=False)
    assert [(i.line, i.cause) for i in read.issues] == [(1, f"score {score} is {word} (not a finite number)")]


def test_nan_score_disagreement_is_put_down_to_the_nan(tmp_path):
    # With a NaN score on the relevant a, the chapter keeps file order (RR = 1 on q1) while the
    # three libraries put a after b (RR = 1/2), observed: the cause is named as the NaN, once "a
    # difference of definition".
    qrels, run = files(tmp_path, run=RUN.replace("q1 Q0 a 1 2.0 r", "q1 Q0 a 1 nan r"))
    assert crosscheck(tmp_path, qrels, run, measures="RR") == EXIT_OK
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    (rr,) = report["runs"][0]["measures"]
    assert rr["differing_queries"] == ["q1"]
    assert [(c["cause"], c["queries"]) for c in rr["causes"]] == [("NaN or infinite scores", ["q1"])]


@pytest.mark.parametrize("content, says", [
    (QRELS.encode("utf-16"), "UTF-16"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00", "binary"),
    (b"q1 0 \xe9\xff 1\n", "not UTF-8"),
], ids=["utf-16", "binary", "latin-1"])
def test_binary_or_utf16_qrels_refused(tmp_path, capsys, content, says):
    # Once UnicodeDecodeError (exit 4).
    qrels, run = files(tmp_path, qrels=content)
    assert crosscheck(tmp_path, qrels, run) == EXIT_INPUT
    err = capsys.readouterr().err
    assert str(qrels) in err and says in err and "Traceback" not in err


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_fifo_refused_without_blocking(tmp_path, capsys, which):
    qrels, run = files(tmp_path)
    target = qrels if which == "qrels" else run
    target.unlink()
    os.mkfifo(target)
    started = time.monotonic()
    assert crosscheck(tmp_path, qrels, run) == EXIT_INPUT
    assert time.monotonic() - started < 30
    assert f"the {which} file is a FIFO" in capsys.readouterr().err


@pytest.mark.parametrize("measure", ["SetP@4", "nDCG(lvl=2)", "NoSuchMeasure@3"])
def test_bad_measure_is_a_usage_error(tmp_path, capsys, measure):
    # SetP@4 raised AssertionError and an unknown parameter KeyError (exit 4).
    qrels, run = files(tmp_path)
    assert crosscheck(tmp_path, qrels, run, measures=measure) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "--measures" in err and "Traceback" not in err
    assert not (tmp_path / "out.json").exists()


def test_a_run_sharing_no_query_does_not_abort_the_other(tmp_path, capsys):
    qrels, run = files(tmp_path)
    other = tmp_path / "other"
    other.write_text("zz Q0 a 1 2.0 r\n", encoding="utf-8")
    assert crosscheck(tmp_path, qrels, other, run) == EXIT_INPUT
    assert "shares no query with the qrels" in capsys.readouterr().err
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    first, second = report["runs"]
    assert first["error"] and first["measures"] == []
    assert not second["error"] and [m["measure"] for m in second["measures"]] == ["P@2", "RR"]
    assert "Not evaluated: the run shares no query" in (tmp_path / "out.md").read_text(encoding="utf-8")


def test_long_malformed_line_is_trimmed_in_the_error(tmp_path):
    qrels, _ = files(tmp_path, qrels="q1 " + "x" * 4000 + "\n")
    with pytest.raises(AuditError) as info:
        read_trec(qrels, "qrels", check_readers=False)
    assert "line 1 has 2 fields" in str(info.value) and len(str(info.value)) < 400


def test_libraries_called_as_their_users_call_them_show_their_own_missing_topic_rule(tmp_path):
    """Four judged queries, a run lacking q4, P@1 = 1 on the other three. Given the files, trec_eval
    (pytrec_eval's readers) leaves q4 out → 1.0; ir-measures and ranx (make_comparable) score it 0 → 0.75.
    The difference is attributed to the missing topic, with each library's rule, not hidden."""
    from audit.attribution.crosscheck import crosscheck as run_crosscheck
    from audit.evaluation.references import all_references

    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\nq2 0 c 1\nq3 0 e 1\nq4 0 g 1\n", encoding="utf-8")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 a 1 3 t\nq2 Q0 c 1 3 t\nq3 Q0 e 1 3 t\n", encoding="utf-8")
    report = run_crosscheck(qrels, [run], ["P@1"], all_references(), check_readers=False)
    (m,) = report.runs[0].measures
    means = {x.implementation: x.mean for x in m.means}
    assert means == {"chapter": 1.0, "pytrec_eval": 1.0, "ir_measures": 0.75, "ranx": 0.75}
    assert m.differing_queries == ["q4"]
    (cause,) = m.causes
    assert cause.cause == "judged queries missing from the run" and cause.explains is True
    assert "pytrec_eval leaves them out" in cause.detail and "ranx scores them 0" in cause.detail


def test_a_reader_that_rejects_the_file_shows_rejected_not_a_number(tmp_path):
    """A run repeating docno a for q1: trec_eval's reader (pytrec_eval.parse_run) refuses the file, so its
    column is "rejected"; ir-measures and ranx keep the last line."""
    from audit.attribution.crosscheck import crosscheck as run_crosscheck
    from audit.evaluation.references import all_references

    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n", encoding="utf-8")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 a 3 1 t\n", encoding="utf-8")
    report = run_crosscheck(qrels, [run], ["RR"], all_references(), check_readers=False)
    (m,) = report.runs[0].measures
    status = {x.implementation: (x.status, x.mean) for x in m.means}
    assert status["pytrec_eval"] == ("rejected", None)
    assert status["ir_measures"] == ("ok", 0.5) and status["ranx"] == ("ok", 0.5)  # last line: b (2) before a (1)
    # trec_eval's defaults reject a repeated docno, so the chapter's column has no value, not a 0
    assert status["chapter"] == ("left out", None)


def test_a_byte_order_mark_is_named_and_its_id_shown_escaped(tmp_path):
    """A file saved with a UTF-8 byte-order mark: every reader keeps U+FEFF as part of the first query ID, so
    '\\ufeffq1' and 'q1' are two queries, one of them invisible in a report. The mark is named on line 1, and the
    IDs with it are shown escaped. (What each library's own reader does is checked here too, as the message
    says.)"""
    from audit.attribution.trec_files import shown_id
    from audit.evaluation.references.ir_measures_ref import IrMeasuresReference
    from audit.evaluation.references.pytrec_eval_ref import PytrecEvalReference
    from audit.evaluation.references.ranx_ref import RanxReference
    qrels, run = files(tmp_path, qrels="\ufeff" + QRELS)
    read = read_trec(qrels, "qrels", check_readers=False)
    assert sorted(read.data) == ["q1", "q2", "\ufeffq1"]
    assert [(i.line, i.cause) for i in read.issues] == [
        (1, 'the file starts with a UTF-8 byte-order mark (U+FEFF), which every reader here keeps as part of the '
            'first ID: "\\ufeffq1" is not q1')]
    for ref in (PytrecEvalReference(), IrMeasuresReference(), RanxReference()):
        libraries = ref.read_file(str(qrels), "qrels")
        ids = set(libraries) if isinstance(libraries, dict) else set(libraries.keys())
        assert "\ufeffq1" in ids, ref.name
    assert shown_id("q1") == "q1" and shown_id("\ufeffq1") == '"\\ufeffq1"' and shown_id("a\u200bb") == '"a\\u200bb"'
    assert crosscheck(tmp_path, qrels, run) == EXIT_OK
    written = (tmp_path / "out.md").read_text(encoding="utf-8")
    # as Markdown source: the backslash escaped, so the page shows "\ufeffq1" (an ID's text is never markup)
    assert 'Queries judged but absent from the run: "\\\\ufeffq1"' in written


@pytest.mark.parametrize("qrels_text, run_text", [
    (QRELS, RUN),                                              # both read
    (QRELS, RUN + "q2 Q0 d 2\n"),                              # the run's reader fails on its last line
    (QRELS, "q1 Q0 a 1 x r\n" + RUN),                          # ... on its first line
    (QRELS.replace("q1 0 a 1", "q1 0 a one"), RUN),            # the qrels' reader fails; the run still read
    (QRELS.replace("q1 0 a 1", "q1 0 a one"), RUN + "bad\n"),  # both fail
    (QRELS, ""),                                               # an empty run
])
def test_ir_measures_streams_the_run_with_the_same_outcomes_as_reading_it_whole(tmp_path, qrels_text, run_text):
    """ir-measures' run reader feeds its provider directly (no list of scored documents is held); every outcome
    and both readers' verdicts are those of reading the run whole first (``read_both``, the path for measures
    of several providers), which calls the same readers."""
    from audit.evaluation.references.base import reader_rejected, with_readers
    from audit.evaluation.references.ir_measures_ref import IrMeasuresReference
    from audit.measures.syntax import parse
    qrels, run = files(tmp_path, qrels=qrels_text, run=run_text)
    ref = IrMeasuresReference()
    measures = [parse(m)[0] for m in ("P@2", "RR", "nDCG@2")]
    streamed = ref.evaluate_files(measures, str(qrels), str(run))
    read, scored, readers, refusal = ref.read_both(str(qrels), str(run))
    whole = (reader_rejected(measures, refusal[1], "ir_measures", refusal[0], readers) if refusal
             else with_readers(ref.evaluate(measures, read, scored), readers))
    assert streamed == whole
    assert set(streamed) == {"P@2", "RR", "nDCG@2"}


def test_a_levelled_ndcg_is_cross_checked_where_a_reference_computes_it(tmp_path, capsys):
    """nDCG(rel=2)@k is ranx's ndcg@k-l2 (grades below 2 give no gain); it failed with "KeyError: 'rel'" in
    ir-measures' parser. trec_eval's ndcg keeps every grade, so trec_eval and ir-measures show it as not
    applicable; the run is cross-checked, not refused."""
    qrels, run = files(tmp_path, "q1 0 a 1\nq1 0 b 2\n", "q1 Q0 a 1 2.0 r\nq1 Q0 b 2 1.0 r\n")
    assert crosscheck(tmp_path, qrels, run, measures="nDCG(rel=2)@2") == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert "nDCG(rel=2)@2" in json.dumps(report)


class _Counting:
    """A binary file that counts the bytes read from it."""

    def __init__(self, data: bytes) -> None:
        import io
        self._io, self.read_bytes = io.BytesIO(data), 0

    def read(self, n: int = -1) -> bytes:
        out = self._io.read(n)
        self.read_bytes += len(out)
        return out


@pytest.mark.parametrize("data, says", [
    (b"\x00" * (40 * 2**20), "line 1 holds a NUL byte"),                          # 40 MB of NUL, no newline
    (b"q1 Q0 d1 1 1.0 t\n" + b"x" * (40 * 2**20), "line 2 is longer than 1,048,576 bytes"),
])
def test_a_line_past_the_limit_is_refused_without_reading_the_file_to_its_end(data, says):
    """A NUL-only file, or one line of 40 MB, under the 1 GB run limit: refused at the first chunk (8 MB), not read
    whole into memory first."""
    from audit.attribution.trec_files import CHUNK, _lines
    handle = _Counting(data)
    with pytest.raises(AuditError) as caught:
        for _ in _lines(handle, Path("run.txt"), "run"):
            pass
    assert says in caught.value.message
    assert handle.read_bytes <= CHUNK


LONG = "d" * 1_001


@pytest.mark.parametrize("which, where, field", [
    ("run", "q1 Q0 b 2 1.0 r", "document ID (field 3)"),                   # the run read one query at a time
    ("run", "q2 Q0 c 1 1.0 r", "document ID (field 3)"),                   # the first line of a query's block
    ("run", "q1 Q0 a 1 2.0 r", "query ID (field 1)"),
    ("qrels", "q1 0 b 0", "document ID (field 3)"),
    ("qrels", "q2 0 c 2", "query ID (field 1)"),
])
def test_an_id_past_the_length_limit_is_refused_with_file_line_and_field(tmp_path, capsys, which, where, field):
    """Issue 39.4: one 16 KB docno in a run drove ranx's worker past 10 GB (it holds every ID in one array as wide
    as the longest). An ID longer than limits.MAX_ID_CHARS (1,000) stops the cross-check with the file, the line
    and the field, before any verdict; the line's number is its place in the file (RUN and QRELS above)."""
    wrong = where.replace(" b ", f" {LONG} ").replace(" c ", f" {LONG} ") if "ID (field 3)" in field else \
        where.replace(where.split()[0], LONG, 1)
    qrels, run = files(tmp_path, **{which: (QRELS if which == "qrels" else RUN).replace(where, wrong)})
    assert crosscheck(tmp_path, qrels, run) == EXIT_INPUT
    err = capsys.readouterr().err
    line = (QRELS if which == "qrels" else RUN).split("\n").index(where) + 1
    assert str(qrels if which == "qrels" else run) in err and f"line {line}:" in err and field in err, err
    assert "1,001 characters long, more than the limit of 1,000" in err and "Traceback" not in err
    assert not (tmp_path / "out.json").exists()


def test_ids_of_1000_characters_are_read(tmp_path):
    """The limit itself is allowed: a qrels and a run whose IDs are 1,000 characters long are read, in file order,
    by each path (the qrels' plain lines, the run one query at a time, the run read whole)."""
    from audit.attribution import crosscheck as module
    at = "d" * 1_000
    qrels, run = files(tmp_path, qrels=QRELS.replace(" a ", f" {at} "), run=RUN.replace(" a ", f" {at} "))
    assert read_trec(qrels, "qrels", check_readers=False).data["q1"] == {at: 1, "b": 0}
    assert read_trec(run, "run", check_readers=False).order["q1"] == [at, "b"]
    with open(run, "rb") as handle:
        read = module._read_run(handle, run, {"q1": {at: 1, "b": 0}}, module._chapter_specs(["P@2"]))
    assert read.queries == ["q1", "q2"] and read.chapter["P@2"]["q1"] == 0.5  # P@2: one relevant of two


@pytest.mark.parametrize("which", ["qrels", "run", "run not grouped"])
def test_a_query_past_the_documents_limit_is_refused_with_the_line(tmp_path, monkeypatch, which):
    """A query with more than limits.MAX_DOCS_PER_QUERY documents (set to 3 here) stops the reading at the line
    of its fourth document, naming the file and the query, whichever path reads it (a qrels, a run read one
    query at a time, a run whose queries are not grouped and is read whole)."""
    from audit.attribution import crosscheck as module
    from audit.attribution import trec_files
    monkeypatch.setattr(trec_files, "MAX_DOCS_PER_QUERY", 3)
    if which == "qrels":
        text = "".join(f"q1 0 d{i} 1\n" for i in range(5))
    else:
        text = "".join(f"q1 Q0 d{i} {i + 1} {9 - i} r\n" for i in range(5))
        if which == "run not grouped":
            text = "q1 Q0 x 1 10 r\nq2 Q0 y 1 1 r\n" + text
    path = tmp_path / "file"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(AuditError) as caught:
        if which == "qrels":
            read_trec(path, "qrels", check_readers=False)
        else:
            with open(path, "rb") as handle:
                module._read_run(handle, path, {"q1": {"d0": 1}}, module._chapter_specs(["P@2"]))
    line = 4 if which != "run not grouped" else 5  # q1's fourth document (x, d0, d1, d2 before it when not grouped)
    assert f"line {line}: query q1 has more than 3 documents" in caught.value.message, caught.value.message
    assert caught.value.file == str(path)
    # three documents a query are read
    path.write_text(text.replace("d3", "d1").replace("d4", "d2") if which == "qrels" else
                    "".join(f"q1 Q0 d{i} {i + 1} {9 - i} r\n" for i in range(3)), encoding="utf-8")
    assert len(read_trec(path, which.split()[0], check_readers=False).data["q1"]) == 3
