"""A table of queries with the rank of each one's first relevant result and its reciprocal rank, as MRR is taught
(| question | correct answer | rank | reciprocal rank |): each row is drafted as RR on a ranking whose first relevant
result sits at that rank — RR needs nothing else — and a wrong cell is contradicted. A table whose rows are the ranks
of one ranking (its first column the rank) is a rank table, not this.

Right values: RR = 1/rank of the first relevant result (pytrec_eval's recip_rank, called below); the planted row
prints 1/4 at rank 2 (1/2)."""

from __future__ import annotations

import pytest

from chapters import init_and_run

TEXT = """\
# Mean reciprocal rank on three questions

Each question has one correct answer; the table gives the rank at which the system returned it.

| Question | Correct answer | Rank | Reciprocal rank |
|---|---|---|---|
| capital of Peru | Lima | 3 | 1/3 |
| largest moon | Ganymede | 1 | 1 |
| author of Dune | Frank Herbert | 2 | 1/4 |

The mean reciprocal rank is (1/3 + 1 + 1/2)/3 ≈ 0.61.
"""


def test_the_reference_values():
    import pytrec_eval
    evaluator = pytrec_eval.RelevanceEvaluator({"q": {"d3": 1, "d1": 0, "d2": 0}}, {"recip_rank"})
    assert evaluator.evaluate({"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}})["q"]["recip_rank"] == pytest.approx(1 / 3)
    evaluator = pytrec_eval.RelevanceEvaluator({"q": {"d2": 1, "d1": 0}}, {"recip_rank"})
    assert evaluator.evaluate({"q": {"d1": 2.0, "d2": 1.0}})["q"]["recip_rank"] == 0.5


@pytest.fixture(scope="module")
def drafted(tmp_path_factory):
    return init_and_run(tmp_path_factory.mktemp("mrr"), "mrr.md", TEXT, "mrr")[2]


@pytest.mark.parametrize("row, verdict", [
    ("| capital of Peru | Lima | 3 | 1/3 |", "supported"),
    ("| largest moon | Ganymede | 1 | 1 |", "supported"),
    ("| author of Dune | Frank Herbert | 2 | 1/4 |", "contradicted"),
])
def test_each_row_is_rr_at_its_rank(drafted, row, verdict):
    [claim] = [c for c in drafted if c["quote"] == row]
    assert (claim["kind"], claim["verdict"]) == ("value", verdict), claim


def test_a_rank_table_of_one_ranking_is_not_read_as_queries():
    from audit.draft.encode import _first_rank_row
    from audit.text.scan import Statement
    row = Statement("value", "| 2 | d7 | yes | 1/2 |", 1, 1, 0, 10, context="| rank | doc | relevant | reciprocal rank |")
    assert _first_rank_row(row, ["rank", "doc", "relevant", "reciprocal rank"], ["2", "d7", "yes", "1/2"]) is None
