"""CDC generations (docs/scylla/math.md §4) and stream lookup (§5): the shared vectors
``make_new_generation_description`` and ``topology_description_get_stream``, plus invariants."""
from __future__ import annotations

import json
import random

import pytest
from conftest import TEST_DATA

from cdclake.generations.vnodes import (
    DEFAULT_IGNORE_MSB,
    DEFAULT_SHARD_COUNT,
    Entry,
    default_single_node_generation,
    generation_stream_rows,
    locate_stream,
    lookup_stream,
    make_generation,
    make_generation_scalar,
    ring_tokens,
    ring_tokens_by_node,
    sharding_info_by_owner,
)
from python_udfs.sharding import shard_of
from python_udfs.stream_ids import decode_stream_id

VECTORS = json.loads((TEST_DATA / "vectors_math.json").read_text())["vectors"]
GENERATION_VECTORS = [v for v in VECTORS if v["function"] == "make_new_generation_description"]
LOOKUP_VECTORS = [v for v in VECTORS if v["function"] == "topology_description_get_stream"]


def zero_random(_index: int, _shard: int) -> int:
    return 0


def generation_of_vector(vector: dict) -> list[Entry]:
    sharding = {int(end): tuple(info) for end, info in vector["inputs"]["sharding_info_by_range_end"].items()}
    return make_generation(vector["inputs"]["sorted_ring_tokens"], sharding.__getitem__, zero_random)


GENERATIONS_BY_NAME = {v["inputs"]["name"]: generation_of_vector(v) for v in GENERATION_VECTORS}


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["id"]) for v in GENERATION_VECTORS])
def test_make_new_generation_description(vector):
    entries = generation_of_vector(vector)
    expected_entries = vector["expected"]["entries"]
    assert len(entries) == len(expected_entries)
    for entry, expected in zip(entries, expected_entries):
        assert (entry.index, entry.token_range_end, entry.ignore_msb) == \
            (expected["index"], expected["token_range_end"], expected["ignore_msb"])
        assert [decode_stream_id(s).token for s in entry.streams] == expected["stream_tokens_by_shard"]
        assert [s.hex() for s in entry.streams] == expected["stream_ids_hex_random0"]
    sharding = {int(end): tuple(info) for end, info in vector["inputs"]["sharding_info_by_range_end"].items()}
    assert make_generation_scalar(vector["inputs"]["sorted_ring_tokens"], sharding.__getitem__, zero_random) == entries


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["id"]) for v in LOOKUP_VECTORS])
def test_topology_description_get_stream(vector):
    entries = GENERATIONS_BY_NAME[vector["inputs"]["generation"]]
    token = vector["inputs"]["token"]
    expected = vector["expected"]
    assert locate_stream(entries, token) == (expected["entry_index"], expected["shard_index"])
    stream = lookup_stream(entries, token)
    assert decode_stream_id(stream).token == expected["stream_token"]
    assert stream.hex() == expected["stream_id_hex_random0"]


def test_generation_vectors_all_ran():
    print(f"make_new_generation_description: {len(GENERATION_VECTORS)} vectors; "
          f"topology_description_get_stream: {len(LOOKUP_VECTORS)} vectors")
    assert len(GENERATION_VECTORS) == 5 and len(LOOKUP_VECTORS) == 35
    assert {v["inputs"]["generation"] for v in LOOKUP_VECTORS} <= set(GENERATIONS_BY_NAME)


def test_lookup_invariants_on_a_mixed_ring():
    """§5 invariant (cdc_generation_test.cc): the stream's index is the entry's index, its token
    lies in the entry's range and belongs to the same shard as the looked-up token."""
    by_node = ring_tokens_by_node(3, 16, seed="invariants")
    tokens = sorted(t for node in by_node for t in node)
    entries = make_generation(tokens, sharding_info_by_owner(by_node, [(3, 12), (8, 0), (5, 4)]),
                              lambda index, shard: index * 31 + shard)
    rng = random.Random(7)
    for token in [rng.randint(-2**63 + 1, 2**63 - 1) for _ in range(3000)] + tokens + [t + 1 for t in tokens[:-1]]:
        position, shard = locate_stream(entries, token)
        entry = entries[position]
        fields = decode_stream_id(lookup_stream(entries, token))
        assert fields.index == entry.index == position
        start = entries[position - 1].token_range_end
        inside = (start < fields.token <= entry.token_range_end) if start < entry.token_range_end \
            else (fields.token > start or fields.token <= entry.token_range_end)
        assert inside
        assert shard_of(fields.token, len(entry.streams), entry.ignore_msb) == shard


def test_ring_tokens_are_deterministic_distinct_key_tokens():
    first = ring_tokens(3, 256, seed=42)
    assert first == ring_tokens(3, 256, seed=42)
    assert first != ring_tokens(3, 256, seed=43)
    assert len(first) == len(set(first)) == 768 and first == sorted(first)
    assert all(-2**63 < t < 2**63 for t in first)


def test_default_single_node_generation_is_stable_per_timestamp():
    generation = default_single_node_generation(1_700_000_000_000)
    assert len(generation) == 256
    assert all(e.ignore_msb == DEFAULT_IGNORE_MSB and len(e.streams) == DEFAULT_SHARD_COUNT for e in generation)
    assert [e.token_range_end for e in generation] == sorted(e.token_range_end for e in generation)
    assert generation == default_single_node_generation(1_700_000_000_000)
    later = default_single_node_generation(1_700_000_100_000)
    assert [e.token_range_end for e in later] == [e.token_range_end for e in generation]
    assert [decode_stream_id(s).token for e in later for s in e.streams] == \
        [decode_stream_id(s).token for e in generation for s in e.streams]
    assert {s for e in later for s in e.streams}.isdisjoint({s for e in generation for s in e.streams})


def test_generation_stream_rows():
    generation = default_single_node_generation(1_700_000_000_000)
    rows = list(generation_stream_rows(1_700_000_000_000, generation))
    assert len(rows) == 512
    assert set(rows[0]) == {"generation_ts_ms", "vnode_index", "token_range_end", "ignore_msb", "shard", "stream_id"}
    assert all(len(r["stream_id"]) == 32 and r["stream_id"] == r["stream_id"].lower() for r in rows)
    assert rows[3] == {"generation_ts_ms": 1_700_000_000_000, "vnode_index": 1,
                       "token_range_end": generation[1].token_range_end, "ignore_msb": 12, "shard": 1,
                       "stream_id": generation[1].streams[1].hex()}


@pytest.mark.parametrize("tokens", [[], [3, 1], [1, 1], [-2**63]])
def test_make_generation_rejects_bad_rings(tokens):
    with pytest.raises(ValueError):
        make_generation(tokens, lambda _end: (1, 0), zero_random)
    with pytest.raises(ValueError):
        make_generation_scalar(tokens, lambda _end: (1, 0), zero_random)
