"""A listing that fails only on generated inputs of an edge case's kind is qualified, and its reason names that kind
as the failing inputs show it. A P@k over the number returned (the chapter's stated denominator) divides by zero on
an empty ranking only: it returns 0 wherever something is returned and nothing of it is relevant. Before, the reason
said "each retrieving nothing relevant (or nothing at all)" and the fix asked it to "return 0.0 when nothing relevant
is found", which it already does.

Values, by hand: ranking [d1, d5], relevant {d1}, k = 5: one relevant of the two returned, 1/2 over the number
returned; ranking [d5], relevant {d1}, k = 1: 0/1 = 0; ranking [], k = 1: 0/0, which the chapter's definitions give
as 0 (nothing returned, nothing found)."""

from __future__ import annotations

TEXT = '''\
# Precision of what was returned

P@k divides the relevant documents in the top k by the number of results returned.

```python
def precision_at_k(predictions, targets, k):
    top = predictions[:k]
    if len(set(top)) != len(top):
        raise ValueError("a ranking lists each document once")
    return len(set(top) & set(targets)) / float(len(top))
```
'''

CHAPTER = """\
id: edgekind
title: Edge kinds
snapshot: {file: snapshot.md}
conventions:
  precision_denominator:
    value: number returned
    quote: "P@k divides the relevant documents in the top k by the number of results returned."
"""

CLAIMS = """\
claims:
  - {id: P1, title: P@k, kind: code, quote: "def precision_at_k(predictions, targets, k):",
     claim: precision_at_k computes P@k as the text defines it., function: precision_at_k, measure: P@k,
     arguments: {predictions: ranking, targets: relevant set, k: cutoff}}
"""


def test_a_listing_failing_only_on_empty_rankings_is_named_so(tmp_path):
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect
    folder = tmp_path / "edgekind"
    folder.mkdir()
    (folder / "snapshot.md").write_text(TEXT, encoding="utf-8")
    (folder / "chapter.yaml").write_text(CHAPTER, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    claim = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]
    assert claim.verdict == "qualified", claim.reason
    assert "generated inputs, each retrieving nothing, it disagrees" in claim.reason, claim.reason
    assert "nothing relevant" not in claim.reason, claim.reason
    assert "return 0.0 for an empty ranking" in claim.response, claim.response
    assert "when nothing relevant is found" not in claim.response, claim.response
