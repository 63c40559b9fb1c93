"""Conventions recognised from a chapter's wording (audit.text.stated): one row per wording, with the
convention and value it states (the values are audit.register.conventions' own)."""

from __future__ import annotations

import pytest

from audit.text.stated import declare, stated_in


@pytest.mark.parametrize("text, name, value", [
    ("P@k divides by k even when fewer are returned.", "precision_denominator", "k"),
    ("Precision is divided by the number of results returned.", "precision_denominator", "number returned"),
    ("Here P@k divides by the smaller of k and the number of relevant documents.", "precision_denominator",
     "min(k, |R|)"),
    ("The gain is the grade.", "gain", "linear"),
    ("Each document contributes a gain of 2^g − 1.", "gain", "exponential"),
    ("Ties are broken by docno, descending.", "ties", "docno descending"),
    ("Tied documents keep the listed order.", "ties", "listed order"),
    ("Unjudged documents count as non-relevant.", "unjudged", "non-relevant"),
    ("Unjudged documents are removed before the cutoff is applied.", "unjudged", "removed"),
    ("The ideal DCG sorts all judged grades, cut at k.", "ideal", "judged, cut at k"),
    ("A grade ≥ 2 counts as relevant.", "relevance_level", "2"),
    ("A result counts as relevant when its grade is 1 or more.", "relevance_level", "1"),
    ("MRR@10 counts only the first 10 results.", "rr_cutoff", "applied"),
    ("Every measure is averaged over all queries.", "averaging", "all judged queries"),
    ("A query with no relevant document scores 0.", "no_relevant", "scores 0"),
    ("A query with no relevant document is left out of the mean.", "no_relevant", "left out"),
    ("The evaluator rejects repeated result IDs.", "repeated_ids", "reject"),
    ("The evaluator keeps the first copy of a repeated ID.", "repeated_ids", "keep first"),
    # wordings from a product-search text encoded blind from the README: the items are products, not documents
    ("Unjudged products are removed from the list before we cut at k.", "unjudged", "removed"),
    ("A query with no relevant product scores 0.", "no_relevant", "scores 0"),
])
def test_a_wording_states_its_convention(text, name, value):
    assert {n: v for n, (v, _) in stated_in(text).items()} == {name: value}


@pytest.mark.parametrize("text", [
    "The ideal order sorts the judged documents by grade: 3, 2, 1, 1, 0, 0.",   # judged, but cut at k or not?
    "Ties are broken by docno.",                                                 # which direction?
    "Precision at five is 2/5.",
    # two values of one convention in one sentence: a contrast, not a statement
    "Unjudged documents count as non-relevant here; other chapters say unjudged documents are removed first.",
])
def test_a_wording_that_settles_no_value_declares_nothing(text):
    assert stated_in(text) == {}


def test_the_quote_is_the_clause_that_states_it_and_two_values_are_both_kept():
    declared = declare(["Gain is exponential: a document of grade g contributes 2^g - 1.",
                        "Elsewhere the gain is the grade."])
    assert declared == {"gain": [{"value": "exponential", "quote": "Gain is exponential"},
                                 {"value": "linear", "quote": "Elsewhere the gain is the grade"}]}
