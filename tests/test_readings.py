"""A reading needs a reader: which values of an unstated convention a claim is checked under.

An unstated convention is read with a value only when a reference computes it by default under the measure's name
(trec_eval via pytrec_eval, ir-measures, ranx), the measure's defining source does, a source the text cites does, or
the text computes the measure that way by name elsewhere. A reference's non-default option (trec_eval ``-l 2``,
``-J``; ir-measures' ``judged_only``) is no reading unless the text names it. A listing or formula the chapter
presents fixes the convention it computes with. A variant the text defines under its own name is its own measure.
Each case holds its right value with where it comes from (a hand computation, and a direct library call)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import pytrec_eval

from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.measures.conventions import CONVENTIONS, Declared, cited_in, formula_statements
from audit.run.audit import audit_chapter
from audit.run.provenance import collect


def _audit(folder: Path, snapshot: str, chapter: str, claims: str, name: str = "snapshot.md") -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(snapshot, encoding="utf-8")
    (folder / "chapter.yaml").write_text(chapter + f"snapshot: {{file: {name}}}\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect("test"))
    return {c.id: c for c in report.claims}


def _trec(qrels, ranking, measures):
    """pytrec_eval on one query ``q`` whose ranking is ``ranking`` (strictly decreasing scores)."""
    run = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in ranking.items()}
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)


# --- the rule as data -----------------------------------------------------------------------------------------------

def test_each_value_names_who_reads_it_and_options_are_no_readings():
    """The readers behind each unstated value: the references' defaults are readings; an option is not."""
    assert CONVENTIONS["relevance_level"].reads("1") and not CONVENTIONS["relevance_level"].reads("2")
    assert not CONVENTIONS["relevance_level"].reads("3", frozenset(["trec-dl"]))
    assert CONVENTIONS["relevance_level"].reads("2", frozenset(["trec-dl"]))
    assert not CONVENTIONS["unjudged"].reads("removed")              # trec_eval -J, judged_only: options
    assert CONVENTIONS["unjudged"].reads("removed", frozenset(["sakai-2007"]))
    assert not CONVENTIONS["gain"].reads("exponential")              # ranx ndcg_burges: another name
    assert not CONVENTIONS["no_relevant"].reads("left out")          # all three score such a query 0
    assert not CONVENTIONS["ideal"].reads("retrieved only") and not CONVENTIONS["ideal"].reads("judged, whole list")
    assert CONVENTIONS["ties"].reads("listed order") and CONVENTIONS["ties"].reads("docno descending")
    declared = Declared(cited=cited_in("as Burges et al. (2005) do"))
    assert declared.tried("gain") == ("linear", "exponential")
    assert Declared().tried("gain") == ("linear",)
    # every value of every convention says who reads it, or is tried only when a text states it
    for c in CONVENTIONS.values():
        assert set(c.readers) <= set(c.values), c.name
        assert c.reads(c.values[0]) or c.name == "err_max_grade", c.name


@pytest.mark.parametrize("line, value", [
    ("    return float(np.sum(g / np.log2(np.arange(2, g.size + 2))))", "linear"),
    ("    return sum(rel / math.log2(i + 2) for i, rel in enumerate(rels[:k]))", "linear"),
    (r"$$\mathrm{DCG@}k = \sum_{i=1}^{k} \frac{rel_i}{\log_2(i+1)}$$", "linear"),
    # the grade's name set upright, as documentation sites print it
    (r"$$\mathrm{DCG@}k = \sum_{j=1}^{k} \frac{\operatorname{rel}_j}{\log_2(j + 1)}$$", "linear"),
    (r"$$\mathrm{DCG@}k = \sum_{i=1}^{k} \frac{2^{\mathrm{rel}_i} - 1}{\log_2(i+1)}$$", "exponential"),
    ("    gains = 2 ** grades - 1", "exponential"),
    ("    gain = np.power(2.0, rels) - 1.0", "exponential"),
    ("    stop = (2 ** g - 1) / 2 ** g_max", None),            # ERR's stopping probability: no DCG gain
    ("    return np.sum(gains / np.log2(np.arange(2, k + 2)))", None),  # the gain is computed elsewhere
    ("The learning-to-rank variant uses gain = 2^g − 1 instead.", None),  # a variant set beside the definition
    ("Each document gains 2^g − 1.", None),                    # prose, not a line that computes
])
def test_a_line_that_computes_dcg_states_its_gain(line, value):
    stated = formula_statements(line, Declared()).statements
    assert [s.value for s in stated.get("gain", [])] == ([value] if value else [])


