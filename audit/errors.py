"""The one exception family: user-facing errors that the CLI prints without a traceback."""

from __future__ import annotations


class AuditError(Exception):
    """Base of every error chapter-audit raises on purpose.

    The message says what was expected, what was found, where, and what to do next.
    ``file``, ``claim`` and ``field`` locate the fault when known.
    """

    def __init__(self, message: str, *, file: str | None = None, claim: str | None = None,
                 field: str | None = None) -> None:
        self.message = message
        self.file = file
        self.claim = claim
        self.field = field
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = []
        if self.file:
            where.append(str(self.file))
        if self.claim and f"claim {self.claim}" not in self.message:
            where.append(f"claim {self.claim}")
        if self.field and f"field {self.field}" not in self.message:
            where.append(f"field {self.field}")
        return (": ".join([", ".join(where), self.message]) if where else self.message)


class RegisterError(AuditError):
    """A chapter folder or claim register is missing, malformed or fails validation."""


class ValueParseError(AuditError):
    """A claimed value or an arithmetic expression cannot be parsed."""


class MeasureError(AuditError):
    """A measure name is unknown or not supported by the chapter's evaluator."""


class RankingError(AuditError):
    """A ranking breaks the chapter's rules (for example a repeated document ID)."""


class ReadingDoesNotApply(AuditError):
    """A reading has no value on this input (ERR's top grade 4 on grades above 4, which gdeval.pl refuses)."""


class UndecidedError(AuditError):
    """A value computed to 50 significant digits (a sum of irrational logarithms) lies so near a printed bound that
    its rounding error could put it on either side."""


class RepeatedIDError(RankingError):
    """A ranking returns the same document ID more than once (chapter 23, §"Define the evaluated prefix")."""
