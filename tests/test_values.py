"""audit.model.values: claimed values read as intervals, safe arithmetic expressions, corrections.

Interval conventions come from DESIGN.md ("Verdicts") and the module docstring of
audit/model/values.py: ``1/4`` is exact; ``.4884`` stands for [.48835, .48845] (half a unit in
the last printed place); ``0.33`` for [0.325, 0.335]; ``80%`` for [79.5%, 80.5%]; "about
0.9" is widened by the claim's own tolerance. Chapter 23 prints ``21/43 ≈ .4884`` and
``27/43 ≈ .6279``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.errors import ValueParseError
from audit.model.values import parse_claimed
from audit.model.expressions import parse_expression

F = Fraction


# --- parse_claimed: the interval a printed value stands for -------------------------------

# (printed, low, high): bounds by hand from the printed precision.
INTERVALS = [
    ("1/4", F(1, 4), F(1, 4)),              # a fraction is exact
    ("≈ .4884", F("0.48835"), F("0.48845")),  # 4 places: ± 0.00005
    ("0.33", F("0.325"), F("0.335")),         # 2 places: ± 0.005
    ("80%", F("0.795"), F("0.805")),          # whole percents: 79.5 % … 80.5 %
    ("fifty", F(50), F(50)),                  # chapter 23: "fifty retained candidate IDs"
    ("twenty-one", F(21), F(21)),             # chapter 23: "only twenty-one of the forty-three"
    ("a fifth", F(1, 5), F(1, 5)),            # "a fifth" = 1/5
]


@pytest.mark.parametrize("printed, low, high", INTERVALS, ids=[c[0] for c in INTERVALS])
def test_parse_claimed_interval(printed, low, high):
    claimed = parse_claimed(printed)
    assert (claimed.low, claimed.high) == (low, high)


def test_fraction_is_exact():
    # "1/4" as printed in chapter 23 ("P@4 = 1/4") admits exactly one value.
    claimed = parse_claimed("1/4")
    assert claimed.exact
    assert claimed.contains(F(1, 4))
    assert not claimed.contains(F(1, 4) + F(1, 10**12))


# (printed, value, inside?): hand-checked membership at and around the bounds.
MEMBERSHIP = [
    ("≈ .4884", F(21, 43), True),     # 21/43 = 0.488372… lies in [.48835, .48845] (chapter 23's own ratio)
    ("≈ .4884", F("0.4883"), False),  # 0.4883 < 0.48835
    ("0.33", F(1, 3), True),          # 0.3333… in [0.325, 0.335]
    ("0.33", F("0.336"), False),      # above 0.335
    ("80%", F(4, 5), True),           # 0.8
    ("< 1", F(1, 2), True),           # half-line below one
    ("< 1", F(1), False),             # strict: 1 itself is excluded
]


@pytest.mark.parametrize("printed, value, inside", MEMBERSHIP,
                         ids=[f"{c[0]} ∋ {c[1]}: {c[2]}" for c in MEMBERSHIP])
def test_contains(printed, value, inside):
    assert parse_claimed(printed).contains(value) is inside


def test_less_than_is_one_sided():
    claimed = parse_claimed("< 1")
    assert (claimed.low, claimed.high, claimed.high_closed) == (None, F(1), False)


def test_tolerance_widens_loose_value():
    # "about 0.9" with the claim's tolerance 0.05 means [0.85, 0.95].
    claimed = parse_claimed("about 0.9", tolerance="0.05")
    assert (claimed.low, claimed.high) == (F("0.85"), F("0.95"))
    assert claimed.contains(F("0.94")) and not claimed.contains(F("0.96"))


def test_float_from_reference_inside_exact_fraction():
    # float64 cannot hold 1/3; a reference's 0.333…33 must still count as 1/3
    # (FLOAT_TOLERANCE, relative 1e-9, applies to floats only).
    assert parse_claimed("1/3").contains(1 / 3)


@pytest.mark.parametrize("printed", ["0.666666666667", "0.6666666667", "0.66666666667"])
def test_float_inside_a_value_printed_to_many_places(printed):
    # Python 2's str() and "%.12f" print 2/3 as 0.666666666667: pytrec_eval's 0.6666666666666666 lies in
    # [0.6666666666665, 0.6666666666675). The float slack (relative 1e-9) once narrowed the open upper bound past
    # the whole interval, so every reference was "outside" and a true recall was qualified.
    assert parse_claimed(printed).contains(2 / 3)
    # and a float truly outside the printed interval stays outside
    assert not parse_claimed(printed).contains(2 / 3 + 1e-9)


def test_exact_fraction_near_exact_claim_is_outside():
    # The float tolerance is for floats only: an exact value 1e-12 off is a different value.
    assert not parse_claimed("1/3").contains(F(1, 3) + F(1, 10**12))


# Open bounds: a float exactly at the bound is *at* the bound, not below or above it.
OPEN_BOUND_FLOATS = [
    ("< 1", 1.0),   # e.g. nDCG@4 = 1.0 from a reference against a claim "< 1" (chapter 23 table, C33)
    ("> 0", 0.0),   # e.g. RR@4 = 0.0 from a reference against a claim "> 0"
]


# Regression: the float slack used to widen open bounds too, so 1.0 counted as "< 1".
@pytest.mark.parametrize("printed, value", OPEN_BOUND_FLOATS, ids=[c[0] for c in OPEN_BOUND_FLOATS])
def test_open_bound_excludes_float_at_bound(printed, value):
    assert parse_claimed(printed).contains(value) is False


# --- parse_claimed: bad values ---------------------------------------------------------------

# (value, text the message must contain): the message names the value as found.
BAD_VALUES = [
    ("abc", "'abc'"),
    ("1/0", "'1/0'"),
    (0.5, "0.5"),     # a bare YAML float loses the printed precision; must be quoted text
    ("", "''"),
]


@pytest.mark.parametrize("value, named", BAD_VALUES, ids=[repr(c[0]) for c in BAD_VALUES])
def test_bad_value_raises_naming_it(value, named):
    with pytest.raises(ValueParseError) as info:
        parse_claimed(value)
    assert named in str(info.value)


# Regression: a negative tolerance used to build an empty interval (0.95 … 0.85) silently.
def test_negative_tolerance_is_rejected():
    with pytest.raises(ValueParseError, match="-0.05"):
        parse_claimed("about 0.9", tolerance="-0.05")


# --- parse_expression: exact, and never eval ---------------------------------------------------

EXPRESSIONS = [
    ("21/(21+16)", F(21, 37)),   # chapter 23: "The selector’s own figure, 21/(21+16)"
    ("0.1+0.2", F(3, 10)),       # decimals read from their text: exactly 3/10, not 0.30000000000000004
    ("21 + 6 + 16", F(43)),      # chapter 23's whole-cohort positives
]


@pytest.mark.parametrize("text, value", EXPRESSIONS, ids=[c[0] for c in EXPRESSIONS])
def test_parse_expression_exact(text, value):
    result = parse_expression(text)
    assert isinstance(result, Fraction)
    assert result == value


# Powers are read (2**8 = 256, tests/test_arithmetic_functions.py); other operators are not.
BAD_EXPRESSIONS = ['__import__("os")', "a+1", "2 % 8", "1/0"]


@pytest.mark.parametrize("text", BAD_EXPRESSIONS)
def test_parse_expression_rejects(text):
    with pytest.raises(ValueParseError) as info:
        parse_expression(text)
    assert repr(text) in str(info.value)


def test_parse_expression_does_not_use_eval(monkeypatch):
    # With eval and exec unavailable, expressions are still computed: the AST is walked.
    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec called")
    monkeypatch.setattr("builtins.eval", forbidden)
    monkeypatch.setattr("builtins.exec", forbidden)
    assert parse_expression("21/(21+16)") == F(21, 37)


# --- write_like: a correction printed the way the claim was printed ---------------------------

WRITE_LIKE = [
    ("≈ .4884", F(27, 43), "≈ .6279"),   # 27/43 = 0.627906…; chapter 23 prints it "≈ .6279"
    ("≈ .4883", F(21, 43), "≈ .4884"),   # 21/43 = 0.488372… rounds to .4884
    ("1/3", F(1, 4), "1/4"),             # fraction style stays a fraction
    ("80%", F(1, 4), "25%"),             # exact in whole percents: no ≈
]


@pytest.mark.parametrize("printed, value, written", WRITE_LIKE, ids=[f"{c[0]}→{c[2]}" for c in WRITE_LIKE])
def test_write_like(printed, value, written):
    assert parse_claimed(printed).write_like(value) == written


def test_nan_lies_in_no_interval_and_infinity_only_in_an_open_ended_one():
    """ranx returns NaN for bpref when no judged non-relevant document exists (ranx/metrics/bpref.py divides by
    min(|R|, |N|) = 0): NaN is in no claimed interval; +inf only in one with no upper bound."""
    assert not parse_claimed("1.0").contains(float("nan"))
    assert not parse_claimed("about 0.5").contains(float("nan"))
    assert not parse_claimed("1.0").contains(float("inf"))
    assert parse_claimed("> 0").contains(float("inf"))
    assert not parse_claimed("> 0").contains(float("-inf"))


def test_a_50_digit_value_too_near_a_printed_bound_is_undecided_not_guessed():
    """The evaluator's irrational values are 50-digit roundings (relative error far below 10^-45): nearer than that
    to a printed bound the comparison cannot be trusted, and is reported instead of decided. Any farther, it is
    decided as the exact value would be (a printed bound has at most 30 digits)."""
    from fractions import Fraction

    from audit.errors import UndecidedError
    from audit.model.values import parse_claimed
    claimed = parse_claimed("0.63093")              # [0.630925, 0.630935]
    near = Fraction(630925 * 10**44 + 1, 10**50)    # 0.630925 + 10^-50, a 50-digit decimal
    with pytest.raises(UndecidedError):
        claimed.contains(near)
    assert claimed.contains(Fraction(630930 * 10**44 + 1, 10**50))       # well inside
    assert not claimed.contains(Fraction(630924 * 10**44 + 1, 10**50))   # well outside
    assert claimed.contains(Fraction(630925, 10**6))                      # an exact value on the bound


def test_a_typeset_minus_and_an_equals_sign_are_read_as_printed():
    """“−0.05” (U+2212, as typeset) is −1/20 with its printed precision [−0.055, −0.045]; “= .04” (a p-value as
    APA style prints it) is .04, i.e. [0.035, 0.045], and a correction is written as the value is, without the sign."""
    from fractions import Fraction

    from audit.model.values import parse_claimed
    minus = parse_claimed("\u22120.05")
    assert (minus.nominal, minus.low, minus.high) == (Fraction(-1, 20), Fraction(-55, 1000), Fraction(-45, 1000))
    equals = parse_claimed("= .04")
    assert (equals.low, equals.high) == (Fraction(35, 1000), Fraction(45, 1000))
    assert equals.write_like(Fraction(3, 100)) == ".03"


@pytest.mark.parametrize("printed, exact, approx", [
    # log2(4) = 2, so 3/2
    (r"\frac{3}{\log_2 4}", Fraction(3, 2), None),
    # 1/2 · (1 + 1/3) = 1/2 · 4/3 = 2/3
    (r"\tfrac{1}{2} \cdot (1 + \tfrac{1}{3})", Fraction(2, 3), None),
    # nested: (1 + 2/3)/2 = 5/6
    (r"\dfrac{1 + \frac{2}{3}}{2}", Fraction(5, 6), None),
    # 0.912 × 10 = 9.12, written with x and with \times
    (".912 x 10", Fraction(912, 100), None),
    (r"0.912 \times 10", Fraction(912, 100), None),
    # 2/log2(3) = 2 ln 2 / ln 3 = 1.2618595071429148… (math.log2)
    (r"\dfrac{2}{\log_2(3)}", None, 2 / __import__("math").log2(3)),
    (r"\frac{1}{\log_{2}(2+1)}", None, 1 / __import__("math").log2(3)),
    # the discount sum 1/log2(2) + 1/log2(3) + 1/log2(4) = 1 + 0.6309297535714574 + 0.5
    (r"\sum_{i=1}^{3} \frac{1}{\log_2(i+1)}", None, 1 + 1 / __import__("math").log2(3) + 0.5),
    # DCG of grades 3, 2, 3 with discount log2(i + 1): 3 + 2/log2(3) + 3/2 = 5.7618595071429148…
    (r"3 + \frac{2}{\log_2 3} + \frac{3}{2}", None, 3 + 2 / __import__("math").log2(3) + 1.5),
])
def test_latex_and_x_products_are_read_as_the_text_prints_them(printed, exact, approx):
    """LaTeX arithmetic (\\frac, \\tfrac, \\dfrac, \\log_2 with and without braces or parentheses, \\cdot, \\times,
    \\sum written out term by term) and a product written with "x" are read by the expression reader; the values are
    computed by hand (exact) or with Python's math.log2 (irrational)."""
    from audit.model.expressions import expression_interval
    lo, hi, is_exact = expression_interval(printed, digits=15)
    if exact is not None:
        assert is_exact and lo == hi == exact
    else:
        assert not is_exact and abs(float(lo) - approx) < 1e-12 and abs(float(hi) - approx) < 1e-12


