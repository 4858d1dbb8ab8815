"""The registered SQL functions, through Spark SQL (Arrow pandas UDFs in Python workers).

Uses the project's one Spark session (``spark`` fixture of conftest.py) and registers the
UDFs again explicitly."""
from __future__ import annotations

import json

import pytest

from python_udfs.baseline import register_baseline_udf
from python_udfs.clustering import clustering_sort_key
from python_udfs.sharding import shard_of
from python_udfs.spark_udfs import register_udfs
from python_udfs.tokens import token_of_partition_key

SQL_FUNCTIONS = [
    "cdc_token_of_partition_key", "cdc_murmur3_token", "cdc_shard_of", "cdc_stream_id", "cdc_stream_id_token",
    "cdc_stream_id_vnode_index", "cdc_stream_id_version", "cdc_find_first_token_for_shard", "cdc_timeuuid",
    "cdc_timeuuid_micros", "cdc_time_us", "cdc_clustering_sort_key",
]


@pytest.fixture(scope="module")
def sql(spark):
    assert register_udfs(spark) == SQL_FUNCTIONS
    register_baseline_udf(spark)
    return lambda query: spark.sql(query).collect()


def test_token_of_a_partition_key(sql):
    rows = sql("""
        select cdc_token_of_partition_key(key, array('a', 'b'), array('int', 'int')) as t
        from values ('{"a": 143, "b": 234}'), ('{"a": "x", "b": 1}'), ('{"a": 1}'), (null) as keys(key)
    """)
    assert [tuple(row.t) for row in rows] == [
        (4958784316840156970, None),
        (None, "partition key column 'a': expected int, got \"x\""),
        (None, "partition key column 'b' is missing"),
        (None, "partition key is null"),
    ]


def test_token_of_partition_key_over_many_rows_is_exact(spark, sql):
    rows = sql("""
        select key, t.token as token, cdc_shard_of(t.token, 7, 12) as shard,
               cdc_token_of_partition_key_plain(key, array('id', 'name'), array('bigint', 'text')).token as plain
        from (
            select key, cdc_token_of_partition_key(key, array('id', 'name'), array('bigint', 'text')) as t
            from (select concat('{"id": ', cast(id * 1000003 - 5000000000 as string), ', "name": "né', id, '"}') as key
                  from range(2000))
        )
    """)
    assert len(rows) == 2000
    for row in rows:
        expected = token_of_partition_key(row.key, ["id", "name"], ["bigint", "text"])
        assert row.token == expected == row.plain
        assert row.shard == shard_of(expected, 7, 12)


def test_murmur3_and_shard_of(sql):
    (row,) = sql("""
        select cdc_murmur3_token(X'313233') as t, cdc_murmur3_token(X'') as empty, cdc_murmur3_token(null) as nothing,
               cdc_shard_of(-8839064797231613815, 12, 12) as a, cdc_shard_of(9223372036854775807, 7, 0) as top
    """)
    assert tuple(row) == (-7468325962851647638, 0, None, 4, 6)


def test_bigint_nulls_that_may_have_been_rounded_give_null(spark, sql):
    """Arrow hands a bigint batch holding a null to pandas as float64: exact values are used, a
    value >= 2^53 (maybe rounded) gives null, not a wrong shard and not a failed batch."""
    def shards(tokens):
        frame = spark.createDataFrame([(t,) for t in tokens], "t bigint").coalesce(1)
        return [row.s for row in frame.selectExpr("cdc_shard_of(t, 3, 0) as s").collect()]

    assert shards([None, 5, -(2**53) + 1]) == [None, shard_of(5, 3, 0), shard_of(-(2**53) + 1, 3, 0)]
    assert shards([2**53 + 1, None, 7]) == [None, None, shard_of(7, 3, 0)]


def test_stream_id_round_trip(sql):
    (row,) = sql("""
        select hex(id) as hex, cdc_stream_id_token(id) as token, cdc_stream_id_vnode_index(id) as vnode,
               cdc_stream_id_version(id) as version
        from (select cdc_stream_id(-3544332906740580352, 90, 161479800596) as id)
    """)
    assert tuple(row) == ("CED00000000000009663C8DC500005A1", -3544332906740580352, 90, 1)


def test_find_first_token_for_shard(sql):
    rows = sql("""
        select shard, cdc_find_first_token_for_shard(-9188777836090239983, -9186344421721794021, 3, 12, shard) as t,
               cdc_find_first_token_for_shard(0, 0, 3, 0, shard) as whole_ring
        from values (0), (1), (2) as s(shard)
    """)
    assert sorted(tuple(row) for row in rows) == [
        (0, -9187343239835811840, -9223372036854775807),
        (1, -9186344421721794021, 1),
        (2, -9188777836090239982, 3074457345618258603),
    ]


def test_timeuuid_round_trip(sql):
    (row,) = sql("""
        select u, cdc_timeuuid_micros(u) as micros
        from (select cdc_timeuuid(1700000000123456, -1) as u)
    """)
    assert row.micros == 1700000000123456
    assert row.u[14] == "1" and row.u[19] in "89ab"


def test_clustering_sort_key_orders_rows_and_bounds(sql):
    rows = sql("""
        select label
        from values ('{"a": 2, "b": "x"}', 'row', 'r2x'), ('{"a": 1, "b": "z"}', 'row', 'r1z'),
                    ('{"a": 1, "b": "a"}', 'row', 'r1a'), ('{"a": 1}', 'start_inclusive', 'start1'),
                    ('{"a": 1}', 'end_inclusive', 'end1'), ('{}', 'start_inclusive', 'open'),
                    (null, 'row', 'static') as v(ck, bound, label)
        order by cdc_clustering_sort_key(ck, array('a', 'b'), array('int', 'text'), array('ASC', 'DESC'), bound)
    """)
    assert [row.label for row in rows] == ["static", "open", "start1", "r1z", "r1a", "end1", "r2x"]
    (row,) = sql("""select cdc_clustering_sort_key('{"a": -1, "b": "q"}', array('a', 'b'), array('int', 'text'),
                                                   array('ASC', 'DESC'), 'row') as k""")
    assert bytes(row.k) == clustering_sort_key(json.dumps({"a": -1, "b": "q"}), ["a", "b"], ["int", "text"],
                                               ["ASC", "DESC"], "row")
