"""CDC stream sets of tables in tablets keyspaces (``docs/scylla/tablets.md``).

A CDC-enabled table of a tablets keyspace has its own sequence of stream sets: one stream per
tablet, whose token is the tablet's last token (index 0, version 1, 38 random bits). The first set
is made when the log table is created (with the table, or by the ``ALTER TABLE`` that enables CDC),
timestamped 5 s before that moment (the generation leeway), in milliseconds; each resize of the
table's tablets (a split doubles their number, a merge halves it) replaces every stream, at
``max(now + 2 * ring_delay + 5 s, previous set + 1 ms)`` (``generation_service::
generate_tablet_resize_update`` in ``cdc/generation.cc``).

ScyllaDB draws the random bits from ``mt19937_64``; here they come from ``DeterministicRandom38``
keyed by the cluster's seed, the table and the set's timestamp, so the same inputs always give the
same streams.
"""
from __future__ import annotations

from dataclasses import dataclass

from cdclake.generations.vnodes import DEFAULT_RING_DELAY_MS, GENERATION_LEEWAY_MS, new_generation_timestamp
from python_udfs.int64 import INT64_MIN, MASK64
from python_udfs.stream_ids import DeterministicRandom38, stream_id_for

UINT64_MAX = MASK64


class TabletsError(ValueError):
    """A tablet count or resize ScyllaDB would not make; the message names the value."""


def bias(unsigned: int) -> int:
    """``dht::token::bias``: an unsigned 64-bit position on the ring (0 at its start) as a token."""
    return unsigned + INT64_MIN


def uniform_last_tokens(count: int) -> list[int]:
    """The last tokens of ``count`` tablets of a new table (``dht::get_uniform_tokens``): tablet
    ``i`` (from 1) ends at ``bias(i * (2^64 - 1) / count)``, the last at the ring's end. For
    ``count = 2^k`` this is ``last_token_of_compaction_group``'s power-of-two layout."""
    if count < 1:
        raise TabletsError(f"a table has at least one tablet, not {count}")
    return [bias(i * UINT64_MAX // count) for i in range(1, count + 1)]


def power_of_two_at_least(value: int) -> int:
    return 1 << max(0, (value - 1).bit_length())


def table_tablet_count(given: int | None, default: int) -> int:
    """The tablet count of a new table: what its keyspace or its options give
    (``cdclake.cql.tablets_options.given_tablet_count``), else ``default`` (what the cluster's shape
    gives) rounded up to a power of two (``make_sizing_plan`` in ``service/tablet_allocator.cc``)."""
    if given is not None and given < 1:
        raise TabletsError(f"a table has at least one tablet, not {given}")
    return given if given is not None else power_of_two_at_least(default)


def midpoint(first: int, last: int) -> int:
    """``dht::token::midpoint``: ``first + (last - first) / 2`` in unsigned 64-bit arithmetic, the
    ring's minimum token being ``INT64_MIN``."""
    low, high = first & MASK64, last & MASK64
    middle = (low + ((high - low) & MASK64) // 2) & MASK64
    return middle - (1 << 64) if middle >= (1 << 63) else middle


def split_last_tokens(last_tokens: list[int]) -> list[int]:
    """Each tablet in two (``split_tablets``): the left one ends at the midpoint of the tablet
    (``tablet_map::get_split_token``; the first tablet starts at the ring's minimum), the right one
    keeps its last token."""
    tokens = []
    previous = INT64_MIN
    for last in last_tokens:
        tokens += [midpoint(previous, last), last]
        previous = last
    return tokens


def merge_last_tokens(last_tokens: list[int]) -> list[int]:
    """Tablets ``2j`` and ``2j + 1`` in one that ends where the second did (``merge_tablets``)."""
    if len(last_tokens) % 2:
        raise TabletsError(f"{len(last_tokens)} tablets do not merge in pairs")
    return last_tokens[1::2]


@dataclass(frozen=True)
class StreamSet:
    """One stream set of a table: its timestamp (ms) and its streams, in token order."""

    timestamp_ms: int
    last_tokens: tuple[int, ...]
    stream_ids: tuple[bytes, ...]


def stream_set(seed: str, table: str, timestamp_ms: int, last_tokens: list[int]) -> StreamSet:
    random = DeterministicRandom38(seed, "tablets", table, timestamp_ms)
    ids = tuple(stream_id_for(token, 0, random(position, 0)) for position, token in enumerate(last_tokens))
    return StreamSet(timestamp_ms, tuple(last_tokens), ids)


def first_stream_set(seed: str, table: str, log_created_ms: int, tablet_count: int) -> StreamSet:
    """The set made with the log table (``on_before_allocate_tablet_map`` in ``cdc/log.cc``)."""
    return stream_set(seed, table, log_created_ms - GENERATION_LEEWAY_MS, uniform_last_tokens(tablet_count))


def resized_stream_set(seed: str, table: str, previous: StreamSet, now_ms: int, new_count: int,
                       ring_delay_ms: int = DEFAULT_RING_DELAY_MS) -> StreamSet:
    """The set a split (twice the tablets) or a merge (half) finalized at ``now_ms`` makes."""
    count = len(previous.last_tokens)
    if new_count == 2 * count:
        tokens = split_last_tokens(list(previous.last_tokens))
    elif 2 * new_count == count:
        tokens = merge_last_tokens(list(previous.last_tokens))
    else:
        raise TabletsError(f"a resize doubles or halves the tablets: {count} cannot become {new_count}")
    timestamp = max(new_generation_timestamp(now_ms, True, ring_delay_ms), previous.timestamp_ms + 1)
    return stream_set(seed, table, timestamp, tokens)
