"""numba's typed containers compiled into numba's disk cache (``ranx_ref._cache_typed_containers``).

The replacement must change no value ranx returns and must actually be served from the cache in a later
process. Each side runs in a fresh interpreter: numba keeps compiled functions per process, and the
comparison needs one process that never replaced them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

# ranx runs only in the child processes below: whether it is installed is asked without importing it here (with
# numba, that import would cost every collecting process seconds)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("ranx") is None, reason="could not import 'ranx'")

# Random qrels and runs with ties, unjudged and missing queries, negative and graded judgements, IDs of
# several widths (numba compiles per width), evaluated through both the dict path and ranx's file reader.
SCRIPT = r"""
import json, random, sys, tempfile, os, warnings
from audit.evaluation.references import ranx_ref
replaced = ranx_ref._cache_typed_containers() if sys.argv[1] == "cached" else 0
ranx = ranx_ref._import_ranx() if sys.argv[1] == "cached" else None
if ranx is None:
    os.environ.setdefault("NUMBA_CACHE_DIR", ranx_ref.numba_cache_dir())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import ranx
rng = random.Random(7)
metrics = ["precision@3", "recall@5", "mrr", "map", "ndcg@4", "ndcg_burges@10", "r-precision", "hit_rate@2",
           "precision@2-l2", "map-l2", "bpref"]
out = {}
for trial in range(12):
    width = rng.choice([4, 9])  # the adapter renames to width 10 ("d" + 9 digits)
    qrels = {f"q{q}": {f"d{d:0{width}d}": rng.choice([-1, 0, 1, 1, 2, 3]) for d in rng.sample(range(40), 8)}
             for q in range(rng.randint(1, 15))}
    run = {q: {f"d{d:0{width}d}": float(rng.choice([1, 2, 2, 3, 5])) for d in rng.sample(range(40), rng.randint(1, 20))}
           for q in qrels if rng.random() < 0.85}
    run = run or {next(iter(qrels)): {"d" + "0" * width: 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ranx.Run(run)
        ranx.evaluate(ranx.Qrels(qrels), r, metrics, make_comparable=True)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "run.trec")
            with open(path, "w") as f:
                for q, docs in run.items():
                    for d, s in docs.items():
                        f.write(f"{q} Q0 {d} 0 {s} tag\n")
            loaded = ranx.Run.from_file(path, kind="trec")
            ranx.evaluate(ranx.Qrels(qrels), loaded, metrics, make_comparable=True)
    out[str(trial)] = {"dict": {m: {q: float(v).hex() for q, v in r.scores[m].items()} for m in metrics},
                       "file": {m: {q: float(v).hex() for q, v in loaded.scores[m].items()} for m in metrics},
                       "order": {q: list(docs) for q, docs in loaded.to_dict().items()}}
from numba.typed import typeddict
hits = sum(typeddict._contains._cache_hits.values()) if hasattr(typeddict._contains, "_cache_hits") else -1
print(json.dumps({"replaced": replaced, "contains_cache_hits": hits, "values": out}))
"""


def _start(mode: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SCRIPT, mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONHASHSEED": "0"})


def _result(process: subprocess.Popen) -> dict:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.slow  # a long end-to-end run (docs/development.md)
def test_cached_containers_change_no_value_and_are_served_from_the_cache():
    plain = _start("plain")  # compiles every container function anew: the slow one, run alongside
    first = _result(_start("cached"))   # fills the cache for any signature not yet in it
    second = _result(_start("cached"))  # a later process: every typed-container function is found in the cache
    plain = _result(plain)
    assert plain["replaced"] == 0
    assert first["replaced"] >= 30  # every listed name exists in the numba this project installs
    # the same values, bit for bit, and the same document order after ranx's reader and sort
    assert first["values"] == plain["values"]
    assert second["values"] == plain["values"]
    assert second["contains_cache_hits"] > 0


def test_a_name_numba_lacks_or_a_plain_function_is_left_alone(monkeypatch):
    from audit.evaluation.references import ranx_ref

    monkeypatch.setattr(ranx_ref, "_TYPED_CONTAINER_FUNCTIONS",
                        {"numba.typed.typeddict": ("_no_such_function", "_from_meminfo_ptr")})
    from numba.typed import typeddict

    plain = typeddict._from_meminfo_ptr  # not compiled by numba: nothing to cache
    assert ranx_ref._cache_typed_containers() == 0
    assert typeddict._from_meminfo_ptr is plain


LIGHT = r"""
import json, sys, warnings
import numpy as np
from audit.evaluation.references import ranx_ref
if sys.argv[1] == "light":
    ranx = ranx_ref._import_ranx()
    loaded = sorted(m for m in ("scipy.stats", "matplotlib", "ranx.meta.plot", "ranx.meta.compare") if m in sys.modules)
else:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import ranx
    loaded = []
from ranx import statistical_tests as st
qrels = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"d": 1, "e": 3}}
run = {"q1": {"c": 3.0, "a": 2.0, "x": 2.0, "b": 1.0}, "q2": {"e": 1.0, "d": 1.0}}
metrics = ["precision@2", "recall@3", "mrr", "map", "ndcg@3", "ndcg_burges@3", "r-precision", "hit_rate@1", "bpref"]
r = ranx.Run(run)
ranx.evaluate(ranx.Qrels(qrels), r, metrics, make_comparable=True)
a, b = np.array([0.1, 0.5, 0.3, 0.9, 0.4]), np.array([0.2, 0.4, 0.6, 0.7, 0.8])
print(json.dumps({"loaded": loaded, "values": {m: {q: float(v).hex() for q, v in r.scores[m].items()} for m in metrics},
                  "t": float(st.paired_student_t_test(a, b, 0.05)[0]).hex(),
                  "permutation": float(st.fisher_randomization_test(a, b, 1000, 0.05, 42)[0]).hex()}))
