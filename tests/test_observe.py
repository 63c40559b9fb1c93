"""The reference ledger comes from observations on probe inputs, and chapters' internal tensions are findings.

Right values, from the libraries' documented and measured behaviour (DESIGN.md, "Facts measured"):
trec_eval orders tied scores by docno descending, rejects a run file with a repeated docno, and leaves a
query whose qrels entry is empty out of its output; ir-measures and ranx keep the last score of a repeated
doc id and score an empty-entry query 0.
"""

from __future__ import annotations

import pytest

from audit.evaluation.observe import PROBES, observe
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import tensions


@pytest.fixture(scope="module")
def observed():
    return {r.name: observe(r) for r in all_references()}


def test_ir_measures_tie_rule_is_observed_per_provider(observed):
    """ir-measures computes RR with pytrec_eval (docno descending: c, b, a → RR 1) and RR@k with its msmarco provider
    (docno ascending: a, b, c → RR@3 1/3), so one library follows two tie rules; trec_eval and ranx follow one."""
    o = observed["ir_measures"]["ties"]
    assert o.follows == [] and o.split()
    assert o.by_measure["RR"] == ("pytrec_eval", ["docno descending"])
    assert tuple(o.by_measure["RR@3"]) == ("msmarco", ["docno ascending"])
    assert o.known() == ["docno descending", "docno ascending"]
    assert observed["pytrec_eval"]["ties"].follows == ["docno descending"]


def test_trec_eval_observed(observed):
    o = observed["pytrec_eval"]
    assert o["ties"].follows == ["docno descending"]
    assert o["repeated_ids"].status == "rejected"
    assert o["no_qrels"].follows == ["left out"]     # an empty qrels entry: left out of its output
    assert o["no_relevant"].follows == ["scores 0"]  # judged, none relevant: 0 and in the mean
    assert o["precision_denominator"].follows == ["k"]
    assert o["gain"].follows == ["linear"]
    assert o["averaging"].follows == ["queries with results"]


@pytest.mark.parametrize("name", ["ir_measures", "ranx"])
def test_keep_last_and_empty_entries_scored_zero(observed, name):
    o = observed[name]
    assert o["repeated_ids"].follows == ["keep last"]
    assert o["no_qrels"].follows == ["scores 0"]
    assert o["no_relevant"].follows == ["scores 0"]
    assert o["averaging"].follows == ["all judged queries"]  # a judged query missing from the run scores 0


def test_chapter23_tension_between_distinct_prefix_and_rejection():
    found = tensions(load_chapter("claims/retrieval-23-chapter"))
    assert [t.convention for t in found] == ["repeated_ids"]
    t = found[0]
    assert {s["value"] for s in t.statements} == {"reject", "keep first"}
    # on n, n, a (a relevant): rejecting refuses the ranking; keeping the first n gives n, a → P@3 = 1/3
    assert "repeats document 'n'" in t.probe and "keep first: P@3 = 1/3" in t.probe


def test_module_has_no_tension_and_its_own_ledger_row():
    chapter = load_chapter("claims/recall-and-precision")
    assert tensions(chapter) == []
    assert "prefix" not in chapter.declared.statements      # the module says nothing about distinct IDs
    assert chapter.declared.values("precision_denominator") == ("k",)


def test_docs_table_of_observed_conventions_is_what_the_probes_observe(observed):
    """The "What each reference does" table of docs/conventions.md states, per probed convention, the value each
    reference's probe reproduces (rejected runs: "reject"); a library's default can only be stated as observed."""
    from pathlib import Path
    page = (Path(__file__).resolve().parents[1] / "docs" / "conventions.md").read_text(encoding="utf-8")
    start = page.index("| probed convention |")
    rows = {}
    for line in page[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1:]
    probed = {p.convention for p in PROBES}
    assert set(rows) == probed
    for name, (trec, irm, ranx) in rows.items():
        for ref, stated in (("pytrec_eval", trec), ("ir_measures", irm), ("ranx", ranx)):
            o = observed[ref][name]
            assert o.summary() == stated, (name, ref, o.summary(), stated)


def test_the_ideal_probe_tells_every_ideal_rule_apart(observed):
    """Grades 1 then 2 returned (a, c), a grade-3 b judged and not returned, nDCG@1, linear gain, by hand: the judged
    grades cut at 1 give the ideal 3 (1/3; trec_eval ``ndcg_cut_1``, ir_measures ``nDCG@1`` and ranx ``ndcg@1``
    return 0.3333); the whole judged list 3 + 2/log2 3 + 1/2 (0.2100); every retrieved grade cut at 1 (scikit-learn's
    ``ndcg_score`` handed the two retrieved grades) 2 (1/2); the first retrieved grade only 1 (1)."""
    from fractions import Fraction
    import math

    from audit.evaluation import evaluator

    from audit.evaluation import definitions
    from audit.evaluation.observe import _chapter
    from audit.measures.conventions import CONVENTIONS

    probe = next(p for p in PROBES if p.convention == "ideal")
    values = {v: _chapter(probe, "nDCG@1", {**definitions.DEFAULT_READING, "ideal": v})["q1"]
              for v in CONVENTIONS["ideal"].values}
    assert float(values["judged, cut at k"]) == pytest.approx(1 / 3, abs=1e-15)
    assert float(values["judged, whole list"]) == pytest.approx(1 / (3 + 2 / math.log2(3) + 1 / 2), abs=1e-15)
    assert values["all retrieved, cut at k"] == Fraction(1, 2) and values["retrieved only"] == Fraction(1)
    assert len(set(values.values())) == len(values)
    for ref in ("pytrec_eval", "ir_measures", "ranx"):
        assert observed[ref]["ideal"].follows == ["judged, cut at k"], ref
