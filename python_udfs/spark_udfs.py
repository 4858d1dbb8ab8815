"""Vectorized (Arrow / pandas) Spark SQL functions over the integer-exact math, and their
registration. ``register_udfs(spark)`` makes these SQL functions available in the session:

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
``cdc_timeuuid(ts_us bigint, random64 bigint) -> string``,                 scylla-log §6.1
``cdc_timeuuid_micros(u string) -> bigint``
``cdc_clustering_sort_key(ck string, names array<string>, types            clustering.py
array<string>, orders array<string>, bound string) -> binary``
=========================================================================  ==============================

Null inputs give a null result (the token function reports why in ``error``). Invalid non-null
inputs raise, with a message naming the function and the value.

Integer exactness across Arrow: Spark hands a ``bigint`` column that contains a null to pandas as
``float64``. Such a batch is accepted only when every value is below 2^53 in magnitude (so
nothing was rounded); otherwise the function fails and says so. Call the bigint-taking
functions on non-null values (filter first, or ``coalesce(x, 0)`` and null the result in SQL).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd
from pyspark.sql.functions import pandas_udf
from pyspark.sql.types import BinaryType, IntegerType, LongType, StringType, StructField, StructType

from python_udfs.clustering import clustering_sort_key
from python_udfs.cql_types import UdtRegistry
from python_udfs.murmur3 import murmur3_tokens
from python_udfs.sharding import find_first_token_for_shard, shards_of
from python_udfs.stream_ids import decode_stream_ids, stream_ids_for
from python_udfs.timeuuids import micros_from_timeuuids, timeuuids_from_micros
from python_udfs.tokens import tokens_of_partition_keys

EXACT_FLOAT_LIMIT = 1 << 53
# DataType objects, not DDL strings: parsing a string needs a running SparkContext at import time
BIGINT, INT, BINARY, STRING = LongType(), IntegerType(), BinaryType(), StringType()
TOKEN_OR_ERROR = StructType([StructField("token", LongType()), StructField("error", StringType())])


def integer_column(series: pd.Series, function: str, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """(int64 values with nulls as 0, validity mask) of an integer input column, refusing any
    value that Arrow's null handling may have rounded through float64."""
    if series.dtype.kind in "iu":
        return series.to_numpy(dtype=np.int64), np.ones(len(series), dtype=bool)
    valid = series.notna().to_numpy()
    values = np.zeros(len(series), dtype=np.int64)
    if series.dtype.kind == "f":
        present = series.to_numpy()[valid]
        if present.size and np.abs(present).max() >= EXACT_FLOAT_LIMIT:
            raise ValueError(
                f"{function}: argument {argument} has nulls in a batch with values >= 2^53, which Spark's "
                f"Arrow conversion passed as float64 and may have rounded; call {function} on non-null "
                f"values only (filter nulls first, or coalesce({argument}, 0) and null the result)")
        values[valid] = present.astype(np.int64)
    else:
        values[valid] = np.array([int(v) for v in series[valid]], dtype=np.int64)
    return values, valid


def _nullable(values: np.ndarray, valid: np.ndarray, dtype: str) -> pd.Series:
    """A nullable integer Series (``Int64``/``Int32``): exact through Arrow, nulls where invalid."""
    return pd.Series(pd.arrays.IntegerArray(values.astype(dtype.lower()), ~valid))


def _objects(values: list, valid: np.ndarray) -> pd.Series:
    return pd.Series([value if ok else None for value, ok in zip(values, valid)], dtype=object)


def _binary_column(series: pd.Series) -> tuple[list[bytes], np.ndarray]:
    valid = series.notna().to_numpy()
    return [bytes(v) if ok else b"" for v, ok in zip(series, valid)], valid


def _validated_stream_ids(series: pd.Series, function: str) -> tuple[dict, np.ndarray]:
    ids, valid = _binary_column(series)
    bad = [i for i, (raw, ok) in enumerate(zip(ids, valid)) if ok and len(raw) != 16]
    if bad:
        raise ValueError(f"{function}: a stream id has 16 bytes, got {len(ids[bad[0]])} ({ids[bad[0]].hex()})")
    return decode_stream_ids([raw if ok else bytes(16) for raw, ok in zip(ids, valid)]), valid


@pandas_udf(BIGINT)
def cdc_murmur3_token(key: pd.Series) -> pd.Series:
    keys, valid = _binary_column(key)
    return _nullable(murmur3_tokens(keys), valid, "Int64")


@pandas_udf(INT)
def cdc_shard_of(token: pd.Series, shard_count: pd.Series, ignore_msb: pd.Series) -> pd.Series:
    tokens, valid_token = integer_column(token, "cdc_shard_of", "token")
    counts, valid_count = integer_column(shard_count, "cdc_shard_of", "shard_count")
    msbs, valid_msb = integer_column(ignore_msb, "cdc_shard_of", "ignore_msb")
    valid = valid_token & valid_count & valid_msb
    shards = shards_of(tokens[valid], counts[valid], msbs[valid])
    result = np.zeros(len(token), dtype=np.int32)
    result[valid] = shards
    return _nullable(result, valid, "Int32")


@pandas_udf(BINARY)
def cdc_stream_id(token: pd.Series, vnode_index: pd.Series, random38: pd.Series) -> pd.Series:
    tokens, valid_token = integer_column(token, "cdc_stream_id", "token")
    indexes, valid_index = integer_column(vnode_index, "cdc_stream_id", "vnode_index")
    randoms, valid_random = integer_column(random38, "cdc_stream_id", "random38")
    valid = valid_token & valid_index & valid_random
    return _objects(stream_ids_for(np.where(valid, tokens, 0), np.where(valid, indexes, 0), randoms), valid)


