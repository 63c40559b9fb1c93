"""ranx, called directly: metric names, numba compilation cache, fixed-width ids."""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from audit.evaluation.references.base import (
    Outcome,
    Reference,
    ScoredRun,
    Support,
    error_outcome,
    not_applicable,
    reader_rejected,
    with_readers,
)

_CUT = {"P": "precision", "R": "recall", "RR": "mrr", "AP": "map", "Success": "hit_rate"}


def numba_cache_dir() -> str:
    """Where numba keeps ranx's compiled functions: ``$NUMBA_CACHE_DIR`` or ``~/.cache/chapter-audit/numba``.

    ranx compiles on first use (tens of seconds with an empty cache); a persistent cache
    makes later runs take seconds.
    """
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "chapter-audit" / "numba"
    return os.environ.setdefault("NUMBA_CACHE_DIR", str(default))


#: The module-level functions through which numba's typed containers (``numba.typed.Dict`` and ``List``) are
#: used from Python, by module. numba compiles each of them in every process, once per item type, and never
#: caches them (numba issue #5713, open): about 4.5 s of CPU in each process that calls ranx, for the ones
#: ranx's ``Run``, ``Qrels``, ``make_comparable`` and ``Run.from_file`` use. ``_sort`` is left out: it takes a
#: key function, which numba's cache cannot hold.
_TYPED_CONTAINER_FUNCTIONS = {
    "numba.typed.typeddict": ("_make_dict", "_length", "_setitem", "_getitem", "_delitem", "_contains", "_get",
                              "_setdefault", "_iter", "_popitem", "_copy"),
    "numba.typed.typedlist": ("_make_list", "_length", "_allocated", "_is_mutable", "_make_mutable",
                              "_make_immutable", "_append", "_setitem", "_getitem", "_contains", "_count", "_pop",
                              "_delitem", "_extend", "_insert", "_remove", "_clear", "_reverse", "_copy", "_eq",
                              "_ne", "_lt", "_le", "_gt", "_ge", "_index"),
}


def _cache_typed_containers() -> int:
    """Compile numba's typed-container functions (``_TYPED_CONTAINER_FUNCTIONS``) into numba's on-disk cache
    (``numba_cache_dir()``), as ranx's own functions are, instead of anew in every process. Returns how many
    were replaced.

    Each is replaced by the same Python function under ``numba.njit(cache=True)``: the same code, compiled
    the same way, so every value ranx returns is unchanged (``tests/test_ranx_containers.py`` compares
    them with and without this). A name this numba does not have, or whose function is not a numba
    dispatcher, is left as it is; so is everything when numba cannot cache here. Idempotent. A worker with a
    warm cache: ranx's first evaluation 4.6 s → 0.4 s of CPU, ``Run.from_file``'s empty ``Run`` 1.4 s → 0.
    """
    import importlib

    numba_cache_dir()  # before numba reads its configuration
    import numba

    replaced = 0
    for module_name, names in _TYPED_CONTAINER_FUNCTIONS.items():
        module = importlib.import_module(module_name)
        for name in names:
            current = getattr(module, name, None)
            if getattr(current, "_chapter_audit_cached", False):
                continue
            py_func = getattr(current, "py_func", None)
            if py_func is None or not isinstance(current, numba.core.dispatcher.Dispatcher):
                continue
            try:
                cached = numba.njit(cache=True)(py_func)
            except Exception:  # no writable cache location: numba refuses cache=True; keep its own
                return replaced
            cached._chapter_audit_cached = True
            setattr(module, name, cached)
            replaced += 1
    return replaced


#: What the adapter calls, by ranx module: ``Qrels``, ``Run`` and ``evaluate`` (``statistical_tests`` is imported
#: as a submodule when a significance claim asks for it).
_USED = {"ranx.data_structures": ("Qrels", "Run"), "ranx.meta.evaluate": ("evaluate",)}


