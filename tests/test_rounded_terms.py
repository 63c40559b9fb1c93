"""Printed terms are intervals (the GRIM / statcheck reading): a worked sum that prints its terms rounded
("the reciprocal ranks are 1.00, 0.33 and 0.50, so MRR = (1.00 + 0.33 + 0.50)/3 = 0.611") is judged over every number
each printed decimal rounds to, and decided by the exact terms they most plainly round (0.33 as 1/3). A correction
never turns a true sentence false: the value it proposes is one the printed terms allow."""

from __future__ import annotations

import textwrap
from fractions import Fraction

import pytest

from audit.model.expressions import printed_terms_interval, simplest_between, term_readings
from audit.draft.encode import determined
from chapters import audit_text

SNAPSHOT = textwrap.dedent("""\
    # Mean reciprocal rank, worked by hand

    Three questions put their first relevant passage at ranks 1, 3 and 2. The reciprocal ranks are
    1.00, 0.33 and 0.50, so MRR = (1.00 + 0.33 + 0.50)/3 = 0.611.

    A careless draft wrote MRR = (1.00 + 0.33 + 0.50)/3 = 0.614 instead.

    Another wrote MRR = (1.00 + 0.33 + 0.50)/3 = 0.64.

    With the DCG discounts printed to three places, DCG@3 = 3 + 2/1.585 + 3/2.322 = 5.5539.

    With two ratios printed rounded, the mean is (4.31 + 0.27)/5.27 = 0.870.
    """)

CLAIMS = textwrap.dedent("""\
    fixtures:
      first-at-1-3-2:
        description: Three questions; the first relevant passage at ranks 1, 3 and 2.
        qrels: {q1: {a: 1, n: 0}, q2: {a: 1, n: 0, m: 0}, q3: {a: 1, n: 0}}
        run: {q1: [a, n], q2: [n, m, a], q3: [n, a]}
    claims:
      - {id: R1, title: MRR from rounded terms, kind: arithmetic, quote: "MRR = (1.00 + 0.33 + 0.50)/3 = 0.611",
         claim: the mean of the printed reciprocal ranks is 0.611, expression: "(1.00 + 0.33 + 0.50)/3", claimed: "0.611"}
      - {id: R2, title: MRR on its fixture, kind: arithmetic, quote: "MRR = (1.00 + 0.33 + 0.50)/3 = 0.611",
         claim: MRR of the three questions is 0.611, expression: "(1.00 + 0.33 + 0.50)/3", claimed: "0.611",
         computes: {measure: RR, fixture: first-at-1-3-2}}
      - {id: R3, title: a slip within the rounding, kind: arithmetic, quote: "MRR = (1.00 + 0.33 + 0.50)/3 = 0.614",
         claim: the mean is 0.614, expression: "(1.00 + 0.33 + 0.50)/3", claimed: "0.614"}
      - {id: R4, title: a slip beyond the rounding, kind: arithmetic, quote: "MRR = (1.00 + 0.33 + 0.50)/3 = 0.64",
         claim: the mean is 0.64, expression: "(1.00 + 0.33 + 0.50)/3", claimed: "0.64"}
      - {id: R5, title: discounts printed rounded, kind: arithmetic, quote: "DCG@3 = 3 + 2/1.585 + 3/2.322 = 5.5539",
         claim: DCG@3 is 5.5539, expression: "3 + 2/1.585 + 3/2.322", claimed: "5.5539"}
      - {id: R6, title: no plain reading, kind: arithmetic, quote: "(4.31 + 0.27)/5.27 = 0.870",
         claim: the ratio is 0.870, expression: "(4.31 + 0.27)/5.27", claimed: "0.870"}
    """)


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    report = audit_text(tmp_path_factory.mktemp("rounded"), SNAPSHOT, CLAIMS, title="Rounded terms")
    return {c.id: c for c in report.claims}


