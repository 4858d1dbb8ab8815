"""Order-preserving byte keys for CQL values: unsigned byte order == ScyllaDB's type order.

``order_key(a, T) < order_key(b, T)`` (plain ``bytes`` comparison, which is also Spark's
``BinaryType`` order) exactly when ScyllaDB's ``abstract_type::compare`` (``types.cc``
``compare_visitor``) puts ``a`` before ``b``; equal keys mean "equal for ScyllaDB" (e.g. decimal
``1.5`` and ``1.50``). Every key is prefix-free, so keys can be concatenated (clustering
prefixes, collection elements) and inverted byte-wise for descending order.

Per type (ScyllaDB rule -> encoding):

* tinyint..bigint, counter, timestamp, time: signed compare -> big-endian with the sign bit flipped.
* date: unsigned compare of the serialized ``days + 2^31`` -> those 4 bytes.
* boolean: false < true -> one byte.
* varint: numeric -> class byte (neg 0x00 / zero 0x01 / pos 0x02), 4-byte magnitude length,
  magnitude; negatives bit-inverted.
* decimal: numeric (``big_decimal::compare``) -> class byte, 8-byte biased decimal exponent,
  digits (+1) and a 0x00 terminator; negatives bit-inverted.
* float, double: NaN == NaN greatest, -0 < 0 -> IEEE total-order transform of canonical bits.
* text, varchar, ascii, blob, inet: unsigned bytes -> 0x00 escaped as 0x00 0xFF, end 0x00 0x01.
* timeuuid: ``timeuuid_tri_compare``: timestamp (version nibble masked) then the low 8 bytes as
  *signed* bytes -> reordered 60-bit time (8 bytes) then ``lsb ^ 0x8080808080808080``.
* uuid: version nibble first; version 1 -> as timeuuid but the low 8 bytes unsigned; other
  versions -> the raw 16 bytes.
* list, set: element-wise, shorter first -> per element 0x01 + key, end 0x00.
* map: pairs (key then value), shorter first -> per pair 0x01 + key + value, end 0x00.
* tuple, UDT: element-wise, null < value, trailing nulls ignored -> trailing nulls dropped,
  per element null 0x01 / value 0x02 + key, end 0x00.
* duration: not allowed in keys, sets or map keys -> ``CqlValueError``.
"""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from python_udfs.cql_serialize import INT_WIDTH_BYTES, float_bits, serialize_value
from python_udfs.cql_types import TUPLE, UDT, CqlType, UdtRegistry, as_cql_type, udt_fields
from python_udfs.errors import CqlValueError

ESCAPED_ZERO = b"\x00\xff"
BYTES_TERMINATOR = b"\x00\x01"
SEQUENCE_END = b"\x00"
ELEMENT = b"\x01"
NULL_FIELD = b"\x01"
PRESENT_FIELD = b"\x02"
NEGATIVE, ZERO, POSITIVE = b"\x00", b"\x01", b"\x02"
TIMEUUID_LSB_SIGN_FLIP = 0x8080808080808080
_INVERTED_BYTES = bytes(range(255, -1, -1))


def invert(key: bytes) -> bytes:
    """Bit-invert every byte: reverses the order of prefix-free keys (descending columns)."""
    return key.translate(_INVERTED_BYTES)


def escaped_bytes_key(data: bytes) -> bytes:
    """Prefix-free, order-preserving form of an unsigned byte string."""
    return data.replace(b"\x00", ESCAPED_ZERO) + BYTES_TERMINATOR


def signed_int_key(value: int, width: int) -> bytes:
    return (value + (1 << (8 * width - 1))).to_bytes(width, "big")


def varint_key(value: int) -> bytes:
    if value == 0:
        return ZERO
    magnitude = abs(value)
    length = (magnitude.bit_length() + 7) // 8
    body = length.to_bytes(4, "big") + magnitude.to_bytes(length, "big")
    return POSITIVE + body if value > 0 else NEGATIVE + invert(body)


def decimal_key(value: Decimal) -> bytes:
    if not value:
        return ZERO
    sign, digits, exponent = value.as_tuple()
    all_digits = "".join(map(str, digits)).lstrip("0")
    significant = all_digits.rstrip("0")
    exponent += len(all_digits) - len(significant)
    # value = 0.d1d2...dn x 10^adjusted with d1 != 0 and dn != 0: compare adjusted, then digits
    adjusted = len(significant) + exponent
    body = (adjusted + (1 << 63)).to_bytes(8, "big") + bytes(int(d) + 1 for d in significant) + b"\x00"
    return NEGATIVE + invert(body) if sign else POSITIVE + body


def float_key(value: float, width: int) -> bytes:
    bits = float_bits(value, width)
    sign_bit = 1 << (8 * width - 1)
    ordered = bits ^ ((1 << (8 * width)) - 1) if bits & sign_bit else bits | sign_bit
    return ordered.to_bytes(width, "big")


def _timeuuid_time_msb(raw: bytes) -> int:
    """ScyllaDB ``timeuuid_read_msb``: 60-bit timestamp first, version nibble masked off."""
    return ((raw[6] & 0x0F) << 56 | raw[7] << 48 | raw[4] << 40 | raw[5] << 32
            | int.from_bytes(raw[0:4], "big"))


def timeuuid_key(raw: bytes) -> bytes:
    lsb = int.from_bytes(raw[8:16], "big") ^ TIMEUUID_LSB_SIGN_FLIP
    return _timeuuid_time_msb(raw).to_bytes(8, "big") + lsb.to_bytes(8, "big")


def uuid_key(raw: bytes) -> bytes:
    version = raw[6] >> 4
    if version == 1:
        return bytes([version]) + _timeuuid_time_msb(raw).to_bytes(8, "big") + raw[8:16]
    return bytes([version]) + raw


def order_key(value: Any, cql_type: CqlType | str, udts: UdtRegistry | None = None) -> bytes:
    """Order-preserving, prefix-free key of a canonical Python value (see module docstring)."""
    cql_type = as_cql_type(cql_type)
    name = cql_type.name
    if name in INT_WIDTH_BYTES:
        return signed_int_key(value, INT_WIDTH_BYTES[name])
    if name == "varint":
        return varint_key(value)
    if name == "decimal":
        return decimal_key(value)
    if name == "float":
        return float_key(value, 4)
    if name == "double":
        return float_key(value, 8)
    if name in ("boolean", "date"):
        return serialize_value(value, cql_type)
    if name in ("text", "varchar", "ascii", "blob", "inet", "empty"):
        return escaped_bytes_key(serialize_value(value, cql_type))
    if name == "timeuuid":
        return timeuuid_key(value.bytes)
    if name == "uuid":
        return uuid_key(value.bytes)
    if name in ("list", "set"):
        (element_type,) = cql_type.params
        return b"".join(ELEMENT + order_key(element, element_type, udts) for element in value) + SEQUENCE_END
    if name == "map":
        key_type, value_type = cql_type.params
        return b"".join(ELEMENT + order_key(key, key_type, udts) + order_key(item, value_type, udts)
                        for key, item in value) + SEQUENCE_END
    if name in (TUPLE, UDT):
        if name == TUPLE:
            pairs = list(zip(value, cql_type.params))
        else:
            pairs = [(value.get(field), field_type) for field, field_type in udt_fields(cql_type, udts)]
        while pairs and pairs[-1][0] is None:
            pairs.pop()
        return b"".join(NULL_FIELD if element is None else PRESENT_FIELD + order_key(element, element_type, udts)
                        for element, element_type in pairs) + SEQUENCE_END
    raise CqlValueError(f"values of type {cql_type} have no clustering order (not allowed in keys or sets)")
