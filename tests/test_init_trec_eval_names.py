"""Bullets that read trec_eval's output line by line, naming each measure in trec_eval's notation ("num_rel counts the
documents judged relevant (6)", "iprec_at_recall_0.00 is the best precision anywhere in the list, 1/1 at rank 1; at
recall 1.00 it is 6/8", "P_20 = 6/20 for the same reason"), after inputs told in words and trec_eval's output block.
`audit init` drafts each as what trec_eval returns on the worked example (``by: trec_eval``); a section that regrades
the topic and runs trec_eval with ``-l 2`` speaks of other judgements, so its bullets stay drafts for the author.

Right values (``test_the_right_values``, pytrec_eval called directly): E01 … E08 ranked in order, E02 and E05
non-relevant, the other six relevant (at ranks 1, 3, 4, 6, 7, 8): AP = (1 + 2/3 + 3/4 + 4/6 + 5/7 + 6/8)/6 = 0.7579
(GMAP of one topic is its AP), num_rel 6, num_ret 8, iprec_at_recall_0.00 1, iprec_at_recall_1.00 6/8 = 0.75,
P_10 0.6, P_20 0.3. The text prints P_20 = 7/20 (planted).
"""

from __future__ import annotations

import math

import pytest

from chapters import init_and_run

LECTURE = """\
# Lecture 9: reading trec_eval's output

## Inputs

qrels: topic 512 has eight judged documents, E01 … E08. E02 and E05 are judged non-relevant (0); the other six are judged relevant (1).

run: the same eight documents, E01 first and E08 last, with strictly decreasing scores.

## What `trec_eval -m all_trec qrels run` prints

```
num_ret               all  8
num_rel               all  6
map                   all  0.7579
gm_map                all  0.7579
P_10                  all  0.6000
```

## Line by line

- map: relevant documents sit at ranks 1, 3–4 and 6–8, so AP = (1/1 + 2/3 + … + 6/8)/6 ≈ 0.7579.
- num_rel counts the documents judged relevant in the qrels (6); num_ret counts what the run returned (all 8).
- iprec_at_recall_0.00 is the best precision anywhere in the list, 1/1 at rank 1; at recall 1.00 it is 6/8.
- P_10 = 6/10 even though only eight documents came back: trec_eval divides by the cutoff. P_20 = 7/20 for the same reason.

## Graded judgements

Regrade topic 512: E03 becomes highly relevant (2). `trec_eval -l 2` counts only grade 2 as relevant:
- num_rel is 1.
- nDCG of the regraded topic is 0.9500.
"""


def test_the_right_values():
    import pytrec_eval
    ids = [f"E{n:02d}" for n in range(1, 9)]
    qrels = {"q": {d: 0 if d in ("E02", "E05") else 1 for d in ids}}
    measures = {"num_rel", "num_ret", "iprec_at_recall", "P_10", "P_20", "map", "gm_map"}
    got = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate({"q": {d: 10.0 - i for i, d in enumerate(ids)}})["q"]
    assert (got["num_rel"], got["num_ret"], got["iprec_at_recall_0.00"], got["iprec_at_recall_1.00"], got["P_10"],
            got["P_20"]) == (6, 8, 1.0, 0.75, 0.6, 0.3)
    # pytrec_eval's per-query gm_map is the log of AP; the mean of one topic's is its exp
    assert round(got["map"], 4) == round(math.exp(got["gm_map"]), 4) == 0.7579


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    root = tmp_path_factory.mktemp("lecture")
    _, _, claims = init_and_run(root, "lecture9.md", LECTURE, "l9")
    return " ".join((root / "claims" / "l9" / "claims.yaml").read_text(encoding="utf-8").split()), claims


@pytest.mark.parametrize("quote, measure, verdict", [
    ("num_rel counts the documents judged relevant in the qrels (6)", "NumRel", "supported"),
    ("num_ret counts what the run returned (all 8)", "NumRet", "supported"),
    ("iprec_at_recall_0.00 is the best precision anywhere in the list, 1/1 at rank 1", "IPrec@0.0", "supported"),
    ("at recall 1.00 it is 6/8", "IPrec@1.0", "supported"),
    ("P_10 = 6/10 even though only eight documents came back", "P@10", "supported"),
    ("P_20 = 7/20", "P@20", "contradicted"),
    # the relevant ranks retell the running example (a run of ranks, "3–4"); the sum elides its middle terms
    ("AP = (1/1 + 2/3 + … + 6/8)/6 ≈ 0.7579", "AP", "supported"),
    ("gm_map                all  0.7579", "GMAP", "supported"),   # one topic: GMAP is its AP   # trec_eval gives 6/20 (a sentence of its own: a value on the example)
])
def test_each_line_s_explanation_is_what_trec_eval_returns_on_the_example(lecture, quote, measure, verdict):
    register, claims = lecture
    found = [c for c in claims if c["quote"] == quote]
    assert [(c["kind"], c["verdict"]) for c in found] == [("value", verdict)], found
    assert f"measure: {measure} claimed:" in register


def test_a_regraded_topic_s_value_stays_a_draft(lecture):
    register, claims = lecture
    for words in ("num_rel is 1", "nDCG of the regraded topic is 0.9500"):
        found = [c for c in claims if words in c["quote"]]
        assert found and {c["kind"] for c in found} == {"draft"}, found
    assert "TODO: encode as a value claim: a fixture (qrels and run)" in register