def test_a_sum_over_a_symbol_the_text_does_not_give_is_refused_by_name():
    """\\sum_{i=1}^{4} 2^{g_i}/i needs the grades g_i, which the expression does not give: refused, not guessed."""
    with pytest.raises(ValueParseError, match="cannot read expression"):
        parse_expression(r"\sum_{i=1}^{4} \frac{2^{g_i}}{i}")


@pytest.mark.parametrize("printed, inside, outside", [
    # scipy prints a tiny p-value in e-notation: the mantissa's digits are the printed precision
    ("1.67e-35", F(1669, 10**38), F(1676, 10**38)),
    ("2.5E-3", F(249, 100000), F(256, 100000)),
    # a full double printed by Python in e-notation holds the double within a few units in its last place
    ("1.6693111780797145e-35", 1.6693111780797147e-35, 1.6693e-35),
    ("< 1e-5", F(9, 10**6), F(2, 10**5)),
])
def test_a_value_printed_in_e_notation(printed, inside, outside):
    claimed = parse_claimed(printed)
    assert claimed.contains(inside) and not claimed.contains(outside)


def test_a_correction_of_an_e_notation_value_keeps_its_notation():
    # a one-sided p of 0.41584 (scipy's ttest_rel, alternative="greater", when "less" gives 0.58416) printed where
    # 1.67e-35 stood is written back in the same notation and digits
    assert parse_claimed("1.67e-35").write_like(F(41584, 100000)) == "≈ 4.16e-01"


