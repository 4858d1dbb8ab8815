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
contract's encoding: by Spark SQL expressions in the tasks that read the rows (``spark_json``),
a column whose text Spark does not give as Python does (a float, a decimal, an inet...) by a
Python UDF (``spark_values``).

All the tables' rows are appended in one Delta commit, whose commit information
(``userMetadata``) holds every table's new mark: the rows and the marks land together or not at
all. The rows are read, converted and written in one pass, the counts a pull prints and its
problems observed by Spark as they go by (``Observation``). A pull killed half way leaves the
table as it was (or created, without rows), and the next pull reads the same window again. The
marks are read back from the table's history (its ``_delta_log``'s commit information), newest
first, up to the commit that last replaced the table. A log row a value of which cannot be read
is left out and reported with its stream and ``cdc$time``; the rest loads.
"""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field

from cdclake.cluster.connection import Cluster, ClusterError, read_table
from cdclake.cluster.spark_json import cell_text, quoted
from cdclake.cluster.spark_values import model_value
from cdclake.cql.values import to_json
from cdclake.load.inputs import INPUT_SCHEMA, missing_inputs
from cdclake.load.log_load import IMPORTED_LOG_COLUMNS, IMPORTED_LOG_SPARK_SCHEMA, LOG_SUFFIX
from cdclake.logschema import keyspace_user_types, log_table_columns

CONFIDENCE_WINDOW_S = 30
MARKS_KEY = "cdclake_pull_marks"        # in the commit's userMetadata: {"KS.TABLE": until µs}
USER_METADATA_CONF = "spark.databricks.delta.commitInfo.userMetadata"
STATS_CONF = "spark.databricks.delta.stats.collect"
IMPORTED_LOG = f"{INPUT_SCHEMA}.imported_log"
# the timeuuid epoch (1582-10-15) in 100 ns ticks before the Unix epoch
_UUID_EPOCH_TICKS = 0x01B21DD213814000
# a timeuuid's clock sequence and node that sort after every other (ScyllaDB compares them as
# signed bytes, as UUID_gen::max_time_UUID's MAX_CLOCK_SEQ_AND_NODE)
_MAX_CLOCK_SEQ_AND_NODE = 0x7F7F7F7F7F7F7F7F
_PROBLEM_COLUMN = "problem"
_CELL_POSITION = "cell_position"


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
    information of ``cdc_input.imported_log``'s history since the table was last replaced (read
    from its ``_delta_log`` where the warehouse is local, else by ``DESCRIBE HISTORY``)."""
    from cdclake.session.delta_log import commit_infos, local_warehouse, table_folder

    if missing_inputs(spark, ["imported_log"]):
        return {}
    warehouse = local_warehouse(spark)
    if warehouse is not None:
        history = commit_infos(table_folder(warehouse, IMPORTED_LOG))
    else:
        history = (row.asDict() for row in spark.sql(f"describe history {IMPORTED_LOG}").select(
            "version", "operation", "operationParameters", "userMetadata").orderBy("version", ascending=False)
            .collect())
    marks: dict[str, int] = {}
    for commit in history:
        user_metadata = commit.get("userMetadata")
        for table, until in (json.loads(user_metadata).get(MARKS_KEY, {}) if user_metadata else {}).items():
            marks.setdefault(table, int(until))
        if "REPLACE" in (commit.get("operation") or "") \
                or (commit.get("operationParameters") or {}).get("mode") == "Overwrite":
            break
    return marks


def pull_logs(spark, cluster: Cluster, tables: list[tuple[str, str]], schema: tuple[list, list, list], *,
              until_us: int, table_format: str) -> Pull:
    """Pull the logs of ``tables`` ((keyspace, table) each, their schemas in ``schema``) up to
    ``until_us``, each from its mark, into ``cdc_input.imported_log`` in one commit: one pass over
    the cluster's rows, whose counts and problems Spark observes as it writes them."""
    if table_format != "delta":
        raise ClusterError("cdclake load cluster keeps its marks in Delta's commits, and the warehouse is "
                           "on Parquet: fetch Delta Lake's jars (make jars)")
    _, columns, types = schema
    marks, pull, frames, pulled = pull_marks(spark), Pull(), [], []
    for keyspace, table in tables:
        name = f"{keyspace}.{table}"
        mark = marks.get(name)
        pull.windows[name] = (mark, until_us)
        if mark is not None and mark >= until_us:
            continue
        frames.append(_log_cells(spark, cluster, keyspace, table, columns, types, mark, until_us))
        pull.marks[name] = until_us
        pulled.append((keyspace, table))
    if not frames:
        return pull
    cells = frames[0]
    for frame in frames[1:]:
        cells = cells.unionByName(frame)
    # created apart: Spark observes an append to a table, not a write that creates it
    spark.sql(f"create table if not exists {IMPORTED_LOG} ({IMPORTED_LOG_SPARK_SCHEMA}) using delta")
    # the marks in the commit's information; no column statistics (nothing reads the imported
    # log by a filter that they would serve, and they cost a third of the append)
    write_conf = {USER_METADATA_CONF: json.dumps({MARKS_KEY: pull.marks, "cluster": cluster.name}),
                  STATS_CONF: "false"}
    for key, value in write_conf.items():
        spark.conf.set(key, value)
    try:
        pull.tables, pull.problems = append_cells(spark, cells, pulled, IMPORTED_LOG)
    finally:
        for key in write_conf:
            spark.conf.unset(key)
    return pull


