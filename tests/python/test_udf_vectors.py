"""Every token/shard/stream-id vector of tests/data/vectors_math.json (docs/scylla/math.md §1-§3).

The vectors are read from tests/data/vectors_math.json when the tests are collected; each one is a test case
named by its id. ``test_every_vector_is_covered`` fails if a vector of a covered function
has no test (nothing is skipped silently) and prints the count per function.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from decimal import Decimal

import numpy as np
import pytest

from conftest import TEST_DATA
from python_udfs.cql_values import loads_json
from python_udfs.murmur3 import murmur3_token, murmur3_tokens, normalize_token
from python_udfs.sharding import (
    MAX_TOKEN, MIN_TOKEN, bias, find_first_token_for_shard, shard_of, shard_starts, shards_of,
    token_for_next_shard,
)
from python_udfs.stream_ids import (
    cdc_partitioner_token, decode_stream_id, decode_stream_ids, is_valid_stream_id, stream_id_for,
    stream_ids_for,
)
from python_udfs.tokens import routing_key_of_partition_key, token_of_partition_key

VECTORS = json.loads((TEST_DATA / "vectors_math.json").read_text())["vectors"]


def vectors_of(function: str) -> list:
    chosen = [v for v in VECTORS if v["function"] == function]
    return [pytest.param(v, id=v["id"]) for v in chosen]


def as_token(value):
    """Vector token notation -> int key token or MIN_TOKEN / MAX_TOKEN."""
    if isinstance(value, int):
        return value
    if value.startswith("min"):
        return MIN_TOKEN
    if value.startswith("max"):
        return MAX_TOKEN
    raise ValueError(f"unknown token notation {value!r}")


def json_value_of_cql_literal(cql_type: str, literal: str):
    """The vectors write CQL literals ('a', 0x.., '2020-03-25' (..)); map them to our JSON encoding."""
    if cql_type in ("int", "bigint", "smallint", "tinyint", "varint"):
        return int(literal)
    if cql_type == "boolean":
        return literal == "true"
    if cql_type in ("text", "varchar", "ascii", "inet"):
        return literal[1:-1]
    if cql_type in ("blob", "uuid", "timeuuid"):
        return literal
    if cql_type == "timestamp":
        return int(re.search(r"\((\d+) ms\)", literal).group(1))
    if cql_type == "date":
        return re.search(r"'(\d{4}-\d{2}-\d{2})'", literal).group(1)
    if cql_type == "time":
        hours, minutes, seconds = re.search(r"'(\d+):(\d+):([\d.]+)'", literal).groups()
        return (int(hours) * 3600 + int(minutes) * 60) * 10**9 + int(Decimal(seconds) * 10**9)
    if cql_type in ("float", "double", "decimal"):
        return loads_json(literal)
    raise ValueError(f"no literal mapping for {cql_type}")


def json_value_of_component(cql_type: str, value: str):
    """composite_key_token components hold bare values (blob without 0x)."""
    if cql_type == "blob":
        return "0x" + value
    if cql_type in ("int", "bigint", "tinyint", "smallint"):
        return int(value)
    return value


@pytest.mark.parametrize("vector", vectors_of("murmur3_token"))
def test_murmur3_token(vector):
    key = bytes.fromhex(vector["inputs"]["key_hex"])
    assert murmur3_token(key) == vector["expected"]["token"]
    assert murmur3_tokens([key]).tolist() == [vector["expected"]["token"]]


def test_murmur3_tokens_vectorized_over_all_vectors():
    vectors = [v for v in VECTORS if v["function"] == "murmur3_token"]
    keys = [bytes.fromhex(v["inputs"]["key_hex"]) for v in vectors]
    assert murmur3_tokens(keys).tolist() == [v["expected"]["token"] for v in vectors]


@pytest.mark.parametrize("vector", vectors_of("murmur3_normalize"))
def test_murmur3_normalize(vector):
    assert normalize_token(vector["inputs"]["h1_signed"]) == vector["expected"]["token"]


@pytest.mark.parametrize("vector", vectors_of("cql_serialize_and_token"))
def test_cql_serialize_and_token(vector):
    cql_type, literal = vector["inputs"]["cql_type"], vector["inputs"]["value"]
    value = json_value_of_cql_literal(cql_type, literal)
    # numbers stay JSON numbers (a Decimal is written as its exact text)
    key_json = f'{{"pk": {value}}}' if isinstance(value, Decimal) else json.dumps({"pk": value})
    assert routing_key_of_partition_key(key_json, ["pk"], [cql_type]).hex() == vector["expected"]["serialized_hex"]
    assert token_of_partition_key(key_json, ["pk"], [cql_type]) == vector["expected"]["token"]


@pytest.mark.parametrize("vector", vectors_of("composite_key_token"))
def test_composite_key_token(vector):
    components = vector["inputs"]["components"]
    names = [f"c{i}" for i in range(len(components))]
    types = [c["cql_type"] for c in components]
    key_json = json.dumps({name: json_value_of_component(c["cql_type"], c["value"])
                           for name, c in zip(names, components)})
    assert routing_key_of_partition_key(key_json, names, types).hex() == vector["expected"]["routing_key_hex"]
    assert token_of_partition_key(key_json, names, types) == vector["expected"]["token"]


@pytest.mark.parametrize("vector", vectors_of("shard_of"))
def test_shard_of(vector):
    inputs = vector["inputs"]
    token = as_token(inputs["token"])
    assert shard_of(token, inputs["shard_count"], inputs["ignore_msb"]) == vector["expected"]["shard"]
    if isinstance(token, int):
        assert shards_of(np.array([token]), inputs["shard_count"], inputs["ignore_msb"]).tolist() == \
            [vector["expected"]["shard"]]


@pytest.mark.parametrize("vector", vectors_of("shard_boundaries"))
def test_shard_boundaries(vector):
    n, m = vector["inputs"]["shard_count"], vector["inputs"]["ignore_msb"]
    expected = vector["expected"]["first_key_token_of_each_shard_in_ring_order"]
    span = 1 << (64 - m)
    boundaries = sorted(bias(k * span + start) for k in range(1 << m) for start in shard_starts(n, m))
    boundaries[0] += 1                      # INT64_MIN is not a key token
    assert boundaries == expected
    for i, boundary in enumerate(expected):
        assert shard_of(boundary, n, m) == i % n
        if i > 0:
            assert shard_of(boundary - 1, n, m) == (i - 1) % n
            assert token_for_next_shard(boundary - 1, n, m, i % n) == boundary


@pytest.mark.parametrize("vector", vectors_of("shard_start"))
def test_shard_start(vector):
    n, m = vector["inputs"]["shard_count"], vector["inputs"]["ignore_msb"]
    expected = vector["expected"]
    assert list(shard_starts(n, m)) == expected["zero_based_unbiased_start_per_shard"]
    assert [bias(s) for s in shard_starts(n, m)] == expected["first_signed_token_per_shard_in_span0"]
    assert 1 << (64 - m) == expected["span_length_unbiased"]


@pytest.mark.parametrize("vector", vectors_of("token_for_next_shard"))
def test_token_for_next_shard(vector):
    inputs = vector["inputs"]
    result = token_for_next_shard(as_token(inputs["token"]), inputs["shard_count"], inputs["ignore_msb"],
                                  inputs["shard"], inputs["spans"])
    assert result == as_token(vector["expected"]["token"])


@pytest.mark.parametrize("vector", vectors_of("find_first_token_for_shard"))
def test_find_first_token_for_shard(vector):
    inputs = vector["inputs"]
    result = find_first_token_for_shard(as_token(inputs["start_exclusive"]), as_token(inputs["end_inclusive"]),
                                        inputs["shard_count"], inputs["ignore_msb"], inputs["shard"])
    assert result == as_token(vector["expected"]["token"])


@pytest.mark.parametrize("vector", vectors_of("stream_id_encode"))
def test_stream_id_encode(vector):
    inputs = vector["inputs"]
    assert inputs["version"] == 1
    stream_id = stream_id_for(inputs["token"], inputs["vnode_index"], inputs["random38"])
    assert stream_id.hex() == vector["expected"]["hex"]
    assert stream_id[8:].hex() == vector["expected"]["low_qword_hex"]
    assert stream_ids_for([inputs["token"]], [inputs["vnode_index"]], [inputs["random38"]]) == [stream_id]


@pytest.mark.parametrize("vector", vectors_of("stream_id_decode"))
def test_stream_id_decode(vector):
    raw = bytes.fromhex(vector["inputs"]["hex"])
    expected = vector["expected"]
    fields = decode_stream_id(raw)
    assert (fields.token, fields.version, fields.index, fields.random) == \
        (expected["token"], expected["version"], expected["index"], expected["random"])
    assert int.from_bytes(raw[8:], "big", signed=True) == expected["low_qword_signed"]
    assert cdc_partitioner_token(raw) == expected["cdc_partitioner_token"]
    assert is_valid_stream_id(raw) == expected["accepted_by_stream_id_bytes_ctor"]
    batch = decode_stream_ids([raw])
    assert (batch["token"].tolist(), batch["version"].tolist(), batch["index"].tolist(), batch["random"].tolist()) \
        == ([fields.token], [fields.version], [fields.index], [fields.random])
    if fields.version == 1:
        assert stream_id_for(fields.token, fields.index, fields.random) == raw


@pytest.mark.parametrize("vector", vectors_of("cdc_partitioner_token"))
def test_cdc_partitioner_token(vector):
    assert cdc_partitioner_token(bytes.fromhex(vector["inputs"]["key_hex"])) == as_token(vector["expected"]["token"])


COVERED_HERE = {
    "murmur3_token": test_murmur3_token, "murmur3_normalize": test_murmur3_normalize,
    "cql_serialize_and_token": test_cql_serialize_and_token, "composite_key_token": test_composite_key_token,
    "shard_of": test_shard_of, "shard_boundaries": test_shard_boundaries, "shard_start": test_shard_start,
    "token_for_next_shard": test_token_for_next_shard,
    "find_first_token_for_shard": test_find_first_token_for_shard,
    "stream_id_encode": test_stream_id_encode, "stream_id_decode": test_stream_id_decode,
    "cdc_partitioner_token": test_cdc_partitioner_token,
}


def test_every_vector_is_covered():
    counts = Counter(v["function"] for v in VECTORS)
    for function, test in COVERED_HERE.items():
        (mark,) = [m for m in test.pytestmark if m.name == "parametrize"]
        ids = [param.id for param in mark.args[1]]
        expected_ids = [v["id"] for v in VECTORS if v["function"] == function]
        assert ids == expected_ids and ids, function
        print(f"{function}: {len(ids)} vectors")
    assert sum(counts[f] for f in COVERED_HERE) == sum(len(vectors_of(f)) for f in COVERED_HERE)
