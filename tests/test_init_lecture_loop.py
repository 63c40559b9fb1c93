"""A lecture chapter in the shape real ones have, taken from `audit init` to a clean gate with no register edit: a graded
rank table with unjudged dashes, |R| said in a sentence that also defines relevance with "if", sections that go on
with "our list", average precision in a LaTeX display over the wrong count, a mean reciprocal rank over two queries,
and a per-topic score table (a mean row, a difference column) under a t-test printed with the wrong degrees of
freedom.

Right values, by hand and with the libraries (computed in ``test_the_right_values``):

* relevant (grade ≥ 1) at ranks 1, 3 and 6 of eight, |R| = 5: AP = (1 + 2/3 + 3/6)/5 = 13/30 ≈ 0.4333 (pytrec_eval
  ``map``); the chapter prints \\frac{1 + 0.67 + 0.5}{3} \\approx 0.72 (2.17/3 = 0.7233: right arithmetic, wrong
  count), corrected to \\frac{1 + 0.67 + 0.5}{5} \\approx 0.43.
* q8's first relevant document at rank 4: RR = 1/4; MRR over q7 (RR 1) and q8 = (1 + 1/4)/2 = 0.625.
* B − A over six topics: scipy ``ttest_rel`` t = 3.371, df = 5, p = 0.0199; the chapter prints t(6) = 3.37,
  p = 0.020 (with 6 degrees of freedom p would be 0.0150), corrected to t(5).
"""

from __future__ import annotations

import contextlib
import subprocess

import pytest

from chapters import cli, init_and_run

LECTURE = """\
# Lecture 6: measures on one ranked list

We follow one topic, q7, through every measure. The assessors graded nine documents from 0 to 3; we count a
document as relevant if its grade is at least 1, and topic q7 has |R| = 5 relevant documents.

| rank | doc | grade |
|-----:|-----|------:|
| 1 | d14 | 1 |
| 2 | d02 | 0 |
| 3 | d33 | 2 |
| 4 | d08 | – |
| 5 | d21 | 0 |
| 6 | d40 | 3 |
| 7 | d19 | – |
| 8 | d05 | 0 |

A dash marks a document nobody judged; it counts as not relevant.

## Reciprocal rank

The first result is relevant, so RR = 1 for q7. A second topic, q8, has its first relevant document at rank 4, so
its reciprocal rank is 1/4, and the mean reciprocal rank over the two topics is MRR = (1 + 1/4)/2 = 0.625.

## Average precision

The relevant documents in our list sit at ranks 1, 3 and 6, where precision is 1, 2/3 ≈ 0.67 and 3/6 = 0.5.
Average precision is therefore

$$
\\mathrm{AP} = \\frac{1 + 0.67 + 0.5}{3} \\approx 0.72.
$$

## Two systems

We ran systems A and B on six topics and computed AP for each:

| topic | A | B | B − A |
|------:|-----:|-----:|------:|
| 301 | 0.31 | 0.36 | 0.05 |
| 302 | 0.52 | 0.55 | 0.03 |
| 303 | 0.27 | 0.35 | 0.08 |
| 304 | 0.45 | 0.44 | −0.01 |
| 305 | 0.38 | 0.47 | 0.09 |
| 306 | 0.60 | 0.66 | 0.06 |
| mean | 0.4217 | 0.4717 | 0.05 |

A paired t-test on these topics gives t(6) = 3.37, p = 0.020, so B is significantly better at the 5% level.
"""
AP_PLANTED = "\\frac{1 + 0.67 + 0.5}{3} \\approx 0.72"
AP_RIGHT = "\\frac{1 + 0.67 + 0.5}{5} \\approx 0.43"


