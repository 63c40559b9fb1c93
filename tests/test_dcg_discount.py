"""The ``discount`` convention: a chapter that discounts DCG by log2(max(i, 2)) (ranks 1 and 2 in full, Järvelin and
Kekäläinen 2002 with base 2) against one that states no discount, read as trec_eval, ir-measures and ranx compute it
(log2(i + 1)).

One query, grades a 2, b 1, c 1, x 0, ranked b, a, x, c. By hand:

* log2(i + 1): nDCG@2 = (1 + 2/log2 3) / (2 + 1/log2 3) = 2.261860 / 2.630930 = 0.859719 (trec_eval's ``ndcg_cut_2``,
  called directly below); DCG@4 = 1 + 2/log2 3 + 1/log2 5 = 2.692536;
* log2(max(i, 2)): nDCG@2 = (1 + 2) / (2 + 1) = 1 exactly; DCG@4 = 1 + 2/1 + 0 + 1/log2 4 = 7/2 exactly.
"""

from __future__ import annotations

import math
import textwrap
from fractions import Fraction

import pytest

from audit.evaluation import definitions as D
from audit.evaluation import evaluator as E
from audit.evaluation.references import all_references
from audit.measures.conventions import CONVENTIONS
from audit.measures.syntax import parse
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

QRELS = {"q1": {"a": 2, "b": 1, "x": 0, "c": 1}}
RANKING = ["b", "a", "x", "c"]
LOG2_3 = math.log2(3)
NDCG2 = (1 + 2 / LOG2_3) / (2 + 1 / LOG2_3)

FIXTURES = """\
fixtures:
  swapped:
    qrels: {q1: {a: 2, b: 1, x: 0, c: 1}}
    run: {q1: [b, a, x, c]}
"""

FLAT_SNAPSHOT = """\
Our DCG lets the first two ranks count in full: from rank 2 on, a gain is divided by log2 i.
Swapping the top two documents leaves our nDCG₂@2 at 1.
For the same ranking our DCG₂@4 is 7/2.
A careless reader would put our nDCG₂@2 here at 0.86.
In the usual notation, the same ranking has nDCG@2 = 1.
"""

FLAT_CHAPTER = """\
id: flat
title: A DCG with a flat head
conventions:
  discount:
    value: "log2(max(i, 2))"
    quote: "Our DCG lets the first two ranks count in full: from rank 2 on, a gain is divided by log2 i."
"""

FLAT_CLAIMS = FIXTURES + """\
claims:
  - id: F1
    title: the top two swapped leave nDCG₂@2 at 1
    kind: value
    quote: "Swapping the top two documents leaves our nDCG₂@2 at 1."
    claim: With ranks 1 and 2 undiscounted, grades 1, 2 give nDCG₂@2 = 3/3 = 1.
    fixture: swapped
    expect: [{measure: "nDCG@2", claimed: "1", named: "nDCG₂@2"}]
  - id: F2
    title: DCG₂@4 = 7/2
    kind: value
    quote: "For the same ranking our DCG₂@4 is 7/2."
    claim: 1 + 2 + 0 + 1/log2 4 = 7/2.
    fixture: swapped
    expect: [{measure: "DCG@4", claimed: "7/2", named: "DCG₂@4"}]
  - id: F3
    title: nDCG₂@2 printed as 0.86
    kind: value
    quote: "A careless reader would put our nDCG₂@2 here at 0.86."
    claim: nDCG₂@2 = 0.86.
    fixture: swapped
    expect: [{measure: "nDCG@2", claimed: "0.86", named: "nDCG₂@2"}]
  - id: F4
    title: the standard name under the chapter's discount
    kind: value
    quote: "In the usual notation, the same ranking has nDCG@2 = 1."
    claim: nDCG@2 = 1.
    fixture: swapped
    expect: [{measure: "nDCG@2", claimed: "1"}]
"""

PLAIN_SNAPSHOT = """\
Swapping the top two documents gives nDCG@2 ≈ 0.8597.
Swapping the top two documents leaves nDCG@2 at 1.
"""

