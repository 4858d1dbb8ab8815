"""Accumulates the base mutations of one client request and emits them as ``Atom`` records.

One request (a statement, or a BATCH) becomes one mutation per touched partition
(docs/scylla/log.md §3). When several statements of a batch write the same row marker or cell,
the mutation keeps one winner, reconciled as ScyllaDB's ``compare_atomic_cell_for_merge`` and
``compare_row_marker_for_merge`` do: the higher timestamp; on a tie a dead cell beats a live
one, then an expiring one, then the longer TTL, then the greater serialized value. A row keeps the
newest row tombstone, a partition the newest partition tombstone; range tombstones with the same
bounds keep the newest (overlapping different ranges are kept as they are). A non-frozen
collection/UDT column keeps its newest collection tombstone and, per element key, the winning
element cell (same rules as cells, the value compared in the element's type), minus the
elements that tombstone covers (timestamp <= its own). Cells and markers under a row, range or
partition tombstone of the same request stay: ScyllaDB merges a batch without compacting it.

Atoms come out in ScyllaDB's visitation order (§4.4): per partition the static row, then
clustered rows in clustering order (marker, cells by column order -- a collection column as its
tombstone then its element cells in key order --, row tombstone), then range tombstones by start
bound, then the partition tombstone.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from cdclake.cql import types as t
from cdclake.cql.errors import CqlUnsupportedError
from cdclake.cql.restrictions import ClusteringRange
from cdclake.cql.table_schema import Column, Table
from cdclake.cql.udf_adapter import bound_name, clustering_key, serialize, value_key
from cdclake.cql.values import to_json
from cdclake.load.mutation_records import (
    CELL,
    COLLECTION_TOMBSTONE,
    PARTITION_TOMBSTONE,
    RANGE_TOMBSTONE,
    ROW_MARKER,
    ROW_TOMBSTONE,
    Atom,
)


@dataclass(frozen=True)
class CellWrite:
    """A live (``value`` set) or dead (``value`` None) atomic cell."""

    timestamp: int
    value: Any = None
    ttl: Optional[int] = None

    @property
    def is_live(self) -> bool:
        return self.value is not None


@dataclass(frozen=True)
class ElementWrite:
    """A live or dead element cell of a non-frozen collection/UDT. ``key`` is the element key in
    the JSON model (map key, set element, list timeuuid string, UDT field index); ``value`` is the
    live element's value (None for a set element)."""

    timestamp: int
    key: Any
    is_live: bool
    value: Any = None
    ttl: Optional[int] = None


@dataclass
class _Collection:
    tombstone: Optional[int] = None
    elements: dict[str, ElementWrite] = field(default_factory=dict)


@dataclass(frozen=True)
class RowMarker:
    timestamp: int
    ttl: Optional[int] = None


@dataclass
class _Row:
    key: tuple
    marker: Optional[RowMarker] = None
    cells: dict[str, CellWrite] = field(default_factory=dict)
    collections: dict[str, _Collection] = field(default_factory=dict)
    tombstone: Optional[int] = None


@dataclass
class _Partition:
    table: Table
    key: tuple
    static_cells: dict[str, CellWrite] = field(default_factory=dict)
    static_collections: dict[str, _Collection] = field(default_factory=dict)
    rows: dict[str, _Row] = field(default_factory=dict)
    range_tombstones: dict[tuple, tuple[ClusteringRange, int]] = field(default_factory=dict)
    tombstone: Optional[int] = None


def _wins(new, old, value_type: Optional[t.CqlType]) -> bool:
    """ScyllaDB's reconciliation of two cells in one mutation (compare_atomic_cell_for_merge,
    mutation/atomic_cell.cc): the higher timestamp; on a tie a dead cell; then an expiring cell;
    then the later expiry (the longer TTL: the statements of one request share its clock); then
    the greater serialized value (unsigned bytes). ``value_type`` None: the cells carry no value
    (set elements)."""
    if new.timestamp != old.timestamp:
        return new.timestamp > old.timestamp
    if new.is_live != old.is_live:
        return not new.is_live
    if not new.is_live:
        return False
    new_ttl, old_ttl = new.ttl or 0, old.ttl or 0
    if bool(new_ttl) != bool(old_ttl):
        return bool(new_ttl)
    if new_ttl != old_ttl:          # one request, one clock: the longer TTL expires later
        return new_ttl > old_ttl
    if value_type is not None:
        return serialize(value_type, new.value) > serialize(value_type, old.value)
    return False


