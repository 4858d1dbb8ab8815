"""INSERT / UPDATE / DELETE -> base-mutation atoms, as ScyllaDB's CQL layer builds them
(docs/scylla/log.md §3; ``cql3/statements/update_statement.cc``, ``delete_statement.cc``).

For atomic columns (native types, frozen collections/UDTs, tuples), static ones included:

* INSERT: a live row marker (T, ttl) on the row, except for a static-only INSERT (partition key
  and static columns only) and in COMPACT STORAGE tables; one cell per listed non-key column
  (``null`` -> dead cell); in a dense table with only key columns, the empty cell of its hidden
  value column (T, ttl) instead (``update_statement::add_update_for_key``);
* UPDATE ``SET x = v``: a live cell (T, ttl); ``x = null``: a dead cell;
* DELETE ``x``: a dead cell; DELETE of rows: a row tombstone per full key, a range tombstone per
  clustering prefix or slice (a range holding exactly one full key becomes a row tombstone, an
  empty range writes nothing), a partition tombstone when only the partition key is restricted.

Non-frozen collections (map, set, list) and UDTs are multi-cell (``CollectionWrite``):

* ``c = <value>`` and INSERT: a collection tombstone at T-1, then one live element cell per
  element (``null``, ``{}``, ``[]``: the tombstone only; a UDT: only its non-null fields);
* ``c = c + {...}`` (map/set), ``c[k] = v``, ``u.f = v``, ``l[SCYLLA_TIMEUUID_LIST_INDEX(u)] = v``:
  live element cells; ``c = c - {...}`` (map keys, set elements), ``c[k] = null``, ``u.f = null``,
  ``DELETE c[k]`` (map/set), ``DELETE u.f``: dead element cells;
* ``DELETE c``: a collection tombstone at T;
* list appends ``l = l + [...]`` (and list overwrites) and prepends ``l = [...] + l``: element
  cells at generated timeuuid keys (``list_keys``), generated when the write is applied to each
  row, from a counter shared by the whole request (``MutationBuilder.next_list_append_seq``).

Element keys (JSON model): the map key, the set element, the list key's timeuuid text, the UDT
field's 0-based declaration index.

TTL: ``USING TTL n`` (``0`` = none), else the table's ``default_time_to_live``; dead cells and
tombstones have none. Counters and INSERT JSON raise ``CqlUnsupportedError``. The list operations
that need a read before the write (``l[i] = v``, ``DELETE l[i]``, ``l = l - [...]``) read it
through the builder. LWT conditions are the interpreter's (lwt.py): these planners write what
the statement writes once its condition holds.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from cdclake.cql import ast
from cdclake.cql import types as t
from cdclake.cql.table_schema import MAX_TTL_SECONDS, Column, Table
from cdclake.cql.errors import CqlRequestError, CqlUnsupportedError
from cdclake.cql.list_keys import SUBMICRO_LIMIT, list_key, prepend_micros
from cdclake.cql.mutation_builder import CellWrite, ElementWrite, MutationBuilder, RowMarker
from cdclake.cql.restrictions import WriteTarget, resolve_write_target
from cdclake.cql.values import INTEGER_RANGES, literal_value, to_json


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


def _refuse_counters(table: Table) -> None:
    if table.is_counter:
        raise CqlUnsupportedError(f"writes to counter table {table.qualified_name} are not supported")


def _column(table: Table, name: str) -> Column:
    column = table.column(name)
    if column is None:
        raise CqlRequestError(f"Unknown identifier {name}")
    return column


# ------------------------------------------------------------------------------ collections


@dataclass(frozen=True)
class CollectionWrite:
    """A write to a non-frozen collection/UDT column: an optional collection tombstone, element
    cells with known keys, and list writes whose keys are found when the write is applied to a
    row: generated (``list_mode`` ``append``/``prepend``), or read from the list's current state
    (``set_index``: ``l[index] = list_values[0]``, ``delete_index``: ``DELETE l[index]``,
    ``remove_values``: ``l = l - list_values``; ``cql3/lists.cc``)."""

    timestamp: int
    ttl: Optional[int] = None
    tombstone: Optional[int] = None
    elements: tuple[ElementWrite, ...] = ()
    list_values: tuple = ()
    list_mode: Optional[str] = None
    index: Optional[int] = None

    def apply(self, builder: MutationBuilder, table: Table, partition_key: tuple, row: Optional[tuple],
              column: Column) -> None:
        if self.tombstone is not None:
            builder.add_collection_tombstone(table, partition_key, row, column, self.tombstone)
        for element in self.elements:
            builder.add_element(table, partition_key, row, column, element)
        if self.list_mode == "append":
            for value in self.list_values:
                key = list_key(self.timestamp, builder.next_list_append_seq())
                builder.add_element(table, partition_key, row, column, self._live(key, value))
        elif self.list_mode == "prepend":
            micros = prepend_micros(self.timestamp)
            seq = builder.next_list_prepend_seq(len(self.list_values), SUBMICRO_LIMIT)
            for offset, value in enumerate(self.list_values):
                key = list_key(micros, seq + offset)
                builder.add_element(table, partition_key, row, column, self._live(key, value))
        elif self.list_mode in ("set_index", "delete_index", "remove_values"):
            existing = builder.read_list(table, partition_key, row, column)
            for element in self._read_before_write_elements(existing):
                builder.add_element(table, partition_key, row, column, element)

    def _read_before_write_elements(self, existing: Optional[list]) -> list[ElementWrite]:
        if self.list_mode == "remove_values":
            removed = {to_json(v) for v in self.list_values}
            return [ElementWrite(self.timestamp, key, False) for key, value in existing or ()
                    if to_json(value) in removed]
        if existing is None:
            action = "set an element on" if self.list_mode == "set_index" else "delete an element from"
            raise CqlRequestError(f"Attempted to {action} a list which is null")
        if not 0 <= self.index < len(existing):
            raise CqlRequestError(f"List index {self.index} out of bound, list has size {len(existing)}")
        key = existing[self.index][0]
        value = self.list_values[0] if self.list_mode == "set_index" else None
        return [ElementWrite(self.timestamp, key, False) if value is None else self._live(key, value)]

    def _live(self, key: Any, value: Any) -> ElementWrite:
        return ElementWrite(self.timestamp, key, True, value, self.ttl)


ColumnWrite = Union[CellWrite, CollectionWrite]


def _live_elements(column: Column, value: Any, attributes: WriteAttributes) -> tuple[ElementWrite, ...]:
    """Live element cells of a map, set or UDT value (JSON model); nothing for null."""
    if value is None:
        return ()
    timestamp, ttl = attributes.timestamp, attributes.ttl
    cql_type = column.type
    if isinstance(cql_type, t.MapType):
        return tuple(ElementWrite(timestamp, key, True, item, ttl) for key, item in value["map"])
    if isinstance(cql_type, t.SetType):
        return tuple(ElementWrite(timestamp, element, True, None, ttl) for element in value["set"])
    if isinstance(cql_type, t.UserType):
        fields = value["udt"]
        return tuple(ElementWrite(timestamp, index, True, fields[name], ttl)
                     for index, name in enumerate(cql_type.field_names) if fields[name] is not None)
    raise AssertionError(f"not a map, set or user type: {cql_type}")


def _dead_elements(keys, attributes: WriteAttributes) -> tuple[ElementWrite, ...]:
    return tuple(ElementWrite(attributes.timestamp, key, False) for key in keys)


def _element(key: Any, value: Any, attributes: WriteAttributes) -> ElementWrite:
    if value is None:
        return ElementWrite(attributes.timestamp, key, False)
    return ElementWrite(attributes.timestamp, key, True, value, attributes.ttl)


def _collection_overwrite(column: Column, value: Any, attributes: WriteAttributes) -> CollectionWrite:
    """``c = <value>`` / INSERT: a tombstone just before T, then the value's elements."""
    tombstone = attributes.timestamp - 1
    if isinstance(column.type, t.ListType):
        return _list_write(value, attributes, "append", tombstone)
    return CollectionWrite(attributes.timestamp, attributes.ttl, tombstone,
                           _live_elements(column, value, attributes))


