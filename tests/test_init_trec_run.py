"""A run printed in TREC format in a code block (``a1 Q0 d3 1 5.0 runB``), an elided range of its lines stated in
words, and each query's judgements told in bullets after it, as incident notes set out the run they dissect. `audit
init` reads it as one fixture of every query, the file's scores kept so that each reference breaks the tie its own
way, and drafts the sentences after it as runnable value claims: what a named reference returns (``by:``), and the
text's own value for the query its clause, sentence or section heading names.

Right values (``test_the_right_values``, the libraries called directly): a1's d3 and d7 tie at 5.0 and d7 is the
relevant one. trec_eval breaks the tie by docno, descending, so d7 comes first and recip_rank is 1; ranx keeps the
file order (d3, d7), so its RR for a1 is 1/2. b2's only relevant document, x05, is the fifth line (the elided line
stands for x02 … x05 at 7.5, 7.0, 6.5, 6.0): trec_eval's P_5 for b2 is 1/5 = 0.2 (so "0.4" is contradicted), and
R@5 = 1. c3 is judged (z9 relevant) and has no line in the run: ranx's mean RR over the three judged queries is
(1/2 + 1/5 + 0)/3 = 0.2333; with d7 first (trec_eval's tie rule) the mean over the three is (1 + 1/5 + 0)/3 = 0.4.
"""

from __future__ import annotations

import pytest
import yaml

from chapters import init_and_run

NOTES = '''\
# Why the two evaluators disagree on run B

## The run

```
a1 Q0 d3 1 5.0 runB
a1 Q0 d7 2 5.0 runB
a1 Q0 d2 3 4.1 runB
b2 Q0 x01 1 8.0 runB
   ... x02 to x05, the score falling by 0.5 each line ...
b2 Q0 x06 6 5.5 runB
```

- a1: d7 is the only relevant document; d3 and d2 were judged non-relevant.
- b2: all six returned documents were judged, and only the fifth, x05, is relevant.
- c3 was judged (one relevant document, z9), but the run has no line for it.

## a1: the tie

trec_eval's recip_rank for a1 is 1.

In the file order d3 comes first, so ranx gives a1 a reciprocal rank of 1/2.

## b2: a deep hit

trec_eval's P_5 for b2 is 0.4.

Recall at five is 1.

At first sight the list looks fine, a precision at five of 0.8.

## All queries

ranx's `mrr` over all three judged queries is 0.2333.

Counted the way the dashboard asks, MRR with every judged query counted, run B scores 0.2333.
'''


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_the_right_values():
    import pytrec_eval
    from ranx import Qrels, Run, evaluate
    qrels = {"a1": {"d7": 1, "d3": 0, "d2": 0}, "b2": {f"x0{i}": int(i == 5) for i in range(1, 7)}, "c3": {"z9": 1}}
    run = {"a1": {"d3": 5.0, "d7": 5.0, "d2": 4.1},
           "b2": {"x01": 8.0, "x02": 7.5, "x03": 7.0, "x04": 6.5, "x05": 6.0, "x06": 5.5}}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "P_5", "recall_5"}).evaluate(run)
    assert got["a1"]["recip_rank"] == 1.0
    assert (got["b2"]["P_5"], got["b2"]["recall_5"]) == (0.2, 1.0)
    per_query = evaluate(Qrels(qrels), Run(run), "mrr", return_mean=False, make_comparable=True)
    assert list(per_query) == [0.5, 0.2, 0.0]      # a1 (file order), b2, c3 (no line: 0)
    assert f"{sum(per_query) / 3:.4f}" == "0.2333"
    assert f"{(got['a1']['recip_rank'] + got['b2']['recip_rank'] + 0) / 3:.4f}" == "0.4000"


@pytest.fixture(scope="module")
def drafted(tmp_path_factory):
    root = tmp_path_factory.mktemp("notes")
    _, _, claims = init_and_run(root, "notes.md", NOTES, "runb")
    register = yaml.safe_load((root / "claims" / "runb" / "claims.yaml").read_text(encoding="utf-8"))
    return claims, register


def _one(claims, words: str, kind: str = "value") -> dict:
    found = [c for c in claims if words in c["quote"] and c["kind"] == kind]
    assert len(found) == 1, [(c["kind"], c["quote"]) for c in claims]
    return found[0]


