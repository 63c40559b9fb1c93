"""Verdicts on chapters written in other conventions than chapter 23's, audited with the real references.

Two chapters not shipped with the project:

* **"returned"** states P@k over the number of results returned, exponential gain, ties ordered
  by docno descending and repeated IDs de-duplicated (first occurrence kept);
* **"silent"** states nothing: every convention its claims depend on is unstated, and it cites no source, so each
  unstated convention is read only as the references compute it by default (linear gain, P@k over k);
* **"cited"** is "silent" with a sentence citing Manning, Raghavan & Schütze's Introduction to Information Retrieval
  (P@k over the number returned) and Burges et al. 2005 (exponential gain 2^g − 1): those values become readings too.

Right values are hand computations (written next to each assertion):
nDCG@3 for grades 3, 2, 0 against the ideal 3, 2, 1 with discount log2(rank + 1):
  linear gain:      DCG = 3 + 2/log2 3 = 4.26186;  ideal = 3 + 2/log2 3 + 1/2 = 4.76186 → 0.89500
  exponential gain: DCG = 7 + 3/log2 3 = 8.89279;  ideal = 7 + 3/log2 3 + 1/2 = 9.39279 → 0.94677
"""

from __future__ import annotations

import textwrap

import pytest

from audit.errors import AuditError
from audit.evaluation.references import all_references
from audit.register.claims import load_chapter
from audit.run.audit import audit_chapter
from audit.run.provenance import collect

RETURNED_SNAPSHOT = """\
Precision here divides the relevant results by the number of results the system returned, not by k.
Gain is exponential: a document of grade g contributes 2^g - 1.
Ties in score are broken by document ID, in descending order.
A repeated ID is counted once, at its first position.
Unjudged documents count as not relevant, and the ideal DCG sorts every judged grade, cut at k.
A system that returns only a and b, with a relevant, has P@5 = 1/2.
Grades 3, 2, 0 against an ideal 3, 2, 1 score nDCG@3 ≈ 0.95.
When d1 and d2 share a score and only d2 is relevant, d2 comes first, so RR = 1.
The evaluator keeps the first copy of a repeated ID.
Under the listed order, d1 listed first with the same score as the relevant d2 gives RR = 1/2.
Promotion recall is 2/3 ≈ .6767.
"""

RETURNED_CHAPTER = """\
id: returned
book: Another Book
chapter: 4
title: Precision over what was returned
conventions:
  precision_denominator:
    value: number returned
    quote: "Precision here divides the relevant results by the number of results the system returned, not by k."
  gain: {value: exponential, quote: "Gain is exponential"}
  ties: {value: docno descending, quote: "Ties in score are broken by document ID, in descending order."}
  repeated_ids: {value: keep first, quote: "A repeated ID is counted once, at its first position."}
  unjudged: {value: non-relevant, quote: "Unjudged documents count as not relevant"}
  ideal: {value: "judged, cut at k", quote: "the ideal DCG sorts every judged grade, cut at k"}
"""

CLAIMS = """\
fixtures:
  two-returned:
    qrels: {q1: {a: 1}}
    run: {q1: [a, b]}
  graded:
    qrels: {q1: {a: 3, b: 2, c: 0, d: 1}}
    run: {q1: [a, b, c]}
  tied:
    qrels: {q1: {d2: 1}}
    run: {q1: [d2, d1]}
    scores: {q1: {d1: 1.0, d2: 1.0}}
  repeats:
    qrels: {q1: {a: 1}}
    run: {q1: [n, a, n]}
  tied-listed:
    qrels: {q1: {d1: 0, d2: 1}}
    run: {q1: [d1, d2]}
    scores: {q1: {d1: 1.0, d2: 1.0}}
claims:
  - id: R6
    title: a tie kept in listed order, by the claim's own statement
    kind: value
    quote: "Under the listed order, d1 listed first with the same score as the relevant d2 gives RR = 1/2."
    claim: Kept in listed order, the relevant d2 is second, so RR = 1/2.
    conventions: {ties: listed order}
    fixture: tied-listed
    expect: [{measure: "RR", claimed: "1/2"}]
  - id: R1
    title: P@5 over the number returned
    kind: value
    quote: "A system that returns only a and b, with a relevant, has P@5 = 1/2."
    claim: One relevant of two returned gives P@5 = 1/2 when precision divides by the number returned.
    fixture: two-returned
    expect: [{measure: "P@5", claimed: "1/2"}]
  - id: R2
    title: graded nDCG with exponential gain
    kind: value
    quote: "Grades 3, 2, 0 against an ideal 3, 2, 1 score nDCG@3 ≈ 0.95."
    claim: nDCG@3 ≈ 0.95 for grades 3, 2, 0 against the ideal 3, 2, 1.
    fixture: graded
    expect: [{measure: "nDCG@3", claimed: "≈ 0.95"}]
  - id: R3
    title: a tie broken by docno descending
    kind: value
    quote: "When d1 and d2 share a score and only d2 is relevant, d2 comes first, so RR = 1."
    claim: With ties ordered by docno descending, d2 precedes d1 and RR = 1.
    fixture: tied
    expect: [{measure: "RR", claimed: "1"}]
  - id: R4
    title: repeated IDs keep the first copy
    kind: convention
    quote: "The evaluator keeps the first copy of a repeated ID."
    claim: A ranking n, n, a is scored as n, a.
    convention: repeated_ids
    rule: keep first
    probe: repeats
    measures: ["P@3", "RR"]
  - id: R5
    title: a transposed decimal
    kind: arithmetic
    quote: "Promotion recall is 2/3 ≈ .6767."
    claim: 2/3 is about .6767.
    expression: "2/3"
    claimed: "≈ .6767"
"""

