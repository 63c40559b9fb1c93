"""audit.model.values and audit.evaluation.checks.arithmetic: logarithms, roots, exp and powers.

Texts about DCG print sums such as "DCG@5 = 3/log2(2) + 2/log2(3) + 3/log2(4) + 1/log2(6) ≈ 6.149".
An expression is computed exactly while every step stays rational (``log2(8)`` = 3,
``sqrt(9/4)`` = 3/2, ``2^3 - 1`` = 7) and as a certified enclosure (``mpmath.iv``) once a step
is irrational; the arithmetic check decides on the enclosure. Every expected value below is
computed independently here, with Python's ``math`` or with ``mpmath`` at 60 digits (a
floating-point ``MPContext`` of the tests' own, not the interval arithmetic the code uses), or by
hand.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from audit.attribution.verdict import decide
from audit.errors import RegisterError, ValueParseError
from audit.evaluation.checks import arithmetic
from audit.model import limits
from audit.register.claims import ArithmeticClaim, load_chapter
from audit.model.values import format_certified, parse_claimed
from audit.model.expressions import expression_interval, parse_expression

F = Fraction
MP = mpmath.MPContext()  # a 60-digit floating-point context of the tests' own
MP.dps = 60


def mp_fraction(x) -> Fraction:
    """A 60-digit mpmath float as a rational, within 1e-58 relative of it."""
    return Fraction(MP.nstr(x, 65))


def claim(expression: str, claimed: str) -> ArithmeticClaim:
    # the quote prints the claimed value, as a chapter's sentence does (a value it does not print is an error)
    return ArithmeticClaim(id="A1", title="t", kind="arithmetic", quote=f"{expression} is {claimed}", claim="c",
                           expression=expression, claimed=claimed)


def verdict(expression: str, claimed: str):
    """(decision, evidence) of the arithmetic check; no set measure, so no chapter or references."""
    evidence = arithmetic.check(claim(expression, claimed), None, None)
    return decide(evidence), evidence


# --- exact when every step stays rational ---------------------------------------------------------

# (expression, exact value, where the value comes from)
EXACT = [
    ("log2(8)", F(3), "2**3 = 8"),
    ("log10(1000)", F(3), "10**3 = 1000"),
    ("log(8, 4)", F(3, 2), "4**(3/2) = 2**3 = 8"),
    ("log2(1/8)", F(-3), "2**-3 = 1/8"),
    ("log(1)", F(0), "e**0 = 1"),
    ("exp(0)", F(1), "e**0 = 1"),
    ("2^3 - 1", F(7), "2*2*2 - 1; the exponential gain of grade 3"),
    ("(2**2-1)/log2(4)", F(3, 2), "(4 - 1)/2"),
    ("sqrt(9/4)", F(3, 2), "(3/2)**2 = 9/4"),
    ("10**-2", F(1, 100), "1/10**2"),
    ("8**(1/3)", F(2), "2**3 = 8"),
    ("(4/9)**1.5", F(8, 27), "(2/3)**3; 1.5 is read as exactly 3/2"),
]


@pytest.mark.parametrize("text, value, source", EXACT, ids=[c[0] for c in EXACT])
def test_rational_steps_stay_exact(text, value, source):
    lo, hi, exact = expression_interval(text)
    assert exact is True
    assert lo == hi == value
    result = parse_expression(text)
    assert isinstance(result, Fraction) and result == value


def test_caret_is_power_with_powers_precedence():
    # Python reads 2^3 - 1 as 2 XOR (3 - 1) = 0; texts mean (2**3) - 1 = 7. Power is right-associative
    # (2^3^2 = 2**9 = 512) and binds tighter than unary minus (-2^2 = -(2**2) = -4).
    assert 2 ^ 3 - 1 == 0
    assert parse_expression("2^3 - 1") == 7
    assert parse_expression("2^3^2") == 512
    assert parse_expression("-2^2") == -4
    assert parse_expression("2^-1") == F(1, 2)


def test_ln_of_a_number_without_parentheses():
    # "ln 2" as printed: ln(2) = 0.69314718055994530941… (math.log(2)).
    assert abs(float(parse_expression("ln 2")) - math.log(2)) < 1e-15
    assert parse_expression("3/ln 2") == parse_expression("3/ln(2)")


def test_log_is_the_natural_logarithm():
    # log(x) is math.log(x) (natural), never guessed to be base 2: log(8) = 2.0794415416798357…
    assert abs(float(parse_expression("log(8)")) - math.log(8)) < 1e-15
    assert parse_expression("log(8, 2)") == 3
    assert abs(float(parse_expression("4/log(2)")) - 4 / math.log(2)) < 1e-14  # 5.770780163555853…


# --- irrational values: certified enclosures ------------------------------------------------------

# DCG@5 of grades 3, 2, 3, 0, 1 with linear gain: 3/log2(2) + 2/log2(3) + 3/log2(4) + 1/log2(6)
# = 3 + 1.2618595071429148… + 1.5 + 0.38685280723454163… = 6.1487123143774564…
DCG = "3/log2(2) + 2/log2(3) + 3/log2(4) + 1/log2(6)"
DCG_MP = (MP.mpf(3) / MP.log(2, 2) + MP.mpf(2) / MP.log(3, 2) + MP.mpf(3) / MP.log(4, 2)
          + MP.mpf(1) / MP.log(6, 2))
DCG_MATH = 3 / math.log2(2) + 2 / math.log2(3) + 3 / math.log2(4) + 1 / math.log2(6)


def test_irrational_value_is_a_certified_enclosure():
    lo, hi, exact = expression_interval(DCG)
    assert exact is False
    assert 0 < hi - lo < F(1, 10**40)
    expected = mp_fraction(DCG_MP)  # within 1e-58 of the true value
    assert lo - F(1, 10**55) <= expected <= hi + F(1, 10**55)
    assert abs(float(parse_expression(DCG)) - DCG_MATH) < 1e-14
    assert lo <= parse_expression(DCG) <= hi  # the midpoint


@pytest.mark.parametrize("text, expected", [
    ("2/log2(3)", 2 / MP.log(3, 2)),                 # 1.2618595071429148…
    ("(2**2-1)/log2(3)", 3 / MP.log(3, 2)),          # 1.8927892607143723…
    ("sqrt(0.5*0.3)", MP.sqrt(MP.mpf(15) / 100)),    # 0.3872983346207417…
    ("exp(1)", MP.e),                                # 2.718281828459045…
    ("2**0.5", MP.sqrt(2)),                          # 1.4142135623730951…
    ("log(10, 3)", MP.log(10) / MP.log(3)),          # 2.095903274289385…
    ("log2(3) - 1.58496250072115618145373894394", MP.log(3, 2) - MP.mpf("1.58496250072115618145373894394")),
])
def test_irrational_enclosures_hold_the_value(text, expected):
    lo, hi, exact = expression_interval(text)
    assert exact is False
    assert hi - lo < F(1, 10**40) * max(1, abs(lo))
    assert lo - F(1, 10**55) <= mp_fraction(expected) <= hi + F(1, 10**55)


def test_more_digits_narrow_the_enclosure():
    lo, hi, _ = expression_interval("2/log2(3)", digits=300)
    assert hi - lo < F(1, 10**300)
    lo40, hi40, _ = expression_interval("2/log2(3)")
    assert lo40 <= lo and hi <= hi40


def test_certified_value_is_shown_short():
    lo, hi, _ = expression_interval(DCG)
    assert format_certified(lo, hi) == "≈ 6.148712314 (certified)"  # 6.1487123143774564… to 10 digits


# --- the check decides on the enclosure -----------------------------------------------------------

def test_printed_rounding_inside_is_supported():
    # 6.14871… lies in [6.1485, 6.1495], the interval "≈ 6.149" stands for.
    decision, evidence = verdict(DCG, "≈ 6.149")
    assert decision.verdict == "supported"
    assert "≈ 6.148712314 (certified)" in evidence.scopes[0]
    value = evidence.checks[0].values[0]
    assert value.exact is None and value.in_interval is True and "certified to 40 digits" in value.detail


def test_printed_rounding_one_digit_off_is_contradicted():
    # "≈ 6.148" stands for [6.1475, 6.1485]; 6.14871… is above it. The correction is printed the same way.
    decision, evidence = verdict(DCG, "≈ 6.148")
    assert decision.verdict == "contradicted"
    assert "≈ 6.148712314 (certified)" in decision.reason
    assert "Change “≈ 6.148” to “≈ 6.149”." in decision.response
    assert "/" not in decision.reason.split("(certified)")[0].split("≈")[-1]  # no long fraction printed


def test_irrational_value_against_a_fraction_claim_is_corrected_as_a_decimal():
    # 2/log2(3) = 1.2618595071… is not 5/4; the correction is a 10-digit decimal, not a dyadic fraction.
    decision, _ = verdict("2/log2(3)", "5/4")
    assert decision.verdict == "contradicted"
    assert "Change “5/4” to “≈ 1.261859507”." in decision.response


# log2(3) = 1.58496250072115618145… (MP.log(3, 2)). A claim printed to 14 places stands for
# ± 5e-15: "1.58496250072116" is [1.584962500721155, 1.584962500721165], whose lower bound is
# 1.18e-15 below the value; "1.58496250072115" is [1.584962500721145, 1.584962500721155], whose
# upper bound is 1.18e-15 below it.
@pytest.mark.parametrize("printed, outcome", [("1.58496250072116", "supported"), ("1.58496250072115", "contradicted")])
def test_value_within_1e_12_of_a_bound_is_decided(printed, outcome):
    value = mp_fraction(MP.log(3, 2))
    bound = F("1.584962500721155")
    assert 0 < value - bound < F(1, 10**12)
    decision, _ = verdict("log2(3)", printed)
    assert decision.verdict == outcome


def test_straddling_enclosure_is_refined():
    # exp(-150) = 7.2e-66 (math.exp(-150) = 7.17e-66): the enclosure of 1/4 + exp(-150) certified to
    # 40 digits (about 1e-52 wide) straddles 1/4; to 100 digits it lies above 1/4, so "= 1/4" is
    # contradicted and "> 0.25" supported.
    assert 1e-66 < math.exp(-150) < 1e-65
    claimed = parse_claimed("1/4")
    lo, hi, exact = expression_interval("1/4 + exp(-150)", digits=40)
    assert exact is False and claimed.decide(lo, hi) is None
    decision, evidence = verdict("1/4 + exp(-150)", "1/4")
    assert decision.verdict == "contradicted"
    assert "certified to 100 digits" in evidence.checks[0].values[0].detail
    assert verdict("1/4 + exp(-150)", "> 0.25")[0].verdict == "supported"


def test_value_never_separated_from_a_bound_is_an_error_not_a_verdict():
    # sqrt(2)*sqrt(2) is 2, but as intervals it is [2 − ε, 2 + ε] at every precision.
    decision, evidence = verdict("sqrt(2)*sqrt(2)", "2")
    assert decision.verdict == "error"
    assert "cannot decide" in evidence.errors[0] and "300 digits" in evidence.errors[0]
    assert evidence.checks[0].values[0].in_interval is None


@pytest.mark.parametrize("printed, lo, hi, expected", [
    ("0.33", F("0.326"), F("0.334"), True),     # [0.325, 0.335] holds all of it
    ("0.33", F("0.336"), F("0.34"), False),     # wholly above
    ("0.33", F("0.33"), F("0.34"), None),       # straddles 0.335
    ("< 1", F("0.9"), F(1), None),              # may equal the open bound
    ("< 1", F(1), F("1.1"), False),             # at or above the open bound
    ("≤ 1", F("0.9"), F(1), True),              # a closed bound holds 1
])
def test_decide_on_an_enclosure(printed, lo, hi, expected):
    assert parse_claimed(printed).decide(lo, hi) is expected


# --- domain errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, names", [
    ("log(0)", "'0'"),
    ("1/log(0.5 - 0.5)", "'0.5 - 0.5'"),
    ("ln(-1)", "'-1'"),
    ("log2(-sqrt(2))", "'-sqrt(2)'"),
    ("sqrt(-2)", "'-2'"),
    ("sqrt(1 - sqrt(3))", "'1 - sqrt(3)'"),
    ("1/(3-3)", "'3-3' is 0"),
    ("2/log2(1)", "'log2(1)' is 0"),
    ("log(2, 1)", "base 1"),
    ("0**-1", "'0' is 0"),
    ("(-8)**(1/3)", "not a real number"),
    ("1/(sqrt(2)**2 - 2)", "cannot decide whether 'sqrt(2)**2 - 2' is zero"),
])
def test_domain_errors_name_the_subexpression(text, names):
    with pytest.raises(ValueParseError) as info:
        expression_interval(text)
    assert repr(text) in str(info.value)
    assert names in str(info.value)


# --- only the listed names; never eval ------------------------------------------------------------

@pytest.mark.parametrize("text, found", [
    ('__import__("os")', "calls '__import__'"),
    ('open("/etc/passwd")', "calls 'open'"),
    ('os.system("ls")', "calls 'os.system'"),
    ("math.log(2)", "calls 'math.log'"),
    ("(1).real", "attribute access"),
    ("pi", "the name 'pi'"),
    ("e**2", "the name 'e'"),
    ("log(x=2)", "keyword argument"),
    ("log(*[2])", "unpacks arguments"),
    ("log(8, 2, 3)", "3 arguments"),
    ("sqrt(4, 2)", "2 arguments"),
    ("lambda: 1", "a lambda"),
    ("[i for i in (1,)]", "a comprehension"),
    ("2 % 3", "the operator '%'"),
    ("1 if 1 else 2", "a conditional"),
])
def test_other_names_and_syntax_are_refused(text, found):
    with pytest.raises(ValueParseError) as info:
        parse_expression(text)
    assert repr(text) in str(info.value)
    assert found in str(info.value)


def test_functions_are_computed_without_eval(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec called")
    monkeypatch.setattr("builtins.eval", forbidden)
    monkeypatch.setattr("builtins.exec", forbidden)
    assert parse_expression("log2(8) + 2^3") == 11
    assert expression_interval("2/log2(3)")[2] is False


# --- huge powers are refused before they are computed ---------------------------------------------

@pytest.mark.parametrize("text, says", [
    ("10**10**10", f"limited to ±{limits.MAX_POWER_EXPONENT}"),     # the exponent 10**10 is refused
    ("2**100000", f"limited to ±{limits.MAX_POWER_EXPONENT}"),
    ("9^9^9", f"limited to ±{limits.MAX_POWER_EXPONENT}"),
    ("2**2**2**2**2", f"limited to ±{limits.MAX_POWER_EXPONENT}"),  # 2**65536
    ("(2**999)**2", f"beyond {limits.MAX_VALUE_BITS} bits"),          # exponent 2 is fine, the result is not
    ("10**-400", f"beyond {limits.MAX_VALUE_BITS} bits"),
    ("sqrt(2)**1000 * sqrt(2)**1000", f"beyond {limits.MAX_VALUE_BITS} bits"),  # 2**1000
    ("exp(exp(exp(10)))", f"2**±{limits.MAX_VALUE_BITS}"),
])
def test_huge_powers_are_refused_fast(text, says):
    start = time.perf_counter()
    with pytest.raises(ValueParseError) as info:
        expression_interval(text)
    assert time.perf_counter() - start < 1.0
    assert repr(text) in str(info.value) and says in str(info.value)


def test_largest_allowed_power_is_exact():
    # 2**999 has 1000 bits: within the limit, and exact.
    assert parse_expression("2**999") == 2**999


# --- a bad expression is a load-time error naming the claim and the field -------------------------

ARITHMETIC = """\
fixtures: {{}}
claims:
  - id: A1
    title: dcg
    kind: arithmetic
    quote: "DCG is 6.149"
    claim: the sum is 6.149
    expression: "{expression}"
    claimed: "≈ 6.149"