def test_the_fixture_is_the_run_file_and_its_bullets(drafted):
    _, register = drafted
    claim = _one(register["claims"], "trec_eval's recip_rank for a1 is 1")
    fixture = claim["fixture"]
    assert fixture["run"] == {"a1": ["d3", "d7", "d2"], "b2": ["x01", "x02", "x03", "x04", "x05", "x06"], "c3": []}
    assert fixture["scores"]["a1"] == {"d3": 5.0, "d7": 5.0, "d2": 4.1}          # the tie kept
    assert fixture["scores"]["b2"]["x05"] == 6.0                                 # 8.0 − 4 × 0.5
    assert fixture["qrels"] == {"a1": {"d7": 1, "d3": 0, "d2": 0},
                                "b2": {"x01": 0, "x02": 0, "x03": 0, "x04": 0, "x05": 1, "x06": 0}, "c3": {"z9": 1}}
    assert claim["expect"] == [{"measure": "RR", "query": "a1", "claimed": "1", "by": "trec_eval"}]


@pytest.mark.parametrize("words, expect, verdict", [
    ("trec_eval's recip_rank for a1 is 1", {"measure": "RR", "query": "a1", "by": "trec_eval"}, "supported"),
    ("ranx gives a1 a reciprocal rank of 1/2", {"measure": "RR", "query": "a1", "by": "ranx"}, "supported"),
    ("trec_eval's P_5 for b2 is 0.4", {"measure": "P@5", "query": "b2", "by": "trec_eval"}, "contradicted"),
    ("Recall at five is 1", {"measure": "R@5", "query": "b2"}, "supported"),     # the section heading's query
    ("ranx's `mrr` over all three judged queries is 0.2333", {"measure": "RR", "aggregate": "mean", "by": "ranx"},
     "supported"),
    # the value the sentence closes on; no tie rule stated: a1's RR is 1 with d7 first (0.4 over three queries) and
    # 1/2 in file order (0.2333)
    ("MRR with every judged query counted, run B scores 0.2333", {"measure": "RR", "aggregate": "mean"},
     "qualified"),
])
def test_each_sentence_runs_on_the_run(drafted, words, expect, verdict):
    claims, register = drafted
    entry = _one(register["claims"], words)
    assert {k: v for k, v in entry["expect"][0].items() if k != "claimed"} == expect
    assert _one(claims, words)["verdict"] == verdict


def test_a_value_no_reference_gives_is_asked(drafted):
    # P@5 for b2 is 0.2 whichever way the tie or the averaging goes: the 0.8 stays the author's to explain
    _, register = drafted
    draft = _one(register["claims"], "a precision at five of 0.8", kind="draft")
    assert "no reference gives on the run by default" in draft["claim"]


UNSTATED = NOTES.replace("   ... x02 to x05, the score falling by 0.5 each line ...", "   ... x02 to x05 ...")


def test_an_elided_range_without_its_scores_leaves_a_draft_asking(tmp_path):
    _, _, claims = init_and_run(tmp_path, "notes.md", UNSTATED, "runb")
    register = yaml.safe_load((tmp_path / "claims" / "runb" / "claims.yaml").read_text(encoding="utf-8"))
    assert not [c for c in claims if c["kind"] == "value"]
    draft = _one(register["claims"], "trec_eval's P_5 for b2 is 0.4", kind="draft")
    assert "does not state the scores of its lines" in draft["claim"]


def test_a_retrieved_document_left_unjudged_is_not_read(tmp_path):
    # d2 is in the run, and no bullet judges it: unjudged or non-relevant, the text does not say
    text = NOTES.replace("; d3 and d2 were judged non-relevant", "; d3 was judged non-relevant")
    _, _, claims = init_and_run(tmp_path, "notes.md", text, "runb")
    register = yaml.safe_load((tmp_path / "claims" / "runb" / "claims.yaml").read_text(encoding="utf-8"))
    assert not [c for c in claims if c["kind"] == "value"]
    draft = _one(register["claims"], "trec_eval's recip_rank for a1 is 1", kind="draft")
    assert "do not judge every retrieved document (a1: d2)" in draft["claim"]