SILENT_SNAPSHOT = """\
Grades 3, 2, 0 against an ideal 3, 2, 1 score nDCG@3 ≈ 0.95.
Grades 3, 2, 0 against an ideal 3, 2, 1 score nDCG@3 ≈ 0.895.
A system that returns only a and b, with a relevant, has P@5 = 1/5.
Averaged over two needs, one answered at rank 1 and one with nothing relevant judged, AP is 0.5.
"""

SILENT_CHAPTER = """\
id: silent
title: A chapter that states no convention
"""

SILENT_CLAIMS = """\
fixtures:
  graded:
    qrels: {q1: {a: 3, b: 2, c: 0, d: 1}}
    run: {q1: [a, b, c]}
  two-returned:
    qrels: {q1: {a: 1}}
    run: {q1: [a, b]}
  empty-entry:
    qrels: {q1: {a: 1}, q2: {}}
    run: {q1: [a], q2: [b]}
claims:
  - id: S1
    title: exponential holds, linear fails
    kind: value
    quote: "Grades 3, 2, 0 against an ideal 3, 2, 1 score nDCG@3 ≈ 0.95."
    claim: nDCG@3 ≈ 0.95.
    fixture: graded
    expect: [{measure: "nDCG@3", claimed: "≈ 0.95"}]
  - id: S2
    title: linear holds, exponential fails
    kind: value
    quote: "Grades 3, 2, 0 against an ideal 3, 2, 1 score nDCG@3 ≈ 0.895."
    claim: nDCG@3 ≈ 0.895.
    fixture: graded
    expect: [{measure: "nDCG@3", claimed: "≈ 0.895"}]
  - id: S3
    title: P@5 over k, unstated
    kind: value
    quote: "A system that returns only a and b, with a relevant, has P@5 = 1/5."
    claim: P@5 = 1/5.
    fixture: two-returned
    expect: [{measure: "P@5", claimed: "1/5"}]
  - id: S4
    title: a query with an empty qrels entry
    kind: value
    quote: "Averaged over two needs, one answered at rank 1 and one with nothing relevant judged, AP is 0.5."
    claim: Mean AP over q1 (AP 1) and q2 (no relevant document) is 0.5.
    fixture: empty-entry
    expect: [{measure: "AP", claimed: "0.5"}]
"""


CITED_CHAPTER = """\
id: cited
title: A chapter that states no convention and cites its sources
"""

CITED_SNAPSHOT = SILENT_SNAPSHOT + (
    "Precision follows Manning, Raghavan and Schütze's Introduction to Information Retrieval; Burges et al. (2005)\n"
    "tuned RankNet on nDCG.\n")

CITED_CLAIMS = SILENT_CLAIMS[:SILENT_CLAIMS.index("  - id: S4")]


