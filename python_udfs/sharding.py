"""Token -> shard, shard boundaries and "first token of a shard in a range" (``docs/scylla/math.md`` §2).

ScyllaDB's static sharder ("biased-token-round-robin", ``dht/token.cc``): drop the ``ignore_msb``
most significant bits of the unbiased token and take ``floor(u' * shard_count / 2^64)``.
Everything is integer-only; the vectorized forms (``shards_of``, ``find_first_tokens_for_shards``)
use exact uint64 numpy arithmetic and the portable 64x64 multiply-high of §2.1; the scalar
functions are their oracles. ``token_midpoint`` is ``dht::token::midpoint``.

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


def _zero_based_shards(positions: np.ndarray, counts: np.ndarray, msbs: np.ndarray) -> np.ndarray:
    """Vectorized ``zero_based_shard_of`` on uint64 arrays (``msbs`` < 64, ``counts`` < 2^32)."""
    with np.errstate(over="ignore"):
        shifted = positions << msbs
        low = (shifted & _LOW32) * counts
        middle = (shifted >> _U(32)) * counts + (low >> _U(32))
        return middle >> _U(32)


def _shard_start_table(counts: np.ndarray, msbs: np.ndarray, shards: np.ndarray) -> np.ndarray:
    """``shard_starts(count, msb)[shard]`` per element, as uint64 (exact Python-int math per distinct
    (count, msb) pair, gathered with numpy)."""
    keys, inverse = np.unique((counts.astype(np.int64) << 6) | msbs.astype(np.int64), return_inverse=True)
    pairs = [(key >> 6, key & 63) for key in keys.tolist()]
    offsets = np.zeros(len(pairs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([count for count, _ in pairs])
    flat = np.empty(int(offsets[-1]), dtype=np.uint64)
    for i, (count, msb) in enumerate(pairs):
        flat[offsets[i]:offsets[i + 1]] = np.array(shard_starts(count, msb), dtype=np.uint64)
    return flat[offsets[inverse] + shards]


def _first_at_or_after(positions: np.ndarray, counts: np.ndarray, msbs: np.ndarray, shards: np.ndarray,
                       starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For key-token positions ``u``: ``u`` if it belongs to ``shard``, else the position of
    ``token_for_next_shard(u, shard)`` (§2.2). Returns (positions, is_maximum_token)."""
    current = _zero_based_shards(positions, counts, msbs)
    span_shift = (_U(64) - msbs) % _U(64)                 # m == 0: one span, shift unused
    span = np.where(msbs == 0, _U(0), positions >> span_shift)
    ahead = (shards > current).astype(np.uint64)
    k = span + _U(1) - ahead                               # same span if the shard is ahead, else next
    with np.errstate(over="ignore"):
        limit = _U(1) << msbs                              # 2^m spans (m < 64)
        is_max = k >= limit
        boundary = np.where(is_max, _U(0), k << span_shift) | starts
    hit = current == shards
    return np.where(hit, positions, boundary), ~hit & is_max


def find_first_tokens_for_shards(starts_exclusive, ends_inclusive, shard_counts, ignore_msbs, shards) -> np.ndarray:
    """Vectorized ``find_first_token_for_shard`` (§2.3) for int64 KEY tokens (no sentinels): element i
    is the first token of ``shards[i]`` in ``(starts[i], ends[i]]`` (wrapping when start >= end), or
    ``ends[i]`` when that shard owns none. Exact uint64 arithmetic; all arguments broadcast."""
    start, end, counts, msbs, shard = np.broadcast_arrays(
        np.asarray(starts_exclusive, dtype=np.int64), np.asarray(ends_inclusive, dtype=np.int64),
        np.asarray(shard_counts, dtype=np.int64), np.asarray(ignore_msbs, dtype=np.int64),
        np.asarray(shards, dtype=np.int64))
    if start.size == 0:
        return np.empty(start.shape, dtype=np.int64)
    if counts.min() < 1 or counts.max() >= (1 << 32):
        raise ValueError("shard_count must be in [1, 2^32)")
    if msbs.min() < 0 or msbs.max() >= 64:
        raise ValueError("ignore_msb must be in [0, 64)")
    if shard.min() < 0 or (shard >= counts).any():
        raise ValueError("shard must be in [0, shard_count)")
    if (start == INT64_MIN).any() or (end == INT64_MIN).any():
        raise ValueError("INT64_MIN is the minimum-token sentinel, not a key token")
    sign = _U(1 << 63)
    u_start = start.view(np.uint64) ^ sign
    u_end = end.view(np.uint64) ^ sign
    n = counts.astype(np.uint64)
    m = msbs.astype(np.uint64)
    j = shard.astype(np.uint64)
    first_of_shard = _shard_start_table(counts.ravel(), msbs.ravel(), shard.ravel()).reshape(start.shape)
    with np.errstate(over="ignore"):
        after_start = u_start + _U(1)                      # start + 1 (wraps only when start = INT64_MAX)
    cand1, max1 = _first_at_or_after(after_start, n, m, j, first_of_shard)
    cand2, max2 = _first_at_or_after(np.ones_like(u_start), n, m, j, first_of_shard)   # INT64_MIN + 1
    plain = start < end
    start_is_max = start == INT64_MAX
    plain_result = np.where(max1, u_end, np.minimum(cand1, u_end))
    tail_result = np.where(max2, u_end, np.minimum(cand2, u_end))
    wrap_result = np.where(~start_is_max & ~max1, cand1, tail_result)
    return (np.where(plain, plain_result, wrap_result) ^ sign).view(np.int64)


def token_midpoint(t1: int, t2: int) -> int:
    """``dht::token::midpoint`` (newest ``dht/token.cc``): ``s64(u64(t1) + (u64(t2) - u64(t1) mod 2^64) / 2)``;
    when ``t2 < t1`` the range wraps around the ring (vectors ``token_midpoint``)."""
    low = t1 & MASK64
    middle = (low + (((t2 & MASK64) - low) & MASK64) // 2) & MASK64
    return middle - (1 << 64) if middle >> 63 else middle
