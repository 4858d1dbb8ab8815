"""One warehouse, both table formats: with Delta Lake's jars the session can read and replace
Delta tables even when it writes Parquet (``CDCLAKE_TABLE_FORMAT=parquet``), so switching a
target folder from one format to the other needs no clean-up. (The test session writes Parquet,
conftest.spark; the Delta build itself is test_spark_cluster's.)"""
from __future__ import annotations

from cdclake.session.spark import delta_jar


def provider(spark, table: str) -> str:
    [value] = [r.data_type for r in spark.sql(f"describe table extended {table}").collect() if r.col_name == "Provider"]
    return value


def test_a_table_switches_format_in_place_both_ways(spark):
    assert delta_jar() is not None, "no Delta Lake jar in jars/: run make jars"
    spark.sql("create database if not exists format_switch")
    spark.sql("create or replace table format_switch.t using delta as select 1 as x")
    assert provider(spark, "format_switch.t") == "delta"
    spark.range(2).write.mode("overwrite").format("parquet").saveAsTable("format_switch.t")  # as cdclake.load.inputs does
    assert provider(spark, "format_switch.t") == "parquet"
    assert spark.table("format_switch.t").count() == 2
    spark.range(3).write.mode("overwrite").format("delta").saveAsTable("format_switch.t")
    assert provider(spark, "format_switch.t") == "delta"
    assert spark.table("format_switch.t").count() == 3