def _write(tmp, name, chapter, snapshot, claims):
    folder = tmp / name
    folder.mkdir()
    (folder / "chapter.yaml").write_text(chapter, encoding="utf-8")
    (folder / "snapshot.txt").write_text(snapshot, encoding="utf-8")
    (folder / "claims.yaml").write_text(textwrap.dedent(claims), encoding="utf-8")
    return load_chapter(folder)


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("chapters")
    out = {}
    for name, chapter, snapshot, claims in (("returned", RETURNED_CHAPTER, RETURNED_SNAPSHOT, CLAIMS),
                                            ("silent", SILENT_CHAPTER, SILENT_SNAPSHOT, SILENT_CLAIMS),
                                            ("cited", CITED_CHAPTER, CITED_SNAPSHOT, CITED_CLAIMS)):
        report = audit_chapter(_write(tmp, name, chapter, snapshot, claims), all_references(), collect("test"))
        out[name] = {c.id: c for c in report.claims}
    return out


def _chapter_values(result):
    return [v for check in result.checks for v in check.values if v.implementation == "chapter"]


def test_stated_denominator_is_the_chapters_and_trec_eval_is_the_condition(reports):
    r1 = reports["returned"]["R1"]
    # by the chapter's stated rule, 1 relevant / 2 returned = 1/2; trec_eval's P_5 divides by 5 → 0.2
    assert [v.exact for v in _chapter_values(r1)] == ["1/2"]
    assert r1.verdict == "qualified"
    assert "P@k denominator “k” instead of “number returned” give exactly" in r1.reason
    assert "chapter's own definition" not in r1.concern
    assert "0.2000" in r1.reason


def test_stated_exponential_gain_holds_and_linear_references_are_named(reports):
    r2 = reports["returned"]["R2"]
    assert [round(v.value, 4) for v in _chapter_values(r2)] == [0.9468]  # exponential, stated
    assert r2.verdict == "qualified"
    assert "nDCG gain “linear” instead of “exponential”" in r2.reason     # the references' gain, by experiment
    assert "0.8950" in r2.reason


def test_stated_docno_descending_tie_rule(reports):
    r3 = reports["returned"]["R3"]
    # docno descending puts d2 (relevant) before d1: RR = 1; trec_eval orders ties the same way
    assert [v.exact for v in _chapter_values(r3)] == ["1"]
    values = {v.implementation: v for check in r3.checks for v in check.values}
    assert values["pytrec_eval"].value == 1.0
    if values["ranx"].value != 1.0:  # ranx keeps insertion order on short rankings: d2 listed first here
        assert "tie" in r3.reason
    assert r3.verdict in ("supported", "qualified")


def test_tie_claim_is_explained_by_the_tie_rule_not_a_cutoff(reports):
    r6 = reports["returned"]["R6"]
    # listed order d1, d2 → RR = 1/2; trec_eval orders the tie by docno descending (d2, d1) → RR = 1
    values = {v.implementation: v for check in r6.checks for v in check.values}
    assert values["chapter"].exact == "1/2" and values["pytrec_eval"].value == 1.0
    # the sentence names its condition ("Under the listed order") and ranx, which keeps the listed order, confirms
    # 1/2: trec_eval's 1 is stated beside it, not a qualification
    assert values["ranx"].value == 0.5
    assert r6.verdict == "supported", r6.reason
    assert "pytrec_eval" in r6.reason and "; the sentence states its own condition, under which the value holds: " in r6.reason
    assert "cutoff" not in r6.reason and "cutoff" not in r6.response


def test_stated_de_duplication_is_the_chapters_rule(reports):
    r4 = reports["returned"]["R4"]
    chapter_row = next(v for v in r4.checks[0].values if v.implementation == "chapter")
    # n, a, n → n, a: P@3 = 1/2 over the two returned (count each: 1/3), RR = 1/2 (keep last: a, n → 1). Each
    # measure alone leaves two rules; together only keep first gives both.
    assert "keep first" in chapter_row.behaviour
    assert r4.verdict == "qualified"              # trec_eval rejects; ir-measures and ranx keep the last copy
    assert "rejects" not in chapter_row.behaviour


def test_arithmetic_slip_is_contradicted(reports):
    assert reports["returned"]["R5"].verdict == "contradicted"  # 2/3 = 0.66667, outside [.67665, .67675]


def test_unstated_gain_is_qualified_whichever_way_round(reports):
    """In "cited" both gains are readings (linear: the references' default; exponential: Burges et al., cited):
    S1's ≈ 0.95 holds under exponential gain (0.946768, ranx ndcg_burges@3) and not linear (0.894999, pytrec_eval
    ndcg_cut_3); S2's ≈ 0.895 the other way round. Each is qualified, naming the gain under which it holds."""
    s1, s2 = reports["cited"]["S1"], reports["cited"]["S2"]
    for result, holding, failing in ((s1, "exponential", "0.8950"), (s2, "linear", "0.9468")):
        assert result.verdict == "qualified", result.reason
        assert "does not state the nDCG gain" in result.reason
        assert failing in result.reason
        assert f"nDCG gain {holding}" in result.reason
        # the proposal names the gain under which the printed value holds, and was re-checked
        assert "checked" in result.response
    assert "2^grade − 1" in s1.response
    assert "the grade, linear" in s2.response


