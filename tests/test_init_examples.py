"""`audit init` reads a chapter's worked examples — a rank table, a grade list in prose or in a listing, relevant
documents at positions in prose — and drafts the values a statement prints on the example it follows, only when the
text determines the fixture for the measure; otherwise the draft asks the author for the missing fact. Each test
runs init on a short chapter in the shape real texts have, checks the drafted claims, then audits init's draft with
no edits and checks the verdicts (each right value computed by hand in a comment)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect
from audit.text.chapter import Snapshot
from audit.draft.examples import find
from audit.draft.examples.example import ASK_IDEAL, ASK_RELEVANT
from audit.draft.init import create_chapter, draft_register


def _init(tmp_path, text: str) -> tuple[list[dict], dict[str, object]]:
    """init's claims for ``text`` and the audit's verdict of each claim, by id, on init's draft unedited."""
    source = tmp_path / "chapter.md"
    source.write_text(text, encoding="utf-8")
    folder, _ = create_chapter(source, "ch", tmp_path / "claims")
    chapter = load_chapter(folder)
    report = audit_chapter(chapter, all_references(), collect([]))
    claims = draft_register(Snapshot.read(source))[0]
    return claims, {c.id: c.verdict for c in report.claims}


def _values(claims: list[dict]) -> list[tuple[str, str, str]]:
    return [(c["id"], c["expect"][0]["measure"], c["expect"][0]["claimed"]) for c in claims if c["kind"] == "value"]


LECTURE = """# Lecture 4: average precision

The query has five relevant documents in the collection. Our system returns six results:

| Rank | Document | Relevant |
|------|----------|----------|
| 1 | d3 | ✓ |
| 2 | d7 | ✗ |
| 3 | d1 | ✓ |
| 4 | d9 | ✗ |
| 5 | d4 | ✗ |
| 6 | d2 | ✓ |

Here AP = (1 + 2/3 + 3/6)/4 = 0.5417, and P@3 = 2/3.

## Exercise

A system that returns relevant documents at positions 2 and 5 among five results has P@5 = 2/5 = 0.4.
"""


def test_a_rank_table_is_the_fixture_of_the_statements_after_it(tmp_path):
    """The table with |R| = 5 from the sentence before it. AP = (1 + 2/3 + 3/6)/5 = (13/6)/5 = 13/30 ≈ 0.4333: the
    printed 0.5417 divides by 4, so the value claim is contradicted while the arithmetic (13/24 ≈ 0.541667) holds.
    P@3 = 2/3 (d3 and d1 relevant in the top three): supported. The exercise after the heading is its own example:
    2 relevant of 5 results, P@5 = 2/5: supported."""
    claims, verdicts = _init(tmp_path, LECTURE)
    assert _values(claims) == [("C02", "AP", "0.5417"), ("C03", "P@3", "2/3"), ("C04", "P@5", "0.4")]
    ap = next(c for c in claims if c["id"] == "C02")
    # the table's six documents, with the two relevant documents it does not retrieve (|R| = 5, three retrieved)
    assert ap["fixture"]["run"]["q1"] == ["d3", "d7", "d1", "d9", "d4", "d2"]
    assert sorted(ap["fixture"]["qrels"]["q1"].values()) == [0, 0, 0, 1, 1, 1, 1, 1]
    assert [(c["kind"], c.get("expression")) for c in claims if c["kind"] == "arithmetic"] == [
        ("arithmetic", "(1 + 2/3 + 3/6)/4")]
    assert verdicts == {"C01": "supported", "C02": "contradicted", "C03": "supported", "C04": "supported"}


def test_a_rank_table_without_r_asks_for_it(tmp_path):
    """Without |R|, AP is not determined by the table (it divides by |R|): a draft asking how many relevant
    documents the query has, never a runnable claim on a fixture holding only the table's three. P@3 needs only the
    top three: 2/3, supported."""
    text = LECTURE.replace("The query has five relevant documents in the collection. ", "")
    claims, verdicts = _init(tmp_path, text)
    assert [m for _, m, _ in _values(claims)] == ["P@3", "P@5"]
    draft = next(c for c in claims if c["kind"] == "draft" and "AP" in c["quote"])
    assert ASK_RELEVANT in draft["claim"]
    p3 = next(i for i, m, _ in _values(claims) if m == "P@3")
    assert verdicts[p3] == "supported"


QA_ANSWER = """**Answer.** The relevance grades of the six results, in rank order, are 3, 2, 3, 0, 1, 2.
The gain is the grade, and the discount is log2(rank + 1). So the DCG@6 is about 6.861.

The ideal ordering of these grades is 3, 3, 2, 2, 1, 0, so the ideal DCG is about 7.141 and nDCG@6 ≈ 0.961.
"""


