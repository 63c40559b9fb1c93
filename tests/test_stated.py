"""Conventions recognised from a chapter's wording (audit.text.stated): one row per wording, with the
convention and value it states (the values are audit.measures.conventions' own)."""

from __future__ import annotations

import re
from re import _parser

import pytest

from audit.text.stated import GAP, OPTION_WORDINGS, WORDING_WIDTH, WORDINGS, declare, stated_in


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
    ("The ideal re-sorts only the retrieved documents.", "ideal", "retrieved only"),
    ("The ideal DCG@k sorts the grades of every retrieved document and keeps the first k.", "ideal",
     "all retrieved, cut at k"),
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
    "The ideal sorts all retrieved documents within the cutoff and keeps the first k.",  # the prefix, re-sorted
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


# --- the newer conventions -------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, name, value", [
    ("RBP counts a relevant document as 1.", "rbp_gain", "binary"),
    ("RBP = (1 − p) Σ r_i p^(i−1), where r_i is 1 for a relevant document and 0 otherwise.", "rbp_gain", "binary"),
    ("Here rank-biased precision weighs each relevant document by its grade.", "rbp_gain", "grade"),
    ("ERR's stopping probability is (2^g − 1)/2^4 for a document of grade g.", "err_max_grade", "4"),
    ("ERR divides by 2 to the highest grade judged.", "err_max_grade", "highest grade judged"),
    # the judging scale's top grade, a number: a query whose grades top out at 2 still divides by 2^3
    ("On our 0–3 scale ERR divides by 2^3.", "err_max_grade", "3"),
    ("ERR's stopping probability for grade g is (2^g − 1)/2^3.", "err_max_grade", "3"),
    ("A result of grade g satisfies with probability R(g) = (2^g − 1)/2^3.", "err_max_grade", "3"),
    ("For ERR we fix g_max = 3, the top of the assessors' scale.", "err_max_grade", "3"),
    # a condition a sentence states for itself (it binds that sentence's claim: ``claims.own_conditions``)
    ("Average precision at k never decreases as k grows when its denominator is the full relevant set.",
     "ap_denominator", "|R|"),
    ("On the condensed list, which drops the unjudged d2, P@3 = 2/3.", "unjudged", "removed"),
    ("With trec_eval -J, P_10 = 0.6 for the run.", "unjudged", "removed"),
    ("Run as trec_eval -l 2, map falls to 0.41.", "relevance_level", "2"),
    ("The same recipe then divides by 2^2: a list graded [2, 0, 1] has ERR@3 ≈ 0.771.", "err_max_grade",
     "highest grade judged"),
    ("AP divides by all relevant documents, retrieved or not.", "ap_denominator", "|R|"),
    ("Average precision divides the sum by the number of relevant documents for the topic, four here, whether or not "
     "they were retrieved.", "ap_denominator", "|R|"),
    ("AP divides by the number of relevant documents retrieved.", "ap_denominator", "relevant retrieved"),
    ("Grades below the relevance level give no gain.", "level_gain", "dropped"),
    ("The suffix -l2 raises the level to 2: grades below it are dropped before nDCG is computed.", "level_gain",
     "dropped"),
    ("trec_eval replaces an AP of 0 by 0.00001 before taking logs.", "gmap_floor", "floored"),
    ("Here GMAP is the plain geometric mean, without any floor.", "gmap_floor", "none"),
    ("A topic with no qrels entry is left out of the mean.", "no_qrels", "left out"),
    ("Interpolated precision is the best precision seen at this recall level or any higher one.", "iprec_level",
     "recall ≥ r"),
    ("trec_eval divides by the cutoff, not by the number retrieved.", "precision_denominator", "k"),
    ("**dcg** — discounted cumulative gain with the grade as the gain.", "gain", "linear"),
    # LaTeX formulas (Wikipedia's and Järvelin & Kekäläinen's DCG written in Markdown math)
    (r"$$\mathrm{DCG}_k = \sum_{i=1}^{k} \frac{2^{rel_i} - 1}{\log_2(i+1)}$$", "gain", "exponential"),
    (r"$\mathrm{DCG}@k = \sum_{i=1}^{k} \frac{g_i}{\log_2(i+1)}$", "gain", "linear"),
    ("AP never exceeds recall, because each relevant document contributes at most 1/|R|.", "ap_denominator", "|R|"),
])
def test_a_wording_states_a_newer_convention(text, name, value):
    assert {n: v for n, (v, _) in stated_in(text).items()} == {name: value}