def test_unstated_gain_without_a_cited_source_is_linear(reports):
    """In "silent" linear gain is the only reading: S1's ≈ 0.95 is contradicted (0.894999 by the chapter's definition
    and pytrec_eval ndcg_cut_3, outside [0.945, 0.955]) and S2's ≈ 0.895 supported; exponential gain's 0.946768
    rescues neither and qualifies neither."""
    s1, s2 = reports["silent"]["S1"], reports["silent"]["S2"]
    assert s1.verdict == "contradicted", s1.reason
    assert "0.894999" in s1.reason and "0.9468" not in s1.reason
    assert s2.verdict == "supported", s2.reason
    assert "nDCG gain" not in s2.reason


def test_unstated_denominator_qualifies_instead_of_contradicting(reports):
    """P@5 with a returned and relevant, b returned: 1/5 over k (pytrec_eval P_5 0.2), 1/2 over the number returned
    (Manning et al.'s precision, cited in "cited"). Cited: both readings, qualified. Silent: only k, supported."""
    s3 = reports["cited"]["S3"]
    assert s3.verdict == "qualified", s3.reason
    assert "P@k denominator" in s3.reason
    silent = reports["silent"]["S3"]
    assert silent.verdict == "supported", silent.reason
    assert "P@k denominator" not in silent.reason


def test_empty_qrels_entry_is_not_supported(reports):
    s4 = reports["silent"]["S4"]
    values = {v.implementation: v for check in s4.checks for v in check.values}
    # pytrec_eval leaves q2 (empty qrels entry) out of its output: its mean is AP(q1) = 1.0, never a filled 0
    assert values["pytrec_eval"].value == 1.0
    assert values["pytrec_eval"].per_query["q2"] == "left out"
    # ir-measures and ranx score q2 0 themselves: mean 0.5
    assert values["ir_measures"].value == 0.5 and values["ranx"].value == 0.5
    assert s4.verdict == "qualified"
    assert "how a query with an empty qrels entry counts" in s4.reason
    assert "a query whose qrels entry is empty is left out of the mean" in s4.reason  # trec_eval's rule, by experiment


def test_a_measure_the_chapter_does_not_define_is_compared_among_the_references(tmp_path):
    """infAP is not in the chapter evaluator: the chapter column is n/a and the references decide. infAP with
    every document judged is AP (Yilmaz & Aslam 2006): a, b relevant, ranking a, x, b → (1 + 2/3)/2 = 5/6."""
    chapter = _write(tmp_path, "infap", "id: infap\ntitle: infAP\n",
                     "infAP is 5/6 here.\ninfAP is 1/3 here.\n", """\
        fixtures:
          f: {qrels: {q1: {a: 1, b: 1, x: 0}}, run: {q1: [a, x, b]}}
        claims:
          - {id: P1, title: right, kind: value, quote: "infAP is 5/6 here.", claim: infAP = 5/6, fixture: f,
             expect: [{measure: infAP, claimed: "5/6"}]}
          - {id: P2, title: wrong, kind: value, quote: "infAP is 1/3 here.", claim: infAP = 1/3, fixture: f,
             expect: [{measure: infAP, claimed: "1/3"}]}
        """)
    report = audit_chapter(chapter, all_references(), collect("test"))
    by_id = {c.id: c for c in report.claims}
    values = {v.implementation: v for v in by_id["P1"].checks[0].values}
    assert values["chapter"].status == "not applicable"
    assert values["pytrec_eval"].value == pytest.approx(5 / 6)
    assert by_id["P1"].verdict == "supported"
    assert by_id["P2"].verdict == "contradicted"


