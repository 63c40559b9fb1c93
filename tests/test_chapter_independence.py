"""audit run: one bad chapter costs only itself. Its error (exit 3, file, claim and field, no
traceback) is printed, and every other chapter's reports are written and valid JSON.

The bad registers are the ones that once ended the whole run with ``internal error`` (exit 4)
and no report for the good chapters: a 5,000-digit claimed value, an unhashable YAML key, deep
nesting, a very long expression, a NUL byte in a path; and the ones that lost their own chapter:
``1e999`` as tolerance, ``SetP@4``, a grade of 2000 with exponential gain, a universe of grades
0–29.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from audit.cli import EXIT_INPUT, main
from audit.evaluation.checks import Measurements
from audit.register.claims import load_chapter
from audit.run.audit import ClaimTimeout, audit_claim, time_limit

SNAPSHOT = "At cutoff four, a single relevant result gives P@4 = 1/4.\n"
GOOD = """\
fixtures:
  one-hit:
    qrels: {q1: {a: 1}}
    run: {q1: [a]}
claims:
  - id: C1
    title: right
    kind: value
    quote: "a single relevant result gives P@4 = 1/4"
    claim: P@4 = 1/4 for one hit.
    fixture: one-hit
    expect:
      - {measure: "P@4", claimed: "1/4"}