PLAIN_CLAIMS = FIXTURES + """\
claims:
  - id: P1
    title: nDCG@2 ≈ 0.8597
    kind: value
    quote: "Swapping the top two documents gives nDCG@2 ≈ 0.8597."
    claim: nDCG@2 = (1 + 2/log2 3) / (2 + 1/log2 3).
    fixture: swapped
    expect: [{measure: "nDCG@2", claimed: "≈ 0.8597"}]
  - id: P2
    title: nDCG@2 = 1
    kind: value
    quote: "Swapping the top two documents leaves nDCG@2 at 1."
    claim: nDCG@2 = 1.
    fixture: swapped
    expect: [{measure: "nDCG@2", claimed: "1"}]
"""


def _write(tmp, name, chapter, snapshot, claims):
    folder = tmp / name
    folder.mkdir()
    (folder / "chapter.yaml").write_text(chapter, encoding="utf-8")
    (folder / "snapshot.txt").write_text(snapshot, encoding="utf-8")
    (folder / "claims.yaml").write_text(textwrap.dedent(claims), encoding="utf-8")
    return load_chapter(folder)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("discount")
    out = {}
    for name, chapter, snapshot, claims in (("flat", FLAT_CHAPTER, FLAT_SNAPSHOT, FLAT_CLAIMS),
                                            ("plain", "id: plain\ntitle: No discount stated\n", PLAIN_SNAPSHOT,
                                             PLAIN_CLAIMS)):
        report = audit_chapter(_write(tmp, name, chapter, snapshot, claims), all_references(), collect("test"))
        out.update({c.id: c for c in report.claims})
    return out


def _values(result) -> dict:
    return {v.implementation: v for v in result.checks[0].values}


def _trec_ndcg_cut_2() -> float:
    import pytrec_eval

    scores = {"q1": {d: float(len(RANKING) - i) for i, d in enumerate(RANKING)}}
    return pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut_2"}).evaluate(scores)["q1"]["ndcg_cut_2"]


def test_the_discount_convention_is_declared_and_read_as_the_references_by_default():
    discount = CONVENTIONS["discount"]
    assert discount.values == ("log2(i + 1)", "log2(max(i, 2))")
    assert discount.unsourced == {"log2(max(i, 2))"}        # tried only where a text states it
    assert D.DEFAULT_READING["discount"] == "log2(i + 1)"
    assert "discount" in E.relevant_to("nDCG", several_queries=False)
    assert "discount" in E.relevant_to("DCG", several_queries=False)


def test_the_chapter_definitions_under_each_discount():
    flat = {**D.DEFAULT_READING, "discount": "log2(max(i, 2))"}
    ndcg2, dcg4 = parse("nDCG@2")[1], parse("DCG@4")[1]
    assert E.evaluate_query(ndcg2, QRELS["q1"], RANKING, flat) == 1
    assert E.evaluate_query(dcg4, QRELS["q1"], RANKING, flat) == Fraction(7, 2)
    assert float(E.evaluate_query(ndcg2, QRELS["q1"], RANKING)) == pytest.approx(NDCG2, abs=1e-15)
    assert float(E.evaluate_query(dcg4, QRELS["q1"], RANKING)) == pytest.approx(
        1 + 2 / LOG2_3 + 1 / math.log2(5), abs=1e-15)
    # the one-pass series gives the same values as one cutoff at a time
    series = E.evaluate_cutoffs(parse("nDCG@1")[1], QRELS["q1"], RANKING, [1, 2, 4], flat)
    assert series == [E.evaluate_query(parse(f"nDCG@{k}")[1], QRELS["q1"], RANKING, flat) for k in (1, 2, 4)]


