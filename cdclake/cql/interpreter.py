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

from cdclake.cql import ast, lwt, row_ttl
from cdclake.cql.catalog import CDC_LOG_SUFFIX, Catalog
from cdclake.cql.describe import describe_log_table, describe_table
from cdclake.cql.errors import CqlRequestError, CqlUnsupportedError
from cdclake.cql.lwt import is_conditional_request
from cdclake.cql.mutation_builder import MutationBuilder
from cdclake.cql.mutations import plan_delete, plan_insert, plan_update, using_timestamp, write_attributes
from cdclake.cql.parser import parse_script
from cdclake.cql.table_schema import Table
from cdclake.cql.table_state import EarlierWrites, TableState
from cdclake.cql.values import to_json
from cdclake.load.mutation_records import ORIGIN_TTL_EXPIRY, Atom
from cdclake.load.schema_records import BaseColumn, BaseTable, BaseTypeField, latest_versions


@dataclass(frozen=True)
class StatementOutcome:
    """What one statement of a script gave: its 0-based ``index`` over the script's statements
    (the clock's ``k``), first ``line`` and source text."""

    index: int
    line: int
    statement: str

    @property
    def label(self) -> str:
        """``statement <index + 1> (line <line>): <text, cut at 60 characters>``, for people."""
        return f"statement {self.index + 1} (line {self.line}): {short_statement(self.statement)}"


def short_statement(text: str, limit: int = 60) -> str:
    """A statement's text on one line, cut at ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


@dataclass(frozen=True)
class StatementError(StatementOutcome):
    """A statement ScyllaDB rejects, with ScyllaDB's ``message`` and CQL error ``code``.
    ``str()`` names it for people as ``statement <index + 1> (line <line>): <text>: <message>``."""

    message: str
    code: str

    def __str__(self) -> str:
        return f"{self.label}: {self.message}"


@dataclass(frozen=True)
class ConditionalResult(StatementOutcome):
    """What a client gets for a lightweight transaction: ``[applied]`` and, per statement of
    it, the old values of ``columns`` (JSON model)."""

    applied: bool
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]

    def __str__(self) -> str:
        lines = [f"{self.label}: [applied] = {self.applied}"]
        for row in self.rows:
            lines.append("  " + ", ".join(f"{c} = {'null' if v is None else to_json(v)}"
                                          for c, v in zip(self.columns, row)))
        return "\n".join(lines)


@dataclass(frozen=True)
class Description(StatementOutcome):
    """The output of a ``DESCRIBE TABLE`` statement (describe.py)."""

    create_statement: str

    def __str__(self) -> str:
        return f"{self.label}:\n{self.create_statement}"


@dataclass
class ScriptResult:
    """Atoms of the accepted writes in execution order; schema records of the final catalog."""

    atoms: list[Atom] = field(default_factory=list)
    tables: list[BaseTable] = field(default_factory=list)
    columns: list[BaseColumn] = field(default_factory=list)
    types: list[BaseTypeField] = field(default_factory=list)
    errors: list[StatementError] = field(default_factory=list)
    statements_run: int = 0        # statements executed without error
    conditional_results: list[ConditionalResult] = field(default_factory=list)   # the LWTs, in order
    descriptions: list[Description] = field(default_factory=list)                 # DESCRIBE TABLE outputs

    def final_tables(self) -> list[BaseTable]:
        """The schema at the end of the script: each table's latest version."""
        return latest_versions(self.tables)

    def final_columns(self) -> list[BaseColumn]:
        versions = {(t.keyspace_name, t.table_name): t.schema_version for t in self.final_tables()}
        return [c for c in self.columns if versions.get((c.keyspace_name, c.table_name)) == c.schema_version]


