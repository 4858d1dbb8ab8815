"""The base table's state as the CQL layer reads it before a write that needs it: a list write
(``l[i] = v``, ``DELETE l[i]``, ``l = l - [v]``: ``cql3/lists.cc`` reads the list first), or a
lightweight transaction's condition (the paxos read, lwt.py).

The state is the merge of every earlier write of the script: per cell (or element) the one with
the highest timestamp wins (a dead cell wins a tie); collection, row, range and partition
tombstones remove the cells they cover (timestamp <= theirs); a TTL'd cell is gone once the
reading coordinator's clock reaches its expiry. A clustering row exists while it has a live row
marker or a live cell; the static row while it has a live static cell (spec §7.1). Earlier
writes that the pipeline later rejects (admission) are still part of this state: the front door
does not know the generations.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Optional, Protocol

from cdclake.cql import types as t
from cdclake.cql.mutation_builder import element_key_type
from cdclake.cql.table_schema import Column, Table
from cdclake.cql.udf_adapter import bound_name, clustering_key, value_key
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
from python_udfs.cql_values import loads_json


@dataclass
class RowRead:
    """A row as read: whether it exists, and its live columns' values (JSON model; a non-frozen
    collection as ``{"list"|"set"|"map": ...}`` or ``{"udt": ...}``, absent when empty)."""

    exists: bool = False
    values: dict[str, Any] = field(default_factory=dict)


class EarlierWrites(Protocol):
    """The atoms written before the script (``cdclake load cql``: the warehouse's input), read
    when the script first reads a partition or scans a table."""

    def partition_atoms(self, keyspace: str, table: str, partition_key_json: str) -> list[Atom]: ...

    def table_atoms(self, keyspace: str, table: str) -> list[Atom]: ...


class TableState:
    """Atoms of the writes run so far, by partition, to answer the reads before writes;
    ``earlier``: the writes before the script, fetched as reads need them."""

    def __init__(self, earlier: Optional[EarlierWrites] = None) -> None:
        self._by_partition: dict[tuple, list[Atom]] = defaultdict(list)
        self._earlier = earlier
        self._fetched: set[tuple] = set()         # partitions, and (keyspace, table) pairs scanned whole

    def _fetch_partition(self, key: tuple) -> None:
        if self._earlier is not None and key not in self._fetched and key[:2] not in self._fetched:
            self._fetched.add(key)
            self._by_partition[key] = self._earlier.partition_atoms(*key) + self._by_partition[key]

    def _fetch_table(self, keyspace: str, name: str) -> None:
        if self._earlier is None or (keyspace, name) in self._fetched:
            return
        by_partition: dict[tuple, list[Atom]] = defaultdict(list)
        for atom in self._earlier.table_atoms(keyspace, name):
            by_partition[(keyspace, name, atom.partition_key)].append(atom)
        for key, atoms in by_partition.items():
            if key not in self._fetched:
                self._by_partition[key] = atoms + self._by_partition[key]
        self._fetched.add((keyspace, name))

    def record(self, atoms: list[Atom]) -> None:
        for atom in atoms:
            self._by_partition[(atom.keyspace_name, atom.table_name, atom.partition_key)].append(atom)

    def live_list(self, table: Table, partition_key: tuple, row: Optional[tuple], column: Column,
                  now_us: int) -> Optional[list[tuple[Any, Any]]]:
        """The list's live (key, value) elements in key order; None when it has none (null)."""
        reader = _RowReader(self, table, partition_key, row, now_us)
        elements = reader.live_elements(column)
        return [(key, value) for key, value in elements] or None

    def read_row(self, table: Table, partition_key: tuple, row: Optional[tuple], now_us: int) -> RowRead:
        """The clustering row ``row`` (``()`` for a table without clustering key), or the static
        row (``row`` None): whether it exists and its live values."""
        reader = _RowReader(self, table, partition_key, row, now_us)
        columns = table.static if row is None else table.regular
        values = {}
        for column in columns:
            value = reader.value(column)
            if value is not None:
                values[column.name] = value
        exists = bool(values) if row is None else (reader.has_live_marker() or bool(values))
        return RowRead(exists, values)

    def rows(self, table: Table) -> list[tuple[tuple, tuple]]:
        """(partition key, clustering key) of every clustering row the table's writes named, in
        the order first written (``()`` for a table without clustering key)."""
        self._fetch_table(table.keyspace, table.name)
        found: dict[tuple, None] = {}
        for (keyspace, name, pk_json), atoms in self._by_partition.items():
            if (keyspace, name) != (table.keyspace, table.name):
                continue
            partition = loads_json(pk_json)
            partition_key = tuple(partition[c.name] for c in table.partition_key)
            for atom in atoms:
                if atom.atom_kind in (CELL, ROW_MARKER) and (atom.clustering_key or not table.clustering):
                    clustering = loads_json(atom.clustering_key) if atom.clustering_key else {}
                    found[(partition_key, tuple(clustering[c.name] for c in table.clustering))] = None
        return list(found)

    def partition_atoms(self, table: Table, partition_key: tuple) -> list[Atom]:
        pk_json = to_json({c.name: v for c, v in zip(table.partition_key, partition_key)})
        self._fetch_partition((table.keyspace, table.name, pk_json))
        return self._by_partition.get((table.keyspace, table.name, pk_json), [])


class _RowReader:
    """The atoms of one row (or the static row) and the tombstones over it, at one clock."""

    def __init__(self, state: TableState, table: Table, partition_key: tuple, row: Optional[tuple], now_us: int):
        self.table = table
        self.now_us = now_us
        self.atoms = state.partition_atoms(table, partition_key)
        self.static = row is None
        self.ck_json = (to_json({c.name: v for c, v in zip(table.clustering, row)})
                        if row is not None and table.clustering else None)
        self.position = clustering_key(table.clustering, row) if row is not None and table.clustering else None
        covering = [a.write_timestamp for a in self.atoms if self._covers_row(a)]
        self.row_deleted_up_to = max(covering, default=None)

    def _mine(self, atom: Atom, column: Optional[Column] = None) -> bool:
        if column is not None and atom.column_name != column.name:
            return False
        return atom.clustering_key == self.ck_json

    def _covers_row(self, atom: Atom) -> bool:
        """A partition, row or range tombstone over this row (the static row: partition only)."""
        if atom.atom_kind == PARTITION_TOMBSTONE:
            return True
        if self.static:
            return False
        if atom.atom_kind == ROW_TOMBSTONE:
            return atom.clustering_key == self.ck_json
        if atom.atom_kind == RANGE_TOMBSTONE and self.position is not None:
            start, end = _prefix(self.table, atom.range_start), _prefix(self.table, atom.range_end)
            return (clustering_key(self.table.clustering, start, bound_name("start", atom.range_start_inclusive))
                    < self.position
                    < clustering_key(self.table.clustering, end, bound_name("end", atom.range_end_inclusive)))
        return False

    def _alive(self, atom: Atom, deleted_up_to: Optional[int]) -> bool:
        return (atom.is_live and (deleted_up_to is None or atom.write_timestamp > deleted_up_to)
                and not (atom.ttl_seconds and self.now_us >= atom.coordinator_now_us + atom.ttl_seconds * 1_000_000))

    def has_live_marker(self) -> bool:
        return any(a.atom_kind == ROW_MARKER and self._mine(a) and self._alive(a, self.row_deleted_up_to)
                   for a in self.atoms)

    def live_elements(self, column: Column) -> list[tuple[Any, Any]]:
        """A non-frozen collection's or UDT's live (key, value) elements, in key order."""
        tombstones = [a.write_timestamp for a in self.atoms
                      if a.atom_kind == COLLECTION_TOMBSTONE and self._mine(a, column)]
        deleted_up_to = max(tombstones + ([self.row_deleted_up_to] if self.row_deleted_up_to is not None else []),
                            default=None)
        winners: dict[str, Atom] = {}
        for atom in self.atoms:
            if atom.atom_kind == CELL and self._mine(atom, column) and atom.element_key is not None:
                old = winners.get(atom.element_key)
                if old is None or _rank(atom) > _rank(old):
                    winners[atom.element_key] = atom
        key_type = element_key_type(column.type)
        elements = [(loads_json(a.element_key), None if a.value is None else loads_json(a.value))
                    for a in winners.values() if self._alive(a, deleted_up_to)]
        return sorted(elements, key=lambda kv: value_key(key_type, kv[0]))

    def value(self, column: Column) -> Any:
        """The column's live value (JSON model), or None."""
        cql_type = column.type
        if cql_type.is_multi_cell:
            elements = self.live_elements(column)
            if not elements:
                return None
            if isinstance(cql_type, t.ListType):
                return {"list": [value for _, value in elements]}
            if isinstance(cql_type, t.SetType):
                return {"set": [key for key, _ in elements]}
            if isinstance(cql_type, t.MapType):
                return {"map": [[key, value] for key, value in elements]}
            fields = dict(elements)
            return {"udt": {name: fields.get(index) for index, name in enumerate(cql_type.field_names)}}
        cells = [a for a in self.atoms if a.atom_kind == CELL and self._mine(a, column)]
        if not cells:
            return None
        winner = max(cells, key=_rank)
        return loads_json(winner.value) if self._alive(winner, self.row_deleted_up_to) else None


def _prefix(table: Table, prefix_json: str) -> tuple:
    values = loads_json(prefix_json)
    return tuple(values[c.name] for c in table.clustering if c.name in values)


def _rank(atom: Atom) -> tuple:
    """Last write wins: the higher timestamp, then a dead cell, then the greater value."""
    return atom.write_timestamp, not atom.is_live, atom.value or ""