def test_a_qa_answer_computing_ndcg_from_a_grade_list(tmp_path):
    """Grades [3, 2, 3, 0, 1, 2], linear gain: DCG@6 = 3 + 2/log2(3) + 3/2 + 0 + 1/log2(6) + 2/log2(7)
    = 3 + 1.26186 + 1.5 + 0.38685 + 0.71241 = 6.861127 (≈ 6.861); the stated ideal [3, 3, 2, 2, 1, 0] gives
    3 + 3/log2(3) + 1 + 2/log2(5) + 1/log2(6) = 7.140995, so nDCG@6 = 6.861127/7.140995 = 0.960808 (≈ 0.961)."""
    claims, verdicts = _init(tmp_path, QA_ANSWER)
    values = {m: (i, v) for i, m, v in _values(claims)}
    assert values["DCG@6"][1] == "about 6.861" and values["IDCG"][1] == "about 7.141"
    ndcg = next(c for c in claims if c["id"] == values["nDCG@6"][0])
    assert sorted(ndcg["fixture"]["qrels"]["q1"].values()) == [0, 1, 2, 2, 3, 3]
    assert {m: verdicts[i] for m, (i, _) in values.items()} == {"DCG@6": "supported", "IDCG": "supported",
                                                                "nDCG@6": "supported"}


def test_ndcg_on_a_grade_list_without_the_ideal_is_a_question(tmp_path):
    """The same answer without the ideal's grades: whether the query has relevant documents the six results miss
    decides IDCG, so nDCG is a draft asking for the judged grades; DCG@6 needs the ranked grades only."""
    text = QA_ANSWER.replace("The ideal ordering of these grades is 3, 3, 2, 2, 1, 0, so the ideal DCG is about "
                             "7.141 and nDCG", "So nDCG")
    claims, verdicts = _init(tmp_path, text)
    assert [m for _, m, _ in _values(claims)] == ["DCG@6"]
    draft = next(c for c in claims if c["kind"] == "draft" and "nDCG@6" in c["quote"])
    assert ASK_IDEAL in draft["claim"]


TUTORIAL = """# Ranking metrics in NumPy

We score one query. The relevance of each returned document, in rank order:

```python
import numpy as np

relevance = [2, 0, 1, 2, 1]
ideal = [2, 2, 2, 1, 1, 0]
```

The ideal ranking sorts every judged document of the query, one relevant document the system never returned
among them, and is cut at k. With linear gain, nDCG@5 = 3.748/5.079 ≈ 0.738.

## Binary relevance

For the binary list `[1, 0, 1, 1, 0]`, P@5 = 3/5 and AP = 0.8.
"""


def test_a_tutorial_listing_is_the_example_of_the_prose_after_it(tmp_path):
    """relevance [2, 0, 1, 2, 1]: DCG@5 = 2 + 0 + 1/2 + 2/log2(5) + 1/log2(6) = 2 + 0.5 + 0.861353 + 0.386853
    = 3.748206; ideal (every judged grade) [2, 2, 2, 1, 1]: 2 + 2/log2(3) + 1 + 1/log2(5) + 1/log2(6)
    = 2 + 1.261860 + 1 + 0.430677 + 0.386853 = 5.079389 at cutoff 5, so nDCG@5 = 0.737925 (≈ 0.738): supported.
    The binary list after the heading: P@5 = 3/5 (supported), while AP needs |R|, which the text does not state: a
    draft with the question."""
    claims, verdicts = _init(tmp_path, TUTORIAL)
    values = {m: i for i, m, _ in _values(claims)}
    assert set(values) == {"nDCG@5", "P@5"}
    ndcg = next(c for c in claims if c["id"] == values["nDCG@5"])
    assert sorted(ndcg["fixture"]["qrels"]["q1"].values()) == [0, 1, 1, 2, 2, 2]   # the unreturned grade-2 document
    assert verdicts[values["nDCG@5"]] == "supported" and verdicts[values["P@5"]] == "supported"
    draft = next(c for c in claims if c["kind"] == "draft" and "AP = 0.8" in c["quote"])
    assert ASK_RELEVANT in draft["claim"]


def test_a_sorted_ideal_in_the_listing_states_the_judged_grades():
    """``ideal = sorted(relevance, reverse=True)`` says the ranking holds every judged document: the ideal's grades
    are the list's own."""
    [example] = find("```python\nrelevance = [3, 2, 3, 0, 1, 2]\nideal = sorted(relevance, reverse=True)\n```\n")
    assert (example.kind, example.ideal()) == ("grade list", [3, 3, 2, 2, 1, 0])


