"""Verdicts an IR-evaluation expert would sign, each case with its input and the right verdict or figure.

Right values, computed by hand and with the libraries called directly:

* ``moved``: judgements d1 2, d2 1, d4 1, d5 1, d9 3 (n 0). Before d1, d2, d4, d5, d9; after d1, d2, d9, d4, d5.
  nDCG@5 with the chapter's exponential gain 2^g − 1: 0.7120 → 0.7785 (ranx ``ndcg_burges@5``); with linear gain,
  as pytrec_eval ``ndcg_cut_5``, ir_measures ``nDCG@5`` and ranx ``ndcg@5`` compute it: 0.8464 → 0.8869. "Raises
  nDCG@5 to about 0.78" holds by the chapter's definition, but every reference's after-value is 0.8869, so it is
  qualified by the gain, not supported (before, only the references' direction was checked).
* ``tied``: b (unjudged) and r (relevant) share a score, listed b, r. The chapter keeps the listed order: RR = 1/2.
  pytrec_eval orders ties by docno descending (r before b): RR = 1; so does ir_measures' RR (pytrec_eval provider);
  ranx keeps the listed order: 1/2. Dropping the unjudged b would also give 1 on this input, but every reference's
  unjudged probe shows "non-relevant", so that is not offered as their cause (it was, as "or unjudged removed").
"""

from __future__ import annotations

import pytest

from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

GAIN = "Gain is exponential: a document of grade g contributes 2^g - 1."
TIES = "Tied documents keep the listed order."
UNJUDGED = "Unjudged documents count as non-relevant."
SNAPSHOT = f"""\
{GAIN}
{TIES}
{UNJUDGED}
With b and r tied, b listed first and only r relevant, RR = 1/2.
Moving d9 up to rank 3 raises nDCG@5 to about 0.78.
Moving d9 up to rank 3 raises nDCG@5 from about 0.71.
"""
CHAPTER = f"""\
id: expert-verdicts
title: Cases an expert would sign
conventions:
  gain: {{value: exponential, quote: "{GAIN}"}}
  ties: {{value: listed order, quote: "{TIES}"}}
  unjudged: {{value: non-relevant, quote: "{UNJUDGED}"}}
"""
CLAIMS = """\
fixtures:
  before:
    qrels: {q1: {d1: 2, d2: 1, d4: 1, d5: 1, d9: 3, n: 0}}
    run: {q1: [d1, d2, d4, d5, d9]}
  after:
    qrels: {q1: {d1: 2, d2: 1, d4: 1, d5: 1, d9: 3, n: 0}}
    run: {q1: [d1, d2, d9, d4, d5]}
  tied:
    qrels: {q1: {r: 1, n: 0}}
    run: {q1: [b, r]}
    scores: {q1: {b: 1.0, r: 1.0}}
claims:
  - id: E03
    title: A tie kept in listed order gives RR = 1/2
    kind: value
    quote: "With b and r tied, b listed first and only r relevant, RR = 1/2."
    claim: The listed order puts the unjudged b first, so RR = 1/2.
    fixture: tied
    expect:
      - {measure: "RR", claimed: "1/2"}
  - id: E01
    title: Promoting d9 raises nDCG@5 to about 0.78
    kind: comparison
    quote: "Moving d9 up to rank 3 raises nDCG@5 to about 0.78."
    claim: nDCG@5 rises to about 0.78 when d9 moves to rank 3.
    before: before
    after: after
    expect:
      - {measure: "nDCG@5", change: increases, after: "about 0.78"}
  - id: E02
    title: Promoting d9 raises nDCG@5 from about 0.71
    kind: comparison
    quote: "Moving d9 up to rank 3 raises nDCG@5 from about 0.71."
    claim: nDCG@5 rises from about 0.71 when d9 moves to rank 3.
    before: before
    after: after
    expect:
      - {measure: "nDCG@5", change: increases, before: "about 0.71"}
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("expert-verdicts")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "chapter.yaml").write_text(CHAPTER, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect("test"))
    return {r.id: r for r in report.claims}


@pytest.mark.parametrize("claim, side, value", [("E01", "after", "0.8869"), ("E02", "before", "0.8464")])
def test_a_comparisons_printed_side_is_checked_on_every_reference(results, claim, side, value):
    r = results[claim]
    assert r.verdict == "qualified", r.reason
    assert f"{side} {value}, outside the printed" in r.reason
    assert "linear" in r.reason                      # the cause, found by experiment: the references' gain
    rows = {v.implementation: v for v in r.checks[0].values}
    assert rows["pytrec_eval"].per_query == {"before": "0.8464", "after": "0.8869"}
    assert not rows["pytrec_eval"].in_interval and not rows["ranx"].in_interval
    assert rows["chapter"].in_interval


def test_a_cause_the_references_probes_contradict_is_not_offered(results):
    r = results["E03"]
    assert r.verdict == "qualified", r.reason
    assert "docno, descending" in r.reason
    assert "removed" not in r.reason          # every reference's unjudged probe shows "non-relevant"
