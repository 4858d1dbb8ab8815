"""CDC generations for vnode keyspaces (``docs/scylla/math.md`` §4 and §5).

``make_generation`` reproduces ``make_new_generation_description`` (``cdc/generation.cc``): one
entry per vnode ``(previous token, token]`` of the sorted ring (entry 0 is the wrap-around
range), and per entry one stream per shard of the node owning the range end, whose token is
the first token of that shard inside the vnode (or the vnode end when the shard owns none).

ScyllaDB draws the stream IDs' 38 random bits from ``mt19937_64``; here they come from a
caller-supplied ``random_source(vnode_index, shard)``, by default a hash of the generation
timestamp, vnode index and shard, so the same inputs always give the same generation. A source
with a ``batch(vnode_indexes, shards) -> uint64 array`` method (``DeterministicRandom38``) is
asked once for all streams.

``make_generation`` is vectorized (numpy, exact uint64 math; a 25,600-vnode x 64-shard ring builds
in seconds); ``make_generation_scalar`` is the one-stream-at-a-time oracle it is tested against.
Also here: the V1 stream cap ``limit_number_of_streams_if_needed`` and ``new_generation_timestamp``
(§4), and the column-oriented ``generation_stream_columns`` (§7 stream-row layout).
"""
from __future__ import annotations

import hashlib
from bisect import bisect_left
from dataclasses import dataclass
from itertools import chain
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from python_udfs.int64 import INT64_MIN, MASK64
from python_udfs.sharding import find_first_token_for_shard, find_first_tokens_for_shards, shard_of
from python_udfs.stream_ids import (
    STREAM_ID_BYTES,
    DeterministicRandom38,
    pack_stream_ids,
    stream_id_for,
    stream_id_low_words,
    stream_ids_hex,
)

ShardingInfo = Callable[[int], "tuple[int, int]"]     # range end token -> (shard_count, ignore_msb)
RandomSource = Callable[[int, int], int]               # (vnode index, shard) -> random bits (low 38 used)

DEFAULT_RING_SEED = "scylla-cdc-lake single node"
DEFAULT_VNODES_PER_NODE = 256
DEFAULT_SHARD_COUNT = 2
DEFAULT_IGNORE_MSB = 12                                 # murmur3_partitioner_ignore_msb_bits default
DEFAULT_RING_DELAY_MS = 30_000                          # ring_delay_ms default (db/config.cc)
GENERATION_LEEWAY_MS = 5_000                            # cdc::get_generation_leeway()
V1_STREAMS_LIMIT = 4 * 1024 * 1024 // STREAM_ID_BYTES  # limit_of_streams_in_topology_description() = 262144


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


def _check_sharding(end: int, info) -> tuple[int, int]:
    shard_count, ignore_msb = (int(x) for x in info)
    if not 1 <= shard_count < (1 << 32) or not 0 <= ignore_msb < 64:
        raise ValueError(f"sharding info of the vnode ending at {end} must be (shard_count >= 1, "
                         f"0 <= ignore_msb < 64), got {tuple(info)}")
    return shard_count, ignore_msb


def random_bits(random_source: RandomSource, vnode_indexes: np.ndarray, shards: np.ndarray) -> np.ndarray:
    """uint64 random words for every (vnode index, shard): one ``batch`` call when the source has
    one, else one call per stream (only the low 38 bits are used)."""
    batch = getattr(random_source, "batch", None)
    if batch is not None:
        return np.asarray(batch(vnode_indexes, shards), dtype=np.uint64)
    values = [random_source(i, j) & MASK64 for i, j in zip(vnode_indexes.tolist(), shards.tolist())]
    return np.array(values, dtype=np.uint64)


