"""The SQL functions over the integer-exact math and the key values, and their registration.
``register_udfs(spark)`` makes them available in the session as Arrow pandas UDFs of the batch
functions in math_udfs.py and key_udfs.py (spec: the sections of docs/scylla/math.md, and of
docs/scylla/log.md where it says "log"):

=========================================================================  ==============================
SQL signature                                                              spec
=========================================================================  ==============================
``cdc_token_of_partition_key(partition_key string, names array<string>,    §1.1-1.4
types array<string>) -> struct<token: bigint, error: string>``
``cdc_murmur3_token(key binary) -> bigint``                                §1.3-1.4
``cdc_shard_of(token bigint, shard_count int, ignore_msb int) -> int``     §2.1
``cdc_stream_id(token bigint, vnode_index int, random38 bigint) -> binary``  §3
``cdc_stream_id_token(id binary) -> bigint``, ``cdc_stream_id_vnode_index  §3
(id binary) -> int``, ``cdc_stream_id_version(id binary) -> int``
``cdc_find_first_token_for_shard(range_start bigint, range_end bigint,     §2.3
shard_count int, ignore_msb int, shard int) -> bigint``
``cdc_timeuuid(ts_us bigint, random64 bigint) -> string``,                 log §6.1
``cdc_timeuuid_micros(u string) -> bigint``, also named ``cdc_time_us``
(``order by cdc_time_us(`cdc$time`)`` orders log rows by time)
``cdc_clustering_sort_key(ck string, names array<string>, types            clustering.py
array<string>, orders array<string>, bound string) -> binary``
=========================================================================  ==============================

Null inputs give a null result (the token function reports why in ``error``). Invalid non-null
inputs raise, with a message naming the function and the value.

Call the bigint-taking functions on non-null values (filter first, or ``coalesce(x, 0)`` and
null the result in SQL): see columns.py for why.
"""
from __future__ import annotations

from typing import Callable

from python_udfs import math_udfs
from python_udfs.cql_types import UdtRegistry
from python_udfs.key_udfs import make_clustering_sort_key_udf, make_token_of_partition_key_udf
from python_udfs.spark_registration import register


def sql_functions(udts: UdtRegistry | None = None) -> dict[str, Callable]:
    """The batch function of every SQL function of this module, by SQL name. ``udts`` resolves
    user-defined types named in key type texts."""
    return {
        "cdc_token_of_partition_key": make_token_of_partition_key_udf(udts),
        "cdc_murmur3_token": math_udfs.cdc_murmur3_token,
        "cdc_shard_of": math_udfs.cdc_shard_of,
        "cdc_stream_id": math_udfs.cdc_stream_id,
        "cdc_stream_id_token": math_udfs.cdc_stream_id_token,
        "cdc_stream_id_vnode_index": math_udfs.cdc_stream_id_vnode_index,
        "cdc_stream_id_version": math_udfs.cdc_stream_id_version,
        "cdc_find_first_token_for_shard": math_udfs.cdc_find_first_token_for_shard,
        "cdc_timeuuid": math_udfs.cdc_timeuuid,
        "cdc_timeuuid_micros": math_udfs.cdc_timeuuid_micros,
        "cdc_time_us": math_udfs.cdc_time_us,
        "cdc_clustering_sort_key": make_clustering_sort_key_udf(udts),
    }


def register_udfs(spark, udts: UdtRegistry | None = None) -> list[str]:
    """Register every ``cdc_*`` SQL function of this module in ``spark``; returns their names."""
    return register(spark, sql_functions(udts))
