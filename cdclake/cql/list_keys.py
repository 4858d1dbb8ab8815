"""Timeuuid keys of non-frozen list elements, as ScyllaDB's CQL layer generates them
(docs/scylla/log.md §8; ``cql3/lists.cc`` ``do_append``/``prepender::execute``,
``utils/UUID_gen.hh`` ``get_time_UUID_bytes_from_micros_and_submicros``).

A key is a version-1 timeuuid built from a microsecond time and a *sub-microsecond* sequence
number ``i`` in ``[0, 2**17)``:

* time (100 ns ticks since 1582-10-15) = micros * 10 + ((i >> 14) & 7);
* clock-seq = (i & 0x3fff) xor 0x80 (fixes the signed-byte comparison of the low bits), with the
  RFC 4122 variant bits ``10``;
* node = ``SPOOF_NODE``.

Appends use the statement timestamp T and the next value of a counter shared by the whole
statement or batch (``query_options::next_list_append_seq``). Prepends use the time mirrored
around 2010-01-01 (``2 * REFERENCE - T``, so later prepends sort first) and reserve their values
at the top of the same counter's range, counting down (``next_list_prepend_seq``): a prepend of n
values starts at ``2**17 - (counter + n)``, and its values take consecutive sequences.

ScyllaDB's node is a per-process random "spoof" node. A replay must be deterministic, so this
front door derives it once from a hash: the first 6 bytes of SHA-256 of
``b"scylla-cdc-lake list key spoof node"``, with the multicast bit set (RFC 4122 §4.5, the mark of
a node that is not a real MAC address). Only a key's time and clock-seq carry meaning.
"""
from __future__ import annotations

import hashlib
import uuid

from cdclake.cql.errors import CqlRequestError

SUBMICRO_LIMIT = 1 << 17
REFERENCE_TIME_MICROS = 1262304000 * 1000 * 1000        # 2010-01-01T00:00:00Z
GREGORIAN_OFFSET_TICKS = 0x01B21DD213814000             # 100 ns ticks from 1582-10-15 to 1970-01-01
SPOOF_NODE = int.from_bytes(hashlib.sha256(b"scylla-cdc-lake list key spoof node").digest()[:6], "big") \
    | 0x010000000000

TOO_MANY_VALUES = "Too many list values per single CQL statement or batch"


def list_key(micros: int, submicros: int) -> str:
    """The canonical text of the list key for ``micros`` and sequence ``submicros``."""
    if not 0 <= submicros < SUBMICRO_LIMIT:
        raise CqlRequestError(TOO_MANY_VALUES)
    ticks = micros * 10 + GREGORIAN_OFFSET_TICKS + ((submicros >> 14) & 0b111)
    if not 0 <= ticks < 1 << 60:
        raise CqlRequestError(f"timestamp {micros} is out of the range of a timeuuid")
    msb = ((ticks & 0xFFFFFFFF) << 32) | (((ticks >> 32) & 0xFFFF) << 16) | ((ticks >> 48) & 0x0FFF) | 0x1000
    clock_seq = (submicros & 0x3FFF) ^ 0x80
    lsb = ((clock_seq | 0x8000) << 48) | SPOOF_NODE
    return str(uuid.UUID(int=(msb << 64) | lsb))


def prepend_micros(timestamp: int) -> int:
    """The mirrored time of a prepend at ``timestamp`` (µs)."""
    if timestamp <= REFERENCE_TIME_MICROS:
        raise CqlRequestError("List prepend custom timestamp must be greater than Jan 1 2010 00:00:00")
    return REFERENCE_TIME_MICROS - (timestamp - REFERENCE_TIME_MICROS)
