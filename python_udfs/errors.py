"""Errors raised by the CQL value and type layer.

Both are ``ValueError`` subclasses so callers can catch either one broadly; the message always
names what was expected and the offending input, so a user can fix the row.
"""
from __future__ import annotations

import re

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class CqlValueError(ValueError):
    """A JSON value (or key) cannot be read as the CQL type it is declared with."""


class CqlTypeError(CqlValueError):
    """A CQL type text cannot be parsed, or names an unknown user-defined type."""


def problem_text(error: Exception) -> str:
    """What a row's value could not be read as, from any exception reading it raised: a
    ``CqlValueError`` says it itself; anything else (deep nesting, an overflow, ...) is named.
    UTF-8 safe (``utf8_safe``): it names the offending value."""
    return utf8_safe(str(error) if isinstance(error, CqlValueError)
                     else f"cannot be read ({type(error).__name__}: {error})")


def utf8_safe(text: str) -> str:
    """``text`` with each lone surrogate (JSON's ``\\ud800``, which Python reads into a str)
    written as its escape: what goes back to Spark must be UTF-8, which cannot hold one."""
    return LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
