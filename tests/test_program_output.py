"""A value printed in a code block is what a program printed (an R or Python session's output, `[1] 0.3333333`):
when it disagrees with the definition the text states, the audit says so, but never proposes a new output line the
program does not print. The right value below: mean AP@2 over two queries with |R| = 3 each, ranked hits at 1 and 2
for the first, none for the second: AP@2 = (1 + 1)/3 = 2/3 and 0, mean 1/3 over |R|; over min(k, |R|) = 2 it is
(1 + 1)/2 = 1 and 0, mean 1/2 — the session prints 0.5, the stated |R| reading gives 0.3333."""

from __future__ import annotations

import textwrap

import pytest

from audit.research.proposal import PROGRAM_OUTPUT
from chapters import audit_text

SNAPSHOT = textwrap.dedent("""\
    # Mean average precision at k

    The average precision at k of a query is the sum of the precisions at each relevant rank within the top k,
    divided by the number of relevant items of the query. Two queries, three relevant items each:

    ```r
    > mapk(2, actual, predicted)
    [1] 0.5
    ```

    The same mean, written out: (2/3 + 0)/2 = 0.5.
    """)

CLAIMS = textwrap.dedent("""\
    fixtures:
      two:
        qrels: {q1: {a: 1, b: 1, c: 1}, q2: {d: 1, e: 1, f: 1}}
        run: {q1: [a, b], q2: [x, y]}
    claims:
      - {id: O1, title: the session's output, kind: value, quote: "[1] 0.5", claim: MAP@2 is 0.5, fixture: two,
         conventions: {ap_denominator: {value: "|R|", quote: "divided by the number of relevant items of the query"}},
         expect: [{measure: "AP@2", aggregate: mean, claimed: "0.5"}]}
      - {id: O2, title: the prose, kind: arithmetic, quote: "(2/3 + 0)/2 = 0.5", claim: the mean is 0.5,
         expression: "(2/3 + 0)/2", claimed: "0.5"}
    """)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return audit_text(tmp_path_factory.mktemp("program-output"), SNAPSHOT, CLAIMS, title="MAP at k")


def test_a_wrong_output_is_contradicted_but_no_output_line_is_rewritten(report):
    claims = {c.id: c for c in report.claims}
    assert claims["O1"].verdict == "contradicted", claims["O1"].reason
    assert "1/3" in claims["O1"].reason or "0.3333" in claims["O1"].reason, claims["O1"].reason
    proposal = report.research.proposal
    assert "O1" not in [h.claim for h in proposal.hunks]
    assert {"claim": "O1", "reason": PROGRAM_OUTPUT} in proposal.not_proposed


def test_the_prose_computation_is_contradicted_but_its_sameness_is_the_authors_to_word(report):
    """(2/3 + 0)/2 = 1/3, not 0.5: the sentence is contradicted. It calls its mean "the same" as the program's printed
    0.5, which no patch rewrites, so writing 1/3 there would leave "The same mean" false beside the output above it:
    no hunk, and the finding gives the value (``sentence_words``)."""
    claims = {c.id: c for c in report.claims}
    assert claims["O2"].verdict == "contradicted"
    assert "O2" not in [h.claim for h in report.research.proposal.hunks]
    (withdrawn,) = [w for w in report.research.proposal.withdrawn if w["claim"] == "O2"]
    assert "“The same mean”" in withdrawn["reason"]


def test_what_to_change_asks_for_the_definition_or_the_code_not_a_new_output(report):
    response = {c.id: c for c in report.claims}["O1"].response
    assert response.startswith("Leave the printed output as the program prints it") and "checked" not in response
    assert "0.3" in response   # the value under the stated |R| definition: 1/3


OUTPUT_ARITHMETIC = textwrap.dedent("""\
    # Mean reciprocal rank

    The first relevant results sit at ranks 2, 1 and 5.

    ```python
    total = 0
    for q, first in enumerate([2, 1, 5]):
        total += 1 / first
        print(f"query #{q + 1} = 1/{first} = {total}")
    ```

    ```
    query #1 = 1/2 = 0.5
    query #2 = 1/1 = 1.5
    ```
    """)


