"""clustering_sort_key: byte order of the keys == ScyllaDB's clustering order, checked with
hypothesis against a direct comparator written from ScyllaDB's ``types.cc compare_visitor``
and ``position_in_partition`` rules (independent of ``ordering.py``)."""
from __future__ import annotations

import math
import uuid
from decimal import Decimal
from functools import cmp_to_key

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python_udfs.clustering import clustering_sort_key
from python_udfs.cql_types import parse_cql_type, udt_fields
from python_udfs.cql_values import CqlValueError, decode_json_value

UDTS = {"point": [("x", "int"), ("label", "text")]}


def sign(x) -> int:
    return (x > 0) - (x < 0)


def compare_values(a, b, type_text) -> int:
    """ScyllaDB's three-way compare of two decoded values of one CQL type."""
    cql_type = parse_cql_type(type_text) if isinstance(type_text, str) else type_text
    name = cql_type.name
    if name in ("tinyint", "smallint", "int", "bigint", "varint", "timestamp", "time", "date", "decimal", "boolean"):
        return sign((a > b) - (a < b))
    if name in ("float", "double"):                     # NaN == NaN, NaN greatest; -0 < 0
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) - math.isnan(b)
        if math.copysign(1, a) != math.copysign(1, b):
            return 1 if math.copysign(1, a) > 0 else -1
        return (a > b) - (a < b)
    if name in ("text", "varchar", "ascii"):
        return sign((a.encode() > b.encode()) - (a.encode() < b.encode()))
    if name == "blob":
        return (a > b) - (a < b)
    if name == "inet":
        return (a.packed > b.packed) - (a.packed < b.packed)
    if name == "timeuuid":                              # timestamp, then low bytes as signed int8
        ka = (a.time, [x - 256 if x >= 128 else x for x in a.bytes[8:]])
        kb = (b.time, [x - 256 if x >= 128 else x for x in b.bytes[8:]])
        return (ka > kb) - (ka < kb)
    if name == "uuid":                                  # version; v1: timestamp then low bytes unsigned
        va, vb = a.bytes[6] >> 4, b.bytes[6] >> 4
        if va != vb:
            return (va > vb) - (va < vb)
        ka = (a.time, a.bytes[8:]) if va == 1 else a.bytes
        kb = (b.time, b.bytes[8:]) if vb == 1 else b.bytes
        return (ka > kb) - (ka < kb)
    if name in ("list", "set"):
        return compare_sequences([(x, cql_type.params[0]) for x in a], [(x, cql_type.params[0]) for x in b])
    if name == "map":
        key_type, value_type = cql_type.params
        flat_a = [(x, t) for k, v in a for x, t in ((k, key_type), (v, value_type))]
        flat_b = [(x, t) for k, v in b for x, t in ((k, key_type), (v, value_type))]
        return compare_sequences(flat_a, flat_b)
    if name in ("tuple", "udt"):
        types = list(cql_type.params) if name == "tuple" else [t for _, t in udt_fields(cql_type, UDTS)]
        values_a = list(a) if name == "tuple" else list(a.values())
        values_b = list(b) if name == "tuple" else list(b.values())
        for x, y, t in zip(values_a, values_b, types):
            if x is None or y is None:
                if (x is None) != (y is None):
                    return -1 if x is None else 1
                continue
            result = compare_values(x, y, t)
            if result:
                return result
        longer_a, longer_b = values_a[len(values_b):], values_b[len(values_a):]
        return 1 if any(v is not None for v in longer_a) else -1 if any(v is not None for v in longer_b) else 0
    raise AssertionError(name)


def compare_sequences(a, b) -> int:
    for (x, t), (y, _) in zip(a, b):
        result = compare_values(x, y, t)
        if result:
            return result
    return (len(a) > len(b)) - (len(a) < len(b))


WEIGHT = {"start_inclusive": -1, "end_exclusive": -1, "row": 0, "start_exclusive": 1, "end_inclusive": 1}


def compare_positions(a, b, types, descending) -> int:
    """position_in_partition order: prefix components first, then the bound weight."""
    (values_a, bound_a), (values_b, bound_b) = a, b
    for x, y, t, desc in zip(values_a, values_b, types, descending):
        result = compare_values(x, y, t)
        if result:
            return -result if desc else result
    if len(values_a) == len(values_b):
        return sign(WEIGHT[bound_a] - WEIGHT[bound_b])
    return sign(WEIGHT[bound_a]) if len(values_a) < len(values_b) else -sign(WEIGHT[bound_b])


