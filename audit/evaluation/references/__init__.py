"""Reference implementations, one adapter per library; the only place that knows their quirks."""

from __future__ import annotations

from audit.evaluation.references.base import Outcome, Reference, Support

_REFERENCES: list[Reference] | None = None


def all_references(start: bool = True) -> list[Reference]:
    """Every reference adapter, in report order: trec_eval (pytrec_eval), ir-measures, ranx.

    Each evaluates in its own worker process (``worker.IsolatedReference``), so a library that
    crashes is that reference's error on that input, not the end of the audit. With ``start`` the
    workers start here, in the background; otherwise on their first evaluation (or ``start()``).
    They live until this process ends.
    """
    global _REFERENCES
    if _REFERENCES is None:
        from audit.evaluation.references.ir_measures_ref import IrMeasuresReference
        from audit.evaluation.references.pytrec_eval_ref import PytrecEvalReference
        from audit.evaluation.references.ranx_ref import RanxReference
        from audit.evaluation.references.worker import IsolatedReference
        _REFERENCES = [IsolatedReference(PytrecEvalReference()), IsolatedReference(IrMeasuresReference()),
                       IsolatedReference(RanxReference())]
    if start:
        for ref in _REFERENCES:
            ref.start()
    return _REFERENCES


def significance_references(references: list[Reference], claims) -> list[Reference]:
    """The references whose own significance tests (``Reference.SIGNIFICANCE``) one of ``claims``, a statistic
    claim, names: their libraries take seconds to load, so their workers are started as early as that is known."""
    wanted = {c.test for c in claims if c.kind == "statistic"}
    return [r for r in references if wanted & set(r.SIGNIFICANCE)]


__all__ = ["Outcome", "Reference", "Support", "all_references", "significance_references"]
