"""CQL serialized form of values, used only to reconcile two cells with equal timestamps.

ScyllaDB's ``compare_atomic_cell_for_merge`` keeps, among two live cells with the same
timestamp, the one whose *serialized value* is greater as unsigned bytes (scylla-log.md §3:
"the mutation keeps the winner"). The layout is the native protocol v4 one: fixed-width
big-endian integers, IEEE floats, ``scale ‖ varint`` decimals, ``count ‖ (len ‖ bytes)*``
collections, ``(len | -1 ‖ bytes)*`` tuples and UDTs, signed-vint durations.
"""
from __future__ import annotations

import datetime as dt
import ipaddress
import math
import re
import struct
import uuid as uuid_module
from decimal import Decimal
from typing import Any

from cdclake.cql import types as t
from cdclake.cql.temporal import DATE_EPOCH_OFFSET, NANOS_PER_UNIT

_FIXED_WIDTH = {"tinyint": 1, "smallint": 2, "int": 4, "bigint": 8, "counter": 8, "timestamp": 8, "time": 8}
_DURATION_PART = re.compile(r"(\d+)(mo|us|ns|ms|y|d|h|m|s)")


def serialize(cql_type: t.CqlType, value: Any) -> bytes:
    if isinstance(cql_type, t.NativeType):
        return _native(cql_type.name, value)
    if isinstance(cql_type, (t.ListType, t.VectorType)):
        return _collection([serialize(cql_type.element, item) for item in value["list"]])
    if isinstance(cql_type, t.SetType):
        return _collection([serialize(cql_type.element, item) for item in value["set"]])
    if isinstance(cql_type, t.MapType):
        parts = []
        for key, item in value["map"]:
            parts += [serialize(cql_type.key, key), serialize(cql_type.value, item)]
        return struct.pack(">i", len(value["map"])) + b"".join(_with_length(part) for part in parts)
    if isinstance(cql_type, t.TupleType):
        return _nullable_items(cql_type.items, value["tuple"])
    if isinstance(cql_type, t.UserType):
        fields = value["udt"]
        return _nullable_items(cql_type.field_types, [fields.get(name) for name in cql_type.field_names])
    raise TypeError(f"cannot serialize {cql_type}")


def _with_length(data: bytes) -> bytes:
    return struct.pack(">i", len(data)) + data


def _collection(elements: list[bytes]) -> bytes:
    return struct.pack(">i", len(elements)) + b"".join(_with_length(element) for element in elements)


def _nullable_items(item_types, items) -> bytes:
    out = []
    for item_type, item in zip(item_types, items):
        out.append(struct.pack(">i", -1) if item is None else _with_length(serialize(item_type, item)))
    return b"".join(out)


def _native(name: str, value: Any) -> bytes:
    if name in _FIXED_WIDTH:
        return int(value).to_bytes(_FIXED_WIDTH[name], "big", signed=True)
    if name == "varint":
        return _varint(value)
    if name == "decimal":
        sign, digits, exponent = Decimal(value).as_tuple()
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        return struct.pack(">i", -exponent) + _varint(unscaled)
    if name in ("float", "double"):
        number = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(value, value)
        if math.isnan(number):
            return b"\x7f\xc0\x00\x00" if name == "float" else b"\x7f\xf8\x00\x00\x00\x00\x00\x00"
        return struct.pack(">f" if name == "float" else ">d", number)
    if name == "boolean":
        return b"\x01" if value else b"\x00"
    if name in ("text", "ascii"):
        return value.encode("utf-8", "surrogatepass")
    if name == "blob":
        return bytes.fromhex(value[2:])
    if name in ("uuid", "timeuuid"):
        return uuid_module.UUID(value).bytes
    if name == "inet":
        return ipaddress.ip_address(value).packed
    if name == "date":
        days = (dt.date.fromisoformat(value) - dt.date(1970, 1, 1)).days
        return (days + DATE_EPOCH_OFFSET).to_bytes(4, "big")
    if name == "duration":
        return b"".join(_signed_vint(part) for part in _duration_parts(value))
    raise TypeError(f"cannot serialize type {name}")


def _varint(number: int) -> bytes:
    return number.to_bytes((number.bit_length() + 8) // 8, "big", signed=True)


def _duration_parts(text: str) -> tuple[int, int, int]:
    sign = -1 if text.startswith("-") else 1
    months = days = nanos = 0
    for amount, unit in _DURATION_PART.findall(text.lstrip("-")):
        amount = int(amount)
        if unit == "y":
            months += 12 * amount
        elif unit == "mo":
            months += amount
        elif unit == "d":
            days += amount
        else:
            nanos += amount * NANOS_PER_UNIT[unit]
    return sign * months, sign * days, sign * nanos


def _signed_vint(number: int) -> bytes:
    zigzag = (number << 1) ^ (number >> 63)
    zigzag &= (1 << 64) - 1
    magnitude = 64 - (zigzag | 1).bit_length()          # leading zeros of a 64-bit value
    size = (639 - magnitude * 9) >> 6
    if size == 1:
        return bytes([zigzag])
    extra = size - 1
    encoded = bytearray(zigzag.to_bytes(size, "big") if size < 9 else b"\xff" + zigzag.to_bytes(8, "big"))
    if size < 9:
        encoded[0] |= (~(0xFF >> extra)) & 0xFF
    return bytes(encoded)
