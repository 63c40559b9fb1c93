"""Code listings: extraction, isolation, and differential testing against the chapter and the references."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from audit.attribution.book import Book
from audit.evaluation.references import all_references
from audit.evaluation.sandbox import run_listing
from audit.register.claims import load_chapter
from audit.run.audit import add_book_findings, audit_chapter
from audit.run.provenance import collect
from audit.text.listings import find_listings, function_source

ROOT = Path(__file__).resolve().parents[1]


# --- extraction ------------------------------------------------------------------------------------

def test_fenced_indented_and_unfenced_listings_are_found():
    text = ("Prose.\n\n```python\ndef a():\n    return 1\n```\n\nMore prose.\n\n    def b():\n        return 2\n\n"
            "Plain text follows.\ndef c(x):\n    return x\n\n    # trailing comment\nBack to prose.\n")
    found = [(l.style, l.code.split("\n")[0]) for l in find_listings(text)]
    assert found == [("fenced", "def a():"), ("indented", "def b():"), ("unfenced", "def c(x):")]


def test_the_module_listing_is_found_unfenced_on_lines_15_to_24():
    text = (ROOT / "claims" / "recall-and-precision" / "snapshot.txt").read_text(encoding="utf-8")
    listing, source = function_source(text, "def mrr(retrieved: list[str], relevant: set[str]) -> float:", "mrr")
    assert (listing.start, listing.end, listing.style) == (15, 24, "unfenced")
    assert source.startswith("def mrr(") and "recall_at_k" not in source


# --- isolation -------------------------------------------------------------------------------------

def test_a_listing_that_loops_forever_is_stopped_by_the_time_limit():
    report = run_listing("def f(x):\n    while True:\n        pass\n", "f", [[1], [2]], time_limit=1, max_hangs=1)
    assert report.results[0].status == "timeout"
    assert report.results[1].status == "not run"


def test_a_listing_that_raises_is_classified():
    report = run_listing("def f(x):\n    return 1 / x\n", "f", [[0], [4]], time_limit=3)
    assert report.results[0].status == "raises" and report.results[0].text.startswith("ZeroDivisionError")
    assert report.results[1].status == "ok" and report.results[1].value == 0.25


def test_a_listing_that_writes_outside_its_scratch_folder_is_caught(tmp_path):
    """The host's folders are not in the sandbox's view: the write fails with the listing's own exception."""
    target = tmp_path / "outside.txt"
    code = f"def f(x):\n    open({str(target)!r}, 'w').write('x')\n    return 1\n"
    report = run_listing(code, "f", [[1]], time_limit=3)
    assert report.results[0].status == "raises"
    assert report.results[0].text.startswith(("FileNotFoundError", "OSError: [Errno 30]"))
    assert not target.exists()


def test_a_listing_that_crashes_the_interpreter_is_reported_and_the_harness_goes_on():
    before = (os.getpid(), os.getcwd())
    report = run_listing("import os\ndef f(x):\n    os.abort()\n", "f", [[1], [2]], time_limit=3)
    assert report.results[0].status == "crashed" and "SIGABRT" in report.results[0].detail
    assert report.results[1].status == "crashed"
    assert (os.getpid(), os.getcwd()) == before


def test_a_listing_cannot_reach_the_network():
    code = "import socket\ndef f(x):\n    socket.create_connection(('127.0.0.1', 9), timeout=1)\n    return 1\n"
    report = run_listing(code, "f", [[1]], time_limit=3)
    assert report.results[0].status == "violation" and "socket" in report.results[0].detail


# --- differential testing and verdicts ----------------------------------------------------------------

@pytest.fixture(scope="module")
def module_report(tmp_path_factory):
    """The course module audited as a chapter of chapter 23's book (a copy whose chapter.yaml names that book), so
    chapter 23's C08 ("The evaluator rejects repeated result IDs") is a rule of the same book."""
    import shutil

    folder = tmp_path_factory.mktemp("same-book") / "recall-and-precision"
    shutil.copytree(ROOT / "claims" / "recall-and-precision", folder)
    identity = folder / "chapter.yaml"
    identity.write_text("book: Retrieval From First Principles\n" + identity.read_text(encoding="utf-8"),
                        encoding="utf-8")
    chapters = [load_chapter(folder), load_chapter(ROOT / "claims" / "retrieval-23-chapter")]
    book = Book(chapters)
    report = audit_chapter(chapters[0], all_references(), collect(["audit", "run"]), book=book)
    add_book_findings(report, book)
    return {c.id: c for c in report.claims}, report, book


