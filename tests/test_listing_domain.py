"""A listing that checks its preconditions and raises on purpose: the inputs it refuses so are outside what it
claims, and it is compared on the others; it cannot dodge certification by refusing what it is checked on."""

from __future__ import annotations

import pytest

from audit.evaluation.checks.refusals import guards
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

TEXT = '''\
# Precision with its preconditions

Grades are listed best rank first; a grade of 1 or more is relevant.

```python
import numpy as np

def precision_at_k(rels, k):
    """P@k of ranked grades.

    >>> precision_at_k([1, 0, 1], 2)
    0.5
    >>> precision_at_k([1], 3)
    Traceback (most recent call last):
    ValueError: k exceeds the ranking
    """
    if k < 1:
        raise ValueError("k must be at least 1")
    if k > len(rels):
        raise ValueError("k exceeds the ranking")
    return float(np.mean(np.asarray(rels)[:k] != 0))
```

The same checks around a body that averages the grades themselves:

```python
def graded_precision_at_k(rels, k):
    if k < 1:
        raise ValueError("k must be at least 1")
    if k > len(rels):
        raise ValueError(f"k={k} exceeds the {len(rels)} grades")
    return float(np.mean(np.asarray(rels)[:k]))
```

A version that only takes a single grade:

```python
def single_precision_at_k(rels, k):
    assert len(rels) == 1, "one grade only"
    return float(rels[0] >= 1) / k if k >= 1 else 0.0
```

A version whose check the text's own example runs into:

```python
def strict_precision_at_k(rels, k):
    if k > len(rels):
        raise ValueError("k exceeds the ranking")
    return sum(1 for g in rels[:k] if g >= 1) / k
```

Called as `strict_precision_at_k([1, 0], 3)` it returns 0.333.

A version with a check that never fires and an index past the end of the list:

```python
def indexed_precision_at_k(rels, k):
    if k > 1000:
        raise ValueError("k is unreasonably large")
    if k < 1:
        return 0.0
    return sum(1 for i in range(k) if rels[i] >= 1) / k
```
'''

CLAIMS = "claims:\n" + "".join(
    f'  - {{id: {cid}, title: t, kind: code, quote: "def {name}(rels, k):", claim: c, function: {name}, measure: P@k,'
    f" arguments: {{rels: ranked grades, k: cutoff}}{extra}}}\n"
    for cid, name, extra in [
        ("D1", "precision_at_k", ", calls: [{call: 'precision_at_k([1, 0, 1], 2)', returns: '0.5'}, "
                                 "{call: 'precision_at_k([1], 3)', raises: 'ValueError: k exceeds the ranking'}]"),
        ("D2", "graded_precision_at_k", ""),
        ("D3", "single_precision_at_k", ""),
        ("D4", "strict_precision_at_k", ", calls: [{call: 'strict_precision_at_k([1, 0], 3)', returns: '0.333'}]"),
        ("D5", "indexed_precision_at_k", "")])


