"""A listing of a standard name that computes the chapter's stated variant: "AP is the mean of the precisions at
the relevant documents retrieved" (AP over the relevant retrieved, not over all relevant). The listing agrees with
the chapter, as the text says: by the labelled corpus's rule for listings (tests/corpus/measures/labels.yaml, "Code
listings": right everywhere -> supported) it is supported. trec_eval, ir_measures and ranx compute AP over |R| by
default, so the reason names them, how often they agree and the convention they follow, in a supported reason and
in a qualified one alike (before, a listing qualified for its repeated IDs said nothing of the denominator).

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


def _audit(folder, snapshot, chapter=CHAPTER):
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect
    (folder / "snapshot.md").write_text(snapshot, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    (folder / "chapter.yaml").write_text(chapter.format(id=folder.name), encoding="utf-8")
    return audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]


NAMED = ("it computes AP with the chapter's stated AP denominator “relevant retrieved”, where pytrec_eval, ir_measures "
         "and ranx compute AP with AP denominator “|R|” by default")


def test_the_chapters_stated_variant_is_supported_and_its_reason_names_the_references(tmp_path):
    claim = _audit(tmp_path, SNAPSHOT)
    assert claim.verdict == "supported", claim.reason
    assert "it follows AP denominator “|R|” where the chapter's is “relevant retrieved”" in claim.reason, claim.reason
    assert "0.8333" not in claim.reason, claim.reason  # 5/6, printed right


def test_a_variant_qualified_for_repeated_ids_names_the_references_too(tmp_path):
    claim = _audit(tmp_path, SNAPSHOT.replace(
        '    if len(set(ranked_ids)) != len(ranked_ids):\n        raise ValueError("a ranking lists each document once")\n',
        ""))
    assert claim.verdict == "qualified", claim.reason
    assert "repeat" in claim.reason and NAMED in claim.reason, claim.reason


def test_a_reference_that_gives_the_chapters_values_names_no_convention(tmp_path):
    """With no stated denominator the chapter's AP is over |R|, as trec_eval's, ir_measures' and ranx's: the listing
    (over the relevant retrieved, 5/6 where they give 5/9) alone differs. Before, the reference rows said "it
    follows AP denominator “min(k, |R|)” where the chapter's is “|R|”": for AP with no cutoff that reading gives |R|'s
    values too, so it was named though it explains nothing."""
    claim = _audit(tmp_path, SNAPSHOT, CHAPTER.split("conventions:")[0])
    assert claim.verdict == "contradicted", claim.reason
    rows = [v.detail for c in claim.checks for v in c.values if v.implementation in ("pytrec_eval", "ir_measures", "ranx")]
    assert rows and not any("it follows" in r for r in rows), rows
    assert "min(k, |R|)" not in claim.reason, claim.reason
