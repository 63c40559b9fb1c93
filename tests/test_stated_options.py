"""Conditions a sentence states for itself, reference options a sentence names, and ERR's top grade as a number.

Right values, by hand (exact fractions) and from the libraries called directly in the tests below:

* ``condensed``: qrels d1 1, d3 0, d4 1, d5 0; the run d1, d2, d3, d4, d5 (d2 unjudged). P@3 counting d2 as
  non-relevant: 1/3 (pytrec_eval ``P_3``); on the condensed list d1, d3, d4: 2/3 (pytrec_eval with
  ``judged_docs_only_flag=True``, trec_eval's -J; ir-measures ``P(judged_only=True)@3``).
* ``topic7``: nine judged documents (a, c, e, g, h, i relevant; b, d, f not) and three unjudged (u1–u3) in the run
  a, u1, b, u2, c, u3, d, e, f, g, h, i. trec_eval's P_10 is 4/10 (a, c, e, g in the first ten); with -J the
  condensed list a, b, c, d, e, f, g, h, i holds six relevant documents in its first ten: 6/10. With -M 3 only
  a, u1, b are evaluated: 1/10.
* AP@k's denominator: on [relevant, non-relevant, relevant] with both relevant documents retrieved, dividing by the
  relevant retrieved gives AP@2 = 1/1 = 1 and AP@3 = (1 + 2/3)/2 = 5/6, a decrease; dividing by |R| only ever adds
  non-negative terms over a fixed denominator, so it never decreases.
* ERR on a 0–3 scale, grades 2, 0, 1, 2, 1 at ranks 1–5: R(g) = (2^g − 1)/2^3 gives ERR@5 = 5663/12288 ≈ 0.4609;
  the query's top judged grade (2) as g_max gives 97/120 ≈ 0.8083; gdeval.pl's 2^4 (ir-measures' ERR) 48733/196608
  ≈ 0.2479.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.errors import RegisterError
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.measures.conventions import check_value
from audit.register.options import reference_call
from audit.run.audit import audit_chapter
from audit.run.provenance import collect


def _audit(folder, snapshot: str, chapter: str, claims: str, name: str = "snapshot.txt"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(snapshot, encoding="utf-8")
    (folder / "chapter.yaml").write_text(chapter + ("" if name == "snapshot.txt" else f"snapshot:\n  file: {name}\n"),
                                         encoding="utf-8")
    (folder / "claims.yaml").write_text(claims, encoding="utf-8")
    return {c.id: c for c in audit_chapter(load_chapter(folder), all_references(), collect("test")).claims}


def _pytrec(qrels, ranking, measure, **flags):
    import pytrec_eval

    run = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in ranking.items()}
    return {q: v[measure] for q, v in pytrec_eval.RelevanceEvaluator(qrels, {measure}, **flags).evaluate(run).items()}


# --- a condition stated in the claim's own sentence ----------------------------------------------------------------

AP_SENTENCE = "Average precision at k never decreases as k grows when its denominator is the full relevant set."
AP_BARE = "Average precision at k never decreases as k grows."


def test_a_sentences_own_denominator_binds_its_property_claim(tmp_path):
    """The sentence names AP's denominator (the full relevant set): the relevant-retrieved and min(k, |R|) readings
    it rules out are not tried, so the search under |R| decides: supported. The lecture compares its AP with
    scikit-learn's average_precision_score, which divides by the relevant documents retrieved, so that reading is one
    of the text's: the same statement without the condition is qualified by it, with the counterexample
    [rel, non-rel, rel] (1 → 5/6)."""
    universe = "universe: {max_length: 4, documents: 5, grades: [0, 1], max_k: 4}"
    claims = f"""\
claims:
  - {{id: A1, title: condition stated, kind: property, quote: "{AP_SENTENCE}", claim: AP@k never decreases in k,
     measure: AP, relation: never decreases, compare: next_cutoff, {universe}}}
  - {{id: A2, title: condition open, kind: property, quote: "{AP_BARE}", claim: AP@k never decreases in k,
     measure: AP, relation: never decreases, compare: next_cutoff, {universe}}}
