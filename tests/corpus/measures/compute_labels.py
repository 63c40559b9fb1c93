#!/usr/bin/env python
"""Compute, independently of chapter-audit, the right value of every labelled statement of the nineteen texts in
this folder, and check them against ``labels.yaml``.

Run from the project root with the project's virtualenv::

    .venv/bin/python tests/corpus/measures/compute_labels.py            # print every statement's values
    .venv/bin/python tests/corpus/measures/compute_labels.py --check    # and compare with labels.yaml

Every value is computed twice or more: by hand, in exact arithmetic (``fractions``; ``mpmath`` at 40 digits
where a logarithm enters), and by each library that can express it, called directly — trec_eval through
pytrec_eval (``RelevanceEvaluator``, ``relevance_level=``), ir-measures (``iter_calc`` / ``calc_aggregate``
with ``parse_measure``; the provider that answered is named) and ranx (``evaluate`` with ``return_mean=False``,
and ``ranx.metrics.interpolated_precision_at_recall`` directly, since ``evaluate`` does not expose it).
Nothing here imports ``audit``. Rankings reach the libraries as strictly decreasing integer scores, so no
tie rule matters. What the three libraries cannot compute (ERR with another top grade, unnormalised DCG with
exponential gain in trec_eval, GMAP in ranx, ml_metrics' ``apk``, torchmetrics' AP, scikit-learn's
``ndcg_score`` and ``average_precision_score``, torchmetrics' precision with ``adaptive_k``, pytorch-ignite's
NDCG) is computed by hand from the definition in that tool's source, named in the output; for qa-sklearn-answer,
a thread about scikit-learn, ``ndcg_score`` and ``average_precision_score`` are also called directly (scikit-learn is
installed in the project's virtualenv). Runs with score ties
(mrr-mismatch-postmortem) reach the libraries with their own scores, and a run file that repeats a document through
each library's own TREC reader.

The three statistics texts (significance-tests-lecture, system-comparison-paper, ab-ranking-blog) are computed by
``add_statistic_statements``: by hand in exact arithmetic (fractions for the mean, t², binomial tails, the exact
sign-flip, Wilcoxon and ideal-bootstrap distributions, Bonferroni and Holm; mpmath for t, d and the p-value of t)
and by scipy.stats called directly (ttest_1samp, binomtest, wilcoxon, permutation_test with every sign flip,
bootstrap, t.sf). An interval's label value is ``[low, high]`` and both ends are checked.

Values: a ``Fraction`` is exact; an ``mpf`` is printed to 10 significant digits; a library's float as
returned. ``left out`` means the library returned no value for that query; ``nan`` is what it returned.
"""

from __future__ import annotations

import itertools
import math
import os
import random
import sys
import warnings
from fractions import Fraction as Fr
from pathlib import Path

os.environ.setdefault("NUMBA_CACHE_DIR", str(Path.home() / ".cache" / "chapter-audit-corpus-numba"))
warnings.simplefilter("ignore")

import ir_measures  # noqa: E402
import mpmath  # noqa: E402
import pytrec_eval  # noqa: E402
import yaml  # noqa: E402

mpmath.mp.dps = 40
HERE = Path(__file__).resolve().parent

# --------------------------------------------------------------------------------------------------
# Definitions by hand (exact)
# --------------------------------------------------------------------------------------------------


def lg2(i):
    return mpmath.log(i, 2)


def flags(qrels_q, ranking, level=1):
    """1 for a document judged at or above ``level``, else 0 (unjudged counts as non-relevant)."""
    return [1 if qrels_q.get(d, 0) >= level else 0 for d in ranking]


def nrel(qrels_q, level=1):
    return sum(1 for g in qrels_q.values() if g >= level)


def P(qrels_q, ranking, k, level=1):
    return Fr(sum(flags(qrels_q, ranking[:k], level)), k)


def R(qrels_q, ranking, k, level=1):
    return Fr(sum(flags(qrels_q, ranking[:k], level)), nrel(qrels_q, level))


def AP(qrels_q, ranking, k=None, level=1, denominator="|R|"):
    f = flags(qrels_q, ranking if k is None else ranking[:k], level)
    hits, total = 0, Fr(0)
    for i, x in enumerate(f, 1):
        if x:
            hits += 1
            total += Fr(hits, i)
    n = {"|R|": nrel(qrels_q, level), "relevant retrieved": hits,
         "min(k, |R|)": min(k if k is not None else len(ranking), nrel(qrels_q, level))}[denominator]
    return total / n if n else Fr(0)


def RR(qrels_q, ranking, level=1):
    for i, x in enumerate(flags(qrels_q, ranking, level), 1):
        if x:
            return Fr(1, i)
    return Fr(0)


def Rprec(qrels_q, ranking, level=1):
    r = nrel(qrels_q, level)
    return Fr(sum(flags(qrels_q, ranking[:r], level)), r)


def IPrec(qrels_q, ranking, level_r, level=1):
    """Interpolated precision: the best precision at any rank whose recall is at least ``level_r``."""
    f, r = flags(qrels_q, ranking, level), nrel(qrels_q, level)
    best, hits = Fr(0), 0
    for i, x in enumerate(f, 1):
        hits += x
        if Fr(hits, r) >= level_r:
            best = max(best, Fr(hits, i))
    return best


def elevenpt(qrels_q, ranking, level=1):
    return sum(IPrec(qrels_q, ranking, Fr(i, 10), level) for i in range(11)) / 11


def Bpref(qrels_q, ranking, level=1):
    """trec_eval 9's bpref: each relevant retrieved document scores 1 − min(n, R)/min(R, N), n the judged
    non-relevant documents above it, N all judged non-relevant; 1 when N = 0; summed and divided by R."""
    r = nrel(qrels_q, level)
    n_total = sum(1 for g in qrels_q.values() if 0 <= g < level)
    nonrel_above, total = 0, Fr(0)
    for d in ranking:
        if d not in qrels_q:
            continue
        if qrels_q[d] >= level:
            total += 1 - Fr(min(nonrel_above, r), min(r, n_total)) if n_total else 1
        else:
            nonrel_above += 1
    return total / r if r else Fr(0)


def Fbeta(p, r, beta=Fr(1)):
    b2 = Fr(beta) ** 2
    return (1 + b2) * p * r / (b2 * p + r) if p + r else Fr(0)


def gains(qrels_q, ranking, k, exp=False, level=1):
    g = [qrels_q.get(d, 0) for d in ranking[:k]]
    g = [x if x >= level else 0 for x in g]
    return [(2 ** x - 1) if exp else x for x in g]


def DCG(qrels_q, ranking, k, exp=False, level=1):
    return mpmath.fsum(mpmath.mpf(g) / lg2(i + 1) for i, g in enumerate(gains(qrels_q, ranking, k, exp, level), 1))


def IDCG(qrels_q, k, exp=False, level=1, pool=None):
    """Ideal DCG@k: the judged grades (or, with ``pool``, only these documents' grades) sorted, cut at k."""
    docs = list(qrels_q) if pool is None else list(pool)
    ideal = sorted(docs, key=lambda d: -qrels_q.get(d, 0))
    return DCG(qrels_q, ideal, k, exp, level)


def nDCG(qrels_q, ranking, k, exp=False, level=1, pool=None):
    i = IDCG(qrels_q, k, exp, level, pool)
    return DCG(qrels_q, ranking, k, exp, level) / i if i else mpmath.mpf(0)


def ERR(grade_list, gmax=4):
    """Chapelle et al. 2009: stopping probability (2^g − 1)/2^gmax."""
    s, keep = Fr(0), Fr(1)
    for i, g in enumerate(grade_list, 1):
        r = Fr(2 ** g - 1, 2 ** gmax)
        s += keep * r / i
        keep *= 1 - r
    return s


def RBP(weights, p):
    """Moffat & Zobel 2008: (1 − p) Σ w_i p^(i−1); w_i is 1/0 (binary) or the grade (ranx's reading)."""
    p = Fr(p)
    return (1 - p) * sum(Fr(w) * p ** i for i, w in enumerate(weights))


def GMAP(aps, floor=None):
    """Geometric mean; ``floor`` replaces each AP below it (trec_eval gm_map: 0.00001)."""
    vals = [mpmath.mpf(max(a, floor) if floor is not None else a) for a in aps]
    if any(v == 0 for v in vals):
        return mpmath.mpf(0)
    return mpmath.exp(mpmath.fsum(mpmath.log(v) for v in vals) / len(vals))


# Other tools, from their published source (not installed here; computed by hand from that source):
def ml_metrics_apk(actual, predicted, k):
    """benhamner/Metrics Python/ml_metrics/average_precision.py: 1.0 for an empty ``actual``; else the sum of
    precisions at hits in the first k, divided by min(len(actual), k)."""
    if not actual:
        return Fr(1)
    predicted = predicted[:k]
    score, hits = Fr(0), 0
    for i, p in enumerate(predicted):
        if p in actual and p not in predicted[:i]:
            hits += 1
            score += Fr(hits, i + 1)
    return score / min(len(actual), k)


def torchmetrics_ap(actual, predicted, top_k):
    """Lightning-AI/torchmetrics functional/retrieval/average_precision.py: the mean of the precisions at the
    relevant positions within the top k (0 when there is none): it divides by the relevant retrieved."""
    top = predicted[:top_k]
    pos = [i for i, d in enumerate(top, 1) if d in actual]
    return sum(Fr(j, p) for j, p in enumerate(pos, 1)) / len(pos) if pos else Fr(0)


def sklearn_ndcg(labels, k):
    """scikit-learn ndcg_score on the labels it is given: the ideal re-sorts those same labels (linear gain)."""
    dcg = mpmath.fsum(mpmath.mpf(g) / lg2(i + 1) for i, g in enumerate(labels[:k], 1))
    ideal = sorted(labels, reverse=True)
    return dcg / mpmath.fsum(mpmath.mpf(g) / lg2(i + 1) for i, g in enumerate(ideal[:k], 1))


# --------------------------------------------------------------------------------------------------
# The libraries, called directly
# --------------------------------------------------------------------------------------------------


def scored(run):
    """Rankings as strictly decreasing integer scores (distinct in single precision too)."""
    return {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in run.items()}


def trec(qrels, run, measures, level=1):
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=level)
    return ev.evaluate(scored(run))


def trec_value(qrels, run, measure, key=None, q=None, level=1):
    out = trec(qrels, run, {measure}, level)
    key = key or measure.replace(".", "_")
    if q is not None:
        return out[q][key] if q in out else "left out"
    return out


def trec_gm_map(qrels, run, level=1):
    per = trec(qrels, run, {"gm_map"}, level)
    return pytrec_eval.compute_aggregated_measure("gm_map", [v["gm_map"] for v in per.values()])


def irm_provider(measure):
    for name, prov in ir_measures.providers.registry.items():
        try:
            if prov.supports(measure) and prov.is_available():
                return name
        except Exception:  # a provider that cannot judge the measure
            continue
    return None


_IRM_USED: list[tuple[str, str | None]] = []   # (measure, provider) of each ir-measures call, per statement


def irm(qrels, run, name, q=None, aggregate=False):
    """ir-measures with numeric query ids (gdeval needs them); returns the value, 'left out', or 'error: …'.
    The provider ir-measures' default pipeline picks (the first available one that supports the measure) is
    recorded and printed with the statement."""
    try:
        m = ir_measures.parse_measure(name)
        _IRM_USED.append((name, irm_provider(m)))
        ids = {x: str(i + 1) for i, x in enumerate(sorted(set(qrels) | set(run)))}
        back = {v: k for k, v in ids.items()}
        qr = {ids[x]: v for x, v in qrels.items()}
        rn = {ids[x]: v for x, v in scored(run).items()}
        if aggregate:
            return ir_measures.calc_aggregate([m], qr, rn)[m]
        per = {back[r.query_id]: r.value for r in ir_measures.iter_calc([m], qr, rn)}
        return per.get(q, "left out")
    except Exception as exc:  # the provider's own failure is the evidence
        return f"error: {type(exc).__name__}: {str(exc).strip()[:90]}"


_RANX = None


def rx(qrels, run, metric, q=None, aggregate=False, make_comparable=False):
    """ranx.evaluate with ids renamed to fixed-width tokens (one numba compilation per metric)."""
    global _RANX
    if _RANX is None:
        import ranx
        _RANX = ranx
    try:
        docs = sorted({d for v in qrels.values() for d in v} | {d for v in run.values() for d in v})
        dmap = {d: f"d{i:04d}" for i, d in enumerate(docs)}
        qmap = {x: f"q{i:03d}" for i, x in enumerate(sorted(set(qrels) | set(run)))}
        qr = _RANX.Qrels({qmap[x]: {dmap[d]: g for d, g in v.items()} for x, v in qrels.items()})
        rn = _RANX.Run({qmap[x]: {dmap[d]: s for d, s in v.items()} for x, v in scored(run).items()})
        res = _RANX.evaluate(qr, rn, metric, return_mean=aggregate, make_comparable=make_comparable)
        if aggregate:
            return float(res)
        return float(rn.scores[metric][qmap[q]])
    except Exception as exc:
        return f"error: {type(exc).__name__}: {str(exc).strip()[:90]}"


def rx_iprec(qrels, run, q):
    """ranx.metrics.interpolated_precision_at_recall (not reachable through ranx.evaluate): 11 values."""
    import ranx
    from ranx.meta.evaluate import convert_qrels, convert_run
    from ranx.metrics import interpolated_precision_at_recall
    qr = ranx.Qrels({q: qrels[q]})
    rn = ranx.Run({q: scored(run)[q]})
    return [float(x) for x in interpolated_precision_at_recall(convert_qrels(qr), convert_run(rn))[0]]


# --------------------------------------------------------------------------------------------------
# Fixtures (the same inputs the registers encode)
# --------------------------------------------------------------------------------------------------

# ranked-eval-textbook: twenty documents, relevant at ranks 1, 2, 4 and 15
T_DOCS = [f"d{i:02d}" for i in range(1, 21)]
T_QRELS = {"t": {d: (1 if d in ("d01", "d02", "d04", "d15") else 0) for d in T_DOCS}}
T_RUN = {"t": T_DOCS}
T_RUN15 = {"t": T_DOCS[:15]}
T_RUN4 = {"t": T_DOCS[:4]}
MAP3_QRELS = {"t2": {"a": 1, "n1": 0}, "t3": {"a": 1, "n1": 0}, "t4": {"a": 1, "n1": 0, "n2": 0, "n3": 0}}
MAP3_RUN = {"t2": ["a", "n1"], "t3": ["n1", "a"], "t4": ["n1", "n2", "n3", "a"]}
MAP4_QRELS = {**MAP3_QRELS, "t5": {"a": 1, "n1": 0}}
MAP4_RUN = {**MAP3_RUN, "t5": ["n1"]}

# trec-eval-lecture: topic 401, D01 … D12, D01 and D11 non-relevant
L_DOCS = [f"D{i:02d}" for i in range(1, 13)]
L_QRELS = {"401": {d: (0 if d in ("D01", "D11") else 1) for d in L_DOCS}}
L_RUN = {"401": L_DOCS}
L_QRELS_D11_UNJUDGED = {"401": {d: g for d, g in L_QRELS["401"].items() if d != "D11"}}
L_GRADED = {"401": {d: (2 if d in ("D03", "D04", "D06", "D10") else g) for d, g in L_QRELS["401"].items()}}
L_QRELS_3 = {**L_QRELS, "402": {"E01": 0, "E02": 0, "E03": 0}}             # 403: no qrels line at all
L_RUN_3 = {**L_RUN, "402": ["E01", "E02", "E03"], "403": ["F01", "F02"]}
L_QRELS_4 = {**L_QRELS_3, "404": {"G01": 1}}                               # 404: judged, nothing returned
L_RUN_4 = dict(L_RUN_3)

# qa-ranked-list-answer: ten results, relevant at 1, 3, 4, 6, 9; seven relevant in all
QA_RANK = ["r1", "n2", "r3", "r4", "n5", "r6", "n7", "n8", "r9", "n10"]
QA_QRELS = {"q": {d: (1 if d.startswith("r") else 0) for d in QA_RANK} | {"x1": 1, "x2": 1}}
QA_RUN = {"q": QA_RANK}
QA_LABELS = [QA_QRELS["q"][d] for d in QA_RANK]

# ranx-metrics-docs: the ranx README example
RX_QRELS = {"q_1": {"d_12": 5, "d_25": 3}, "q_2": {"d_11": 6, "d_22": 1}}
RX_RUN = {"q_1": ["d_12", "d_23", "d_25", "d_36", "d_32", "d_35"],
          "q_2": ["d_12", "d_11", "d_25", "d_36", "d_22", "d_35"]}

# ndcg-err-blog: four graded results (poor 1 … perfect 4), only these four judged
BL_QRELS = {"q": {"a": 4, "b": 3, "c": 2, "d": 1}}
BL_DESC = {"q": ["a", "b", "c", "d"]}
BL_FLIP = {"q": ["d", "c", "b", "a"]}
BL_FLAT_QRELS = {"q": {"a": 3, "b": 3, "c": 3, "e": 3}}
BL_FLAT = {"q": ["a", "b", "c", "e"]}
BL_FLAT7_QRELS = {"q": {"a": 3, "b": 3, "c": 3, "e": 3, "n1": 0, "n2": 0, "p": 4}}
BL_FLAT7 = {"q": ["a", "b", "c", "e", "n1", "n2", "p"]}
BL_4111_QRELS = {"q": {"a": 4, "b": 1, "c": 1, "d": 1}}
BL_4111 = {"q": ["a", "b", "c", "d"]}
BL_ONES_QRELS = {"q": {"a": 1, "b": 1, "c": 1, "d": 1}}
BL_3L_QRELS = {"q": {"x": 2, "y": 0, "z": 1}}
BL_3L = {"q": ["x", "y", "z"]}

# persistence-cutoffs-faq: ten results, relevant at 1, 2, 4, 7; rank 5 unjudged
FQ_RANK = ["r1", "r2", "n3", "r4", "u5", "n6", "r7", "n8", "n9", "n10"]
FQ_QRELS = {"q": {d: (1 if d.startswith("r") else 0) for d in FQ_RANK if not d.startswith("u")}}
FQ_RUN = {"q": FQ_RANK}
FQ_ALLREL_QRELS = {"q": {f"r{i}": 1 for i in range(1, 11)}}
FQ_ALLREL = {"q": [f"r{i}" for i in range(1, 11)]}
AK_QRELS = {"q": {"a": 1, "b": 1, "d": 1, "c": 0, "e": 0, "f": 0}}           # R Metrics apk example
AK_RUN = {"q": ["b", "c", "a", "e", "f"]}
MK_ACTUAL = [{"1", "5", "7", "9"}, {"2", "3"}, {"2", "5", "6"}]            # R Metrics mapk example
MK_PRED = [["5", "6", "7", "8", "9"], ["1", "2", "3"], ["2", "4", "6", "8"]]
MK_QRELS = {f"m{i}": {d: 1 for d in a} for i, a in enumerate(MK_ACTUAL, 1)}
for _i, (_a, _p) in enumerate(zip(MK_ACTUAL, MK_PRED), 1):
    MK_QRELS[f"m{_i}"].update({d: 0 for d in _p if d not in _a})
MK_RUN = {f"m{i}": p for i, p in enumerate(MK_PRED, 1)}
NR_QRELS = {"q1": {"a": 1, "n": 0}, "q2": {"b": 0, "c": 0}}                 # AP 0.5 and a no-relevant query
NR_RUN = {"q1": ["n", "a"], "q2": ["b", "c"]}


# --------------------------------------------------------------------------------------------------
# Small exhaustive searches for the universal statements
# --------------------------------------------------------------------------------------------------


def binary_cases(max_len=6):
    """(qrels_q, ranking, k) for every binary ranking up to max_len with 0–2 unretrieved relevant."""
    for n in range(1, max_len + 1):
        for bits in itertools.product((0, 1), repeat=n):
            for extra in range(3):
                ranking = [f"d{i}" for i in range(n)]
                qrels_q = {f"d{i}": b for i, b in enumerate(bits)} | {f"x{j}": 1 for j in range(extra)}
                if nrel(qrels_q):
                    for k in range(1, n + 1):
                        yield qrels_q, ranking, k


def search(pred):
    """The first case where ``pred`` fails, or None; and how many cases were searched."""
    count = 0
    for case in binary_cases():
        count += 1
        if not pred(*case):
            return case, count
    return None, count


def holds(pred):
    bad, n = search(pred)
    return f"holds on all {n} binary cases searched" if bad is None else f"fails: {bad}"


# --------------------------------------------------------------------------------------------------
# The statements
# --------------------------------------------------------------------------------------------------

STATEMENTS: list[dict] = []


def S(text, quote, compute, primary="hand"):
    STATEMENTS.append({"text": text, "quote": quote, "compute": compute, "primary": primary})


def ideal_run(qrels_q):
    return sorted(qrels_q, key=lambda d: -qrels_q[d])


# ---- ranked-eval-textbook -----------------------------------------------------------------------
TB = "ranked-eval-textbook"
t = T_QRELS["t"]
S(TB, "Four of the twenty documents are relevant to t", lambda: {
    "hand": Fr(nrel(t)), "trec_eval num_rel": trec_value(T_QRELS, T_RUN, "num_rel", q="t"),
    "ir_measures NumRel": irm(T_QRELS, T_RUN, "NumRel", "t")})
S(TB, "The system ranks all twenty documents", lambda: {
    "hand": Fr(20), "trec_eval num_ret": trec_value(T_QRELS, T_RUN, "num_ret", q="t"),
    "ir_measures NumRet": irm(T_QRELS, T_RUN, "NumRet", "t")})
for k, quote in ((1, "| 1 | 0.25 | 1.00 |"), (2, "| 2 | 0.50 | 1.00 |"), (4, "| 4 | 0.75 | 0.75 |"),
                 (15, "| 15 | 1.00 | 0.27 |")):
    S(TB, quote, lambda k=k: {
        "hand R@k": R(t, T_DOCS, k), "hand P@k": P(t, T_DOCS, k),
        "trec_eval recall_k": trec_value(T_QRELS, T_RUN, f"recall.{k}", q="t"),
        "trec_eval P_k": trec_value(T_QRELS, T_RUN, f"P.{k}", q="t"),
        "ir_measures R@k": irm(T_QRELS, T_RUN, f"R@{k}", "t"), "ir_measures P@k": irm(T_QRELS, T_RUN, f"P@{k}", "t"),
        "ranx recall@k": rx(T_QRELS, T_RUN, f"recall@{k}", "t"), "ranx precision@k": rx(T_QRELS, T_RUN, f"precision@{k}", "t")},
      primary="hand P@k")


def tb_iprec(levels):
    def f():
        out = {}
        iv = trec(T_QRELS, T_RUN, {"iprec_at_recall"})["t"]
        rxv = rx_iprec(T_QRELS, T_RUN, "t")
        for lv in levels:
            out[f"hand IPrec@{lv}"] = IPrec(t, T_DOCS, Fr(lv).limit_denominator(10))
            out[f"trec_eval iprec_at_recall_{lv:.2f}"] = iv[f"iprec_at_recall_{lv:.2f}"]
            out[f"ir_measures IPrec@{lv}"] = irm(T_QRELS, T_RUN, f"IPrec@{lv}", "t")
            out[f"ranx interpolated_precision_at_recall[{lv}]"] = rxv[int(round(lv * 10))]
        return out
    return f


S(TB, "interpolated precision is 1 at every standard recall level from 0.0 up to 0.5",
  tb_iprec([0.0, 0.1, 0.2, 0.3, 0.4, 0.5]), primary="hand IPrec@0.5")
S(TB, "then 0.75 at the levels 0.6 and 0.7", tb_iprec([0.6, 0.7]), primary="hand IPrec@0.6")
S(TB, "and 0.27 from 0.8 to 1.0", tb_iprec([0.8, 0.9, 1.0]), primary="hand IPrec@0.8")
S(TB, "(6 × 1 + 2 × 0.75 + 3 × 0.27)/11 = 8.31/11 ≈ 0.7555", lambda: {
    "hand": elevenpt(t, T_DOCS), "hand, with the printed 0.27": Fr("8.31") / 11,
    "trec_eval 11pt_avg": trec_value(T_QRELS, T_RUN, "11pt_avg", q="t"),
    "ranx interpolated_precision_at_recall, mean": sum(rx_iprec(T_QRELS, T_RUN, "t")) / 11})
S(TB, "AP = (1 + 1 + 0.75 + 0.267)/4 ≈ 0.754", lambda: {
    "hand": AP(t, T_DOCS), "trec_eval map": trec_value(T_QRELS, T_RUN, "map", q="t"),
    "ir_measures AP": irm(T_QRELS, T_RUN, "AP", "t"), "ranx map": rx(T_QRELS, T_RUN, "map", "t")})
S(TB, "AP@10 = (1 + 1 + 0.75)/4 = 0.6875", lambda: {
    "hand (|R|)": AP(t, T_DOCS, 10), "hand (min(k,|R|), ml_metrics)": AP(t, T_DOCS, 10, denominator="min(k, |R|)"),
    "hand (relevant retrieved, torchmetrics)": AP(t, T_DOCS, 10, denominator="relevant retrieved"),
    "trec_eval map_cut_10": trec_value(T_QRELS, T_RUN, "map_cut.10", q="t"),
    "ir_measures AP@10": irm(T_QRELS, T_RUN, "AP@10", "t"), "ranx map@10": rx(T_QRELS, T_RUN, "map@10", "t")},
  primary="hand (|R|)")
S(TB, "so R-precision is 3/4", lambda: {
    "hand": Rprec(t, T_DOCS), "trec_eval Rprec": trec_value(T_QRELS, T_RUN, "Rprec", q="t"),
    "ir_measures Rprec": irm(T_QRELS, T_RUN, "Rprec", "t"), "ranx r-precision": rx(T_QRELS, T_RUN, "r-precision", "t")})
S(TB, "At that cutoff precision and recall are both 0.75", lambda: {
    "hand P@4": P(t, T_DOCS, 4), "hand R@4": R(t, T_DOCS, 4),
    "trec_eval P_4": trec_value(T_QRELS, T_RUN, "P.4", q="t"),
    "trec_eval recall_4": trec_value(T_QRELS, T_RUN, "recall.4", q="t"),
    "ranx precision@4": rx(T_QRELS, T_RUN, "precision@4", "t"), "ranx recall@4": rx(T_QRELS, T_RUN, "recall@4", "t")},
  primary="hand P@4")
S(TB, "R-precision always equals the recall at rank |R|", lambda: {
    "hand": holds(lambda q, r, k: Rprec(q, r) == Fr(sum(flags(q, r[:nrel(q)])), nrel(q)))})
S(TB, "so its F1 is 0.75", lambda: {
    "hand F@4": Fbeta(P(t, T_DOCS, 4), R(t, T_DOCS, 4)),
    "trec_eval set_F (run cut at 4)": trec_value(T_QRELS, T_RUN4, "set_F", q="t"),
    "ir_measures SetF (run cut at 4)": irm(T_QRELS, T_RUN4, "SetF", "t"), "ranx f1@4": rx(T_QRELS, T_RUN, "f1@4", "t")},
  primary="hand F@4")
S(TB, "F1 = 2 · (4/15) · 1/(4/15 + 1) = 8/19 ≈ 0.42", lambda: {
    "hand F@15": Fbeta(P(t, T_DOCS, 15), R(t, T_DOCS, 15)),
    "trec_eval set_F (run cut at 15)": trec_value(T_QRELS, T_RUN15, "set_F", q="t"),
    "ir_measures SetF (run cut at 15)": irm(T_QRELS, T_RUN15, "SetF", "t"), "ranx f1@15": rx(T_QRELS, T_RUN, "f1@15", "t")},
  primary="hand F@15")
S(TB, "F2 = 5PR/(4P + R) = 20/31 ≈ 0.65", lambda: {
    "hand F(beta=2)@15": Fbeta(P(t, T_DOCS, 15), R(t, T_DOCS, 15), 2),
    "trec_eval set_F.4 (run cut at 15; trec_eval's x is beta squared)": trec(T_QRELS, T_RUN15, {"set_F.4"})["t"]["set_F"],
    "trec_eval set_F.2 (run cut at 15)": trec(T_QRELS, T_RUN15, {"set_F.2"})["t"]["set_F"],
    "ir_measures SetF(beta=4.0) (run cut at 15)": irm(T_QRELS, T_RUN15, "SetF(beta=4.0)", "t"),
    "ir_measures SetF(beta=2.0) (run cut at 15)": irm(T_QRELS, T_RUN15, "SetF(beta=2.0)", "t"),
    "ir_measures SetF(beta=2)": irm(T_QRELS, T_RUN15, "SetF(beta=2)", "t")}, primary="hand F(beta=2)@15")
S(TB, "F0.5, which leans towards precision, comes to about 0.36", lambda: {
    "hand F(beta=0.5)@15": Fbeta(P(t, T_DOCS, 15), R(t, T_DOCS, 15), Fr(1, 2)),
    "trec_eval set_F.0.25 (run cut at 15; x = beta squared)": trec(T_QRELS, T_RUN15, {"set_F.0.25"})["t"]["set_F"],
    "trec_eval set_F.0.5 (run cut at 15)": trec(T_QRELS, T_RUN15, {"set_F.0.5"})["t"]["set_F"],
    "ir_measures SetF(beta=0.5) (run cut at 15)": irm(T_QRELS, T_RUN15, "SetF(beta=0.5)", "t")},
  primary="hand F(beta=0.5)@15")
S(TB, "its F1 is exactly 1/3", lambda: {
    "hand SetF": Fbeta(Fr(4, 20), Fr(1)), "trec_eval set_F": trec_value(T_QRELS, T_RUN, "set_F", q="t"),
    "ir_measures SetF": irm(T_QRELS, T_RUN, "SetF", "t"), "ranx f1 (no cutoff)": rx(T_QRELS, T_RUN, "f1", "t")},
  primary="hand SetF")
S(TB, "F1 always lies between precision and recall", lambda: {
    "hand": holds(lambda q, r, k: min(P(q, r, k), R(q, r, k)) <= Fbeta(P(q, r, k), R(q, r, k))
                  <= max(P(q, r, k), R(q, r, k)))})
S(TB, "It can never exceed the smaller of the two", lambda: {
    "hand": holds(lambda q, r, k: Fbeta(P(q, r, k), R(q, r, k)) <= min(P(q, r, k), R(q, r, k))),
    "hand, topic t at k = 15": f"F1 = {Fbeta(P(t, T_DOCS, 15), R(t, T_DOCS, 15))} > P = {P(t, T_DOCS, 15)}",
    "ranx f1@15 vs precision@15": f"{rx(T_QRELS, T_RUN, 'f1@15', 't')} > {rx(T_QRELS, T_RUN, 'precision@15', 't')}"})
S(TB, "MAP over these three topics is 7/12 ≈ 0.583", lambda: {
    "hand": sum(AP(MAP3_QRELS[q], MAP3_RUN[q]) for q in MAP3_QRELS) / 3,
    "trec_eval map (mean)": sum(v["map"] for v in trec(MAP3_QRELS, MAP3_RUN, {"map"}).values()) / 3,
    "ir_measures AP (aggregate)": irm(MAP3_QRELS, MAP3_RUN, "AP", aggregate=True),
    "ranx map (mean)": rx(MAP3_QRELS, MAP3_RUN, "map", aggregate=True)})
S(TB, "(1 × 1/2 × 1/4)^(1/3) = 0.5", lambda: {
    "hand": GMAP([AP(MAP3_QRELS[q], MAP3_RUN[q]) for q in MAP3_QRELS]),
    "trec_eval gm_map (aggregated by pytrec_eval)": trec_gm_map(MAP3_QRELS, MAP3_RUN)})
S(TB, "MAP over the four topics falls to 7/16", lambda: {
    "hand": sum(AP(MAP4_QRELS[q], MAP4_RUN[q]) for q in MAP4_QRELS) / 4,
    "trec_eval map (mean)": sum(v["map"] for v in trec(MAP4_QRELS, MAP4_RUN, {"map"}).values()) / 4,
    "ir_measures AP (aggregate)": irm(MAP4_QRELS, MAP4_RUN, "AP", aggregate=True),
    "ranx map (mean)": rx(MAP4_QRELS, MAP4_RUN, "map", aggregate=True)})
