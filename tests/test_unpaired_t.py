"""Unpaired t-tests: Student's (equal variances) and Welch's (unequal variances) on two samples, as a student's
evaluation write-up reports them after calling ``scipy.stats.ttest_ind``. Each right value is written below with the
scipy call that gives it; the chapter's side recomputes it exactly (t² and Welch's df as fractions, p by mpmath)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.errors import RegisterError
from audit.evaluation import significance
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

RERANK = ["0.512", "0.347", "0.628", "0.281", "0.455", "0.590", "0.403", "0.366", "0.521", "0.478", "0.602", "0.334"]
BM25 = ["0.441", "0.302", "0.575", "0.219", "0.468", "0.497", "0.352", "0.318", "0.436", "0.409", "0.551", "0.297"]
NAVIGATIONAL = ["0.62", "0.71", "0.55", "0.80", "0.67", "0.74", "0.59", "0.77"]
INFORMATIONAL = ["0.48", "0.66", "0.31", "0.72", "0.39", "0.58", "0.27", "0.69", "0.52", "0.44", "0.35", "0.61",
                 "0.50", "0.40"]


def _row(topic: int, x: str, y: str) -> str:
    return f"| {topic} | {x} | {y} |"


SNAPSHOT = "\n".join([
    "## 4 Results",
    "",
    "Table 2 gives nDCG@10 per topic for the cross-encoder reranker and the BM25 baseline.",
    "",
    "| topic | rerank | bm25 |",
    "|---|---|---|",
    *[_row(401 + i, x, y) for i, (x, y) in enumerate(zip(RERANK, BM25))],
    "",
    "We ran `scipy.stats.ttest_ind(rerank, bm25)` on the two columns: an unpaired two-sample t-test gives "
    "t = 1.19, p = 0.248, so the gain is not significant at α = 0.05.",
    "In the first draft of this report the same test gave t = 1.19, p = 0.0248, so the reranker was significantly "
    "better.",
    "",
    "Navigational topics (" + ", ".join(NAVIGATIONAL) + ") score higher under the reranker than informational ones ("
    + ", ".join(INFORMATIONAL) + ").",
    "As the two groups differ in size and spread we used Welch's test (`equal_var=False`): t(19.74) = 3.77, "
    "p = 0.0012.",
    "A one-line summary for the slides: Welch's t(19.7) = 3.77, p = .001.",
    "The appendix copies it as t(19.7) = 2.10, p = .01.",
    "The baseline run alone: t(22) = 1.19, p = .25.",
    "",
])

A, B = f"{RERANK}".replace("'", '"'), f"{BM25}".replace("'", '"')
NAV, INF = f"{NAVIGATIONAL}".replace("'", '"'), f"{INFORMATIONAL}".replace("'", '"')
CLAIMS = f"""\
claims:
  - {{id: U1, title: unpaired t-test on the two columns, kind: statistic,
     quote: "an unpaired two-sample t-test gives t = 1.19, p = 0.248, so the gain is not significant at α = 0.05",
     claim: Student's t-test on the two columns, test: student t, data: {{a: {A}, b: {B}}},
     expect: [{{statistic: t, claimed: "1.19"}}, {{statistic: p, claimed: "0.248"}}], decision: not significant}}
  - {{id: U2, title: the draft's p, kind: statistic,
     quote: "the same test gave t = 1.19, p = 0.0248, so the reranker was significantly better",
     claim: Student's t-test on the two columns, test: student t, data: {{a: {A}, b: {B}}},
     expect: [{{statistic: p, claimed: "0.0248"}}], decision: significant}}
  - {{id: U3, title: the same data held to the paired test, kind: statistic,
     quote: "an unpaired two-sample t-test gives t = 1.19, p = 0.248, so the gain is not significant at α = 0.05",
     claim: the paired t-test on the two columns, test: paired t, data: {{a: {A}, b: {B}}},
     expect: [{{statistic: p, claimed: "0.248"}}]}}
  - {{id: W1, title: Welch on the two query types, kind: statistic,
     quote: "t(19.74) = 3.77, p = 0.0012",
     claim: Welch's t-test between the query types, test: welch t, data: {{a: {NAV}, b: {INF}}},
     expect: [{{statistic: t, claimed: "3.77"}}, {{statistic: df, claimed: "19.74"}}, {{statistic: p, claimed: "0.0012"}}]}}
  - {{id: W2, title: Student on the two query types, kind: statistic,
     quote: "t(19.74) = 3.77, p = 0.0012",
     claim: Student's t-test between the query types, test: student t, data: {{a: {NAV}, b: {INF}}},
     expect: [{{statistic: p, claimed: "0.0012"}}]}}
  - {{id: R1, title: Welch reported, kind: statistic, quote: "Welch's t(19.7) = 3.77, p = .001", claim: x,
     test: welch t, sided: two, reported: {{t: "3.77", df: "19.7", p: ".001"}}}}
  - {{id: R2, title: Welch copied wrong, kind: statistic, quote: "t(19.7) = 2.10, p = .01", claim: x,
     test: welch t, sided: two, reported: {{t: "2.10", df: "19.7", p: ".01"}}}}
  - {{id: R3, title: Student reported, kind: statistic, quote: "t(22) = 1.19, p = .25", claim: x,
     test: student t, sided: two, reported: {{t: "1.19", df: 22, p: ".25"}}}}
"""


def _audited(folder, snapshot: str, claims: str) -> dict:
    (folder / "snapshot.md").write_text(snapshot, encoding="utf-8")
    (folder / "chapter.yaml").write_text("id: report\ntitle: Report\nsnapshot: {file: snapshot.md}\n",
                                         encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return {c.id: c for c in audit_chapter(load_chapter(folder), [], collect("test")).claims}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return _audited(tmp_path_factory.mktemp("unpaired"), SNAPSHOT, CLAIMS)


def _scipy(result, statistic: str) -> list[float]:
    return [v.value for c in result.checks if c.measure == statistic for v in c.values if v.implementation == "scipy"]