def _list_write(value: Any, attributes: WriteAttributes, mode: str,
                tombstone: Optional[int] = None) -> CollectionWrite:
    if value is None:              # appending or prepending null does nothing
        return CollectionWrite(attributes.timestamp, attributes.ttl, tombstone)
    return CollectionWrite(attributes.timestamp, attributes.ttl, tombstone,
                           list_values=tuple(value["list"]), list_mode=mode)


# ------------------------------------------------------------------------------------ INSERT


def plan_insert(statement: ast.Insert, table: Table, attributes: WriteAttributes, builder: MutationBuilder) -> None:
    if statement.json is not None:
        raise CqlUnsupportedError("INSERT ... JSON is not supported")
    if table.is_counter:
        raise CqlRequestError("INSERT statement are not allowed on counter tables, use UPDATE instead")
    if len(statement.columns) != len(statement.values):
        raise CqlRequestError("Unmatched column names/values")
    key_relations: list[ast.AnyRelation] = []
    writes: list[tuple[Column, ColumnWrite]] = []
    for index, (name, term) in enumerate(zip(statement.columns, statement.values)):
        column = _column(table, name)
        if name in statement.columns[:index]:
            raise CqlRequestError(f"Multiple definitions found for column {name}")
        if column.is_primary_key:
            key_relations.append(ast.Relation(name, "=", term, term.pos, f"{name} = <value>"))
        else:
            value = literal_value(term, column.type, name)
            if column.type.is_multi_cell:
                writes.append((column, _collection_overwrite(column, value, attributes)))
            else:
                writes.append((column, _cell(value, attributes)))
    target = resolve_write_target(table, tuple(key_relations), statement_kind="INSERT",
                                  modified=[column for column, _ in writes])
    if table.hidden_value is not None:       # dense, keys only: the hidden column's empty cell
        writes.append((table.hidden_value, _cell("", attributes)))
    elif table.is_dense and not writes:      # no row marker: the value column must be written
        raise CqlRequestError(f"Column {table.regular[0].name} is mandatory for this COMPACT STORAGE table")
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
               writes: list[tuple[Column, ColumnWrite]]) -> None:
    """Applies the writes row by row, each row's operations in statement order (as ScyllaDB's
    ``add_update_for_key`` does; the order in which list keys are generated)."""
    for row in (target.rows or [None]):
        for column, write in writes:
            row_key = None if column.kind == "static" else row
            if isinstance(write, CollectionWrite):
                write.apply(builder, table, partition_key, row_key, column)
            else:
                builder.add_cell(table, partition_key, row_key, column, write)