# --- relevance levels on graded qrels --------------------------------------------------------------------------------

REPORT = """\
# Assignment 2: evaluating BM25 on our passage collection

We judged every pooled passage on a 0–3 scale. Table 1 gives the scores for topic T1.

| topic | P@5 | AP |
|---|---|---|
| T1 | 0.80 | 0.710 |
"""
REPORT_CLAIMS = """\
fixtures:
  t1:
    qrels: {T1: {p1: 3, p2: 1, p3: 0, p4: 2, p5: 1, p6: 0, p7: 2}}
    run: {T1: [p1, p2, p3, p4, p5]}
claims:
  - {id: R1, title: P@5 of T1, kind: value, quote: "| T1 | 0.80 | 0.710 |", claim: P@5 of T1 is 0.80, fixture: t1,
     expect: [{measure: "P@5", claimed: "0.80"}]}
  - {id: R2, title: AP of T1, kind: value, quote: "| T1 | 0.80 | 0.710 |", claim: AP of T1 is 0.710, fixture: t1,
     expect: [{measure: AP, claimed: "0.710"}]}
"""
T1_QRELS = {"T1": {"p1": 3, "p2": 1, "p3": 0, "p4": 2, "p5": 1, "p6": 0, "p7": 2}}
T1_RUN = {"T1": ["p1", "p2", "p3", "p4", "p5"]}


def test_graded_values_are_not_qualified_by_relevance_levels_no_reference_uses_by_default(tmp_path):
    """Grades 3, 1, 0, 2, 1 retrieved; p7 (grade 2) judged, not retrieved. At trec_eval's default level 1 the relevant
    are p1, p2, p4, p5, p7: P@5 = 4/5 and AP = (1 + 1 + 3/4 + 4/5)/5 = 0.71 (pytrec_eval P_5 0.8, map 0.71). At -l 2
    they would be 2/5 and (1 + 2/4)/3 = 0.5, but no reference reads a text at level 2 by default and the report
    names no level: both values are supported, and no relevance level is named."""
    trec = _trec(T1_QRELS, T1_RUN, {"P_5", "map"})["T1"]
    assert trec["P_5"] == pytest.approx(0.8) and trec["map"] == pytest.approx(0.71)
    verdicts = _audit(tmp_path / "report", REPORT, "id: report\ntitle: Assignment 2\n", REPORT_CLAIMS)
    for cid in ("R1", "R2"):
        assert verdicts[cid].verdict == "supported", verdicts[cid].reason
        assert "relevance level" not in verdicts[cid].reason
        assert not verdicts[cid].holds_only


def test_a_source_the_text_follows_makes_its_relevance_level_a_reading(tmp_path):
    """The same table in a report that says it follows the TREC Deep Learning track, whose binary measures count
    grade 2 or more: P@5 at level 2 is 2/5 (pytrec_eval P_5 with relevance_level=2: 0.4), so the printed 0.80 holds
    at level 1 only and is qualified, naming the level."""
    run = {"T1": {d: float(5 - i) for i, d in enumerate(T1_RUN["T1"])}}
    level2 = pytrec_eval.RelevanceEvaluator(T1_QRELS, {"P_5"}, relevance_level=2).evaluate(run)["T1"]["P_5"]
    assert level2 == pytest.approx(0.4)
    text = REPORT.replace("We judged", "We follow the TREC Deep Learning track's guidelines. We judged")
    verdicts = _audit(tmp_path / "report-dl", text, "id: report-dl\ntitle: Assignment 2\n", REPORT_CLAIMS)
    assert verdicts["R1"].verdict == "qualified", verdicts["R1"].reason
    assert verdicts["R1"].holds_only == {"relevance_level": ["1"]}


