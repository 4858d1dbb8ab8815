"""INSERT / UPDATE / DELETE -> base-mutation atoms, as ScyllaDB's CQL layer builds them
(scylla-log.md §3; ``cql3/statements/update_statement.cc``, ``delete_statement.cc``).

For atomic columns (native types, frozen collections/UDTs, tuples), static ones included:

* INSERT: a live row marker (T, ttl) on the row, except for a static-only INSERT (partition key
  and static columns only) and in COMPACT STORAGE tables; one cell per listed non-key column
  (``null`` -> dead cell);
* UPDATE ``SET x = v``: a live cell (T, ttl); ``x = null``: a dead cell;
* DELETE ``x``: a dead cell; DELETE of rows: a row tombstone per full key, a range tombstone per
  clustering prefix or slice (a range holding exactly one full key becomes a row tombstone, an
  empty range writes nothing), a partition tombstone when only the partition key is restricted.

TTL: ``USING TTL n`` (``0`` = none), else the table's ``default_time_to_live``; dead cells and
tombstones have none. Non-atomic writes (non-frozen collections and UDTs, list operations,
counters), LWT conditions and INSERT JSON raise ``CqlUnsupportedError``: they are planned in
``_column_write``/``_deletion`` where collection atoms (tombstone at T-1, element cells) belong.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from cdclake.cql import ast
from cdclake.cql import types as t
from cdclake.cql.catalog import MAX_TTL_SECONDS, Column, Table
from cdclake.cql.errors import CqlRequestError, CqlUnsupportedError
from cdclake.cql.mutation_builder import CellWrite, MutationBuilder, RowMarker
from cdclake.cql.restrictions import WriteTarget, resolve_write_target
from cdclake.cql.values import INTEGER_RANGES, literal_value


@dataclass(frozen=True)
class WriteAttributes:
    """Timestamp (µs) and TTL (seconds, None = none) of a statement's live atoms."""

    timestamp: int
    ttl: Optional[int]


def write_attributes(using: ast.UsingClause, table: Table, default_timestamp: int) -> WriteAttributes:
    """``USING TIMESTAMP``/``TTL`` of a statement, defaulting to the client clock and the table TTL."""
    timestamp = default_timestamp if using.timestamp is None else using_timestamp(using.timestamp)
    ttl = table.default_time_to_live or None
    if using.ttl is not None:
        requested = _integer_attribute(using.ttl, "[ttl]", "int")
        if requested < 0:
            raise CqlRequestError(f"A TTL must be greater or equal to 0, but was {requested}")
        if requested > MAX_TTL_SECONDS:
            raise CqlRequestError(f"ttl is too large. requested ({requested}) maximum ({MAX_TTL_SECONDS})")
        ttl = requested or None
    return WriteAttributes(timestamp, ttl)


def using_timestamp(term: ast.Term) -> int:
    """The value of ``USING TIMESTAMP`` (microseconds)."""
    return _integer_attribute(term, "[timestamp]", "bigint")


def _integer_attribute(term: ast.Term, receiver: str, type_name: str) -> int:
    value = literal_value(term, t.NativeType(type_name), receiver)
    if value is None:
        raise CqlRequestError(f"Invalid null value of {receiver}")
    low, high = INTEGER_RANGES[type_name]
    if not low <= value <= high:
        raise CqlRequestError(f"Invalid value of {receiver}: {value} is out of range")
    return value


def _refuse_lwt(statement: ast.DmlStatement) -> None:
    conditional = getattr(statement, "if_not_exists", False) or getattr(statement, "if_exists", False) \
        or getattr(statement, "conditions", ())
    if conditional:
        raise CqlUnsupportedError("lightweight transactions (IF conditions) are not supported")


def _refuse_counters(table: Table) -> None:
    if table.is_counter:
        raise CqlUnsupportedError(f"writes to counter table {table.qualified_name} are not supported")


def _column(table: Table, name: str) -> Column:
    column = table.column(name)
    if column is None:
        raise CqlRequestError(f"Unknown identifier {name}")
    return column


def _non_atomic(column: Column, construct: str) -> CqlUnsupportedError:
    """``construct`` ends with its preposition, e.g. ``assignments to``."""
    kind = "collection" if t.is_collection(column.type) else "user type"
    return CqlUnsupportedError(f"{construct} non-frozen {kind} column '{column.name}' are not supported yet")


# ------------------------------------------------------------------------------------ INSERT


def plan_insert(statement: ast.Insert, table: Table, attributes: WriteAttributes, builder: MutationBuilder) -> None:
    if statement.json is not None:
        raise CqlUnsupportedError("INSERT ... JSON is not supported")
    _refuse_lwt(statement)
    if table.is_counter:
        raise CqlRequestError("INSERT statement are not allowed on counter tables, use UPDATE instead")
    if len(statement.columns) != len(statement.values):
        raise CqlRequestError("Unmatched column names/values")
    key_relations: list[ast.AnyRelation] = []
    writes: list[tuple[Column, CellWrite]] = []
    for index, (name, term) in enumerate(zip(statement.columns, statement.values)):
        column = _column(table, name)
        if name in statement.columns[:index]:
            raise CqlRequestError(f"Multiple definitions found for column {name}")
        if column.is_primary_key:
            key_relations.append(ast.Relation(name, "=", term, term.pos, f"{name} = <value>"))
        else:
            if column.type.is_multi_cell:
                raise _non_atomic(column, "INSERT values for")
            writes.append((column, _cell(literal_value(term, column.type, name), attributes)))
    target = resolve_write_target(table, tuple(key_relations), statement_kind="INSERT",
                                  modified=[column for column, _ in writes])
    for partition_key in target.partition_keys:
        if not target.static_row and not table.compact_storage:
            for row in target.rows:
                builder.add_row_marker(table, partition_key, row, RowMarker(attributes.timestamp, attributes.ttl))
        _add_cells(builder, table, partition_key, target, writes)


