"""Listings that load as a reader's Python loads them: a signature over several lines in plain text, an unused import
the sandbox lacks, ``from __future__ import annotations`` carried from an earlier block."""

from __future__ import annotations

import ast

import pytest

from audit.evaluation.checks.text_calls import without_unused_imports
from audit.evaluation.references import all_references
from audit.evaluation.sandbox import unavailable_reason
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect
from audit.text.listings import find_listings, function_source, unused_imports

sandboxed = pytest.mark.skipif(bool(unavailable_reason()), reason=f"isolation unavailable: {unavailable_reason()}")

PLAIN = """\
Ranked retrieval metrics

The function below computes precision at k for one ranking. It divides by k.

import numpy as np


def precision_at_k(
    ranking,
    relevant,
    k=10,
) -> float:
    \"\"\"Precision at k.

    The share of the first k documents that are relevant.
    \"\"\"
    hits = np.isin(np.asarray(ranking[:k]), np.asarray(list(relevant)))
    return float(hits.sum()) / k


That is all there is to it.
"""


def test_a_signature_over_several_lines_in_plain_text_is_one_listing():
    """Read as 'not valid Python ('(' was never closed)' before: the listing stopped at the '):' line."""
    listing, source = function_source(PLAIN, "def precision_at_k(", "precision_at_k")
    assert (listing.start, listing.end, listing.style) == (5, 18, "unfenced")
    assert "return float(hits.sum()) / k" in source and "import numpy as np" in source
    ast.parse(source)
    assert not any("That is all" in l.code for l in find_listings(PLAIN))


TWO_BLOCKS = """\
# Typed helpers

```python
from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence


def gain(grade: int) -> float:
    return 2 ** grade - 1
```

The discounted cumulative gain sums gain(g) / log2(rank + 1) over the first k grades.

```python
from __future__ import annotations


def dcg_at_k(grades: Sequence[int], k: int) -> float:
    return sum(gain(g) / math.log2(rank + 1) for rank, g in enumerate(grades[:k], start=1))
```
"""


def test_future_annotations_of_an_earlier_block_are_carried_once_to_the_top():
    """Joined as printed, the second block's __future__ import followed the first block's code (a SyntaxError when
    run), and without it the hint Sequence (bound only under TYPE_CHECKING) raised NameError when defined."""
    for builds_on in ([], ["def gain(grade: int) -> float:"]):
        _, source = function_source(TWO_BLOCKS, "def dcg_at_k(", "dcg_at_k", builds_on)
        assert source.startswith("from __future__ import annotations\n")
        assert source.count("from __future__") == 1
        namespace: dict = {}
        exec(compile(source, "listing", "exec"), namespace)  # defines as Python does: the hint is never evaluated
        # by hand: grades 3, 2 at k = 2 give (2^3 - 1)/log2(2) + (2^2 - 1)/log2(3) = 7 + 3/log2(3)
        import math
        assert namespace["dcg_at_k"]([3, 2], 2) == pytest.approx(7 + 3 / math.log2(3))


def test_an_import_used_only_in_postponed_type_hints_is_unused():
    source = ("from __future__ import annotations\nimport numpy as np\nimport pydantic_x\nfrom pkg_x import Model\n"
              "def f(r: Model, k: int) -> pydantic_x.Score:\n    return float(np.sum(r[:k]))\n")
    assert [m for m, _, _ in unused_imports(source)] == ["pydantic_x", "pkg_x"]
    kept, notes = without_unused_imports(source)
    assert "pydantic_x" not in kept.split("def")[0] and "import numpy as np" in kept
    assert len(notes) == 2 and "environment:" in notes[0] and "never uses it" in notes[0]
    # without the __future__ import the hints are evaluated when the function is defined: the imports are used
    assert unused_imports(source.replace("from __future__ import annotations\n", "")) == []


IMPORTS = """\
# Typed metrics

Recall at k divides the relevant documents found in the first k by all relevant documents.

```python
from __future__ import annotations

import pydantic_x


def recall_at_k(ranking: list[str], relevant: set[str], k: int) -> pydantic_x.Score:
    if len(set(ranking)) != len(ranking):
        raise ValueError("a ranking may not repeat a document")
    if not relevant:
        return 0.0
    return len(set(ranking[:k]) & relevant) / len(relevant)
```

```python
import pydantic_x


def recall_checked(ranking: list[str], relevant: set[str], k: int) -> float:
    pydantic_x.validate(ranking)
    return len(set(ranking[:k]) & relevant) / len(relevant)
```
"""
IMPORTS_CLAIMS = """\
claims:
  - {id: R1, title: recall_at_k, kind: code, quote: "def recall_at_k(", claim: R@k,
     function: recall_at_k, measure: R@k, arguments: {ranking: ranking, relevant: relevant set, k: cutoff}}
  - {id: R2, title: recall_checked, kind: code, quote: "def recall_checked(", claim: R@k,
     function: recall_checked, measure: R@k, arguments: {ranking: ranking, relevant: relevant set, k: cutoff}}
"""


@sandboxed
def test_an_unused_import_the_sandbox_lacks_blocks_nothing_and_a_used_one_is_named_exactly(tmp_path):
    """recall_at_k imports pydantic_x for its return hint only: it is checked without it, and it is right (trec_eval's
    recall is |found ∩ R| / |R|; the listing refuses repeated IDs on purpose). recall_checked calls pydantic_x: it
    cannot load, and the error says that and how to provide it, with no finding about its values."""
    folder = tmp_path / "imports"
    folder.mkdir()
    (folder / "snapshot.md").write_text(IMPORTS, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: imports\ntitle: Typed metrics\nsnapshot: {file: snapshot.md}\n",
                                         encoding="utf-8")
    (folder / "claims.yaml").write_text(IMPORTS_CLAIMS, encoding="utf-8")
    claims = {c.id: c for c in audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims}
    r1 = claims["R1"]
    assert r1.verdict == "supported", r1.reason
    assert "imports pydantic_x, which the listing sandbox cannot provide" in r1.reason
    r2 = claims["R2"]
    assert r2.verdict == "error", r2.reason
    assert "not run: the listing imports pydantic_x and uses it" in r2.reason
    assert "not certified" not in r2.reason and "did run" not in r2.reason
    assert "environment:" in r2.response and "pip install pydantic_x" in r2.response