# --- a judged query with no relevant document ---------------------------------------------------------------------

MODULE = '''\
"""Ranking metrics for the demo search page.

Two judged queries: q1 finds its one relevant page first, and every page judged for q2 is
non-relevant. The mean average precision over both queries is 0.5:

>>> round(mean_average_precision(RUN, QRELS), 3)
0.5
"""
'''
MODULE_CLAIMS = """\
fixtures:
  two:
    qrels: {q1: {a: 1, b: 0}, q2: {c: 0, d: 0}}
    run: {q1: [a, b], q2: [c, d]}
claims:
  - {id: M1, title: MAP over both queries, kind: value,
     quote: "The mean average precision over both queries is 0.5", claim: MAP is 0.5, fixture: two,
     expect: [{measure: AP, claimed: "0.5"}]}
"""


def test_a_query_without_relevant_documents_counts_as_every_reference_counts_it(tmp_path):
    """AP of q1 is 1; q2 has judgements, all 0, so AP is 0: the mean is 1/2. pytrec_eval returns q2 with map 0 (it
    leaves out only a query whose qrels entry is empty), and ir-measures and ranx score it 0. Leaving q2 out (1.0)
    is the textbook MAP over queries that have relevant documents, a reading only of a text that cites it."""
    trec = _trec({"q1": {"a": 1, "b": 0}, "q2": {"c": 0, "d": 0}}, {"q1": ["a", "b"], "q2": ["c", "d"]}, {"map"})
    assert trec == {"q1": {"map": 1.0}, "q2": {"map": 0.0}}
    verdicts = _audit(tmp_path / "module", MODULE, "id: metrics-module\ntitle: metrics.py\n", MODULE_CLAIMS, "metrics.py")
    assert verdicts["M1"].verdict == "supported", verdicts["M1"].reason
    assert "left out" not in verdicts["M1"].reason


def test_a_cited_textbook_makes_leaving_such_a_query_out_a_reading(tmp_path):
    """The same docstring citing Manning et al.'s Introduction to Information Retrieval, whose MAP is over the
    queries with relevant documents: left out, the mean is 1 (q1 alone), so the printed 0.5 is qualified."""
    text = MODULE.replace("Ranking metrics for the demo search page.",
                          "Ranking metrics for the demo search page (after Manning et al., ch. 8).")
    verdicts = _audit(tmp_path / "module-iir", text, "id: metrics-iir\ntitle: metrics.py\n", MODULE_CLAIMS, "metrics.py")
    assert verdicts["M1"].verdict == "qualified", verdicts["M1"].reason
    assert verdicts["M1"].holds_only == {"no_relevant": ["scores 0"]}


# --- the gain a listing fixes -----------------------------------------------------------------------------------------

POST = """\
# nDCG, step by step

Burges et al. (2005) made the gain 2^g − 1 popular for learning to rank; this post keeps the grade itself.

```python
import numpy as np

def dcg(grades, k):
    g = np.asarray(grades, dtype=float)[:k]
    return float(np.sum(g / np.log2(np.arange(2, g.size + 2))))
```

For the ranking graded 3, 2, 0, 1, against the ideal 3, 2, 1, 0, nDCG@4 ≈ 0.985.
"""
POST_CLAIMS = """\
fixtures:
  four:
    qrels: {q: {a: 3, b: 2, c: 0, d: 1}}
    run: {q: [a, b, c, d]}
claims:
  - {id: G1, title: nDCG@4 of the example, kind: value, quote: "nDCG@4 ≈ 0.985", claim: nDCG@4 is about 0.985,
     fixture: four, expect: [{measure: "nDCG@4", claimed: "≈ 0.985"}]}
"""


def _ndcg4(gain) -> float:
    dcg = lambda gs: sum(gain(g) / math.log2(i + 2) for i, g in enumerate(gs))  # noqa: E731
    return dcg([3, 2, 0, 1]) / dcg([3, 2, 1, 0])


