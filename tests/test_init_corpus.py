"""``audit init`` on the labelled measures corpus (tests/corpus/measures, labels computed by compute_labels.py with
the libraries called directly and by hand): a claim init marks runnable must never turn a right sentence into a
finding. Every text is drafted and audited unedited (a few minutes: marked slow, run with ``pytest -m slow``)."""

from __future__ import annotations

import pytest

import corpus_measures as cm


@pytest.mark.slow
def test_no_runnable_draft_contradicts_or_qualifies_a_supported_statement():
    """Each statement labelled supported that a runnable claim of init's draft quotes gets supported from it: a
    fixture init built from what the text does not determine (a rank taken for every relevant position, a count of
    hits ignored) would contradict a correct sentence. And every runnable claim's verdict is the labelled one."""
    from audit.evaluation.references import all_references
    references = all_references()
    harmed, wrong = [], []
    for text in cm.load():
        snapshot = (cm.CORPUS / text["file"]).read_text(encoding="utf-8")
        drafted, _ = cm.init_draft(snapshot, references)
        for s in text["statements"]:
            a = snapshot.index(s["quote"])
            verdicts = [v for q, v in drafted if (b := snapshot.find(q)) >= 0 and b < a + len(s["quote"])
                        and a < b + len(q)]
            if not verdicts:
                continue
            worst = min(verdicts, key=lambda v: cm._ORDER.get(v, 3))
            if s["verdict"] == "supported" and worst != "supported":
                harmed.append((text["id"], s["quote"][:80], verdicts))
            if worst != s["verdict"]:
                wrong.append((text["id"], s["quote"][:80], s["verdict"], worst))
    assert not harmed, harmed
    assert not wrong, wrong
