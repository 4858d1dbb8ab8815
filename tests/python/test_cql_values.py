"""CQL literals -> JSON value encoding, type checks, order and serialization (cdclake/cql/values.py...)."""
from __future__ import annotations

import json
import struct
import uuid
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdclake.cql import udf_adapter
from cdclake.cql import types as t
from cdclake.cql.errors import CqlRequestError, CqlUnsupportedError
from cdclake.cql.parse_expressions import term
from cdclake.cql.token_stream import TokenStream
from cdclake.cql.values import INTEGER_RANGES, literal_value, to_json

N = t.NativeType
UT = t.UserType("ks", "ut", ("a", "b", "c"), (N("int"), N("text"), N("int")))
OUTER = t.UserType("ks", "outer", ("n", "u"), (N("int"), UT.freeze()))


def encode(literal: str, cql_type: t.CqlType, receiver: str = "v") -> str:
    return to_json(literal_value(term(TokenStream(literal)), cql_type, receiver))


@pytest.mark.parametrize("literal, cql_type, expected", [
    ("127", N("tinyint"), "127"), ("-32768", N("smallint"), "-32768"), ("2147483647", N("int"), "2147483647"),
    ("-9223372036854775808", N("bigint"), "-9223372036854775808"),
    ("123456789012345678901234567890", N("varint"), "123456789012345678901234567890"),
    ("1.5", N("double"), "1.5"), ("3", N("double"), "3.0"), ("1.1", N("float"), "1.1"),
    ("NaN", N("double"), '"NaN"'), ("Infinity", N("float"), '"Infinity"'), ("-Infinity", N("double"), '"-Infinity"'),
    ("1.50", N("decimal"), "1.50"), ("-0.0010", N("decimal"), "-0.0010"), ("7", N("decimal"), "7"),
    ("1e3", N("decimal"), "1E+3"),
    ("true", N("boolean"), "true"), ("FALSE", N("boolean"), "false"),
    ("'it''s é'", N("text"), '"it\'s é"'), ("'abc'", N("ascii"), '"abc"'),
    ("0xDEADbeef", N("blob"), '"0xdeadbeef"'), ("0x", N("blob"), '"0x"'),
    ("0DD381F0-2FEA-11EB-AF55-000000000001", N("timeuuid"), '"0dd381f0-2fea-11eb-af55-000000000001"'),
    ("'123e4567-e89b-42d3-a456-426614174000'", N("uuid"), '"123e4567-e89b-42d3-a456-426614174000"'),
    ("'127.0.0.1'", N("inet"), '"127.0.0.1"'), ("'0:0:0:0:0:0:0:1'", N("inet"), '"::1"'),
    ("1577872800000", N("timestamp"), "1577872800000"),
    ("'2020-01-01 10:00:00+0000'", N("timestamp"), "1577872800000"),
    ("'2020-01-01T10:00:00.123Z'", N("timestamp"), "1577872800123"),
    ("'2020-01-01 12:00+02:00'", N("timestamp"), "1577872800000"),
    ("'2020-01-01'", N("timestamp"), "1577836800000"),
    ("'2020-02-29'", N("date"), '"2020-02-29"'), ("2147483648", N("date"), '"1970-01-01"'),
    ("2147483647", N("date"), '"1969-12-31"'),
    ("'10:00:00'", N("time"), "36000000000000"), ("'00:00:01.000000001'", N("time"), "1000000001"),
    ("5", N("time"), "5"),
    ("1h30m", N("duration"), '"1h30m"'), ("'P1Y2M3DT4H'", N("duration"), '"1y2mo3d4h"'),
    ("-2w", N("duration"), '"-14d"'), ("90s", N("duration"), '"1m30s"'),
    ("[2, 1, 2]", t.ListType(N("int"), frozen=True), '{"list":[2,1,2]}'),
    ("{3, 1, 2, 1}", t.SetType(N("int"), frozen=True), '{"set":[1,2,3]}'),
    ("{}", t.SetType(N("int"), frozen=True), '{"set":[]}'),
    ("{'b': 1, 'a': 2}", t.MapType(N("text"), N("int"), frozen=True), '{"map":[["a",2],["b",1]]}'),
    ("{}", t.MapType(N("text"), N("int"), frozen=True), '{"map":[]}'),
    ("(1, 'x')", t.TupleType((N("int"), N("text"), N("int"))), '{"tuple":[1,"x",null]}'),
    ("{a: 1, c: null}", UT.freeze(), '{"udt":{"a":1,"b":null,"c":null}}'),
    ("[{a: 1}]", t.ListType(UT.freeze(), frozen=True), '{"list":[{"udt":{"a":1,"b":null,"c":null}}]}'),
    ("{[2], [1, 5], [1]}", t.SetType(t.ListType(N("int"), True), True),
     '{"set":[{"list":[1]},{"list":[1,5]},{"list":[2]}]}'),
    ("null", N("int"), "null"),
])
def test_literal_encoding(literal, cql_type, expected):
    assert encode(literal, cql_type) == expected


