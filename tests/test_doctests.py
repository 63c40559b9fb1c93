"""Doctests and shown calls are claims, and what a listing really computes is named.

Two texts in the shapes real ones have: a module of rank metrics over graded lists, whose docstrings hold doctests with
seventeen-digit outputs (as Python 2 printed a float), an example that assigns a list before calling with it and an
expected exception; and a NumPy nDCG tutorial that assigns its grades in one code block and calls with them in a
console block further down. Each doctest is read with doctest's own parser, run in the listing sandbox, compared with
its printed output at the printed precision, and with the chapter's definition and the references on the same input.
Where a listing disagrees, the finding names what it computes instead: precision at the last relevant rank for
R-precision, a discount leaving ranks 1 and 2 undiscounted, an ideal built from the returned list, an exception or a
nan where the references give a value.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import pytest

from audit.errors import RegisterError
from audit.evaluation.checks.code import printed_holds, significant_digits
from audit.evaluation.references import all_references
from audit.evaluation.sandbox import unavailable_reason
from audit.register.claims import load_chapter
from audit.model.values import parse_claimed
from audit.run.audit import audit_chapter
from audit.run.provenance import collect
from audit.text.doctests import assignments, bindings_before, examples, given_problem

sandboxed = pytest.mark.skipif(bool(unavailable_reason()), reason=f"isolation unavailable: {unavailable_reason()}")

LOG2_3 = math.log2(3)

# --- a module of rank metrics with doctests ---------------------------------------------------------------------------

MODULE = """\
Ranked-list scores

Every function below scores one ranked list. It takes grades, the relevance
grade of each returned item in the order the system returned it (rank one
first); 0 marks an item that is not relevant, and the grade is its gain. The
examples are doctests: `python -m doctest scores.py` runs them.

import numpy as np


def reciprocal_rank(grades):
    \"\"\"Inverse rank of the first relevant item; 0.0 when no item is relevant.

    >>> reciprocal_rank([0, 0, 1, 1])
    0.33333333333333331
    >>> reciprocal_rank([0, 0, 0])
    0.0
    \"\"\"
    hits = np.flatnonzero(np.asarray(grades))
    if hits.size == 0:
        return 0.0
    return float(1.0 / (hits[0] + 1))


def r_precision(grades):
    \"\"\"R-precision: the precision of the list once all its relevant items are in.

    >>> r_precision([0, 0, 1])
    0.33333333333333331
    >>> r_precision([0, 1, 0])
    0.5
    >>> r_precision([1, 0, 0])
    1.0
    \"\"\"
    rel = np.asarray(grades) != 0
    where = np.flatnonzero(rel)
    if where.size == 0:
        return 0.0
    return float(np.mean(rel[:where[-1] + 1]))


def precision_at_k(grades, k):
    \"\"\"Share of relevant items among the first k.

    >>> precision_at_k([0, 0, 1], 3)
    0.33333333333333331
    >>> precision_at_k([0, 0, 1], 4)
    Traceback (most recent call last):
      ...
    ValueError: fewer than k grades
    \"\"\"
    if k < 1:
        raise ValueError("k must be at least 1")
    top = np.asarray(grades)[:k] != 0
    if top.size != k:
        raise ValueError("fewer than k grades")
    return float(np.mean(top))


def dcg_at_k(grades, k):
    \"\"\"Discounted cumulative gain of the first k grades.

    >>> g = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    >>> dcg_at_k(g, 1)
    3.0
    >>> dcg_at_k(g, 2)
    5.0
    >>> dcg_at_k(g, 4)
    6.8927892607143724
    \"\"\"
    top = np.asarray(grades, dtype=float)[:k]
    if top.size == 0:
        return 0.0
    return float(top[0] + np.sum(top[1:] / np.log2(np.arange(2, top.size + 1))))