def cell_wins(new: CellWrite, old: CellWrite, column: Column) -> bool:
    """Whether ``new`` replaces ``old`` when both are in one mutation."""
    return _wins(new, old, column.type)


def element_key_type(cql_type: t.CqlType) -> t.CqlType:
    """The type of a non-frozen collection/UDT column's element keys."""
    if isinstance(cql_type, t.MapType):
        return cql_type.key
    if isinstance(cql_type, t.SetType):
        return cql_type.element
    if isinstance(cql_type, t.ListType):
        return t.NativeType("timeuuid")
    return t.NativeType("smallint")          # UDT field index


def element_value_type(cql_type: t.CqlType, key: Any) -> Optional[t.CqlType]:
    """The type of the value of the element at ``key`` (None for set elements)."""
    if isinstance(cql_type, t.MapType):
        return cql_type.value
    if isinstance(cql_type, t.ListType):
        return cql_type.element
    if isinstance(cql_type, t.UserType):
        return cql_type.field_types[key]
    return None


def element_wins(new: ElementWrite, old: ElementWrite, column: Column) -> bool:
    """Whether element cell ``new`` replaces ``old`` (same key) in one mutation."""
    return _wins(new, old, element_value_type(column.type, new.key))


def marker_wins(new: RowMarker, old: RowMarker) -> bool:
    if new.timestamp != old.timestamp:
        return new.timestamp > old.timestamp
    return (new.ttl or 0) > (old.ttl or 0)