# --- strategies --------------------------------------------------------------------------------

def small_or(strategy, small):
    return st.one_of(small, strategy)


def json_float(value):
    return "NaN" if math.isnan(value) else {math.inf: "Infinity", -math.inf: "-Infinity"}.get(value, value)


def raw_version1_uuid(raw: bytes) -> str:
    data = bytearray(raw)
    data[6] = (data[6] & 0x0F) | 0x10
    return str(uuid.UUID(bytes=bytes(data)))


JSON_VALUES = {
    "int": small_or(st.integers(-2**31, 2**31 - 1), st.integers(-2, 2)),
    "bigint": small_or(st.integers(-2**63, 2**63 - 1), st.integers(-2, 2)),
    "tinyint": st.integers(-128, 127),
    "timestamp": small_or(st.integers(-2**63, 2**63 - 1), st.integers(-2, 2)),
    "varint": small_or(st.integers(-2**80, 2**80), st.integers(-300, 300)),
    "decimal": st.decimals(allow_nan=False, allow_infinity=False, places=None, min_value=-10**6, max_value=10**6)
    | st.sampled_from([Decimal("1.5"), Decimal("1.50"), Decimal("-1.5"), Decimal("0"), Decimal("-0.00"),
                       Decimal("15"), Decimal("0.15"), Decimal("1E+3")]),
    "double": st.floats().map(json_float) | st.sampled_from([0.0, -0.0, "NaN", 1.0]),
    "float": st.floats(width=32).map(json_float),
    "boolean": st.booleans(),
    "text": st.text(alphabet=st.sampled_from(["\x00", "a", "b", "é", "\uffff", "🐢"]), max_size=4),
    "blob": st.binary(max_size=4).map(lambda b: "0x" + b.hex()),
    "inet": st.ip_addresses().map(str) | st.sampled_from(["0.0.0.1", "::", "::1"]),
    "date": st.dates().map(lambda d: d.isoformat()),
    "uuid": st.uuids().map(str) | st.binary(min_size=16, max_size=16).map(raw_version1_uuid),
    "timeuuid": st.binary(min_size=16, max_size=16).map(raw_version1_uuid)
    | st.sampled_from(["00000000-0000-1000-8000-000000000000", "00000000-0000-1000-7f00-000000000000"]),
    "frozen<list<int>>": st.lists(st.integers(-2, 2), max_size=3).map(lambda v: {"list": v}),
    "frozen<set<text>>": st.lists(st.sampled_from(["", "a", "ab", "b"]), max_size=3).map(lambda v: {"set": v}),
    "frozen<map<int, text>>": st.lists(st.tuples(st.integers(-2, 2), st.sampled_from(["", "a", "b"])), max_size=3)
    .map(lambda pairs: {"map": [list(p) for p in pairs]}),
    "tuple<int, text>": st.lists(st.one_of(st.none(), st.integers(-2, 2)), max_size=1).flatmap(
        lambda first: st.lists(st.one_of(st.none(), st.sampled_from(["a", "b"])), max_size=1)
        .map(lambda second: {"tuple": (first + second) if first else []})),
    "frozen<point>": st.fixed_dictionaries({}, optional={"x": st.integers(-2, 2) | st.none(),
                                                          "label": st.sampled_from(["a", "b"]) | st.none()})
    .map(lambda fields: {"udt": fields}),
}


@st.composite
def schema_and_positions(draw):
    types = draw(st.lists(st.sampled_from(sorted(JSON_VALUES)), min_size=1, max_size=3))
    orders = draw(st.lists(st.sampled_from(["ASC", "DESC"]), min_size=len(types), max_size=len(types)))
    pool = [draw(st.lists(JSON_VALUES[t], min_size=1, max_size=3)) for t in types]   # few values: many ties
    positions = []
    for _ in range(draw(st.integers(2, 8))):
        bound = draw(st.sampled_from(sorted(WEIGHT)))
        length = len(types) if bound == "row" else draw(st.integers(0, len(types)))
        positions.append(([draw(st.sampled_from(pool[i])) for i in range(length)], bound))
    return types, orders, positions


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema_and_positions())
def test_sort_keys_order_like_scylla(case):
    types, orders, positions = case
    names = [f"c{i}" for i in range(len(types))]
    descending = [order == "DESC" for order in orders]
    keyed = []
    for values, bound in positions:
        key = clustering_sort_key(dict(zip(names, values)), names, types, orders, bound, UDTS)
        decoded = [decode_json_value(v, t, UDTS) for v, t in zip(values, types)]
        keyed.append((key, (decoded, bound)))
    for key_a, position_a in keyed:
        for key_b, position_b in keyed:
            expected = compare_positions(position_a, position_b, types, descending)
            assert sign((key_a > key_b) - (key_a < key_b)) == expected, (position_a, position_b)


