"""Cutoffs written as subscripts, and LaTeX formulas that state a measure's value.

Texts that follow the usual nDCG write-ups put the cutoff in a subscript (``DCG_6``, ``nDCG_{6}``, ``nDCG₆``) and
compute the value in a display formula: ``\\[ nDCG_{5} = \\frac{DCG_{5}}{IDCG_{5}} = \\frac{3.361}{4.200} = 0.800 \\]``.
The division is right, the measure's value need not be (here the ideal DCG is wrong), so the arithmetic claim init
can encode does not cover the statement: init also leaves a value draft for nDCG@5, and the unedited report does
not show the sentence as checked."""

from __future__ import annotations

import math

import pytest

from audit.text.encode_measures import measure_of
from audit.text.scan import METRIC, scan_text
from audit.text.coverage import statements
from audit.draft.init import draft_register
from audit.text.chapter import Snapshot


@pytest.mark.parametrize("written, read", [
    ("nDCG_{6}", ("nDCG", 6)), ("DCG_6", ("DCG", 6)), ("nDCG₆", ("nDCG", 6)), ("IDCG_{10}", ("IDCG", 10)),
    ("MRR_{10}", ("RR", 10)), ("P_{10}", ("P", 10)), ("nDCG_k", ("nDCG", "k")), ("P@5", ("P", 5)),
])
def test_a_subscript_is_the_cutoff(written, read):
    m = METRIC.search(written)
    assert m is not None and m.group(0) == written and measure_of(m) == read


@pytest.mark.parametrize("written", ["AP₁@K", "AP_2@K", "R_1 = 5", "rel_i", "DCG_p"])
def test_a_subscript_that_is_no_cutoff_is_not_read_as_one(written):
    """A variant's index before its own cutoff (the text's AP₁@K), R_1 (a set of relevant documents, a run) and a
    symbol subscript (rel_i, DCG_p) are no measure at a cutoff."""
    m = METRIC.search(written)
    assert m is None or measure_of(m) is None or m.group(0) != written


# In the text's own words: grades 2, 0, 1, 2, 0 give DCG@5 = 2 + 0 + 1/2 + 2/log2(5) + 0 = 3.36135 and an ideal
# 2, 2, 1, 0, 0 gives IDCG@5 = 2 + 2/log2(3) + 1/2 = 3.76186, so nDCG@5 = 0.89353; the text prints IDCG_{5} = 4.200
# and divides correctly by it: 3.361/4.200 = 0.80024 (over what the printed terms stand for, [0.80002,
# 0.80045]), printed 0.800.
NOTES = r"""# Worked example: nDCG

A query returns five documents graded 2, 0, 1, 2, 0 on a three-level scale.

\[
IDCG_{5} = 4.200
\]

\[
nDCG_{5} = \frac{DCG_{5}}{IDCG_{5}} = \frac{3.361}{4.200} = 0.800
\]
"""


def test_the_printed_numbers_hold_what_the_module_doc_says():
    dcg = 2 + 1 / math.log2(4) + 2 / math.log2(5)
    idcg = 2 + 2 / math.log2(3) + 1 / math.log2(4)
    assert round(dcg, 3) == 3.361 and round(idcg, 5) == 3.76186 and round(dcg / idcg, 5) == 0.89353
    assert round(3.3605 / 4.2005, 3) == round(3.3615 / 4.1995, 3) == 0.8


def test_a_formula_with_a_measure_on_its_left_states_that_measure(tmp_path):
    units = [s for s in scan_text(NOTES, True) if "nDCG_{5}" in s.text]
    assert len(units) == 1
    parts = statements(units[0])
    assert [(p.kind, p.measure, [v for v, _ in p.values]) for p in parts] == [("value", ("nDCG", 5), ["0.800"])]


def test_init_leaves_the_measures_value_a_draft_beside_the_division(tmp_path):
    source = tmp_path / "notes.md"
    source.write_text(NOTES, encoding="utf-8")
    claims = draft_register(Snapshot.read(source))[0]
    on_formula = [c for c in claims if "nDCG_{5}" in c["quote"]]
    kinds = sorted(c["kind"] for c in on_formula)
    assert kinds == ["arithmetic", "draft"], on_formula
    draft = next(c for c in on_formula if c["kind"] == "draft")
    assert draft["statement"] == "value" and "a value claim" in draft["claim"], draft
    arithmetic = next(c for c in on_formula if c["kind"] == "arithmetic")
    assert arithmetic["expression"].replace(" ", "") == "3.361/4.200" and arithmetic["claimed"] == "0.800"


#: The formula divides the retrieved list's DCG by an ideal DCG over more judged documents than the fixture holds:
#: grades 3, 2, 3, 0, 1, 2 give DCG@6 = 3 + 2/log2 3 + 3/2 + 0 + 1/log2 6 + 2/log2 7 = 6.86112, and with only these
#: six judged the ideal 3, 3, 2, 2, 1, 0 gives 7.14100, so nDCG@6 = 0.96081 (trec_eval ndcg_cut_6 on these qrels);
#: the printed 6.861/8.740 = 0.785011 is right as arithmetic.
FORMULA = r"""# nDCG by hand

The six documents returned have grades 3, 2, 3, 0, 1 and 2.

The ideal order of the judged documents is 3, 3, 2, 2, 1, 0, so $nDCG_6 = \frac{6.861}{8.740} = 0.785$.
"""
FORMULA_CLAIMS = r"""fixtures:
  six:
    qrels: {q: {d1: 3, d2: 2, d3: 3, d4: 0, d5: 1, d6: 2}}
    run: {q: [d1, d2, d3, d4, d5, d6]}
claims:
  - {id: C1, title: nDCG at six, kind: value, quote: "$nDCG_6 = \\frac{6.861}{8.740} = 0.785$", claim: nDCG@6,
     fixture: six, expect: [{measure: nDCG@6, claimed: "0.785"}]}
"""


def test_a_corrected_value_that_would_break_a_formulas_division_is_no_hunk(tmp_path):
    """Changing 0.785 to 0.961 alone would print 6.861/8.740 = 0.961, which is false: the finding says the formula's
    terms must change with it, and the patch does not write it."""
    import json

    import pytrec_eval

    from audit.cli import main
    qrels = {"q": {"d1": 3, "d2": 2, "d3": 3, "d4": 0, "d5": 1, "d6": 2}}
    run = {"q": {d: 6.0 - i for i, d in enumerate(["d1", "d2", "d3", "d4", "d5", "d6"])}}
    value = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_6"}).evaluate(run)["q"]["ndcg_cut_6"]
    assert round(value, 5) == 0.96081 and round(6.861 / 8.740, 6) == 0.785011
    folder = tmp_path / "claims" / "nd"
    folder.mkdir(parents=True)
    (folder / "snapshot.md").write_text(FORMULA, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: nd\ntitle: nDCG by hand\nsnapshot: {file: snapshot.md}\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(FORMULA_CLAIMS, encoding="utf-8")
    reports = tmp_path / "reports"
    assert main(["run", str(folder), "--reports", str(reports), "--quiet", "--no-cache"]) in (0, 1)
    (c1,) = json.loads((reports / "nd.json").read_text(encoding="utf-8"))["claims"]
    assert c1["verdict"] == "contradicted" and "0.960808" in c1["reason"]
    assert "would leave the printed arithmetic false (6.861/8.740 gives 0.785011" in c1["response"], c1["response"]
    patch = reports / "nd.patch"
    assert not patch.exists() or "= 0.961$" not in patch.read_text(encoding="utf-8")
