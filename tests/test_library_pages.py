"""A library's own documentation page prints what that library computes: a value that holds under the library's own
definition is qualified by it (a source the text follows), never contradicted as a wrong number; the same value on a
page that follows no such library is contradicted.

The example: one query ranked [a, x, b], four relevant documents (a, b and two never retrieved). AP@3 sums the
precisions at the relevant ranks, 1 and 2/3: trec_eval's map_cut.3 divides by |R| = 4, 5/12 ≈ 0.4167 (pytrec_eval,
below); catalyst's MAPMetric divides by the relevant items in the top 3, 2: 5/6 ≈ 0.8333."""

from __future__ import annotations

import pytest

from chapters import audit_text

CLAIMS = """\
fixtures:
  q: {qrels: {q1: {a: 1, b: 1, c: 1, d: 1, x: 0}}, run: {q1: [a, x, b]}}
claims:
  - {id: M1, title: map03, kind: value, quote: "map03 is 0.8333", claim: c, fixture: q,
     expect: [{measure: "AP@3", claimed: "0.8333"}]}
"""


def test_the_right_values():
    import pytrec_eval
    got = pytrec_eval.RelevanceEvaluator({"q1": {"a": 1, "b": 1, "c": 1, "d": 1, "x": 0}}, {"map_cut_3"}).evaluate(
        {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}})["q1"]["map_cut_3"]
    assert round(got, 4) == 0.4167


@pytest.mark.parametrize("page, verdict", [
    ("# MAPMetric\n\ncatalyst's `MAPMetric` on one query ranked a, x, b: map03 is 0.8333.\n", "qualified"),
    ("# Average precision\n\nOn one query ranked a, x, b: map03 is 0.8333.\n", "contradicted"),
])
def test_a_value_under_the_documented_library_s_own_definition(tmp_path, page, verdict):
    result = audit_text(tmp_path, page, CLAIMS, title="AP").claims[0]
    assert result.verdict == verdict, result.reason