POSITIONS = """# Recall and average precision

The query has three known-relevant documents. The system places relevant documents at positions 1, 4 and 5 among
five results. Its AP is (1 + 2/4 + 3/5)/3 = 0.7, and its recall at 5 is 1.

# A second query

Another system returns relevant documents at positions 2 and 3 among five results, so its recall at 5 is 2/3.

# A third query

The first relevant document is at rank 2, and P@5 = 2/5 = 0.4.
"""


def test_positions_in_prose_with_and_without_r(tmp_path):
    """First query: |R| = 3 (known-relevant), relevant at 1, 4, 5 of five: AP = (1/1 + 2/4 + 3/5)/3 = 2.1/3 = 0.7
    (supported) and R@5 = 3/3 = 1 (supported). Second: |R| is not stated, so recall at 5 is a draft asking for it
    (2/3 would need |R| = 3). Third: only rank 2 is known to hold the first relevant document; P@5 needs ranks 3–5,
    which the text does not give: a draft asking what the ranking returns, never a fixture with one relevant
    document (which would give 1/5 and a false contradiction)."""
    claims, verdicts = _init(tmp_path, POSITIONS)
    values = {m: i for i, m, _ in _values(claims)}
    assert set(values) == {"AP", "R@5"}
    assert verdicts[values["AP"]] == "supported" and verdicts[values["R@5"]] == "supported"
    recall = next(c for c in claims if c["kind"] == "draft" and "2/3" in c["quote"])
    assert ASK_RELEVANT in recall["claim"]
    p5 = next(c for c in claims if "P@5 = 2/5" in c["quote"] and c["kind"] != "arithmetic")
    assert p5["kind"] == "draft" and "how many results does the ranking return" in p5["claim"]


def test_a_heading_ends_an_example():
    """A statement after a heading that starts a new part is bound to no example before it."""
    from audit.draft.examples.bind import bound
    text = "| Rank | Relevant |\n|---|---|\n| 1 | yes |\n\n## Next\n\nP@1 = 1.\n"
    examples = find(text)
    at = text.index("P@1")
    assert len(examples) == 1 and bound(examples, at, at + 8, text) is None
    assert bound(examples, at, at + 8, text.replace("## Next\n\n", "")) is examples[0]


def test_a_relevance_column_reads_no_as_non_relevant_and_a_judged_column_as_unjudged():
    yes_no = find("| Rank | Doc | Relevant |\n|---|---|---|\n| 1 | a | no |\n| 2 | b | yes |\n")
    judged = find("| Rank | Doc | Judged |\n|---|---|---|\n| 1 | a | no |\n| 2 | b | 1 |\n")
    assert yes_no[0].ranking == [("a", 0), ("b", 1)] and judged[0].ranking == [("a", None), ("b", 1)]


def test_two_statements_of_r_that_disagree_leave_a_question():
    text = ("The query has four relevant documents.\n\n| Rank | Relevant |\n|---|---|\n| 1 | yes |\n\n"
            "The query has five relevant documents.\n")
    [example] = find(text)
    assert "4 and 5 relevant documents" in example.missing("AP", None)


@pytest.mark.parametrize("text, grades", [
    ("The relevance grades, top to bottom, are 4, 3, 1, 0, 3, 2, 1, 4, 0, 2.", [4, 3, 1, 0, 3, 2, 1, 4, 0, 2]),
    ("For the binary list `[1, 0, 1, 1, 0]`, P@5 = 3/5.", [1, 0, 1, 1, 0]),
    ("```python\nrelevance = [3, 2, 3, 0, 1, 2]\n```\n", [3, 2, 3, 0, 1, 2]),
    ("```python\nrels = np.array([2, 0, 1])\n```\n", [2, 0, 1]),
    ("Write the ranking as a relevance vector first: 1 0 1 1 0.", [1, 0, 1, 1, 0]),
    # not rankings: a grade scale, cutoffs, a batch in scikit-learn's shape (its y_true is not in rank order)
    ("The grades are 0, 1, 2 and 3 on a four-point scale.", None),
    ("We report P@k at cutoffs [1, 3, 5].", None),
    ("```python\nks = [1, 3, 5, 10]\nndcg_score([[3, 2, 3, 0]], [[0.9, 0.8, 0.7, 0.1]])\n```\n", None),
    # one list per query of the ranks holding relevant results (a tutorial's MRR listing): the inner [1, 4, 5, 7]
    # is query 2's relevant positions, not the grades of a four-document ranking (read so, it made P@1 … P@6 on a
    # later example false contradictions)
    ("```python\n# relevant results for query #1, #2 and #3\nactual_relevant = [\n    [2, 4, 5, 7],\n"
     "    [1, 4, 5, 7],\n    [5, 8]\n]\n```\n", None),
])
def test_grade_lists_in_prose_and_code(text, grades):
    found = find(text)
    assert ([g for _, g in found[0].ranking] if found else None) == grades


