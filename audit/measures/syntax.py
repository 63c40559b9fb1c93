"""Measure names in ir-measures syntax (``P@4``, ``RR@4``, ``nDCG@4``, ``DCG@5``, ``RBP(p=0.8)``) → the chapter
evaluator's spec."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import ir_measures

from audit.errors import MeasureError
from audit.measures import names  # noqa: F401  (declares DCG, IDCG, F, GMAP to ir-measures' parser)
from audit.measures.catalogue import CATALOGUE, GAINS, MeasureSpec


#: ir-measures' aliases → the chapter evaluator's names.
_ALIASES = {"MRR": "RR", "MAP": "AP", "NDCG": "nDCG", "Precision": "P", "Recall": "R", "BPref": "Bpref",
            "RPrec": "Rprec"}


def _fraction(value: object, what: str, text: str, low: Fraction, high: Fraction, *, open_low: bool = False,
              open_high: bool = False) -> Fraction:
    """A parameter as an exact fraction (0.8 → 4/5, read from its decimal text), checked against its range."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MeasureError(f"measure {text!r}: {what} must be a number, found {value!r}")
    exact = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    if exact < low or exact > high or (open_low and exact == low) or (open_high and exact == high):
        raise MeasureError(f"measure {text!r}: {what} must lie in {'(' if open_low else '['}{low}, {high}"
                           f"{')' if open_high else ']'}, found {value!r}")
    return exact


#: Decimals of a recall level (``IPrec@0.25``): trec_eval names each interpolated level with two
#: (``iprec_at_recall_0.25``), so a level with more would be computed at one value and keyed under another.
RECALL_DECIMALS = 2
#: Decimals of any other real parameter (``RBP(p=0.8)``, ``SetF(beta=0.5)``, ``alpha_nDCG(alpha=0.5)``).
PARAMETER_DECIMALS = 6


