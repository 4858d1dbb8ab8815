"""The CDC stream sets of a warehouse's tablets tables, as the input table
``cdc_input.tablet_streams``: one row per stream of each set (keyspace, base table, the set's
timestamp in ms, the stream's last token, its ID), made from a cluster history and the tables'
schema records (``docs/scylla/tablets.md`` §4-§6), or imported from a cluster's
``system.cdc_streams``. The pipeline routes each write to a tablets table through them
(``models/intermediate/streams/int_tablet_streams.sql``).
"""
from __future__ import annotations

from typing import Iterable

from cdclake.generations.cluster_history import DEFAULT_CLUSTER_SEED, ClusterHistory, Node
from cdclake.generations.tablets import table_tablet_count
from cdclake.generations.vnodes import DEFAULT_RING_DELAY_MS
from cdclake.load.inputs import INPUT_SCHEMA
from cdclake.load.schema_records import BaseTable

TABLET_STREAMS_COLUMNS = ["keyspace_name", "table_name", "set_ts_ms", "last_token", "stream_id"]
TABLET_STREAMS_SPARK_SCHEMA = (
    "keyspace_name string, table_name string, set_ts_ms bigint, last_token bigint, stream_id string"
)


def single_node_cluster(joined_at_ms: int, shards: int = 2) -> ClusterHistory:
    """The replay's default cluster as a history: one node with ``shards`` shards (the default
    generation's, cdclake.replay.default_generations), the default ring delay and seed."""
    return ClusterHistory(DEFAULT_RING_DELAY_MS, DEFAULT_CLUSTER_SEED, (Node("n1", joined_at_ms, (), shards, 12),))


def tablets_tables_at_log_creation(tables: Iterable[BaseTable]) -> list[BaseTable]:
    """Each CDC-enabled table of a tablets keyspace, as its schema version that first had CDC on
    (its tablet count is the one its log table was created with), by keyspace and name."""
    first: dict[tuple[str, str], BaseTable] = {}
    for table in tables:
        key = (table.keyspace_name, table.table_name)
        if table.uses_tablets and table.cdc_enabled and (key not in first
                                                         or table.schema_version < first[key].schema_version):
            first[key] = table
    return [first[key] for key in sorted(first)]


def tablet_stream_rows(history: ClusterHistory, tables: Iterable[BaseTable]) -> list[tuple]:
    """The rows of ``cdc_input.tablet_streams`` (TABLET_STREAMS_COLUMNS) for the tablets tables
    among ``tables``: each one's first set at its log table's creation (a table loaded from a
    DESCRIBE, whose log's creation is not known: at the cluster's start), then one per resize of
    the history's ``tablets`` section. A table's tablet count is what its keyspace or its options
    give, else the history's default for its replication factor."""
    rows = []
    for table in tablets_tables_at_log_creation(tables):
        name = f"{table.keyspace_name}.{table.table_name}"
        created_ms = table.cdc_log_created_ms if table.cdc_log_created_ms is not None else history.nodes[0].joined_at_ms
        count = table_tablet_count(table.tablet_count,
                                   history.default_tablet_count(created_ms, table.replication_factor or 1))
        for stream_set in history.stream_sets(name, created_ms, count):
            rows += [(table.keyspace_name, table.table_name, stream_set.timestamp_ms, token, stream_id.hex())
                     for token, stream_id in zip(stream_set.last_tokens, stream_set.stream_ids)]
    return rows


def summary(rows: list[tuple]) -> str:
    """``N stream sets of M tablets tables (K streams)`` of some rows."""
    sets = {row[:3] for row in rows}
    return f"{len(sets)} stream sets of {len({row[:2] for row in rows})} tablets tables ({len(rows):,} streams)"


def write_csv(rows: list[tuple], folder) -> None:
    """``tablet_streams.csv`` in the seed layout (``read_csv`` reads it) in ``folder``."""
    import csv
    from pathlib import Path

    Path(folder).mkdir(parents=True, exist_ok=True)
    with open(Path(folder) / "tablet_streams.csv", "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(TABLET_STREAMS_COLUMNS)
        writer.writerows(rows)


def read_csv(path) -> list[tuple]:
    """The rows of a ``tablet_streams.csv`` in the seed layout (TABLET_STREAMS_COLUMNS, a header)."""
    import csv

    with open(path, newline="") as f:
        return [(r["keyspace_name"], r["table_name"], int(r["set_ts_ms"]), int(r["last_token"]), r["stream_id"].lower())
                for r in csv.DictReader(f)]


def load(spark, rows: list[tuple], table_format: str) -> None:
    """Overwrite ``cdc_input.tablet_streams`` with ``rows``; without rows, drop it (the pipeline
    reads an absent table as no stream sets)."""
    spark.sql(f"create database if not exists {INPUT_SCHEMA}")
    if not rows:
        spark.sql(f"drop table if exists {INPUT_SCHEMA}.tablet_streams")
        return
    spark.createDataFrame(rows, schema=TABLET_STREAMS_SPARK_SCHEMA) \
        .write.mode("overwrite").format(table_format).saveAsTable(f"{INPUT_SCHEMA}.tablet_streams")
