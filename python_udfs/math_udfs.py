"""Batch functions of the token, shard, stream-id and timeuuid math (docs/scylla/math.md §1-§3,
docs/scylla/log.md §6.1), registered as SQL functions by ``spark_udfs.register_udfs``.

Null inputs, and inputs outside a function's domain (a shard count below 1, a stream id that is
not 16 bytes, a timestamp a timeuuid cannot hold, ...), give a null result: one row never fails
the batch. Call the bigint-taking functions on non-null values (see columns.py).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from python_udfs.columns import binary_column, in_range, integer_column, nullable, objects
from python_udfs.murmur3 import murmur3_tokens
from python_udfs.sharding import find_first_token_for_shard, shards_of
from python_udfs.sql_signature import Bigint, Binary, Int, String, returns
from python_udfs.stream_ids import INDEX_MASK, decode_stream_ids, stream_ids_for
from python_udfs.timeuuids import MAX_MICROS, MIN_MICROS, micros_from_timeuuid, timeuuids_from_micros

SHARD_COUNT_LIMIT = 1 << 32
IGNORE_MSB_LIMIT = 64


def _stream_ids(series: pd.Series) -> tuple[dict, np.ndarray]:
    """Decoded stream-id fields and the mask of the 16-byte ids."""
    ids, valid = binary_column(series)
    valid &= np.array([len(raw) == 16 for raw in ids], dtype=bool)
    return decode_stream_ids([raw if ok else bytes(16) for raw, ok in zip(ids, valid)]), valid


def _sharder(shard_count: pd.Series, ignore_msb: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(shard counts, ignore_msb values, mask of a valid sharder: 1 <= count < 2^32, 0 <= msb < 64)."""
    counts, valid_count = integer_column(shard_count)
    msbs, valid_msb = integer_column(ignore_msb)
    valid = valid_count & valid_msb & in_range(counts, 1, SHARD_COUNT_LIMIT) & in_range(msbs, 0, IGNORE_MSB_LIMIT)
    return np.where(valid, counts, 1), np.where(valid, msbs, 0), valid


@returns("bigint")
def cdc_murmur3_token(key: Binary) -> pd.Series:
    keys, valid = binary_column(key)
    return nullable(murmur3_tokens(keys), valid, "Int64")


@returns("int")
def cdc_shard_of(token: Bigint, shard_count: Int, ignore_msb: Int) -> pd.Series:
    tokens, valid_token = integer_column(token)
    counts, msbs, valid_sharder = _sharder(shard_count, ignore_msb)
    valid = valid_token & valid_sharder
    return nullable(shards_of(tokens, counts, msbs), valid, "Int32")


@returns("binary")
def cdc_stream_id(token: Bigint, vnode_index: Int, random38: Bigint) -> pd.Series:
    tokens, valid_token = integer_column(token)
    indexes, valid_index = integer_column(vnode_index)
    randoms, valid_random = integer_column(random38)
    valid = valid_token & valid_index & valid_random & in_range(indexes, 0, INDEX_MASK + 1)
    return objects(stream_ids_for(np.where(valid, tokens, 0), np.where(valid, indexes, 0), randoms), valid)


@returns("bigint")
def cdc_stream_id_token(stream_id: Binary) -> pd.Series:
    fields, valid = _stream_ids(stream_id)
    return nullable(fields["token"], valid, "Int64")


@returns("int")
def cdc_stream_id_vnode_index(stream_id: Binary) -> pd.Series:
    fields, valid = _stream_ids(stream_id)
    return nullable(fields["index"], valid, "Int32")


@returns("int")
def cdc_stream_id_version(stream_id: Binary) -> pd.Series:
    fields, valid = _stream_ids(stream_id)
    return nullable(fields["version"], valid, "Int32")


@returns("bigint")
def cdc_find_first_token_for_shard(range_start: Bigint, range_end: Bigint, shard_count: Int,
                                   ignore_msb: Int, shard: Int) -> pd.Series:
    starts, valid_start = integer_column(range_start)
    ends, valid_end = integer_column(range_end)
    counts, msbs, valid_sharder = _sharder(shard_count, ignore_msb)
    shards, valid_shard = integer_column(shard)
    valid = valid_start & valid_end & valid_sharder & valid_shard & (shards >= 0) & (shards < counts)
    result = np.zeros(len(range_start), dtype=np.int64)
    for row in np.flatnonzero(valid).tolist():
        result[row] = find_first_token_for_shard(int(starts[row]), int(ends[row]), int(counts[row]),
                                                 int(msbs[row]), int(shards[row]))
    return nullable(result, valid, "Int64")


@returns("string")
def cdc_timeuuid(ts_us: Bigint, random64: Bigint) -> pd.Series:
    micros, valid_ts = integer_column(ts_us)
    randoms, valid_random = integer_column(random64)
    valid = valid_ts & valid_random & (micros >= MIN_MICROS) & (micros <= MAX_MICROS)
    return objects(timeuuids_from_micros(np.where(valid, micros, 0), randoms), valid)


@returns("bigint")
def cdc_timeuuid_micros(timeuuid: String) -> pd.Series:
    micros = np.zeros(len(timeuuid), dtype=np.int64)
    valid = np.zeros(len(timeuuid), dtype=bool)
    for row, text in enumerate(timeuuid.tolist()):
        try:
            micros[row] = micros_from_timeuuid(text)
            valid[row] = True
        except (TypeError, ValueError, AttributeError):          # null, or not a version-1 uuid
            pass
    return nullable(micros, valid, "Int64")


@returns("bigint")
def cdc_time_us(timeuuid: String) -> pd.Series:
    """A log row's ``cdc$time`` in µs since the epoch (``cdc_timeuuid_micros``, under the name
    users call it by): ``order by cdc_time_us(`cdc$time`)`` orders rows by time, as the text does not."""
    return cdc_timeuuid_micros(timeuuid)
