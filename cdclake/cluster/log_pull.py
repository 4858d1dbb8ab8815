"""Pull a live cluster's CDC logs into ``cdc_input.imported_log``, the rows written since the last
pull, for the consumer tables (``<t>_state``, ``_history``, ``_changes``) to build from, as they do
from an export loaded with ``cdclake load log``.

A pull of some tables reads each one's ``<table>_scylla_cdc_log`` with the Spark Cassandra
Connector, in Spark tasks by token range (no log row goes through the driver), keeping the rows
whose ``cdc$time`` is in the window ``(mark, until]``:

- ``mark``: the ``until`` of the table's last pull (none: the log from its start);
- ``until``: now minus a confidence window (30 s by default), as the CDC clients read: a write
  is logged at its own timestamp, which may be a little older than the moment its row lands in
  the log, and the window leaves those rows time to land before the pull passes their time.

Both bounds go to the cluster as timeuuid bounds of ``cdc$time``, the log's first clustering
column (the connector pushes them down, and the cluster compares timeuuids by time). Each log
row becomes the long rows ``cdc_log`` holds for it (``log_load._long_rows``), its values in the
contract's encoding (``spark_values``).

All the tables' rows are appended in one Delta commit, whose commit information
(``userMetadata``) holds every table's new mark: the rows and the marks land together or not at
all. A pull killed half way leaves the table as it was, and the next pull reads the same window
again. The marks are read back from the table's history (``DESCRIBE HISTORY``), newest first, up
to the commit that last replaced the table. A log row a value of which cannot be read is left out
and reported with its stream and ``cdc$time``; the rest loads.
"""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from functools import partial

from cdclake.cluster.connection import Cluster, ClusterError, read_table
from cdclake.cluster.spark_values import model_value
from cdclake.cql.values import to_json
from cdclake.load.inputs import INPUT_SCHEMA, missing_inputs
from cdclake.load.log_load import IMPORTED_LOG_COLUMNS, IMPORTED_LOG_SPARK_SCHEMA, LOG_SUFFIX
from cdclake.logschema import keyspace_user_types, log_table_columns

CONFIDENCE_WINDOW_S = 30
MARKS_KEY = "cdclake_pull_marks"        # in the commit's userMetadata: {"KS.TABLE": until µs}
USER_METADATA_CONF = "spark.databricks.delta.commitInfo.userMetadata"
IMPORTED_LOG = f"{INPUT_SCHEMA}.imported_log"
# the timeuuid epoch (1582-10-15) in 100 ns ticks before the Unix epoch
_UUID_EPOCH_TICKS = 0x01B21DD213814000
# a timeuuid's clock sequence and node that sort after every other (ScyllaDB compares them as
# signed bytes, as UUID_gen::max_time_UUID's MAX_CLOCK_SEQ_AND_NODE)
_MAX_CLOCK_SEQ_AND_NODE = 0x7F7F7F7F7F7F7F7F
_PROBLEM_COLUMN = "problem"


@dataclass
class Pull:
    tables: dict[str, tuple[int, int]] = field(default_factory=dict)    # KS.TABLE: (log rows, cells)
    problems: list[str] = field(default_factory=list)
    marks: dict[str, int] = field(default_factory=dict)                 # KS.TABLE: the new mark, µs
    windows: dict[str, tuple[int | None, int]] = field(default_factory=dict)


def last_timeuuid(micros: int) -> str:
    """The greatest timeuuid of the microsecond ``micros``: a bound that keeps every log row
    written at or before it (``cdc$time`` <= bound) and none after."""
    ticks = micros * 10 + 9 + _UUID_EPOCH_TICKS
    msb = ((ticks & 0xFFFFFFFF) << 32) | (((ticks >> 32) & 0xFFFF) << 16) | 0x1000 | ((ticks >> 48) & 0x0FFF)
    return str(uuid.UUID(int=(msb << 64) | _MAX_CLOCK_SEQ_AND_NODE))


def pull_marks(spark) -> dict[str, int]:
    """The mark of every table pulled before: the ``until`` of its newest pull, from the commit
    information of ``cdc_input.imported_log``'s history since the table was last replaced."""
    if missing_inputs(spark, ["imported_log"]):
        return {}
    marks: dict[str, int] = {}
    history = spark.sql(f"describe history {IMPORTED_LOG}").select(
        "version", "operation", "operationParameters", "userMetadata").orderBy("version", ascending=False)
    for row in history.collect():
        for table, until in (json.loads(row.userMetadata).get(MARKS_KEY, {}) if row.userMetadata else {}).items():
            marks.setdefault(table, int(until))
        if "REPLACE" in row.operation or (row.operationParameters or {}).get("mode") == "Overwrite":
            break
    return marks