S(TB, "GMAP falls to 0", lambda: {
    "hand (geometric mean, the text's definition)": GMAP([AP(MAP4_QRELS[q], MAP4_RUN[q]) for q in MAP4_QRELS]),
    "hand (APs floored at 0.00001, trec_eval)": GMAP([AP(MAP4_QRELS[q], MAP4_RUN[q]) for q in MAP4_QRELS], 1e-5),
    "trec_eval gm_map (aggregated by pytrec_eval)": trec_gm_map(MAP4_QRELS, MAP4_RUN)},
  primary="hand (geometric mean, the text's definition)")
S(TB, "GMAP is never larger than MAP", lambda: {
    "hand": ("holds: arithmetic–geometric mean inequality; also on 2000 random AP vectors: "
             + str(all(GMAP(v) <= mpmath.mpf(sum(v).numerator) / sum(v).denominator / len(v) + mpmath.mpf(10) ** -30 for v in
                       ([Fr(random.Random(i * 7 + j).randint(0, 100), 100) for j in range(1 + i % 6)]
                        for i in range(2000)))))})
S(TB, "such a topic is left out of the mean", lambda: {
    "hand": "AP = sum / |R| with |R| = 0 is 0/0; the text's declared rule (no_relevant: left out)",
    "trec_eval (all-zero judgements)": trec({"z": {"a": 0}}, {"z": ["a"]}, {"map"}).get("z", "left out"),
    "trec_eval (empty qrels entry)": trec({"z": {}, "y": {"a": 1}}, {"z": ["a"], "y": ["a"]}, {"map"}).get("z", "left out")})

# ---- trec-eval-lecture ---------------------------------------------------------------------------
LN = "trec-eval-lecture"
lq = L_QRELS["401"]


def ln_line(quote, hand, tmeasure, tkey, irname, rxname=None):
    S(LN, quote, lambda: {
        "hand": hand(), f"trec_eval {tkey}": trec_value(L_QRELS, L_RUN, tmeasure, key=tkey, q="401"),
        f"ir_measures {irname}": irm(L_QRELS, L_RUN, irname, "401") if irname else None,
        f"ranx {rxname}": rx(L_QRELS, L_RUN, rxname, "401") if rxname else None})


S(LN, "num_q                 all  1", lambda: {
    "hand": Fr(1), "trec_eval (queries returned)": len(trec(L_QRELS, L_RUN, {"map"})),
    "ir_measures NumQ": irm(L_QRELS, L_RUN, "NumQ", aggregate=True)})
ln_line("num_ret               all  12", lambda: Fr(12), "num_ret", "num_ret", "NumRet")
ln_line("num_rel               all  10", lambda: Fr(nrel(lq)), "num_rel", "num_rel", "NumRel")
ln_line("num_rel_ret           all  10", lambda: Fr(sum(flags(lq, L_DOCS))), "num_rel_ret", "num_rel_ret", "NumRelRet")
ln_line("map                   all  0.7904", lambda: AP(lq, L_DOCS), "map", "map", "AP", "map")
S(LN, "gm_map                all  0.7904", lambda: {
    "hand": GMAP([AP(lq, L_DOCS)], 1e-5), "trec_eval gm_map (aggregated)": trec_gm_map(L_QRELS, L_RUN)})
ln_line("Rprec                 all  0.9000", lambda: Rprec(lq, L_DOCS), "Rprec", "Rprec", "Rprec", "r-precision")
ln_line("bpref                 all  0.4500", lambda: Bpref(lq, L_DOCS), "bpref", "bpref", "Bpref", "bpref")
ln_line("recip_rank            all  0.5000", lambda: RR(lq, L_DOCS), "recip_rank", "recip_rank", "RR", "mrr")
ln_line("iprec_at_recall_0.00  all  0.9000", lambda: IPrec(lq, L_DOCS, 0), "iprec_at_recall.0.00",
        "iprec_at_recall_0.00", "IPrec@0.0")
ln_line("iprec_at_recall_1.00  all  0.8333", lambda: IPrec(lq, L_DOCS, 1), "iprec_at_recall.1.00",
        "iprec_at_recall_1.00", "IPrec@1.0")
for _k, _quote in ((5, "P_5                   all  0.8000"), (10, "P_10                  all  0.9000"),
                   (15, "P_15                  all  0.6667"), (30, "P_30                  all  0.3333")):
    ln_line(_quote, lambda _k=_k: P(lq, L_DOCS, _k), f"P.{_k}", f"P_{_k}", f"P@{_k}", f"precision@{_k}")
S(LN, "Every measure in this output lies between 0 and 1.", lambda: {
    "hand": "fails: num_ret = 12, num_rel = 10, num_rel_ret = 10",
    "trec_eval num_ret": trec_value(L_QRELS, L_RUN, "num_ret", q="401")})
S(LN, "num_rel counts the documents judged relevant in the qrels (10); num_rel_ret counts those the run returned (all 10).",
  lambda: {"hand num_rel": Fr(nrel(lq)), "hand num_rel_ret": Fr(sum(flags(lq, L_DOCS))),
           "trec_eval num_rel": trec_value(L_QRELS, L_RUN, "num_rel", q="401"),
           "trec_eval num_rel_ret": trec_value(L_QRELS, L_RUN, "num_rel_ret", q="401"),
           "ir_measures NumRelRet": irm(L_QRELS, L_RUN, "NumRelRet", "401")}, primary="hand num_rel")
S(LN, "AP = (1/2 + 2/3 + … + 9/10 + 10/12)/10 ≈ 0.7904", lambda: {
    "hand": AP(lq, L_DOCS), "trec_eval map": trec_value(L_QRELS, L_RUN, "map", q="401"),
    "ir_measures AP": irm(L_QRELS, L_RUN, "AP", "401"), "ranx map": rx(L_QRELS, L_RUN, "map", "401")})
S(LN, "gm_map equals map here because there is only one topic", lambda: {
    "hand gm_map": GMAP([AP(lq, L_DOCS)], 1e-5), "hand map": AP(lq, L_DOCS),
    "trec_eval gm_map (aggregated)": trec_gm_map(L_QRELS, L_RUN),
    "trec_eval map": trec_value(L_QRELS, L_RUN, "map", q="401")}, primary="hand gm_map")
S(LN, "so Rprec = 9/10", lambda: {
    "hand": Rprec(lq, L_DOCS), "trec_eval Rprec": trec_value(L_QRELS, L_RUN, "Rprec", q="401"),
    "ir_measures Rprec": irm(L_QRELS, L_RUN, "Rprec", "401"), "ranx r-precision": rx(L_QRELS, L_RUN, "r-precision", "401")})
S(LN, "giving 4.5/10 = 0.45", lambda: {
    "hand": Bpref(lq, L_DOCS), "trec_eval bpref": trec_value(L_QRELS, L_RUN, "bpref", q="401"),
    "ir_measures Bpref": irm(L_QRELS, L_RUN, "Bpref", "401"), "ranx bpref": rx(L_QRELS, L_RUN, "bpref", "401")})
S(LN, "If D11 were left unjudged instead of judged 0, bpref would not change", lambda: {
    "hand (after)": Bpref(L_QRELS_D11_UNJUDGED["401"], L_DOCS), "hand (before)": Bpref(lq, L_DOCS),
    "trec_eval bpref (after)": trec_value(L_QRELS_D11_UNJUDGED, L_RUN, "bpref", q="401"),
    "ir_measures Bpref (after)": irm(L_QRELS_D11_UNJUDGED, L_RUN, "Bpref", "401"),
    "ranx bpref (after)": rx(L_QRELS_D11_UNJUDGED, L_RUN, "bpref", "401")}, primary="hand (after)")
S(LN, "recip_rank is 1/2: the first relevant document is at rank 2", lambda: {
    "hand": RR(lq, L_DOCS), "trec_eval recip_rank": trec_value(L_QRELS, L_RUN, "recip_rank", q="401"),
    "ir_measures RR": irm(L_QRELS, L_RUN, "RR", "401"), "ranx mrr": rx(L_QRELS, L_RUN, "mrr", "401")})
S(LN, "iprec_at_recall_0.00 is the best precision anywhere in the list, 9/10 at rank 10", lambda: {
    "hand": IPrec(lq, L_DOCS, 0), "trec_eval": trec_value(L_QRELS, L_RUN, "iprec_at_recall.0.00",
                                                          key="iprec_at_recall_0.00", q="401"),
    "ir_measures IPrec@0.0": irm(L_QRELS, L_RUN, "IPrec@0.0", "401"),
    "ranx interpolated_precision_at_recall[0]": rx_iprec(L_QRELS, L_RUN, "401")[0]})
S(LN, "at recall 1.00 it is 10/12", lambda: {
    "hand": IPrec(lq, L_DOCS, 1), "trec_eval": trec_value(L_QRELS, L_RUN, "iprec_at_recall.1.00",
                                                          key="iprec_at_recall_1.00", q="401"),
    "ir_measures IPrec@1.0": irm(L_QRELS, L_RUN, "IPrec@1.0", "401"),
    "ranx interpolated_precision_at_recall[10]": rx_iprec(L_QRELS, L_RUN, "401")[10]})
S(LN, "P_15 = 10/15 even though only twelve documents came back: trec_eval divides by the cutoff, not by the number retrieved",
  lambda: {"hand (k)": P(lq, L_DOCS, 15), "hand (number returned)": Fr(10, 12),
           "trec_eval P_15": trec_value(L_QRELS, L_RUN, "P.15", q="401"),
           "ir_measures P@15": irm(L_QRELS, L_RUN, "P@15", "401"), "ranx precision@15": rx(L_QRELS, L_RUN, "precision@15", "401")},
  primary="trec_eval P_15")
S(LN, "P_30 = 10/30 for the same reason", lambda: {
    "hand": P(lq, L_DOCS, 30), "trec_eval P_30": trec_value(L_QRELS, L_RUN, "P.30", q="401"),
    "ranx precision@30": rx(L_QRELS, L_RUN, "precision@30", "401")})
S(LN, "P_12 would be 10/12 = 0.8333", lambda: {
    "hand": P(lq, L_DOCS, 12), "trec_eval P_12": trec_value(L_QRELS, L_RUN, "P.12", q="401"),
    "ir_measures P@12": irm(L_QRELS, L_RUN, "P@12", "401"), "ranx precision@12": rx(L_QRELS, L_RUN, "precision@12", "401")})
lg = L_GRADED["401"]
S(LN, "Without `-l`, any grade ≥ 1 counts, so map and Rprec stay at 0.7904 and 0.9", lambda: {
    "hand map": AP(lg, L_DOCS), "hand Rprec": Rprec(lg, L_DOCS),
    "trec_eval map": trec_value(L_GRADED, L_RUN, "map", q="401"),
    "trec_eval Rprec": trec_value(L_GRADED, L_RUN, "Rprec", q="401"),
    "ranx map": rx(L_GRADED, L_RUN, "map", "401"), "ranx r-precision": rx(L_GRADED, L_RUN, "r-precision", "401")},
  primary="hand map")
S(LN, "num_rel drops to 4", lambda: {
    "hand": Fr(nrel(lg, 2)), "trec_eval num_rel -l 2": trec_value(L_GRADED, L_RUN, "num_rel", q="401", level=2),
    "ir_measures NumRel(rel=2)": irm(L_GRADED, L_RUN, "NumRel(rel=2)", "401")})
S(LN, "Rprec at -l 2 is 2/4", lambda: {
    "hand": Rprec(lg, L_DOCS, 2), "trec_eval Rprec -l 2": trec_value(L_GRADED, L_RUN, "Rprec", q="401", level=2),
    "ir_measures Rprec(rel=2)": irm(L_GRADED, L_RUN, "Rprec(rel=2)", "401"),
    "ranx r-precision-l2": rx(L_GRADED, L_RUN, "r-precision-l2", "401")})
S(LN, "map at -l 2 = (1/3 + 2/4 + 3/6 + 4/10)/4 ≈ 0.4333", lambda: {
    "hand": AP(lg, L_DOCS, level=2), "trec_eval map -l 2": trec_value(L_GRADED, L_RUN, "map", q="401", level=2),
    "ir_measures AP(rel=2)": irm(L_GRADED, L_RUN, "AP(rel=2)", "401"), "ranx map-l2": rx(L_GRADED, L_RUN, "map-l2", "401")})
S(LN, "bpref at -l 2 counts the grade-1 documents as judged non-relevant and comes to 0.3125", lambda: {
    "hand": Bpref(lg, L_DOCS, 2), "trec_eval bpref -l 2": trec_value(L_GRADED, L_RUN, "bpref", q="401", level=2),
    "ir_measures Bpref(rel=2)": irm(L_GRADED, L_RUN, "Bpref(rel=2)", "401"),
    "ranx bpref-l2": rx(L_GRADED, L_RUN, "bpref-l2", "401")})
S(LN, "nDCG over all twelve documents of the regraded topic is 0.7586.", lambda: {
    "hand (linear gain)": nDCG(lg, L_DOCS, 12), "hand (exponential gain)": nDCG(lg, L_DOCS, 12, exp=True),
    "trec_eval ndcg": trec_value(L_GRADED, L_RUN, "ndcg", q="401"), "ir_measures nDCG": irm(L_GRADED, L_RUN, "nDCG", "401"),
    "ranx ndcg": rx(L_GRADED, L_RUN, "ndcg", "401"), "ranx ndcg_burges": rx(L_GRADED, L_RUN, "ndcg_burges", "401"),
    "ir_measures nDCG(dcg='exp-log2')@12 (gdeval)": irm(L_GRADED, L_RUN, "nDCG(dcg='exp-log2')@12", "401")},
  primary="hand (linear gain)")
S(LN, "`-l` also changes ndcg: at -l 2 the grade-1 documents stop contributing any gain.", lambda: {
    "trec_eval ndcg -l 1": trec_value(L_GRADED, L_RUN, "ndcg", q="401"),
    "trec_eval ndcg -l 2": trec_value(L_GRADED, L_RUN, "ndcg", q="401", level=2),
    "hand nDCG (gains kept)": nDCG(lg, L_DOCS, 12), "hand nDCG (grades < 2 dropped)": nDCG(lg, L_DOCS, 12, level=2),
    "ranx ndcg": rx(L_GRADED, L_RUN, "ndcg", "401"), "ranx ndcg-l2": rx(L_GRADED, L_RUN, "ndcg-l2", "401")},
  primary="trec_eval ndcg -l 2")
S(LN, "trec_eval still evaluates topic 402: its num_rel is 0, its map is 0, and it counts in num_q.", lambda: {
    "trec_eval 402": trec(L_QRELS_3, L_RUN_3, {"num_rel", "map"}).get("402", "left out"),
    "trec_eval num_q (queries returned)": len(trec(L_QRELS_3, L_RUN_3, {"map"})),
    "ir_measures AP 402": irm(L_QRELS_3, L_RUN_3, "AP", "402")}, primary="trec_eval num_q (queries returned)")
S(LN, "Topic 403 is skipped, and so is topic 404 without `-c`: num_q is 2 and the mean map over topics 401 and 402 is 0.3952.",
  lambda: {"hand": (AP(lq, L_DOCS) + 0) / 2,
           "trec_eval queries returned": sorted(trec(L_QRELS_4, L_RUN_4, {"map"})),
           "trec_eval map (mean)": sum(v["map"] for v in trec(L_QRELS_4, L_RUN_4, {"map"}).values())
           / len(trec(L_QRELS_4, L_RUN_4, {"map"}))}, primary="hand")
S(LN, "Counting topic 404 as well, the mean map is 0.2635.", lambda: {
    "hand (all judged topics, 404 scoring 0)": (AP(lq, L_DOCS) + 0 + 0) / 3,
    "hand (queries with results, trec_eval default)": (AP(lq, L_DOCS) + 0) / 2,
    "trec_eval map (mean over the topics it returns)": sum(v["map"] for v in trec(L_QRELS_4, L_RUN_4, {"map"}).values())
    / len(trec(L_QRELS_4, L_RUN_4, {"map"})),
    "ir_measures AP (aggregate)": irm(L_QRELS_4, L_RUN_4, "AP", aggregate=True),
    "ranx map (mean, make_comparable=True)": rx(L_QRELS_4, L_RUN_4, "map", aggregate=True, make_comparable=True)},
  primary="hand (all judged topics, 404 scoring 0)")
S(LN, "gm_map over 401 and 402 is 0.0028, not 0", lambda: {
    "hand (floor 0.00001)": GMAP([AP(lq, L_DOCS), Fr(0)], 1e-5), "hand (no floor)": GMAP([AP(lq, L_DOCS), Fr(0)]),
    "trec_eval gm_map (aggregated)": trec_gm_map(L_QRELS_3, L_RUN_3)}, primary="hand (floor 0.00001)")
S(LN, "ranx, too, silently skips topic 403 when handed the same qrels and run.", lambda: {
    "ranx map (as given)": rx(L_QRELS_3, L_RUN_3, "map", "401"),
    "ranx map (make_comparable=True), 401": rx(L_QRELS_3, L_RUN_3, "map", "401", make_comparable=True),
    "ir_measures AP 403": irm(L_QRELS_3, L_RUN_3, "AP", "403")}, primary="ranx map (as given)")
S(LN, "Older trec_eval releases (7.0) went further and ignored every topic without relevant documents.", lambda: {
    "source": "trec_eval 7.0beta README: 'Queries for which there are no relevant docs are ignored.' (not run)",
    "trec_eval 9 via pytrec_eval, 402": trec(L_QRELS_3, L_RUN_3, {"map"}).get("402", "left out")}, primary="source")

# ---- qa-ranked-list-answer -----------------------------------------------------------------------
QA = "qa-ranked-list-answer"
qq = QA_QRELS["q"]


def qa(quote, compute, primary="hand"):
    S(QA, quote, compute, primary)


qa("Write the list as a relevance vector first: 1 0 1 1 0 1 0 0 1 0.", lambda: {
    "hand": " ".join(str(x) for x in flags(qq, QA_RANK))})
qa("so P@10 = 5/10 = 0.5", lambda: {
    "hand": P(qq, QA_RANK, 10), "trec_eval P_10": trec_value(QA_QRELS, QA_RUN, "P.10", q="q"),
    "ir_measures P@10": irm(QA_QRELS, QA_RUN, "P@10", "q"), "ranx precision@10": rx(QA_QRELS, QA_RUN, "precision@10", "q")})
qa("so R@10 = 5/7 ≈ 0.714", lambda: {
    "hand": R(qq, QA_RANK, 10), "trec_eval recall_10": trec_value(QA_QRELS, QA_RUN, "recall.10", q="q"),
    "ir_measures R@10": irm(QA_QRELS, QA_RUN, "R@10", "q"), "ranx recall@10": rx(QA_QRELS, QA_RUN, "recall@10", "q")})
qa("F1 = 2PR/(P + R) = 2(0.5)(0.714)/1.214 ≈ 0.588", lambda: {
    "hand F@10": Fbeta(P(qq, QA_RANK, 10), R(qq, QA_RANK, 10)), "hand with printed 0.714": 2 * Fr("0.5") * Fr("0.714") / Fr("1.214"),
    "trec_eval set_F": trec_value(QA_QRELS, QA_RUN, "set_F", q="q"), "ir_measures SetF": irm(QA_QRELS, QA_RUN, "SetF", "q"),
    "ranx f1@10": rx(QA_QRELS, QA_RUN, "f1@10", "q")}, primary="hand F@10")
qa("so P@5 = 0.6, R@5 = 3/7", lambda: {
    "hand P@5": P(qq, QA_RANK, 5), "hand R@5": R(qq, QA_RANK, 5),
    "trec_eval P_5": trec_value(QA_QRELS, QA_RUN, "P.5", q="q"), "trec_eval recall_5": trec_value(QA_QRELS, QA_RUN, "recall.5", q="q"),
    "ranx precision@5": rx(QA_QRELS, QA_RUN, "precision@5", "q"), "ranx recall@5": rx(QA_QRELS, QA_RUN, "recall@5", "q")},
   primary="hand P@5")
qa("F1@5 = 0.5 exactly", lambda: {
    "hand F@5": Fbeta(P(qq, QA_RANK, 5), R(qq, QA_RANK, 5)),
    "trec_eval set_F (run cut at 5)": trec_value(QA_QRELS, {"q": QA_RANK[:5]}, "set_F", q="q"),
    "ir_measures SetF (run cut at 5)": irm(QA_QRELS, {"q": QA_RANK[:5]}, "SetF", "q"),
    "ranx f1@5": rx(QA_QRELS, QA_RUN, "f1@5", "q")}, primary="hand F@5")
qa("= 1 + 0.5 + 0.43 + 0.36 + 0.30 = 2.59", lambda: {
    "hand DCG@10": DCG(qq, QA_RANK, 10), "hand, printed terms": Fr("2.59"), "ranx dcg@10": rx(QA_QRELS, QA_RUN, "dcg@10", "q")},
   primary="hand DCG@10")
qa("IDCG@10 = 1 + 0.63 + 0.5 + 0.43 + 0.39 + 0.36 + 0.33 = 3.64", lambda: {
    "hand IDCG@10": IDCG(qq, 10),
    "ranx dcg@10 of the ideal ranking": rx(QA_QRELS, {"q": ideal_run(qq)}, "dcg@10", "q")}, primary="hand IDCG@10")
qa("so nDCG@10 = 2.59/3.64 = 0.7115", lambda: {
    "hand nDCG@10 (judged ideal)": nDCG(qq, QA_RANK, 10), "hand, rounded terms 2.59/3.64": mpmath.mpf(259) / 364,
    "trec_eval ndcg_cut_10": trec_value(QA_QRELS, QA_RUN, "ndcg_cut.10", q="q"),
    "ir_measures nDCG@10": irm(QA_QRELS, QA_RUN, "nDCG@10", "q"), "ranx ndcg@10": rx(QA_QRELS, QA_RUN, "ndcg@10", "q")},
   primary="hand nDCG@10 (judged ideal)")
qa("has an ideal of 2.95 and reports nDCG@10 ≈ 0.878", lambda: {
    "hand scikit-learn ndcg_score on the ten labels": sklearn_ndcg(QA_LABELS, 10),
    "hand ideal of the ten": IDCG(qq, 10, pool=QA_RANK),
    "trec_eval ndcg_cut_10 (judged ideal)": trec_value(QA_QRELS, QA_RUN, "ndcg_cut.10", q="q"),
    "ranx ndcg@10 (judged ideal)": rx(QA_QRELS, QA_RUN, "ndcg@10", "q")},
   primary="hand scikit-learn ndcg_score on the ten labels")
for _rank, _quote in ((1, "| 1 | 1/1 | 1/7 |"), (3, "| 3 | 2/3 | 2/7 |"), (4, "| 4 | 3/4 | 3/7 |"),
                      (6, "| 6 | 4/6 | 4/7 |"), (9, "| 9 | 5/9 | 5/7 |")):
    qa(_quote, lambda k=_rank: {
        "hand P@k": P(qq, QA_RANK, k), "hand R@k": R(qq, QA_RANK, k),
        "trec_eval P_k": trec_value(QA_QRELS, QA_RUN, f"P.{k}", q="q"),
        "trec_eval recall_k": trec_value(QA_QRELS, QA_RUN, f"recall.{k}", q="q"),
        "ranx precision@k": rx(QA_QRELS, QA_RUN, f"precision@{k}", "q")}, primary="hand P@k")


def qa_iprec(levels):
    def f():
        iv = trec(QA_QRELS, QA_RUN, {"iprec_at_recall"})["q"]
        rxv = rx_iprec(QA_QRELS, QA_RUN, "q")
        out = {}
        for lv in levels:
            out[f"hand IPrec@{lv}"] = IPrec(qq, QA_RANK, Fr(lv).limit_denominator(10))
            out[f"trec_eval iprec_at_recall_{lv:.2f}"] = iv[f"iprec_at_recall_{lv:.2f}"]
            out[f"ir_measures IPrec@{lv}"] = irm(QA_QRELS, QA_RUN, f"IPrec@{lv}", "q")
            out[f"ranx [{lv}]"] = rxv[int(round(lv * 10))]
        return out
    return f


qa("| 0.0, 0.1 | 1.00 |", qa_iprec([0.0, 0.1]), "hand IPrec@0.1")
qa("| 0.2 | 0.67 |", qa_iprec([0.2]), "hand IPrec@0.2")
qa("| 0.3, 0.4 | 0.75 |", qa_iprec([0.3, 0.4]), "hand IPrec@0.3")
qa("| 0.5 | 0.67 |", qa_iprec([0.5]), "hand IPrec@0.5")
qa("| 0.6, 0.7 | 0.56 |", qa_iprec([0.6, 0.7]), "hand IPrec@0.6")
qa("| 0.8, 0.9, 1.0 | 0.00 |", qa_iprec([0.8, 0.9, 1.0]), "hand IPrec@0.8")
qa("an eleven-point interpolated average precision of 5.96/11 ≈ 0.542", lambda: {
    "hand": elevenpt(qq, QA_RANK), "hand, the answer's table": Fr("5.96") / 11,
    "trec_eval 11pt_avg": trec_value(QA_QRELS, QA_RUN, "11pt_avg", q="q"),
    "ranx interpolated_precision_at_recall, mean": sum(rx_iprec(QA_QRELS, QA_RUN, "q")) / 11})
qa("AP = (1/1 + 2/3 + 3/4 + 4/6 + 5/9)/7 ≈ 0.520", lambda: {
    "hand": AP(qq, QA_RANK), "trec_eval map": trec_value(QA_QRELS, QA_RUN, "map", q="q"),
    "ir_measures AP": irm(QA_QRELS, QA_RUN, "AP", "q"), "ranx map": rx(QA_QRELS, QA_RUN, "map", "q")})
qa("and they would print 0.728", lambda: {
    "hand torchmetrics retrieval_average_precision": torchmetrics_ap({d for d, g in qq.items() if g}, QA_RANK, 10),
    "hand (relevant retrieved)": AP(qq, QA_RANK, denominator="relevant retrieved"),
    "trec_eval map (|R|)": trec_value(QA_QRELS, QA_RUN, "map", q="q")},
   primary="hand torchmetrics retrieval_average_precision")
qa("R-precision = 4/7 ≈ 0.571", lambda: {
    "hand": Rprec(qq, QA_RANK), "trec_eval Rprec": trec_value(QA_QRELS, QA_RUN, "Rprec", q="q"),
    "ir_measures Rprec": irm(QA_QRELS, QA_RUN, "Rprec", "q"), "ranx r-precision": rx(QA_QRELS, QA_RUN, "r-precision", "q")})
qa("which is also the recall at rank 7", lambda: {
    "hand R@7": R(qq, QA_RANK, 7), "hand Rprec": Rprec(qq, QA_RANK),
    "trec_eval recall_7": trec_value(QA_QRELS, QA_RUN, "recall.7", q="q"), "ranx recall@7": rx(QA_QRELS, QA_RUN, "recall@7", "q")},
   primary="hand R@7")
qa("The reciprocal rank is 1, because the first result is relevant.", lambda: {
    "hand": RR(qq, QA_RANK), "trec_eval recip_rank": trec_value(QA_QRELS, QA_RUN, "recip_rank", q="q"),
    "ir_measures RR": irm(QA_QRELS, QA_RUN, "RR", "q"), "ranx mrr": rx(QA_QRELS, QA_RUN, "mrr", "q")})
qa("it is 5/20 = 0.25", lambda: {
    "hand (denominator k, trec_eval)": P(qq, QA_RANK, 20), "hand (number returned)": Fr(5, 10),
    "trec_eval P_20": trec_value(QA_QRELS, QA_RUN, "P.20", q="q"), "ir_measures P@20": irm(QA_QRELS, QA_RUN, "P@20", "q"),
    "ranx precision@20": rx(QA_QRELS, QA_RUN, "precision@20", "q")}, primary="hand (denominator k, trec_eval)")
qa("AP never exceeds recall at the same depth", lambda: {
    "hand": holds(lambda q, r, k: AP(q, r, k) <= R(q, r, k))})
qa("And nDCG is never below precision at the same cutoff", lambda: {
    "hand": holds(lambda q, r, k: nDCG(q, r, k) >= P(q, r, k)),
    "trec_eval on [n, a], two relevant": trec({"c": {"a": 1, "b": 1, "n": 0}}, {"c": ["n", "a"]}, {"P.2", "ndcg_cut.2"})["c"]})
_QA30_QRELS = {"c": {f"n{i}": 0 for i in range(1, 6)} | {f"r{i}": 1 for i in range(6, 16)}}
_QA30_RUN = {"c": [f"n{i}" for i in range(1, 6)] + [f"r{i}" for i in range(6, 11)]}
qa("so if your P@10 is 0.5 your nDCG@10 is at least 0.5", lambda: {
    "hand nDCG@10 (5 of 10 relevant at ranks 6–10, |R| = 10)": nDCG(_QA30_QRELS["c"], _QA30_RUN["c"], 10),
    "hand P@10": P(_QA30_QRELS["c"], _QA30_RUN["c"], 10),
    "trec_eval ndcg_cut_10": trec_value(_QA30_QRELS, _QA30_RUN, "ndcg_cut.10", q="c"),
    "ranx ndcg@10": rx(_QA30_QRELS, _QA30_RUN, "ndcg@10", "c")},
   primary="hand nDCG@10 (5 of 10 relevant at ranks 6–10, |R| = 10)")

# ---- ranx-metrics-docs ---------------------------------------------------------------------------
RXT = "ranx-metrics-docs"


def rxd(quote, compute, primary="ranx"):
    S(RXT, quote, compute, primary)


q1, q2 = RX_QRELS["q_1"], RX_QRELS["q_2"]
rxd("`hits@5` is 2 for q_1", lambda: {
    "hand": Fr(sum(flags(q1, RX_RUN["q_1"][:5]))), "ranx": rx(RX_QRELS, RX_RUN, "hits@5", "q_1"),
    "trec_eval num_rel_ret": trec_value(RX_QRELS, RX_RUN, "num_rel_ret", q="q_1"),
    "ir_measures NumRelRet": irm(RX_QRELS, RX_RUN, "NumRelRet", "q_1")})
rxd("`precision@5` is 0.4 for both queries", lambda: {
    "hand q_1": P(q1, RX_RUN["q_1"], 5), "hand q_2": P(q2, RX_RUN["q_2"], 5),
    "ranx": rx(RX_QRELS, RX_RUN, "precision@5", "q_1"), "ranx q_2": rx(RX_QRELS, RX_RUN, "precision@5", "q_2"),
    "trec_eval P_5 q_2": trec_value(RX_QRELS, RX_RUN, "P.5", q="q_2")})
rxd("`precision@10` is 2/10 = 0.2 here", lambda: {
    "hand": P(q1, RX_RUN["q_1"], 10), "ranx": rx(RX_QRELS, RX_RUN, "precision@10", "q_1"),
    "trec_eval P_10": trec_value(RX_QRELS, RX_RUN, "P.10", q="q_1"), "ir_measures P@10": irm(RX_QRELS, RX_RUN, "P@10", "q_1")})
rxd("Precision@k always divides by k, even when a run returns fewer than k documents", lambda: {
    "ranx": rx(RX_QRELS, RX_RUN, "precision@10", "q_1"), "hand (k)": Fr(2, 10), "hand (number returned)": Fr(2, 6)})
rxd("`recall@5` is 1 for both queries", lambda: {
    "hand": R(q1, RX_RUN["q_1"], 5), "ranx": rx(RX_QRELS, RX_RUN, "recall@5", "q_1"),
    "ranx q_2": rx(RX_QRELS, RX_RUN, "recall@5", "q_2"), "trec_eval recall_5 q_2": trec_value(RX_QRELS, RX_RUN, "recall.5", q="q_2")})
