"""Our JSON value encoding -> canonical Python values -> CQL bytes (``docs/scylla/math.md`` §1.1).

The JSON value encoding is the project's public input contract:

* int, bigint, smallint, tinyint, varint, counter: JSON integer
* float, double: JSON number, or the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``
* decimal: JSON number, read exactly (``1.50`` keeps scale 2)
* boolean: ``true``/``false``; text, varchar, ascii: string; blob: ``"0x"`` + hex
* uuid, timeuuid: canonical string; inet: string
* timestamp: integer ms since the epoch; date: ``"YYYY-MM-DD"``; time: integer ns since midnight
* duration: ``"1mo2d3h4m5s6ms7us8ns"`` (optional leading ``-``; units y mo w d h m s ms us µs ns)
* ``{"list": [...]}``, ``{"set": [...]}``, ``{"map": [[k, v], ...]}``, ``{"tuple": [...]}``,
  ``{"udt": {"field": value_or_null, ...}}``

Decoding validates ranges and canonicalises like ScyllaDB does when it builds a frozen value:
set elements and map keys are sorted by the CQL order of their type and de-duplicated (the
first occurrence wins, as ``std::set::emplace`` in ``cql3/expr/expression.cc``), every float
literal is rounded once, to nearest-even, to float32 or float64.
"""
from __future__ import annotations

import ipaddress
import json
import math
import re
import struct
import uuid
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable

from python_udfs.cql_serialize import (
    DATE_EPOCH_OFFSET, NANOS_PER_DAY, Duration, serialize_value,
)
from python_udfs.cql_types import TUPLE, UDT, CqlType, UdtRegistry, as_cql_type, udt_fields
from python_udfs.errors import CqlValueError
from python_udfs.int64 import INT64_MAX
from python_udfs.ordering import order_key

__all__ = [
    "CqlValueError", "Duration", "decode_json_value", "describe_json", "loads_json",
    "serialize_json_value", "serialize_value",
]