"""


def _light_or_plain(mode: str) -> dict:
    done = subprocess.run([sys.executable, "-c", LIGHT, mode], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_adapter_imports_only_the_ranx_it_calls():
    """``_import_ranx`` leaves out ranx's plotting, comparison and fusion modules (scipy.stats, matplotlib: most of
    the seconds of ``import ranx``) and returns ranx's own ``Qrels``, ``Run`` and ``evaluate``, which compute as
    ranx does: P@2 of q1 is 1/2 (c, grade 0, then a), of q2 1 (e and d, tied, both relevant); RR of q1 1/2."""
    light = _light_or_plain("light")
    assert light["loaded"] == []
    assert light["values"]["precision@2"] == {"q1": (0.5).hex(), "q2": (1.0).hex()}
    assert light["values"]["mrr"]["q1"] == (0.5).hex()


@pytest.mark.slow  # two library loads in fresh processes (docs/development.md)
def test_the_light_ranx_gets_the_plain_imports_values():
    """Every value ``_import_ranx``'s ranx returns, and the t-test's p (imported when asked), is a plain
    ``import ranx``'s, bit for bit."""
    light, plain = _light_or_plain("light"), _light_or_plain("plain")
    assert light["values"] == plain["values"]
    assert light["t"] == plain["t"]
    # ranx's randomization test draws its permutations in numba threads whose random states its seed does not
    # reach, so two plain imports differ too: the two estimates of p over 1,000 permutations agree within their
    # own error (8 standard errors between two estimates, plus a resample)
    p, q = float.fromhex(light["permutation"]), float.fromhex(plain["permutation"])
    assert 0 <= p <= 1 and abs(p - q) <= 8 * ((q * (1 - q) / 1000) ** 0.5) + 1 / 1000
    assert plain["values"]["precision@2"] == {"q1": (0.5).hex(), "q2": (1.0).hex()}  # c (grade 0), a; e, d


@pytest.mark.slow  # the whole of ranx (scipy.stats, matplotlib) loaded in the test's process
def test_a_ranx_whose_layout_differs_is_imported_whole(monkeypatch):
    """A ranx without the modules the light import names (another version's layout) is imported as a whole package:
    the modules half-imported are dropped first, so nothing half-made is kept."""
    import importlib

    from audit.evaluation.references import ranx_ref

    monkeypatch.setattr(ranx_ref, "_USED", {"ranx.no_such_module": ("evaluate",)})
    for name in [n for n in sys.modules if n == "ranx" or n.startswith("ranx.")]:
        monkeypatch.delitem(sys.modules, name)
    ranx = ranx_ref._light_ranx()
    assert hasattr(ranx, "compare") and hasattr(ranx, "evaluate")  # the whole package's __init__ ran
    assert importlib.import_module("ranx") is ranx
