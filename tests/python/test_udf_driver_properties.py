"""Property tests against scylla-driver 3.29.12 (ScyllaDB's own murmur3 C extension, CQL
serializers and ShardingInfo) on thousands of random inputs, and vectorized == scalar."""
from __future__ import annotations

import datetime
import json
import math
import random
import uuid

import numpy as np
import pytest
from cassandra import cqltypes, util
from cassandra.metadata import Murmur3Token
from cassandra.query import Statement
from cassandra.shard_info import ShardingInfo, _ShardingInfo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python_udfs.murmur3 import murmur3_token, murmur3_tokens
from python_udfs.sharding import shard_of, shards_of
from python_udfs.stream_ids import decode_stream_id, decode_stream_ids, stream_id_for, stream_ids_for
from python_udfs.timeuuids import (
    micros_from_timeuuid, micros_from_timeuuids, timeuuid_from_micros, timeuuids_from_micros,
)
from python_udfs.tokens import routing_key_of_partition_key, token_of_partition_key, tokens_of_partition_keys

PROTOCOL_VERSION = 4
INT64 = st.integers(-2**63, 2**63 - 1)


def driver_token(routing_key: bytes) -> int:
    return Murmur3Token.hash_fn(routing_key)


def random_byte_strings(count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    keys = [bytes(rng.randrange(0x80, 0x100) for _ in range(n)) for n in range(41)]     # every tail, all >= 0x80
    keys += [rng.randbytes(rng.randint(0, 40)) for _ in range(count)]
    keys += [rng.randbytes(rng.randint(41, 300)) for _ in range(count // 10)]
    return keys


def test_murmur3_matches_driver_on_random_bytes():
    keys = random_byte_strings(5000, seed=1)
    expected = [driver_token(key) for key in keys]
    assert [murmur3_token(key) for key in keys] == expected
    assert murmur3_tokens(keys).tolist() == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(st.binary(max_size=70), min_size=1, max_size=30))
def test_murmur3_vectorized_equals_scalar(keys):
    assert murmur3_tokens(keys).tolist() == [murmur3_token(key) for key in keys]


# --- typed partition keys: (CQL type, strategy of (our JSON value, driver value)) ----------------

def _json_float(value: float):
    return {math.inf: "Infinity", -math.inf: "-Infinity"}.get(value, "NaN" if math.isnan(value) else value)


def _canonical_nan(value: float) -> float:
    """ScyllaDB stores every NaN as the quiet NaN (§1.1); the driver would keep a NaN's sign/payload."""
    return math.nan if math.isnan(value) else value


TYPED_VALUES = {
    "int": st.integers(-2**31, 2**31 - 1).map(lambda v: (v, v)),
    "bigint": INT64.map(lambda v: (v, v)),
    "smallint": st.integers(-2**15, 2**15 - 1).map(lambda v: (v, v)),
    "tinyint": st.integers(-128, 127).map(lambda v: (v, v)),
    "varint": st.integers(-2**130, 2**130).map(lambda v: (v, v)),
    "text": st.text(max_size=30).map(lambda v: (v, v)),
    "ascii": st.text(alphabet=st.characters(max_codepoint=127), max_size=20).map(lambda v: (v, v)),
    "blob": st.binary(max_size=40).map(lambda v: ("0x" + v.hex(), v)),
    "uuid": st.uuids().map(lambda v: (str(v), v)),
    "timeuuid": st.uuids(version=1).map(lambda v: (str(v), v)),
    "boolean": st.booleans().map(lambda v: (v, v)),
    "timestamp": INT64.map(lambda v: (v, v)),
    "date": st.dates().map(lambda v: (v.isoformat(), util.Date(v))),
    "time": st.integers(0, 86_400 * 10**9 - 1).map(lambda v: (v, v)),
    "double": st.floats().map(lambda v: (_json_float(v), _canonical_nan(v))),
    "float": st.floats(width=32).map(lambda v: (_json_float(v), _canonical_nan(v))),
    "inet": st.ip_addresses().map(lambda v: (str(v), str(v))),
}


def _driver_serialize(cql_type: str, value) -> bytes:
    return cqltypes._cqltypes[cql_type].serialize(value, PROTOCOL_VERSION)


@st.composite
def typed_keys(draw):
    types = draw(st.lists(st.sampled_from(sorted(TYPED_VALUES)), min_size=1, max_size=3))
    pairs = [draw(TYPED_VALUES[t]) for t in types]
    return types, [json_value for json_value, _ in pairs], [driver_value for _, driver_value in pairs]


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_keys())
def test_token_of_typed_keys_matches_driver(key):
    types, json_values, driver_values = key
    names = [f"k{i}" for i in range(len(types))]
    parts = [_driver_serialize(t, v) for t, v in zip(types, driver_values)]
    expected_routing_key = parts[0] if len(parts) == 1 else b"".join(Statement._key_parts_packed(None, parts))
    key_json = json.dumps(dict(zip(names, json_values)))
    assert routing_key_of_partition_key(key_json, names, types) == expected_routing_key
    assert token_of_partition_key(key_json, names, types) == driver_token(expected_routing_key)


def test_tokens_of_partition_keys_vectorized_equals_scalar():
    rng = random.Random(3)
    rows = []
    for i in range(3000):
        kind = i % 3
        if kind == 0:
            rows.append((json.dumps({"id": rng.randint(-2**31, 2**31 - 1)}), ["id"], ["int"]))
        elif kind == 1:
            rows.append((json.dumps({"a": "é" * rng.randint(0, 9), "b": str(uuid.UUID(int=rng.getrandbits(128)))}),
                         ["a", "b"], ["text", "uuid"]))
        else:
            rows.append((json.dumps({"id": "not a number"}), ["id"], ["bigint"]))
    tokens, errors = tokens_of_partition_keys([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    for (key_json, names, types), token, error in zip(rows, tokens.tolist(), errors):
        if error is None:
            assert token == token_of_partition_key(key_json, names, types)
        else:
            assert error == "partition key column 'id': expected bigint, got \"not a number\""


# --- sharding ----------------------------------------------------------------------------------

def random_shard_cases(count: int, seed: int) -> list[tuple[int, int, int]]:
    rng = random.Random(seed)
    edges = [-2**63 + 1, -1, 0, 1, 2**63 - 1]
    return [(rng.choice(edges) if rng.random() < 0.05 else rng.randint(-2**63 + 1, 2**63 - 1),
             rng.randint(1, 256), rng.randint(0, 16)) for _ in range(count)]


@pytest.mark.parametrize("driver_class", [ShardingInfo, _ShardingInfo], ids=["cython", "python"])
def test_shard_of_matches_driver(driver_class):
    cases = random_shard_cases(20000, seed=11)
    infos = {}
    for token, shards, msb in cases:
        info = infos.get((shards, msb))
        if info is None:
            info = infos[(shards, msb)] = driver_class(0, shards, "org.apache.cassandra.dht.Murmur3Partitioner",
                                                       "biased-token-round-robin", msb, None, None)
        assert shard_of(token, shards, msb) == info.shard_id_from_token(token), (token, shards, msb)


def test_shards_of_vectorized_equals_scalar():
    cases = random_shard_cases(50000, seed=12)
    tokens, counts, msbs = (np.array(column, dtype=np.int64) for column in zip(*cases))
    assert shards_of(tokens, counts, msbs).tolist() == [shard_of(*case) for case in cases]
    assert shards_of(tokens, 7, 12).tolist() == [shard_of(t, 7, 12) for t in tokens.tolist()]


# --- stream ids and timeuuids ------------------------------------------------------------------

def test_stream_ids_vectorized_equal_scalar_and_round_trip():
    rng = random.Random(5)
    cases = [(rng.randint(-2**63, 2**63 - 1), rng.randint(0, 2**22 - 1), rng.getrandbits(64) - 2**63)
             for _ in range(5000)]
    tokens, indexes, randoms = zip(*cases)
    ids = stream_ids_for(np.array(tokens), np.array(indexes), np.array(randoms))
    assert ids == [stream_id_for(*case) for case in cases]
    decoded = decode_stream_ids(ids)
    assert decoded["token"].tolist() == list(tokens)
    assert decoded["index"].tolist() == list(indexes)
    assert decoded["version"].tolist() == [1] * len(cases)
    assert decoded["random"].tolist() == [(r % 2**64) & (2**38 - 1) for r in randoms]
    assert decode_stream_id(ids[0]) == (tokens[0], 1, indexes[0], (randoms[0] % 2**64) & (2**38 - 1))


def test_timeuuids_round_trip_and_match_python_uuid1_layout():
    rng = random.Random(9)
    micros = [rng.randint(-12_219_292_800_000_000, 2**56) for _ in range(3000)] + [0, 1_700_000_000_123_456]
    randoms = [rng.getrandbits(64) - 2**63 for _ in micros]
    texts = timeuuids_from_micros(np.array(micros), np.array(randoms))
    assert texts == [timeuuid_from_micros(m, r) for m, r in zip(micros, randoms)]
    assert micros_from_timeuuids(texts).tolist() == micros
    for text, ts, random64 in zip(texts[:300], micros, randoms):
        parsed = uuid.UUID(text)
        assert parsed.version == 1 and parsed.variant == uuid.RFC_4122
        assert parsed.time == ts * 10 + 0x01B21DD213814000
        assert parsed.int & (2**62 - 1) == random64 & (2**62 - 1)
        assert micros_from_timeuuid(text) == ts


def test_timeuuid_of_a_known_instant():
    text = timeuuid_from_micros(1_585_140_283_006_000, 0)
    assert uuid.UUID(text).time == 1_585_140_283_006_000 * 10 + 0x01B21DD213814000
    assert text.endswith("-8000-000000000000")
    assert util.datetime_from_uuid1(uuid.UUID(text)) == datetime.datetime(2020, 3, 25, 12, 44, 43, 6000)


# Composite and remaining key types: the driver serializes, our JSON encoding goes through
# serialize_json_value; ScyllaDB stores frozen sets and map keys sorted and de-duplicated, so
# the driver gets them in CQL order (Python's order for these element types).
COMPOSITE_VALUES = {
    "decimal": (
        "DecimalType",
        st.decimals(allow_nan=False, allow_infinity=False, min_value=-10**20, max_value=10**20),
        lambda v: v, lambda v: v,
    ),
    "frozen<list<int>>": (
        "ListType(Int32Type)", st.lists(st.integers(-2**31, 2**31 - 1), max_size=6),
        lambda v: {"list": v}, lambda v: v,
    ),
    "frozen<set<text>>": (
        "SetType(UTF8Type)", st.lists(st.text(max_size=8), max_size=6),
        lambda v: {"set": v}, lambda v: sorted(set(v)),
    ),
    "frozen<map<int, text>>": (
        "MapType(Int32Type,UTF8Type)",
        st.dictionaries(st.integers(-2**31, 2**31 - 1), st.text(max_size=8), max_size=6),
        lambda v: {"map": [[k, x] for k, x in v.items()]}, lambda v: dict(sorted(v.items())),
    ),
    "tuple<int, text, boolean>": (
        "TupleType(Int32Type,UTF8Type,BooleanType)",
        st.tuples(st.integers(-2**31, 2**31 - 1), st.text(max_size=8), st.booleans()),
        lambda v: {"tuple": list(v)}, lambda v: v,
    ),
}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(COMPOSITE_VALUES)).flatmap(
    lambda name: st.tuples(st.just(name), COMPOSITE_VALUES[name][1])))
def test_composite_and_decimal_keys_match_driver(typed):
    from decimal import Decimal

    from python_udfs.cql_values import serialize_json_value
    from python_udfs.tokens import token_of_partition_key

    cql_type, value = typed
    casstype, _, to_json, to_driver = COMPOSITE_VALUES[cql_type]
    driver_bytes = cqltypes.lookup_casstype(casstype).serialize(to_driver(value), PROTOCOL_VERSION)
    json_value = to_json(value)
    assert serialize_json_value(json_value, cql_type) == driver_bytes
    # a decimal is written as its exact literal (JSON numbers are read with their scale)
    key_text = '{"k": ' + (str(value) if isinstance(value, Decimal) else json.dumps(json_value)) + "}"
    assert token_of_partition_key(key_text, ["k"], [cql_type]) == Murmur3Token.hash_fn(driver_bytes)


@settings(max_examples=200, deadline=None)
@given(st.integers(-2**31, 2**31 - 1), st.one_of(st.none(), st.text(max_size=8)))
def test_frozen_udt_serializes_like_the_tuple_of_its_fields(a, b):
    from python_udfs.cql_values import serialize_json_value

    udt_bytes = serialize_json_value({"udt": {"a": a, "b": b}}, "frozen<ut>", {"ut": [("a", "int"), ("b", "text")]})
    tuple_bytes = cqltypes.lookup_casstype("TupleType(Int32Type,UTF8Type)").serialize((a, b), PROTOCOL_VERSION)
    assert udt_bytes == tuple_bytes
