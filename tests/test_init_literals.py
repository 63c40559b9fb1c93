"""Worked examples that library docs and tutorials print as data: qrels and a run written as literals in one code
block (every query of them), a relevant set printed with its ranking, and a sentence saying what one reference
returns on the example. Each is drafted by `audit init` as a runnable claim on the text's own data.

Right values (``test_the_right_values``, the libraries called directly): on the literals below, q1 ranks its two
relevant documents 1st and 3rd, q2 2nd and 5th: P@5 = 0.4 for both, RR 1 and 1/2 (mean 0.75), nDCG@5 with the grade
as gain 0.9639 and 0.6267 (mean 0.7953) — ranx and pytrec_eval agree. On relevant {a, b, d} and ranking
[b, c, a, e, f], trec_eval's map_cut.2 is 1/3 and map_cut.3 is 5/9.
"""

from __future__ import annotations

import pytest

from chapters import init_and_run

DOCS = '''\
# Metrics on a small run

## Running example

```python
qrels = {"q1": {"a1": 3, "a3": 1, "a9": 0},
         "q2": {"b2": 2, "b5": 1}}
run = {"q1": {"a1": 0.9, "a2": 0.8, "a3": 0.7, "a4": 0.6, "a5": 0.5},
       "q2": {"b1": 0.9, "b2": 0.8, "b3": 0.7, "b4": 0.6, "b5": 0.5}}
```

Each query has two relevant documents.

## Precision and reciprocal rank

`P@5` is 0.4 for both queries. The reciprocal rank is 1 for q1 and 1/2 for q2, so `RR` is 0.75.
`RR` is 0.5 for q1.

## nDCG

`nDCG@5` is 0.9639 for q1 and 0.6267 for q2, a mean of 0.7953.

## Average precision

`AP` is (1 + 2/3)/2 ≈ 0.8333 for q1 and (1/2 + 2/5)/2 = 0.45 for q2, a mean of 0.6417.
`AP@5` is (1 + 2/3)/2 ≈ 0.8333 for q1 and (1/2 + 1/5)/2 = 0.35 for q2.

## Average precision at k, three ways

Take relevant items {a, b, d}, ranking [b, c, a, e, f].

- trec_eval's map_cut.2 divides by |R| = 3 and gives 1/3.
- trec_eval's map_cut.3 gives 0.6667.
'''


def test_the_right_values():
    import pytrec_eval
    qrels = {"q1": {"a1": 3, "a3": 1, "a9": 0}, "q2": {"b2": 2, "b5": 1}}
    run = {"q1": {"a1": 0.9, "a2": 0.8, "a3": 0.7, "a4": 0.6, "a5": 0.5},
           "q2": {"b1": 0.9, "b2": 0.8, "b3": 0.7, "b4": 0.6, "b5": 0.5}}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "recip_rank", "ndcg_cut_5", "map"}).evaluate(run)
    assert [round(got[q]["map"], 4) for q in ("q1", "q2")] == [0.8333, 0.45]
    assert round((got["q1"]["map"] + got["q2"]["map"]) / 2, 4) == 0.6417
    assert [got[q]["P_5"] for q in ("q1", "q2")] == [0.4, 0.4]
    assert [got[q]["recip_rank"] for q in ("q1", "q2")] == [1.0, 0.5]
    assert [f"{got[q]['ndcg_cut_5']:.4f}" for q in ("q1", "q2")] == ["0.9639", "0.6267"]
    assert f"{(got['q1']['ndcg_cut_5'] + got['q2']['ndcg_cut_5']) / 2:.4f}" == "0.7953"
    ap = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 1, "d": 1}}, {"map_cut_2", "map_cut_3"}).evaluate(
        {"q": {"b": 5.0, "c": 4.0, "a": 3.0, "e": 2.0, "f": 1.0}})["q"]
    assert (ap["map_cut_2"], round(ap["map_cut_3"], 4)) == (1 / 3, 0.5556)


@pytest.fixture(scope="module")
def claims(tmp_path_factory):
    return init_and_run(tmp_path_factory.mktemp("docs"), "metrics.md", DOCS, "m")[2]


def _verdict(claims, words: str) -> str:
    found = [c for c in claims if words in c["quote"] and c["kind"] == "value"]
    assert len(found) == 1, [(c["kind"], c["quote"]) for c in claims]
    return found[0]["verdict"]


