"""Checkers, one module per claim kind. Adding a kind is one new module and one line here."""

from __future__ import annotations

from audit.evaluation.checks import (
    arithmetic,
    code,
    comparison,
    convention,
    property,
    standing,
    statistic,
    value,
)
from audit.evaluation.checks.common import Measurements

CHECKERS = {
    "value": value.check,
    "comparison": comparison.check,
    "arithmetic": arithmetic.check,
    "convention": convention.check,
    "property": property.check,
    "code": code.check,
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
