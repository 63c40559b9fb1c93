"""Numbers as texts typeset them, through a whole audit: a chapter sentence → its verdict.

Right values, by hand: MRR of first relevant ranks 1, 3, 2 is (1 + 1/3 + 1/2)/3 = 11/18 = 61.11 %; P@3 with two
relevant in the top three is 2/3 = 0.667; 20·19·18·17·16 = 1,860,480 ordered top-5 lists of twenty documents;
2^20 = 1,048,576 rankings; 1/4 − 3/10 = −1/20 = −0.05; 250/1000 = 0.25.
"""

from __future__ import annotations

import textwrap

import pytest

from audit.errors import ValueParseError
from audit.model.values import parse_claimed
from chapters import audit_text

THIN, NARROW, NBSP, MINUS = "\u2009", "\u202f", "\u00a0", "\u2212"

SNAPSHOT = textwrap.dedent(f"""\
    # Numbers as the chapter prints them

    Over the three questions the mean reciprocal rank is 61.1 %, and written tight it is 61.1%.

    With a thin space before the sign it is 61.1{THIN}%, and in the LaTeX source it is $61.1\\%$.

    Two of the top three are relevant, so P@3 ≈{NARROW}0.667, or P@3 ~ 0.67 for short.

    There are $20 \\cdot 19 \\cdot 18 \\cdot 17 \\cdot 16 = 1{{,}}860{{,}}480$ ordered top-5 lists of twenty documents.

    Twenty binary judgements admit 2^20 = 1{THIN}048{THIN}576 relevance patterns, or 1{NBSP}048{NBSP}576 with
    no-break spaces.

    With $1\\,000$ queries of which 250 are answered at rank 1, the share is 250/1000 = 0.25.

    Moving the passage down changes AP by 1/4 {MINUS} 3/10 = {MINUS}0.05.

    A draft dropped the sign: 1/4 {MINUS} 3/10 = 0.05.
    """)

CLAIMS = textwrap.dedent(f"""\
    fixtures:
      first-at-1-3-2:
        qrels: {{q1: {{a: 1, n: 0}}, q2: {{a: 1, n: 0, m: 0}}, q3: {{a: 1, n: 0}}}}
        run: {{q1: [a, n], q2: [n, m, a], q3: [n, a]}}
      two-of-three:
        qrels: {{q1: {{a: 1, b: 1, n: 0}}}}
        run: {{q1: [a, n, b]}}
    claims:
      - {{id: T1, title: percent with a space, kind: value, quote: "the mean reciprocal rank is 61.1 %",
         claim: MRR is 61.1 %, fixture: first-at-1-3-2, expect: [{{measure: RR, claimed: "61.1 %"}}]}}
      - {{id: T2, title: percent tight, kind: value, quote: "written tight it is 61.1%",
         claim: MRR is 61.1%, fixture: first-at-1-3-2, expect: [{{measure: RR, claimed: "61.1%"}}]}}
      - {{id: T3, title: percent after a thin space, kind: value, quote: "it is 61.1{THIN}%",
         claim: MRR is 61.1 %, fixture: first-at-1-3-2, expect: [{{measure: RR, claimed: "61.1{THIN}%"}}]}}
      - {{id: T4, title: LaTeX percent, kind: value, quote: "it is $61.1\\\\%$",
         claim: MRR is 61.1 %, fixture: first-at-1-3-2, expect: [{{measure: RR, claimed: "61.1\\\\%"}}]}}
      - {{id: T5, title: approximately after a narrow space, kind: value, quote: "P@3 ≈{NARROW}0.667",
         claim: P@3 is about 0.667, fixture: two-of-three, expect: [{{measure: P@3, claimed: "≈{NARROW}0.667"}}]}}
      - {{id: T6, title: a tilde, kind: value, quote: "P@3 ~ 0.67 for short",
         claim: P@3 is about 0.67, fixture: two-of-three, expect: [{{measure: P@3, claimed: "~ 0.67"}}]}}
      - {{id: T7, title: LaTeX thousands, kind: arithmetic, quote: "$20 \\\\cdot 19 \\\\cdot 18 \\\\cdot 17 \\\\cdot 16 = 1{{,}}860{{,}}480$",
         claim: "there are 1860480 ordered top-5 lists", expression: "20*19*18*17*16", claimed: "1{{,}}860{{,}}480"}}
      - {{id: T8, title: thin-space thousands, kind: arithmetic, quote: "2^20 = 1{THIN}048{THIN}576",
         claim: 2^20 patterns, expression: "2^20", claimed: "1{THIN}048{THIN}576"}}
      - {{id: T9, title: no-break-space thousands, kind: arithmetic, quote: "or 1{NBSP}048{NBSP}576 with",
         claim: 2^20 patterns, expression: "2^20", claimed: "1{NBSP}048{NBSP}576"}}
      - {{id: T10, title: LaTeX thin space, kind: arithmetic, quote: "With $1\\\\,000$ queries",
         claim: a thousand queries, expression: "4*250", claimed: "1\\\\,000"}}
      - {{id: T11, title: a typeset minus, kind: arithmetic, quote: "1/4 {MINUS} 3/10 = {MINUS}0.05",
         claim: AP falls by 0.05, expression: "1/4 {MINUS} 3/10", claimed: "{MINUS}0.05"}}
      - {{id: T12, title: a dropped sign, kind: arithmetic, quote: "A draft dropped the sign: 1/4 {MINUS} 3/10 = 0.05",
         claim: AP changes by 0.05, expression: "1/4 {MINUS} 3/10", claimed: "0.05"}}
    """)


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    report = audit_text(tmp_path_factory.mktemp("typeset"), SNAPSHOT, CLAIMS, title="Typeset numbers")
    return {c.id: c for c in report.claims}


@pytest.mark.parametrize("claim", ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8", "T9", "T10", "T11"])
def test_a_typeset_number_is_read_as_printed(audited, claim):
    r = audited[claim]
    assert r.verdict == "supported", (claim, r.reason)


def test_a_dropped_typeset_minus_is_contradicted_and_the_sign_restored(audited):
    r = audited["T12"]
    assert r.verdict == "contradicted", r.reason
    assert "-1/20" in r.reason or "−1/20" in r.reason or "−0.05" in r.reason, r.reason
    assert "0.05" in r.response and ("−0.05" in r.response or "-0.05" in r.response), r.response


@pytest.mark.parametrize("printed", ["0,611", "1,5", "61,1 %"])
def test_a_decimal_comma_is_refused_with_the_reading_it_needs(printed):
    """"0,611" is never 611: a first group of 0 is no thousands grouping, so the value is refused, saying why."""
    with pytest.raises(ValueParseError, match="decimal comma"):
        parse_claimed(printed)


@pytest.mark.parametrize("printed, value", [("1,000", 1000), ("−1,000", -1000), ("1,048,576", 1048576)])
def test_thousands_separators_still_read(printed, value):
    assert parse_claimed(printed).nominal == value