def test_recall_at_k_fails_on_an_empty_relevant_set_and_on_repeated_ids(module_report):
    """recall_at_k divides by len(relevant) (ZeroDivisionError on an empty set) and counts a repeated relevant
    ID twice: ['n', 'n', 'a', 'a'] with relevant {'a'} gives 2 hits / 1 = 2.0, a recall above 1."""
    claim = module_report[0]["M14"]
    assert claim.verdict == "qualified"
    assert "ZeroDivisionError" in claim.reason
    assert "returns 2.0000 — outside [0, 1]" in claim.reason
    assert "retrieval-23-chapter C08" in claim.reason
    assert claim.response.startswith("Fix the listing: reject a ranking that repeats an ID "
                                     "(retrieval-23-chapter C08's rule), or count each ID once")


def test_mrr_matches_everywhere_but_repeated_ids_and_mixed_types(module_report):
    claim = module_report[0]["M15"]
    assert claim.verdict == "qualified"
    rows = {row[0]: row[-1] for row in claim.checks[0].table[1:]}
    assert rows["empty relevant set"] == "agrees" and rows["empty ranking"] == "agrees"
    # ['n', 'n', 'a', 'a'] with relevant {'a'}: the listing counts ranks 1, 2, 3 → 1/3; one copy of n gives 1/2.
    assert rows["repeated ID in the ranking"].startswith("returns 0.3333")


def test_listings_agree_with_every_reference_on_generated_input(module_report):
    claim = module_report[0]["M14"]
    generated = claim.checks[1]
    assert {v.implementation: v.detail for v in generated.values} == {
        "chapter": "300 of 300 inputs", "pytrec_eval": "300 of 300 inputs", "ir_measures": "300 of 300 inputs",
        "ranx": "300 of 300 inputs"}


def test_the_conflict_with_chapter_23_is_reported_at_book_level(module_report):
    _, report, book = module_report
    assert {(c.chapter, c.claim, c.rule_chapter, c.rule_claim) for c in book.conflicts} == {
        ("recall-and-precision", "M14", "retrieval-23-chapter", "C08"),
        ("recall-and-precision", "M15", "retrieval-23-chapter", "C08")}
    assert len(report.book_conflicts) == 2


def test_a_rule_of_another_book_is_not_held_against_a_listing(shipped_book):
    """The shipped course module names no book, chapter 23 is in *Retrieval From First Principles*: audited in one
    run (conftest's shipped_book, as `audit run` audits the shipped chapters), chapter 23's repeated-ID rule is not
    the module's, so no conflict is recorded and M14's reason (recall 2.0 on ['n', 'n', 'a', 'a'], relevant {'a'},
    still outside [0, 1]) cites no other chapter."""
    _, chapters, book = shipped_book
    assert [c.identity.id for c in book.chapters] == ["retrieval-23-chapter", "recall-and-precision"]
    _, report = chapters["recall-and-precision"]
    assert book.conflicts == [] and report.book_conflicts == []
    m14 = next(c for c in report.claims if c.id == "M14")
    assert m14.verdict == "qualified" and "returns 2.0000 — outside [0, 1]" in m14.reason
    assert "retrieval-23-chapter" not in m14.reason + m14.response and "chapter 23" not in m14.response
    assert "reject a ranking that repeats an ID (as trec_eval does), or count each ID once" in m14.response


def test_a_listing_wrong_on_ordinary_input_is_contradicted_with_a_minimal_input(tmp_path):
    """A recall that divides by k instead of |R| is wrong on ordinary input; the smallest failing input is shown."""
    (tmp_path / "snapshot.txt").write_text(
        "Listing:\n\ndef recall(ranking, relevant, k):\n    return sum(1 for d in ranking[:k] if d in relevant) / k\n",
        encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: wrong\ntitle: Wrong\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        "claims:\n  - id: W1\n    title: recall\n    kind: code\n    quote: \"def recall(ranking, relevant, k):\"\n"
        "    claim: computes recall\n    function: recall\n    measure: R@k\n"
        "    arguments: {ranking: ranking, relevant: relevant set, k: cutoff}\n", encoding="utf-8")
    result = audit_chapter(load_chapter(tmp_path), all_references(), collect(["audit", "run"])).claims[0]
    assert result.verdict == "contradicted"
    assert result.reason.startswith("Wrong on ordinary input")
    # Hypothesis shrinks to one retrieved relevant document out of two: 1/1 from the listing, 1/2 by |R|.
    assert "the smallest, ranking ['d0'], relevant {'d0', 'd1'}, k = 1: it returns 1.0000" in result.reason


# --- the whole listing runs; a code claim is checked when the register loads ------------------------------

