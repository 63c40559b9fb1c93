"""Which listing a code claim means, when several listings print the same ``def`` line (a first version of a
function and a later one): every reader of the claim takes the one its ``occurrence`` names, and a quote several
listings hold without it stops the load."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.errors import RegisterError
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

# A tutorial printing precision_at_k twice: a careful version, then a shorter one readers copy, which averages the
# grades themselves (on grades [2] it returns 2.0, where P@1 of one relevant document is 1/1 = 1).
TWICE = """\
# Precision at k over graded lists

Each ranking is given as its list of grades, best rank first; a grade of 1 or more counts as relevant.

```python
import numpy as np

def precision_at_k(r, k):
    if k < 1:
        raise ValueError("k must be at least 1")
    hits = np.asarray(r)[:k] != 0
    return float(np.sum(hits)) / k
```

Called as `precision_at_k([0, 1, 1], 2)` it returns 0.5.

A shorter version, which many readers copy:

```python
def precision_at_k(r, k):
    return float(np.mean(np.asarray(r)[:k]))
```

Called as `precision_at_k([2], 1)` it returns 2.0.
"""

CHAPTER = "id: twice\ntitle: Precision twice\nsnapshot: {file: snapshot.md}\n"


def _claim(cid: str, occurrence: int | None, calls: str = "") -> str:
    return (f'  - {{id: {cid}, title: t, kind: code, quote: "def precision_at_k(r, k):", claim: c, '
            "function: precision_at_k, measure: P@k, arguments: {r: ranked grades, k: cutoff}"
            + (f", occurrence: {occurrence}" if occurrence is not None else "") + (f", calls: [{calls}]" if calls else "")
            + "}\n")


def _folder(root: Path, claims: str, text: str = TWICE) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "snapshot.md").write_text(text, encoding="utf-8")
    (root / "chapter.yaml").write_text(CHAPTER, encoding="utf-8")
    (root / "claims.yaml").write_text("claims:\n" + claims, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def twice(tmp_path_factory):
    folder = _folder(tmp_path_factory.mktemp("twice"),
                     _claim("T1", 1, "{call: 'precision_at_k([0, 1, 1], 2)', returns: '0.5'}")
                     + _claim("T2", 2, "{call: 'precision_at_k([2], 1)', returns: '2.0'}"))
    chapter = load_chapter(folder)
    report = audit_chapter(chapter, all_references(), collect(["audit", "run"]))
    return chapter, report, {c.id: c for c in report.claims}


def test_each_version_of_a_function_is_checked_on_its_own_listing(twice):
    """The first version is right (P@2 of grades 0, 1 is 1/2, by hand); the second averages grades: on [2] it returns
    2.0 where P@1 is 1/1 = 1 (trec_eval's P_1 of one relevant document at rank 1). Read from the first listing, the
    second claim would have been supported."""
    _, _, results = twice
    assert results["T1"].verdict == "supported", results["T1"].reason
    second = results["T2"]
    assert second.verdict == "contradicted", second.reason
    assert "precision_at_k([2], 1)" in second.reason and "returns 2.0000" in second.reason
    assert "gives 1 on the same input" in second.reason
    # each row points at its own listing: lines 8 and 20 of the snapshot
    assert any("snapshot lines 8–12" in c.label for c in results["T1"].checks)
    assert any("snapshot lines 20–21" in c.label for c in second.checks)
    assert results["T1"].line == 8 and second.line == 20


def test_the_corrected_listing_replaces_the_version_the_claim_means(twice):
    """The hunk is at the second listing (line 20); the first listing and its sentence stay as printed, and the value
    printed after the second call becomes P@1 = 1.0."""
    from audit.research.proposal import patched_text
    chapter, report, _ = twice
    proposal = report.research.proposal
    listing = [h for h in proposal.hunks if h.action == "correct a listing"]
    assert [h.claim for h in listing] == ["T2"], (proposal.not_proposed, proposal.withdrawn)
    assert listing[0].snapshot_line == 20 and "np.mean(np.asarray(r)[:k])" in listing[0].old
    patched = patched_text(chapter.snapshot.text, proposal)
    first = TWICE[TWICE.index("import numpy"):TWICE.index("Called as `precision_at_k([0, 1, 1], 2)`")]
    assert first in patched
    assert "np.mean(np.asarray(r)[:k])" not in patched
    assert "Called as `precision_at_k([2], 1)` it returns 1.0." in patched


def test_a_quote_several_listings_hold_stops_the_load_naming_them(tmp_path):
    """Without occurrence the claim could mean either listing: the load names the file, the claim, the field and the
    lines of both."""
    with pytest.raises(RegisterError) as caught:
        load_chapter(_folder(tmp_path / "ch", _claim("A1", None)))
    error = caught.value
    assert error.claim == "A1" and error.field == "occurrence" and str(error.file).endswith("claims.yaml")
    assert "2 code listings contain 'def precision_at_k(r, k):'" in error.message
    assert "1. lines 6–12" in error.message and "2. lines 20–21" in error.message


def test_an_occurrence_past_the_last_listing_stops_the_load(tmp_path):
    with pytest.raises(RegisterError) as caught:
        load_chapter(_folder(tmp_path / "ch", _claim("A1", 3)))
    assert caught.value.field == "occurrence" and "occurrence 3: 2 code listings" in caught.value.message


def test_every_reader_of_a_claim_takes_the_same_listing():
    """function_source, builds_on_lines, the patch's offset and the anchor agree on the occurrence-th listing."""
    from audit.register.claims import CodeClaim
    from audit.research.listing_plan import listing_offset as _listing_offset
    from audit.text.anchors import anchor_claim
    from audit.text.chapter import Snapshot
    from audit.text.listings import builds_on_lines, function_source

    listing, source = function_source(TWICE, "def precision_at_k(r, k):", "precision_at_k", occurrence=2)
    assert listing.start == 20 and "np.mean" in source
    # the second listing uses np from the first: the import comes along, as a reader running the text has it
    assert source.startswith("import numpy as np\n")
    assert builds_on_lines(TWICE, "def precision_at_k(r, k):", "precision_at_k", 2) == []
    claim = CodeClaim.model_validate({"id": "X", "title": "t", "kind": "code", "quote": "def precision_at_k(r, k):",
                                      "claim": "c", "function": "precision_at_k", "measure": "P@k",
                                      "arguments": {"r": "ranked grades", "k": "cutoff"}, "occurrence": 2})
    assert TWICE[_listing_offset(TWICE, claim):].startswith("def precision_at_k(r, k):\n    return float(np.mean")
    anchor = anchor_claim(Snapshot(Path("snapshot.md"), TWICE), claim)
    assert anchor.state == "unchanged" and anchor.line == 20


def test_init_drafts_the_occurrence_and_each_versions_own_calls(tmp_path):
    """Two versions printing `def precision_at_k(rels, k):`: init drafts a claim on each, with occurrence 1 and 2, and
    gives each the call printed while it is the version in force; the register loads."""
    from audit.draft.init import create_chapter
    text = TWICE.replace("(r, k)", "(rels, k)").replace("np.asarray(r)", "np.asarray(rels)")
    (tmp_path / "ch.md").write_text(text, encoding="utf-8")
    create_chapter(tmp_path / "ch.md", "twice", tmp_path / "claims")
    chapter = load_chapter(tmp_path / "claims" / "twice")
    code = [c for c in chapter.register.claims if c.kind == "code"]
    assert [(c.occurrence, [(s.call, s.returns) for s in c.calls]) for c in code] == [
        (1, [("precision_at_k([0, 1, 1], 2)", "0.5")]), (2, [("precision_at_k([2], 1)", "2.0")])]
