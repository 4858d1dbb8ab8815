"""The CQL front door: a CQL script -> base-mutation atoms and base-table schema records.

``run_script(text, now_us=...)`` parses a script (``parser``), applies its DDL to a catalog
(``catalog``) and turns each INSERT/UPDATE/DELETE/BATCH into the atoms ScyllaDB's CQL layer
would put into the base mutation (``mutations``, docs/scylla/log.md §3), ready for the
``cdc_input.base_mutations`` / ``base_tables`` / ``base_columns`` tables.
"""
from cdclake.cql.errors import (
    CqlAlreadyExistsError, CqlConfigurationError, CqlError, CqlRequestError, CqlSyntaxError, CqlUnsupportedError,
)
from cdclake.cql.interpreter import ScriptResult, StatementError, run_script
from cdclake.cql.parser import parse_script, parse_statement

__all__ = [
    "CqlAlreadyExistsError", "CqlConfigurationError", "CqlError", "CqlRequestError", "CqlSyntaxError",
    "CqlUnsupportedError", "ScriptResult", "StatementError", "parse_script", "parse_statement", "run_script",
]
