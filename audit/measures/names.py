"""Measures ir-measures does not define (DCG, IDCG, F@k, GMAP), declared the way ir-measures declares its own.

Importing this module registers them in ir-measures' registry, so ``ir_measures.parse_measure`` reads
``DCG@5`` or ``F(beta=2)@10`` in every process that parses a measure name (the audit, each reference's worker),
and every reference adapter can say whether it computes them. Imports nothing but ir-measures.
"""

from __future__ import annotations

from ir_measures import measures as _im


class _DCG(_im.Measure):
    """Discounted cumulative gain, unnormalised (Järvelin & Kekäläinen 2002): Σ gain / log2(rank + 1)."""
    __name__ = "DCG"
    NAME = __name__
    PRETTY_NAME = "Discounted Cumulative Gain"
    SHORT_DESC = "The total gain of a ranking, discounted by log2(rank + 1), not normalised."
    SUPPORTED_PARAMS = {
        "cutoff": _im.ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold"),
        "dcg": _im.ParamInfo(dtype=str, choices=["log2", "exp-log2"], default="log2", desc="gain: grade or 2^grade - 1"),
        "rel": _im.ParamInfo(dtype=int, required=False, desc="grades below it give no gain"),
    }


class _IDCG(_DCG):
    """The ideal DCG: the DCG of the judged grades sorted in decreasing order (Järvelin & Kekäläinen 2002)."""
    __name__ = "IDCG"
    NAME = __name__
    PRETTY_NAME = "Ideal Discounted Cumulative Gain"
    SHORT_DESC = "The DCG of the best possible ordering of the judged documents."


class _F(_im.Measure):
    """F-measure of precision@k and recall@k (van Rijsbergen 1979; ranx ``f1@k``)."""
    __name__ = "F"
    NAME = __name__
    PRETTY_NAME = "F-measure at k"
    SHORT_DESC = "The weighted harmonic mean of precision@k and recall@k."
    SUPPORTED_PARAMS = {
        "cutoff": _im.ParamInfo(dtype=int, required=True, desc="ranking cutoff threshold"),
        "beta": _im.ParamInfo(dtype=float, default=1.0, desc="relative weight of recall"),
        "rel": _im.ParamInfo(dtype=int, default=1, desc="minimum relevance score to be considered relevant"),
    }


class _GMAP(_im.Measure):
    """Geometric mean of average precision over queries, each floored at 0.00001 (Robertson 2006; trec_eval ``gm_map``)."""
    __name__ = "GMAP"
    NAME = __name__
    PRETTY_NAME = "Geometric Mean Average Precision"
    SHORT_DESC = "The geometric mean of the queries' average precision."
    SUPPORTED_PARAMS = {
        "cutoff": _im.ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold"),
        "rel": _im.ParamInfo(dtype=int, default=1, desc="minimum relevance score to be considered relevant"),
    }


DCG, IDCG, F, GMAP = _DCG(), _IDCG(), _F(), _GMAP()
for _m in (DCG, IDCG, F, GMAP):
    if _m.NAME not in _im.registry:
        _im.register(_m)


class _LevelledNDCG(_im.ndcg._nDCG):
    """ir-measures' nDCG, with the relevance level ranx applies to it (``ndcg@k-l2``: grades below the level give
    no gain). ir-measures' own nDCG has no ``rel`` and fails on one (``KeyError: 'rel'``); its providers still
    decide for themselves whether they compute a levelled nDCG (trec_eval's does not)."""
    SUPPORTED_PARAMS = {**_im.ndcg._nDCG.SUPPORTED_PARAMS,
                        "rel": _im.ParamInfo(dtype=int, required=False, desc="grades below it give no gain")}


if not isinstance(_im.registry.get("nDCG"), _LevelledNDCG):
    _im.registry["nDCG"] = _im.registry["NDCG"] = _LevelledNDCG()
