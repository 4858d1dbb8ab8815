"""CDC generations for vnode keyspaces (``scylla-math.md`` §4 and §5).

``make_generation`` reproduces ``make_new_generation_description`` (``cdc/generation.cc``): one
entry per vnode ``(previous token, token]`` of the sorted ring (entry 0 is the wrap-around
range), and per entry one stream per shard of the node owning the range end, whose token is
the first token of that shard inside the vnode (or the vnode end when the shard owns none).

ScyllaDB draws the stream IDs' 38 random bits from ``mt19937_64``; here they come from a
caller-supplied ``random_source(vnode_index, shard)``, by default a hash of the generation
timestamp, vnode index and shard, so the same inputs always give the same generation.
"""
from __future__ import annotations

import hashlib
from bisect import bisect_left
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from python_udfs.int64 import INT64_MIN
from python_udfs.sharding import find_first_token_for_shard, shard_of
from python_udfs.stream_ids import random38_for, stream_id_for

ShardingInfo = Callable[[int], "tuple[int, int]"]     # range end token -> (shard_count, ignore_msb)
RandomSource = Callable[[int, int], int]               # (vnode index, shard) -> random bits (low 38 used)

DEFAULT_RING_SEED = "scylla-cdc-lake single node"
DEFAULT_VNODES_PER_NODE = 256
DEFAULT_SHARD_COUNT = 2
DEFAULT_IGNORE_MSB = 12                                 # murmur3_partitioner_ignore_msb_bits default


@dataclass(frozen=True)
class Entry:
    """One ``token_range_description``: the vnode ``(previous end, token_range_end]``."""

    index: int
    token_range_end: int
    ignore_msb: int
    streams: list[bytes]        # streams[shard]


def _check_ring(tokens: Sequence[int]) -> None:
    if not tokens:
        raise ValueError("a CDC generation needs at least one token (ScyllaDB: internal error)")
    if any(not isinstance(t, int) or t == INT64_MIN for t in tokens):
        raise ValueError("ring tokens must be int64 key tokens (INT64_MIN is the minimum-token sentinel)")
    if any(a >= b for a, b in zip(tokens, tokens[1:])):
        raise ValueError("ring tokens must be sorted ascending and distinct")


def make_generation(tokens: Sequence[int], sharding_info: ShardingInfo, random_source: RandomSource) -> list[Entry]:
    """``make_new_generation_description`` over a sorted, distinct token ring (§4)."""
    _check_ring(tokens)
    entries = []
    for index, end in enumerate(tokens):
        start = tokens[index - 1]                       # index 0 wraps to the last token
        shard_count, ignore_msb = sharding_info(end)
        streams = [
            stream_id_for(find_first_token_for_shard(start, end, shard_count, ignore_msb, shard),
                          index, random_source(index, shard))
            for shard in range(shard_count)
        ]
        entries.append(Entry(index, end, ignore_msb, streams))
    return entries


def deterministic_random_source(generation_ts_ms: int) -> RandomSource:
    """Random bits of (generation timestamp, vnode index, shard): stable across runs."""
    return lambda vnode_index, shard: random38_for(generation_ts_ms, vnode_index, shard)


def ring_tokens_by_node(num_nodes: int, vnodes_per_node: int, seed: object) -> list[list[int]]:
    """Distinct random int64 key tokens per node, drawn deterministically from ``seed``."""
    drawn: set[int] = set()
    by_node: list[list[int]] = []
    counter = 0
    for _ in range(num_nodes):
        node_tokens: list[int] = []
        while len(node_tokens) < vnodes_per_node:
            digest = hashlib.blake2b(f"{seed!r}/{counter}".encode(), digest_size=8, person=b"cdclake-ring").digest()
            counter += 1
            token = int.from_bytes(digest, "big", signed=True)
            if token != INT64_MIN and token not in drawn:
                drawn.add(token)
                node_tokens.append(token)
        by_node.append(sorted(node_tokens))
    return by_node


def ring_tokens(num_nodes: int, vnodes_per_node: int, seed: object) -> list[int]:
    """All tokens of ``ring_tokens_by_node``, sorted ascending."""
    return sorted(token for node in ring_tokens_by_node(num_nodes, vnodes_per_node, seed) for token in node)


def sharding_info_by_owner(tokens_by_node: Sequence[Sequence[int]],
                           sharding_by_node: Sequence[tuple[int, int]]) -> ShardingInfo:
    """``sharding_info`` for a ring: the (shard_count, ignore_msb) of the node owning each token."""
    owner = {token: node for node, tokens in enumerate(tokens_by_node) for token in tokens}
    return lambda end_token: tuple(sharding_by_node[owner[end_token]])


def default_single_node_generation(generation_ts_ms: int) -> list[Entry]:
    """One node, 256 vnodes, 2 shards, ignore_msb 12; its tokens never change, the random bits
    depend on the generation timestamp."""
    tokens = ring_tokens(1, DEFAULT_VNODES_PER_NODE, DEFAULT_RING_SEED)
    return make_generation(tokens, lambda _end: (DEFAULT_SHARD_COUNT, DEFAULT_IGNORE_MSB),
                           deterministic_random_source(generation_ts_ms))


def generation_stream_rows(generation_ts_ms: int, entries: Sequence[Entry]) -> Iterator[dict]:
    """One row per (vnode, shard) stream, stream ID as 32 lowercase hex digits."""
    for entry in entries:
        for shard, stream_id in enumerate(entry.streams):
            yield {
                "generation_ts_ms": generation_ts_ms,
                "vnode_index": entry.index,
                "token_range_end": entry.token_range_end,
                "ignore_msb": entry.ignore_msb,
                "shard": shard,
                "stream_id": stream_id.hex(),
            }


def locate_stream(entries: Sequence[Entry], token: int) -> tuple[int, int]:
    """(position in ``entries``, shard) of the stream a write with key token ``token`` goes to (§5)."""
    if not entries:
        raise ValueError("get_stream: entries empty")
    ends = [entry.token_range_end for entry in entries]
    position = bisect_left(ends, token)                  # first end >= token; ranges are (prev, end]
    if position == len(entries):                         # beyond the last end: wraps to entry 0
        position = 0
    entry = entries[position]
    return position, shard_of(token, len(entry.streams), entry.ignore_msb)


def lookup_stream(entries: Sequence[Entry], token: int) -> bytes:
    """``cdc::metadata get_stream(entries, tok)``: the stream ID for a key token (§5)."""
    entry_index, shard = locate_stream(entries, token)
    return entries[entry_index].streams[shard]
