"""Cassandra/ScyllaDB MurmurHash3_x64_128 and the Murmur3Partitioner token (``docs/scylla/math.md`` §1.3-1.4).

Differs from stock MurmurHash3 in one place: tail bytes are sign-extended (read as ``int8_t``)
before they are XORed in, so a tail byte >= 0x80 sets every bit above its slot. The token is
``h1`` as a signed int64, with ``INT64_MIN`` (the "minimum token" sentinel) mapped to
``INT64_MAX``. Only integer arithmetic modulo 2^64 is used, in Python ints and in numpy uint64.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from python_udfs.int64 import INT64_MAX, INT64_MIN, MASK64, to_signed64

C1 = 0x87C37B91114253D5
C2 = 0x4CF5AD432745937F
FMIX_C1 = 0xFF51AFD7ED558CCD
FMIX_C2 = 0xC4CEB9FE1A85EC53
H1_ADD = 0x52DCE729
H2_ADD = 0x38495AB5


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & MASK64


def _fmix(k: int) -> int:
    k ^= k >> 33
    k = (k * FMIX_C1) & MASK64
    k ^= k >> 33
    k = (k * FMIX_C2) & MASK64
    return k ^ (k >> 33)


def _sign_extended(byte: int) -> int:
    """The quirk: a byte read as int8_t and widened to uint64."""
    return byte | 0xFFFF_FFFF_FFFF_FF00 if byte >= 0x80 else byte


def _mix_k1(k1: int) -> int:
    return (_rotl((k1 * C1) & MASK64, 31) * C2) & MASK64


def _mix_k2(k2: int) -> int:
    return (_rotl((k2 * C2) & MASK64, 33) * C1) & MASK64


def murmur3_x64_128(data: bytes) -> tuple[int, int]:
    """(h1, h2) as unsigned 64-bit integers, Cassandra flavour, seed 0 (§1.3)."""
    length = len(data)
    h1 = h2 = 0
    full_blocks_end = length - length % 16
    for offset in range(0, full_blocks_end, 16):
        k1 = int.from_bytes(data[offset:offset + 8], "little")
        k2 = int.from_bytes(data[offset + 8:offset + 16], "little")
        h1 ^= _mix_k1(k1)
        h1 = (_rotl(h1, 27) + h2) & MASK64
        h1 = (h1 * 5 + H1_ADD) & MASK64
        h2 ^= _mix_k2(k2)
        h2 = (_rotl(h2, 31) + h1) & MASK64
        h2 = (h2 * 5 + H2_ADD) & MASK64
    tail = data[full_blocks_end:]
    if len(tail) > 8:
        k2 = 0
        for i in range(len(tail) - 1, 7, -1):
            k2 ^= (_sign_extended(tail[i]) << (8 * (i - 8))) & MASK64
        h2 ^= _mix_k2(k2)
    if tail:
        k1 = 0
        for i in range(min(len(tail), 8) - 1, -1, -1):
            k1 ^= (_sign_extended(tail[i]) << (8 * i)) & MASK64
        h1 ^= _mix_k1(k1)
    h1 ^= length
    h2 ^= length
    h1 = (h1 + h2) & MASK64
    h2 = (h2 + h1) & MASK64
    h1 = _fmix(h1)
    h2 = _fmix(h2)
    h1 = (h1 + h2) & MASK64
    h2 = (h2 + h1) & MASK64
    return h1, h2


def normalize_token(h1_signed: int) -> int:
    """``dht/token.hh normalize``: INT64_MIN is the minimum-token sentinel, so it becomes INT64_MAX."""
    return INT64_MAX if h1_signed == INT64_MIN else h1_signed


def murmur3_token(data: bytes) -> int:
    """Murmur3Partitioner token of a routing key (§1.4). The empty key gives 0."""
    return normalize_token(to_signed64(murmur3_x64_128(bytes(data))[0]))


# ---------------------------------------------------------------------------------------------
# Vectorized: keys grouped by length, each group hashed as rows of a uint64 matrix.

_U = np.uint64


def _rotl_np(x: np.ndarray, r: int) -> np.ndarray:
    return (x << _U(r)) | (x >> _U(64 - r))


def _fmix_np(k: np.ndarray) -> np.ndarray:
    k = k ^ (k >> _U(33))
    k = k * _U(FMIX_C1)
    k = k ^ (k >> _U(33))
    k = k * _U(FMIX_C2)
    return k ^ (k >> _U(33))


def _h1_of_equal_length_keys(matrix: np.ndarray) -> np.ndarray:
    """h1 (uint64) of every row of a (count, length) uint8 matrix."""
    count, length = matrix.shape
    h1 = np.zeros(count, dtype=np.uint64)
    h2 = np.zeros(count, dtype=np.uint64)
    full_blocks_end = length - length % 16
    if full_blocks_end:
        words = np.ascontiguousarray(matrix[:, :full_blocks_end]).view("<u8").astype(np.uint64)
        for block in range(full_blocks_end // 16):
            k1 = words[:, 2 * block]
            k2 = words[:, 2 * block + 1]
            h1 ^= _rotl_np(k1 * _U(C1), 31) * _U(C2)
            h1 = _rotl_np(h1, 27) + h2
            h1 = h1 * _U(5) + _U(H1_ADD)
            h2 ^= _rotl_np(k2 * _U(C2), 33) * _U(C1)
            h2 = _rotl_np(h2, 31) + h1
            h2 = h2 * _U(5) + _U(H2_ADD)
    tail = matrix[:, full_blocks_end:].view(np.int8).astype(np.int64).view(np.uint64)   # sign-extended
    tail_length = tail.shape[1]
    if tail_length > 8:
        k2 = np.zeros(count, dtype=np.uint64)
        for i in range(tail_length - 1, 7, -1):
            k2 ^= tail[:, i] << _U(8 * (i - 8))
        h2 ^= _rotl_np(k2 * _U(C2), 33) * _U(C1)
    if tail_length:
        k1 = np.zeros(count, dtype=np.uint64)
        for i in range(min(tail_length, 8) - 1, -1, -1):
            k1 ^= tail[:, i] << _U(8 * i)
        h1 ^= _rotl_np(k1 * _U(C1), 31) * _U(C2)
    h1 ^= _U(length)
    h2 ^= _U(length)
    h1 = h1 + h2
    h2 = h2 + h1
    h1 = _fmix_np(h1)
    h2 = _fmix_np(h2)
    return h1 + h2


def murmur3_tokens(keys: Sequence[bytes]) -> np.ndarray:
    """Vectorized ``murmur3_token``: int64 tokens of many routing keys."""
    tokens = np.empty(len(keys), dtype=np.int64)
    positions_by_length: dict[int, list[int]] = defaultdict(list)
    for position, key in enumerate(keys):
        positions_by_length[len(key)].append(position)
    with np.errstate(over="ignore"):
        for length, positions in positions_by_length.items():
            joined = b"".join(bytes(keys[p]) for p in positions)
            matrix = np.frombuffer(joined, dtype=np.uint8).reshape(len(positions), length)
            tokens[positions] = _h1_of_equal_length_keys(matrix).view(np.int64)
    tokens[tokens == INT64_MIN] = INT64_MAX
    return tokens
