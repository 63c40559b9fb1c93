"""A rounding story is told only when rounding explains the gap. A lesson prints AP as the mean of P@1, P@2 and P@3
with P@3 rounded — "AP: (1.0 + 0.5 + 0.667) / 3 = 0.722" — on a ranking whose relevant documents sit at ranks 1, 3
and 5 of five (three relevant in all). Read exactly, those terms give (1 + 1/2 + 2/3)/3 = 13/18 ≈ 0.7222, as printed;
AP is (1/1 + 2/3 + 3/5)/3 = 34/45 ≈ 0.7556 (trec_eval's map, ir_measures' AP and ranx's map agree: the test calls
pytrec_eval). The printed value is not AP under any reading, and the difference is not the rounding of 0.667: the
claim is contradicted, never qualified "by the rounding of the terms". The discount sums whose terms are rounded
logarithms keep their story (tests/test_printed_term_stories.py)."""

from __future__ import annotations

from chapters import audit_text

LESSON = """\
# Average precision, step by step

Take one query and five results, judged in order:

1. Relevant
2. Not relevant
3. Relevant
4. Not relevant
5. Relevant

Relevant documents: 3

- P@1: 1/1 = 1.0
- P@2: 1/2 = 0.5
- P@3: 2/3 = 0.667

AP: (1.0 + 0.5 + 0.667) / 3 = 0.722
"""

REGISTER = """\
fixtures:
  five:
    qrels: {q1: {a: 1, n1: 0, b: 1, n2: 0, c: 1}}
    run: {q1: [a, n1, b, n2, c]}
claims:
  - id: C01
    title: AP as printed
    kind: arithmetic
    quote: "(1.0 + 0.5 + 0.667) / 3 = 0.722"
    claim: The printed AP.
    expression: "(1.0 + 0.5 + 0.667) / 3"
    claimed: "0.722"
    computes: {measure: AP, fixture: five}
  - id: C02
    title: AP of the five results
    kind: value
    quote: "AP: (1.0 + 0.5 + 0.667) / 3 = 0.722"
    claim: AP of relevant at 1, 3 and 5 with three relevant.
    fixture: five
    expect:
      - {measure: AP, claimed: "0.722"}
"""


def test_the_reference_value():
    import pytrec_eval
    ap = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "n1": 0, "b": 1, "n2": 0, "c": 1}}, {"map"}).evaluate(
        {"q": {"a": 5.0, "n1": 4.0, "b": 3.0, "n2": 2.0, "c": 1.0}})["q"]["map"]
    assert round(ap, 4) == 0.7556 and abs(ap - 34 / 45) < 1e-12


def test_terms_that_are_not_the_measure_s_tell_no_rounding_story(tmp_path):
    folder = tmp_path / "ap-lesson"
    folder.mkdir()
    report = audit_text(folder, LESSON, REGISTER, title="AP lesson")
    by_id = {r.id: r for r in report.claims}
    for claim in ("C01", "C02"):
        assert by_id[claim].verdict == "contradicted", (claim, by_id[claim].reason)
        assert "rounding of the terms" not in by_id[claim].reason
    assert "0.755556" in by_id["C01"].reason or "34/45" in by_id["C01"].reason