@pytest.mark.parametrize("literal, cql_type, message", [
    ("'x'", N("int"), 'Invalid STRING constant (\'x\') for "v" of type int'),
    ("1.5", N("bigint"), 'Invalid FLOAT constant (1.5) for "v" of type bigint'),
    ("128", N("tinyint"), 'Invalid INTEGER constant (128) for "v" of type tinyint: out of range [-128, 127]'),
    ("2147483648", N("int"), 'Invalid INTEGER constant (2147483648) for "v" of type int: out of range'),
    ("1e39", N("float"), 'Invalid FLOAT constant (1e39) for "v" of type float: out of range for a 32-bit float'),
    ("NaN", N("decimal"), 'Invalid FLOAT constant (NaN) for "v" of type decimal: a decimal must be finite'),
    ("'é'", N("ascii"), "Invalid ASCII character in string literal"),
    ("'x'", N("blob"), 'Invalid STRING constant (\'x\') for "v" of type blob'),
    ("0xabc", N("blob"), "odd number of hex digits"),
    ("123e4567-e89b-42d3-a456-426614174000", N("timeuuid"), "Unsupported UUID version (4)"),
    ("'nope'", N("inet"), "not a valid IPv4 or IPv6 address"),
    ("'2020-13-01'", N("timestamp"), "Unable to parse a date from '2020-13-01'"),
    ("'24:00:00'", N("time"), "Time out of range"),
    ("1", N("boolean"), 'Invalid INTEGER constant (1) for "v" of type boolean'),
    ("[1]", N("int"), "Invalid list literal for v of type int"),
    ("{1: 2}", t.SetType(N("int"), True), "Invalid map literal for v of type frozen<set<int>>"),
    ("{'a'}", t.SetType(N("int"), True), "Invalid set literal for v: value 'a' is not of type int"),
    ("{1: 'a'}", t.MapType(N("text"), N("int"), True), "Invalid map literal for v: key 1 is not of type text"),
    ("{'k': 1.5}", t.MapType(N("text"), N("int"), True), "Invalid map literal for v: value 1.5 is not of type int"),
    ("[null, 'x']", t.ListType(N("int"), True), "Invalid list literal for v: value 'x' is not of type int"),
    ("[(1, '1', 1.0, 1)]", t.ListType(t.TupleType((N("int"), N("text"), N("double"))), True),
     "Invalid list literal for v: value (1, '1', 1.0, 1) is not of type frozen<tuple<int, text, double>>"),
    ("[null]", t.ListType(N("int"), True), "null is not supported inside collections"),
    ("{x: 1}", UT.freeze(), "Unknown field 'x' in value of user defined type ut"),
    ("{a: 'no'}", UT.freeze(), "Invalid user type literal for v: field a is not of type int"),
    ("{x: 1, a: 'no'}", UT.freeze(), "Invalid user type literal for v: field a is not of type int"),
    ("(1, 'a', 2, 3)", t.TupleType((N("int"), N("text"), N("int"))),
     "Invalid tuple literal for v: too many elements. Type frozen<tuple<int, text, int>> expects 3 but got 4"),
    ("(1, 2)", N("int"), "Invalid tuple type literal for v of type int"),
    # a tuple literal for a user type: checked against the fields in order, by position
    ("(1, 'a', 2, 3)", UT, "Invalid tuple literal for v: too many elements. Type ut expects 3 but got 4"),
    ("(1, 'a', 2, 3)", UT.freeze(),
     "Invalid tuple literal for v: too many elements. Type frozen<ut> expects 3 but got 4"),
    ("(1, 2)", UT, "Invalid tuple literal for v: component 1 is not of type text"),
    ("('a', 'b', 2, 3)", UT, "Invalid tuple literal for v: component 0 is not of type int"),
    ("(1, [2])", UT, "Invalid tuple literal for v: component 1 is not of type text"),
    ("(1, 'a', 99999999999)", UT, 'Invalid INTEGER constant (99999999999) for "v[2]" of type int: out of range'),
    ("{'k': (1, 'a', 2, 3)}", t.MapType(N("text"), UT.freeze(), False),
     "Invalid map literal for v: value (1, 'a', 2, 3) is not of type frozen<ut>"),
    ("{(1, 2)}", t.SetType(UT.freeze(), False), "Invalid set literal for v: value (1, 2) is not of type frozen<ut>"),
    ("(1, (2, 3))", OUTER, "Invalid tuple literal for v: component 1 is not of type frozen<ut>"),
    ("{n: 1, u: (2, 3)}", OUTER, "Invalid user type literal for v: field u is not of type frozen<ut>"),
])
def test_type_errors_name_receiver_type_and_literal(literal, cql_type, message):
    with pytest.raises(CqlRequestError, match=None) as caught:
        encode(literal, cql_type)
    assert message in str(caught.value)