def test_tie_cause_is_the_rule_the_reference_was_observed_to_follow(tmp_path):
    """Tie p7/p3 at the top, p3 relevant; the chapter orders ties by docno ascending → p3 first → RR = 1.
    trec_eval orders them by docno descending → p7 first → RR = 1/2. On this input "listed order" also gives
    1/2; the cause named must be the rule trec_eval was observed to follow on the ledger's probe (docno
    descending), and no padding or denominator experiment belongs in an RR reason."""
    chapter = _write(tmp_path, "asc", "id: asc\ntitle: Ties ascending\nconventions:\n"
                     "  ties: {value: docno ascending, quote: \"Ties go to the lower product ID.\"}\n",
                     "Ties go to the lower product ID.\nWith p7 and p3 tied at the top, RR = 1.\n", """\
        fixtures:
          tie: {qrels: {q1: {p3: 1, p7: 0, p9: 0}}, run: {q1: [p7, p3, p9]},
                scores: {q1: {p7: 0.8, p3: 0.8, p9: 0.5}}}
        claims:
          - {id: T1, title: tie, kind: value, quote: "With p7 and p3 tied at the top, RR = 1.", claim: RR@10 = 1,
             fixture: tie, expect: [{measure: "RR@10", claimed: "1"}]}
        """)
    result = audit_chapter(chapter, all_references(), collect("test")).claims[0]
    values = {v.implementation: v for v in result.checks[0].values}
    assert values["chapter"].exact == "1" and values["pytrec_eval"].value == 0.5
    assert result.verdict == "qualified"
    trec = result.reason[result.reason.index("trec_eval via pytrec_eval (trec_eval) gives"):]
    for other in ("ir-measures (", "ranx ("):  # ir-measures' msmarco provider orders ties ascending and agrees
        trec = trec[:trec.index(other)] if other in trec else trec
    assert "tied documents are ordered by docno, descending" in trec
    assert "keep the listed order" not in trec
    assert "padded" not in result.reason and "denominator" not in result.reason


def test_r_precision_is_checked_by_the_chapter_definitions_and_the_references(tmp_path):
    """Rprec with |R| = 2 and ranking a, x, b (a, b relevant, x judged non-relevant): 1 relevant in the first 2 → 1/2 (trec_eval
    ``Rprec``, by hand); every implementation computes it, so 1/3 is contradicted by the chapter's own value."""
    chapter = _write(tmp_path, "rprec", "id: rprec\ntitle: R-precision\n",
                     "R-precision is 1/2 here.\nR-precision is 1/3 here.\n", """\
        fixtures:
          f: {qrels: {q1: {a: 1, b: 1, x: 0}}, run: {q1: [a, x, b]}}
        claims:
          - {id: P1, title: right, kind: value, quote: "R-precision is 1/2 here.", claim: Rprec = 1/2, fixture: f,
             expect: [{measure: Rprec, claimed: "1/2"}]}
          - {id: P2, title: wrong, kind: value, quote: "R-precision is 1/3 here.", claim: Rprec = 1/3, fixture: f,
             expect: [{measure: Rprec, claimed: "1/3"}]}
        """)
    report = audit_chapter(chapter, all_references(), collect("test"))
    by_id = {c.id: c for c in report.claims}
    values = {v.implementation: v for v in by_id["P1"].checks[0].values}
    assert values["chapter"].exact == "1/2"
    assert all(values[r].value == 0.5 for r in ("pytrec_eval", "ir_measures", "ranx"))
    assert by_id["P1"].verdict == "supported"
    assert by_id["P2"].verdict == "contradicted"


def test_a_sentence_about_one_reference_is_decided_by_that_reference(tmp_path):
    """"ranx's rbp.80 gives …" on grades 2 (rank 1) and 1 (rank 3), p = 0.8: ranx weighs each relevant document by
    its grade, 0.2 × (2 + 1 × 0.64) = 0.528 (ranx/metrics/rank_biased_precision.py, by hand); binary RBP is
    0.2 × (1 + 0.64) = 0.328. The sentence printing 0.328 for ranx is contradicted with ranx's value; the one
    printing 0.528 is supported, though the chapter's (binary) definition gives 0.328."""
    chapter = _write(tmp_path, "byranx", "id: byranx\ntitle: ranx's RBP\n",
                     "ranx gives 0.328 here.\nranx gives 0.528 here.\n", """\
        fixtures:
          f: {qrels: {q1: {a: 2, b: 0, c: 1}}, run: {q1: [a, b, c]}}
        claims:
          - {id: B1, title: wrong, kind: value, quote: "ranx gives 0.328 here.", claim: ranx rbp.80 = 0.328,
             fixture: f, expect: [{measure: "RBP(p=0.8)", claimed: "0.328", by: ranx}]}
          - {id: B2, title: right, kind: value, quote: "ranx gives 0.528 here.", claim: ranx rbp.80 = 0.528,
             fixture: f, expect: [{measure: "RBP(p=0.8)", claimed: "0.528", by: ranx}]}
        """)
    report = audit_chapter(chapter, all_references(), collect("test"))
    by_id = {c.id: c for c in report.claims}
    assert by_id["B1"].verdict == "contradicted"
    assert "0.528" in by_id["B1"].reason
    assert by_id["B2"].verdict == "supported"
    values = {v.implementation: v for v in by_id["B2"].checks[0].values}
    assert values["chapter"].exact == "41/125"  # 0.328, binary RBP by the chapter's definition
    assert values["ranx"].value == pytest.approx(0.528)