def ndcg_at_k(grades, k):
    \"\"\"dcg_at_k over the best DCG the same grades reach when sorted.

    >>> g = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
    >>> ndcg_at_k(g, 4)
    0.77509868485972222
    \"\"\"
    best = dcg_at_k(sorted(grades, reverse=True), k)
    if not best:
        return 0.0
    return dcg_at_k(grades, k) / best


def average_precision(grades):
    \"\"\"Mean of the precision at each relevant rank.

    >>> average_precision([1, 0, 1, 0, 0, 1])
    0.72222222222222221
    \"\"\"
    rel = np.asarray(grades) != 0
    out = [np.mean(rel[:i + 1]) for i in range(rel.size) if rel[i]]
    return float(np.mean(out))

That is the whole module.
"""

MODULE_CHAPTER = """\
id: scores
title: Ranked-list scores
snapshot: {file: snapshot.txt}
environment: [numpy]
conventions:
  gain: {value: linear, quote: "the grade is its gain"}
"""

MODULE_CLAIMS = """\
claims:
  - id: RP
    title: r_precision
    kind: code
    quote: "def r_precision(grades):"
    claim: r_precision() computes R-precision
    function: r_precision
    measure: Rprec
    arguments: {grades: ranked grades}
    calls:
      - {call: "r_precision([0, 0, 1])", returns: "0.33333333333333331"}
      - {call: "r_precision([0, 1, 0])", returns: "0.5"}
      - {call: "r_precision([1, 0, 0])", returns: "1.0"}
  - id: PK
    title: precision_at_k
    kind: code
    quote: "def precision_at_k(grades, k):"
    claim: precision_at_k() computes P@k
    function: precision_at_k
    measure: P@k
    arguments: {grades: ranked grades, k: cutoff}
    calls:
      - {call: "precision_at_k([0, 0, 1], 3)", returns: "0.33333333333333331"}
      - {call: "precision_at_k([0, 0, 1], 4)", raises: "ValueError: fewer than k grades"}
  - id: DK
    title: dcg_at_k
    kind: code
    quote: "def dcg_at_k(grades, k):"
    claim: dcg_at_k() computes DCG@k
    function: dcg_at_k
    measure: DCG@k
    arguments: {grades: ranked grades, k: cutoff}
    calls:
      - {call: "dcg_at_k(g, 1)", returns: "3.0", given: {g: "[3, 2, 3, 0, 0, 1, 2, 2, 3, 0]"}}
      - {call: "dcg_at_k(g, 2)", returns: "5.0", given: {g: "[3, 2, 3, 0, 0, 1, 2, 2, 3, 0]"}}
      - {call: "dcg_at_k(g, 4)", returns: "6.8927892607143724", given: {g: "[3, 2, 3, 0, 0, 1, 2, 2, 3, 0]"}}
  - id: NK
    title: ndcg_at_k
    kind: code
    quote: "def ndcg_at_k(grades, k):"
    claim: ndcg_at_k() computes nDCG@k
    function: ndcg_at_k
    measure: nDCG@k
    arguments: {grades: ranked grades, k: cutoff}
    calls:
      - {call: "ndcg_at_k(g, 4)", returns: "0.77509868485972222", given: {g: "[3, 2, 3, 0, 0, 1, 2, 2, 3, 0]"}}
  - id: AP
    title: average_precision
    kind: code
    quote: "def average_precision(grades):"
    claim: average_precision() computes AP
    function: average_precision
    measure: AP
    arguments: {grades: ranked grades}
    calls:
      - {call: "average_precision([1, 0, 1, 0, 0, 1])", returns: "0.72222222222222221"}
"""

# --- a NumPy nDCG tutorial ----------------------------------------------------------------------------------------------

TUTORIAL = """# Grading a results page with nDCG in NumPy

Suppose a query returns six documents and an assessor grades each on a scale
from 0 (useless) to 3 (exactly what was wanted). We keep the grades in rank
order:

```python
relevance = [3, 2, 3, 0, 1, 2]
```

