"""A patch is a text edit checked as a whole: every change to one sentence, from every claim that quotes it, is made
once into one new sentence and re-checked with every claim quoting it; no words go inside a display formula, a code
block, a table or a doctest; the Markdown structure outside the changed sentence is the same after the patch (read
with markdown-it-py before and after); the register's quote, title and claim text follow the new sentence; and
"What to change", the checklist and the patch carry the same text.

Two chapters, audited, patched with ``patch -p0`` from the project root as the README says, and audited again:

* a results section whose sentence holds three p-values (one per reranker), all printed as "above 0.70". On the
  eight printed differences, scipy's ``ttest_1samp`` (the paired t-test on differences) gives two-sided p =
  0.0067 (dense), 0.3136 (hybrid) and 0.4512 (ColBERT): the three claims need three different numbers in one place,
  so no text is offered for them (before, the hunks were applied one over another: "A A two-sided … above > 0.45").
  The next sentence prints the dense reranker's t = 2.10 and p = 0.071, "not significant": t is 3.8023 and p 0.0067,
  so both numbers change and the decision turns; the two claims quoting it get one hunk, checked together.
* a Markdown chapter whose rule about repeated IDs runs into a ``$$`` display formula (the caveat goes on a line of
  its own after the formula, not inside it or on its ``$$`` line), a wrong P@4 = 1/3 right before another display
  formula (one relevant document in four: 1/4, pytrec_eval ``P_4`` 0.25), and an nDCG value printed as a doctest's
  output (qualified: the gain is unstated; no "(here …)" is written into the doctest).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from audit.cli import main
from audit.text.markdown import changed_structure, closed_spans, structure

DENSE = ["0.042", "0.051", "-0.013", "0.038", "0.027", "0.061", "0.009", "0.044"]
HYBRID = ["0.021", "-0.034", "0.047", "0.012", "-0.008", "0.039", "0.025", "-0.016"]
COLBERT = ["0.015", "0.022", "-0.041", "0.036", "0.018", "-0.027", "0.031", "0.008"]

ALL = ("A two-sided paired t-test of each reranker against BM25 gives p-values that are all above 0.70, so none of "
       "the three differences is significant at α = 0.05.")
ONE = ("For the dense reranker alone, the two-sided paired test gives t = 2.10 and p = 0.071, so its gain over BM25 "
       "is not significant at α = 0.05.")
STATS = f"""\
# Results

We compare three rerankers with the BM25 baseline on eight topics. Table 2 lists the per-topic differences in
AP (reranker − BM25).

{ALL[:103]}
{ALL[104:]}

{ONE[:110]}
{ONE[111:]}

For ColBERT the two-sided p-value is above 0.70.

The dense reranker gains most on the long topics.
"""


def _stat(cid, title, quote, claim, data, statistic, claimed, decision=None):
    lines = [f"  - id: {cid}", f"    title: {title}", "    kind: statistic", f'    quote: "{quote}"',
             f"    claim: {claim}", "    test: paired t", "    sided: two",
             f"    data: {{differences: {json.dumps(data)}}}", "    expect:",
             f'      - {{statistic: {statistic}, claimed: "{claimed}"}}']
    if decision:
        lines.append(f"    decision: {decision}")
    return "\n".join(lines)


STATS_CLAIMS = "claims:\n" + "\n".join([
    _stat("S1", "The dense reranker's gain is not significant (p above 0.70)", ALL,
          "The dense reranker's p-value is above 0.70.", DENSE, "p", "> 0.70", "not significant"),
    _stat("S2", "The hybrid reranker's p-value is above 0.70", ALL, "The hybrid reranker's p-value is above 0.70.",
          HYBRID, "p", "> 0.70"),
    _stat("S3", "The ColBERT reranker's p-value is above 0.70", ALL, "The ColBERT reranker's p-value is above 0.70.",
          COLBERT, "p", "> 0.70"),
    _stat("S4", "The dense reranker's t is 2.10", ONE, "The paired t of the dense reranker is 2.10.", DENSE, "t",
          "≈ 2.10"),
    _stat("S5", "The dense reranker's gain is not significant (p = 0.071)", ONE,
          "The dense reranker's p-value is 0.071, not significant at 0.05.", DENSE, "p", "0.071", "not significant"),
    _stat("S6", "ColBERT's p-value is above 0.70", "For ColBERT the two-sided p-value is above 0.70.",
          "The ColBERT reranker's p-value is above 0.70.", COLBERT, "p", "> 0.70"),
]) + "\n"

FORMULA = r"""# Reciprocal rank