@pytest.mark.parametrize("words, verdict", [
    ("`P@5` is 0.4 for both queries", "supported"),             # each query's P@5
    ("`RR` is 0.75", "supported"),                              # the mean over the queries
    ("`RR` is 0.5 for q1", "contradicted"),                     # q1's RR is 1
    ("`nDCG@5` is 0.9639 for q1 and 0.6267 for q2, a mean of 0.7953", "supported"),
    # a value printed after its working, "(1 + 2/3)/2 ≈ 0.8333": AP 0.8333 and 0.45, mean 0.6417 (pytrec_eval's map)
    ("`AP` is (1 + 2/3)/2 ≈ 0.8333 for q1 and (1/2 + 2/5)/2 = 0.45 for q2, a mean of 0.6417", "supported"),
    ("`AP@5` is (1 + 2/3)/2 ≈ 0.8333 for q1 and (1/2 + 1/5)/2 = 0.35 for q2", "contradicted"),   # q2's is 0.45
    ("trec_eval's map_cut.2 divides by |R| = 3 and gives 1/3", "supported"),   # by: trec_eval on the set example
    ("trec_eval's map_cut.3 gives 0.6667", "contradicted"),     # trec_eval gives 5/9
])
def test_values_on_the_text_s_own_data_are_drafted_runnable(claims, words, verdict):
    assert _verdict(claims, words) == verdict


def test_a_reference_s_value_is_drafted_as_that_reference_s(tmp_path):
    from audit.draft.examples import find
    from audit.draft.examples.by_reference import values
    [example] = find("Take relevant items {a, b, d}, ranking [b, c, a, e, f].")
    [claim] = values("trec_eval's map_cut.2 divides by |R| = 3 and gives 1/3", example)
    assert claim["expect"] == [{"measure": "AP@2", "claimed": "1/3", "by": "trec_eval"}]
    # another library's value follows that library's reading, which the text must state: no claim
    assert values("ml_metrics divides by min(k, |R|) = 2 and returns 0.5", example) == []
    # an option changes the call: no claim
    assert values("With -c, trec_eval's map_cut.2 gives 0.25", example) == []
    assert values("With -l 2 -J, trec_eval's map_cut.2 gives 0.25", example) == []
    # a relevance level alone is read: the measure at that level (every grade here is 1, so trec_eval -l 2 finds no
    # relevant document and gives 0; the claim is then contradicted)
    [claim] = values("With -l 2, trec_eval's map_cut.2 gives 0.25", example)
    assert claim["expect"] == [{"measure": "AP(rel=2)@2", "claimed": "0.25", "by": "trec_eval"}]


README = '''\
# evalkit

## Quick example

```python
import evalkit

qrels = {
    "A": {"a1": 1, "a2": 0},
    "B": {"b1": 0, "b2": 2},
}
run = {
    "A": {"a1": 0.9, "a2": 0.4},
    "B": {"b1": 0.8, "b2": 0.7},
}

evalkit.mean([AP, RR, nDCG], qrels, run)
# {AP: 0.75, RR: 0.75, nDCG: 0.8154648767857288}

for m in evalkit.each([AP, nDCG], qrels, run):
    print(m)
# Metric(query_id='A', measure=AP, value=1.0)
# Metric(query_id='B', measure=nDCG, value=0.5)
```
'''


def test_results_pasted_as_comments_under_the_literals_are_drafted_and_checked(tmp_path):
    """A README prints its results as comments below the calls, as ir-measures' own README does. Right values
    (pytrec_eval): A ranks its relevant a1 first (AP = RR = nDCG = 1); B ranks the relevant b2 second: AP = RR = 1/2,
    nDCG = 1/log2(3) = 0.6309…; means AP 0.75, RR 0.75, nDCG (1 + 0.6309…)/2 = 0.8154648767857288. The last comment
    prints B's nDCG as 0.5 (planted): contradicted."""
    import pytrec_eval
    qrels = {"A": {"a1": 1, "a2": 0}, "B": {"b1": 0, "b2": 2}}
    run = {"A": {"a1": 0.9, "a2": 0.4}, "B": {"b1": 0.8, "b2": 0.7}}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(run)
    assert repr((got["A"]["ndcg"] + got["B"]["ndcg"]) / 2) == "0.8154648767857288"
    claims = {c["quote"]: c for c in init_and_run(tmp_path, "README.md", README, "readme")[2]}
    assert claims["# {AP: 0.75, RR: 0.75, nDCG: 0.8154648767857288}"]["verdict"] == "supported"
    assert claims["# Metric(query_id='A', measure=AP, value=1.0)"]["verdict"] == "supported"
    assert claims["# Metric(query_id='B', measure=nDCG, value=0.5)"]["verdict"] == "contradicted"