def _create_stream_ids(vnode_indexes: np.ndarray, starts: np.ndarray, ends: np.ndarray, counts: np.ndarray,
                       msbs: np.ndarray, random_source: RandomSource) -> list[list[bytes]]:
    """``create_stream_ids`` for many vnodes at once: per vnode, one stream per shard whose token is
    ``find_first_token_for_shard(start, end, shard)`` (§4), in shard order."""
    counts = counts.astype(np.int64)
    total = int(counts.sum())
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(counts)
    owner = np.repeat(np.arange(len(counts)), counts)
    shards = np.arange(total, dtype=np.int64) - offsets[:-1][owner]
    indexes = vnode_indexes.astype(np.int64)[owner]
    tokens = find_first_tokens_for_shards(starts[owner], ends[owner], counts[owner], msbs[owner], shards)
    low = stream_id_low_words(indexes, random_bits(random_source, indexes, shards))
    raw = pack_stream_ids(tokens, low)
    ids = [raw[i:i + STREAM_ID_BYTES] for i in range(0, len(raw), STREAM_ID_BYTES)]
    bounds = offsets.tolist()
    return [ids[bounds[k]:bounds[k + 1]] for k in range(len(counts))]


def make_generation(tokens: Sequence[int], sharding_info: ShardingInfo, random_source: RandomSource) -> list[Entry]:
    """``make_new_generation_description`` over a sorted, distinct token ring (§4), vectorized:
    entry i is the vnode ``(tokens[i-1], tokens[i]]`` (entry 0 wraps), with one stream per shard of
    ``sharding_info(tokens[i])``."""
    _check_ring(tokens)
    ends = np.array(tokens, dtype=np.int64)
    starts = np.roll(ends, 1)                           # index 0 wraps to the last token
    infos = [_check_sharding(end, sharding_info(end)) for end in tokens]
    counts = np.array([n for n, _ in infos], dtype=np.int64)
    msbs = np.array([m for _, m in infos], dtype=np.int64)
    streams = _create_stream_ids(np.arange(len(tokens)), starts, ends, counts, msbs, random_source)
    return [Entry(index, end, m, entry_streams)
            for index, (end, (_, m), entry_streams) in enumerate(zip(tokens, infos, streams))]


def make_generation_scalar(tokens: Sequence[int], sharding_info: ShardingInfo,
                           random_source: RandomSource) -> list[Entry]:
    """The one-stream-at-a-time transcription of ``make_new_generation_description``: the oracle
    ``make_generation`` is tested against."""
    _check_ring(tokens)
    entries = []
    for index, end in enumerate(tokens):
        start = tokens[index - 1]                       # index 0 wraps to the last token
        shard_count, ignore_msb = _check_sharding(end, sharding_info(end))
        streams = [
            stream_id_for(find_first_token_for_shard(start, end, shard_count, ignore_msb, shard),
                          index, random_source(index, shard))
            for shard in range(shard_count)
        ]
        entries.append(Entry(index, end, ignore_msb, streams))
    return entries


def deterministic_random_source(generation_ts_ms: int) -> RandomSource:
    """Random bits of (generation timestamp, vnode index, shard): stable across runs."""
    return DeterministicRandom38(generation_ts_ms)


def new_generation_timestamp(now_ms: int, add_delay: bool, ring_delay_ms: int = DEFAULT_RING_DELAY_MS) -> int:
    """``cdc::new_generation_timestamp`` (§4): ``now`` plus, when ``add_delay`` and ``ring_delay != 0``,
    ``2 * ring_delay + leeway (5 s)``. The first generation (raft topology; gossip since 4.4) uses
    ``add_delay = False``; a bootstrap uses ``True`` (+65 s with the default ring delay)."""
    if add_delay and ring_delay_ms != 0:
        return now_ms + 2 * ring_delay_ms + GENERATION_LEEWAY_MS
    return now_ms