Our evaluator rejects a ranking that repeats an ID, and scores every other ranking by the first relevant rank,
$$
\mathrm{RR} = \frac{1}{\mathrm{rank}_1}.
$$

A single relevant result at rank 2 of four gives P@4 = 1/3.
$$
\mathrm{P@}k = \frac{|\mathrm{rel} \cap \mathrm{top}_k|}{k}
$$

The listing below computes nDCG with the grades as gains:

```python
>>> ndcg_at_k([3, 0, 2], 3)
0.9386
```

Grades matter more than positions here. Burges et al. (2005) weight the grades differently.
"""
FORMULA_CLAIMS = """\
fixtures:
  one-at-two:
    qrels: {q1: {a: 1, x: 0, y: 0, z: 0}}
    run: {q1: [x, a, y, z]}
  graded:
    qrels: {q1: {g3: 3, g0: 0, g2: 2}}
    run: {q1: [g3, g0, g2]}
  repeats:
    qrels: {q1: {a: 1, b: 0}}
    run: {q1: [a, b, a]}
claims:
  - {id: M1, title: The evaluator rejects repeated IDs, kind: convention,
     quote: "Our evaluator rejects a ranking that repeats an ID", claim: A run that repeats an ID is rejected.,
     convention: repeated_ids, rule: reject, probe: repeats, measures: ["P@3", "RR"]}
  - {id: M2, title: One relevant result at rank 2 gives P@4 = 1/3, kind: value,
     quote: "A single relevant result at rank 2 of four gives P@4 = 1/3.", claim: P@4 = 1/3 for one hit in four.,
     fixture: one-at-two, expect: [{measure: "P@4", claimed: "1/3"}]}
  - {id: M3, title: Grades 3 0 2 give nDCG@3 ≈ 0.9386, kind: value, quote: "0.9386", claim: nDCG@3 is about 0.9386.,
     fixture: graded, expect: [{measure: "nDCG@3", claimed: "≈ 0.9386"}]}
