"""Listings called with the containers their text passes: a run's relevant documents as a set per query
(``{"q1": {"d3"}}``), and the retrieved documents as a set where a listing computes a measure of the set retrieved
(``len(retrieved & relevant)``). Both shapes are common in course notebooks; the harness used to pass
``{document: grade}`` mappings and lists, so right listings were contradicted, and a shown call's sets were read as
judgements (``dict({"d3"})`` judged document "d" 3) — the report then told the author to print 0.0000 where the
text's 0.6667 is right. Also: a listing returning a tuple is prepared, run and settled as every listing is."""

from __future__ import annotations

import pytest

from chapters import audit_text

from audit.evaluation.checks import code_shown, text_calls

NOTEBOOK = '''\
# Evaluating a retriever

Set-based measures first. Precision is the share of the retrieved documents that are relevant; recall the share of
the relevant documents that were retrieved.

```python
def set_precision_recall(retrieved, relevant):
    if not retrieved:
        return 0.0, 0.0
    hits = len(retrieved & relevant)
    precision = hits / len(retrieved)
    recall = hits / len(relevant) if relevant else 0.0
    return precision, recall
```

## Mean reciprocal rank

```python
def reciprocal_rank(ranked, relevant):
    for i, doc in enumerate(ranked):
        if doc in relevant:
            return 1.0 / (i + 1)
    return 0.0


def mean_reciprocal_rank(results_by_query, relevant_by_query):
    total = 0.0
    for qid, ranked in results_by_query.items():
        total += reciprocal_rank(ranked, relevant_by_query.get(qid, set()))
    return total / len(results_by_query) if results_by_query else 0.0


runs = {'q1': ['d1', 'd2', 'd3'], 'q2': ['d2', 'd3', 'd1']}
gold = {'q1': {'d3'}, 'q2': {'d2'}}
print(f"MRR: {mean_reciprocal_rank(runs, gold):.4f}")
```

```
MRR: 0.6667
```
'''

CLAIMS = '''\
claims:
  - id: N01
    title: set precision and recall
    kind: code
    quote: "def set_precision_recall(retrieved, relevant):"
    claim: set_precision_recall returns the set precision and recall of what was retrieved.
    function: set_precision_recall
    measure: SetP
    returns: [SetP, SetR]
    arguments: {retrieved: ranking, relevant: relevant set}
  - id: N02
    title: mean reciprocal rank over a run
    kind: code
    quote: "def mean_reciprocal_rank(results_by_query, relevant_by_query):"
    claim: mean_reciprocal_rank returns the mean RR over the queries of the run.
    function: mean_reciprocal_rank
    measure: RR
    builds_on: ["def reciprocal_rank(ranked, relevant):"]
    arguments: {results_by_query: run, relevant_by_query: qrels by query}
    calls:
      - call: mean_reciprocal_rank(runs, gold)
        returns: "0.6667"
        given:
          runs: "{'q1': ['d1', 'd2', 'd3'], 'q2': ['d2', 'd3', 'd1']}"
          gold: "{'q1': {'d3'}, 'q2': {'d2'}}"
'''


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return {c.id: c for c in audit_text(tmp_path_factory.mktemp("nb-sets"), NOTEBOOK, CLAIMS,
                                         title="Evaluating a retriever").claims}


def _said(claim) -> str:
    return "\n".join([claim.reason, claim.response] + [c.label for c in claim.checks]
                     + [v.detail for c in claim.checks for v in c.values])


def test_a_set_measure_listing_gets_the_retrieved_documents_as_a_set(report):
    """``len(retrieved & relevant)`` needs a set: SetP and SetR on the set retrieved (no rank counts), equal to
    trec_eval's set_P and set_recall on every input, so supported; it used to be contradicted for the TypeError a
    list provoked ("unsupported operand type(s) for &: 'list' and 'set'")."""
    claim = report["N01"]
    assert claim.verdict == "supported", claim.reason
    assert "retrieved as a set (its body applies a set operator to it (retrieved & relevant)" in claim.reason
    assert "TypeError" not in _said(claim)


def test_relevant_sets_by_query_are_passed_as_sets_and_the_printed_mrr_stands(report):
    """MRR on the text's run: q1's first relevant document (d3) at rank 3, q2's (d2) at rank 1: (1/3 + 1)/2 = 2/3
    = 0.6667 (by hand; pytrec_eval's recip_rank gives 1/3 and 1). The listing is right on every run of relevant
    sets; it is qualified only for the repeated ID its reciprocal_rank counts again. It was contradicted, and the
    report proposed printing 0.0000."""
    claim = report["N02"]
    assert claim.verdict == "qualified", claim.reason
    assert "0.0000" not in _said(claim) and "repeated ID" in claim.reason
    shown = next(c for c in claim.checks if c.label.endswith("on the calls the text shows"))
    assert shown.table[1] == ["mean_reciprocal_rank(runs, gold)", "0.6667", "0.6667", "2/3",
                              "pytrec_eval, ir_measures and ranx give 0.6667", "agrees"]


