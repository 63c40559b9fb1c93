"""The pytest plugin, checked with pytester: outcomes per verdict, -k, JUnit XML, locations, failure text."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

pytest_plugins = ["pytester"]

SNAPSHOT = ("At cutoff four, a single relevant result gives P@4 = 1/4. Read carelessly it gives P@4 = 1/3. "
            "Ties keep their order.\n\n"
            "def present(ranking, relevant):\n    return 0.0\n")
CLAIMS = """\
fixtures:
  one:
    qrels: {q1: {a: 1}}
    run: {q1: [a]}
  ties:
    qrels: {q1: {a: 0, b: 0, c: 1}}
    run: {q1: [b, c, a]}
    scores: {q1: {a: 1.0, b: 1.0, c: 1.0}}
claims:
  - id: S1
    title: supported
    kind: value
    quote: "a single relevant result gives P@4 = 1/4"
    claim: P@4 = 1/4
    fixture: one
    expect: [{measure: "P@4", claimed: "1/4"}]
  - id: C1
    title: contradicted
    kind: value
    quote: "Read carelessly it gives P@4 = 1/3"
    claim: P@4 = 1/3
    fixture: one
    expect: [{measure: "P@4", claimed: "1/3"}]
  - id: Q1
    title: qualified
    kind: convention
    quote: "Ties keep their order."
    claim: ties keep the reference order
    convention: ties
    rule: reference order
    probe: ties
    measures: ["RR"]
  - id: T1
    title: stale
    kind: value
    quote: "a sentence that is not in the chapter"
    claim: P@4 = 1/4
    fixture: one
    expect: [{measure: "P@4", claimed: "1/4"}]
  - id: N1
    title: not checkable
    kind: not checkable
    quote: "Ties keep their order."
    claim: prose
    reason: qualitative
  - id: E1
    title: error
    kind: code
    quote: "def present(ranking, relevant):"
    claim: a listing run where no sandbox can be built (the chapter fixture points bwrap at a missing binary)
    function: present
    measure: RR
    arguments: {ranking: ranking, relevant: relevant set}
