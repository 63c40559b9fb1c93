"""A listing is called as the text calls it: the relevant documents in the container the text passes (a list for a
NumPy listing whose shown call passes a list), document IDs of the type the text uses (ints for item indices), and
never a verdict that only the harness's choice of container or ID type provokes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from audit.evaluation.checks import text_calls
from audit.evaluation.references import all_references
from audit.evaluation.sandbox import run_listing, unavailable_reason
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

sandboxed = pytest.mark.skipif(bool(unavailable_reason()), reason=f"isolation unavailable: {unavailable_reason()}")

# --- a recommender notebook exported to Markdown: item indices, NumPy masks, a shown call ------------------------------

RECOMMENDER = """\
# Evaluating a recommender offline

Each user has a list of recommended item indices, best first, and the items they went on to rate highly.
Precision at k is the number of those items among the first k recommendations, divided by k.

```python
import numpy as np

N_ITEMS = 1000


def precision_at_k(recommended, relevant, k):
    if k < 1:
        raise ValueError("k must be at least 1")
    if len(set(recommended)) != len(recommended):
        raise ValueError("recommended items must be distinct")
    liked = np.zeros(N_ITEMS, dtype=bool)
    liked[np.array(relevant, dtype=int)] = True
    return float(liked[np.array(recommended[:k], dtype=int)].sum()) / k
```

For the first user:

```python
>>> precision_at_k([10, 4, 7, 2], [4, 2, 9], 3)
0.3333333333333333
```

The same with `np.isin`, which takes any IDs:

```python
def precision_isin(recommended, relevant, k):
    if k < 1:
        raise ValueError("k must be at least 1")
    if len(set(recommended)) != len(recommended):
        raise ValueError("recommended items must be distinct")
    hits = np.isin(np.array(recommended[:k]), np.array(relevant))
    return float(hits.sum()) / k
```

The hit rate asks whether anything relevant made the top k.

```python
def hit_rate(recommended, relevant, k):
    if k < 1:
        raise ValueError("k must be at least 1")
    if len(set(recommended)) != len(recommended):
        raise ValueError("recommended items must be distinct")
    for i in range(len(relevant)):
        if relevant[i] in recommended[:k]:
            return 1.0
    return 0.0
```

Ratings come as a mapping from item to grade; the gain of an item is its grade.

```python
def dcg_at_k(recommended, ratings, k):
    if len(set(recommended)) != len(recommended):
        raise ValueError("recommended items must be distinct")
    return float(sum(ratings.get(item, 0) / np.log2(rank + 1)
                     for rank, item in enumerate(recommended[:k], start=1)))
```

```python
>>> dcg_at_k([3, 1, 2], {1: 3, 2: 1}, 3)
2.3927892607143724
```
"""
RECOMMENDER_CHAPTER = """\
id: recommender
title: Evaluating a recommender offline
snapshot: {file: snapshot.md}
environment: [numpy]
conventions:
  precision_denominator: {value: k, quote: "divided by k"}
  gain: {value: linear, quote: "the gain of an item is its grade"}
"""
RECOMMENDER_CLAIMS = """\
claims:
  - {id: P1, title: precision_at_k, kind: code, quote: "def precision_at_k(recommended, relevant, k):", claim: P@k,
     function: precision_at_k, measure: P@k, arguments: {recommended: ranking, relevant: relevant set, k: cutoff},
     calls: [{call: "precision_at_k([10, 4, 7, 2], [4, 2, 9], 3)", returns: "0.3333333333333333"}]}
  - {id: P2, title: precision_isin, kind: code, quote: "def precision_isin(recommended, relevant, k):", claim: P@k,
     function: precision_isin, measure: P@k, arguments: {recommended: ranking, relevant: relevant set, k: cutoff},
     builds_on: ["import numpy as np"]}
  - {id: H1, title: hit_rate, kind: code, quote: "def hit_rate(recommended, relevant, k):", claim: Success@k,
     function: hit_rate, measure: Success@k, arguments: {recommended: ranking, relevant: relevant set, k: cutoff}}
  - {id: D1, title: dcg_at_k, kind: code, quote: "def dcg_at_k(recommended, ratings, k):", claim: DCG@k,
     function: dcg_at_k, measure: DCG@k, arguments: {recommended: ranking, ratings: qrels, k: cutoff},
     builds_on: ["import numpy as np"],
     calls: [{call: "dcg_at_k([3, 1, 2], {1: 3, 2: 1}, 3)", returns: "2.3927892607143724"}]}
