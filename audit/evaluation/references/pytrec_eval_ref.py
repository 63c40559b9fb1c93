"""trec_eval through pytrec_eval (pytrec-eval-terrier): trec_eval's measure names and quirks."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

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

# ir-measures name → trec_eval measure (with and without cutoff).
_CUT = {"P": "P", "R": "recall", "AP": "map_cut", "nDCG": "ndcg_cut", "Success": "success"}
_FULL = {"AP": "map", "nDCG": "ndcg", "RR": "recip_rank", "SetP": "set_P", "SetR": "set_recall",
         "Rprec": "Rprec", "Bpref": "bpref", "infAP": "infAP", "NumRel": "num_rel", "NumRet": "num_ret",
         "GMAP": "gm_map"}


def _column(trec: str) -> str:
    """The key pytrec_eval returns a trec_eval measure under: ``P.5`` → ``P_5``, ``set_F.2`` → ``set_F`` (always),
    ``iprec_at_recall.0.5`` → ``iprec_at_recall_0.50``."""
    if trec.startswith("set_F"):
        return "set_F"
    if trec.startswith("iprec_at_recall."):
        return f"iprec_at_recall_{float(trec.split('.', 1)[1]):.2f}"
    return trec.replace(".", "_")


def trec_order(scores: Mapping[str, float]) -> list[str]:
    """Documents in trec_eval's order: score descending (as 32-bit floats), then docno descending."""
    import numpy as np
    docs = list(scores)
    single = np.asarray([scores[d] for d in docs], dtype=np.float64).astype(np.float32).tolist()
    return [d for _, d in sorted(zip(single, docs), reverse=True)]


