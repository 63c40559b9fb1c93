"""The scanner on the labelled corpus (tests/corpus) and on the shipped chapters, and coverage by statement.

The corpus is three chapter texts written for this purpose (tables; lists and code; plain prose)
with every statement labelled by hand in tests/corpus/labels.yaml. prose-mrr.txt was held out:
it was never run through the scanner while its patterns were written.
"""

from __future__ import annotations

from pathlib import Path

import corpus_labels as cl
import pytest

from audit.register.claims import load_chapter
from audit.run.audit import anchor_claim, scan_coverage
from audit.text.coverage import covered_by, statements, use_of
from audit.text import scan as scan_mod
from audit.text.scan import classify, MEASURED, scan, scan_text, units

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpus():
    return cl.load()


def test_corpus_has_three_styles_and_about_sixty_labels(corpus):
    assert len(corpus) >= 3 and sum(len(t.labels) for t in corpus) >= 60
    assert any(t.held_out for t in corpus) and any(not t.held_out for t in corpus)
    assert {lb.verdict for t in corpus for lb in t.labels} >= {"supported", "contradicted", "qualified"}


def test_recall_and_precision_on_the_corpus(corpus):
    overall = cl.total([cl.score(t) for t in corpus])
    assert overall.recall >= 0.95, overall.missed
    assert overall.precision >= 0.90, overall.spurious


def test_recall_and_precision_on_the_held_out_text(corpus):
    held = cl.total([cl.score(t) for t in corpus if t.held_out])
    assert held.recall >= 0.95, held.missed
    assert held.precision >= 0.90, held.spurious


def test_measured_figures_in_the_report_are_current(corpus):
    """audit.text.scan.MEASURED is what reports print; it must be what the scanner does now."""
    overall = cl.total([cl.score(t) for t in corpus])
    held = cl.total([cl.score(t) for t in corpus if t.held_out])
    assert MEASURED == {"statements": overall.labels, "texts": len(corpus),
                        "recall": round(overall.recall, 4), "precision": round(overall.precision, 4),
                        "held_out_statements": held.labels, "held_out_recall": round(held.recall, 4),
                        "held_out_precision": round(held.precision, 4), **cl.corpus_recall().figures()}


def test_statement_recall_is_measured_on_every_labelled_text():
    """The report's statement recall is counted on both labelled corpora (tests/corpus and tests/corpus/measures),
    each text read as ``audit run`` reads it; the sentence sweep lists every labelled statement that holds a number,
    a comparison or a universal word, so what neither lists is a statement with none of them."""
    r = cl.corpus_recall()
    assert r.texts >= 18 and r.labels >= 400 and r.held_labels >= 200
    assert r.read < r.labels                      # the scanner alone misses some: its recall is not 100 %
    assert r.swept >= r.read and r.swept / r.labels >= 0.98, r.missed
    for missed in r.missed:
        assert not scan_mod.sweep_reasons(missed.split(": ", 1)[1]), missed


SWEPT = """Comparing the runs

Every measure in this output lies between 0 and 1.
Only the reranked run shows this pattern.
The ranking comes from a dense retriever trained on passages.
The total is $\\sum_{i=1}^{3} g_i / \\log_2(i+1) = 5.762$ for this ranking.
"""