def test_a_shown_call_never_reads_a_set_as_judgement_pairs():
    """``dict({"d3"})`` is {"d": "3"}: a set of relevant documents must be each judged 1, and what is neither a
    mapping of grades nor a collection of documents is no input at all."""
    assert code_shown._judgements({"d3"}) == {"d3": 1}
    assert code_shown._judgements(["d1", "d2"]) == {"d1": 1, "d2": 1}
    assert code_shown._judgements({"d1": 2, "d2": 0}) == {"d1": 2, "d2": 0}
    assert code_shown._judgements("d3") is None
    assert code_shown._judgements({"d1": "relevant"}) is None
    item = code_shown._shown_input({"run": {"q1": ["d1", "d2", "d3"]}, "qrels by query": {"q1": {"d3"}}})
    assert dict(item.queries)["q1"].qrels() == {"d3": 1}


@pytest.mark.parametrize(("source", "expected"), [
    ("def f(run, qrels: dict[str, set[str]]):\n    return 0\n", "set"),
    ("def f(run, qrels: dict[str, dict[str, int]]):\n    return 0\n", "mapping"),
    ("def f(run, qrels):\n    return sum(1 for q in run if qrels.get(q, []))\n", "list"),
    ("def f(run, qrels):\n    return sum(1 for q in run if qrels.get(q, {}))\n", "mapping"),
])
def test_how_each_querys_judgements_come_is_read_from_the_text(source, expected):
    calls = text_calls.read({"run": "run", "qrels": "qrels by query"}, source, "f", [])
    assert calls.judgements == expected


def test_a_ranked_measure_always_gets_a_list():
    """Order matters for P@k: a listing doing ``ranking & relevant`` for P@k fails for a reader too, so the harness
    never hands it a set."""
    source = "def f(ranking, relevant, k):\n    return len(ranking & relevant) / k\n"
    calls = text_calls.read({"ranking": "ranking", "relevant": "relevant set", "k": "cutoff"}, source, "f", [],
                            ("P@k",))
    assert calls.retrieved == "list"
    assert text_calls._unordered(("SetP", "SetR")) and not text_calls._unordered(("SetP", "P@k"))


TUPLES = '''\
# Precision and recall together

```python
import os


def precision_recall(retrieved, relevant):
    os.environ.get("HOME")
    hits = len(set(retrieved) & set(relevant))
    return hits / len(retrieved), hits / len(relevant)
```

```python
import numpy as np


def precision_recall_np(retrieved, relevant):
    hits = np.asfarray([d in relevant for d in retrieved]).sum()
    return float(hits / len(retrieved)), float(hits / len(relevant))
```
'''

TUPLE_CLAIMS = '''\
claims:
  - id: T01
    title: precision and recall
    kind: code
    quote: "def precision_recall(retrieved, relevant):"
    claim: precision_recall returns set precision and set recall.
    function: precision_recall
    measure: SetP
    returns: [SetP, SetR]
    arguments: {retrieved: ranking, relevant: relevant set}
  - id: T02
    title: precision and recall with NumPy
    kind: code
    quote: "def precision_recall_np(retrieved, relevant):"
    claim: precision_recall_np returns set precision and set recall.
    function: precision_recall_np
    measure: SetP
    returns: [SetP, SetR]
    arguments: {retrieved: ranking, relevant: relevant set}
'''


def test_a_listing_returning_a_tuple_is_prepared_as_every_listing_is(tmp_path):
    """The tuple path ran the listing's text as printed: a listing reading ``os`` was compared and could be
    certified, and one using ``np.asfarray`` (removed in NumPy 2.0) did not load. Now it is not certified, and the
    NumPy one is checked with ``np.asarray(x, dtype=float)`` in its place and qualified by the removal."""
    claims = {c.id: c for c in audit_text(tmp_path, TUPLES, TUPLE_CLAIMS, title="Precision and recall").claims}
    assert claims["T01"].verdict == "error" and "not certified" in claims["T01"].reason
    assert claims["T02"].verdict == "qualified", claims["T02"].reason
    assert "np.asfarray, which NumPy 2.0 removed" in claims["T02"].reason