def test_a_listing_that_divides_the_grade_by_the_discount_fixes_linear_gain(tmp_path):
    """Linear gain by hand: (3 + 2/log2 3 + 1/log2 5) / (3 + 2/log2 3 + 1/2) = 4.692536 / 4.761860 = 0.985442
    (pytrec_eval ndcg_cut_4 0.985442); exponential 2^g − 1: 9.323466 / 9.392789 = 0.992620. The text cites Burges et
    al., so exponential gain would be a reading, but its own dcg listing divides the grade itself by log2(i + 2):
    that line states linear gain, and the value is supported."""
    assert round(_ndcg4(lambda g: g), 6) == 0.985442 and round(_ndcg4(lambda g: 2 ** g - 1), 6) == 0.99262
    trec = _trec({"q": {"a": 3, "b": 2, "c": 0, "d": 1}}, {"q": ["a", "b", "c", "d"]}, {"ndcg_cut_4"})
    assert trec["q"]["ndcg_cut_4"] == pytest.approx(0.985442, abs=1e-6)
    verdicts = _audit(tmp_path / "post", POST, "id: post\ntitle: nDCG step by step\n", POST_CLAIMS)
    assert verdicts["G1"].verdict == "supported", verdicts["G1"].reason
    chapter = load_chapter(tmp_path / "post")
    assert [s.quote for s in chapter.declared.statements["gain"]] == [
        "return float(np.sum(g / np.log2(np.arange(2, g.size + 2))))"]


def test_without_the_listing_a_cited_gain_qualifies_and_an_uncited_one_does_not(tmp_path):
    """The same sentence without the listing: citing Burges et al. makes exponential gain (0.992620) a reading, so
    ≈ 0.985 holds with linear gain only (qualified); without the citation no reference computes exponential gain
    under the name nDCG@4 (ranx's is ndcg_burges), so it is supported."""
    cited = POST.split("```python")[0] + POST.split("```\n")[-1]
    verdicts = _audit(tmp_path / "cited", cited, "id: cited\ntitle: nDCG\n", POST_CLAIMS)
    assert verdicts["G1"].verdict == "qualified", verdicts["G1"].reason
    assert verdicts["G1"].holds_only == {"gain": ["linear"]}
    assert "who reads it so: nDCG gain exponential: Burges et al. 2005 (exponential gain), which the text cites" \
        in verdicts["G1"].reason
    plain = cited.replace("Burges et al. (2005) made the gain 2^g − 1 popular for learning to rank; this post keeps "
                          "the grade itself.", "This post walks through one example.")
    verdicts = _audit(tmp_path / "plain", plain, "id: plain\ntitle: nDCG\n", POST_CLAIMS)
    assert verdicts["G1"].verdict == "supported", verdicts["G1"].reason


# --- a variant the text defines under its own name -------------------------------------------------------------------

APK = """\
# Two ways to average precision at K

Recommender write-ups use two definitions. AP₁@K divides the sum of the precisions at the relevant positions by the
number of relevant items in the top K. AP₂@K divides the same sum by min(K, |R|).

Take the list 1, 0, 1, 0, 0 with three relevant items in all: AP₁@5 = (1 + 2/3)/2 ≈ 0.833, and
AP₂@5 = (1 + 2/3)/3 ≈ 0.556.
"""
APK_CLAIMS = """\
fixtures:
  five:
    qrels: {u: {i1: 1, i3: 1, i9: 1, i2: 0, i4: 0, i5: 0}}
    run: {u: [i1, i2, i3, i4, i5]}
claims:
  - id: K1
    title: AP₁@5 ≈ 0.833
    kind: value
    quote: "AP₁@5 = (1 + 2/3)/2 ≈ 0.833"
    claim: AP₁@5 divides by the two relevant items in the top 5.
    conventions:
      ap_denominator: {value: relevant retrieved, quote: "AP₁@K divides the sum of the precisions at the relevant positions by the"}
    fixture: five
    expect:
      - {measure: "AP@5", claimed: "≈ 0.833", named: "AP₁@K"}
  - id: K2
    title: AP₂@5 ≈ 0.556
    kind: value
    quote: "AP₂@5 = (1 + 2/3)/3 ≈ 0.556"
    claim: AP₂@5 divides by min(5, 3).
    conventions:
      ap_denominator: {value: "min(k, |R|)", quote: "AP₂@K divides the same sum by min(K, |R|)"}
    fixture: five
    expect:
      - {measure: "AP@5", claimed: "≈ 0.556", named: "AP₂@K"}
"""


