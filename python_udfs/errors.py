"""Errors raised by the CQL value and type layer.

Both are ``ValueError`` subclasses so callers can catch either one broadly; the message always
names what was expected and the offending input, so a user can fix the row.
"""
from __future__ import annotations


class CqlValueError(ValueError):
    """A JSON value (or key) cannot be read as the CQL type it is declared with."""


class CqlTypeError(CqlValueError):
    """A CQL type text cannot be parsed, or names an unknown user-defined type."""


def problem_text(error: Exception) -> str:
    """What a row's value could not be read as, from any exception reading it raised: a
    ``CqlValueError`` says it itself; anything else (deep nesting, an overflow, ...) is named."""
    if isinstance(error, CqlValueError):
        return str(error)
    return f"cannot be read ({type(error).__name__}: {error})"
