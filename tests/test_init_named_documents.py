"""A value sentence that names a document of the worked example with its grade ("nDCG@3 ≈ 0.601: the missed perfect
document H costs it most") is drafted on the example: the grade word describes that document, not another ranking
(a hypothetical "perfect" ranking, which stays a draft). A document the example does not hold keeps the sentence a
draft.

Right value (``test_the_right_value``, pytrec_eval called directly): qrels A 2, H 2, B 1, C 0 and the ranking B, A, C:
DCG@3 = 1 + 2/log2(3) ≈ 2.262, the ideal 2, 2, 1 gives 2 + 2/log2(3) + 1/2 ≈ 3.762, nDCG@3 ≈ 0.601.
"""

from __future__ import annotations

import yaml

from chapters import init_and_run

TEXT = """\
# Exercise 3: one graded query

## Setup

Query Q5 is judged on a three-point scale: 2 = perfect, 1 = fair, 0 = bad. Four documents are judged: A and H are perfect, B is fair, C is bad. The system returned B, A, C, in that order. H was not retrieved.

## Answer

nDCG@3 ≈ 0.601: the missed perfect document H costs it most.

## A second answer

nDCG@3 ≈ 0.601: the perfect document Z is what it lacks.
"""


def test_the_right_value():
    import pytrec_eval
    got = pytrec_eval.RelevanceEvaluator({"Q5": {"A": 2, "H": 2, "B": 1, "C": 0}}, {"ndcg_cut_3"}).evaluate(
        {"Q5": {"B": 3.0, "A": 2.0, "C": 1.0}})["Q5"]["ndcg_cut_3"]
    assert round(got, 3) == 0.601


def test_a_document_of_the_example_named_with_its_grade(tmp_path):
    _, _, report = init_and_run(tmp_path, "ex3.md", TEXT, "ex3")
    register = yaml.safe_load((tmp_path / "claims" / "ex3" / "claims.yaml").read_text(encoding="utf-8"))["claims"]
    h = [c for c in register if c["line"] == 9]
    value = [c for c in h if c["kind"] == "value"]
    assert [(c["expect"][0]["measure"], c["expect"][0]["claimed"]) for c in value] == [("nDCG@3", "0.601")]
    assert value[0]["quote"].startswith("nDCG@3 ≈ 0.601") and "document H" in value[0]["quote"]
    assert {c["verdict"] for c in report if c["kind"] == "value" and c["quote"] == value[0]["quote"]} == {"supported"}
    # Z is no document of the example: "perfect" may speak of another ranking, so the sentence stays a draft
    z = [c for c in register if c["line"] == 13]
    assert z and all(c["kind"] == "draft" and c["claim"].startswith("TODO") for c in z), z
