"""Cluster history YAML -> every CDC generation (cdclake/generations/cluster_history.py, docs/scylla/math.md §4)."""
from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest
import yaml

from cdclake.generations.cluster_history import (
    ClusterHistoryError,
    generations_from_history_file,
    load_cluster_history,
    parse_cluster_history,
    parse_utc_timestamp_ms,
)
from cdclake.generations.vnodes import locate_stream, make_generation_scalar
from python_udfs.sharding import shard_of
from python_udfs.stream_ids import DeterministicRandom38, decode_stream_id

T0 = 1_699_995_600_000            # 2023-11-14 21:00:00 UTC

HISTORY = """
ring_delay_ms: 30000
seed: "my-cluster"
nodes:
  - name: n1
    joined_at: "2023-11-14 21:00:00"
    num_tokens: 32
    shards: 2
  - name: n2
    joined_at: "2023-11-14 21:00:00"
    num_tokens: 32
    shards: 3
    ignore_msb: 0
  - name: n3
    joined_at: 2023-11-14 21:00:00
    tokens: [-4611686018427387904, 0, 4611686018427387904]
    shards: 1
  - name: n4
    joined_at: "2023-11-14 22:30:00"
    num_tokens: 16
    shards: 4
  - name: n5
    joined_at: "2023-11-14T23:00:00.250Z"
    num_tokens: 8
    shards: 8
    ignore_msb: 4
"""


@pytest.fixture()
def history_file(tmp_path):
    path = tmp_path / "cluster.yml"
    path.write_text(HISTORY)
    return path


def contains(start: int, end: int, token: int) -> bool:
    """token in the ring range (start, end] (start >= end wraps)."""
    return start < token <= end if start < end else (token > start or token <= end)


def test_three_nodes_and_two_bootstraps_give_three_generations(history_file):
    history = load_cluster_history(history_file)
    generations = history.generations()
    assert [ts for ts, _ in generations] == [T0, T0 + 90 * 60_000 + 65_000, T0 + 120 * 60_000 + 250 + 65_000]
    assert history.generation_timestamps() == [ts for ts, _ in generations]
    sizes = [len(entries) for _, entries in generations]
    assert sizes == [67, 83, 91]
    nodes = {node.name: node for node in history.nodes}
    assert nodes["n3"].tokens == (-4611686018427387904, 0, 4611686018427387904)
    assert [node.name for node in history.nodes] == ["n1", "n2", "n3", "n4", "n5"]
    # sharding of every vnode comes from the owner of its end token
    owner = {token: node for node in history.nodes for token in node.tokens}
    for _, entries in generations:
        for entry in entries:
            node = owner[entry.token_range_end]
            assert (len(entry.streams), entry.ignore_msb) == (node.shards, node.ignore_msb)
    assert generations_from_history_file(history_file) == generations


def test_later_generations_refine_earlier_ones(history_file):
    generations = load_cluster_history(history_file).generations()
    for (_, older), (_, newer) in zip(generations, generations[1:]):
        assert {e.token_range_end for e in older} < {e.token_range_end for e in newer}
        for position, entry in enumerate(newer):
            start = newer[position - 1].token_range_end
            outer_position, _ = locate_stream(older, entry.token_range_end)
            outer_start = older[outer_position - 1].token_range_end
            outer_end = older[outer_position].token_range_end
            assert contains(outer_start, outer_end, entry.token_range_end)
            # the whole of (start, end] lies in the older range: its start is the outer start or inside it
            assert start == outer_start or contains(outer_start, outer_end, start)


def test_streams_follow_the_spec_and_are_deterministic(history_file):
    history = load_cluster_history(history_file)
    generations = history.generations()
    ts, entries = generations[1]
    owner = {token: node for node in history.nodes for token in node.tokens}
    tokens = [e.token_range_end for e in entries]
    oracle = make_generation_scalar(tokens, lambda end: (owner[end].shards, owner[end].ignore_msb),
                                    DeterministicRandom38("cluster-history", "my-cluster", ts))
    assert entries == oracle
    rng = random.Random(5)
    for token in [rng.randint(-2**63 + 1, 2**63 - 1) for _ in range(500)]:
        position, shard = locate_stream(entries, token)
        fields = decode_stream_id(entries[position].streams[shard])
        assert fields.index == position
        assert shard_of(fields.token, len(entries[position].streams), entries[position].ignore_msb) == shard
    assert load_cluster_history(history_file).generations() == generations
    all_ids = [s for _, gen in generations for e in gen for s in e.streams]
    assert len(set(all_ids)) == len(all_ids)


def test_defaults_and_zero_ring_delay():
    history = parse_cluster_history({"ring_delay_ms": 0, "nodes": [
        {"name": "a", "joined_at": T0, "num_tokens": 4, "shards": 1},
        {"name": "b", "joined_at": T0 + 1000, "num_tokens": 4, "shards": 2}]})
    assert history.generation_timestamps() == [T0, T0 + 1000]
    assert history.seed == "scylla-cdc-lake cluster"
    assert {node.ignore_msb for node in history.nodes} == {12}
    default_delay = parse_cluster_history({"nodes": [
        {"name": "a", "joined_at": T0, "num_tokens": 4, "shards": 1},
        {"name": "b", "joined_at": T0 + 1000, "num_tokens": 4, "shards": 2}]})
    assert default_delay.generation_timestamps() == [T0, T0 + 1000 + 65_000]