def test_a_variant_under_its_own_name_is_the_texts_measure(tmp_path):
    """Relevant at ranks 1 and 3 of five, three relevant in all: the precisions are 1 and 2/3. AP₁@5 over the two
    relevant in the top 5 is 5/6 = 0.8333 (by hand); AP₂@5 over min(5, 3) = 3 is 5/9 = 0.5556, which is also what
    trec_eval's map_cut_5 (over |R| = 3) gives. Each value is right for the measure the text defines: supported,
    with the references' 0.5556 beside AP₁@5 as a note, not a qualification."""
    trec = _trec({"u": {"i1": 1, "i3": 1, "i9": 1, "i2": 0, "i4": 0, "i5": 0}},
                 {"u": ["i1", "i2", "i3", "i4", "i5"]}, {"map_cut_5"})
    assert trec["u"]["map_cut_5"] == pytest.approx(5 / 9)
    verdicts = _audit(tmp_path / "apk", APK, "id: apk\ntitle: AP at K\n", APK_CLAIMS)
    k1 = verdicts["K1"]
    assert k1.verdict == "supported", k1.reason
    notes = " ".join([k1.reason, k1.note] + [e.text for e in k1.evidence])
    assert "AP₁@K is the text's own measure" in notes and "0.5556" in notes, notes
    assert verdicts["K2"].verdict == "supported", verdicts["K2"].reason


def test_without_its_own_name_the_same_value_is_qualified_by_the_references(tmp_path):
    """The control: the same AP₁@5 claim without ``named`` reads as a convention the text states for the standard AP@5,
    which every reference computes over |R| (5/9): qualified, naming them."""
    claims = APK_CLAIMS.replace(', named: "AP₁@K"', "")
    verdicts = _audit(tmp_path / "apk-plain", APK, "id: apk-plain\ntitle: AP at K\n", claims)
    assert verdicts["K1"].verdict == "qualified", verdicts["K1"].reason
    assert "0.5556" in verdicts["K1"].reason


# --- a listing whose deviation is a reading nobody reads the text with ----------------------------------------------

LAB = """\
# Lab 4: nDCG from a qrels dictionary

Each judged document has a grade from 0 to 3, and a document's gain is its grade.

```python
import math


def ndcg_at_k(ranking, qrels, k):
    grades = [qrels.get(d, 0) for d in ranking[:k]]
    ideal = sorted(grades, reverse=True)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(grades))
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best > 0 else 0.0
```

On our example, where d (grade 3) is judged but not retrieved, it prints nDCG@3 = 0.950.
"""
LAB_CLAIMS = """\
fixtures:
  lab:
    qrels: {q: {a: 2, b: 0, c: 1, d: 3}}
    run: {q: [a, b, c]}
claims:
  - {id: L1, title: ndcg_at_k, kind: code, quote: "def ndcg_at_k(ranking, qrels, k):", claim: nDCG@k from the judgements,
     function: ndcg_at_k, measure: nDCG@k, arguments: {ranking: ranking, qrels: qrels, k: cutoff}}
  - {id: L2, title: the printed nDCG@3, kind: value, quote: "it prints nDCG@3 = 0.950", claim: nDCG@3 is 0.950,
     fixture: lab, expect: [{measure: "nDCG@3", claimed: "0.950"}]}
"""


