"""audit crosscheck on inputs where the implementations do not all return a number: a file every library's reader
rejects, a NaN, a query one library leaves out, grades past the register's ±100, a repeated docno. The report
never reads as agreement ("0 queries differing, largest difference 0") where an implementation gave no number.

Each expected value comes from calling the libraries directly (as noted at each test) or from the chapter's
definitions worked by hand. Inline files; each test changes one thing.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest

from audit.cli import EXIT_INPUT, EXIT_OK, main

RUN4 = "q1 Q0 a 1 2.0 run\nq1 Q0 b 2 1.0 run\nq2 Q0 c 1 2.0 run\nq2 Q0 d 2 1.0 run\n"
QRELS4 = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 0\n"


def write(tmp_path: Path, qrels: str, run: str) -> tuple[Path, Path]:
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(qrels, encoding="utf-8")
    r.write_text(run, encoding="utf-8")
    return q, r


def crosscheck(tmp_path: Path, qrels: Path, run: Path, measures: str) -> tuple[int, dict, str]:
    """Exit code, the JSON report's measures by name, and the Markdown report."""
    code = main(["crosscheck", "--qrels", str(qrels), "--run", str(run), "--measures", measures,
                 "--out", str(tmp_path / "out")])
    if code != EXIT_OK:
        return code, {}, ""
    report = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    measures_ = {m["measure"]: m for m in report["runs"][0]["measures"]}
    return code, measures_, (tmp_path / "out.md").read_text(encoding="utf-8")


def means(m: dict) -> dict:
    return {x["implementation"]: x["mean"] if x["status"] == "ok" else x["status"] for x in m["means"]}


def row(markdown: str, measure: str) -> str:
    return next(line for line in markdown.splitlines() if line.startswith(f"| {measure} |"))


def library_readers(run: Path) -> dict[str, str]:
    """What each library's own run reader does with the file, called directly as its users call it."""
    import ir_measures
    import pytrec_eval
    import ranx

    out = {}
    for name, read in (("pytrec_eval", lambda: pytrec_eval.parse_run(open(run, encoding="utf-8"))),
                       ("ir_measures", lambda: list(ir_measures.read_trec_run(str(run)))),
                       ("ranx", lambda: ranx.Run.from_file(str(run), kind="trec"))):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                read()
            out[name] = "reads"
        except Exception as exc:
            out[name] = type(exc).__name__
    return out


# (a) --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("run_text", [
    RUN4.replace("q1 Q0 b 2 1.0 run\n", "q1 Q0 b 2 1.0 run extra\n"),   # line 2: 7 fields
    "# a comment line\n" + RUN4,                                          # line 1: a comment
], ids=["seven fields", "comment line"])
def test_a_file_every_library_rejects_is_a_difference_on_every_query(tmp_path, run_text):
    """One rule for every line the libraries' readers refuse and the chapter reads by its own rules (extra fields
    ignored, comment lines skipped, as trec_eval 10.0 does: out.test.aqc is its output on results.trunc, whose lines
    have 7-9 fields): each library shows "rejected", and since no library gives a number, every query the chapter
    scores differs — once the table read "queries differing 0 | largest difference 0" beside three "rejected".
    pytrec_eval.parse_run, ir_measures.read_trec_run and ranx.Run.from_file each raise ValueError on both files
    (called directly below). The chapter's P@2 is 1/2 on q1 and on q2 (one relevant document of two)."""
    qrels, run = write(tmp_path, QRELS4, run_text)
    assert library_readers(run) == {"pytrec_eval": "ValueError", "ir_measures": "ValueError", "ranx": "ValueError"}
    code, by_measure, markdown = crosscheck(tmp_path, qrels, run, "P@2")
    assert code == EXIT_OK
    p2 = by_measure["P@2"]
    assert means(p2) == {"chapter": 0.5, "pytrec_eval": "rejected", "ir_measures": "rejected", "ranx": "rejected"}
    assert p2["differing_queries"] == ["q1", "q2"]
    assert (p2["largest_kind"], p2["largest_difference"], p2["largest_query"]) == ("no value vs scored", None, "q1")
    assert p2["largest_values"] == {"chapter": 0.5, "pytrec_eval": "rejected", "ir_measures": "rejected",
                                    "ranx": "rejected"}
    assert row(markdown, "P@2") == ("| P@2 | — | 0.5000 | rejected | rejected | rejected | 2 | rejected vs 0.5 (query q1: "
                                    "chapter 0.500000, pytrec_eval rejected, ir_measures rejected, ranx rejected) |")
    (cause,) = p2["causes"]
    assert cause["cause"] == "rejected by pytrec_eval, ir_measures, ranx" and cause["queries"] == ["q1", "q2"]
    assert "its run reader refuses the file (ValueError" in cause["detail"]
    assert ("line 2: 7 fields (extra ones ignored)" if "extra" in run_text else "line 1: comment line") \
        in cause["detail"]