def test_relevant_sets_and_rankings_of_several_queries_are_their_queries_not_grades():
    """Relevant sets and rankings of integer IDs, one per query: [1, 2, 3] is the second query's ranking, not grades.
    The sentence is read as the three queries (q1's ranking [5, 6, 7, 8, 9] against {1, 5, 7, 9}: 1, 0, 1, 0, 1)."""
    found = find("With relevant sets {1, 5, 7, 9}, {2, 3} and {2, 5, 6} and rankings [5, 6, 7, 8, 9], [1, 2, 3] and "
                 "[2, 4, 6, 8], MAP@3 is 0.5185.")
    assert [e.kind for e in found] == ["relevant sets and rankings"]
    assert found[0].queries["run"] == {"q1": ["5", "6", "7", "8", "9"], "q2": ["1", "2", "3"], "q3": ["2", "4", "6", "8"]}
    assert found[0].queries["qrels"]["q2"] == {"1": 0, "2": 1, "3": 1}


@pytest.mark.parametrize("text, ranking, relevant", [
    # the shape of ml_metrics' apk docs: the relevant set and the ranking in one sentence
    ("Take relevant items {a, b, d}, ranking [b, c, a, e, f]. At k = 3, AP@3 = (1 + 2/3)/3 ≈ 0.5556.",
     [("b", 1), ("c", 0), ("a", 1), ("e", 0), ("f", 0)], 3),
    # the same in code
    ('```python\nactual = ["a", "b", "d"]\npredicted = ["b", "c", "a", "e", "f"]\nprint(apk(actual, predicted, 3))\n```\n',
     [("b", 1), ("c", 0), ("a", 1), ("e", 0), ("f", 0)], 3),
])
def test_a_relevant_set_printed_with_its_ranking_is_an_example(text, ranking, relevant):
    # the set is the whole relevant set: |R| = 3 with d never retrieved, so AP@3 divides by 3 (trec_eval's
    # map_cut.3 gives (1 + 2/3)/3 = 5/9 on it)
    found = find(text)
    assert len(found) == 1
    assert found[0].ranking == ranking and found[0].total_relevant() == relevant
    fixture, _ = found[0].fixture()
    assert fixture["qrels"]["q1"] == {"b": 1, "c": 0, "a": 1, "e": 0, "f": 0, "d": 1}


ROWS = """# Precision and recall down the ranking

The query has four relevant documents.

| Rank | Doc | Relevant |
|---|---|---|
| 1 | d3 | yes |
| 2 | d7 | no |
| 3 | d1 | yes |

| k | P@k | R@k |
|---|-----|-----|
| 1 | 1 | 0.25 |
| 3 | 0.67 | 0.75 |
"""


def test_table_rows_after_a_rank_table_use_what_the_text_says_of_its_query(tmp_path):
    """|R| = 4 completes the table's fixture for recall: R@1 = 1/4 = 0.25 and P@1 = 1 (supported); at k = 3 two of
    the four relevant documents are retrieved, so R@3 = 2/4 = 0.5, not the printed 0.75 (contradicted; P@3 = 2/3
    ≈ 0.67 holds). Without |R| the rows are drafts asking for it."""
    claims, verdicts = _init(tmp_path, ROWS)
    rows = [(c["id"], [e["measure"] for e in c["expect"]]) for c in claims if c["kind"] == "value"]
    assert rows == [("C01", ["P@1", "R@1"]), ("C02", ["P@3", "R@3"])]
    assert verdicts == {"C01": "supported", "C02": "contradicted"}
    (tmp_path / "without").mkdir()
    claims, _ = _init(tmp_path / "without", ROWS.replace("The query has four relevant documents.\n\n", ""))
    assert [c["kind"] for c in claims] == ["draft", "draft"] and all(ASK_RELEVANT in c["claim"] for c in claims)


TEXTBOOK = """# Judging a ranked list

## A running example

Take a collection of twelve documents for topic t. Three of the twelve documents are relevant to t. The system ranks
all twelve documents, and the relevant ones come back at ranks 1, 3 and 8.

| rank of the relevant document | recall | precision |
|---|---|---|
| 1 | 0.33 | 1.00 |
| 3 | 0.67 | 0.67 |
| 8 | 1.00 | 0.38 |

## Average precision

AP adds the precision at each relevant document and divides by three: AP = (1 + 0.67 + 0.38)/3 ≈ 0.681.

## Another topic

A second topic has its single relevant document at rank 2, so its AP is 1/2.
"""


