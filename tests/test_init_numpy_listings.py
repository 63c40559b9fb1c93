"""``audit init`` on the shapes NumPy texts have: a metrics module whose functions take a bare ``r`` (grades in rank
order) converted with ``np.asarray`` or through a helper (``_hits(r)``), a tutorial whose functions hand their
``qrels`` to a helper with the ranking (``grades_for(ranking, qrels)``), a section that switches the relevance level
for its own listing, a sentence that states the rule of "this version" just before its listing, and a sum printed
with its terms rounded on the way ("≈ 1 + 1.893 + 0.774 = 3.667"). Each is drafted runnable, unedited, and its
verdict is the right one."""

from __future__ import annotations

import json

import pytest
import yaml

from chapters import init_and_run

from audit.text.stated import stated_in

MODULE = '''\
# ranklib — rank metrics over relevance lists

Every function takes `r`, the relevance grades of one query's results in rank order (first element is rank 1).

```python
import numpy as np


def _hits(r):
    """True where the grade is non-zero."""
    return np.asarray(r) != 0


def reciprocal_rank(r):
    """1 / rank of the first relevant result.

    >>> reciprocal_rank([0, 0, 1, 0])
    0.3333333333333333
    """
    where = np.flatnonzero(_hits(r))
    return 1.0 / (where[0] + 1) if where.size else 0.0


def precision_at_k(r, k):
    """Precision at k.

    >>> precision_at_k([0, 1, 1, 0], 2)
    0.5
    """
    r = np.asarray(r)[:k] != 0
    return float(np.mean(r))


def success_at_k(r, k):
    """1.0 when a relevant result is in the first k."""
    return float(_hits(r)[: k + 1].any())
```
'''

TUTORIAL = '''\
# nDCG with NumPy, step by step

The rules for the rest of the post:

- A document with grade 1 or more counts as relevant.
- A document that is not in the judgements has grade 0.
- The gain of a document is its grade, discounted by log2(rank + 1).
- If a ranking lists a document twice, only its first position counts.

## Helpers

```python
import numpy as np


def grades_for(ranking, qrels):
    first_seen = dict.fromkeys(ranking)
    return np.asarray([qrels.get(doc, 0) for doc in first_seen], dtype=float)
```

For the grades 1, 3, 0, 0, 2 the sum is DCG@5 = 1 + 3/log2(3) + 2/log2(6) ≈ 1 + 1.893 + 0.774 = 3.667.

```python
def reciprocal_rank(ranking, qrels):
    hits = np.flatnonzero(grades_for(ranking, qrels) >= 1)
    return 1.0 / (hits[0] + 1) if hits.size else 0.0
```

## The leaderboard metric

The leaderboard only counts grade-2 documents for MRR@10. We switch the threshold and cut at ten:

```python
def rr_at_k(ranking, qrels, k=10):
    hits = np.flatnonzero(grades_for(ranking, qrels)[:k] >= 2)
    return 1.0 / (hits[0] + 1) if hits.size else 0.0
```

## Against scikit-learn

Like `ndcg_score`, this version takes its ideal from the labels it is given, sorted best first and cut at k:

```python
def ndcg_from_labels(labels, k):
    g = np.asarray(labels, dtype=float)
    discounts = np.log2(np.arange(2, min(k, g.size) + 2))
    ideal = np.sort(g)[::-1][:k]
    best = float(np.sum(ideal / discounts[:ideal.size]))
    return float(np.sum(g[:k] / discounts[:g[:k].size])) / best if best else 0.0
```
'''


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return init_and_run(tmp_path_factory.mktemp("ranklib"), "ranklib.md", MODULE, "ranklib")


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return init_and_run(tmp_path_factory.mktemp("tutorial"), "ndcg.md", TUTORIAL, "ndcg")


def _by_quote(claims, start):
    return next(c for c in claims if c["quote"].startswith(start))