def _cell(value, attributes: WriteAttributes) -> CellWrite:
    if value is None:
        return CellWrite(attributes.timestamp)
    return CellWrite(attributes.timestamp, value, attributes.ttl)


def _add_cells(builder: MutationBuilder, table: Table, partition_key: tuple, target: WriteTarget,
               writes: list[tuple[Column, CellWrite]]) -> None:
    for column, cell in writes:
        if column.kind == "static":
            builder.add_cell(table, partition_key, None, column, cell)
        else:
            for row in target.rows:
                builder.add_cell(table, partition_key, row, column, cell)


# ------------------------------------------------------------------------------------ UPDATE


def plan_update(statement: ast.Update, table: Table, attributes: WriteAttributes, builder: MutationBuilder) -> None:
    _refuse_lwt(statement)
    writes = [(_column(table, a.column), a) for a in statement.assignments]
    for column, assignment in writes:
        if column.is_primary_key:
            raise CqlRequestError(f"PRIMARY KEY part {column.name} found in SET part")
    cells = [(column, _cell(_column_write(column, assignment), attributes)) for column, assignment in writes]
    target = resolve_write_target(table, statement.where, statement_kind="UPDATE",
                                  modified=[column for column, _ in writes])
    for partition_key in target.partition_keys:
        _add_cells(builder, table, partition_key, target, cells)


def _column_write(column: Column, assignment: ast.Assignment):
    """The value an assignment writes to an atomic column (None = a dead cell)."""
    kind, text, cql_type = assignment.kind, assignment.text, column.type
    if cql_type.is_counter:
        if kind == "set":
            raise CqlRequestError(f"Cannot set the value of counter column {column.name} "
                                  "(counters can only be incremented/decremented, not set)")
        raise CqlUnsupportedError(f"counter updates ({text}) are not supported")
    if kind == "set":
        if cql_type.is_multi_cell:
            raise _non_atomic(column, "assignments to")
        return literal_value(assignment.value, cql_type, column.name)
    if kind in ("add", "subtract"):
        if not t.is_collection(cql_type):
            raise CqlRequestError(f"Invalid operation ({text}) for non counter column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid operation ({text}) for frozen collection column {column.name}")
        raise _non_atomic(column, "element additions and removals on")
    if kind == "prepend":
        if not isinstance(cql_type, t.ListType):
            raise CqlRequestError(f"Invalid operation ({text}) for non list column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid operation ({text}) for frozen list column {column.name}")
        raise _non_atomic(column, "list prepends to")
    if kind in ("set_element", "set_timeuuid_element"):
        if kind == "set_timeuuid_element" and not isinstance(cql_type, t.ListType):
            raise CqlRequestError(f"Invalid operation ({text}) for non list column {column.name}")
        if not t.is_collection(cql_type):
            raise CqlRequestError(f"Invalid operation ({text}) for non collection column {column.name}")
        if isinstance(cql_type, t.SetType):
            raise CqlRequestError(f"Invalid operation ({text}) for set column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid operation ({text}) for frozen collection column {column.name}")
        raise _non_atomic(column, "element assignments in")
    if kind == "set_field":
        if not isinstance(cql_type, t.UserType):
            raise CqlRequestError(f"Invalid operation ({text}) for non-UDT column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid operation ({text}) for frozen UDT column {column.name}")
        if assignment.field_name not in cql_type.field_names:
            raise CqlRequestError(f"UDT column {column.name} does not have a field named {assignment.field_name}")
        raise _non_atomic(column, "field assignments in")
    raise CqlRequestError(f"Unsupported assignment: {text}")


# ------------------------------------------------------------------------------------ DELETE


def plan_delete(statement: ast.Delete, table: Table, attributes: WriteAttributes, builder: MutationBuilder) -> None:
    _refuse_lwt(statement)
    _refuse_counters(table)
    columns = [_deletion(table, target) for target in statement.targets]
    target = resolve_write_target(table, statement.where, statement_kind="DELETE", modified=columns)
    timestamp = attributes.timestamp
    for partition_key in target.partition_keys:
        if columns:
            _add_cells(builder, table, partition_key, target, [(column, CellWrite(timestamp)) for column in columns])
        elif target.whole_partition:
            builder.add_partition_tombstone(table, partition_key, timestamp)
        else:
            for row in target.rows:
                builder.add_row_tombstone(table, partition_key, row, timestamp)
            for bounds in target.ranges:
                row = bounds.single_row(len(table.clustering))
                if row is not None:
                    builder.add_row_tombstone(table, partition_key, row, timestamp)
                else:
                    builder.add_range_tombstone(table, partition_key, bounds, timestamp)


def _deletion(table: Table, target: ast.DeleteTarget) -> Column:
    """The atomic column a DELETE selection kills."""
    column = _column(table, target.column)
    if column.is_primary_key:
        raise CqlRequestError(f"Invalid identifier {column.name} for deletion (should not be a PRIMARY KEY part)")
    cql_type = column.type
    if target.key is not None:
        if not t.is_collection(cql_type):
            raise CqlRequestError(f"Invalid deletion operation for non collection column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid deletion operation for frozen collection column {column.name}")
        raise _non_atomic(column, "element deletions in")
    if target.field_name is not None:
        if not isinstance(cql_type, t.UserType):
            raise CqlRequestError(f"Invalid deletion operation for non-UDT column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Frozen UDT column {column.name} does not support field deletion")
        raise _non_atomic(column, "field deletions in")
    if cql_type.is_multi_cell:
        raise _non_atomic(column, "deletions of")
    return column
