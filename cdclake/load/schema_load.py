"""``cdclake load schema FILE.cql``: a keyspace's schema, as cqlsh ``DESCRIBE KEYSPACE`` prints it,
into ``cdc_input.base_tables``, ``base_columns`` and ``base_types``.

The CREATE KEYSPACE, CREATE TYPE and CREATE TABLE statements (every table option; those the
log does not depend on are read and left) go through the CQL front door's catalog, so a table
gets exactly the records a CREATE through ``cdclake replay`` gives it. Statements the log does not
depend on (indexes, materialized views, functions, ...) are skipped with a note, and so are the
CDC log tables as the DESCRIBE outputs of ScyllaDB versions print them: ``ALTER TABLE
ks.t_scylla_cdc_log WITH ...`` after each CDC-enabled table (server-side DESCRIBE), ``CREATE TABLE
ks.t_scylla_cdc_log (...)`` (older cqlsh), or a ``/* Do NOT execute ... */`` comment (a comment,
skipped by the parser): ScyllaDB makes the log table from its base table, and so does the build.
Data statements are not schema and are refused (``cdclake load cql`` loads them). A table already in the
warehouse keeps its version when the file describes it unchanged and gets the next version
when it changed, as an ALTER TABLE would give it. A statement ScyllaDB would refuse is
reported with its line and ScyllaDB's message; the others load.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from cdclake.cql import ast
from cdclake.cql.catalog import CDC_LOG_SUFFIX
from cdclake.cql.cdc_options import parse_cdc_options
from cdclake.cql.errors import CqlError, CqlUnsupportedError
from cdclake.cql.interpreter import run_statements, short_statement
from cdclake.cql.parser import parse_script
from cdclake.load.cql_load import CqlLoad, location, refused_statements
from cdclake.load.refusals import Refusal
from cdclake.load.schema_records import BaseColumn, BaseTable, changed_types, latest_versions

SCHEMA_STATEMENTS = (ast.CreateKeyspace, ast.AlterKeyspace, ast.UseKeyspace, ast.CreateType, ast.AlterType,
                     ast.CreateTable, ast.AlterTable)


@dataclass
class SchemaLoad(CqlLoad):
    """What a schema file adds to the warehouse (new tables and versions, every type it defines;
    no writes), and what the load says about it."""

    outcomes: list[str] = field(default_factory=list)          # per table: new, changed or unchanged
    notes: list[str] = field(default_factory=list)             # statements skipped on purpose


def load_schema_text(text: str, path: str, now_us: int, existing: tuple[list, list, list]) -> SchemaLoad:
    """The records a schema file adds to ``existing`` (tables, columns, types of the warehouse).
    Raises ``CqlSyntaxError`` (with its line and column) when the file does not parse: then
    nothing loads."""
    return load_schema_statements(parse_script(text), path, now_us, existing)


def load_schema_statements(parsed: list, path: str, now_us: int, existing: tuple[list, list, list]) -> SchemaLoad:
    """``load_schema_text`` on a file's parsed statements."""
    load = SchemaLoad()
    statements = []
    log_tables = cdc_log_names(parsed, existing[0])
    keyspace = None
    for statement in parsed:
        where = location(path, statement)
        keyspace = statement.keyspace if isinstance(statement, ast.UseKeyspace) else keyspace
        if isinstance(statement, (ast.CreateTable, ast.AlterTable)) \
                and (statement.table.keyspace or keyspace, statement.table.name) in log_tables:
            verb = "CREATE TABLE" if isinstance(statement, ast.CreateTable) else "ALTER TABLE"
            load.notes.append(f"{where}: {verb} {statement.table.keyspace or keyspace}.{statement.table.name} "
                              "skipped (the CDC log table: the build makes it from its base table)")
        elif isinstance(statement, SCHEMA_STATEMENTS):
            statements.append(statement)
        elif isinstance(statement, ast.OtherStatement) and statement.kind.startswith(("CREATE", "ALTER")):
            load.notes.append(f"{where}: {statement.kind} skipped (CDC logs the base table's writes only)")
        else:
            load.problems.append(Refusal(where, "it is not a schema statement (cdclake load cql loads writes)",
                                         short_statement(statement.text)))
    try:
        result = run_statements(statements, now_us=now_us, step_us=0)
    except CqlUnsupportedError as error:
        load.problems.append(Refusal(path, str(error)))
        return load
    load.problems += refused_statements(result.errors, statements, path)

    old_tables, old_columns, _ = existing
    old_latest = {(t.keyspace_name, t.table_name): t for t in latest_versions(old_tables)}
    final_columns = result.final_columns()
    for table in result.final_tables():
        key = (table.keyspace_name, table.table_name)
        columns = [c for c in final_columns if (c.keyspace_name, c.table_name) == key]
        old = old_latest.get(key)
        if old is None:
            version, created_ms, outcome = 0, None, "new"
        elif _same(table, columns, old, [c for c in old_columns if (c.keyspace_name, c.table_name) == key
                                         and c.schema_version == old.schema_version]):
            load.outcomes.append(f"{key[0]}.{key[1]}: unchanged (schema version {old.schema_version})")
            continue
        else:
            version, created_ms, outcome = old.schema_version + 1, old.cdc_log_created_ms, "changed"
        load.tables.append(replace(table, schema_version=version, cdc_log_created_ms=created_ms))
        load.columns += [replace(c, schema_version=version) for c in columns]
        load.outcomes.append(f"{key[0]}.{key[1]}: {outcome} (schema version {version})")
    load.types = changed_types(result.types, existing[2])
    return load


def cdc_log_names(statements, tables: list[BaseTable]) -> set[tuple[str, str]]:
    """(keyspace, name) of the CDC log tables of the tables ``statements`` create with CDC on and
    of the CDC-enabled ``tables`` already in the warehouse."""
    names, keyspace = {(t.keyspace_name, t.table_name + CDC_LOG_SUFFIX) for t in tables if t.cdc_enabled}, None
    for statement in statements:
        keyspace = statement.keyspace if isinstance(statement, ast.UseKeyspace) else keyspace
        cdc = statement.options.properties.get("cdc") if isinstance(statement, ast.CreateTable) else None
        try:
            enabled = cdc is not None and parse_cdc_options(cdc).enabled
        except CqlError:        # the CREATE is refused as it runs, with ScyllaDB's message
            enabled = False
        if enabled:
            names.add((statement.table.keyspace or keyspace, statement.table.name + CDC_LOG_SUFFIX))
    return names


def _same(table: BaseTable, columns: list[BaseColumn], old: BaseTable, old_columns: list[BaseColumn]) -> bool:
    def table_key(t):
        return replace(t, schema_version=0, cdc_log_created_ms=None)

    def column_keys(cs):
        return sorted((replace(c, schema_version=0) for c in cs), key=repr)

    return table_key(table) == table_key(old) and column_keys(columns) == column_keys(old_columns)
