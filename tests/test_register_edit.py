"""The upgrade proposal's edits to claims.yaml (``audit.research.register_edit``): placed from one reading of the
register, with its layout and comments kept, and read back to equal the intended data."""

from __future__ import annotations

import pytest
import yaml

from audit.research.register_edit import Edit, RegisterEditError, apply

REGISTER = """\
# the register's own comment
claims:
  - id: C1
    title: One relevant result gives P@4 = 1/3
    kind: value
    quote: "a single relevant result gives P@4 = 1/3"   # kept as written
    fixture: one
    expect:
      - {measure: "P@4", claimed: "1/3"}
  - {id: C2, title: flow style, kind: arithmetic, quote: "0 + 1 + 6 = 8", expression: "0 + 1 + 6", claimed: "8"}
  - id: C3
    title: a convention
    kind: convention
    conventions: {repeated_ids: reject}
    quote: "rejected"
"""


def test_edits_of_several_claims_keep_every_other_line():
    out = apply(REGISTER, [Edit("C1", "quote", "a single relevant result gives P@4 = 1/4"),
                           Edit("C1", "expect.0.claimed", "1/4"), Edit("C2", "claimed", "7")])
    assert out == REGISTER.replace('"a single relevant result gives P@4 = 1/3"',
                                   '"a single relevant result gives P@4 = 1/4"').replace(
        'claimed: "1/3"}', 'claimed: "1/4"}').replace('claimed: "8"}', 'claimed: "7"}')
    assert "# the register's own comment" in out and "# kept as written" in out


def test_a_field_set_twice_keeps_the_later_value():
    out = apply(REGISTER, [Edit("C1", "quote", "first"), Edit("C1", "quote", "second")])
    assert yaml.safe_load(out)["claims"][0]["quote"] == "second"
    assert out.count('"second"') == 1 and '"first"' not in out


def test_new_fields_are_added_after_the_claim_s_last_field_in_the_order_given():
    out = apply(REGISTER, [Edit("C3", "others", {"ranx": "keep last"}), Edit("C3", "note", "added"),
                           Edit("C2", "note", "flow")])
    c3 = out.split("  - id: C3\n")[1]
    assert c3.endswith('    quote: "rejected"\n    others: {"ranx": "keep last"}\n    note: "added"\n')
    assert ', note: "flow"}' in out
    data = yaml.safe_load(out)["claims"]
    assert data[2]["others"] == {"ranx": "keep last"} and data[1]["note"] == "flow"


def test_edits_whose_spans_overlap_are_placed_one_after_another():
    # the whole mapping, then one field inside it: the second edit is found in the text the first made
    out = apply(REGISTER, [Edit("C3", "conventions", {"repeated_ids": "keep first", "ties": "listed order"}),
                           Edit("C3", "conventions.repeated_ids", "keep last")])
    assert yaml.safe_load(out)["claims"][2]["conventions"] == {"repeated_ids": "keep last", "ties": "listed order"}


def test_an_edit_of_a_missing_claim_is_refused():
    with pytest.raises(RegisterEditError, match="claim C9 is not in the register"):
        apply(REGISTER, [Edit("C9", "quote", "x")])