def test_a_running_example_reaches_past_headings_until_the_text_turns_to_another_ranking(tmp_path):
    """Topic t: |R| = 3, relevant at 1, 3, 8 of twelve. Rows by rank: R@1 = 1/3 ≈ 0.33, P@1 = 1; R@3 = 2/3 ≈ 0.67,
    P@3 = 2/3 ≈ 0.67; R@8 = 1, P@8 = 3/8 = 0.375 ≈ 0.38: all supported. Under the next heading, still the running
    example: AP = (1/1 + 2/3 + 3/8)/3 = (49/24)/3 = 49/72 ≈ 0.6806, printed 0.681: supported. The second topic is its
    own example: its single relevant document (|R| = 1) at rank 2 gives AP = (1/2)/1 = 1/2, supported — on its own
    ranking, never topic t's. The printed sum (1 + 0.67 + 0.38)/3 ≈ 0.681 is its own arithmetic claim: the terms
    plainly read 1, 2/3, 3/8 give 49/72 ≈ 0.6806."""
    claims, verdicts = _init(tmp_path, TEXTBOOK)
    values = [(c["id"], [e["measure"] for e in c["expect"]]) for c in claims if c["kind"] == "value"]
    assert values == [("C02", ["R@1", "P@1"]), ("C03", ["R@3", "P@3"]), ("C04", ["R@8", "P@8"]), ("C06", ["AP"]),
                      ("C07", ["AP"])]
    assert all(verdicts[i] == "supported" for i, _ in values)
    arithmetic = next(c for c in claims if c["id"] == "C05")   # the printed terms' sum, checked beside AP itself
    assert arithmetic["kind"] == "arithmetic" and verdicts["C05"] == "supported"
    second = next(c for c in claims if c["id"] == "C07")
    assert second["fixture"]["run"]["q1"] == ["d1", "d2"]   # its own ranking: one relevant document, at rank 2


ERR_SHEET = """# Exercise 3: expected reciprocal rank

Our judges grade on a 0–3 scale. Take the stopping probability (2^g − 1)/2^3, 3 being our top grade.

ERR@3 for the top three grades 2, 0, 3 is 3/8 + (5/8)(7/8)/3 ≈ 0.557.

The gdeval script, which ir_measures runs for ERR, divides by 2^4 whatever the scale and gives 0.306.
"""


def test_a_grade_list_in_prose_carries_the_value_beside_its_arithmetic(tmp_path):
    """Grades 2, 0, 3 at ranks 1–3; the text's top grade 3 gives stopping probabilities 3/8, 0, 7/8, so
    ERR@3 = 3/8 + (1 − 3/8)(1 − 0)(7/8)/3 = 3/8 + 35/192 = 107/192 ≈ 0.557292 (hand, exact). gdeval (ir_measures'
    only ERR) divides by 2^4: 3/16 + (13/16)(7/16)/3 = 3/16 + 91/768 = 235/768 ≈ 0.30599. The sentence holds a formula
    and a value: the arithmetic is checked as printed, and the value claim on the three grades is qualified (the
    stated top grade 3 is a convention the only reference does not share), never supported on the arithmetic
    alone. The next sentence says what gdeval does: its 2^4 is the library's, not the chapter's convention."""
    from fractions import Fraction
    assert Fraction(3, 8) + Fraction(5, 8) * Fraction(7, 8) / 3 == Fraction(107, 192)
    claims, verdicts = _init(tmp_path, ERR_SHEET)
    err = next(c for c in claims if c["kind"] == "value" and c["expect"][0]["measure"] == "ERR@3")
    assert err["expect"][0]["claimed"] == "≈ 0.557"
    assert list(err["fixture"]["qrels"]["q1"].values()) == [2, 0, 3]
    arithmetic = next(c for c in claims if c["kind"] == "arithmetic" and "3/8" in c["quote"])
    assert verdicts[arithmetic["id"]] == "supported" and verdicts[err["id"]] == "qualified"
    chapter = (tmp_path / "claims" / "ch" / "chapter.yaml").read_text(encoding="utf-8")
    assert "err_max_grade" in chapter and "3 being our top grade" in chapter and "2^4" not in chapter


@pytest.mark.parametrize("text, grades", [
    ("ERR@3 for the top three grades 2, 0, 3 is about 0.557.", [2, 0, 3]),
    ("The six results have relevance 3, 2, 3, 0, 1, 2 in rank order, so DCG@6 is about 6.861.", [3, 2, 3, 0, 1, 2]),
    # not rankings: which grades count, a scale, a count that disagrees with the list
    ("With `-l 2`, grades 2, 3 and 4 count as relevant for P@5.", None),
    ("Assessors use grades 0, 1, 2, 3 on a four-point scale for the ranking.", None),
    ("The top five grades 2, 0, 3 give ERR@5 = 0.557.", None),
])
def test_grade_lists_written_straight_after_their_name(text, grades):
    found = find(text)
    assert ([g for _, g in found[0].ranking] if found else None) == grades


