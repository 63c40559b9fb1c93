"""A register may use YAML aliases (at most 20, as docs and README say): a quote, an ``expect`` list or a fixture
written once (``&q``) and used again (``*q``). The audit reads such a register and never ends with an internal
error; the upgrade proposal does not edit a value that is also another place's (its text is the other place's value
too): that hunk is withdrawn, naming the alias, and the patch leaves a register that reads.

Right values by hand: "One relevant result at rank 2 of four gives P@4 = 1/3." is wrong (P@4 = 1/4, as in
test_manuscript), so both claims quoting it are contradicted.
"""

from __future__ import annotations

import json

import pytest
import yaml

from audit.cli import main
from audit.research.register_edit import Edit, RegisterEditError, apply
from test_manuscript import SENTENCE

SHARED_QUOTE = """\
fixtures:
  one-at-two: &f
    qrels: {q1: {a: 1, x: 0, y: 0, z: 0}}
    run: {q1: [x, a, y, z]}
  the-same: *f
claims:
  - id: M1
    title: One hit at rank 2 gives P@4 = 1/3
    kind: value
    quote: &q "One relevant result at rank 2 of four gives P@4 = 1/3."
    claim: P@4 = 1/3.
    fixture: one-at-two
    expect: &e
      - {measure: "P@4", claimed: "1/3"}
  - id: M2
    title: The same sentence, on the copied fixture
    kind: value
    quote: *q
    claim: P@4 = 1/3.
    fixture: the-same
    expect: *e
"""


def test_a_register_with_aliases_is_audited_and_no_shared_value_is_edited(tmp_path, monkeypatch, capsys):
    (tmp_path / ".git").mkdir()
    folder = tmp_path / "claims" / "ch01"
    folder.mkdir(parents=True)
    (folder / "snapshot.txt").write_text("# Chapter 1\n\n" + SENTENCE, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: ch01\ntitle: Chapter 1\nsnapshot:\n  file: snapshot.txt\n",
                                         encoding="utf-8")
    (folder / "claims.yaml").write_text(SHARED_QUOTE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--quiet", "--no-cache", "claims/ch01"]) == 0
    assert "internal error" not in capsys.readouterr().err
    report = json.loads((tmp_path / "reports" / "ch01.json").read_text(encoding="utf-8"))
    assert {c["id"]: c["verdict"] for c in report["claims"]} == {"M1": "contradicted", "M2": "contradicted"}
    withdrawn = report["research"]["proposal"]["withdrawn"]
    assert withdrawn and all("YAML alias" in w["reason"] for w in withdrawn)
    assert not report["research"]["proposal"]["hunks"] and not (tmp_path / "reports" / "ch01.patch").exists()


def test_an_edit_of_a_value_used_again_through_an_alias_is_refused_and_others_are_made():
    with pytest.raises(RegisterEditError, match="YAML alias"):
        apply(SHARED_QUOTE, [Edit("M2", "expect.0.claimed", "1/4")])
    with pytest.raises(RegisterEditError, match="YAML alias"):
        apply(SHARED_QUOTE, [Edit("M1", "quote", "One relevant result at rank 2 of four gives P@4 = 1/4.")])
    edited = apply(SHARED_QUOTE, [Edit("M2", "claim", "P@4 = 1/4.")])  # M2's own field: only M2 changes
    claims = yaml.safe_load(edited)["claims"]
    assert [c["claim"] for c in claims] == ["P@4 = 1/3.", "P@4 = 1/4."]
    assert claims[1]["quote"] == claims[0]["quote"] and claims[1]["expect"] == [{"measure": "P@4", "claimed": "1/3"}]