"""


def _report(reports: Path, name: str) -> dict:
    return json.loads((reports / f"{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    root = tmp_path_factory.mktemp("composition")
    mp = pytest.MonkeyPatch()
    mp.chdir(root)
    try:
        folders = {}
        for name, text, claims in (("stats", STATS, STATS_CLAIMS), ("formula", FORMULA, FORMULA_CLAIMS)):
            folder = Path("claims") / name
            folder.mkdir(parents=True)
            (folder / "snapshot.md").write_text(text, encoding="utf-8")
            (folder / "chapter.yaml").write_text(f"id: {name}\ntitle: {name}\nsnapshot: {{file: snapshot.md}}\n",
                                                 encoding="utf-8")
            (folder / "claims.yaml").write_text(claims, encoding="utf-8")
            folders[name] = folder
        reports = Path("reports")
        assert main(["run", *map(str, folders.values()), "--reports", str(reports), "--quiet", "--no-cache"]) in (0, 1)
        first = {n: _report(reports, n) for n in folders}
        markdown = {n: (reports / f"{n}.md").read_text(encoding="utf-8") for n in folders}
        patches = {n: (reports / f"{n}.patch").read_text(encoding="utf-8") for n in folders}
        for text in patches.values():
            applied = subprocess.run(["patch", "-p0", "-s"], input=text, cwd=root, capture_output=True, text=True)
            assert applied.returncode == 0, applied.stdout + applied.stderr
        after = {n: (folders[n] / "snapshot.md").read_text(encoding="utf-8") for n in folders}
        registers = {n: (folders[n] / "claims.yaml").read_text(encoding="utf-8") for n in folders}
        assert main(["run", *map(str, folders.values()), "--reports", str(reports), "--quiet", "--no-cache"]) in (0, 1)
        second = {n: _report(reports, n) for n in folders}
        yield dict(first=first, markdown=markdown, patches=patches, after=after, registers=registers, second=second)
    finally:
        mp.undo()


def _p(data) -> float:
    from scipy import stats  # imported where used: scipy.stats takes seconds to import in every collecting process

    return float(stats.ttest_1samp([float(x) for x in data], 0.0).pvalue)


def test_claims_needing_different_numbers_in_one_place_get_no_text_rather_than_a_garbled_one(rounds):
    """p = 0.3136 (hybrid) and 0.4512 (ColBERT), scipy: "above 0.70" would have to read 0.31 and 0.45 at once."""
    assert round(_p(HYBRID), 2) == 0.31 and round(_p(COLBERT), 2) == 0.45
    proposal = rounds["first"]["stats"]["research"]["proposal"]
    withdrawn = {w["claim"]: w["reason"] for w in proposal["withdrawn"]}
    assert set(withdrawn) >= {"S2", "S3"}, proposal
    assert "“0.31”" in withdrawn["S2"] and "“0.45”" in withdrawn["S2"]
    assert not any(c in h["claims"] + [h["claim"]] for h in proposal["hunks"] for c in ("S1", "S2", "S3"))
    after = rounds["after"]["stats"]
    assert "all above 0.70" in after                    # the sentence is left for the author
    assert not re.search(r"\b(\w+) \1\b", after), after  # no repeated word ("A A two-sided")
    assert "> >" not in after and "above >" not in after


def test_two_claims_on_one_sentence_are_one_hunk_checked_together(rounds):
    """t = mean/(sd/√8) = 3.8023 and two-sided p = 0.0067 (scipy ttest_1samp on the dense differences): both printed
    numbers change and, p being below α = 0.05, "not significant" becomes "significant"."""
    from scipy import stats

    r = stats.ttest_1samp([float(x) for x in DENSE], 0.0)
    assert f"{r.statistic:.2f}" == "3.80" and f"{r.pvalue:.4f}" == "0.0067"
    hunks = [h for h in rounds["first"]["stats"]["research"]["proposal"]["hunks"] if "S4" in [h["claim"], *h["claims"]]]
    assert len(hunks) == 1 and hunks[0]["claims"] == ["S4", "S5"], hunks
    h = hunks[0]
    assert h["check"].startswith("re-checked together") and "S4 supported" in h["check"] and "S5 supported" in h["check"]
    assert h["new"] == ("For the dense reranker alone, the two-sided paired test gives t = 3.80 and p = 0.0067, so its "
                        "gain over BM25 is\nsignificant at α = 0.05.")
    second = {c["id"]: c["verdict"] for c in rounds["second"]["stats"]["claims"]}
    assert second["S4"] == second["S5"] == "supported"


def test_the_register_follows_the_new_sentence_title_included(rounds):
    """The turned decision reaches S5's title and claim text; the numbers reach S4's."""
    claims = {c["id"]: c for c in yaml.safe_load(rounds["registers"]["stats"])["claims"]}
    s4, s5 = claims["S4"], claims["S5"]
    assert s5["title"] == "The dense reranker's gain is significant (p = 0.0067)"
    assert s5["claim"] == "The dense reranker's p-value is 0.0067, significant at 0.05."
    assert s5["decision"] == "significant" and s5["expect"][0]["claimed"] == "0.0067"
    assert s4["title"] == "The dense reranker's t is 3.80" and s4["expect"][0]["claimed"] == "≈ 3.80"
    assert s4["quote"] == s5["quote"] == ("For the dense reranker alone, the two-sided paired test gives t = 3.80 and "
                                          "p = 0.0067, so its gain over BM25 is significant at α = 0.05.")


def test_a_bound_the_sentence_words_itself_keeps_one_comparison(rounds):
    """"above 0.70" for p = 0.4512 becomes "above 0.45", and the register's bound "> 0.45"."""
    after, register = rounds["after"]["stats"], rounds["registers"]["stats"]
    assert "For ColBERT the two-sided p-value is above 0.45." in after
    assert '{statistic: p, claimed: "> 0.45"}' in register and "above > " not in register
    assert {c["id"]: c["verdict"] for c in rounds["second"]["stats"]["claims"]}["S6"] == "supported"


def test_a_caveat_after_a_sentence_that_ends_in_a_display_formula_goes_on_its_own_line(rounds):
    """The full stop inside the formula does not end the sentence; the caveat (ir-measures and ranx keep the last
    occurrence, pytrec_eval rejects the run) goes after the closing $$, on a line of its own."""
    lines = rounds["after"]["formula"].split("\n")
    closing = lines.index(r"\mathrm{RR} = \frac{1}{\mathrm{rank}_1}.") + 1
    assert lines[closing] == "$$"
    assert lines[closing + 1].startswith("Scoring libraries differ here: ir-measures and ranx keep only the last")
    assert all(line == "$$" for line in lines if "$$" in line)


def test_the_structure_outside_the_changed_sentences_is_kept(rounds):
    before, after = FORMULA, rounds["after"]["formula"]
    assert [k for k, _, _ in structure(before)] == [k for k, _, _ in structure(after)]
    assert "```python\n>>> ndcg_at_k([3, 0, 2], 3)\n0.9386\n```" in after
    assert "A single relevant result at rank 2 of four gives P@4 = 1/4.\n$$" in after


