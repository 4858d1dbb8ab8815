"""Stream sets of tablets tables (cdclake/generations/tablets.py) against the rules of
docs/scylla/tablets.md: the tablet layout, splits and merges, stream IDs, the sets' timestamps."""
from __future__ import annotations

import re

import pytest

from cdclake.cql.tablets_options import given_tablet_count
from cdclake.generations.tablets import (
    TabletsError,
    first_stream_set,
    merge_last_tokens,
    resized_stream_set,
    split_last_tokens,
    table_tablet_count,
    uniform_last_tokens,
)
from python_udfs.int64 import INT64_MAX
from python_udfs.stream_ids import decode_stream_id

CREATED_MS = 1_700_000_000_000


def last_token_of_compaction_group(bits: int, group: int) -> int:
    """dht::last_token_of_compaction_group, written from its definition (the oracle)."""
    n = (1 << 64) - 1 if group == (1 << bits) - 1 else ((group + 1) << (64 - bits)) - 1
    return n - (1 << 63)


@pytest.mark.parametrize("bits", range(0, 11))
def test_a_power_of_two_count_has_the_compaction_groups_layout(bits):
    assert uniform_last_tokens(1 << bits) == [last_token_of_compaction_group(bits, g) for g in range(1 << bits)]


def test_the_published_example_tokens():
    """docs/features/cdc/cdc-stream-changes.rst: two tablets end at -1 and the ring's end, four
    at 0xbfff.., 0xffff.., 0x3fff.., 0x7fff.. (as signed tokens)."""
    assert uniform_last_tokens(2) == [-1, INT64_MAX]
    assert [t & (2**64 - 1) for t in uniform_last_tokens(4)] == [
        0xBFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x3FFFFFFFFFFFFFFF, 0x7FFFFFFFFFFFFFFF]


@pytest.mark.parametrize("bits", range(0, 10))
def test_a_split_and_a_merge_of_a_power_of_two_layout_give_the_next_one(bits):
    count = 1 << bits
    assert split_last_tokens(uniform_last_tokens(count)) == uniform_last_tokens(2 * count)
    assert merge_last_tokens(uniform_last_tokens(2 * count)) == uniform_last_tokens(count)


