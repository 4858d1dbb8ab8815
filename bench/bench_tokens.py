"""Token UDF throughput: the vectorized pandas_udf against a plain Python UDF doing the same work.

Both compute the Murmur3 token of a (bigint, text) composite partition key from its JSON form,
over the same rows, in the same session; the ratio is what the benchmark reports.
"""
from __future__ import annotations

import os
import sys

from _common import bench_session, report, timed

ROWS = int(os.environ.get("BENCH_TOKEN_ROWS", 1_000_000))


def main() -> None:
    from python_udfs.baseline import register_baseline_udf

    spark = bench_session()
    register_baseline_udf(spark)
    cores = spark.sparkContext.defaultParallelism
    keys = spark.range(ROWS).selectExpr(
        "concat('{\"user_id\":', id, ',\"region\":\"eu-', id % 7, '\"}') as partition_key",
        "array('user_id', 'region') as names",
        "array('bigint', 'text') as types",
    ).repartition(cores).cache()
    keys.count()
    keys.createOrReplaceTempView("bench_keys")
    seconds: dict[str, float] = {}
    with timed(seconds, "plain"):
        plain = spark.sql(
            "select sum(hash(cdc_token_of_partition_key_plain(partition_key, names, types))) from bench_keys"
        ).collect()[0][0]
    with timed(seconds, "vectorized"):
        vectorized = spark.sql(
            "select sum(hash(cdc_token_of_partition_key(partition_key, names, types).token)) from bench_keys"
        ).collect()[0][0]
    if plain != vectorized:
        sys.exit("the two UDFs disagree")
    per_core = {k: ROWS / v / cores for k, v in seconds.items()}
    report("token UDF throughput", [
        f"{ROWS:,} composite keys (bigint, text), {cores} cores",
        f"plain Python UDF : {seconds['plain']:.1f} s, {per_core['plain']:,.0f} keys/s per core",
        f"pandas_udf (ours): {seconds['vectorized']:.1f} s, {per_core['vectorized']:,.0f} keys/s per core",
        f"ratio            : {seconds['plain'] / seconds['vectorized']:.2f}x faster",
    ])


if __name__ == "__main__":
    main()
