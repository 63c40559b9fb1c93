"""Listings run with the packages texts use, read whole in every format, and load whatever their text holds.

The listing sandbox offers the audit's own environment read-only (NumPy, SciPy, pandas, the references); a listing
whose import it cannot satisfy is an error naming the module and how to provide it, never a finding about the
listing. A listing's imports, constants and helpers are part of it in plain text as in Markdown; blank lines in a
docstring, tabs and non-ASCII names do not stop a register from loading.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from audit.errors import RegisterError
from audit.evaluation.references import all_references
from audit.evaluation.sandbox import run_listing, unavailable_reason
from audit.evaluation.sandbox.environment import imported_modules, importable, missing_module, preload
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect
from audit.text.listings import find_listings, function_source
from corpus_measures import auditable

ROOT = Path(__file__).resolve().parent
sandboxed = pytest.mark.skipif(bool(unavailable_reason()), reason=f"isolation unavailable: {unavailable_reason()}")

# --- a Markdown chapter computing its measures with NumPy ----------------------------------------------------------

NUMPY_TEXT = """\
# Scoring a ranking with NumPy

A document of grade g adds a gain of g, discounted by log2(rank + 1): the discounted cumulative gain at k sums
those terms over the first k documents.

```python
import numpy as np


def dcg_at_k(grades, k):
    \"\"\"DCG of the first k grades in rank order (linear gain).\"\"\"
    top = np.asarray(grades, dtype=float)[:k]
    if top.size == 0:
        return 0.0
    discounts = np.log2(np.arange(2, top.size + 2))
    return float(np.sum(top / discounts))
```

Precision at k counts the relevant documents among the first k and divides by k.

```python
import numpy as np


def precision_at_k(ranking, relevant, k):
    hits = np.isin(np.asarray(ranking[:k]), list(relevant))
    return float(hits.sum() / len(ranking[:k]))
```

A third helper needs a package of its own:

```python
import notapackage


def recall_at_k(ranking, relevant, k):
    return notapackage.recall(ranking, relevant, k)
```
"""
NUMPY_CHAPTER = """\
id: numpy-listings
title: Scoring a ranking with NumPy
snapshot: {file: snapshot.md}
environment: [numpy]
conventions:
  gain: {value: linear, quote: "A document of grade g adds a gain of g"}
  precision_denominator: {value: k, quote: "counts the relevant documents among the first k and divides by k"}
"""
NUMPY_CLAIMS = """\
claims:
  - {id: D1, title: dcg_at_k, kind: code, quote: "def dcg_at_k(grades, k):", claim: DCG@k, function: dcg_at_k,
     measure: DCG@k, arguments: {grades: ranked grades, k: cutoff}}
  - {id: P1, title: precision_at_k, kind: code, quote: "def precision_at_k(ranking, relevant, k):", claim: P@k,
     function: precision_at_k, measure: P@k, arguments: {ranking: ranking, relevant: relevant set, k: cutoff}}
  - {id: R1, title: recall_at_k, kind: code, quote: "def recall_at_k(ranking, relevant, k):", claim: R@k,
     function: recall_at_k, measure: R@k, arguments: {ranking: ranking, relevant: relevant set, k: cutoff}}
