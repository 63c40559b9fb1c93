"""The scanner on the labelled corpus (tests/corpus) and on the shipped chapters.

The corpus is three chapter texts written for this purpose (tables; lists and code; plain prose)
with every statement labelled by hand in tests/corpus/labels.yaml. prose-mrr.txt was held out:
it was never run through the scanner while its patterns were written.
"""

from __future__ import annotations

from pathlib import Path

import corpus_labels as cl
import pytest

from audit.register.claims import load_chapter
from audit.text.scan import MEASURED, scan, scan_text, units

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
                        "held_out_precision": round(held.precision, 4)}


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