"""
    lecture = ("In this lecture AP@k sums the precision at each relevant rank up to k; scikit-learn's "
               "average_precision_score gives other numbers.\n"
               f"{AP_SENTENCE}\nStated loosely: {AP_BARE}\n")
    got = _audit(tmp_path, lecture, "id: ap-own\ntitle: AP's own condition\n", claims)
    assert got["A1"].verdict == "supported", got["A1"].reason
    assert "relevant documents retrieved" not in got["A1"].reason
    assert got["A2"].verdict == "qualified", got["A2"].reason
    assert "ranking [relevant, non-relevant, relevant], k = 2: AP gives 1 against 5/6" in got["A2"].reason


CONDENSED_LECTURE = """\
| rank | doc | judged |
|------|-----|--------|
| 1 | d1 | relevant |
| 2 | d2 | not judged |
| 3 | d3 | non-relevant |
| 4 | d4 | relevant |
| 5 | d5 | non-relevant |

On the condensed list, which drops the unjudged d2, P@3 = 2/3.
Counted as it stands, P@3 = 2/3.
"""
CONDENSED_CLAIMS = """\
fixtures:
  table:
    qrels: {q1: {d1: 1, d3: 0, d4: 1, d5: 0}}
    run: {q1: [d1, d2, d3, d4, d5]}
claims:
  - {id: C1, title: condensed, kind: value, quote: "On the condensed list, which drops the unjudged d2, P@3 = 2/3.",
     claim: P@3 on the condensed list, fixture: table, expect: [{measure: P@3, claimed: "2/3"}]}
  - {id: C2, title: as it stands, kind: value, quote: "Counted as it stands, P@3 = 2/3.", claim: P@3 of the table,
     fixture: table, expect: [{measure: P@3, claimed: "2/3"}]}
"""


def test_a_value_on_the_condensed_list_is_supported_by_the_option_that_computes_it(tmp_path):
    """The sentence states its condition (the condensed list); trec_eval -J and ir-measures' judged_only compute
    exactly that and give 2/3: supported, with those options shown. The references' defaults (1/3) are a note. The
    same 2/3 without the condition is wrong on the table as it stands (1/3) under the references' reading and right
    only on the condensed list the text does not name: not supported."""
    qrels = {"q1": {"d1": 1, "d3": 0, "d4": 1, "d5": 0}}
    run = {"q1": ["d1", "d2", "d3", "d4", "d5"]}
    assert _pytrec(qrels, run, "P_3") == {"q1": pytest.approx(1 / 3)}
    assert _pytrec(qrels, run, "P_3", judged_docs_only_flag=True) == {"q1": pytest.approx(2 / 3)}
    got = _audit(tmp_path, CONDENSED_LECTURE, "id: condensed\ntitle: Condensed lists\n", CONDENSED_CLAIMS)
    c1, c2 = got["C1"], got["C2"]
    assert c1.verdict == "supported", c1.reason
    assert "trec_eval via pytrec_eval with -J gives 0.6667, as the sentence says" in c1.reason
    assert "ir-measures with judged_only=True (trec_eval's -J) gives 0.6667" in c1.reason
    assert "each give 0.3333" in c1.reason and c1.response == "Keep as written."
    assert c2.verdict != "supported", c2.reason


# --- a reference option the sentence names --------------------------------------------------------------------------

TOPIC7 = {"7": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 1, "f": 0, "g": 1, "h": 1, "i": 1}}
RUN7 = {"7": ["a", "u1", "b", "u2", "c", "u3", "d", "e", "f", "g", "h", "i"]}
BLOG = """\
Three of the twelve documents our run returned for topic 7 were never judged.
Plain trec_eval reports P_10 = 0.4 for it, while trec_eval -J reports P_10 = 0.6 for this run.
A colleague's notes say trec_eval -J reports P_10 = 0.4 here.
Run with trec_eval -M 3, which evaluates only the first three documents, P_10 drops to 0.1.
In ir-measures, P(judged_only=True)@10 gives 0.6 as well.
"""
BLOG_CLAIMS = """\
fixtures:
  t7:
    qrels: {"7": {a: 1, b: 0, c: 1, d: 0, e: 1, f: 0, g: 1, h: 1, i: 1}}
    run: {"7": [a, u1, b, u2, c, u3, d, e, f, g, h, i]}