def test_a_sentence_about_another_library_is_decided_by_its_stated_reading(tmp_path):
    """ml_metrics' apk divides by min(k, |R|): one hit at rank 1 of three relevant documents, k = 2, gives
    1/min(2, 3) = 1/2 (ml_metrics/average_precision.py, by hand); trec_eval's map_cut.2 gives 1/3. Stated as
    ml_metrics' value with its reading, the sentence is supported and the references do not qualify it; the same
    sentence printing 1/3 is contradicted."""
    chapter = _write(tmp_path, "bymlm", "id: bymlm\ntitle: ml_metrics\n",
                     "ml_metrics divides by min(k, |R|) and returns 0.5.\nIt returns 1/3.\n", """\
        fixtures:
          f: {qrels: {q1: {a: 1, b: 1, c: 1, n: 0}}, run: {q1: [a, n]}}
        claims:
          - {id: L1, title: right, kind: value, quote: "ml_metrics divides by min(k, |R|) and returns 0.5.",
             claim: apk = 1/2, fixture: f,
             conventions: {ap_denominator: {value: "min(k, |R|)", quote: "ml_metrics divides by min(k, |R|)"}},
             expect: [{measure: "AP@2", claimed: "0.5", by: ml_metrics}]}
          - {id: L2, title: wrong, kind: value, quote: "It returns 1/3.", claim: apk = 1/3, fixture: f,
             conventions: {ap_denominator: {value: "min(k, |R|)", quote: "ml_metrics divides by min(k, |R|)"}},
             expect: [{measure: "AP@2", claimed: "1/3", by: ml_metrics}]}
        """)
    report = audit_chapter(chapter, all_references(), collect("test"))
    by_id = {c.id: c for c in report.claims}
    assert by_id["L1"].verdict == "supported", by_id["L1"].reason
    assert by_id["L2"].verdict == "contradicted"
    refs = {v.implementation: v for v in by_id["L1"].checks[0].values}
    assert refs["pytrec_eval"].value == pytest.approx(1 / 3)


def test_bounds_by_a_constant_and_cutoffs_at_r(tmp_path):
    """Universal statements against a constant and at each case's |R|, searched like any other:
    - R-precision equals R@|R| on every ranking (both count the relevant documents in the top |R| and divide by
      |R|: Buckley & Voorhees 2000) — supported;
    - binary RBP(p = 0.8) never exceeds 1 ((1 − p)(1 + p + … + p^(n−1)) = 1 − p^n, Moffat & Zobel 2008) — supported;
    - DCG never exceeds 1 is false: one document of grade 2 at rank 1 gives DCG@1 = 2/log2(2) = 2 — contradicted;
    - ERR is always below 1 (its first term is at most (2^4 − 1)/2^4 = 15/16 and the rest fill at most the
      remaining 1/16 times 1/2) — supported."""
    chapter = _write(tmp_path, "bounds", "id: bounds\ntitle: bounds\n",
                     "R-precision always equals the recall at rank |R|.\nRBP never exceeds 1.\nDCG never exceeds 1.\n"
                     "ERR always lies below 1.\n", """\
        claims:
          - {id: P1, title: rprec, kind: property, quote: "R-precision always equals the recall at rank |R|.",
             claim: x, measure: Rprec, relation: equals, compare: measure, other: R, at: "|R|",
             universe: {max_length: 4, documents: 5, grades: [0, 1], max_k: 4}, search: {random_cases: 200}}
          - {id: P2, title: rbp, kind: property, quote: "RBP never exceeds 1.", claim: x,
             measure: "RBP(p=0.8)", relation: never exceeds, compare: constant, bound: "1",
             universe: {max_length: 4, documents: 5, grades: [0, 1], max_k: 4}, search: {random_cases: 200}}
          - {id: P3, title: dcg, kind: property, quote: "DCG never exceeds 1.", claim: x,
             measure: "DCG", relation: never exceeds, compare: constant, bound: "1",
             universe: {max_length: 3, documents: 4, grades: [0, 1, 2], max_k: 3}, search: {random_cases: 200}}
          - {id: P4, title: err, kind: property, quote: "ERR always lies below 1.", claim: x,
             measure: "ERR", relation: always below, compare: constant, bound: "1",
             universe: {max_length: 3, documents: 4, grades: [0, 1, 2, 4], max_k: 3}, search: {random_cases: 200}}
        """)
    report = audit_chapter(chapter, all_references(), collect("test"))
    by_id = {c.id: c for c in report.claims}
    assert [by_id[i].verdict for i in ("P1", "P2", "P3", "P4")] == ["supported", "supported", "contradicted",
                                                                    "supported"]
    assert "DCG@1 = 2" in by_id["P3"].reason and "never exceeds 1" in by_id["P3"].reason