The gain of a document is its grade, and the document at rank i is discounted
by log2(i + 1), so the top result counts in full and later ones less and less.
Discounted cumulative gain at k adds up the first k discounted gains:

```python
import numpy as np


def dcg_at_k(relevance, k):
    return sum(relevance[i] / np.log2(i + 2) for i in range(k))
```

```pycon
>>> dcg_at_k(relevance, 3)
5.7618595071429155
```

DCG grows with the number of relevant results, so it is normalised by the best
DCG the page could have had, the ideal DCG:

```python
def ndcg_at_k(relevance, k):
    ideal = sorted(relevance, reverse=True)
    return dcg_at_k(relevance, k) / dcg_at_k(ideal, k)
```

```pycon
>>> ndcg_at_k(relevance, 3)
0.9777813616305049
>>> ndcg_at_k(relevance, 6)
0.9608
```

An nDCG of 1 means the page is already in the best order.
"""

TUTORIAL_CHAPTER = """\
id: ndcg-numpy
title: Grading a results page with nDCG in NumPy
snapshot: {file: snapshot.md}
environment: [numpy]
conventions:
  gain: {value: linear, quote: "The gain of a document is its grade"}
"""

TUTORIAL_CLAIMS = """\
claims:
  - id: TD
    title: dcg_at_k
    kind: code
    quote: "def dcg_at_k(relevance, k):"
    claim: dcg_at_k() computes DCG@k
    function: dcg_at_k
    measure: DCG@k
    arguments: {relevance: ranked grades, k: cutoff}
    calls:
      - {call: "dcg_at_k(relevance, 3)", returns: "5.7618595071429155", given: {relevance: "[3, 2, 3, 0, 1, 2]"}}
  - id: TN
    title: ndcg_at_k
    kind: code
    quote: "def ndcg_at_k(relevance, k):"
    claim: ndcg_at_k() computes nDCG@k
    function: ndcg_at_k
    measure: nDCG@k
    arguments: {relevance: ranked grades, k: cutoff}
    builds_on: ["def dcg_at_k(relevance, k):"]
    calls:
      - {call: "ndcg_at_k(relevance, 3)", returns: "0.9777813616305049", given: {relevance: "[3, 2, 3, 0, 1, 2]"}}
      - {call: "ndcg_at_k(relevance, 6)", returns: "0.9608", given: {relevance: "[3, 2, 3, 0, 1, 2]"}}
"""


def _write(folder: Path, snapshot_name: str, snapshot: str, chapter: str, claims: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / snapshot_name).write_text(snapshot, encoding="utf-8")
    (folder / "chapter.yaml").write_text(chapter, encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return folder


def _audit(folder: Path) -> dict:
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    return {c.id: c for c in report.claims}


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    return _audit(_write(tmp_path_factory.mktemp("doctests") / "scores", "snapshot.txt", MODULE, MODULE_CHAPTER,
                         MODULE_CLAIMS))


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return _audit(_write(tmp_path_factory.mktemp("doctests") / "ndcg-numpy", "snapshot.md", TUTORIAL,
                         TUTORIAL_CHAPTER, TUTORIAL_CLAIMS))


def _calls_table(result) -> list[list[str]]:
    return next(c.table for c in result.checks if "calls the text shows" in c.label)


# --- reading doctests with doctest's parser --------------------------------------------------------------------------

def test_the_module_doctests_are_read_from_each_docstring_as_doctest_reads_them():
    """Fourteen examples; a docstring's closing quotes end the output of its last example (doctest reads the
    docstring, not the code after it); the expected exception is its last line, the traceback's header dropped."""
    found = examples(MODULE)
    assert len(found) == 14
    last = {e.source: e for e in found}
    assert last["average_precision([1, 0, 1, 0, 0, 1])"].want == "0.72222222222222221\n"
    assert last["precision_at_k([0, 0, 1], 4)"].raises == "ValueError: fewer than k grades"
    assert last["dcg_at_k(g, 4)"].want == "6.8927892607143724\n"