def _bare_package(name: str):
    """The package ``name`` registered in ``sys.modules`` with its ``__path__`` but its ``__init__`` not run, so its
    submodules import on their own."""
    import importlib.util
    import sys

    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        raise ImportError(f"no package {name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    return module


def _light_ranx():
    """ranx with only the modules the adapter calls: ``Qrels``, ``Run`` and ``evaluate`` from ranx's own modules,
    and numba's threading layer set as ranx's ``__init__`` sets it. The package's ``__init__`` also imports
    ``compare``, ``fuse``, ``optimize_fusion`` and ``plot`` (scipy.stats and matplotlib: 1.7 of the 2.0 CPU
    seconds of ``import ranx``), which the adapter never calls. The functions are ranx's, unchanged
    (``tests/test_ranx_containers.py`` compares every value with a plain ``import ranx``). When ranx is already
    imported, or its layout differs from this, it is imported whole."""
    import importlib
    import sys

    if "ranx" in sys.modules:
        return sys.modules["ranx"]
    before = set(sys.modules)
    try:
        ranx = _bare_package("ranx")
        _bare_package("ranx.meta")
        from numba import config

        for module_name, names in _USED.items():
            module = importlib.import_module(module_name)
            for name in names:
                setattr(ranx, name, getattr(module, name))
        config.THREADING_LAYER = "workqueue"  # as ranx/__init__.py sets it
        return ranx
    except (ImportError, AttributeError):
        for name in set(sys.modules) - before:
            if name == "ranx" or name.startswith("ranx."):
                del sys.modules[name]
        import ranx

        return ranx


def _import_ranx():
    numba_cache_dir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ranx = _light_ranx()
    _cache_typed_containers()
    return ranx


def _tokens(queries, docs) -> tuple[dict[str, str], dict[str, str]]:
    """Order-preserving fixed-width tokens for query and document ids (``q0000000…``, ``d000000000…``)."""
    return ({q: f"q{i:07d}" for i, q in enumerate(sorted(queries))},
            {d: f"d{i:09d}" for i, d in enumerate(sorted(docs))})


def _rename_run_file(path: str, qrels: Mapping[str, Mapping[str, int]], folder: str):
    r"""A copy of a small TREC run file in ``folder`` with ids renamed as ``_rename`` does (every line kept
    in place, so a repeated ID stays repeated and a malformed line stays malformed for ranx's reader), the
    qrels renamed the same way, and the maps back to the query and document ids. Returns (path, qrels,
    query ids back, document ids back).

    Lines are the file's own (``for line in handle``, as ``Run.from_file`` reads them: a line ends at
    ``\n``, ``\r\n`` or ``\r`` only), not ``str.splitlines``'s, which also breaks at ``\v``, ``\f``,
    ``\x1c``-``\x1e``, ``\x85``, ``\u2028`` and ``\u2029``: characters ranx's ``line.split()`` takes
    as whitespace inside a line."""
    with open(path, encoding="utf-8") as handle:
        lines = [line.removesuffix("\n") for line in handle]
    rows = [line.split() for line in lines]
    qmap, dmap = _tokens(set(qrels) | {r[0] for r in rows if len(r) == 6},
                         {d for j in qrels.values() for d in j} | {r[2] for r in rows if len(r) == 6})
    renamed = os.path.join(folder, "renamed.run")
    with open(renamed, "w", encoding="utf-8") as handle:
        for line, r in zip(lines, rows):
            handle.write(" ".join([qmap[r[0]], r[1], dmap[r[2]], *r[3:]]) + "\n" if len(r) == 6 else line + "\n")
    new_qrels = {qmap[q]: {dmap[d]: int(g) for d, g in j.items()} for q, j in qrels.items()}
    return renamed, new_qrels, {v: k for k, v in qmap.items()}, {v: k for k, v in dmap.items()}


def _rename(qrels: Mapping[str, Mapping[str, int]], run: ScoredRun):
    """Map ids to fixed-width tokens that keep their sort order.

    ranx stores ids as fixed-width numpy strings and numba compiles once per width, so
    fixed-width tokens compile once. Order is preserved (lexicographic and insertion), so
    no tie rule can change.
    """
    qmap, dmap = _tokens(set(qrels) | set(run), {d for j in qrels.values() for d in j} | {d for r in run.values() for d in r})
    new_qrels = {qmap[q]: {dmap[d]: int(g) for d, g in j.items()} for q, j in qrels.items()}
    new_run = {qmap[q]: {dmap[d]: float(s) for d, s in r.items()} for q, r in run.items()}
    return new_qrels, new_run, {v: k for k, v in qmap.items()}


class RanxReference(Reference):
    name = "ranx"
    library = "ranx"
    title = "ranx"
    # Importing ranx and its first evaluation in a process take about 2.5 s of CPU with a warm numba cache
    # (numba loads each compiled metric; its typed containers come from the cache too, see
    # ``_cache_typed_containers``), against about 0.2 s for the other references.
    slow_to_load = True

    def conventions(self) -> dict[str, str]:
        """Notes on how it is called that no probe shows (its conventions are observed: ``audit.evaluation.observe``)."""
        return {
            "ties": "its sort is not stable: the probes (short rankings) show insertion order, but on trec_eval's "
                    "500-document query 301 the cross-check observed docno descending",
            "SetP/SetR": "no set measures: SetP is precision@n and SetR recall@n with n the query's run length",
            "Judged@k": "no judged-fraction measure",
            "input": "ids are renamed to order-preserving fixed-width tokens so numba compiles once",
        }

    def _metric(self, measure) -> tuple[str | None, str]:
        name, params = measure.NAME, dict(measure.params)
        cutoff = params.pop("cutoff", None)
        rel = params.pop("rel", 1)
        gain = params.pop("dcg", "log2")
        if params and name not in ("F", "RBP"):
            return None, f"parameters {params} not expressible"
        # ranx's relevance level is a metric suffix (``precision@4-l2``, ranx.meta.evaluate); for nDCG it
        # drops grades below the level, as the chapter evaluator's nDCG(rel=…) does.
        suffix = (f"@{cutoff}" if cutoff is not None else "") + (f"-l{rel}" if rel != 1 else "")
        if rel != 1 and name in ("SetP", "SetR"):
            return None, "relevance levels are not mapped for set measures"
        if name in ("nDCG", "DCG"):
            return ("ndcg" if name == "nDCG" else "dcg") + ("" if gain == "log2" else "_burges") + suffix, ""
        if name == "F" and cutoff is not None:
            beta = params.pop("beta", 1.0)
            return ("f1" + suffix, "") if beta == 1 and not params else (None, "ranx's f1 has β = 1 only")
        if name == "RBP":
            p = repr(float(params.pop("p", 0.8)))
            if cutoff is not None:
                return None, "ranx's rbp evaluates the whole ranking (no cutoff)"
            if not p.startswith("0.") or params:
                return None, f"persistence {p} not expressible as ranx's rbp.<digits>"
            return f"rbp.{p[2:]}" + suffix, f"rbp.{p[2:]}: each relevant document weighs its grade"
        if name in _CUT:
            if name in ("P", "Success") and cutoff is None:
                return None, f"{name} needs a cutoff"
            return _CUT[name] + suffix, ""
        if name == "Rprec" and cutoff is None:
            return "r-precision" + suffix, ""
        if name == "Bpref" and cutoff is None:
            return "bpref" + suffix, ""
        if name == "SetP":
            return "precision@n", "precision@n, n = the query's run length"
        if name == "SetR":
            return "recall", "recall over the whole run"
        return None, f"ranx has no measure for {measure}"

    def supports(self, measure) -> Support:
        metric, how = self._metric(measure)
        return Support(True, how=how or metric) if metric else Support(False, reason=how)

    #: ranx's statistical tests (``ranx.statistical_tests``), as ``ranx.compare`` calls them with its defaults: the
    #: paired Student's t-test (scipy's ``ttest_rel``, two-sided) and Fisher's randomization test, approximated
    #: with 1,000 random permutations of each query's pair under seed 42 (a Monte Carlo estimate of the exact p).
    SIGNIFICANCE = {"paired t": ("paired_student_t_test", "ranx.statistical_tests.paired_student_t_test (scipy's "
                                 "ttest_rel, two-sided)"),
                    "permutation": ("fisher_randomization_test", "ranx.statistical_tests.fisher_randomization_test, "
                                    "1,000 random permutations, seed 42 (ranx.compare's defaults)")}
    PERMUTATIONS, SEED = 1000, 42

    def significance(self, test: str, a, b) -> dict[str, object] | None:
        if test not in self.SIGNIFICANCE:
            return None
        import numpy as np
        try:
            _import_ranx()
            from ranx import statistical_tests as st
            control, treatment = np.asarray(b, dtype=np.float64), np.asarray(a, dtype=np.float64)
            if test == "paired t":
                p, _ = st.paired_student_t_test(control, treatment, 0.05)
            else:
                p, _ = st.fisher_randomization_test(control, treatment, self.PERMUTATIONS, 0.05, self.SEED)
        except Exception as exc:  # the library raising is a finding, not a crash
            return {"error": f"{type(exc).__name__}: {exc}"[:300]}
        return {"p": float(p), "how": self.SIGNIFICANCE[test][1]}

    def evaluate(self, measures: Sequence[object], qrels, run: ScoredRun) -> dict[str, Outcome]:
        """One ``ranx.evaluate`` call per set of queries, with every metric that applies to them."""
        support = {str(m): self.supports(m) for m in measures}
        out = not_applicable(measures, support)
        wanted = [m for m in measures if support[str(m)].ok]
        if not wanted:
            return out
        try:
            ranx = _import_ranx()
            qrels_t, run_t, back = _rename(qrels, {q: r for q, r in run.items() if q in qrels})
            # every judged query, as a ranx user passes Qrels and Run with make_comparable=True: a judged
            # query missing from the run is scored by ranx itself
            everyone = tuple(qrels_t)
            # jobs: query subset → [(measure key, ranx metric)]; SetP needs one cutoff per run length.
            jobs: dict[tuple[str, ...], list[tuple[str, str]]] = {}
            for m in wanted:
                metric, _ = self._metric(m)
                if metric == "precision@n":
                    by_len: dict[int, list[str]] = {}
                    for q, r in run_t.items():
                        by_len.setdefault(len(r), []).append(q)
                    for n, qs in by_len.items():
                        jobs.setdefault(tuple(qs), []).append((str(m), f"precision@{n}"))
                elif metric.startswith("bpref"):
                    # ranx's bpref of a query depends on the other queries of its call: after a query with no
                    # relevant document, later queries score 0 (ranx 0.3.21; tests/test_measure_catalogue.py).
                    # Each query is evaluated alone, as a user evaluating that query gets it.
                    for q in everyone:
                        jobs.setdefault((q,), []).append((str(m), metric))
                else:
                    jobs.setdefault(everyone, []).append((str(m), metric))
            per_query: dict[str, dict[str, float]] = {str(m): {} for m in wanted}
            notes: dict[str, str] = {}
            for qs, items in jobs.items():
                metrics = sorted({metric for _, metric in items if metric != "precision@0"})
                judged_qs = tuple(q for q in qs if qrels_t[q])
                if not judged_qs:
                    # ranx raises (ValueError: max() arg is an empty sequence) when no query of a call has a
                    # judgement; such queries get no value from it
                    for key, _ in items:
                        notes[key] = ("ranx raises when no query of a call has a judgement (ValueError); the queries of "
                                      "such a call are left out")
                    continue
                values = self._call(ranx, metrics, {q: qrels_t[q] for q in qs}, {q: run_t.get(q, {}) for q in qs}, back)
                for key, metric in items:
                    per_query[key].update(values.get(metric, {}))
            for m in wanted:
                out[str(m)] = Outcome("ok", per_query=per_query[str(m)], provider="ranx", detail=notes.get(str(m), ""))
        except Exception as exc:
            for m in wanted:
                out[str(m)] = error_outcome(exc, "ranx")
        return out

    @staticmethod
    def _call(ranx, metrics: list[str], qrels, run, back) -> dict[str, dict[str, float]]:
        """{metric: {query_id: value}}, exactly as ranx returns them. A query with an empty ranking is
        left out of the run (ranx cannot hold one) and scored by ranx itself through ``make_comparable``,
        as a user's run file without that query would be."""
        run = {q: r for q, r in run.items() if r}
        values: dict[str, dict[str, float]] = {metric: {} for metric in metrics}
        if metrics and run:  # ranx cannot evaluate a run with no document at all: those queries get no value
            ranx_run = ranx.Run({q: dict(r) for q, r in run.items()})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ranx.evaluate(ranx.Qrels({q: dict(j) for q, j in qrels.items()}), ranx_run, metrics,
                              make_comparable=True)
            for metric in metrics:
                values[metric].update({back[q]: float(v) for q, v in ranx_run.scores[metric].items()})
        return values

    def evaluate_run_file(self, measures, qrels, path: str) -> dict[str, Outcome]:
        """``ranx.Run.from_file`` (kind trec) on the run, then ``ranx.evaluate`` of that ``Run`` against
        ``ranx.Qrels(qrels)`` with ``make_comparable=True``, one call with every metric, as a user's script
        does. SetP, and inputs that call fails on (no judged query), take ``evaluate``'s path on the run's
        contents, which handles both."""
        with tempfile.TemporaryDirectory(prefix="chapter-audit-ranx-") as folder:
            try:
                # ids renamed as for every other call, so numba's compiled functions serve this one too
                renamed, qrels_t, back, docs_back = _rename_run_file(path, qrels, folder)
                loaded = self.read_file(renamed, "run")
            except Exception as exc:
                return {str(m): error_outcome(exc, "ranx") for m in measures}
            if any(qrels_t.values()):
                out, tried = self._loaded_outcomes(measures, lambda: _import_ranx().Qrels(qrels_t), loaded, back)
                if out is not None:
                    return out
                if tried:
                    loaded = self.read_file(renamed, "run")  # the failed call changed it (make_comparable)
            run = {back[q]: {docs_back[d]: score for d, score in docs.items()} for q, docs in loaded.to_dict().items()}
        return self.evaluate(measures, qrels, run)

    def _loaded_outcomes(self, measures, qrels, run, back: Mapping[str, str] | None = None):
        """``(outcomes, tried)``: every measure's outcome from one ``ranx.evaluate`` of ranx's own ``Qrels``
        (``qrels``, or a function making them) and ``Run`` with every metric, query ids mapped through
        ``back``; or ``(None, tried)`` when ``evaluate``'s dict path must answer instead: SetP (one
        precision@n per run length), no supported measure, or a call ranx fails on (no judged query;
        ``tried`` then says the call was made, and ``make_comparable`` may have changed ``run``)."""
        support = {str(m): self.supports(m) for m in measures}
        wanted = {str(m): self._metric(m)[0] for m in measures if support[str(m)].ok}
        if not wanted or "precision@n" in wanted.values():
            return None, False
        try:
            values = self._call_loaded(qrels() if callable(qrels) else qrels, run, sorted(set(wanted.values())))
        except Exception:
            return None, True  # evaluate's path gives the same call's outcome, or its own note
        out = not_applicable(measures, support)
        out.update({key: Outcome("ok", per_query={(back[q] if back else q): v for q, v in values[metric].items()},
                                 provider="ranx") for key, metric in wanted.items()})
        return out, True

    def read_file(self, path: str, kind: str):
        """``ranx.Qrels.from_file`` (kind "qrels") or ``ranx.Run.from_file`` on the file, as TREC (``kind="trec"``)."""
        ranx = _import_ranx()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return (ranx.Qrels if kind == "qrels" else ranx.Run).from_file(str(path), kind="trec")

    def evaluate_files(self, measures, qrels_path: str, run_path: str) -> dict[str, Outcome]:
        """``ranx.Qrels.from_file`` / ``Run.from_file`` (kind trec), then ``ranx.evaluate`` with
        ``make_comparable=True``, as its users must when the run lacks a judged query (without it ranx
        raises): every judged query is scored, one missing from the run as 0.

        The loaded ``Qrels`` and ``Run`` go to ``ranx.evaluate`` as they are, one call with every metric,
        as a user's script does. SetP (one precision@n per run length) and inputs that call fails on
        (no judged query) take ``evaluate``'s path on the files' contents, which handles both."""
        try:
            _import_ranx()
        except Exception as exc:
            return {str(m): error_outcome(exc, "ranx") for m in measures}
        qrels, run, readers, refusal = self.read_both(qrels_path, run_path)
        if refusal:
            return reader_rejected(measures, refusal[1], "ranx", refusal[0], readers)
        out, tried = self._loaded_outcomes(measures, qrels, run)
        if out is not None:
            return with_readers(out, readers)
        if tried:
            run = self.read_file(run_path, "run")  # the failed call changed it (make_comparable)
        qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.to_dict().items()}
        run = {q: dict(docs) for q, docs in run.to_dict().items()}
        return with_readers(self.evaluate(measures, qrels, run), readers)

    @staticmethod
    def _call_loaded(qrels, run, metrics: list[str]) -> dict[str, dict[str, float]]:
        """{metric: {query_id: value}} from one ``ranx.evaluate(qrels, run, metrics, make_comparable=True)``
        on ranx's own ``Qrels`` and ``Run``, exactly as ranx returns them."""
        ranx = _import_ranx()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranx.evaluate(qrels, run, metrics, make_comparable=True)
        return {metric: {q: float(v) for q, v in run.scores[metric].items()} for metric in metrics}
