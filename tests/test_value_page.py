"""A value claim's ``page``: where the book prints the value ("p. 214, Table 23.2"). It decides nothing; the reports
show it with the claim (Markdown and HTML, the book's words made literal), the JSON report carries it, and a claim
without one reads as before (no ``page`` key in the JSON).

One query, a and b relevant, ranked a, x, b: P@3 = 2/3 (by hand; trec_eval's P_3 gives 0.6667).
"""

from __future__ import annotations

import json
import textwrap

import pytest

from audit.errors import AuditError
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.report import html_report, json_report, markdown
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

SNAPSHOT = """\
Two relevant documents at ranks 1 and 3 give P@3 = 2/3.
Two relevant documents at ranks 1 and 3 give P@3 = 1/3.
"""

CLAIMS = """\
fixtures:
  f: {qrels: {q1: {a: 1, b: 1, x: 0}}, run: {q1: [a, x, b]}}
claims:
  - id: V1
    title: P@3 = 2/3
    kind: value
    quote: "Two relevant documents at ranks 1 and 3 give P@3 = 2/3."
    claim: 2 relevant of the first 3 give P@3 = 2/3.
    fixture: f
    page: "p. 214, Table 23.2"
    expect: [{measure: "P@3", claimed: "2/3"}]
  - id: V2
    title: P@3 = 1/3
    kind: value
    quote: "Two relevant documents at ranks 1 and 3 give P@3 = 1/3."
    claim: P@3 = 1/3.
    fixture: f
    page: "p. 215, *proofs* <b>2</b>"
    expect: [{measure: "P@3", claimed: "1/3"}]
  - id: V3
    title: P@3 = 2/3, no page given
    kind: value
    quote: "Two relevant documents at ranks 1 and 3 give P@3 = 2/3."
    claim: 2 relevant of the first 3 give P@3 = 2/3.
    fixture: f
    expect: [{measure: "P@3", claimed: "2/3"}]
"""


def _chapter(tmp_path, claims: str = CLAIMS):
    folder = tmp_path / "paged"
    folder.mkdir()
    (folder / "chapter.yaml").write_text("id: paged\ntitle: Pages\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "claims.yaml").write_text(textwrap.dedent(claims), encoding="utf-8")
    return load_chapter(folder)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    return audit_chapter(_chapter(tmp_path_factory.mktemp("page")), all_references(), collect("test"))


def test_the_page_decides_nothing_and_is_kept_with_the_result(report):
    by_id = {c.id: c for c in report.claims}
    assert (by_id["V1"].verdict, by_id["V2"].verdict, by_id["V3"].verdict) == ("supported", "contradicted",
                                                                               "supported")
    assert by_id["V1"].page == "p. 214, Table 23.2" and by_id["V3"].page == ""
    v2 = {v.implementation: v for v in by_id["V2"].checks[0].values}
    assert v2["chapter"].exact == "2/3" and v2["pytrec_eval"].value == pytest.approx(2 / 3)


def test_the_reports_show_where_the_book_prints_the_value(report):
    md = markdown.render(report)
    finding = md[md.index("#### V2"):]
    finding = finding[:finding.index("**Claim.**")]
    # the book's words are literal: no emphasis, no HTML
    assert "printed in the book at p. 215, \\*proofs\\* &lt;b>2&lt;/b>." in finding, finding
    page = html_report.render(report, SNAPSHOT)
    assert "printed in the book at p. 214, Table 23.2" in page
    assert "p. 215, *proofs* &lt;b&gt;2&lt;/b&gt;" in page and "<b>2</b>" not in page
    claims = {c["id"]: c for c in json.loads(json_report.render(report))["claims"]}
    assert claims["V1"]["page"] == "p. 214, Table 23.2"
    assert "page" not in claims["V3"]  # a claim without a page reads as before


@pytest.mark.parametrize("page, field", [("p. 3\nTable 1", "page"), ("x" * 121, "page")])
def test_a_page_with_a_control_character_or_too_long_is_refused_at_load(tmp_path, page, field):
    claims = CLAIMS.replace('page: "p. 214, Table 23.2"', f"page: {json.dumps(page)}")
    with pytest.raises(AuditError) as caught:
        _chapter(tmp_path, claims)
    assert "V1" in str(caught.value) and field in str(caught.value)