def test_a_printed_line_false_on_its_own_terms_asks_for_the_code_to_be_corrected(tmp_path):
    """The program prints its running total under each query's label: "query #2 = 1/1 = 1.5" is false (1/1 = 1).
    The printed line is contradicted with that value, and the finding asks for the code to be corrected and run
    again, with no hunk that would print a line the program does not print."""
    claims = textwrap.dedent("""\
        claims:
          - {id: P1, title: printed line, kind: arithmetic, quote: "query #2 = 1/1 = 1.5", claim: c,
             expression: "1/1", claimed: "1.5"}
        """)
    report = audit_text(tmp_path, OUTPUT_ARITHMETIC, claims, title="MRR")
    result = report.claims[0]
    assert result.verdict == "contradicted", result.reason
    assert result.response.startswith("The program's printed line is false on its own terms: correct the code")
    assert "gives 1" in result.response
    assert "P1" not in [h.claim for h in report.research.proposal.hunks]


COMMENTED = textwrap.dedent("""\
    # nDCG at k

    DCG@k sums each grade over log2 of its rank plus one; nDCG@k divides by the ideal DCG@k of the same grades.

    ```python
    import math

    def ndcg(rel, k):
        dcg = sum(r / math.log2(i + 2) for i, r in enumerate(rel[:k]))
        ideal = sorted(rel, reverse=True)[:k]
        return dcg / sum(r / math.log2(i + 2) for i, r in enumerate(ideal))

    # ndcg([3, 2, 3, 0], k=4) → nDCG@4 = 0.8571
    ```
    """)


def test_a_value_in_the_author_s_own_code_comment_gets_a_corrected_comment(tmp_path):
    """The comment is the author's claim about a call, not a program's printed output: the hunk corrects it like
    prose. Right value (pytrec_eval ndcg_cut_4 on grades 3, 2, 3, 0): DCG = 3 + 2/log2 3 + 3/2 = 5.7619, ideal
    3, 3, 2, 0 → 3 + 3/log2 3 + 1 = 5.8928, nDCG@4 = 0.9778; the comment prints 0.8571."""
    import pytrec_eval
    got = pytrec_eval.RelevanceEvaluator({"q": {"a": 3, "b": 2, "c": 3, "d": 0}}, {"ndcg_cut_4"}).evaluate(
        {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}})["q"]["ndcg_cut_4"]
    assert round(got, 4) == 0.9778
    claims = textwrap.dedent("""\
        fixtures:
          g: {qrels: {q1: {a: 3, b: 2, c: 3, d: 0}}, run: {q1: [a, b, c, d]}}
        claims:
          - {id: K1, title: the comment's value, kind: value, quote: "nDCG@4 = 0.8571", claim: c, fixture: g,
             expect: [{measure: "nDCG@4", claimed: "0.8571"}]}
        """)
    report = audit_text(tmp_path, COMMENTED, claims, title="nDCG")
    assert report.claims[0].verdict == "contradicted"
    hunks = [h for h in report.research.proposal.hunks if h.claim == "K1"]
    assert hunks and "0.9778" in hunks[0].new and hunks[0].new.lstrip().startswith("# ndcg(")


PASTED = textwrap.dedent("""\
    # MAP at k

    ```python
    metric = MAPMetric(topk=[1, 3])
    metric.compute_key_value()
    # {'map01': 1.0, 'map03': 0.8333}
    ```
    """)


def test_a_result_pasted_as_a_comment_is_the_program_s_output_and_gets_no_hunk(tmp_path):
    """The dict a library printed, pasted under the call as a comment: the page documents catalyst's MAPMetric, whose
    AP@3 divides by the relevant items in the top 3 (5/6 on [a, x, b]), so the value is qualified by that reading
    against trec_eval's 5/12 (pytrec_eval map_cut.3), and no hunk rewrites what the library printed (a patch once
    rewrote such a comment to trec_eval's numbers, which the library never returns)."""
    claims = textwrap.dedent("""\
        fixtures:
          q: {qrels: {q1: {a: 1, b: 1, c: 1, d: 1, x: 0}}, run: {q1: [a, x, b]}}
        claims:
          - {id: P2, title: map03, kind: value, quote: "'map03': 0.8333", claim: c, fixture: q,
             expect: [{measure: "AP@3", claimed: "0.8333"}]}
        """)
    report = audit_text(tmp_path, PASTED, claims, title="MAP")
    assert report.claims[0].verdict == "qualified", report.claims[0].reason
    assert "P2" not in [h.claim for h in report.research.proposal.hunks]
    assert {"claim": "P2", "reason": PROGRAM_OUTPUT} in report.research.proposal.not_proposed
