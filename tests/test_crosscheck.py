"""Cross-checking real TREC files: trec_eval's own test collection, and bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.attribution.crosscheck import crosscheck, read_expected
from audit.attribution.trec_files import read_trec
from audit.errors import AuditError
from audit.evaluation.references import all_references

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec_eval-test"
MEASURES = ["P@5", "P@10", "R@100", "RR", "AP", "nDCG@10", "nDCG"]
TREC = {"P@5": "P_5", "P@10": "P_10", "R@100": "recall_100", "RR": "recip_rank", "AP": "map",
        "nDCG@10": "ndcg_cut_10", "nDCG": "ndcg"}

needs_data = pytest.mark.skipif(not DATA.exists(), reason=f"{DATA} is not available")


@pytest.fixture(scope="module")
def standard():
    return crosscheck(DATA / "qrels.test", [DATA / "results.test"], MEASURES, all_references(),
                      expected=DATA / "out.test.a")


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
@needs_data
def test_every_implementation_matches_trec_eval_expected_all_values(standard):
    """out.test.a is trec_eval 10.0's own output on these files; printed to 4 decimals."""
    expected = read_expected(DATA / "out.test.a")
    for m in standard.runs[0].measures:
        for impl in m.means:
            assert round(impl.mean, 4) == expected[TREC[m.measure]], (m.measure, impl.implementation)


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
@needs_data
def test_tie_caused_disagreement_on_query_301_is_found_and_explained(standard):
    """Query 301 has relevant and non-relevant documents with equal scores (trec_eval: docno descending;
    the chapter: file order). Broken by one rule, every implementation agrees."""
    by_measure = {m.measure: m for m in standard.runs[0].measures}
    ap = by_measure["AP"]
    assert ap.differing_queries == ["301"]
    cause = ap.causes[0]
    assert cause.cause.startswith("tied scores") and cause.queries == ["301"] and cause.explains is True
    assert by_measure["P@5"].differing_queries == []


@needs_data
def test_the_tie_on_query_301_by_hand():
    """Find the tied pair that mixes a relevant and a non-relevant document, and check that swapping it
    is exactly the difference between the chapter's AP and trec_eval's for query 301."""
    from audit.evaluation import evaluator
    from audit.evaluation import definitions
    qrels = read_trec(DATA / "qrels.test", "qrels", check_readers=False).data["301"]
    run_in = read_trec(DATA / "results.test", "run", check_readers=False)
    scores, order = run_in.data["301"], run_in.order["301"]
    file_order = sorted(scores, key=lambda d: (-scores[d], order.index(d)))
    trec_order = sorted(scores, key=lambda d: (scores[d], d), reverse=True)
    mixed = [(a, b) for a, b in zip(file_order, file_order[1:])
             if scores[a] == scores[b] and (qrels.get(a, 0) > 0) != (qrels.get(b, 0) > 0)]
    assert len(mixed) == 1
    ap_file = definitions.average_precision(qrels, file_order)
    ap_trec = definitions.average_precision(qrels, trec_order)
    assert ap_file != ap_trec and round(float(ap_trec), 4) == 0.0324   # out.test.aq: map 301 0.0324


@needs_data
def test_a_truncated_run_reports_its_malformed_lines_and_the_missing_topic():
    """results.trunc lacks topic 302 and has lines of 7–9 fields; out.test.aqc is trec_eval -c on it."""
    report = crosscheck(DATA / "qrels.test", [DATA / "results.trunc"], ["P@5", "RR", "AP"], all_references(),
                        expected=DATA / "out.test.aqc")
    run = report.runs[0]
    assert run.qrels_only_queries == ["302"]
    assert [i["line"] for i in run.issues][:5] == [1, 2, 3, 4, 5]
    assert all("fields (extra ones ignored)" in i["cause"] for i in run.issues)
    assert all(verdict.startswith("fails") for verdict in run.readers.values())
    expected = read_expected(DATA / "out.test.aqc")
    for m in run.measures:
        by_name = {impl.implementation: impl for impl in m.means}
        # our reading of the file, with the missing topic counted as 0, is trec_eval -c's output
        name = {"P@5": "P_5", "RR": "recip_rank", "AP": "map"}[m.measure]
        assert round(by_name["chapter"].mean_all_judged, 4) == expected[name]
        # called as their users call them, the three libraries' own readers refuse the file: "rejected",
        # never a number computed from another reading of it
        for lib in ("pytrec_eval", "ir_measures", "ranx"):
            assert by_name[lib].status == "rejected" and by_name[lib].mean is None


