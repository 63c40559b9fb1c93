"""Checkers, one module per claim kind. Adding a kind is one new module and one line here."""

from __future__ import annotations

from . import arithmetic, comparison, convention, value
from .common import Measurements

CHECKERS = {
    "value": value.check,
    "comparison": comparison.check,
    "arithmetic": arithmetic.check,
    "convention": convention.check,
}

__all__ = ["CHECKERS", "Measurements"]