# (b) --------------------------------------------------------------------------------------------------------

def test_a_nan_against_a_number_is_a_difference_with_its_cause(tmp_path):
    """Bpref on q1, which has no judged non-relevant document. Called directly: ranx.evaluate(..., "bpref",
    return_mean=False, make_comparable=True) returns [nan, 1.0] (it divides by min(|R|, |N|) = 0); pytrec_eval and
    ir-measures (trec_eval's bpref) give 1.0 on both queries; the chapter's bpref is 1 on each (one relevant
    document, retrieved with no judged non-relevant above it). Once the row read "... | nan | 0 | 0 |", no cause."""
    qrels, run = write(tmp_path, "q1 0 a 1\nq2 0 c 1\nq2 0 d 0\n", RUN4)
    code, by_measure, markdown = crosscheck(tmp_path, qrels, run, "Bpref")
    assert code == EXIT_OK
    bpref = by_measure["Bpref"]
    assert means(bpref) == {"chapter": 1.0, "pytrec_eval": 1.0, "ir_measures": 1.0, "ranx": "NaN"}  # JSON: "NaN"
    assert bpref["differing_queries"] == ["q1"]
    assert (bpref["largest_kind"], bpref["largest_difference"]) == ("NaN vs a number", None)
    assert bpref["largest_values"] == {"chapter": 1.0, "pytrec_eval": 1.0, "ir_measures": 1.0, "ranx": "NaN"}
    assert row(markdown, "Bpref") == ("| Bpref | — | 1.0000 | 1.0000 | 1.0000 | nan | 1 | nan vs 1 (query q1: chapter "
                                      "1.000000, pytrec_eval 1.000000, ir_measures 1.000000, ranx nan) |")
    # causes.py's input rewrite adds a judged non-relevant document, never retrieved, to q1: ranx then gives 1.0
    (cause,) = bpref["causes"]
    assert cause["queries"] == ["q1"] and cause["explains"] is True
    assert "no judged non-relevant document" in cause["cause"] and "ranx gives q1: 1.0000" in cause["detail"]


# (c) --------------------------------------------------------------------------------------------------------

def test_a_query_left_out_against_one_scored_is_not_a_difference_of_0(tmp_path):
    """q2 is judged but not in the run. Called directly: pytrec_eval's evaluate returns q1 only (P_2 0.5,
    recip_rank 1.0); ir_measures.iter_calc gives q2 P@2 0.0 and RR 0.0; ranx with make_comparable=True gives
    [0.5, 0.0] and [1.0, 0.0]. The chapter (trec_eval's defaults) leaves q2 out. Once: "largest difference 0"."""
    qrels, run = write(tmp_path, QRELS4, "q1 Q0 a 1 2.0 run\nq1 Q0 b 2 1.0 run\n")
    code, by_measure, markdown = crosscheck(tmp_path, qrels, run, "P@2 RR")
    assert code == EXIT_OK
    assert means(by_measure["P@2"]) == {"chapter": 0.5, "pytrec_eval": 0.5, "ir_measures": 0.25, "ranx": 0.25}
    assert means(by_measure["RR"]) == {"chapter": 1.0, "pytrec_eval": 1.0, "ir_measures": 0.5, "ranx": 0.5}
    for name in ("P@2", "RR"):
        m = by_measure[name]
        assert m["differing_queries"] == ["q2"]
        assert (m["largest_kind"], m["largest_difference"], m["largest_query"]) == ("left out vs scored", None, "q2")
        assert m["largest_values"] == {"chapter": "left out", "pytrec_eval": "left out", "ir_measures": 0.0,
                                       "ranx": 0.0}
        assert row(markdown, name).endswith("| 1 | left out vs 0 (query q2: chapter left out, pytrec_eval left out, "
                                            "ir_measures 0.000000, ranx 0.000000) |")
        assert [c["cause"] for c in m["causes"]] == ["judged queries missing from the run"]