def test_a_name_is_bound_to_the_literal_last_assigned_before_the_call():
    """In the tutorial, relevance is assigned in a code block well before the console block that calls with it;
    in the module, g is assigned in each of two docstrings, each before its own calls."""
    at = TUTORIAL.index(">>> ndcg_at_k(relevance, 3)")
    assert bindings_before(TUTORIAL, at, ["relevance"]) == {"relevance": "[3, 2, 3, 0, 1, 2]"}
    assert [name for _, name, _ in assignments(MODULE)] == ["g", "g"]
    assert given_problem(TUTORIAL, "ndcg_at_k(relevance, 3)", {"relevance": "[3, 2, 3, 0, 1, 2]"}) == ""
    assert "assigns relevance = [3, 2, 3, 0, 1, 2], not [3, 2, 3]" in given_problem(
        TUTORIAL, "ndcg_at_k(relevance, 3)", {"relevance": "[3, 2, 3]"})
    assert "passes relevance" in given_problem(TUTORIAL, "ndcg_at_k(relevance, 3)", {})


def test_a_doctest_that_passes_a_name_without_given_stops_the_load_naming_the_field(tmp_path):
    claims = TUTORIAL_CLAIMS.replace(', given: {relevance: "[3, 2, 3, 0, 1, 2]"}}', "}", 1)
    folder = _write(tmp_path / "ndcg-numpy", "snapshot.md", TUTORIAL, TUTORIAL_CHAPTER, claims)
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.claim == "TD" and caught.value.field == "calls[0].given", caught.value
    assert "relevance" in caught.value.message


def test_an_expected_exception_not_printed_in_the_text_stops_the_load(tmp_path):
    claims = MODULE_CLAIMS.replace('raises: "ValueError: fewer than k grades"', 'raises: "IndexError: too short"')
    folder = _write(tmp_path / "scores", "snapshot.txt", MODULE, MODULE_CHAPTER, claims)
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert caught.value.claim == "PK" and caught.value.field == "calls[1].raises", caught.value


# --- printed precision ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("printed, value, holds", [
    ("0.33333333333333331", Fraction(1, 3), True),           # Python 2's repr of 1/3: the double nearest 1/3
    ("0.33333333333333331", 1 / 3, True),
    ("0.77509868485972222", 0.7750986848597222, True),       # the listing's own float, 17 digits
    ("0.33333333333333231", Fraction(1, 3), False),          # wrong at the 15th digit: 1.0e-15 off, 18 ulps
    ("0.9608", 0.9608081943360617, True),                    # four decimals: [0.96075, 0.96085]
    ("0.9609", 0.9608081943360617, False),                   # a wrong digit at the printed precision
    ("0.5", Fraction(0), False),
    ("1/3", 1 / 3, True),                                    # an exact fraction compared as printed values are
])
def test_a_printed_float_is_compared_at_its_printed_precision(printed, value, holds):
    assert printed_holds(parse_claimed(printed), value) is holds


def test_significant_digits_count_from_the_first_nonzero_digit():
    assert significant_digits("0.61314719276545848") == 17
    assert significant_digits("0.5") == 1 and significant_digits("3.0") == 2 and significant_digits("0.9608") == 4


# --- the module's verdicts --------------------------------------------------------------------------------------------

@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_references_give_r_precision_zero_where_the_doctest_prints_one_half():
    """R-precision of [0, 1, 0] with one relevant document is P@1 = 0 (Buckley and Voorhees 2000); asked directly,
    trec_eval (pytrec_eval 0.5.11 Rprec), ir-measures (Rprec) and ranx (r-precision) all give 0.0."""
    import ir_measures
    import pytrec_eval
    from ranx import Qrels, Run, evaluate

    qrels = {"q": {"r1": 0, "r2": 1, "r3": 0}}
    run = {"q": {"r1": 3.0, "r2": 2.0, "r3": 1.0}}
    assert pytrec_eval.RelevanceEvaluator(qrels, {"Rprec"}).evaluate(run)["q"]["Rprec"] == 0.0
    assert ir_measures.calc_aggregate([ir_measures.Rprec], qrels, run)[ir_measures.Rprec] == 0.0
    assert evaluate(Qrels(qrels), Run(run), "r-precision") == 0.0