def test_a_stated_discount_decides_the_texts_own_variant(reports):
    f1 = reports["F1"]
    values = _values(f1)
    assert f1.verdict == "supported", f1.reason
    assert values["chapter"].exact == "1"
    # the references compute the standard nDCG@2 (log2(i + 1)): shown, not qualifying the text's own measure
    for ref in ("pytrec_eval", "ir_measures", "ranx"):
        assert values[ref].value == pytest.approx(NDCG2, abs=1e-12), ref
    f2 = reports["F2"]
    assert f2.verdict == "supported", f2.reason
    assert _values(f2)["chapter"].exact == "7/2"


def test_a_value_no_discount_gives_is_contradicted_with_the_stated_discounts_value(reports):
    f3 = reports["F3"]
    assert f3.verdict == "contradicted", f3.reason
    assert [v.exact for v in _values(f3).values() if v.implementation == "chapter"] == ["1"]


def test_the_standard_name_under_a_stated_discount_is_qualified_by_the_references(reports):
    f4 = reports["F4"]
    assert f4.verdict == "qualified", f4.reason
    assert _values(f4)["chapter"].exact == "1"
    assert "0.8597" in f4.reason
    assert "DCG discount “log2(i + 1)”" in f4.reason   # what the references follow, found by experiment


def test_unstated_the_discount_is_the_references_and_they_agree(reports):
    trec = _trec_ndcg_cut_2()
    assert trec == pytest.approx(NDCG2, abs=1e-12)
    p1 = reports["P1"]
    values = _values(p1)
    assert p1.verdict == "supported", p1.reason
    assert values["chapter"].value == pytest.approx(trec, abs=1e-12)
    for ref in ("pytrec_eval", "ir_measures", "ranx"):
        assert values[ref].value == pytest.approx(trec, abs=1e-12), ref
    # log2(max(i, 2)) is no reading of a text that does not state it: its 1 is no support for the printed 1
    p2 = reports["P2"]
    assert p2.verdict == "contradicted", p2.reason
    assert [v.exact for v in _values(p2).values() if v.implementation == "chapter"] != ["1"]


@pytest.mark.parametrize("discount, expected", [("log2(max(i, 2))", {"dcg": 3.5, "ndcg": 3.5 / (3 + 1 / LOG2_3)}),
                                                ("log2(i + 1)", {"dcg": 1 + 2 / LOG2_3 + 1 / math.log2(5),
                                                                 "ndcg": None})])
def test_a_corrected_listing_discounts_as_the_chapter_states(discount, expected):
    """The corrected listing a code finding proposes (``listing_fix.write``) divides by the chapter's discount: on
    ranked grades 1, 2, 0, 1 at k = 4 with judged grades 2, 1, 1, 0 it returns the chapter's DCG@4 and nDCG@4."""
    from audit.register.claims import CodeClaim
    from audit.research.listing_fix import write

    reading = {**D.DEFAULT_READING, "discount": discount}
    grades, judged = [1, 2, 0, 1], [2, 1, 1, 0]   # b, a, x, c as ranked; every judged grade
    for measure, role_args, call in (("DCG@k", {"grades": "ranked grades", "k": "cutoff"}, "dcg_at_k(grades, k)"),
                                     ("nDCG@k", {"grades": "ranked grades", "judged": "judged grades",
                                                 "k": "cutoff"}, "ndcg_at_k(grades, judged, k)")):
        name = call.split("(")[0]
        claim = CodeClaim(id="L1", title="t", quote="q", claim="c", kind="code", function=name, measure=measure,
                          arguments=role_args)
        source = f"def {call}:\n    pass\n"
        rewrite = write(claim, reading, source)
        assert f"math.{discount.replace('i', 'rank')}" in rewrite.source
        space: dict = {}
        exec("import math\n" + rewrite.source, space)   # the writer's own output, built from the two lines above
        got = space[name](grades, judged, 4) if name == "ndcg_at_k" else space[name](grades, 4)
        spec = parse(measure.replace("@k", "@4"))[1]
        want = float(E.evaluate_query(spec, QRELS["q1"], RANKING, reading))
        assert got == pytest.approx(want, abs=1e-12)
        if expected[name.split("_")[0]] is not None:
            assert got == pytest.approx(expected[name.split("_")[0]], abs=1e-12)
