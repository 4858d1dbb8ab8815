"""A fast path for the commonest partition-key types: integers, text, booleans, uuids.

Serializes each key column straight from its parsed JSON value (§1.1) when the value is well
formed; anything else (another type, a malformed value) returns None so that the caller takes
the general decoder, which also produces the error message. Integer-exact like the general path.
"""
from __future__ import annotations

import json
import uuid
from functools import lru_cache
from typing import Callable, Optional, Sequence

from python_udfs.cql_values import UUID_TEXT

_JSON = json.JSONDecoder()
Serializer = Callable[[object], Optional[bytes]]


def _integer(width: int) -> Serializer:
    low, high = -(1 << (8 * width - 1)), (1 << (8 * width - 1)) - 1

    def serialize(value):
        if type(value) is int and low <= value <= high:
            return value.to_bytes(width, "big", signed=True)
        return None
    return serialize


def _text(value):
    return value.encode("utf-8") if type(value) is str else None


def _ascii(value):
    return value.encode("ascii") if type(value) is str and value.isascii() else None


def _boolean(value):
    return (b"\x01" if value else b"\x00") if type(value) is bool else None


def _uuid(version_one: bool) -> Serializer:
    def serialize(value):
        if type(value) is not str or not UUID_TEXT.match(value):
            return None
        raw = uuid.UUID(value).bytes
        if version_one and raw[6] >> 4 != 1:
            return None
        return raw
    return serialize


SERIALIZERS: dict[str, Serializer] = {
    "int": _integer(4), "bigint": _integer(8), "smallint": _integer(2), "tinyint": _integer(1),
    "counter": _integer(8), "timestamp": _integer(8),
    "text": _text, "varchar": _text, "ascii": _ascii, "boolean": _boolean,
    "uuid": _uuid(False), "timeuuid": _uuid(True),
}


@lru_cache(maxsize=1024)
def serializers_for(types: tuple[str, ...]) -> Optional[tuple[Serializer, ...]]:
    """Per-column serializers, or None when a column's type has no fast path."""
    found = tuple(SERIALIZERS.get(t.strip().lower()) for t in types)
    return None if any(s is None for s in found) else found


def fast_routing_key(partition_key_json: str, names: Sequence[str], types: tuple[str, ...]) -> Optional[bytes]:
    """The routing key (§1.2), or None when the general path must decide."""
    serializers = serializers_for(types)
    if serializers is None or len(names) != len(types):
        return None
    try:
        values = _JSON.decode(partition_key_json)
    except ValueError:
        return None
    if type(values) is not dict or len(values) != len(names):
        return None
    components = []
    for name, serialize in zip(names, serializers):
        component = serialize(values.get(name))
        if component is None:
            return None
        components.append(component)
    if len(components) == 1:
        return components[0]
    if any(len(c) > 0xFFFF for c in components):
        return None
    return b"".join(len(c).to_bytes(2, "big") + c + b"\x00" for c in components)