@sandboxed
def test_precision_at_the_last_relevant_rank_is_named_not_passed_off_as_r_precision(module):
    """r_precision returns the precision at the last relevant rank: 1/3 on [0, 0, 1] and 1/2 on [0, 1, 0], where
    R-precision (|R| = 1: P@1) is 0, as the three references give it. Its doctests print the listing's values, so the
    printed value is the listing's, not the measure's; the correction prints what doctest would print, 0.0."""
    rp = module["RP"]
    assert rp.verdict == "contradicted", rp.reason
    assert ("it computes precision at the rank of the last relevant document it retrieved, not R-precision, which is "
            "precision at rank |R|") in rp.reason
    assert "`r_precision([0, 1, 0])`, as the text shows, it returns 0.5000 where the chapter's definition of Rprec " \
           "gives 0 on the same input (pytrec_eval, ir_measures and ranx give 0.0000)" in rp.reason
    assert "print “0.0” after it" in rp.response and "0.00000000000000000" not in rp.response
    assert "cuts the ranking at rank |R|" in rp.response
    rows = {r[0]: r for r in _calls_table(rp)}
    assert rows["r_precision([1, 0, 0])"][-1] == "agrees"
    assert rows["r_precision([0, 1, 0])"][4] == "pytrec_eval, ir_measures and ranx give 0.0000"


@sandboxed
def test_seventeen_digit_outputs_are_not_false_contradictions(module):
    """0.33333333333333331 is how Python 2 printed 1/3: the call agrees with the chapter's P@3 = 1/3 and the
    references; 13/18 = 0.72222222222222221 likewise for AP of [1, 0, 1, 0, 0, 1] ((1 + 2/3 + 1/2) / 3, by hand)."""
    assert (1 + Fraction(2, 3) + Fraction(1, 2)) / 3 == Fraction(13, 18)
    rows = {r[0]: r for r in _calls_table(module["PK"])}
    assert rows["precision_at_k([0, 0, 1], 3)"][3:] == ["1/3", "pytrec_eval, ir_measures and ranx give 0.3333",
                                                         "agrees"]
    assert _calls_table(module["AP"])[1][3:] == ["13/18", "pytrec_eval, ir_measures and ranx give 0.7222", "agrees"]


@sandboxed
def test_an_expected_value_error_is_the_doctests_claim_and_k_past_the_list_is_named(module):
    """precision_at_k([0, 0, 1], 4) raises ValueError as the doctest expects; readers' tools count the missing rank
    as not relevant and give P@4 = 1/4 (trec_eval P_4 = 0.25), which the row shows. The listing is qualified for
    refusing k past the end of the list, naming what the references give there (P@10 of a, n with a relevant:
    1/10)."""
    pk = module["PK"]
    assert pk.verdict == "qualified", pk.reason
    row = {r[0]: r for r in _calls_table(pk)}["precision_at_k([0, 0, 1], 4)"]
    assert row[1:4] == ["raises ValueError: fewer than k grades", "raises ValueError", "1/4"]
    assert row[-1].startswith("raises ValueError, as the doctest expects; the chapter's definition gives 1/4")
    assert ("On k larger than the ranking (ranking ['a', 'n'], grades {'a': 1, 'b': 1, 'n': 0}, k = 10) it raises "
            "(the listing's exception: “ValueError: fewer than k grades”), where pytrec_eval, ir_measures and ranx "
            "give 0.1000") in pk.reason
    assert "Wrong on ordinary input" not in pk.reason
    assert "cut at min(k, len(ranking))" in pk.response


