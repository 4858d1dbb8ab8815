"""CDC stream IDs (``docs/scylla/math.md`` §3) and the CDCPartitioner token (§1.5).

A stream ID is 16 bytes: the big-endian signed token, then a big-endian 64-bit word
``version (bits 0-3) = 1 | vnode index (bits 4-25) | random (bits 26-63)``.
"""
from __future__ import annotations

import hashlib
from typing import NamedTuple, Sequence

import numpy as np

from python_udfs.int64 import as_uint64_bits
from python_udfs.murmur3 import normalize_token
from python_udfs.sharding import MIN_TOKEN, Token

STREAM_ID_VERSION_1 = 1
STREAM_ID_BYTES = 16
VERSION_MASK = 0xF
INDEX_BITS = 22
INDEX_SHIFT = 4
INDEX_MASK = (1 << INDEX_BITS) - 1
RANDOM_BITS = 38
RANDOM_SHIFT = INDEX_SHIFT + INDEX_BITS          # 26, not the 27 of the design note
RANDOM_MASK = (1 << RANDOM_BITS) - 1


class StreamIdFields(NamedTuple):
    token: int          # signed int64 of bytes 0..7
    version: int        # bits 0-3 of the low word
    index: int          # vnode index, bits 4-25
    random: int         # bits 26-63


def _low_word(vnode_index: int, random_bits: int) -> int:
    if not 0 <= vnode_index <= INDEX_MASK:
        raise ValueError(f"vnode index must be in [0, 2^22), got {vnode_index} (ScyllaDB asserts it round-trips)")
    return STREAM_ID_VERSION_1 | (vnode_index << INDEX_SHIFT) | ((random_bits & RANDOM_MASK) << RANDOM_SHIFT)


def stream_id_for(token: int, vnode_index: int, random38: int) -> bytes:
    """``cdc::stream_id(token, index)``: 16 bytes; only the low 38 bits of ``random38`` are used."""
    return token.to_bytes(8, "big", signed=True) + _low_word(vnode_index, random38).to_bytes(8, "big")


def decode_stream_id(stream_id: bytes) -> StreamIdFields:
    """Split a 16-byte stream ID into token, version, vnode index and random bits."""
    if len(stream_id) != STREAM_ID_BYTES:
        raise ValueError(f"a stream id has 16 bytes, got {len(stream_id)}")
    low = int.from_bytes(stream_id[8:], "big")
    return StreamIdFields(
        token=int.from_bytes(stream_id[:8], "big", signed=True),
        version=low & VERSION_MASK,
        index=(low >> INDEX_SHIFT) & INDEX_MASK,
        random=low >> RANDOM_SHIFT,
    )


def is_valid_stream_id(stream_id: bytes) -> bool:
    """What ``stream_id(bytes)`` accepts: 16 bytes with version <= 1 ("Unknown CDC stream id version")."""
    return len(stream_id) == STREAM_ID_BYTES and decode_stream_id(stream_id).version <= STREAM_ID_VERSION_1


def cdc_partitioner_token(key: bytes) -> Token:
    """``com.scylladb.dht.CDCPartitioner`` (§1.5): BE int64 of bytes 0..7 of a 16-byte key
    (normalized like every key token), ``MIN_TOKEN`` for any other length."""
    if len(key) != STREAM_ID_BYTES:
        return MIN_TOKEN
    return normalize_token(int.from_bytes(key[:8], "big", signed=True))


def _random38_item(item: object) -> bytes:
    encoded = item.hex() if isinstance(item, (bytes, bytearray)) else repr(item)
    return type(item).__name__.encode() + b":" + encoded.encode() + b"\x1f"


def _random38_hasher():
    return hashlib.blake2b(digest_size=8, person=b"cdclake-stream")


def random38_for(*stable_inputs: object) -> int:
    """Deterministic stand-in for ScyllaDB's ``mt19937_64`` draw: 38 bits of BLAKE2b over the
    inputs (ints, strings, bytes), so the same inputs always give the same stream ID."""
    digest = _random38_hasher()
    for item in stable_inputs:
        digest.update(_random38_item(item))
    return int.from_bytes(digest.digest(), "big") & RANDOM_MASK