"""

BAD = {
    "5000 digits": GOOD.replace('claimed: "1/4"', f'claimed: "{"9" * 5000}"'),
    "unhashable key": GOOD.replace("  one-hit:", "  ? [a, b]\n  : {}\n  one-hit:"),
    "deep nesting": GOOD + "deep: " + "[" * 3000 + "]" * 3000 + "\n",
    "long expression": GOOD + '  - {id: A1, title: t, kind: arithmetic, quote: "P@4", claim: c, claimed: "1", '
                              f'expression: "{"1+" * 3000}1"}}\n',
    "tolerance 1e999": GOOD.replace('claimed: "1/4"}', 'claimed: "1/4", tolerance: "1e999"}'),
    "SetP@4": GOOD.replace('"P@4"', '"SetP@4"'),
    "grade 2000, exponential gain": GOOD.replace("{a: 1}", "{a: 2000}").replace('"P@4"', "\"nDCG(dcg='exp-log2')@4\""),
    "universe of grades 0-29": GOOD + "  - {id: P1, title: t, kind: property, quote: \"P@4\", claim: c, measure: R, "
                                      "relation: never decreases, compare: next_cutoff, universe: {grades: ["
                                      + ", ".join(map(str, range(30))) + "]}}\n",
    "null register": "null\n",
}


def write(root: Path, chapter_id: str, claims: str, snapshot_file: str = "snapshot.txt") -> Path:
    folder = root / chapter_id
    folder.mkdir(parents=True)
    (folder / "chapter.yaml").write_text(f'id: {chapter_id}\ntitle: T\nconventions: {{precision_denominator: k}}\n'
                                         f'snapshot: {{file: "{snapshot_file}"}}\n',
                                         encoding="utf-8")
    (folder / "snapshot.txt").write_text(SNAPSHOT, encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_chapter_costs_only_itself(tmp_path, capsys, case):
    bad = write(tmp_path / "claims", "bad", BAD[case])
    good = write(tmp_path / "claims", "good", GOOD)
    reports = tmp_path / "reports"
    assert main(["run", str(bad), str(good), "--reports", str(reports), "--quiet"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert str(bad / "claims.yaml") in err and "Traceback" not in err and "internal error" not in err
    assert len(err) < 2000  # the input is not echoed whole
    data = json.loads((reports / "good.json").read_text(encoding="utf-8"))
    assert [(c["id"], c["verdict"]) for c in data["claims"]] == [("C1", "supported")]
    assert not (reports / "bad.json").exists()


def test_nul_byte_in_snapshot_path_costs_only_its_chapter(tmp_path, capsys):
    bad = write(tmp_path / "claims", "bad", GOOD, snapshot_file="snap\\0shot.txt")
    good = write(tmp_path / "claims", "good", GOOD)
    assert main(["run", str(bad), str(good), "--reports", str(tmp_path / "r"), "--quiet"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert str(bad / "chapter.yaml") in err and "NUL byte" in err and "Traceback" not in err
    assert (tmp_path / "r" / "good.json").is_file()


def test_unexpected_failure_in_a_checker_is_that_claims_error(tmp_path, monkeypatch):
    # A fault inside a checker (here forced) becomes the claim's error verdict, named as an internal
    # error; the chapter's other claims and its reports are kept.
    from audit.evaluation import checks

    def broken(claim, chapter, ms):
        raise OverflowError("forced")

    monkeypatch.setitem(checks.CHECKERS, "arithmetic", broken)
    claims = GOOD + '  - {id: A1, title: t, kind: arithmetic, quote: "P@4", claim: c, claimed: "1", expression: "1"}\n'
    folder = write(tmp_path / "claims", "ch", claims)
    assert main(["run", str(folder), "--reports", str(tmp_path / "r"), "--quiet"]) == 0
    data = json.loads((tmp_path / "r" / "ch.json").read_text(encoding="utf-8"))
    verdicts = {c["id"]: (c["verdict"], c["reason"]) for c in data["claims"]}
    assert verdicts["C1"][0] == "supported"
    assert verdicts["A1"][0] == "error" and "internal error (OverflowError: forced)" in verdicts["A1"][1]


def test_a_claim_past_its_time_limit_is_an_error(tmp_path, monkeypatch):
    # A checker that never returns: stopped at the per-claim limit, reported as that claim's error.
    from audit.evaluation import checks

    def endless(claim, chapter, ms):
        while True:
            pass

    monkeypatch.setitem(checks.CHECKERS, "arithmetic", endless)
    claims = GOOD + '  - {id: A1, title: t, kind: arithmetic, quote: "P@4", claim: c, claimed: "1", expression: "1"}\n'
    chapter = load_chapter(write(tmp_path / "claims", "ch", claims))
    result = audit_claim(chapter.register.claims[1], chapter, Measurements([]), seconds=1.0)
    assert result.verdict == "error" and "did not finish within the limit of 1 s" in result.reason


def test_time_limit_leaves_no_alarm_behind():
    with time_limit(5):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with pytest.raises(ClaimTimeout):
        with time_limit(0.05):
            while True:
                pass


def test_markdown_report_escapes_raw_html(tmp_path):
    # A quote and a title holding HTML are shown, not embedded: no "<script" or "<img" in the Markdown.
    snapshot = 'It says <script>alert(1)</script> and <img src=x onerror=alert(2)> gives P@4 = 1/4.\n'
    folder = write(tmp_path / "claims", "ch", GOOD.replace(
        'quote: "a single relevant result gives P@4 = 1/4"',
        'quote: "<script>alert(1)</script> and <img src=x onerror=alert(2)> gives P@4 = 1/4"').replace(
        "title: right", 'title: "<script>alert(3)</script>"'))
    (folder / "snapshot.txt").write_text(snapshot, encoding="utf-8")
    assert main(["run", str(folder), "--reports", str(tmp_path / "r"), "--quiet"]) == 0
    markdown = (tmp_path / "r" / "ch.md").read_text(encoding="utf-8")
    # the claim table shows the quote's beginning, cut after escaping, so the escaped tags are what is counted
    assert "&lt;script>alert(1)" in markdown and "&lt;img" in markdown
    assert "<script" not in markdown and "<img" not in markdown


def test_exhaustive_stage_respects_the_search_time_limit(tmp_path, monkeypatch):
    # The time limit once bounded only the random stage (a universe within the schema's limits ran
    # 454 s). Slices of 10 comparisons and a 1 ms limit: the stage stops after its first slice.
    from audit.evaluation.checks import counterexamples

    monkeypatch.setattr(counterexamples, "EXHAUSTIVE_SLICE", 10)
    claims = GOOD + ("  - {id: P1, title: t, kind: property, quote: \"P@4\", claim: c, measure: R, relation: never "
                     "decreases, compare: next_cutoff, search: {time_limit: 0.001}}\n")
    chapter = load_chapter(write(tmp_path / "claims", "ch", claims))
    result = audit_claim(chapter.register.claims[1], chapter, Measurements([]))
    assert result.verdict == "error" and "the exhaustive stage did not finish within search.time_limit" in result.reason


def test_many_lost_quotes_share_one_search_budget(monkeypatch):
    # Each lost quote is searched for an edited passage; a register of many absent quotes once
    # made that search the whole run. With a budget of 1,000 passages and a 100-word snapshot
    # (7 window sizes per word: 700 passages per quote), the budget is spent after two quotes; the
    # third is no longer searched, and says why.
    from pathlib import Path as P

    from audit.text import anchors
    from audit.text.chapter import Snapshot

    snapshot = Snapshot(P("s.txt"), " ".join(f"word{i}" for i in range(100)))
    budget = anchors.Budget(1_000)
    notes = [anchors.locate(snapshot, f"an absent sentence number {i} of some length", budget=budget).note
             for i in range(3)]
    assert all("already examined" not in n for n in notes[:2])
    assert "already examined 1,000 passages" in notes[2]


def test_diff_refuses_a_fifo_without_blocking(tmp_path, capsys):
    import os

    report = tmp_path / "old.json"
    os.mkfifo(report)
    started = time.monotonic()
    assert main(["diff", str(report), str(report)]) == EXIT_INPUT
    assert time.monotonic() - started < 5 and "is a FIFO" in capsys.readouterr().err


def test_a_lost_quote_in_a_large_snapshot_is_searched_in_bounded_time():
    # A 50 MB snapshot with an absent quote once took more than 7 minutes; snapshots are now capped
    # at 2 MB, and past FUZZY_MAX_WORDS words a quote without a line hint is not searched at all.
    from pathlib import Path as P

    from audit.model import limits
    from audit.text.anchors import locate
    from audit.text.chapter import Snapshot

    text = ("Precision at four is one quarter when one relevant result is returned. " * 20_000)[:1_900_000]
    started = time.monotonic()
    anchor = locate(Snapshot(P("s.txt"), text), "A sentence that this chapter never contains anywhere at all.")
    assert time.monotonic() - started < 10
    assert anchor.state == "lost" and f"longer than {limits.FUZZY_MAX_WORDS:,} words" in anchor.note