# ------------------------------------------------------------------------------------ UPDATE


def plan_update(statement: ast.Update, table: Table, attributes: WriteAttributes, builder: MutationBuilder) -> None:
    writes = [(_column(table, a.column), a) for a in statement.assignments]
    for column, assignment in writes:
        if column.is_primary_key:
            raise CqlRequestError(f"PRIMARY KEY part {column.name} found in SET part")
    cells = [(column, _column_write(column, assignment, attributes)) for column, assignment in writes]
    target = resolve_write_target(table, statement.where, statement_kind="UPDATE",
                                  modified=[column for column, _ in writes])
    for partition_key in target.partition_keys:
        _add_cells(builder, table, partition_key, target, cells)


def _column_write(column: Column, assignment: ast.Assignment, attributes: WriteAttributes) -> ColumnWrite:
    """What an assignment writes: a cell of an atomic column, or a ``CollectionWrite``."""
    kind, text, cql_type, name = assignment.kind, assignment.text, column.type, column.name
    if cql_type.is_counter:
        if kind == "set":
            raise CqlRequestError(f"Cannot set the value of counter column {column.name} "
                                  "(counters can only be incremented/decremented, not set)")
        raise CqlUnsupportedError(f"counter updates ({text}) are not supported")
    if kind == "set":
        value = literal_value(assignment.value, cql_type, name)
        if cql_type.is_multi_cell:
            return _collection_overwrite(column, value, attributes)
        return _cell(value, attributes)
    if kind in ("add", "subtract"):
        if not t.is_collection(cql_type):
            raise CqlRequestError(f"Invalid operation ({text}) for non counter column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid operation ({text}) for frozen collection column {column.name}")
        if isinstance(cql_type, t.ListType):
            if kind == "subtract":
                removed = literal_value(assignment.value, cql_type, name)
                return CollectionWrite(attributes.timestamp, attributes.ttl, list_mode="remove_values",
                                       list_values=tuple(removed["list"]) if removed else ())
            return _list_write(literal_value(assignment.value, cql_type, name), attributes, "append")
        if kind == "add":
            return CollectionWrite(attributes.timestamp, attributes.ttl,
                                   elements=_live_elements(column, literal_value(assignment.value, cql_type, name),
                                                           attributes))
        key_type = cql_type.key if isinstance(cql_type, t.MapType) else cql_type.element
        removed = literal_value(assignment.value, t.SetType(key_type), name)
        return CollectionWrite(attributes.timestamp, attributes.ttl,
                               elements=_dead_elements(removed["set"] if removed else (), attributes))
    if kind == "prepend":
        if not isinstance(cql_type, t.ListType):
            raise CqlRequestError(f"Invalid operation ({text}) for non list column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid operation ({text}) for frozen list column {column.name}")
        return _list_write(literal_value(assignment.value, cql_type, name), attributes, "prepend")
    if kind in ("set_element", "set_timeuuid_element"):
        if kind == "set_timeuuid_element" and not isinstance(cql_type, t.ListType):
            raise CqlRequestError(f"Invalid operation ({text}) for non list column {column.name}")
        if not t.is_collection(cql_type):
            raise CqlRequestError(f"Invalid operation ({text}) for non collection column {column.name}")
        if isinstance(cql_type, t.SetType):
            raise CqlRequestError(f"Invalid operation ({text}) for set column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid operation ({text}) for frozen collection column {column.name}")
        if isinstance(cql_type, t.MapType):
            key = literal_value(assignment.key, cql_type.key, f"key({name})")
            if key is None:
                raise CqlRequestError("Invalid null map key")
            value = literal_value(assignment.value, cql_type.value, f"value({name})")
        elif kind == "set_element":
            index = literal_value(assignment.key, t.NativeType("int"), f"idx({name})")
            if index is None:
                raise CqlRequestError("Invalid null value for list index")
            value = literal_value(assignment.value, cql_type.element, f"value({name})")
            return CollectionWrite(attributes.timestamp, attributes.ttl, list_mode="set_index",
                                   list_values=(value,), index=index)
        else:
            key = literal_value(assignment.key, t.NativeType("uuid"), f"uuid_idx({name})")
            if key is None:
                raise CqlRequestError("Invalid null value for list index")
            value = literal_value(assignment.value, cql_type.element, f"value({name})")
        return CollectionWrite(attributes.timestamp, attributes.ttl, elements=(_element(key, value, attributes),))
    if kind == "set_field":
        if not isinstance(cql_type, t.UserType):
            raise CqlRequestError(f"Invalid operation ({text}) for non-UDT column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid operation ({text}) for frozen UDT column {column.name}")
        index = _field_index(column, assignment.field_name)
        value = literal_value(assignment.value, cql_type.field_types[index], f"{name}.{assignment.field_name}")
        return CollectionWrite(attributes.timestamp, attributes.ttl, elements=(_element(index, value, attributes),))
    raise CqlRequestError(f"Unsupported assignment: {text}")