@pytest.mark.parametrize("text", [
    # a variant of DCG, not the text's own gain
    "**dcg_burges** — the same with gain 2^g − 1.",
    "The learning-to-rank crowd uses gain 2^g − 1 instead.",
    # negated: states what the text does not do
    "The divisor is never min(k, |R|).",
    "Without trec_eval -J, P_10 = 0.4 for the run.",
    "Unlike trec_eval -J, our script keeps every document.",
    # ERR's satisfaction probability in LaTeX is over 2^g_max, not a DCG discount
    r"$R(g) = \frac{2^{g}-1}{2^{g_{max}}}$",
])
def test_a_wording_that_is_not_the_texts_convention_declares_nothing(text):
    assert stated_in(text) == {}


def test_an_err_formula_beside_a_linear_gain_is_no_tension():
    declared = declare(["ERR's stopping probability for grade g is (2^g − 1)/2^3.",
                        "Throughout, the gain is the grade (linear gain)."])
    # ERR's (2^g − 1)/2^3 states ERR's top grade, not nDCG's gain
    assert {n: [s["value"] for s in v] for n, v in declared.items()} == {"gain": ["linear"], "err_max_grade": ["3"]}


_TOKEN_RUN = re.compile(r"(\\[swd])([+*])(\??)")


def _width(pattern: re.Pattern) -> int:
    """Most characters one match attempt of ``pattern`` can examine, each run of whitespace, word or digit
    characters (``\\s+``, ``\\w*``, ``\\d+``) counted as one character (``re``'s parser gives the width)."""
    one = _TOKEN_RUN.sub(lambda m: m.group(1) + ("{1}" if m.group(2) == "+" else "{0,1}") + m.group(3), pattern.pattern)
    return _parser.parse(one, pattern.flags).getwidth()[1]


def test_a_wording_match_attempt_examines_a_bounded_number_of_characters():
    """Every wording's gaps are bounded: one match attempt examines at most WORDING_WIDTH characters, so reading a
    unit costs at most that much per position, linear in its length. With the gaps unbounded (``[^.;]*``), each
    "P@1" of a sentence printing "P@1 = 1/2" 1,000 times was read on to the sentence's end, ~11,000 characters each
    time: a work growing with the square of the sentence."""
    widths = [_width(pattern) for _, _, pattern in WORDINGS + OPTION_WORDINGS]
    assert max(widths) <= WORDING_WIDTH
    assert stated_in("P@1 = 1/2, " * 1000) == {}


def test_a_wording_is_read_across_a_gap_of_up_to_400_characters():
    """"Precision … divides by the cutoff" is read with a parenthesis between its words; past GAP (400)
    characters between them the wording is not read: no real clause spreads its words so far apart."""
    near = ("Precision at k, as the evaluator computes it for each cutoff of the standard list (5, 10, 15, 20, 30 and "
            "100), divides by the cutoff even when fewer results are returned.")
    assert stated_in(near) == {"precision_denominator": ("k", 0)}
    far = ("Precision at k, " + "as the evaluator computes it for the cutoffs 5, 10, 15, 20, 30 and 100, " * 6
           + "divides by the cutoff even when fewer results are returned.")
    assert far.index("divides") - len("Precision") > GAP and stated_in(far) == {}


@pytest.mark.parametrize("unit, name, value, quote", [
    ("We count a document as relevant if its grade is at least 2, and the topic has four relevant documents.",
     "relevance_level", "2", "We count a document as relevant if its grade is at least 2, and the topic has four "
                             "relevant documents"),
    ("A document is relevant if its grade is 1 or more.", "relevance_level", "1",
     "A document is relevant if its grade is 1 or more"),
    ("A dash marks a document nobody judged; it counts as not relevant.", "unjudged", "non-relevant",
     "A dash marks a document nobody judged; it counts as not relevant"),
    ("Documents that no one judged are treated as non-relevant.", "unjudged", "non-relevant",
     "Documents that no one judged are treated as non-relevant"),
])
def test_relevance_and_unjudged_rules_said_in_lecture_prose(unit, name, value, quote):
    from audit.text.stated import declare
    assert declare([unit])[name] == [{"value": value, "quote": quote}]


@pytest.mark.parametrize("formula", [r"$DCG@k = \sum_{i=1}^k \frac{2^{rel_i} – 1}{\log_2(i+1)}$",
                                     "each result earns a gain of 2^rel – 1"])
def test_an_en_dash_typed_for_a_minus_states_exponential_gain(formula):
    # web pages often carry an en dash (U+2013) where the formula means minus: 2^{rel_i} – 1 is the exponential
    # gain all the same (Burges et al. 2005); it was read as stating no gain at all
    assert stated_in(formula)["gain"][0] == "exponential"