HITS = """# Walking down the ranking

We scan the ten results of query q7 and keep a count of hits.

The document at rank 5 is relevant, so hits so far = 2 and P@5 = 2/5 = 0.4.

Relevant documents come back at positions 1 and 5 among the first five results, two hits, so P@5 = 2/5 = 0.4.

Relevant documents come back at positions 1 and 5 among the first five results, but with three hits so far
P@5 = 3/5 = 0.6.
"""


def test_a_rank_or_positions_the_text_does_not_determine_stay_questions(tmp_path):
    """"The document at rank 5 is relevant, hits so far = 2": one relevant document's rank, the other hit somewhere in
    ranks 1–4; a fixture with rank 5 as the only relevant document gives P@5 = 1/5 and would contradict the right
    2/5. It stays a draft asking which ranks hold the relevant documents (the arithmetic 2/5 = 0.4 is still checked).
    Positions 1 and 5 of five with two hits agree: P@5 = 2/5 = 0.4 (hand), supported. Positions 1 and 5 with three
    hits so far disagree: a draft naming the conflict, no runnable claim on either reading."""
    claims, verdicts = _init(tmp_path, HITS)
    assert not any(c["kind"] == "value" for c in claims if "rank 5 is relevant" in c["quote"])
    draft = next(c for c in claims if c["kind"] == "draft" and "rank 5 is relevant" in c["quote"])
    assert "relevant" in draft["claim"] and "?" in draft["claim"]
    agreed = next(c for c in claims if c["kind"] == "value" and "two hits" in c["quote"])
    assert verdicts[agreed["id"]] == "supported"
    assert not any(c["kind"] == "value" for c in claims if "three hits" in c["quote"])
    conflict = next(c for c in claims if c["kind"] == "draft" and "three hits" in c["quote"])
    assert "counts 3 relevant retrieved" in conflict["claim"]
    assert all(v != "contradicted" for v in verdicts.values()), verdicts


def test_a_running_count_column_is_not_read_as_grades():
    """A table with a mark column and a "relevant so far" column: the grades are the marks (1, 0, 1), never the
    running count (1, 1, 2), and "✓ (2nd hit)" is relevant, not grade 2."""
    table = ("| Rank | Doc | Relevant so far | Relevant? |\n|---|---|---|---|\n| 1 | a | 1 | ✓ |\n| 2 | b | 1 | ✗ |\n"
             "| 3 | c | 2 | ✓ (2nd hit) |\n")
    [example] = find(table)
    assert example.ranking == [("a", 1), ("b", 0), ("c", 1)]


REVERSED = """# Four results, two gains

We grade on a 0–3 scale and look at the top four results. The ideal list is simply those four grades sorted from
best to worst.

## Linear gain

Each result adds its grade divided by log2(rank + 1). For the list [3, 2, 1, 0]: DCG@4 = 3 + 2/1.585 + 1/2 ≈ 4.762.

Reverse it to [0, 1, 2, 3]: DCG@4 = 1/1.585 + 2/2 + 3/2.322 ≈ 2.923.

## Exponential gain

With gain 2^g − 1, the list [3, 2, 1, 0] has DCG@4 = 7 + 3/1.585 + 1/2 ≈ 9.393.

For the reversed list:

DCG@4 = 1/1.585 + 3/2 + 7/2.322 ≈ 5.146, so nDCG@4 = 5.146/9.393 ≈ 0.548.
"""


def test_a_ranking_named_by_its_change_is_the_example_introduced_with_it(tmp_path):
    """"For the reversed list:" under the exponential-gain heading speaks of [0, 1, 2, 3], introduced by "Reverse it
    to", not of [3, 2, 1, 0] just before it. Exponential gain on [0, 1, 2, 3]: DCG@4 = 1/log2(3) + 3/log2(4) +
    7/log2(5) = 0.630930 + 1.5 + 3.014735 = 5.145665 (≈ 5.146, math.log2); the ideal [3, 2, 1, 0] gives 7 +
    3/log2(3) + 1/2 = 9.392789, so nDCG@4 = 0.547830 (≈ 0.548): both supported on the reversed list's grades."""
    claims, verdicts = _init(tmp_path, REVERSED)
    reversed_ = [c for c in claims if c["kind"] == "value" and ("5.146" in c["quote"] or "0.548" in c["quote"])]
    assert sorted(c["expect"][0]["claimed"] for c in reversed_) == ["≈ 0.548", "≈ 5.146"]
    for c in reversed_:
        grades = [c["fixture"]["qrels"]["q1"].get(d, 0) for d in c["fixture"]["run"]["q1"]]
        assert grades == [0, 1, 2, 3] and verdicts[c["id"]] == "supported", (c, verdicts[c["id"]])
    assert "contradicted" not in verdicts.values()