# (d) --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("grade", [150, 10_000])
def test_grades_past_the_register_limit_are_cross_checked(tmp_path, grade):
    """Grade 150 was refused ("outside ±100 ... trec_eval keeps grades in C ints"). Called directly, pytrec_eval,
    ir-measures and ranx give P@2 = 0.5 and nDCG@2 = 1.0 on a (grade g) then b (0), as for any positive grade:
    linear gain g / log2(2) over the ideal g / log2(2). The chapter's exact definitions agree."""
    qrels, run = write(tmp_path, f"q1 0 a {grade}\nq1 0 b 0\n", "q1 Q0 a 1 2.0 run\nq1 Q0 b 2 1.0 run\n")
    code, by_measure, _ = crosscheck(tmp_path, qrels, run, "P@2 nDCG@2")
    assert code == EXIT_OK
    assert means(by_measure["P@2"]) == dict.fromkeys(("chapter", "pytrec_eval", "ir_measures", "ranx"), 0.5)
    assert means(by_measure["nDCG@2"]) == dict.fromkeys(("chapter", "pytrec_eval", "ir_measures", "ranx"), 1.0)
    assert by_measure["nDCG@2"]["differing_queries"] == [] and by_measure["nDCG@2"]["largest_difference"] == 0.0


def test_a_large_grade_below_the_top_rank_matches_trec_eval(tmp_path):
    """b (grade 1) above a (grade 10,000): pytrec_eval's ndcg_cut_2, called directly, is 0.6309899425385623; by
    hand, (1 + 10000/log2 3) / (10000 + 1/log2 3). The chapter's definitions (50 digits) and every library agree."""
    qrels, run = write(tmp_path, "q1 0 a 10000\nq1 0 b 1\nq1 0 c 0\n",
                       "q1 Q0 b 1 3.0 run\nq1 Q0 a 2 2.0 run\nq1 Q0 c 3 1.0 run\n")
    code, by_measure, _ = crosscheck(tmp_path, qrels, run, "nDCG@2")
    assert code == EXIT_OK
    by_hand = (1 + 10000 / math.log2(3)) / (10000 + 1 / math.log2(3))
    for value in means(by_measure["nDCG@2"]).values():
        assert value == pytest.approx(0.6309899425385623, abs=1e-12) == pytest.approx(by_hand, abs=1e-12)


@pytest.mark.parametrize("grade, says", [
    (10_001, "grade 10001 is above 10,000"),
    (2**31 - 1, "is above 10,000"),          # pytrec_eval, called directly on it, crashes with SIGSEGV
    (-2**63, "is below -(2**63 - 1)"),        # ranx gives nDCG 1.58 on it; pytrec_eval refuses lower grades
    (10**50, "is above 10,000"),
])
def test_grades_the_libraries_cannot_evaluate_are_refused_with_the_line(tmp_path, capsys, grade, says):
    """Above 10,000, trec_eval's ndcg takes time growing with the square of the grade (measured through
    pytrec_eval: about 1 s a query at 100,000, over two minutes at 1,000,000); at 2**31 - 1 pytrec_eval crashes."""
    qrels, run = write(tmp_path, f"q1 0 b 0\nq1 0 a {grade}\n", "q1 Q0 a 1 2.0 run\nq1 Q0 b 2 1.0 run\n")
    code, _, _ = crosscheck(tmp_path, qrels, run, "P@2")
    assert code == EXIT_INPUT
    err = capsys.readouterr().err
    assert str(qrels) in err and "line 2" in err and says in err and "Traceback" not in err


def test_the_lowest_grade_every_library_evaluates_is_accepted(tmp_path):
    """-(2**63 - 1): pytrec_eval, ir-measures and ranx, called directly, read it as non-relevant, as grade 0: with a
    at rank 1 and b (grade 1) at rank 2, P@2 = 1/2 and nDCG@2 = (1/log2 3) / 1."""
    qrels, run = write(tmp_path, f"q1 0 a {-(2**63 - 1)}\nq1 0 b 1\n", "q1 Q0 a 1 2.0 run\nq1 Q0 b 2 1.0 run\n")
    code, by_measure, _ = crosscheck(tmp_path, qrels, run, "P@2 nDCG@2")
    assert code == EXIT_OK
    assert means(by_measure["P@2"]) == dict.fromkeys(("chapter", "pytrec_eval", "ir_measures", "ranx"), 0.5)
    for value in means(by_measure["nDCG@2"]).values():
        assert value == pytest.approx(1 / math.log2(3), abs=1e-12)