@pytest.mark.parametrize("tuple_literal, udt_literal, cql_type", [
    ("(1, 'x', 2)", "{a: 1, b: 'x', c: 2}", UT),
    ("(1, 'x', 2)", "{c: 2, b: 'x', a: 1}", UT.freeze()),
    ("(1, 'x')", "{a: 1, b: 'x'}", UT),                     # missing trailing fields are null
    ("(1)", "{a: 1}", UT.freeze()),
    ("(null, 'x', null)", "{b: 'x'}", UT),
    ("{'k': (1, 'x')}", "{'k': {a: 1, b: 'x'}}", t.MapType(N("text"), UT.freeze(), False)),
    ("{(1, 'y'), (1, 'x')}", "{{a: 1, b: 'y'}, {a: 1, b: 'x'}}", t.SetType(UT.freeze(), False)),
    ("[(2), (1, 'x', 3)]", "[{a: 2}, {a: 1, b: 'x', c: 3}]", t.ListType(UT.freeze(), True)),
    ("(1, (2, 'x'))", "{n: 1, u: {a: 2, b: 'x'}}", OUTER),
    ("(1, {a: 2, b: 'x'})", "{n: 1, u: (2, 'x')}", OUTER),
])
def test_a_tuple_literal_gives_a_user_type_its_fields_in_order(tuple_literal, udt_literal, cql_type):
    assert encode(tuple_literal, cql_type) == encode(udt_literal, cql_type)


def test_a_user_type_is_a_tuple_type_but_a_tuple_type_is_no_user_type():
    assert encode("(1, 'x', 2)", UT.freeze()) == '{"udt":{"a":1,"b":"x","c":2}}'
    with pytest.raises(CqlRequestError) as caught:
        encode("{a: 1, b: 2}", t.TupleType((N("int"), N("int"))))
    assert str(caught.value) == "Invalid user type literal for v of type frozen<tuple<int, int>>"


def test_a_repeated_user_type_field_keeps_its_first_value():
    assert encode("{a: 1, b: 'x', a: 'not an int'}", UT) == '{"udt":{"a":1,"b":"x","c":null}}'