def test_a_list_called_the_top_of_the_ranking_leaves_deeper_cutoffs_open(tmp_path):
    """"The top five results are graded [1, 0, 1, 1, 0]": P@5 = 3/5 (hand) is determined and supported, but P@10
    needs ranks 6–10, which the text does not give: a draft asking what the ranking returns, never 3/10 on a ranking
    cut at five."""
    text = ("# Precision down the list\n\nThe top five results of our ranking are graded [1, 0, 1, 1, 0], so "
            "P@5 = 3/5.\n\nFurther down, P@10 = 0.5.\n")
    claims, verdicts = _init(tmp_path, text)
    assert [(m, v) for _, m, v in _values(claims)] == [("P@5", "3/5")]
    assert verdicts[_values(claims)[0][0]] == "supported"
    p10 = next(c for c in claims if "P@10" in c["quote"])
    assert p10["kind"] == "draft" and "how many results does the ranking return" in p10["claim"]


RBP_AND_TEST = """# Two numbers called p

## Persistence

Rank-biased precision weighs rank i by (1 − p)p^(i−1), where p is the persistence. For a ranking with relevant
documents at ranks 1 and 3, at p = 0.5 the sum is 0.5 × (1 + 0.25) = 0.625.

## Is the gain significant?

The sign test over ten topics gives a one-sided p = 0.0547, so the two-sided p = 2 × 0.0547 = 0.1094, above α = 0.05.
"""


def test_rbp_persistence_p_is_not_a_p_value(tmp_path):
    """Under a heading about RBP's persistence, "at p = 0.5 the sum is 0.5 × (1 + 0.25) = 0.625" is arithmetic:
    0.5 × 1.25 = 0.625 exactly (hand), supported. In the section about a sign test, "p = 2 × 0.0547 = 0.1094" is a
    p-value's computation, left to a statistic claim as before."""
    claims, verdicts = _init(tmp_path, RBP_AND_TEST)
    rbp = [c for c in claims if c["kind"] == "arithmetic" and "0.625" in c["quote"]]
    assert [c["expression"] for c in rbp] == ["0.5 * (1 + 0.25)"] and verdicts[rbp[0]["id"]] == "supported"
    assert not any(c["kind"] == "arithmetic" and "0.0547" in c["quote"] for c in claims)


IPREC = """# Interpolated precision, by hand

Our engine returns a ranking for the query, and the relevant ones sit at positions 2, 3 and 5 among its six
results. The collection holds four relevant documents for this query.

Interpolated precision at recall level r is the best precision at any recall of r or more:

| recall level | interpolated precision |
|---|---|
| 0.0, 0.1, 0.2 | 0.67 |
| 0.3, 0.4, 0.5 | 0.60 |
| 0.6, 0.7 | 0.60 |
| 0.8, 0.9, 1.0 | 0.00 |
"""


def test_a_recall_level_table_is_interpolated_precision_on_the_example(tmp_path):
    """Relevant at 2, 3, 5 of six, |R| = 4: precision and recall at each relevant rank are 1/2 at 1/4, 2/3 at 2/4,
    3/5 at 3/4 (hand). Interpolated precision, the best precision at recall ≥ r: 2/3 for r ≤ 0.5, 3/5 for r = 0.6 and
    0.7, 0 from 0.8 on (recall never passes 3/4). Row 1 is supported; row 2 prints 0.60 where 0.3–0.5 give 2/3 ≈ 0.67
    under every reading: contradicted. Rows 3 and 4 hold when a level counts as reached at recall ≥ r, but trec_eval
    10.0 reaches level r at round(r·|R|) relevant: round(2.4) = 2 gives 2/3 at 0.6, round(3.2) = 3 gives 3/5 at 0.8,
    so both are qualified. One value claim per row, each level a measure. Without |R| the rows ask for it."""
    claims, verdicts = _init(tmp_path, IPREC)
    rows = [c for c in claims if c["kind"] == "value"]
    assert [[e["measure"] for e in c["expect"]] for c in rows] == [
        ["IPrec@0.0", "IPrec@0.1", "IPrec@0.2"], ["IPrec@0.3", "IPrec@0.4", "IPrec@0.5"], ["IPrec@0.6", "IPrec@0.7"],
        ["IPrec@0.8", "IPrec@0.9", "IPrec@1.0"]]
    assert [verdicts[c["id"]] for c in rows] == ["supported", "contradicted", "qualified", "qualified"]
    without = IPREC.replace(" The collection holds four relevant documents for this query.", "")
    (tmp_path / "without").mkdir()
    claims, _ = _init(tmp_path / "without", without)
    assert not [c for c in claims if c["kind"] == "value"]
    assert all(ASK_RELEVANT in c["claim"] for c in claims if c["quote"].startswith("| 0."))


