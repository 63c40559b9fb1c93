"""The chapter evaluator (audit.evaluation.evaluator) against trec_eval's published outputs.

Expected values: ``out.test.aq`` from the trec_eval repository's ``test/`` folder
(usnistgov/trec_eval, trec_eval 10.0), produced by

    trec_eval -m all_trec -q qrels.test results.test

It prints every value to 4 decimals, per query (301, 302, 303) and for ``all`` (the
arithmetic mean over the 3 queries). The data live outside the project, in
``../shared/data/trec_eval-test/`` relative to the project root; the tests skip if that
folder is absent.

Ordering. trec_eval ignores the rank column of the run file and sorts each query's
documents by score descending, then by docno descending (``comp_sim_docno`` in
``form_res_rels.c``: ``strcmp(ptr2->docno, ptr1->docno)``). It stores scores as C
``float`` (``DOCNO_INFO.sim``), i.e. single precision. For results.test the float32
conversion is *not* needed: its scores have 6 decimals, no two distinct float64 scores
of a query collapse to the same float32, so sorting by the Python float (float64)
gives exactly the same order as sorting by numpy.float32 —
``test_float32_ordering_is_identical`` checks this, so the plain float sort below stays
justified. Sorting itself *is* needed: in file order 85 (measure, query) values differ.

The tie direction (docno descending vs ascending) cannot be told apart from these
4-decimal outputs: the run has 9 groups of tied scores, only one of which (query 301,
ranks 67-68: FBIS3-58055 relevant, FBIS3-58025 non-relevant) mixes relevance, and
swapping it moves map/ndcg of query 301 by at most 2.7e-5, below the printed precision.
We still use trec_eval's rule (docno descending), and ``test_tie_order_is_docno_descending``
pins it on that group.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import pytest

from audit.evaluation import definitions as D
from audit.evaluation import evaluator as E
from audit.measures.catalogue import MeasureSpec

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec_eval-test"

QUERIES = ("301", "302", "303")
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

#: trec_eval measure name -> the chapter evaluator's MeasureSpec.
TREC_TO_SPEC: dict[str, MeasureSpec] = {}
for _k in CUTOFFS:
    TREC_TO_SPEC[f"P_{_k}"] = MeasureSpec("P", _k)
for _k in CUTOFFS:
    TREC_TO_SPEC[f"recall_{_k}"] = MeasureSpec("R", _k)
TREC_TO_SPEC["map"] = MeasureSpec("AP")  # no cutoff: the whole retrieved list
for _k in CUTOFFS:
    TREC_TO_SPEC[f"map_cut_{_k}"] = MeasureSpec("AP", _k)
TREC_TO_SPEC["recip_rank"] = MeasureSpec("RR")  # no cutoff
TREC_TO_SPEC["ndcg"] = MeasureSpec("nDCG", gain="log2")  # no cutoff, gain = grade (linear)
for _k in CUTOFFS:
    TREC_TO_SPEC[f"ndcg_cut_{_k}"] = MeasureSpec("nDCG", _k, gain="log2")
TREC_TO_SPEC["set_P"] = MeasureSpec("SetP")  # set measures over the whole retrieved list
TREC_TO_SPEC["set_recall"] = MeasureSpec("SetR")
TREC_TO_SPEC["set_F"] = MeasureSpec("SetF")  # β = 1
TREC_TO_SPEC["Rprec"] = MeasureSpec("Rprec")
TREC_TO_SPEC["bpref"] = MeasureSpec("Bpref")
for _level in range(11):  # iprec_at_recall_0.00 … _1.00
    TREC_TO_SPEC[f"iprec_at_recall_{_level / 10:.2f}"] = MeasureSpec("IPrec", recall=Fraction(_level, 10))

#: Half a unit in the 4th decimal, plus slack for binary floating point.
TOLERANCE = 0.00005 + 1e-12


def _require_data() -> Path:
    if not DATA.is_dir():
        pytest.skip(f"trec_eval test data not found at {DATA} "
                    "(expected ../shared/data/trec_eval-test/ beside the project root)")
    return DATA


def _read_expected(path: Path) -> dict[tuple[str, str], str]:
    """Parse a ``trec_eval -q`` output generically: whitespace-separated measure, query, value."""
    expected: dict[tuple[str, str], str] = {}
    for line_no, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split()
        assert len(fields) == 3, f"{path.name}:{line_no}: expected 3 columns, found {fields!r}"
        measure, query, value = fields
        assert (measure, query) not in expected, f"{path.name}:{line_no}: duplicate {measure} {query}"
        expected[(measure, query)] = value
    return expected


def _trec_order(docs, score_key=float) -> list[str]:
    """trec_eval's order: score descending, then docno descending (comp_sim_docno).

    ``score_key`` converts a score before comparison; plain ``float`` (float64) suffices
    for results.test, see the module docstring and test_float32_ordering_is_identical.
    """
    ranked = sorted(docs, key=lambda d: (score_key(d.score), d.doc_id), reverse=True)
    return [d.doc_id for d in ranked]


@lru_cache(maxsize=1)
def _load():
    import ir_measures

    data = _require_data()
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    # ir_measures' readers take a str path (a pathlib.Path would be silently read as nothing).
    for q in ir_measures.read_trec_qrels(str(data / "qrels.test")):
        qrels[q.query_id][q.doc_id] = q.relevance
    scored: dict[str, list] = defaultdict(list)
    for sd in ir_measures.read_trec_run(str(data / "results.test")):
        scored[sd.query_id].append(sd)
    run = {qid: _trec_order(docs) for qid, docs in scored.items()}
    expected = _read_expected(data / "out.test.aq")
    return dict(qrels), run, dict(scored), expected


@pytest.fixture(scope="module")
def trec():
    qrels, run, scored, expected = _load()
    return {"qrels": qrels, "run": run, "scored": scored, "expected": expected}


@lru_cache(maxsize=None)
def _per_query(spec: MeasureSpec) -> dict[str, Fraction]:
    qrels, run, _, _ = _load()
    return E.evaluate(spec, qrels, run)


PARAMS = [pytest.param(measure, query, id=f"{measure}-{query}")
          for measure in TREC_TO_SPEC for query in (*QUERIES, "all")]


@pytest.mark.parametrize(("measure", "query"), PARAMS)
def test_matches_trec_eval(trec, measure: str, query: str) -> None:
    """Expected value: out.test.aq (trec_eval 10.0, ``-m all_trec -q``), row ``measure query``.

    ``all`` is trec_eval's mean over the 3 queries, compared with ``evaluator.mean``.
    """
    key = (measure, query)
    assert key in trec["expected"], f"out.test.aq has no row {measure} {query}"
    expected = float(trec["expected"][key])
    values = _per_query(TREC_TO_SPEC[measure])
    assert set(values) == set(QUERIES)
    value = E.mean(values) if query == "all" else values[query]
    assert isinstance(value, Fraction)
    got = float(value)
    assert abs(got - expected) <= TOLERANCE, (
        f"{measure} {query}: evaluator {got!r} (rounds to {round(got, 4):.4f}), "
        f"trec_eval printed {trec['expected'][key]}")


# --- sanity checks of the inputs themselves (also from out.test.aq) -------------------

@pytest.mark.parametrize("query", QUERIES)
def test_counts_match_trec_eval(trec, query: str) -> None:
    """num_ret, num_rel, num_rel_ret per query: out.test.aq (trec_eval 10.0)."""
    exp = trec["expected"]
    ranking, judgements = trec["run"][query], trec["qrels"][query]
    relevant = D.relevant_set(judgements)
    assert len(ranking) == int(exp[("num_ret", query)])
    assert len(relevant) == int(exp[("num_rel", query)])
    assert sum(1 for d in ranking if d in relevant) == int(exp[("num_rel_ret", query)])


def test_num_q_matches_trec_eval(trec) -> None:
    """num_q all = 3: out.test.aq (trec_eval 10.0); ``all`` rows are means over these queries."""
    assert int(trec["expected"][("num_q", "all")]) == len(QUERIES)
    assert sorted(trec["run"]) == sorted(trec["qrels"]) == list(QUERIES)


def test_float32_ordering_is_identical(trec) -> None:
    """trec_eval compares scores as C float; for results.test float64 gives the same order.

    This justifies sorting by the Python float in _trec_order (no float32 needed).
    """
    np = pytest.importorskip("numpy")
    for query, docs in trec["scored"].items():
        assert _trec_order(docs, np.float32) == _trec_order(docs, float), query


def test_tie_order_is_docno_descending(trec) -> None:
    """Tied scores break by docno descending (trec_eval comp_sim_docno).

    Query 301 ranks 67-68 share score 2.243509: FBIS3-58055 (relevant) comes first.
    """
    ranking = trec["run"]["301"]
    assert ranking[66:68] == ["FBIS3-58055", "FBIS3-58025"]
    assert trec["qrels"]["301"]["FBIS3-58055"] == 1
    assert trec["qrels"]["301"]["FBIS3-58025"] == 0


@pytest.mark.parametrize("measure", ["num_rel", "num_ret", "num_rel_ret"])
def test_counts_and_their_sum_match_trec_eval(trec, measure: str) -> None:
    """NumRel, NumRet, NumRelRet per query and their ``all`` row, which trec_eval sums (1500 returned, 561
    relevant, 131 relevant returned): out.test.aq (trec_eval 10.0)."""
    name = {"num_rel": "NumRel", "num_ret": "NumRet", "num_rel_ret": "NumRelRet"}[measure]
    values = _per_query(MeasureSpec(name))
    for query in QUERIES:
        assert values[query] == int(trec["expected"][(measure, query)])
    assert E.combine(name, values) == int(trec["expected"][(measure, "all")])


def test_gmap_matches_trec_eval(trec) -> None:
    """gm_map all = 0.1051: out.test.aq (trec_eval 10.0), the geometric mean of the three queries' AP."""
    values = _per_query(MeasureSpec("GMAP"))
    assert abs(float(E.combine("GMAP", values)) - float(trec["expected"][("gm_map", "all")])) <= TOLERANCE