@needs_data
def test_comment_lines_are_reported_with_their_line_numbers():
    qrels = read_trec(DATA / "qrels.test.with-comments", "qrels")
    assert [(i.line, i.cause) for i in qrels.issues] == [(1, "comment line"), (4, "comment line"),
                                                          (7, "comment line")]
    assert "CR#93E-1860" in qrels.data["301"]   # a '#' inside a docno is data, not a comment
    assert all(v.startswith("fails") for v in qrels.readers.values())


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_bad_input_is_a_clear_error_with_the_line(tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n", encoding="utf-8")
    short = tmp_path / "short"
    short.write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2\n", encoding="utf-8")
    with pytest.raises(AuditError, match="line 2 has 4 fields; a run line has 6"):
        read_trec(short, "run", check_readers=False)
    empty = tmp_path / "empty"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(AuditError, match="the run file is empty"):
        read_trec(empty, "run", check_readers=False)
    score = tmp_path / "score"
    score.write_text("1 Q0 a 1 high r\n", encoding="utf-8")
    with pytest.raises(AuditError, match="line 1: score 'high' is not a number"):
        read_trec(score, "run", check_readers=False)
    other = tmp_path / "other"
    other.write_text("9 Q0 a 1 2.0 r\n", encoding="utf-8")
    # A run sharing no query is that run's error in the report, not the end of the cross-check.
    report = crosscheck(qrels, [other], ["P@5"], all_references(), check_readers=False)
    assert "shares no query with the qrels" in report.runs[0].error and report.runs[0].measures == []


def test_a_repeated_docid_is_reported_and_the_last_line_used(tmp_path):
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n1 Q0 a 3 1.0 r\n", encoding="utf-8")
    read = read_trec(run, "run", check_readers=False)
    assert read.data["1"] == {"a": 1.0, "b": 2.0} and read.order["1"] == ["b", "a"]
    assert read.issues[0].line == 3 and "repeats document a of query 1 (line 1)" in read.issues[0].cause



@needs_data
def test_the_new_measures_match_trec_eval_expected_all_values():
    """Rprec 0.2174, bpref 0.1981, set_F 0.1194, iprec_at_recall_0.50 0.2184, num_rel 561 (trec_eval sums counts
    over queries), gm_map 0.1051 (a geometric mean): out.test.a, trec_eval 10.0's own output; the chapter and every
    reference that computes the measure give it (pytrec_eval's bundled trec_eval reaches a recall level at
    (long)(r·|R| + 0.9) relevant documents, which on these files gives the same 0.50 value)."""
    names = {"Rprec": "Rprec", "Bpref": "bpref", "SetF": "set_F", "IPrec@0.5": "iprec_at_recall_0.50",
             "NumRel": "num_rel", "GMAP": "gm_map"}
    report = crosscheck(DATA / "qrels.test", [DATA / "results.test"], list(names), all_references(),
                        expected=DATA / "out.test.a")
    expected = read_expected(DATA / "out.test.a")
    for m in report.runs[0].measures:
        computed = [impl for impl in m.means if impl.status == "ok"]
        assert len(computed) >= 2, m.measure  # the chapter and at least one reference
        for impl in computed:
            assert round(impl.mean, 4) == expected[names[m.measure]], (m.measure, impl.implementation, impl.mean)
