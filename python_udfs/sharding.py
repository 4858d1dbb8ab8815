"""Token -> shard, shard boundaries and "first token of a shard in a range" (``scylla-math.md`` §2).

ScyllaDB's static sharder ("biased-token-round-robin", ``dht/token.cc``): drop the ``ignore_msb``
most significant bits of the unbiased token and take ``floor(u' * shard_count / 2^64)``.
Everything is integer-only; the vectorized form uses the portable 64x64 multiply-high of §2.1.

Tokens are ``int`` key tokens or the sentinels ``MIN_TOKEN`` (before all keys) and ``MAX_TOKEN``
(after all keys). Token order: ``MIN_TOKEN`` < every key token (signed) < ``MAX_TOKEN``.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Union

import numpy as np

from python_udfs.int64 import INT64_MAX, INT64_MIN, MASK64


class SentinelToken:
    """``minimum_token()`` / ``maximum_token()`` of ``dht/token.hh`` (§1.4); not key tokens."""

    __slots__ = ("name", "rank")

    def __init__(self, name: str, rank: int):
        self.name = name
        self.rank = rank

    def __repr__(self) -> str:
        return self.name


MIN_TOKEN = SentinelToken("minimum_token", 0)
MAX_TOKEN = SentinelToken("maximum_token", 2)
Token = Union[int, SentinelToken]


def token_order(token: Token) -> tuple[int, int]:
    """Sort key giving ScyllaDB's token order (minimum < keys < maximum)."""
    return (token.rank, 0) if isinstance(token, SentinelToken) else (1, token)


def to_int64(token: Token) -> int:
    """``token::to_int64``: both sentinels read as INT64_MIN."""
    return INT64_MIN if isinstance(token, SentinelToken) else token


def unbias(token: int) -> int:
    """Signed token -> unsigned ring position (``u64(t) + 2^63``), order-preserving."""
    return token + (1 << 63)


def bias(position: int) -> int:
    """Unsigned ring position -> signed token (inverse of ``unbias``)."""
    return position - (1 << 63)


def _check_sharder(shard_count: int, ignore_msb: int) -> None:
    if not 1 <= shard_count < (1 << 32):
        raise ValueError(f"shard_count must be in [1, 2^32), got {shard_count}")
    if not 0 <= ignore_msb < 64:
        raise ValueError(f"ignore_msb must be in [0, 64), got {ignore_msb}")


def zero_based_shard_of(position: int, shard_count: int, ignore_msb: int) -> int:
    """``floor(((position << ignore_msb) mod 2^64) * shard_count / 2^64)``."""
    return (((position << ignore_msb) & MASK64) * shard_count) >> 64


def shard_of(token: Token, shard_count: int, ignore_msb: int) -> int:
    """Shard owning ``token`` on a node with ``shard_count`` shards (§2.1)."""
    _check_sharder(shard_count, ignore_msb)
    if token is MIN_TOKEN:
        return 0
    if token is MAX_TOKEN:
        return shard_count - 1
    return zero_based_shard_of(unbias(token), shard_count, ignore_msb)


@lru_cache(maxsize=1024)
def shard_starts(shard_count: int, ignore_msb: int) -> tuple[int, ...]:
    """First unbiased position of every shard inside one span (§2.2): ``ceil(s * 2^(64-m) / n)``."""
    _check_sharder(shard_count, ignore_msb)
    span = 1 << (64 - ignore_msb)
    return tuple(-((-shard * span) // shard_count) for shard in range(shard_count))


def token_for_next_shard(token: Token, shard_count: int, ignore_msb: int, shard: int, spans: int = 1) -> Token:
    """Smallest shard-boundary token greater than ``token`` that starts ``shard`` (§2.2);
    ``MAX_TOKEN`` when there is none."""
    _check_sharder(shard_count, ignore_msb)
    if token is MAX_TOKEN:
        return MAX_TOKEN
    position = 0 if token is MIN_TOKEN else unbias(token)
    current_shard = zero_based_shard_of(position, shard_count, ignore_msb)
    starts = shard_starts(shard_count, ignore_msb)
    if ignore_msb == 0:
        if spans > 1 or shard <= current_shard:
            return MAX_TOKEN
        return bias(starts[shard])
    span_index = (position >> (64 - ignore_msb)) + spans - (1 if shard > current_shard else 0)
    if span_index >= (1 << ignore_msb):
        return MAX_TOKEN
    return bias((span_index << (64 - ignore_msb)) | starts[shard])


def _first_in_plain_range(start: Token, end: Token, shard_count: int, ignore_msb: int, shard: int) -> Token:
    """First token of ``shard`` in ``(start, end]`` with ``start < end``; ``end`` if none."""
    if to_int64(start) == INT64_MAX:            # (INT64_MAX, end] holds no key token
        return end
    candidate: Token = to_int64(start) + 1
    if shard_of(candidate, shard_count, ignore_msb) != shard:
        candidate = token_for_next_shard(candidate, shard_count, ignore_msb, shard)
    return min(candidate, end, key=token_order)


def find_first_token_for_shard(start: Token, end: Token, shard_count: int, ignore_msb: int, shard: int) -> Token:
    """First token met walking the ring from ``start`` (exclusive) to ``end`` (inclusive) that
    belongs to ``shard``, or ``end`` if none (§2.3). ``start >= end`` wraps around the ring,
    so ``start == end`` is the whole ring."""
    if not 0 <= shard < shard_count:
        raise ValueError(f"shard must be in [0, {shard_count}), got {shard}")
    if token_order(start) < token_order(end):
        return _first_in_plain_range(start, end, shard_count, ignore_msb, shard)
    if to_int64(start) != INT64_MAX:
        found = _first_in_plain_range(start, MAX_TOKEN, shard_count, ignore_msb, shard)
        if found is not MAX_TOKEN:
            return found
    return _first_in_plain_range(MIN_TOKEN, end, shard_count, ignore_msb, shard)


# ---------------------------------------------------------------------------------------------
# Vectorized

_U = np.uint64
_LOW32 = _U(0xFFFFFFFF)


def shards_of(tokens: np.ndarray, shard_count, ignore_msb) -> np.ndarray:
    """Vectorized ``shard_of`` for int64 key tokens; ``shard_count``/``ignore_msb`` are scalars or
    arrays of the same length. Uses the portable multiply-high (exact for shard_count < 2^32)."""
    tokens = np.asarray(tokens, dtype=np.int64)
    counts = np.broadcast_to(np.asarray(shard_count, dtype=np.int64), tokens.shape)
    msbs = np.broadcast_to(np.asarray(ignore_msb, dtype=np.int64), tokens.shape)
    if counts.size and (counts.min() < 1 or counts.max() >= (1 << 32)):
        raise ValueError("shard_count must be in [1, 2^32)")
    if msbs.size and (msbs.min() < 0 or msbs.max() >= 64):
        raise ValueError("ignore_msb must be in [0, 64)")
    with np.errstate(over="ignore"):
        position = tokens.view(np.uint64) ^ _U(1 << 63)
        shifted = position << msbs.astype(np.uint64)
        n = counts.astype(np.uint64)
        low = (shifted & _LOW32) * n
        middle = (shifted >> _U(32)) * n + (low >> _U(32))
        return (middle >> _U(32)).astype(np.int32)
