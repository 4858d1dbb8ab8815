"""Runs a CQL script the way a client and a ScyllaDB cluster would, producing the base-mutation
atoms of every accepted write and the schema records of the resulting tables.

* Client clock: statement ``k`` (0-based over all statements of the script, DDL, USE and
  SELECT included; a BATCH is one statement) runs at ``now_us + k * step_us``; that is the
  write timestamp unless ``USING TIMESTAMP`` says otherwise. The coordinator's clock for the
  write (``coordinator_now_us``) is the client clock plus ``skew_us``.
* ``write_id`` numbers the executed writes (a DML statement or a BATCH) 1, 2, ...
* A statement ScyllaDB would reject is reported in ``errors`` and skipped; nothing of it is
  applied (a BATCH is rejected whole) and the script goes on, as with cqlsh.
* A syntax error anywhere raises ``CqlSyntaxError`` before anything runs. A construct this
  front door cannot replay raises ``CqlUnsupportedError`` naming the statement.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from cdclake.cql import ast
from cdclake.cql.catalog import Catalog, Table
from cdclake.cql.errors import CqlRequestError, CqlUnsupportedError
from cdclake.cql.mutation_builder import MutationBuilder
from cdclake.cql.mutations import plan_delete, plan_insert, plan_update, using_timestamp, write_attributes
from cdclake.cql.parser import parse_script
from cdclake.mutations import Atom
from cdclake.cql.table_state import TableState
from cdclake.schema_records import BaseColumn, BaseTable, BaseTypeField, latest_versions


@dataclass(frozen=True)
class StatementError:
    """A statement ScyllaDB rejects: its 0-based ``index`` over the script's statements (the
    clock's ``k``), first ``line``, source text, ScyllaDB's ``message`` and CQL error ``code``.
    ``str()`` names it for people as ``statement <index + 1> (line <line>): <text>: <message>``."""

    index: int
    line: int
    statement: str
    message: str
    code: str

    def __str__(self) -> str:
        return f"{_statement_label(self.index, self.line, self.statement)}: {self.message}"


@dataclass
class ScriptResult:
    """Atoms of the accepted writes in execution order; schema records of the final catalog."""

    atoms: list[Atom] = field(default_factory=list)
    tables: list[BaseTable] = field(default_factory=list)
    columns: list[BaseColumn] = field(default_factory=list)
    types: list[BaseTypeField] = field(default_factory=list)
    errors: list[StatementError] = field(default_factory=list)
    statements_run: int = 0        # statements executed without error

    def final_tables(self) -> list[BaseTable]:
        """The schema at the end of the script: each table's latest version."""
        return latest_versions(self.tables)

    def final_columns(self) -> list[BaseColumn]:
        versions = {(t.keyspace_name, t.table_name): t.schema_version for t in self.final_tables()}
        return [c for c in self.columns if versions.get((c.keyspace_name, c.table_name)) == c.schema_version]


def _statement_label(index: int, line: int, text: str) -> str:
    flat = " ".join(text.split())
    short = flat if len(flat) <= 60 else flat[:57] + "..."
    return f"statement {index + 1} (line {line}): {short}"


def run_script(text: str, *, now_us: int, step_us: int = 1000, skew_us: int = 0) -> ScriptResult:
    """Parse and run a whole CQL script (see the module docstring for the clock rules)."""
    statements = parse_script(text)
    runner = _ScriptRunner()
    result = ScriptResult()
    for index, statement in enumerate(statements):
        client_now = now_us + index * step_us
        try:
            atoms = runner.execute(statement, client_now, client_now + skew_us)
        except CqlRequestError as error:
            result.errors.append(StatementError(index, statement.pos.line, statement.text, error.message, error.code))
            continue
        except CqlUnsupportedError as error:
            label = _statement_label(index, statement.pos.line, statement.text)
            raise CqlUnsupportedError(f"{label}: {error}") from None
        result.atoms.extend(atoms)
        result.statements_run += 1
    result.tables, result.columns = runner.schema_records()
    result.types = runner.catalog.base_types()
    return result