@sandboxed
def test_a_discount_leaving_ranks_one_and_two_undiscounted_is_named(module):
    """dcg_at_k adds the first grade, then divides rank i ≥ 2 by log2(i): DCG@2 of 3, 2 is 3 + 2 = 5 (printed 5.0),
    where the chapter's log2(i + 1) gives 3 + 2 / log2(3) = 4.261860 (ranx dcg@2 4.2619). The correction of the
    doctest's output is the float Python prints."""
    by_hand = 3 + 2 / LOG2_3
    assert round(by_hand, 6) == 4.261860
    with localcontext() as ctx:  # the exact value to 40 digits, then the double nearest it, as Python prints it
        ctx.prec = 40
        exact = float(3 + 2 * Decimal(2).ln() / Decimal(3).ln())
    dk = module["DK"]
    assert dk.verdict == "contradicted", dk.reason
    assert "it discounts rank i by log2(max(i, 2)), so ranks 1 and 2 both count in full" in dk.reason
    assert "gives 4.261860 on the same input (ranx gives 4.2619)" in dk.reason
    assert f"print “{exact!r}” after it" in dk.response
    assert "divides the gain at rank i by log2(i + 1) for every rank" in dk.response
    assert {r[0]: r[-1] for r in _calls_table(dk)}["dcg_at_k(g, 1)"] == "agrees"


@sandboxed
def test_an_ideal_from_the_returned_list_is_named_with_the_discount(module):
    """ndcg_at_k divides its DCG by the DCG of its own grades sorted: with the flat head discount and that ideal it
    gives 0.77509868485972222 on g at k = 4, where the chapter's nDCG@4 (ideal from every judged grade, which here are
    the ranked ones) is 5.761860 / 7.254224 = 0.794285, as trec_eval, ir-measures and ranx give it."""
    dcg = 3 + 2 / LOG2_3 + 3 / 2
    ideal = 3 + 3 / LOG2_3 + 3 / 2 + 2 / math.log2(5)
    assert round(dcg / ideal, 6) == 0.794285
    nk = module["NK"]
    assert nk.verdict == "contradicted", nk.reason
    assert "ranks 1 and 2 both count in full" in nk.reason
    assert "its ideal DCG built from the returned list alone" in nk.reason
    assert "gives 0.794285 on the same input (pytrec_eval, ir_measures and ranx give 0.7943)" in nk.reason


CITED_AP_MODULE = """\
Average precision, scikit-learn style

average_precision scores one ranked list the way scikit-learn's
average_precision_score scores the returned items: grades in rank order,
0 for an item that is not relevant. `python -m doctest ap.py` runs the
example.

import numpy as np


def average_precision(grades):
    \"\"\"Mean of the precision at each relevant rank.

    >>> average_precision([1, 0, 1, 0, 0, 1])
    0.72222222222222221
    \"\"\"
    rel = np.asarray(grades) != 0
    out = [np.mean(rel[:i + 1]) for i in range(rel.size) if rel[i]]
    return float(np.mean(out))
"""

CITED_AP_CHAPTER = """\
id: ap-sklearn
title: Average precision, scikit-learn style
snapshot: {file: snapshot.txt}
environment: [numpy]
"""

CITED_AP_CLAIMS = MODULE_CLAIMS[:MODULE_CLAIMS.index("claims:\n") + len("claims:\n")] + \
    MODULE_CLAIMS[MODULE_CLAIMS.index("  - id: AP\n"):]


