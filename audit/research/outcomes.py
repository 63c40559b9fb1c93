"""Why a finding gets no hunk: no checked text could be written (``Skip``), or one was written and its re-check
failed (``Withdrawn``). Every planner of the proposal raises them; the proposal lists the finding as not proposed,
with the message as its reason."""

from __future__ import annotations


class Skip(Exception):
    """No checked text for this finding; the message says why."""


class Withdrawn(Exception):
    """A text was written but its check failed: it is not proposed as a fix."""
