"""``audit init`` on listings whose names and parameters say less than their bodies: a measure named by a short word
(``rr_at_k``, ``err_at_k``, ``ap_by_query``), judgements without a type hint that the body looks the ranking's
documents up in, a bare ``r`` the body cuts at the cutoff, and a run walked query by query. The drafted code claims
run unedited and find each listing's real defect; a parameter whose use the body does not settle stays a draft."""

from __future__ import annotations

import math

import pytest

from chapters import init_and_run

from audit.draft.encode_code import _measure_of

UTILS = '''\
# evalkit: four small metrics

The helpers below are what our notebooks import. Each takes one query unless its name says otherwise.

```python
import math

DEFAULT_K = 10


def rr_at_k(ranking, relevant, k=DEFAULT_K):
    for i, doc in enumerate(ranking):
        if i >= k:
            break
        if doc in relevant:
            return 1.0 / (i + 1)
    return 0.0


def rr_at_k_loose(ranking, relevant, k=DEFAULT_K):
    for i, doc in enumerate(ranking):
        if i > k:
            break
        if doc in relevant:
            return 1.0 / (i + 1)
    return 0.0


def ndcg_at_k(ranking, qrels, k=10):
    top = list(ranking)[:k]
    ideal = sorted(qrels.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal, start=1))
    if idcg == 0:
        return 0.0
    dcg = sum(qrels.get(doc, 0) / math.log2(rank + 1) for rank, doc in enumerate(top, start=1))
    return dcg / idcg


def dcg(r, k):
    return sum(g / math.log2(i + 2) for i, g in enumerate(r[:k]))


def ndcg(r, k):
    best = dcg(sorted(r, reverse=True), k)
    return dcg(r, k) / best if best else 0.0


def ap_by_query(run, qrels):
    out = {}
    for qid, doc_scores in run.items():
        judged = qrels.get(qid, {})
        n_rel = sum(1 for g in judged.values() if g >= 1)
        ranked = sorted(doc_scores, key=doc_scores.get, reverse=True)
        hits, total = 0, 0.0
        for rank, doc in enumerate(ranked, start=1):
            if judged.get(doc, 0) >= 1:
                hits += 1
                total += hits / rank
        out[qid] = total / n_rel if n_rel else 0.0
    return out


def ap_by_query_ascending(run, qrels):
    out = {}
    for qid, doc_scores in run.items():
        judged = qrels.get(qid, {})
        n_rel = sum(1 for g in judged.values() if g >= 1)
        ranked = sorted(doc_scores, key=doc_scores.get)
        hits, total = 0, 0.0
        for rank, doc in enumerate(ranked, start=1):
            if judged.get(doc, 0) >= 1:
                hits += 1
                total += hits / rank
        out[qid] = total / n_rel if n_rel else 0.0
    return out


def rr_at_k_pooled(ranking, qrels, k=10):
    pool = len(qrels)
    for i, doc in enumerate(ranking[:k]):
        if doc in qrels:
            return 1.0 / (i + 1) + 0 * pool
    return 0.0
```
'''


@pytest.fixture(scope="module")
def utils(tmp_path_factory):
    _, _, claims = init_and_run(tmp_path_factory.mktemp("utils"), "evalkit.md", UTILS, "evalkit")
    return {c["quote"]: c for c in claims}


@pytest.mark.parametrize("function, verdict", [
    # right on well-formed input; a ranking repeating an ID, for which the text states no rule, qualifies it
    ("rr_at_k", "qualified"),
    # ``i > k`` lets rank k + 1 in: RR@1 of [d2, d1] with d1 relevant is 1/2 here, 0 in trec_eval's recip_rank
    # cut at 1 (ir_measures' RR@1 gives 0.0 on that query)
    ("rr_at_k_loose", "contradicted"),
    # judgements without a hint, read as one query's qrels from ``qrels.get(doc, 0)`` over ``top = ranking[:k]``
    ("ndcg_at_k", "qualified"),
    # ``r`` cut at the cutoff and sorted beside a cutoff alone: ranked grades; its ideal is the list's own, so
    # grades [1] with a second relevant document unretrieved give 1.0 where trec_eval's ndcg_cut.2 gives 1/(1 + 1/log2 3)
    ("ndcg", "contradicted"),
    ("ap_by_query", "supported"),
    # ascending sort puts the lowest score first: AP of {a: 3, b: 1} with a relevant is 1/2, trec_eval's map 1.0
    ("ap_by_query_ascending", "contradicted"),
])
def test_listing_roles_read_from_the_body(utils, function, verdict):
    quote = next(q for q in utils if q.startswith(f"def {function}("))
    claim = utils[quote]
    assert claim["kind"] == "code" and claim["verdict"] == verdict, claim
    if function == "ndcg":
        assert "ideal DCG “all retrieved, cut at k”" in claim["reason"], claim["reason"]
    if verdict == "qualified":
        assert "repeats an ID" in claim["reason"], claim["reason"]


def test_a_use_the_body_does_not_settle_stays_a_draft(utils):
    # ``len(qrels)`` is no document lookup: the role of ``qrels`` stays a question to the author
    claim = next(c for q, c in utils.items() if q.startswith("def rr_at_k_pooled("))
    assert claim["kind"] == "draft" and "qrels" in claim["claim"], claim


def test_reference_values_the_verdicts_rest_on():
    import ir_measures
    from ir_measures import Qrel, ScoredDoc
    rr1 = ir_measures.calc_aggregate([ir_measures.RR @ 1], [Qrel("q", "d1", 1)],
                                     [ScoredDoc("q", "d2", 2.0), ScoredDoc("q", "d1", 1.0)])
    assert rr1[ir_measures.RR @ 1] == 0.0
    ap = ir_measures.calc_aggregate([ir_measures.AP], [Qrel("q", "a", 1), Qrel("q", "b", 0)],
                                    [ScoredDoc("q", "a", 3.0), ScoredDoc("q", "b", 1.0)])
    assert ap[ir_measures.AP] == 1.0
    ndcg = ir_measures.calc_aggregate([ir_measures.nDCG @ 2], [Qrel("q", "d0", 1), Qrel("q", "d1", 1)],
                                      [ScoredDoc("q", "d0", 1.0)])
    assert ndcg[ir_measures.nDCG @ 2] == pytest.approx(1 / (1 + 1 / math.log2(3)))


@pytest.mark.parametrize("name, measure", [
    ("rr_at_k", "RR"), ("err_at_k", "ERR"), ("expected_reciprocal_rank", "ERR"), ("ap_by_query", "AP"),
    ("map_at_k", "AP"), ("p_at_k", "P"), ("r_at_10", "R"), ("average_precision_at_k", "AP"),
    ("mean_reciprocal_rank", "RR"), ("stderr_of_mean", None), ("parse_run", None), ("rank_of", None),
])
def test_the_measure_a_name_says(name, measure):
    assert _measure_of(name) == measure


def test_a_recommenders_names_give_the_roles_and_the_measure():
    """``predictions``/``preds`` and ``targets``/``actuals`` (a recommender's words) are a ranking and the relevant
    set; ``apk``/``mapk`` (the widely copied ml_metrics names) compute AP. Before, such listings stayed drafts."""
    from audit.draft.encode_code import _role
    assert [_role(n, "") for n in ("preds", "recommended", "targets", "actuals", "ground_truth")] == [
        "ranking", "ranking", "relevant set", "relevant set", "relevant set"]
    assert _measure_of("apk") == "AP" and _measure_of("mapk") == "AP"
