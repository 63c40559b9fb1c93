"""Doctests in the shapes real docstrings have: a value rounded for printing (``round(f(r, 3), 4)`` → ``0.6667``),
checked as the bare call at the printed precision; drafted by init as printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.draft.init import create_chapter
from audit.evaluation.references import all_references
from audit.evaluation.sandbox import unavailable_reason
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect
from audit.text.doctests import passed_names, unwrapped

sandboxed = pytest.mark.skipif(bool(unavailable_reason()), reason=f"isolation unavailable: {unavailable_reason()}")

ROUNDED = """\
# Precision over graded lists

Precision at k is the share of relevant items among the first k, dividing by k.

```python
def precision_at_k(r, k):
    \"\"\"Share of nonzero grades among the first k.

    >>> r = [1, 0, 1, 2]
    >>> round(precision_at_k(r, 3), 4)
    {printed}
    \"\"\"
    if k < 1:
        raise ValueError("k must be at least 1")
    return sum(1 for g in r[:k] if g > 0) / k
```
"""
CHAPTER = """\
id: {id}
title: Precision over graded lists
snapshot: {{file: snapshot.md}}
conventions:
  precision_denominator: {{value: k, quote: "dividing by k"}}
"""
CLAIMS = """\
claims:
  - {{id: P1, title: precision_at_k, kind: code, quote: "def precision_at_k(r, k):", claim: P@k,
     function: precision_at_k, measure: P@k, arguments: {{r: ranked grades, k: cutoff}},
     calls: [{{call: "round(precision_at_k(r, 3), 4)", returns: "{printed}", given: {{r: "[1, 0, 1, 2]"}}}}]}}
"""


def _chapter(root: Path, name: str, printed: str) -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "snapshot.md").write_text(ROUNDED.format(printed=printed), encoding="utf-8")
    (folder / "chapter.yaml").write_text(CHAPTER.format(id=name), encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS.format(printed=printed), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def rounded(tmp_path_factory):
    root = tmp_path_factory.mktemp("rounded")
    out = {}
    for name, printed in (("rounded-right", "0.6667"), ("rounded-wrong", "0.6668")):
        report = audit_chapter(load_chapter(_chapter(root, name, printed)), all_references(),
                               collect(["audit", "run"]))
        out[name] = report.claims[0]
    return out


def _p_at_3() -> float:
    """trec_eval's P_3 of grades 1, 0, 1 (two relevant of three): 2/3 = 0.66666…, 0.6667 at four decimals."""
    import pytrec_eval

    qrels = {"q": {"d1": 1, "d2": 0, "d3": 1, "d4": 2}}
    run = {"q": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}}
    return pytrec_eval.RelevanceEvaluator(qrels, {"P_3"}).evaluate(run)["q"]["P_3"]


def test_a_rounding_wrapper_is_unwrapped_to_the_call_it_prints():
    assert unwrapped("round(precision_at_k(r, 3), 4)") == "precision_at_k(r, 3)"
    assert unwrapped("print(ndcg(g, 5))") == "ndcg(g, 5)"
    assert unwrapped("round(x, 4)") == "round(x, 4)"  # not a call inside: left as it is
    assert unwrapped("round(f(r), n)") == "round(f(r), n)"  # digits must be a literal
    assert passed_names("round(precision_at_k(r, 3), 4)") == ["r"]


@sandboxed
def test_a_rounded_doctest_is_checked_as_the_bare_call_at_its_printed_precision(rounded):
    """Refused at load before ('is not a call of precision_at_k()'); 2/3 rounds to the printed 0.6667."""
    assert round(_p_at_3(), 4) == 0.6667
    right = rounded["rounded-right"]
    assert right.verdict == "supported", right.reason
    assert "`round(precision_at_k(r, 3), 4)`) returns what the text prints" in right.reason


@sandboxed
def test_a_wrong_digit_at_the_printed_precision_is_contradicted_and_corrected_at_that_precision(rounded):
    """0.6668 is not 2/3 at four decimals: contradicted; the correction is what the doctest prints, 0.6667 (not the
    seventeen-digit float, nor '≈ 0.6667', which doctest would fail)."""
    wrong = rounded["rounded-wrong"]
    assert wrong.verdict == "contradicted", wrong.reason
    assert "returns 0.6667, not the printed 0.6668" in wrong.reason
    assert "“0.6667” for “0.6668”" in wrong.response


