"""CQL type parsing, the JSON value encoding and CQL serialization (docs/scylla/math.md §1.1, §1.2)."""
from __future__ import annotations

import json
import struct
import uuid
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest
from cassandra import cqltypes, util
from cassandra.metadata import Murmur3Token

from python_udfs.cql_types import CqlType, parse_cql_type
from python_udfs.cql_values import (
    CqlValueError, Duration, decode_json_value, loads_json, serialize_json_value,
)
from python_udfs.errors import CqlTypeError
from python_udfs.tokens import routing_key, routing_key_of_partition_key, token_of_partition_key

V4 = 4
UDTS = {"address": [("street", "text"), ("zip", "int"), ("tags", "frozen<set<text>>")]}


def serialize(json_text: str, cql_type: str, udts=None) -> bytes:
    return serialize_json_value(loads_json(json_text), cql_type, udts)


# --- type parser -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("int", CqlType("int")),
    ("  TEXT ", CqlType("text")),
    ("frozen<map<int, text>>", CqlType("map", (CqlType("int"), CqlType("text")), frozen=True)),
    ("tuple<int, text>", CqlType("tuple", (CqlType("int"), CqlType("text")), frozen=True)),
    ("list<frozen<set<uuid>>>", CqlType("list", (CqlType("set", (CqlType("uuid"),), frozen=True),))),
    ("frozen<address>", CqlType("udt", frozen=True, udt_name="address")),
    ('frozen<"MyType">', CqlType("udt", frozen=True, udt_name="MyType")),
    ("ks.address", CqlType("udt", udt_name="ks.address")),
])
def test_parse_cql_type(text, expected):
    assert parse_cql_type(text) == expected


def test_cql_type_text_round_trips():
    for text in ("int", "frozen<map<int, text>>", "tuple<int, frozen<list<blob>>>", "frozen<address>"):
        assert str(parse_cql_type(text)) == text


@pytest.mark.parametrize("text", ["", "map<int>", "list<int, int>", "frozen<int", "int>", "vector<float, 3>",
                                  "list<>", "map<int,>"])
def test_parse_cql_type_rejects(text):
    with pytest.raises(CqlTypeError):
        parse_cql_type(text)


# --- scalars against the driver's serializers --------------------------------------------------

@pytest.mark.parametrize("cql_type, json_text, driver_value", [
    ("int", "-5", -5), ("bigint", "9223372036854775807", 2**63 - 1), ("counter", "-1", -1),
    ("smallint", "-32768", -2**15), ("tinyint", "127", 127),
    ("varint", "-129", -129), ("varint", "340282366920938463463374607431768211456", 2**128),
    ("decimal", "1.50", Decimal("1.50")), ("decimal", "-0.001", Decimal("-0.001")), ("decimal", "1E+5", Decimal("1E+5")),
    ("decimal", "12345678901234567890.123456789012345678901234567890",
     Decimal("12345678901234567890.123456789012345678901234567890")),
    ("boolean", "true", True), ("text", '"żółw 🐢"', "żółw 🐢"), ("varchar", '""', ""), ("ascii", '"abc"', "abc"),
    ("blob", '"0xCAFE00"', b"\xca\xfe\x00"), ("blob", '"0x"', b""),
    ("uuid", '"123E4567-E89B-12D3-A456-426614174000"', uuid.UUID("123e4567-e89b-12d3-a456-426614174000")),
    ("timestamp", "-1", -1), ("date", '"1970-01-01"', util.Date(0)), ("date", '"-0001-12-31"', None),
    ("time", "86399999999999", 86_399_999_999_999), ("double", "0.1", 0.1), ("double", '"-Infinity"', float("-inf")),
    ("float", "0.1", 0.1), ("float", '"NaN"', float("nan")), ("double", "-0.0", -0.0),
    ("inet", '"192.168.0.1"', "192.168.0.1"), ("inet", '"2001:db8::ff00:42:8329"', "2001:db8::ff00:42:8329"),
    ("duration", '"1y2mo3w4d5h6m7s8ms9us10ns"', util.Duration(14, 25, 18_367_008_009_010)),
    ("duration", '"-3h"', util.Duration(0, 0, -3 * 3600 * 10**9)), ("duration", '"2µs"', util.Duration(0, 0, 2000)),
])
def test_scalar_serialization_matches_driver(cql_type, json_text, driver_value):
    ours = serialize(json_text, cql_type)
    if driver_value is None:                    # 31 Dec of year -1 (proleptic): 719529 days before the epoch
        assert ours == (-719_529 + 2**31).to_bytes(4, "big")
        return
    assert ours == cqltypes._cqltypes[cql_type].serialize(driver_value, V4)