INT_RANGES = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64, "counter": 64, "timestamp": 64}
SPECIAL_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
FLOAT32_MAX_MAGNITUDE_BITS = 0x7F7FFFFF
FLOAT32_OVERFLOW_THRESHOLD = Fraction(2**128 - 2**103)     # FLT_MAX + half an ulp rounds to inf
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
UUID_TEXT = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
BLOB_TEXT = re.compile(r"^0[xX](?:[0-9a-fA-F]{2})*$")
DATE_TEXT = re.compile(r"^([+-]?\d+)-(\d{2})-(\d{2})$")
DURATION_UNIT = re.compile(r"(\d+)(y|mo|w|d|h|ms|m|s|us|µs|ns)", re.IGNORECASE)
DURATION_UNITS = ("y", "mo", "w", "d", "h", "m", "s", "ms", "us", "ns")   # required order
NANOS_PER_UNIT = {"h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


_EXACT_JSON = json.JSONDecoder(parse_float=Decimal, parse_constant=str)


def loads_json(text: str) -> Any:
    """Parse JSON text keeping numbers exact (non-integers become ``Decimal``)."""
    try:
        return _EXACT_JSON.decode(text)
    except (TypeError, ValueError) as error:
        raise CqlValueError(f"invalid JSON {text!r:.80}: {error}") from None


def describe_json(value: Any) -> str:
    """Short JSON rendering of an offending value for error messages (numbers stay exact)."""
    numbers: list[str] = []

    def with_placeholders(item: Any) -> Any:
        if isinstance(item, Decimal):
            numbers.append(str(item))
            return f"\x00{len(numbers) - 1}\x00"
        if isinstance(item, list):
            return [with_placeholders(element) for element in item]
        if isinstance(item, dict):
            return {key: with_placeholders(element) for key, element in item.items()}
        return item

    try:
        text = json.dumps(with_placeholders(value), default=str, ensure_ascii=False)
        text = re.sub(r'"\\u0000(\d+)\\u0000"', lambda match: numbers[int(match.group(1))], text)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _mismatch(cql_type: CqlType | str, value: Any, detail: str = "") -> CqlValueError:
    return CqlValueError(f"expected {cql_type}, got {describe_json(value)}{': ' + detail if detail else ''}")


def _is_json_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _decode_integer(value: Any, cql_type: CqlType) -> int:
    if not _is_json_integer(value):
        raise _mismatch(cql_type, value)
    bits = INT_RANGES.get(cql_type.name)
    if bits is not None and not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        raise _mismatch(cql_type, value, f"out of range for a {bits}-bit integer")
    return value


def _exact_number(value: Any, cql_type: CqlType) -> Fraction:
    if _is_json_integer(value):
        return Fraction(value)
    if isinstance(value, Decimal) and value.is_finite() or isinstance(value, float) and math.isfinite(value):
        return Fraction(value)
    raise _mismatch(cql_type, value)


def _nearest_float32(exact: Fraction, cql_type: CqlType, raw: Any) -> float:
    """Round an exact rational once to the nearest float32 (ties to even)."""
    magnitude = abs(exact)
    if magnitude >= FLOAT32_OVERFLOW_THRESHOLD:
        raise _mismatch(cql_type, raw, "out of range for float")
    try:
        approx_bits = int.from_bytes(struct.pack(">f", float(magnitude)), "big")    # rounded twice
    except OverflowError:                                                            # just above FLT_MAX
        approx_bits = FLOAT32_MAX_MAGNITUDE_BITS
    candidates = [b for b in (approx_bits - 1, approx_bits, approx_bits + 1) if 0 <= b <= FLOAT32_MAX_MAGNITUDE_BITS]

    def distance_then_odd(bits: int) -> tuple[Fraction, int]:
        candidate = struct.unpack(">f", bits.to_bytes(4, "big"))[0]
        return abs(Fraction(candidate) - magnitude), bits & 1

    best = struct.unpack(">f", min(candidates, key=distance_then_odd).to_bytes(4, "big"))[0]
    return -best if exact < 0 else best


def _decode_floating(value: Any, cql_type: CqlType) -> float:
    if isinstance(value, str) and value in SPECIAL_FLOATS:
        return SPECIAL_FLOATS[value]
    exact = _exact_number(value, cql_type)
    if not exact:
        negative_zero = isinstance(value, (Decimal, float)) and math.copysign(1, value) < 0
        return -0.0 if negative_zero else 0.0
    if cql_type.name == "float":
        return _nearest_float32(exact, cql_type, value)
    try:
        result = exact.numerator / exact.denominator          # correctly rounded
    except OverflowError:
        raise _mismatch(cql_type, value, "out of range for double") from None
    if math.isinf(result):
        raise _mismatch(cql_type, value, "out of range for double")
    return result


def _decode_decimal(value: Any, cql_type: CqlType) -> Decimal:
    if _is_json_integer(value):
        return Decimal(value)
    if isinstance(value, Decimal) and value.is_finite():
        if not INT32_MIN <= -value.as_tuple().exponent <= INT32_MAX:
            raise _mismatch(cql_type, value, "scale out of range")
        return value
    raise _mismatch(cql_type, value)


def _decode_boolean(value: Any, cql_type: CqlType) -> bool:
    if not isinstance(value, bool):
        raise _mismatch(cql_type, value)
    return value


def _decode_text(value: Any, cql_type: CqlType) -> str:
    if not isinstance(value, str):
        raise _mismatch(cql_type, value)
    if cql_type.name == "ascii" and not value.isascii():
        raise _mismatch(cql_type, value, "non-ASCII character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _mismatch(cql_type, value, "not valid UTF-8 (lone surrogate)") from None
    return value


def _decode_blob(value: Any, cql_type: CqlType) -> bytes:
    if not isinstance(value, str) or not BLOB_TEXT.match(value):
        raise _mismatch(cql_type, value, 'blobs are written "0x" + hex digits')
    return bytes.fromhex(value[2:])


def _decode_uuid(value: Any, cql_type: CqlType) -> uuid.UUID:
    if not isinstance(value, str) or not UUID_TEXT.match(value):
        raise _mismatch(cql_type, value)
    parsed = uuid.UUID(value)
    version = parsed.bytes[6] >> 4          # the nibble ScyllaDB checks, whatever the variant bits
    if cql_type.name == "timeuuid" and version != 1:
        raise _mismatch(cql_type, value, f"a timeuuid must be a version 1 UUID, not version {version}")
    return parsed


def _decode_inet(value: Any, cql_type: CqlType) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    if not isinstance(value, str):
        raise _mismatch(cql_type, value)
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        raise _mismatch(cql_type, value) from None


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _decode_date(value: Any, cql_type: CqlType) -> int:
    match = DATE_TEXT.match(value) if isinstance(value, str) else None
    if not match:
        raise _mismatch(cql_type, value, 'dates are written "YYYY-MM-DD"')
    year, month, day = (int(part) for part in match.groups())
    if not 1 <= month <= 12 or not 1 <= day <= _days_in_month(year, month):
        raise _mismatch(cql_type, value, "no such calendar day")
    days = days_from_civil(year, month, day)
    if not 0 <= days + DATE_EPOCH_OFFSET < (1 << 32):
        raise _mismatch(cql_type, value, "out of the date range")
    return days


def _decode_time(value: Any, cql_type: CqlType) -> int:
    if not _is_json_integer(value) or not 0 <= value < NANOS_PER_DAY:
        raise _mismatch(cql_type, value, "time is integer nanoseconds since midnight, 0 <= t < 86400e9")
    return value


def _decode_duration(value: Any, cql_type: CqlType) -> Duration:
    if not isinstance(value, str):
        raise _mismatch(cql_type, value)
    negative = value.startswith("-")
    body = value[1:] if negative else value
    if body == "0":                                     # ScyllaDB prints the empty duration as 0
        return Duration(0, 0, 0)
    amounts: dict[str, int] = {}
    position = 0
    for match in DURATION_UNIT.finditer(body):
        unit = match.group(2).lower().replace("µ", "u")
        if match.start() != position or unit in amounts or (
                amounts and DURATION_UNITS.index(unit) < DURATION_UNITS.index(list(amounts)[-1])):
            break
        amounts[unit] = int(match.group(1))
        position = match.end()
    if not amounts or position != len(body):
        raise _mismatch(cql_type, value, 'durations are written like "1mo2d3h4m5s6ms7us8ns", each unit once, largest first')
    months = amounts.get("y", 0) * 12 + amounts.get("mo", 0)
    days = amounts.get("w", 0) * 7 + amounts.get("d", 0)
    nanoseconds = sum(amounts.get(unit, 0) * factor for unit, factor in NANOS_PER_UNIT.items())
    if months > INT32_MAX or days > INT32_MAX or nanoseconds > INT64_MAX:
        raise _mismatch(cql_type, value, "out of range")
    sign = -1 if negative else 1
    return Duration(sign * months, sign * days, sign * nanoseconds)


def _unwrap(value: Any, key: str, cql_type: CqlType, expected_shape: str) -> Any:
    if not isinstance(value, dict) or set(value) != {key}:
        raise _mismatch(cql_type, value, f"written as {expected_shape}")
    return value[key]


def _decode_elements(items: Any, element_type: CqlType, udts: UdtRegistry | None, outer: CqlType) -> list:
    if not isinstance(items, list):
        raise _mismatch(outer, items)
    decoded = []
    for item in items:
        if item is None:
            raise _mismatch(outer, items, "null is not supported inside collections")
        decoded.append(decode_json_value(item, element_type, udts))
    return decoded


def _sorted_distinct(entries: list, key_of: Callable[[Any], bytes]) -> list:
    """Sort by ScyllaDB order; among equal keys keep the first occurrence."""
    seen: dict[bytes, Any] = {}
    for entry in entries:
        seen.setdefault(key_of(entry), entry)
    return [seen[key] for key in sorted(seen)]


def _decode_list(value: Any, cql_type: CqlType, udts: UdtRegistry | None) -> list:
    items = _unwrap(value, "list", cql_type, '{"list": [...]}')
    return _decode_elements(items, cql_type.params[0], udts, cql_type)


def _decode_set(value: Any, cql_type: CqlType, udts: UdtRegistry | None) -> list:
    (element_type,) = cql_type.params
    items = _unwrap(value, "set", cql_type, '{"set": [...]}')
    elements = _decode_elements(items, element_type, udts, cql_type)
    return _sorted_distinct(elements, lambda element: order_key(element, element_type, udts))


def _decode_map(value: Any, cql_type: CqlType, udts: UdtRegistry | None) -> list:
    key_type, value_type = cql_type.params
    pairs = _unwrap(value, "map", cql_type, '{"map": [[key, value], ...]}')
    if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
        raise _mismatch(cql_type, value, 'written as {"map": [[key, value], ...]}')
    if any(key is None or item is None for key, item in pairs):
        raise _mismatch(cql_type, value, "null is not supported inside collections")
    entries = [(decode_json_value(key, key_type, udts), decode_json_value(item, value_type, udts))
               for key, item in pairs]
    return _sorted_distinct(entries, lambda entry: order_key(entry[0], key_type, udts))


def _decode_tuple(value: Any, cql_type: CqlType, udts: UdtRegistry | None) -> tuple:
    items = _unwrap(value, "tuple", cql_type, '{"tuple": [...]}')
    if not isinstance(items, list) or len(items) > len(cql_type.params):
        raise _mismatch(cql_type, value, f"a tuple of at most {len(cql_type.params)} elements")
    return tuple(None if item is None else decode_json_value(item, element_type, udts)
                 for item, element_type in zip(items, cql_type.params))


def _decode_udt(value: Any, cql_type: CqlType, udts: UdtRegistry | None) -> dict:
    fields = udt_fields(cql_type, udts)
    given = _unwrap(value, "udt", cql_type, '{"udt": {"field": value, ...}}')
    if not isinstance(given, dict):
        raise _mismatch(cql_type, value, 'written as {"udt": {"field": value, ...}}')
    unknown = set(given) - {name for name, _ in fields}
    if unknown:
        raise _mismatch(cql_type, value, f"unknown field(s) {', '.join(sorted(unknown))}")
    return {name: None if given.get(name) is None else decode_json_value(given[name], field_type, udts)
            for name, field_type in fields}


def _decode_empty(value: Any, cql_type: CqlType) -> str:
    """``empty``: the type of a COMPACT STORAGE table's hidden value column; its only value is
    the empty string (no bytes)."""
    if value != "":
        raise _mismatch(cql_type, value, "the empty type holds only the empty value \"\"")
    return value


_SCALAR_DECODERS: dict[str, Callable[[Any, CqlType], Any]] = {
    **{name: _decode_integer for name in ("tinyint", "smallint", "int", "bigint", "counter", "varint", "timestamp")},
    "float": _decode_floating, "double": _decode_floating, "decimal": _decode_decimal,
    "boolean": _decode_boolean, "text": _decode_text, "varchar": _decode_text, "ascii": _decode_text,
    "blob": _decode_blob, "uuid": _decode_uuid, "timeuuid": _decode_uuid, "inet": _decode_inet,
    "date": _decode_date, "time": _decode_time, "duration": _decode_duration, "empty": _decode_empty,
}
_COMPOSITE_DECODERS = {"list": _decode_list, "set": _decode_set, "map": _decode_map,
                       TUPLE: _decode_tuple, UDT: _decode_udt}


def decode_json_value(value: Any, cql_type: CqlType | str, udts: UdtRegistry | None = None) -> Any:
    """Decode one parsed JSON value (see ``loads_json``) into the canonical Python value of
    ``cql_type``; raise ``CqlValueError`` naming the expected type and the offending value."""
    cql_type = as_cql_type(cql_type)
    if value is None:
        raise _mismatch(cql_type, value, "null")
    scalar = _SCALAR_DECODERS.get(cql_type.name)
    if scalar is not None:
        return scalar(value, cql_type)
    return _COMPOSITE_DECODERS[cql_type.name](value, cql_type, udts)


def serialize_json_value(value: Any, cql_type: CqlType | str, udts: UdtRegistry | None = None) -> bytes:
    """Parsed JSON value -> CQL protocol bytes (§1.1)."""
    cql_type = as_cql_type(cql_type)
    return serialize_value(decode_json_value(value, cql_type, udts), cql_type, udts)
