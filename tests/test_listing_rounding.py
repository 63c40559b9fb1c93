"""A listing that rounds what it returns (``round(…, 2)``, as tutorials print tidy numbers): it computes the measure
and rounds it, so the finding names the rounding and the claim is qualified, never contradicted as a wrong
computation; a listing whose values are off by more than any rounding stays contradicted."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from audit.evaluation.checks.rounding import rounded_places
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

TEXT = '''\
# Recall at K

Recall@K is the share of the relevant items that appear in the top K results.

```python
def recall(actual, predicted, K):
    act_set = set(actual)
    pred_set = set(predicted[:K])
    result = round(len(act_set & pred_set) / float(len(act_set)), {places})
    return result
```

With three relevant items and one of them in the top two, `recall(["a", "b", "c"], ["a", "x"], 2)` gives 0.33.
'''
CLAIMS = ('claims:\n  - {id: L1, title: recall, kind: code, quote: "def recall(actual, predicted, K):", claim: c, '
          "function: recall, measure: R@k, arguments: {actual: relevant set, predicted: ranking, K: cutoff}}\n")


def _result(tmp_path: Path, text: str):
    folder = tmp_path / "ch"
    folder.mkdir()
    (folder / "snapshot.md").write_text(text, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: rnd\ntitle: Recall\nsnapshot: {file: snapshot.md}\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    return audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]


def test_a_listing_rounding_to_two_places_is_qualified_by_its_rounding(tmp_path):
    # R@2 with one of three relevant items in the top two is 1/3 (trec_eval's recall_2 gives 0.3333…); the listing
    # returns round(1/3, 2) = 0.33. Before, it was contradicted: "returns 0.3300 where the chapter's definition
    # gives 1/3", as if it computed something else.
    result = _result(tmp_path, TEXT.format(places=2))
    assert result.verdict == "qualified", result.reason
    assert "It returns R@k rounded to two decimal places" in result.reason
    assert "return the unrounded value and round it where it is printed" in result.response


def test_a_listing_off_by_more_than_a_rounding_stays_contradicted(tmp_path):
    # int() truncates 1/3 to 0: no number of places gives the listing's values, so it is wrong, not rounded
    text = TEXT.format(places=2).replace("round(len(act_set & pred_set) / float(len(act_set)), 2)",
                                         "len(act_set & pred_set) // len(act_set)")
    result = _result(tmp_path, text)
    assert result.verdict == "contradicted", result.reason
    assert "rounded to" not in result.reason


@pytest.mark.parametrize("pairs, places", [
    ([(0.33, Fraction(1, 3)), (0.5, Fraction(1, 2)), (0.67, Fraction(2, 3))], 2),
    ([(0.333, Fraction(1, 3)), (0.667, Fraction(2, 3))], 3),
    # values already that round show no rounding
    ([(0.5, Fraction(1, 2)), (1.0, Fraction(1))], None),
    # a value off by more than rounding
    ([(0.3, Fraction(1, 3)), (0.5, Fraction(1, 2))], 1),
    ([(0.25, Fraction(1, 3))], None),
])
def test_rounded_places(pairs, places):
    assert rounded_places(pairs) == places