claims:
  - {id: B1, title: plain, kind: value, quote: "Plain trec_eval reports P_10 = 0.4 for it", claim: P_10 by default,
     fixture: t7, expect: [{measure: P@10, claimed: "0.4", by: trec_eval}]}
  - {id: B2, title: with -J, kind: value, quote: "trec_eval -J reports P_10 = 0.6 for this run", claim: P_10 with -J,
     fixture: t7, expect: [{measure: P@10, claimed: "0.6", by: trec_eval -J}]}
  - {id: B3, title: with -J wrong, kind: value, quote: "trec_eval -J reports P_10 = 0.4 here", claim: P_10 with -J,
     fixture: t7, expect: [{measure: P@10, claimed: "0.4", by: trec_eval -J}]}
  - {id: B4, title: with -M, kind: value, quote: "Run with trec_eval -M 3, which evaluates only the first three documents, P_10 drops to 0.1.",
     claim: P_10 with -M 3, fixture: t7, expect: [{measure: P@10, claimed: "0.1", by: trec_eval -M 3}]}
  - {id: B5, title: judged_only, kind: value, quote: "P(judged_only=True)@10 gives 0.6 as well", claim: judged_only,
     fixture: t7, expect: [{measure: P@10, claimed: "0.6", by: ir_measures judged_only}]}
"""


def test_a_sentence_naming_trec_eval_J_is_checked_with_J(tmp_path):
    """"trec_eval -J reports P_10 = 0.6" is checked by running trec_eval with -J (0.6), not plain trec_eval (0.4);
    the wrong "-J reports 0.4" is contradicted with the fix to -J's 0.6, never plain trec_eval's 0.4. -M 3 cuts the
    run to its first three documents in trec_eval's order (0.1); ir-measures' judged_only gives -J's 0.6."""
    import ir_measures

    assert _pytrec(TOPIC7, RUN7, "P_10") == {"7": pytest.approx(0.4)}
    assert _pytrec(TOPIC7, RUN7, "P_10", judged_docs_only_flag=True) == {"7": pytest.approx(0.6)}
    assert _pytrec(TOPIC7, {"7": RUN7["7"][:3]}, "P_10") == {"7": pytest.approx(0.1)}
    scored = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in RUN7.items()}
    assert ir_measures.calc_aggregate([ir_measures.P(judged_only=True) @ 10], TOPIC7, scored) == {
        ir_measures.P(judged_only=True) @ 10: pytest.approx(0.6)}
    got = _audit(tmp_path, BLOG, "id: jflag\ntitle: trec_eval's flags\n", BLOG_CLAIMS)
    assert got["B1"].verdict == "supported", got["B1"].reason
    assert got["B2"].verdict == "supported", got["B2"].reason
    assert "trec_eval -J (with -J) gives 0.6000, as the sentence says" in got["B2"].reason
    assert got["B3"].verdict == "contradicted", got["B3"].reason
    assert "gives 0.6000, not the printed 0.4" in got["B3"].reason
    assert got["B3"].response.startswith("Change “0.4” to “0.6”"), got["B3"].response
    assert got["B4"].verdict == "supported", got["B4"].reason
    assert got["B5"].verdict == "supported", got["B5"].reason


def test_reference_options_are_parsed_and_unknown_ones_name_the_field(tmp_path):
    call = reference_call("trec_eval -J -l 2 -M 10")
    assert (call.name, call.params, call.max_docs) == ("pytrec_eval", {"judged_only": True, "rel": 2}, 10)
    assert call.conventions() == {"unjudged": "removed", "relevance_level": "2"}
    assert reference_call("ir-measures judged_only=True").params == {"judged_only": True}
    assert reference_call("trec_eval").optioned is False and reference_call("ml_metrics") is None
    for by, said in (("trec_eval -X", "'-X' is not an option trec_eval can be run with"),
                     ("ranx -J", "'-J' is not an option ranx can be run with"),
                     ("ml_metrics -J", "options are run only for a reference of this audit")):
        folder = tmp_path / by.replace(" ", "_")
        folder.mkdir()
        (folder / "snapshot.txt").write_text("It reports P_10 = 0.6.\n", encoding="utf-8")
        (folder / "chapter.yaml").write_text("id: bad\ntitle: Bad\n", encoding="utf-8")
        (folder / "claims.yaml").write_text(f"""\
claims:
  - {{id: X1, title: bad option, kind: value, quote: "It reports P_10 = 0.6.", claim: P_10,
     fixture: {{qrels: {{q1: {{a: 1}}}}, run: {{q1: [a]}}}}, expect: [{{measure: P@10, claimed: "0.6", by: {by}}}]}}
""", encoding="utf-8")
        with pytest.raises(RegisterError) as err:
            load_chapter(folder)
        assert err.value.claim == "X1" and "by" in str(err.value.field) and said in str(err.value), str(err.value)


