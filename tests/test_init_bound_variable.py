"""Arithmetic on an expression in one variable whose value the clause gives ("(1 − p)p^2 = 0.128 at p = 0.8"), as an
RBP page prints a rank's weight. `audit init` drafts it as arithmetic with the value put in, and leaves the rest of
the sentence (a total of terms printed elsewhere) to a draft; an expression whose variable no clause binds stays a
draft.

Right values by hand: (1 − 0.8) × 0.8^2 = 0.2 × 0.64 = 0.128; 1 − 0.8^2 = 0.36, not the printed 0.5 (planted).
"""

from __future__ import annotations

from chapters import init_and_run

PAGE = """\
# RBP weights

A user moves on with probability p, the persistence. The result at rank 3 weighs (1 − p)p^2 = 0.128 at p = 0.8, for a total weight of about 0.488 over the top three. A user reads past the second result with probability 1 − p^2 = 0.5 at p = 0.8.

RBP gives rank 4 the weight (1 − p)p^3 = 0.1024.
"""


def test_the_right_values():
    assert round((1 - 0.8) * 0.8 ** 2, 6) == 0.128
    assert round(1 - 0.8 ** 2, 6) == 0.36


def test_an_expression_in_a_bound_variable_is_arithmetic_on_its_value(tmp_path):
    _, _, claims = init_and_run(tmp_path, "rbp.md", PAGE, "rbp")
    by_quote = {c["quote"]: (c["kind"], c["verdict"]) for c in claims}
    assert by_quote["(1 − p)p^2 = 0.128 at p = 0.8"] == ("arithmetic", "supported"), claims
    assert by_quote["1 − p^2 = 0.5 at p = 0.8"] == ("arithmetic", "contradicted"), claims
    # the total adds terms the sentence does not print: the author's
    assert any(c["kind"] == "draft" and "0.488" in c["quote"] for c in claims), claims
    # no value of p in its clause: no arithmetic
    assert not [c for c in claims if "0.1024" in c["quote"] and c["kind"] == "arithmetic"], claims
    assert [c for c in claims if "0.1024" in c["quote"] and c["kind"] == "draft"], claims