@pandas_udf(BIGINT)
def cdc_stream_id_token(stream_id: pd.Series) -> pd.Series:
    fields, valid = _validated_stream_ids(stream_id, "cdc_stream_id_token")
    return _nullable(fields["token"], valid, "Int64")


@pandas_udf(INT)
def cdc_stream_id_vnode_index(stream_id: pd.Series) -> pd.Series:
    fields, valid = _validated_stream_ids(stream_id, "cdc_stream_id_vnode_index")
    return _nullable(fields["index"], valid, "Int32")


@pandas_udf(INT)
def cdc_stream_id_version(stream_id: pd.Series) -> pd.Series:
    fields, valid = _validated_stream_ids(stream_id, "cdc_stream_id_version")
    return _nullable(fields["version"], valid, "Int32")


@pandas_udf(BIGINT)
def cdc_find_first_token_for_shard(range_start: pd.Series, range_end: pd.Series, shard_count: pd.Series,
                                   ignore_msb: pd.Series, shard: pd.Series) -> pd.Series:
    name = "cdc_find_first_token_for_shard"
    columns = [integer_column(series, name, argument) for series, argument in (
        (range_start, "range_start"), (range_end, "range_end"), (shard_count, "shard_count"),
        (ignore_msb, "ignore_msb"), (shard, "shard"))]
    valid = np.logical_and.reduce([mask for _, mask in columns])
    starts, ends, counts, msbs, shards = (values.tolist() for values, _ in columns)
    result = np.zeros(len(range_start), dtype=np.int64)
    for row in np.flatnonzero(valid):
        result[row] = find_first_token_for_shard(starts[row], ends[row], counts[row], msbs[row], shards[row])
    return _nullable(result, valid, "Int64")


@pandas_udf(STRING)
def cdc_timeuuid(ts_us: pd.Series, random64: pd.Series) -> pd.Series:
    micros, valid_ts = integer_column(ts_us, "cdc_timeuuid", "ts_us")
    randoms, valid_random = integer_column(random64, "cdc_timeuuid", "random64")
    valid = valid_ts & valid_random
    return _objects(timeuuids_from_micros(np.where(valid, micros, 0), randoms), valid)


@pandas_udf(BIGINT)
def cdc_timeuuid_micros(timeuuid: pd.Series) -> pd.Series:
    valid = timeuuid.notna().to_numpy()
    micros = np.zeros(len(timeuuid), dtype=np.int64)
    micros[valid] = micros_from_timeuuids(timeuuid[valid].tolist())
    return _nullable(micros, valid, "Int64")


def make_clustering_sort_key_udf(udts: UdtRegistry | None = None) -> Callable:
    """``cdc_clustering_sort_key`` bound to a UDT registry (``{name: [(field, type), ...]}``)."""

    @pandas_udf(BINARY)
    def cdc_clustering_sort_key(ck: pd.Series, names: pd.Series, types: pd.Series, orders: pd.Series,
                                bound: pd.Series) -> pd.Series:
        keys = []
        for row in zip(ck.tolist(), names.tolist(), types.tolist(), orders.tolist(), bound.tolist()):
            ck_json, row_names, row_types, row_orders, row_bound = row
            if row_names is None or row_types is None or row_orders is None or row_bound is None:
                keys.append(None)
                continue
            keys.append(clustering_sort_key(ck_json, list(row_names), list(row_types), list(row_orders),
                                            row_bound, udts))
        return pd.Series(keys, dtype=object)

    return cdc_clustering_sort_key


def make_token_of_partition_key_udf(udts: UdtRegistry | None = None) -> Callable:
    """``cdc_token_of_partition_key`` bound to a UDT registry (for frozen UDT key columns)."""

    @pandas_udf(TOKEN_OR_ERROR)
    def cdc_token_of_partition_key(partition_key: pd.Series, names: pd.Series, types: pd.Series) -> pd.DataFrame:
        tokens, errors = tokens_of_partition_keys(partition_key.tolist(), names.tolist(), types.tolist(), udts)
        valid = np.array([error is None for error in errors], dtype=bool)
        return pd.DataFrame({"token": _nullable(tokens, valid, "Int64"), "error": pd.Series(errors, dtype=object)})

    return cdc_token_of_partition_key


cdc_token_of_partition_key = make_token_of_partition_key_udf()
cdc_clustering_sort_key = make_clustering_sort_key_udf()


def register_udfs(spark, udts: UdtRegistry | None = None) -> list[str]:
    """Register every ``cdc_*`` SQL function in ``spark``; returns their names. ``udts`` resolves
    user-defined types named in key type texts."""
    functions = {
        "cdc_token_of_partition_key": make_token_of_partition_key_udf(udts),
        "cdc_murmur3_token": cdc_murmur3_token,
        "cdc_shard_of": cdc_shard_of,
        "cdc_stream_id": cdc_stream_id,
        "cdc_stream_id_token": cdc_stream_id_token,
        "cdc_stream_id_vnode_index": cdc_stream_id_vnode_index,
        "cdc_stream_id_version": cdc_stream_id_version,
        "cdc_find_first_token_for_shard": cdc_find_first_token_for_shard,
        "cdc_timeuuid": cdc_timeuuid,
        "cdc_timeuuid_micros": cdc_timeuuid_micros,
        "cdc_clustering_sort_key": make_clustering_sort_key_udf(udts),
    }
    for name, function in functions.items():
        spark.udf.register(name, function)
    return list(functions)