def test_the_span_of_a_sum_of_rounded_terms():
    """0.33 stands for [0.325, 0.335], 1.00 for [0.995, 1.005], 0.50 for [0.495, 0.505]: their sum over 3 runs from
    1.815/3 = 0.605 to 1.845/3 = 0.615 (the enclosure is certified, so it may be wider by a rounding of mpmath's)."""
    lo, hi = printed_terms_interval("(1.00 + 0.33 + 0.50)/3")
    assert Fraction(604999, 10**6) < lo <= Fraction(605, 1000) and Fraction(615, 1000) <= hi < Fraction(615001, 10**6)
    assert printed_terms_interval("(1 + 2/3)/2") is None                                  # no printed decimal


@pytest.mark.parametrize("lo, hi, plainest", [
    ("0.325", "0.335", Fraction(1, 3)), ("0.165", "0.175", Fraction(1, 6)), ("0.41665", "0.41675", Fraction(5, 12)),
    ("0.995", "1.005", Fraction(1)), ("0.495", "0.505", Fraction(1, 2)), ("0.6105", "0.6115", Fraction(11, 18)),
])
def test_the_plainest_fraction_a_decimal_rounds(lo, hi, plainest):
    assert simplest_between(Fraction(lo), Fraction(hi)) == plainest


def test_terms_are_read_as_the_exact_numbers_they_plainly_round():
    assert term_readings("(1.00 + 0.33 + 0.50)/3") == ("(1.00 + (1/3) + 0.50)/3", [("0.33", "1/3")])
    assert term_readings("3 + 2/1.585 + 3/2.322") == ("3 + 2/(log2(3)) + 3/(log2(5))",
                                                      [("1.585", "log2(3)"), ("2.322", "log2(5)")])
    assert term_readings("2*0.75*0.6/(0.75 + 0.6)") == ("2*0.75*0.6/(0.75 + 0.6)", [])    # already the plainest
    assert term_readings("(4.31 + 0.27)/5.27") is None                # 4.31 is a sum printed rounded, no discount


def test_a_true_mean_of_rounded_terms_is_supported_with_the_rounding_named(audited):
    """1, 1/3 and 1/2 average to 11/18 = 0.6111, which prints 0.611; the printed terms give 0.61 as printed."""
    r = audited["R1"]
    assert r.verdict == "supported", r.reason
    assert "0.33 as 1/3" in r.reason and "11/18" in r.reason and "rounding" in r.reason


def test_the_measure_the_expression_computes_decides_what_rounding_leaves_open(audited):
    """RR on the fixture: reciprocal ranks 1, 1/3, 1/2, mean 11/18 (trec_eval recip_rank, ir_measures RR, ranx mrr)."""
    r = audited["R2"]
    assert r.verdict == "supported", r.reason
    values = {v.implementation: v.value for c in r.checks for v in c.values if c.measure == "RR"}
    assert values["chapter"] == pytest.approx(11 / 18)
    assert [values[n] for n in ("pytrec_eval", "ir_measures", "ranx")] == [pytest.approx(11 / 18)] * 3


def test_a_value_the_plain_terms_do_not_give_is_contradicted_and_corrected_to_theirs(audited):
    """0.614 lies in the span [0.605, 0.615] but 11/18 = 0.6111 does not print 0.614: the fix writes 0.611, which
    the printed terms allow, never the 0.610 of the terms taken as exact (that would make a true sentence false)."""
    r = audited["R3"]
    assert r.verdict == "contradicted", r.reason
    assert r.response.startswith("Change “0.614” to “0.611”"), r.response


def test_a_value_beyond_the_rounding_is_contradicted_and_corrected_to_the_plain_terms_value(audited):
    r = audited["R4"]
    assert r.verdict == "contradicted", r.reason
    assert r.response.startswith("Change “0.64” to “0.61”"), r.response


def test_discounts_printed_rounded_are_read_as_their_logarithms(audited):
    """3 + 2/log2(3) + 3/log2(5) = 5.553888…, which prints 5.5539; with 1.585 and 2.322 as printed it is 5.553815."""
    r = audited["R5"]
    assert r.verdict == "supported", r.reason
    assert "1.585 as log2(3)" in r.reason