def test_bounds_bracket_the_rows_of_their_prefix():
    names, types, orders = ["a", "b"], ["int", "text"], ["ASC", "DESC"]

    def key(ck, bound):
        return clustering_sort_key(ck, names, types, orders, bound)

    rows = [key({"a": 1, "b": b}, "row") for b in ("z", "m", "a", "")]
    assert rows == sorted(rows)                          # b is DESC
    assert key('{"a": 1}', "start_inclusive") == key('{"a": 1}', "end_exclusive") < min(rows)
    assert max(rows) < key('{"a": 1}', "start_exclusive") == key('{"a": 1}', "end_inclusive")
    assert key({"a": 0, "b": "a"}, "row") < key('{"a": 1}', "start_inclusive")
    assert key('{"a": 1}', "end_inclusive") < key({"a": 2, "b": "z"}, "row")
    assert key("{}", "start_inclusive") < key({"a": -2**31, "b": "\uffff"}, "row")
    assert key(None, "end_inclusive") > key({"a": 2**31 - 1, "b": ""}, "row")
    assert key(None, "row") == b"" < key("{}", "start_inclusive")          # the static row
    assert key('{"a": 1, "b": null}', "start_inclusive") == key('{"a": 1}', "start_inclusive")


@pytest.mark.parametrize("ck, bound, message", [
    ('{"a": 1}', "row", "clustering row needs every clustering column; 'b' is missing"),
    ('{"b": "x"}', "start_inclusive", "is not a prefix: 'a' is missing"),
    ('{"a": 1, "c": 2}', "start_inclusive", "'c' is not a clustering column"),
    ('{"a": "x"}', "end_inclusive", "clustering key column 'a': expected int, got \"x\""),
    ('{"a": 1}', "middle", "bound must be one of"),
])
def test_clustering_errors(ck, bound, message):
    with pytest.raises(CqlValueError) as error:
        clustering_sort_key(ck, ["a", "b"], ["int", "text"], ["ASC", "ASC"], bound)
    assert message in str(error.value)


def test_duration_has_no_clustering_order():
    with pytest.raises(CqlValueError, match="no clustering order"):
        clustering_sort_key('{"d": "1h"}', ["d"], ["duration"], ["ASC"], "row")


def test_table_without_clustering_columns():
    assert clustering_sort_key("{}", [], [], [], "row") == b"\x01"


def test_sorting_keys_equals_sorting_with_the_comparator():
    types = ["timeuuid"]
    values = ["00000000-0000-1000-8000-000000000000", "00000000-0000-1000-7f00-000000000000",
              "ffffffff-ffff-1fff-0000-000000000000", "00000001-0000-1000-0000-000000000000"]
    by_key = sorted(values, key=lambda v: clustering_sort_key({"t": v}, ["t"], types, ["ASC"], "row"))
    by_comparator = sorted(values, key=cmp_to_key(
        lambda x, y: compare_values(uuid.UUID(x), uuid.UUID(y), "timeuuid")))
    assert by_key == by_comparator
    assert by_key[0] == "00000000-0000-1000-8000-000000000000"     # 0x80 is -128 as a signed byte


def test_tuples_ignore_trailing_nulls():
    """types.cc compare_aux: extra trailing nulls compare equal; null sorts before any value."""
    def key(elements):
        return clustering_sort_key({"t": {"tuple": elements}}, ["t"], ["tuple<int, text>"], ["ASC"], "row")

    assert key([1]) == key([1, None])
    assert key([None]) == key([]) < key([None, "a"]) < key([-5]) < key([1]) < key([1, ""]) < key([1, "a"])