rxd("`f1@5` = 2 · 0.4 · 1/1.4 ≈ 0.5714 for each query", lambda: {
    "hand": Fbeta(P(q1, RX_RUN["q_1"], 5), R(q1, RX_RUN["q_1"], 5)), "ranx": rx(RX_QRELS, RX_RUN, "f1@5", "q_1"),
    "ranx q_2": rx(RX_QRELS, RX_RUN, "f1@5", "q_2"),
    "trec_eval set_F (run cut at 5)": trec_value(RX_QRELS, {q: r[:5] for q, r in RX_RUN.items()}, "set_F", q="q_2")})
rxd("`r-precision@5` returns the same as `r-precision`, 0.5 for each query here", lambda: {
    "hand": Rprec(q1, RX_RUN["q_1"]), "ranx": rx(RX_QRELS, RX_RUN, "r-precision@5", "q_1"),
    "ranx r-precision": rx(RX_QRELS, RX_RUN, "r-precision", "q_1"), "ranx r-precision@5 q_2": rx(RX_QRELS, RX_RUN, "r-precision@5", "q_2"),
    "trec_eval Rprec q_2": trec_value(RX_QRELS, RX_RUN, "Rprec", q="q_2")})
rxd("The alias to use is `r_precision`.", lambda: {"ranx": rx(RX_QRELS, RX_RUN, "r_precision", "q_1")})
rxd("so `mrr` is 0.75", lambda: {
    "hand": (RR(q1, RX_RUN["q_1"]) + RR(q2, RX_RUN["q_2"])) / 2, "ranx": rx(RX_QRELS, RX_RUN, "mrr", aggregate=True),
    "ir_measures RR": irm(RX_QRELS, RX_RUN, "RR", aggregate=True)}, primary="hand")
rxd("`map@5` is (1 + 2/3)/2 ≈ 0.8333 for q_1 and (1/2 + 2/5)/2 = 0.45 for q_2", lambda: {
    "hand q_1": AP(q1, RX_RUN["q_1"], 5), "hand q_2": AP(q2, RX_RUN["q_2"], 5),
    "ranx q_1": rx(RX_QRELS, RX_RUN, "map@5", "q_1"), "ranx q_2": rx(RX_QRELS, RX_RUN, "map@5", "q_2"),
    "trec_eval map_cut_5 q_2": trec_value(RX_QRELS, RX_RUN, "map_cut.5", q="q_2")}, primary="hand q_1")
rxd("a mean of 0.6417", lambda: {
    "hand": (AP(q1, RX_RUN["q_1"], 5) + AP(q2, RX_RUN["q_2"], 5)) / 2, "ranx": rx(RX_QRELS, RX_RUN, "map@5", aggregate=True),
    "ir_measures AP@5": irm(RX_QRELS, RX_RUN, "AP@5", aggregate=True)}, primary="hand")
rxd("The divisor is the number of relevant documents of the query, never min(k, R).", lambda: {
    "ranx map@2 on relevant {a, b, c}, ranking [a, b, n]": rx({"p": {"a": 1, "b": 1, "c": 1}}, {"p": ["a", "b", "n"]}, "map@2", "p"),
    "hand (|R| = 3)": Fr(2, 3), "hand (min(k, |R|) = 2)": Fr(1)}, primary="ranx map@2 on relevant {a, b, c}, ranking [a, b, n]")
rxd("`dcg@5` for q_1 is 5 + 3/log2(4) = 6.5", lambda: {
    "hand": DCG(q1, RX_RUN["q_1"], 5), "ranx": rx(RX_QRELS, RX_RUN, "dcg@5", "q_1")})
rxd("`dcg_burges@5` for q_1 is 31 + 7/2 = 34.5", lambda: {
    "hand": DCG(q1, RX_RUN["q_1"], 5, exp=True), "ranx": rx(RX_QRELS, RX_RUN, "dcg_burges@5", "q_1")})
rxd("The ideal DCG@5 of q_2 is 6 + 1/log2(3) ≈ 6.631", lambda: {
    "hand": IDCG(q2, 5), "ranx dcg@5 of the ideal ranking": rx(RX_QRELS, {"q_1": ideal_run(q1), "q_2": ideal_run(q2)}, "dcg@5", "q_2")},
    primary="hand")
rxd("`ndcg@5` is 0.9430 for q_1 and 0.6292 for q_2", lambda: {
    "hand q_1": nDCG(q1, RX_RUN["q_1"], 5), "hand q_2": nDCG(q2, RX_RUN["q_2"], 5),
    "ranx q_1": rx(RX_QRELS, RX_RUN, "ndcg@5", "q_1"), "ranx q_2": rx(RX_QRELS, RX_RUN, "ndcg@5", "q_2"),
    "trec_eval ndcg_cut_5 q_1": trec_value(RX_QRELS, RX_RUN, "ndcg_cut.5", q="q_1"),
    "trec_eval ndcg_cut_5 q_2": trec_value(RX_QRELS, RX_RUN, "ndcg_cut.5", q="q_2"),
    "ir_measures nDCG@5 q_2": irm(RX_QRELS, RX_RUN, "nDCG@5", "q_2")}, primary="hand q_1")
rxd("a mean of 0.7861", lambda: {
    "hand": (nDCG(q1, RX_RUN["q_1"], 5) + nDCG(q2, RX_RUN["q_2"], 5)) / 2, "ranx": rx(RX_QRELS, RX_RUN, "ndcg@5", aggregate=True),
    "ir_measures nDCG@5": irm(RX_QRELS, RX_RUN, "nDCG@5", aggregate=True)}, primary="hand")
rxd("`ndcg_burges@5` for q_2 is about 0.6308", lambda: {
    "hand": nDCG(q2, RX_RUN["q_2"], 5, exp=True), "ranx": rx(RX_QRELS, RX_RUN, "ndcg_burges@5", "q_2"),
    "ir_measures nDCG(dcg='exp-log2')@5 (gdeval)": irm(RX_QRELS, RX_RUN, "nDCG(dcg='exp-log2')@5", "q_2")})
rxd('`evaluate(qrels, run, "bpref")` gives 1.0 for q_1', lambda: {
    "ranx": rx(RX_QRELS, RX_RUN, "bpref", "q_1"), "hand (trec_eval's rule)": Bpref(q1, RX_RUN["q_1"]),
    "trec_eval bpref": trec_value(RX_QRELS, RX_RUN, "bpref", q="q_1"), "ir_measures Bpref": irm(RX_QRELS, RX_RUN, "Bpref", "q_1")})
rxd("`rbp.95` means p = 0.95, and `rbp.8` and `rbp.80` are the same metric", lambda: {
    "ranx rbp.8": rx(RX_QRELS, RX_RUN, "rbp.8", "q_1"), "ranx rbp.80": rx(RX_QRELS, RX_RUN, "rbp.80", "q_1"),
    "ranx rbp.95": rx(RX_QRELS, RX_RUN, "rbp.95", "q_1"), "hand RBP(p=0.95), graded": RBP([5, 0, 3, 0, 0, 0], Fr(95, 100))},
    primary="ranx rbp.95")
rxd('For q_1, `evaluate(qrels, run, "rbp.80")` returns 0.2 × (1 + 0.8²) = 0.328.', lambda: {
    "ranx": rx(RX_QRELS, RX_RUN, "rbp.80", "q_1"), "hand binary (the page's definition)": RBP(flags(q1, RX_RUN["q_1"]), Fr(4, 5)),
    "hand with the grade as weight": RBP([q1.get(d, 0) for d in RX_RUN["q_1"]], Fr(4, 5)),
    "ir_measures RBP(p=0.8)": irm(RX_QRELS, RX_RUN, "RBP(p=0.8)", "q_1")})
rxd("Like every metric on this page, RBP lies between 0 and 1.", lambda: {
    "ranx rbp.80 q_1": rx(RX_QRELS, RX_RUN, "rbp.80", "q_1"), "ranx rbp.80 q_2": rx(RX_QRELS, RX_RUN, "rbp.80", "q_2"),
    "ranx dcg@5 q_1": rx(RX_QRELS, RX_RUN, "dcg@5", "q_1"), "ranx hits@5 q_1": rx(RX_QRELS, RX_RUN, "hits@5", "q_1")},
    primary="ranx rbp.80 q_1")
rxd("For q_2, `ndcg@5-l2` keeps only d_11, so it is (6/log2(3))/6 ≈ 0.6309.", lambda: {
    "ranx": rx(RX_QRELS, RX_RUN, "ndcg@5-l2", "q_2"), "hand (grades < 2 dropped)": nDCG(q2, RX_RUN["q_2"], 5, level=2)})
rxd("This matches `trec_eval -l 2`.", lambda: {
    "trec_eval ndcg_cut_5 -l 2": trec_value(RX_QRELS, RX_RUN, "ndcg_cut.5", q="q_2", level=2),
    "ranx ndcg@5-l2": rx(RX_QRELS, RX_RUN, "ndcg@5-l2", "q_2"), "hand (gains kept)": nDCG(q2, RX_RUN["q_2"], 5)},
    primary="trec_eval ndcg_cut_5 -l 2")
rxd("pass `make_comparable=True` to add empty results for queries missing from the run and to drop run queries that have no qrels",
    lambda: {"ranx without": rx({**RX_QRELS, "q_9": {"d_1": 1}}, {**RX_RUN, "q_8": ["d_1"]}, "map", "q_1"),
             "ranx with make_comparable=True, q_9": rx({**RX_QRELS, "q_9": {"d_1": 1}}, {**RX_RUN, "q_8": ["d_1"]}, "map", "q_9",
                                                       make_comparable=True)},
    primary="ranx with make_comparable=True, q_9")
rxd("A query whose qrels hold no relevant document scores 0 on every metric.", lambda: {
    f"ranx {m}": rx({**RX_QRELS, "q_3": {"d_11": 0, "d_22": 0}}, {**RX_RUN, "q_3": ["d_11", "d_22"]}, m, "q_3")
    for m in ("hits@5", "precision@5", "recall@5", "f1@5", "r-precision", "mrr", "map@5", "dcg@5", "ndcg@5",
              "ndcg_burges@5", "bpref", "rbp.80")}, primary="ranx bpref")

# ---- ndcg-err-blog --------------------------------------------------------------------------------
BLT = "ndcg-err-blog"
bq = BL_QRELS["q"]


def bl(quote, compute, primary="hand"):
    S(BLT, quote, compute, primary)


def bl_lib(qrels, run, k, exp=False):
    if exp:
        return {"ranx ndcg_burges": rx(qrels, run, f"ndcg_burges@{k}", "q"),
                "ir_measures nDCG(dcg='exp-log2') (gdeval)": irm(qrels, run, f"nDCG(dcg='exp-log2')@{k}", "q")}
    return {"trec_eval ndcg_cut": trec_value(qrels, run, f"ndcg_cut.{k}", q="q"),
            "ir_measures nDCG": irm(qrels, run, f"nDCG@{k}", "q"), "ranx ndcg": rx(qrels, run, f"ndcg@{k}", "q")}


bl("DCG@4 = 4 + 3/1.585 + 2/2 + 1/2.322 = 4 + 1.89 + 1 + 0.43 = 7.32", lambda: {
    "hand": DCG(bq, BL_DESC["q"], 4), "ranx dcg@4": rx(BL_QRELS, BL_DESC, "dcg@4", "q")})
bl("That list is already in ideal order, so its nDCG@4 is 1.", lambda: {
    "hand": nDCG(bq, BL_DESC["q"], 4), **bl_lib(BL_QRELS, BL_DESC, 4)})
bl("DCG@4 = 1 + 2/1.585 + 3/2 + 4/2.322 = 5.48", lambda: {
    "hand": DCG(bq, BL_FLIP["q"], 4), "ranx dcg@4": rx(BL_QRELS, BL_FLIP, "dcg@4", "q")})
bl("nDCG@4 = 5.48/7.32 ≈ 0.749", lambda: {"hand": nDCG(bq, BL_FLIP["q"], 4), **bl_lib(BL_QRELS, BL_FLIP, 4)})
bl("This is also what trec_eval's ndcg_cut.4 reports for the flipped list", lambda: {
    "trec_eval ndcg_cut_4": trec_value(BL_QRELS, BL_FLIP, "ndcg_cut.4", q="q"), "hand": nDCG(bq, BL_FLIP["q"], 4)},
   primary="trec_eval ndcg_cut_4")
bl("For [4, 3, 2, 1], DCG@4 = 15 + 7/1.585 + 3/2 + 1/2.322 ≈ 21.35", lambda: {
    "hand": DCG(bq, BL_DESC["q"], 4, exp=True), "ranx dcg_burges@4": rx(BL_QRELS, BL_DESC, "dcg_burges@4", "q")})
bl("DCG@4 = 1 + 1.89 + 3.5 + 6.46 = 12.85", lambda: {
    "hand": DCG(bq, BL_FLIP["q"], 4, exp=True), "ranx dcg_burges@4": rx(BL_QRELS, BL_FLIP, "dcg_burges@4", "q")})
bl("so nDCG@4 = 12.85/21.35 ≈ 0.602", lambda: {
    "hand": nDCG(bq, BL_FLIP["q"], 4, exp=True), **bl_lib(BL_QRELS, BL_FLIP, 4, exp=True)})
bl("ranx's `ndcg_burges@4` gives the same 0.602", lambda: {
    "ranx ndcg_burges@4": rx(BL_QRELS, BL_FLIP, "ndcg_burges@4", "q")}, primary="ranx ndcg_burges@4")
bl("Exponential gain punishes the flip much harder (0.602 against 0.749)", lambda: {
    "hand exponential": nDCG(bq, BL_FLIP["q"], 4, exp=True), "hand linear": nDCG(bq, BL_FLIP["q"], 4)},
   primary="hand exponential")


def _bl_gain_cases():
    for n in range(1, 5):
        for gs in itertools.product((1, 2, 3, 4), repeat=n):
            yield list(gs)


bl("exponential DCG is always larger than linear DCG for the same list", lambda: {
    "hand strict (always larger)": next((f"fails on {gs}: both {DCG(dict(zip('abcd', gs)), list('abcd'[:len(gs)]), 4)}"
                                         for gs in _bl_gain_cases()
                                         if DCG(dict(zip("abcd", gs)), list("abcd"[:len(gs)]), 4, exp=True)
                                         <= DCG(dict(zip("abcd", gs)), list("abcd"[:len(gs)]), 4)), "holds"),
    "hand weak (never smaller)": "holds" if all(
        DCG(dict(zip("abcd", gs)), list("abcd"[:len(gs)]), 4, exp=True) >= DCG(dict(zip("abcd", gs)), list("abcd"[:len(gs)]), 4)
        for gs in _bl_gain_cases()) else "fails",
    "ranx dcg_burges@4 vs dcg@4 on [1, 1, 1, 1]": f"{rx(BL_ONES_QRELS, BL_DESC, 'dcg_burges@4', 'q')} vs "
                                                   f"{rx(BL_ONES_QRELS, BL_DESC, 'dcg@4', 'q')}"},
   primary="hand strict (always larger)")
bl("Its ideal is itself, so nDCG@4 = 1 under either gain.", lambda: {
    "hand linear": nDCG(BL_FLAT_QRELS["q"], BL_FLAT["q"], 4), "hand exponential": nDCG(BL_FLAT_QRELS["q"], BL_FLAT["q"], 4, exp=True),
    **bl_lib(BL_FLAT_QRELS, BL_FLAT, 4), **bl_lib(BL_FLAT_QRELS, BL_FLAT, 4, exp=True)}, primary="hand linear")
bl("In fact any list whose grades are in descending order scores an nDCG of 1.", lambda: {
    "hand (ideal from the four shown)": nDCG(BL_FLAT7_QRELS["q"], BL_FLAT7["q"], 4, pool=BL_FLAT7["q"][:4]),
    "hand (ideal from all judged, trec_eval)": nDCG(BL_FLAT7_QRELS["q"], BL_FLAT7["q"], 4),
    "trec_eval ndcg_cut_4 on [3, 3, 3, 3] with a perfect document at rank 7": trec_value(BL_FLAT7_QRELS, BL_FLAT7, "ndcg_cut.4", q="q")},
   primary="hand (ideal from the four shown)")
bl("would still score nDCG@4 = 1, because the ideal is built from the four results on screen", lambda: {
    "hand (ideal from the four shown)": nDCG(BL_FLAT7_QRELS["q"], BL_FLAT7["q"], 4, pool=BL_FLAT7["q"][:4]),
    "hand (judged ideal, linear)": nDCG(BL_FLAT7_QRELS["q"], BL_FLAT7["q"], 4),
    "hand (judged ideal, exponential)": nDCG(BL_FLAT7_QRELS["q"], BL_FLAT7["q"], 4, exp=True),
    **bl_lib(BL_FLAT7_QRELS, BL_FLAT7, 4), **bl_lib(BL_FLAT7_QRELS, BL_FLAT7, 4, exp=True)},
   primary="hand (ideal from the four shown)")
bl("a perfect result satisfies 15 users in 16 (0.9375) and a poor one 1 in 16", lambda: {
    "hand R(4)": Fr(2 ** 4 - 1, 2 ** 4), "hand R(1)": Fr(1, 16)}, primary="hand R(4)")
bl("For [4, 3, 2, 1]: ERR@4 = 0.9375 + 0.0137 + 0.0022 + 0.0004 ≈ 0.954.", lambda: {
    "hand": ERR([4, 3, 2, 1]), "ir_measures ERR@4 (gdeval)": irm(BL_QRELS, BL_DESC, "ERR@4", "q")})
bl("ERR@4 = 0.0625 + 0.0879 + 0.1111 + 0.1004 = 0.3619", lambda: {
    "hand": ERR([1, 2, 3, 4]), "ir_measures ERR@4 (gdeval)": irm(BL_QRELS, BL_FLIP, "ERR@4", "q")})
bl("ERR rates it at less than a third of the ideal list's ERR", lambda: {
    "hand ratio": ERR([1, 2, 3, 4]) / ERR([4, 3, 2, 1])})
bl("its nDCG@4 is 1 — the same as [4, 3, 2, 1]", lambda: {
    "hand": nDCG(BL_4111_QRELS["q"], BL_4111["q"], 4), **bl_lib(BL_4111_QRELS, BL_4111, 4)})
bl("ERR@4 is 0.942, below the 0.954 of [4, 3, 2, 1]", lambda: {
    "hand": ERR([4, 1, 1, 1]), "ir_measures ERR@4 (gdeval)": irm(BL_4111_QRELS, BL_4111, "ERR@4", "q")})


def _err_cases():
    for n in range(1, 5):
        yield from (list(g) for g in itertools.product(range(5), repeat=n))


bl("It always lies between 0 and 1", lambda: {
    "hand": "holds on all grade lists up to length 4, grades 0–4" if all(0 <= ERR(g) <= 1 for g in _err_cases()) else "fails"})
bl("a perfect first result guarantees ERR ≥ 15/16, whatever follows it", lambda: {
    "hand": "holds on all grade lists up to length 4 starting with 4" if all(
        ERR(g) >= Fr(15, 16) for g in _err_cases() if g[0] == 4) else "fails"})
bl("rank-biased precision with p = 0.5 gives every one of the four-result lists above the same score, 0.9375", lambda: {
    "hand binary (each list)": [RBP([1, 1, 1, 1], Fr(1, 2))],
    "hand with the grade as weight": [RBP(g, Fr(1, 2)) for g in ([4, 3, 2, 1], [1, 2, 3, 4], [3, 3, 3, 3], [4, 1, 1, 1])],
    "ranx rbp.5": [rx(qr, rn, "rbp.5", "q") for qr, rn in ((BL_QRELS, BL_DESC), (BL_QRELS, BL_FLIP), (BL_FLAT_QRELS, BL_FLAT),
                                                          (BL_4111_QRELS, BL_4111))],
    "ir_measures RBP(p=0.5)": irm(BL_QRELS, BL_DESC, "RBP(p=0.5)", "q")}, primary="hand binary (each list)")
bl("ERR@3 = 3/4 + (1/4)(1/4)/3 ≈ 0.771", lambda: {
    "hand (top grade 2, the scale's)": ERR([2, 0, 1], gmax=2), "hand (top grade 4, gdeval)": ERR([2, 0, 1], gmax=4),
    "ir_measures ERR@3 (gdeval)": irm(BL_3L_QRELS, BL_3L, "ERR@3", "q")}, primary="hand (top grade 2, the scale's)")

# ---- persistence-cutoffs-faq ---------------------------------------------------------------------
FQ = "persistence-cutoffs-faq"
fq = FQ_QRELS["q"]


def fqs(quote, compute, primary="hand"):
    S(FQ, quote, compute, primary)


fqs("The expected number of results such a user inspects is 1/(1 − p): 5 for p = 0.8 and 20 for p = 0.95.", lambda: {
    "hand p = 0.8": 1 / (1 - Fr(4, 5)), "hand p = 0.95": 1 / (1 - Fr(95, 100))}, primary="hand p = 0.8")
for _p, _quote in ((Fr(1, 2), "| 0.5 | 0.820 |"), (Fr(4, 5), "| 0.8 | 0.515 |"), (Fr(95, 100), "| 0.95 | 0.177 |")):
    fqs(_quote, lambda p=_p: {
        "hand": RBP(flags(fq, FQ_RANK), p),
        "ranx": rx(FQ_QRELS, FQ_RUN, f"rbp.{str(float(p))[2:]}", "q"),
        "ir_measures": irm(FQ_QRELS, FQ_RUN, f"RBP(p={float(p)})", "q")})
fqs("At p = 0.8 the sum is 0.2 × (1 + 0.8 + 0.512 + 0.262) = 0.515.", lambda: {
    "hand": RBP(flags(fq, FQ_RANK), Fr(4, 5)), "hand, printed terms": Fr("0.2") * (1 + Fr("0.8") + Fr("0.512") + Fr("0.262"))})
fqs("With binary judgements RBP can never exceed 1", lambda: {
    "hand": "holds: (1 − p) Σ_{i<n} p^i = 1 − p^n < 1; checked on every binary list up to length 8 at p = 1/2, 4/5, 19/20: "
            + str(all(RBP(bits, p) < 1 for p in (Fr(1, 2), Fr(4, 5), Fr(19, 20))
                      for n in range(1, 9) for bits in itertools.product((0, 1), repeat=n)))})
fqs("1 − 0.8^10 ≈ 0.893 at p = 0.8", lambda: {
    "hand": RBP([1] * 10, Fr(4, 5)), "ranx rbp.8": rx(FQ_ALLREL_QRELS, FQ_ALLREL, "rbp.8", "q")})
fqs("0.8^10 ≈ 0.107 at p = 0.8", lambda: {"hand": Fr(4, 5) ** 10})
fqs("With p = 0.95 the residual is 0.95^10 ≈ 0.40", lambda: {"hand": Fr(95, 100) ** 10})
fqs("(1 − p)p^4 = 0.082 at p = 0.8", lambda: {"hand": (1 - Fr(4, 5)) * Fr(4, 5) ** 4})
fqs("for a total residual of about 0.189", lambda: {"hand": (1 - Fr(4, 5)) * Fr(4, 5) ** 4 + Fr(4, 5) ** 10})
fqs("the true RBP lies between 0.515 and 0.704", lambda: {
    "hand lower": RBP(flags(fq, FQ_RANK), Fr(4, 5)),
    "hand upper": RBP(flags(fq, FQ_RANK), Fr(4, 5)) + (1 - Fr(4, 5)) * Fr(4, 5) ** 4 + Fr(4, 5) ** 10}, primary="hand upper")
ak = AK_QRELS["q"]
AK_ACTUAL = {"a", "b", "d"}
fqs("At k = 3 all three libraries agree", lambda: {
    "hand ml_metrics apk": ml_metrics_apk(AK_ACTUAL, AK_RUN["q"], 3),
    "trec_eval map_cut_3": trec_value(AK_QRELS, AK_RUN, "map_cut.3", q="q"),
    "hand torchmetrics (top_k=3)": torchmetrics_ap(AK_ACTUAL, AK_RUN["q"], 3)}, primary="hand torchmetrics (top_k=3)")
fqs("`apk(actual, predicted, k=3)` returns (1 + 2/3)/3 ≈ 0.5556", lambda: {
    "hand ml_metrics apk": ml_metrics_apk(AK_ACTUAL, AK_RUN["q"], 3),
    "trec_eval map_cut_3": trec_value(AK_QRELS, AK_RUN, "map_cut.3", q="q"),
    "ir_measures AP@3": irm(AK_QRELS, AK_RUN, "AP@3", "q"), "ranx map@3": rx(AK_QRELS, AK_RUN, "map@3", "q")},
    primary="hand ml_metrics apk")
fqs("ml_metrics divides by min(k, |R|) = 2 and returns 0.5", lambda: {
    "hand ml_metrics apk": ml_metrics_apk(AK_ACTUAL, AK_RUN["q"], 2)}, primary="hand ml_metrics apk")
fqs("trec_eval's map_cut.2 divides by |R| = 3 and gives 1/3", lambda: {
    "trec_eval map_cut_2": trec_value(AK_QRELS, AK_RUN, "map_cut.2", q="q"), "hand (|R|)": AP(ak, AK_RUN["q"], 2),
    "ir_measures AP@2": irm(AK_QRELS, AK_RUN, "AP@2", "q"), "ranx map@2": rx(AK_QRELS, AK_RUN, "map@2", "q")},
    primary="hand (|R|)")
fqs("divides by the one relevant item it found and returns 1.0", lambda: {
    "hand torchmetrics (top_k=2)": torchmetrics_ap(AK_ACTUAL, AK_RUN["q"], 2)}, primary="hand torchmetrics (top_k=2)")
fqs("TL;DR: this query's AP@2 is 0.5.", lambda: {
    "hand min(k, |R|) (ml_metrics)": AP(ak, AK_RUN["q"], 2, denominator="min(k, |R|)"),
    "hand |R| (trec_eval, ir_measures, ranx)": AP(ak, AK_RUN["q"], 2),
    "hand relevant retrieved (torchmetrics)": AP(ak, AK_RUN["q"], 2, denominator="relevant retrieved"),
    "trec_eval map_cut_2": trec_value(AK_QRELS, AK_RUN, "map_cut.2", q="q"), "ranx map@2": rx(AK_QRELS, AK_RUN, "map@2", "q"),
    "ir_measures AP@2": irm(AK_QRELS, AK_RUN, "AP@2", "q")}, primary="hand min(k, |R|) (ml_metrics)")
fqs("`mapk(k=3)` gives 0.5648", lambda: {
    "hand ml_metrics mapk": sum(ml_metrics_apk(a, p, 3) for a, p in zip(MK_ACTUAL, MK_PRED)) / 3,
    "hand min(k, |R|)": sum(AP(MK_QRELS[q], MK_RUN[q], 3, denominator="min(k, |R|)") for q in MK_QRELS) / 3})
fqs("trec_eval's map_cut.3 gives 0.5185", lambda: {
    "hand (|R|)": sum(AP(MK_QRELS[q], MK_RUN[q], 3) for q in MK_QRELS) / 3,
    "trec_eval map_cut_3 (mean)": sum(v["map_cut_3"] for v in trec(MK_QRELS, MK_RUN, {"map_cut.3"}).values()) / 3,
    "ir_measures AP@3": irm(MK_QRELS, MK_RUN, "AP@3", aggregate=True), "ranx map@3": rx(MK_QRELS, MK_RUN, "map@3", aggregate=True)},
    primary="hand (|R|)")
fqs("The difference comes only from the second query.", lambda: {
    f"hand {q}: ml_metrics vs trec_eval": f"{ml_metrics_apk({d for d, g in MK_QRELS[q].items() if g}, MK_RUN[q], 3)} vs "
                                          f"{AP(MK_QRELS[q], MK_RUN[q], 3)}" for q in MK_QRELS} | {
    "hand": "fails: only the first query differs (|R| = 4 > k = 3): 5/9 vs 5/12; the second gives 7/12 both ways"})
fqs("Whatever the denominator, AP@k never exceeds 1.", lambda: {
    "hand": holds(lambda q, r, k: all(AP(q, r, k, denominator=d) <= 1 for d in ("|R|", "relevant retrieved", "min(k, |R|)")))})
fqs("Dividing by the relevant items retrieved can only raise AP@k compared with dividing by |R|, never lower it.", lambda: {
    "hand": holds(lambda q, r, k: AP(q, r, k, denominator="relevant retrieved") >= AP(q, r, k))})
fqs("ml_metrics' `apk` returns 1.0 when the list of relevant items is empty", lambda: {
    "hand ml_metrics apk (from its source)": ml_metrics_apk(set(), ["a", "b"], 10)})
fqs("trec_eval gives a query that was judged but has no relevant document an AP of 0", lambda: {
    "trec_eval map q2": trec_value(NR_QRELS, NR_RUN, "map", q="q2"), "ir_measures AP q2": irm(NR_QRELS, NR_RUN, "AP", "q2")},
    primary="trec_eval map q2")
fqs("and ranx gives it 0 as well", lambda: {"ranx map q2": rx(NR_QRELS, NR_RUN, "map", "q2")}, primary="ranx map q2")
fqs("the mean is 0.75 under ml_metrics and 0.25 under trec_eval", lambda: {
    "hand ml_metrics": (ml_metrics_apk({"a"}, NR_RUN["q1"], 10) + ml_metrics_apk(set(), NR_RUN["q2"], 10)) / 2,
    "trec_eval map (mean)": sum(v["map"] for v in trec(NR_QRELS, NR_RUN, {"map"}).values()) / 2,
    "ir_measures AP": irm(NR_QRELS, NR_RUN, "AP", aggregate=True), "ranx map": rx(NR_QRELS, NR_RUN, "map", aggregate=True)},
    primary="hand ml_metrics")


# ---- mrr-mismatch-postmortem ---------------------------------------------------------------------
# Four binary-judged queries. q1: three passages tied at 14.2 in the file order p5, p1, p8 (p1 relevant); q2: twelve
# judged results, only the twelfth relevant; q3: three results (t1, t2 relevant; t6 relevant, never retrieved);
# q4: judged, absent from the run. The run is given with its scores, so each tool's tie rule applies.
MP = "mrr-mismatch-postmortem"
MP_QRELS = {"q1": {"p1": 1, "p5": 0, "p8": 0, "p3": 0},
            "q2": {**{f"s{i:02d}": 0 for i in range(1, 12)}, "s12": 1},
            "q3": {"t1": 1, "t2": 1, "t4": 0, "t6": 1},
            "q4": {"w1": 1}}
MP_SCORES = {"q1": {"p5": 14.2, "p1": 14.2, "p8": 14.2, "p3": 11.0},       # file order, insertion order kept
             "q2": {f"s{i:02d}": round(9.9 - 0.6 * (i - 1), 1) for i in range(1, 13)},
             "q3": {"t1": 8.0, "t4": 7.5, "t2": 7.1}}                       # q4: no line in the run file
MP_F32 = {"q1": {"p5": 14.2, "p1": 14.2000001, "p8": 14.2, "p3": 11.0}}     # 14.2000001 == 14.2 in float32
MP_TIE2_QRELS = {"qx": {"x1": 0, "x5": 1, "x9": 0}}                         # the tie probe's second query
MP_TIE2 = {"qx": {"x9": 5.0, "x1": 5.0, "x5": 5.0}}
MP_DUP_LINES = [("q3", "t1", 8.0), ("q3", "t4", 7.5), ("q3", "t2", 7.1), ("q3", "t1", 6.9)]
TIE_RULES = ("listed order", "docno descending", "docno ascending")


def ordered(scores_q, rule):
    """A query's ranking by score, ties broken by ``rule`` (listed order: the order the dict was written in)."""
    items = list(scores_q.items())
    if rule == "listed order":
        return [d for d, _ in sorted(items, key=lambda x: -x[1])]            # sorted() is stable
    if rule == "docno descending":
        return [d for d, _ in sorted(sorted(items, key=lambda x: x[0], reverse=True), key=lambda x: -x[1])]
    return [d for d, _ in sorted(items, key=lambda x: (-x[1], x[0]))]


def RRk(qrels_q, ranking, k=None):
    return RR(qrels_q, ranking if k is None else ranking[:k])


def mp_mean(per_query, over):
    return sum(per_query.get(q, Fr(0)) for q in over) / len(over)