def test_sentences_with_a_number_a_comparison_or_a_universal_word_are_listed_when_unread(tmp_path):
    """The scanner reads none of these four sentences as a statement (no measure name, no expression it knows);
    the sweep lists the three holding a number, a comparison ("between") or a universal word ("every", "only"), and
    leaves the plain one ("a dense retriever trained on passages") alone. A report counts them as uncovered until
    a claim quotes them."""
    found = scan_text(SWEPT)
    unread = scan_mod.unread_sentences(SWEPT, False, found)
    assert [(s.line, s.kind) for s in unread] == [
        (3, "unread: number, comparison, universal"), (4, "unread: universal"), (6, "unread: number")]
    folder = tmp_path / "sweep"
    folder.mkdir()
    (folder / "chapter.yaml").write_text("id: sweep\ntitle: Sweep\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text(SWEPT, encoding="utf-8")
    (folder / "claims.yaml").write_text(
        "claims:\n  - {id: C01, title: range, kind: not checkable, quote: \"Every measure in this output lies "
        "between 0 and 1\", claim: a range, reason: no output shown}\n", encoding="utf-8")
    chapter = load_chapter(folder)
    anchors = {c.id: anchor_claim(chapter.snapshot, c, None) for c in chapter.register.claims}
    listed, summary = scan_coverage(chapter, anchors)
    assert [(s.line, s.covered_by) for s in listed if s.kind.startswith("unread")] == [(3, ["C01"]), (4, []), (6, [])]
    assert (summary["unread"], summary["uncovered"]) == (3, 2)
    assert summary["statement_recall"] == MEASURED["corpus_recall"]


@pytest.mark.parametrize("name", ["retrieval-23-chapter", "recall-and-precision"])
def test_every_checkable_hand_written_claim_is_found(name):
    chapter = load_chapter(ROOT / "claims" / name)
    text = chapter.snapshot.text
    found = scan(chapter.snapshot)
    for claim in chapter.register.claims:
        if claim.kind == "not checkable":
            continue
        a = text.index(claim.quote)
        assert any(s.start < a + len(claim.quote) and a < s.end for s in found), claim.id


def test_code_is_not_prose_but_a_def_line_is_a_statement():
    text = ("Precision is shown below.\n\n```python\ndef precision_at_k(ranking, relevant, k):\n"
            "    return 2 / 4  # P@4 = 2/4\n```\n\nAfter the listing, P@4 = 1/4 for one hit.\n")
    found = scan_text(text)
    assert [(s.kind, s.text) for s in found] == [
        ("listing", "def precision_at_k(ranking, relevant, k):"),
        ("value", "After the listing, P@4 = 1/4 for one hit.")]


def test_sentences_do_not_break_inside_decimals_or_abbreviations():
    text = "Recall is 21/43 ≈ .4884 here, e.g. in the table. Precision at four is 1/4. The end.\n"
    spans = [text[u.start:u.end] for u in units(text)]
    assert spans == ["Recall is 21/43 ≈ .4884 here, e.g. in the table.", "Precision at four is 1/4.", "The end."]


def test_list_items_and_table_rows_are_units_and_fixture_tables_are_not_statements():
    text = ("- MRR cannot fall when the first relevant passage moves up.\n- Keep going.\n\n"
            "| rank | document | grade |\n|---:|---|---:|\n| 1 | d4 | 2 |\n\n"
            "| k | P@k |\n|---|---|\n| 1 | 1 |\n")
    found = scan_text(text)
    assert [(s.kind, s.text) for s in found] == [
        ("universal", "- MRR cannot fall when the first relevant passage moves up."), ("value", "| 1 | 1 |")]
    assert found[1].context == "| k | P@k |"


@pytest.mark.parametrize("sentence", [
    "Precision at ten for this ranking is 4/10.",            # metric words and a fraction
    "Its reciprocal rank comes to one half.",                 # number words
    "The mean of the reciprocal ranks is 0.75.",              # means
    "It retains 12 of 20 positives, a recall of .6.",         # set measures from counts
    "A fifth of the relevant material is missing from the top five results.",
    "Recall at k cannot fall as k grows.",                    # universal, no number
    "AP is never larger than recall.",
    "Rank 1 beats rank 4 for reciprocal rank.",
    "The ratio is 9/11, roughly .8182.",                      # arithmetic in the text
])
def test_statement_forms(sentence):
    assert len(scan_text(sentence + "\n")) == 1


@pytest.mark.parametrize("sentence", [
    "The first TREC conference met in 1992.",
    "Chapter 7 described the assessors.",
    "Binary labels throw away what assessors know.",
])
def test_plain_prose_is_not_a_statement(sentence):
    assert scan_text(sentence + "\n") == []


# --- the measure catalogue's newer measures, and printed output ------------------------------------------------

@pytest.mark.parametrize("line", [
    "ERR@5 ≈ 0.8926", "bpref ≈ 0.4167", "RBP ≈ 0.4623", "R-precision = 0.5", "ranx's `rbp.80` gives 0.528",
    "the ideal DCG@5 ≈ 14.60", "DCG@5 ≈ 10.56", "F1 = 4/7", "GMAP = 0.0028",
    "The expected reciprocal rank at five is 0.8926.", "Its rank-biased precision comes to 0.4623.",
    "Interpolated precision at recall 0.5 is 0.75.", "The number of relevant documents is 4.",
    "Geometric mean average precision is 0.0028.", "The F-measure is 4/7.", "Its discounted cumulative gain is 10.56.",
    "trec_eval's num_rel is 10 here.", "IPrec@0.5 = 0.75",
])
def test_newer_measures_are_found(line):
    assert [s.kind for s in scan_text(line + "\n")] == ["value"]


@pytest.mark.parametrize("text, measure", [
    ("ERR@5 ≈ 0.8926", ("ERR", 5)), ("bpref ≈ 0.4167", ("Bpref", None)), ("R-precision = 0.5", ("Rprec", None)),
    ("ranx's `rbp.80` gives 0.528", ("RBP(p=0.8)", None)), ("the ideal DCG@5 ≈ 14.60", ("IDCG", 5)),
    ("F1 = 4/7", ("F", None)), ("F2 = 20/31", ("F(beta=2)", None)), ("GMAP = 0.0028", ("GMAP", None)),
    ("interpolated precision at recall 0.5", ("IPrec", "0.5")), ("iprec_at_recall_0.50  all  0.75", ("IPrec", "0.5")),
    ("`ndcg_burges@4` gives", ("nDCG(dcg='exp-log2')", 4)), ("P_15 = 10/15", ("P", 15)), ("gm_map", ("GMAP", None)),
    ("Precision at k", ("P", "k")), ("Recall at five", ("R", 5)), ("Success@3 is never smaller than P@3.", ("Success", 3)),
    ("the number of relevant documents retrieved", ("NumRelRet", None)), ("`r-precision@5`", ("Rprec", None)),
])
def test_measure_names_map_to_the_catalogue(text, measure):
    from audit.draft.encode import measure_of
    from audit.text.scan import METRIC
    assert measure_of(next(METRIC.finditer(text))) == measure


@pytest.mark.parametrize("text, measures", [
    ("With |R| = 4 we look at the top four.", []),                        # |R| is a count, not recall
    ("Rprec: R = 10, and the top ten hold nine.", [("Rprec", None)]),     # R = 10 likewise
    ("at every standard recall level from 0.0 up to 0.5", []),            # a recall level is a parameter
    ("the ideal order sorts the judged documents", []),                   # no measure
])
def test_names_that_are_not_measures(text, measures):
    from audit.draft.encode import measure_of
    from audit.text.scan import METRIC
    assert [spec for m in METRIC.finditer(text) if (spec := measure_of(m))] == measures


def test_trec_eval_output_is_printed_values_but_code_is_not():
    text = ("The output:\n\n```\nnum_q                 all  1\nmap                   all  0.7904\n```\n\n"
            "```python\nx = 1\nprint(x, 2)\n```\n")
    found = scan_text(text)
    assert [(s.kind, s.text) for s in found] == [("value", "num_q                 all  1"),
                                                 ("value", "map                   all  0.7904")]


@pytest.mark.parametrize("sentence", [
    "bpref = (1 + 3/4 + 1/2 + 1/4)/6 = 2.5/6 ≈ 0.4167.",
    "GMAP, the geometric mean, is (1 × 1/2 × 1/4)^(1/3) = 0.5.",
    "The ideal DCG@5 of q_2 is 6 + 1/log2(3) ≈ 6.631.",
    "It comes to 3/4 + (1/4)(1/4)/3 ≈ 0.771.",
])
def test_chains_powers_functions_and_products_are_arithmetic(sentence):
    assert [s.kind for s in scan_text(sentence + "\n")] == ["arithmetic"]


@pytest.mark.parametrize("sentence, kind", [
    # what a named tool does with its input is a statement of its convention, whatever the verb
    ("pytrec_eval quietly drops query 7 because it has no judgements.", "convention"),
    ("ranx keeps the documents of a tie in the order the run lists them.", "convention"),
    ("trec_eval rejects a run that lists one docno twice.", "convention"),
    ("Version 9.0 of trec_eval ignored such topics altogether.", "convention"),
    ("That agrees with ir_measures on every query.", "convention"),
    ("It then breaks ties by document ID, ascending.", "convention"),
    ("A topic with no relevant document scores 0 on every measure here.", "convention"),
    # naming a tool is not stating what it does
    ("We installed ranx from PyPI.", None),
    ("trec_eval is written in C.", None),
])
def test_what_a_named_tool_does_is_a_statement(sentence, kind):
    assert classify(sentence) == kind


@pytest.mark.parametrize("line, kind", [
    # where the text comes from is no statement, whatever measure its title names
    ('Source: evalnotes.example, "MAP and the t-test, explained" (https://evalnotes.example/map-ttest).', None),
    ("Adapted from: Manning et al. (2008), chapter 8, on MAP and nDCG.", None),
    # a value in it is still read
    ("**Sources:** the MAP of 0.31 comes from Table 2.", "value"),
])
def test_a_source_line_is_no_statement(line, kind):
    assert classify(line) == kind


def test_a_number_before_a_bracket_is_a_product_never_a_function_s_argument():
    """``2(0.5)(0.75)/1.25`` is 2 × 0.5 × 0.75 / 1.25 = 0.6, as a Q&A answer writes F1 = 2PR/(P + R); ``log2(4)`` and
    ``log10(100)`` stay functions."""
    from audit.text.encode_arithmetic import arithmetic, normal_expression
    assert normal_expression("2(0.5)(0.75)/1.25") == "2*(0.5)*(0.75)/1.25"
    assert normal_expression("3/log2(4) + 1/log10(100) + 12(0.25)") == "3/log2(4) + 1/log10(100) + 12*(0.25)"
    [s] = scan_text("F1 = 2PR/(P + R) = 2(0.5)(0.75)/1.25 = 0.6.\n")
    claims, _ = arithmetic(s)
    assert [(c["quote"], c["expression"], c["claimed"]) for c in claims] == [
        ("2(0.5)(0.75)/1.25 = 0.6", "2*(0.5)*(0.75)/1.25", "0.6")]
    [s] = scan_text("F1 = 2(0.5)(0.75)/1.25 = 0.65.\n")
    assert [c["claimed"] for c in arithmetic(s)[0]] == ["0.65"]   # 0.6 exactly: a wrong value is claimed as printed


@pytest.mark.parametrize("sentence", [
    "We map each query to its topic before judging.",
    "Errors in the judgements are rare.",
])
def test_lower_case_words_are_not_measures(sentence):
    assert scan_text(sentence + "\n") == []


# --- coverage by statement (audit.text.coverage) ---------------------------------------------------


REPRODUCTION = ("For the ranking a, n, b with a and b the only relevant documents, P@3 = 2/3, R@3 = 1 and "
                "RR = 1/2.\n")


def _coverage(text: str, claims: list[dict]) -> list[tuple[str, int, list[str]]]:
    """(statement, line, covering claim ids) for every statement of ``text``; each claim dict's quote is found in
    the text once."""
    uses = []
    for c in claims:
        at = text.index(c["quote"])
        assert text.count(c["quote"]) == 1
        uses.append(use_of(c, (at, at + len(c["quote"]))))
    return [(p.text, text.count("\n", 0, p.start) + 1, covered_by(p, uses))
            for u in scan_text(text) for p in statements(u)]


def test_a_sentence_printing_three_values_is_three_statements_one_claim_covers_one():
    value = {"id": "C01", "kind": "value", "quote": "P@3 = 2/3",
             "expect": [{"measure": "P@3", "claimed": "2/3"}]}
    found = _coverage(REPRODUCTION, [value])
    assert found == [("P@3 = 2/3", 1, ["C01"]), ("R@3 = 1", 1, []), ("RR = 1/2", 1, [])]
    # quoting the whole sentence does not cover a value the claim does not print (RR = 1 on a, n, b: 1/2 is wrong)
    whole = {**value, "quote": REPRODUCTION.strip()}
    assert [ids for _, _, ids in _coverage(REPRODUCTION, [whole])] == [["C01"], [], []]
    both = {**whole, "expect": [{"measure": "P@3", "claimed": "2/3"}, {"measure": "R@3", "claimed": "1"},
                                {"measure": "RR", "claimed": "1/2"}]}
    assert [ids for _, _, ids in _coverage(REPRODUCTION, [both])] == [["C01"]] * 3
    # a value claim for another measure, or another cutoff, does not cover it
    other = {**whole, "expect": [{"measure": "P@3", "claimed": "2/3"}, {"measure": "R@5", "claimed": "1"},
                                 {"measure": "AP", "claimed": "1/2"}]}
    assert [ids for _, _, ids in _coverage(REPRODUCTION, [other])] == [["C01"], [], []]
    # a not checkable claim (or a draft) quoting the sentence covers what it quotes, as before
    kept = {"id": "C02", "kind": "not checkable", "quote": "R@3 = 1 and RR = 1/2", "reason": "prose"}
    assert [ids for _, _, ids in _coverage(REPRODUCTION, [value, kept])] == [["C01"], ["C02"], ["C02"]]


def test_a_table_is_one_statement_per_value_under_a_measure_and_the_label_column_is_none():
    text = ("| k | P@k | R@k | note |\n|---:|---:|---:|---|\n| 1 | 1 | 1/2 | first |\n"
            "| 3 | 2/3 | 1 | both found |\n\n| measure | run A | run B |\n|---|---:|---:|\n| P@5 | 0.4 | 0.6 |\n")
    row = {"id": "T1", "kind": "value", "quote": "| 3 | 2/3 | 1 |", "expect": [{"measure": "P@3", "claimed": "2/3"}]}
    run_b = {"id": "T2", "kind": "value", "quote": "| P@5 | 0.4 | 0.6 |",
             "expect": [{"measure": "P@5", "claimed": "0.6"}]}
    found = _coverage(text, [row, run_b])
    assert found == [("P@k · 1: 1", 3, []), ("R@k · 1: 1/2", 3, []),
                     ("P@k · 3: 2/3", 4, ["T1"]), ("R@k · 3: 1", 4, []),   # R@3 = 1 is not T1's: uncovered
                     ("run A · P@5: 0.4", 8, []), ("run B · P@5: 0.6", 8, ["T2"])]
    # a claim at another cutoff does not cover the cell: the row label is the cutoff
    wrong_k = {**row, "expect": [{"measure": "P@1", "claimed": "2/3"}]}
    assert _coverage(text, [wrong_k])[2][2] == []


def test_a_quote_spanning_two_sentences_covers_the_statements_of_both():
    text = ("Precision never exceeds one. The run returns a, n, b. So P@3 = 2/3. And R@3 = 1, while "
            "RR = 1/2.\n")
    value = {"id": "C01", "kind": "value", "quote": "So P@3 = 2/3. And R@3 = 1",
             "expect": [{"measure": "P@3", "claimed": "2/3"}, {"measure": "R@3", "claimed": "1"}]}
    prop = {"id": "C02", "kind": "property", "quote": "Precision never exceeds one. The run",
            "measure": "P", "relation": "never exceeds", "compare": "constant", "bound": "1"}
    assert _coverage(text, [value, prop]) == [
        ("Precision never exceeds one.", 1, ["C02"]), ("P@3 = 2/3", 1, ["C01"]), ("R@3 = 1", 1, ["C01"]),
        ("RR = 1/2", 1, [])]


@pytest.mark.parametrize("sentence, expected", [
    ("Three of the five results are relevant, so P@5 = 3/5 = 0.6.",       # a chain: one statement per value
     ["Three of the five results are relevant, so … .", "P@5 = 3/5", "3/5 = 0.6"]),
    ("Average precision divides by all four: AP = (1/1 + 2/3 + 3/4)/4 ≈ 0.6042.",   # an expression inside a chain
     ["AP = (1/1 + 2/3 + 3/4)/4 ≈ 0.6042"]),
    ("Practical method: plot recall@k for k = 1…10 on your set.",         # the 1 is k's: the sentence, whole
     ["Practical method: plot recall@k for k = 1…10 on your set."]),
    ("Precision behaves differently: it falls from 1 to 1/2 and then climbs back to 3/4.",
     ["falls from 1 to 1/2", "climbs back to 3/4"]),
    ("A user who reads to rank 15 sees precision 4/15 and recall 1.", ["precision 4/15", "recall 1"]),
    ("Rprec at -l 2 is 2/4: the top four hold two.", ["Rprec at -l 2 is 2/4"]),
    ("The mean of two reciprocal ranks, (1 + 1/3)/2, is about .6667.", ["(1 + 1/3)/2, is about .6667"]),
])
def test_how_a_sentence_is_split(sentence, expected):
    assert [p.text for u in scan_text(sentence) for p in statements(u)] == expected


def test_the_shipped_registers_cover_every_printed_value():
    """Every value printed in the shipped chapters has a claim that quotes and prints it; what is uncovered
    prints no value: five statements of chapter 23 and one of recall-and-precision, plus the sentences the scanner
    reads as no statement that hold a number, a comparison or a universal word and that no claim quotes (five in
    chapter 23, e.g. "That does not make those six validated discoveries."; four in recall-and-precision, e.g.
    "Different diseases, different medicine.")."""
    for name, total, open_ in (("retrieval-23-chapter", 38, 5 + 5), ("recall-and-precision", 12, 1 + 4)):
        chapter = load_chapter(ROOT / "claims" / name)
        anchors = {c.id: anchor_claim(chapter.snapshot, c, None) for c in chapter.register.claims}
        found, summary = scan_coverage(chapter, anchors)
        assert (summary["statements"], summary["uncovered"]) == (total, open_), name
        valued = {p.text for u in scan(chapter.snapshot) for p in statements(u) if p.values}
        assert valued and not [s.text for s in found if not s.covered_by and s.text in valued], name


def test_arithmetic_on_printed_numbers_does_not_cover_the_measures_value():
    """"Precision@3 = 1/3 ≈ 0.33" with relevant items at ranks 1, 3 and 5: P@3 is 2/3, so the sentence is wrong,
    while its arithmetic 1/3 ≈ 0.33 is right. A claim checking the arithmetic alone leaves the measure's value
    uncovered, so a wrong value is never reported as checked; a claim computing P@3 (``computes``) covers it."""
    sentence = "The relevant items sit at ranks 1, 3 and 5, so Precision@3 = 1/3 ≈ 0.33."
    parts = [p for u in scan_text(sentence) for p in statements(u)]
    assert [p.text for p in parts] == ["Precision@3 = 1/3", "1/3 ≈ 0.33"]
    whole = (0, len(sentence))
    arithmetic = use_of({"id": "A", "kind": "arithmetic", "expression": "1/3", "claimed": "≈ 0.33"}, whole)
    assert [covered_by(p, [arithmetic]) for p in parts] == [[], ["A"]]
    measured = use_of({"id": "M", "kind": "arithmetic", "expression": "1/3", "claimed": "≈ 0.33",
                       "computes": {"measure": "P@3", "fixture": "ranks-1-3-5"}}, whole)
    assert [covered_by(p, [measured]) for p in parts] == [["M"], ["M"]]


@pytest.mark.parametrize("line, expr, value", [
    ("- 3/log2(4) = 1.5", "3/log2(4)", "1.5"),            # a list item's marker is no minus
    ("  * 2/log2(3) = 1.262", "2/log2(3)", "1.262"),
    ("1. 3/log2(2) = 3", "3/log2(2)", "3"),
    ("DCG = 3 + 2/1.585 + 3/2 = 5.762", "3 + 2/1.585 + 3/2", "5.762"),
    ("The total 5 - 3/2 = 3.5 stays.", "5 - 3/2", "3.5"),  # a binary minus still belongs to the expression
    ("Scaled, .912 x 10 = 9.12 judged.", ".912 x 10", "9.12"),
])
def test_steps_of_a_worked_calculation_and_x_products_are_arithmetic(line, expr, value):
    from audit.text.scan import ARITH
    m = ARITH.search(line)
    assert m and (m.group("expr"), m.group("value")) == (expr, value)
    assert [s.kind for s in scan_text(line)] == ["arithmetic"]


def test_latex_arithmetic_in_a_sentence_is_a_statement_and_prints_its_fractions():
    """An inline formula with \\frac, \\log_2 and \\approx is arithmetic; its printed values are the fraction 1/2 (not
    1 and 2), no log base and no summation index: what a claimed value is compared with."""
    from audit.text.scan import printed_values
    sentence = r"The mean is $\tfrac{1}{2} \cdot (1 + \tfrac{1}{3}) \approx 0.6667$ here."
    assert [s.kind for s in scan_text(sentence)] == ["arithmetic"]
    assert printed_values(sentence) == ["1/2", "1", "1/3", "0.6667"]
    assert printed_values(r"$\sum_{i=1}^{3} \frac{1}{\log_2(i+1)} \approx 2.131$") == ["1", "1", "2.131"]
    assert printed_values("3/log2(4) = 1.5") == ["3", "4", "1.5"]


CALCULATION = """The discounted gains, worked by hand:

```
DCG@3 = 3/log2(2) + 2/log2(3) + 3/log2(4)
      = 3 + 1.262 + 1.5
      = 5.762
```

```python
gains = [3, 2, 3]
total = 3 + 2
```
"""


def test_a_worked_calculation_set_as_code_is_read_step_by_step_and_code_is_not():
    """A fenced block of nothing but calculation notation is a worked calculation: its chain (a line and the lines
    after it that start with "=") is one arithmetic statement; a Python block beside it stays code."""
    found = scan_text(CALCULATION, markdown=True)
    assert [(s.line, s.kind) for s in found] == [(4, "arithmetic")]
    assert found[0].text == "DCG@3 = 3/log2(2) + 2/log2(3) + 3/log2(4)\n      = 3 + 1.262 + 1.5\n      = 5.762"
    assert scan_mod.is_calculation(["  = 3 + 1.262", "  = 4.262"]) and not scan_mod.is_calculation(
        ["gains = [3, 2, 3]", "total = sum(gains)"])


def test_a_long_sentence_is_shown_in_a_bounded_window_beside_each_statement(tmp_path):
    """A sentence printing k values ("P@1 = 1/2, P@1 = 1/2, …", 11k − 1 characters) is k statements. The report
    showed the whole sentence beside each, k(11k − 1) characters: 109,900 for k = 100 and 1,759,600 for k = 400,
    growing with the square of the sentence. Now each statement's unit is the 300 characters (UNIT_SHOWN) around it
    with … at each cut. Counted by hand: statement j (0-based) starts at 11j and is 9 characters long, so its window
    starts at 11j − (300 − 9) // 2 = 11j − 145, kept between 0 and the last 300 characters (11k − 301). The 14
    statements with 11j ≤ 145 (j ≤ 13) start the sentence's window (no … before), the 14 with 11j ≥ 11k − 156
    (j ≥ k − 14) end at its end (no … after): 28 × 301 + (k − 28) × 302 = 302k − 28 characters, linear in k."""
    (tmp_path / ".git").mkdir()
    for k in (100, 200, 400):
        folder = tmp_path / "claims" / f"long{k}"
        folder.mkdir(parents=True)
        sentence = ", ".join(["P@1 = 1/2"] * k) + "."
        (folder / "snapshot.txt").write_text(sentence + "\n", encoding="utf-8")
        (folder / "chapter.yaml").write_text(f"id: long{k}\ntitle: Long\nsnapshot:\n  file: snapshot.txt\n",
                                             encoding="utf-8")
        (folder / "claims.yaml").write_text("claims: []\n", encoding="utf-8")
        found, counts = scan_coverage(load_chapter(folder), {})
        assert len(sentence) == 11 * k - 1 and counts["units"] == 1 and len(found) == k
        assert all(s.text == "P@1 = 1/2" and s.text in s.unit and len(s.unit) <= 302 for s in found)
        assert sum(len(s.unit) for s in found) == 302 * k - 28
        assert found[0].unit == sentence[:300] + "…" and found[-1].unit == "…" + sentence[-300:]
        assert found[50].unit == "…" + sentence[11 * 50 - 145:11 * 50 + 155] + "…"


def test_a_short_sentence_is_shown_whole_beside_each_statement():
    """A sentence of at most 300 characters is the unit of each of its statements as written."""
    sentence = "On this ranking P@3 = 2/3, R@3 = 1 and RR = 1/2."
    parts = [p for u in scan_text(sentence + "\n") for p in statements(u)]
    assert [p.text for p in parts] == ["P@3 = 2/3", "R@3 = 1", "RR = 1/2"]
    assert [p.context() for p in parts] == [sentence] * 3


@pytest.mark.parametrize("unit, reasons", [
    ("1.", []),                                        # a list item's numbering alone
    ("### 1.1.3. Example", []),                        # a heading's section number
    ("December 8, 2025 · Retrieval · RAG", []),        # a post's date line
    ("Source: https://example.org/metrics-2-1", []),   # a URL
    ("Robertson (2004) showed it.", []),               # a year in a citation
    ("Recall rose to 0.61 in 2021.", ["number"]),      # a value beside a year still counts
])
def test_numbers_that_state_no_quantity_are_not_listed_as_uncovered(unit, reasons):
    assert scan_mod.sweep_reasons(unit) == reasons


def test_a_pipe_table_set_in_a_code_block_is_read_as_a_table():
    # Pages converted to Markdown often print a table inside ```plaintext. Its rows are printed values (P@k at each
    # rank), read with their header like any table's; before, the block was code and its rows were neither claims
    # nor uncovered.
    text = ("# P@k\n\nPrecision at k on the first system:\n\n```plaintext\n| Rank | Doc | P@k |\n|------|-----|-----|\n"
            "| 1 | a | 1.00 |\n| 2 | x | 0.50 |\n| 3 | b | 0.67 |\n```\n\n```python\ndef p_at_k(ranking, rel, k):\n"
            "    return sum(d in rel for d in ranking[:k]) / k\n```\n")
    found = scan_text(text, markdown=True)
    rows = [s for s in found if s.text.startswith("| ")]
    assert [s.text for s in rows] == ["| 1 | a | 1.00 |", "| 2 | x | 0.50 |", "| 3 | b | 0.67 |"]
    assert all(s.kind == "value" and s.context == "| Rank | Doc | P@k |" for s in rows)
    assert [s.kind for s in found if s.text.startswith("def ")] == ["listing"]


def test_a_program_s_printed_lines_are_read_as_statements():
    # A tutorial prints its running computation below the listing: "query #2 = 1/1 = 1.5" (a running total printed
    # under one query's label) is false on its own terms, and "AP@8_3 = 0.23" is a measure's value. Both were code
    # to the scanner, neither claimed nor listed as uncovered.
    text = ("# MRR\n\n```python\nfor q in range(Q):\n    total += 1 / first[q]\n"
            "    print(f\"query #{q+1} = 1/{first[q]} = {total}\")\n```\n\n"
            "```\nquery #1 = 1/2 = 0.5\nquery #2 = 1/1 = 1.5\nMRR = 0.5\n```\n\n"
            "```\nAP@8_1 = 0.54\nAP@8_3 = 0.23\n```\n")
    found = {s.text: s.kind for s in scan_text(text, markdown=True)}
    assert found["query #2 = 1/1 = 1.5"] == "arithmetic"
    assert found["AP@8_3 = 0.23"] == "value"
    # the listing that prints them stays code
    assert not any("print(" in t for t in found)


@pytest.mark.parametrize("line, printed", [
    ("# {'map01': 0.5, 'map03': 0.83}", True),          # a dict a library printed, keys quoted
    ("# (0.5, 0.6666666865348816, 0.3)", True),         # a printed tuple
    ("# tensor([0.6222, 0.4429])", True),
    ("# Metric(query_id='Q0', measure=AP, value=0.5)", True),
    ("# ndcg(r, k=4) → 0.78", False),                   # the author's own note on a call
    ("# compute the mean", False),
])
def test_a_result_pasted_as_a_comment(line, printed):
    assert bool(scan_mod.COMMENT_RESULT.match(line)) is printed


PRINTED = '''# Scoring the run

```python
per_query = pd.DataFrame(rows).set_index("query")
per_query.round(4)
```

```
       P@5      AP  nDCG@5
query
q1     0.4  0.5556  0.7985
q2     0.4  0.5000  0.5672
```

```python
print(ndcg_score(y_true, y_score, k=4))
print(f"MRR@10: {mrr:.4f}")
```

Output:

```
0.5315681641165526
MRR@10: 0.4375
```

```python
k = 10
cutoffs = [1, 5, 10]
```
'''


def test_values_a_program_printed_after_a_listing_are_output_statements():
    """A notebook exported to Markdown prints a pandas table (a header of measures over labelled rows of numbers) and
    values after its code (a bare number, ``label: number``), also after an "Output:" label: each row is a table row
    under its header and each printed line an output statement. A code block of assignments after prose is code."""
    found = {(s.line, s.kind) for s in scan_text(PRINTED, True)}
    assert {(11, "value"), (12, "value"), (23, "value"), (24, "value")} <= found
    assert not any(line in (28, 29) for line, _ in found)
    rows = [u for u in units(PRINTED, True) if u.kind == "row"]
    assert [PRINTED[u.start:u.end] for u in rows] == ["q1     0.4  0.5556  0.7985", "q2     0.4  0.5000  0.5672"]
    assert {u.context for u in rows} == {"P@5      AP  nDCG@5"}


@pytest.mark.parametrize("sentence", [
    "P@1 = " + " + ".join(["1"] * 40) + " here.",
    "P@1 = " + " + ".join(["(1)"] * 40) + " here.",
    "AP = " + " + ".join(["(1/2 + 1/3)"] * 40) + " here.",
])
def test_a_long_sum_that_ends_in_no_relation_is_read_once(sentence):
    """A chain of terms that ends in no relation used to be tried again with the spaces around each operator split
    another way: 2^n ways for n terms (30 terms ran for hours). Each link between terms is atomic now, and an
    expression holds at most ``_MAX_TERMS`` terms, so the scan is linear; the sentence is still read as a value
    statement (P@1 with a number)."""
    assert [s.kind for s in scan_text(sentence)] == ["value"]
    assert scan_mod.ARITH.search(sentence) is None
    assert scan_mod.ARITH.search("DCG@3 = " + " + ".join(["1/2"] * 60) + " = 30").group("value") == "30"