def test_tokens_of_earlier_nodes_do_not_depend_on_later_nodes():
    base = {"seed": "s", "nodes": [{"name": "a", "joined_at": T0, "num_tokens": 8, "shards": 1}]}
    extended = {"seed": "s", "nodes": base["nodes"] + [{"name": "b", "joined_at": T0 + 1, "num_tokens": 8,
                                                        "shards": 1}]}
    assert parse_cluster_history(base).nodes[0] == parse_cluster_history(extended).nodes[0]
    assert parse_cluster_history(base).generations()[0] == parse_cluster_history(extended).generations()[0]


@pytest.mark.parametrize("text,expected", [
    ("2023-11-14 21:00:00", T0),
    ("2023-11-14T21:00:00Z", T0),
    ("2023-11-14 21:00:00.000000+0000", T0),
    ("2023-11-14 21:00:00.123+0000", T0 + 123),
    ("2023-11-14 21:00:00.5", T0 + 500),
    ("2023-11-14 22:00:00+01:00", T0),
    ("2023-11-14 20:00:00-0100", T0),
    ("2023-11-14 21:00", T0),
    ("2023-11-14", T0 - 21 * 3_600_000),
    ("1969-12-31 23:59:59.999", -1),
    (T0, T0),
    (datetime(2023, 11, 14, 21, 0, 0), T0),
    (datetime(2023, 11, 14, 21, 0, 0, 7000, tzinfo=timezone.utc), T0 + 7),
])
def test_parse_utc_timestamp_ms(text, expected):
    assert parse_utc_timestamp_ms(text) == expected


@pytest.mark.parametrize("text", ["2023-11-14 21:00:00.0001", "2023-13-01 00:00:00", "2023-11-14 24:00:00",
                                  "yesterday", "", True, 1.5, datetime(2023, 1, 1, 0, 0, 0, 1)])
def test_parse_utc_timestamp_ms_rejects(text):
    with pytest.raises(ValueError):
        parse_utc_timestamp_ms(text)


def node(**fields):
    return {"name": "n1", "joined_at": "2023-11-14 21:00:00", "num_tokens": 4, "shards": 2, **fields}


@pytest.mark.parametrize("document,message", [
    ([], "expected a mapping"),
    ({"nodes": []}, "'nodes' must be a non-empty list"),
    ({"nodes": [node()], "ring_delay": 1}, "unknown field"),
    ({"nodes": [node(shard=2)]}, "node 'n1': unknown field"),
    ({"nodes": [{"joined_at": "2023-11-14 21:00:00", "num_tokens": 4, "shards": 2}]}, "node #1: field 'name'"),
    ({"nodes": [node(joined_at=None)]}, "node 'n1': field 'joined_at' is missing"),
    ({"nodes": [node(joined_at="2023-02-30 10:00:00")]}, "node 'n1': field 'joined_at'"),
    ({"nodes": [node(shards=None)]}, "node 'n1': field 'shards' is missing"),
    ({"nodes": [node(shards=0)]}, "node 'n1': field 'shards' must be in"),
    ({"nodes": [node(shards="2")]}, "node 'n1': field 'shards' must be an integer"),
    ({"nodes": [node(ignore_msb=64)]}, "node 'n1': field 'ignore_msb'"),
    ({"nodes": [node(num_tokens=None)]}, "exactly one of 'num_tokens' and 'tokens'"),
    ({"nodes": [node(tokens=[1])]}, "exactly one of 'num_tokens' and 'tokens'"),
    ({"nodes": [node(num_tokens=0)]}, "node 'n1': field 'num_tokens'"),
    ({"nodes": [node(num_tokens=None, tokens=[1, "x"])]}, "node 'n1': field 'tokens'[1]"),
    ({"nodes": [node(num_tokens=None, tokens=[-2**63])]}, "minimum-token sentinel"),
    ({"nodes": [node(num_tokens=None, tokens=[2**63])]}, "field 'tokens'[0]"),
    ({"nodes": [node(num_tokens=None, tokens=[5, 5])]}, "lists token 5 twice"),
    ({"nodes": [node(num_tokens=None, tokens=[1, 2]), node(name="n2", num_tokens=None, tokens=[3, 2])]},
     "node 'n2': token 2 of field 'tokens' is also a token of node 'n1'"),
    ({"nodes": [node(), node(name="n1")]}, "node 'n1': duplicate node name"),
    ({"nodes": [node(), node(name="n2", joined_at="2023-11-14 22:00:00"),
                node(name="n3", joined_at="2023-11-14 22:00:00")]}, "node 'n3': field 'joined_at': node 'n2'"),
    ({"nodes": [node()], "ring_delay_ms": -1}, "ring_delay_ms must be in"),
    ({"nodes": [node()], "seed": [1]}, "seed must be a string"),
])
def test_validation_errors_name_node_and_field(document, message):
    with pytest.raises(ClusterHistoryError) as error:
        parse_cluster_history(document, source="c.yml")
    assert message in str(error.value)
    assert str(error.value).startswith("c.yml")


def test_string_tokens_and_bad_yaml(tmp_path):
    history = parse_cluster_history({"nodes": [node(num_tokens=None, tokens=["-5", "7", 9])]})
    assert history.nodes[0].tokens == (-5, 7, 9)
    bad = tmp_path / "bad.yml"
    bad.write_text("nodes: [\n")
    with pytest.raises(ClusterHistoryError, match="not valid YAML"):
        load_cluster_history(bad)


def test_single_token_cluster_is_one_whole_ring_vnode():
    history = parse_cluster_history(yaml.safe_load(
        "nodes: [{name: solo, joined_at: '2023-11-14 21:00:00', tokens: [42], shards: 3}]"))
    ((ts, entries),) = history.generations()
    assert ts == T0 and len(entries) == 1 and len(entries[0].streams) == 3
    assert [shard_of(decode_stream_id(s).token, 3, 12) for s in entries[0].streams] == [0, 1, 2]
