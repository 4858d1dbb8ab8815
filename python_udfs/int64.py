"""Signed/unsigned 64-bit helpers shared by the token, stream-id and timeuuid modules."""
from __future__ import annotations

import numpy as np

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
MASK64 = (1 << 64) - 1


def to_signed64(value: int) -> int:
    """Reinterpret the low 64 bits of ``value`` as two's complement (``s64``)."""
    value &= MASK64
    return value - (1 << 64) if value >> 63 else value


def as_uint64_bits(values) -> np.ndarray:
    """64-bit patterns of int64, uint64 or Python-int values as a uint64 array (``u64``)."""
    array = np.asarray(values)
    if array.dtype == np.uint64:
        return array
    if array.dtype == object:
        return np.array([int(v) & MASK64 for v in array], dtype=np.uint64)
    return array.astype(np.int64).view(np.uint64)