"""


def arithmetic_chapter(tmp_path: Path, expression: str) -> Path:
    folder = tmp_path / "ch"
    folder.mkdir()
    (folder / "chapter.yaml").write_text("id: ch\ntitle: Functions\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text("Summing the discounted gains, DCG is 6.149.\n", encoding="utf-8")
    (folder / "claims.yaml").write_text(ARITHMETIC.format(expression=expression), encoding="utf-8")
    return folder


@pytest.mark.parametrize("expression, says", [
    ("3/log2(0)", "logarithm of '0'"),
    ("os.system(1)", "calls 'os.system'"),
    ("2**100000", "limited to"),
])
def test_bad_expression_is_a_load_time_error(tmp_path, expression, says):
    with pytest.raises(RegisterError) as info:
        load_chapter(arithmetic_chapter(tmp_path, expression))
    assert info.value.claim == "A1" and info.value.field == "expression"
    assert says in str(info.value)


def test_expression_with_logarithms_loads(tmp_path):
    chapter = load_chapter(arithmetic_chapter(tmp_path, DCG))
    assert [c.id for c in chapter.register.claims] == ["A1"]


def test_a_sum_of_rounded_terms_is_checked_against_the_measure_it_computes(tmp_path):
    """Grades 3, 2, 1 at ranks 1-3, linear gain: DCG@3 = 3/log2(2) + 2/log2(3) + 1/log2(4) = 3 + 1.2618595 + 0.5
    = 4.7618595 (math.log2 by hand). Printed as "3 + 1.26 + 0.5 = 4.760": the sum of the printed terms holds,
    the exact DCG@3 does not, and the gap (0.0019) is within the terms' rounding (0.005 + 0.05) → qualified, the
    rounding named with both numbers. "= 4.762" with "1.262" holds both ways → supported. "= 4.86" fails the sum
    → contradicted."""
    from audit.evaluation.references import all_references
    from audit.register.claims import load_chapter
    from audit.run.audit import audit_chapter
    from audit.run.provenance import collect

    assert abs(3 + 2 / math.log2(3) + 1 / math.log2(4) - 4.7618595) < 1e-7
    folder = tmp_path / "ar"
    folder.mkdir()
    (folder / "chapter.yaml").write_text("id: ar\ntitle: ar\nconventions:\n  gain: {value: linear, quote: "
                                         "\"DCG@3 = 3 + 1.26 + 0.5\"}\n", encoding="utf-8")
    (folder / "snapshot.txt").write_text("DCG@3 = 3 + 1.26 + 0.5 = 4.760 here.\nDCG@3 = 3 + 1.262 + 0.5 = 4.762 "
                                         "there.\nDCG@3 = 3 + 1.26 + 0.5 = 4.86 too.\n", encoding="utf-8")
    (folder / "claims.yaml").write_text("""\