def test_function_calls_are_not_supported_as_values():
    with pytest.raises(CqlUnsupportedError, match=r"function calls in values \(now\(\.\.\.\) for v\)"):
        encode("now()", N("timeuuid"))


# ------------------------------------------------------------------------ round trips


@given(st.sampled_from(sorted(INTEGER_RANGES)), st.data())
def test_integers_round_trip_and_are_range_checked(type_name, data):
    low, high = INTEGER_RANGES[type_name]
    value = data.draw(st.integers(low, high))
    assert json.loads(encode(str(value), N(type_name))) == value
    outside = data.draw(st.one_of(st.integers(max_value=low - 1), st.integers(min_value=high + 1)))
    with pytest.raises(CqlRequestError, match="out of range"):
        encode(str(outside), N(type_name))


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_doubles_round_trip(value):
    literal = repr(value)
    if "e" not in literal and "." not in literal:
        literal += ".0"
    assert json.loads(encode(literal, N("double"))) == value


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_floats_keep_the_float32_value_with_the_shortest_text(value):
    encoded = json.loads(encode(repr(value), N("float")))
    assert struct.unpack(">f", struct.pack(">f", encoded))[0] == value
    assert len(repr(encoded)) <= len(repr(value))


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_decimals_keep_their_scale(value):
    literal = str(value)
    if "E" in literal:
        literal = literal.replace("E", "e")
    encoded = encode(literal, N("decimal"))
    assert Decimal(encoded) == value
    assert Decimal(encoded).as_tuple().exponent == value.as_tuple().exponent


@given(st.text())
def test_strings_round_trip_through_quote_escaping(value):
    literal = "'" + value.replace("'", "''") + "'"
    assert json.loads(encode(literal, N("text"))) == value


@given(st.binary())
def test_blobs_round_trip(value):
    assert json.loads(encode("0x" + value.hex().upper(), N("blob"))) == "0x" + value.hex()


@given(st.lists(st.integers(-(1 << 31), (1 << 31) - 1)))
def test_sets_are_sorted_and_distinct(values):
    literal = "{" + ", ".join(map(str, values)) + "}" if values else "{}"
    assert json.loads(encode(literal, t.SetType(N("int"), True))) == {"set": sorted(set(values))}


@given(st.dictionaries(st.text(max_size=5), st.booleans()))
def test_maps_are_sorted_by_utf8_key_bytes(entries):
    literal = "{" + ", ".join("'" + k.replace("'", "''") + "': " + str(v).lower() for k, v in entries.items()) + "}"
    expected = [[k, v] for k, v in sorted(entries.items(), key=lambda kv: kv[0].encode("utf-8", "surrogatepass"))]
    assert json.loads(encode(literal, t.MapType(N("text"), N("boolean"), True))) == {"map": expected}


@settings(max_examples=50)
@given(st.integers(0, (1 << 60) - 1), st.integers(0, (1 << 14) - 1), st.integers(0, (1 << 48) - 1))
def test_timeuuids_round_trip(time, clock_seq, node):
    value = uuid.UUID(fields=(time & 0xFFFFFFFF, (time >> 32) & 0xFFFF, ((time >> 48) & 0x0FFF) | 0x1000,
                              0x80 | (clock_seq >> 8), clock_seq & 0xFF, node))
    assert json.loads(encode(str(value), N("timeuuid"))) == str(value)


# ------------------------------------------------------------------------ order


def test_cql_order_of_special_values():
    double = N("double")
    assert sorted(["NaN", 1.0, "-Infinity", 0.0, -0.0, "Infinity"], key=lambda v: udf_adapter.value_key(double, v)) == [
        "-Infinity", -0.0, 0.0, 1.0, "Infinity", "NaN"]
    earlier = "00000000-0000-1000-8000-000000000000"      # time 0, lsb 0x80..: negative as signed bytes
    later_lsb = "00000000-0000-1000-7f00-000000000000"
    timeuuid = N("timeuuid")
    assert udf_adapter.value_key(timeuuid, earlier) < udf_adapter.value_key(timeuuid, later_lsb)
    text = N("text")
    assert udf_adapter.value_key(text, "Z") < udf_adapter.value_key(text, "a") < udf_adapter.value_key(text, "é")
    assert udf_adapter.value_key(N("decimal"), Decimal("1.5")) == udf_adapter.value_key(N("decimal"), Decimal("1.50"))