@pytest.mark.parametrize("mark", ["≅", "≃"])
def test_other_approximation_marks_read_as_approximately(mark):
    # "MRR = 1/3 (0.5 + 1 + 0.2) ≅ 0.57": a notebook's approximately-equal sign
    claimed = parse_claimed(f"{mark} 0.57")
    assert claimed.approximate and claimed.contains(F(17, 30))


def test_a_double_that_is_exactly_a_float32_stands_for_a_single_precision_computation():
    # PyTorch computes in float32 and prints through .item(): catalyst's MAP@10 docstring prints 0.5325397253036499,
    # the float32 nearest 671/1260 = 0.53253968…, 2.4e-8 away: within a few float32 units in the last place
    assert parse_claimed("0.5325397253036499").contains(F(671, 1260))
    # a double that is no float32 keeps a double's few units: 1/log2(3) printed in full does not hold 0.6309298
    assert not parse_claimed("0.6309297535714575").contains(F(6309298, 10**7))


def test_an_interval_is_shown_to_the_places_that_tell_its_ends_apart():
    # a value printed to twelve places spans 1e-12: shown to six places its ends were the same number
    assert parse_claimed("0.666666666667").interval() == "[0.6666666666665, 0.6666666666675]"
    assert parse_claimed("0.4884").interval() == "[0.48835, 0.48845]"