def test_no_words_are_written_into_a_doctest(rounds):
    """nDCG@3 of grades 3, 0, 2 is 0.9386 with linear gain and 0.9558 with 2^g − 1 (the text cites Burges et al.,
    whose gain that is, so it is a reading): qualified, and the "(here …)" that would state the gain cannot go on
    the doctest's output line."""
    proposal = rounds["first"]["formula"]["research"]["proposal"]
    reasons = {n["claim"]: n["reason"] for n in proposal["not_proposed"]}
    assert "M3" in reasons and "code block" in reasons["M3"], proposal
    assert not any(h["claim"] == "M3" for h in proposal["hunks"])


def test_the_rerun_is_clean(rounds):
    for name in ("stats", "formula"):
        claims = rounds["second"][name]["claims"]
        assert not [c["id"] for c in claims if c["verdict"] in ("stale", "error")], name
        assert not [c["id"] for c in claims if c.get("anchor_state") == "edited"], name
        assert not rounds["second"][name]["research"]["proposal"]["hunks"], name
    formula = {c["id"]: c["verdict"] for c in rounds["second"]["formula"]["claims"]}
    assert formula["M1"] == formula["M2"] == "supported"


def test_what_to_change_the_checklist_and_the_patch_carry_the_same_text(rounds):
    for name in ("stats", "formula"):
        report = rounds["first"][name]
        responses = {c["id"]: c["response"] for c in report["claims"]}
        checklist = report["research"]["checklist"]
        for h in report["research"]["proposal"]["hunks"]:
            for cid in h["claims"] or [h["claim"]]:
                assert responses[cid].startswith(h["response"]), (cid, responses[cid], h["response"])
                assert h["response"].split(" (checked")[0] in rounds["markdown"][name]
            accepted = [i for i in checklist if i["recommendation"] == "accept" and i["claims"] == (h["claims"] or
                                                                                                  [h["claim"]])]
            assert accepted and h["text"] in accepted[0]["subject"]
            assert h["new"].split("\n")[0] in rounds["patches"][name]


@pytest.mark.parametrize("text, inside, at", [
    ("Text.\n\n```python\n>>> f(1)\n0.5\n```\n", "code block", 24),     # the output line of a fenced doctest
    ("Its AP is\n$$\nAP = 1/2.\n$$\n", "display formula in a paragraph", 22),
    ("| m | v |\n|---|---|\n| AP | 0.5 |\n", "table", 31),
])
def test_closed_spans_name_where_no_words_go(text, inside, at):
    assert inside in [c.kind for c in closed_spans(text) if c.holds(at)]


def test_a_doctest_in_plain_text_is_closed():
    text = "The call\n>>> precision_at_k(run, qrels, 4)\n0.25\n\nThen prose.\n"
    spans = closed_spans(text, markdown=False)
    assert [text[c.start:c.end] for c in spans] == [">>> precision_at_k(run, qrels, 4)\n0.25"]


def test_a_change_that_splits_a_formula_or_opens_emphasis_is_a_structure_change():
    before = "Para one.\n\n$$\nx = 1\n$$\n\nNext.\n"
    assert changed_structure(before, "Para one.\n\n$$\nx = 1\n$$ Words.\n\nNext.\n", (2, 4), 0)
    assert changed_structure(before, "Para one. Words.\n\n$$\nx = 1\n$$\n\nNext.\n", (0, 0), 0) == ""
    assert changed_structure("All p-values are **above 0.70**.\n", "All p-values are **> > 0.27.\n", (0, 0), 0)


LISTING = """\
The gain of each rank, discounted:

```python
import math

def dcg(grades, k):
    return sum(g / math.log2(i + 1) for i, g in enumerate(grades[:k]))
```
"""


def test_a_corrected_listing_that_would_nest_a_second_definition_is_withdrawn():
    """A rewrite placed over the body alone leaves `def dcg` inside `def dcg`: not offered; placed over the whole
    function, it is (one definition before, one after)."""
    from audit.research.listing_plan import one_definition as _one_definition
    from audit.research.outcomes import Withdrawn as _Withdrawn
    new = "def dcg(grades, k):\n    return sum(g / math.log2(i + 2) for i, g in enumerate(grades[:k]))"
    body = LISTING.index("    return")
    body_end = LISTING.index("\n```", body)
    with pytest.raises(_Withdrawn, match="inside another function"):
        _one_definition(LISTING, [(body, body_end, "    " + new.replace("\n", "\n    "))], "def dcg(grades, k):",
                        "def dcg(grades, k):", "dcg")
    whole = LISTING.index("def dcg")
    _one_definition(LISTING, [(whole, body_end, new)], "def dcg(grades, k):", "def dcg(grades, k):", "dcg")
