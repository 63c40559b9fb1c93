"""Code listings of other shapes: functions returning a value per query or at each cutoff, taking scores, cutoffs,
ranked grades by query, per-query values or a constant; and the defects those shapes invite, each named by
experiment (a cutoff applied one rank late, scores not sorted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

SHAPES_TEXT = '''\
# Evaluation code in every shape

A document is relevant when its grade is at least 1. Precision at k divides the relevant documents among the
first k by k; a system's score is the mean over its queries.

## Precision at several cutoffs

```python
def precision_at_ks(ranking, relevant, ks):
    hits = {}
    for k in ks:
        hits[k] = sum(1 for d in ranking[:k] if d in relevant) / k
    return hits
```

Called as `precision_at_ks(["a", "x", "b", "y"], {"a", "b"}, [1, 2, 4])` it returns {1: 1.0, 2: 0.5, 4: 0.5}.

## Recall as points of a curve

```python
def recall_points(ranking, relevant, cutoffs):
    points = []
    for k in cutoffs:
        points.append([k, len(set(ranking[:k]) & relevant) / len(relevant)])
    return points
```

## A precision curve

```python
def precision_curve(ranking, relevant):
    curve = []
    found = 0
    for i, d in enumerate(ranking, start=1):
        found += d in relevant
        curve.append(found / i)
    return curve
```

## Hit rate

```python
def hit_rate_at_k(ranking, relevant, k):
    return 1.0 if any(d in relevant for d in ranking[:k + 1]) else 0.0
```

## Reciprocal rank per query

```python
def reciprocal_ranks(run, qrels):
    out = {}
    for q, scores in run.items():
        ranked = sorted(scores, key=scores.get, reverse=True)
        out[q] = 0.0
        for rank, d in enumerate(ranked, start=1):
            if qrels[q].get(d, 0) >= 1:
                out[q] = 1 / rank
                break
    return out
```

## Average precision from a score mapping

```python
def average_precision(scores, qrels):
    relevant = sum(1 for g in qrels.values() if g >= 1)
    hits, total = 0, 0.0
    for rank, d in enumerate(scores, start=1):
        if qrels.get(d, 0) >= 1:
            hits += 1
            total += hits / rank
    return total / relevant if relevant else 0.0
```

## Mean reciprocal rank over relevance lists

```python
def mean_reciprocal_rank(rs):
    total = 0.0
    for r in rs:
        total += next((1 / i for i, g in enumerate(r, start=1) if g), 0.0)
    return total / len(rs)
```

Called as `mean_reciprocal_rank([[0, 0, 1], [0, 1, 0], [1, 0, 0]])` it returns 0.611.

## Rank-biased precision

```python
def rbp(grades, p=0.8):
    return (1 - p) * sum(p ** i for i, g in enumerate(grades) if g >= 1)
```

## The geometric mean of average precision

```python
import math

def gmap(ap_by_query):
    return math.prod(ap_by_query.values()) ** (1 / len(ap_by_query))
```

## Recall at several cutoffs from scored pairs

```python
def recall_at_ks(pairs, relevant, ks):
    ranked = [d for d, _ in sorted(pairs, key=lambda pair: pair[1])]
    return [len(set(ranked[:k]) & relevant) / len(relevant) for k in ks]
```

Called as `recall_at_ks([("a", 0.9), ("b", 0.4), ("c", 0.7)], {"a", "b"}, [1, 3])` it returns [0.5, 1.0].
'''

SHAPES_CHAPTER = """\
id: listing-shapes
title: Evaluation code in every shape
snapshot: {file: snapshot.md}
"""

SHAPES_CLAIMS = """\
claims:
  - {id: S1, title: precision at several cutoffs, kind: code, quote: "def precision_at_ks(ranking, relevant, ks):",
     claim: P@k at each cutoff given, function: precision_at_ks, measure: P@k, shape: at each k,
     arguments: {ranking: ranking, relevant: relevant set, ks: cutoffs},
     calls: [{call: 'precision_at_ks(["a", "x", "b", "y"], {"a", "b"}, [1, 2, 4])', returns: "{1: 1.0, 2: 0.5, 4: 0.5}"}]}
  - {id: S2, title: precision curve, kind: code, quote: "def precision_curve(ranking, relevant):",
     claim: P@k at every rank, function: precision_curve, measure: P@k, shape: at each k,
     arguments: {ranking: ranking, relevant: relevant set}}
  - {id: S3, title: hit rate, kind: code, quote: "def hit_rate_at_k(ranking, relevant, k):",
     claim: Success@k, function: hit_rate_at_k, measure: Success@k,
     arguments: {ranking: ranking, relevant: relevant set, k: cutoff}}
  - {id: S4, title: reciprocal rank per query, kind: code, quote: "def reciprocal_ranks(run, qrels):",
     claim: RR of each query of a pytrec_eval-shaped run, function: reciprocal_ranks, measure: RR, shape: per query,
     arguments: {run: scored run, qrels: qrels by query}}
  - {id: S5, title: AP from scores, kind: code, quote: "def average_precision(scores, qrels):",
     claim: AP of one query's scores, function: average_precision, measure: AP,
     arguments: {scores: scores, qrels: qrels}}
  - {id: S6, title: MRR over relevance lists, kind: code, quote: "def mean_reciprocal_rank(rs):",
     claim: MRR over queries, function: mean_reciprocal_rank, measure: RR,
     arguments: {rs: ranked grades by query},
     calls: [{call: "mean_reciprocal_rank([[0, 0, 1], [0, 1, 0], [1, 0, 0]])", returns: "0.611"}]}
  - {id: S7, title: RBP, kind: code, quote: "def rbp(grades, p=0.8):",
     claim: RBP with persistence 0.8, function: rbp, measure: RBP(p=0.8),
     arguments: {grades: ranked grades, p: constant}}
  - {id: S8, title: GMAP, kind: code, quote: "def gmap(ap_by_query):",
     claim: GMAP over a run's per-query AP, function: gmap, measure: GMAP,
     arguments: {ap_by_query: per-query values}}
  - {id: S9, title: recall at several cutoffs, kind: code, quote: "def recall_at_ks(pairs, relevant, ks):",
     claim: R@k at each cutoff given, function: recall_at_ks, measure: R@k, shape: at each k,
     arguments: {pairs: scored pairs, relevant: relevant set, ks: cutoffs},
     calls: [{call: 'recall_at_ks([("a", 0.9), ("b", 0.4), ("c", 0.7)], {"a", "b"}, [1, 3])', returns: "[0.5, 1.0]"}]}
  - {id: S10, title: recall points, kind: code, quote: "def recall_points(ranking, relevant, cutoffs):",
     claim: "R@k at each cutoff given, as [k, R@k] points", function: recall_points, measure: R@k, shape: at each k,
     arguments: {ranking: ranking, relevant: relevant set, cutoffs: cutoffs}}
