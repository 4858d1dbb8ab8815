"""A Delta table read from its files without Spark (cdclake/session/delta_log.py) says what Delta
itself says of it: version and id (`DESCRIBE HISTORY`, `DESCRIBE DETAIL`), rows and their count,
through checkpoints, metadata-only commits, deletion vectors and a replaced table."""
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