def test_a_listing_whose_ideal_is_no_readers_is_contradicted_as_a_bug(tmp_path):
    """The listing re-sorts only the grades it retrieved for its ideal. By hand on the example (a 2, b 0, c 1
    retrieved; d 3 judged, not retrieved): DCG@3 = 2 + 1/2 = 2.5; the ideal from every judged grade, 3, 2, 1, is
    3 + 2/log2 3 + 1/2 = 4.761860, so nDCG@3 = 0.525005 (pytrec_eval ndcg_cut_3); the retrieved-only ideal 2, 1, 0
    gives 2 + 1/log2 3 = 2.630930 and the printed 0.950234. No reference builds its ideal that way and the text cites
    no source that does, so it is no reading: the listing is contradicted with its counterexample and a fix that
    builds the ideal from every judged grade, and the printed value it gave is contradicted, corrected to 0.525."""
    trec = _trec({"q": {"a": 2, "b": 0, "c": 1, "d": 3}}, {"q": ["a", "b", "c"]}, {"ndcg_cut_3"})
    assert trec["q"]["ndcg_cut_3"] == pytest.approx(2.5 / (3 + 2 / math.log2(3) + 0.5)) == pytest.approx(0.525005)
    assert 2.5 / (2 + 1 / math.log2(3)) == pytest.approx(0.950234)
    verdicts = _audit(tmp_path / "lab", LAB, "id: lab4\ntitle: Lab 4\n", LAB_CLAIMS)
    l1 = verdicts["L1"]
    assert l1.verdict == "contradicted", l1.reason
    assert "ideal DCG “retrieved only”" in l1.reason and "where the chapter's is ideal DCG “judged, cut at k”" in l1.reason
    assert "the ideal DCG@k sorts all judged grades and cuts at k" in l1.response
    assert "State the convention" not in l1.response
    l2 = verdicts["L2"]
    assert l2.verdict == "contradicted", l2.reason
    assert "0.525005" in l2.reason and "“0.525”" in l2.response


# --- a reading the text itself uses elsewhere ---------------------------------------------------------------------

SHORT = """\
# Why the dashboard and trec_eval disagree on query 7

Query 7 returns only three passages. On the dashboard it looked fine: two of the three are relevant, a precision
at ten of 0.67.

trec_eval's P_10 says 0.2, because it divides by the cutoff whatever the number returned. torcheval's
`retrieval_precision(scores, labels, k=10, limit_k_to_size=True)` divides by the three returned and gives 2/3.
"""
SHORT_CLAIMS = """\
fixtures:
  q7:
    qrels: {q7: {a: 1, b: 0, c: 1, f: 1}}
    run: {q7: [a, b, c]}
claims:
  - {id: S1, title: P@10 of query 7, kind: value, quote: "a precision\\nat ten of 0.67", claim: two of three returned,
     fixture: q7, expect: [{measure: "P@10", claimed: "0.67"}]}
  - id: S2
    title: torcheval with limit_k_to_size gives 2/3
    kind: value
    quote: "divides by the three returned and gives 2/3"
    claim: torcheval's retrieval_precision with limit_k_to_size=True divides by the three returned.
    conventions:
      precision_denominator: {value: number returned, quote: "divides by the three returned"}
    fixture: q7
    expect:
      - {measure: "P@10", claimed: "2/3", by: torcheval}
"""


def test_a_library_the_text_names_makes_its_reading_one_of_the_text(tmp_path):
    """Two relevant among the three returned, three relevant in all: P@10 over k is 2/10 = 0.2 (pytrec_eval P_10 0.2,
    as ir-measures' P@10 and ranx's precision@10); over the number returned 2/3 = 0.6667 (pytrec_eval set_P 0.6667,
    the precision of the retrieved set). The text names torcheval's limit_k_to_size, which divides by the number
    returned, and computes its 2/3 itself: that denominator is a reading of the bare "precision at ten of 0.67",
    which holds under it and not under the references' k, so it is qualified (not contradicted), naming both values."""
    trec = _trec({"q7": {"a": 1, "b": 0, "c": 1, "f": 1}}, {"q7": ["a", "b", "c"]}, {"P_10", "set_P"})["q7"]
    assert trec["P_10"] == pytest.approx(0.2) and trec["set_P"] == pytest.approx(2 / 3)
    verdicts = _audit(tmp_path / "short", SHORT, "id: short\ntitle: Query 7\n", SHORT_CLAIMS)
    s1 = verdicts["S1"]
    assert s1.verdict == "qualified", s1.reason
    assert s1.holds_only == {"precision_denominator": ["number returned"]}, s1.reason
    assert "number returned gives 2/3" in s1.reason and "k gives 1/5" in s1.reason, s1.reason
    assert verdicts["S2"].verdict == "supported", verdicts["S2"].reason