"""


@pytest.fixture(scope="module")
def recommender(tmp_path_factory):
    folder = tmp_path_factory.mktemp("calls") / "recommender"
    folder.mkdir()
    (folder / "snapshot.md").write_text(RECOMMENDER, encoding="utf-8")
    (folder / "chapter.yaml").write_text(RECOMMENDER_CHAPTER, encoding="utf-8")
    (folder / "claims.yaml").write_text(RECOMMENDER_CLAIMS, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    return {c.id: c for c in report.claims}


def _p_at_3_by_trec_eval() -> float:
    import pytrec_eval

    qrels = {"u1": {"4": 1, "2": 1, "9": 1}}
    run = {"u1": {"10": 4.0, "4": 3.0, "7": 2.0, "2": 1.0}}
    return pytrec_eval.RelevanceEvaluator(qrels, {"P_3"}).evaluate(run)["u1"]["P_3"]


@sandboxed
def test_a_numpy_listing_indexing_items_by_id_is_supported_called_as_the_text_calls_it(recommender):
    """precision_at_k marks the relevant items in a boolean array indexed by item ID: it needs the relevant items as a
    list (``np.array(set)`` is a 0-d object array) and integer IDs (an index). Called with a set of text IDs, every
    input raised and it was contradicted. It is right: trec_eval gives P_3 = 1/3 on the text's own call, as printed."""
    assert abs(_p_at_3_by_trec_eval() - 1 / 3) < 1e-12
    p1 = recommender["P1"]
    assert p1.verdict == "supported", p1.reason
    assert "relevant as a list (the calls the text shows pass a list)" in p1.reason
    assert "integer document IDs (the calls the text shows pass integer IDs)" in p1.reason
    assert "300 of 300" in p1.reason


@sandboxed
def test_a_numpy_listing_with_nothing_said_gets_a_list_of_the_relevant_documents(recommender):
    """np.isin(np.array(top), np.array(relevant)) on a set finds nothing (no exception: a 0-d object array matches
    no ID), so given a set it returned 0.0 where P@k is positive. Nothing in the text says how it is called; a NumPy
    listing is given a list, and it agrees with the references everywhere."""
    p2 = recommender["P2"]
    assert p2.verdict == "supported", p2.reason
    assert "relevant as a list (the text does not say which; a listing that imports NumPy" in p2.reason


@sandboxed
def test_an_exception_only_a_set_provokes_is_not_the_listings_defect(recommender):
    """hit_rate indexes relevant[i]: a set is not subscriptable. The text shows no call, hint or docstring, so the
    set was the harness's choice: it is called with a list, on which it is right, and the report says so."""
    h1 = recommender["H1"]
    assert h1.verdict == "supported", h1.reason
    assert "TypeError" not in h1.reason
    assert "relevant as a list (the text does not say which: no type hint, shown call or docstring does; given a " \
           "set it fails on" in h1.reason