"""


@pytest.fixture(scope="module", autouse=True)
def _warm_references():
    """Import ranx before pytester moves HOME, so its compiled metrics come from the usual cache."""
    from audit.evaluation.references.ranx_ref import _import_ranx
    _import_ranx()


@pytest.fixture
def chapter(pytester, monkeypatch):
    # no sandbox can be built, so the listing is not run and E1's verdict is error ("isolation unavailable"); a code
    # claim naming a function its listing lacks is refused when the register loads, before any verdict
    monkeypatch.setenv("CHAPTER_AUDIT_BWRAP", "/nonexistent/bwrap")
    folder = pytester.mkdir("claims") / "demo"
    folder.mkdir()
    (folder / "chapter.yaml").write_text("id: demo\ntitle: Demo\nconventions: {precision_denominator: k}\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    return folder


def test_one_item_per_claim_with_the_verdicts_outcome(pytester, chapter):
    result = pytester.runpytest("claims/", "-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=2, failed=2, skipped=1, errors=1, warnings=1)
    result.stdout.fnmatch_lines(["*ClaimQualifiedWarning: Q1 qualified*docno*"])
    for claim_id, outcome in [("S1", "PASSED"), ("Q1", "PASSED"), ("C1", "FAILED"), ("T1", "FAILED"),
                              ("N1", "SKIPPED"), ("E1", "ERROR")]:
        assert any(claim_id in line and line.startswith(outcome) for line in result.outlines), claim_id


def test_an_errored_claim_is_an_error_with_plain_text(pytester, chapter):
    result = pytester.runpytest("claims/", "-p", "no:cacheprovider", "-k", "E1")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*E1 error: error*", "*isolation unavailable*"])
    assert "Traceback" not in result.stdout.str() and "is_historic" not in result.stdout.str()


def test_a_contradicted_claim_fails_with_plain_text_not_a_traceback(pytester, chapter):
    result = pytester.runpytest("claims/", "-p", "no:cacheprovider", "-k", "C1")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "Traceback" not in text and "def runtest" not in text
    result.stdout.fnmatch_lines(["C1 contradicted: contradicted", "*claimed:  P@4 = 1/3*",
                                 "*chapter=1/4, pytrec_eval=0.2500, ir_measures=0.2500, ranx=0.2500*",
                                 "*response: Change “1/3” to “1/4”*"])


def test_k_selects_by_claim_id(pytester, chapter):
    result = pytester.runpytest("claims/", "-p", "no:cacheprovider", "-k", "S1 or N1")
    result.assert_outcomes(passed=1, skipped=1)


def test_the_audit_option_collects_a_chapter_folder(pytester, chapter):
    result = pytester.runpytest("--audit", str(chapter), "-p", "no:cacheprovider", "-k", "S1")
    result.assert_outcomes(passed=1)


def test_junit_xml_is_valid_and_names_each_claim(pytester, chapter):
    xml = pytester.path / "out.xml"
    pytester.runpytest("claims/", "-p", "no:cacheprovider", f"--junitxml={xml}")
    suite = ET.parse(xml).getroot().find("testsuite")
    names = [case.get("name") for case in suite.iter("testcase")]
    assert names == ["S1", "C1", "Q1", "T1", "N1", "E1"]
    assert suite.get("failures") == "2" and suite.get("errors") == "1" and suite.get("skipped") == "1"


def test_item_location_is_the_claims_line_in_the_register(pytester, chapter):
    items, _ = pytester.inline_genitems("claims/", "-p", "no:cacheprovider")
    lines = {item.name: item.location[1] for item in items}
    register = CLAIMS.split("\n")
    assert register[lines["S1"]].strip() == "- id: S1"
    assert register[lines["E1"]].strip() == "- id: E1"


def test_a_malformed_register_is_one_failing_item_naming_the_file(pytester, chapter):
    (chapter / "claims.yaml").write_text("claims: [\n", encoding="utf-8")
    result = pytester.runpytest("claims/", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*claims.yaml: malformed YAML at line*"])
    assert "Traceback" not in result.stdout.str() and "Interrupted" not in result.stdout.str()


def test_a_broken_register_does_not_stop_the_other_chapters(pytester, chapter):
    # Once "Interrupted: 1 error during collection": no good chapter's claim ran.
    broken = pytester.path / "claims" / "broken"
    broken.mkdir()
    (broken / "chapter.yaml").write_text("id: broken\ntitle: Broken\n", encoding="utf-8")
    (broken / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (broken / "claims.yaml").write_text("fixtures:\n  ? [a, b]\n  : {}\nclaims: []\n", encoding="utf-8")
    result = pytester.runpytest("claims/", "-p", "no:cacheprovider", "-k", "S1 or register")
    result.assert_outcomes(passed=1, failed=1)  # demo's S1 is supported; broken's register item fails
    result.stdout.fnmatch_lines(["*broken::register*", "*a key must be plain text or a number*"])
    assert "Traceback" not in result.stdout.str() and "Interrupted" not in result.stdout.str()


def test_audit_collects_only_the_named_chapter_and_records_verdicts(pytester, chapter):
    """Regression: --audit used to add the chapter to the configured testpaths instead of replacing them."""
    pytester.makeini("[pytest]\ntestpaths = tests\n")
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_other.py").write_text("def test_other():\n    pass\n", encoding="utf-8")
    xml = pytester.path / "out.xml"
    result = pytester.runpytest("--audit", str(chapter), "-p", "no:cacheprovider", "-k", "Q1", f"--junitxml={xml}")
    result.assert_outcomes(passed=1, warnings=1)
    case = ET.parse(xml).getroot().find("testsuite").find("testcase")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert case.get("name") == "Q1" and props == {"verdict": "qualified", "priority": "medium"}


def test_an_internal_failure_is_an_error_without_traceback(pytester, chapter, monkeypatch):
    # Once a full traceback; now each claim of the chapter errors with one line naming the fault.
    import audit.run.audit

    def broken(*args, **kwargs):
        raise RuntimeError("forced fault")

    monkeypatch.setattr(audit.run.audit, "audit_chapter", broken)
    result = pytester.runpytest("claims/", "-p", "no:cacheprovider", "-k", "S1")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*internal error while auditing the chapter: RuntimeError: forced fault*"])
    assert "Traceback" not in result.stdout.str()