"""


def _write(folder: Path, snapshot_name: str, snapshot: str, chapter: str, claims: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / snapshot_name).write_text(snapshot, encoding="utf-8")
    (folder / "chapter.yaml").write_text(chapter, encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def numpy_listings(tmp_path_factory):
    folder = _write(tmp_path_factory.mktemp("numpy") / "numpy-listings", "snapshot.md", NUMPY_TEXT, NUMPY_CHAPTER,
                    NUMPY_CLAIMS)
    report = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"]))
    return {c.id: c for c in report.claims}


@sandboxed
def test_a_correct_numpy_dcg_listing_is_supported(numpy_listings):
    """dcg_at_k sums grade / log2(rank + 1), the chapter's linear-gain DCG@k. By hand on grades 3, 2, 3, 0, 1, 2 at
    k = 6: 3 + 2/log2 3 + 3/2 + 0 + 1/log2 6 + 2/log2 7 = 6.861127 (the value the listing must agree with)."""
    by_hand = 3 + 2 / math.log2(3) + 3 / 2 + 0 + 1 / math.log2(6) + 2 / math.log2(7)
    assert round(by_hand, 6) == 6.861127
    d1 = numpy_listings["D1"]
    assert d1.verdict == "supported", d1.reason
    assert "numpy" not in d1.reason.lower() and "does not load" not in d1.reason
    generated = next(c for c in d1.checks if "generated" in c.label)
    assert {v.implementation: v.detail for v in generated.values}["chapter"] == "300 of 300 inputs"


@sandboxed
def test_a_numpy_precision_dividing_by_a_short_list_is_contradicted_for_its_denominator(numpy_listings):
    """precision_at_k divides by len(ranking[:k]), the number returned, where the chapter divides by k: on the
    ranking a, n with relevant {a} at k = 10 it gives 1/2, the chapter 1/10. On an empty ranking it divides 0 by 0
    (NumPy's nan). The reason names the denominator, not an import."""
    p1 = numpy_listings["P1"]
    assert p1.verdict == "contradicted", p1.reason
    assert "P@k denominator “number returned”, where the chapter's is P@k denominator “k”" in p1.reason
    assert "ModuleNotFoundError" not in p1.reason and "does not load" not in p1.reason
    assert "P@k divides by k" in p1.response


@sandboxed
def test_a_listing_importing_a_package_that_is_not_installed_is_an_error_naming_it(numpy_listings):
    r1 = numpy_listings["R1"]
    assert r1.verdict == "error", r1.reason
    assert "imports notapackage and uses it, and the listing sandbox cannot provide it" in r1.reason
    assert "did not load and nothing it computes was run or checked" in r1.reason
    assert "pip install notapackage" in r1.response and "environment:" in r1.response
    assert "Fix the listing" not in r1.response and not r1.holds_only
    assert "follows" not in r1.reason and "where it returns a number" not in r1.reason  # no cause attributed


def test_a_missing_module_is_told_apart_from_the_listings_own_import_fault():
    assert missing_module("ModuleNotFoundError: No module named 'notapackage'") == "notapackage"
    assert missing_module("ModuleNotFoundError: No module named 'notapackage.sub'") == "notapackage"
    # numpy is offered: a submodule it does not ship, or a name it removed, is the listing's own fault
    assert missing_module("ModuleNotFoundError: No module named 'numpy.distutils'") is None
    assert missing_module("ImportError: cannot import name 'asfarray' from 'numpy'") is None
    assert missing_module("NameError: name 'np' is not defined") is None


def test_the_sandbox_finds_packages_in_its_own_view_not_the_audits_path():
    """The audit itself is importable here (PYTHONPATH, the working directory) but not installed as a package of
    the environment the sandbox shows; the standard library and the scientific packages are."""
    assert importable("numpy") and importable("scipy") and importable("pandas") and importable("math")
    assert importable("pytrec_eval") and importable("ranx") and importable("ir_measures")
    assert not importable("notapackage")


def test_the_packages_imported_ahead_are_the_listings_own_among_a_fixed_list():
    code = "import numpy as np\nfrom scipy import stats\nimport scipy.optimize\nimport os\n\ndef f():\n    import pandas\n"
    assert imported_modules(code)[:3] == ["numpy", "scipy", "scipy.stats"]
    assert preload(code) == ["numpy", "scipy", "scipy.stats", "pandas"]
    assert preload("import os\nimport antigravity\n") == []


@sandboxed
@pytest.mark.parametrize("code, expected", [
    ("import numpy as np\n\ndef f(x):\n    return float(np.log2(x + 1))\n", 3.0),
    ("from scipy import stats\n\ndef f(x):\n    return float(stats.norm.cdf(x - 7))\n", 0.5),
    ("import pandas as pd\n\ndef f(x):\n    return float(pd.Series([x, 1.0]).mean())\n", 4.0),
])
def test_numpy_scipy_and_pandas_import_and_run_within_the_listing_limits(code, expected):
    """log2(8) = 3; the standard normal's cdf at 0 is 1/2; the mean of 7 and 1 is 4: each under the sandbox's
    per-call time and memory limits, the network and processes still forbidden."""
    report = run_listing(code, "f", [[7], [7]], time_limit=30)
    assert not report.load_error and not report.violations, (report.load_error, report.violations)
    assert [(r.status, r.value) for r in report.results] == [("ok", expected)] * 2


@sandboxed
def test_a_listing_with_numpy_still_cannot_start_a_process_or_reach_the_network():
    code = ("import numpy as np\nimport os, socket\n\ndef f(x):\n    if x:\n        os.system('true')\n"
            "    socket.create_connection(('127.0.0.1', 9), timeout=1)\n    return float(np.sum([x]))\n")
    report = run_listing(code, "f", [[1], [0]], time_limit=10)
    assert [r.status for r in report.results] == ["violation", "violation"]


# --- a plain-text module read whole ----------------------------------------------------------------------------------

MODULE_TEXT = """\
Rank metrics as a module

Each function takes the grades of a ranking in rank order, 0 for a document that is not relevant.

import numpy as np


CUTOFF = 3


def precision_at_k(r, k):
    \"\"\"Precision at cutoff k of binary grades.


    A grade above 0 counts as relevant; documents past the end of the list count as not relevant.
    \"\"\"
    r = np.asarray(r, dtype=float)[:k] != 0
\t# the ranking may be shorter than k: the missing ranks are not relevant
    return float(np.sum(r) / k)


def précision_moyenne(r):
    return precision_at_k(r, CUTOFF)

That is the whole module.
"""
MODULE_CHAPTER = "id: rank-module\ntitle: Rank metrics as a module\nsnapshot: {file: snapshot.txt}\n"
MODULE_CLAIMS = """\
claims:
  - {id: M1, title: precision_at_k, kind: code, quote: "def precision_at_k(r, k):", claim: P@k of binary grades,
     function: precision_at_k, measure: P@k, arguments: {r: ranked grades, k: cutoff}}
"""


def test_a_plain_text_listing_is_read_with_its_imports_constants_and_docstring_blank_lines():
    """Two blank lines after the import (PEP 8), a docstring holding two blank lines, a tab-indented comment, a
    module constant and a non-ASCII name: one listing, from the import to the last function, the prose after it
    left out."""
    listings = find_listings(MODULE_TEXT)
    assert [(l.start, l.end, l.style) for l in listings] == [(5, 23, "unfenced")]
    _, source = function_source(MODULE_TEXT, "def précision_moyenne(r):", "précision_moyenne")
    assert source.startswith("import numpy as np\n") and "CUTOFF = 3" in source and "def precision_at_k" in source
    assert "whole module" not in source


def test_prose_that_looks_like_a_statement_ends_unfenced_code():
    text = "def f(x):\n    return x\nfor each query the values are summed.\n\ndef g(x):\n    return 2 * x\n"
    assert [(l.start, l.end) for l in find_listings(text)] == [(1, 2), (5, 6)]


@sandboxed
def test_a_plain_text_listing_importing_numpy_at_the_top_of_its_block_runs(tmp_path):
    """precision_at_k divides the relevant among the first k by k, the chapter's P@k (trec_eval's P_k): it runs
    with the module's import of NumPy and agrees on every generated input."""
    folder = _write(tmp_path / "rank-module", "snapshot.txt", MODULE_TEXT, MODULE_CHAPTER, MODULE_CLAIMS)
    m1 = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]
    assert "NameError" not in m1.reason and "does not load" not in m1.reason
    assert m1.verdict in ("supported", "qualified"), m1.reason
    assert "Wrong on ordinary input" not in m1.reason
    generated = next(c for c in m1.checks if "generated" in c.label)
    assert {v.implementation: v.detail for v in generated.values}["chapter"] == "300 of 300 inputs"


