"""Python a text prints, parsed as the audit reads it everywhere: code the parser cannot hold (nested too deeply,
too large) is code that is not Python a reader can run, never an internal error."""

from __future__ import annotations

import ast


def parse_code(source: str, *args, **kwargs) -> ast.AST:
    """``ast.parse``, with code nested too deeply for the parser (3,000 unary minus signs) or too large to hold
    raising ``SyntaxError`` like any other code that is not Python (CPython refuses it too)."""
    try:
        return ast.parse(source, *args, **kwargs)
    except (RecursionError, MemoryError):
        raise SyntaxError("too deeply nested to be read") from None