class DeterministicRandom38:
    """``random_source(vnode_index, shard) = random38_for(*prefix, vnode_index, shard)``, with a
    ``batch`` method giving the same values for whole arrays (about 1 us per stream)."""

    def __init__(self, *prefix: object):
        self.prefix = prefix
        self._base = _random38_hasher()
        for item in prefix:
            self._base.update(_random38_item(item))

    def __call__(self, vnode_index: int, shard: int) -> int:
        return random38_for(*self.prefix, int(vnode_index), int(shard))

    def batch(self, vnode_indexes, shards) -> np.ndarray:
        """uint64 array of ``self(vnode_indexes[i], shards[i])``."""
        digests = []
        append = digests.append
        by_index = {}
        for index, shard in zip(np.asarray(vnode_indexes).tolist(), np.asarray(shards).tolist()):
            prefix = by_index.get(index)
            if prefix is None:
                prefix = by_index[index] = self._base.copy()
                prefix.update(b"int:%d\x1f" % index)
            digest = prefix.copy()
            digest.update(b"int:%d\x1f" % shard)
            append(digest.digest())
        words = np.frombuffer(b"".join(digests), dtype=">u8").astype(np.uint64)
        return words & np.uint64(RANDOM_MASK)


# ---------------------------------------------------------------------------------------------
# Vectorized

def stream_id_low_words(vnode_indexes, randoms) -> np.ndarray:
    """Vectorized low word ``1 | index << 4 | (random & (2^38-1)) << 26`` (uint64)."""
    indexes = np.asarray(vnode_indexes, dtype=np.int64)
    if indexes.size and (indexes.min() < 0 or indexes.max() > INDEX_MASK):
        raise ValueError("vnode index must be in [0, 2^22) (ScyllaDB asserts it round-trips)")
    randoms = as_uint64_bits(randoms) & np.uint64(RANDOM_MASK)
    return (np.uint64(STREAM_ID_VERSION_1) | (indexes.astype(np.uint64) << np.uint64(INDEX_SHIFT))
            | (randoms << np.uint64(RANDOM_SHIFT)))


def pack_stream_ids(tokens, low_words) -> bytes:
    """All IDs back to back (16 bytes each): BE token, then BE low word."""
    tokens = np.asarray(tokens, dtype=np.int64)
    packed = np.empty((len(tokens), 2), dtype=">u8")
    packed[:, 0] = tokens.view(np.uint64)
    packed[:, 1] = np.asarray(low_words, dtype=np.uint64)
    return packed.tobytes()


def stream_ids_for(tokens: np.ndarray, vnode_indexes: np.ndarray, randoms: np.ndarray) -> list[bytes]:
    """Vectorized ``stream_id_for`` (randoms as int64, uint64 or Python ints; low 38 bits used)."""
    raw = pack_stream_ids(tokens, stream_id_low_words(vnode_indexes, randoms))
    return [raw[i:i + STREAM_ID_BYTES] for i in range(0, len(raw), STREAM_ID_BYTES)]


def stream_ids_hex(tokens, low_words) -> list[str]:
    """32 lowercase hex digits per ID, from tokens and low words (see ``stream_id_low_words``)."""
    text = pack_stream_ids(tokens, low_words).hex()
    width = 2 * STREAM_ID_BYTES
    return [text[i:i + width] for i in range(0, len(text), width)]


def decode_stream_ids(stream_ids: Sequence[bytes]) -> dict[str, np.ndarray]:
    """Vectorized ``decode_stream_id``: arrays ``token`` (int64), ``version``, ``index`` (int32),
    ``random`` (int64). Every ID must be 16 bytes."""
    if any(len(stream_id) != STREAM_ID_BYTES for stream_id in stream_ids):
        raise ValueError("a stream id has 16 bytes")
    words = np.frombuffer(b"".join(bytes(s) for s in stream_ids), dtype=">u8").reshape(-1, 2)
    low = words[:, 1].astype(np.uint64)
    return {
        "token": words[:, 0].astype(np.uint64).view(np.int64),
        "version": (low & np.uint64(VERSION_MASK)).astype(np.int32),
        "index": ((low >> np.uint64(INDEX_SHIFT)) & np.uint64(INDEX_MASK)).astype(np.int32),
        "random": (low >> np.uint64(RANDOM_SHIFT)).astype(np.int64),
    }