def test_the_right_values():
    import pytrec_eval
    from scipy import stats
    qrels = {"q7": {"d14": 1, "d02": 0, "d33": 2, "d21": 0, "d40": 3, "d05": 0, "u1": 1, "u2": 2, "u3": 0}}
    run = {"q7": {d: 8.0 - i for i, d in enumerate(["d14", "d02", "d33", "d08", "d21", "d40", "d19", "d05"])}}
    ap = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)["q7"]["map"]
    assert abs(ap - 13 / 30) < 1e-12 and f"{ap:.2f}" == "0.43"
    assert f"{(1 + 0.67 + 0.5) / 3:.2f}" == "0.72" and f"{(1 + 0.67 + 0.5) / 5:.2f}" == "0.43"
    a, b = [0.31, 0.52, 0.27, 0.45, 0.38, 0.60], [0.36, 0.55, 0.35, 0.44, 0.47, 0.66]
    t = stats.ttest_rel(b, a)
    assert (round(t.statistic, 2), int(t.df), round(t.pvalue, 3)) == (3.37, 5, 0.020)
    assert round(2 * stats.t.sf(t.statistic, 6), 4) == 0.0150


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    root = tmp_path_factory.mktemp("lecture")
    code, _, claims = init_and_run(root, "lectures/l06.md", LECTURE, "l06", "--fail-on", "contradicted,stale,error")
    return root, code, {c["id"]: c for c in claims}


def _by(claims: dict, kind: str, words: str) -> dict:
    found = [c for c in claims.values() if c["kind"] == kind and words in c["quote"]]
    assert len(found) == 1, [(c["kind"], c["quote"]) for c in claims.values()]
    return found[0]


def test_ap_on_the_rank_table_is_drafted_runnable_and_corrected_by_its_count(book):
    """|R| = 5 is read from a sentence that also says "relevant if"; the display formula's AP is bound to the table
    across the section heading ("our list"), and its fix corrects the count in LaTeX."""
    _, code, claims = book
    value = _by(claims, "value", "\\mathrm{AP}")
    assert value["verdict"] == "contradicted" and code == 1
    assert f"Change “{AP_PLANTED}” to “{AP_RIGHT}”" in value["response"]
    assert _by(claims, "arithmetic", "\\mathrm{AP}")["verdict"] == "supported"   # 2.17/3 ≈ 0.72 as printed


def _register(root) -> dict:
    from audit.register.claims import load_chapter
    return {c.id: c for c in load_chapter(root / "claims" / "l06").register.claims}


def test_a_mean_over_two_queries_is_not_one_querys_value(book):
    """"the mean reciprocal rank over the two topics is MRR = (1 + 1/4)/2" is no value of q8's ranking alone: q8's RR
    is drafted on its ranking, the mean's arithmetic is checked, and nothing holds q8's RR to 0.625."""
    root, _, claims = book
    rr = [c for c in claims.values() if c["kind"] == "value" and "q8" in c["quote"]]
    assert len(rr) == 1 and rr[0]["verdict"] == "supported"
    assert [e.claimed for e in _register(root)[rr[0]["id"]].expect] == ["1/4"]
    assert _by(claims, "arithmetic", "(1 + 1/4)/2")["verdict"] == "supported"


def test_the_t_test_is_recomputed_from_the_score_table_and_its_df_corrected(book):
    root, _, claims = book
    test = _by(claims, "statistic", "t(6)")
    data = _register(root)[test["id"]].data
    assert data.a[:2] == ["0.36", "0.55"] and data.b[:2] == ["0.31", "0.52"]   # B − A, as the printed t > 0
    assert len(data.a) == 6                                                    # the mean row is no topic
    assert test["verdict"] == "contradicted" and "Change “6” to “5”" in test["response"], test["reason"]


def test_the_patch_fixes_the_manuscript_and_the_rerun_is_clean(book):
    root, _, _ = book
    patch = (root / "reports" / "l06.patch").read_text(encoding="utf-8")
    subprocess.run(["patch", "-p0", "-s"], input=patch, cwd=root, text=True, check=True)
    text = (root / "lectures" / "l06.md").read_text(encoding="utf-8")
    assert AP_RIGHT in text and "t(5) = 3.37, p = 0.020" in text
    assert text == LECTURE.replace(AP_PLANTED, AP_RIGHT).replace("t(6)", "t(5)")
    with contextlib.chdir(root):
        code, out = cli("run", "--quiet", "--no-cache", "--fail-on", "contradicted,stale,error", "claims/l06")
    assert code == 0, out
