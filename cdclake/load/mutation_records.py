"""The mutation input contract: one record per atom of a base-table mutation.

ScyllaDB's CDC never sees CQL statements, only the mutation each write produces
(``docs/scylla/log.md`` §3): per base partition a set of *atoms* -- row markers, live and
dead cells, row, range and partition tombstones -- each with its own write
timestamp and TTL. This module defines that record and its table schema; the CQL
front door produces it and the dbt source ``cdc_input.base_mutations`` holds it.

Values are JSON text in the encoding of ``cases_docs.json`` ``conventions.value_encoding``
(numbers, strings, booleans; blobs as ``"0x..."`` strings).

Non-frozen collections and user types are multi-cell (docs/scylla/log.md §3): a ``cell`` with an
``element_key`` is one element (map key, set element, list timeuuid key, UDT field index) --
live with its value (a set element has no value), or dead -- and a ``collection_tombstone``
deletes the whole column's older cells (its timestamp is T-1 for an overwrite, T for a DELETE).

A write has an ``origin``: a client's (null), or ``ttl_expiry``, the row or partition tombstone
with which ScyllaDB's expiration service deletes a row whose per-row TTL column has passed
(CDC logs those deletes with operations -3 / -4, docs/scylla/log.md §2.3).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Optional

ROW_MARKER = "row_marker"
CELL = "cell"
ROW_TOMBSTONE = "row_tombstone"
RANGE_TOMBSTONE = "range_tombstone"
PARTITION_TOMBSTONE = "partition_tombstone"
COLLECTION_TOMBSTONE = "collection_tombstone"

ORIGIN_TTL_EXPIRY = "ttl_expiry"

ATOM_KINDS = (ROW_MARKER, CELL, ROW_TOMBSTONE, RANGE_TOMBSTONE, PARTITION_TOMBSTONE, COLLECTION_TOMBSTONE)


@dataclass(frozen=True)
class Atom:
    """One atom of a base mutation (one row of ``base_mutations``)."""

    write_id: int                      # the client request (statement or batch); also the apply order
    coordinator_now_us: int            # the coordinator's clock when it handled the request (µs)
    keyspace_name: str
    table_name: str
    partition_key: str                 # JSON object {pk column: value}
    atom_kind: str                     # one of ATOM_KINDS
    write_timestamp: int               # µs
    clustering_key: Optional[str] = None   # JSON object {ck column: value}: full key of a row atom
    column_name: Optional[str] = None      # cells only
    is_live: Optional[bool] = None         # cells and markers: live (True) or dead (False)
    value: Optional[str] = None            # live cells: JSON value
    ttl_seconds: Optional[int] = None      # live cells and markers with a TTL
    range_start: Optional[str] = None      # range tombstones: JSON object, a clustering prefix ({} = open)
    range_start_inclusive: Optional[bool] = None
    range_end: Optional[str] = None
    range_end_inclusive: Optional[bool] = None
    element_key: Optional[str] = None      # element cells of non-frozen collections/UDTs: the JSON key
    schema_version: Optional[int] = None   # the table's schema version the write used (required)
    origin: Optional[str] = None           # None: a client's write; "ttl_expiry": the per-row TTL service's delete

    def as_row(self) -> dict:
        return asdict(self)


ATOM_COLUMNS = [f.name for f in fields(Atom)]

# Spark DDL of the base_mutations table, in ATOM_COLUMNS order.
ATOM_SPARK_SCHEMA = ", ".join(
    f"{name} {spark_type}"
    for name, spark_type in [
        ("write_id", "bigint"),
        ("coordinator_now_us", "bigint"),
        ("keyspace_name", "string"),
        ("table_name", "string"),
        ("partition_key", "string"),
        ("atom_kind", "string"),
        ("write_timestamp", "bigint"),
        ("clustering_key", "string"),
        ("column_name", "string"),
        ("is_live", "boolean"),
        ("value", "string"),
        ("ttl_seconds", "int"),
        ("range_start", "string"),
        ("range_start_inclusive", "boolean"),
        ("range_end", "string"),
        ("range_end_inclusive", "boolean"),
        ("element_key", "string"),
        ("schema_version", "bigint"),
        ("origin", "string"),
    ]
)
