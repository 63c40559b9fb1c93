"""The reference adapters: one table of edge cases through the chapter evaluator and every reference."""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.evaluation import evaluator
from audit.evaluation.checks.common import scored_run
from audit.evaluation.references import all_references
from audit.register.claims import Fixture
from audit.measures.syntax import parse

REFS = {r.name: r for r in all_references()}

# (case, qrels, run, measure, expected chapter value, where the value comes from)
CASES = [
    ("fewer results than k", {"q": {"a": 1}}, {"q": ["a"]}, "P@4", Fraction(1, 4),
     "chapter 23: P@4 = 1/4 for a single relevant result"),
    ("recall denominator |R| > k", {"q": {d: 1 for d in "abcdef"}}, {"q": list("abcd")}, "R@4", Fraction(2, 3),
     "4 of |R| = 6"),
    ("RR beyond the cutoff", {"q": {"a": 1, "n": 0}}, {"q": ["n", "m", "o", "p", "a"]}, "RR@4", Fraction(0),
     "first relevant at rank 5 > k"),
    ("RR without cutoff", {"q": {"a": 1, "n": 0}}, {"q": ["n", "m", "o", "p", "a"]}, "RR", Fraction(1, 5),
     "first relevant at rank 5"),
    ("AP@k over |R|", {"q": {"a": 1, "b": 1, "c": 1}}, {"q": ["a", "n", "b", "m"]}, "AP@4", Fraction(5, 9),
     "(1 + 2/3) / 3"),
    ("no relevant document judged", {"q": {"n": 0}}, {"q": ["n", "a"]}, "R@4", Fraction(0),
     "|R| = 0 scores 0, as trec_eval"),
    ("grade 2 counts as relevant", {"q": {"a": 2, "n": 0}}, {"q": ["n", "a"]}, "P@2", Fraction(1, 2),
     "grade >= 1 is relevant"),
    ("set precision", {"q": {"a": 1, "b": 0, "c": 1}}, {"q": ["a", "b"]}, "SetP", Fraction(1, 2),
     "1 relevant of 2 selected"),
    ("set recall", {"q": {"a": 1, "b": 0, "c": 1}}, {"q": ["a", "b"]}, "SetR", Fraction(1, 2),
     "1 of |R| = 2"),
    ("judged fraction of a short prefix", {"q": {"a": 1}}, {"q": ["a", "u"]}, "Judged@4", Fraction(1, 2),
     "1 judged of the 2 returned (ir-measures divides by min(k, returned))"),
]


@pytest.mark.parametrize("case,qrels,run,measure,expected,source", CASES, ids=[c[0] for c in CASES])
def test_chapter_and_every_reference_agree(case, qrels, run, measure, expected, source):
    _, spec = parse(measure)
    assert evaluator.mean(evaluator.evaluate(spec, qrels, run)) == expected, source
    fixture = Fixture(qrels=qrels, run=run)
    m, _ = parse(measure)
    for ref in REFS.values():
        outcome = ref.evaluate([m], qrels, scored_run(fixture))[str(m)]
        if ref.supports(m).ok:
            assert outcome.status == "ok", (ref.name, outcome.detail)
            assert outcome.mean == pytest.approx(float(expected), abs=1e-12), (ref.name, source)
        else:
            assert outcome.status == "not applicable" and outcome.detail


@pytest.mark.parametrize("measure,provider", [("P@4", "pytrec_eval"), ("RR@4", "msmarco"), ("RR", "pytrec_eval"),
                                              ("Judged@4", "judged"), ("nDCG@4", "pytrec_eval")])
def test_ir_measures_records_the_provider(measure, provider):
    """ir-measures' routing (DESIGN.md): RR@k → msmarco, Judged@k → judged, the rest → pytrec_eval."""
    m, _ = parse(measure)
    outcome = REFS["ir_measures"].evaluate([m], {"q": {"a": 1}}, {"q": {"a": 1.0}})[str(m)]
    assert outcome.provider == provider


def test_ir_measures_never_uses_its_ranx_provider():
    """Under pandas 3 that provider fails (query-id dtype); ranx is evaluated directly instead."""
    from audit.evaluation.references.ir_measures_ref import PROVIDERS
    assert "ranx" not in PROVIDERS


def test_ranx_keeps_insertion_order_for_ties_after_renaming():
    """Tied scores: ranx keeps insertion order; renaming ids to fixed-width tokens must not change it."""
    m, _ = parse("RR@4")
    qrels = {"q": {"z": 0, "b": 1}}
    outcome = REFS["ranx"].evaluate([m], qrels, {"q": {"z": 1.0, "b": 1.0}})[str(m)]
    assert outcome.per_query["q"] == pytest.approx(0.5)  # z (non-relevant) stays first


def test_trec_eval_breaks_ties_by_docno_descending():
    """trec_eval orders equal scores by docno descending: 'z' before 'b'."""
    m, _ = parse("RR")
    outcome = REFS["pytrec_eval"].evaluate([m], {"q": {"z": 0, "b": 1}}, {"q": {"b": 1.0, "z": 1.0}})[str(m)]
    assert outcome.per_query["q"] == pytest.approx(0.5)


def test_empty_ranking_scores_zero_everywhere():
    """A query with no returned documents scores 0 (trec_eval -c convention for a present query)."""
    m, _ = parse("P@4")
    for ref in REFS.values():
        outcome = ref.evaluate([m], {"q": {"a": 1}, "r": {"a": 1}}, {"q": {}, "r": {"a": 1.0}})[str(m)]
        assert outcome.status == "ok", ref.name
        assert outcome.per_query.get("q", 0.0) == 0.0 and outcome.per_query["r"] == pytest.approx(0.25), ref.name


