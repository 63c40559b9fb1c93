"""The measure catalogue: every measure the audit knows, declared as data (its name in ir-measures' syntax, what it
is, the conventions its value on one query can depend on, its cutoff and parameters, how queries combine, where
it is defined), and ``MeasureSpec``, one measure as a claim names it.

A declaration only: the exact definitions are the chapter's (``audit.evaluation.definitions``, ``DEFINITIONS``, one
per name here), and the names ir-measures does not define are declared to its parser in ``audit.measures.names``.
Every stage reads the catalogue; it imports nothing of the package.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

#: Gain functions for nDCG, named as ir-measures names its ``dcg`` parameter → the ``gain`` convention.
#: ``log2``: gain = grade (Järvelin & Kekäläinen 2002; trec_eval ``ndcg_cut``).
#: ``exp-log2``: gain = 2**grade - 1 (Burges et al. 2005; ranx ``ndcg_burges``).
GAINS = {"log2": "linear", "exp-log2": "exponential"}


@dataclass(frozen=True)
class MeasureSpec:
    """A measure the chapter evaluator computes: name, cutoff, and the parameters the measure name
    fixes itself (``rel``, ``gain``, ``beta`` for F, ``p`` for RBP, ``recall`` for IPrec); None leaves them to
    the reading's conventions or the measure's default."""

    name: str
    cutoff: int | None = None
    rel: int | None = None
    gain: str | None = None
    beta: Fraction | None = None
    p: Fraction | None = None
    recall: Fraction | None = None

    def __str__(self) -> str:
        params = ([f"rel={self.rel}"] if self.rel is not None and self.name != "NumRelRet" else []) + [
            f"{n}={float(v):g}" for n, v in (("beta", self.beta), ("p", self.p)) if v is not None]
        at = self.cutoff if self.recall is None else f"{float(self.recall):g}"
        return self.name + (f"({', '.join(params)})" if params else "") + (f"@{at}" if at is not None else "")


@dataclass(frozen=True)
class MeasureDef:
    """One measure of the catalogue: its name (ir-measures syntax), what it is, the conventions its value on
    one query can depend on, its cutoff (``required``, ``optional`` or ``none``), the parameters it takes
    besides the cutoff, whether its value lies in [0, 1], how queries are combined (``mean``, ``sum`` or
    ``geometric``), and where it is defined. Its exact definition is the chapter evaluator's
    (``audit.evaluation.definitions``)."""

    name: str
    title: str
    conventions: frozenset[str]
    cutoff: str = "optional"
    params: tuple[str, ...] = ("rel",)
    bounded: bool = True
    combine: str = "mean"
    source: str = ""


_RANKED_BASE = frozenset({"prefix", "repeated_ids", "ties", "unjudged"})
_BINARY = _RANKED_BASE | {"relevance_level"}
_GRADED = _RANKED_BASE | {"gain", "discount", "ideal", "level_gain", "relevance_level"}


def _measure(*args, **kwargs) -> tuple[str, MeasureDef]:
    m = MeasureDef(*args, **kwargs)
    return m.name, m


#: The measures, by ir-measures name. Adding a measure is one entry here, its exact definition in
#: ``audit.evaluation.definitions`` (and, for a name ir-measures does not define, one declaration in
#: ``audit.measures.names``); each reference adapter says for itself which of them it computes.
CATALOGUE: dict[str, MeasureDef] = dict((
    _measure("P", "precision at k", _BINARY | {"precision_denominator"},
             cutoff="required", source="chapter 23 §Count useful items; trec_eval P_k"),
    _measure("R", "recall at k", _BINARY, source="chapter 23 §Count useful items; trec_eval recall_k"),
    _measure("RR", "reciprocal rank", _BINARY | {"rr_cutoff"}, source="trec_eval recip_rank"),
    _measure("AP", "average precision", _BINARY | {"ap_denominator"},
             source="Buckley & Voorhees 2000; trec_eval map, map_cut_k"),
             
    _measure("nDCG", "normalised discounted cumulative gain", _GRADED,
             params=("rel", "gain"), source="Järvelin & Kekäläinen 2002; trec_eval ndcg_cut_k"),
    _measure("DCG", "discounted cumulative gain (unnormalised)", _GRADED,
             params=("rel", "gain"), bounded=False, source="Järvelin & Kekäläinen 2002; ranx dcg@k, dcg_burges@k"),
    _measure("IDCG", "ideal discounted cumulative gain", _GRADED,
             params=("rel", "gain"), bounded=False, source="Järvelin & Kekäläinen 2002 (the ideal vector)"),
    _measure("Success", "success at k", _BINARY, cutoff="required", source="trec_eval success_k; ranx hit_rate@k"),
    _measure("Judged", "judged fraction at k", _RANKED_BASE,
             cutoff="required", params=(), source="chapter 23; ir-measures Judged@k"),
    _measure("SetP", "set precision", frozenset({"repeated_ids", "relevance_level"}),
             cutoff="none", source="trec_eval set_P"),
    _measure("SetR", "set recall", frozenset({"repeated_ids", "relevance_level"}),
             cutoff="none", source="trec_eval set_recall"),
    _measure("SetF", "set F-measure", frozenset({"repeated_ids", "relevance_level"}),
             cutoff="none", params=("rel", "beta"), source="van Rijsbergen 1979; trec_eval set_F"),
    _measure("F", "F-measure at k", _BINARY | {"precision_denominator"},
             cutoff="required", params=("rel", "beta"), source="van Rijsbergen 1979; ranx f1@k"),
    _measure("Rprec", "R-precision", _BINARY, cutoff="none", source="Buckley & Voorhees 2000; trec_eval Rprec"),
    _measure("Bpref", "bpref", frozenset({"repeated_ids", "ties", "relevance_level"}),
             cutoff="none", source="Buckley & Voorhees 2004; trec_eval bpref"),
    _measure("ERR", "expected reciprocal rank", _RANKED_BASE | {"err_max_grade"},
             params=(), source="Chapelle et al. 2009; gdeval err@k"),
    _measure("RBP", "rank-biased precision", _BINARY | {"rbp_gain"},
             params=("rel", "p"), source="Moffat & Zobel 2008; ranx rbp.p"),
    _measure("IPrec", "interpolated precision at a recall level", _BINARY | {"iprec_level"},
             cutoff="none", params=("rel", "recall"), source="Manning et al. 2008 §8.4; trec_eval iprec_at_recall"),
    _measure("NumRel", "number of relevant documents", frozenset({"relevance_level"}),
             cutoff="none", bounded=False, combine="sum", source="trec_eval num_rel"),
    _measure("NumRet", "number of documents returned", frozenset({"repeated_ids"}),
             cutoff="none", params=(), bounded=False, combine="sum", source="trec_eval num_ret"),
    _measure("NumRelRet", "number of relevant documents returned", frozenset({"repeated_ids", "relevance_level"}),
             cutoff="none", bounded=False, combine="sum", source="trec_eval num_rel_ret"),
    _measure("GMAP", "geometric mean of average precision", _BINARY | {"ap_denominator", "gmap_floor"},
             combine="geometric", source="Robertson 2006; trec_eval gm_map (each AP floored at 0.00001)"),
))

#: Measure names the chapter evaluator implements (ir-measures names).
SUPPORTED = tuple(CATALOGUE)
