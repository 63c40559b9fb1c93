"""A listing of a standard name that computes the chapter's stated variant: "AP is the mean of the precisions at
the relevant documents retrieved" (AP over the relevant retrieved, not over all relevant). The listing agrees with
the chapter, and the chapter says so, but trec_eval, ir_measures and ranx compute AP over |R| by default, so a
reader checking the listing's values with them gets another number: qualified, naming the references, how often
they agree and the convention they follow (docs/conventions.md, Verdicts: "the text states a convention for a
standard name that the references compute otherwise"). Before, the listing was supported, and the reason of one
with another edge-case finding named only that finding.

Values, by hand: ranking [d1, d5, d2, d9], relevant {d1, d2, d7}: precisions at the relevant retrieved 1/1 and 2/3,
their mean 5/6 ≈ 0.8333; over |R| = 3, (1 + 2/3)/3 = 5/9 ≈ 0.5556 (pytrec_eval's map on the same run)."""

from __future__ import annotations

import pytest

SNAPSHOT = '''\
# Evaluating a retriever, cell by cell

For each rank where the document is relevant, compute the precision at that rank. AP is the **mean** of those
precisions.

```python
import numpy as np


def average_precision(ranked_ids, relevant_ids):
    if len(set(ranked_ids)) != len(ranked_ids):
        raise ValueError("a ranking lists each document once")
    precisions = []
    hits = 0
    for rank, doc in enumerate(ranked_ids, start=1):
        if doc in relevant_ids:
            hits += 1
            precisions.append(hits / rank)
    return float(np.mean(precisions)) if precisions else 0.0
```

```python
print(round(average_precision(["d1", "d5", "d2", "d9"], {"d1", "d2", "d7"}), 4))
```

```text
0.8333
```
'''

CHAPTER = """\
id: {id}
title: Stated AP
snapshot: {{file: snapshot.md}}
conventions:
  ap_denominator:
    value: relevant retrieved
    quote: "AP is the **mean** of those"
"""

CLAIMS = """\
claims:
  - {id: L1, title: AP, kind: code, quote: "def average_precision(ranked_ids, relevant_ids):",
     claim: average_precision computes AP as the text defines it., function: average_precision, measure: AP,
     arguments: {ranked_ids: ranking, relevant_ids: relevant set}}
"""


@pytest.fixture(scope="module")
def claim(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stated")
    (folder / "snapshot.md").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    (folder / "chapter.yaml").write_text(CHAPTER.format(id=folder.name), encoding="utf-8")
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    return report.claims[0]


def test_the_chapters_stated_variant_of_a_standard_name_is_qualified_naming_the_references(claim):
    assert claim.verdict == "qualified", claim.reason
    assert "stated AP denominator “relevant retrieved”" in claim.reason, claim.reason
    assert "pytrec_eval, ir_measures and ranx compute AP with AP denominator “|R|” by default" in claim.reason
    assert "trec_eval, ir_measures or ranx get another number" in claim.concern
    assert claim.response.startswith("State where the listing is given that it computes this variant"), claim.response


def test_the_printed_value_of_the_variant_is_the_listings(claim):
    """0.8333 is the chapter's 5/6, printed right: no finding on it."""
    assert "0.8333" not in claim.reason, claim.reason