def test_ranx_call_with_no_judgement_leaves_its_queries_out():
    """ranx raises ValueError (max() of an empty sequence) when no query of a call is judged; the adapter
    leaves those queries out with the reason instead of failing the whole measure (observed with ranx 0.3.21)."""
    import ir_measures

    from audit.evaluation.references import all_references

    ranx = next(r for r in all_references() if r.name == "ranx")
    outcome = ranx.evaluate([ir_measures.parse_measure("P@2")], {"q2": {}}, {"q2": {"b": 1.0}})["P@2"]
    assert outcome.status == "ok" and outcome.per_query == {}
    assert "no query of a call has a judgement" in outcome.detail


def test_trec_eval_rr_at_several_cutoffs_in_one_call():
    """RR@k for several k in one call: trec_eval's recip_rank on the run cut at k in its own order (score as
    a 32-bit float, then docno descending). Scores 1.0 and 1.0 + 1e-9 are equal in single precision, so the
    order is b, a (docno descending), then c: b is non-relevant, a and c are relevant. By hand: RR@1 = 0
    (only b), RR@2 = 1/2 (a at rank 2), RR@3 = 1/2; two queries, the second with its relevant document at
    rank 3 (RR@1 = RR@2 = 0, RR@3 = 1/3)."""
    ms = [parse(f"RR@{k}")[0] for k in (1, 2, 3)]
    qrels = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0 + 1e-9, "c": 0.5}, "q2": {"v": 3.0, "w": 2.0, "x": 1.0}}
    out = REFS["pytrec_eval"].evaluate(ms, qrels, run)
    assert [out[str(m)].per_query["q1"] for m in ms] == pytest.approx([0.0, 0.5, 0.5])
    assert [out[str(m)].per_query["q2"] for m in ms] == pytest.approx([0.0, 0.0, 1 / 3])


def _run_file(tmp_path, lines):
    path = tmp_path / "probe.run"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return str(path)


def test_ranx_reads_a_run_file_keeping_the_last_copy_of_a_repeated_id(tmp_path):
    """ranx's own TREC reader (``Run.from_file``) keeps the last score read for a repeated docno
    (DESIGN.md, measured). Run: n (score 3), a (2), n again (1); a is relevant. With the last copy of n
    kept at score 1, ranx orders a (2) before n (1): P@1 = 1, RR = 1. The values come back under the
    file's own query ids although the adapter renames ids before ranx reads them."""
    path = _run_file(tmp_path, ["q-1 Q0 n 1 3 x", "q-1 Q0 a 2 2 x", "q-1 Q0 n 3 1 x"])
    ms = [parse("P@1")[0], parse("RR")[0]]
    out = REFS["ranx"].evaluate_run_file(ms, {"q-1": {"a": 1, "n": 0}}, path)
    assert {str(m): out[str(m)].status for m in ms} == {"P@1": "ok", "RR": "ok"}
    assert out["P@1"].per_query == pytest.approx({"q-1": 1.0})
    assert out["RR"].per_query == pytest.approx({"q-1": 1.0})


def test_ranx_run_file_through_the_dict_path_maps_documents_back(tmp_path):
    """SetP takes ranx's dict path (precision@n, n = the run's length): the renamed documents must come back
    to the file's ids. Run [a, b, c] with a and c relevant: SetP = precision@3 = 2/3 (by hand)."""
    path = _run_file(tmp_path, ["q1 Q0 a 1 3 x", "q1 Q0 b 2 2 x", "q1 Q0 c 3 1 x"])
    m = parse("SetP")[0]
    out = REFS["ranx"].evaluate_run_file([m], {"q1": {"a": 1, "b": 0, "c": 1}}, path)[str(m)]
    assert out.status == "ok" and out.per_query == pytest.approx({"q1": 2 / 3})


def test_ranx_run_file_with_a_malformed_line_is_its_readers_error(tmp_path):
    """A line with five fields: ranx's reader raises (its ``line.split()`` unpacks six); the line reaches it
    unchanged, so the outcome is ranx's error, not a value."""
    path = _run_file(tmp_path, ["q1 Q0 a 1 3 x", "q1 Q0 b 2 2"])
    m = parse("P@1")[0]
    out = REFS["ranx"].evaluate_run_file([m], {"q1": {"a": 1}}, path)[str(m)]
    assert out.status == "error" and "ValueError" in out.detail


def test_ranx_run_file_keeps_lines_that_hold_odd_whitespace(tmp_path):
    r"""A form feed (or another character ``str.splitlines`` breaks at but a file's lines do not: \v, \x1c–\x1e,
    \x85, \u2028) inside a line is whitespace to ranx's reader: ``Run.from_file`` iterates the file's lines
    (``for line in f``) and splits each with ``line.split()``, so "q1 Q0 b 2 2\fx" is six fields (measured with
    ranx 0.3.21: P@1 = 1 on this file). Run a (3), b (2), c (4) with c relevant: c is first, P@1 = 1 (by hand)."""
    ms = [parse("P@1")[0]]
    for odd in ("\x0c", "\x0b", "\x1c", "\x85", "\u2028"):
        path = _run_file(tmp_path, ["q1 Q0 a 1 3 x", f"q1 Q0 b 2 2{odd}x", "q1 Q0 c 3 4 x"])
        out = REFS["ranx"].evaluate_run_file(ms, {"q1": {"c": 1}}, path)["P@1"]
        assert (out.status, out.per_query) == ("ok", pytest.approx({"q1": 1.0})), (repr(odd), out.detail)