def test_uuids_order_by_version_nibble_whatever_the_variant():
    uuid_type = N("uuid")
    version_4_variant_0 = "00000000-0000-4000-0000-000000000000"     # Python's UUID.version is None here
    assert udf_adapter.value_key(uuid_type, "ffffffff-ffff-3fff-bfff-ffffffffffff") < udf_adapter.value_key(
        uuid_type, version_4_variant_0)


def test_tuples_order_null_first_and_ignore_trailing_nulls():
    tuple_type = t.TupleType((N("int"), N("int")))
    key = lambda items: udf_adapter.value_key(tuple_type, {"tuple": items})   # noqa: E731
    assert key([None, 5]) < key([1, None]) < key([1, 0])
    assert key([1, None]) == key([1])


# ------------------------------------------------------------------------ serialization


@pytest.mark.parametrize("cql_type, value, expected", [
    (N("int"), -1, "ffffffff"), (N("tinyint"), 1, "01"), (N("varint"), 0, "00"), (N("varint"), 128, "0080"),
    (N("varint"), -129, "ff7f"), (N("varint"), -128, "80"), (N("decimal"), Decimal("1.50"), "00000002" + "0096"),
    (N("double"), "NaN", "7ff8000000000000"), (N("float"), 1.5, "3fc00000"), (N("boolean"), True, "01"),
    (N("date"), "1970-01-01", "80000000"), (N("blob"), "0x00ff", "00ff"),
    (N("duration"), "1mo2d3ns", "020406"), (N("duration"), "-1d", "000100"),
    (t.ListType(N("int"), True), {"list": [1]}, "00000001" + "00000004" + "00000001"),
    (t.TupleType((N("int"), N("int"))), {"tuple": [None, 2]}, "ffffffff" + "00000004" + "00000002"),
])
def test_serialized_forms(cql_type, value, expected):
    assert udf_adapter.serialize(cql_type, value).hex() == expected


def test_large_duration_uses_multi_byte_vints():
    # 1h = 3.6e12 ns -> zigzag 7.2e12 (43 bits) -> a 7-byte vint: six leading 1 bits, a 0, the value
    expected = (0xFC << 48 | 7_200_000_000_000).to_bytes(7, "big")
    assert udf_adapter.serialize(N("duration"), "1h") == b"\x00\x00" + expected


def test_zero_durations_serialize_inside_composites():
    tuple_type = t.TupleType((N("int"), N("duration")))
    assert udf_adapter.serialize(N("duration"), json.loads(encode("0s", N("duration")))) == b"\x00\x00\x00"
    assert udf_adapter.serialize(tuple_type, {"tuple": [None, "0"]}).hex() == "ffffffff" + "00000003" + "000000"


def test_user_types_reach_python_udfs_by_quoted_name_with_their_fields():
    inner = t.UserType("ks", "int", ("A",), (N("text"),), True)            # a type named "int"
    outer = t.UserType("ks", 'x"y', ("u", "n"), (inner, N("int")), True)
    assert udf_adapter.udf_type(t.SetType(outer, True)) == (
        'set<"x""y">', {"int": [("A", "text")], 'x"y': [("u", '"int"'), ("n", "int")]})
    value = {"udt": {"u": {"udt": {"A": "b"}}, "n": None}}
    assert udf_adapter.serialize(outer, value).hex() == "00000005" + "00000001" + "62" + "ffffffff"
    assert udf_adapter.value_key(outer, {"udt": {"u": None, "n": 1}}) < udf_adapter.value_key(outer, value)