HELPERS = '''\
Listing:

```python
import math

EMPTY = 0.0


def _hits(ranking, relevant, k):
    return len(set(ranking[:k]) & set(relevant))


def recall_at_k(ranking, relevant, k):
    if not relevant or k <= 0:
        return EMPTY
    return _hits(ranking, relevant, k) / len(relevant)


print(recall_at_k(["a", "b"], {"a"}, 1))
undefined_name_in_an_example_call()
```
'''


def _code_chapter(folder: Path, snapshot: str, claim: str) -> Path:
    (folder / "snapshot.txt").write_text(snapshot, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: listings\ntitle: Listings\n", encoding="utf-8")
    (folder / "claims.yaml").write_text("claims:\n  - id: L1\n    title: recall\n    kind: code\n"
                                        "    quote: \"def recall_at_k(ranking, relevant, k):\"\n    claim: recall\n"
                                        + claim, encoding="utf-8")
    return folder


def test_a_listings_helpers_and_constants_run_with_its_function_and_its_example_calls_do_not(tmp_path):
    """recall@k through a helper and a module constant: run with only the function and the imports (as before) it
    raised NameError on every call; run with what it uses it is recall@k (|hits in the first k| / |R|, 0 for an empty
    relevant set), which agrees with the chapter's definition and the references on every generated input. The
    module-level example calls are not part of the function: one of them would fail to load."""
    from audit.text.listings import function_source
    listing, source = function_source(HELPERS, "def recall_at_k(ranking, relevant, k):", "recall_at_k")
    assert "def _hits" in source and "EMPTY = 0.0" in source and "import math" in source
    assert "print(" not in source and "undefined_name" not in source
    folder = _code_chapter(tmp_path, HELPERS, "    function: recall_at_k\n    measure: R@k\n"
                           "    arguments: {ranking: ranking, relevant: relevant set, k: cutoff}\n")
    result = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]
    assert "NameError" not in result.reason
    # counts a repeated ID once, which trec_eval (the default reading) rejects: qualified for that only
    assert result.verdict in ("supported", "qualified"), result.reason
    assert "Wrong on ordinary input" not in result.reason


@pytest.mark.parametrize("claim, field, message", [
    ("    function: recall_at_k\n    measure: R@k\n    arguments: {ranking: grades, relevant: relevant set, "
     "k: cutoff}\n", "arguments.ranking", "role 'grades' is not one of ranking, relevant set, cutoff"),
    ("    function: recall\n    measure: R@k\n    arguments: {ranking: ranking, relevant: relevant set, k: cutoff}\n",
     "function", "does not define recall()"),
    ("    function: recall_at_k\n    measure: R@k\n    arguments: {ranking: ranking, relevant: relevant set}\n",
     "arguments", "k has none"),
    ("    function: recall_at_k\n    measure: R@k\n    arguments: {ranking: ranking, relevant: relevant set, k: cutoff, "
     "n: cutoff}\n", "arguments.n", "has no parameter 'n'"),
    ("    function: recall_at_k\n    measure: Recallish@k\n    arguments: {ranking: ranking, relevant: relevant set, "
     "k: cutoff}\n", "measure", "Recallish"),
    ("    function: recall_at_k\n    measure: R\n    arguments: {ranking: ranking, relevant: relevant set, "
     "k: cutoff}\n", "measure", "with @k"),
])
def test_a_code_claim_with_a_bad_field_stops_the_load_naming_file_claim_and_field(tmp_path, claim, field, message):
    from audit.errors import RegisterError
    folder = _code_chapter(tmp_path, HELPERS, claim)
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    error = caught.value
    assert error.claim == "L1" and error.field == field and message in error.message, (error.field, error.message)
    assert str(folder / "claims.yaml") in str(error.file)


