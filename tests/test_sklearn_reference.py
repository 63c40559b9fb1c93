"""scikit-learn as an optional reference, for a sentence about what scikit-learn computes: a convention claim
``by: scikit-learn``, run only when chapter-audit is installed with its ``sklearn`` extra. Absent, the claim is an
error saying so (never supported, never contradicted).

The probe: judgements a 3, b 0, c 2, d 1; the ranking b, d, a; nDCG@2. DCG@2 = 0 + 1/log2 3 = 0.63093. Ideals:
all judged grades, cut at 2 (trec_eval): 3 + 2/log2 3 = 4.26186 → 0.14804; every retrieved grade sorted, cut at 2
(scikit-learn's ndcg_score([[0, 1, 3]], [[3, 2, 1]], k=2)): 3 + 1/log2 3 = 3.63093 → 0.17377; the first two
retrieved only: 1 → 0.63093. AP on a, b with a and c relevant: scikit-learn's average_precision_score([1, 0],
[2, 1]) = 1.0 (one relevant retrieved); trec_eval's map 1/2 (|R| = 2)."""

from __future__ import annotations

import pytest

from audit.evaluation.references import all_references
from audit.evaluation.references.sklearn_ref import INSTALL, SklearnReference, installed
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

SNAPSHOT = """# nDCG in three libraries

scikit-learn's `ndcg_score` builds its ideal from the grades of the documents it is given, sorted and cut at k.
scikit-learn's `ndcg_score` builds its ideal from every judged grade, as trec_eval does.
Its `average_precision_score`, given one ranked list, divides by the relevant documents in that list.
"""

CLAIMS = """\
fixtures:
  probe:
    qrels: {q1: {a: 3, b: 0, c: 2, d: 1}}
    run: {q1: [b, d, a]}
  unretrieved:
    qrels: {q1: {a: 1, b: 0, c: 1}}
    run: {q1: [a, b]}
claims:
  - {id: K1, title: scikit-learn's ideal, kind: convention, convention: ideal, rule: "all retrieved, cut at k",
     by: scikit-learn, probe: probe, measures: ["nDCG@2"],
     quote: "builds its ideal from the grades of the documents it is given, sorted and cut at k",
     claim: ndcg_score sorts the grades of the retrieved documents for its ideal}
  - {id: K2, title: scikit-learn's ideal said wrongly, kind: convention, convention: ideal, rule: "judged, cut at k",
     by: scikit-learn, probe: probe, measures: ["nDCG@2"],
     quote: "builds its ideal from every judged grade, as trec_eval does",
     claim: ndcg_score sorts every judged grade for its ideal}
  - {id: K3, title: scikit-learn's AP denominator, kind: convention, convention: ap_denominator,
     rule: "relevant retrieved", by: scikit-learn, probe: unretrieved, measures: [AP],
     quote: "divides by the relevant documents in that list",
     claim: average_precision_score divides by the relevant documents retrieved}
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sklearn")
    (folder / "snapshot.md").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: three\ntitle: Three\nsnapshot: {file: snapshot.md}\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    return {c.id: c for c in audit_chapter(load_chapter(folder), all_references(), collect("test")).claims}


@pytest.mark.skipif(installed(), reason="scikit-learn is installed: the claims are checked (tests below)")
def test_without_scikit_learn_the_claim_is_an_error_saying_so(results):
    for cid in ("K1", "K2", "K3"):
        result = results[cid]
        assert result.verdict == "error", result.reason
        assert "scikit-learn is not installed" in result.reason, result.reason
        assert INSTALL in result.response, result.response


@pytest.mark.skipif(not installed(), reason="scikit-learn is not installed (the sklearn extra)")
def test_ndcg_score_is_called_as_its_users_call_it():
    import ir_measures

    outcome = SklearnReference().evaluate([ir_measures.parse_measure("nDCG@2")], {"q1": {"a": 3, "b": 0, "c": 2, "d": 1}},
                                          {"q1": {"b": 3.0, "d": 2.0, "a": 1.0}})["nDCG@2"]
    assert outcome.status == "ok"
    assert outcome.per_query["q1"] == pytest.approx(0.6309297535714575 / 3.6309297535714578, abs=1e-12)


@pytest.mark.skipif(not installed(), reason="scikit-learn is not installed (the sklearn extra)")
def test_with_scikit_learn_its_rule_is_observed(results):
    assert results["K1"].verdict == "supported", results["K1"].reason
    assert results["K2"].verdict == "contradicted", results["K2"].reason
    # average_precision_score([1, 0], [2.0, 1.0]) = 1.0: one relevant document retrieved, at rank 1; trec_eval's map
    # divides by |R| = 2 and gives 0.5
    assert results["K3"].verdict == "supported", results["K3"].reason
    assert "AP q1: 1" in results["K3"].reason, results["K3"].reason


def test_scikit_learn_is_never_a_default_reference():
    """Its AP divides by the relevant retrieved documents: as a default reference it would qualify every AP claim
    that follows trec_eval. It runs only for a sentence about it."""
    assert "sklearn" not in {r.name for r in all_references(start=False)}