def mp_hand(measure, rule, k=None, over=("q1", "q2", "q3"), qrels=MP_QRELS, scores=MP_SCORES):
    per = {q: measure(qrels[q], ordered(s, rule), k) for q, s in scores.items()}
    return mp_mean(per, over)


def trec_s(qrels, scores, measures, level=1):
    return pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=level).evaluate(scores)


def irm_s(qrels, scores, name, q=None, aggregate=False):
    """ir-measures on explicit scores (query ids kept; the provider it picks is recorded)."""
    try:
        m = ir_measures.parse_measure(name)
        _IRM_USED.append((name, irm_provider(m)))
        if aggregate:
            return ir_measures.calc_aggregate([m], qrels, scores)[m]
        return {r.query_id: r.value for r in ir_measures.iter_calc([m], qrels, scores)}.get(q, "left out")
    except Exception as exc:
        return f"error: {type(exc).__name__}: {str(exc).strip()[:90]}"


def rx_s(qrels, scores, metric, q=None, aggregate=False):
    """ranx.evaluate on explicit scores, ids as written, documents inserted in listed order, make_comparable=True."""
    import ranx
    try:
        qr, rn = ranx.Qrels(qrels), ranx.Run(scores)
        res = ranx.evaluate(qr, rn, metric, return_mean=aggregate, make_comparable=True)
        return float(res) if aggregate else float(rn.scores[metric][q])
    except Exception as exc:
        return f"error: {type(exc).__name__}: {str(exc).strip()[:90]}"


def mp_files(lines, qrels):
    """A TREC run file and qrels file for ``lines`` ((query, doc, score) in file order)."""
    import tempfile
    folder = Path(tempfile.mkdtemp())
    (folder / "run").write_text("".join(f"{q} Q0 {d} {i} {s} rr\n" for i, (q, d, s) in enumerate(lines, 1)))
    (folder / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return folder / "qrels", folder / "run"


def mp_dup(reader):
    """How each library's own reader takes the run file that lists t1 twice for q3."""
    qrels_path, run_path = mp_files(MP_DUP_LINES, {"q3": MP_QRELS["q3"]})
    try:
        if reader == "pytrec_eval":
            with open(run_path) as f:
                return f"parse_run returned {pytrec_eval.parse_run(f)}"
        if reader == "ir_measures":
            qr, rn = list(ir_measures.read_trec_qrels(str(qrels_path))), list(ir_measures.read_trec_run(str(run_path)))
            return {m: next(ir_measures.iter_calc([ir_measures.parse_measure(m)], qr, rn)).value for m in ("RR", "AP")}
        import ranx
        qr, rn = ranx.Qrels.from_file(str(qrels_path), kind="trec"), ranx.Run.from_file(str(run_path), kind="trec")
        return {m: float(ranx.evaluate(qr, rn, m)) for m in ("mrr", "map")} | {"run read": dict(rn.to_dict()["q3"])}
    except AssertionError as exc:
        return f"rejected: AssertionError {exc}".strip()


def AP_ranked(qrels_q, ranking, k=None, counts_each=False):
    """AP over |R| on a ranking that may repeat a document; ``counts_each`` credits every occurrence."""
    hits, total = 0, Fr(0)
    for i, d in enumerate(ranking if k is None else ranking[:k], 1):
        if qrels_q.get(d, 0) >= 1:
            hits += 1
            total += Fr(hits, i)
    return total / nrel(qrels_q)


def keep_first(ranking):
    return [d for i, d in enumerate(ranking) if d not in ranking[:i]]


def keep_last(ranking):
    return [d for i, d in enumerate(ranking) if d not in ranking[i + 1:]]


def torchmetrics_precision(labels, top_k, adaptive_k=False):
    """Lightning-AI/torchmetrics functional/retrieval/precision.py: relevant in the top k over k, with k shrunk to
    the number of documents given when ``adaptive_k`` is set."""
    k = len(labels) if adaptive_k and top_k > len(labels) else top_k
    return Fr(sum(labels[:k]), k)


def mp(quote, compute, primary="hand"):
    S(MP, quote, compute, primary)


mq1, mq2, mq3 = MP_QRELS["q1"], MP_QRELS["q2"], MP_QRELS["q3"]
MP_DASH = {"over": ("q1", "q2", "q3"), "rule": "listed order", "k": 10}   # the dashboard's own reading
mp("the reranker's dashboard tile read MRR@10 = 0.5", lambda: {
    "hand, the dashboard's reading (listed order, RR@10, queries in the run)": mp_hand(RRk, "listed order", 10),
    "hand, same over all four judged queries": mp_hand(RRk, "listed order", 10, over=tuple(MP_QRELS))},
   primary="hand, the dashboard's reading (listed order, RR@10, queries in the run)")
mp("printed 0.4722 for what we all believed was the same run file", lambda: {
    "hand (docno descending, no cutoff, queries in the run)": mp_hand(RRk, "docno descending"),
    "trec_eval recip_rank (mean of the queries it returns)": (lambda r: sum(v["recip_rank"] for v in r.values()) / len(r))(
        trec_s(MP_QRELS, MP_SCORES, {"recip_rank"})),
    "trec_eval queries returned": sorted(trec_s(MP_QRELS, MP_SCORES, {"recip_rank"}))},
   primary="hand (docno descending, no cutoff, queries in the run)")
mp("The run's MAP of 0.3241 was never in dispute", lambda: {
    **{f"hand {rule}, queries in the run": mp_hand(lambda q, r, k: AP(q, r), rule) for rule in TIE_RULES},
    "hand docno descending, all four judged queries": mp_hand(lambda q, r, k: AP(q, r), "docno descending",
                                                               over=tuple(MP_QRELS)),
    "hand docno descending, relevant retrieved (scikit-learn's AP on the returned list)": mp_hand(
        lambda q, r, k: AP(q, r, denominator="relevant retrieved"), "docno descending"),
    "trec_eval map (mean of the queries it returns)": (lambda r: sum(v["map"] for v in r.values()) / len(r))(
        trec_s(MP_QRELS, MP_SCORES, {"map"})),
    "ir_measures AP (aggregate)": irm_s(MP_QRELS, MP_SCORES, "AP", aggregate=True),
    "ranx map (aggregate)": rx_s(MP_QRELS, MP_SCORES, "map", aggregate=True)},
   primary="hand docno descending, queries in the run")
mp("all twelve returned passages were judged, and only the last, s12, is relevant", lambda: {
    "hand num_ret": Fr(len(MP_SCORES["q2"])), "hand num_rel": Fr(nrel(mq2)),
    "trec_eval num_ret": trec_s(MP_QRELS, MP_SCORES, {"num_ret"})["q2"]["num_ret"],
    "trec_eval num_rel": trec_s(MP_QRELS, MP_SCORES, {"num_rel"})["q2"]["num_rel"]}, primary="hand num_ret")
mp("On its own, q1 looks harmless: one relevant passage, reciprocal rank 0.5.", lambda: {
    **{f"hand {rule}": RR(mq1, ordered(MP_SCORES["q1"], rule)) for rule in TIE_RULES},
    "trec_eval recip_rank": trec_s(MP_QRELS, MP_SCORES, {"recip_rank"})["q1"]["recip_rank"],
    "ir_measures RR (pytrec_eval)": irm_s(MP_QRELS, MP_SCORES, "RR", "q1"),
    "ir_measures RR@10 (msmarco)": irm_s(MP_QRELS, MP_SCORES, "RR@10", "q1"),
    "ranx mrr": rx_s(MP_QRELS, MP_SCORES, "mrr", "q1")}, primary="hand listed order")
mp("It sorts by score and breaks ties by docno in descending order, which gives p8, p5, p1.", lambda: {
    "hand docno descending": " ".join(ordered(MP_SCORES["q1"], "docno descending")),
    "trec_eval recip_rank (1/3 only if p1 is third)": trec_s(MP_QRELS, MP_SCORES, {"recip_rank"})["q1"]["recip_rank"],
    "trec_eval on the same ties renamed (p1 → p9): relevant first under docno descending": trec_s(
        {"q1": {"p9": 1, "p5": 0, "p8": 0, "p3": 0}}, {"q1": {"p5": 14.2, "p9": 14.2, "p8": 14.2, "p3": 11.0}},
        {"recip_rank"})["q1"]["recip_rank"],
    "trec_eval on the probe's second tie (x9, x1, x5 listed; x5 relevant): 1/2 under docno descending": trec_s(
        MP_TIE2_QRELS, MP_TIE2, {"recip_rank"})["qx"]["recip_rank"]},
   primary="trec_eval recip_rank (1/3 only if p1 is third)")
mp("Its recip_rank for q1 is therefore 1/3.", lambda: {
    "trec_eval recip_rank": trec_s(MP_QRELS, MP_SCORES, {"recip_rank"})["q1"]["recip_rank"],
    "hand docno descending": RR(mq1, ordered(MP_SCORES["q1"], "docno descending"))}, primary="trec_eval recip_rank")
mp("ir_measures' plain RR is computed by its pytrec_eval provider and agrees with trec_eval's 1/3", lambda: {
    "ir_measures RR": irm_s(MP_QRELS, MP_SCORES, "RR", "q1")}, primary="ir_measures RR")
mp("ranx keeps tied documents in the order they were added to the run.", lambda: {
    "ranx mrr, file order p5, p1, p8": rx_s(MP_QRELS, MP_SCORES, "mrr", "q1"),
    "ranx mrr, inserted p8, p5, p1": rx_s(MP_QRELS, {"q1": {"p8": 14.2, "p5": 14.2, "p1": 14.2, "p3": 11.0}}, "mrr", "q1"),
    "ranx mrr, inserted p1, p8, p5": rx_s(MP_QRELS, {"q1": {"p1": 14.2, "p8": 14.2, "p5": 14.2, "p3": 11.0}}, "mrr", "q1"),
    "ranx mrr on the probe's second tie (x9, x1, x5 inserted; x5 relevant)": rx_s(MP_TIE2_QRELS, MP_TIE2, "mrr", "qx")},
   primary="ranx mrr, file order p5, p1, p8")
mp("so ranx gives q1 a reciprocal rank of 1/2", lambda: {
    "ranx mrr": rx_s(MP_QRELS, MP_SCORES, "mrr", "q1"), "hand listed order": RR(mq1, ordered(MP_SCORES["q1"], "listed order"))},
   primary="ranx mrr")
mp("which sorts tied passages by docno in ascending order", lambda: {
    "ir_measures RR@10 (msmarco), file order p5, p1, p8": irm_s(MP_QRELS, MP_SCORES, "RR@10", "q1"),
    "ir_measures RR@10 on the probe's second tie (x9, x1, x5 listed; x5 relevant)": irm_s(MP_TIE2_QRELS, MP_TIE2, "RR@10", "qx"),
    "ir_measures RR@10, relevant renamed p9 (last in ascending order)": irm_s(
        {"q1": {"p9": 1, "p5": 0, "p8": 0, "p3": 0}}, {"q1": {"p5": 14.2, "p9": 14.2, "p8": 14.2, "p3": 11.0}}, "RR@10", "q1"),
    "hand docno ascending": RR(mq1, ordered(MP_SCORES["q1"], "docno ascending"))},
   primary="ir_measures RR@10 (msmarco), file order p5, p1, p8")
mp("p1 comes first, and RR@10 = 1 for q1", lambda: {
    "ir_measures RR@10": irm_s(MP_QRELS, MP_SCORES, "RR@10", "q1")}, primary="ir_measures RR@10")
mp("so trec_eval still reports 1/3 for q1", lambda: {
    "trec_eval recip_rank (p1 at 14.2000001)": trec_s({"q1": mq1}, MP_F32, {"recip_rank"})["q1"]["recip_rank"],
    "hand in double precision (p1 first)": RR(mq1, ordered(MP_F32["q1"], "docno descending")),
    "ranx mrr (double precision)": rx_s({"q1": mq1}, MP_F32, "mrr", "q1")},
   primary="trec_eval recip_rank (p1 at 14.2000001)")
mp("MRR@10 stops counting at rank 10, so q2 gets nothing from it.", lambda: {
    "hand RR@10": RRk(mq2, ordered(MP_SCORES["q2"], "listed order"), 10),
    "ir_measures RR@10": irm_s(MP_QRELS, MP_SCORES, "RR@10", "q2"), "ranx mrr@10": rx_s(MP_QRELS, MP_SCORES, "mrr@10", "q2")})
mp("trec_eval's recip_rank has no cutoff and credits q2 with 1/12 ≈ 0.0833", lambda: {
    "trec_eval recip_rank": trec_s(MP_QRELS, MP_SCORES, {"recip_rank"})["q2"]["recip_rank"],
    "hand RR": RR(mq2, ordered(MP_SCORES["q2"], "listed order"))}, primary="hand RR")


def _rr_grows():
    bad = next(((q, r, k) for q, r, k in binary_cases(7) if k < len(r) and RRk(q, r, k + 1) < RRk(q, r, k)), None)
    return "holds on every binary ranking up to length 7" if bad is None else f"fails: {bad}"


mp("Raising the cutoff can only raise RR@k or leave it where it is.", lambda: {"hand": _rr_grows()})
mp("At a glance q3 looks strong: two of its three results are relevant, a precision at ten of 0.67.", lambda: {
    "hand (denominator k: trec_eval, ir_measures, ranx)": P(mq3, ["t1", "t4", "t2"], 10),
    "hand (number returned: torchmetrics adaptive_k, torcheval limit_k_to_size, trec_eval -M10 set_P)": Fr(2, 3),
    "trec_eval P_10": trec_s(MP_QRELS, MP_SCORES, {"P_10"})["q3"]["P_10"],
    "trec_eval set_P (the three returned)": trec_s(MP_QRELS, MP_SCORES, {"set_P"})["q3"]["set_P"],
    "ir_measures P@10": irm_s(MP_QRELS, MP_SCORES, "P@10", "q3"), "ranx precision@10": rx_s(MP_QRELS, MP_SCORES, "precision@10", "q3")},
   primary="hand (number returned: torchmetrics adaptive_k, torcheval limit_k_to_size, trec_eval -M10 set_P)")
mp("trec_eval's P_10 for q3 is 0.2 instead.", lambda: {
    "trec_eval P_10": trec_s(MP_QRELS, MP_SCORES, {"P_10"})["q3"]["P_10"]}, primary="trec_eval P_10")
mp("It divides by the cutoff and counts the seven empty positions as non-relevant.", lambda: {
    "trec_eval P_10 on three returned": trec_s(MP_QRELS, MP_SCORES, {"P_10"})["q3"]["P_10"],
    "hand k": Fr(2, 10), "hand number returned": Fr(2, 3)}, primary="trec_eval P_10 on three returned")
mp("shrinks k to the three results actually returned and reports 2/3", lambda: {
    "hand torchmetrics retrieval_precision(top_k=10, adaptive_k=True)": torchmetrics_precision([1, 0, 1], 10, True),
    "hand torchmetrics retrieval_precision(top_k=10)": torchmetrics_precision([1, 0, 1], 10)},
   primary="hand torchmetrics retrieval_precision(top_k=10, adaptive_k=True)")
mp("Recall at ten is 2/3 whichever way precision is divided", lambda: {
    "hand": R(mq3, ["t1", "t4", "t2"], 10), "trec_eval recall_10": trec_s(MP_QRELS, MP_SCORES, {"recall_10"})["q3"]["recall_10"],
    "ir_measures R@10": irm_s(MP_QRELS, MP_SCORES, "R@10", "q3"), "ranx recall@10": rx_s(MP_QRELS, MP_SCORES, "recall@10", "q3")})
mp("The average precision of q3 is (1 + 2/3)/3 ≈ 0.556.", lambda: {
    "hand (|R| = 3, the printed divisor)": AP(mq3, ["t1", "t4", "t2"]),
    "hand (relevant retrieved = 2: scikit-learn average_precision_score on the three returned)":
        AP(mq3, ["t1", "t4", "t2"], denominator="relevant retrieved"),
    "trec_eval map": trec_s(MP_QRELS, MP_SCORES, {"map"})["q3"]["map"],
    "ir_measures AP": irm_s(MP_QRELS, MP_SCORES, "AP", "q3"), "ranx map": rx_s(MP_QRELS, MP_SCORES, "map", "q3")},
   primary="hand (|R| = 3, the printed divisor)")
mp("Without `-c` its mean is over q1 to q3: (1/3 + 1/12 + 1)/3 = 17/36 ≈ 0.4722.", lambda: {
    "hand": mp_hand(RRk, "docno descending"),
    "trec_eval recip_rank (mean over the queries returned)": (lambda r: sum(v["recip_rank"] for v in r.values()) / len(r))(
        trec_s(MP_QRELS, MP_SCORES, {"recip_rank"}))})
mp("With `-c`, every judged query counts, q4 scores 0, and the mean recip_rank falls to 17/48 ≈ 0.3542.", lambda: {
    "hand (docno descending, four judged queries)": mp_hand(RRk, "docno descending", over=tuple(MP_QRELS)),
    "trec_eval per-query recip_rank summed over the four qrels queries (what -c does)":
        sum(v["recip_rank"] for v in trec_s(MP_QRELS, MP_SCORES, {"recip_rank"}).values()) / len(MP_QRELS),
    "ir_measures RR (aggregate; pytrec_eval provider, q4 as 0)": irm_s(MP_QRELS, MP_SCORES, "RR", aggregate=True),
    "ranx mrr (aggregate; listed order)": rx_s(MP_QRELS, MP_SCORES, "mrr", aggregate=True)},
   primary="hand (docno descending, four judged queries)")
mp("ir_measures scores a judged query that is missing from the run as 0.", lambda: {
    "ir_measures RR q4": irm_s(MP_QRELS, MP_SCORES, "RR", "q4"), "ir_measures RR@10 q4": irm_s(MP_QRELS, MP_SCORES, "RR@10", "q4"),
    "trec_eval q4": trec_s(MP_QRELS, MP_SCORES, {"recip_rank"}).get("q4", "left out")}, primary="ir_measures RR q4")
def _rx_strict():
    import ranx
    try:
        return float(ranx.evaluate(ranx.Qrels(MP_QRELS), ranx.Run(MP_SCORES), "mrr"))
    except AssertionError as exc:
        return f"raises AssertionError: {str(exc)[:60]}"


mp("ranx does the same when it is called with `make_comparable=True`.", lambda: {
    "ranx mrr q4 (make_comparable=True)": rx_s(MP_QRELS, MP_SCORES, "mrr", "q4"),
    "ranx without make_comparable": _rx_strict()}, primary="ranx mrr q4 (make_comparable=True)")
mp("kept tied passages in file order and stopped at rank 10: (1/2 + 0 + 1)/3 = 0.5", lambda: {
    "hand, the dashboard's reading": mp_hand(RRk, "listed order", 10)})
mp("ranx's `mrr@10` over all four judged queries is 0.375.", lambda: {
    "ranx mrr@10 (aggregate)": rx_s(MP_QRELS, MP_SCORES, "mrr@10", aggregate=True),
    "hand listed order, four queries": mp_hand(RRk, "listed order", 10, over=tuple(MP_QRELS))},
   primary="ranx mrr@10 (aggregate)")
mp("ranx's `mrr` without a cutoff would be the same 0.375", lambda: {
    "ranx mrr (aggregate)": rx_s(MP_QRELS, MP_SCORES, "mrr", aggregate=True),
    "hand listed order, no cutoff, four queries": mp_hand(RRk, "listed order", over=tuple(MP_QRELS))},
   primary="ranx mrr (aggregate)")
mp("ir_measures' RR@10 averages to 0.5 over the same four queries", lambda: {
    "ir_measures RR@10 (aggregate; msmarco)": irm_s(MP_QRELS, MP_SCORES, "RR@10", aggregate=True),
    "hand docno ascending, four queries": mp_hand(RRk, "docno ascending", 10, over=tuple(MP_QRELS))},
   primary="ir_measures RR@10 (aggregate; msmarco)")
mp("Reported the way the leaderboard asks for it, MRR@10 with every judged query counted, the reranker scores 0.375.",
   lambda: {f"hand {rule}, four queries": mp_hand(RRk, rule, 10, over=tuple(MP_QRELS)) for rule in TIE_RULES},
   primary="hand listed order, four queries")
DUP = ["t1", "t4", "t2", "t1"]
mp("trec_eval refused that file outright.", lambda: {"pytrec_eval's reader": mp_dup("pytrec_eval")},
   primary="pytrec_eval's reader")
mp("ir_measures read it without a warning and kept the last score it saw for t1, which moves t1 to third place: q3's "
   "reciprocal rank becomes 1/2.", lambda: {
    "ir_measures (its TREC reader)": mp_dup("ir_measures"), "hand keep last": RR(mq3, keep_last(DUP)),
    "hand keep first": RR(mq3, keep_first(DUP))}, primary="hand keep last")
mp("ranx did the same and also gave q3 a reciprocal rank of 1/2.", lambda: {
    "ranx (Run.from_file)": mp_dup("ranx"), "hand keep last": RR(mq3, keep_last(DUP))}, primary="hand keep last")
mp("q3's AP came out at 29/36 ≈ 0.806", lambda: {
    "hand, every line counted": AP_ranked(mq3, DUP, counts_each=True), "hand keep first": AP(mq3, keep_first(DUP)),
    "hand keep last": AP(mq3, keep_last(DUP))}, primary="hand, every line counted")
mp("Keeping only the first occurrence of t1 gives back the average precision of 5/9.", lambda: {
    "hand keep first": AP(mq3, keep_first(DUP)), "hand keep last (ir_measures, ranx)": AP(mq3, keep_last(DUP)),
    "ir_measures, ranx on the file": mp_dup("ranx"), "trec_eval": mp_dup("pytrec_eval")}, primary="hand keep first")

# ---- graded-qrels-lab ----------------------------------------------------------------------------
# Query L6 on a 0–3 scale; U unjudged at rank 4; H (grade 3) not retrieved. L7: K and M judged 1, N judged 0.
GL = "graded-qrels-lab"
GL_QRELS = {"L6": {"A": 3, "B": 2, "C": 2, "D": 1, "E": 1, "F": 0, "G": 0, "H": 3}}
GL_RUN = {"L6": ["B", "F", "A", "U", "D", "C", "G", "E"]}
GL_U0 = {"L6": {**GL_QRELS["L6"], "U": 0}}
GL2_QRELS = {**GL_QRELS, "L7": {"K": 1, "M": 1, "N": 0}}
GL2_RUN = {**GL_RUN, "L7": ["K", "N", "M"]}
g6, r6 = GL_QRELS["L6"], GL_RUN["L6"]
g6_labels = [g6.get(d, 0) for d in r6]                 # the grades scikit-learn is handed (U as 0)
g6_condensed = [d for d in r6 if d in g6]


def gl_lib(k, exp=False):
    """Each library's nDCG@k of L6: linear gain (trec_eval, ir_measures, ranx) or exponential (ranx, gdeval)."""
    if exp:
        return {"ranx ndcg_burges": rx(GL_QRELS, GL_RUN, f"ndcg_burges@{k}", "L6"),
                "ir_measures nDCG(dcg='exp-log2') (gdeval)": irm(GL_QRELS, GL_RUN, f"nDCG(dcg='exp-log2')@{k}", "L6")}
    return {"trec_eval ndcg_cut": trec_value(GL_QRELS, GL_RUN, f"ndcg_cut.{k}", q="L6"),
            "ir_measures nDCG": irm(GL_QRELS, GL_RUN, f"nDCG@{k}", "L6"), "ranx ndcg": rx(GL_QRELS, GL_RUN, f"ndcg@{k}", "L6")}


def gl(quote, compute, primary="hand"):
    S(GL, quote, compute, primary)


def sklearn_ap(labels):
    """scikit-learn average_precision_score(y_true, y_score) with distinct decreasing scores: the mean of the
    precisions at the positives it is given (sum over n of (R_n − R_{n−1}) P_n)."""
    hits, total = 0, Fr(0)
    for i, y in enumerate(labels, 1):
        if y:
            hits += 1
            total += Fr(hits, i)
    return total / hits


def ignite_ndcg(labels, k):
    """pytorch-ignite NDCG (gain_function='exp_rank'): exponential gain, the ideal sorted from the labels given."""
    dcg = mpmath.fsum(mpmath.mpf(2 ** g - 1) / lg2(i + 1) for i, g in enumerate(labels[:k], 1))
    ideal = sorted(labels, reverse=True)
    return dcg / mpmath.fsum(mpmath.mpf(2 ** g - 1) / lg2(i + 1) for i, g in enumerate(ideal[:k], 1))


gl("so DCG@5 = 2 + 3/2 + 1/log2(6) ≈ 3.887", lambda: {
    "hand": DCG(g6, r6, 5), "hand, U removed first (condensed)": DCG(g6, g6_condensed, 5),
    "ranx dcg@5": rx(GL_QRELS, GL_RUN, "dcg@5", "L6")})
gl("The ideal keeps the five best judged grades, 3, 3, 2, 2, 1: IDCG@5 ≈ 7.141.", lambda: {
    "hand (judged, cut at 5)": IDCG(g6, 5), "hand (retrieved only: 3, 2, 2, 1, 1)": IDCG(g6, 5, pool=r6),
    "ranx dcg@5 of the ideal ranking": rx(GL_QRELS, {"L6": ideal_run(g6)}, "dcg@5", "L6")},
   primary="hand (judged, cut at 5)")
gl("So nDCG@5 = 3.887/7.141 ≈ 0.544", lambda: {
    "hand": nDCG(g6, r6, 5), "hand, the printed quotient": Fr("3.887") / Fr("7.141"),
    "hand, retrieved-only ideal (scikit-learn)": nDCG(g6, r6, 5, pool=r6),
    "hand, whole judged list as ideal": DCG(g6, r6, 5) / IDCG(g6, 8),
    "hand, U removed (condensed)": nDCG(g6, g6_condensed, 5), "hand, exponential gain": nDCG(g6, r6, 5, exp=True),
    **gl_lib(5)}, primary="hand")
gl("trec_eval's `ndcg_cut.5` prints 0.5443 for the same input", lambda: {
    "trec_eval ndcg_cut_5": trec_value(GL_QRELS, GL_RUN, "ndcg_cut.5", q="L6")}, primary="trec_eval ndcg_cut_5")
gl("builds its ideal from those eight alone and reports about 0.639", lambda: {
    "hand scikit-learn ndcg_score(k=5) on the eight grades": sklearn_ndcg(g6_labels, 5),
    "hand, judged ideal": nDCG(g6, r6, 5)}, primary="hand scikit-learn ndcg_score(k=5) on the eight grades")


def _gl_cases():
    """Every ranking up to length 4 over documents graded 0–2 (one unretrieved document of each positive grade
    possible, one unjudged possible), k ≤ length."""
    docs = ["a", "b", "c", "d"]
    for n in range(1, 5):
        for grades in itertools.product((0, 1, 2, None), repeat=n):
            for extra in ((), (1,), (2,), (2, 2)):
                qrels_q = {d: g for d, g in zip(docs, grades) if g is not None}
                qrels_q |= {f"x{i}": g for i, g in enumerate(extra)}
                if any(g > 0 for g in qrels_q.values()):
                    for k in range(1, n + 1):
                        yield qrels_q, docs[:n], k


gl("Building the ideal from the retrieved documents alone can never lower nDCG@k.", lambda: {
    "hand (linear and exponential)": "holds on every graded case searched" if all(
        nDCG(q, r, k, exp=e, pool=r) >= nDCG(q, r, k, exp=e) - mpmath.mpf(10) ** -30
        for q, r, k in _gl_cases() for e in (False, True)) else "fails"})
gl("DCG@5 = 3 + 7/2 + 1/log2(6) ≈ 6.887", lambda: {
    "hand": DCG(g6, r6, 5, exp=True), "ranx dcg_burges@5": rx(GL_QRELS, GL_RUN, "dcg_burges@5", "L6")})
gl("IDCG@5 = 7 + 7/log2(3) + 3/2 + 3/log2(5) + 1/log2(6) ≈ 14.60", lambda: {
    "hand": IDCG(g6, 5, exp=True), "ranx dcg_burges@5 of the ideal ranking": rx(GL_QRELS, {"L6": ideal_run(g6)}, "dcg_burges@5", "L6")})
gl("nDCG@5 ≈ 0.472: the missed perfect document H now costs more", lambda: {
    "hand": nDCG(g6, r6, 5, exp=True), **gl_lib(5, exp=True)})
gl("ranx's `ndcg_burges@5` gives the same 0.472", lambda: {
    "ranx ndcg_burges@5": rx(GL_QRELS, GL_RUN, "ndcg_burges@5", "L6")}, primary="ranx ndcg_burges@5")
gl("Four of the top five results are judged, so Judged@5 = 4/5.", lambda: {
    "hand": Fr(sum(1 for d in r6[:5] if d in g6), 5), "ir_measures Judged@5": irm(GL_QRELS, GL_RUN, "Judged@5", "L6")})
gl("trec_eval, ir_measures and ranx all score U as non-relevant.", lambda: {
    "trec_eval P_5 (U unjudged)": trec_value(GL_QRELS, GL_RUN, "P.5", q="L6"),
    "trec_eval P_5 (U judged 0)": trec_value(GL_U0, GL_RUN, "P.5", q="L6"),
    "ir_measures P@5 (U unjudged / judged 0)": f"{irm(GL_QRELS, GL_RUN, 'P@5', 'L6')} / {irm(GL_U0, GL_RUN, 'P@5', 'L6')}",
    "ranx ndcg@5 (U unjudged / judged 0)": f"{rx(GL_QRELS, GL_RUN, 'ndcg@5', 'L6')} / {rx(GL_U0, GL_RUN, 'ndcg@5', 'L6')}",
    "hand P@5, U removed first": P(g6, g6_condensed, 5)}, primary="trec_eval P_5 (U unjudged)")
gl("raises the Part 1 nDCG@5 to about 0.659", lambda: {
    "hand (U removed, linear gain, judged ideal)": nDCG(g6, g6_condensed, 5),
    "trec_eval ndcg_cut_5 with judged_docs_only_flag (-J)": pytrec_eval.RelevanceEvaluator(
        GL_QRELS, {"ndcg_cut.5"}, judged_docs_only_flag=True).evaluate(scored(GL_RUN))["L6"]["ndcg_cut_5"],
    **gl_lib(5)}, primary="hand (U removed, linear gain, judged ideal)")
gl("For L6 it comes to 2.5/6 ≈ 0.417.", lambda: {
    "hand (trec_eval's rule)": Bpref(g6, r6), "trec_eval bpref": trec_value(GL_QRELS, GL_RUN, "bpref", q="L6"),
    "ir_measures Bpref": irm(GL_QRELS, GL_RUN, "Bpref", "L6"), "ranx bpref": rx(GL_QRELS, GL_RUN, "bpref", "L6")})
gl("Judging U as bad later would leave bpref unchanged.", lambda: {
    "hand before (U unjudged)": Bpref(g6, r6), "hand after (U judged 0)": Bpref(GL_U0["L6"], r6),
    "trec_eval bpref before / after": f"{trec_value(GL_QRELS, GL_RUN, 'bpref', q='L6')} / {trec_value(GL_U0, GL_RUN, 'bpref', q='L6')}",
    "ranx bpref after": rx(GL_U0, GL_RUN, "bpref", "L6")}, primary="hand after (U judged 0)")
gl("six of the eight judged documents are relevant and P@5 = 3/5", lambda: {
    "hand num_rel": Fr(nrel(g6)), "hand P@5": P(g6, r6, 5), "trec_eval P_5": trec_value(GL_QRELS, GL_RUN, "P.5", q="L6"),
    "trec_eval num_rel": trec_value(GL_QRELS, GL_RUN, "num_rel", q="L6"), "ranx precision@5": rx(GL_QRELS, GL_RUN, "precision@5", "L6")},
   primary="hand P@5")
gl("`trec_eval -l 2` counts only grades 2 and 3 as relevant, and P@5 drops to 2/5.", lambda: {
    "hand": P(g6, r6, 5, level=2), "trec_eval P_5 -l 2": trec_value(GL_QRELS, GL_RUN, "P.5", q="L6", level=2),
    "ir_measures P(rel=2)@5": irm(GL_QRELS, GL_RUN, "P(rel=2)@5", "L6"), "ranx precision@5-l2": rx(GL_QRELS, GL_RUN, "precision@5-l2", "L6")})
gl("Its AP at `-l 2` is (1 + 2/3 + 3/6)/4 ≈ 0.542.", lambda: {
    "hand": AP(g6, r6, level=2), "trec_eval map -l 2": trec_value(GL_QRELS, GL_RUN, "map", q="L6", level=2),
    "ir_measures AP(rel=2)": irm(GL_QRELS, GL_RUN, "AP(rel=2)", "L6"), "ranx map-l2": rx(GL_QRELS, GL_RUN, "map-l2", "L6")})
gl("`-l 2` leaves trec_eval's `ndcg_cut.5` at 0.5443: the grade-1 documents keep their gain.", lambda: {
    "trec_eval ndcg_cut_5 -l 2": trec_value(GL_QRELS, GL_RUN, "ndcg_cut.5", q="L6", level=2),
    "trec_eval ndcg_cut_5 -l 1": trec_value(GL_QRELS, GL_RUN, "ndcg_cut.5", q="L6"),
    "hand, grades below 2 dropped": nDCG(g6, r6, 5, level=2)}, primary="trec_eval ndcg_cut_5 -l 2")
gl("ranx's `ndcg@5-l2` does drop them, and gives about 0.518.", lambda: {
    "ranx ndcg@5-l2": rx(GL_QRELS, GL_RUN, "ndcg@5-l2", "L6"), "hand, grades below 2 dropped": nDCG(g6, r6, 5, level=2)},
   primary="ranx ndcg@5-l2")
q7, r7 = GL2_QRELS["L7"], GL2_RUN["L7"]
gl("At the default level, L7's AP is (1 + 2/3)/2 = 5/6.", lambda: {
    "hand": AP(q7, r7), "trec_eval map": trec_value(GL2_QRELS, GL2_RUN, "map", q="L7"),
    "ir_measures AP": irm(GL2_QRELS, GL2_RUN, "AP", "L7"), "ranx map": rx(GL2_QRELS, GL2_RUN, "map", "L7")})
gl("At `-l 2` L7 has no relevant document at all, and trec_eval reports its map as 0 instead of dropping it.", lambda: {
    "trec_eval map -l 2, L7": trec_value(GL2_QRELS, GL2_RUN, "map", q="L7", level=2),
    "trec_eval queries returned at -l 2": sorted(trec(GL2_QRELS, GL2_RUN, {"map"}, level=2))},
   primary="trec_eval map -l 2, L7")
gl("MAP over L6 and L7 at `-l 2` is therefore (0.542 + 0)/2 ≈ 0.271.", lambda: {
    "hand (L7 scores 0)": (AP(g6, r6, level=2) + AP(q7, r7, level=2)) / 2, "hand (L7 left out)": AP(g6, r6, level=2),
    "trec_eval map -l 2 (mean)": sum(v["map"] for v in trec(GL2_QRELS, GL2_RUN, {"map"}, level=2).values()) / 2,
    "ir_measures AP(rel=2) (aggregate)": irm(GL2_QRELS, GL2_RUN, "AP(rel=2)", aggregate=True),
    "ranx map-l2 (aggregate)": rx(GL2_QRELS, GL2_RUN, "map-l2", aggregate=True)}, primary="hand (L7 scores 0)")
gl("would report L6's 0.542 alone", lambda: {
    "hand (L7 left out)": AP(g6, r6, level=2), "hand (L7 scores 0)": (AP(g6, r6, level=2) + AP(q7, r7, level=2)) / 2,
    "trec_eval map -l 2 (mean of both)": sum(v["map"] for v in trec(GL2_QRELS, GL2_RUN, {"map"}, level=2).values()) / 2,
    "ir_measures AP(rel=2) (aggregate)": irm(GL2_QRELS, GL2_RUN, "AP(rel=2)", aggregate=True),
    "ranx map-l2 (aggregate)": rx(GL2_QRELS, GL2_RUN, "map-l2", aggregate=True)}, primary="hand (L7 left out)")
gl("trec_eval's map for L6 is 427/720 ≈ 0.593", lambda: {
    "hand (|R| = 6)": AP(g6, r6), "trec_eval map": trec_value(GL_QRELS, GL_RUN, "map", q="L6"),
    "ir_measures AP": irm(GL_QRELS, GL_RUN, "AP", "L6"), "ranx map": rx(GL_QRELS, GL_RUN, "map", "L6")}, primary="hand (|R| = 6)")
gl("only knows about the five relevant ones among them and reports about 0.712", lambda: {
    "hand scikit-learn average_precision_score on the eight labels": sklearn_ap([1 if g >= 1 else 0 for g in g6_labels]),
    "hand (relevant retrieved)": AP(g6, r6, denominator="relevant retrieved")},
   primary="hand scikit-learn average_precision_score on the eight labels")
gl("ERR@3 for the top three grades 2, 0, 3 is 3/8 + (5/8)(7/8)/3 ≈ 0.557", lambda: {
    "hand (top grade 3, the scale's)": ERR([2, 0, 3], gmax=3), "hand (top grade 4, gdeval)": ERR([2, 0, 3], gmax=4),
    "ir_measures ERR@3 (gdeval)": irm(GL_QRELS, GL_RUN, "ERR@3", "L6")}, primary="hand (top grade 3, the scale's)")
gl("ir_measures' ERR@3 runs gdeval, which divides by 2^4 whatever the scale, and gives 0.30599", lambda: {
    "ir_measures ERR@3 (gdeval)": irm(GL_QRELS, GL_RUN, "ERR@3", "L6"), "hand (top grade 4)": ERR([2, 0, 3], gmax=4)},
   primary="hand (top grade 4)")
gl("| P@5 | 0.6 |", lambda: {
    "hand (U non-relevant, stated)": P(g6, r6, 5), "hand, U removed": P(g6, g6_condensed, 5),
    "trec_eval P_5": trec_value(GL_QRELS, GL_RUN, "P.5", q="L6"), "ranx precision@5": rx(GL_QRELS, GL_RUN, "precision@5", "L6")},
   primary="hand (U non-relevant, stated)")
gl("| RR | 1 |", lambda: {
    "hand": RR(g6, r6), "trec_eval recip_rank": trec_value(GL_QRELS, GL_RUN, "recip_rank", q="L6"),
    "ir_measures RR": irm(GL_QRELS, GL_RUN, "RR", "L6"), "ranx mrr": rx(GL_QRELS, GL_RUN, "mrr", "L6")})
gl("| AP | 0.593 |", lambda: {
    "hand (|R|: trec_eval, ir_measures, ranx)": AP(g6, r6),
    "hand (relevant retrieved: scikit-learn on the retrieved list)": AP(g6, r6, denominator="relevant retrieved"),
    "trec_eval map": trec_value(GL_QRELS, GL_RUN, "map", q="L6")}, primary="hand (|R|: trec_eval, ir_measures, ranx)")
gl("| nDCG@5 | 0.544 |", lambda: {
    "hand linear, judged ideal": nDCG(g6, r6, 5), "hand exponential, judged ideal": nDCG(g6, r6, 5, exp=True),
    "hand linear, retrieved-only ideal (scikit-learn)": nDCG(g6, r6, 5, pool=r6), **gl_lib(5)},
   primary="hand linear, judged ideal")
gl("| nDCG@5, exponential gain | 0.472 |", lambda: {
    "hand exponential, judged ideal": nDCG(g6, r6, 5, exp=True),
    "hand exponential, retrieved-only ideal (pytorch-ignite NDCG)": ignite_ndcg(g6_labels, 5),
    **gl_lib(5, exp=True)}, primary="hand exponential, judged ideal")
gl("| Judged@5 | 0.8 |", lambda: {
    "hand": Fr(4, 5), "ir_measures Judged@5": irm(GL_QRELS, GL_RUN, "Judged@5", "L6")})

# ---- code listings: rag-retriever-metrics-blog, ir-course-eval-notebook, tinyrank-api-docs ---------------------
# A listing's statement is its `def` line. Its value is the chapter's definition (by hand, exact, under the text's
# stated conventions) on one input that shows what the listing does: the call the text prints, or for a listing that
# is wrong, the input where it parts from the definition. The listing itself is run on the same inputs, in this
# process: its fenced block's imports, functions and constants only (example calls and prints left out), as the text
# prints it. Edge cases (a repeated ID, an empty relevant set or all-zero grades, k = 0) show why a listing is
# qualified; an exception is shown as "raises <name>".


def listing(text, def_line):
    """The function ``def_line`` defines, from the fenced Python block of ``text``'s snapshot that prints it."""
    import ast
    import re
    snap = (HERE / text / "snapshot.md").read_text(encoding="utf-8")
    code = next(b for b in re.findall(r"```python\n(.*?)```", snap, re.S) if def_line in b)
    tree = ast.parse(code)
    keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.Assign))]
    ns: dict = {}
    exec(compile(ast.Module(keep, []), f"{text} listing", "exec"), ns)  # noqa: S102 (the corpus's own listing)
    return ns[def_line.split()[1].split("(")[0]]


