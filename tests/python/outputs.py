"""What a build wrote, as plain sorted rows: to compare two builds table by table, byte for
byte (stream IDs as hex, timeuuids as text, every other value as Spark returns it)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cdclake.project.consumer_models import replayable

OUTPUT_SCHEMA = "cdc_lake"
LOG_SUFFIX = "_scylla_cdc_log"
CONSUMER_SUFFIXES = ["_state", "_history", "_changes"]


def output_tables(spark) -> list[str]:
    """Every table the last build output: the marts of cdc_lake and the log and consumer tables
    of the CDC-enabled tables of its inputs (other keyspaces may hold older builds' tables)."""
    tables = [f"{OUTPUT_SCHEMA}.{r.tableName}" for r in spark.sql(f"show tables in {OUTPUT_SCHEMA}").collect()
              if not r.isTemporary]
    versions = spark.table("cdc_intermediate.int_base_tables_described").collect()
    for r in versions:
        if r.is_latest_version and r.cdc_enabled:
            tables.append(f"{r.keyspace_name}.{r.table_name}{LOG_SUFFIX}")
            if replayable(versions, r.keyspace_name, r.table_name):
                tables += [f"{r.keyspace_name}.{r.table_name}{suffix}" for suffix in CONSUMER_SUFFIXES]
    return sorted(tables)


def _plain(value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict().items()}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def rows_of(frame) -> list[str]:
    """A table's rows, each as the repr of its plain values, sorted."""
    columns = frame.columns
    return sorted(repr([(c, _plain(row[c])) for c in columns]) for row in frame.collect())


def snapshot(spark) -> dict[str, list[str]]:
    """{table: sorted rows} of every output table of the session's warehouse."""
    return {table: rows_of(spark.table(table)) for table in output_tables(spark)}


def snapshot_files(spark, warehouse: Path, tables: list[str]) -> dict[str, list[str]]:
    """The same tables read from another warehouse's folder (another process's metastore), each
    in its own format (Delta where the folder has a Delta log); the views (no folder: the state
    tables, the rejected writes) through that warehouse's own metastore (`snapshot_views`)."""
    stored = [table for table in tables if location(warehouse, table).is_dir()]
    rows = {table: rows_of(spark.read.format(table_format(warehouse, table)).load(str(location(warehouse, table))))
            for table in stored}
    views = [table for table in tables if table not in rows]
    return {**rows, **(snapshot_views(warehouse, views) if views else {})}


VIEWS_DUMP = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from cdclake.session.spark import create_session
from outputs import rows_of
spark = create_session(Path(sys.argv[2]), app_name="cdclake-test-views", class_archive=False)
print(json.dumps({view: rows_of(spark.table(view)) for view in sys.argv[3:]}))
"""


def snapshot_views(warehouse: Path, views: list[str]) -> dict[str, list[str]]:
    """{view: sorted rows} of views of another warehouse (its folder's Derby metastore, which only
    one process opens at a time: a process of its own, once that warehouse's is done)."""
    done = subprocess.run([sys.executable, "-c", VIEWS_DUMP, str(Path(__file__).parent), str(warehouse), *views],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def location(warehouse: Path, table: str) -> Path:
    schema, name = table.split(".")
    return warehouse / "spark-warehouse" / f"{schema}.db" / name


def table_format(warehouse: Path, table: str) -> str:
    return "delta" if (location(warehouse, table) / "_delta_log").is_dir() else "parquet"
