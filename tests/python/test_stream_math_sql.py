"""The stream math the fused batch stage runs as SQL (macros/streams/stream_math.sql: cdc_shard_of,
cdc_timeuuid) equals the Python functions behind the session's UDFs, and so scylla-driver's
ShardingInfo, on random and edge inputs: the SQL runs on the session's Spark, compiled by dbt."""
from __future__ import annotations

import random

import pytest
from cassandra.shard_info import ShardingInfo
from test_udf_driver_properties import random_shard_cases

from cdclake.project.compiled_models import compiled_inline_sql
from python_udfs.sharding import shard_of
from python_udfs.timeuuids import MAX_MICROS, MIN_MICROS, timeuuid_from_micros

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


@pytest.fixture(scope="module")
def stream_math_sql(spark) -> dict[str, str]:
    return {
        "shard": compiled_inline_sql(
            "select token, shard_count, ignore_msb, {{ cdc_shard_of('token', 'shard_count', 'ignore_msb') }} as shard "
            "from stream_math_cases"),
        "timeuuid": compiled_inline_sql(
            "select ts_us, random64, {{ cdc_timeuuid('ts_us', 'random64') }} as timeuuid from stream_math_cases"),
    }


def shard_cases() -> list[tuple[int, int, int]]:
    rng = random.Random(21)
    cases = random_shard_cases(20000, seed=22)
    edge_tokens = [INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX]
    edge_counts = [1, 2, 3, 255, 256, 2**16, 2**31 - 1]
    edge_msbs = [0, 1, 12, 31, 32, 62, 63]
    cases += [(t, n, m) for t in edge_tokens for n in edge_counts for m in edge_msbs]
    cases += [(rng.randint(INT64_MIN, INT64_MAX), rng.choice(edge_counts + [rng.randint(1, 2**31 - 1)]),
               rng.randint(0, 63)) for _ in range(5000)]
    return cases


def test_shard_of_sql_equals_python_and_the_driver(spark, stream_math_sql):
    cases = shard_cases()
    spark.createDataFrame(cases, "token bigint, shard_count bigint, ignore_msb int") \
        .createOrReplaceTempView("stream_math_cases")
    got = {(r.token, r.shard_count, r.ignore_msb): r.shard for r in spark.sql(stream_math_sql["shard"]).collect()}
    assert len(got) == len(set(cases))
    wrong = [(case, got[case], shard_of(*case)) for case in set(cases) if got[case] != shard_of(*case)]
    assert not wrong, wrong[:10]
    for token, count, msb in cases[:3000]:
        driver = ShardingInfo(0, count, "org.apache.cassandra.dht.Murmur3Partitioner", "biased-token-round-robin",
                              msb, None, None)
        assert got[(token, count, msb)] == driver.shard_id_from_token(token), (token, count, msb)


def test_shard_of_sql_is_null_outside_the_sharder_domain(spark, stream_math_sql):
    # a shard is an int: no node has 2^31 shards
    cases = [(5, 0, 0), (5, -1, 0), (5, 2**31, 0), (5, 4, -1), (5, 4, 64), (None, 4, 0), (5, None, 0)]
    spark.createDataFrame(cases, "token bigint, shard_count bigint, ignore_msb int") \
        .createOrReplaceTempView("stream_math_cases")
    assert [r.shard for r in spark.sql(stream_math_sql["shard"]).collect()] == [None] * len(cases)


def test_timeuuid_sql_equals_python(spark, stream_math_sql):
    rng = random.Random(23)
    times = [MIN_MICROS, MIN_MICROS + 1, -1, 0, 1, 1_700_000_000_000_000, MAX_MICROS - 1, MAX_MICROS]
    times += [rng.randint(MIN_MICROS, MAX_MICROS) for _ in range(5000)]
    times += [rng.randint(1_500_000_000_000_000, 2_000_000_000_000_000) for _ in range(5000)]
    randoms = [INT64_MIN, -1, 0, 1, INT64_MAX] + [rng.randint(INT64_MIN, INT64_MAX) for _ in range(200)]
    cases = [(ts, rng.choice(randoms)) for ts in times] + [(0, r) for r in randoms]
    spark.createDataFrame(cases, "ts_us bigint, random64 bigint").createOrReplaceTempView("stream_math_cases")
    got = {(r.ts_us, r.random64): r.timeuuid for r in spark.sql(stream_math_sql["timeuuid"]).collect()}
    wrong = [(case, got[case]) for case in set(cases) if got[case] != timeuuid_from_micros(*case)]
    assert not wrong, wrong[:10]


def test_timeuuid_sql_is_null_for_times_a_timeuuid_cannot_hold(spark, stream_math_sql):
    cases = [(MIN_MICROS - 1, 0), (MAX_MICROS + 1, 0), (INT64_MIN, 0), (INT64_MAX, 0), (None, 0), (0, None)]
    spark.createDataFrame(cases, "ts_us bigint, random64 bigint").createOrReplaceTempView("stream_math_cases")
    assert [r.timeuuid for r in spark.sql(stream_math_sql["timeuuid"]).collect()] == [None] * len(cases)
