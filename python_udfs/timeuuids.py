"""``cdc$time`` timeuuids (``docs/scylla/log.md`` §6.1).

``t60 = ts_us * 10 + 0x01B21DD213814000`` (100-ns ticks since 1582-10-15), laid out as a
version-1 UUID; the low 64 bits are random with the RFC-4122 variant bits ``10``.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from python_udfs.int64 import MASK64, as_uint64_bits

GREGORIAN_TO_UNIX_TICKS = 0x01B21DD213814000      # 100-ns ticks from 1582-10-15 to 1970-01-01
MAX_T60 = (1 << 60) - 1
MIN_MICROS = -(GREGORIAN_TO_UNIX_TICKS // 10)                 # 1582-10-15: tick 0
MAX_MICROS = (MAX_T60 - GREGORIAN_TO_UNIX_TICKS) // 10         # the last whole microsecond of 60 bits
VERSION_1_BITS = 0x1000
VARIANT_CLEAR_MASK = 0x3FFF_FFFF_FFFF_FFFF
VARIANT_RFC4122 = 0x8000_0000_0000_0000


def _msb_from_ticks(t60: int) -> int:
    return ((t60 & 0xFFFFFFFF) << 32) | (((t60 >> 32) & 0xFFFF) << 16) | VERSION_1_BITS | ((t60 >> 48) & 0x0FFF)


def _format_uuid(msb: int, lsb: int) -> str:
    text = f"{msb:016x}{lsb:016x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def timeuuid_from_micros(ts_us: int, random64: int) -> str:
    """``generate_timeuuid``: version-1 UUID of ``ts_us`` whose clock-seq/node bits come from
    ``random64`` (any 64-bit value, signed or not; the top two bits become the variant)."""
    t60 = ts_us * 10 + GREGORIAN_TO_UNIX_TICKS
    if not 0 <= t60 <= MAX_T60:
        raise ValueError(f"timestamp {ts_us} µs is outside the timeuuid range")
    lsb = ((random64 & MASK64) & VARIANT_CLEAR_MASK) | VARIANT_RFC4122
    return _format_uuid(_msb_from_ticks(t60), lsb)


def _ticks_from_msb(msb: int) -> int:
    return ((msb & 0x0FFF) << 48) | (((msb >> 16) & 0xFFFF) << 32) | (msb >> 32)


def micros_from_timeuuid(timeuuid: str) -> int:
    """``UUID_gen::micros_timestamp``: microseconds since the epoch embedded in a version-1 UUID
    (sub-microsecond ticks truncated toward zero, as C++ integer division does)."""
    hex_digits = timeuuid.replace("-", "")
    if len(hex_digits) != 32:
        raise ValueError(f"not a UUID: {timeuuid!r}")
    msb = int(hex_digits[:16], 16)
    if (msb >> 12) & 0xF != 1:
        raise ValueError(f"not a version 1 (time-based) UUID: {timeuuid!r}")
    ticks = _ticks_from_msb(msb) - GREGORIAN_TO_UNIX_TICKS
    return ticks // 10 if ticks >= 0 else -((-ticks) // 10)


# ---------------------------------------------------------------------------------------------
# Vectorized

_U = np.uint64


def timeuuids_from_micros(ts_us: np.ndarray, random64: np.ndarray) -> list[str]:
    """Vectorized ``timeuuid_from_micros`` (int64 timestamps; random64 as int64 or uint64)."""
    ts = np.asarray(ts_us, dtype=np.int64)
    if ts.size and (ts.min() < MIN_MICROS or ts.max() > MAX_MICROS):
        raise ValueError("timestamp outside the timeuuid range")
    with np.errstate(over="ignore"):
        t60 = (ts * 10 + GREGORIAN_TO_UNIX_TICKS).view(np.uint64)
        msb = ((t60 & _U(0xFFFFFFFF)) << _U(32)) | (((t60 >> _U(32)) & _U(0xFFFF)) << _U(16)) \
            | _U(VERSION_1_BITS) | ((t60 >> _U(48)) & _U(0x0FFF))
        lsb = (as_uint64_bits(random64) & _U(VARIANT_CLEAR_MASK)) | _U(VARIANT_RFC4122)
    return [_format_uuid(int(m), int(l)) for m, l in zip(msb.tolist(), lsb.tolist())]


def micros_from_timeuuids(timeuuids: Sequence[str]) -> np.ndarray:
    """Vectorized ``micros_from_timeuuid``: int64 microseconds."""
    return np.array([micros_from_timeuuid(u) for u in timeuuids], dtype=np.int64)
