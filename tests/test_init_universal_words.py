"""Statements about every ranking with universal words, drafted as property claims by `audit init` with no register
edit: a measure said to lie between two others ("F1 always lies between precision and recall"), a range whose subject
is a pronoun for the measure the sentence before named ("… ERR … It always lies between 0 and 1"), and a mean over
queries compared with its per-query measure's mean ("GMAP is never larger than MAP": runs of two queries).

Right verdicts, by hand: F1 = 2PR/(P + R) is the harmonic mean of P and R, which lies between them; ERR is a sum of
stopping probabilities (adding up to at most 1) each times a reciprocal rank ≤ 1, so 0 ≤ ERR ≤ 1; the geometric mean
never exceeds the arithmetic mean, but GMAP as the plain geometric mean is 0 once one AP is 0 and trec_eval's gm_map
adds 1e-5 first, so the statement holds under a reading the text does not state (qualified). "Precision always lies
between F1 and recall" is false (planted): one relevant document retrieved at rank 1 of two, k = 2: P = 1/2,
R = 1, F1 = 2/3 (``test_the_planted_counterexample``, pytrec_eval called directly).
"""

from __future__ import annotations

import pytest
import yaml

from chapters import init_and_run

TEXT = """\
# Three guarantees

## F1

F1 is the harmonic mean of precision and recall at one cutoff. F1 always lies between precision and recall.

Precision always lies between F1 and recall.

Here F1 lies between precision and recall.

## ERR

ERR models a reader who stops at the first result that satisfies them. It always lies between 0 and 1, since it weights reciprocal ranks by probabilities.

nDCG and ERR both read graded judgements. It always lies between 0 and 1, since it weights reciprocal ranks by probabilities.

## Means over topics

GMAP is never larger than MAP.

## Bounds and cutoffs

Whatever the ranking, AP@k never exceeds 1.

RR is never below 0.5.

Precision never exceeds 1 minus the share of unjudged documents.

Raising the cutoff can only raise R@k or leave it where it is.

Raising the cutoff can only lower P@k or leave it where it is.
"""


def test_the_planted_counterexample():
    import pytrec_eval
    got = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"P_2", "recall_2"}).evaluate({"q": {"a": 2.0, "b": 1.0}})["q"]
    p, r = got["P_2"], got["recall_2"]
    f1 = 2 * p * r / (p + r)
    assert (p, r, round(f1, 4)) == (0.5, 1.0, 0.6667) and not min(f1, r) <= p <= max(f1, r)


@pytest.fixture(scope="module")
def drafted(tmp_path_factory):
    root = tmp_path_factory.mktemp("props")
    _, _, claims = init_and_run(root, "props.md", TEXT, "props")
    register = yaml.safe_load((root / "claims" / "props" / "claims.yaml").read_text(encoding="utf-8"))["claims"]
    return register, claims


def _mine(drafted, words, kind):
    register, report = drafted
    return ([c for c in register if c["quote"].startswith(words) and c["kind"] == kind],
            {c["verdict"] for c in report if c["quote"].startswith(words) and c["kind"] == kind})


@pytest.mark.parametrize("words, encoded, verdict", [
    ("F1 always lies between", [("F", "between", ["P", "R"], None)], "supported"),
    ("Precision always lies between", [("P", "between", ["F", "R"], None)], "contradicted"),
    ("It always lies between 0 and 1, since", [("ERR", "never below", None, "0"), ("ERR", "never exceeds", None, "1")],
     "supported"),
    ("GMAP is never larger than MAP", [("GMAP", "never exceeds", "AP", None)], "qualified"),
    # a constant bound after the comparison: AP@k ≤ 1 (each term of its sum ≤ 1/|R|, at most |R| terms); RR is 0 on
    # a ranking with no relevant document (pytrec_eval's recip_rank of [b] with {a} relevant is 0.0), so "never
    # below 0.5" is false
    ("AP@k never exceeds 1", [("AP", "never exceeds", None, "1")], "supported"),
    ("RR is never below 0.5", [("RR", "never below", None, "1/2")], "contradicted"),
    # "can only raise … or leave it": recall at k + 1 counts the same hits or one more; precision at k + 1 rises when
    # the document at k + 1 is relevant after a non-relevant one (P@1 = 0, P@2 = 1/2 on [b, a] with {a} relevant)
    ("Raising the cutoff can only raise R@k", [("R", "never decreases", None, None)], "supported"),
    ("Raising the cutoff can only lower P@k", [("P", "never increases", None, None)], "contradicted"),
])
def test_drafted_as_properties(drafted, words, encoded, verdict):
    claims, verdicts = _mine(drafted, words, "property")
    assert [(c["measure"], c["relation"], c.get("other"), c.get("bound")) for c in claims] == encoded
    assert verdicts == {verdict}
    if words.startswith("GMAP"):
        assert claims[0]["universe"]["queries"] == 2 and claims[0]["at"] == "whole ranking"


def test_one_example_s_range_is_left_to_the_author(drafted):
    register, _ = drafted
    mine = [c for c in register if "Here F1 lies between" in c["quote"]]
    assert mine and all(c["kind"] == "draft" and c["claim"].startswith("TODO") for c in mine)


def test_a_pronoun_after_two_measures_is_left_to_the_author(drafted):
    """"nDCG and ERR both read graded judgements. It always lies …": which measure "It" is, the text does not say."""
    register, _ = drafted
    said = [c for c in register if c["quote"].startswith("It always lies between 0 and 1")]
    assert {c["line"] for c in said} == {13, 15}
    assert {c["kind"] for c in said if c["line"] == 13} == {"property"}
    assert [(c["kind"], c["claim"][:5]) for c in said if c["line"] == 15] == [("draft", "TODO:")]


def test_a_number_the_sentence_goes_on_to_qualify_is_no_bound(drafted):
    """"Precision never exceeds 1 minus the share of unjudged documents": the bound is not 1."""
    register, _ = drafted
    mine = [c for c in register if c["quote"].startswith("Precision never exceeds 1 minus")]
    assert mine and all(c["kind"] != "property" for c in mine)


def test_the_bounds_reference_values():
    import pytrec_eval
    rr = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"recip_rank"}).evaluate({"q": {"b": 1.0}})["q"]["recip_rank"]
    p = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 0}}, {"P_1", "P_2"}).evaluate({"q": {"b": 2.0, "a": 1.0}})["q"]
    assert rr == 0.0 and (p["P_1"], p["P_2"]) == (0.0, 0.5)
