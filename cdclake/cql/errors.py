"""Errors of the CQL front door.

Three families, kept apart because callers treat them differently:

* ``CqlSyntaxError``: the script does not parse; nothing of it is run.
* ``CqlRequestError`` (and subclasses): ScyllaDB itself would reject the statement. The
  interpreter reports it, skips the statement and goes on, as ``cqlsh`` does. The message is
  ScyllaDB's own text where it is known; ``code`` is the CQL error code cqlsh prints.
* ``CqlUnsupportedError``: valid CQL that this front door cannot replay faithfully yet
  (non-frozen collections, LWT, counters, ...). It stops the script: a partial replay would
  silently produce a different CDC log.
"""
from __future__ import annotations

SYNTAX_ERROR = "2000 Syntax error in CQL query"
INVALID_QUERY = "2200 Invalid query"
CONFIGURATION_ERROR = "2300 Query invalid because of configuration issue"
ALREADY_EXISTS = "2400 Already exists"


class CqlError(Exception):
    """Base class of every error raised by ``cdclake.cql``."""


class CqlSyntaxError(CqlError):
    """The CQL text does not parse. ``line`` and ``column`` are 1-based."""

    def __init__(self, line: int, column: int, detail: str):
        super().__init__(f"line {line}, column {column}: {detail}")
        self.line = line
        self.column = column
        self.detail = detail


class CqlRequestError(CqlError):
    """A statement ScyllaDB would reject (``InvalidRequest``, code 0x2200)."""

    code = INVALID_QUERY

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class CqlConfigurationError(CqlRequestError):
    """A rejected table or keyspace property, e.g. a bad CDC option (code 0x2300)."""

    code = CONFIGURATION_ERROR


class CqlSyntaxRequestError(CqlRequestError):
    """A statement that parses but that ScyllaDB refuses with a syntax error when it checks it
    (e.g. an unknown tablet option; code 0x2000)."""

    code = SYNTAX_ERROR


class CqlAlreadyExistsError(CqlRequestError):
    """CREATE of a keyspace, table or type that exists (code 0x2400)."""

    code = ALREADY_EXISTS


class CqlUnsupportedError(CqlError):
    """Valid CQL this front door does not replay yet; the message names the construct."""
