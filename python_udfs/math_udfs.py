"""Batch functions of the token, shard, stream-id and timeuuid math (scylla-math.md §1-§3,
scylla-log.md §6.1), registered as SQL functions by ``spark_udfs.register_udfs``.

Null inputs give a null result. Invalid non-null inputs raise, with a message naming the function
and the value. Call the bigint-taking functions on non-null values (see columns.py).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from python_udfs.columns import binary_column, integer_column, nullable, objects
from python_udfs.murmur3 import murmur3_tokens
from python_udfs.sharding import find_first_token_for_shard, shards_of
from python_udfs.sql_signature import Bigint, Binary, Int, String, returns
from python_udfs.stream_ids import decode_stream_ids, stream_ids_for
from python_udfs.timeuuids import micros_from_timeuuids, timeuuids_from_micros


def _validated_stream_ids(series: pd.Series, function: str) -> tuple[dict, np.ndarray]:
    ids, valid = binary_column(series)
    bad = [i for i, (raw, ok) in enumerate(zip(ids, valid)) if ok and len(raw) != 16]
    if bad:
        raise ValueError(f"{function}: a stream id has 16 bytes, got {len(ids[bad[0]])} ({ids[bad[0]].hex()})")
    return decode_stream_ids([raw if ok else bytes(16) for raw, ok in zip(ids, valid)]), valid


@returns("bigint")
def cdc_murmur3_token(key: Binary) -> pd.Series:
    keys, valid = binary_column(key)
    return nullable(murmur3_tokens(keys), valid, "Int64")


@returns("int")
def cdc_shard_of(token: Bigint, shard_count: Int, ignore_msb: Int) -> pd.Series:
    tokens, valid_token = integer_column(token, "cdc_shard_of", "token")
    counts, valid_count = integer_column(shard_count, "cdc_shard_of", "shard_count")
    msbs, valid_msb = integer_column(ignore_msb, "cdc_shard_of", "ignore_msb")
    valid = valid_token & valid_count & valid_msb
    shards = shards_of(tokens[valid], counts[valid], msbs[valid])
    result = np.zeros(len(token), dtype=np.int32)
    result[valid] = shards
    return nullable(result, valid, "Int32")


@returns("binary")
def cdc_stream_id(token: Bigint, vnode_index: Int, random38: Bigint) -> pd.Series:
    tokens, valid_token = integer_column(token, "cdc_stream_id", "token")
    indexes, valid_index = integer_column(vnode_index, "cdc_stream_id", "vnode_index")
    randoms, valid_random = integer_column(random38, "cdc_stream_id", "random38")
    valid = valid_token & valid_index & valid_random
    return objects(stream_ids_for(np.where(valid, tokens, 0), np.where(valid, indexes, 0), randoms), valid)


@returns("bigint")
def cdc_stream_id_token(stream_id: Binary) -> pd.Series:
    fields, valid = _validated_stream_ids(stream_id, "cdc_stream_id_token")
    return nullable(fields["token"], valid, "Int64")


@returns("int")
def cdc_stream_id_vnode_index(stream_id: Binary) -> pd.Series:
    fields, valid = _validated_stream_ids(stream_id, "cdc_stream_id_vnode_index")
    return nullable(fields["index"], valid, "Int32")


@returns("int")
def cdc_stream_id_version(stream_id: Binary) -> pd.Series:
    fields, valid = _validated_stream_ids(stream_id, "cdc_stream_id_version")
    return nullable(fields["version"], valid, "Int32")


@returns("bigint")
def cdc_find_first_token_for_shard(range_start: Bigint, range_end: Bigint, shard_count: Int,
                                   ignore_msb: Int, shard: Int) -> pd.Series:
    name = "cdc_find_first_token_for_shard"
    columns = [integer_column(series, name, argument) for series, argument in (
        (range_start, "range_start"), (range_end, "range_end"), (shard_count, "shard_count"),
        (ignore_msb, "ignore_msb"), (shard, "shard"))]
    valid = np.logical_and.reduce([mask for _, mask in columns])
    starts, ends, counts, msbs, shards = (values.tolist() for values, _ in columns)
    result = np.zeros(len(range_start), dtype=np.int64)
    for row in np.flatnonzero(valid):
        result[row] = find_first_token_for_shard(starts[row], ends[row], counts[row], msbs[row], shards[row])
    return nullable(result, valid, "Int64")


@returns("string")
def cdc_timeuuid(ts_us: Bigint, random64: Bigint) -> pd.Series:
    micros, valid_ts = integer_column(ts_us, "cdc_timeuuid", "ts_us")
    randoms, valid_random = integer_column(random64, "cdc_timeuuid", "random64")
    valid = valid_ts & valid_random
    return objects(timeuuids_from_micros(np.where(valid, micros, 0), randoms), valid)


@returns("bigint")
def cdc_timeuuid_micros(timeuuid: String) -> pd.Series:
    valid = timeuuid.notna().to_numpy()
    micros = np.zeros(len(timeuuid), dtype=np.int64)
    micros[valid] = micros_from_timeuuids(timeuuid[valid].tolist())
    return nullable(micros, valid, "Int64")
