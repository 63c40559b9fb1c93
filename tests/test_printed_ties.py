"""Two faults of reading printed decimals, each met on a lecture's table or a FAQ's persistence sums:

* a tie belongs to the printed number only as a reader rounds it: 3/8 = 0.375 rounds to 0.38 half away from zero
  and half to even alike, so "3/8 = 0.37" (a truncation) is wrong, while 1/8 = 0.125 may print as 0.13 (half away)
  or 0.12 (half to even);
* a float's repr (16 or 17 digits, what a notebook prints) stands for a double computed in floating point: numpy's
  mean of four APs prints 0.8015241702741703 where the exact 88873/110880 is the double 0.8015241702741702, one unit
  in the last place away, and the printed value is right to the precision it is printed at;
* a decimal that is itself a plain fraction is taken as printed: the persistence "p = 0.8" is 4/5, not a rounding of
  the 3/4 that also prints as 0.8, so "0.8^10 ≈ 0.107" is simply right (0.8^10 = 0.1073741824)."""

from __future__ import annotations

import textwrap
from fractions import Fraction

import pytest

from audit.model.values import parse_claimed
from audit.model.expressions import term_readings
from chapters import audit_text


@pytest.mark.parametrize("printed, value, holds", [
    ("0.37", Fraction(3, 8), False),   # 0.375 rounds to 0.38 either way
    ("0.38", Fraction(3, 8), True),
    ("0.12", Fraction(1, 8), True),    # half to even (Python's round(0.125, 2) on the exact value)
    ("0.13", Fraction(1, 8), True),    # half away from zero
    ("-0.37", Fraction(-3, 8), False),
    ("37%", Fraction(3, 8), False),
    ("38%", Fraction(3, 8), True),
    ("0.166", Fraction(1, 6), False),  # a truncation, never a rounding
    ("0.365", Fraction(73, 200), True),
])
def test_a_tie_belongs_to_the_printed_number_only_as_it_is_rounded(printed, value, holds):
    assert parse_claimed(printed).contains(value) is holds


@pytest.mark.parametrize("printed, value, holds", [
    ("0.8015241702741702", Fraction(88873, 110880), True),   # repr(88873/110880)
    ("0.8015241702741703", Fraction(88873, 110880), True),   # one unit in the last place above (numpy's mean)
    ("0.8015241702741712", Fraction(88873, 110880), False),  # ten units off: a wrong digit at the printed precision
    ("0.7555050505050506", Fraction(14959, 19800), True),
    ("0.4611111111111111", Fraction(83, 180), True),
    ("0.4611111111112", Fraction(83, 180), False),           # 13 digits, the last wrong: not a repr, no slack
])
def test_a_float_repr_stands_for_a_double_within_a_few_units_in_the_last_place(printed, value, holds):
    assert parse_claimed(printed).contains(value) is holds


def test_a_plain_decimal_is_read_as_itself_and_another_as_the_fraction_it_rounds():
    assert term_readings("1/(1 - 0.8)") == ("1/(1 - 0.8)", [])
    assert term_readings("0.2*0.8*0.8") == ("0.2*0.8*0.8", [])
    assert term_readings("(1.00 + 0.33 + 0.50)/3") == ("(1.00 + (1/3) + 0.50)/3", [("0.33", "1/3")])
    assert term_readings("0.12 + 0.67")[1] == [("0.12", "1/8"), ("0.67", "2/3")]


SNAPSHOT = textwrap.dedent("""\
    # Precision down the ranking, and a patient reader

    Six documents are relevant. Down the list, precision reads 3/7 = 0.43 at rank 7 and 3/8 = 0.37 at rank 8.

    A patient reader (p = 0.8) is still reading at rank eleven with probability 0.8^10 ≈ 0.107, and expects to
    inspect 1/(1 − 0.8) = 5 results; a ninth-rank residual is (1 − 0.8) × 0.8^8 ≈ 0.034.
    """)

CLAIMS = textwrap.dedent("""\
    claims:
      - {id: T1, title: precision at 7, kind: arithmetic, quote: "3/7 = 0.43", claim: precision at 7 is 0.43,
         expression: "3/7", claimed: "0.43"}
      - {id: T2, title: precision at 8, kind: arithmetic, quote: "3/8 = 0.37", claim: precision at 8 is 0.37,
         expression: "3/8", claimed: "0.37"}
      - {id: T3, title: still reading, kind: arithmetic, quote: "0.8^10 ≈ 0.107", claim: 0.8^10 is about 0.107,
         expression: "0.8^10", claimed: "0.107"}
      - {id: T4, title: expected depth, kind: arithmetic, quote: "1/(1 − 0.8) = 5", claim: the reader inspects 5,
         expression: "1/(1 - 0.8)", claimed: "5"}
      - {id: T5, title: a residual, kind: arithmetic, quote: "(1 − 0.8) × 0.8^8 ≈ 0.034", claim: about 0.034,
         expression: "(1 - 0.8) * 0.8^8", claimed: "0.034"}
    """)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    report = audit_text(tmp_path_factory.mktemp("printed-ties"), SNAPSHOT, CLAIMS, title="Printed ties")
    return {c.id: c for c in report.claims}


def test_a_truncated_tie_is_contradicted_and_corrected_to_its_rounding(results):
    assert results["T1"].verdict == "supported"  # 3/7 = 0.428571…
    assert results["T2"].verdict == "contradicted", results["T2"].reason
    assert "0.38" in results["T2"].response, results["T2"].response


@pytest.mark.parametrize("claim", ["T3", "T4", "T5"])
def test_a_stated_persistence_is_exact_and_its_sums_supported(results, claim):
    # 0.8^10 = 0.1073741824; 1/(1 − 4/5) = 5; (1/5)(4/5)^8 = 65536/1953125 = 0.0335544…
    assert results[claim].verdict == "supported", results[claim].reason