class MutationBuilder:
    """The mutations of one request; ``atoms`` turns them into ``Atom`` records."""

    def __init__(self, list_reader=None) -> None:
        self._partitions: dict[tuple, _Partition] = {}
        self._list_seq = 0
        self._list_reader = list_reader

    def read_list(self, table: Table, partition_key: tuple, row: Optional[tuple], column: Column):
        """The list's current (key, value) elements in key order, or None (null): the read
        before a write that addresses list elements by position or value."""
        if self._list_reader is None:
            raise CqlUnsupportedError(f"reading list column {column.name} needs the table's state")
        return self._list_reader(table, partition_key, row, column)

    def next_list_append_seq(self) -> int:
        """The request-wide list value counter (``query_options::next_list_append_seq``)."""
        seq = self._list_seq
        self._list_seq += 1
        return seq

    def next_list_prepend_seq(self, count: int, limit: int) -> int:
        """First sub-microsecond sequence of a ``count``-value prepend
        (``query_options::next_list_prepend_seq``): reserves ``count`` values of the shared
        counter and counts down from ``limit``; ``limit`` itself means "too many values"."""
        if self._list_seq + count < limit:
            self._list_seq += count
            return limit - self._list_seq
        return limit

    def _partition(self, table: Table, key: tuple) -> _Partition:
        identity = (table.keyspace, table.name, to_json(list(key)))
        if identity not in self._partitions:
            self._partitions[identity] = _Partition(table, key)
        return self._partitions[identity]

    def _row(self, table: Table, partition_key: tuple, clustering_key: tuple) -> _Row:
        rows = self._partition(table, partition_key).rows
        identity = to_json(list(clustering_key))
        if identity not in rows:
            rows[identity] = _Row(clustering_key)
        return rows[identity]

    # ------------------------------------------------------------------ adding
    def add_row_marker(self, table: Table, partition_key: tuple, clustering_key: tuple, marker: RowMarker) -> None:
        row = self._row(table, partition_key, clustering_key)
        if row.marker is None or marker_wins(marker, row.marker):
            row.marker = marker

    def add_cell(self, table: Table, partition_key: tuple, clustering_key: Optional[tuple], column: Column,
                 cell: CellWrite) -> None:
        """A cell of ``column``; ``clustering_key`` is None for a static column."""
        if column.kind == "static":
            cells = self._partition(table, partition_key).static_cells
        else:
            cells = self._row(table, partition_key, clustering_key).cells
        old = cells.get(column.name)
        if old is None or cell_wins(cell, old, column):
            cells[column.name] = cell

    def _collection(self, table: Table, partition_key: tuple, clustering_key: Optional[tuple],
                    column: Column) -> _Collection:
        if column.kind == "static":
            collections = self._partition(table, partition_key).static_collections
        else:
            collections = self._row(table, partition_key, clustering_key).collections
        return collections.setdefault(column.name, _Collection())

    def add_collection_tombstone(self, table: Table, partition_key: tuple, clustering_key: Optional[tuple],
                                 column: Column, timestamp: int) -> None:
        """Deletes the older cells of non-frozen collection/UDT ``column`` (newest tombstone kept)."""
        collection = self._collection(table, partition_key, clustering_key, column)
        if collection.tombstone is None or collection.tombstone < timestamp:
            collection.tombstone = timestamp

    def add_element(self, table: Table, partition_key: tuple, clustering_key: Optional[tuple], column: Column,
                    element: ElementWrite) -> None:
        """An element cell of non-frozen collection/UDT ``column``; one winner per element key."""
        elements = self._collection(table, partition_key, clustering_key, column).elements
        identity = to_json(element.key)
        old = elements.get(identity)
        if old is None or element_wins(element, old, column):
            elements[identity] = element

    def add_row_tombstone(self, table: Table, partition_key: tuple, clustering_key: tuple, timestamp: int) -> None:
        row = self._row(table, partition_key, clustering_key)
        row.tombstone = timestamp if row.tombstone is None else max(row.tombstone, timestamp)

    def add_range_tombstone(self, table: Table, partition_key: tuple, bounds: ClusteringRange, timestamp: int) -> None:
        tombstones = self._partition(table, partition_key).range_tombstones
        identity = (to_json(list(bounds.start)), bounds.start_inclusive,
                    to_json(list(bounds.end)), bounds.end_inclusive)
        if identity not in tombstones or tombstones[identity][1] < timestamp:
            tombstones[identity] = (bounds, timestamp)

    def add_partition_tombstone(self, table: Table, partition_key: tuple, timestamp: int) -> None:
        partition = self._partition(table, partition_key)
        partition.tombstone = timestamp if partition.tombstone is None else max(partition.tombstone, timestamp)

    # ------------------------------------------------------------------ emitting
    def atoms(self, write_id: int, coordinator_now_us: int) -> list[Atom]:
        atoms: list[Atom] = []
        for partition in self._partitions.values():
            emit = _AtomFactory(partition, write_id, coordinator_now_us)
            for column in partition.table.static:
                if column.name in partition.static_cells:
                    atoms.append(emit.cell(None, column.name, partition.static_cells[column.name]))
                if column.name in partition.static_collections:
                    atoms.extend(emit.collection(None, column, partition.static_collections[column.name]))
            for row in _rows_in_clustering_order(partition):
                if row.marker is not None:
                    atoms.append(emit.marker(row.key, row.marker))
                for column in partition.table.regular:
                    if column.name in row.cells:
                        atoms.append(emit.cell(row.key, column.name, row.cells[column.name]))
                    if column.name in row.collections:
                        atoms.extend(emit.collection(row.key, column, row.collections[column.name]))
                if row.tombstone is not None:
                    atoms.append(emit.row_tombstone(row.key, row.tombstone))
            for bounds, timestamp in _ranges_in_clustering_order(partition):
                atoms.append(emit.range_tombstone(bounds, timestamp))
            if partition.tombstone is not None:
                atoms.append(emit.partition_tombstone(partition.tombstone))
        return atoms


def _rows_in_clustering_order(partition: _Partition) -> list[_Row]:
    columns = partition.table.clustering
    return sorted(partition.rows.values(), key=lambda row: clustering_key(columns, row.key))


