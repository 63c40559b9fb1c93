"""Measure names in ir-measures syntax (``P@4``, ``RR@4``, ``nDCG@4``) → the chapter evaluator's spec."""

from __future__ import annotations

from functools import lru_cache

import ir_measures

from audit.errors import MeasureError
from audit.evaluation.evaluator import GAINS, SUPPORTED, MeasureSpec


@lru_cache(maxsize=None)
def parse(text: str, reference_only: bool = False) -> tuple[object, MeasureSpec | None]:
    """Parse a measure name with ``ir_measures.parse_measure``.

    ``reference_only``: a measure ir-measures knows and the chapter evaluator does not (Rprec, Bpref,
    ERR@k, infAP …) gives ``(measure, None)`` instead of an error; it is then compared among the
    references, the chapter column "not applicable".

    Returns ``(ir_measures measure, MeasureSpec)``. Raises ``MeasureError`` listing the
    measures the chapter evaluator implements when the name is unknown, malformed, or
    uses a parameter the evaluator does not model.
    """
    known = ", ".join(f"{n}@k" if n in ("P", "R", "Judged", "Success") else n for n in SUPPORTED)
    shown = repr(text) if len(str(text)) <= 80 else repr(str(text)[:80]) + "…"
    try:
        measure = ir_measures.parse_measure(str(text).strip())
        str(measure)  # ir-measures accepts some parameters it cannot print (nDCG(rel=2)); refuse them here
    except (NameError, ValueError, SyntaxError, TypeError, AttributeError, AssertionError, KeyError,
            RecursionError, MemoryError) as exc:
        detail = f"{type(exc).__name__}: {exc}" if isinstance(exc, (KeyError, AssertionError)) else str(exc)
        raise MeasureError(f"unknown measure {shown} ({detail[:120]}); known measures: {known} "
                           "(ir-measures syntax, e.g. P@4, RR@4, nDCG@4, nDCG(dcg='exp-log2')@4)")
    name = {"MRR": "RR", "MAP": "AP", "NDCG": "nDCG", "Precision": "P", "Recall": "R"}.get(measure.NAME, measure.NAME)
    if name not in SUPPORTED:
        if reference_only:
            return measure, None
        raise MeasureError(f"measure {text!r} is not implemented by the chapter evaluator; known measures: {known}")
    params = dict(measure.params)
    cutoff = params.pop("cutoff", None)
    rel = params.pop("rel", None)
    gain = params.pop("dcg", None)
    if gain is not None and gain not in GAINS:
        raise MeasureError(f"measure {text!r}: gain {gain!r} is not modelled; use one of {', '.join(GAINS)}")
    if gain is not None and name != "nDCG":
        raise MeasureError(f"measure {text!r}: a gain (dcg=) applies to nDCG only")
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, int) or rel < 1):
        raise MeasureError(f"measure {text!r}: the relevance level rel must be a whole number of at least 1, "
                           f"found {rel!r}")
    if rel is not None and name == "Judged":
        raise MeasureError(f"measure {text!r}: Judged@k counts every judged document; it takes no relevance level")
    if name in ("SetP", "SetR") and cutoff is not None:
        raise MeasureError(f"measure {text!r}: {name} is a set measure over everything returned and takes no "
                           f"cutoff; for a ranked measure at k use {'P' if name == 'SetP' else 'R'}@k")
    if params:
        raise MeasureError(f"measure {text!r}: parameters {sorted(params)} are not modelled by the chapter evaluator")
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
        raise MeasureError(f"measure {text!r}: the cutoff k must be a whole number of at least 1, found {cutoff!r}")
    if name == "P" and cutoff is None:
        raise MeasureError(f"measure {text!r} needs a cutoff (P@k); for set precision use SetP")
    if name in ("SetP", "SetR") and cutoff is not None:
        raise MeasureError(f"measure {text!r}: {name} is a set measure over everything retrieved and takes no "
                           f"cutoff; for the first k use {'P' if name == 'SetP' else 'R'}@{cutoff}")
    if name in ("Judged", "Success") and cutoff is None:
        raise MeasureError(f"measure {text!r} needs a cutoff ({name}@k)")
    return measure, MeasureSpec(name=name, cutoff=cutoff, rel=rel, gain=gain)