@sandboxed
def test_judgements_keyed_by_integer_ids_reach_the_listing_with_integer_keys(recommender):
    """dcg_at_k([3, 1, 2], {1: 3, 2: 1}, 3): items 1 and 2 at ranks 2 and 3 give 3/log2(3) + 1/log2(4) = 2.39279
    (by hand; the listing prints 2.3927892607143724). Handed over as JSON the keys became "1" and "2", nothing
    matched the integer IDs and the call returned 0.0 against the printed value."""
    import math

    assert abs(3 / math.log2(3) + 1 / 2 - 2.3927892607143724) < 1e-15
    d1 = recommender["D1"]
    assert d1.verdict == "supported", d1.reason
    assert "returns what the text prints" in d1.reason


@sandboxed
def test_arguments_reach_a_listing_with_their_types():
    """Sets, tuples and mappings with integer keys arrive as they were passed (JSON alone would make the tuple a list
    and the keys text)."""
    code = ("def f(x):\n"
            "    score = {dict: 1, tuple: 2, set: 3, list: 4}[type(x)]\n"
            "    if isinstance(x, dict):\n"
            "        score += 10 * all(isinstance(key, int) for key in x)\n"
            "    if isinstance(x, list) and x and isinstance(x[0], tuple):\n"
            "        score += 100\n"
            "    return float(score)\n")
    values = [{1: 3, 2: 1}, (1, 2), {"a", "b"}, [("d1", 2.0)], {"q1": {"d1": 1}}]
    report = run_listing(code, "f", [[v] for v in values], time_limit=20)
    assert [r.value for r in report.results] == [11.0, 2.0, 3.0, 104.0, 1.0]


# --- what the text says, read without running anything ------------------------------------------------------------------

def _read(source: str, shown=(), arguments=None):
    name = next(n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    return text_calls.read(arguments or {"ranking": "ranking", "relevant": "relevant set", "k": "cutoff"}, source,
                           name, list(shown))


def test_a_type_hint_decides_the_container_and_the_id_type():
    said = _read("def p(ranking: list[int], relevant: set[int], k: int) -> float:\n    return 0.0\n")
    assert (said.relevant, said.ids) == ("set", "int")
    said = _read("from typing import Sequence\ndef p(ranking, relevant: Sequence[str], k):\n    return 0.0\n")
    assert (said.relevant, said.ids) == ("list", "str")
    said = _read("def p(ranking, relevant: 'frozenset[str] | None', k):\n    return 0.0\n")
    assert said.relevant == "set"


def test_a_docstring_line_decides_the_container_when_there_is_no_hint():
    source = ('import numpy as np\n\ndef p(ranking, relevant, k):\n    """Precision at k.\n\n    Parameters\n    ----'
              '------\n    relevant : set of str\n        The relevant documents.\n    """\n    return 0.0\n')
    assert _read(source).relevant == "set"  # NumPy listing, but the docstring says a set


def test_with_nothing_said_numpy_gets_a_list_and_plain_python_a_set():
    assert _read("import numpy as np\ndef p(ranking, relevant, k):\n    return 0.0\n").relevant == "list"
    plain = _read("def p(ranking, relevant, k):\n    return 0.0\n")
    assert (plain.relevant, plain.relevant_said, plain.ids) == ("set", False, "str")


def test_shown_calls_and_doctests_decide_when_no_hint_does():
    text = "```python\n>>> p([3, 1, 2], {1, 2}, 2)\n0.5\n```\n"
    shown = text_calls.shown_call_values(text, "p", ["ranking", "relevant", "k"])
    assert shown == [{"ranking": [3, 1, 2], "relevant": {1, 2}, "k": 2}]
    said = _read("import numpy as np\ndef p(ranking, relevant, k):\n    return 0.0\n", shown)
    assert (said.relevant, said.ids) == ("set", "int")
    # a name the text assigned a literal before the doctest, and a call inside round()
    text = ">>> rel = ['d2', 'd5']\n>>> round(p(['d1', 'd2'], rel, 2), 4)\n0.5\n"
    shown = text_calls.shown_call_values(text, "p", ["ranking", "relevant", "k"])
    assert shown == [{"ranking": ["d1", "d2"], "relevant": ["d2", "d5"], "k": 2}]
