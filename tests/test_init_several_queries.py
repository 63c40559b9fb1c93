"""Worked MRR examples list several queries, one line each, or several first relevant ranks in one sentence. None of
them is one ranking: init must never check one query's value on another's ranking (each wrong check is a false
contradiction whose patch makes a true sentence false). And "MRR ∈ [0, 1]" is a range, not a list of grades.

Right values: RR = 1/rank of the first relevant result, 0 without one (trec_eval's recip_rank; pytrec_eval below)."""

from __future__ import annotations

import pytest

from chapters import init_and_run

from audit.draft.examples import find, grade_list

LINES = """\
# MRR on four queries

## Example

Query 1: First relevant at rank 1 → RR = 1/1 = 1.0
Query 2: First relevant at rank 4 → RR = 1/4 = 0.25
Query 3: No relevant results → RR = 0
Query 4: First relevant at rank 2 → RR = 1/2 = 0.5

MRR = (1.0 + 0.25 + 0 + 0.5) / 4 = 0.4375
"""

SPLIT = LINES.replace(" = 1.0\n", " = 1.0\n\n").replace(" = 0.25\n", " = 0.25\n\n").replace("RR = 0\n", "RR = 0\n\n")

PRACTICE = """\
# Practice: MRR over three queries

Properties: MRR ∈ [0, 1], and the result lies in [0, 1] whatever the run.

Explanation: the first relevant items sit at ranks 3, 1, 2, giving reciprocal ranks 1/3, 1, 1/2. Their mean is (0.333 + 1 + 0.5)/3 = 0.6111.
"""


def test_the_reference_values():
    import pytrec_eval
    got = pytrec_eval.RelevanceEvaluator({"a": {"x": 1}, "b": {"y": 1}, "c": {"z": 1}}, {"recip_rank"}).evaluate(
        {"a": {"x": 1.0}, "b": {"n1": 4.0, "n2": 3.0, "n3": 2.0, "y": 1.0}, "c": {"n1": 1.0}})
    assert [got[q]["recip_rank"] for q in "abc"] == [1.0, 0.25, 0.0]


def _runnable(claims):
    return [c for c in claims if c["kind"] not in ("draft", "not checkable")]


def test_query_lines_in_one_paragraph_are_never_checked_on_one_ranking(tmp_path):
    _, _, claims = init_and_run(tmp_path, "mrr.md", LINES, "mrr")
    assert not [c for c in _runnable(claims) if c["verdict"] != "supported"], _runnable(claims)
    lines = [c for c in claims if c["quote"].startswith("Query 1:")]
    assert lines and all(c["kind"] in ("draft", "arithmetic") for c in lines)


def test_each_query_line_on_its_own_is_its_own_ranking(tmp_path):
    _, _, claims = init_and_run(tmp_path, "mrr.md", SPLIT, "mrr")
    verdicts = {c["quote"]: c["verdict"] for c in claims if c["kind"] == "value"}
    assert verdicts["Query 2: First relevant at rank 4 → RR = 1/4 = 0.25"] == "supported"
    assert verdicts["Query 4: First relevant at rank 2 → RR = 1/2 = 0.5"] == "supported"
    # query 3 has no ranking of its own: never checked on query 2's
    assert not [c for c in claims if c["quote"].startswith("Query 3:") and c["kind"] == "value"]


def test_first_relevant_ranks_out_of_order_are_several_queries(tmp_path):
    _, _, claims = init_and_run(tmp_path, "p.md", PRACTICE, "p")
    assert not [c for c in _runnable(claims) if c["verdict"] != "supported"], _runnable(claims)
    [explained] = [c for c in claims if c["quote"].startswith("Explanation:") and c["kind"] == "draft"]
    assert "out of order" in explained["claim"]


@pytest.mark.parametrize("text", ["- MRR ∈ [0, 1]\n", "the result lies in [0, 1] whatever the run.\n",
                                  "RR takes values within [0, 1].\n"])
def test_a_range_is_no_list_of_grades(text):
    assert grade_list.find(text) == [] and find(text) == []
