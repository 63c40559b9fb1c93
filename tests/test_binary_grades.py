"""A listing over a relevance list written in 0s and 1s, as tutorials write them (``sum(r[:k]) / k``), in a text
whose relevance is binary and whose calls pass 0 and 1 only, and a listing that takes the number of relevant
documents (|R|) as an argument (``recall_at_k(r, k, total_relevant)``).

Before, every listing over grades was tried on grades 0–3, so these were contradicted ("143 of 300 … grades {'d0':
2}: it returns 2.0000") though the text never passes a grade above 1, and |R| had no role: given as a constant, it
held a fixed 8 while the generated inputs had other relevant documents, which contradicted a right recall listing
and proposed wrong corrections. Now a binary measure's listing is tried on grades 0 and 1 where every grade the
text's calls pass is 0 or 1, and one case tries a grade of 2: counted against it, unless the text says its
relevance is binary. ``relevant count`` is |R|, the relevant documents the ranking does not hold included.

Values, by hand: relevance [1, 0, 1, 0, 0, 1, 0, 0, 0, 1] with |R| = 8: P@3 = 2/3, P@5 = 2/5, P@10 = 4/10; R@3 =
2/8 = 0.25, R@5 = 0.25, R@10 = 4/8 = 0.5; RR = 1. trec_eval's P_3, recall_3 and recip_rank give the same on qrels
of the four ranked relevant documents and four more not retrieved."""

from __future__ import annotations

import pytest
from chapters import audit_text

from audit.errors import RegisterError
from audit.evaluation.checks.text_calls import binary_grades

TEXT = '''\
# Ranking metrics from a relevance list

Binary relevance: 1 = relevant, 0 = not relevant. A ranked list is written as the relevance of each result in
rank order, and the query has 8 relevant documents in all, some of which the system never returned.

```python
relevance = [1, 0, 1, 0, 0, 1, 0, 0, 0, 1]


def precision_at_k(r, k):
    """Fraction of the top k results that are relevant."""
    return sum(r[:k]) / k


def recall_at_k(r, k, total_relevant):
    """Fraction of all relevant documents found in the top k."""
    return sum(r[:k]) / total_relevant


def reciprocal_rank(r):
    for i, rel in enumerate(r, start=1):
        if rel == 1:
            return 1 / i
    return 0.0


for k in [3, 5, 10]:
    print(f"P@{k}: {precision_at_k(relevance, k):.3f}  R@{k}: {recall_at_k(relevance, k, 8):.3f}")
print(reciprocal_rank(relevance))
```

```text
P@3: 0.667  R@3: 0.250
P@5: 0.400  R@5: 0.250
P@10: 0.400  R@10: 0.500
1.0
```
'''

CLAIMS = '''\
claims:
  - {id: C1, title: P, kind: code, quote: "def precision_at_k(r, k):", claim: precision_at_k computes P@k.,
     function: precision_at_k, measure: P@k, arguments: {r: ranked grades, k: cutoff}}
  - {id: C2, title: R, kind: code, quote: "def recall_at_k(r, k, total_relevant):", claim: recall_at_k computes R@k.,
     function: recall_at_k, measure: R@k, arguments: {r: ranked grades, k: cutoff, total_relevant: relevant count}}
  - {id: C3, title: RR, kind: code, quote: "def reciprocal_rank(r):", claim: reciprocal_rank computes RR.,
     function: reciprocal_rank, measure: RR, arguments: {r: ranked grades}}
'''


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    folder = tmp_path_factory.mktemp("binary")
    return {c.id: c for c in audit_text(folder, TEXT, CLAIMS, title="Binary").claims}


def test_binary_listings_are_tried_on_the_grades_the_text_passes(binary):
    """Each is right on 0/1 lists; P@k and R@k divide by zero at k = 0 and |R| = 0, where the references give 0."""
    assert binary["C1"].verdict == "qualified" and "on k = 0" in binary["C1"].reason, binary["C1"].reason
    assert binary["C2"].verdict == "qualified", binary["C2"].reason
    assert "on empty relevant set" in binary["C2"].reason and "give 0.0000" in binary["C2"].reason
    assert binary["C3"].verdict == "supported", binary["C3"].reason
    assert "grades 0 and 1 (the calls the text shows pass grades 0 and 1 only, and RR is a binary measure" \
        in binary["C3"].reason
    assert "on a grade of 2" in binary["C3"].reason and "not counted: the text's relevance is binary " \
        "(“Binary relevance”)" in binary["C3"].reason


def test_the_loop_tables_values_are_checked_with_the_relevant_count(binary):
    """R@10 printed 0.500 is 4/8: with |R| = 8, four relevant documents were never retrieved."""
    assert "not the printed" not in binary["C2"].reason


def test_a_grade_above_one_counts_where_the_text_does_not_say_its_relevance_is_binary(tmp_path):
    text = TEXT.replace("Binary relevance: 1 = relevant, 0 = not relevant. ", "")
    claim = audit_text(tmp_path, text, CLAIMS, title="Binary").claims[2]
    assert claim.verdict == "qualified", claim.reason
    assert "on a grade of 2 (ranking ['a', 'b', 'c'], grades {'a': 2, 'b': 0, 'c': 1}) it returns 0.3333" \
        in claim.reason, claim.reason