# --- ERR's top grade as a number: the judging scale's ----------------------------------------------------------------

def _err(grades, g_max):
    total, going = Fraction(0), Fraction(1)
    for rank, g in enumerate(grades, start=1):
        stop = Fraction(2 ** g - 1, 2 ** g_max)
        total += going * stop / rank
        going *= 1 - stop
    return total


ERR_NOTEBOOK_MD = """\
# Expected reciprocal rank

Assessors graded every document on a 0–3 scale. ERR's stopping probability for grade g is (2^g − 1)/2^3, so a
grade-3 document stops seven users in eight.

```python
def err_at_k(grades, k, g_max=3):
    total, keep_going = 0.0, 1.0
    for rank, g in enumerate(grades[:k], start=1):
        stop = (2 ** g - 1) / 2 ** g_max
        total += keep_going * stop / rank
        keep_going *= 1 - stop
    return total
```

```python
def err_per_query(grades, k):
    top = max(grades)
    total, keep_going = 0.0, 1.0
    for rank, g in enumerate(grades[:k], start=1):
        stop = (2 ** g - 1) / 2 ** top
        total += keep_going * stop / rank
        keep_going *= 1 - stop
    return total
```

| rank | doc | grade |
|------|-----|-------|
| 1 | a | 2 |
| 2 | b | 0 |
| 3 | c | 1 |
| 4 | d | 2 |
| 5 | e | 1 |

For this ranking ERR@5 = 0.461.

A draft of this page said ERR@5 = 0.808 here.
"""
ERR_CLAIMS = """\
fixtures:
  table:
    qrels: {q1: {a: 2, b: 0, c: 1, d: 2, e: 1}}
    run: {q1: [a, b, c, d, e]}
claims:
  - {id: E1, title: ERR@5, kind: value, quote: "For this ranking ERR@5 = 0.461.", claim: ERR@5 of the table,
     fixture: table, expect: [{measure: ERR@5, claimed: "0.461"}]}
  - {id: E2, title: ERR@5 per query, kind: value, quote: "A draft of this page said ERR@5 = 0.808 here.",
     claim: ERR@5 of the table, fixture: table, expect: [{measure: ERR@5, claimed: "0.808"}]}
  - {id: E3, title: err_at_k, kind: code, quote: "def err_at_k(grades, k, g_max=3):", claim: ERR@k from ranked grades,
     function: err_at_k, measure: ERR@k, arguments: {grades: ranked grades, k: cutoff, g_max: constant}}
  - {id: E4, title: err_per_query, kind: code, quote: "def err_per_query(grades, k):", claim: ERR@k from ranked grades,
     function: err_per_query, measure: ERR@k, arguments: {grades: ranked grades, k: cutoff}}
"""