# --- loading never fails on a listing's text ---------------------------------------------------------------------------

def test_a_register_over_a_docstring_with_two_blank_lines_tabs_and_long_lines_loads(tmp_path):
    """The claim's quote is the def line; a docstring with two blank lines, a tab-indented line, a non-ASCII name
    and a line of 300 characters load, and the function is the one the load reads."""
    long_line = "    weights = [" + ", ".join(["1.0"] * 70) + "]\n"
    assert len(long_line) > 300
    text = MODULE_TEXT.replace("    r = np.asarray", long_line + "    r = np.asarray")
    claims = MODULE_CLAIMS + ("  - {id: M2, title: précision_moyenne, kind: code, quote: \"def précision_moyenne(r):\",\n"
                              "     claim: P@3, function: précision_moyenne, measure: P@3, arguments: "
                              "{r: ranked grades}}\n")
    folder = _write(tmp_path / "rank-module", "snapshot.txt", text, MODULE_CHAPTER, claims)
    chapter = load_chapter(folder)
    assert [c.id for c in chapter.register.claims] == ["M1", "M2"]


def test_init_drafts_of_a_module_with_such_listings_load(tmp_path):
    """init writes the def lines of the module as quotes (YAML); the register it writes loads, its quotes found in
    the listing by their lines."""
    from audit.draft.init import create_chapter
    snapshot = tmp_path / "module.txt"
    snapshot.write_text(MODULE_TEXT, encoding="utf-8")
    folder, _ = create_chapter(snapshot, "rank-module", tmp_path / "claims")
    chapter = load_chapter(folder)
    quotes = [c.quote for c in chapter.register.claims]
    assert "def precision_at_k(r, k):" in quotes