@pytest.mark.parametrize(("quote", "verdict", "why"), [
    ("def reciprocal_rank(r):", "supported",
     "1/rank of the first non-zero grade; [0, 0, 1, 0] gives 1/3 by hand and pytrec_eval's recip_rank"),
    ("def precision_at_k(r, k):", "contradicted",
     "the mean of the first k hits divides by the number returned: [1] at k = 2 gives 1.0 where P@2 is 1/2 "
     "(trec_eval P_2 divides by k)"),
    ("def success_at_k(r, k):", "contradicted",
     "cuts one rank late: [0, 1] at k = 1 gives 1.0 where Success@1 is 0 (trec_eval success_1)"),
])
def test_a_bare_r_read_through_np_asarray_or_a_helper_is_drafted_as_ranked_grades(module, quote, verdict, why):
    claim = _by_quote(module[2], quote)
    assert claim["kind"] == "code", claim
    assert claim["verdict"] == verdict, (why, claim["reason"])


def test_qrels_handed_to_a_helper_with_the_ranking_is_one_querys_judgements(tutorial):
    """``grades_for(ranking, qrels)`` looks each document of the ranking (repeats dropped) up in ``qrels``: one
    query's {document: grade}. reciprocal_rank is right (RR = 1/rank of the first grade >= 1, trec_eval's
    recip_rank), with the stated rule for a repeated document (keep its first position)."""
    claim = _by_quote(tutorial[2], "def reciprocal_rank(ranking, qrels):")
    assert claim["kind"] == "code" and claim["verdict"] == "supported", claim["reason"]
    assert yaml.safe_load(tutorial[1])["conventions"]["repeated_ids"]["value"] == "keep first"


def test_a_section_that_switches_the_relevance_level_holds_its_own_listing_to_it(tutorial):
    """The chapter counts grade >= 1 as relevant; the leaderboard section counts grade 2 only, and rr_at_k (grade
    >= 2) is right there (ir_measures RR(rel=2)@10), where at level 1 it would be wrong. The chapter keeps level 1."""
    claim = _by_quote(tutorial[2], "def rr_at_k(ranking, qrels, k=10):")
    assert claim["verdict"] == "supported", claim["reason"]
    assert yaml.safe_load(tutorial[1])["conventions"]["relevance_level"]["value"] == "1"
    assert "grade-2" not in tutorial[1]


def test_a_sentence_on_this_version_states_the_rule_of_the_listing_after_it(tutorial):
    """scikit-learn's ndcg_score takes its ideal from the labels it is given, sorted and cut at k: the function
    follows the rule its own sentence states, so it is supported, and that rule is not the chapter's."""
    claim = _by_quote(tutorial[2], "def ndcg_from_labels(labels, k):")
    assert claim["verdict"] == "supported", claim["reason"]
    assert "ideal" not in tutorial[1]


def test_a_sum_printed_through_its_rounded_terms_is_qualified_by_their_rounding(tutorial):
    """1 + 3/log2(3) + 2/log2(6) = 3.666495 (by hand), which prints 3.666; the terms printed rounded, 1 + 1.893 +
    0.774, sum to 3.667 exactly: the rounding of the printed terms only (statcheck's rounding case), not an error."""
    claim = _by_quote(tutorial[2], "1 + 3/log2(3) + 2/log2(6)")
    assert claim["verdict"] == "qualified", claim["reason"]
    assert "the rounding of the terms the sentence prints" in claim["reason"]


@pytest.mark.parametrize(("sentence", "name", "value"), [
    ("The leaderboard only counts grade-2 documents for MRR@10.", "relevance_level", "2"),
    ("A document with grade 1 or more counts as relevant.", "relevance_level", "1"),
    ("A document that is not in the judgements has grade 0.", "unjudged", "non-relevant"),
    ("A passage missing from the labels counts as grade 0.", "unjudged", "non-relevant"),
    ("The gain of a document is its grade.", "gain", "linear"),
    ("If a ranking lists a document twice, only its first position counts.", "repeated_ids", "keep first"),
    ("A query with no relevant judged document scores 0.", "no_relevant", "scores 0"),
    ("this version takes its ideal from the labels it is given, sorted best first and cut at k", "ideal",
     "all retrieved, cut at k"),
])
def test_the_wordings_these_texts_state_their_rules_in(sentence, name, value):
    assert stated_in(sentence)[name][0] == value