def test_a_term_with_no_plain_reading_leaves_the_value_qualified(audited):
    """(4.31 + 0.27)/5.27 = 0.869070 as printed, but over the numbers the terms round it spans [0.8673, 0.8708]:
    0.870 may be right; 4.31 reads as no plain term, so nothing decides it and it is not contradicted."""
    r = audited["R6"]
    assert r.verdict == "qualified", r.reason
    assert "rounded terms" in r.reason


def test_init_encodes_a_mean_of_rounded_terms_its_check_decides():
    """init drafts what the check decides as the sentence means it: the plain terms give 11/18, inside 0.611."""
    assert determined("(1.00 + 0.33 + 0.50)/3", "0.611") == (True, "")
    ok, why = determined("(4.31 + 0.27)/5.27", "0.870")
    assert not ok and "rounding of 4.31, 0.27, 5.27" in why


# --- numbers as texts typeset them -----------------------------------------------------------------

@pytest.mark.parametrize("printed, value", [
    ("1{,}048{,}576", Fraction(1048576)),          # LaTeX thousands separators: 2^20 rankings
    ("1\u2009048\u2009576", Fraction(1048576)),    # thin spaces between groups
    ("1\\,048\\,576", Fraction(1048576)),          # LaTeX's thin space
    ("1 048 576", Fraction(1048576)),
    ("\u22120.05", Fraction(-1, 20)),              # the typeset minus
    ("61.1\\%", Fraction(611, 1000)),              # LaTeX's percent sign
    ("≈\u202f0.61", Fraction(61, 100)),            # a narrow no-break space after the mark
])
def test_typeset_numbers_are_read_as_printed(printed, value):
    from audit.model.values import parse_claimed
    assert parse_claimed(printed).nominal == value


def test_a_decimal_comma_is_not_read_as_thousands():
    from audit.errors import ValueParseError
    from audit.model.values import parse_claimed
    with pytest.raises(ValueParseError):
        parse_claimed("0{,}611")


@pytest.mark.parametrize("expression, value", [
    ("1{,}000/4", Fraction(250)), ("2\u2009/\u20093", Fraction(2, 3)), ("1 \u2212 0.5", Fraction(1, 2)),
])
def test_typeset_expressions_are_read(expression, value):
    from audit.model.expressions import expression_interval
    assert expression_interval(expression)[:2] == (value, value)


@pytest.mark.parametrize("claimed, quote, printed", [
    ("1{,}048{,}576", "there are $1{,}048{,}576$ rankings of twenty documents", True),
    ("1 048 576", "there are 1\u2009048\u2009576 rankings", True),
    ("61.1%", "so MRR is $61.1\\%$ here", True),
    ("\u22120.05", "a change of \u22120.05 in AP", True),
    ("0.05", "a change of \u22120.05 in AP", False),     # the sign is printed: 0.05 is another value
    ("0.5", "so 1 \u2212 0.5 = 0.5", True),             # a subtraction's operand keeps no sign
])
def test_a_typeset_value_is_found_in_its_quote(claimed, quote, printed):
    from audit.evaluation.checks.value import printed_in_quote
    assert printed_in_quote(claimed, quote) is printed


def test_a_term_of_a_latex_fraction_is_printed_in_the_quote():
    """A discount printed as a fraction's denominator (``\\frac{3}{1.585}``, log2 3 = 1.58496 to three places) is a
    value the quote prints: a claim on it is checked, not an error about the register."""
    from audit.evaluation.checks.value import printed_in_quote
    quote = r"$= \frac{7}{1} + \frac{3}{1.585} + \frac{7}{2} + \frac{1}{2.585}$"
    assert printed_in_quote("1.585", quote) and printed_in_quote("≈ 2.585", quote)
    assert not printed_in_quote("1.586", quote)