@pytest.mark.parametrize("environment, loads", [("[numpy, scipy]", True), ("[notapackage]", False)])
def test_the_chapters_environment_is_checked_at_load(tmp_path, environment, loads):
    chapter = MODULE_CHAPTER + f"environment: {environment}\n"
    folder = _write(tmp_path / "rank-module", "snapshot.txt", MODULE_TEXT, chapter, MODULE_CLAIMS)
    if loads:
        assert load_chapter(folder).identity.environment == yaml.safe_load(f"e: {environment}")["e"]
        return
    with pytest.raises(RegisterError) as caught:
        load_chapter(folder)
    error = caught.value
    assert error.field == "environment[0]" and "'notapackage'" in error.message, (error.field, error.message)
    assert "pip install notapackage" in error.message
    assert str(folder / "chapter.yaml") in str(error.file)


# --- the labelled corpus: every listing loads with what it imports ------------------------------------------------

def _corpus_listings() -> list[tuple[str, str, str]]:
    out = []
    for folder in sorted((ROOT / "corpus" / "measures").iterdir()):
        if not (folder / "claims.yaml").is_file() or not auditable(folder):
            continue
        chapter = load_chapter(folder)
        for claim in chapter.register.claims:
            if claim.kind == "code":
                _, source = function_source(chapter.snapshot.text, claim.quote, claim.function, claim.builds_on)
                out.append((f"{folder.name} {claim.id}", source, claim.function))
    return out


@sandboxed
def test_no_corpus_listing_meets_an_import_the_sandbox_cannot_satisfy():
    """Every code claim of the labelled corpus rests on the listing's own behaviour: each listing's imports are in
    the sandbox's view, and loading it there (one call each, distinct sources once) raises no missing module."""
    listings = _corpus_listings()
    assert len(listings) >= 20
    unknown = [(name, m) for name, source, _ in listings for m in imported_modules(source) if not importable(m)]
    assert not unknown
    seen: dict[str, str] = {}
    for name, source, function in listings:
        if source in seen:
            continue
        report = run_listing(source, function, [[]], time_limit=20)
        said = [report.load_error] + [r.text for r in report.results if r.status == "raises"]
        seen[source] = name
        assert not any(missing_module(s) for s in said), (name, said)
        assert not report.load_error, (name, report.load_error)


