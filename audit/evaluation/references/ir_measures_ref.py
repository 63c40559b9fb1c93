"""ir-measures: one name, several providers; records which provider computed each value."""

from __future__ import annotations

from collections.abc import Sequence

from audit.evaluation.references.base import (
    Outcome,
    Reference,
    Support,
    error_outcome,
    not_applicable,
    reader_rejected,
    with_readers,
)

#: Providers used, in order of preference. Not used: ``ranx`` (under pandas 3 it fails on the
#: query-id column dtype, a known ranx issue; ranx is evaluated directly by its own adapter),
#: and providers that run external programs or need extra packages (gdeval, trectools, …).
PROVIDERS = ("pytrec_eval", "msmarco", "judged")


class IrMeasuresReference(Reference):
    name = "ir_measures"
    library = "ir-measures"
    title = "ir-measures"

    def conventions(self) -> dict[str, str]:
        """Notes on how it is called that no probe shows (its conventions are observed: ``audit.evaluation.observe``)."""
        return {
            "providers": "P, R, AP, nDCG, RR (no cutoff), SetP, SetR are computed by its pytrec_eval provider, "
                         "i.e. by trec_eval itself; RR@k by its msmarco provider; Judged@k by its judged provider",
            "not used": "its ranx provider (fails under pandas 3 on the query-id dtype; ranx is run directly) "
                        "and providers needing external programs (gdeval, trectools, cwl_eval)",
        }

    def _provider(self, measure):
        import ir_measures

        for name in PROVIDERS:
            provider = ir_measures.providers.registry.get(name)
            if provider is not None and provider.supports(measure) and provider.is_available():
                return provider
        return None

    def supports(self, measure) -> Support:
        if measure.NAME == "nDCG" and "rel" in dict(measure.params):
            # observed with ir_measures 0.4.3: the pytrec_eval provider accepts nDCG(rel=…) and then fails
            # with KeyError 'rel'; trec_eval's ndcg has no relevance level to map it to.
            return Support(False, reason="its pytrec_eval provider cannot apply a relevance level to nDCG "
                                         "(trec_eval's ndcg keeps every grade's gain)")
        provider = self._provider(measure)
        if provider is None:
            return Support(False, reason=f"no provider among {', '.join(PROVIDERS)} supports {measure}")
        return Support(True, how=f"provider {provider.NAME}")

    def evaluate(self, measures: Sequence[object], qrels, run) -> dict[str, Outcome]:
        """One evaluator per provider, all of that provider's measures at once."""
        support = {str(m): self.supports(m) for m in measures}
        out = not_applicable(measures, support)
        groups: dict[str, tuple[object, list]] = {}
        for m in measures:
            if support[str(m)].ok:
                provider = self._provider(m)
                groups.setdefault(provider.NAME, (provider, []))[1].append(m)
        judged = {q: dict(j) for q, j in qrels.items()}
        for name, (provider, group) in groups.items():
            try:
                per_query: dict[str, dict[str, float]] = {str(m): {} for m in group}
                for metric in provider.evaluator(group, judged).iter_calc(run):
                    per_query[str(metric.measure)][metric.query_id] = float(metric.value)
                for m in group:
                    # exactly the queries ir-measures returned a value for; none filled in
                    out[str(m)] = Outcome("ok", per_query=per_query[str(m)], provider=name)
            except Exception as exc:
                out.update({str(m): error_outcome(exc, name) for m in group})
        return out

    def evaluate_run_file(self, measures, qrels, path: str) -> dict[str, Outcome]:
        import ir_measures

        try:
            run = list(ir_measures.read_trec_run(path))
        except Exception as exc:
            return {str(m): error_outcome(exc, "read_trec_run") for m in measures}
        return self.evaluate(measures, qrels, run)

    def read_file(self, path: str, kind: str):
        """``ir_measures.read_trec_qrels`` (kind "qrels", as ``{query: {doc: grade}}``) or ``read_trec_run``
        (as its list of scored documents) on the file."""
        import ir_measures

        if kind == "run":
            return list(ir_measures.read_trec_run(str(path)))
        qrels: dict[str, dict[str, int]] = {}
        for q in ir_measures.read_trec_qrels(str(path)):
            qrels.setdefault(q.query_id, {})[q.doc_id] = int(q.relevance)
        return qrels

    def evaluate_files(self, measures, qrels_path: str, run_path: str) -> dict[str, Outcome]:
        """``ir_measures.read_trec_qrels`` / ``read_trec_run``, then its providers: it scores every judged query,
        one missing from the run as 0."""
        qrels, run, readers, refusal = self.read_both(qrels_path, run_path)
        if refusal:
            return reader_rejected(measures, refusal[1], "ir_measures", refusal[0], readers)
        return with_readers(self.evaluate(measures, qrels, run), readers)
