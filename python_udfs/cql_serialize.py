"""Python values -> CQL native-protocol value bytes (``docs/scylla/math.md`` §1.1).

Input values are the canonical Python forms produced by ``cql_values.decode_json_value``:

=========================================  ==============================================
CQL type                                   Python value
=========================================  ==============================================
tinyint, smallint, int, bigint, counter,   ``int``
varint
float, double                              ``float`` (a float value is float32-exact)
decimal                                    ``decimal.Decimal`` (finite; its exponent is -scale)
boolean                                    ``bool``
text, varchar, ascii                       ``str``
blob                                       ``bytes``
uuid, timeuuid                             ``uuid.UUID``
inet                                       ``ipaddress.IPv4Address`` / ``IPv6Address``
timestamp                                  ``int`` milliseconds since the epoch
date                                       ``int`` days since the epoch (signed)
time                                       ``int`` nanoseconds since midnight
duration                                   ``Duration(months, days, nanoseconds)``
list / set                                 ``list`` (a set already sorted and distinct)
map                                        ``list`` of ``(key, value)`` (sorted, distinct keys)
tuple                                      ``tuple`` (``None`` = null element)
user-defined type                          ``dict`` field -> value (``None`` = null field)
=========================================  ==============================================

Collections use the protocol v3+ layout: ``int32 count`` then ``int32 length ‖ bytes`` per
element (map: key then value). Tuples and UDTs: ``int32 length ‖ bytes`` per element, ``-1`` for
null. No length prefix is put around the top-level value.
"""
from __future__ import annotations

import math
import struct
from decimal import Decimal
from typing import Any, NamedTuple

from python_udfs.cql_types import (
    TUPLE, UDT, CqlType, UdtRegistry, as_cql_type, udt_fields,
)
from python_udfs.errors import CqlValueError

INT_WIDTH_BYTES = {"tinyint": 1, "smallint": 2, "int": 4, "bigint": 8, "counter": 8,
                   "timestamp": 8, "time": 8}
CANONICAL_NAN_BITS = {4: 0x7FC00000, 8: 0x7FF8000000000000}
DATE_EPOCH_OFFSET = 1 << 31            # date is stored as unsigned days + 2^31
NANOS_PER_DAY = 86_400 * 10**9


class Duration(NamedTuple):
    """A CQL duration; all three parts share one sign (§1.1: three signed vints)."""

    months: int
    days: int
    nanoseconds: int


def serialize_int(value: int, width: int) -> bytes:
    """Big-endian two's complement of ``width`` bytes."""
    return value.to_bytes(width, "big", signed=True)


def serialize_varint(value: int) -> bytes:
    """Minimal big-endian two's complement (``0`` -> ``00``, ``128`` -> ``0080``)."""
    magnitude_bits = (value if value >= 0 else ~value).bit_length()
    return value.to_bytes(magnitude_bits // 8 + 1, "big", signed=True)


def serialize_decimal(value: Decimal) -> bytes:
    """4-byte big-endian scale, then the varint of the unscaled value."""
    sign, digits, exponent = value.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0")
    return serialize_int(-exponent, 4) + serialize_varint(-unscaled if sign else unscaled)


def float_bits(value: float, width: int) -> int:
    """IEEE-754 bits of a float (width 4) or double (width 8); every NaN becomes the quiet NaN."""
    if math.isnan(value):
        return CANONICAL_NAN_BITS[width]
    fmt = ">f" if width == 4 else ">d"
    return int.from_bytes(struct.pack(fmt, value), "big")


def unsigned_vint(value: int) -> bytes:
    """Cassandra/Scylla unsigned vint: leading 1-bits of the first byte count the extra bytes."""
    leading_zeros = 64 - (value | 1).bit_length()
    size = (639 - leading_zeros * 9) >> 6
    if size == 1:
        return bytes([value])
    extra_bytes = size - 1
    encoded = bytearray(value.to_bytes(size, "big"))
    encoded[0] |= (~(0xFF >> extra_bytes)) & 0xFF
    return bytes(encoded)


def signed_vint(value: int) -> bytes:
    """Zig-zag encode a signed 64-bit integer, then write it as an unsigned vint."""
    return unsigned_vint(value * 2 if value >= 0 else -value * 2 - 1)


def serialize_duration(value: Duration) -> bytes:
    return signed_vint(value.months) + signed_vint(value.days) + signed_vint(value.nanoseconds)


def _framed(element: bytes | None) -> bytes:
    """``int32 length ‖ bytes``; ``-1`` and no bytes for null."""
    if element is None:
        return b"\xff\xff\xff\xff"
    return len(element).to_bytes(4, "big") + element


def serialize_value(value: Any, cql_type: CqlType | str, udts: UdtRegistry | None = None) -> bytes:
    """Serialize a canonical Python value of ``cql_type`` exactly as the CQL protocol does."""
    cql_type = as_cql_type(cql_type)
    name = cql_type.name
    try:
        if name in INT_WIDTH_BYTES:
            return serialize_int(value, INT_WIDTH_BYTES[name])
        if name == "varint":
            return serialize_varint(value)
        if name in ("text", "varchar", "ascii", "empty"):
            return value.encode("utf-8")
        if name == "blob":
            return bytes(value)
        if name == "boolean":
            return b"\x01" if value else b"\x00"
        if name in ("uuid", "timeuuid"):
            return value.bytes
        if name == "inet":
            return value.packed
        if name == "date":
            return (value + DATE_EPOCH_OFFSET).to_bytes(4, "big")
        if name == "float":
            return float_bits(value, 4).to_bytes(4, "big")
        if name == "double":
            return float_bits(value, 8).to_bytes(8, "big")
        if name == "decimal":
            return serialize_decimal(value)
        if name == "duration":
            return serialize_duration(value)
    except (OverflowError, AttributeError, TypeError, UnicodeEncodeError) as error:
        raise CqlValueError(f"cannot serialize {value!r} as {cql_type}: {error}") from None
    if name in ("list", "set"):
        (element_type,) = cql_type.params
        return len(value).to_bytes(4, "big") + b"".join(
            _framed(serialize_value(element, element_type, udts)) for element in value)
    if name == "map":
        key_type, value_type = cql_type.params
        return len(value).to_bytes(4, "big") + b"".join(
            _framed(serialize_value(key, key_type, udts)) + _framed(serialize_value(item, value_type, udts))
            for key, item in value)
    if name == TUPLE:
        return b"".join(
            _framed(None if element is None else serialize_value(element, element_type, udts))
            for element, element_type in zip(value, cql_type.params))
    if name == UDT:
        return b"".join(
            _framed(None if value.get(field) is None else serialize_value(value[field], field_type, udts))
            for field, field_type in udt_fields(cql_type, udts))
    raise CqlValueError(f"cannot serialize values of type {cql_type}")