@pytest.fixture(scope="module")
def domain(tmp_path_factory):
    folder = tmp_path_factory.mktemp("domain")
    (folder / "snapshot.md").write_text(TEXT, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: domain\ntitle: Domain\nsnapshot: {file: snapshot.md}\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    chapter = load_chapter(folder)
    report = audit_chapter(chapter, all_references(), collect(["audit", "run"]))
    return {c.id: c for c in report.claims} | {"chapter": chapter}


def test_a_listing_refusing_k_past_the_end_on_purpose_is_supported_with_the_refusal_noted(domain):
    """k past the end of the grades is refused by the listing's own check, with its message: not a defect. Everywhere
    else it is P@k (the doctest's P@2 of grades 1, 0 is 1/2, by hand), and the doctest says it raises for [1], 3."""
    d1 = domain["D1"]
    assert d1.verdict == "supported", d1.reason
    # the generated inputs with k past the end of the grades (the audit's own generator, same seed) are those refused
    from audit.evaluation.checks.code import SAMPLE, SEED, _generated, _past_end
    claim = domain["chapter"].register.claims[0]
    past = sum(1 for item in _generated(claim, SAMPLE, SEED) if _past_end(item))
    assert 0 < past < SAMPLE
    assert ("precision_at_k() checks its arguments and refuses the edge cases empty ranking, k larger than the ranking"
            f" and {past} of {SAMPLE} generated inputs on purpose") in d1.reason
    assert f"matches the chapter's definition of P@k on all {SAMPLE - past} generated well-formed inputs" in d1.reason
    assert "“if k > len(rels): raise ValueError”" in d1.reason
    assert "“ValueError: k exceeds the ranking”" in d1.reason
    edge = next(c for c in d1.checks if "edge cases" in c.label)
    row = next(r for r in edge.table[1:] if r[0] == "k larger than the ranking")
    assert row[-1].startswith("refuses it by its own check")


def test_on_the_inputs_it_accepts_a_wrong_body_is_still_contradicted(domain):
    """The same checks around a mean of the grades: on the inputs it accepts it returns 2.0 on grades [2] at k = 1,
    where P@1 of one relevant document is 1; its refusals are noted, its arithmetic is wrong."""
    d2 = domain["D2"]
    assert d2.verdict == "contradicted", d2.reason
    assert "Wrong on ordinary input" in d2.reason and "it returns 2.0000" in d2.reason


def test_refusing_most_ordinary_inputs_is_never_supported(domain):
    """Taking one grade only, it refuses nearly every generated ranking: it is right where it answers, but it is not
    certified on inputs it was not compared on."""
    d3 = domain["D3"]
    assert d3.verdict == "qualified", d3.reason
    assert "ordinary generated inputs" in d3.reason and "by its own checks" in d3.reason


def test_refusing_the_texts_own_example_is_contradicted(domain):
    """The text prints 0.333 for strict_precision_at_k([1, 0], 3) (P@3 = 1/3, as trec_eval's P_3 counts); the
    listing's check refuses that call."""
    d4 = domain["D4"]
    assert d4.verdict == "contradicted", d4.reason
    assert "strict_precision_at_k([1, 0], 3)" in d4.reason and "k exceeds the ranking" in d4.reason


def test_a_check_elsewhere_does_not_excuse_an_accidental_index_error(domain):
    """rels[i] past the end raises IndexError, which no check of the listing raises: the named defect stays, with
    the value the references give."""
    d5 = domain["D5"]
    assert d5.verdict == "qualified", d5.reason
    assert "IndexError" in d5.reason and "refuses" not in d5.reason.split("IndexError")[0]


def test_what_counts_as_a_check_of_the_listings_own():
    """Only a condition on the function's arguments, raising an exception whose text the check's own literal gives."""
    source = '''
import numpy as np
LIMIT = 10

def f(rels, k, msg="x"):
    if k > len(rels):
        raise ValueError(f"k={k} is past the end")
    if k > LIMIT:
        raise ValueError("too deep")
    if k == 3:
        raise TypeError(f"{msg}")
    assert np.ndim(rels) == 1, "a flat list of grades"
    assert k != 7
    return k
'''
    found = {g.wording(): g for g in guards(source, "f")}
    assert set(found) == {"if k > len(rels): raise ValueError", "assert np.ndim(rels) == 1", "assert k != 7"}
    past = found["if k > len(rels): raise ValueError"]
    assert past.matches("ValueError: k=12 is past the end") and not past.matches("ValueError: too deep")
    assert not past.matches("IndexError: k=12 is past the end")
    assert found["assert k != 7"].matches("AssertionError: ")
    # another raise of the same exception that could give the same text: its refusal cannot be told from it
    assert guards("def f(k):\n    if k < 1:\n        raise ValueError('bad k')\n    raise ValueError('bad k')\n",
                  "f") == []
    assert guards("def f(k, why):\n    if k < 1:\n        raise ValueError('bad k')\n    raise ValueError(why)\n",
                  "f") == []


def test_a_check_of_a_parameter_the_body_has_rebound_is_not_a_check_of_the_argument():
    """``grades = grades[:k]`` then ``assert len(grades) == len(ids)`` checks the body's own cut: it fails for every
    k below the ranking's length, the ordinary case (it was read as the listing refusing those inputs, and the
    listing came out qualified, not contradicted). The same check before the cut is the caller's argument's."""
    after = ("def dcg(grades, ids, k):\n    grades = grades[:k]\n    assert len(grades) == len(ids)\n"
             "    return sum(grades)\n")
    before = ("def dcg(grades, ids, k):\n    assert len(grades) == len(ids)\n    grades = grades[:k]\n"
              "    return sum(grades)\n")
    assert guards(after, "dcg") == []
    assert [g.wording() for g in guards(before, "dcg")] == ["assert len(grades) == len(ids)"]
    for rebinding in ("k += 1", "for k in range(3):\n        pass", "with open(k) as k:\n        pass",
                      "k: int = int(k)", "import k"):
        source = f"def f(r, k):\n    {rebinding}\n    if k < 1:\n        raise ValueError('bad k')\n    return 0\n"
        assert guards(source, "f") == [], rebinding


@pytest.mark.parametrize("kind, message", [("IndexError", "list index out of range"),
                                           ("ZeroDivisionError", "division by zero"),
                                           ("KeyError", "missing document")])
def test_a_check_raising_what_the_interpreter_raises_for_a_defect_is_not_a_refusal(kind, message):
    """``if k < 1: raise IndexError("list index out of range")`` has Python's own text for an index past the end:
    every IndexError of ``ranking[i] for i in range(k)`` past the end matched it, and the listing was supported where
    the same body without the check is qualified. Such an exception is the defect's, whatever a check says."""
    source = (f"def f(ranking, relevant, k):\n    if k < 1:\n        raise {kind}({message!r})\n"
              "    return sum(ranking[i] in relevant for i in range(k)) / k\n")
    assert guards(source, "f") == []
    assert [g.kind for g in guards(source.replace(kind, "ValueError"), "f")] == ["ValueError"]