fixtures:
  f: {qrels: {q1: {a: 3, b: 2, c: 1}}, run: {q1: [a, b, c]}}
claims:
  - {id: R1, title: rounded, kind: arithmetic, quote: "DCG@3 = 3 + 1.26 + 0.5 = 4.760 here.", claim: x,
     expression: "3 + 1.26 + 0.5", claimed: "4.760", computes: {measure: "DCG@3", fixture: f}}
  - {id: R2, title: fine, kind: arithmetic, quote: "DCG@3 = 3 + 1.262 + 0.5 = 4.762 there.", claim: x,
     expression: "3 + 1.262 + 0.5", claimed: "4.762", computes: {measure: "DCG@3", fixture: f}}
  - {id: R3, title: slip, kind: arithmetic, quote: "DCG@3 = 3 + 1.26 + 0.5 = 4.86 too.", claim: x,
     expression: "3 + 1.26 + 0.5", claimed: "4.86", computes: {measure: "DCG@3", fixture: f}}
""", encoding="utf-8")
    report = audit_chapter(load_chapter(folder), all_references(), collect("test"))
    by_id = {c.id: c for c in report.claims}
    assert by_id["R1"].verdict == "qualified"
    assert "4.76" in by_id["R1"].reason and "4.761860" in by_id["R1"].reason and "rounded" in by_id["R1"].reason
    assert "≈ 4.762" in by_id["R1"].response
    assert by_id["R2"].verdict == "supported"
    assert by_id["R3"].verdict == "contradicted"


@pytest.mark.parametrize("expression, claimed", [("32/32", -1180591620717411303424), ("1 + 1", 3), ("6/3", 3)])
def test_an_integer_claimed_unquoted_is_read_as_its_text(expression, claimed):
    """A register may write an integer claimed value unquoted (``claimed: 3``). Where the sum does not give it,
    the check looks for terms the sentence prints rounded on its way, and read the claimed value as text there: an
    integer ended it with an internal error (AttributeError: 'int' object has no attribute 'lstrip'). 1 + 1 = 2 and
    6/3 = 2, not 3; 32/32 = 1."""
    decision, evidence = verdict(expression, claimed)
    assert decision.verdict == "contradicted", (decision, evidence)
    assert not any("internal error" in e for e in evidence.errors)