def pull_logs(spark, cluster: Cluster, tables: list[tuple[str, str]], schema: tuple[list, list, list], *,
              until_us: int, table_format: str) -> Pull:
    """Pull the logs of ``tables`` ((keyspace, table) each, their schemas in ``schema``) up to
    ``until_us``, each from its mark, into ``cdc_input.imported_log`` in one commit."""
    from pyspark.sql import functions as F

    if table_format != "delta":
        raise ClusterError("cdclake load cluster keeps its marks in Delta's commits, and the warehouse is "
                           "on Parquet: fetch Delta Lake's jars (make jars)")
    _, columns, types = schema
    marks, pull, frames = pull_marks(spark), Pull(), []
    for keyspace, table in tables:
        name = f"{keyspace}.{table}"
        mark = marks.get(name)
        pull.windows[name] = (mark, until_us)
        if mark is not None and mark >= until_us:
            continue
        frames.append(_log_cells(spark, cluster, keyspace, table, columns, types, mark, until_us))
        pull.marks[name] = until_us
    if not frames:
        return pull
    cells = frames[0]
    for frame in frames[1:]:
        cells = cells.unionByName(frame)
    cells = cells.persist()
    try:
        good = cells.where(f"{_PROBLEM_COLUMN} is null").select(*[f"`{c}`" for c in IMPORTED_LOG_COLUMNS])
        # the commit's information, also when the append creates the table (its writer option is
        # not kept then)
        spark.conf.set(USER_METADATA_CONF, json.dumps({MARKS_KEY: pull.marks, "cluster": cluster.name}))
        try:
            good.write.format("delta").mode("append").saveAsTable(IMPORTED_LOG)
        finally:
            spark.conf.unset(USER_METADATA_CONF)
        counts = good.groupBy("keyspace_name", "table_name").agg(
            F.countDistinct("`cdc$stream_id`", "`cdc$time`", "`cdc$batch_seq_no`").alias("log_rows"),
            F.count("*").alias("cells")).collect()
        pull.tables = {f"{r.keyspace_name}.{r.table_name}": (r.log_rows, r.cells) for r in counts}
        pull.problems = [r[_PROBLEM_COLUMN] for r in cells.where(f"{_PROBLEM_COLUMN} is not null")
                         .select(_PROBLEM_COLUMN).collect()]
    finally:
        cells.unpersist()
    return pull


def _log_cells(spark, cluster: Cluster, keyspace: str, table: str, columns: list, types: list,
               mark: int | None, until_us: int):
    """The imported_log rows (and a ``problem`` column) of one table's log rows in the window."""
    try:
        log_columns = log_table_columns(keyspace, table, columns, types)
    except ValueError:
        raise ClusterError(f"{keyspace}.{table} is not in the warehouse: load its schema first "
                           "(cdclake load cluster … --schema, or cdclake load schema)") from None
    log_table = table + LOG_SUFFIX
    frame = read_table(spark, cluster, keyspace, log_table)
    known = {c.name for c in log_columns}
    unknown = sorted(set(frame.columns) - known)
    if unknown:
        raise ClusterError(f"{cluster.name}: {keyspace}.{log_table} has columns the warehouse's schema of "
                           f"{keyspace}.{table} lacks ({', '.join(unknown)}): load its schema again")
    window = f"`cdc$time` <= '{last_timeuuid(until_us)}'"
    if mark is not None:
        window += f" and `cdc$time` > '{last_timeuuid(mark)}'"
    read = [c for c in log_columns if c.name in set(frame.columns)]
    frame = frame.where(window).select(*[f"`{c.name}`" for c in read])
    convert = partial(_partition_cells, keyspace, table, f"{cluster.name} {keyspace}.{log_table}",
                      [(c.name, c.cql_type, c.role) for c in read], keyspace_user_types(types, keyspace))
    return spark.createDataFrame(frame.rdd.mapPartitions(convert),
                                 schema=f"{IMPORTED_LOG_SPARK_SCHEMA}, {_PROBLEM_COLUMN} string")


def _partition_cells(keyspace: str, table: str, source: str, columns: list[tuple[str, str, str]], udts, rows):
    """In a Spark task: each log row's imported_log rows, or one row naming its problem."""
    for row in rows:
        stream, time = row["cdc$stream_id"], row["cdc$time"]
        head = (keyspace, table, bytes(stream) if stream is not None else None, time, row["cdc$batch_seq_no"],
                row["cdc$operation"], row["cdc$ttl"], row["cdc$end_of_batch"])
        try:
            cells = list(_row_cells(row, columns, udts))
        except (TypeError, ValueError, KeyError, ArithmeticError) as error:
            where = f"stream 0x{bytes(stream or b'').hex()} cdc$time {time}"
            yield (*head[:2], None, None, None, None, None, None, None, None, source,
                   f"{source}: {where}: {error}")
            continue
        for name, value in cells:
            yield (*head, name, value, source, None)


def _row_cells(row, columns: list[tuple[str, str, str]], udts):
    """(log column, JSON text) of a log row's non-null cells: its base columns' values, its
    ``cdc$deleted_`` cells when true, its ``cdc$deleted_elements_`` sets."""
    for name, cql_type, role in columns:
        value = row[name]
        if role == "metadata" or value is None or (isinstance(value, (list, dict)) and not value):
            continue            # the connector reads a null collection as an empty one
        if role == "deleted":
            if value is True:
                yield name, "true"
            continue
        try:
            yield name, to_json(model_value(value, cql_type, udts))
        except (TypeError, ValueError, KeyError, ArithmeticError) as error:
            raise ValueError(f"column {name} ({cql_type}): value {value!r}: {error}") from None
