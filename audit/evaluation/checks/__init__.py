"""Checkers, one module per claim kind. Adding a kind is one new module and one line here."""

from __future__ import annotations

from audit.evaluation.checks import (
    arithmetic,
    code,
    comparison,
    convention,
    property,
    returned,
    standing,
    stat_listing,
    statistic,
    value,
)
from audit.evaluation.checks.common import Measurements
from audit.register.listing_rules import LISTING_TESTS


def code_listing(claim, chapter, ms):
    """A code claim, by what its listing returns: a statistic of two systems' per-topic scores (``stat_listing``), a
    tuple of several results (``returned``), or one measure (``code``)."""
    if claim.measure in LISTING_TESTS:
        return stat_listing.check(claim, chapter, ms)
    if claim.returns:
        return returned.check(claim, chapter, ms)
    return code.check(claim, chapter, ms)


CHECKERS = {
    "value": value.check,
    "comparison": comparison.check,
    "arithmetic": arithmetic.check,
    "convention": convention.check,
    "property": property.check,
    "code": code_listing,
    "statistic": statistic.check,
    "systems": standing.check,
}

#: What each kind will measure, so the references can be called once for the whole chapter.
NEEDS = {
    "value": value.needs,
    "comparison": comparison.needs,
    "arithmetic": arithmetic.needs,
    "convention": convention.needs,
    "statistic": statistic.needs,
}

__all__ = ["CHECKERS", "NEEDS", "Measurements"]
