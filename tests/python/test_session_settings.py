"""The session's run-time settings for small inputs, and the clean-up of table folders the
catalog does not hold (on the tests' session)."""
from __future__ import annotations

from pathlib import Path

from cdclake.session.spark import SMALL_DATA_CONF, remove_unfinished_table_folders, session_settings, small_data


def test_small_data_settings_hold_inside_the_block_and_the_own_ones_come_back(spark):
    before = {key: spark.conf.get(key, None) for key in SMALL_DATA_CONF}
    assert before != SMALL_DATA_CONF
    with small_data(spark):
        assert {key: spark.conf.get(key) for key in SMALL_DATA_CONF} == SMALL_DATA_CONF
    assert {key: spark.conf.get(key, None) for key in SMALL_DATA_CONF} == before


def test_settings_unset_inside_the_block_take_sparks_defaults_and_come_back(spark):
    before = {key: spark.conf.get(key) for key in ("spark.sql.shuffle.partitions", "spark.sql.codegen.wholeStage")}
    assert before == {"spark.sql.shuffle.partitions": "2", "spark.sql.codegen.wholeStage": "false"}
    with session_settings(spark, {"spark.sql.shuffle.partitions": None, "spark.sql.codegen.wholeStage": "true"}):
        assert spark.conf.get("spark.sql.shuffle.partitions") == "200"
        assert spark.conf.get("spark.sql.codegen.wholeStage") == "true"
    assert {key: spark.conf.get(key) for key in before} == before


def test_folders_the_catalog_does_not_hold_go_and_its_tables_stay(spark):
    spark.sql("create database if not exists session_settings_db")
    spark.sql("create table if not exists session_settings_db.kept (x int) using parquet")
    spark.sql("insert into session_settings_db.kept values (1)")
    warehouse = Path(spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:"))
    unfinished = warehouse / "session_settings_db.db" / "unfinished"
    earlier_process = warehouse / "not_in_this_catalog.db"
    for folder in (unfinished, earlier_process / "some_table"):
        folder.mkdir(parents=True)
        (folder / "part-0.parquet").write_bytes(b"")

    removed = remove_unfinished_table_folders(spark, warehouse)

    assert set(removed) == {unfinished, earlier_process}
    assert not unfinished.exists() and not earlier_process.exists()
    assert spark.table("session_settings_db.kept").count() == 1
    spark.sql("drop database session_settings_db cascade")


def test_the_session_compiles_a_plan_once_though_a_build_compiles_more_than_sparks_hundred(spark):
    """A build compiles some 1,000 generated classes; Spark keeps 100 by default, so every build
    compiled its plans again (cdclake.session.spark.CODEGEN_CACHE_ENTRIES). Here 150 plans of distinct
    code, then the same 150 again: the second pass compiles nothing."""
    compilations = spark._jvm.org.apache.spark.metrics.source.CodegenMetrics.METRIC_COMPILATION_TIME()
    plans = [f"select id * {n} + {n + 1} as v from range(2)" for n in range(150)]
    with session_settings(spark, {"spark.sql.codegen.wholeStage": "true", "spark.sql.codegen.factoryMode": None}):
        for plan in plans:
            spark.sql(plan).collect()
        compiled_once = compilations.getCount()
        assert [spark.sql(plan).collect()[1].v for plan in plans] == [2 * n + 1 for n in range(150)]
        assert compilations.getCount() == compiled_once
