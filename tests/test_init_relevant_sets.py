"""Several queries printed in one sentence, each a relevant set and a ranking in the same order ("with relevant sets
{a, b}, {c} and {d, e, f} and rankings [a, x, b], [y, c] and [d, z, w]"), and what two libraries return on them.
`audit init` reads the queries as one fixture and drafts what trec_eval returns (``map_cut.2``) as its mean over
them (``by: trec_eval``); the other library's value (ml_metrics' ``mapk``) follows that library's reading, which init
does not know, so it stays the author's, in a draft beside it.

Right values (``test_the_right_values``, pytrec_eval called directly; by hand AP@2 divides by |R|): q1 (1/1)/2 =
0.5, q2 (1/2)/1 = 0.5, q3 (1/1)/3 = 1/3, mean 0.4444. The second text prints 0.5000 for map_cut.2 (planted).
"""

from __future__ import annotations

import pytest

from chapters import init_and_run

FAQ = """\
# Why do our MAP@2 numbers differ?

Over several queries the denominators part ways. With relevant sets {a, b}, {c} and {d, e, f} and rankings [a, x, b], [y, c] and [d, z, w], `mapk(k=2)` gives 0.6667 while trec_eval's map_cut.2 gives {value}.
"""


def test_the_right_values():
    import pytrec_eval
    qrels = {"q1": {"a": 1, "b": 1, "x": 0}, "q2": {"c": 1, "y": 0}, "q3": {"d": 1, "e": 1, "f": 1, "z": 0, "w": 0}}
    run = {"q1": ["a", "x", "b"], "q2": ["y", "c"], "q3": ["d", "z", "w"]}
    scored = {q: {d: 10.0 - i for i, d in enumerate(docs)} for q, docs in run.items()}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut_2"}).evaluate(scored)
    assert round(sum(v["map_cut_2"] for v in got.values()) / 3, 4) == 0.4444


@pytest.mark.parametrize("value, verdict", [("0.4444", "supported"), ("0.5000", "contradicted")])
def test_what_trec_eval_returns_over_the_queries_is_its_mean(tmp_path, value, verdict):
    _, _, claims = init_and_run(tmp_path, "faq.md", FAQ.replace("{value}", value), "faq")
    found = [c for c in claims if c["quote"] == f"trec_eval's map_cut.2 gives {value}"]
    assert [(c["kind"], c["verdict"]) for c in found] == [("value", verdict)], claims
    # ml_metrics' value is left to the author
    rest = [c for c in claims if c["kind"] == "draft" and "`mapk(k=2)` gives 0.6667" in c["quote"]]
    assert rest, claims


def test_sets_and_rankings_of_different_counts_are_no_example(tmp_path):
    text = FAQ.replace("{value}", "0.4444").replace(" and [d, z, w]", "")
    _, _, claims = init_and_run(tmp_path, "faq.md", text, "faq")
    assert not [c for c in claims if c["kind"] == "value"], claims
    assert [c for c in claims if c["kind"] == "draft" and "map_cut.2" in c["quote"]], claims
