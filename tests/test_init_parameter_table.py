"""A table of one measure at several values of its parameter (``| p | RBP |``, a row per persistence), on a ranking
whose relevant ranks a sentence gives and whose length the sentence before it gives ("Our example ranking has eight
results."), with one document the text says was never judged. `audit init` drafts each row as the measure at the
row's parameter (``RBP(p=0.5)``) on that ranking, with no register edit.

Right values (``test_the_right_values``, ir_measures called directly; by hand RBP = (1 − p)·Σ p^(i−1) over the
relevant ranks 1, 3, 4): p = 0.5 gives 0.5 × (1 + 0.25 + 0.125) = 0.6875, p = 0.9 gives 0.1 × (1 + 0.81 + 0.729) =
0.2539. The row for p = 0.8 prints 0.500 where the ranking gives 0.2 × (1 + 0.64 + 0.512) = 0.4304 (planted): no
reading of that ranking gives it, so init leaves the row a draft rather than audit it on a ranking it may not be.
"""

from __future__ import annotations

import pytest

from chapters import init_and_run

FAQ = """\
# FAQ: how patient is your user?

Our example ranking has eight results. The relevant ones are at ranks 1, 3 and 4; the document at rank 6 was never judged, and everything else was judged non-relevant.

## RBP by persistence

For our ranking:

| p | RBP |
|---|---|
| 0.5 | 0.688 |
| 0.9 | 0.254 |
| 0.8 | 0.500 |
"""

UNKNOWN_LENGTH = FAQ.replace("Our example ranking has eight results. ", "")


def test_the_right_values():
    from ranx import Qrels, Run, evaluate
    ranking = [f"d{i}" for i in range(1, 9)]
    qrels = Qrels({"q": {d: 1 if i in (1, 3, 4) else 0 for i, d in enumerate(ranking, 1) if i != 6}})
    run = Run({"q": {d: 10.0 - i for i, d in enumerate(ranking)}})
    got = [round(float(evaluate(qrels, run, f"rbp.{p}")), 4) for p in ("5", "9", "8")]
    assert got == [0.6875, 0.2539, 0.4304]
    assert got == [round((1 - p) * sum(p ** (i - 1) for i in (1, 3, 4)), 4) for p in (0.5, 0.9, 0.8)]


@pytest.fixture(scope="module")
def faq(tmp_path_factory):
    root = tmp_path_factory.mktemp("faq")
    _, _, claims = init_and_run(root, "faq.md", FAQ, "faq")
    return _register(root), claims


def _register(root):
    return " ".join((root / "claims" / "faq" / "claims.yaml").read_text(encoding="utf-8").split())


@pytest.mark.parametrize("row, measure", [("| 0.5 | 0.688 |", "RBP(p=0.5)"), ("| 0.9 | 0.254 |", "RBP(p=0.9)")])
def test_each_row_is_the_measure_at_its_parameter_on_the_example(faq, row, measure):
    chapter, claims = faq
    found = [c for c in claims if c["quote"] == row]
    assert [(c["kind"], c["verdict"]) for c in found] == [("value", "supported")], found
    assert measure in chapter


def test_a_row_no_reading_of_the_example_gives_stays_a_draft(faq):
    chapter, claims = faq
    found = [c for c in claims if c["quote"] == "| 0.8 | 0.500 |"]
    assert [c["kind"] for c in found] == ["draft"], found
    assert "RBP(p=0.8) = 0.43" in chapter   # the draft says what the ranking gives


def test_a_ranking_of_unknown_length_leaves_the_rows_drafts_asking_for_it(tmp_path):
    _, _, claims = init_and_run(tmp_path, "faq.md", UNKNOWN_LENGTH, "faq")
    chapter = _register(tmp_path)
    rows = [c for c in claims if c["quote"].startswith("| 0.")]
    assert len(rows) == 3 and {c["kind"] for c in rows} == {"draft"}, rows
    assert "how many results does the ranking return" in chapter