def test_a_grade_the_chapter_definitions_refuse_is_that_columns_error(tmp_path):
    """Exponential gain and ERR compute 2**grade only up to grade 64 in the chapter's evaluator: on grade 150 its
    column is "error", named with the query, not a crash (once: exit 3 with no file or line). ranx's ndcg_burges@2,
    called directly, is 0.6309297535714575 on b (1) above a (150): a difference of kind "no value vs scored"."""
    qrels, run = write(tmp_path, "q1 0 a 150\nq1 0 b 1\n", "q1 Q0 b 1 2.0 run\nq1 Q0 a 2 1.0 run\n")
    code, by_measure, markdown = crosscheck(tmp_path, qrels, run, "nDCG(dcg='exp-log2')@2 ERR@2")
    assert code == EXIT_OK
    exp = by_measure["nDCG(dcg='exp-log2')@2"]
    assert means(exp)["chapter"] == "error" and means(exp)["ranx"] == pytest.approx(0.6309297535714575)
    assert exp["differing_queries"] == ["q1"] and exp["largest_kind"] == "no value vs scored"
    assert "query q1: grade 150 is too large for exponential gain" in exp["causes"][0]["detail"]
    # ERR@2: no library here computes it on grade 150 (not applicable) and the chapter refuses it: nothing is compared,
    # and the table says so rather than "0 | 0"
    err = by_measure["ERR@2"]
    assert {x["status"] for x in err["means"]} == {"error", "not applicable"} and err["largest_kind"] == "not compared"
    assert row(markdown, "ERR@2").endswith("| — | not compared: no implementation returns values |")
    assert "- **ERR@2**: error in chapter. chapter: query q1: grade 150 is too large for ERR's 2^grade" in markdown


# (e) --------------------------------------------------------------------------------------------------------

def test_a_repeated_docno_shows_the_chapter_under_keep_first_and_keep_last(tmp_path):
    """n (non-relevant) at scores 3 and 1, a (relevant) at 2. Called directly: pytrec_eval.parse_run raises
    AssertionError; ir-measures and ranx keep the last line (n at 1.0), so a ranks first: RR 1.0, P@3 1/3. The
    chapter's definitions (repeated_ids): reject leaves q1 out; keep first ranks n, a: RR 1/2, P@3 1/3; keep last
    ranks a, n: RR 1, P@3 1/3 (P@3 divides by k = 3). Once the row read "left out | rejected | 1.0000 | 1.0000 | 1
    | 0", and the keep-first value was never shown."""
    qrels, run = write(tmp_path, "q1 0 a 1\nq1 0 n 0\n", "q1 Q0 n 1 3.0 run\nq1 Q0 a 2 2.0 run\nq1 Q0 n 3 1.0 run\n")
    assert library_readers(run) == {"pytrec_eval": "AssertionError", "ir_measures": "reads", "ranx": "reads"}
    code, by_measure, markdown = crosscheck(tmp_path, qrels, run, "RR P@3")
    assert code == EXIT_OK
    rr, p3 = by_measure["RR"], by_measure["P@3"]
    assert means(rr) == {"chapter": "left out", "chapter (keep first)": 0.5, "chapter (keep last)": 1.0,
                         "pytrec_eval": "rejected", "ir_measures": 1.0, "ranx": 1.0}
    assert means(p3)["chapter (keep first)"] == means(p3)["chapter (keep last)"] == pytest.approx(1 / 3)
    assert rr["differing_queries"] == ["q1"]
    assert (rr["largest_kind"], rr["largest_difference"]) == ("difference", 0.5)
    assert row(markdown, "RR") == (
        "| RR | — | left out | 0.5000 | 1.0000 | rejected | 1.0000 | 1.0000 | 1 | 0.5 (query q1: chapter left out, "
        "chapter (keep first) 0.500000, chapter (keep last) 1.000000, pytrec_eval rejected, ir_measures 1.000000, "
        "ranx 1.000000) |")
    # P@3 is 1/3 under every rule that gives a value: what differs is the chapter's rejection and pytrec_eval's
    assert p3["differing_queries"] == ["q1"] and p3["largest_kind"] == "left out vs scored"
    repeated = next(c for c in rr["causes"] if c["cause"] == "repeated doc ids in the run")
    assert repeated["explains"] is True
    assert "ir_measures matches keep last; ranx matches keep last" in repeated["detail"]
    assert "keep first q1 0.5000; keep last q1 1.0000" in repeated["detail"]