def test_a_bound_must_be_exact_and_present(tmp_path):
    """compare: constant without a bound, or with an interval as bound, is refused when the register loads."""
    for extra, message in (("", "needs `bound`"), (', bound: "≈ 0.95"', "exact number")):
        folder = tmp_path / f"b{len(extra)}"
        folder.mkdir()
        (folder / "chapter.yaml").write_text("id: b\ntitle: b\n", encoding="utf-8")
        (folder / "snapshot.txt").write_text("RBP never exceeds 1.\n", encoding="utf-8")
        (folder / "claims.yaml").write_text(
            "claims:\n  - {id: P1, title: t, kind: property, quote: \"RBP never exceeds 1.\", claim: x, measure: RBP, "
            f"relation: never exceeds, compare: constant{extra}}}\n", encoding="utf-8")
        with pytest.raises(AuditError, match=message):
            load_chapter(folder)


def test_a_claimed_value_the_quote_does_not_print_is_an_error_not_supported(tmp_path):
    """The quote prints AP ≈ 0.491; a register whose claimed value was edited to the right 0.473 (AP of a, n, b
    with |R| = 2: (1 + 2/3)/2 = 5/6 here, so the fixture value is 0.8333 — any value the quote does not print)
    must not come out supported: the register no longer checks what the text says. With `derived` explaining
    the value, it is checked as usual."""
    chapter = _write(tmp_path, "printed", "id: printed\ntitle: printed\n", "Here AP ≈ 0.491 on this ranking.\n", """\
        fixtures:
          f: {qrels: {q1: {a: 1, b: 1, n: 0}}, run: {q1: [a, n, b]}}
        claims:
          - {id: A1, title: edited, kind: value, quote: "Here AP ≈ 0.491 on this ranking.", claim: AP = 5/6,
             fixture: f, expect: [{measure: AP, claimed: "≈ 0.8333"}]}
          - {id: A2, title: derived, kind: value, quote: "Here AP ≈ 0.491 on this ranking.", claim: AP = 5/6,
             fixture: f, expect: [{measure: AP, claimed: "≈ 0.8333", derived: "the text's AP recomputed"}]}
        """)
    report = audit_chapter(chapter, all_references(), collect("test"))
    by_id = {c.id: c for c in report.claims}
    assert by_id["A1"].verdict == "error"
    assert "not printed in the quote" in by_id["A1"].reason
    assert by_id["A2"].verdict == "supported"


def test_ranx_bpref_nan_is_explained_by_the_missing_judged_non_relevant_document(tmp_path):
    """bpref of a, b relevant, ranking a, b and no judged non-relevant document: trec_eval gives 1 (no
    non-relevant document is ranked above either: each adds 1; by hand 2/2), ranx NaN (it divides by
    min(|R|, |N|) = 0, ranx/metrics/bpref.py). The cause is found by experiment: with a never-retrieved
    judged non-relevant document added, ranx gives 1 as the chapter's definitions do."""
    chapter = _write(tmp_path, "bpref", "id: bpref\ntitle: bpref\n", "Here bpref is 1.\n", """\
        fixtures:
          f: {qrels: {q1: {a: 1, b: 1}}, run: {q1: [a, b]}}
        claims:
          - {id: B1, title: bpref, kind: value, quote: "Here bpref is 1.", claim: bpref = 1, fixture: f,
             expect: [{measure: Bpref, claimed: "1"}]}
        """)
    report = audit_chapter(chapter, all_references(), collect("test"))
    b1 = report.claims[0]
    assert b1.verdict == "qualified"
    assert "no judged non-relevant document" in b1.reason and "min(|R|, |N|) = 0" in b1.reason, b1.reason