@sandboxed
def test_a_nan_where_the_references_give_zero_is_named(tmp_path):
    """average_precision takes the mean of no precision values when nothing relevant is retrieved: NumPy's nan, where
    trec_eval, ir-measures and ranx give AP = 0. The text follows scikit-learn's average_precision_score, which divides
    by the relevant items retrieved, so that denominator is a reading beside trec_eval's |R|
    ((1 + 2/3 + 1/2)/3 = 0.722222 on the doctest's list, all relevant retrieved): qualified, the nan named."""
    ap = _audit(_write(tmp_path / "ap-sklearn", "snapshot.txt", CITED_AP_MODULE, CITED_AP_CHAPTER,
                       CITED_AP_CLAIMS))["AP"]
    assert ap.verdict == "qualified", ap.reason
    assert ("On relevant documents never retrieved (ranking ['n', 'm'], grades {'a': 1, 'b': 1, 'm': 0, 'n': 0}) it "
            "returns nan, outside [0, 1] (the chapter gives 0); pytrec_eval, ir_measures and ranx give 0.0000") \
        in ap.reason


@sandboxed
def test_ap_over_the_relevant_retrieved_is_wrong_where_no_source_reads_it_so(module):
    """The same function in a module that cites no source: AP over |R| (trec_eval's map, ir-measures' AP, ranx's map)
    is the only reading, and a function given only the returned grades divides by the relevant retrieved, e.g.
    ranking [n, a] with b relevant and not retrieved: (1/2)/2 = 0.25 by |R|, (1/2)/1 = 0.5 by the relevant retrieved.
    Contradicted as wrong on ordinary input, the denominator and the nan both named."""
    ap = module["AP"]
    assert ap.verdict == "contradicted", ap.reason
    assert "Wrong on ordinary input" in ap.reason
    assert "it returns nan, outside [0, 1] (the chapter gives 0)" in ap.reason
    assert "AP denominator “relevant retrieved”, where the chapter's is AP denominator “|R|”" in ap.reason


# --- the tutorial's verdicts ------------------------------------------------------------------------------------------

@sandboxed
def test_a_call_passing_a_name_assigned_earlier_runs_and_agrees(tutorial):
    """dcg_at_k(relevance, 3) = 3 + 2 / log2(3) + 3 / 2 = 5.7618595… (by hand), NumPy's float printed in full; the
    call runs with relevance bound to the list the tutorial assigns two blocks earlier."""
    assert round(3 + 2 / LOG2_3 + 3 / 2, 10) == round(5.7618595071429155, 10)
    td = tutorial["TD"]
    assert _calls_table(td)[1][-1] == "agrees", _calls_table(td)
    assert "NameError" not in td.reason


@sandboxed
def test_an_index_error_past_the_list_is_named_with_what_the_references_give(tutorial):
    """relevance[i] for i up to k − 1 indexes past a list shorter than k: IndexError, where DCG@k of a shorter list
    is its whole DCG. Right on every input it answers; qualified, never 'wrong on ordinary input'."""
    td = tutorial["TD"]
    assert td.verdict == "qualified", td.reason
    assert "IndexError" in td.reason and "Wrong on ordinary input" not in td.reason
    assert "with k past the end of the ranking" in td.reason
    assert "cut at min(k, len(ranking))" in td.response


@sandboxed
def test_the_tutorials_ndcg_calls_agree_at_their_printed_precision(tutorial):
    """nDCG@3 of 3, 2, 3, 0, 1, 2 = 5.761860 / (3 + 3 / log2 3 + 2 / 2) = 0.977781 (by hand), printed with every
    digit; nDCG@6 printed to four decimals, 0.9608. Both agree with the chapter and the references."""
    rows = {r[0]: r for r in _calls_table(tutorial["TN"])}
    assert round((3 + 2 / LOG2_3 + 3 / 2) / (3 + 3 / LOG2_3 + 1), 6) == 0.977781
    assert rows["ndcg_at_k(relevance, 3)"][-1] == "agrees"
    assert rows["ndcg_at_k(relevance, 6)"][-1] == "agrees"


