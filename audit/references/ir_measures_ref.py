"""ir-measures: one name, several providers; records which provider computed each value."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version as dist_version

from .base import Outcome, Reference, ScoredRun, Support, error_outcome, not_applicable

#: Providers used, in order of preference. Not used: ``ranx`` (under pandas 3 it fails on the
#: query-id column dtype, a known ranx issue; ranx is evaluated directly by its own adapter),
#: and providers that run external programs or need extra packages (gdeval, trectools, …).
PROVIDERS = ("pytrec_eval", "msmarco", "judged")


class IrMeasuresReference(Reference):
    name = "ir_measures"
    library = "ir-measures"
    title = "ir-measures"

    def version(self) -> str:
        return dist_version(self.library)

    def conventions(self) -> dict[str, str]:
        return {
            "providers": "P, R, AP, nDCG, RR (no cutoff), SetP, SetR are computed by its pytrec_eval provider, "
                         "i.e. by trec_eval itself; RR@k by its msmarco provider; Judged@k by its judged provider",
            "ties": "pytrec_eval provider: trec_eval's rule (docno descending); msmarco and judged providers: "
                    "docno ascending",
            "repeated_ids": "the last score read for a repeated doc ID silently replaces the earlier ones",
            "unjudged": "unjudged documents count as non-relevant; Judged@k reports the judged fraction of the "
                        "first min(k, returned) documents",
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
        provider = self._provider(measure)
        if provider is None:
            return Support(False, reason=f"no provider among {', '.join(PROVIDERS)} supports {measure}")
        return Support(True, how=f"provider {provider.NAME}")

    def evaluate(self, measures: Sequence[object], qrels, run) -> dict[str, Outcome]:
        support = {str(m): self.supports(m) for m in measures}
        out = not_applicable(measures, support)
        for m in measures:
            if not support[str(m)].ok:
                continue
            provider = self._provider(m)
            try:
                evaluator = provider.evaluator([m], {q: dict(j) for q, j in qrels.items()})
                per_query = {metric.query_id: float(metric.value) for metric in evaluator.iter_calc(run)}
                for q in (run if isinstance(run, dict) else {}):
                    if q in qrels and q not in per_query:
                        per_query[q] = 0.0
                out[str(m)] = Outcome("ok", per_query=per_query, provider=provider.NAME)
            except Exception as exc:
                out[str(m)] = error_outcome(exc, provider.NAME)
        return out

    def evaluate_run_file(self, measures, qrels, path: str) -> dict[str, Outcome]:
        import ir_measures

        try:
            run = list(ir_measures.read_trec_run(path))
        except Exception as exc:
            return {str(m): error_outcome(exc, "read_trec_run") for m in measures}
        return self.evaluate(measures, qrels, run)