def ran(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:  # the listing's own failure is the evidence
        return f"raises {type(exc).__name__}"


def lst(text, def_line, cases, libs=None):
    """``cases``: (label, the listing's arguments, the chapter's value by hand); the first is the statement's value."""
    fn = listing(text, def_line)
    out = {}
    for label, args, hand in cases:
        out[f"hand, {label}"] = hand
        out[f"listing, {label}"] = ran(fn, *args)
    return {**out, **(libs() if libs else {})}


def code(text, def_line, cases, libs=None):
    S(text, def_line, lambda: lst(text, def_line, cases, libs), primary=f"hand, {cases[0][0]}")


def binq(ranking, relevant):
    """One binary query as a qrels/run pair for the libraries (relevant judged 1)."""
    return {"q": {d: 1 for d in relevant}}, {"q": list(ranking)}


def rel_q(relevant, ranking=()):
    """The judgements of a binary listing's input: the relevant documents judged 1."""
    return {d: 1 for d in relevant}


RG, NB, LD = "rag-retriever-metrics-blog", "ir-course-eval-notebook", "tinyrank-api-docs"
KF = keep_first

# rag-retriever-metrics-blog: repeated chunks keep their first copy; P@k over k; AP over |R|; RR@k stops at k.
_c = (["c4", "c1", "c4", "c7", "c2"], {"c1", "c2", "c9"})
code(RG, "def recall_at_k(retrieved, relevant, k):", [
    ("R@4 on the printed call (keep first)", (*_c, 4), R(rel_q(_c[1]), KF(_c[0]), 4)),
    ("R@2 on ['c1', 'c1', 'c2'], relevant {'c2'}", (["c1", "c1", "c2"], {"c2"}, 2), R({"c2": 1}, KF(["c1", "c1", "c2"]), 2)),
    ("empty relevant set", (["c1", "c2"], set(), 2), Fr(0))],
    lambda: {"trec_eval recall_4 (the ranking with its repeat removed)": trec_value(*binq(KF(_c[0]), _c[1]), "recall.4", q="q")})
code(RG, "def context_recall(retrieved, relevant, k):", [
    ("R@2 on ['c4', 'c1', 'c7'], relevant {'c1', 'c9'}", (["c4", "c1", "c7"], {"c1", "c9"}, 2), Fr(1, 2)),
    ("empty relevant set", (["c1", "c2"], set(), 2), Fr(0))],
    lambda: {"trec_eval recall_2": trec_value(*binq(["c4", "c1", "c7"], {"c1", "c9"}), "recall.2", q="q")})
code(RG, "def precision_at_k(retrieved, relevant, k):", [
    ("P@5 on the printed call (over k, stated)", (["c3", "c8"], {"c3", "c5"}, 5), P({"c3": 1, "c5": 1}, ["c3", "c8"], 5)),
    ("empty ranking, k = 3", ([], {"c1"}, 3), Fr(0))],
    lambda: {"trec_eval P_5": trec_value(*binq(["c3", "c8"], {"c3", "c5"}), "P.5", q="q"),
             "ranx precision@5": rx(*binq(["c3", "c8"], {"c3", "c5"}), "precision@5", "q")})
code(RG, "def precision_at_k_set(retrieved, relevant, k):", [
    ("P@2 on ['c1', 'c1', 'c2'], relevant {'c2'} (keep first: c1, c2)", (["c1", "c1", "c2"], {"c2"}, 2),
     P({"c2": 1}, KF(["c1", "c1", "c2"]), 2)),
    ("P@4 on ['n', 'n', 'a', 'a'], relevant {'a'}", (["n", "n", "a", "a"], {"a"}, 4), P({"a": 1}, KF(["n", "n", "a", "a"]), 4)),
    ("P@2 on ['c1', 'c2', 'c3'], relevant {'c2'}", (["c1", "c2", "c3"], {"c2"}, 2), P({"c2": 1}, ["c1", "c2", "c3"], 2))])
code(RG, "def reciprocal_rank(retrieved, relevant):", [
    ("RR on the printed call", (["c6", "c2", "c9"], {"c9"}), RR({"c9": 1}, ["c6", "c2", "c9"])),
    ("RR on ['n', 'n', 'a'], relevant {'a'} (keep first: n, a)", (["n", "n", "a"], {"a"}), RR({"a": 1}, KF(["n", "n", "a"])))],
    lambda: {"trec_eval recip_rank": trec_value(*binq(["c6", "c2", "c9"], {"c9"}), "recip_rank", q="q")})
code(RG, "def mrr_at_k(retrieved, relevant, k):", [
    ("RR@2 on ['c6', 'c2', 'c9'], relevant {'c9'}", (["c6", "c2", "c9"], {"c9"}, 2), RRk({"c9": 1}, ["c6", "c2", "c9"], 2))],
    lambda: {"ir_measures RR@2": irm(*binq(["c6", "c2", "c9"], {"c9"}), "RR@2", "q"),
             "ranx mrr@2": rx(*binq(["c6", "c2", "c9"], {"c9"}), "mrr@2", "q")})
_a = (["c1", "c5", "c2", "c8"], {"c1", "c2", "c7"})
code(RG, "def average_precision(retrieved, relevant):", [
    ("AP on the printed call (over |R| = 3)", _a, AP(rel_q(_a[1]), _a[0]))],
    lambda: {"hand (over the two relevant retrieved)": AP(rel_q(_a[1]), _a[0], denominator="relevant retrieved"),
             "trec_eval map": trec_value(*binq(*_a), "map", q="q"), "ranx map": rx(*binq(*_a), "map", "q")})
_b = (["c3", "c7", "c1", "c9", "c4"], {"c1", "c3", "c4"})
code(RG, "def average_precision_at_k(retrieved, relevant, k):", [
    ("AP@5 on the printed call", (*_b, 5), AP(rel_q(_b[1]), _b[0], 5)),
    ("AP@2 on ['c3', 'c3', 'c1'], relevant {'c1', 'c3'} (keep first)", (["c3", "c3", "c1"], {"c1", "c3"}, 2),
     AP({"c1": 1, "c3": 1}, KF(["c3", "c3", "c1"]), 2)),
    ("empty relevant set", (["c1"], set(), 1), Fr(0))],
    lambda: {"trec_eval map_cut_5": trec_value(*binq(*_b), "map_cut.5", q="q"), "ranx map@5": rx(*binq(*_b), "map@5", "q")})
_n = (["c2", "c5", "c8"], {"c5", "c9"})
code(RG, "def ndcg_at_k(retrieved, relevant, k):", [
    ("nDCG@3 on the printed call (ideal: two relevant at the top)", (*_n, 3), nDCG(rel_q(_n[1]), _n[0], 3))],
    lambda: {"hand, ideal from the retrieved gains": nDCG(rel_q(_n[1]), _n[0], 3, pool=_n[0]),
             "trec_eval ndcg_cut_3": trec_value(*binq(*_n), "ndcg_cut.3", q="q"), "ranx ndcg@3": rx(*binq(*_n), "ndcg@3", "q")})

# ir-course-eval-notebook: a duplicate is refused; grade >= 1 relevant; linear gain; ideal from all judged grades.
TOY = {"d1": 2, "d2": 1, "d6": 1, "d7": 3}
TOY_RUN = ["d2", "d7", "d5", "d1", "d8"]
TOY_R = [TOY.get(d, 0) for d in TOY_RUN]
NB_DUP = (["d2", "d2", "d7"], TOY)
_p = (["d3", "d1", "d9", "d4"], {"d1": 2, "d4": 1, "d7": 3, "d9": 0})
code(NB, "def precision_at_k(ranking, qrels, k):", [
    ("P@3 on the printed call", (*_p, 3), P(_p[1], _p[0], 3)),
    ("a duplicate (the text refuses it)", (*NB_DUP, 2), "rejects")],
    lambda: {"trec_eval P_3": trec_value({"q": _p[1]}, {"q": _p[0]}, "P.3", q="q")})
code(NB, "def recall_at_k(ranking, qrels, k):", [
    ("R@3 on the toy topic", (TOY_RUN, TOY, 3), R(TOY, TOY_RUN, 3)),
    ("qrels with no relevant document", (["d1", "d2"], {"d1": 0, "d2": 0}, 2), Fr(0))],
    lambda: {"trec_eval recall_3": trec_value({"q": TOY}, {"q": TOY_RUN}, "recall.3", q="q")})
code(NB, "def average_precision(ranking, qrels):", [
    ("AP on the printed call", (TOY_RUN, TOY), AP(TOY, TOY_RUN)),
    ("a duplicate (the text refuses it)", NB_DUP, "rejects")],
    lambda: {"trec_eval map": trec_value({"q": TOY}, {"q": TOY_RUN}, "map", q="q")})
code(NB, "def reciprocal_rank(ranking, qrels):", [
    ("RR on ['d5', 'd7'] for the toy topic", (["d5", "d7"], TOY), RR(TOY, ["d5", "d7"])),
    ("a duplicate (the text refuses it)", NB_DUP, "rejects")],
    lambda: {"trec_eval recip_rank": trec_value({"q": TOY}, {"q": ["d5", "d7"]}, "recip_rank", q="q")})
code(NB, "def average_precision_at_k(ranking, qrels, k):", [
    ("AP@4 on the toy run", (TOY_RUN, TOY, 4), AP(TOY, TOY_RUN, 4)),
    ("AP@5 on the printed call", (TOY_RUN, TOY, 5), AP(TOY, TOY_RUN, 5))],
    lambda: {"trec_eval map_cut_4": trec_value({"q": TOY}, {"q": TOY_RUN}, "map_cut.4", q="q")})
code(NB, "def ndcg_at_k(r, k):", [
    ("nDCG@5 on the toy run, grades 1, 3, 0, 2, 0 (d6, grade 1, not retrieved)", (TOY_R, 5), nDCG(TOY, TOY_RUN, 5)),
    ("nDCG@6 on the printed call (only those six judged)", ([3, 2, 3, 0, 1, 2], 6),
     nDCG({f"r{i}": g for i, g in enumerate([3, 2, 3, 0, 1, 2], 1)}, [f"r{i}" for i in range(1, 7)], 6))],
    lambda: {"hand, ideal from the run's own grades": nDCG(TOY, TOY_RUN, 5, pool=TOY_RUN),
             "trec_eval ndcg_cut_5": trec_value({"q": TOY}, {"q": TOY_RUN}, "ndcg_cut.5", q="q")})
code(NB, "def precision_at_k_r(r, k):", [
    ("P@3 on the toy run's grades", (TOY_R, 3), P(TOY, TOY_RUN, 3)),
    ("k = 0", (TOY_R, 0), Fr(0)),
    ("grades 0, 0, 1, 1 of ['n', 'n', 'a', 'a'] (a duplicate, refused)", ([0, 0, 1, 1], 4), "rejects")],
    lambda: {"trec_eval P_3": trec_value({"q": TOY}, {"q": TOY_RUN}, "P.3", q="q")})
code(NB, "def ndcg_cut(ranking, qrels, k):", [
    ("nDCG@5 on the toy run (linear gain, stated)", (TOY_RUN, TOY, 5), nDCG(TOY, TOY_RUN, 5))],
    lambda: {"hand, exponential gain": nDCG(TOY, TOY_RUN, 5, exp=True),
             "trec_eval ndcg_cut_5": trec_value({"q": TOY}, {"q": TOY_RUN}, "ndcg_cut.5", q="q"),
             "ranx ndcg_burges@5": rx({"q": TOY}, {"q": TOY_RUN}, "ndcg_burges@5", "q")})
code(NB, "def ndcg_at_cutoff(ranking, qrels, k):", [
    ("nDCG@5 on the toy run", (TOY_RUN, TOY, 5), nDCG(TOY, TOY_RUN, 5)),
    ("qrels with no relevant document", (["d1", "d2"], {"d1": 0, "d2": 0}, 2), Fr(0))],
    lambda: {"trec_eval ndcg_cut_5": trec_value({"q": TOY}, {"q": TOY_RUN}, "ndcg_cut.5", q="q")})

# tinyrank-api-docs: duplicates keep their first occurrence; P@k over k; AP over |R|; rr_at_k stops at k;
# exponential gain; ideal from all judged grades (ndcg_from_labels: from the labels it is given).
code(LD, "def precision_at_k(ranking, relevant, k=DEFAULT_K):", [
    ("P@5 on the printed call", (["d1", "d2", "d3"], {"d1", "d3", "d6"}, 5), P(rel_q({"d1", "d3", "d6"}), ["d1", "d2", "d3"], 5)),
    ("k = 0 (the page documents ValueError for k < 1)", (["d1"], {"d1"}, 0), Fr(0))],
    lambda: {"trec_eval P_5": trec_value(*binq(["d1", "d2", "d3"], {"d1", "d3", "d6"}), "P.5", q="q")})
code(LD, "def recall_at_k(ranking, relevant, k=DEFAULT_K):", [
    ("R@4 on ['d1', 'd2', 'd3', 'd4'], relevant {'d2', 'd4'}", (["d1", "d2", "d3", "d4"], {"d2", "d4"}, 4),
     R(rel_q({"d2", "d4"}), ["d1", "d2", "d3", "d4"], 4)),
    ("R@3 on the printed call (k = |R|)", (["d1", "d2", "d3"], {"d2", "d3", "d9"}, 3), R(rel_q({"d2", "d3", "d9"}), ["d1", "d2", "d3"], 3))],
    lambda: {"trec_eval recall_4": trec_value(*binq(["d1", "d2", "d3", "d4"], {"d2", "d4"}), "recall.4", q="q")})
code(LD, "def reciprocal_rank(ranking, relevant):", [
    ("RR on the printed call (keep first: d4, d2)", (["d4", "d4", "d2"], {"d2"}), RR({"d2": 1}, KF(["d4", "d4", "d2"])))],
    lambda: {"trec_eval recip_rank (repeat removed)": trec_value(*binq(["d4", "d2"], {"d2"}), "recip_rank", q="q")})
code(LD, "def rr_at_k(ranking, relevant, k=DEFAULT_K):", [
    ("RR@2 on the printed call", (["d5", "d6", "d1"], {"d1"}, 2), RRk({"d1": 1}, ["d5", "d6", "d1"], 2))],
    lambda: {"ir_measures RR@2": irm(*binq(["d5", "d6", "d1"], {"d1"}), "RR@2", "q"),
             "ranx mrr@2": rx(*binq(["d5", "d6", "d1"], {"d1"}), "mrr@2", "q")})
code(LD, "def average_precision(ranking, relevant):", [
    ("AP on the printed call", (["d7", "d2", "d5", "d1"], {"d2", "d1", "d8"}), AP(rel_q({"d1", "d2", "d8"}), ["d7", "d2", "d5", "d1"])),
    ("AP on ['d2', 'd2', 'd1'], relevant {'d1', 'd2'} (keep first)", (["d2", "d2", "d1"], {"d1", "d2"}),
     AP({"d1": 1, "d2": 1}, KF(["d2", "d2", "d1"])))],
    lambda: {"trec_eval map": trec_value(*binq(["d7", "d2", "d5", "d1"], {"d2", "d1", "d8"}), "map", q="q")})
code(LD, "def average_precision_at_k(ranking, relevant, k=DEFAULT_K):", [
    ("AP@3 on the printed call", (["d3", "d1", "d4", "d2"], {"d1", "d2"}, 3), AP(rel_q({"d1", "d2"}), ["d3", "d1", "d4", "d2"], 3)),
    ("AP@3 on ['d1', 'd1', 'd2'], relevant {'d1', 'd2'} (keep first: d1, d2)", (["d1", "d1", "d2"], {"d1", "d2"}, 3),
     AP({"d1": 1, "d2": 1}, KF(["d1", "d1", "d2"]), 3))],
    lambda: {"trec_eval map_cut_3": trec_value(*binq(["d3", "d1", "d4", "d2"], {"d1", "d2"}), "map_cut.3", q="q")})
LD_Q = {"d1": 1, "d2": 3, "d3": 0, "d4": 2, "d5": 3}
LD_RUN = ["d1", "d2", "d3", "d4"]
code(LD, "def ndcg_at_k(ranking, qrels, k=10):", [
    ("nDCG@4 on the printed call (exponential gain, judged ideal)", (LD_RUN, LD_Q, 4), nDCG(LD_Q, LD_RUN, 4, exp=True)),
    ("qrels with no relevant document", (["d1", "d2"], {"d1": 0, "d2": 0}, 2), mpmath.mpf(0))],
    lambda: {"ranx ndcg_burges@4": rx({"q": LD_Q}, {"q": LD_RUN}, "ndcg_burges@4", "q")})
code(LD, "def ndcg_at_k_fast(ranking, qrels, k=10):", [
    ("nDCG@4 on the printed call (exponential gain, stated)", (LD_RUN, LD_Q, 4), nDCG(LD_Q, LD_RUN, 4, exp=True))],
    lambda: {"hand, linear gain": nDCG(LD_Q, LD_RUN, 4), "trec_eval ndcg_cut_4 (linear)": trec_value({"q": LD_Q}, {"q": LD_RUN}, "ndcg_cut.4", q="q"),
             "ranx ndcg_burges@4": rx({"q": LD_Q}, {"q": LD_RUN}, "ndcg_burges@4", "q")})
_l = [3, 2, 3, 0, 1, 2]
_lq, _lr = {f"r{i}": g for i, g in enumerate(_l, 1)}, [f"r{i}" for i in range(1, 7)]
code(LD, "def ndcg_from_labels(labels, k=10):", [
    ("nDCG@6 on the printed call (ideal from the labels given)", (_l, 6), nDCG(_lq, _lr, 6, exp=True, pool=_lr)),
    ("labels 0, 0 (nothing relevant in the list)", ([0, 0], 2), mpmath.mpf(0)),
    ("no labels (an empty ranking)", ([], 3), mpmath.mpf(0))],
    lambda: {"ranx ndcg_burges@6": rx({"q": _lq}, {"q": _lr}, "ndcg_burges@6", "q")})

# eval-snippets-cookbook: a repeated document is refused; grade >= 1 relevant; P@k over k; AP over |R|; RR@k applied;
# gain 2^g - 1 with the ideal from every judged grade cut at k; ERR over 2^4 (gdeval); GMAP floored at 0.00001; means
# over every query of the run. Its listings take scores ({doc: score}) and scored pairs (in no rank order), a scored
# run or a run with qrels by query, ranked grades (one query, or by query), per-query values, cutoffs and a constant,
# and return one number, a value per query or the measure at each k. Besides the cases below, each listing is run on
# 600 random well-formed inputs (distinct string IDs, grades 0-3 with at least one >= 1, some ranked documents
# unjudged and some judged ones not retrieved, scores listed in a shuffled order) against the definitions by hand;
# the count of disagreements is printed with the statement.
CB = "eval-snippets-cookbook"


def by_score(scores):
    """The documents of a {doc: score} mapping or (doc, score) pairs, highest score first (scores are distinct)."""
    pairs = list(scores.items()) if isinstance(scores, dict) else list(scores)
    return [d for d, _ in sorted(pairs, key=lambda p: -p[1])]


def grades_q(grades):
    """A relevance vector as one query's judgements and ranking (documents r1, r2, … only those judged)."""
    return {f"r{i}": g for i, g in enumerate(grades, 1)}, [f"r{i}" for i in range(1, len(grades) + 1)]


def cb_random(n=600, seed=20260517, queries=False):
    """Random well-formed single queries (or runs of one to four): (ranking, qrels, shuffled scores, k, cutoffs)."""
    rng = random.Random(seed)

    def one():
        pool = [f"d{i}" for i in range(rng.randint(1, 10))]
        ranking = rng.sample(pool, rng.randint(1 if queries else 0, len(pool)))
        judged = rng.sample(pool, rng.randint(1, len(pool)))
        qrels = {d: rng.randint(0, 3) for d in judged}
        qrels[rng.choice(judged)] = rng.randint(1, 3)
        values = sorted(rng.sample(range(1, 1000), len(ranking)), reverse=True)
        scores = list(zip(ranking, [v / 10 for v in values]))
        rng.shuffle(scores)
        k = rng.randint(1, len(ranking) + 2)
        cutoffs = sorted(rng.sample(range(1, len(ranking) + 3), rng.randint(1, min(3, len(ranking) + 2))))
        return ranking, qrels, scores, k, cutoffs

    if not queries:
        return [one() for _ in range(n)]
    out = []
    for _ in range(n):
        qs = {f"q{j}": one() for j in range(1, rng.randint(1, 4) + 1)}
        out.append((qs, rng.randint(1, max(len(x[0]) for x in qs.values()) + 2)))
    return out


def close(got, want):
    """The listing's value against the definition's: a number, a list in order, or a mapping by key (as text)."""
    if isinstance(want, dict):
        return isinstance(got, dict) and {str(k) for k in got} == {str(k) for k in want} and all(
            close(got[k], want[k] if k in want else want[int(k)]) for k in got)
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(close(g, w) for g, w in zip(got, want))
    return isinstance(got, (int, float)) and not isinstance(got, bool) and abs(got - float(want)) <= 1e-9


def cb_differential(def_line, call, hand, queries=False):
    """How many of 600 random well-formed inputs the listing gets wrong (an exception counts as wrong)."""
    fn = listing(CB, def_line)
    wrong = 0
    for item in cb_random(queries=queries):
        try:
            ok = close(call(fn, item), hand(item))
        except Exception:
            ok = False
        wrong += not ok
    return f"{wrong} of 600 disagree"


def cb(def_line, value_label, value, cases, differential, libs=None):
    """A listing whose returned value may be a list or mapping: the statement's value is one scalar of it."""
    call, hand, queries = differential
    S(CB, def_line, lambda: {f"hand, {value_label}": value, **lst(CB, def_line, cases, libs),
                             "listing vs definitions by hand on 600 random inputs": cb_differential(
                                 def_line, call, hand, queries)},
      primary=f"hand, {value_label}")


def ap_floor(a):
    return max(a, Fr(1, 100000))


# CB01 precision_at_ks(ranking, qrels, ks): P@k at each cutoff; a repeated document refused.
_c1 = (["d4", "d1", "d8", "d2", "d6"], {"d1": 2, "d2": 1, "d5": 3, "d8": 0})
cb("def precision_at_ks(ranking, qrels, ks):", "P@5 on the printed call", P(_c1[1], _c1[0], 5), [
    ("the printed call, P@1, P@3, P@5", (*_c1, [1, 3, 5]), {k: P(_c1[1], _c1[0], k) for k in (1, 3, 5)}),
    ("['d1', 'd1', 'd2'] (a duplicate, refused)", (["d1", "d1", "d2"], {"d2": 1}, [2]), "rejects"),
    ("cutoffs [0] (an empty prefix)", (["d1"], {"d1": 1}, [0]), {0: Fr(0)})],
   (lambda fn, x: fn(x[0], x[1], x[4]), lambda x: {k: P(x[1], x[0], k) for k in x[4]}, False),
   lambda: {f"trec_eval P_{k}": trec_value({"q": _c1[1]}, {"q": _c1[0]}, f"P.{k}", q="q") for k in (1, 3, 5)})

# CB02 recall_curve(ranking, relevant, k): R@1 … R@k; divides by len(relevant) unguarded.
_c2 = (["d2", "d5", "d1", "d7"], {"d1", "d7", "d9"})
cb("def recall_curve(ranking, relevant, k):", "R@4 on ['d2', 'd5', 'd1', 'd7'], relevant {'d1', 'd7', 'd9'}",
   R(rel_q(_c2[1]), _c2[0], 4), [
    ("R@1 … R@4 on the same input", (*_c2, 4), [R(rel_q(_c2[1]), _c2[0], i) for i in range(1, 5)]),
    ("empty relevant set (the text: 0 on every measure)", (["d1", "d2"], set(), 2), [Fr(0), Fr(0)]),
    ("['n', 'n', 'a', 'a'], relevant {'a'} (a duplicate, refused)", (["n", "n", "a", "a"], {"a"}, 4), "rejects")],
   (lambda fn, x: fn(x[0], {d for d, g in x[1].items() if g >= 1}, x[3]),
    lambda x: [R(x[1], x[0], i) for i in range(1, x[3] + 1)], False),
   lambda: {"trec_eval recall_4": trec_value(*binq(*_c2), "recall.4", q="q")})

# CB03 precision_curve(scores, qrels): P@1 … P@n by score; the text prints 0.67 for P@3, which is 1/3.
_c3 = ({"d3": 0.2, "d7": 0.9, "d1": 0.5, "d9": 0.4}, {"d1": 1, "d3": 2, "d9": 0})
_r3 = by_score(_c3[0])
cb("def precision_curve(scores, qrels):", "P@3 on the printed call (printed 0.67)", P(_c3[1], _r3, 3), [
    ("the printed call, P@1 … P@4 (ranked d7, d1, d9, d3)", _c3, [P(_c3[1], _r3, i) for i in range(1, 5)]),
    ("no scores", ({}, {"d1": 1}), [])],
   (lambda fn, x: fn(dict(x[2]), x[1]), lambda x: [P(x[1], x[0], i) for i in range(1, len(x[0]) + 1)], False),
   lambda: {f"trec_eval P_{k}": trec_value({"q": _c3[1]}, {"q": _r3}, f"P.{k}", q="q") for k in (1, 2, 3, 4)})

# CB04 ap_by_query(run, qrels): AP per query of a scored run; sorted lowest score first.
_q4 = {"q1": {"d1": 1, "d3": 0, "d4": 1}, "q2": {"d6": 2}}
_s4 = {"q1": {"d1": 0.9, "d2": 0.6, "d3": 0.2}, "q2": {"d5": 2.0, "d6": 1.0}}
_r4 = {q: by_score(s) for q, s in _s4.items()}
cb("def ap_by_query(run, qrels):", "AP of q1 (d1, d2, d3 by score; d4 relevant, not retrieved)",
   AP(_q4["q1"], _r4["q1"]), [
    ("both queries", (_s4, _q4), {q: AP(_q4[q], _r4[q]) for q in _q4}),
    ("both queries, ranked lowest score first (what the listing does)", (_s4, _q4),
     {q: AP(_q4[q], _r4[q][::-1]) for q in _q4})],
   (lambda fn, x: fn({q: dict(v[2]) for q, v in x[0].items()}, {q: v[1] for q, v in x[0].items()}),
    lambda x: {q: AP(v[1], v[0]) for q, v in x[0].items()}, True),
   lambda: {f"trec_eval map ({q})": trec_value(_q4, _r4, "map", q=q) for q in _q4})

# CB05 average_precision(scores, qrels): over the relevant retrieved, where the text states |R|.
_c5 = ({"a": 3.2, "b": 2.9, "c": 1.0}, {"a": 1, "c": 2, "e": 1})
cb("def average_precision(scores, qrels):", "AP on the printed call (over |R| = 3)", AP(_c5[1], by_score(_c5[0])), [
    ("the printed call", _c5, AP(_c5[1], by_score(_c5[0]))),
    ("the printed call over the two relevant retrieved", _c5, AP(_c5[1], by_score(_c5[0]),
                                                                   denominator="relevant retrieved"))],
   (lambda fn, x: fn(dict(x[2]), x[1]), lambda x: AP(x[1], x[0]), False),
   lambda: {"trec_eval map": trec_value({"q": _c5[1]}, {"q": by_score(_c5[0])}, "map", q="q"),
            "ranx map": rx({"q": _c5[1]}, {"q": by_score(_c5[0])}, "map", "q")})

# CB06 reciprocal_rank(pairs, qrels): walks the pairs as listed, never by score.
_c6 = ([("d1", 0.2), ("d2", 0.9), ("d3", 0.5)], {"d1": 1, "d3": 1})
cb("def reciprocal_rank(pairs, qrels):", "RR on [('d1', 0.2), ('d2', 0.9), ('d3', 0.5)], d1 and d3 relevant",
   RR(_c6[1], by_score(_c6[0])), [
    ("the same pairs (ranked d2, d3, d1)", _c6, RR(_c6[1], by_score(_c6[0]))),
    ("the pairs in the order listed (what the listing does)", _c6, RR(_c6[1], [d for d, _ in _c6[0]]))],
   (lambda fn, x: fn(list(x[2]), x[1]), lambda x: RR(x[1], x[0]), False),
   lambda: {"trec_eval recip_rank": trec_value({"q": _c6[1]}, {"q": by_score(_c6[0])}, "recip_rank", q="q")})

# CB07 ndcg_at_k(scores, qrels, k): exponential gain, judged ideal cut at k, 0 when the ideal is 0.
_c7 = ({"d1": 2.3, "d2": 1.1, "d3": 0.7, "d4": 3.0}, {"d1": 3, "d2": 1, "d4": 0, "d5": 2})
_r7 = by_score(_c7[0])
cb("def ndcg_at_k(scores, qrels, k=10):", "nDCG@3 on the printed call (2^g - 1, judged ideal)",
   nDCG(_c7[1], _r7, 3, exp=True), [
    ("the printed call", (*_c7, 3), nDCG(_c7[1], _r7, 3, exp=True)),
    ("grades all 0", ({"a": 2.0, "b": 1.0}, {"a": 0, "b": 0}, 2), Fr(0)),
    ("k = 0", ({"a": 1.0}, {"a": 1}, 0), Fr(0)),
    ("no scores", ({}, {"a": 1}, 3), Fr(0))],
   (lambda fn, x: fn(dict(x[2]), x[1], x[3]), lambda x: nDCG(x[1], x[0], x[3], exp=True), False),
   lambda: {"hand, linear gain": nDCG(_c7[1], _r7, 3),
            "ranx ndcg_burges@3": rx({"q": _c7[1]}, {"q": _r7}, "ndcg_burges@3", "q"),
            "trec_eval ndcg_cut_3 (linear)": trec_value({"q": _c7[1]}, {"q": _r7}, "ndcg_cut.3", q="q")})

# CB08 dcg_at_k_by_query(rs, k): linear gain, where the text states 2^g - 1.
_rs8 = [[3, 0, 2], [0, 1, 1]]
_g8 = [grades_q(r) for r in _rs8]
cb("def dcg_at_k_by_query(rs, k):", "DCG@3 of the first query of the printed call (2^g - 1)",
   DCG(*_g8[0], 3, exp=True), [
    ("the printed call (2^g - 1)", (_rs8, 3), [DCG(*g, 3, exp=True) for g in _g8]),
    ("the printed call with linear gain (what the listing does)", (_rs8, 3), [DCG(*g, 3) for g in _g8])],
   (lambda fn, x: fn([[v[1].get(d, 0) for d in v[0]] for v in x[0].values()], x[1]),
    lambda x: [DCG(v[1], v[0], x[1], exp=True) for v in x[0].values()], True),
   lambda: {f"ranx dcg_burges@3 (query {i})": rx({"q": g[0]}, {"q": g[1]}, "dcg_burges@3", "q")
            for i, g in enumerate(_g8, 1)} | {f"ranx dcg@3, linear (query {i})": rx({"q": g[0]}, {"q": g[1]}, "dcg@3", "q")
                                               for i, g in enumerate(_g8, 1)})

# CB09 mean_reciprocal_rank(rs): right on well-formed input; it never receives a document ID (no repeated-ID case).
_rs9 = [[0, 1, 0], [0, 0, 2], [3, 0, 0], [0, 0, 0]]
_g9 = {f"q{i}": grades_q(r) for i, r in enumerate(_rs9, 1)}
cb("def mean_reciprocal_rank(rs):", "MRR on the printed call", sum(RR(*g) for g in _g9.values()) / 4, [
    ("the printed call", (_rs9,), sum(RR(*g) for g in _g9.values()) / 4),
    ("grades 0, 0, 1, 1 of ['n', 'n', 'a', 'a'] (a duplicate, refused)", ([[0, 0, 1, 1]],), "rejects"),
    ("a query that returned nothing", ([[]],), Fr(0)),
    ("no queries", ([],), "no mean (a run without queries)")],
   (lambda fn, x: fn([[v[1].get(d, 0) for d in v[0]] for v in x[0].values()]),
    lambda x: sum(RR(v[1], v[0]) for v in x[0].values()) / len(x[0]), True),
   lambda: {"trec_eval recip_rank (mean of the four)": sum(
       trec_value({q: g[0] for q, g in _g9.items()}, {q: g[1] for q, g in _g9.items()}, "recip_rank", q=q)
       for q in _g9) / 4,
       "ir_measures RR (aggregate)": irm({q: g[0] for q, g in _g9.items()}, {q: g[1] for q, g in _g9.items()},
                                         "RR", aggregate=True)})

# CB10 gmap(ap_by_query): the geometric mean of the per-query AP, each floored at 0.00001.
_aps10 = {"q1": Fr(1, 2), "q2": Fr(1, 8), "q3": Fr(0)}
# a run whose per-query AP are those: q1 relevant at rank 2 (|R| = 1), q2 at rank 8, q3 nothing relevant retrieved
_q10 = {"q1": {"a": 1}, "q2": {"h": 1}, "q3": {"z": 1}}
_run10 = {"q1": ["x", "a"], "q2": ["b", "c", "d", "e", "f", "g", "i", "h"], "q3": ["y"]}
cb("def gmap(ap_by_query):", "GMAP on the printed call (AP 1/2, 1/8, 0 floored)",
   GMAP(list(_aps10.values()), floor=Fr(1, 100000)), [
    ("the printed call", ({q: float(a) for q, a in _aps10.items()},), GMAP(list(_aps10.values()), floor=Fr(1, 100000))),
    ("one query, AP floored", ({"q1": 0.00001},), Fr(1, 100000)),
    ("no queries", ({},), Fr(0))],
   (lambda fn, x: fn({q: float(ap_floor(AP(v[1], v[0]))) for q, v in x[0].items()}),
    lambda x: GMAP([AP(v[1], v[0]) for v in x[0].values()], floor=Fr(1, 100000)), True),
   lambda: {"hand AP of the run built for it": [AP(_q10[q], _run10[q]) for q in _q10],
            "trec_eval gm_map on that run": trec_gm_map(_q10, _run10)})

# CB11 rr_at_k_by_query(run, qrels, k): ranking[:k + 1] scores rank k + 1.
_q11 = {"q1": {"d3": 1}, "q2": {"d4": 2, "d5": 1}}
_run11 = {"q1": ["d1", "d2", "d3"], "q2": ["d4", "d6"]}
cb("def rr_at_k_by_query(run, qrels, k=10):", "RR@2 of q1 (its relevant d3 at rank 3)", RRk(_q11["q1"], _run11["q1"], 2), [
    ("both queries, k = 2", (_run11, _q11, 2), {q: RRk(_q11[q], _run11[q], 2) for q in _q11}),
    ("both queries at k = 3 (what the listing returns for k = 2)", (_run11, _q11, 3),
     {q: RRk(_q11[q], _run11[q], 3) for q in _q11}),
    ("['d1', 'd1', 'd3'] for q1 (a duplicate, refused)", ({"q1": ["d1", "d1", "d3"]}, {"q1": {"d3": 1}}, 3), "rejects")],
   (lambda fn, x: fn({q: list(v[0]) for q, v in x[0].items()}, {q: v[1] for q, v in x[0].items()}, x[1]),
    lambda x: {q: RRk(v[1], v[0], x[1]) for q, v in x[0].items()}, True),
   lambda: {f"ir_measures RR@2 ({q})": irm(_q11, _run11, "RR@2", q) for q in _q11}
   | {f"ranx mrr@2 ({q})": rx(_q11, _run11, "mrr@2", q) for q in _q11})

# CB12 err_at_k(grades, k, max_grade=4): gdeval's ERR; right on well-formed input, sees no repeated document.
_g12 = grades_q([3, 1, 0, 2])
cb("def err_at_k(grades, k=10, max_grade=4):", "ERR@4 on the printed call (2^4)", ERR([3, 1, 0, 2], gmax=4), [
    ("the printed call", ([3, 1, 0, 2], 4), ERR([3, 1, 0, 2], gmax=4)),
    ("k = 0", ([3], 0), Fr(0)),
    ("grades 0, 0, 1, 1 of ['n', 'n', 'a', 'a'] (a duplicate, refused)", ([0, 0, 1, 1], 4), "rejects")],
   (lambda fn, x: fn([x[1].get(d, 0) for d in x[0]], x[3]), lambda x: ERR([x[1].get(d, 0) for d in x[0][:x[3]]], gmax=4),
    False),
   lambda: {"hand, top grade 3 (the scale's)": ERR([3, 1, 0, 2], gmax=3),
            "ir_measures ERR@4 (gdeval)": irm({"q": _g12[0]}, {"q": _g12[1]}, "ERR@4", "q")})


# ---- statistics: significance-tests-lecture, system-comparison-paper, ab-ranking-blog ------------------------
# Each statement is a statistical claim about two runs compared on paired per-topic scores (or, for the paper's
# reported tests, on a t and df alone; for its multiplicity paragraph, on a family of raw p-values). Every value is
# computed by hand in exact arithmetic where the statistic is rational (fractions: the mean, t², the sign test's
# binomial tails, the exact sign-flip and Wilcoxon distributions, Bonferroni and Holm, the ideal bootstrap's
# multinomial weights) and with mpmath (40 digits) where it is not (t, d, the p-value of t through the regularized
# incomplete beta, I_{ν/(ν+t²)}(ν/2, 1/2) = two-sided p), and by scipy.stats called directly: ttest_1samp,
# binomtest, wilcoxon, permutation_test (permutation_type="samples", n_resamples=np.inf: every sign flip),
# bootstrap (method="percentile", n_resamples=10000, random_state=0) and t.sf. statsmodels is not installed here,
# so Bonferroni and Holm are computed by hand only (Holm's adjusted p as statsmodels' multipletests(method="holm")
# defines it: the running maximum of min(1, (m − j + 1) · p_(j)) over the sorted p-values).
# The ideal bootstrap interval enumerates every multiset of n draws from the n differences (C(2n−1, n) of them) with
# its multinomial weight n!/(Π k_i!)/n^n, and takes the lower inverse-CDF quantiles at (1 − c)/2 and (1 + c)/2:
# the smallest resampled mean m with P(mean ≤ m) ≥ q.


def st_exact(values):
    """The per-query values as the exact numbers printed ("0.063" is 63/1000)."""
    return [Fr(str(v)) for v in values]


def st_diffs(a=None, b=None, d=None):
    return st_exact(d) if d is not None else [x - y for x, y in zip(st_exact(a), st_exact(b))]


def st_mean(d):
    return sum(d, Fr(0)) / len(d)


def st_var(d):
    m = st_mean(d)
    return sum(((x - m) ** 2 for x in d), Fr(0)) / (len(d) - 1)


def st_mpf(x):
    return mpmath.mpf(x.numerator) / x.denominator


def st_population_sd(d):
    """The standard deviation with divisor n (a common slip for the sample's n − 1), in mpmath."""
    return mpmath.sqrt(st_mpf(st_var(d) * (len(d) - 1) / len(d)))


def st_t_population(d):
    """t computed with the population standard deviation (divisor n) — what a text gets with that slip."""
    return st_mpf(st_mean(d)) / (st_population_sd(d) / mpmath.sqrt(len(d)))


def st_t2(d):
    """t² = mean² · n / s² (exact)."""
    return st_mean(d) ** 2 * len(d) / st_var(d)


def st_t(d):
    return mpmath.sqrt(st_mpf(st_t2(d))) * (1 if st_mean(d) >= 0 else -1)


def st_cohen_d(d):
    """Cohen's d for paired data, d_z = mean(d) / s(d), s with n − 1."""
    return st_mpf(st_mean(d)) / mpmath.sqrt(st_mpf(st_var(d)))


def st_p_of_t(t, df, side="two"):
    """Student's t p-value by hand: two-sided I_{ν/(ν+t²)}(ν/2, 1/2); one-sided half of it in t's direction."""
    t = mpmath.mpf(t)
    two = mpmath.betainc(mpmath.mpf(df) / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t), regularized=True)
    if side == "two":
        return two
    return two / 2 if (side == "greater") == (t > 0) else 1 - two / 2