def _field_index(column: Column, field_name: str) -> int:
    """The 0-based declaration index of a field of a UDT column (its element key)."""
    if field_name not in column.type.field_names:
        raise CqlRequestError(f"UDT column {column.name} does not have a field named {field_name}")
    return column.type.field_names.index(field_name)


# ------------------------------------------------------------------------------------ DELETE


def plan_delete(statement: ast.Delete, table: Table, attributes: WriteAttributes, builder: MutationBuilder) -> None:
    _refuse_counters(table)
    deletions = [_deletion(table, target, attributes) for target in statement.targets]
    target = resolve_write_target(table, statement.where, statement_kind="DELETE",
                                  modified=[column for column, _ in deletions])
    if target.ranges and not table.is_compound:
        raise CqlRequestError('Range deletions on "compact storage" schemas are not supported')
    timestamp = attributes.timestamp
    for partition_key in target.partition_keys:
        if deletions:
            _add_cells(builder, table, partition_key, target, deletions)
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


def _deletion(table: Table, target: ast.DeleteTarget, attributes: WriteAttributes) -> tuple[Column, ColumnWrite]:
    """The column a DELETE selection writes to and what it writes: a dead cell, a collection
    tombstone at T (not T-1), or a dead element cell."""
    timestamp = attributes.timestamp
    column = _column(table, target.column)
    if column.is_primary_key:
        raise CqlRequestError(f"Invalid identifier {column.name} for deletion (should not be a PRIMARY KEY part)")
    cql_type = column.type
    if target.key is not None:
        if not t.is_collection(cql_type):
            raise CqlRequestError(f"Invalid deletion operation for non collection column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Invalid deletion operation for frozen collection column {column.name}")
        if isinstance(cql_type, t.ListType):
            index = literal_value(target.key, t.NativeType("int"), f"idx({column.name})")
            if index is None:
                raise CqlRequestError("Invalid null value for list index")
            return column, CollectionWrite(timestamp, list_mode="delete_index", index=index)
        if isinstance(cql_type, t.MapType):
            key = literal_value(target.key, cql_type.key, f"key({column.name})")
            if key is None:
                raise CqlRequestError("Invalid null map key")
        else:
            key = literal_value(target.key, cql_type.element, f"value({column.name})")
            if key is None:
                raise CqlRequestError("Invalid null set element")
        return column, CollectionWrite(timestamp, elements=(ElementWrite(timestamp, key, False),))
    if target.field_name is not None:
        if not isinstance(cql_type, t.UserType):
            raise CqlRequestError(f"Invalid deletion operation for non-UDT column {column.name}")
        if not cql_type.is_multi_cell:
            raise CqlRequestError(f"Frozen UDT column {column.name} does not support field deletion")
        index = _field_index(column, target.field_name)
        return column, CollectionWrite(timestamp, elements=(ElementWrite(timestamp, index, False),))
    if cql_type.is_multi_cell:
        return column, CollectionWrite(timestamp, tombstone=timestamp)
    return column, CellWrite(timestamp)