def test_a_listing_is_matched_to_its_quote_by_its_lines_whitespace_folded():
    """A def line printed with a tab and two spaces, quoted in the register with single spaces (as YAML folds or
    an author retypes it): the same listing, not 'no code listing contains'."""
    text = "Listing:\n\n```python\ndef precision_at_k(ranking,\trelevant,  k):\n    return 0.0\n```\n"
    listing, source = function_source(text, "def precision_at_k(ranking, relevant, k):", "precision_at_k")
    assert (listing.start, listing.end) == (4, 5) and source.startswith("def precision_at_k(ranking,\trelevant")
    with pytest.raises(Exception, match="no code listing"):
        function_source(text, "def recall_at_k(ranking, relevant, k):", "recall_at_k")


# --- a NumPy name the installed NumPy removed ----------------------------------------------------------------------

ASFARRAY_TEXT = """\
# Precision with NumPy

Precision at k counts the relevant documents among the first k and divides by k.

```python
import numpy as np


def precision_at_k(r, k):
    r = np.asfarray(r)[:k] != 0
    if k < 1:
        raise ValueError("k must be at least 1")
    return float(np.sum(r) / k)
```
"""


def test_removed_numpy_names_are_found_with_the_release_that_removed_them():
    from audit.evaluation.sandbox.environment import REMOVED_NUMPY, numpy_version, removed_numpy
    import numpy
    code = ("import numpy as xp\nfrom numpy import NaN\n\ndef f(r):\n    return xp.asfarray(r).sum() + xp.float_(0)"
            " + xp.asarray(r).sum()\n")
    assert numpy_version() == numpy.__version__
    assert removed_numpy(code) == ["NaN", "asfarray", "float_"]  # asarray is not one; in reading order
    for name in ("asfarray", "float_", "NaN"):
        assert not hasattr(numpy, name) and REMOVED_NUMPY[name][0] == "2.0"  # NumPy's own expired list
    assert removed_numpy("import math\n\ndef f(r):\n    return math.inf\n") == []


@sandboxed
def test_a_listing_using_np_asfarray_is_named_and_its_logic_checked_with_asarray(tmp_path):
    """np.asfarray was removed in NumPy 2.0 (the installed NumPy raises AttributeError on it). With
    np.asarray(r, dtype=float) in its place the listing is P@k over binary grades, which agrees with the chapter's
    definition on every generated input: qualified for the removed name only, never 'does not load'."""
    folder = _write(tmp_path / "asf", "snapshot.md", ASFARRAY_TEXT,
                    "id: asf\ntitle: Precision with NumPy\nsnapshot: {file: snapshot.md}\n",
                    "claims:\n  - {id: A1, title: precision_at_k, kind: code, quote: \"def precision_at_k(r, k):\",\n"
                    "     claim: P@k, function: precision_at_k, measure: P@k, arguments: {r: ranked grades, k: cutoff}}\n")
    a1 = audit_chapter(load_chapter(folder), all_references(), collect(["audit", "run"])).claims[0]
    import numpy
    assert a1.verdict == "qualified", a1.reason
    assert (f"as printed it does not run with the installed NumPy {numpy.__version__}: it uses np.asfarray, which "
            "NumPy 2.0 removed (use np.asarray(x, dtype=float))") in a1.reason
    assert "AttributeError" not in a1.reason and "Wrong on ordinary input" not in a1.reason
    assert "Replace np.asfarray by np.asarray(x, dtype=float)" in a1.response
    generated = next(c for c in a1.checks if "generated" in c.label)
    assert {v.implementation: v.detail for v in generated.values}["chapter"] == "300 of 300 inputs"