def st_sign(d, side):
    """Positives among the non-zero differences and the exact binomial p (two-sided: min(1, 2 · smaller tail))."""
    nz = [x for x in d if x != 0]
    m, k = len(nz), sum(1 for x in nz if x > 0)
    upper = Fr(sum(math.comb(m, i) for i in range(k, m + 1)), 2 ** m)
    lower = Fr(sum(math.comb(m, i) for i in range(0, k + 1)), 2 ** m)
    p = min(Fr(1), 2 * min(upper, lower)) if side == "two" else upper if side == "greater" else lower
    return k, p


def st_wilcoxon(d, side):
    """Exact Wilcoxon signed-rank test (no zero, no tie in |d|): W⁺, W⁻ and the p from all 2^n sign assignments;
    the two-sided statistic is min(W⁺, W⁻) and p = min(1, 2 · smaller tail), as scipy reports them."""
    mags = [abs(x) for x in d]
    assert 0 not in mags and len(set(mags)) == len(mags), "exact Wilcoxon needs no zeros and no ties"
    rank = {v: r for r, v in enumerate(sorted(mags), 1)}
    ranks = [rank[abs(x)] for x in d]
    w_plus = sum(r for r, x in zip(ranks, d) if x > 0)
    w_minus = sum(ranks) - w_plus
    counts = {}
    for signs in itertools.product((0, 1), repeat=len(d)):
        w = sum(r for r, s in zip(ranks, signs) if s)
        counts[w] = counts.get(w, 0) + 1
    total = 2 ** len(d)
    upper = Fr(sum(c for w, c in counts.items() if w >= w_plus), total)
    lower = Fr(sum(c for w, c in counts.items() if w <= w_plus), total)
    if side == "two":
        return min(w_plus, w_minus), min(Fr(1), 2 * min(upper, lower)), (w_plus, w_minus)
    return w_plus, upper if side == "greater" else lower, (w_plus, w_minus)


def st_perm(d, side):
    """Fisher's randomisation test for paired data, exact: the distribution of Σ s_i · d_i over all 2^n sign
    assignments, counted on integers (every difference times the common denominator) so that 2^20 is cheap."""
    den = math.lcm(*[x.denominator for x in d])
    ints = [int(x * den) for x in d]
    counts = {0: 1}
    for v in ints:
        nxt = {}
        for s, c in counts.items():
            nxt[s + v] = nxt.get(s + v, 0) + c
            nxt[s - v] = nxt.get(s - v, 0) + c
        counts = nxt
    obs, total = sum(ints), 2 ** len(ints)
    if side == "two":
        hits = sum(c for s, c in counts.items() if abs(s) >= abs(obs))
    elif side == "greater":
        hits = sum(c for s, c in counts.items() if s >= obs)
    else:
        hits = sum(c for s, c in counts.items() if s <= obs)
    return Fr(hits, total), hits, total


def st_perm_direct(d, side):
    """The same test by listing every sign assignment (for n ≤ 12): a second hand computation."""
    obs = sum(d, Fr(0))
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        s = sum((g * x for g, x in zip(signs, d)), Fr(0))
        hits += (abs(s) >= abs(obs)) if side == "two" else (s >= obs) if side == "greater" else (s <= obs)
    return Fr(hits, 2 ** len(d))


def st_boot_exact(d, confidence):
    """The ideal percentile bootstrap interval of the mean: every multiset resample with its multinomial weight."""
    n = len(d)
    fact = [math.factorial(i) for i in range(n + 1)]
    dist = {}

    def counts(i, left):
        if i == n - 1:
            yield (left,)
            return
        for k in range(left, -1, -1):
            for rest in counts(i + 1, left - k):
                yield (k,) + rest

    for c in counts(0, n):
        w = fact[n]
        for k in c:
            w //= fact[k]
        m = sum((k * x for k, x in zip(c, d)), Fr(0)) / n
        dist[m] = dist.get(m, 0) + w
    total = n ** n
    lo_q, hi_q = (1 - Fr(confidence)) / 2, (1 + Fr(confidence)) / 2
    cum, lo, hi = 0, None, None
    for m in sorted(dist):
        cum += dist[m]
        if lo is None and Fr(cum, total) >= lo_q:
            lo = m
        if hi is None and Fr(cum, total) >= hi_q:
            hi = m
    return lo, hi


def st_boot_scipy(d, confidence):
    import numpy as np
    from scipy import stats
    r = stats.bootstrap((np.array([float(x) for x in d]),), np.mean, confidence_level=float(Fr(confidence)),
                        n_resamples=10000, method="percentile", random_state=0)
    return float(r.confidence_interval.low), float(r.confidence_interval.high)


def st_round_interval(lo, hi, digits):
    return f"[{round(float(lo), digits):.{digits}f}, {round(float(hi), digits):.{digits}f}]"


def st_bonferroni(ps):
    m = len(ps)
    return {k: min(Fr(1), m * p) for k, p in ps.items()}


def st_holm(ps):
    """Holm's step-down adjusted p-values: max over j ≤ i of min(1, (m − j + 1) · p_(j))."""
    m = len(ps)
    order = sorted(ps, key=lambda k: ps[k])
    out, running = {}, Fr(0)
    for j, k in enumerate(order, 1):
        running = max(running, min(Fr(1), (m - j + 1) * ps[k]))
        out[k] = running
    return out


def st_scipy(d, test, side):
    """scipy.stats on the differences (floats), called as its users call it."""
    import numpy as np
    from scipy import stats
    x = np.array([float(v) for v in d])
    alt = {"two": "two-sided", "greater": "greater", "less": "less"}[side]
    if test == "paired t":
        r = stats.ttest_1samp(x, 0.0, alternative=alt)
        return {"t": float(r.statistic), "p": float(r.pvalue)}
    if test == "sign":
        nz = x[x != 0]
        k = int((nz > 0).sum())
        return {"positives": k, "p": float(stats.binomtest(k, len(nz), 0.5, alternative=alt).pvalue)}
    if test == "wilcoxon":
        r = stats.wilcoxon(x, alternative=alt)
        return {"W": float(r.statistic), "p": float(r.pvalue)}
    if test == "permutation":
        r = stats.permutation_test((x,), lambda s, axis: np.mean(s, axis=axis), permutation_type="samples",
                                   n_resamples=np.inf, alternative=alt, batch=2 ** 16)
        return {"p": float(r.pvalue)}
    raise ValueError(test)


def st_reported(t_printed, df):
    """A t-test reported without data: the p-values of the printed t, and of the ends of the interval it rounds
    from (statcheck's rule), by hand (mpmath) and by scipy.stats.t."""
    from scipy import stats
    t = Fr(t_printed)
    digits = len(t_printed.split(".")[1]) if "." in t_printed else 0
    half = Fr(1, 2 * 10 ** digits)
    out = {"hand two-sided p": st_p_of_t(st_mpf(t), df),
           "hand one-sided p": st_p_of_t(st_mpf(t), df, "greater"),
           "scipy 2·t.sf (two-sided)": float(2 * stats.t.sf(float(t), df)),
           "scipy t.sf (one-sided)": float(stats.t.sf(float(t), df)),
           f"hand two-sided p for t = {float(t - half):g} … {float(t + half):g} (t as rounded)":
               [st_p_of_t(st_mpf(t + half), df), st_p_of_t(st_mpf(t - half), df)]}
    return out


def st_paired(d, test, side, want=("t", "p")):
    """The hand values and scipy's for one test on the exact differences ``d``."""
    out = {}
    if test == "paired t":
        t = st_t(d)
        out["hand mean difference"] = st_mean(d)
        out["hand t² = mean² · n / s²"] = st_t2(d)
        out["hand t"] = t
        out["hand d = mean / s"] = st_cohen_d(d)
        for s in ("two", "greater") if side is None else (side,):
            out[f"hand p ({s})"] = st_p_of_t(t, len(d) - 1, s)
    elif test == "sign":
        for s in ("two", "greater") if side is None else (side,):
            k, p = st_sign(d, s)
            out["hand positives"] = Fr(k)
            out[f"hand p ({s})"] = p
    elif test == "wilcoxon":
        for s in ("two", "greater") if side is None else (side,):
            w, p, (wp, wm) = st_wilcoxon(d, s)
            out[f"hand W ({s})"] = Fr(w)
            out[f"hand p ({s})"] = p
            out["hand W+, W-"] = f"{wp}, {wm}"
    elif test == "permutation":
        out["hand mean difference"] = st_mean(d)
        for s in ("two", "greater") if side is None else (side,):
            p, hits, total = st_perm(d, s)
            out[f"hand p ({s})"] = p
            out[f"hand count ({s})"] = f"{hits} of {total} sign assignments"
            if len(d) <= 12:
                out[f"hand p ({s}), every assignment listed"] = st_perm_direct(d, s)
    for s in ("two", "greater") if side is None else (side,):
        for k, v in st_scipy(d, test, s).items():
            out[f"scipy {k} ({s})"] = v
    return out


def st_boot(d, confidence, printed):
    """Both intervals, each rounded to the printed digits, and how far each printed end lies from each, in units
    of the last printed digit (a label supported needs both roundings to match; contradicted, an end off by ≥ 3)."""
    ends = [Fr(x.strip()) for x in printed.strip("[]").split(",")]
    digits = len(printed.strip("[]").split(",")[0].split(".")[1])
    lo, hi = st_boot_exact(d, confidence)
    slo, shi = st_boot_scipy(d, confidence)
    unit = Fr(1, 10 ** digits)
    off = lambda a, b: ", ".join(f"{float(abs(e - Fr(v)) / unit):.2f}" for e, v in zip(ends, (a, b)))  # noqa: E731
    return {"hand ideal bootstrap interval": (lo, hi),
            "scipy.stats.bootstrap percentile interval": (slo, shi),
            f"hand, rounded to {digits} decimals": st_round_interval(lo, hi, digits),
            f"scipy, rounded to {digits} decimals": st_round_interval(slo, shi, digits),
            f"printed {printed}: ends off from hand, in units of 1e-{digits}": off(lo, hi),
            f"printed {printed}: ends off from scipy, in units of 1e-{digits}": off(slo, shi),
            "hand mean difference": st_mean(d)}


def st_ap_differences(qrels, run_b, run_a):
    """Per-topic AP (over |R|, the chapter's stated denominator) of two runs on the same qrels: B − A, by hand,
    with trec_eval's map per query beside it."""
    hand = [AP(qrels[q], run_b[q]) - AP(qrels[q], run_a[q]) for q in sorted(qrels)]
    tb, ta = trec(qrels, run_b, {"map"}), trec(qrels, run_a, {"map"})
    lib = [tb[q]["map"] - ta[q]["map"] for q in sorted(qrels)]
    return hand, lib


