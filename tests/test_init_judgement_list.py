"""A ranking written as a list of judgements, one item per rank ("1. Relevant  2. Irrelevant …"), with the query's
relevant documents counted on the line after it ("Relevant documents: 3"), as lessons print a worked AP. init drafts
each P@k and the AP printed under it on that ranking; without the count, AP asks for |R|.

Right values (pytrec_eval, called in ``test_the_reference_values``): relevant at ranks 1, 3 and 5 of five, three
relevant in all: P@2 = 1/2, P@5 = 3/5, AP = (1 + 2/3 + 3/5)/3 = 34/45 ≈ 0.7556 — the lesson's AP averages P@1, P@2
and P@3 instead, (1.0 + 0.5 + 0.667)/3 = 0.722, which is no reading of AP."""

from __future__ import annotations

import pytest

from chapters import init_and_run

from audit.draft.examples import judgement_list

LESSON = """\
# Average precision by hand

Suppose a query returns five results, judged as follows:

1. Relevant
2. Irrelevant
3. Relevant
4. Irrelevant
5. Relevant

Relevant documents: 3

- P@2: 1/2 = 0.5
- P@5: 3/5 = 0.6

AP: (1.0 + 0.5 + 0.667) / 3 = 0.722
"""


def test_the_reference_values():
    import pytrec_eval
    got = pytrec_eval.RelevanceEvaluator({"q": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 1}}, {"P_2", "P_5", "map"}).evaluate(
        {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}})["q"]
    assert (got["P_2"], got["P_5"], round(got["map"], 4)) == (0.5, 0.6, 0.7556)


@pytest.fixture(scope="module")
def lesson(tmp_path_factory):
    return init_and_run(tmp_path_factory.mktemp("lesson"), "ap.md", LESSON, "ap")[2]


@pytest.mark.parametrize("words, verdict", [
    ("P@2: 1/2 = 0.5", "supported"),
    ("P@5: 3/5 = 0.6", "supported"),
    ("AP: (1.0 + 0.5 + 0.667) / 3 = 0.722", "contradicted"),
])
def test_values_on_the_judgement_list(lesson, words, verdict):
    found = [c for c in lesson if c["kind"] == "value" and c["quote"] == words]
    assert [c["verdict"] for c in found] == [verdict], [(c["kind"], c["quote"], c["verdict"]) for c in lesson]


def test_the_printed_mean_of_other_precisions_tells_no_rounding_story(lesson):
    [ap] = [c for c in lesson if c["kind"] == "value" and c["quote"].startswith("AP:")]
    assert "rounding" not in ap["reason"] and "34/45" in ap["reason"], ap["reason"]


def test_without_the_count_ap_asks_for_it(tmp_path):
    _, _, claims = init_and_run(tmp_path, "ap.md", LESSON.replace("Relevant documents: 3\n\n", ""), "ap")
    ap = [c for c in claims if c["quote"].startswith("AP:") and c["kind"] != "arithmetic"]
    assert ap and all(c["kind"] == "draft" for c in ap)
    assert any("how many relevant documents" in c["claim"] for c in ap), [c["claim"] for c in ap]


@pytest.mark.parametrize("listing, ranking", [
    ("- d1 — relevant\n- d2 (not relevant)\n- d3: ✓\n", [("d1", 1), ("d2", 0), ("d3", 1)]),
    ("1. ✓\n2. ✗\n3. ✗\n4. ✓\n", [("r1", 1), ("r2", 0), ("r3", 0), ("r4", 1)]),
    ("- Document 1: Relevant\n- Document 2: Not Relevant\n- Document 3: Relevant\n",
     [("Document1", 1), ("Document2", 0), ("Document3", 1)]),
])
def test_the_shapes_of_a_judgement_list(listing, ranking):
    [example] = judgement_list.find("The system returned:\n\n" + listing)
    assert example.ranking == ranking and example.whole


@pytest.mark.parametrize("listing", [
    "1. Relevant\n2. Irrelevant\n",                                  # two items: no ranking
    "1. Relevant\n3. Irrelevant\n2. Relevant\n",                     # numbers out of order
    "- Relevant documents are rare\n- Relevant\n- Irrelevant\n",     # an item that is a sentence breaks the run
])
def test_lists_that_are_no_ranking(listing):
    assert judgement_list.find(listing) == []


def test_a_list_of_yes_and_no_answers_is_no_ranking():
    """A FAQ's numbered answers ("1. Yes 2. No 3. Yes") judge nothing: only relevance words, ✓/✗ and hit/miss do."""
    assert judgement_list.find("Can P@k exceed 1?\n\n1. Yes\n2. No\n3. Yes\n") == []