def test_date_of_proleptic_gregorian_days():
    assert serialize('"2020-03-25"', "date").hex() == "800047aa"
    assert serialize('"2000-02-29"', "date") == (10_957 + 59 + 2**31).to_bytes(4, "big")


def test_float_literal_is_rounded_once_to_float32():
    """1 + 2^-24 + 2^-60 lies just above the midpoint of 1.0 and its float32 successor: rounding
    through double first would give 1.0 (ties to even); the single correct rounding gives 1 + 2^-23."""
    exact = Fraction(1) + Fraction(1, 2**24) + Fraction(1, 2**60)
    with localcontext() as context:
        context.prec = 100
        literal = str(Decimal(exact.numerator) / Decimal(exact.denominator))
    assert serialize(literal, "float") == struct.pack(">f", 1 + 2**-23)
    assert serialize("3.4028235677973366e38", "float") == struct.pack(">f", 3.4028234663852886e38)
    with pytest.raises(CqlValueError, match="out of range for float"):
        serialize("3.5e38", "float")


def test_varint_and_decimal_examples_from_the_spec():
    assert serialize("0", "varint").hex() == "00"
    assert serialize("128", "varint").hex() == "0080"
    assert serialize("-129", "varint").hex() == "ff7f"
    assert serialize("3.14", "decimal").hex() == "00000002013a"
    assert decode_json_value(loads_json("1.50"), "decimal").as_tuple().exponent == -2


# --- collections, tuples, UDTs -----------------------------------------------------------------

def driver_type(text: str):
    return cqltypes.lookup_casstype(text)


def test_frozen_collections_match_driver_after_sorting():
    list_type = cqltypes.ListType.apply_parameters([cqltypes.Int32Type])
    assert serialize('{"list": [3, 1, 3]}', "frozen<list<int>>") == list_type.serialize([3, 1, 3], V4)
    set_type = cqltypes.SetType.apply_parameters([cqltypes.UTF8Type])
    assert serialize('{"set": ["b", "é", "a", "b", ""]}', "frozen<set<text>>") == \
        set_type.serialize(["", "a", "b", "é"], V4)
    signed_set = cqltypes.SetType.apply_parameters([cqltypes.Int32Type])
    assert serialize('{"set": [5, -1, 0, -7]}', "set<int>") == signed_set.serialize([-7, -1, 0, 5], V4)
    map_type = cqltypes.MapType.apply_parameters([cqltypes.Int32Type, cqltypes.UTF8Type])
    assert serialize('{"map": [[2, "b"], [-1, "z"], [2, "ignored"]]}', "frozen<map<int, text>>") == \
        map_type.serialize({-1: "z", 2: "b"}, V4)
    tuple_type = cqltypes.TupleType.apply_parameters([cqltypes.Int32Type, cqltypes.UTF8Type, cqltypes.BytesType])
    assert serialize('{"tuple": [1, null, "0x00"]}', "tuple<int, text, blob>") == \
        tuple_type.serialize((1, None, b"\x00"), V4)


def test_udt_serializes_every_declared_field_in_order():
    tags = cqltypes.SetType.apply_parameters([cqltypes.UTF8Type])
    as_tuple = cqltypes.TupleType.apply_parameters([cqltypes.UTF8Type, cqltypes.Int32Type, tags])
    assert serialize('{"udt": {"zip": 1, "street": "Main"}}', "frozen<address>", UDTS) == \
        as_tuple.serialize(("Main", 1, None), V4)
    assert serialize('{"udt": {"tags": {"set": ["y", "x"]}}}', "frozen<ks.address>", UDTS) == \
        as_tuple.serialize((None, None, ["x", "y"]), V4)


def test_set_of_decimals_deduplicates_numerically_equal_values():
    set_type = cqltypes.SetType.apply_parameters([cqltypes.DecimalType])
    assert serialize('{"set": [1.50, 1.5, -2]}', "frozen<set<decimal>>") == \
        set_type.serialize([Decimal("-2"), Decimal("1.50")], V4)