def _check_parameters(measure, text: str, shown: str) -> None:
    """Every parameter of a parsed measure is one the references can evaluate: a parameter the measure names
    (``infAP@5`` gives infAP a cutoff it does not take); a cutoff k and a relevance level rel whole numbers in
    range (``limits.MAX_CUTOFF``, ``limits.MAX_GRADE``: trec_eval keeps both in C integers, and a cutoff past
    2**63 is printed as another); a real parameter finite, written with at most ``PARAMETER_DECIMALS`` decimals
    (``RECALL_DECIMALS`` for a recall level), so ``1e-320`` (which trec_eval reads as 1) is refused; a recall level
    in [0, 1]. Raises ``MeasureError`` naming the measure and the parameter."""
    import math

    from audit.model.limits import MAX_CUTOFF, MAX_GRADE
    supported = getattr(measure, "SUPPORTED_PARAMS", {})
    for key, value in dict(measure.params).items():
        if key not in supported:
            what = "cutoff" if key == "cutoff" else f"parameter {key!r}"
            raise MeasureError(f"measure {shown}: {measure.NAME} takes no {what}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if key in ("cutoff", "rel"):
            low, high, what = (1, MAX_CUTOFF, "the cutoff k") if key == "cutoff" else (1, MAX_GRADE,
                                                                                       "the relevance level rel")
            if isinstance(value, int) and value > high:
                raise MeasureError(f"measure {shown}: {what} {str(value)[:40]} is larger than the limit of {high}")
            if not isinstance(value, int) or value < low:
                raise MeasureError(f"measure {shown}: {what} must be a whole number of at least {low}, found "
                                   f"{str(value)[:40]}")
            continue
        if isinstance(value, float) and not math.isfinite(value):
            raise MeasureError(f"measure {shown}: {key} must be a finite number, found {value!r}")
        decimals = RECALL_DECIMALS if key == "recall" else PARAMETER_DECIMALS
        if (Fraction(repr(value)) * 10 ** decimals).denominator != 1:
            raise MeasureError(f"measure {shown}: {'the recall level' if key == 'recall' else key} {value!r} has "
                               f"more than {decimals} decimals"
                               + (" (trec_eval names each recall level with two: iprec_at_recall_0.25)"
                                  if key == "recall" else ""))
        if key == "recall" and not 0 <= value <= 1:
            raise MeasureError(f"measure {shown}: the recall level must lie in [0, 1], found {value!r}")


def known_measures() -> str:
    """The chapter evaluator's measures, as a user writes them."""
    shown = {"required": "@k", "optional": "", "none": ""}
    return ", ".join(name + shown[m.cutoff] + ("@r" if name == "IPrec" else "") for name, m in CATALOGUE.items())


@lru_cache(maxsize=None)
def parse(text: str, reference_only: bool = False) -> tuple[object, MeasureSpec | None]:
    """Parse a measure name with ``ir_measures.parse_measure``.

    ``reference_only``: a measure ir-measures knows and the chapter evaluator does not (infAP, SetAP …)
    gives ``(measure, None)`` instead of an error; it is then compared among the references, the chapter
    column "not applicable".

    Returns ``(ir_measures measure, MeasureSpec)``. Raises ``MeasureError`` listing the
    measures the chapter evaluator implements when the name is unknown, malformed, or
    uses a parameter the evaluator does not model.
    """
    known = known_measures()
    shown = repr(text) if len(str(text)) <= 80 else repr(str(text)[:80]) + "…"
    try:
        measure = ir_measures.parse_measure(str(text).strip())
        str(measure)  # ir-measures accepts some parameters it cannot print (nDCG(rel=2)); refuse them here
        # a whole number for a real parameter (SetF(beta=2), RBP(p=1)) is read as that number, as ir-measures'
        # own providers accept only the float
        whole = {k: float(v) for k, v in dict(measure.params).items() if k in measure.SUPPORTED_PARAMS
                 and measure.SUPPORTED_PARAMS[k].dtype is float and isinstance(v, int) and not isinstance(v, bool)}
        if whole:
            measure = measure(**whole)
    except (NameError, ValueError, SyntaxError, TypeError, AttributeError, AssertionError, KeyError,
            RecursionError, MemoryError) as exc:
        detail = f"{type(exc).__name__}: {exc}" if isinstance(exc, (KeyError, AssertionError)) else str(exc)
        raise MeasureError(f"unknown measure {shown} ({detail[:120]}); known measures: {known} "
                           "(ir-measures syntax, e.g. P@4, RR@4, nDCG@4, nDCG(dcg='exp-log2')@4, DCG@5, RBP(p=0.8))")
    _check_parameters(measure, text, shown)
    name = _ALIASES.get(measure.NAME, measure.NAME)
    params = dict(measure.params)
    if name == "NumRet" and params.get("rel") is not None:
        name = "NumRelRet"  # ir-measures: NumRelRet is NumRet(rel=1)
        if params["rel"] == 1:
            del params["rel"]  # "relevant" as the reading's relevance level says, as for every other binary measure
    definition = CATALOGUE.get(name)
    if definition is None:
        if reference_only:
            return measure, None
        raise MeasureError(f"measure {text!r} is not implemented by the chapter evaluator; known measures: {known}")
    cutoff = params.pop("cutoff", None)
    rel = params.pop("rel", None)
    gain = params.pop("dcg", None)
    beta = params.pop("beta", None)
    p = params.pop("p", None)
    recall = params.pop("recall", None)
    if gain is not None and gain not in GAINS:
        raise MeasureError(f"measure {text!r}: gain {gain!r} is not modelled; use one of {', '.join(GAINS)}")
    if rel is not None and (isinstance(rel, bool) or not isinstance(rel, int) or rel < 1):
        raise MeasureError(f"measure {text!r}: the relevance level rel must be a whole number of at least 1, "
                           f"found {rel!r}")
    if rel is not None and "rel" not in definition.params:
        raise MeasureError(f"measure {text!r}: {name} takes no relevance level"
                           + (" (Judged@k counts every judged document)" if name == "Judged" else ""))
    if name in ("SetP", "SetR") and cutoff is not None:
        raise MeasureError(f"measure {text!r}: {name} is a set measure over everything returned and takes no "
                           f"cutoff; for a ranked measure at k use {'P' if name == 'SetP' else 'R'}@k")
    if cutoff is not None and definition.cutoff == "none":
        raise MeasureError(f"measure {text!r}: {name} ({definition.title}) takes no cutoff")
    if params:
        raise MeasureError(f"measure {text!r}: parameters {sorted(params)} are not modelled by the chapter evaluator")
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
        raise MeasureError(f"measure {text!r}: the cutoff k must be a whole number of at least 1, found {cutoff!r}")
    if name == "P" and cutoff is None:
        raise MeasureError(f"measure {text!r} needs a cutoff (P@k); for set precision use SetP")
    if definition.cutoff == "required" and cutoff is None:
        raise MeasureError(f"measure {text!r} needs a cutoff ({name}@k)")
    spec = MeasureSpec(name=name, cutoff=cutoff, rel=rel, gain=gain,
                       beta=None if beta is None else _fraction(beta, "beta", text, Fraction(0), Fraction(10**6),
                                                                open_low=True),
                       p=None if p is None else _fraction(p, "the persistence p", text, Fraction(0), Fraction(1),
                                                          open_low=True, open_high=True),
                       recall=None if recall is None else _fraction(recall, "the recall level", text, Fraction(0),
                                                                    Fraction(1)))
    if name == "IPrec" and spec.recall is None:
        raise MeasureError(f"measure {text!r} needs a recall level (IPrec@0.5)")
    return measure, spec


def at_cutoff(text: str, k: int | str) -> str:
    """``text`` at cutoff ``k`` (``P`` → ``P@3``, ``R`` → ``R@|R|``), or ``text`` itself for a measure that takes no cutoff
    (``Rprec``, ``Bpref``, ``SetF``: its value is the same at every k). Raises what ``parse`` raises."""
    try:
        spec = parse(str(text), True)[1]
    except MeasureError:  # a measure that needs its cutoff (F, P) reads only with one
        return f"{text}@{k}"
    if spec is not None and CATALOGUE[spec.name].cutoff == "none":
        return str(text)
    return f"{text}@{k}"