class _ScriptRunner:
    def __init__(self) -> None:
        self.catalog = Catalog()
        self.current_keyspace: Optional[str] = None
        self.last_write_id = 0
        self.log_created_ms: dict[tuple[str, str], int] = {}
        self.state = TableState()
        # (keyspace, table) -> [(version, BaseTable, [BaseColumn])], one entry per schema change
        self.schema_versions: dict[tuple[str, str], list[tuple[int, BaseTable, list[BaseColumn]]]] = {}

    def keyspace_of(self, name: ast.QualifiedName) -> str:
        keyspace = name.keyspace or self.current_keyspace
        if keyspace is None:
            raise CqlRequestError("No keyspace has been specified. "
                                  "USE a keyspace, or explicitly specify keyspace.tablename")
        return keyspace

    def table_of(self, name: ast.QualifiedName) -> Table:
        return self.catalog.table(self.keyspace_of(name), name.name)

    def execute(self, statement: ast.Statement, client_now: int, coordinator_now: int) -> list[Atom]:
        """Run one statement; returns the atoms it wrote (DDL and reads write none)."""
        if isinstance(statement, (ast.Insert, ast.Update, ast.Delete, ast.Batch)):
            def read_list(table, partition_key, row, column):
                return self.state.live_list(table, partition_key, row, column, coordinator_now)
            builder = MutationBuilder(list_reader=read_list)
            if isinstance(statement, ast.Batch):
                self.plan_batch(statement, client_now, builder)
            else:
                self.plan_write(statement, builder, client_now)
            self.last_write_id += 1
            atoms = [replace(atom, schema_version=self.schema_version(atom.keyspace_name, atom.table_name))
                     for atom in builder.atoms(self.last_write_id, coordinator_now)]
            self.state.record(atoms)
            return atoms
        self.execute_other(statement)
        self.note_log_tables(coordinator_now)
        self.note_schema_versions()
        return []

    def note_schema_versions(self) -> None:
        """Give each table whose schema records changed (CREATE, ALTER, ALTER TYPE ...) a new
        version; writes carry the version they were applied with."""
        columns: dict[tuple[str, str], list[BaseColumn]] = {}
        for column in self.catalog.base_columns():
            columns.setdefault((column.keyspace_name, column.table_name), []).append(column)
        for table in self.catalog.base_tables():
            key = (table.keyspace_name, table.table_name)
            versions = self.schema_versions.setdefault(key, [])
            if not versions or (versions[-1][1], versions[-1][2]) != (table, columns[key]):
                versions.append((len(versions), table, columns[key]))

    def schema_version(self, keyspace: str, table: str) -> int:
        return self.schema_versions[(keyspace, table)][-1][0]

    def schema_records(self) -> tuple[list[BaseTable], list[BaseColumn]]:
        """Every schema version of the tables that exist at the end of the script."""
        tables, columns = [], []
        for table in self.catalog.base_tables():
            key = (table.keyspace_name, table.table_name)
            created_ms = self.log_created_ms.get(key)
            for version, record, version_columns in self.schema_versions[key]:
                tables.append(replace(record, cdc_log_created_ms=created_ms, schema_version=version))
                columns += [replace(column, schema_version=version) for column in version_columns]
        return tables, columns

    def note_log_tables(self, coordinator_now: int) -> None:
        """Remember when each CDC log table was created: when CDC was first enabled on its base
        table (disabling keeps the log and re-enabling re-attaches it, so the time stays);
        dropping the base table drops its log."""
        tables = self.catalog.base_tables()
        for table in tables:
            if table.cdc_enabled:
                self.log_created_ms.setdefault((table.keyspace_name, table.table_name), coordinator_now // 1000)
        existing = {(table.keyspace_name, table.table_name) for table in tables}
        for key in [key for key in self.log_created_ms if key not in existing]:
            del self.log_created_ms[key]

    def plan_write(self, statement: ast.DmlStatement, builder: MutationBuilder, default_timestamp: int) -> None:
        table = self.table_of(statement.table)
        attributes = write_attributes(statement.using, table, default_timestamp)
        planner = {ast.Insert: plan_insert, ast.Update: plan_update, ast.Delete: plan_delete}[type(statement)]
        planner(statement, table, attributes, builder)

    def plan_batch(self, batch: ast.Batch, client_now: int, builder: MutationBuilder) -> None:
        if batch.batch_kind == "counter":
            raise CqlUnsupportedError("COUNTER batches are not supported")
        if batch.using.ttl is not None:
            raise CqlRequestError("Global TTL on the BATCH statement is not supported.")
        batch_timestamp = client_now
        if batch.using.timestamp is not None:
            batch_timestamp = using_timestamp(batch.using.timestamp)
            if any(statement.using.timestamp is not None for statement in batch.statements):
                raise CqlRequestError("Timestamp must be set either on BATCH or individual statements")
        for statement in batch.statements:
            self.plan_write(statement, builder, batch_timestamp)

    def execute_other(self, statement: ast.Statement) -> None:
        catalog = self.catalog
        if isinstance(statement, ast.CreateKeyspace):
            catalog.create_keyspace(statement)
        elif isinstance(statement, ast.AlterKeyspace):
            catalog.alter_keyspace(statement)
        elif isinstance(statement, ast.UseKeyspace):
            if statement.keyspace not in catalog.keyspaces:
                raise CqlRequestError(f"Keyspace '{statement.keyspace}' does not exist")
            self.current_keyspace = statement.keyspace
        elif isinstance(statement, ast.CreateTable):
            catalog.create_table(statement, self.keyspace_of(statement.table))
        elif isinstance(statement, ast.AlterTable):
            catalog.alter_table(statement, self.keyspace_of(statement.table))
        elif isinstance(statement, ast.CreateType):
            catalog.create_type(statement, self.keyspace_of(statement.type_name))
        elif isinstance(statement, ast.AlterType):
            catalog.alter_type(statement, self.keyspace_of(statement.type_name))
        elif isinstance(statement, ast.DropObject):
            self.drop(statement)
        elif isinstance(statement, ast.Select):
            return
        elif isinstance(statement, ast.OtherStatement):
            raise CqlUnsupportedError(f"{statement.kind} statements are not supported")
        else:
            raise CqlUnsupportedError(f"{type(statement).__name__} statements are not supported")

    def drop(self, statement: ast.DropObject) -> None:
        if statement.object_kind == "keyspace":
            self.catalog.drop_keyspace(statement)
            if self.current_keyspace == statement.name.name:
                self.current_keyspace = None
        elif statement.object_kind == "table":
            self.catalog.drop_table(statement, self.keyspace_of(statement.name))
        else:
            self.catalog.drop_type(statement, self.keyspace_of(statement.name))