def _ranges_in_clustering_order(partition: _Partition) -> list[tuple[ClusteringRange, int]]:
    """The partition's range tombstones as ScyllaDB's ``range_tombstone_list`` holds them
    (``mutation/range_tombstone_list.cc``): non-overlapping pieces in clustering order, each with
    the newest covering tombstone, adjacent pieces with the same tombstone merged, empty ranges
    dropped. CDC logs these pieces."""
    columns = partition.table.clustering
    points: dict[bytes, tuple[tuple, bool]] = {}       # position -> (prefix, after the prefix)
    ranges = []
    for bounds, timestamp in partition.range_tombstones.values():
        start = clustering_key(columns, bounds.start, bound_name("start", bounds.start_inclusive))
        end = clustering_key(columns, bounds.end, bound_name("end", bounds.end_inclusive))
        if start >= end:
            continue
        points[start] = (bounds.start, not bounds.start_inclusive)
        points[end] = (bounds.end, bounds.end_inclusive)
        ranges.append((start, end, timestamp))
    pieces: list[list] = []
    ordered = sorted(points)
    for low, high in zip(ordered, ordered[1:]):
        timestamp = max((t for start, end, t in ranges if start <= low and high <= end), default=None)
        if timestamp is None:
            continue
        if pieces and pieces[-1][1] == low and pieces[-1][2] == timestamp:
            pieces[-1][1] = high
        else:
            pieces.append([low, high, timestamp])
    return [(ClusteringRange(points[low][0], not points[low][1], points[high][0], points[high][1]), timestamp)
            for low, high, timestamp in pieces]


class _AtomFactory:
    def __init__(self, partition: _Partition, write_id: int, coordinator_now_us: int):
        table = partition.table
        self.table = table
        self.common = dict(
            write_id=write_id, coordinator_now_us=coordinator_now_us, keyspace_name=table.keyspace,
            table_name=table.name,
            partition_key=to_json({c.name: v for c, v in zip(table.partition_key, partition.key)}))

    def _clustering_json(self, key: Optional[tuple]) -> Optional[str]:
        if key is None or not self.table.clustering:
            return None
        return self.prefix_json(key)

    def prefix_json(self, prefix: tuple) -> str:
        return to_json({c.name: v for c, v in zip(self.table.clustering, prefix)})

    def cell(self, key: Optional[tuple], column_name: str, cell: CellWrite) -> Atom:
        return Atom(**self.common, atom_kind=CELL, write_timestamp=cell.timestamp,
                    clustering_key=self._clustering_json(key), column_name=column_name, is_live=cell.is_live,
                    value=to_json(cell.value) if cell.is_live else None,
                    ttl_seconds=cell.ttl if cell.is_live else None)

    def collection(self, key: Optional[tuple], column: Column, collection: _Collection) -> list[Atom]:
        """The collection tombstone, then the element cells in element-key order. Merging the
        statements of a request drops the elements its tombstone covers, ties included
        (``collection_mutation.cc`` merge: an element survives another statement's tombstone only
        with a greater timestamp; a statement's own elements are always newer than its T-1)."""
        atoms = []
        clustering = self._clustering_json(key)
        if collection.tombstone is not None:
            atoms.append(Atom(**self.common, atom_kind=COLLECTION_TOMBSTONE, write_timestamp=collection.tombstone,
                              clustering_key=clustering, column_name=column.name))
        key_type = element_key_type(column.type)
        survivors = [e for e in collection.elements.values()
                     if collection.tombstone is None or e.timestamp > collection.tombstone]
        for element in sorted(survivors, key=lambda e: value_key(key_type, e.key)):
            atoms.append(Atom(**self.common, atom_kind=CELL, write_timestamp=element.timestamp,
                              clustering_key=clustering, column_name=column.name, is_live=element.is_live,
                              value=to_json(element.value) if element.is_live and element.value is not None
                              else None,
                              ttl_seconds=element.ttl if element.is_live else None,
                              element_key=to_json(element.key)))
        return atoms

    def marker(self, key: tuple, marker: RowMarker) -> Atom:
        return Atom(**self.common, atom_kind=ROW_MARKER, write_timestamp=marker.timestamp,
                    clustering_key=self._clustering_json(key), is_live=True, ttl_seconds=marker.ttl)

    def row_tombstone(self, key: tuple, timestamp: int) -> Atom:
        return Atom(**self.common, atom_kind=ROW_TOMBSTONE, write_timestamp=timestamp,
                    clustering_key=self._clustering_json(key))

    def range_tombstone(self, bounds: ClusteringRange, timestamp: int) -> Atom:
        return Atom(**self.common, atom_kind=RANGE_TOMBSTONE, write_timestamp=timestamp,
                    range_start=self.prefix_json(bounds.start), range_start_inclusive=bounds.start_inclusive,
                    range_end=self.prefix_json(bounds.end), range_end_inclusive=bounds.end_inclusive)

    def partition_tombstone(self, timestamp: int) -> Atom:
        return Atom(**self.common, atom_kind=PARTITION_TOMBSTONE, write_timestamp=timestamp)