def append_cells(spark, cells, tables: list[tuple[str, str]], relation: str) -> tuple[dict, list[str]]:
    """Append the rows of ``cells`` (``log_row_cells``') without a problem to ``relation``, in one
    pass: {"KS.TABLE": (log rows, cells)} of ``tables`` that had some, and the problems, as Spark
    observed them in the append."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    good = F.col(_PROBLEM_COLUMN).isNull()
    counts = []
    for number, (keyspace, table) in enumerate(tables):
        of_table = good & (F.col("keyspace_name") == keyspace) & (F.col("table_name") == table)
        counts += [F.count_if(of_table & (F.col(_CELL_POSITION) == 0)).alias(f"log_rows_{number}"),
                   F.count_if(of_table).alias(f"cells_{number}")]
    observed = Observation("cdclake_pull")
    rows = cells.observe(observed, *counts, F.collect_list(_PROBLEM_COLUMN).alias("problems"))
    # by position, in the table's order (a V1 table takes no writeTo)
    rows.where(good).select(*[quoted(c) for c in spark.table(relation).columns]).write.insertInto(relation)
    metrics = observed.get
    counted = {f"{keyspace}.{table}": (metrics[f"log_rows_{number}"], metrics[f"cells_{number}"])
               for number, (keyspace, table) in enumerate(tables) if metrics[f"cells_{number}"]}
    # a list observed is a Scala sequence
    problems = [str(p) for p in spark._jvm.scala.collection.JavaConverters.seqAsJavaList(metrics["problems"])]
    return counted, problems


def _log_cells(spark, cluster: Cluster, keyspace: str, table: str, columns: list, types: list,
               mark: int | None, until_us: int):
    """The imported_log rows (``log_row_cells``) of one table's log rows in the window."""
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
    return log_row_cells(frame.where(window), keyspace, table, read, keyspace_user_types(types, keyspace),
                         f"{cluster.name} {keyspace}.{log_table}")


def log_row_cells(frame, keyspace: str, table: str, read: list, udts, source: str):
    """The imported_log rows of the log rows of ``frame`` (a log table's columns ``read``, as
    the connector reads them), each with its position among its row's cells
    (``cell_position``); a row a value of which cannot be read: one row naming its ``problem``."""
    from pyspark.sql import functions as F

    spark_types = {f.name: f.dataType for f in frame.schema.fields}
    # the columns Spark cannot convert as Python does (spark_json), converted in Python first
    in_spark = {c.name: text for c in read if c.role not in ("metadata", "deleted")
                and (text := cell_text(quoted(c.name), c.cql_type, spark_types[c.name], udts)) is not None}
    in_python = {c.name: f"_cdclake_python_{number}" for number, c in enumerate(read)
                 if c.role not in ("metadata", "deleted") and c.name not in in_spark}
    if in_python:
        frame = frame.select("*", *[python_cell(c.name, c.cql_type, udts)(F.col(quoted(c.name))).alias(alias)
                                    for c in read if (alias := in_python.get(c.name))])
    cells, errors = [], []
    for c in read:
        column = F.col(quoted(c.name))
        if c.role == "metadata":
            continue
        if c.role == "deleted":
            value = F.when(column == F.lit(True), F.lit("true"))
        elif c.name in in_python:
            value = F.col(in_python[c.name])["value"]
            errors.append(F.col(in_python[c.name])["error"])
        else:
            value = F.expr(in_spark[c.name])
        cells.append(F.struct(F.lit(c.name).alias("column_name"), value.alias("value")))
    stream, time = F.col(quoted("cdc$stream_id")), F.col(quoted("cdc$time"))
    problem = F.lit(None).cast("string")
    if errors:
        problem = F.concat(F.lit(f"{source}: stream 0x"), F.coalesce(F.lower(F.hex(stream)), F.lit("")),
                           F.lit(" cdc$time "), F.coalesce(time, F.lit("")), F.lit(": "), F.coalesce(*errors))
    no_cells = F.array(F.struct(F.lit(None).cast("string").alias("column_name"),
                                F.lit(None).cast("string").alias("value")))
    present = F.filter(F.array(*cells), lambda cell: cell["value"].isNotNull())
    rows = frame.select("*", problem.alias(_PROBLEM_COLUMN)).select(
        F.lit(keyspace).alias("keyspace_name"), F.lit(table).alias("table_name"),
        stream.cast("binary").alias("cdc$stream_id"), time.cast("string").alias("cdc$time"),
        F.col(quoted("cdc$batch_seq_no")).cast("int").alias("cdc$batch_seq_no"),
        F.col(quoted("cdc$operation")).cast("tinyint").alias("cdc$operation"),
        F.col(quoted("cdc$ttl")).cast("bigint").alias("cdc$ttl"),
        F.col(quoted("cdc$end_of_batch")).cast("boolean").alias("cdc$end_of_batch"),
        F.col(_PROBLEM_COLUMN),
        F.posexplode(F.when(F.col(_PROBLEM_COLUMN).isNull(), present).otherwise(no_cells))
        .alias(_CELL_POSITION, "cell"))
    return rows.select(*[quoted(c) for c in IMPORTED_LOG_COLUMNS[:8]],
                       F.col("cell.column_name").alias("column_name"), F.col("cell.value").alias("value"),
                       F.lit(source).alias("source_line"), _PROBLEM_COLUMN, _CELL_POSITION)


def python_cell(name: str, cql_type: str, udts):
    """A UDF: a connector value's JSON text (spark_values, in Python) and the error of a value it
    cannot convert, for the columns whose text Spark SQL does not give (spark_json)."""
    from pyspark.sql import functions as F

    def convert(value):
        if value is None or (isinstance(value, (list, dict)) and not value):
            return None, None               # the connector reads a null collection as an empty one
        try:
            return to_json(model_value(value, cql_type, udts)), None
        except (TypeError, ValueError, KeyError, ArithmeticError) as error:
            return None, f"column {name} ({cql_type}): value {value!r}: {error}"

    return F.udf(convert, "value string, error string")