def test_a_wrong_value_over_the_relevant_count_is_contradicted(tmp_path):
    """R@10 printed as 1.000 (4 of the 4 relevant documents retrieved, as if |R| were what the ranking holds)."""
    text = TEXT.replace("R@10: 0.500", "R@10: 1.000")
    claim = audit_text(tmp_path, text, CLAIMS, title="Binary").claims[1]
    assert claim.verdict == "contradicted", claim.reason
    assert "recall_at_k(relevance, 10, 8)" in claim.reason and "not the printed 1.000" in claim.reason, claim.reason


@pytest.mark.parametrize("measures, shown, expected", [
    (("RR",), [{"r": [1, 0, 1]}], "binary"),
    (("P@k",), [{"r": [1, 0, 1]}, {"r": [0, 0]}], "binary"),
    (("P@k",), [{"r": [1, 0, 2]}], "graded"),          # a grade of 2 passed: the text's grades are graded
    (("nDCG@k",), [{"r": [1, 0, 1]}], "graded"),       # a graded measure: 0/1 calls cannot tell its gains apart
    (("P(rel=2)@k",), [{"r": [1, 0, 1]}], "graded"),   # relevant at grade 2: grades above 1 are the point
    (("RR",), [], "graded"),                            # no call shown: nothing says which grades the text uses
])
def test_which_grades_a_listing_is_tried_on(measures, shown, expected):
    assert binary_grades({"r": "ranked grades", "k": "cutoff"}, shown, measures)[0] == expected


def test_a_relevant_count_without_ranked_grades_stops_the_load(tmp_path):
    from audit.register.claims import load_chapter
    (tmp_path / "chapter.yaml").write_text("id: c\ntitle: C\nsnapshot: {file: ch.md}\n", encoding="utf-8")
    (tmp_path / "ch.md").write_text("# R\n\n```python\ndef recall(ranking, relevant, n):\n"
                                    "    return len(set(ranking) & relevant) / n\n```\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        "claims:\n  - {id: C1, title: R, kind: code, quote: \"def recall(ranking, relevant, n):\", claim: R.,\n"
        "     function: recall, measure: R@k, arguments: {ranking: ranking, relevant: relevant set, "
        "n: relevant count}}\n", encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(tmp_path)
    assert caught.value.field == "arguments" and "goes with ranked grades" in caught.value.message


def test_init_reads_total_relevant_as_the_relevant_count():
    from audit.draft.encode_code import _role
    assert _role("total_relevant", "") == "relevant count" and _role("num_relevant", "int") == "relevant count"


def test_a_wrong_recall_over_the_relevant_count_is_rewritten_and_each_printed_word_corrected(tmp_path, monkeypatch):
    """recall_at_k dividing by k prints R@3 0.667, R@5 0.400, R@10 0.400 on lines where P@3 and P@5 print the same
    words. The corrected listing divides by total_relevant (|R| = 8: 0.250, 0.250, 0.500), and the patch corrects the
    R@ word of each line, never the P@ word beside it; the rerun is clean. Before, the first 0.667 of the line (P@3's)
    was the one replaced, and the rewrite was withdrawn as contradicted."""
    import subprocess

    from chapters import cli
    wrong = TEXT.replace("    return sum(r[:k]) / total_relevant", "    return sum(r[:k]) / k").replace(
        "R@3: 0.250", "R@3: 0.667").replace("R@5: 0.250", "R@5: 0.400").replace("R@10: 0.500", "R@10: 0.400")
    folder = tmp_path / "claims" / "bin"
    folder.mkdir(parents=True)
    (folder / "chapter.yaml").write_text("id: bin\ntitle: B\nsnapshot: {file: snapshot.md}\n", encoding="utf-8")
    (folder / "snapshot.md").write_text(wrong, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out = cli("run", "claims/bin", "--no-cache", "--quiet")
    assert code == 0, out
    patch = (tmp_path / "reports" / "bin.patch").read_text(encoding="utf-8")
    applied = subprocess.run(["patch", "-p0"], input=patch, text=True, cwd=tmp_path, capture_output=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    patched = (folder / "snapshot.md").read_text(encoding="utf-8")
    assert "P@3: 0.667  R@3: 0.250\nP@5: 0.400  R@5: 0.250\nP@10: 0.400  R@10: 0.500\n" in patched, patched
    assert "R = total_relevant" in patched, patched
    code, out = cli("run", "claims/bin", "--no-cache", "--quiet", "--fail-on", "contradicted,error,stale")
    assert code == 0, out


def test_a_text_saying_its_relevance_is_binary_keeps_a_listing_it_never_calls_to_0_and_1():
    said = "Binary relevance"
    assert binary_grades({"r": "ranked grades"}, [], ("RR",), said)[0] == "binary"
    assert binary_grades({"r": "ranked grades"}, [{"r": [2, 0]}], ("RR",), said)[0] == "graded"  # a 2 passed
    assert binary_grades({"r": "ranked grades"}, [], ("nDCG@k",), said)[0] == "graded"
    assert binary_grades({"r": "ranked grades"}, [], ("RR",))[0] == "graded"