def add_statistic_statements():
    """The statements of the three statistics texts (registered once, from ``main``)."""
    if any(s["text"] == "significance-tests-lecture" for s in STATEMENTS):
        return
    SL, SP, AB = "significance-tests-lecture", "system-comparison-paper", "ab-ranking-blog"

    # significance-tests-lecture: 9.1 (AP, B − A on eight topics), 9.6 (nDCG@10, D − C on six), 9.7 (runs).
    d1 = st_exact(["0.063", "0.043", "-0.017", "0.085", "0.032", "-0.009", "0.051", "0.022"])
    d2 = st_diffs(["0.530", "0.502", "0.378", "0.517", "0.585", "0.512"],
                  ["0.410", "0.552", "0.298", "0.367", "0.615", "0.442"])
    S(SL, "so the mean difference is 0.03375 in favour of B",
      lambda: st_paired(d1, "paired t", "two"), primary="hand mean difference")
    S(SL, "t ≈ 2.75 on 7 degrees of freedom", lambda: st_paired(d1, "paired t", "two"), primary="hand t")
    S(SL, "Reading the two-sided tail of Student's t distribution with 7 degrees of freedom gives p = 0.028",
      lambda: st_paired(d1, "paired t", "two"), primary="hand p (two)")
    S(SL, "so we reject the null hypothesis: B's improvement over A is statistically significant at the 5 % level",
      lambda: st_paired(d1, "paired t", "two"), primary="hand p (two)")
    S(SL, "here 0.03375/0.0347 ≈ 0.97", lambda: st_paired(d1, "paired t", "two"), primary="hand d = mean / s")
    S(SL, "t(7) = 2.8, p = .028", lambda: {**st_reported("2.8", 7),
                                          "hand t of the data (9.2), for comparison": st_t(d1)},
      primary="hand two-sided p")
    S(SL, "Six of the eight differences are positive", lambda: st_paired(d1, "sign", "two"), primary="hand positives")
    S(SL, "The one-sided p-value, the chance of six or more wins, is (28 + 8)/256 = 36/256 ≈ 0.141",
      lambda: {**st_paired(d1, "sign", "greater"),
               "hand P(X = 6), P(X = 7), P(X = 8) counts": "28, 8, 1 of 256"}, primary="hand p (greater)")
    S(SL, "Doubling the tail for a two-sided test gives p ≈ 0.29", lambda: st_paired(d1, "sign", "two"),
      primary="hand p (two)")
    S(SL, "the two-sided statistic is W = min(W+, W−) = 3", lambda: st_paired(d1, "wilcoxon", "two"),
      primary="hand W (two)")
    S(SL, "so the exact two-sided p-value is 5/256 ≈ 0.020",
      lambda: {**st_paired(d1, "wilcoxon", "two"), **{k + " [one-sided]": v for k, v in
                                                         st_paired(d1, "wilcoxon", "greater").items()}},
      primary="hand p (two)")
    S(SL, "Ten of them are, so the exact two-sided p-value is 10/256 ≈ 0.039",
      lambda: st_paired(d1, "permutation", "two"), primary="hand p (two)")
    S(SL, "On average D gains 0.057 nDCG@10 over C", lambda: st_paired(d2, "paired t", "two"),
      primary="hand mean difference")
    S(SL, "gives t = 1.89 on 5 degrees of freedom", lambda: {
        **st_paired(d2, "paired t", "two"),
        "hand t with the population standard deviation (divisor n)": st_t_population(d2)},
      primary="hand t")
    S(SL, "and p ≈ 0.07", lambda: st_paired(d2, "paired t", None), primary="hand p (two)")
    S(SL, "The effect size is d = 0.77", lambda: {
        **st_paired(d2, "paired t", "two"),
        "hand d with the population standard deviation (divisor n)": st_mpf(st_mean(d2)) / st_population_sd(d2)},
      primary="hand d = mean / s")
    S(SL, "D improves on five of the six topics", lambda: st_paired(d2, "sign", "two"), primary="hand positives")
    S(SL, "the exact two-sided Wilcoxon p-value is 0.156", lambda: st_paired(d2, "wilcoxon", "two"),
      primary="hand p (two)")
    S(SL, "The randomisation test is more forgiving on these data: p = 0.047, so D is significantly better than C at "
          "the 5 % level", lambda: st_paired(d2, "permutation", None), primary="hand p (two)")

    ex_qrels = {q: {"d1": 1, "d2": 1, "d3": 0, "d4": 0, "d5": 0} for q in ("q1", "q2", "q3", "q4", "q5")}
    ex_a = {"q1": ["d3", "d1", "d4", "d2"], "q2": ["d3", "d4", "d1", "d2"], "q3": ["d1", "d3", "d4", "d2"],
            "q4": ["d3", "d1", "d4", "d5"], "q5": ["d3", "d1", "d2", "d4"]}
    ex_b = {"q1": ["d1", "d3", "d2", "d4"], "q2": ["d3", "d1", "d4", "d2"], "q3": ["d1", "d2", "d3", "d4"],
            "q4": ["d3", "d1", "d2", "d4"], "q5": ["d1", "d3", "d4", "d2"]}

    def ex(test, side):
        def compute():
            hand, lib = st_ap_differences(ex_qrels, ex_b, ex_a)
            out = {"hand AP of A per topic": [AP(ex_qrels[q], ex_a[q]) for q in sorted(ex_qrels)],
                   "hand AP of B per topic": [AP(ex_qrels[q], ex_b[q]) for q in sorted(ex_qrels)],
                   "hand AP differences B − A": hand, "trec_eval map differences B − A": lib}
            out.update(st_paired(hand, test, side))
            return out
        return compute

    S(SL, "run B has the higher AP on all five topics, so the sign test gives p = 0.031 and B is significantly better "
          "than A at the 5 % level", ex("sign", None), primary="hand p (two)")
    S(SL, "The exact randomisation test on the five AP differences, two-sided, gives p = 0.0625, which is not "
          "significant at 5 %", ex("permutation", "two"), primary="hand p (two)")
    S(SL, "The paired t-test on the same AP values gives t = 4.80", ex("paired t", "two"), primary="hand t")

    # system-comparison-paper: reported t-tests (5.1, 5.2), a family of four raw p-values (5.3), bootstrap
    # intervals on ten topics (5.4) and the exact randomisation test on twenty (5.5).
    for quote, t, df in [("RM3 improves MAP over BM25 (t(24) = 2.31, p = .03)", "2.31", 24),
                         ("monoBERT gives the largest gain, t(24) = 4.12, p < .001", "4.12", 24),
                         ("The gain of DeepCT is smaller but still significant, t(24) = 1.92, p = .03", "1.92", 24),
                         ("CPRF also improves MAP significantly over the baseline, t(24) = 1.62, p = .04", "1.62", 24),
                         ("RM3's gain is significant, t(24) = 2.85, p = .02", "2.85", 24),
                         ("monoBERT again leads, t(24) = 2.5, p = .018", "2.5", 24)]:
        S(SP, quote, (lambda t=t, df=df: st_reported(t, df)), primary="hand two-sided p")
    S(SP, "DeepCT is significantly better than BM25 on nDCG@10 as well, t(24) = 2.52, p = .019",
      lambda: {**st_reported("2.52", 24), "hand Bonferroni-adjusted p (m = 4; the text says uncorrected)":
               min(mpmath.mpf(1), 4 * st_p_of_t(mpmath.mpf("2.52"), 24))}, primary="hand two-sided p")
    family = {"monoBERT": Fr("0.004"), "RM3": Fr("0.011"), "DeepCT": Fr("0.017"), "CPRF": Fr("0.042")}

    def fam(method):
        def compute():
            adj = (st_bonferroni if method == "bonferroni" else st_holm)(family)
            out = {f"hand {method} {k}": v for k, v in adj.items()}
            out[f"hand {method}: significant at 0.05"] = ", ".join(k for k, v in adj.items() if v < Fr(5, 100))
            out["statsmodels multipletests"] = "not installed here: hand computation only"
            return out
        return compute

    S(SP, "which leaves RM3 at .044", fam("bonferroni"), primary="hand bonferroni RM3")
    S(SP, "and DeepCT at .051, just above the threshold", fam("bonferroni"), primary="hand bonferroni DeepCT")
    S(SP, "After Bonferroni correction only monoBERT and RM3 remain significant at α = .05", fam("bonferroni"),
      primary="hand bonferroni DeepCT")
    S(SP, "DeepCT's Holm-adjusted p-value is .034", fam("holm"), primary="hand holm DeepCT")
    S(SP, "while CPRF's is .084", fam("holm"), primary="hand holm CPRF")
    S(SP, "Under Holm, monoBERT, RM3 and DeepCT are significant at α = .05 and CPRF is not", fam("holm"),
      primary="hand holm CPRF")
    mono = st_exact(["0.164", "0.064", "0.111", "0.062", "0.047", "0.098", "0.119", "0.058", "0.061", "0.111"])
    rm3 = st_exact(["0.047", "0.042", "0.085", "-0.034", "-0.003", "-0.012", "-0.057", "0.036", "0.056", "-0.007"])
    S(SP, "For monoBERT the 95 % percentile bootstrap interval of the mean difference is [0.07, 0.11]",
      lambda: st_boot(mono, "0.95", "[0.07, 0.11]"), primary="hand ideal bootstrap interval")
    S(SP, "For RM3 it is [0.02, 0.04], which also excludes zero", lambda: st_boot(rm3, "0.95", "[0.02, 0.04]"),
      primary="hand ideal bootstrap interval")
    fold = st_exact(["0.061", "0.060", "-0.041", "0.006", "-0.001", "0.035", "-0.059", "0.089", "0.040", "0.047",
                     "-0.034", "0.024", "0.092", "-0.053", "0.040", "0.060", "-0.010", "0.066", "0.008", "0.086"])
    S(SP, "The exact two-sided randomisation test over all 2^20 = 1,048,576 sign assignments gives p = .026 for a mean "
          "gain of 0.0258", lambda: st_paired(fold, "permutation", "two"), primary="hand p (two)")
    S(SP, "A paired t-test on the same differences agrees, t(19) = 2.45, p = .024",
      lambda: st_paired(fold, "paired t", None), primary="hand t")
    S(SP, "We therefore count DeepCT's gain on this fold as a significant improvement", lambda: {
        **st_paired(fold, "permutation", "two"),
        "hand Bonferroni-adjusted p (m = 4)": min(Fr(1), 4 * st_perm(fold, "two")[0]),
        "scipy Bonferroni-adjusted p (m = 4)": min(1.0, 4 * st_scipy(fold, "permutation", "two")["p"])},
      primary="hand p (two)")
    S(SP, "with an effect size of d = 0.56 (Cohen's d for paired samples)", lambda: {
        **st_paired(fold, "paired t", "two"), "hand t / √(n − 1) (the slip)": st_t(fold) / mpmath.sqrt(19)},
      primary="hand d = mean / s")

    # ab-ranking-blog: v7 − v6 on ten queries; the post's rule is two-sided at α = 0.01.
    v7 = ["0.578", "0.742", "0.548", "0.610", "0.421", "0.412", "0.450", "0.332", "0.437", "0.765"]
    v6 = ["0.577", "0.676", "0.508", "0.636", "0.336", "0.319", "0.418", "0.308", "0.408", "0.769"]
    g = st_diffs(v7, v6)
    S(AB, "v7 posts a mean gain of 0.034 nDCG@10 per query over v6", lambda: st_paired(g, "paired t", "two"),
      primary="hand mean difference")
    S(AB, "Its tile showed t = 2.94", lambda: {
        **st_paired(g, "paired t", "two"),
        "hand t with the population standard deviation (divisor n)": st_t_population(g)},
      primary="hand t")
    S(AB, "and p = 0.011", lambda: st_paired(g, "paired t", None), primary="hand p (two)")
    S(AB, "Rerunning the paired t-test two-sided with scipy gives p = 0.021", lambda: st_paired(g, "paired t", "two"),
      primary="hand p (two)")
    S(AB, "That is above our α = 0.01, so by our own rule v7's gain is not significant",
      lambda: st_paired(g, "paired t", "two"), primary="hand p (two)")
    S(AB, "The one-sided p is 0.0106, which clears our 1 % bar", lambda: st_paired(g, "paired t", "greater"),
      primary="hand p (greater)")
    S(AB, "The Wilcoxon signed-rank test (two-sided) gives W = 7", lambda: st_paired(g, "wilcoxon", "two"),
      primary="hand W (two)")
    S(AB, "the two-sided Wilcoxon p-value is 0.014", lambda: {
        **st_paired(g, "wilcoxon", "two"),
        **{k + " [one-sided]": v for k, v in st_paired(g, "wilcoxon", "greater").items()}}, primary="hand p (two)")
    S(AB, "nine of the ten queries improved under v7", lambda: st_paired(g, "sign", "two"), primary="hand positives")
    S(AB, "the sign test's p is 0.109", lambda: st_paired(g, "sign", None), primary="hand p (two)")
    S(AB, "comes to 0.21, a small effect", lambda: {
        **st_paired(g, "paired t", "two"),
        "hand mean gain / s(v6 scores) (the slip)": st_mpf(st_mean(g)) / mpmath.sqrt(st_mpf(st_var(st_exact(v6))))},
      primary="hand d = mean / s")
    S(AB, "gives a 95 % interval of [0.01, 0.06]", lambda: st_boot(g, "0.95", "[0.01, 0.06]"),
      primary="hand ideal bootstrap interval")
    S(AB, "at 99 % the interval widens to [-0.03, 0.10], which straddles zero",
      lambda: st_boot(g, "0.99", "[-0.03, 0.10]"),
      primary="hand ideal bootstrap interval")
    S(AB, "At the usual 5 % level v7's two-sided p = 0.021 would count as a clear win", lambda: {
        **st_paired(g, "paired t", "two"),
        "hand Bonferroni-adjusted p (m = 4)": min(mpmath.mpf(1), 4 * st_p_of_t(st_t(g), len(g) - 1)),
        "scipy Bonferroni-adjusted p (m = 4)": min(1.0, 4 * st_scipy(g, "paired t", "two")["p"])},
      primary="hand p (two)")
    S(AB, "With a Bonferroni correction for the four variants, though, v7's adjusted p-value is 0.085, which is not "
          "significant even at 5 %", lambda: {
        "hand Bonferroni-adjusted p (m = 4)": min(mpmath.mpf(1), 4 * st_p_of_t(st_t(g), len(g) - 1)),
        "scipy Bonferroni-adjusted p (m = 4)": min(1.0, 4 * st_scipy(g, "paired t", "two")["p"]),
        **st_paired(g, "paired t", "two")}, primary="hand Bonferroni-adjusted p (m = 4)")



# --------------------------------------------------------------------------------------------------
# Printing and checking
# --------------------------------------------------------------------------------------------------


def show(v):
    if isinstance(v, Fr):
        return str(v.numerator) if v.denominator == 1 else f"{v} = {float(v):.7g}"
    if isinstance(v, mpmath.mpf):
        return mpmath.nstr(v, 10)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(show(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k!r}: {show(x)}" for k, x in v.items()) + "}"
    return str(v)


def as_number(v):
    if isinstance(v, tuple) and len(v) == 2:        # an interval: both ends
        ends = tuple(as_number(x) for x in v)
        return ends if None not in ends else None
    if isinstance(v, list) and v:
        v = v[0]
    if isinstance(v, (Fr, int)):
        return Fr(v)
    if isinstance(v, mpmath.mpf):
        return Fr(str(mpmath.nstr(v, 30)))
    if isinstance(v, float) and not math.isnan(v):
        return Fr(v)
    return None


def label_number(text):
    """The numeric part of a label's ``value`` ("83/110 = 0.7545455" → 83/110; "0.7113562" → that)."""
    if text is None:
        return None
    if str(text).startswith("["):                   # an interval "[0.0116, 0.0568] (...)": both ends
        try:
            lo, hi = str(text)[1:].split("]")[0].split(",")
            return Fr(lo.strip()), Fr(hi.strip())
        except (ValueError, ZeroDivisionError):
            return None
    head = str(text).split("=")[0].split("(")[0].strip()
    try:
        return Fr(head)
    except (ValueError, ZeroDivisionError):
        return None


def main(argv):
    labels = {}
    path = HERE / "labels.yaml"
    if path.exists():
        for entry in yaml.safe_load(path.read_text(encoding="utf-8"))["texts"]:
            for s in entry["statements"]:
                labels[(entry["id"], s["quote"])] = s
    check = "--check" in argv
    problems = 0
    add_statistic_statements()
    for st in STATEMENTS:
        _IRM_USED.clear()
        values = {k: v for k, v in st["compute"]().items() if v is not None}
        label = labels.get((st["text"], st["quote"]))
        print(f"[{st['text']}] {st['quote']}")
        for k, v in values.items():
            print(f"    {k:<62} {show(v)}")
        if _IRM_USED:
            used = sorted({f"{n} -> {p or 'no provider'}" for n, p in _IRM_USED})
            print(f"    {'(ir_measures providers)':<62} {'; '.join(used)}")
        if label is not None:
            print(f"    -> label {label.get('claim')}: {label['verdict']}, value {label.get('value')}")
        if check:
            snap = (HERE / st["text"] / "snapshot.md").read_text(encoding="utf-8")
            if snap.count(st["quote"]) != 1:
                print(f"    !! quote occurs {snap.count(st['quote'])} times in the snapshot"); problems += 1
            if label is None:
                print("    !! no label for this statement"); problems += 1
                continue
            want, got = label_number(label.get("value")), as_number(values.get(st["primary"]))
            if isinstance(want, tuple) or isinstance(got, tuple):      # an interval against an interval
                off = (not isinstance(want, tuple) or not isinstance(got, tuple)
                       or any(abs(w - g) > Fr(1, 10 ** 6) for w, g in zip(want, got)))
                if want is not None and got is not None and off:
                    print(f"    !! label value {label.get('value')} differs from computed "
                          f"{show(values[st['primary']])}")
                    problems += 1
            elif want is not None and got is not None and abs(want - got) > Fr(1, 10 ** 6):
                print(f"    !! label value {label.get('value')} differs from computed {show(values[st['primary']])}")
                problems += 1
    if check:
        quoted = {(s["text"], s["quote"]) for s in STATEMENTS}
        for key in labels:
            if key not in quoted:
                print(f"!! label without a computation: {key}"); problems += 1
        print(f"{len(STATEMENTS)} statements computed; {problems} problem(s)")
    return 1 if problems else 0



# ---- code listings: numpy-ndcg-tutorial, rank-metrics-doctests --------------------------------------------------
# numpy-ndcg-tutorial (a blog post) states grade >= 1 relevant, unjudged = 0, linear gain over log2(rank + 1), the
# ideal from every judged grade cut at k, P@k over k, a repeated document counted at its first position and 0 for a
# query without relevant documents. Its listings build on its first block (grades_for, dcg, qrels, run), so each is
# run with every ```python block up to its own, in reading order, as a reader running the post has it (imports,
# functions and assignments; the printed example calls are left out).
# rank-metrics-doctests (a module's README) states that a non-zero grade is relevant, linear gain over log2(i + 1)
# and the ideal sorted from the grades of the list itself; every function takes ranked grades (or a list of them).
# Its module uses np.asarray's removed cousin np.asfarray in dcg_at_k (and so in ndcg_at_k): it is run as printed on
# the installed NumPy (2.x: AttributeError) and, separately, with np.asfarray restored as NumPy 1.x defined it
# (numpy/lib/type_check.py: asarray(a, dtype) with dtype float64 unless it is already inexact).
# Besides the cases below, every listing is run on 600 random well-formed inputs (distinct IDs, grades 0-3 with at
# least one >= 1, some ranked documents unjudged and some judged ones not retrieved; k from 1 to the ranking's length
# + 2) against the definitions by hand; disagreements are counted for k within the ranking and k past its end.
NT, RMT = "numpy-ndcg-tutorial", "rank-metrics-doctests"


def blocks_upto(text, def_line, shim=False):
    """The function ``def_line`` defines, with every ```python block of ``text`` up to its own run first."""
    import ast
    import re
    import types
    import numpy
    snap = (HERE / text / "snapshot.md").read_text(encoding="utf-8")
    ns: dict = {}
    for block in re.findall(r"```python\n(.*?)```", snap, re.S):
        tree = ast.parse(block)
        keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.Assign))]
        exec(compile(ast.Module(keep, []), f"{text} listing", "exec"), ns)  # noqa: S102 (the corpus's own listing)
        if shim and "np" in ns:     # NumPy 1.x's asfarray (removed in NumPy 2.0), on a copy of the module's namespace
            np1 = types.ModuleType("numpy_1x_asfarray")
            np1.__dict__.update(numpy.__dict__)
            np1.asfarray = lambda a, dtype=numpy.float64: numpy.asarray(
                a, dtype=dtype if numpy.issubdtype(dtype, numpy.inexact) else numpy.float64)
            ns["np"] = np1
        if def_line in block:
            return ns[def_line.split()[1].split("(")[0]]
    raise KeyError(def_line)


