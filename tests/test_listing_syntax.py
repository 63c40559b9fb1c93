"""What a listing does beyond computing, read from its syntax tree (``audit.evaluation.listing_syntax``), and how the
sandbox's runner reads a returned value (exact numbers only, NumPy's own types included).

Every listing below is written in the shape book listings have; each refused one names what it does and its line.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from audit.evaluation.listing_syntax import findings, numeric
from audit.evaluation.sandbox.bwrap import RUNNER
from audit.register.claims import load_chapter
from audit.text.listings import function_source
from corpus_measures import auditable

ROOT = Path(__file__).resolve().parents[1]

CERTIFIED = {
    "math and a helper": """
        import math
        def dcg(gains, k):
            return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))
        def ndcg(gains, k):
            ideal = dcg(sorted(gains, reverse=True), k)
            return dcg(gains, k) / ideal if ideal else 0.0
        """,
    "numpy with a parameter called input and one called dir": """
        import numpy as np
        from collections import Counter
        def precision(input, relevant, k, dir=1):
            hits = np.array([d in relevant for d in input[:k]], dtype=float)
            return float(hits.sum() / k) if k > 0 else 0.0
        """,
    "a dataclass and a literal getattr": """
        from __future__ import annotations
        from dataclasses import dataclass
        @dataclass
        class Judged:
            doc: str
            grade: int
        def gain(j: Judged) -> float:
            return float(getattr(j, "grade")) if hasattr(j, "grade") else 0.0
        """,
    "an empty ranking caught by its own exceptions, and a default cutoff of a billion": """
        import numpy as np
        def ap(ranking, relevant, k=10**9):
            try:
                hits = np.cumsum([d in relevant for d in ranking[:k]])
                return float(sum(h / (i + 1) for i, h in enumerate(hits) if ranking[i] in relevant) / len(relevant))
            except (ZeroDivisionError, ValueError):
                return 0.0
            except np.linalg.LinAlgError:
                return 0.0
            finally:
                for d in ranking:
                    break
        """,
    "the main guard": """
        def rr(ranking, relevant):
            for i, d in enumerate(ranking, 1):
                if d in relevant:
                    return 1 / i
            return 0.0
        if __name__ == "__main__":
            print(rr(["a"], {"a"}))
        """,
}

REFUSED = {
    "os": ("import os\ndef f(r):\n    return 1.0 if os.path.exists('/proc') else 0.0\n", [(1, "imports os")]),
    "sys through a from-import": ("from sys import modules\ndef f(r):\n    return 0.0\n",
                                  [(1, "imports sys"), (1, "reads frame or interpreter state (modules)")]),
    "a private module alias of an allowed module": (
        "import random\ndef f(r):\n    random._os.write(5, b'x')\n    return 0.0\n",
        [(3, "reads the private attribute _os")]),
    "a module reached through an attribute": (
        "import numpy as np\ndef f(r):\n    return np.lib.npyio.os.getpid()\n",
        [(3, "reaches the module os through an attribute")]),
    "dunder introspection": ("def f(r):\n    return ().__class__.__base__.__subclasses__()\n",
                             [(2, "reads the dunder attribute __subclasses__"),
                              (2, "reads the dunder attribute __base__"), (2, "reads the dunder attribute __class__")]),
    "a generator's frame": ("def f(r):\n    g = (x for x in r)\n    return g.gi_frame.f_back.f_globals\n",
                            [(3, "reads frame or interpreter state (f_globals)"),
                             (3, "reads frame or interpreter state (f_back)"),
                             (3, "reads frame or interpreter state (gi_frame)")]),
    "open and eval": ("def f(r):\n    open('/proc/self/stat')\n    return eval('1.0')\n",
                      [(2, "opens a file"), (3, "evaluates text as code (eval)")]),
    "getattr by a computed name": ("import math\ndef f(r):\n    return getattr(math, 'o' + 's')\n",
                                   [(3, "reads an attribute by a name chosen at run time (getattr)")]),
    "getattr of a private literal": ("import math\ndef f(r):\n    return getattr(math, '_x')\n",
                                     [(3, "reads the private attribute _x")]),
    "the interpreter's builtins": ("def f(r):\n    return __builtins__['float'](1)\n",
                                   [(2, "uses the interpreter's name __builtins__")]),
    "patching an imported module": ("import math\ndef f(r):\n    math.log2 = lambda x: 1.0\n    return 0.0\n",
                                    [(3, "patches the imported math (sets log2)")]),
    "a NumPy file read": ("import numpy as np\ndef f(r):\n    return float(np.fromfile('/proc/self/stat')[0])\n",
                          [(3, "reads or writes files or raw memory (fromfile)")]),
    "a pandas read": ("import pandas as pd\ndef f(r):\n    return len(pd.read_csv('x'))\n",
                      [(3, "reads or writes files or raw memory (read_csv)")]),
    "a format template reading a frame": ("def f(r):\n    return '{0.gi_frame}'.format(r)\n",
                                          [(2, "formats a template that reads a private, frame or module attribute")]),
    "a star import": ("from math import *\ndef f(r):\n    return 0.0\n", [(1, "imports every name of math (a star import)")]),
    "a relative import": ("from . import helpers\ndef f(r):\n    return 0.0\n", [(1, "imports relative to a package")]),
    # the sandbox limits memory: a listing that can tell a failed allocation from a reader's can answer otherwise
    "catching Exception around a large list": (
        "def f(r):\n    try:\n        pad = [0] * (6 * 10**8)\n    except Exception:\n        return 0.0\n"
        "    return 1.0\n",
        [(3, "repeats a sequence 600,000,000 times, more than the sandbox's memory limit"
             " (the sandbox limits memory; a reader's machine may not)"),
         (4, "catches Exception, MemoryError among them (the sandbox limits memory; a reader's machine may not)")]),
    "MemoryError under another name": (
        "LIMIT = MemoryError\ndef f(r):\n    try:\n        b'x' * (1 << 30)\n    except LIMIT:\n        return 0\n"
        "    return 1\n",
        [(1, "names MemoryError (the sandbox limits memory; a reader's machine may not)"),
         (4, "repeats a sequence 1,073,741,824 times, more than the sandbox's memory limit"
             " (the sandbox limits memory; a reader's machine may not)"),
         (5, "catches an exception class held in its own name LIMIT, which may be MemoryError"
             " (the sandbox limits memory; a reader's machine may not)")]),
    "a bare except and a NumPy array of 20000 by 20000": (
        "import numpy as np\ndef f(r):\n    try:\n        np.zeros((20000, 20000))\n    except:\n"
        "        return 0.0\n    return 1.0\n",
        [(4, "allocates 400,000,000 elements at once, more than the sandbox's memory limit"
             " (the sandbox limits memory; a reader's machine may not)"),
         (5, "catches every exception (a bare except), MemoryError among them"
             " (the sandbox limits memory; a reader's machine may not)")]),
    "a return in finally": (
        "def f(r):\n    state = [1.0]\n    try:\n        state = state * len(r) ** 9\n    finally:\n"
        "        return len(state)\n",
        [(6, "returns or breaks out of a finally block, which silences any exception, MemoryError among them"
             " (the sandbox limits memory; a reader's machine may not)")]),
    "a context manager that silences": (
        "class Quiet:\n    def __enter__(self):\n        return self\n    def __exit__(self, *exc):\n"
        "        return True\n",
        [(4, "defines __exit__, which can silence any exception of its with block, MemoryError among them"
             " (the sandbox limits memory; a reader's machine may not)")]),
    "open shadowed only in another function": (
        "def g(open):\n    return open\ndef f(r):\n    return open('x')\n", [(4, "opens a file")]),
    "open bound in a class body is not a method's": (
        "class C:\n    open = 1\n    def m(self):\n        return open('x')\n", [(4, "opens a file")]),
}


@pytest.mark.parametrize("name", list(CERTIFIED))
def test_a_listing_that_only_computes_has_no_finding(name):
    assert findings(textwrap.dedent(CERTIFIED[name])) == []


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_listing_that_does_more_than_compute_is_named_with_its_line(name):
    source, expected = REFUSED[name]
    assert sorted(findings(source)) == sorted(expected)


def test_every_shipped_and_corpus_listing_is_certified():
    """The shipped chapters' listings and the corpus's are metric code: none has a finding."""
    folders = [ROOT / "claims" / "recall-and-precision", ROOT / "claims" / "retrieval-23-chapter",
               *sorted(p.parent for p in (ROOT / "tests" / "corpus" / "measures").glob("*/chapter.yaml")
                      if auditable(p.parent))]
    seen = 0
    for folder in folders:
        chapter = load_chapter(folder)
        for claim in chapter.register.claims:
            if claim.kind == "code":
                _, source = function_source(chapter.snapshot.text, claim.quote, claim.function, claim.builds_on)
                assert findings(source) == [], (folder.name, claim.id)
                seen += 1
    assert seen >= 30


def test_a_listing_importing_the_scientific_stack_is_read_with_numpy_types():
    assert numeric("import numpy as np\n") and numeric("from scipy import stats\n") and numeric("import pandas\n")
    assert not numeric("import math\nfrom fractions import Fraction\n")


# --- the runner's reading of a returned value ------------------------------------------------------------------

def _runner():
    spec = importlib.util.spec_from_file_location("listing_runner", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the runner starts only as a script
    return module


class Recall(float):
    def __float__(self):
        return 0.25


class Pretender(type):
    """A metaclass that makes its classes equal to float and hash like it: a lookup by == or hash takes them for
    float."""

    def __eq__(cls, other):
        return True

    def __hash__(cls):
        return hash(float)


class Sly(float, metaclass=Pretender):
    def __float__(self):
        return 0.25


class SlyList(list, metaclass=Pretender):
    def __iter__(self):
        return iter([0.25])


class Scalar(np.float64):
    def __float__(self):
        return 0.25


@pytest.mark.parametrize("value, status, read", [
    (0.75, "ok", 0.75), (3, "ok", 3.0), (True, "returns", None),
    (np.float64(0.75), "ok", 0.75), (np.float32(0.1), "ok", float(np.float32(0.1))), (np.int64(3), "ok", 3.0),
    (np.uint8(7), "ok", 7.0), (np.array(0.75), "ok", 0.75), (np.bool_(True), "returns", None),
    (Recall(0.75), "returns", None), (Scalar(0.75), "returns", None), (np.array([True]), "returns", None),
    (np.array([0.5, 1.0]), "values", [0.5, 1.0]), (np.array([[0.5]]), "returns", None),
    ([np.float64(0.5), 1], "values", [0.5, 1.0]), ({"q1": np.float32(0.5)}, "values", [0.5]),
    ([Recall(0.75)], "returns", None), (np.ma.masked_array([0.5]), "returns", None),
    (Sly(0.75), "returns", None), (SlyList([0.75]), "returns", None), ({"q1": Sly(0.75)}, "returns", None),
])
def test_only_exact_numbers_are_read_and_never_through_the_listings_methods(value, status, read):
    runner = _runner()
    answer, _ = runner.answerer(np)
    record = runner.parse_answer(answer(lambda: value, ()))
    assert record["status"] == status, record
    if status == "ok":
        assert float.fromhex(record["value"]) == read
    elif status == "values":
        assert [v for _, v in runner.entries_of(bytes.fromhex(record["entries"]))] == read
    if isinstance(value, Recall):
        assert "subclass of float" in record["repr"] and "0.75" in record["repr"]


def test_without_numpy_loaded_a_numpy_scalar_is_not_read():
    runner = _runner()
    answer, _ = runner.answerer(None)
    assert runner.parse_answer(answer(lambda: np.float64(0.5), ()))["status"] == "returns"


def test_the_answer_is_made_by_functions_taken_before_the_listing_ran():
    """struct.pack patched after the answer's functions were taken does not change what they pack. (In a process of
    its own: a struct patched in the test process would break pytest-xdist's channel to its worker.)"""
    script = textwrap.dedent(f"""
        import importlib.util, struct
        spec = importlib.util.spec_from_file_location("listing_runner", {str(RUNNER)!r})
        runner = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(runner)
        answer, _ = runner.answerer(None)
        struct.pack = lambda fmt, *v: b"\\x00" * struct.calcsize(fmt)
        runner.struct.Struct = None
        record = runner.parse_answer(answer(lambda: 0.75, ()))
        print(float.fromhex(record["value"]))
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0.75"
