"""ir-measures: one name, several providers; records which provider computed each value."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from audit.evaluation.references.base import (
    Outcome,
    Reference,
    Support,
    error_outcome,
    not_applicable,
    reader_rejected,
    reader_verdict,
    with_readers,
)

#: Providers used, in order of preference. Not used: ``ranx`` (under pandas 3 it fails on the
#: query-id column dtype, a known ranx issue; ranx is evaluated directly by its own adapter),
#: and providers that need extra packages (trectools, cwl_eval …). gdeval runs a Perl script ir-measures ships:
#: it is the one provider of ERR@k.
PROVIDERS = ("pytrec_eval", "msmarco", "judged", "gdeval")


class IrMeasuresReference(Reference):
    name = "ir_measures"
    library = "ir-measures"
    title = "ir-measures"
    # measures/p.py, ap.py, ndcg.py, rr.py … take ``judged_only``; its pytrec_eval provider passes it on as
    # RelevanceEvaluator(judged_docs_only_flag=True), which is trec_eval's -J
    options = {("unjudged", "removed"): ({"judged_only": True}, "judged_only=True (trec_eval's -J)")}

    def conventions(self) -> dict[str, str]:
        """Notes on how it is called that no probe shows (its conventions are observed: ``audit.evaluation.observe``)."""
        return {
            "providers": "P, R, AP, nDCG, RR (no cutoff), SetP, SetR, SetF, Rprec, Bpref, IPrec, NumRel, NumRet "
                         "are computed by its pytrec_eval provider, i.e. by trec_eval itself; RR@k by its msmarco "
                         "provider; Judged@k by its judged provider; ERR@k by its gdeval provider (the TREC Web "
                         "track's gdeval.pl: grades up to 4, values printed to 5 decimals)",
            "not used": "its ranx provider (fails under pandas 3 on the query-id dtype; ranx is run directly) "
                        "and providers needing packages not installed (trectools, cwl_eval)",
        }

    def _provider(self, measure):
        import ir_measures

        for name in PROVIDERS:
            if name == "gdeval" and measure.NAME != "ERR":
                continue  # gdeval's nDCG is its own (grades up to 4); nDCG stays trec_eval's through pytrec_eval
            provider = ir_measures.providers.registry.get(name)
            try:
                supported = provider is not None and provider.supports(measure) and provider.is_available()
            except AssertionError:  # a parameter value this provider's validation refuses
                supported = False
            if supported:
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
                # a measure's name once per measure object, not once per value: ir-measures builds it with
                # repr (2,000 queries × 22 measures: a fifth of the call). Keyed by identity, each entry holding
                # its object, so an id is never reused while the map lives.
                names: dict[int, tuple[object, str]] = {}
                given_qrels, given_run, back = judged, run, None
                if name == "gdeval" and any(g > 4 for j in judged.values() for g in j.values()):
                    for m in group:  # gdeval.pl dies on such a file ($judgment <= $MAX_JUDGMENT)
                        out[str(m)] = Outcome("not applicable", provider=name,
                                              detail="gdeval.pl, its one provider of ERR, refuses grades above 4")
                    continue
                if name == "gdeval":
                    # gdeval.pl reads only numeric topic IDs: queries are numbered for it and mapped back
                    order = sorted(set(judged) | set(run))
                    back = {str(i): q for i, q in enumerate(order, start=1)}
                    number = {q: n for n, q in back.items()}
                    given_qrels = {number[q]: j for q, j in judged.items()}
                    given_run = {number[q]: dict(docs) for q, docs in run.items()}
                for metric in provider.evaluator(group, given_qrels).iter_calc(given_run):
                    measure = metric.measure
                    known = names.get(id(measure))
                    if known is None or known[0] is not measure:
                        known = names[id(measure)] = (measure, str(measure))
                    per_query[known[1]][back[metric.query_id] if back else metric.query_id] = float(metric.value)
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
        one missing from the run as 0.

        When one provider computes every measure, the run goes from ``read_trec_run`` straight into it, as
        ``ir_measures.calc_aggregate`` takes it, and the reader's verdict comes from the same read: no list of
        its scored documents is held (2,000 queries × 1,000 documents: 666 MB → 375 MB peak, the same CPU).
        Otherwise the run is read whole first."""
        import ir_measures

        providers = {self._provider(m).NAME for m in measures if self.supports(m).ok}
        if len(providers) > 1:
            qrels, run, readers, refusal = self.read_both(qrels_path, run_path)
            if refusal:
                return reader_rejected(measures, refusal[1], "ir_measures", refusal[0], readers)
            return with_readers(self.evaluate(measures, qrels, run), readers)
        readers: dict[str, str] = {}
        qrels, readers["qrels"], exc = self.read_one(qrels_path, "qrels")
        refusal = ("qrels", exc) if exc is not None else None
        run = _Streamed(ir_measures.read_trec_run(str(run_path)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = self.evaluate(measures, qrels, run) if refusal is None else None
            run.drain()  # the rest of the file, when nothing read it all (no measure, a refused qrels)
        if run.error is not None:
            readers["run"] = reader_verdict(run.error)
            refusal = refusal or ("run", run.error)
        else:
            readers["run"] = reader_verdict(None)
        if refusal:
            return reader_rejected(measures, refusal[1], "ir_measures", refusal[0], readers)
        return with_readers(out, readers)


class _Streamed:
    """A reader's scored documents, passed on one at a time; ``error`` is what the reader raised (the evaluation
    reading it then fails too, and its outcome is replaced by the reader's refusal)."""

    def __init__(self, documents) -> None:
        self._documents = iter(documents)
        self.error: Exception | None = None

    def __iter__(self):
        while True:
            try:
                document = next(self._documents)
            except StopIteration:
                return
            except Exception as exc:
                self.error = exc
                raise
            yield document

    def drain(self) -> None:
        """Read what is left, to know whether the reader accepts the whole file."""
        if self.error is None:
            try:
                for _ in self:
                    pass
            except Exception:
                pass  # kept in ``error``