def limited_stream_counts(streams_per_vnode: Sequence[int], limit: int = V1_STREAMS_LIMIT) -> list[int]:
    """Stream count per vnode after ``limit_number_of_streams_if_needed`` (§4, V1 storage only):
    with ``cap = max(limit, #vnodes)``, nothing changes unless the total exceeds ``cap``; then every
    vnode with more than ``cap // #vnodes`` streams is cut down to exactly that many."""
    counts = list(streams_per_vnode)
    if not counts:
        raise ValueError("a generation has at least one vnode")
    cap = max(limit, len(counts))
    if sum(counts) <= cap:
        return counts
    per_vnode = cap // len(counts)
    return [min(count, per_vnode) for count in counts]


def limit_number_of_streams_if_needed(entries: Sequence[Entry], random_source: RandomSource,
                                      limit: int = V1_STREAMS_LIMIT) -> list[Entry]:
    """``limit_number_of_streams_if_needed`` (``cdc/generation.cc``, §4): the V1 description is one
    4 MiB cell, so when the generation has too many streams every vnode above the per-vnode cap
    gets new streams for ``shard_count = cap`` (same ignore_msb and index, fresh random bits).
    Lookup stays consistent because it uses ``len(streams)`` as the shard count."""
    counts = limited_stream_counts([len(e.streams) for e in entries], limit)
    changed = [k for k, (entry, count) in enumerate(zip(entries, counts)) if count != len(entry.streams)]
    if not changed:
        return list(entries)
    ends = np.array([e.token_range_end for e in entries], dtype=np.int64)
    starts = np.roll(ends, 1)
    pick = np.array(changed)
    streams = _create_stream_ids(np.array([entries[k].index for k in changed]), starts[pick], ends[pick],
                                 np.array([counts[k] for k in changed]),
                                 np.array([entries[k].ignore_msb for k in changed]), random_source)
    result = list(entries)
    for k, new_streams in zip(changed, streams):
        entry = entries[k]
        result[k] = Entry(entry.index, entry.token_range_end, entry.ignore_msb, new_streams)
    return result


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


def generation_stream_columns(generation_ts_ms: int, entries: Sequence[Entry]) -> dict:
    """``generation_stream_rows`` column-oriented (fast to turn into Arrow / pandas): numpy arrays
    ``generation_ts_ms`` (int64), ``vnode_index`` (int32), ``token_range_end`` (int64), ``ignore_msb``
    (int32), ``shard`` (int32), and ``stream_id`` as a list of 32-hex-digit strings."""
    counts = np.array([len(e.streams) for e in entries], dtype=np.int64)
    total = int(counts.sum())
    raw = b"".join(stream for entry in entries for stream in entry.streams)
    if len(raw) != STREAM_ID_BYTES * total:
        raise ValueError("every stream id must have 16 bytes")
    offsets = np.zeros(len(entries) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(counts)
    owner = np.repeat(np.arange(len(entries)), counts)
    words = np.frombuffer(raw, dtype=">u8").reshape(-1, 2).astype(np.uint64)
    return {
        "generation_ts_ms": np.full(total, generation_ts_ms, dtype=np.int64),
        "vnode_index": np.array([e.index for e in entries], dtype=np.int32)[owner],
        "token_range_end": np.array([e.token_range_end for e in entries], dtype=np.int64)[owner],
        "ignore_msb": np.array([e.ignore_msb for e in entries], dtype=np.int32)[owner],
        "shard": (np.arange(total, dtype=np.int64) - offsets[:-1][owner]).astype(np.int32),
        "stream_id": stream_ids_hex(words[:, 0].view(np.int64), words[:, 1]),
    }


def generations_stream_columns(generations: Iterable[tuple[int, Sequence[Entry]]]) -> dict:
    """``generation_stream_columns`` of several ``(generation_ts_ms, entries)`` concatenated."""
    parts = [generation_stream_columns(ts, entries) for ts, entries in generations]
    if not parts:
        return generation_stream_columns(0, [])
    return {name: (list(chain.from_iterable(p[name] for p in parts)) if name == "stream_id"
                   else np.concatenate([p[name] for p in parts])) for name in parts[0]}


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
