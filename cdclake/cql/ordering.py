"""ScyllaDB's order of CQL values, as Python sort keys.

Used to sort set elements and map keys (the JSON encoding lists them in CQL order), to order
clustering keys (clustering ``DESC`` columns reverse it) and to find empty clustering ranges.
The rules follow ScyllaDB's ``abstract_type::compare``: integers and decimals numerically
(``1.5 == 1.50``); floats numerically with ``-0 < 0`` and NaN greatest; text, blob and inet by
unsigned bytes; timeuuid by time then the low 8 bytes as signed bytes; uuid by version first
(version 1 like timeuuid but unsigned); frozen lists/sets/maps element-wise, shorter first;
tuples and UDTs element-wise with null first and trailing nulls ignored.
"""
from __future__ import annotations

import ipaddress
import math
import uuid as uuid_module
from functools import total_ordering
from typing import Any, Sequence

from cdclake.cql import types as t


def sort_key(cql_type: t.CqlType, value: Any):
    """A key with ``sort_key(T, a) < sort_key(T, b)`` iff ScyllaDB orders ``a`` before ``b``."""
    if isinstance(cql_type, t.NativeType):
        return _native_key(cql_type.name, value)
    if isinstance(cql_type, t.ListType):
        return tuple(sort_key(cql_type.element, item) for item in value["list"])
    if isinstance(cql_type, t.SetType):
        return tuple(sort_key(cql_type.element, item) for item in value["set"])
    if isinstance(cql_type, t.MapType):
        return tuple((sort_key(cql_type.key, k), sort_key(cql_type.value, v)) for k, v in value["map"])
    if isinstance(cql_type, t.TupleType):
        return _nullable_items_key(cql_type.items, value["tuple"])
    if isinstance(cql_type, t.UserType):
        fields = value["udt"]
        return _nullable_items_key(cql_type.field_types, [fields.get(name) for name in cql_type.field_names])
    if isinstance(cql_type, t.VectorType):
        return tuple(sort_key(cql_type.element, item) for item in value["list"])
    raise TypeError(f"no order for {cql_type}")


def _nullable_items_key(item_types: Sequence[t.CqlType], items: Sequence[Any]):
    items = list(items)
    while items and items[-1] is None:
        items.pop()
    return tuple((0,) if item is None else (1, sort_key(item_type, item))
                 for item_type, item in zip(item_types, items))


def _native_key(name: str, value: Any):
    if name in ("float", "double"):
        if value == "NaN":
            return (1,)
        number = {"Infinity": math.inf, "-Infinity": -math.inf}.get(value, value)
        return (0, number, math.copysign(1.0, number))
    if name in ("text", "ascii"):
        return value.encode("utf-8", "surrogatepass")
    if name == "blob":
        return bytes.fromhex(value[2:])
    if name == "inet":
        return ipaddress.ip_address(value).packed
    if name == "timeuuid":
        return timeuuid_key(uuid_module.UUID(value))
    if name == "uuid":
        parsed = uuid_module.UUID(value)
        if parsed.version == 1:
            return (1, parsed.time, parsed.bytes[8:])
        return (parsed.version or 0, parsed.bytes)
    return value          # integers, decimal, boolean, timestamp, time, date text, duration text


def timeuuid_key(value: uuid_module.UUID):
    return (value.time, bytes(byte ^ 0x80 for byte in value.bytes[8:]))


@total_ordering
class Descending:
    """Wraps a key to reverse its order (clustering columns with ``DESC`` order)."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __eq__(self, other) -> bool:
        return self.key == other.key

    def __lt__(self, other) -> bool:
        return other.key < self.key

    def __hash__(self) -> int:
        return hash(self.key)


def clustering_component_keys(types_and_orders: Sequence[tuple[t.CqlType, str]], values: Sequence[Any]) -> tuple:
    """Keys of a clustering prefix in clustering order (``DESC`` columns reversed)."""
    keys = []
    for (cql_type, order), value in zip(types_and_orders, values):
        key = sort_key(cql_type, value)
        keys.append(Descending(key) if order == "desc" else key)
    return tuple(keys)


BEFORE = -1     # a start bound that includes its prefix, or an end bound that excludes it
AFTER = 1       # a start bound that excludes its prefix, or an end bound that includes it


def compare_positions(left: tuple, left_weight: int, right: tuple, right_weight: int) -> int:
    """Compare two clustering positions ``(prefix keys, weight)``.

    A prefix with weight ``BEFORE`` sorts before every key it is a prefix of, with ``AFTER``
    after all of them (``position_in_partition`` in ScyllaDB)."""
    for left_key, right_key in zip(left, right):
        if left_key != right_key:
            return -1 if left_key < right_key else 1
    if len(left) == len(right):
        return (left_weight > right_weight) - (left_weight < right_weight)
    if len(left) < len(right):
        return left_weight
    return -right_weight
