"""Which measure a sentence names: its words and notation (``P@4``, "precision at four", "nDCG at 10") read as
the catalogue's measure and cutoff.
"""

from __future__ import annotations

import re

from audit.measures.syntax import at_cutoff
from audit.text.words import number


#: ``scan.METRIC`` notation → the chapter evaluator's measure (``audit.measures.catalogue.CATALOGUE``), in
#: ir-measures syntax; a parameter the name fixes is part of it (``F2`` is ``F(beta=2)``).
_NOTATION = {"nDCG": "nDCG", "NDCG": "nDCG", "IDCG": "IDCG", "DCG": "DCG", "MRR": "RR", "GMAP": "GMAP", "MAP": "AP",
             "ERR": "ERR", "RBP": "RBP", "RR": "RR", "AP": "AP", "Rprec": "Rprec", "R-prec": "Rprec", "IPrec": "IPrec",
             "NumRelRet": "NumRelRet", "NumRel": "NumRel", "NumRet": "NumRet", "SetP": "SetP", "SetR": "SetR",
             "SetF": "SetF", "Success": "Success", "Judged": "Judged", "Bpref": "Bpref", "bpref": "Bpref", "F1": "F",
             "F2": "F(beta=2)", "F0.5": "F(beta=0.5)", "F": "F", "P": "P", "R": "R"}


#: Subscript digits (``nDCG₆``) → digits.
_SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


#: Library names (trec_eval's output names, ranx's metric names) → measure, with the cutoff the name carries.
_LIBRARY = ((r"rbp\.(?P<p>\d+)", None), (r"ndcg_burges", "nDCG(dcg='exp-log2')"), (r"dcg_burges", "DCG(dcg='exp-log2')"),
            (r"r[-_]precision", "Rprec"), (r"gm_map", "GMAP"), (r"num_rel_ret", "NumRelRet"), (r"num_rel", "NumRel"),
            (r"num_ret", "NumRet"), (r"recip_rank", "RR"), (r"iprec_at_recall_(?P<r>\d\.\d+)", "IPrec"),
            (r"P_(?P<k>\d+)", "P"), (r"ndcg_cut[._](?P<k>\d+)", "nDCG"), (r"map_cut[._](?P<k>\d+)", "AP"),
            (r"recall_(?P<k>\d+)", "R"), (r"set_F", "SetF"), (r"set_P", "SetP"), (r"set_recall", "SetR"),
            (r"map", "AP"), (r"mrr", "RR"), (r"dcg", "DCG"), (r"ndcg", "nDCG"), (r"err", "ERR"))


#: Measure words → measure, first match wins (``None``: a name that is no measure, e.g. "the ideal order").
_WORDS = ((r"(?:interpolated\s+)?precision\s+at\s+.*recall", "IPrec"), (r"interpolated\s+precision", "IPrec"),
          (r"expected\s+reciprocal\s+rank", "ERR"), (r"(?:mean\s+)?reciprocal\s+rank", "RR"),
          (r"geometric\s+mean", "GMAP"), (r"(?:mean\s+)?average\s+precision", "AP"),
          (r"rank-biased\s+precision", "RBP"), (r"r-precision", "Rprec"),
          (r"ideal\s+(?:discounted\s+cumulative\s+gain|dcg)", "IDCG"), (r"ideal\s+", None),
          (r"normali[sz]ed\s+discounted", "nDCG"), (r"discounted\s+cumulative\s+gain", "DCG"), (r"bpref", "Bpref"),
          (r"f-measure|f-score|f1", "F"), (r"number\s+of\s+relevant\s+\w+\s+(?:retrieved|returned)", "NumRelRet"),
          (r"number\s+of\s+relevant", "NumRel"), (r"precision", "P"), (r"recall", "R"), (r"ndcg", "nDCG"),
          (r"success|hit\s+rate", "Success"), (r"judged\s+fraction", "Judged"))


def measure_of(m: re.Match) -> tuple[str, int | str | None] | None:
    """A ``scan.METRIC`` match → (measure, cutoff or ``"k"`` or ``None``); ``None`` when the name is not a
    measure the chapter evaluator computes (an ideal order, F_β with β unstated). The measure carries a
    parameter its name fixes (``RBP(p=0.8)`` from ranx's ``rbp.80``, ``nDCG(dcg='exp-log2')`` from
    ``ndcg_burges``); an interpolated precision's cutoff is its recall level (``IPrec`` with ``"0.5"``)."""
    groups = m.groupdict()
    if groups.get("notation"):
        base = _NOTATION.get(groups["notation"])
        if base is not None and groups.get("params"):
            if "(" in base:
                return None
            base += re.sub(r"\s+", "", groups["params"])
        k = groups.get("k") or groups.get("kb") or groups.get("ku")
        if groups.get("ks"):
            k = groups["ks"].translate(_SUBSCRIPT_DIGITS)
        if base == "IPrec":
            return (base, k) if k and "." in k else (base, None)
    elif groups.get("lib"):
        name, base, k = groups["lib"], None, groups.get("k3")
        for pattern, measure in _LIBRARY:
            lm = re.fullmatch(pattern, name, re.IGNORECASE)
            if lm:
                found = lm.groupdict()
                if found.get("p"):
                    base = f"RBP(p={float('0.' + found['p']):g})"
                else:
                    base = measure
                if found.get("r"):
                    return base, str(float(found["r"]))
                k = found.get("k") or k
                break
    else:
        words = re.sub(r"\s+", " ", groups["words"].lower())
        base = next((b for w, b in _WORDS if re.match(w, words)), None)
        k = groups.get("kw") or groups.get("k2")
        if base == "IPrec":
            level = groups.get("level")
            return base, (str(float(level)) if level and "." in level else None)
    if base is None:
        return None
    # a measure without a cutoff (Rprec, SetF, NumRel …): a cutoff written with it is ignored, as trec_eval and ranx do
    if k is None or at_cutoff(base, 1) == base:
        return base, None
    if k.lower() == "k":
        return base, "k"
    return base, number(k)


def _name(base: str, k) -> str:
    return base if k is None or k == "k" else f"{base}@{k}"


def _root(base: str) -> str:
    """The measure without its parameters: ``RBP(p=0.8)`` → ``RBP``."""
    return base.split("(")[0]