def run_script(text: str, *, now_us: int, step_us: int = 1000, skew_us: int = 0,
               enable_compact_storage: bool = False,
               row_ttl_scan_period_s: float = row_ttl.DEFAULT_SCAN_PERIOD_S, **existing) -> ScriptResult:
    """Parse and run a whole CQL script (see the module docstring for the clock rules).
    ``enable_compact_storage``: ScyllaDB's ``enable_create_table_with_compact_storage`` option;
    ``row_ttl_scan_period_s``: its ``alternator_ttl_period_in_seconds`` (per-row TTL scans);
    ``existing``: what ``run_statements`` takes about the schema and writes before the script."""
    return run_statements(parse_script(text), now_us=now_us, step_us=step_us, skew_us=skew_us,
                          enable_compact_storage=enable_compact_storage,
                          row_ttl_scan_period_s=row_ttl_scan_period_s, **existing)


def run_statements(statements: list[ast.Statement], *, now_us: int, step_us: int = 1000, skew_us: int = 0,
                   enable_compact_storage: bool = False,
                   row_ttl_scan_period_s: float = row_ttl.DEFAULT_SCAN_PERIOD_S,
                   schema_preamble: str = "", last_write_id: int = 0,
                   earlier_writes: Optional[EarlierWrites] = None) -> ScriptResult:
    """``run_script`` on parsed statements. ``schema_preamble``: DDL run first, before the clock
    starts (schema_ddl.py: the tables loaded earlier; it writes nothing, and its errors stop the
    run); ``last_write_id``: the write ids continue after it; ``earlier_writes``: the rows
    written before, which the script's reads (list writes, conditions, per-row TTL scans) see.
    Schema versions count from the preamble's tables (version 0 = as the preamble created them)."""
    runner = _ScriptRunner(enable_compact_storage, earlier_writes)
    runner.last_write_id = last_write_id
    for statement in parse_script(schema_preamble):
        runner.execute(statement, now_us, now_us + skew_us)
    result = ScriptResult()
    last_scan = now_us + skew_us
    for index, statement in enumerate(statements):
        client_now = now_us + index * step_us
        for scan in row_ttl.scan_instants(last_scan, client_now + skew_us, row_ttl_scan_period_s):
            result.atoms.extend(runner.expire_rows(scan))
            last_scan = scan
        try:
            if isinstance(statement, ast.DescribeTable):
                result.descriptions.append(Description(index, statement.pos.line, statement.text,
                                                       runner.describe(statement)))
                atoms = []
            elif is_conditional_request(statement):
                atoms, outcome = runner.execute_conditional(statement, client_now + skew_us)
                result.conditional_results.append(ConditionalResult(
                    index, statement.pos.line, statement.text, outcome.applied, outcome.columns, outcome.rows))
            else:
                atoms = runner.execute(statement, client_now, client_now + skew_us)
        except CqlRequestError as error:
            result.errors.append(StatementError(index, statement.pos.line, statement.text, error.message, error.code))
            continue
        except CqlUnsupportedError as error:
            label = StatementOutcome(index, statement.pos.line, statement.text).label
            raise CqlUnsupportedError(f"{label}: {error}") from None
        result.atoms.extend(atoms)
        result.statements_run += 1
    result.tables, result.columns = runner.schema_records()
    result.types = runner.catalog.base_types()
    return result


def catalog_of(schema_ddl_text: str) -> Catalog:
    """The front door's catalog after the DDL ``schema_ddl_text`` (schema_ddl.py)."""
    runner = _ScriptRunner()
    for statement in parse_script(schema_ddl_text):
        runner.execute_other(statement)
    return runner.catalog


