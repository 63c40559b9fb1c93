"""A lab sheet in the shape real ones have: its example told in words (a grade scale, the documents judged at each
grade, the ranking the system returned), rules that hold throughout, parts that set their own gain ("In this part a
document's gain is its grade", "Now each document gains 2^g − 1"), a turn to a second query, and a summary table of
the first query's measures whose row label names its own gain. `audit init` reads the example, scopes each part's
gain to its part, and drafts the summary rows on the example, with no register edit.

Right values (``test_the_right_values``, pytrec_eval called directly): qrels P 3, V 3, Q 2, R 2, S 1, T 0 and the
ranking Q, T, P, X, S, R (X unjudged, counted non-relevant): P@5 = 0.6, RR = 1, nDCG@5 with the grade as gain
0.5443; with gain 2^g − 1, DCG@5 = 3 + 7/2 + 1/log2(6) and the ideal 7, 7, 3, 3, 1 give 0.4719. The summary table
prints P@5 as 0.8 (planted).
"""

from __future__ import annotations

import math

import pytest

from chapters import init_and_run

LAB = """\
# Lab 4: one query, two gains

## Setup

Query Q3 is judged on a four-point scale: 3 = excellent, 2 = good, 1 = fair, 0 = poor. Six documents are judged: P and V are excellent, Q and R good, S fair, T poor. The system returned Q, T, P, X, S, R, in that order. X was never judged.

These rules hold throughout: a grade of 1 or more is relevant, and an unjudged document counts as non-relevant.

## Part 1: the grade as gain

In this part a document's gain is its grade. On this ranking nDCG@5 ≈ 0.544.

## Part 2: exponential gain

Now each document gains 2^g − 1, so grades 3, 2 and 1 are worth 7, 3 and 1. On this ranking nDCG@5 ≈ 0.472.

## Part 3: another query

A second query, Q4, has its only relevant document at rank 2, so its reciprocal rank is 1/2.

## Summary for Q3

| measure | Q3 |
|---|---|
| P@5 | 0.8 |
| RR | 1 |
| nDCG@5 | 0.544 |
| nDCG@5, exponential gain | 0.472 |
"""


def test_the_right_values():
    import pytrec_eval
    qrels = {"Q3": {"P": 3, "V": 3, "Q": 2, "R": 2, "S": 1, "T": 0}}
    run = {"Q3": {d: 10.0 - i for i, d in enumerate(["Q", "T", "P", "X", "S", "R"])}}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "recip_rank", "ndcg_cut_5"}).evaluate(run)["Q3"]
    assert (got["P_5"], got["recip_rank"], round(got["ndcg_cut_5"], 3)) == (0.6, 1.0, 0.544)
    dcg = 3 + 7 / 2 + 1 / math.log2(6)
    ideal = 7 + 7 / math.log2(3) + 3 / 2 + 3 / math.log2(5) + 1 / math.log2(6)
    assert round(dcg / ideal, 3) == 0.472


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    _, chapter, claims = init_and_run(tmp_path_factory.mktemp("lab"), "lab4.md", LAB, "lab4")
    return chapter, claims


def test_each_part_s_gain_is_its_part_s_not_the_chapter_s(lab):
    chapter, _ = lab
    assert "gain:" not in chapter   # "In this part …" and "Now …" scope their gain; a row label states nothing


@pytest.mark.parametrize("words, verdict", [
    ("nDCG@5 ≈ 0.544", "supported"),        # Part 1, the grade as gain
    ("nDCG@5 ≈ 0.472", "supported"),        # Part 2, gain 2^g − 1
    ("| P@5 | 0.8 |", "contradicted"),      # the summary row: P@5 is 0.6
    ("| RR | 1 |", "supported"),
    # the summary names no gain, and the text uses both: qualified, the exponential reading named as the text's own
    ("| nDCG@5 | 0.544 |", "qualified"),
])
def test_values_on_the_example_told_in_words(lab, words, verdict):
    _, claims = lab
    found = {c["verdict"] for c in claims if words in c["quote"] and c["kind"] == "value"}
    assert found == {verdict}, [(c["kind"], c["verdict"], c["quote"]) for c in claims if words in c["quote"]]


TREC_LECTURE = """\
# Lecture 9: reading trec_eval's output

## Inputs

qrels: topic 512 has eight judged documents, E01 … E08. E02 and E05 are judged non-relevant (0); the other six are judged relevant (1).

run: the same eight documents, E01 first and E08 last, with strictly decreasing scores.

## What trec_eval prints

```
num_ret               all  8
num_rel               all  6
map                   all  0.7579
Rprec                 all  0.6667
recip_rank            all  1.0000
P_5                   all  0.8000
```
"""


def test_a_trec_eval_output_block_is_checked_on_the_inputs_told_in_words(tmp_path):
    """The inputs are told in words (a run of IDs, the non-relevant ones, the ranking by its ends) and the output is
    trec_eval's: each line is drafted as what trec_eval returns on them (``by: trec_eval``). pytrec_eval on the same
    input: num_ret 8, num_rel 6, map 0.7579, Rprec 4/6, recip_rank 1, P_5 0.6; the block prints P_5 0.8000 (planted)."""
    import pytrec_eval
    ids = [f"E{n:02d}" for n in range(1, 9)]
    got = pytrec_eval.RelevanceEvaluator({"q": {d: 0 if d in ("E02", "E05") else 1 for d in ids}},
                                         {"map", "P_5", "Rprec"}).evaluate({"q": {d: 10.0 - i for i, d in enumerate(ids)}})["q"]
    assert (round(got["map"], 4), round(got["Rprec"], 4), got["P_5"]) == (0.7579, 0.6667, 0.6)
    _, _, claims = init_and_run(tmp_path, "lecture9.md", TREC_LECTURE, "l9")
    verdicts = {c["quote"].split()[0]: c["verdict"] for c in claims if c["kind"] == "value"}
    assert verdicts == {"num_ret": "supported", "num_rel": "supported", "map": "supported", "Rprec": "supported",
                        "recip_rank": "supported", "P_5": "contradicted"}