"""


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shapes")
    (folder / "snapshot.md").write_text(SHAPES_TEXT, encoding="utf-8")
    (folder / "chapter.yaml").write_text(SHAPES_CHAPTER, encoding="utf-8")
    (folder / "claims.yaml").write_text(SHAPES_CLAIMS, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    return {c.id: c for c in report.claims}


def test_precision_at_a_list_of_cutoffs_is_checked_at_each_cutoff(shapes):
    """P@1, P@2, P@4 of a, x, b, y with a and b relevant: 1/1, 1/2, 2/4 (by hand), as printed. Right on every
    generated input; qualified for the edge cases only: a repeated ID, and a cutoff of 0 (ZeroDivisionError)."""
    s1 = shapes["S1"]
    assert s1.verdict == "qualified", s1.reason
    assert "It matches on well-formed input" in s1.reason
    assert "cutoffs [0]) it raises (the listing's exception: “ZeroDivisionError" in s1.reason
    table = next(c.table for c in s1.checks if "calls the text shows" in c.label)
    # the references' column: their values are compared for a listing returning one number
    assert table[1][2:] == ["{'1': 1.0000, '2': 0.5000, '4': 0.5000}", "[@1: 1, @2: 1/2, @4: 1/2]", "—", "agrees"]


def test_a_list_of_cutoff_and_value_pairs_is_read_as_the_value_at_each_cutoff(shapes):
    """[[1, R@1], [3, R@3]] is what a curve's points look like printed; it was read as neither a list nor a mapping
    of numbers, and every input counted against the listing. Read by cutoff, it is right wherever a query has a
    relevant document, and raises ZeroDivisionError where none is (trec_eval gives R@k = 0 there)."""
    s10 = shapes["S10"]
    assert s10.verdict == "qualified", s10.reason
    assert "It matches on well-formed input" in s10.reason, s10.reason
    assert "ZeroDivisionError" in s10.reason, s10.reason


def test_a_precision_curve_returning_a_list_is_checked_at_every_rank(shapes):
    """Right on every generated input; a ranking that repeats an ID is scored, where trec_eval rejects it. Without a
    cutoff the fix does not speak of cutting at k."""
    s2 = shapes["S2"]
    assert s2.verdict == "qualified", s2.reason
    assert "It matches on well-formed input" in s2.reason
    assert "returns [0.0000, 0.0000, 0.3333, 0.5000] on a ranking that repeats an ID" in s2.reason
    assert "cutting at k" not in s2.response


def test_a_hit_rate_that_cuts_one_rank_late_is_contradicted_and_the_finding_says_so(shapes):
    """ranking[:k + 1] scores the first k + 1 documents: on a ranking whose only relevant document is at rank 2
    and k = 1 it returns 1 where Success@1 is 0."""
    s3 = shapes["S3"]
    assert s3.verdict == "contradicted", s3.reason
    assert "applies the cutoff 1 rank late: it scores the first k + 1 documents" in s3.reason
    assert "keeps the first k documents (ranking[:k]), not the first k + 1" in s3.response


def test_reciprocal_rank_per_query_over_a_scored_run_is_supported(shapes):
    assert shapes["S4"].verdict == "supported", shapes["S4"].reason


def test_average_precision_that_does_not_sort_its_scores_is_contradicted_with_the_cause_named(shapes):
    """The listing walks the score mapping in the order it lists its documents: the scores are never read."""
    s5 = shapes["S5"]
    assert s5.verdict == "contradicted", s5.reason
    assert "ranks the documents in the order their scores are listed, not by score" in s5.reason
    # the smallest input is shown as the function received it: the scores, listed by ID, not a ranking
    assert "the smallest, scores {'d0': 1, 'd1': 2}, grades {'d0': 1}" in s5.reason, s5.reason
    assert "sorts the documents by score, highest first" in s5.response
    assert "without document IDs" not in s5.response  # a score mapping holds IDs


def test_mean_reciprocal_rank_over_relevance_lists_matches_the_printed_value(shapes):
    """(1/3 + 1/2 + 1) / 3 = 11/18 = 0.6111 (by hand), printed 0.611. Lists of grades carry no document ID, so no
    repeated-ID case is put to it: the finding says to drop a repeat where the grades are built."""
    s6 = shapes["S6"]
    assert s6.verdict == "supported", s6.reason
    assert "takes no document IDs, so a ranking that repeats one never reaches it" in s6.reason
    table = next(c.table for c in s6.checks if "calls the text shows" in c.label)
    # MRR of the three queries as trec_eval's recip_rank, ir-measures' RR and ranx's mrr give it: 11/18
    assert table[1][2:] == ["0.6111", "11/18", "pytrec_eval, ir_measures and ranx give 0.6111", "agrees"]


def test_rank_biased_precision_is_called_with_its_default_persistence(shapes):
    """RBP(p=0.8) = (1 − p) Σ p^(i−1) over relevant ranks i (Moffat & Zobel 2008), binary relevance; the constant
    p is passed as the listing's default 0.8. Right on every generated input and edge case; it takes no IDs."""
    s7 = shapes["S7"]
    assert s7.verdict == "supported", s7.reason