class PytrecEvalReference(Reference):
    name = "pytrec_eval"
    library = "pytrec-eval-terrier"
    title = "trec_eval via pytrec_eval"
    # trec_eval's -J (judged_docs_only_flag): unjudged documents are removed, after its sort and its -M cut, before
    # any measure (form_res_rels.c); asked for as the ir-measures parameter judged_only=True
    options = {("unjudged", "removed"): ({"judged_only": True}, "-J")}

    def conventions(self) -> dict[str, str]:
        """Notes on how it is called that no probe shows (its conventions are observed: ``audit.evaluation.observe``)."""
        return {
            "scores": "read as 32-bit floats: scores equal in single precision are ties, ordered by its tie rule",
            "measures": "trec_eval names: P_k, recall_k, map_cut_k, ndcg_cut_k, recip_rank, set_P, set_recall; "
                        "RR@k is recip_rank on the first k documents of its own order (trec_eval has no RR cutoff)",
            "Judged@k": "not available in the bundled trec_eval",
        }

    def _translate(self, measure) -> tuple[str | None, str]:
        name, params = measure.NAME, dict(measure.params)
        cutoff = params.pop("cutoff", None)
        rel = params.pop("rel", None)
        params.pop("judged_only", None)  # trec_eval's -J, an evaluator flag (``_group``)
        beta = params.pop("beta", 1.0) if name == "SetF" else None
        level = params.pop("recall", None) if name == "IPrec" else None
        if params.pop("dcg", "log2") != "log2" or params:
            return None, ("trec_eval's ndcg uses linear gain only" if name == "nDCG" else
                          f"trec_eval has no {name}" if name in ("DCG", "IDCG") else f"parameters {params} not expressible")
        if name == "RR":
            return "recip_rank", ("recip_rank on the first k documents" if cutoff is not None else "")
        if name == "NumRet" and rel is not None:
            return "num_rel_ret", ""
        if name == "SetF":
            # trec_eval's set_F parameter x weighs (x + 1) P R / (R + x P): x is β²
            return ("set_F", "") if beta == 1 else (f"set_F.{float(beta) ** 2:g}", f"set_F with x = β² = {float(beta) ** 2:g}")
        if name == "IPrec":
            return f"iprec_at_recall.{float(level):g}", f"iprec_at_recall_{float(level):.2f}"
        if name == "GMAP" and cutoff is None:
            return "gm_map", "gm_map: each query's ln(max(AP, 0.00001)), returned as max(AP, 0.00001)"
        if name == "nDCG" and rel is not None and rel > 1:
            # -l sets which grades are relevant for binary measures; ndcg keeps every grade's gain (the
            # ``level_gain`` convention's value "kept"), so ndcg at -l 2 equals ndcg at -l 1.
            return (f"ndcg_cut.{cutoff}" if cutoff is not None else "ndcg"), f"ndcg at -l {rel}: every grade's gain kept"
        if cutoff is not None and name in _CUT:
            return f"{_CUT[name]}.{cutoff}", ""
        if cutoff is None and name in _FULL:
            return _FULL[name], ""
        return None, f"trec_eval has no measure for {measure}"

    def supports(self, measure) -> Support:
        trec, how = self._translate(measure)
        if trec is None:
            return Support(False, reason=how)
        return Support(True, how=how or trec)

    def evaluate(self, measures: Sequence[object], qrels, run: ScoredRun) -> dict[str, Outcome]:
        """One ``RelevanceEvaluator`` per relevance level and measure set, all measures at once; RR@k evaluates
        the run cut at each k (in trec_eval's order) with the same evaluator.

        A query whose ranking is empty is not given to it: a TREC run file cannot hold such a query, so trec_eval
        leaves it out of the mean (pytrec_eval given ``{}`` would score it 0, as only ``trec_eval -c`` does)."""
        return self._evaluate(measures, qrels, {q: docs for q, docs in run.items() if docs}, as_read=False)

    def _evaluate(self, measures: Sequence[object], qrels, run: ScoredRun, as_read: bool) -> dict[str, Outcome]:
        """``evaluate``; ``as_read``: qrels and run are pytrec_eval's own parse of the files (``{q: {d: int}}``,
        ``{q: {d: float}}``), given to it as they are instead of as copies."""
        support = {str(m): self.supports(m) for m in measures}
        out = not_applicable(measures, support)
        groups: dict[tuple[int, int | None], list] = {}
        for m in measures:
            if support[str(m)].ok:
                truncate = m.params.get("cutoff") if m.NAME == "RR" else None
                # trec_eval takes one parameter list per measure in an evaluator: each set_F β and each
                # interpolation level gets an evaluator of its own
                own = self._translate(m)[0] if m.NAME in ("SetF", "IPrec") else None
                groups.setdefault((m.params.get("rel", 1) or 1, truncate, own, bool(m.params.get("judged_only"))),
                                  []).append(m)
        orders: dict[str, list[str]] = {}  # trec_eval's order of each query's documents, for RR@k's truncation
        evaluators: dict[tuple[int, frozenset], object] = {}  # one per relevance level and measure set
        for (rel, truncate, _, judged_only), group in groups.items():
            try:
                out.update(self._group(group, qrels, run, rel, truncate, orders, evaluators, as_read, judged_only))
            except Exception as exc:  # a library failure is evidence, not a crash
                out.update({str(m): error_outcome(exc, "trec_eval") for m in group})
        return out

    def _group(self, measures, qrels, run: ScoredRun, rel: int, truncate: int | None,
               orders: dict[str, list[str]], evaluators: dict, as_read: bool = False,
               judged_only: bool = False) -> dict[str, Outcome]:
        import pytrec_eval

        if truncate is not None:
            if not orders:
                orders.update((q, trec_order(docs)) for q, docs in run.items())
            run = {q: {d: docs[d] for d in orders[q][:truncate]} for q, docs in run.items()}
        names = {str(m): self._translate(m)[0] for m in measures}
        shared = (rel, frozenset(names.values()), judged_only)
        evaluator = evaluators.get(shared)
        if evaluator is None:
            evaluator = evaluators[shared] = pytrec_eval.RelevanceEvaluator(
                qrels if as_read else {q: dict(j) for q, j in qrels.items()}, set(names.values()),
                relevance_level=rel, judged_docs_only_flag=judged_only)
        results = evaluator.evaluate(run if as_read and truncate is None else
                                     {q: {d: float(s) for d, s in docs.items()} for q, docs in run.items()})
        out = {}
        for key, trec in names.items():
            column = _column(trec)
            # Only what trec_eval returned: it leaves out a query with no documents in the run and a
            # query whose qrels entry is empty; those stay absent (never filled in).
            per_query = {q: float(v[column]) for q, v in results.items()}
            if trec == "gm_map":  # trec_eval's per-query gm_map is ln(max(AP, 0.00001)); its mean is taken as exp(·)
                per_query = {q: math.exp(v) for q, v in per_query.items()}
            out[key] = Outcome("ok", per_query=per_query, provider="trec_eval")
        return out

    def evaluate_run_file(self, measures, qrels, path: str) -> dict[str, Outcome]:
        import pytrec_eval

        try:
            with open(path, encoding="utf-8") as handle:
                run = pytrec_eval.parse_run(handle)
        except AssertionError as exc:
            return {str(m): Outcome("rejected", provider="trec_eval",
                                    detail="pytrec_eval.parse_run failed an assertion" + (f": {exc}" if str(exc) else "")
                                    ) for m in measures}
        except Exception as exc:
            return {str(m): error_outcome(exc, "trec_eval") for m in measures}
        return self.evaluate(measures, qrels, run)

    def read_file(self, path: str, kind: str) -> dict:
        """``pytrec_eval.parse_qrel`` (kind "qrels") or ``parse_run`` on the file."""
        import pytrec_eval

        with open(path, encoding="utf-8") as handle:
            return (pytrec_eval.parse_qrel if kind == "qrels" else pytrec_eval.parse_run)(handle)

    def evaluate_files(self, measures, qrels_path: str, run_path: str) -> dict[str, Outcome]:
        """``pytrec_eval.parse_qrel`` and ``parse_run`` on the files, then ``RelevanceEvaluator``: the queries
        trec_eval returns are the run's judged queries (it leaves out a judged query missing from the run)."""
        qrels, run, readers, refusal = self.read_both(qrels_path, run_path)
        if refusal:
            return reader_rejected(measures, refusal[1], "trec_eval", refusal[0], readers)
        return with_readers(self._evaluate(measures, qrels, run, as_read=True), readers)