# --- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("json_text, cql_type, message", [
    ('"abc"', "int", 'expected int, got "abc"'),
    ("true", "int", "expected int, got true"),
    ("2147483648", "int", "expected int, got 2147483648: out of range for a 32-bit integer"),
    ("1.5", "bigint", "expected bigint, got 1.5"),
    ('"é"', "ascii", 'expected ascii, got "é": non-ASCII character'),
    ('"cafe"', "blob", 'expected blob, got "cafe": blobs are written "0x" + hex digits'),
    ('"0xabc"', "blob", 'expected blob, got "0xabc"'),
    ('"123e4567-e89b-42d3-a456-426614174000"', "timeuuid", "a timeuuid must be a version 1 UUID, not version 4"),
    ('"not-a-uuid"', "uuid", 'expected uuid, got "not-a-uuid"'),
    ('"2021-02-29"', "date", "no such calendar day"),
    ("-1", "time", "expected time, got -1"),
    ('"1d2mo"', "duration", "each unit once, largest first"),
    ('"300.1.1.1"', "inet", 'expected inet, got "300.1.1.1"'),
    ("[1, 2]", "frozen<list<int>>", 'expected frozen<list<int>>, got [1, 2]: written as {"list": [...]}'),
    ('{"list": [1, null]}', "frozen<list<int>>", "null is not supported inside collections"),
    ('{"tuple": [1, "a", 3]}', "tuple<int, text>", "a tuple of at most 2 elements"),
    ('{"udt": {"city": "x"}}', "frozen<address>", "unknown field(s) city"),
    ("1", "frozen<nosuchtype>", "unknown user-defined type 'nosuchtype'"),
    ('"1e999"', "double", 'expected double, got "1e999"'),
    ("1e999", "double", "out of range for double"),
])
def test_decode_errors_name_type_and_value(json_text, cql_type, message):
    with pytest.raises(CqlValueError) as error:
        serialize(json_text, cql_type, UDTS)
    assert message in str(error.value)


# --- partition keys ----------------------------------------------------------------------------

def test_partition_key_errors_name_the_column():
    names, types = ["a", "b"], ["int", "text"]
    cases = {
        '{"a": 1}': "partition key column 'b' is missing",
        '{"a": 1, "b": "x", "c": 2}': "partition key column 'c' is not part of the partition key ['a', 'b']",
        '{"a": "x", "b": "x"}': "partition key column 'a': expected int, got \"x\"",
        '{"a": 1, "b": null}': "partition key column 'b' is null",
        '[1, "x"]': "partition key must be a JSON object",
        "{oops": "invalid JSON",
    }
    for key_json, message in cases.items():
        with pytest.raises(CqlValueError) as error:
            token_of_partition_key(key_json, names, types)
        assert message in str(error.value), key_json


def test_composite_component_longer_than_65535_bytes_is_rejected():
    big = "0x" + "ab" * 65_536
    with pytest.raises(CqlValueError, match="'b' is 65536 bytes serialized"):
        token_of_partition_key(json.dumps({"a": 1, "b": big}), ["a", "b"], ["int", "blob"])
    with pytest.raises(CqlValueError, match="at most 65535"):
        routing_key([b"", b"x" * 65_536])
    single = json.dumps({"b": big})           # a single-column key has no length prefix: allowed
    assert token_of_partition_key(single, ["b"], ["blob"]) == Murmur3Token.hash_fn(b"\xab" * 65_536)


def test_empty_key_hashes_to_token_zero():
    assert routing_key_of_partition_key('{"k": ""}', ["k"], ["text"]) == b""
    assert token_of_partition_key('{"k": ""}', ["k"], ["text"]) == 0
    assert token_of_partition_key('{"k": "0x"}', ["k"], ["blob"]) == 0


def test_frozen_collection_keys_hash_like_the_driver():
    set_type = cqltypes.SetType.apply_parameters([cqltypes.Int32Type])
    key_json = '{"k": {"set": [3, 1, 2]}, "n": 7}'
    expected = b"".join(len(p).to_bytes(2, "big") + p + b"\x00"
                        for p in (set_type.serialize([1, 2, 3], V4), cqltypes.Int32Type.serialize(7, V4)))
    assert token_of_partition_key(key_json, ["k", "n"], ["frozen<set<int>>", "int"]) == Murmur3Token.hash_fn(expected)


def test_duration_values_decode():
    assert decode_json_value("1y2mo", "duration") == Duration(14, 0, 0)
    assert decode_json_value("-1w", "duration") == Duration(0, -7, 0)