FORMATTED = '''\
# Set-based metrics, formatted

The module is formatted with one parameter per line, as code formatters write long signatures.

```python
def precision_at_k(
    ranking: list[str],
    relevant: set[str],
    k: int = 10,
) -> float:
    """Share of the first k results that are relevant."""
    if k < 1:
        raise ValueError("k must be at least 1")
    return len(set(ranking[:k]) & relevant) / k


def recall_at_k(
    ranking: list[str],
    relevant: set[str],
    k: int = 10,
) -> float:
    """Share of the relevant documents found in the first k."""
    if k < 1:
        raise ValueError("k must be at least 1")
    return len(set(ranking[:k]) & relevant) / k
```
'''


@pytest.fixture(scope="module")
def formatted(tmp_path_factory):
    return init_and_run(tmp_path_factory.mktemp("formatted"), "formatted.md", FORMATTED, "formatted")


@pytest.mark.parametrize(("quote", "verdict", "why"), [
    ("def precision_at_k(", "qualified",
     "hits among the first k over k, as trec_eval's P_k; a ranking that repeats an ID is scored (set() counts it once) "
     "where trec_eval rejects it, and the text states no rule"),
    ("def recall_at_k(", "contradicted",
     "divides by k, not by the relevant count: a, x with a and b relevant at k = 1 gives 1.0 where R@1 is 1/2 "
     "(trec_eval recall_1)"),
])
def test_a_signature_over_several_lines_is_drafted_runnable(formatted, quote, verdict, why):
    """The def line alone ("def precision_at_k(") was "not a def line", and no listing of a formatted module was
    drafted; read on to the colon that ends the signature, its parameters get their roles from their hints."""
    claim = _by_quote(formatted[2], quote)
    assert claim["kind"] == "code", claim
    assert claim["verdict"] == verdict, (why, claim["reason"])


DESCRIPTIVE_NAMES = '''\
# Practice: metrics on document IDs

Precision@K is the share of the top K that is relevant; Recall@K the share of the relevant documents found there.

```python
from typing import List, Set


def precision_at_k(ranked_doc_ids: List[int], relevant_doc_ids: Set[int], k: int) -> float:
    if len(set(ranked_doc_ids)) != len(ranked_doc_ids):
        raise ValueError("a ranking lists each document once")
    if k < 1:
        raise ValueError("k must be at least 1")
    return sum(1 for d in ranked_doc_ids[:k] if d in relevant_doc_ids) / k


def recall_at_k(retrieved_docs: List[int], relevant_doc_ids: Set[int], k: int) -> float:
    if len(set(retrieved_docs)) != len(retrieved_docs):
        raise ValueError("a ranking lists each document once")
    if not relevant_doc_ids:
        return 0.0
    return sum(1 for d in retrieved_docs[:k] if d in relevant_doc_ids) / k
```
'''


@pytest.fixture(scope="module")
def descriptive(tmp_path_factory):
    return init_and_run(tmp_path_factory.mktemp("descriptive"), "ids.md", DESCRIPTIVE_NAMES, "ids")


@pytest.mark.parametrize(("quote", "verdict"), [("def precision_at_k(", "supported"),
                                                ("def recall_at_k(", "contradicted")])
def test_longer_parameter_names_get_their_roles_from_their_words(descriptive, quote, verdict):
    """``ranked_doc_ids: List[int]`` (integer IDs, not grades) and ``relevant_doc_ids: Set[int]`` had no role, so a
    notebook's listings stayed drafts; by the words of their names they are a ranking and a relevant set. By hand:
    recall_at_k divides by k, so ranking [0], relevant {0, 1}, k = 1 gives 1.0 where R@1 = 1/2."""
    claim = _by_quote(descriptive[2], quote)
    assert claim["kind"] == "code", claim
    assert claim["verdict"] == verdict, claim["reason"]
    # IDs of mixed type are outside what the hints declare (List[int]): no row, no "not counted" aside
    assert "mixed type" not in json.dumps(claim), claim["reason"]
