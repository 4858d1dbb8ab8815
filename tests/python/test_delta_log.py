"""A Delta table read from its files without Spark (cdclake/session/delta_log.py) says what Delta
itself says of it: version and id (`DESCRIBE HISTORY`, `DESCRIBE DETAIL`), rows and their count,
through checkpoints, metadata-only commits, deletion vectors and a replaced table, and the
commits' information (`DESCRIBE HISTORY`: operation, mode, user metadata)."""
from __future__ import annotations

import pytest

from cdclake.session import delta_log

TABLE = "delta_log_checks.t"


def delta_says(spark) -> tuple[str, int, list]:
    detail = spark.sql(f"describe detail {TABLE}").first()
    version = spark.sql(f"describe history {TABLE} limit 1").first()["version"]
    rows = sorted(tuple(r) for r in spark.table(TABLE).collect())
    return f"{detail['id']}:{version}", len(rows), rows


def files_say(spark) -> tuple[str, int, list | None]:
    found = delta_log.table_snapshot(spark, TABLE)
    try:
        table = found.read()              # None: no live file
        rows = sorted(tuple(r.values()) for r in ([] if table is None else table.to_pylist()))
    except delta_log.UnreadableTable:
        rows = None
    return found.key, found.row_count(), rows


def test_the_files_say_what_delta_says_through_checkpoints_metadata_commits_and_deletes(spark):
    spark.sql("create database if not exists delta_log_checks")
    spark.sql(f"drop table if exists {TABLE}")
    spark.sql(f"create table {TABLE} (k bigint, v string) using delta")
    for n in range(12):                              # a checkpoint at version 10
        spark.sql(f"insert into {TABLE} values ({n}, 'v{n}'), ({n + 100}, null)")
    folder = delta_log.table_folder(delta_log.local_warehouse(spark), TABLE)
    assert (folder / "_delta_log" / "_last_checkpoint").exists()
    assert files_say(spark) == delta_says(spark)
    before = files_say(spark)[0]
    spark.sql(f"alter table {TABLE} set tblproperties ('cdclake.test' = 'touched')")
    touched = files_say(spark)[0]
    assert touched != before and not delta_log.data_changed(folder, before, touched)
    assert files_say(spark) == delta_says(spark)
    spark.sql(f"alter table {TABLE} set tblproperties ('delta.enableDeletionVectors' = 'true')")
    spark.sql(f"delete from {TABLE} where k in (3, 104)")
    key, count, rows = files_say(spark)
    assert rows is None, "a table with deletion vectors is left to Spark"
    assert (key, count) == delta_says(spark)[:2] and delta_log.data_changed(folder, touched, key)
    spark.sql(f"create or replace table {TABLE} (k bigint, v string) using delta")
    replaced = files_say(spark)
    assert replaced == delta_says(spark) and replaced[0].split(":")[0] != key.split(":")[0]
    assert delta_log.data_changed(folder, key, replaced[0])
    spark.conf.set("spark.databricks.delta.commitInfo.userMetadata", '{"mark": 1}')
    try:
        spark.sql(f"insert into {TABLE} values (1, 'a')")
    finally:
        spark.conf.unset("spark.databricks.delta.commitInfo.userMetadata")
    history = [(r.version, r.operation, (r.operationParameters or {}).get("mode"), r.userMetadata)
               for r in spark.sql(f"describe history {TABLE}").collect()]
    infos = [(c["version"], c.get("operation"), (c.get("operationParameters") or {}).get("mode"), c.get("userMetadata"))
             for c in delta_log.commit_infos(folder)]
    assert infos == history and infos[0][3] == '{"mark": 1}'


def test_a_columns_largest_value_is_the_one_spark_finds(spark, tmp_path):
    """From the Parquet statistics of each live file, a file of nulls alone and a file written
    without statistics (read instead) included; a removed file's value no longer counts."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    spark.sql("create database if not exists delta_log_checks")
    spark.sql(f"drop table if exists {TABLE}")
    spark.sql(f"create table {TABLE} (k bigint, v string) using delta")
    spark.sql(f"insert into {TABLE} values (5, 'a'), (9, 'b')")
    spark.sql(f"insert into {TABLE} values (null, 'c')")
    found = delta_log.table_snapshot(spark, TABLE)
    assert [found.column_max(c) for c in ("k", "v")] == [9, "c"]
    spark.sql(f"delete from {TABLE} where k = 9")          # rewrites the file (no deletion vectors here)
    assert delta_log.table_snapshot(spark, TABLE).column_max("k") == 5
    path = tmp_path / "no_stats.parquet"
    pq.write_table(pa.table({"k": [7, 3]}), path, write_statistics=False)
    assert not pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
    snapshot = delta_log.table_snapshot(spark, TABLE)
    snapshot.files["no_stats"] = {"path": path.as_uri()}
    assert snapshot.column_max("k") == 7 and snapshot.column_max("absent") is None
    assert spark.sql(f"select max(k) from {TABLE}").first()[0] == 5


def test_a_folder_without_a_delta_log_is_no_table(tmp_path):
    assert delta_log.snapshot(tmp_path / "absent") is None
    (tmp_path / "parquet").mkdir()
    assert delta_log.snapshot(tmp_path / "parquet") is None


@pytest.mark.parametrize("location, local", [
    ("/data/warehouse", "/data/warehouse"), ("file:/data/ware%20house", "/data/ware house"),
    ("s3a://bucket/warehouse", None)])
def test_only_a_warehouse_on_this_machine_is_read_from_its_files(location, local):
    class Conf:
        def get(self, key, default=None):
            return location

    class Session:
        conf = Conf()

    found = delta_log.local_warehouse(Session())
    assert (str(found) if found else None) == local