def test_interpolated_precision_over_runs_of_recall_levels_in_prose(tmp_path):
    """The same example in prose: 2/3 ≈ 0.67 at levels 0.0–0.5 under every reading of when a level is reached
    (supported); 3/5 = 0.60 at 0.6 and 0.7 and 0 from 0.8 on hold at recall ≥ r but not at trec_eval 10.0's
    round(r·|R|) (qualified, see the table test above). One claim per run of levels, quoting the run."""
    text = IPREC.split("Interpolated precision at recall level")[0] + (
        "Interpolated precision is 0.67 at every standard recall level from 0.0 up to 0.5, then 0.60 at the levels "
        "0.6 and 0.7, and 0 from 0.8 to 1.0.\n")
    claims, verdicts = _init(tmp_path, text)
    runs = [c for c in claims if c["kind"] == "value"]
    assert [(c["quote"], len(c["expect"])) for c in runs] == [
        ("0.67 at every standard recall level from 0.0 up to 0.5", 6), ("0.60 at the levels 0.6 and 0.7", 2),
        ("0 from 0.8 to 1.0", 3)]
    assert [verdicts[c["id"]] for c in runs] == ["supported", "qualified", "qualified"]


NOTEBOOK_CELL = '''# Exercise 1: precision for one topic

```python
def precision_at_k(ranking, qrels, k):
    if len(set(ranking)) != len(ranking):
        raise ValueError("a ranking lists each document once")
    if k <= 0:
        return 0.0
    hits = sum(1 for doc in ranking[:k] if qrels.get(doc, 0) >= 1)
    return hits / k


def precision_at_k_r(r, k):
    return sum(1 for rel in r[:k] if rel >= 1) / k


def mean_precision(run, qrels, k):
    return sum(precision_at_k(run[q], qrels[q], k) for q in run) / len(run)
```
'''


def test_a_listing_body_settles_the_role_of_an_unhinted_qrels_or_grade_list(tmp_path):
    """``qrels.get(doc, 0)`` for ``doc`` of the ranking: one query's judgements (doc → grade), so precision_at_k is
    drafted as a code claim on (ranking, qrels, cutoff) and audited: hits in the top k over k is P@k, supported.
    ``r[:k]`` beside a cutoff alone: the ranked grades. ``qrels[q]`` for a query of the run is several queries'
    input, which the body does not settle as one query's: the role stays the author's to give."""
    from audit.draft.init import draft_register
    source = tmp_path / "nb.md"
    source.write_text(NOTEBOOK_CELL, encoding="utf-8")
    claims = {c["quote"]: c for c in draft_register(Snapshot.read(source))[0]}
    p = claims["def precision_at_k(ranking, qrels, k):"]
    assert p["kind"] == "code" and p["arguments"] == {"ranking": "ranking", "qrels": "qrels", "k": "cutoff"}
    r = claims["def precision_at_k_r(r, k):"]
    assert r["kind"] == "code" and r["arguments"] == {"r": "ranked grades", "k": "cutoff"}
    assert claims["def mean_precision(run, qrels, k):"]["kind"] == "draft"
    _, verdicts = _init(tmp_path, NOTEBOOK_CELL.replace(NOTEBOOK_CELL[NOTEBOOK_CELL.index("\n\ndef precision_at_k_r"):
                                                                   NOTEBOOK_CELL.index("```\n", 60)], "\n"))
    assert verdicts["C01"] == "supported"


TITLED = """# Finding the first hit

#### Example

A user asks "when does the library open?" and the search returns:

| Position | Document | Relevant? |
|---|---|---|
| 1 | Branch locations | ❌ |
| 2 | Membership rules | ❌ |
| 3 | Opening hours | ✅ |
| 4 | Events calendar | ❌ |

Reciprocal Rank = 1/3 = 0.333
"""


def test_a_rank_table_of_document_titles_is_an_example(tmp_path):
    """Documents named by their titles ("Opening hours"), not IDs: the table is still the ranking, its documents
    named by rank. The first relevant document is at rank 3, so RR = 1/3 (pytrec_eval ``recip_rank`` 0.3333)."""
    (example,) = find(TITLED)
    assert example.kind == "rank table" and [g for _, g in example.ranking] == [0, 0, 1, 0]
    claims, verdicts = _init(tmp_path, TITLED)
    (rr,) = [c for c in claims if c["kind"] == "value"]
    assert rr["expect"] == [{"measure": "RR", "claimed": "0.333"}] and verdicts[rr["id"]] == "supported"