def test_a_code_claim_with_a_bad_role_exits_3_naming_the_field(tmp_path, capsys):
    from audit.cli import main
    folder = _code_chapter(tmp_path, HELPERS, "    function: recall_at_k\n    measure: R@k\n"
                           "    arguments: {ranking: grades, relevant: relevant set, k: cutoff}\n")
    assert main(["run", str(folder), "--reports", str(tmp_path / "out"), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "L1" in err and "arguments.ranking" in err and "Traceback" not in err


NDCG_TEXT = """\
# nDCG in code

Each judged document has a grade from 0 to 3, and a document of grade g contributes a gain of 2^g − 1,
discounted by log2(rank + 1). The ideal DCG sorts every judged grade, best first, and cuts at k.

```python
import math

def dcg(grades):
    return sum(g / math.log2(i + 2) for i, g in enumerate(grades))

def ndcg_at_k(grades: list[int], k: int) -> float:
    ideal = sorted(grades, reverse=True)[:k]
    return dcg(grades[:k]) / dcg(ideal)
```

Called as `ndcg_at_k([2, 3, 0, 1, 3], 5)` it returns 0.867, the nDCG@5 above.

```python
import math


def _dcg(gains):
    return sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_cut(ranking, qrels, k):
    ideal = _dcg(sorted(qrels.values(), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return _dcg([qrels.get(d, 0) for d in ranking[:k]]) / ideal
```
"""
NDCG_CHAPTER = """\
id: ndcg-code
title: nDCG in code
snapshot: {file: snapshot.md}
conventions:
  gain: {value: exponential, quote: "a document of grade g contributes a gain of 2^g − 1"}
  ideal: {value: "judged, cut at k", quote: "The ideal DCG sorts every judged grade, best first, and cuts at k."}
"""
NDCG_CLAIMS = """\
claims:
  - {id: N1, title: ndcg_at_k, kind: code, quote: "def ndcg_at_k(grades: list[int], k: int) -> float:",
     claim: nDCG@k from the grades in rank order, function: ndcg_at_k, measure: nDCG@k,
     arguments: {grades: ranked grades, k: cutoff},
     calls: [{call: "ndcg_at_k([2, 3, 0, 1, 3], 5)", returns: "0.867"}]}
  - {id: N2, title: ndcg_cut, kind: code, quote: "def ndcg_cut(ranking, qrels, k):", claim: nDCG@k from the judgements,
     function: ndcg_cut, measure: nDCG@k, arguments: {ranking: ranking, qrels: qrels, k: cutoff}}
"""


def _audited(folder: Path, snapshot: str, chapter: str, claims: str):
    """The chapter written to ``folder`` (snapshot.md, chapter.yaml, claims.yaml) and audited with every reference."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "snapshot.md").write_text(snapshot, encoding="utf-8")
    (folder / "chapter.yaml").write_text(chapter, encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))


@pytest.fixture(scope="module")
def ndcg_listings(tmp_path_factory):
    report = _audited(tmp_path_factory.mktemp("ndcg"), NDCG_TEXT, NDCG_CHAPTER, NDCG_CLAIMS)
    return {c.id: c for c in report.claims}


def test_an_ndcg_listing_over_ranked_grades_is_contradicted_with_its_three_defects_named(ndcg_listings):
    """The listing takes the grades in rank order and uses linear gain and an ideal re-sorted from the ranking's own
    grades, cut at k; the chapter states 2^g − 1 and the ideal from every judged grade. On the grades 2, 3, 0, 1, 3
    with nothing else judged, by hand: linear DCG@5 = 2 + 3/log2 3 + 1/log2 5 + 3/log2 6 = 5.484024 over the ideal
    3, 3, 2, 1, 0 = 6.323466 gives the listing's 0.867250; the chapter's exponential gain gives 10.555154 / 13.347185
    = 0.790815. With a relevant document not retrieved the ideals differ too. On a ranking with nothing relevant
    (or an empty ranking) dcg(ideal) is 0 and the listing divides by zero, where the chapter gives 0 (as trec_eval
    ndcg_cut does). Found by experiment: with gain “linear” and ideal “all retrieved, cut at k” (scikit-learn's
    ndcg_score reading) the chapter's definitions give the listing's value on every generated input it answers."""
    import math
    linear = lambda g: sum(x / math.log2(i + 2) for i, x in enumerate(g))  # noqa: E731
    assert round(linear([2, 3, 0, 1, 3]) / linear([3, 3, 2, 1, 0]), 6) == 0.86725
    n1 = ndcg_listings["N1"]
    assert n1.verdict == "contradicted", n1.reason
    # the call the text shows returns the printed 0.867, which is the listing's value, not the chapter's nDCG@5
    assert ("Called as `ndcg_at_k([2, 3, 0, 1, 3], 5)`, as the text shows, it returns 0.8672 where the chapter's "
            "definition of nDCG@5 gives 0.790815 on the same input") in n1.reason
    assert "print “0.791” after it" in n1.response  # at the printed precision, as the text printed it: never “≈”
    assert "ZeroDivisionError" in n1.reason
    assert "with nDCG gain “linear” and ideal DCG “all retrieved, cut at k”, where the chapter's is nDCG gain " \
           "“exponential” and ideal DCG “judged, cut at k”" in n1.reason
    assert ("Correct the listing so that nDCG's gain is 2^grade − 1 (exponential); the ideal DCG@k sorts all judged "
            "grades and cuts at k; it returns 0 on ") in n1.response


def test_an_ndcg_listing_over_a_qrels_mapping_matches_the_chapter_on_every_generated_input(ndcg_listings):
    """The same measure written right, over the ranking and a {document: grade} mapping: it agrees with the
    chapter's exponential-gain nDCG@k on all 300 generated graded inputs (it differs only on a repeated ID, which
    the chapter's definitions reject as trec_eval does, so it is qualified for that alone)."""
    n2 = ndcg_listings["N2"]
    assert n2.verdict == "qualified", n2.reason
    assert "repeated ID" in n2.reason and "Wrong on ordinary input" not in n2.reason
    generated = next(c for c in n2.checks if "generated" in c.label)
    chapter = next(v for v in generated.values if v.implementation == "chapter")
    assert chapter.detail == "300 of 300 inputs"


@pytest.mark.parametrize("call, message, field", [
    ("ndcg_at_k([2, 3, 0], 5)", "is not printed in the snapshot", "calls[0].call"),
    # a name is run only with the literal the text assigns it, written under given
    ("ndcg_at_k(grades, 5)", "passes grades: give the literal the text assigns it before the call in given",
     "calls[0].given"),
    ("ndcg_at_k(sorted([3, 2, 0]), 5)", "the argument for 'grades' is not a literal value", "calls[0].call"),
    ("ndcg_at_k([2, 3, 0], 5, k=5)", "is not one of them or is given twice", "calls[0].call"),
    ("ndcg([2, 3, 0, 1, 3], 5)", "is not a call of ndcg_at_k()", "calls[0].call"),
    ("ndcg_at_k([2, 3, 0, 1, 3])", "gives no k", "calls[0].call"),
])
def test_a_shown_call_that_cannot_be_run_as_printed_stops_the_load(tmp_path, call, message, field):
    from audit.errors import RegisterError
    text = NDCG_TEXT + f"\nAlso `{call}`.\n" if "is not printed" not in message else NDCG_TEXT
    (tmp_path / "snapshot.md").write_text(text, encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(NDCG_CHAPTER, encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        NDCG_CLAIMS.replace('calls: [{call: "ndcg_at_k([2, 3, 0, 1, 3], 5)", returns: "0.867"}]',
                            f'calls: [{{call: "{call}"}}]'), encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(tmp_path)
    assert caught.value.claim == "N1" and caught.value.field == field
    assert message in caught.value.message, caught.value.message


MAP_TEXT = """\
# MAP over a run

A query's AP averages the precision at each relevant document over all of its relevant documents, retrieved or not,
and MAP is the mean over the queries.

```python
def mean_average_precision(run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]) -> float:
    total = 0.0
    for qid, scores in run.items():
        ranking = sorted(scores, key=scores.get, reverse=True)
        relevant = {d for d, g in qrels.get(qid, {}).items() if g > 0}
        hits, ap = 0, 0.0
        for i, d in enumerate(ranking, 1):
            if d in relevant:
                hits += 1
                ap += hits / i
        total += ap / hits if hits else 0.0
    return total / len(run)
```

Called as `mean_average_precision({"q1": {"a": 3.0, "x": 2.0, "b": 1.0}}, {"q1": {"a": 1, "b": 1, "c": 1}})` it
returns 0.833.

```python
def map_score(run, qrels):
    aps = []
    for qid, ranking in run.items():
        relevant = {d for d, g in qrels[qid].items() if g > 0}
        hits, ap = 0, 0.0
        for i, d in enumerate(ranking, 1):
            if d in relevant:
                hits += 1
                ap += hits / i
        aps.append(ap / len(relevant) if relevant else 0.0)
    return sum(aps) / len(aps) if aps else 0.0
```
"""
MAP_CLAIMS = """\
claims:
  - id: R1
    title: MAP dividing by hits
    kind: code
    quote: "def mean_average_precision(run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]) -> float:"
    claim: MAP over a run in pytrec_eval's shape
    function: mean_average_precision
    measure: AP
    arguments: {run: scored run, qrels: qrels by query}
    calls:
      - {call: 'mean_average_precision({"q1": {"a": 3.0, "x": 2.0, "b": 1.0}}, {"q1": {"a": 1, "b": 1, "c": 1}})',
         returns: "0.833"}
  - id: R2
    title: MAP over |R|
    kind: code
    quote: "def map_score(run, qrels):"
    claim: MAP over a run of ranked lists
    function: map_score
    measure: AP
    arguments: {run: run, qrels: qrels by query}
"""


@pytest.fixture(scope="module")
def map_listings(tmp_path_factory):
    report = _audited(tmp_path_factory.mktemp("map"), MAP_TEXT,
                      "id: map-run\ntitle: MAP\nsnapshot: {file: snapshot.md}\nconventions:\n  ap_denominator: {value: "
                      "'|R|', quote: \"over all of its relevant documents, retrieved or not\"}\n", MAP_CLAIMS)
    return {c.id: c for c in report.claims}


def test_a_map_listing_over_a_scored_run_that_divides_by_hits_is_contradicted_with_its_cause(map_listings):
    """The run and qrels by query in pytrec_eval's and ranx's shape. On the call the text shows, a and b relevant at
    ranks 1 and 3 with c never retrieved: precision 1 and 2/3, over the 2 hits = 5/6 = 0.8333 (what it prints),
    over |R| = 3 = 5/9 (trec_eval map, ir_measures AP, ranx map 0.5556). Found by experiment: AP's denominator
    “relevant retrieved” makes the chapter's definitions give its value on every generated run."""
    r1 = map_listings["R1"]
    assert r1.verdict == "contradicted"
    assert "it returns 0.8333 where the chapter's definition of AP gives 5/9 on the same input" in r1.reason
    assert "with AP denominator “relevant retrieved”, where the chapter's is AP denominator “|R|”" in r1.reason
    assert "print “0.556” after it" in r1.response


def test_a_map_listing_over_ranked_lists_agrees_with_the_chapter_and_every_reference(map_listings):
    """The same mean over |R| (0 for a query with nothing relevant, as trec_eval scores it), over {query: [IDs]}:
    it agrees with the chapter and with pytrec_eval, ir_measures and ranx on all 300 generated runs of one to four
    queries."""
    r2 = map_listings["R2"]
    generated = next(c for c in r2.checks if "generated" in c.label)
    assert all(v.detail == "300 of 300 inputs" for v in generated.values), [(v.implementation, v.detail)
                                                                           for v in generated.values]
    assert "Wrong on ordinary input" not in r2.reason
    assert r2.verdict in ("supported", "qualified"), r2.reason


BUILDS_ON_TEXT = """\
# Two listings

Gain is 2^g − 1, discounted by log2(rank + 1); the ideal DCG sorts every judged grade and cuts at k.

```python
import math

def dcg(gains):
    return sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(gains))
```

The next listing builds on `dcg`:

```python
def ndcg_cut(ranking, qrels, k):
    ideal = dcg(sorted(qrels.values(), reverse=True)[:k])
    return dcg([qrels.get(d, 0) for d in ranking[:k]]) / ideal if ideal else 0.0
```
"""


@pytest.mark.parametrize("builds_on, runs", [(["def dcg(gains):"], True), ([], False)])
def test_a_listing_runs_with_the_earlier_listing_the_register_says_it_builds_on(tmp_path, builds_on, runs):
    """ndcg_cut() calls dcg() from the listing before it. With `builds_on` naming that listing it is the chapter's
    nDCG@k (exponential gain, ideal from every judged grade, 0 when nothing is relevant) on all 300 generated
    inputs; without it the register does not load, naming builds_on and the line to add (every call would raise
    NameError, which is the register's fault, not the listing's)."""
    from audit.errors import RegisterError
    (tmp_path / "snapshot.md").write_text(BUILDS_ON_TEXT, encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(
        'id: builds\ntitle: Builds\nsnapshot: {file: snapshot.md}\nconventions:\n  gain: {value: exponential, quote: '
        '"Gain is 2^g − 1"}\n', encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        "claims:\n  - {id: B1, title: ndcg, kind: code, quote: 'def ndcg_cut(ranking, qrels, k):', claim: nDCG@k, "
        "function: ndcg_cut, measure: nDCG@k, arguments: {ranking: ranking, qrels: qrels, k: cutoff}, "
        f"builds_on: {builds_on!r}}}\n", encoding="utf-8")
    if not runs:
        with pytest.raises(RegisterError) as caught:
            load_chapter(tmp_path)
        assert caught.value.field == "builds_on" and "'def dcg(gains):'" in caught.value.message
        return
    result = audit_chapter(load_chapter(tmp_path), all_references(), collect(["audit", "run"])).claims[0]
    generated = next(c for c in result.checks if "generated" in c.label)
    assert next(v for v in generated.values if v.implementation == "chapter").detail == "300 of 300 inputs"
    assert "NameError" not in result.reason


def test_builds_on_must_name_an_earlier_listing(tmp_path):
    from audit.errors import RegisterError
    (tmp_path / "snapshot.md").write_text(BUILDS_ON_TEXT, encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text("id: builds\ntitle: Builds\nsnapshot: {file: snapshot.md}\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        "claims:\n  - {id: B1, title: ndcg, kind: code, quote: 'def ndcg_cut(ranking, qrels, k):', claim: nDCG@k, "
        "function: ndcg_cut, measure: nDCG@k, arguments: {ranking: ranking, qrels: qrels, k: cutoff}, "
        "builds_on: ['def idcg(gains):']}\n", encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(tmp_path)
    assert caught.value.field == "builds_on" and "def idcg(gains):" in caught.value.message


REPEATS_TEXT = """\
# Repeats

When a ranking holds the same chunk twice, only the first copy counts: later copies are dropped before we cut at k.
(The second listing is from a harness whose evaluator refuses a ranking that repeats a document.)

```python
def precision_after_cut(retrieved, relevant, k):
    return len(set(retrieved[:k]) & set(relevant)) / k
```

```python
def precision_refusing(retrieved, relevant, k):
    if len(set(retrieved)) != len(retrieved):
        raise ValueError("duplicate document in run")
    if k < 1:
        raise ValueError("k must be at least 1")
    return len(set(retrieved[:k]) & set(relevant)) / k
```
"""


@pytest.mark.parametrize("rule, function, verdict, says", [
    # keep first: ['c1', 'c1', 'c2', 'c3'] with c2 relevant is c1, c2, c3 after dropping the repeat, so P@2 = 1/2;
    # deduplicating after the cut sees c1, c1 and gives 0 (the corpus's RG04)
    ("keep first", "precision_after_cut", "qualified", "on repeated ID before the cutoff"),
    # reject: raising ValueError on a repeated ID is the chapter's own rule, so the listing agrees everywhere
    ("reject", "precision_refusing", "supported", ""),
])
def test_repeated_ids_are_judged_by_the_chapters_rule(tmp_path, rule, function, verdict, says):
    quote = "only the first copy counts" if rule == "keep first" else "refuses a ranking that repeats a document"
    (tmp_path / "snapshot.md").write_text(REPEATS_TEXT, encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(
        f"id: repeats\ntitle: Repeats\nsnapshot: {{file: snapshot.md}}\nconventions:\n  repeated_ids: {{value: {rule}, "
        f"quote: \"{quote}\"}}\n", encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        f"claims:\n  - {{id: P1, title: p, kind: code, quote: 'def {function}(retrieved, relevant, k):', claim: P@k, "
        f"function: {function}, measure: P@k, arguments: {{retrieved: ranking, relevant: relevant set, k: cutoff}}}}\n",
        encoding="utf-8")
    result = audit_chapter(load_chapter(tmp_path), all_references(), collect(["audit", "run"])).claims[0]
    assert result.verdict == verdict, result.reason
    assert says in result.reason


# --- corrected listings ------------------------------------------------------------------------------

def test_the_ndcg_listing_gets_a_corrected_listing_that_the_differential_test_accepts(tmp_path):
    """The upgrade proposal rewrites ndcg_at_k from the chapter's definition in its own signature: gain 2^g − 1 and the
    ideal from every judged grade, which a function of the ranked grades cannot see, so an optional ``judged``
    parameter is added (role judged grades); the value printed after the shown call follows (0.867 → 0.791: the
    chapter's nDCG@5 on 2, 3, 0, 1, 3 with nothing else judged is 10.555154 / 13.347185 = 0.790815, by hand). The
    rewrite is printed only after the same differential test ran on it. Applied, the rerun supports it: a repeated ID
    never reaches a function of the grades alone (the finding says to drop it where the grades are taken); the other
    listing (ndcg_cut, qualified for a repeated ID only) becomes supported."""
    from audit.research.proposal import patched_text, register_text

    folder = tmp_path / "ndcg"
    proposal = _audited(folder, NDCG_TEXT, NDCG_CHAPTER, NDCG_CLAIMS).research.proposal
    n1 = [h for h in proposal.hunks if h.claim == "N1"]
    assert len(n1) == 2, (proposal.not_proposed, proposal.withdrawn)
    listing, after = n1
    assert "(2 ** g - 1) / math.log2(rank + 1)" in listing.new and "sorted(judged, reverse=True)[:k]" in listing.new
    assert "return dcg(grades[:k]) / ideal if ideal > 0 else 0.0" in listing.new  # no division by zero
    assert after.old.startswith("Called as `ndcg_at_k([2, 3, 0, 1, 3], 5)` it returns 0.867")
    assert after.new.startswith("Called as `ndcg_at_k([2, 3, 0, 1, 3], 5)` it returns 0.791")
    assert "reject or drop the repeat where its input is built" in listing.response
    patched = _audited(folder, patched_text(NDCG_TEXT, proposal), NDCG_CHAPTER, register_text(NDCG_CLAIMS, proposal))
    again = {c.id: c for c in patched.claims}
    assert again["N2"].verdict == "supported", again["N2"].reason
    n1_again = again["N1"]
    assert n1_again.verdict == "supported", n1_again.reason
    assert "takes no document IDs, so a ranking that repeats one never reaches it" in n1_again.reason


# Each measure the rewrite covers, over each single-query signature, under a convention other than the default
# where the measure has one: a wrong listing (it returns 0.5 whatever it is given), the proposal's rewrite, and the
# rerun on the patched chapter, which must be supported. The right values are the chapter's definitions, which the
# differential test already holds to trec_eval, ir-measures and ranx.
_REWRITES = [
    ("precision_at_k", "ranking, relevant, k", "{ranking: ranking, relevant: relevant set, k: cutoff}", "P@k", ""),
    ("precision_at_k", "ranking, relevant, k", "{ranking: ranking, relevant: relevant set, k: cutoff}", "P@k",
     "precision_denominator: {value: number returned, quote: \"divides by the number of results returned\"}"),
    ("recall_at_k", "ranking, qrels, k", "{ranking: ranking, qrels: qrels, k: cutoff}", "R@k",
     "repeated_ids: {value: keep first, quote: \"a repeated ID counts once\"}"),
    ("rr", "ranking, relevant", "{ranking: ranking, relevant: relevant set}", "RR", ""),
    ("rr_at_k", "ranking, relevant, k", "{ranking: ranking, relevant: relevant set, k: cutoff}", "RR@k", ""),
    ("ap", "ranking, relevant", "{ranking: ranking, relevant: relevant set}", "AP", ""),
    ("ap_at_k", "ranking, qrels, k", "{ranking: ranking, qrels: qrels, k: cutoff}", "AP@k",
     "ap_denominator: {value: relevant retrieved, quote: \"divides by the relevant documents retrieved\"}"),
    ("hit_at_k", "ranking, relevant, k", "{ranking: ranking, relevant: relevant set, k: cutoff}", "Success@k", ""),
    ("dcg_at_k", "grades, k", "{grades: ranked grades, k: cutoff}", "DCG@k",
     "gain: {value: linear, quote: \"the gain is the grade\"}"),
    ("ndcg_at_k", "ranking, qrels, k", "{ranking: ranking, qrels: qrels, k: cutoff}", "nDCG@k",
     "gain: {value: exponential, quote: \"the gain is 2^g - 1\"}"),
    # one query's scores, and several queries: the mean over the run, or each query's value
    ("ap_from_scores", "scores, qrels", "{scores: scores, qrels: qrels}", "AP", ""),
    ("mrr", "run, qrels", "{run: scored run, qrels: qrels by query}", "RR", ""),
    ("ndcg_over_run", "run, qrels, k", "{run: scored run, qrels: qrels by query, k: cutoff}", "nDCG@k", ""),
    ("p_per_query", "run, qrels, k", "{run: run, qrels: qrels by query, k: cutoff}, shape: per query", "P@k",
     "averaging: {value: all judged queries, quote: \"a judged query the run lacks scores 0\"}"),
]


@pytest.mark.parametrize("function, params, roles, measure, convention", _REWRITES,
                         ids=[f"{r[3]}-{r[2].count(':')}-{r[4].split(':')[0] or 'default'}" for r in _REWRITES])
def test_a_wrong_listing_of_each_measure_is_rewritten_so_the_rerun_supports_it(tmp_path, function, params, roles,
                                                                             measure, convention):
    from audit.research.proposal import patched_text, register_text

    quote = f"def {function}({params}):"
    text = (f"The text defines {measure} and lists it.\n"
            + (f"{convention.split('quote: ')[1].strip(chr(34) + '}')}.\n" if convention else "")
            + f"\n```python\n{quote}\n    return 0.5\n```\n")
    chapter = "id: rewrite\ntitle: Rewrite\nsnapshot: {file: snapshot.md}\n" + (
        f"conventions:\n  {convention}\n" if convention else "")
    claims = (f"claims:\n  - {{id: L1, title: listing, kind: code, quote: \"{quote}\", claim: x, function: {function}, "
              f"measure: \"{measure}\", arguments: {roles}}}\n")
    folder = tmp_path / "rewrite"
    report = _audited(folder, text, chapter, claims)
    assert report.claims[0].verdict == "contradicted", report.claims[0].reason
    proposal = report.research.proposal
    assert [h.claim for h in proposal.hunks] == ["L1"], (proposal.not_proposed, proposal.withdrawn)
    again = _audited(folder, patched_text(text, proposal), chapter, register_text(claims, proposal)).claims[0]
    assert again.verdict == "supported", again.reason
