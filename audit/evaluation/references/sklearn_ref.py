"""scikit-learn's ranking metrics, called as its users call them: an optional reference, for sentences about what
scikit-learn computes (a convention claim with ``by: scikit-learn``), offered only when chapter-audit is installed
with its ``sklearn`` extra.

* ``nDCG@k`` → ``sklearn.metrics.ndcg_score([grades], [scores], k=k)`` on one query's retrieved documents: the gain
  is the grade itself (linear), the discount log2(rank + 1), and the ideal is the same retrieved documents' grades
  sorted, cut at k (scikit-learn sees only the list it is given: judged documents never retrieved are outside it).
  It refuses a list of one document ("Computing NDCG is only meaningful when there is more than one document").
* ``AP`` (no cutoff) → ``sklearn.metrics.average_precision_score(relevant, scores)`` on the retrieved documents,
  relevant meaning grade ≥ 1 (≥ ``rel``): the sum of precisions at the relevant retrieved documents divided by the
  number of relevant *retrieved* documents, not |R|.

Documents are passed in rank order with the run's scores (strictly decreasing, so no tie is averaged), unjudged
documents with grade 0. Nothing else is expressed: scikit-learn has no P@k, RR or AP@k for one ranking.
"""

from __future__ import annotations

import importlib.util
import warnings
from collections.abc import Mapping, Sequence

from audit.evaluation.references.base import Outcome, Reference, ScoredRun, Support, error_outcome


def installed() -> bool:
    """Whether scikit-learn can be imported (the ``sklearn`` extra)."""
    return importlib.util.find_spec("sklearn") is not None


class SklearnReference(Reference):
    name = "sklearn"
    library = "scikit-learn"
    title = "scikit-learn"

    def conventions(self) -> dict[str, str]:
        return {
            "ndcg_score": "gain = grade (linear), discount log2(rank + 1), ideal from the grades of the documents it "
                          "is given (the retrieved list), cut at k; one document refused",
            "average_precision_score": "divides by the relevant retrieved documents, not |R|",
        }

    def supports(self, measure: object) -> Support:
        name, params = measure.NAME, dict(measure.params)
        cutoff = params.pop("cutoff", None)
        params.pop("rel", None)
        if name == "nDCG" and params.pop("dcg", "log2") == "log2" and not params:
            return Support(True, "ndcg_score" + (f"(k={cutoff})" if cutoff is not None else ""))
        if name == "AP" and cutoff is None and not params:
            return Support(True, "average_precision_score")
        return Support(False, reason=f"scikit-learn has no {measure} for one ranking (ndcg_score and "
                                     "average_precision_score only)")

    def evaluate(self, measures: Sequence[object], qrels: Mapping[str, Mapping[str, int]],
                 run: ScoredRun) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        try:
            from sklearn.metrics import average_precision_score, ndcg_score
        except ImportError as exc:
            return {str(m): error_outcome(exc, "scikit-learn") for m in measures}
        for m in measures:
            support = self.supports(m)
            if not support.ok:
                out[str(m)] = Outcome("not applicable", provider="scikit-learn", detail=support.reason)
                continue
            params = dict(m.params)
            level = params.get("rel") or 1
            per_query: dict[str, float] = {}
            try:
                for q, scores in run.items():
                    docs = sorted(scores, key=lambda d: -scores[d])
                    grades = [qrels.get(q, {}).get(d, 0) for d in docs]
                    values = [scores[d] for d in docs]
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        if m.NAME == "nDCG":
                            per_query[q] = float(ndcg_score([grades], [values], k=params.get("cutoff")))
                        else:
                            per_query[q] = float(average_precision_score([int(g >= level) for g in grades], values))
            except (ValueError, ZeroDivisionError) as exc:
                out[str(m)] = error_outcome(exc, "scikit-learn")
                continue
            out[str(m)] = Outcome("ok", per_query=per_query, provider=f"scikit-learn {support.how}")
        return out


    def evaluate_run_file(self, measures: Sequence[object], qrels: Mapping[str, Mapping[str, int]],
                          path: str) -> dict[str, Outcome]:
        """scikit-learn reads no TREC run file: its users hand it arrays."""
        return {str(m): Outcome("not applicable", provider="scikit-learn",
                                detail="scikit-learn reads no run file (its users pass arrays)") for m in measures}


_REFERENCE: Reference | None = None


def sklearn_reference() -> Reference | None:
    """The scikit-learn reference, run in its own worker process as the three references are; None when it is not
    installed."""
    global _REFERENCE
    if _REFERENCE is None and installed():
        from audit.evaluation.references.worker import IsolatedReference
        _REFERENCE = IsolatedReference(SklearnReference())
    return _REFERENCE


#: What a report says when a claim about scikit-learn cannot be checked here.
ABSENT = ("this sentence is about what scikit-learn computes, and scikit-learn is not installed, so nothing of it "
          "was checked")
INSTALL = "Install chapter-audit with its sklearn extra (pip install 'chapter-audit[sklearn]') and rerun."