def test_init_drafts_a_rounded_doctest_as_printed(tmp_path):
    source = tmp_path / "precision.md"
    source.write_text(ROUNDED.format(printed="0.6667"), encoding="utf-8")
    folder, _ = create_chapter(source, "rounded", tmp_path / "claims")
    text = (folder / "claims.yaml").read_text(encoding="utf-8")
    assert "call: round(precision_at_k(r, 3), 4)" in text and "returns: '0.6667'" in text
    load_chapter(folder)  # and it loads


# --- a corrected listing is re-checked on the text's own doctests ----------------------------------------------------

SHORT_LIST = """\
# Precision with a short list

Precision at k counts the relevant documents among the first k and divides by k, even when fewer than k came back.

```python
def precision_at_k(ranking, relevant, k):
    \"\"\"Precision of the first k documents.

    >>> precision_at_k(["d3", "d1"], {"d1", "d2"}, 4)
    0.5
    \"\"\"
    top = ranking[:k]
    if not top:
        return 0.0
    return sum(1 for d in top if d in relevant) / len(top)
```
"""
SHORT_CHAPTER = """\
id: short-list
title: Precision with a short list
snapshot: {file: snapshot.md}
conventions:
  precision_denominator: {value: k, quote: "divides by k, even when fewer than k came back"}
"""
# the doctest is not in the register: the listing alone is claimed
SHORT_CLAIMS = """\
claims:
  - {id: P1, title: precision_at_k, kind: code, quote: "def precision_at_k(ranking, relevant, k):", claim: P@k,
     function: precision_at_k, measure: P@k, arguments: {ranking: ranking, relevant: relevant set, k: cutoff}}
"""