class _ScriptRunner:
    def __init__(self, enable_compact_storage: bool = False, earlier_writes: Optional[EarlierWrites] = None) -> None:
        self.catalog = Catalog(enable_compact_storage)
        self.current_keyspace: Optional[str] = None
        self.last_write_id = 0
        self.last_ballot = 0          # the last LWT's paxos ballot timestamp (µs)
        self.log_created_ms: dict[tuple[str, str], int] = {}
        self.state = TableState(earlier_writes)
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
            return self.record_write(builder, coordinator_now)
        self.execute_other(statement)
        self.note_log_tables(coordinator_now)
        self.note_schema_versions()
        return []

    def execute_conditional(self, statement: ast.Statement, coordinator_now: int) -> tuple[list[Atom], lwt.Outcome]:
        """A lightweight transaction (lwt.py): checked against the state before it, applied whole
        or not at all, every write at the paxos ballot's timestamp: the coordinator's clock, or
        the previous ballot's plus one (ballots on a partition strictly increase)."""
        if isinstance(statement, ast.Batch):
            if statement.using.ttl is not None:
                raise CqlRequestError("Global TTL on the BATCH statement is not supported.")
            if statement.using.timestamp is not None:
                raise CqlRequestError("Cannot provide custom timestamp for conditional BATCH")
            statements = list(statement.statements)
        else:
            statements = [statement]
        tables = [self.table_of(s.table) for s in statements]
        if len({table.qualified_name for table in tables}) > 1:
            raise CqlRequestError("BATCH with conditions cannot span multiple tables")
        checks = [lwt.prepare(s, table) if lwt.is_conditional(s) else lwt.check_of_plain(s, table)
                  for s, table in zip(statements, tables)]
        partition_keys = {to_json(list(key)) for check in checks for key in check.target.partition_keys}
        if len(partition_keys) != 1 or any(len(check.target.partition_keys) != 1 for check in checks):
            raise CqlRequestError("BATCH with conditions cannot span multiple partitions")
        partition_key = checks[0].target.partition_keys[0]
        ballot = max(coordinator_now, self.last_ballot + 1)
        self.last_ballot = ballot
        builder = MutationBuilder(list_reader=lambda table, key, row, column:
                                  self.state.live_list(table, key, row, column, coordinator_now))
        for s in statements:     # every write at the ballot's timestamp, USING TIMESTAMP or not
            self.plan_write(replace(s, using=replace(s.using, timestamp=None)), builder, ballot)
        outcome = lwt.decide(checks, partition_key, self.state, coordinator_now, isinstance(statement, ast.Batch))
        if not outcome.applied:
            return [], outcome
        return self.record_write(builder, coordinator_now), outcome

    def expire_rows(self, scan_us: int) -> list[Atom]:
        """One scan of the per-row TTL expiration service (row_ttl.py): each live row whose TTL
        column has passed is deleted by a write of its own, at the scan's timestamp."""
        atoms = []
        for table in self.catalog.tables_with_ttl_column():
            column = table.column(table.ttl_column)
            for partition_key, row in self.state.rows(table):
                read = self.state.read_row(table, partition_key, row, scan_us)
                expiration = row_ttl.expiration_seconds(read.values.get(column.name), column.type.cql_text())
                if not (read.exists and row_ttl.is_expired(expiration, scan_us // 1_000_000)):
                    continue
                builder = MutationBuilder()
                if table.clustering:
                    builder.add_row_tombstone(table, partition_key, row, scan_us)
                else:
                    builder.add_partition_tombstone(table, partition_key, scan_us)
                atoms += self.record_write(builder, scan_us, origin=ORIGIN_TTL_EXPIRY)
        return atoms

    def record_write(self, builder: MutationBuilder, coordinator_now: int, origin: Optional[str] = None) -> list[Atom]:
        """The next write id for the request's atoms, each with its table's schema version."""
        self.last_write_id += 1
        atoms = [replace(atom, schema_version=self.schema_version(atom.keyspace_name, atom.table_name), origin=origin)
                 for atom in builder.atoms(self.last_write_id, coordinator_now)]
        self.state.record(atoms)
        return atoms

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

    def describe(self, statement: ast.DescribeTable) -> str:
        keyspace = self.keyspace_of(statement.table)
        name = statement.table.name
        base = self.catalog.keyspace(keyspace).tables.get(name.removesuffix(CDC_LOG_SUFFIX))
        if name.endswith(CDC_LOG_SUFFIX) and base is not None and name in self.catalog.keyspace(keyspace).cdc_log_names:
            types = {type_name: [(f, ft.cql_text()) for f, ft in zip(udt.field_names, udt.field_types)]
                     for type_name, udt in self.catalog.keyspace(keyspace).user_types.items()}
            return describe_log_table(base, types)
        return describe_table(self.table_of(statement.table))

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

