"""``cdclake load cql FILE.cql``: the CQL front door writing into the warehouse's ``cdc_input``.

The script runs against the schemas already loaded (schema_ddl.py recreates them first), its
writes get the write ids after the last loaded one and the tables' current schema versions,
and its DDL adds schema versions after theirs. Statements ScyllaDB would refuse are reported
with their line and ScyllaDB's message and write nothing; the others load.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from cdclake.cql.interpreter import run_statements, short_statement
from cdclake.cql.parser import parse_script
from cdclake.load.mutation_records import Atom
from cdclake.load.refusals import Refusal
from cdclake.load.schema_ddl import schema_ddl
from cdclake.load.schema_records import BaseColumn, BaseTable, BaseTypeField, changed_types, latest_versions


@dataclass
class CqlLoad:
    atoms: list[Atom] = field(default_factory=list)
    tables: list[BaseTable] = field(default_factory=list)      # new tables and new versions only
    columns: list[BaseColumn] = field(default_factory=list)
    types: list[BaseTypeField] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)          # refused statements, by line and column

    @property
    def writes(self) -> int:
        return len({atom.write_id for atom in self.atoms})


def load_cql_statements(statements, path: str, *, now_us: int, existing: tuple[list, list, list],
                        last_write_id: int, step_us: int = 1000, skew_us: int = 0,
                        lines: dict[int, str] | None = None, earlier_writes=None) -> CqlLoad:
    """Run parsed statements against the warehouse's schema records ``existing`` (tables,
    columns, types); ``lines``: where each statement index came from, for the problems
    (default: ``path:line``); ``earlier_writes``: the rows loaded before, which the statements'
    reads see (``inputs.WarehouseWrites``). Raises ``CqlUnsupportedError`` for CQL the front door cannot replay."""
    old_tables, old_columns, old_types = existing
    offsets = {(t.keyspace_name, t.table_name): t for t in latest_versions(old_tables)}
    result = run_statements(statements, now_us=now_us, step_us=step_us, skew_us=skew_us, last_write_id=last_write_id,
                            earlier_writes=earlier_writes, schema_preamble=schema_ddl(old_tables, old_columns, old_types) if old_tables else "")
    load = CqlLoad(types=changed_types(result.types, old_types))
    for atom in result.atoms:
        old = offsets.get((atom.keyspace_name, atom.table_name))
        load.atoms.append(replace(atom, schema_version=atom.schema_version + (old.schema_version if old else 0)))
    versions_added = set()
    for table in result.tables:
        old = offsets.get((table.keyspace_name, table.table_name))
        if old is None:
            load.tables.append(table)
        elif table.schema_version > 0:    # version 0: the preamble's, already in the warehouse
            known = old.cdc_log_created_ms is not None or old.cdc_enabled   # else CDC is first enabled now
            load.tables.append(replace(table, schema_version=table.schema_version + old.schema_version,
                                       cdc_log_created_ms=old.cdc_log_created_ms if known else table.cdc_log_created_ms))
        else:
            continue
        versions_added.add((table.keyspace_name, table.table_name, table.schema_version))
    for column in result.columns:
        key = (column.keyspace_name, column.table_name, column.schema_version)
        if key in versions_added:
            old = offsets.get(key[:2])
            load.columns.append(replace(column, schema_version=column.schema_version + (old.schema_version if old else 0)))
    load.problems = refused_statements(result.errors, statements, path, lines)
    return load


def location(path: str, statement) -> str:
    """``FILE:LINE:COLUMN`` where a statement starts."""
    return f"{path}:{statement.pos.line}:{statement.pos.column}"


def refused_statements(errors, statements, path: str, lines: dict[int, str] | None = None) -> list[Refusal]:
    """``WHERE: STATEMENT: ScyllaDB's message`` of each refused statement; WHERE is ``lines``'
    entry for its index, else its place in ``path``."""
    return [Refusal((lines or {}).get(e.index) or location(path, statements[e.index]), e.message,
                    short_statement(e.statement)) for e in errors]


def load_cql_text(text: str, path: str, **options) -> CqlLoad:
    """``load_cql_statements`` on a script's text. Raises ``CqlSyntaxError`` (line and column)
    when it does not parse: then nothing loads."""
    return load_cql_statements(parse_script(text), path, **options)
