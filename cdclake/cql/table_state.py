"""The base table's state as the CQL layer reads it before a list write that needs it
(``l[i] = v``, ``DELETE l[i]``, ``l = l - [v]``: ``cql3/lists.cc`` reads the list first).

The state is the merge of every earlier write of the script: per element key the cell with the
highest timestamp wins (a dead cell wins a tie); collection, row, range and partition tombstones
remove the cells they cover (timestamp <= theirs); a TTL'd cell is gone once the reading
coordinator's clock reaches its expiry. Earlier writes that the pipeline later rejects
(admission) are still part of this state: the front door does not know the generations.
"""
from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Optional

from cdclake.cql.catalog import Column, Table
from cdclake.cql.udf_adapter import bound_name, clustering_key, value_key
from cdclake.cql.values import to_json
from cdclake.cql import types as t
from cdclake.mutations import CELL, COLLECTION_TOMBSTONE, PARTITION_TOMBSTONE, RANGE_TOMBSTONE, ROW_TOMBSTONE, Atom


class TableState:
    """Atoms of the writes run so far, by partition, to answer list reads."""

    def __init__(self) -> None:
        self._by_partition: dict[tuple, list[Atom]] = defaultdict(list)

    def record(self, atoms: list[Atom]) -> None:
        for atom in atoms:
            self._by_partition[(atom.keyspace_name, atom.table_name, atom.partition_key)].append(atom)

    def live_list(self, table: Table, partition_key: tuple, row: Optional[tuple], column: Column,
                  now_us: int) -> Optional[list[tuple[Any, Any]]]:
        """The list's live (key, value) elements in key order; None when it has none (null)."""
        pk_json = to_json({c.name: v for c, v in zip(table.partition_key, partition_key)})
        ck_json = (to_json({c.name: v for c, v in zip(table.clustering, row)})
                   if row is not None and table.clustering else None)
        atoms = self._by_partition.get((table.keyspace, table.name, pk_json), [])
        position = clustering_key(table.clustering, row) if row is not None and table.clustering else None
        deleted_up_to = max((a.write_timestamp for a in atoms if self._covers(a, table, column, ck_json, position)),
                            default=None)
        winners: dict[str, Atom] = {}
        for atom in atoms:
            if (atom.atom_kind == CELL and atom.column_name == column.name and atom.clustering_key == ck_json
                    and atom.element_key is not None):
                old = winners.get(atom.element_key)
                if old is None or _rank(atom) > _rank(old):
                    winners[atom.element_key] = atom
        live = [a for a in winners.values()
                if a.is_live and (deleted_up_to is None or a.write_timestamp > deleted_up_to)
                and not (a.ttl_seconds and now_us >= a.coordinator_now_us + a.ttl_seconds * 1_000_000)]
        if not live:
            return None
        key_type = t.NativeType("timeuuid")
        elements = [(json.loads(a.element_key), json.loads(a.value)) for a in live]
        return sorted(elements, key=lambda kv: value_key(key_type, kv[0]))

    @staticmethod
    def _covers(atom: Atom, table: Table, column: Column, ck_json: Optional[str], position: Optional[bytes]) -> bool:
        """Whether ``atom`` is a tombstone over the column's cells in the row read."""
        if atom.atom_kind == PARTITION_TOMBSTONE:
            return True
        if atom.atom_kind == COLLECTION_TOMBSTONE:
            return atom.column_name == column.name and atom.clustering_key == ck_json
        if column.kind == "static":
            return False
        if atom.atom_kind == ROW_TOMBSTONE:
            return atom.clustering_key == ck_json
        if atom.atom_kind == RANGE_TOMBSTONE and position is not None:
            start = _prefix(table, atom.range_start)
            end = _prefix(table, atom.range_end)
            return (clustering_key(table.clustering, start, bound_name("start", atom.range_start_inclusive))
                    < position
                    < clustering_key(table.clustering, end, bound_name("end", atom.range_end_inclusive)))
        return False


def _prefix(table: Table, prefix_json: str) -> tuple:
    values = json.loads(prefix_json)
    return tuple(values[c.name] for c in table.clustering if c.name in values)


def _rank(atom: Atom) -> tuple:
    """Last write wins: the higher timestamp, then a dead cell, then the greater value."""
    return atom.write_timestamp, not atom.is_live, atom.value or ""
