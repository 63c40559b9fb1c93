"""A value the chapter's own definitions give under every reading it allows is the fix, even when the references then
qualify it: the chapter states exponential gain, the references' nDCG uses the grade as gain, so the corrected value
re-runs qualified — no other number does better, and the gate takes it. The arithmetic printed for the same number
and the value claim quoting the sentence change the same words ("≈ 0.75" and "0.75"): one hunk.

Right values: grades 1, 3, 0 with those three the only judged documents. Exponential gain: DCG@3 = 1 + 7/log2 3 ≈
5.4165, IDCG@3 = 7 + 1/log2 3 ≈ 7.6309, nDCG@3 ≈ 0.7098 (so 5.417 / 7.631 ≈ 0.71, not 0.75). The grade as gain
(pytrec_eval's ndcg_cut_3): 2.8928/3.6309 ≈ 0.7967."""

from __future__ import annotations

import contextlib
import math
import subprocess

from chapters import cli, init_and_run

TEXT = """\
# Graded relevance in three results

Throughout this chapter the gain of a document with grade g is 2^g − 1 (exponential gain), and the ideal ranking sorts every judged document by grade.

Our system returns three documents with grades 1, 3 and 0, and those three are the only judged documents.

With exponential gain, DCG@3 = 1/1 + 7/log2(3) ≈ 5.417 and IDCG@3 = 7/1 + 1/log2(3) ≈ 7.631, so nDCG@3 = 5.417 / 7.631 ≈ 0.75.
"""

VALUE = """\
- id: C90
  title: nDCG@3 of the three results
  kind: value
  quote: "so nDCG@3 = 5.417 / 7.631 ≈ 0.75"
  claim: nDCG@3 of grades 1, 3, 0, every judged document retrieved.
  fixture: three
  expect:
    - {measure: "nDCG@3", claimed: "≈ 0.75"}
"""


def test_the_reference_values():
    import pytrec_eval
    got = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 3, "c": 0}}, {"ndcg_cut_3"}).evaluate(
        {"q": {"a": 3.0, "b": 2.0, "c": 1.0}})["q"]["ndcg_cut_3"]
    assert round(got, 4) == 0.7967
    assert round((1 + 7 / math.log2(3)) / (7 + 1 / math.log2(3)), 4) == 0.7098


def test_the_settled_value_is_patched_and_the_gate_is_clean(tmp_path):
    root = tmp_path / "book"
    root.mkdir()
    init_and_run(root, "ch.md", TEXT, "g1")
    register = root / "claims" / "g1" / "claims.yaml"
    text = register.read_text(encoding="utf-8").replace(
        "claims:\n", "fixtures:\n  three:\n    qrels: {q: {a: 1, b: 3, c: 0}}\n    run: {q: [a, b, c]}\nclaims:\n", 1)
    register.write_text(text + VALUE, encoding="utf-8")
    with contextlib.chdir(root):
        code, out = cli("run", "--quiet", "--no-cache", "--fail-on", "contradicted,stale,error", "claims/g1")
    assert code == 1, out
    patch = (root / "reports" / "g1.patch").read_text(encoding="utf-8")
    subprocess.run(["patch", "-p0", "-s"], input=patch, cwd=root, text=True, check=True)
    assert (root / "ch.md").read_text(encoding="utf-8") == TEXT.replace("≈ 0.75.", "≈ 0.71.")
    with contextlib.chdir(root):
        code, out = cli("run", "--quiet", "--no-cache", "--fail-on", "contradicted,stale,error", "claims/g1")
    assert code == 0, out
    import json
    verdicts = {c["id"]: c["verdict"] for c in json.loads((root / "reports" / "g1.json").read_text())["claims"]}
    assert verdicts["C90"] == "qualified" and verdicts["C04"] == "supported"