@sandboxed
def test_a_wrong_digit_at_the_printed_precision_is_contradicted(tmp_path):
    """The same tutorial printing 0.9609 for nDCG@6 = 0.960808…: wrong at the fourth decimal, contradicted, with the
    value Python prints as the correction."""
    text = TUTORIAL.replace("0.9608\n", "0.9609\n")
    claims = TUTORIAL_CLAIMS.replace('returns: "0.9608"', 'returns: "0.9609"').split("  - id: TN")[1]
    result = _audit(_write(tmp_path / "ndcg-numpy", "snapshot.md", text, TUTORIAL_CHAPTER,
                           "claims:\n  - id: TN" + claims))["TN"]
    assert result.verdict == "contradicted", result.reason
    assert "`ndcg_at_k(relevance, 6)`, as the text shows, it returns 0.9608, not the printed 0.9609" in result.reason
    assert "Change “0.9609” to “0.9608081943360617” after the call" in result.response


# --- init drafts doctests runnable -----------------------------------------------------------------------------------

def test_init_drafts_each_doctest_with_its_output_exception_and_names(tmp_path):
    """init reads the doctests with doctest's parser: each call with its printed output or expected exception, and
    the literal each name it passes was assigned; the register it writes loads."""
    from audit.draft.init import create_chapter

    source = tmp_path / "scores.txt"
    source.write_text(MODULE, encoding="utf-8")
    folder, _ = create_chapter(source, "scores", tmp_path / "claims")
    chapter = load_chapter(folder)
    code = {c.function: c for c in chapter.register.claims if c.kind == "code"}
    assert code["r_precision"].measure == "Rprec"
    assert [c.model_dump(exclude_defaults=True) for c in code["precision_at_k"].calls] == [
        {"call": "precision_at_k([0, 0, 1], 3)", "returns": "0.33333333333333331"},
        {"call": "precision_at_k([0, 0, 1], 4)", "raises": "ValueError: fewer than k grades"}]
    assert code["dcg_at_k"].calls[2].model_dump(exclude_defaults=True) == {
        "call": "dcg_at_k(g, 4)", "returns": "6.8927892607143724", "given": {"g": "[3, 2, 3, 0, 0, 1, 2, 2, 3, 0]"}}
    source = tmp_path / "tutorial.md"
    source.write_text(TUTORIAL, encoding="utf-8")
    folder, _ = create_chapter(source, "ndcg-numpy", tmp_path / "claims")
    drafted = {c.function: c for c in load_chapter(folder).register.claims if c.kind == "code"}
    assert [c.call for c in drafted["ndcg_at_k"].calls] == ["ndcg_at_k(relevance, 3)", "ndcg_at_k(relevance, 6)"]
    assert drafted["ndcg_at_k"].calls[1].returns == "0.9608"


def test_init_reads_a_numpy_2_scalar_output_as_the_number_inside(tmp_path):
    """NumPy 2 prints a float64 result as np.float64(4.261859507142915): the drafted output is the number, the value
    3 + 2 / log2(3) of DCG@2 over grades 3, 2 (by hand)."""
    from audit.draft.init import create_chapter

    assert repr(3 + 2 / LOG2_3).startswith("4.26185950714291")
    source = tmp_path / "dcg.md"
    source.write_text("# DCG\n\nThe gain is the grade.\n\n```python\nimport numpy as np\n\n\n"
                      "def dcg_at_k(relevance, k):\n    return sum(relevance[i] / np.log2(i + 2) for i in range(k))\n"
                      "```\n\n```pycon\n>>> dcg_at_k([3, 2, 3], 2)\nnp.float64(4.261859507142915)\n```\n",
                      encoding="utf-8")
    folder, _ = create_chapter(source, "dcg", tmp_path / "claims")
    code = next(c for c in load_chapter(folder).register.claims if c.kind == "code")
    assert [c.model_dump(exclude_defaults=True) for c in code.calls] == [
        {"call": "dcg_at_k([3, 2, 3], 2)", "returns": "4.261859507142915"}]
