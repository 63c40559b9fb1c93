"""A listing over a run of several queries meets ordinary runs: most hold a query whose relevant documents were never
retrieved. A MAP that leaves such a query out of its mean is wrong there, on ordinary input, not on an edge case; it
was only qualified ("on 103 of 300 generated inputs, each retrieving nothing relevant"), because a run counted as an
edge case as soon as one of its queries retrieved nothing relevant."""

from __future__ import annotations

from chapters import audit_text

from audit.evaluation.checks.code_inputs import Input, _edge_like, run_input

TEXT = '''\
# MAP over a run

```python
def average_precision(ranked, relevant):
    hits, total = 0, 0.0
    for i, doc in enumerate(ranked, start=1):
        if doc in relevant:
            hits += 1
            total += hits / i
    return total / len(relevant) if relevant else 0.0


def mean_average_precision(run, qrels):
    scores = [average_precision(run[q], qrels.get(q, set())) for q in run]
    scores = [s for s in scores if s > 0]
    return sum(scores) / len(scores) if scores else 0.0


run = {"q1": ["d1", "d2"], "q2": ["d5", "d6"]}
qrels = {"q1": {"d1"}, "q2": {"d9"}}
print(round(mean_average_precision(run, qrels), 4))
```

```
1.0
```
'''

CLAIMS = '''\
claims:
  - id: M01
    title: MAP over a run
    kind: code
    quote: "def mean_average_precision(run, qrels):"
    claim: mean_average_precision returns the mean AP over the queries of the run.
    function: mean_average_precision
    measure: AP
    builds_on: ["def average_precision(ranked, relevant):"]
    arguments: {run: run, qrels: qrels by query}
  - id: M02
    title: MAP over a run, as printed
    kind: code
    quote: "def mean_average_precision(run, qrels):"
    claim: mean_average_precision prints MAP on the text's run.
    function: mean_average_precision
    measure: AP
    builds_on: ["def average_precision(ranked, relevant):"]
    arguments: {run: run, qrels: qrels by query}
    calls:
      - call: round(mean_average_precision(run, qrels), 4)
        returns: "1.0"
        given:
          run: '{"q1": ["d1", "d2"], "q2": ["d5", "d6"]}'
          qrels: '{"q1": {"d1"}, "q2": {"d9"}}'
'''


def test_a_mean_that_leaves_out_a_query_with_nothing_relevant_retrieved_is_contradicted(tmp_path):
    """On generated runs alone (M01, no shown call): wrong wherever one query of a run misses everything relevant,
    which is ordinary input. On the text's run (M02): AP(q1) = 1 (d1 at rank 1), AP(q2) = 0 (d9 never retrieved),
    so MAP = (1 + 0)/2 = 1/2 (by hand; pytrec_eval's map gives 0.5); the listing drops q2's zero and prints 1.0."""
    claims = {c.id: c for c in audit_text(tmp_path, TEXT, CLAIMS, title="MAP over a run").claims}
    assert claims["M01"].verdict == "contradicted", claims["M01"].reason
    assert "Wrong on ordinary input" in claims["M01"].reason
    assert claims["M02"].verdict == "contradicted", claims["M02"].reason
    shown = next(c for c in claims["M02"].checks if c.label.endswith("on the calls the text shows"))
    assert shown.table[1][:4] == ["round(mean_average_precision(run, qrels), 4)", "1.0", "1.0000", "1/2"]


def test_a_run_is_edge_like_only_when_a_query_retrieved_nothing_or_none_retrieves_anything_relevant():
    hit = Input(("d1", "d2"), frozenset({"d1"}), None)
    miss = Input(("d5",), frozenset({"d9"}), None)
    empty = Input((), frozenset({"d9"}), None)
    assert not _edge_like(run_input([("q1", hit), ("q2", miss)], None))
    assert _edge_like(run_input([("q1", miss), ("q2", miss)], None))
    assert _edge_like(run_input([("q1", hit), ("q2", empty)], None))
    assert _edge_like(miss) and not _edge_like(hit)