@sandboxed
def test_a_corrected_listing_is_rechecked_on_the_texts_own_doctest(tmp_path):
    """The listing divides by the number returned; the chapter by k. The corrected listing divides by k, so on the
    docstring's own example it returns 1/4 (trec_eval's P_4: one relevant in the two returned, k = 4), while the
    docstring still printed 0.5: the patched text's doctest failed, yet the fix was "re-checked … supported". The
    re-check now runs the text's doctests of the function, and the corrected listing prints 0.25 after it; Python's
    own doctest passes on the patched function."""
    import doctest
    import pytrec_eval

    p4 = pytrec_eval.RelevanceEvaluator({"q": {"d1": 1, "d2": 1}}, {"P_4"}).evaluate(
        {"q": {"d3": 2.0, "d1": 1.0}})["q"]["P_4"]
    assert p4 == 0.25
    folder = tmp_path / "short-list"
    folder.mkdir()
    (folder / "snapshot.md").write_text(SHORT_LIST, encoding="utf-8")
    (folder / "chapter.yaml").write_text(SHORT_CHAPTER, encoding="utf-8")
    (folder / "claims.yaml").write_text(SHORT_CLAIMS, encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    assert report.claims[0].verdict == "contradicted", report.claims[0].reason
    hunk = next(h for h in report.research.proposal.hunks if h.claim == "P1")
    assert ">>> precision_at_k([\"d3\", \"d1\"], {\"d1\", \"d2\"}, 4)\n    0.25\n" in hunk.text
    assert "print “0.25” for “0.5” after the call" in report.claims[0].response
    namespace: dict = {}
    exec(compile(hunk.text, "corrected", "exec"), namespace)  # the corrected listing, as the patch prints it
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(namespace["precision_at_k"], "precision_at_k", globs=namespace):
        runner.run(test)
    assert runner.summarize(verbose=False) == doctest.TestResults(failed=0, attempted=1)


def test_a_literal_assigned_over_several_lines_binds_the_name_a_shown_call_passes():
    """Notebooks print long inputs over several lines; the call that passes the name is placed with that binding,
    and a different binding is not taken for it."""
    from audit.text.doctests import assignments, place
    text = ("Our grades for the query, in rank order:\n\nrelevance = [3, 2, 3,\n             0, 1, 2]\n\n"
            ">>> ndcg_at_k(relevance, 3)\n0.9\n")
    assert [(name, " ".join(lit.split())) for _, name, lit in assignments(text)] == [("relevance", "[3, 2, 3, 0, 1, 2]")]
    assert place(text, "ndcg_at_k(relevance, 3)", {"relevance": "[3, 2, 3, 0, 1, 2]"}) == text.index("ndcg_at_k(")
    assert place(text, "ndcg_at_k(relevance, 3)", {"relevance": "[3, 2, 3]"}) is None
    # an unclosed bracket never reads past the lines a literal may take
    assert assignments("x = [1,\n" + "2,\n" * 60 + "3]\n") == []


def test_a_float_a_doctest_prints_in_full_is_the_double_returned():
    """doctest compares text: a listing computing 1/log(3, 2) as math.log(3, 2) returns 0.6309297535714574, one with
    math.log2(3) returns 0.6309297535714575 (both by Python here); the second fails a doctest printing the first,
    though both round alike. 0.33333333333333331 (Python 2's repr of 1/3) names the double 1/3 itself."""
    import math

    from audit.evaluation.checks.code import _doctest_prints
    by_log, by_log2 = 1 / math.log(3, 2), 1 / math.log2(3)
    assert repr(by_log) == "0.6309297535714574" and repr(by_log2) == "0.6309297535714575"
    assert _doctest_prints("0.6309297535714574", [(None, by_log)])
    assert not _doctest_prints("0.6309297535714574", [(None, by_log2)])
    assert _doctest_prints("0.33333333333333331", [(None, 1 / 3)])
    assert _doctest_prints("0.6309", [(None, by_log2)])   # a rounded output is held at its precision elsewhere


NUMPY_SESSION = '''# Precision with NumPy

With binary relevance held in a NumPy array, precision at k is the share of ones in the first k entries:

```python
import numpy as np

def precision_at_k(rels, k):
    """Precision at cutoff k of a binary relevance array."""
    return float((rels[:k] > 0).sum() / k)
```

For the ranking below, two of the top three are relevant:

```python
>>> r = np.array([1, 0, 1, 1, 0])
>>> precision_at_k(r, 3)
0.6666666666666666
```
'''


def test_a_name_the_text_binds_to_a_numpy_array_is_passed_as_one():
    from audit.text.doctests import bindings_before, given_problem
    from audit.text.literals import ArrayLiteral, literal
    assert literal("np.array([1, 0, 1])") == [1, 0, 1] and isinstance(literal("np.array([1, 0, 1])"), ArrayLiteral)
    assert literal("numpy.asarray([3, 2], dtype=float)") == [3, 2]
    with pytest.raises(ValueError):
        literal("np.zeros(3)")
    at = NUMPY_SESSION.index("precision_at_k(r, 3)")
    assert bindings_before(NUMPY_SESSION, at, ["r"]) == {"r": "np.array([1, 0, 1, 1, 0])"}
    assert given_problem(NUMPY_SESSION, "precision_at_k(r, 3)", {"r": "np.array([1, 0, 1, 1, 0])"}) == ""


@sandboxed
def test_a_numpy_listing_called_with_an_array_is_checked_with_arrays(tmp_path):
    """The listing takes an array (``(rels[:k] > 0).sum()`` fails on a list). init binds r from the session and the
    audit calls the listing with arrays, the shown call's too: P@3 of [1, 0, 1, 1, 0] = 2/3 (pytrec_eval P_3
    0.6667), as printed. Its one finding is real: at k = 0 it divides by zero (nan), where the chapter gives 0."""
    source = tmp_path / "np.md"
    source.write_text(NUMPY_SESSION, encoding="utf-8")
    folder, _ = create_chapter(source, "np", tmp_path / "claims")
    chapter = load_chapter(folder)
    (code,) = [c for c in chapter.register.claims if c.kind == "code"]
    assert code.calls[0].given == {"r": "np.array([1, 0, 1, 1, 0])"}
    result = next(r for r in audit_chapter(chapter, all_references(), collect([])).claims if r.id == code.id)
    assert result.verdict == "qualified", result.reason
    assert "k = 0" in result.reason and "nan" in result.reason and "TypeError" not in result.reason


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_a_printed_value_the_corrected_listing_returns_is_not_asked_to_change():
    """tinyrank's `ndcg_at_k_fast` (the labelled corpus) computes linear gain where its docs state exponential; its
    doctest prints 0.5026181950067097, which the corrected listing returns (the double of the exact
    0.502618195006709649…, one unit in the last place from its correctly rounded …096). The finding asks to correct
    the listing and says the call then returns the printed value; it once asked to print “0.5026181950067096”, a
    rendering the corrected listing never prints."""
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect

    folder = Path(__file__).parent / "corpus" / "measures" / "tinyrank-api-docs"
    chapter = load_chapter(folder)
    result = next(c for c in audit_chapter(chapter, all_references(), collect([])).claims if c.id == "LD08")
    assert result.verdict == "contradicted", result.reason
    assert "as the text prints it" in result.response and "0.5026181950067096" not in result.response


NUMPY_REPRS = '''\
# Precision with NumPy

```python
import numpy as np


def precision_at_k(r, k):
    """Share of nonzero grades among the first k (NumPy 2 prints the scalar it returns as np.float64(…)).

    >>> precision_at_k([0, 1], 2)
    np.float64(0.7)
    >>> precision_at_k([1, 1, 0, 0], 2)
    np.float64(1.0)
    >>> precision_at_k([0, 1, 1], 3)
    <0.67>
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    return np.sum(np.asarray(r)[:k] != 0) / k
```
'''

NUMPY_CLAIMS = ('claims:\n  - {id: N1, title: P, kind: code, quote: "def precision_at_k(r, k):", claim: P@k,'
                ' function: precision_at_k, measure: P@k, arguments: {r: ranked grades, k: cutoff}}\n')


@sandboxed
def test_a_numpy_scalar_printed_by_a_doctest_is_its_number_and_is_corrected_in_its_wrapper(tmp_path):
    """P@2 of grades 0, 1 is 1/2 (by hand; trec_eval's P_2): NumPy 2 prints np.float64(0.5), the docstring prints
    np.float64(0.7). The output was passed over as "not one number" and the listing supported; it is read as the
    number inside, contradicted, and corrected as np.float64(0.5); the rerun of the patched text is supported. An
    output that is not one value (``<0.67>``) is named as not checked."""
    from chapters import audit_text

    from audit.research.proposal import patched_text, register_text
    folder = tmp_path / "numpy-reprs"
    folder.mkdir()
    report = audit_text(folder, NUMPY_REPRS, NUMPY_CLAIMS, title="P")
    n1 = report.claims[0]
    assert n1.verdict == "contradicted", n1.reason
    assert "it returns 0.5000, not the printed np.float64(0.7)" in n1.reason
    assert "“np.float64(0.5)” for “np.float64(0.7)”" in n1.response, n1.response
    assert "`precision_at_k([0, 1, 1], 3)` prints the output “<0.67>”, which is not one value the audit reads" \
        in n1.reason, n1.reason
    after = patched_text(NUMPY_REPRS, report.research.proposal)
    assert after == NUMPY_REPRS.replace("np.float64(0.7)", "np.float64(0.5)")
    again = audit_text(folder, after, register_text(NUMPY_CLAIMS, report.research.proposal), title="P").claims[0]
    assert again.verdict == "supported", again.reason


def test_a_numpy_scalar_repr_is_read_as_the_number_it_holds():
    from audit.model.values import parse_claimed
    assert parse_claimed("np.float64(0.7)").nominal == parse_claimed("0.7").nominal
    assert parse_claimed("numpy.int64(3)").nominal == 3
    with pytest.raises(Exception):
        parse_claimed("np.float64(0.7")


CHANGED_BEFORE_THE_CALL = '''\
# Precision over a reversed list

```python
def precision_at_k(r, k):
    """Share of nonzero grades among the first k.

    >>> r = [0, 0, 1]
    >>> r.reverse()
    >>> precision_at_k(r, 1)
    1.0
    """
    return sum(1 for g in r[:k] if g) / k
```
'''


def test_a_name_the_text_changes_after_its_literal_is_not_bound_to_that_literal(tmp_path):
    """``r = [0, 0, 1]`` then ``r.reverse()``: the call passes [1, 0, 0], and P@1 = 1.0 as printed (by hand). Bound
    to the literal, the call was checked on [0, 0, 1] (P@1 = 0): init drafted that binding, the right output was
    contradicted and the patch changed 1.0 to 0.0; and a register giving the literal was believed. The binding is
    not the literal once the text changes the name in place, in any of the ways a reader's session does."""
    from audit.errors import RegisterError
    from audit.text.doctests import bindings_before
    from chapters import init_and_run
    call = CHANGED_BEFORE_THE_CALL.index("precision_at_k(r, 1)")
    assert bindings_before(CHANGED_BEFORE_THE_CALL, call, ["r"]) == {}
    for change in ("r[0] = 1", "r += [1]", "r.sort()", "r = sorted(r)", "del r[0]", "random.shuffle(r)"):
        text = CHANGED_BEFORE_THE_CALL.replace("r.reverse()", change)
        assert bindings_before(text, text.index("precision_at_k(r, 1)"), ["r"]) == {}, change
    text = CHANGED_BEFORE_THE_CALL.replace("    >>> r.reverse()\n", "")
    assert bindings_before(text, text.index("precision_at_k(r, 1)"), ["r"]) == {"r": "[0, 0, 1]"}
    (tmp_path / "book").mkdir()
    code, _, claims = init_and_run(tmp_path / "book", "ch.md", CHANGED_BEFORE_THE_CALL, "reversed")
    listing = next(c for c in claims if c["quote"].startswith("def precision_at_k"))
    assert listing["verdict"] != "contradicted", listing["reason"]
    patch = tmp_path / "book" / "reports" / "reversed.patch"
    assert not patch.exists() or "-    1.0" not in patch.read_text(encoding="utf-8")
    folder = tmp_path / "register"
    folder.mkdir()
    (folder / "snapshot.md").write_text(CHANGED_BEFORE_THE_CALL, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: given\ntitle: G\nsnapshot: {file: snapshot.md}\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(
        'claims:\n  - {id: G1, title: P, kind: code, quote: "def precision_at_k(r, k):", claim: P@k,'
        ' function: precision_at_k, measure: P@k, arguments: {r: ranked grades, k: cutoff},'
        ' calls: [{call: "precision_at_k(r, 1)", given: {r: "[0, 0, 1]"}, returns: "1.0"}]}\n', encoding="utf-8")
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    assert "the text assigns r no literal before it prints" in caught.value.message, caught.value.message


DIFFS_THEN_A_LISTING = '''\
# A bootstrap interval in NumPy

```python
diffs = [0.006, 0.074, 0.03, 0.114, 0.049, -0.012, 0.054, 0.04, -0.026, 0.04]
```

```python
import numpy as np


def bootstrap_mean(diffs, resamples=1000):
    rng = np.random.default_rng(1)
    diffs = np.asarray(diffs)
    diffs.sort()
    return rng.choice(diffs, size=(resamples, len(diffs))).mean(axis=1).mean()


class Tally:
    diffs = []

    def add(self, x):
        self.diffs.append(x)
```

`bootstrap_mean(diffs)` is close to the plain mean, 0.0369.
'''


def test_a_name_a_function_body_rebinds_is_the_functions_own_and_the_texts_literal_holds():
    """``diffs = np.asarray(diffs)`` and ``diffs.sort()`` inside ``def bootstrap_mean(diffs):`` bind and sort the
    function's parameter, not the text's ``diffs`` (Python's scoping: an assignment in a function body makes a local).
    Read as changes of the text's name, the binding was dropped and a register giving the literal the text assigns
    failed to load ("the text assigns diffs no literal before it prints …"). A loop at the margin still changes it."""
    from audit.text.doctests import bindings_before, given_problem
    text = DIFFS_THEN_A_LISTING
    call = text.index("bootstrap_mean(diffs)`")
    literal = "[0.006, 0.074, 0.03, 0.114, 0.049, -0.012, 0.054, 0.04, -0.026, 0.04]"
    assert bindings_before(text, call, ["diffs"]) == {"diffs": literal}
    assert given_problem(text, "bootstrap_mean(diffs)", {"diffs": literal}) == ""
    at_margin = text.replace("class Tally:", "for _ in range(2):\n    diffs = sorted(diffs)\n\n\nclass Tally:")
    assert bindings_before(at_margin, at_margin.index("bootstrap_mean(diffs)`"), ["diffs"]) == {}
    in_a_session = text.replace("```\n\n`bootstrap", "```\n\n>>> for x in range(2):\n...     diffs.append(x)\n\n`bootstrap")
    assert bindings_before(in_a_session, in_a_session.index("bootstrap_mean(diffs)`"), ["diffs"]) == {}


INDIRECTLY_CHANGED = '''\
# Recall, one name

```python
import heapq


def fix(ranking):
    ranking.reverse()


def recall_at_k(ranking, relevant, k):
    return sum(1 for d in ranking[:k] if d in relevant) / len(relevant)
```

>>> r1 = ["a", "x", "b"]
CHANGE
>>> recall_at_k(r1, {"a"}, 1)
1.0
'''


@pytest.mark.parametrize("change", [">>> alias = r1\n>>> alias.reverse()", ">>> fix(r1)", ">>> heapq.heapify(r1)",
                                    '>>> for r1[0] in ["z"]:\n...     pass'])
def test_a_name_changed_through_an_alias_a_helper_or_heapq_is_not_bound_to_its_literal(change):
    """Each leaves r1 holding something else than ["a", "x", "b"] (R@1 of the reversed list is 0.0, by hand), so the
    call is not checked on the literal: before, ``given: {r1: '["a", "x", "b"]'}`` loaded and the printed 1.0, which a
    reader does not get, agreed. Reading r1 (print, len, another measure's call) changes nothing."""
    from audit.text.doctests import bindings_before
    text = INDIRECTLY_CHANGED.replace("CHANGE", change)
    assert bindings_before(text, text.index('recall_at_k(r1, {"a"}, 1)'), ["r1"]) == {}, change
    for read in (">>> print(r1)", ">>> len(r1)", '>>> recall_at_k(r1, {"a"}, 3)'):
        text = INDIRECTLY_CHANGED.replace("CHANGE", read)
        assert bindings_before(text, text.index('recall_at_k(r1, {"a"}, 1)'), ["r1"]) == {"r1": '["a", "x", "b"]'}


def test_a_helper_that_copies_its_argument_first_leaves_the_name_bound():
    """``def tidy(ranking): ranking = list(ranking); ranking.reverse()`` changes its own copy: r1 keeps its literal.
    (A def line naming the parameter is no call of the function either.)"""
    from audit.text.doctests import bindings_before
    text = INDIRECTLY_CHANGED.replace("def fix(ranking):\n    ranking.reverse()",
                                      "def tidy(ranking):\n    ranking = list(ranking)\n    ranking.reverse()")
    text = text.replace("CHANGE", ">>> tidy(r1)")
    assert bindings_before(text, text.index('recall_at_k(r1, {"a"}, 1)'), ["r1"]) == {"r1": '["a", "x", "b"]'}


def test_a_name_the_text_binds_to_an_expression_is_named_with_it():
    """``actuals = list(range(9))`` binds no literal a register can give: the load error names the expression and
    what to do, where it said only "the text assigns actuals no literal", which read as if the text assigned none."""
    from audit.text.doctests import given_problem
    text = ("```python\nactuals = list(range(9))\npreds = [0, 1, 2]\nprint(apk(actuals, preds, 5))\n```\n")
    problem = given_problem(text, "apk(actuals, preds, 5)", {"actuals": "[0, 1, 2, 3, 4, 5, 6, 7, 8]",
                                                             "preds": "[0, 1, 2]"})
    assert "the text assigns actuals = list(range(9)), which is no literal value" in problem, problem
    assert "leave it out of calls" in problem, problem
    unbound = given_problem(text.replace("actuals = list(range(9))\n", ""), "apk(actuals, preds, 5)",
                            {"actuals": "[0]", "preds": "[0, 1, 2]"})
    assert unbound.startswith("the text assigns actuals no literal before it prints"), unbound