def test_errs_top_grade_from_the_stated_scale_decides_values_and_listings(tmp_path):
    """The chapter fixes g_max = 3 from its judging scale (a number, not the query's top judged grade 2, not gdeval's
    4). ERR@5 = 0.461 is right under it (5663/12288): never contradicted; ir-measures' ERR (gdeval.pl, 2^4) gives
    0.2479, a stated convention that reference does not share, so it is named. The per-query reading's 0.808
    (97/120), which the text rules out, is contradicted with the fix to 0.461. The listing dividing by 2^3 is
    supported; the one dividing by the query's own top grade is contradicted."""
    import ir_measures

    grades = [2, 0, 1, 2, 1]
    assert _err(grades, 3) == Fraction(5663, 12288) and _err(grades, 2) == Fraction(97, 120)
    qrels = {"1": {"a": 2, "b": 0, "c": 1, "d": 2, "e": 1}}
    run = {"1": {d: float(5 - i) for i, d in enumerate("abcde")}}
    gdeval = ir_measures.calc_aggregate([ir_measures.ERR @ 5], qrels, run)[ir_measures.ERR @ 5]
    assert gdeval == pytest.approx(float(_err(grades, 4)), abs=1e-5)
    chapter = ('id: err-scale\ntitle: ERR on a 0–3 scale\nconventions:\n  err_max_grade: {value: "3", quote: '
               '"ERR\'s stopping probability for grade g is (2^g − 1)/2^3"}\n')
    got = _audit(tmp_path, ERR_NOTEBOOK_MD, chapter, ERR_CLAIMS, name="snapshot.md")
    e1, e2, e3, e4 = got["E1"], got["E2"], got["E3"], got["E4"]
    assert e1.verdict == "qualified", e1.reason
    assert "Holds by the chapter's definition" in e1.reason and "ir-measures (gdeval) gives 0.2479" in e1.reason
    assert "0.461" not in e1.response and "0.808" not in e1.response
    assert e2.verdict == "contradicted", e2.reason
    # the value the chapter's definitions give under its stated top grade: the patch writes it (re-run qualified, as
    # ir-measures' gdeval divides by 2^4 whatever the stated scale), the sentence's own form kept
    assert e2.response.startswith("Change “0.808” to “0.461” (checked: the claim re-run on the corrected sentence is "
                                  "qualified; the new value holds under every reading the chapter allows)"), e2.response
    assert e3.verdict == "supported", e3.reason
    assert e4.verdict == "contradicted", e4.reason


def test_errs_top_grade_may_be_stated_as_a_number():
    assert check_value("err_max_grade", "3") is None and check_value("err_max_grade", 3) is None
    assert "a whole number from 1 to 20" in check_value("err_max_grade", "0")
    assert check_value("relevance_level", "7") is not None


# --- an option a sentence names is that sentence's, never the chapter's ----------------------------------------------

OPTION_LECTURE = """# Reading trec_eval's output

Topic 12 has three judged documents: D2 (grade 1), D5 (grade 2) and D7 (grade 1). The run returns D1, D2, D3, D4, D5.

- recip_rank is 1/2: the first relevant document is at rank 2.
- P_5 is 2/5, since D2 and D5 are in the first five.

## Graded judgements and `-l`

Without `-l`, any grade of 1 or more counts. `trec_eval -l 2` counts only grade ≥ 2 as relevant: then recip_rank
for topic 12 is 1/5, since D5 is the first document graded 2.
"""


def test_an_option_sentence_is_not_the_chapters_relevance_level(tmp_path):
    """A sentence describing trec_eval's -l option states what that option computes, not the chapter's rule: init
    declares no chapter-wide or section-wide relevance level from it, so the values under trec_eval's default
    (any grade ≥ 1 relevant) stay supported. By hand and by pytrec_eval: recip_rank = 1/2 (D2 at rank 2) and
    P_5 = 2/5 by default; with relevance_level=2, recip_rank = 1/5 (D5 at rank 5)."""
    from audit.draft.init import create_chapter
    from audit.text.stated import declare

    qrels = {"12": {"D2": 1, "D5": 2, "D7": 1}}
    ranking = {"12": ["D1", "D2", "D3", "D4", "D5"]}
    assert _pytrec(qrels, ranking, "recip_rank") == {"12": 0.5}
    assert _pytrec(qrels, ranking, "P_5") == {"12": 0.4}
    assert _pytrec(qrels, ranking, "recip_rank", relevance_level=2) == {"12": 0.2}

    option = "`trec_eval -l 2` counts only grade ≥ 2 as relevant"
    assert declare([option]) == {"relevance_level": [{"value": "2", "quote": "`trec_eval -l 2` counts only grade ≥ 2 "
                                                                             "as relevant"}]}
    assert declare([option], options=False) == {}

    source = tmp_path / "lecture.md"
    source.write_text(OPTION_LECTURE, encoding="utf-8")
    folder, _ = create_chapter(source, "lecture", tmp_path / "claims")
    chapter = load_chapter(folder)
    assert "relevance_level" not in (chapter.identity.conventions or {})
    report = audit_chapter(chapter, all_references(), collect("test"))
    verdicts = {c.quote: c.verdict for c in report.claims if c.kind == "value"}
    assert verdicts.get("- recip_rank is 1/2: the first relevant document is at rank 2.") == "supported", verdicts