def _register_error(tmp_path, name, claims_yaml, snapshot="A universal statement holds.\n"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "chapter.yaml").write_text(f"id: {name}\ntitle: t\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text(snapshot, encoding="utf-8")
    (folder / "claims.yaml").write_text(claims_yaml, encoding="utf-8")
    with pytest.raises(AuditError) as caught:
        load_chapter(folder)
    return str(caught.value)


@pytest.mark.parametrize(("claim", "message"), [
    # every case an empty ranking: every measure 0, so "RR equals P" would hold vacuously
    ('measure: RR, relation: equals, compare: measure, other: P, '
     'universe: {max_length: 0, documents: 3, grades: [0, 1], max_k: 3}', "max_length: 0"),
    # NumRel is the same at k and k + 1: comparing the next cutoff tests nothing
    ('measure: NumRel, relation: unchanged, compare: next_cutoff', "takes no cutoff"),
    ('measure: R, relation: never decreases, compare: transform, transform: add_unretrieved_relevant, at: "|R|"',
     "at: |R|"),
    ('measure: RBP, relation: never exceeds, compare: constant, bound: "1/0"', "bound"),
])
def test_property_claims_that_would_test_nothing_are_refused_at_load(tmp_path, claim, message):
    """Each of these ran as a vacuous "supported" or ended in a misleading error; refused when the register loads,
    naming the claim and the field."""
    err = _register_error(tmp_path, "vac", "claims:\n  - {id: C01, title: t, kind: property, quote: \"A universal "
                          f"statement holds.\", claim: x, {claim}}}\n")
    assert "C01" in err and message in err, err


def test_computes_on_a_fixture_that_ranks_nothing_is_refused(tmp_path):
    err = _register_error(tmp_path, "cmp", """\
claims:
  - {id: C01, title: t, kind: arithmetic, quote: "RR is 0 here.", claim: x, expression: "0", claimed: "0",
     computes: {measure: RR, fixture: {qrels: {q1: {a: 1}}, run: {q1: []}}}}
""", "RR is 0 here.\n")
    assert "computes.fixture" in err and "nothing is ranked" in err, err


def test_averaging_is_a_reading_for_measures_without_a_cutoff(tmp_path):
    """Rprec over q1 (a relevant, returned: 1) and q2 (judged, nothing returned): 1 over the queries with results,
    (1 + 0)/2 = 1/2 over all judged queries, which ir-measures and ranx return (by hand; both score a judged query
    missing from the run 0). "1/2" is qualified by the averaging, not contradicted."""
    chapter = _write(tmp_path, "avg", "id: avg\ntitle: t\n", "The value is 1/2 here.\n", """\
        fixtures: {f1: {qrels: {q1: {a: 1, n: 0}, q2: {a: 1, n: 0}}, run: {q1: [a], q2: []}}}
        claims: [{id: C01, title: t, kind: value, quote: "The value is 1/2 here.", claim: x, fixture: f1,
          expect: [{measure: Rprec, claimed: "1/2"}]}]
        """)
    report = audit_chapter(chapter, all_references(), collect("test"))
    assert report.claims[0].verdict == "qualified"
    assert "averag" in report.claims[0].reason


def test_err_on_grades_above_four(tmp_path):
    """ERR@3 of n, a (grade 7), b (grade 5) with the query's top grade 7: a stops with 127/128 at rank 2, b with
    31/128 at rank 3: 127/256 + (1/128)(31/128)/3 = 24415/49152 ≈ 0.4967 (by hand). gdeval.pl, ir-measures' only
    ERR provider, refuses grades above 4, so its reading (top grade 4) does not apply and ir-measures shows
    "not applicable", not a crash: the printed 0.0156 is contradicted by the one reading that applies."""
    chapter = _write(tmp_path, "err", "id: err\ntitle: t\n", "Here ERR@3 is 0.0156.\n", """\
        fixtures: {f: {qrels: {q1: {a: 7, b: 5, n: 0}}, run: {q1: [n, a, b]}}}
        claims: [{id: C01, title: t, kind: value, quote: "Here ERR@3 is 0.0156.", claim: x, fixture: f,
          expect: [{measure: "ERR@3", claimed: "0.0156"}]}]
        """)
    report = audit_chapter(chapter, all_references(), collect("test"))
    c = report.claims[0]
    values = {v.implementation: v for v in c.checks[0].values}
    assert values["chapter"].exact == "24415/49152"
    assert values["ir_measures"].status == "not applicable" and "above 4" in values["ir_measures"].detail
    assert c.verdict == "contradicted"