def test_without_the_named_library_nobody_reads_the_number_returned(tmp_path):
    """The control: the same bare sentence in a text that names no source dividing by the number returned. No
    reference does by default (pytrec_eval P_10, ir-measures P@10, ranx precision@10: 0.2), so that reading is not
    tried and 0.67 is contradicted by the references' 0.2."""
    text = SHORT.split("trec_eval's P_10")[0]
    claims = SHORT_CLAIMS.split("  - id: S2")[0]
    verdicts = _audit(tmp_path / "bare", text, "id: bare\ntitle: Query 7\n", claims)
    assert verdicts["S1"].verdict == "contradicted", verdicts["S1"].reason


def test_a_reference_option_one_sentence_names_binds_that_sentence_only(tmp_path):
    """A sentence about trec_eval at -l 2 (P@5 = 2/5, pytrec_eval P_5 with relevance_level=2: 0.4) states that level
    for itself, by a reference's option: the table's bare P@5 = 0.80 (level 1, pytrec_eval P_5 0.8) stays
    supported, and level 2 is no reading of it."""
    run = {"T1": {d: float(5 - i) for i, d in enumerate(T1_RUN["T1"])}}
    level2 = pytrec_eval.RelevanceEvaluator(T1_QRELS, {"P_5"}, relevance_level=2).evaluate(run)["T1"]["P_5"]
    assert level2 == pytest.approx(0.4)
    text = REPORT + "\nWith trec_eval -l 2 the same ranking's P_5 is 0.40.\n"
    claims = REPORT_CLAIMS + """\
  - id: R3
    title: trec_eval -l 2 gives 0.40
    kind: value
    quote: "With trec_eval -l 2 the same ranking's P_5 is 0.40."
    claim: At relevance level 2 two of the five are relevant.
    conventions:
      relevance_level: {value: "2", quote: "With trec_eval -l 2"}
    fixture: t1
    expect:
      - {measure: "P(rel=2)@5", claimed: "0.40", by: trec_eval}
"""
    verdicts = _audit(tmp_path / "report-l2", text, "id: report-l2\ntitle: Assignment 2\n", claims)
    assert verdicts["R1"].verdict == "supported", verdicts["R1"].reason
    assert verdicts["R3"].verdict == "supported", verdicts["R3"].reason


def test_a_display_formula_introduced_as_an_alternative_states_no_gain():
    # A tutorial computes DCG with the grade as gain, then shows "an alternative formulation, commonly used in
    # industry" with 2^rel − 1: the formula is a variant the text sets beside its own, not its definition (before,
    # an IDCG@2 = 4 + 2.52 = 6.52 on linear gain was contradicted as 24.46 under exponential gain).
    from audit.measures.conventions import Declared, formula_statements
    formula = "$$DCG@k = \\sum_{k = 1}^{K} \\frac{2^{rel_k} - 1}{log_2(1 + k)}$$"
    told = ("An alternative formulation of the DCG@K, commonly used in industry, is the below:\n\n" + formula + "\n")
    assert not formula_statements(told, Declared()).stated("gain")
    # the same formula given as the definition states the exponential gain
    own = "The DCG@K is defined as:\n\n" + formula + "\n"
    assert formula_statements(own, Declared()).statements["gain"][0].value == "exponential"


@pytest.mark.parametrize("text, source", [
    ("`mapk` evaluates `apk` on each query and averages", "ml_metrics"),     # the R package Metrics' help page
    ("MAPMetric returns map01, map03 and map05", "catalyst"),
])
def test_a_library_the_text_documents_is_a_source_it_follows(text, source):
    # catalyst's average_precision divides by the relevant items in the top k (its _average_precision.py:
    # ``only_relevant_precision.sum(dim=1) / (only_relevant_precision != 0).sum(dim=1)``); Metrics' apk by
    # min(|actual|, k): a value on their pages that holds under that denominator is read by it, so it is
    # qualified, never contradicted
    assert source in cited_in(text)