def test_gmap_over_per_query_values_matches_and_fails_only_on_an_empty_mapping(shapes):
    """Given each query's floored AP (trec_eval's gm_map per query), the plain geometric mean is trec_eval's GMAP;
    a run whose one query is dropped gives it an empty mapping, and it divides by zero."""
    s8 = shapes["S8"]
    assert s8.verdict == "qualified", s8.reason
    assert "ZeroDivisionError" in s8.reason
    assert "return 0.0 when given no per-query values" in s8.response


def test_recall_at_cutoffs_sorted_lowest_score_first_is_contradicted_and_its_printed_list_corrected(shapes):
    """Sorted by score lowest first, a (0.9), b (0.4), c (0.7) becomes b, c, a: R@1 = 1/2 and R@3 = 1, which the
    text prints; by score highest first (a, c, b) R@1 = 1/2 and R@3 = 1 too, so the printed call agrees, and the
    generated inputs show the defect."""
    s9 = shapes["S9"]
    assert s9.verdict == "contradicted", s9.reason
    assert "ranks the documents by score lowest first, not highest first" in s9.reason
    assert "sorted(…, reverse=True)" in s9.response


# --- load-time validation of the new roles and shapes ------------------------------------------------

@pytest.mark.parametrize("entry, field, message", [
    ('{id: B1, title: t, kind: code, quote: "def precision_at_ks(ranking, relevant, ks):", claim: c, '
     "function: precision_at_ks, measure: P@k, arguments: {ranking: ranking, relevant: relevant set, ks: cutoffs}}",
     "shape", "returns the measure at each k (shape: at each k)"),
    ('{id: B1, title: t, kind: code, quote: "def precision_at_ks(ranking, relevant, ks):", claim: c, '
     "function: precision_at_ks, measure: P@k, shape: per query, "
     "arguments: {ranking: ranking, relevant: relevant set, ks: cutoffs}}", "shape", "per query"),
    ('{id: B1, title: t, kind: code, quote: "def precision_at_ks(ranking, relevant, ks):", claim: c, '
     "function: precision_at_ks, measure: P@k, shape: at each k, "
     "arguments: {ranking: ranking, relevant: run, ks: cutoffs}}", "arguments", "a listing over several queries"),
    ('{id: B1, title: t, kind: code, quote: "def gmap(ap_by_query):", claim: c, function: gmap, measure: GMAP, '
     "arguments: {ap_by_query: constant}}", "arguments.ap_by_query", "a constant needs its value"),
    ('{id: B1, title: t, kind: code, quote: "def rbp(grades, p=0.8):", claim: c, function: rbp, '
     "measure: RBP(p=0.8), arguments: {grades: ranked grades, p: constant}, constants: {grades: 2}}",
     "constants.grades", "is not an argument with the role constant"),
    ('{id: B1, title: t, kind: code, quote: "def recall_at_ks(pairs, relevant, ks):", claim: c, '
     "function: recall_at_ks, measure: R@k, shape: at each k, "
     "arguments: {pairs: scored pairs, relevant: relevant set, ks: cutoffs}, "
     "calls: [{call: 'recall_at_ks([(\"a\", 0.9), (\"b\", 0.4), (\"c\", 0.7)], {\"a\", \"b\"}, [1, 3])', "
     "returns: 'half and then all'}]}", "calls[0].returns", "list or mapping of printed values"),
    ('{id: B1, title: t, kind: code, quote: "def precision_curve(ranking, relevant):", claim: c, '
     "function: precision_curve, measure: P, shape: at each k, arguments: {ranking: ranking, relevant: relevant set}}",
     "measure", "at each k"),
    ('{id: B1, title: t, kind: code, quote: "def rbp(grades, p=0.8):", claim: c, function: rbp, '
     "measure: RBP(p=0.8), arguments: {grades: ranked grades, p: constant}, constants: {p: 0.5}}",
     "constants.p", "the listing is called with p = 0.5, but the measure 'RBP(p=0.8)' has p = 0.8"),
])
def test_a_bad_role_or_shape_stops_the_load_naming_the_field(tmp_path, entry, field, message):
    from audit.errors import RegisterError
    (tmp_path / "snapshot.md").write_text(SHAPES_TEXT, encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(SHAPES_CHAPTER, encoding="utf-8")
    (tmp_path / "claims.yaml").write_text("claims:\n  - " + entry + "\n", encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(tmp_path)
    error = caught.value
    assert error.claim == "B1" and error.field == field and message in error.message, (error.field, error.message)


def test_a_printed_list_or_mapping_is_read_entry_by_entry_and_rewritten_in_its_own_style():
    """Each entry keeps its printed precision: [0.5, 1.0] holds 0.5 and 1 (1.0 means [0.95, 1.05]); rewritten with
    1/2 and 3/4 it reads [0.5, 0.8] (one decimal place, half away from zero); a mapping keeps its keys as printed."""
    from fractions import Fraction

    from audit.evaluation.checks.code import Printed
    from audit.register.claims import CodeClaim
    listing = CodeClaim(id="X", title="t", kind="code", quote="q", claim="c", function="f", measure="P@k",
                        shape="at each k")
    printed = Printed(listing, "[0.5, 1.0]", None)
    assert printed.holds([(None, 0.5), (None, 0.99)]) and not printed.holds([(None, 0.5), (None, 0.75)])
    assert not printed.holds([(None, 0.5)])
    assert printed.written_like([(None, Fraction(1, 2)), (None, Fraction(3, 4))]) == "[0.5, 0.8]"
    keyed = Printed(listing, "{1: 1.0, 5: 0.40}", None)
    assert keyed.holds([(1, 1.0), (5, 0.4)]) and not keyed.holds([(1, 1.0), (10, 0.4)])
    assert keyed.written_like([(1, Fraction(1)), (5, Fraction(1, 3))]) == "{1: 1.0, 5: 0.33}"


def test_the_example_in_docs_listings_loads_and_holds(tmp_path):
    """docs/listings.md's example, on a text printing its listing and its call: P@1 = 1, P@2 = 1/2, P@4 = 2/4 of
    a, x, b, y with a and b relevant (by hand); qualified for k = 0 (ZeroDivisionError) and a repeated ID."""
    import re

    docs = (Path(__file__).resolve().parents[1] / "docs" / "listings.md").read_text(encoding="utf-8")
    listing = next(m.group(0) for m in re.finditer(r"```python\n(.*?)```", docs, re.S)
                   if "def precision_at_ks(" in m.group(1))
    # the page's whole register for it (the fragment under "Doctests and shown calls" shows only a claim's calls field)
    register = next(m.group(1) for m in re.finditer(r"```yaml\n(claims:\n.*?)```", docs, re.S)
                    if "precision_at_ks" in m.group(1))
    text = ("# Example\n\n" + listing + "\n\nCalled as `precision_at_ks([\"a\", \"x\", \"b\", \"y\"], {\"a\", \"b\"}, "
            "[1, 2, 4])` it returns {1: 1.0, 2: 0.5, 4: 0.5}.\n")
    (tmp_path / "snapshot.md").write_text(text, encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(SHAPES_CHAPTER, encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(register, encoding="utf-8")
    result = audit_chapter(load_chapter(tmp_path), all_references(), collect(["audit", "run"])).claims[0]
    assert result.verdict == "qualified", result.reason
    assert "ZeroDivisionError" in result.reason and "repeats an ID" in result.reason
    table = next(c.table for c in result.checks if "calls the text shows" in c.label)
    assert table[1][-1] == "agrees"


@pytest.mark.parametrize(("measure", "whole", "at_2"), [("P@k", 2 / 3, 1 / 2), ("R@k", 1.0, 1 / 2)])
def test_a_corrected_listing_keeps_a_cutoff_default_of_none_meaning_the_whole_ranking(measure, whole, at_2):
    """``def precision_at_k(ranking, relevant, k=None)``: the text's other functions call it without k. The corrected
    listing began ``if k < 1``, so that call raised TypeError where the original gave the whole ranking's value.
    Ranking a, x, b with a and b relevant (by hand): over the whole ranking P = 2/3 and R = 1; at k = 2, 1/2 and 1/2."""
    from audit.evaluation import definitions as D
    from audit.register.claims import CodeClaim
    from audit.research.listing_fix import write
    claim = CodeClaim(id="L1", title="t", quote="q", claim="c", kind="code", function="metric_at_k", measure=measure,
                      arguments={"ranking": "ranking", "relevant": "relevant set", "k": "cutoff"})
    rewrite = write(claim, dict(D.DEFAULT_READING), "def metric_at_k(ranking, relevant, k=None):\n    pass\n")
    assert rewrite.source.startswith("def metric_at_k(ranking, relevant, k=None):")
    space: dict = {}
    exec(rewrite.source, space)   # the writer's own output, built from the line above
    assert space["metric_at_k"](["a", "x", "b"], {"a", "b"}) == pytest.approx(whole, abs=1e-12)
    assert space["metric_at_k"](["a", "x", "b"], {"a", "b"}, 2) == pytest.approx(at_2, abs=1e-12)


def test_a_corrected_listing_is_written_in_its_code_block_as_it_is():
    """Inside a fenced code block nothing is HTML (CommonMark 4.5), so the block holds the code's own ``<`` (the
    author reads ``if k < 1`` and a string "<script>", not ``&lt;``), and no line of the code can close the block."""
    from markdown_it import MarkdownIt

    from audit.report.cells import _line, fenced
    code = 'def f(k):\n    if k < 1:\n        return "<script>alert(1)</script>"\n    return "```"'
    written = _line((fenced(code),))
    tokens = [t for t in MarkdownIt("commonmark").parse(written) if t.type == "fence"]
    assert len(tokens) == 1 and tokens[0].content == code + "\n"


def test_init_guesses_the_new_roles_shapes_and_printed_lists_from_names_hints_and_calls():
    """From the parameter names (ks, pairs, rs, ap_by_query, p=0.8), the function's name (…_at_ks, curve) and the
    calls the text prints (a list or mapping after “returns”); `run, qrels` without type hints from the body."""
    from audit.draft.encode import code
    from audit.text.scan import Statement

    drafted = {}
    for line in SHAPES_TEXT.splitlines():
        if line.startswith("def "):
            claims, why = code(Statement("code", line, 0, 0, 0, 0), SHAPES_TEXT)
            drafted[line.split("(")[0][4:]] = claims[0] if claims else why
    assert drafted["precision_at_ks"]["shape"] == "at each k"
    assert drafted["precision_at_ks"]["arguments"]["ks"] == "cutoffs"
    assert drafted["precision_at_ks"]["calls"][0]["returns"] == "{1: 1.0, 2: 0.5, 4: 0.5}"
    assert drafted["precision_curve"]["shape"] == "at each k" and drafted["precision_curve"]["measure"] == "P@k"
    assert drafted["average_precision"]["arguments"] == {"scores": "scores", "qrels": "qrels"}
    assert drafted["mean_reciprocal_rank"]["arguments"] == {"rs": "ranked grades by query"}
    assert drafted["rbp"]["measure"] == "RBP(p=0.8)" and drafted["rbp"]["arguments"]["p"] == "constant"
    assert drafted["gmap"]["arguments"] == {"ap_by_query": "per-query values"}
    assert drafted["recall_at_ks"]["arguments"]["pairs"] == "scored pairs"
    assert drafted["recall_at_ks"]["calls"][0]["returns"] == "[0.5, 1.0]"
    # `run, qrels` without type hints are settled by the body: `for q, scores in run.items()` with `scores.get` is a
    # scored run, `qrels[q]` qrels by query, and the mapping it builds one RR per query (the register's S4)
    assert (drafted["reciprocal_ranks"]["arguments"], drafted["reciprocal_ranks"]["shape"]) == (
        {"run": "scored run", "qrels": "qrels by query"}, "per query")


# --- listings in a Jupyter notebook ----------------------------------------------------------------

def _notebook(path: Path) -> Path:
    """The issue's nDCG listing split over a notebook's cells: the helper in one code cell, the function in the
    next, the call and its printed value in a Markdown cell, the chapter's conventions in the first."""
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# nDCG in a notebook\n\nA document of grade g contributes a gain of 2^g − 1. "
                                      "The ideal DCG sorts every judged grade, best first, and cuts at k."),
        nbformat.v4.new_code_cell("import math\n\ndef dcg(grades):\n"
                                  "    return sum(g / math.log2(i + 2) for i, g in enumerate(grades))",
                                  outputs=[nbformat.v4.new_output("stream", text="OUTPUT-7731\n")]),
        nbformat.v4.new_code_cell("def ndcg_at_k(grades: list[int], k: int) -> float:\n"
                                  "    ideal = sorted(grades, reverse=True)[:k]\n    return dcg(grades[:k]) / dcg(ideal)"),
        nbformat.v4.new_raw_cell("raw text is left out"),
        nbformat.v4.new_markdown_cell("Called as `ndcg_at_k([2, 3, 0, 1, 3], 5)` it returns 0.867.")]
    nbformat.write(nb, str(path))
    return path


def test_a_notebook_is_read_as_its_cells_and_its_listings_are_found_with_their_cell(tmp_path):
    """Markdown cells as written, code cells fenced, the raw cell and the outputs left out; a line of the text maps
    back to its cell and line there."""
    from audit.text.chapter import Snapshot
    from audit.text.listings import builds_on_lines, find_listings
    snapshot = Snapshot.read(_notebook(tmp_path / "ch.ipynb"))
    assert "raw text is left out" not in snapshot.text and "OUTPUT-7731" not in snapshot.text
    listings = find_listings(snapshot.text)
    assert [(l.style, l.code.split("\n")[0]) for l in listings] == [("fenced", "import math"),
                                                                  ("fenced", "def ndcg_at_k(grades: list[int], k: int) -> float:")]
    assert snapshot.place(listings[1].start) == "notebook cell 3, line 1"
    assert snapshot.place(listings[0].start + 2) == "notebook cell 2, line 3"
    assert builds_on_lines(snapshot.text, "def ndcg_at_k(grades: list[int], k: int) -> float:", "ndcg_at_k") == \
        ["def dcg(grades):"]


def test_a_notebook_that_is_not_one_stops_the_load_naming_the_file(tmp_path):
    from audit.errors import RegisterError
    from audit.text.chapter import Snapshot
    (tmp_path / "ch.ipynb").write_text('{"cells": 3}', encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        Snapshot.read(tmp_path / "ch.ipynb")
    assert "not a Jupyter notebook" in caught.value.message and "ch.ipynb" in str(caught.value.file)


def test_the_issues_listing_in_a_notebook_is_drafted_by_init_and_contradicted_with_its_defects(tmp_path):
    """init reads the notebook in place as the snapshot, encodes ndcg_at_k with the helper cell it builds on and the printed
    call; the audit finds what it finds in Markdown: linear gain, the ideal from the ranking's own grades, a
    division by zero, and 0.8672 printed where the chapter's nDCG@5 is 10.555154 / 13.347185 = 0.790815 (by hand)."""
    from audit.draft.init import create_chapter
    notebook = _notebook(tmp_path / "ch.ipynb")
    create_chapter(notebook, "nb-ch", tmp_path / "claims")
    folder = tmp_path / "claims" / "nb-ch"
    chapter = load_chapter(folder)
    assert chapter.identity.snapshot.file == "../../ch.ipynb" and chapter.snapshot.reading.startswith("a Jupyter")
    code = next(c for c in chapter.register.claims if c.kind == "code" and c.function == "ndcg_at_k")
    assert code.builds_on == ["def dcg(grades):"] and code.calls[0].returns == "0.867"
    result = next(r for r in audit_chapter(chapter, all_references(), collect(["audit", "run"])).claims
                  if r.id == code.id)
    assert result.verdict == "contradicted", result.reason
    assert "ZeroDivisionError" in result.reason and "gain “linear”" in result.reason
    assert "all retrieved, cut at k" in result.reason and "0.790815" in result.reason
    assert any("notebook cell 3, line 1" in c.label for c in result.checks)
    # the sentence printing the call's result is the code claim's to check: no draft for it, and it is covered
    assert not any(c.kind == "draft" and "Called as" in c.quote for c in chapter.register.claims)
    report = audit_chapter(chapter, all_references(), collect(["audit", "run"]))
    called = [s for s in report.statements if "Called as" in s.text]
    assert called and all(s.covered_by == [code.id] for s in called), called


# --- an HTML page as a chapter ---------------------------------------------------------------------

PAGE = """<!doctype html>
<html><head><title>t</title><script>var x = "P@4 = 1/3";</script></head>
<body>
<h1>Precision at four</h1>
<p>With a single relevant result in the top four,
P@4 = 1/4 &amp; R@4 = 1/2.</p>
<table>
<tr><th>k</th><th>P@k</th></tr>
<tr><td>4</td><td>0.25</td></tr>
</table>
<pre><code class="language-python">def hit_at_k(ranking, relevant, k):
    return 1.0 if any(d in relevant for d in ranking[:k + 1]) else 0.0
</code></pre>
<p>Called as <code>hit_at_k(["a", "b"], {"a"}, 2)</code> it returns 1.0.</p>
</body></html>
"""


def test_an_html_page_is_read_as_text_with_its_tables_code_and_source_lines(tmp_path):
    """Headings, paragraphs and rows on their own lines, the table with its delimiter row, <pre> fenced, inline code
    in backticks, the script left out, &amp; decoded; each line points back to its line in the HTML."""
    from audit.text.chapter import Snapshot
    from audit.text.listings import find_listings
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    snapshot = Snapshot.read(tmp_path / "page.html")
    lines = snapshot.text.split("\n")
    assert lines[0] == "# Precision at four" and "1/3" not in snapshot.text
    assert "With a single relevant result in the top four, P@4 = 1/4 & R@4 = 1/2." in lines
    table = lines.index("| k | P@k |")
    assert lines[table + 1:table + 3] == ["|---|---|", "| 4 | 0.25 |"]
    assert 'Called as `hit_at_k(["a", "b"], {"a"}, 2)` it returns 1.0.' in lines
    listing = find_listings(snapshot.text)[0]
    assert listing.style == "fenced" and listing.code.startswith("def hit_at_k(")
    assert snapshot.place(listing.start) == "page.html line 11"
    assert snapshot.place(lines.index("With a single relevant result in the top four, P@4 = 1/4 & R@4 = 1/2.") + 1) \
        == "page.html line 5"
    assert "an HTML page is read" in snapshot.reading


def test_an_html_chapter_is_drafted_by_init_and_audited_with_places_in_the_page(tmp_path):
    """init encodes the listing with its shown call; the listing cuts at k + 1 and is contradicted, the finding
    naming the late cutoff; the report's row points to the page's line."""
    from audit.draft.init import create_chapter
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    create_chapter(tmp_path / "page.html", "page", tmp_path / "claims")
    folder = tmp_path / "claims" / "page"
    chapter = load_chapter(folder)
    code = next(c for c in chapter.register.claims if c.kind == "code")
    report = audit_chapter(chapter, all_references(), collect(["audit", "run"]))
    result = next(r for r in report.claims if r.id == code.id)
    assert result.verdict == "contradicted", result.reason
    assert "applies the cutoff 1 rank late" in result.reason
    assert result.place == "page.html line 11"   # the page itself, read in place


def test_a_right_listing_with_a_wrong_printed_value_gets_the_printed_value_corrected_and_the_rerun_is_clean(tmp_path):
    """P@2 of a, b, c with a relevant is 1/2 (by hand); the text prints 0.4 after the call. The listing is right on
    every input, so the hunk changes only the printed value (0.4 → 0.5), re-checked before it is printed; applied,
    the rerun supports the claim."""
    from audit.research.proposal import patched_text, register_text
    text = ("# P@k\n\n```python\ndef precision_at_k(ranking, relevant, k):\n"
            "    if len(set(ranking)) != len(ranking):\n        raise ValueError('a repeated document')\n"
            "    if k < 1:\n        raise ValueError('k must be at least 1')\n"
            "    return sum(1 for d in ranking[:k] if d in relevant) / k\n```\n\n"
            'Called as `precision_at_k(["a", "b", "c"], {"a"}, 2)` it returns 0.4.\n')
    claims = ('claims:\n  - {id: P1, title: P, kind: code, quote: "def precision_at_k(ranking, relevant, k):", claim: c,'
              ' function: precision_at_k, measure: P@k, arguments: {ranking: ranking, relevant: relevant set, k: cutoff},'
              ' calls: [{call: \'precision_at_k(["a", "b", "c"], {"a"}, 2)\', returns: "0.4"}]}\n')
    chapter = "id: printed\ntitle: Printed\nsnapshot: {file: snapshot.md}\n"
    folder = tmp_path / "printed"
    for name, body in (("snapshot.md", text), ("chapter.yaml", chapter), ("claims.yaml", claims)):
        folder.mkdir(exist_ok=True)
        (folder / name).write_text(body, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    assert report.claims[0].verdict == "contradicted", report.claims[0].reason
    assert "or correct the listing" not in report.claims[0].response
    proposal = report.research.proposal
    assert [(h.action, h.replaced, h.text) for h in proposal.hunks] == [("correct a value after a call", "0.4", "0.5")], \
        (proposal.not_proposed, proposal.withdrawn)
    (folder / "snapshot.md").write_text(patched_text(text, proposal), encoding="utf-8")
    (folder / "claims.yaml").write_text(register_text(claims, proposal), encoding="utf-8")
    again = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]
    assert again.verdict == "supported", again.reason


NDCG_PRINTED = """\
# Graded relevance

A document's gain is its grade; DCG@k sums gain / log2(rank + 1) over the first k ranks, and nDCG@k divides it by
the DCG@k of the ideal ranking, the judged documents sorted by grade.

```python
import numpy as np

def ndcg_at_k(ranking, grades, k):
    gains = np.array([grades.get(d, 0) for d in ranking[:k]], dtype=float)
    dcg = float((gains / np.log2(np.arange(2, gains.size + 2))).sum())
    ideal = np.array(sorted(grades.values(), reverse=True)[:k], dtype=float)
    idcg = float((ideal / np.log2(np.arange(2, ideal.size + 2))).sum())
    return dcg / idcg if idcg > 0 else 0.0

print(round(ndcg_at_k(["d3", "d1", "d7", "d2"], {"d1": 3, "d2": 2, "d3": 1}, 4), 2))
```

Output:

```
0.71
```
"""


def test_a_wrong_value_in_the_output_block_and_edge_defects_of_a_right_listing_are_both_fixed(tmp_path):
    """nDCG@4 of d3, d1, d7, d2 with grades d1 3, d2 2, d3 1 (linear gain): DCG 1/1 + 3/log2 3 + 2/log2 5 = 3.7542,
    ideal 3 + 2/log2 3 + 1/2 = 4.7619, 0.7884 (by hand; ir_measures' nDCG@4 on these qrels, linear gain, gives the
    same). The output block after the listing prints 0.71; the listing is right on well-formed input and scores a
    ranking that repeats an ID (nDCG above 1 on a, a, x, b), an edge case. The verdict is the printed value's; the
    reason also names the edge cases (they were dropped), the printed value in its own output block is placed (it
    was "cannot be placed"), and the hunks fix both; applied, the rerun is supported."""
    from audit.research.proposal import patched_text, register_text
    claims = ('claims:\n  - {id: N1, title: nDCG, kind: code, quote: "def ndcg_at_k(ranking, grades, k):", claim: c,'
              ' function: ndcg_at_k, measure: nDCG@k, arguments: {ranking: ranking, grades: qrels, k: cutoff},'
              ' calls: [{call: \'round(ndcg_at_k(["d3", "d1", "d7", "d2"], {"d1": 3, "d2": 2, "d3": 1}, 4), 2)\','
              ' returns: "0.71"}]}\n')
    chapter = ("id: graded\ntitle: Graded\nsnapshot: {file: snapshot.md}\n"
               "conventions:\n  gain: {value: linear, quote: \"A document's gain is its grade\"}\n")
    folder = tmp_path / "graded"
    folder.mkdir()
    for name, body in (("snapshot.md", NDCG_PRINTED), ("chapter.yaml", chapter), ("claims.yaml", claims)):
        (folder / name).write_text(body, encoding="utf-8")
    result = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    n1 = result.claims[0]
    assert n1.verdict == "contradicted", n1.reason
    assert "it returns 0.7884, not the printed 0.71" in n1.reason
    assert "It matches on well-formed input, but on repeated ID in the ranking" in n1.reason, n1.reason
    assert n1.response.startswith("Change “0.71” to “0.79” after the call. Fix the listing: reject a ranking"), \
        n1.response
    proposal = result.research.proposal
    assert [(h.action, h.text if "value" in h.action else "") for h in proposal.hunks] == [
        ("correct a listing", ""), ("correct a value after a call", "0.79")], (proposal.not_proposed, proposal.withdrawn)
    (folder / "snapshot.md").write_text(patched_text(NDCG_PRINTED, proposal), encoding="utf-8")
    (folder / "claims.yaml").write_text(register_text(claims, proposal), encoding="utf-8")
    assert "returns: \"0.79\"" in (folder / "claims.yaml").read_text(encoding="utf-8")
    assert "{ranking: ranking, grades: qrels, k: cutoff}" in (folder / "claims.yaml").read_text(encoding="utf-8")
    again = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]
    assert again.verdict == "supported", again.reason


MODULE_DOCTEST = """\
# Two functions in one block

```python
def first_relevant(grades):
    \"\"\"The 1-based rank of the first non-zero grade, or None.

    >>> first_relevant([0, 0, 1])
    3
    \"\"\"
    for rank, g in enumerate(grades, start=1):
        if g:
            return rank
    return None


def reciprocal_rank(grades):
    \"\"\"1 / rank of the first relevant result; 0 when there is none.

    >>> reciprocal_rank([0, 1, 0])
    0.5
    >>> reciprocal_rank([0, 0, 0, 0, 1])
    0.25
    \"\"\"
    rank = first_relevant(grades)
    return 1.0 / rank if rank else 0.0
```
"""


def test_a_doctest_output_of_the_second_function_of_a_block_is_corrected_in_place(tmp_path):
    """RR of 0, 0, 0, 0, 1 is 1/5 = 0.2 (by hand; trec_eval's recip_rank); the docstring prints 0.25. The listing is
    right, so the hunk replaces the printed 0.25 alone. The span was counted from the block's start, not the
    function's, and the hunk replaced four characters of the first function's docstring."""
    from audit.research.proposal import patched_text, register_text
    claims = ('claims:\n  - {id: R1, title: RR, kind: code, quote: "def reciprocal_rank(grades):", claim: c,'
              ' function: reciprocal_rank, measure: RR, arguments: {grades: ranked grades}, builds_on: [first_relevant],'
              ' calls: [{call: "reciprocal_rank([0, 1, 0])", returns: "0.5"},'
              ' {call: "reciprocal_rank([0, 0, 0, 0, 1])", returns: "0.25"}]}\n')
    folder = tmp_path / "module"
    folder.mkdir()
    for name, body in (("snapshot.md", MODULE_DOCTEST), ("claims.yaml", claims),
                       ("chapter.yaml", "id: module\ntitle: Module\nsnapshot: {file: snapshot.md}\n")):
        (folder / name).write_text(body, encoding="utf-8")
    result = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    r1 = result.claims[0]
    assert r1.verdict == "contradicted" and "not the printed 0.25" in r1.reason, r1.reason
    proposal = result.research.proposal
    after = patched_text(MODULE_DOCTEST, proposal)
    assert after == MODULE_DOCTEST.replace("    0.25\n", "    0.2\n"), (proposal.not_proposed, proposal.withdrawn)
    (folder / "snapshot.md").write_text(after, encoding="utf-8")
    (folder / "claims.yaml").write_text(register_text(claims, proposal), encoding="utf-8")
    again = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]
    assert again.verdict == "supported", again.reason


def test_a_curve_up_to_k_is_compared_at_every_entry_of_a_long_ranking(tmp_path):
    """P@1 … P@k as a list, turning to 1 − P past entry 120: the long rankings cut at 100 never reached entry 121, and
    it "matched on well-formed input". A ranking of 250 cut at 250 is among the generated inputs of a listing that
    returns a list."""
    from chapters import audit_text
    text = ("# A curve\n\n```python\ndef precision_curve(ranking, relevant, k):\n    out, found = [], 0\n"
            "    for i in range(1, k + 1):\n        found += i <= len(ranking) and ranking[i - 1] in relevant\n"
            "        out.append(found / i if i <= 120 else 1 - found / i)\n    return out\n```\n")
    claims = ('claims:\n  - {id: C1, title: c, kind: code, quote: "def precision_curve(ranking, relevant, k):",'
              ' claim: P at each rank up to k, function: precision_curve, measure: P@k, shape: at each k,'
              ' arguments: {ranking: ranking, relevant: relevant set, k: cutoff}}\n')
    folder = tmp_path / "curve"
    folder.mkdir()
    c1 = audit_text(folder, text, claims, title="Curve").claims[0]
    assert c1.verdict == "contradicted", c1.reason
    assert "Wrong on ordinary input: 1 of 300 generated inputs" in c1.reason, c1.reason


def test_a_printed_value_is_found_in_the_output_block_after_its_listing_and_nowhere_else():
    from audit.text.coverage import printed_after
    call = 'round(ndcg_at_k(["d3", "d1", "d7", "d2"], {"d1": 3, "d2": 2, "d3": 1}, 4), 2)'
    at, where = printed_after(NDCG_PRINTED, call, "0.71")
    assert NDCG_PRINTED[where:where + 4] == "0.71" and at < where
    # prose between the blocks, or a longer number holding the printed one, is not that output
    assert printed_after(NDCG_PRINTED.replace("Output:", "The ideal ranking is d1, d2, d3."), call, "0.71") is None
    assert printed_after(NDCG_PRINTED.replace("0.71\n", "0.715\n"), call, "0.71") is None


def test_a_listing_using_an_earlier_listings_helper_without_builds_on_stops_the_load(tmp_path):
    """ndcg_at_k calls dcg from the listing before it: without builds_on it would die of a NameError, blamed on the
    listing; the load names the field and the line to add instead."""
    from audit.errors import RegisterError
    text = ("```python\nimport math\n\ndef dcg(grades):\n    return sum(g / math.log2(i + 2) for i, g in "
            "enumerate(grades))\n```\n\n```python\ndef ndcg_at_k(grades, k):\n    ideal = sorted(grades, "
            "reverse=True)[:k]\n    return dcg(grades[:k]) / dcg(ideal)\n```\n")
    (tmp_path / "snapshot.md").write_text(text, encoding="utf-8")
    (tmp_path / "chapter.yaml").write_text(SHAPES_CHAPTER, encoding="utf-8")
    (tmp_path / "claims.yaml").write_text(
        'claims:\n  - {id: B1, title: t, kind: code, quote: "def ndcg_at_k(grades, k):", claim: c, function: ndcg_at_k,'
        " measure: nDCG@k, arguments: {grades: ranked grades, k: cutoff}}\n", encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(tmp_path)
    assert caught.value.field == "builds_on" and "'def dcg(grades):'" in caught.value.message, caught.value.message


MQ_TEXT = '''# MRR over a run

A document is relevant when its grade is at least 1.

```python
def mean_reciprocal_rank(run, qrels):
    total = 0.0
    for q, scores in run.items():
        for rank, d in enumerate(scores, start=1):
            if qrels[q].get(d, 0) >= 1:
                total += 1 / rank
                break
    return total / len(run)
```

```python
def precision_per_query(run, qrels, k):
    out = {}
    for q, docs in run.items():
        out[q] = sum(1 for d in docs[:k + 1] if qrels.get(q, {}).get(d, 0) >= 1) / k
    return out
```
'''
MQ_CLAIMS = """\
claims:
  - {id: M1, title: MRR, kind: code, quote: "def mean_reciprocal_rank(run, qrels):", claim: MRR over a run,
     function: mean_reciprocal_rank, measure: RR, arguments: {run: scored run, qrels: qrels by query}}
  - {id: M2, title: P per query, kind: code, quote: "def precision_per_query(run, qrels, k):", claim: P@k per query,
     function: precision_per_query, measure: P@k, shape: per query, arguments: {run: run, qrels: qrels by query, k: cutoff}}
"""


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_listings_over_a_run_are_rewritten_each_hunk_placed_at_its_line_as_read_and_the_rerun_is_clean(tmp_path):
    """M1 walks each query's score mapping as listed (contradicted: ranked as listed, not by score); M2 cuts at k + 1
    and divides by k (contradicted). Both get corrected listings over the run; the second hunk's heading gives its
    line in the snapshot as read (17), not in the text the first hunk left. Applied, both are supported."""
    from audit.research.proposal import patched_text, register_text
    folder = tmp_path / "mq"
    folder.mkdir()
    for name, body in (("snapshot.md", MQ_TEXT), ("chapter.yaml", "id: mq\ntitle: MQ\nsnapshot: {file: snapshot.md}\n"),
                       ("claims.yaml", MQ_CLAIMS)):
        (folder / name).write_text(body, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    verdicts = {c.id: c.verdict for c in report.claims}
    assert verdicts == {"M1": "contradicted", "M2": "contradicted"}, [c.reason for c in report.claims]
    assert "ranks the documents in the order their scores are listed" in report.claims[0].reason
    hunks = report.research.proposal.hunks
    assert [(h.claim, h.snapshot_line) for h in hunks] == [("M1", 6), ("M2", 17)]
    assert hunks[1].line > 17  # where patch applies it, after the first hunk grew the text
    (folder / "snapshot.md").write_text(patched_text(MQ_TEXT, report.research.proposal), encoding="utf-8")
    (folder / "claims.yaml").write_text(register_text(MQ_CLAIMS, report.research.proposal), encoding="utf-8")
    again = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    assert {c.id: c.verdict for c in again.claims} == {"M1": "supported", "M2": "supported"}, \
        [c.reason for c in again.claims]


def test_a_wrong_printed_value_after_a_call_of_per_query_values_is_corrected_when_the_listing_is_right(tmp_path):
    """gmap({"q1": 0.5, "q2": 0.125}) is sqrt(0.0625) = 0.25 (by hand); the text prints 0.3125, the arithmetic mean.
    The chapter's definitions have no run to compare the call with, but the listing is trec_eval's gm_map on every
    generated input, so the printed value alone is wrong: no "or correct the listing", and a checked hunk prints
    0.2500 (the printed precision); the rerun supports it."""
    from audit.research.proposal import patched_text, register_text
    text = ("# GMAP\n\n```python\nimport math\n\ndef gmap(ap_by_query):\n    if not ap_by_query:\n        return 0.0\n"
            "    return math.exp(sum(math.log(max(v, 0.00001)) for v in ap_by_query.values()) / len(ap_by_query))\n"
            "```\n\nCalled as `gmap({\"q1\": 0.5, \"q2\": 0.125})` it returns 0.3125.\n")
    claims = ('claims:\n  - {id: G1, title: GMAP, kind: code, quote: "def gmap(ap_by_query):", claim: c, function: gmap,'
              ' measure: GMAP, arguments: {ap_by_query: per-query values},'
              ' calls: [{call: \'gmap({"q1": 0.5, "q2": 0.125})\', returns: "0.3125"}]}\n')
    folder = tmp_path / "gmap"
    folder.mkdir()
    for name, body in (("snapshot.md", text), ("chapter.yaml", "id: gmap\ntitle: G\nsnapshot: {file: snapshot.md}\n"),
                       ("claims.yaml", claims)):
        (folder / name).write_text(body, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    g1 = report.claims[0]
    assert g1.verdict == "contradicted" and "or correct the listing" not in g1.response, g1.response
    hunks = report.research.proposal.hunks
    assert [(h.action, h.replaced, h.text) for h in hunks] == [("correct a value after a call", "0.3125", "0.2500")], \
        (report.research.proposal.not_proposed, report.research.proposal.withdrawn)
    (folder / "snapshot.md").write_text(patched_text(text, report.research.proposal), encoding="utf-8")
    (folder / "claims.yaml").write_text(register_text(claims, report.research.proposal), encoding="utf-8")
    assert audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0].verdict == \
        "supported"