def test_a_split_keeps_each_tablets_end_and_cuts_it_at_its_midpoint():
    tokens = [-100, 50, INT64_MAX]
    assert split_last_tokens(tokens) == [(-2**63 + -100) // 2, -100, -25, 50, (50 + INT64_MAX) // 2, INT64_MAX]
    with pytest.raises(TabletsError, match="3 tablets do not merge in pairs"):
        merge_last_tokens(tokens)


@pytest.mark.parametrize("initial, min_tablet_count, default, expected", [
    (None, None, 20, 32),       # the cluster's default, rounded up
    (0, None, 20, 32),          # initial 0: not given
    (3, None, 20, 4),
    (3, 5, 20, 8),              # the largest candidate
    (16, 2, 20, 16),
    (1, None, 20, 1),
])
def test_a_tables_tablet_count(initial, min_tablet_count, default, expected):
    options = {} if min_tablet_count is None else {"min_tablet_count": str(min_tablet_count)}
    assert table_tablet_count(given_tablet_count(initial, options), default) == expected


def test_the_first_set_is_five_seconds_before_the_log_table_with_a_stream_per_tablet():
    first = first_stream_set("seed", "ks.t", CREATED_MS, 4)
    assert first.timestamp_ms == CREATED_MS - 5_000
    assert first.last_tokens == tuple(uniform_last_tokens(4))
    for token, stream_id in zip(first.last_tokens, first.stream_ids):
        fields = decode_stream_id(stream_id)
        assert (fields.token, fields.index, fields.version) == (token, 0, 1)
    assert len(set(first.stream_ids)) == 4
    assert first == first_stream_set("seed", "ks.t", CREATED_MS, 4)             # deterministic
    assert first.stream_ids != first_stream_set("seed", "ks.u", CREATED_MS, 4).stream_ids


def test_a_resize_replaces_every_stream_after_the_ring_delay_and_the_previous_set():
    first = first_stream_set("seed", "ks.t", CREATED_MS, 4)
    split = resized_stream_set("seed", "ks.t", first, CREATED_MS + 60_000, 8)
    assert split.timestamp_ms == CREATED_MS + 60_000 + 2 * 30_000 + 5_000
    assert split.last_tokens == tuple(uniform_last_tokens(8))
    assert not set(split.stream_ids) & set(first.stream_ids)      # the kept last tokens get new IDs too
    # no ring delay: now, but never at or before the previous set
    merged = resized_stream_set("seed", "ks.t", split, split.timestamp_ms - 10, 4, ring_delay_ms=0)
    assert merged.timestamp_ms == split.timestamp_ms + 1
    assert merged.last_tokens == first.last_tokens
    with pytest.raises(TabletsError, match="4 cannot become 16"):
        resized_stream_set("seed", "ks.t", merged, CREATED_MS + 600_000, 16)


# ------------------------------------------------------------------ the cluster history's tablets section

def history(tablets=(), nodes=None):
    from cdclake.generations.cluster_history import parse_cluster_history

    return parse_cluster_history({
        "nodes": nodes or [{"name": "n1", "joined_at": "2023-11-14 21:00:00", "num_tokens": 4, "shards": 2}],
        "tablets": list(tablets)})


def test_the_default_tablet_count_is_ten_per_shard_over_the_replication_factor_rounded_up():
    two_nodes = history(nodes=[{"name": "n1", "joined_at": "2023-11-14 21:00:00", "num_tokens": 4, "shards": 2},
                               {"name": "n2", "joined_at": "2023-11-14 23:00:00", "num_tokens": 4, "shards": 4}])
    assert two_nodes.default_tablet_count(CREATED_MS, 1) == 32             # 1 node, 2 shards: 20 -> 32
    assert two_nodes.default_tablet_count(CREATED_MS + 10**8, 1) == 64     # both: 60 -> 64
    assert two_nodes.default_tablet_count(CREATED_MS + 10**8, 3) == 32     # 20 -> 32


def test_a_tables_stream_sets_follow_its_resizes():
    resized = history([{"table": "ks.t", "at": "2023-11-14 23:00:00.001", "count": 8},
                       {"table": "ks.u", "at": "2023-11-14 23:00:00", "count": 1},
                       {"table": "ks.t", "at": "2023-11-14 23:00:00", "count": 4},
                       {"table": "ks.t", "at": "2023-11-14 21:00:00", "count": 2}])     # before the log table
    sets = resized.stream_sets("ks.t", CREATED_MS, 4)
    assert [(s.timestamp_ms, len(s.stream_ids)) for s in sets] == [
        (CREATED_MS - 5_000, 2),                 # the merge before the log table: it starts with 2 tablets
        (1_700_002_800_000 + 65_000, 4),         # 23:00 + 2 ring delays + 5 s
        (1_700_002_800_000 + 65_001, 8),         # a millisecond later: after the previous set
    ]
    assert [len(s.stream_ids) for s in resized.stream_sets("ks.v", CREATED_MS, 4)] == [4]     # no resize


def test_a_resize_that_is_not_a_split_or_merge_is_named():
    jump = history([{"table": "ks.t", "at": "2023-11-14 23:00:00", "count": 16}])
    with pytest.raises(TabletsError, match="tablets of ks.t at 1700002800000 ms: .* 4 cannot become 16"):
        jump.stream_sets("ks.t", CREATED_MS, 4)


@pytest.mark.parametrize("resize, message", [
    ({"table": "ks.t", "at": "2023-11-14 23:00:00", "count": 6}, "field 'count' must be a power of two, got 6"),
    ({"table": "t", "at": "2023-11-14 23:00:00", "count": 4}, "field 'table' must be keyspace.table, got 't'"),
    ({"table": "ks.t", "count": 4}, "field 'at' is missing"),
    ({"table": "ks.t", "at": "2023-11-14 23:00:00", "count": 4, "why": "load"}, "unknown field(s) ['why']"),
])
def test_a_bad_resize_is_named(resize, message):
    from cdclake.generations.cluster_history import ClusterHistoryError

    with pytest.raises(ClusterHistoryError, match=re.escape(f"tablets #1: {message}")):
        history([resize])


TABLES_HISTORY = """
ring_delay_ms: 0
seed: "rows"
nodes:
  - {name: n1, joined_at: "2023-11-14 21:00:00", num_tokens: 4, shards: 3}
  - {name: n2, joined_at: "2023-11-14 22:00:00", num_tokens: 4, shards: 3}
tablets:
  - {table: ks.sized, at: "2023-11-14 22:20:00", count: 8}
"""


def test_the_input_rows_give_each_cdc_table_of_a_tablets_keyspace_its_sets():
    """cdc_input.tablet_streams from the front door's records: a table whose keyspace gives no
    count gets the cluster's default when its log table was made (10 per shard over RF 2: 6
    shards after n2 joined -> 30 -> 32); one with `min_tablet_count` its own, resized later; a
    table whose log's creation is not known (a DESCRIBE's) starts at the cluster's start; vnodes
    tables and tables without CDC have none."""
    import yaml

    from cdclake.cql import run_script
    from cdclake.generations.cluster_history import parse_cluster_history
    from cdclake.generations.tablet_streams import tablet_stream_rows

    now_us = 1_700_000_000_000_000      # 22:13:20, after n2 joined
    result = run_script("""
        CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'dc1': 2} AND tablets = {'enabled': true};
        CREATE TABLE ks.default (pk int PRIMARY KEY, v int) WITH cdc = {'enabled': true};
        CREATE TABLE ks.sized (pk int PRIMARY KEY) WITH cdc = {'enabled': true} AND tablets = {'min_tablet_count': 3};
        CREATE TABLE ks.plain (pk int PRIMARY KEY);
        CREATE KEYSPACE vn WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};
        CREATE TABLE vn.t (pk int PRIMARY KEY) WITH cdc = {'enabled': true};
    """, now_us=now_us, step_us=1_000_000)
    assert not result.errors, result.errors
    history = parse_cluster_history(yaml.safe_load(TABLES_HISTORY))
    described = [t for t in result.tables if t.table_name == "default"][0]
    tables = result.tables + [type(described)(**{**described.as_row(), "table_name": "described",
                                                  "cdc_log_created_ms": None})]
    rows = tablet_stream_rows(history, tables)
    sets = {}
    for keyspace, table, set_ts_ms, token, stream_id in rows:
        sets.setdefault((table, set_ts_ms), []).append(token)
        assert decode_stream_id(bytes.fromhex(stream_id)).token == token
    created_ms = now_us // 1000 + 1000      # ks.default's CREATE TABLE, the second statement
    assert {key: len(tokens) for key, tokens in sets.items()} == {
        ("default", created_ms - 5000): 32,
        ("sized", created_ms + 1000 - 5000): 4,                # min_tablet_count 3, rounded up
        ("sized", 1_700_000_400_000): 8,        # the split at 22:20: with ring_delay 0, at once
        ("described", 1_699_995_600_000 - 5000): 16,           # at n1's join: 3 shards -> 15 -> 16
    }