def nt_random(n=600, seed=20261207):
    """(ranking, qrels, k, ranked grades) for random well-formed queries."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pool = [f"d{i}" for i in range(1, rng.randint(2, 10) + 1)]
        ranking = rng.sample(pool, rng.randint(1, len(pool)))
        judged = rng.sample(pool, rng.randint(1, len(pool)))
        qrels = {d: rng.randint(0, 3) for d in judged}
        qrels[rng.choice(judged)] = rng.randint(1, 3)
        if not any(qrels.get(d, 0) >= 1 for d in ranking):          # something relevant retrieved
            qrels[rng.choice(ranking)] = rng.randint(1, 3)
        k = rng.randint(1, len(ranking) + 2)
        out.append((ranking, qrels, k, [qrels.get(d, 0) for d in ranking]))
    return out


def nt_diff(fn, call, hand):
    """How many random inputs the listing gets wrong, for k within the ranking and k past its end."""
    bad_in, bad_past, n_in, n_past = 0, 0, 0, 0
    for item in nt_random():
        past = item[2] > len(item[0])
        n_past += past
        n_in += not past
        try:
            ok = close(call(fn, item), hand(item))
        except Exception:
            ok = False
        if not ok:
            bad_past += past
            bad_in += not past
    return f"{bad_in} of {n_in} disagree with k within the ranking; {bad_past} of {n_past} with k past its end"


def nt_code(text, def_line, cases, differential, libs=None, shim=False):
    """``cases``: (label, arguments, the chapter's value by hand); the first is the statement's value."""
    def compute():
        fn = blocks_upto(text, def_line)
        out = {}
        for label, args, hand in cases:
            out[f"hand, {label}"] = hand
            out[f"listing, {label}"] = ran(fn, *args)
        if shim:
            fn1 = blocks_upto(text, def_line, shim=True)
            for label, args, _ in cases:
                out[f"listing with NumPy 1.x's asfarray, {label}"] = ran(fn1, *args)
        out["listing vs definitions by hand on 600 random inputs"] = nt_diff(fn, *differential)
        if shim:
            out["the same, with NumPy 1.x's asfarray"] = nt_diff(fn1, *differential)
        return {**out, **(libs() if libs else {})}
    S(text, def_line, compute, primary=f"hand, {cases[0][0]}")


NT_Q = {"d1": 3, "d2": 2, "d3": 1, "d4": 3, "d5": 0, "d6": 2, "d7": 0}
NT_RUN = ["d3", "d1", "d7", "d5", "d2"]
NT_G = [NT_Q.get(d, 0) for d in NT_RUN]                    # 1, 3, 0, 0, 2
_vq, _vr = grades_q([3, 2, 3, 0, 1, 2])
_gq, _gr = grades_q(NT_G)


def nt_libs(measure, qrels_q=NT_Q, ranking=NT_RUN, irname=None, rxname=None):
    return lambda: {**{f"trec_eval {measure}": trec_value({"q": qrels_q}, {"q": ranking}, measure, q="q")},
                    **({f"ir_measures {irname}": irm({"q": qrels_q}, {"q": ranking}, irname, "q")} if irname else {}),
                    **({f"ranx {rxname}": rx({"q": qrels_q}, {"q": ranking}, rxname, "q")} if rxname else {})}


DCG_ALL = (lambda fn, x: fn(x[3]), lambda x: DCG(x[1], x[0], len(x[0])))
DCG_K = (lambda fn, x: fn(x[3], x[2]), lambda x: DCG(x[1], x[0], x[2]))
P_K = (lambda fn, x: fn(x[0], x[1], x[2]), lambda x: P(x[1], x[0], x[2]))
NDCG_K = (lambda fn, x: fn(x[0], x[1], x[2]), lambda x: nDCG(x[1], x[0], x[2]))
RR_ID = (lambda fn, x: fn(x[0], x[1]), lambda x: RR(x[1], x[0]))

# NT01 dcg(gains): linear DCG of the whole vector.
nt_code(NT, "def dcg(gains):", [
    ("DCG of the printed call [3, 2, 3, 0, 1, 2] (linear)", ([3, 2, 3, 0, 1, 2],), DCG(_vq, _vr, 6)),
    ("no grades", ([],), Fr(0))],
    DCG_ALL, lambda: {"ranx dcg@6": rx({"q": _vq}, {"q": _vr}, "dcg@6", "q")})

# NT02: DCG@5 of the run, term by term (printed terms 1 + 1.893 + 0.774).
S(NT, "For our run the grades are 1, 3, 0, 0, 2, so DCG@5 = 1 + 3/log2(3) + 2/log2(6) ≈ 1 + 1.893 + 0.774 = 3.667.",
  lambda: {"hand DCG@5 (exact)": DCG(NT_Q, NT_RUN, 5), "the printed terms 1 + 1.893 + 0.774": Fr(1) + Fr("1.893") + Fr("0.774"),
           "hand 3/log2(3), 2/log2(6)": [3 / lg2(3), 2 / lg2(6)],
           "ranx dcg@5": rx({"q": NT_Q}, {"q": NT_RUN}, "dcg@5", "q")}, primary="hand DCG@5 (exact)")

# NT03 precision_at_k (first attempt): divides by the length of the (possibly short) prefix.
nt_code(NT, "def precision_at_k(ranking, qrels, k):", [
    ("P@10 on the printed call (over k, stated)", (NT_RUN, NT_Q, 10), P(NT_Q, NT_RUN, 10)),
    ("P@5 on the printed call", (NT_RUN, NT_Q, 5), P(NT_Q, NT_RUN, 5)),
    ("empty ranking, k = 3", ([], NT_Q, 3), Fr(0))],
    P_K, nt_libs("P.10", irname="P@10", rxname="precision@10"))

# NT04: P@5 of the run.
S(NT, "Three of the five returned documents are relevant, so P@5 = 0.6.",
  lambda: {"hand": P(NT_Q, NT_RUN, 5), **nt_libs("P.5", irname="P@5", rxname="precision@5")()})

# NT05 ndcg_at_k (first attempt): the ideal from the returned documents' grades.
nt_code(NT, "def ndcg_at_k(ranking, qrels, k):", [
    ("nDCG@5 on the printed call (judged ideal, stated)", (NT_RUN, NT_Q, 5), nDCG(NT_Q, NT_RUN, 5)),
    ("nDCG@5 with the ideal from the returned documents (what the listing does)", (NT_RUN, NT_Q, 5),
     nDCG(NT_Q, NT_RUN, 5, pool=NT_RUN)),
    ("nothing relevant returned: ['d5', 'd7'] (the text: 0)", (["d5", "d7"], NT_Q, 2), Fr(0))],
    NDCG_K, nt_libs("ndcg_cut.5", irname="nDCG@5", rxname="ndcg@5"))

# NT06 ndcg_at_k_judged: the judged ideal, 0 without relevant documents.
nt_code(NT, "def ndcg_at_k_judged(ranking, qrels, k):", [
    ("nDCG@5 on the printed call", (NT_RUN, NT_Q, 5), nDCG(NT_Q, NT_RUN, 5)),
    ("all grades 0", (["a", "b"], {"a": 0, "b": 0}, 2), Fr(0)),
    ("k = 0", (NT_RUN, NT_Q, 0), Fr(0)),
    ("empty ranking", ([], NT_Q, 3), Fr(0)),
    ("['d1', 'd1', 'd2'] (keep first: d1, d2)", (["d1", "d1", "d2"], NT_Q, 3), nDCG(NT_Q, ["d1", "d2"], 3))],
    NDCG_K, nt_libs("ndcg_cut.5", irname="nDCG@5", rxname="ndcg@5"))

# NT07: the ideal DCG@5 of the judged grades.
S(NT, "3 + 3/log2(3) + 2/2 + 2/log2(5) + 1/log2(6) ≈ 7.141",
  lambda: {"hand IDCG@5 (judged)": IDCG(NT_Q, 5),
           "hand, the expression": 3 + 3 / lg2(3) + mpmath.mpf(1) + 2 / lg2(5) + 1 / lg2(6),
           "ranx dcg@5 of the ideal ranking": rx({"q": NT_Q}, {"q": ideal_run(NT_Q)}, "dcg@5", "q")},
  primary="hand IDCG@5 (judged)")

# NT08: nDCG@5 of the run, and trec_eval's ndcg_cut_5.
S(NT, "That makes nDCG@5 for our query 0.513, which is also what trec_eval's ndcg_cut_5 reports.",
  lambda: {"hand": nDCG(NT_Q, NT_RUN, 5), **nt_libs("ndcg_cut.5", irname="nDCG@5", rxname="ndcg@5")()})

# NT09 dcg_curve: DCG at every cutoff, rank i discounted by log2(max(i, 2)) where the text states log2(rank + 1).
nt_code(NT, "def dcg_curve(grades):", [
    ("DCG@2 on the printed call [1, 3, 0, 0, 2] (log2(rank + 1))", ([1, 3, 0, 0, 2],), DCG(_gq, _gr, 2)),
    ("DCG@1 … DCG@5 on the printed call", ([1, 3, 0, 0, 2],), [DCG(_gq, _gr, i) for i in range(1, 6)]),
    ("DCG@1 … DCG@5 with log2(max(rank, 2)) (what the listing does)", ([1, 3, 0, 0, 2],),
     [mpmath.fsum(mpmath.mpf(g) / lg2(max(i, 2)) for i, g in enumerate(NT_G[:j], 1)) for j in range(1, 6)])],
    (lambda fn, x: fn(x[3]), lambda x: [DCG(x[1], x[0], i) for i in range(1, len(x[0]) + 1)]),
    lambda: {f"ranx dcg@{i}": rx({"q": _gq}, {"q": _gr}, f"dcg@{i}", "q") for i in (1, 2, 5)})

# NT10 dcg_at_k_loop: indexes grades[i] for i < k, so k past the end raises IndexError.
nt_code(NT, "def dcg_at_k_loop(grades, k):", [
    ("DCG@3 on the printed call [1, 3, 0, 0, 2]", ([1, 3, 0, 0, 2], 3), DCG(_gq, _gr, 3)),
    ("DCG@6 on [1, 3, 0, 0, 2] (k past the end)", ([1, 3, 0, 0, 2], 6), DCG(_gq, _gr, 6)),
    ("k = 0", ([1, 3], 0), Fr(0))],
    DCG_K, lambda: {"ranx dcg@3": rx({"q": _gq}, {"q": _gr}, "dcg@3", "q"),
                    "ranx dcg@6": rx({"q": _gq}, {"q": _gr}, "dcg@6", "q")})

# NT11 precision_at_k_fixed: over k; k < 1 refused with the ValueError the text documents.
nt_code(NT, "def precision_at_k_fixed(ranking, qrels, k):", [
    ("P@10 on the printed call", (NT_RUN, NT_Q, 10), P(NT_Q, NT_RUN, 10)),
    ("empty ranking, k = 3", ([], NT_Q, 3), Fr(0)),
    ("['d3', 'd3', 'd1'], k = 2 (keep first: d3, d1)", (["d3", "d3", "d1"], NT_Q, 2), P(NT_Q, ["d3", "d1"], 2)),
    ("k = 0 (the text: refuses a cutoff below 1)", (NT_RUN, NT_Q, 0), "rejects")],
    P_K, nt_libs("P.10", irname="P@10", rxname="precision@10"))

# NT12 reciprocal_rank.
nt_code(NT, "def reciprocal_rank(ranking, qrels):", [
    ("RR on the printed call ['d7', 'd5', 'd2']", (["d7", "d5", "d2"], NT_Q), RR(NT_Q, ["d7", "d5", "d2"])),
    ("nothing relevant returned", (["d5", "d7"], NT_Q), Fr(0)),
    ("['d7', 'd7', 'd2'] (keep first: d7, d2)", (["d7", "d7", "d2"], NT_Q), RR(NT_Q, ["d7", "d2"]))],
    RR_ID, nt_libs("recip_rank", ranking=["d7", "d5", "d2"], irname="RR", rxname="mrr"))

# rank-metrics-doctests ---------------------------------------------------------------------------------------------
_bq, _br = grades_q([1, 1, 0, 1, 0, 1, 0, 0, 0, 1])
_mq = {"qa": {"a1": 0, "a2": 0, "a3": 1}, "qb": {"b1": 0, "b2": 1, "b3": 0}, "qc": {"c1": 1, "c2": 0, "c3": 0}}
_mr = {"qa": ["a1", "a2", "a3"], "qb": ["b1", "b2", "b3"], "qc": ["c1", "c2", "c3"]}
G_RR = (lambda fn, x: fn(x[3]), lambda x: RR(x[1], x[0]))
G_LIST = lambda measure: (lambda fn, x: fn(x[3]), lambda x: measure(*grades_q(x[3])))  # noqa: E731
G_K = lambda measure: (lambda fn, x: fn(x[3], x[2]), lambda x: measure(*grades_q(x[3]), x[2]))  # noqa: E731

# RM01: DCG@3 of [3, 2, 3, 0, 1, 2].
S(RMT, "For the vector `[3, 2, 3, 0, 1, 2]` the first three ranks give DCG@3 = 3 + 2/log2(3) + 3/2 ≈ 5.762.",
  lambda: {"hand DCG@3 (linear)": DCG(_vq, _vr, 3), "ranx dcg@3": rx({"q": _vq}, {"q": _vr}, "dcg@3", "q")},
  primary="hand DCG@3 (linear)")

# RM02: nDCG@6 of the same vector; its six grades are the whole judgement, so both ideals agree.
S(RMT, "Sorted best first the same grades are 3, 3, 2, 2, 1, 0, and nDCG@6 of the vector is 0.961.",
  lambda: {"hand (linear, ideal from the list)": nDCG(_vq, _vr, 6, pool=_vr), "hand (judged ideal)": nDCG(_vq, _vr, 6),
           "hand, the ideal order": sorted(_vq.values(), reverse=True),
           "trec_eval ndcg_cut_6": trec_value({"q": _vq}, {"q": _vr}, "ndcg_cut.6", q="q"),
           "ir_measures nDCG@6": irm({"q": _vq}, {"q": _vr}, "nDCG@6", "q"),
           "ranx ndcg@6": rx({"q": _vq}, {"q": _vr}, "ndcg@6", "q"), "scikit-learn ndcg_score (by hand)": sklearn_ndcg([3, 2, 3, 0, 1, 2], 6)},
  primary="hand (linear, ideal from the list)")

# RM03: AP of [1, 1, 0, 1, 0, 1, 0, 0, 0, 1], the five relevant all in the list.
S(RMT, "(1 + 1 + 3/4 + 4/6 + 5/10) / 5 ≈ 0.783",
  lambda: {"hand AP": AP(_bq, _br), "hand, the expression": (1 + 1 + Fr(3, 4) + Fr(4, 6) + Fr(5, 10)) / 5,
           "trec_eval map": trec_value({"q": _bq}, {"q": _br}, "map", q="q"), "ranx map": rx({"q": _bq}, {"q": _br}, "map", "q")},
  primary="hand AP")

# RM04: MRR of three queries with their first relevant documents at ranks 3, 2, 1.
S(RMT, "(1/3 + 1/2 + 1) / 3 = 11/18 ≈ 0.611",
  lambda: {"hand MRR": sum(RR(_mq[q], _mr[q]) for q in _mq) / 3,
           "trec_eval recip_rank (mean of three)": sum(trec_value(_mq, _mr, "recip_rank", q=q) for q in _mq) / 3,
           "ir_measures RR (aggregate)": irm(_mq, _mr, "RR", aggregate=True)}, primary="hand MRR")

# RM05 reciprocal_rank: right, but its second doctest prints 0.25 for a first relevant grade at rank 5.
nt_code(RMT, "def reciprocal_rank(r):", [
    ("RR on the printed call [0, 0, 0, 0, 1] (printed 0.25)", ([0, 0, 0, 0, 1],), RR(*grades_q([0, 0, 0, 0, 1]))),
    ("RR on the printed call [0, 1, 0]", ([0, 1, 0],), RR(*grades_q([0, 1, 0]))),
    ("no relevant grade", ([0, 0],), Fr(0)),
    ("empty list", ([],), Fr(0))],
    G_RR, lambda: {"trec_eval recip_rank on [0, 0, 0, 0, 1]": trec_value(*[{"q": x} for x in grades_q([0, 0, 0, 0, 1])],
                                                                          "recip_rank", q="q")})

# RM06 mean_reciprocal_rank: right on every run of ranked grades.
_m6 = [[0, 0, 1], [0, 1, 0], [1, 0, 0]]
_m6b = [[0, 0, 0, 1], [1, 0, 0], [1, 0, 0]]
nt_code(RMT, "def mean_reciprocal_rank(rs):", [
    ("MRR on the first printed call", (_m6,), sum(RR(*grades_q(r)) for r in _m6) / 3),
    ("MRR on the second printed call", (_m6b,), sum(RR(*grades_q(r)) for r in _m6b) / 3),
    ("a query with nothing relevant and one that returned nothing", ([[0, 0], []],), Fr(0))],
    (lambda fn, x: fn([x[3], x[3][::-1]]), lambda x: (RR(*grades_q(x[3])) + RR(*grades_q(x[3][::-1]))) / 2),
    lambda: {"ir_measures RR (aggregate) on the first call": irm(
        {f"q{i}": grades_q(r)[0] for i, r in enumerate(_m6)}, {f"q{i}": grades_q(r)[1] for i, r in enumerate(_m6)},
        "RR", aggregate=True)})

# RM07 r_precision: precision at the rank of the last relevant grade, not R-precision.
nt_code(RMT, "def r_precision(r):", [
    ("Rprec on the printed call [0, 1, 0] (R = 1: P@1)", ([0, 1, 0],), Rprec(*grades_q([0, 1, 0]))),
    ("Rprec on the printed call [0, 0, 1]", ([0, 0, 1],), Rprec(*grades_q([0, 0, 1]))),
    ("Rprec on the printed call [1, 0, 0]", ([1, 0, 0],), Rprec(*grades_q([1, 0, 0]))),
    ("precision at the last relevant rank on [0, 1, 0] (what the listing does)", ([0, 1, 0],), Fr(1, 2))],
    G_LIST(Rprec), lambda: {
        "trec_eval Rprec on [0, 1, 0]": trec_value(*[{"q": x} for x in grades_q([0, 1, 0])], "Rprec", q="q"),
        "ir_measures Rprec on [0, 1, 0]": irm(*[{"q": x} for x in grades_q([0, 1, 0])], "Rprec", "q"),
        "ranx r-precision on [0, 1, 0]": rx(*[{"q": x} for x in grades_q([0, 1, 0])], "r-precision", "q")})

# RM08 precision_at_k: right; refuses a list shorter than k (documented by its doctest) and k < 1.
nt_code(RMT, "def precision_at_k(r, k):", [
    ("P@3 on the printed call [0, 0, 1]", ([0, 0, 1], 3), P(*grades_q([0, 0, 1]), 3)),
    ("P@1 on the printed call", ([0, 0, 1], 1), P(*grades_q([0, 0, 1]), 1)),
    ("P@4 on [0, 0, 1] (the docstring: ValueError)", ([0, 0, 1], 4), "rejects"),
    ("k = 0", ([0, 1], 0), "rejects")],
    G_K(P), lambda: {"trec_eval P_3 on [0, 0, 1]": trec_value(*[{"q": x} for x in grades_q([0, 0, 1])], "P.3", q="q"),
                     "trec_eval P_4 on [0, 0, 1]": trec_value(*[{"q": x} for x in grades_q([0, 0, 1])], "P.4", q="q")})

# RM09 average_precision: the mean of P@1 … P@n over every rank, not over the relevant ones.
nt_code(RMT, "def average_precision(r):", [
    ("AP on the printed call (five relevant, all in the list)", ([1, 1, 0, 1, 0, 1, 0, 0, 0, 1],), AP(_bq, _br)),
    ("the mean of P@1 … P@10 on it (what the listing does)", ([1, 1, 0, 1, 0, 1, 0, 0, 0, 1],),
     sum(P(_bq, _br, i) for i in range(1, 11)) / 10)],
    G_LIST(AP), lambda: {"trec_eval map": trec_value({"q": _bq}, {"q": _br}, "map", q="q"),
                         "ranx map": rx({"q": _bq}, {"q": _br}, "map", "q")})

# RM10 dcg_at_k: right with NumPy 1.x; np.asfarray raises AttributeError on NumPy 2.
nt_code(RMT, "def dcg_at_k(r, k):", [
    ("DCG@6 on the printed call r = [3, 2, 3, 0, 1, 2]", ([3, 2, 3, 0, 1, 2], 6), DCG(_vq, _vr, 6)),
    ("DCG@1 on the printed call", ([3, 2, 3, 0, 1, 2], 1), DCG(_vq, _vr, 1)),
    ("k = 0", ([3, 2], 0), Fr(0))],
    G_K(DCG), lambda: {"ranx dcg@6": rx({"q": _vq}, {"q": _vr}, "dcg@6", "q")}, shim=True)

# RM11 ndcg_at_k: the ideal from the list's own grades (stated); through dcg_at_k, np.asfarray again.
nt_code(RMT, "def ndcg_at_k(r, k):", [
    ("nDCG@6 on the printed call (ideal from the list, stated)", ([3, 2, 3, 0, 1, 2], 6), nDCG(_vq, _vr, 6, pool=_vr)),
    ("every grade 0 (the docstring: 0.0)", ([0, 0, 0], 3), Fr(0))],
    G_K(lambda q, r, k: nDCG(q, r, k, pool=r)), lambda: {"ranx ndcg@6": rx({"q": _vq}, {"q": _vr}, "ndcg@6", "q")},
    shim=True)


# ---- code listings in a notebook and a Q&A thread: eval-helpers-notebook, qa-sklearn-answer ------------------
# eval-helpers-notebook is a Jupyter notebook exported to Markdown: a listing runs with what a reader running its code
# cells in order has at that cell (every earlier cell's imports, definitions and literal assignments; a cell that
# redefines a helper replaces it for the cells after it). Its functions take the retrieved grades in rank order and
# every judged grade of the query (or the run and the qrels of every query); the text states grade >= 1 relevant,
# unjudged as 0, P@k over k, R@k and AP over the relevant passages in the labels, RR at the first relevant passage,
# linear gain with log2(rank + 1) and the ideal from every judged grade cut at k, and means over every query in the
# labels. Section 7 states relevance level 2 for MRR@10 and redefines to_binary with threshold=2.
# qa-sklearn-answer is a Q&A thread about scikit-learn's ndcg_score and average_precision_score; scikit-learn
# (installed in the project's virtualenv) is called directly, beside the hand computation of what its source does.
# Each listing is also run on 600 random well-formed inputs against the definitions by hand; the count of
# disagreements is printed with the statement.
EH, SK = "eval-helpers-notebook", "qa-sklearn-answer"


def nb_listing(text, def_line):
    """The function ``def_line`` defines, as a reader who ran the snapshot's code cells in order up to the cell that
    prints it has it (imports, definitions and literal assignments of every cell up to that one)."""
    import ast
    import re
    snap = (HERE / text / "snapshot.md").read_text(encoding="utf-8")
    ns: dict = {}
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", snap, re.S)):
        tree = ast.parse(code)
        keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef))
                or (isinstance(n, ast.Assign) and isinstance(n.value, (ast.Dict, ast.List, ast.Constant)))]
        exec(compile(ast.Module(keep, []), f"{text} cell {i + 1}", "exec"), ns)  # noqa: S102 (the corpus's own listing)
        if def_line in code:
            return ns[def_line.split()[1].split("(")[0]]
    raise KeyError(def_line)


def rand_queries(n=600, seed=20261207):
    """Random well-formed single queries: (ranking, qrels, k); grades 0-2 (the notebook's scale) or 0-3, some
    ranked documents unjudged, some judged ones not retrieved, often nothing relevant retrieved."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pool = [f"d{i}" for i in range(rng.randint(1, 9))]
        ranking = rng.sample(pool, rng.randint(0, len(pool)))
        judged = rng.sample(pool, rng.randint(1, len(pool)))
        top = rng.choice((2, 3))
        qrels = {d: rng.randint(0, top) for d in judged}
        out.append((ranking, qrels, rng.randint(1, len(ranking) + 2)))
    return out


def rels_of(ranking, qrels):
    return [qrels.get(d, 0) for d in ranking]


def level_flags(qrels_q, ranking, level):
    return [1 if qrels_q.get(d, 0) >= level else 0 for d in ranking]


def success(qrels_q, ranking, k, level=1):
    return Fr(1 if any(level_flags(qrels_q, ranking[:k], level)) else 0)


def differential(fn, call, hand, items):
    """How many items the listing gets wrong against the hand definition (an exception or a nan counts as wrong)."""
    wrong = 0
    for item in items:
        try:
            ok = close(call(fn, item), hand(item))
        except Exception:
            ok = False
        wrong += not ok
    return f"{wrong} of {len(items)} disagree"


def nb_code(text, def_line, cases, diff=None, libs=None, loader=nb_listing):
    """``cases``: (label, the listing's arguments, the definition's value by hand); the first is the statement's
    value. ``diff``: (call, hand, items) for the random differential."""
    def compute():
        fn = loader(text, def_line)
        out = {}
        for label, args, want in cases:
            out[f"hand, {label}"] = want
            out[f"listing, {label}"] = ran(fn, *args)
        if diff:
            out["listing vs definitions by hand on random inputs"] = differential(fn, *diff)
        return {**out, **(libs() if libs else {})}
    S(text, def_line, compute, primary=f"hand, {cases[0][0]}")


EH_Q = {"q1": {"d1": 2, "d4": 1, "d9": 1, "d6": 0}, "q2": {"d3": 1, "d7": 2, "d5": 0},
        "q3": {"d2": 1, "d6": 0}, "q4": {"d5": 2, "d8": 1}}
EH_RUN = {"q1": ["d1", "d2", "d4", "d6", "d3"], "q2": ["d5", "d3", "d1", "d7", "d9"],
          "q3": ["d6", "d4", "d1", "d8", "d3"], "q4": ["d8", "d5", "d2", "d1", "d6"]}
EH_R = {q: rels_of(EH_RUN[q], EH_Q[q]) for q in EH_Q}
EH_J = {q: list(EH_Q[q].values()) for q in EH_Q}
EH_ONE = rand_queries()
EH_RUNS = [dict(zip(("qa", "qb", "qc", "qd"), EH_ONE[i:i + 1 + i % 4])) for i in range(0, 600)]


def eh_mean(f, over=EH_Q):
    return sum(f(q) for q in over) / len(over)


def eh_lib_mean(measure, trec_name=None, level=1, rx_name=None):
    out = {}
    if trec_name:
        per = trec(EH_Q, EH_RUN, {trec_name}, level)
        out[f"trec_eval {trec_name} (mean of the four)"] = sum(v[trec_name.replace('.', '_')] for v in per.values()) / 4
    out[f"ir_measures {measure} (aggregate)"] = irm(EH_Q, EH_RUN, measure, aggregate=True)
    if rx_name:
        out[f"ranx {rx_name} (mean)"] = rx(EH_Q, EH_RUN, rx_name, aggregate=True)
    return out


_q1 = ([2, 0, 1, 0, 0], [2, 1, 1, 0])
nb_code(EH, "def precision_at_k(rels, k):", [
    ("P@5 of q1's grades [2, 0, 1, 0, 0]", (_q1[0], 5), P(EH_Q["q1"], EH_RUN["q1"], 5)),
    ("P@8 of q1 (k beyond the list, over k)", (_q1[0], 8), P(EH_Q["q1"], EH_RUN["q1"], 8)),
    ("k = 0", (_q1[0], 0), Fr(0)),
    ("an empty list, k = 3", ([], 3), Fr(0))],
    (lambda fn, x: fn(rels_of(x[0], x[1]), x[2]), lambda x: P(x[1], x[0], x[2]), EH_ONE),
    lambda: {"trec_eval P_5 (q1)": trec_value(EH_Q, EH_RUN, "P.5", q="q1")})
nb_code(EH, "def recall_at_k(rels, judged, k):", [
    ("R@5 on the printed call (q1: two of three relevant)", (*_q1, 5), R(EH_Q["q1"], EH_RUN["q1"], 5)),
    ("R@5 of q2 (both relevant found)", (EH_R["q2"], EH_J["q2"], 5), R(EH_Q["q2"], EH_RUN["q2"], 5)),
    ("no relevant passage in the labels", ([0, 0], [0, 0], 2), Fr(0))],
    (lambda fn, x: fn(rels_of(x[0], x[1]), list(x[1].values()), x[2]),
     lambda x: R(x[1], x[0], x[2]) if nrel(x[1]) else Fr(0), EH_ONE),
    lambda: {"trec_eval recall_5 (q1)": trec_value(EH_Q, EH_RUN, "recall.5", q="q1")})
nb_code(EH, "def reciprocal_rank(rels):", [
    ("RR on the printed call (first relevant at rank 1)", (_q1[0],), RR(EH_Q["q1"], EH_RUN["q1"])),
    ("RR of [0, 1, 0, 2, 0] (q2)", (EH_R["q2"],), RR(EH_Q["q2"], EH_RUN["q2"])),
    ("RR of the last relevant passage on the printed call (what the listing returns)", (_q1[0],), Fr(1, 3))],
    (lambda fn, x: fn(rels_of(x[0], x[1])), lambda x: RR(x[1], x[0]), EH_ONE),
    lambda: {"trec_eval recip_rank (q1)": trec_value(EH_Q, EH_RUN, "recip_rank", q="q1"),
             "ranx mrr (q1)": rx(EH_Q, EH_RUN, "mrr", "q1")})
nb_code(EH, "def average_precision(rels, judged):", [
    ("AP of q1 (over |R| = 3)", (EH_R["q1"], EH_J["q1"]), AP(EH_Q["q1"], EH_RUN["q1"])),
    ("AP of q3 (its relevant passage not retrieved)", (EH_R["q3"], EH_J["q3"]), AP(EH_Q["q3"], EH_RUN["q3"])),
    ("no relevant passage in the labels", ([1, 0], [0, 0]), Fr(0)),
    ("an empty list", ([], [1]), Fr(0))],
    (lambda fn, x: fn(rels_of(x[0], x[1]), list(x[1].values())), lambda x: AP(x[1], x[0]), EH_ONE),
    lambda: {"trec_eval map (q1)": trec_value(EH_Q, EH_RUN, "map", q="q1"), "ranx map (q1)": rx(EH_Q, EH_RUN, "map", "q1")})
nb_code(EH, "def ndcg_at_k(rels, judged, k):", [
    ("nDCG@5 of q1 (linear gain, judged ideal)", (EH_R["q1"], EH_J["q1"], 5), nDCG(EH_Q["q1"], EH_RUN["q1"], 5)),
    ("grades all 0", ([0, 0], [0, 0], 2), mpmath.mpf(0)),
    ("k = 0", ([1], [1], 0), mpmath.mpf(0)),
    ("an empty list", ([], [2, 1], 3), mpmath.mpf(0))],
    (lambda fn, x: fn(rels_of(x[0], x[1]), list(x[1].values()), x[2]), lambda x: nDCG(x[1], x[0], x[2]), EH_ONE),
    lambda: {"hand, exponential gain (q1)": nDCG(EH_Q["q1"], EH_RUN["q1"], 5, exp=True),
             "trec_eval ndcg_cut_5 (q1)": trec_value(EH_Q, EH_RUN, "ndcg_cut.5", q="q1"),
             "ranx ndcg@5 (q1)": rx(EH_Q, EH_RUN, "ndcg@5", "q1")})
S(EH, "so AP = (1/1 + 2/3)/3 = 5/9 ≈ 0.556", lambda: {
    "hand": AP(EH_Q["q1"], EH_RUN["q1"]), "hand, the printed terms": (Fr(1) + Fr(2, 3)) / 3,
    "trec_eval map (q1)": trec_value(EH_Q, EH_RUN, "map", q="q1"), "ranx map (q1)": rx(EH_Q, EH_RUN, "map", "q1"),
    "ir_measures AP (q1)": irm(EH_Q, EH_RUN, "AP", "q1")})
S(EH, "q2     0.4  0.5000  0.5672", lambda: {
    "hand nDCG@5 (q2)": nDCG(EH_Q["q2"], EH_RUN["q2"], 5), "hand P@5 (q2)": P(EH_Q["q2"], EH_RUN["q2"], 5),
    "hand AP (q2)": AP(EH_Q["q2"], EH_RUN["q2"]),
    "trec_eval ndcg_cut_5 (q2)": trec_value(EH_Q, EH_RUN, "ndcg_cut.5", q="q2"),
    "trec_eval P_5 (q2)": trec_value(EH_Q, EH_RUN, "P.5", q="q2"), "trec_eval map (q2)": trec_value(EH_Q, EH_RUN, "map", q="q2"),
    "ranx ndcg@5 (q2)": rx(EH_Q, EH_RUN, "ndcg@5", "q2")}, primary="hand nDCG@5 (q2)")
S(EH, "Averaged over the four queries, nDCG@5 is 0.556.", lambda: {
    "hand": eh_mean(lambda q: nDCG(EH_Q[q], EH_RUN[q], 5)),
    **eh_lib_mean("nDCG@5", "ndcg_cut.5", rx_name="ndcg@5")})
_runs2 = ({"qa": ["a", "x"], "qb": ["y", "z"]}, {"qa": {"a": 1}, "qb": {"b": 1}})
nb_code(EH, "def mean_average_precision(run, qrels):", [
    ("MAP of the notebook's run (over all four queries)", (EH_RUN, EH_Q), eh_mean(lambda q: AP(EH_Q[q], EH_RUN[q]))),
    ("MAP of qa (hit at rank 1) and qb (its relevant b not retrieved)", _runs2, (Fr(1) + Fr(0)) / 2),
    ("MAP of one query whose relevant document is not retrieved", ({"qa": ["x"]}, {"qa": {"a": 1}}), Fr(0)),
    ("the notebook's run with the zero-AP query q3 left out (what the listing does)", (EH_RUN, EH_Q),
     eh_mean(lambda q: AP(EH_Q[q], EH_RUN[q]), over=("q1", "q2", "q4")))],
    (lambda fn, x: fn({q: v[0] for q, v in x.items()}, {q: v[1] for q, v in x.items()}),
     lambda x: sum(AP(v[1], v[0]) for v in x.values()) / len(x), EH_RUNS),
    lambda: {"trec_eval map (mean of the four)": sum(v["map"] for v in trec(EH_Q, EH_RUN, {"map"}).values()) / 4,
             "ir_measures AP (aggregate)": irm(EH_Q, EH_RUN, "AP", aggregate=True),
             "ranx map (mean)": rx(EH_Q, EH_RUN, "map", aggregate=True)})
S(EH, "MAP = 0.6852", lambda: {
    "hand": eh_mean(lambda q: AP(EH_Q[q], EH_RUN[q])),
    "hand, q3 (AP 0) left out": eh_mean(lambda q: AP(EH_Q[q], EH_RUN[q]), over=("q1", "q2", "q4")),
    **eh_lib_mean("AP", "map", rx_name="map")})
nb_code(EH, "def rr_at_k(rels, k=10):", [
    ("RR@10 of q2 at relevance level 2 (d7, grade 2, at rank 4)", (EH_R["q2"], 10),
     RR(EH_Q["q2"], EH_RUN["q2"][:10], level=2)),
    ("RR@10 of q4 at level 2 (d5 at rank 2; d8, grade 1, at rank 1)", (EH_R["q4"], 10),
     RR(EH_Q["q4"], EH_RUN["q4"][:10], level=2)),
    ("RR@3 of q2 at level 2 (rank 4 is past the cutoff)", (EH_R["q2"], 3), RR(EH_Q["q2"], EH_RUN["q2"][:3], level=2)),
    ("k = 0", ([2], 0), Fr(0))],
    (lambda fn, x: fn(rels_of(x[0], x[1]), x[2]), lambda x: RR(x[1], x[0][:x[2]], level=2), EH_ONE),
    lambda: {"ir_measures RR(rel=2)@10 (q2)": irm(EH_Q, EH_RUN, "RR(rel=2)@10", "q2"),
             "trec_eval recip_rank -l 2 (q2)": trec_value(EH_Q, EH_RUN, "recip_rank", q="q2", level=2),
             "hand, level 1 (the first to_binary) (q4)": RR(EH_Q["q4"], EH_RUN["q4"])})
S(EH, "MRR@10 (grade 2 only): 0.4375", lambda: {
    "hand": eh_mean(lambda q: RR(EH_Q[q], EH_RUN[q][:10], level=2)),
    "hand, relevance level 1": eh_mean(lambda q: RR(EH_Q[q], EH_RUN[q][:10])),
    "trec_eval recip_rank -l 2 (mean of the four)": sum(
        v["recip_rank"] for v in trec(EH_Q, EH_RUN, {"recip_rank"}, level=2).values()) / 4,
    "ir_measures RR(rel=2)@10 (aggregate)": irm(EH_Q, EH_RUN, "RR(rel=2)@10", aggregate=True),
    "ranx mrr@10-l2 (mean)": rx(EH_Q, EH_RUN, "mrr@10-l2", aggregate=True)})
nb_code(EH, "def hit_rate_at_k(rels, k=5):", [
    ("Success@3 of [1, 0, 0] (a grade-1 passage at rank 1)", ([1, 0, 0], 3), success({"a": 1}, ["a", "b", "c"], 3)),
    ("Success@5 of q1's grades", (EH_R["q1"], 5), success(EH_Q["q1"], EH_RUN["q1"], 5)),
    ("k = 0", ([1], 0), Fr(0))],
    (lambda fn, x: fn(rels_of(x[0], x[1]), x[2]), lambda x: success(x[1], x[0], x[2]), EH_ONE),
    lambda: {"hand Success@5 of the notebook's run (mean of the four; printed 0.75)": eh_mean(
                 lambda q: success(EH_Q[q], EH_RUN[q], 5)),
             "hand, relevance level 2 (the redefined to_binary), Success@3 of [1, 0, 0]": success({"a": 1}, ["a", "b", "c"], 3, level=2),
             "ir_measures Success@3 on [1, 0, 0]": irm({"q": {"a": 1}}, {"q": ["a", "b", "c"]}, "Success@3", "q"),
             "trec_eval success_5 (mean of the four)": sum(
                 v["success_5"] for v in trec(EH_Q, EH_RUN, {"success.5"}).values()) / 4})

# qa-sklearn-answer: the asker's row, six candidates in score order with labels 1, 0, 3, 2, 0, 3 (c1 … c6); c7
# (grade 3, judged, not a candidate) is added for the probes that tell the ideal and the AP denominator apart.
SK_L = [1, 0, 3, 2, 0, 3]
SK_S = [0.92, 0.85, 0.71, 0.64, 0.33, 0.12]
SK_Q, SK_RUN = {"q1": {f"c{i}": g for i, g in enumerate(SK_L, 1)}}, {"q1": [f"c{i}" for i in range(1, 7)]}
SK_QM = {"q1": {**SK_Q["q1"], "c7": 3}}


def sk_listing(text, def_line):
    """A Q&A listing: its own fenced block's imports and functions, after the question's imports (numpy)."""
    import ast
    import re
    snap = (HERE / text / "snapshot.md").read_text(encoding="utf-8")
    ns: dict = {}
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", snap, re.S)):
        tree = ast.parse(code)
        keep = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
                or (def_line in code and isinstance(n, ast.FunctionDef))]
        exec(compile(ast.Module(keep, []), f"{text} block {i + 1}", "exec"), ns)  # noqa: S102
        if def_line in code:
            return ns[def_line.split()[1].split("(")[0]]
    raise KeyError(def_line)


def sk_ndcg(k, labels=SK_L, scores=SK_S):
    from sklearn.metrics import ndcg_score
    import numpy as np
    return float(ndcg_score(np.asarray([labels]), np.asarray([scores]), k=k))


def sk_ap(labels=SK_L, scores=SK_S):
    from sklearn.metrics import average_precision_score
    import numpy as np
    return float(average_precision_score(np.asarray(labels) > 0, np.asarray(scores)))


def sk_ndcg_hand(labels, k):
    """What ndcg_score computes on one row in rank order (linear gain, the ideal from the labels given, cut at k);
    0 when that ideal is 0 (ndcg_score's own guard)."""
    ideal = mpmath.fsum(mpmath.mpf(g) / lg2(i + 1) for i, g in enumerate(sorted(labels, reverse=True)[:k], 1))
    dcg = mpmath.fsum(mpmath.mpf(g) / lg2(i + 1) for i, g in enumerate(labels[:k], 1))
    return dcg / ideal if ideal else mpmath.mpf(0)


def sk_random(n=600, seed=20261207):
    """Random label rows (0-3, zero to eight labels) with a cutoff of 1 to 9."""
    rng = random.Random(seed)
    return [([rng.randint(0, 3) for _ in range(rng.randint(0, 8))], rng.randint(1, 9)) for _ in range(n)]


SK_RANDOM_K = sk_random()

nb_code(SK, "def my_ndcg(relevances, k):", [
    ("nDCG@4 on the printed call (every candidate judged: both readings of the ideal agree)", (SK_L, 4),
     nDCG(SK_Q["q1"], SK_RUN["q1"], 4)),
    ("the printed call with the ideal from the top four only (what the listing does)", (SK_L, 4),
     nDCG(SK_Q["q1"], SK_RUN["q1"], 4, pool=SK_RUN["q1"][:4])),
    ("labels [0, 0]", ([0, 0], 2), mpmath.mpf(0))],
    (lambda fn, x: fn(x[0], x[1]), lambda x: sk_ndcg_hand(x[0], x[1]), [c for c in SK_RANDOM_K if any(c[0])]),
    lambda: {"scikit-learn ndcg_score(k=4), called": sk_ndcg(4),
             "trec_eval ndcg_cut_4": trec_value(SK_Q, SK_RUN, "ndcg_cut.4", q="q1")}, loader=sk_listing)
S(SK, "0.5315681641165526", lambda: {
    "scikit-learn ndcg_score(k=4), called": sk_ndcg(4), "hand, scikit-learn's definition (ideal from the row)":
    sklearn_ndcg(SK_L, 4), "hand, judged ideal (every candidate judged)": nDCG(SK_Q["q1"], SK_RUN["q1"], 4),
    "trec_eval ndcg_cut_4": trec_value(SK_Q, SK_RUN, "ndcg_cut.4", q="q1")}, primary="scikit-learn ndcg_score(k=4), called")
S(SK, "`ndcg_score` builds its ideal DCG from the whole row of `y_true`: it sorts every label it is given, best first, "
      "and only then keeps the best k.", lambda: {
    "scikit-learn ndcg_score(k=4) on the row (c7 is not in it)": sk_ndcg(4),
    "hand, ideal from every label of the row, cut at 4": nDCG(SK_QM["q1"], SK_RUN["q1"], 4, pool=SK_RUN["q1"]),
    "hand, ideal from the first four labels only": nDCG(SK_QM["q1"], SK_RUN["q1"], 4, pool=SK_RUN["q1"][:4]),
    "hand, judged ideal (c7 included)": nDCG(SK_QM["q1"], SK_RUN["q1"], 4),
    "trec_eval ndcg_cut_4 with c7 judged": trec_value(SK_QM, SK_RUN, "ndcg_cut.4", q="q1")},
    primary="scikit-learn ndcg_score(k=4) on the row (c7 is not in it)")
S(SK, "IDCG = 3 + 3/log2(3) + 2/2 + 1/log2(5) ≈ 6.323", lambda: {
    "hand": 3 + 3 / lg2(3) + 1 + 1 / lg2(5),
    "hand IDCG@4 of the row (ideal 3, 3, 2, 1)": IDCG(SK_Q["q1"], 4),
    "ranx dcg@4 of the ideal order": rx(SK_Q, {"q1": ideal_run(SK_Q["q1"])}, "dcg@4", "q1")})
S(SK, "`ndcg_score` uses the label itself as the gain, with no 2**label - 1 transform, and divides by log2(rank + 1).",
  lambda: {"scikit-learn ndcg_score(k=4), called": sk_ndcg(4), "hand, linear gain": sklearn_ndcg(SK_L, 4),
           "hand, exponential gain": ignite_ndcg(SK_L, 4),
           "scikit-learn on labels 0/1 (gains agree)": sk_ndcg(4, [1, 0, 1, 1, 0, 1])},
  primary="scikit-learn ndcg_score(k=4), called")
nb_code(SK, "def ndcg_at_k(relevances, k):", [
    ("nDCG@4 on the printed call (ideal from the labels given, stated)", (SK_L, 4), sk_ndcg_hand(SK_L, 4)),
    ("labels all 0", ([0, 0, 0], 2), mpmath.mpf(0)),
    ("no labels", ([], 3), mpmath.mpf(0)),
    ("k = 0", (SK_L, 0), mpmath.mpf(0)),
    ("k = 9, past the row", (SK_L, 9), sk_ndcg_hand(SK_L, 9))],
    (lambda fn, x: fn(x[0], x[1]), lambda x: sk_ndcg_hand(x[0], x[1]), SK_RANDOM_K),
    lambda: {"scikit-learn ndcg_score(k=4), called": sk_ndcg(4),
             "trec_eval ndcg_cut_4": trec_value(SK_Q, SK_RUN, "ndcg_cut.4", q="q1")}, loader=sk_listing)
S(SK, "It ranks every item in the row by score and divides by the number of positive labels in that row, so a relevant "
      "document that is missing from the row is simply not counted.", lambda: {
    "scikit-learn average_precision_score on the row (c7 is not in it)": sk_ap(),
    "hand, over the relevant retrieved (4)": AP(SK_QM["q1"], SK_RUN["q1"], denominator="relevant retrieved"),
    "hand, over |R| = 5 (c7 judged)": AP(SK_QM["q1"], SK_RUN["q1"]),
    "trec_eval map with c7 judged": trec_value(SK_QM, SK_RUN, "map", q="q1")},
    primary="scikit-learn average_precision_score on the row (c7 is not in it)")
S(SK, "On your row it gives (1 + 2/3 + 3/4 + 4/6)/4 ≈ 0.7708.", lambda: {
    "scikit-learn average_precision_score, called": sk_ap(), "hand, the printed terms": (1 + Fr(2, 3) + Fr(3, 4) + Fr(4, 6)) / 4,
    "hand, scikit-learn's definition": sklearn_ap([1 if g else 0 for g in SK_L]),
    "trec_eval map": trec_value(SK_Q, SK_RUN, "map", q="q1")}, primary="scikit-learn average_precision_score, called")
nb_code(SK, "def average_precision(relevances):", [
    ("AP on the printed call (over the positives given, stated)", (SK_L,), sklearn_ap([1 if g else 0 for g in SK_L])),
    ("labels all 0 (no positive)", ([0, 0],), Fr(0)),
    ("no labels", ([],), Fr(0))],
    (lambda fn, x: fn(x[0]), lambda x: sklearn_ap([1 if g else 0 for g in x[0]]), [c for c in SK_RANDOM_K if any(c[0])]),
    lambda: {"scikit-learn average_precision_score on the printed row": sk_ap(),
             "scikit-learn average_precision_score on labels 0, 0": (
                 lambda: __import__("sklearn.metrics", fromlist=["x"]).average_precision_score([0, 0], [0.9, 0.1]))()},
    loader=sk_listing)
S(SK, "sklearn's `ndcg_score` applies the exponential gain 2**rel - 1 before discounting", lambda: {
    "scikit-learn ndcg_score(k=4), called": sk_ndcg(4), "hand, exponential gain (what the sentence says)": ignite_ndcg(SK_L, 4),
    "hand, linear gain": sklearn_ndcg(SK_L, 4)}, primary="scikit-learn ndcg_score(k=4), called")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
