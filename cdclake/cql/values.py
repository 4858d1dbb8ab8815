"""CQL literal -> value in the JSON value encoding, with ScyllaDB's type checks.

The encoding (``cases_docs.json`` ``conventions.value_encoding``; the public input contract):

=====================================  ==========================================================
CQL type                               JSON value
=====================================  ==========================================================
tinyint smallint int bigint varint     integer (range-checked per type)
float double                           number, or "NaN" / "Infinity" / "-Infinity"
decimal                                number keeping the literal's scale (``1.50``)
boolean                                true / false
text varchar ascii                     string (ascii: 7-bit only)
blob                                   "0x" + lowercase hex
uuid timeuuid                          canonical lowercase text (timeuuid: version 1)
inet                                   canonical address text
timestamp                              integer milliseconds since the epoch
date                                   "YYYY-MM-DD"
time                                   integer nanoseconds since midnight
duration                               canonical duration text (``1h30m``)
list / set / map                       {"list": [...]}, {"set": [sorted]}, {"map": [[k, v], ...] sorted by key}
tuple / user type                      {"tuple": [...]}, {"udt": {field: value or null, ...every field}}
=====================================  ==========================================================

``literal_value`` returns the Python form of that JSON (``decimal.Decimal`` for decimals);
``to_json`` writes it as compact JSON text. Errors use ScyllaDB's wording, naming the receiver
(column ``v``, ``key(v)``, ``value(v)``, ``v.field``, ``v[0]``), the expected type and the literal.

As in ScyllaDB's ``cql3/expr/prepare_expr.cc``, a literal is first checked against its receiver
(``_assignable``, ScyllaDB's ``test_assignment``: the elements, components and fields by their
kind), then its parts are converted. A user type is a tuple type there: a tuple literal gives a
user type its fields in order, the missing trailing ones null (docs/scylla/corners.md).
"""
from __future__ import annotations

import ipaddress
import json
import math
import struct
import uuid as uuid_module
from decimal import Decimal, InvalidOperation
from typing import Any

from cdclake.cql import ast, temporal
from cdclake.cql import types as t
from cdclake.cql.errors import CqlRequestError, CqlUnsupportedError
from cdclake.cql.udf_adapter import value_key

INTEGER_RANGES = {
    "tinyint": (-(1 << 7), (1 << 7) - 1),
    "smallint": (-(1 << 15), (1 << 15) - 1),
    "int": (-(1 << 31), (1 << 31) - 1),
    "bigint": (-(1 << 63), (1 << 63) - 1),
    "counter": (-(1 << 63), (1 << 63) - 1),
}

# Constant kinds each native type accepts (ScyllaDB's untyped_constant::test_assignment).
_ACCEPTED_KINDS = {
    **{name: (ast.INTEGER,) for name in ("tinyint", "smallint", "int", "bigint", "varint", "counter")},
    "float": (ast.INTEGER, ast.FLOAT),
    "double": (ast.INTEGER, ast.FLOAT),
    "decimal": (ast.INTEGER, ast.FLOAT),
    "boolean": (ast.BOOLEAN,),
    "text": (ast.STRING,),
    "ascii": (ast.STRING,),
    "blob": (ast.HEX,),
    "uuid": (ast.UUID, ast.STRING),
    "timeuuid": (ast.UUID, ast.STRING),
    "inet": (ast.STRING,),
    "timestamp": (ast.INTEGER, ast.STRING),
    "date": (ast.INTEGER, ast.STRING),
    "time": (ast.INTEGER, ast.STRING),
    "duration": (ast.DURATION, ast.STRING),
}
_LITERAL_NAMES = {      # ScyllaDB's "Invalid <name> literal for v of type T" (a tuple's says "tuple type")
    ast.ListLiteral: "list", ast.SetLiteral: "set", ast.MapLiteral: "map", ast.EmptyBraces: "set",
    ast.UdtLiteral: "user type", ast.TupleLiteral: "tuple type",
}


def literal_value(term: ast.Term, cql_type: t.CqlType, receiver: str) -> Any:
    """The JSON-model value of ``term`` for a receiver of type ``cql_type`` (``None`` for null)."""
    if isinstance(term, ast.NullLiteral):
        return None
    if isinstance(term, ast.FunctionCall):
        raise CqlUnsupportedError(f"function calls in values ({term.name}(...) for {receiver}) are not supported")
    if isinstance(cql_type, t.NativeType):
        if not isinstance(term, ast.Constant):
            raise _literal_mismatch(term, cql_type, receiver)
        return native_value(term, cql_type.name, receiver)
    if isinstance(cql_type, t.ListType):
        return {"list": _list_items(term, cql_type, receiver)}
    if isinstance(cql_type, t.SetType):
        return {"set": _set_items(term, cql_type, receiver)}
    if isinstance(cql_type, t.MapType):
        return {"map": _map_entries(term, cql_type, receiver)}
    if isinstance(cql_type, (t.TupleType, t.UserType)) and isinstance(term, ast.TupleLiteral):
        return _tuple_literal_value(term, cql_type, receiver)
    if isinstance(cql_type, t.TupleType):
        raise _literal_mismatch(term, cql_type, receiver)
    if isinstance(cql_type, t.UserType):
        return {"udt": _udt_fields(term, cql_type, receiver)}
    raise CqlUnsupportedError(f"values of type {cql_type} (column {receiver}) are not supported")


def _literal_mismatch(term: ast.Term, cql_type: t.CqlType, receiver: str) -> CqlRequestError:
    if isinstance(term, ast.Constant):
        return CqlRequestError(f'Invalid {term.kind} constant ({_quoted(term)}) for "{receiver}" of type {cql_type}')
    return CqlRequestError(f"Invalid {_LITERAL_NAMES[type(term)]} literal for {receiver} of type {cql_type}")


def _element(term: ast.Term, cql_type: t.CqlType, receiver: str) -> Any:
    if isinstance(term, ast.NullLiteral):
        raise CqlRequestError("null is not supported inside collections")
    return literal_value(term, cql_type, receiver)


def _list_items(term: ast.Term, cql_type: t.ListType, receiver: str) -> list:
    if not isinstance(term, ast.ListLiteral):
        raise _literal_mismatch(term, cql_type, receiver)
    for item in term.items:
        if not _assignable(item, cql_type.element):
            raise _element_mismatch("list", receiver, "value", item, cql_type.element)
    return [_element(item, cql_type.element, f"value({receiver})") for item in term.items]


def _set_items(term: ast.Term, cql_type: t.SetType, receiver: str) -> list:
    if isinstance(term, ast.EmptyBraces):
        return []
    if not isinstance(term, ast.SetLiteral):
        raise _literal_mismatch(term, cql_type, receiver)
    for item in term.items:
        if not _assignable(item, cql_type.element):
            raise _element_mismatch("set", receiver, "value", item, cql_type.element)
    unique: dict = {}
    for item in term.items:
        value = _element(item, cql_type.element, f"value({receiver})")
        unique.setdefault(value_key(cql_type.element, value), value)
    return [unique[key] for key in sorted(unique)]


def _map_entries(term: ast.Term, cql_type: t.MapType, receiver: str) -> list:
    if isinstance(term, ast.EmptyBraces):
        return []
    if not isinstance(term, ast.MapLiteral):
        raise _literal_mismatch(term, cql_type, receiver)
    for key_term, value_term in term.entries:
        if not _assignable(key_term, cql_type.key):
            raise _element_mismatch("map", receiver, "key", key_term, cql_type.key)
        if not _assignable(value_term, cql_type.value):
            raise _element_mismatch("map", receiver, "value", value_term, cql_type.value)
    entries: dict = {}
    for key_term, value_term in term.entries:
        key = _element(key_term, cql_type.key, f"key({receiver})")
        value = _element(value_term, cql_type.value, f"value({receiver})")
        entries.setdefault(value_key(cql_type.key, key), [key, value])   # the first of equal keys wins
    return [entries[key] for key in sorted(entries)]


def _element_mismatch(literal: str, receiver: str, part: str, term: ast.Term, cql_type: t.CqlType) -> CqlRequestError:
    return CqlRequestError(
        f"Invalid {literal} literal for {receiver}: {part} {_term_text(term)} is not of type {cql_type}")


def _components(cql_type: t.CqlType) -> tuple[t.CqlType, ...] | None:
    """Component types of a tuple type; a user type is one (its fields, in order)."""
    if isinstance(cql_type, t.TupleType):
        return cql_type.items
    if isinstance(cql_type, t.UserType):
        return cql_type.field_types
    return None


def _tuple_literal_value(term: ast.TupleLiteral, cql_type: t.TupleType | t.UserType, receiver: str) -> dict:
    """``(x, y)`` for a tuple or a user type (ScyllaDB's ``tuple_constructor_validate_assignable_to``,
    ``tuple_constructor_prepare_nontuple``): components named ``v[i]``, missing trailing ones null."""
    components = _components(cql_type)
    for index, item in enumerate(term.items):
        if index >= len(components):
            raise CqlRequestError(f"Invalid tuple literal for {receiver}: too many elements. "
                                  f"Type {cql_type} expects {len(components)} but got {len(term.items)}")
        if not _assignable(item, components[index]):
            raise CqlRequestError(f"Invalid tuple literal for {receiver}: component {index} "
                                  f"is not of type {components[index]}")
    items = [literal_value(item, item_type, f"{receiver}[{index}]")
             for index, (item, item_type) in enumerate(zip(term.items, components))]
    items += [None] * (len(components) - len(items))
    if isinstance(cql_type, t.UserType):
        return {"udt": dict(zip(cql_type.field_names, items))}
    return {"tuple": items}


def _udt_given(term: ast.UdtLiteral) -> dict[str, ast.Term]:
    """The literal's fields; a repeated field keeps its first value (ScyllaDB's grammar
    ``emplace``s them into a map)."""
    given: dict[str, ast.Term] = {}
    for name, value_term in term.fields:
        given.setdefault(name, value_term)
    return given


def _udt_fields(term: ast.Term, cql_type: t.UserType, receiver: str) -> dict:
    if not isinstance(term, ast.UdtLiteral):
        raise _literal_mismatch(term, cql_type, receiver)
    given = _udt_given(term)
    for name, field_type in zip(cql_type.field_names, cql_type.field_types):
        if name in given and not _assignable(given[name], field_type):
            raise CqlRequestError(f"Invalid user type literal for {receiver}: field {name} is not of type {field_type}")
    fields = {name: (literal_value(given[name], field_type, f"{receiver}.{name}") if name in given else None)
              for name, field_type in zip(cql_type.field_names, cql_type.field_types)}
    for name in given:
        if name not in cql_type.field_names:
            raise CqlRequestError(f"Unknown field '{name}' in value of user defined type {cql_type.name}")
    return fields


def _assignable(term: ast.Term, cql_type: t.CqlType) -> bool:
    """Whether ``term`` may be given to a receiver of ``cql_type``: ScyllaDB's ``test_assignment``
    (``prepare_expr.cc``), which looks at constants' kinds and literals' shapes, not at values."""
    if isinstance(term, ast.NullLiteral):
        return not (isinstance(cql_type, t.NativeType) and cql_type.name == "counter")
    if isinstance(term, ast.Constant):
        if isinstance(cql_type, t.NativeType):
            return term.kind in _ACCEPTED_KINDS.get(cql_type.name, ())
        return isinstance(cql_type, t.TupleType)     # parsed from its text there; refused by literal_value here
    if isinstance(term, ast.TupleLiteral):
        components = _components(cql_type)
        return (components is not None and len(term.items) <= len(components)
                and all(_assignable(item, item_type) for item, item_type in zip(term.items, components)))
    if isinstance(term, ast.UdtLiteral):
        if not isinstance(cql_type, t.UserType):
            return False
        given = _udt_given(term)
        return all(_assignable(given[name], field_type)
                   for name, field_type in zip(cql_type.field_names, cql_type.field_types) if name in given)
    if isinstance(term, ast.ListLiteral):
        return isinstance(cql_type, (t.ListType, t.VectorType)) and all(
            _assignable(item, cql_type.element) for item in term.items)
    if isinstance(term, ast.SetLiteral):
        return isinstance(cql_type, t.SetType) and all(_assignable(item, cql_type.element) for item in term.items)
    if isinstance(term, ast.EmptyBraces):
        return isinstance(cql_type, (t.SetType, t.MapType))
    if isinstance(term, ast.MapLiteral):
        return isinstance(cql_type, t.MapType) and all(
            _assignable(key, cql_type.key) and _assignable(value, cql_type.value) for key, value in term.entries)
    return True          # a function call: literal_value refuses it


def _term_text(term: ast.Term) -> str:
    """A literal as ScyllaDB's errors print it (``expression.cc``'s printer): strings in quotes
    as written, ``{k:v, ...}`` maps, user types' fields in written order (ScyllaDB: its hash order)."""
    if isinstance(term, ast.Constant):
        return f"'{term.text}'" if term.kind == ast.STRING else term.text
    if isinstance(term, ast.NullLiteral):
        return "null"
    if isinstance(term, ast.ListLiteral):
        return "[" + ", ".join(_term_text(item) for item in term.items) + "]"
    if isinstance(term, ast.SetLiteral):
        return "{" + ", ".join(_term_text(item) for item in term.items) + "}"
    if isinstance(term, ast.EmptyBraces):
        return "{}"
    if isinstance(term, ast.MapLiteral):
        return "{" + ", ".join(f"{_term_text(key)}:{_term_text(value)}" for key, value in term.entries) + "}"
    if isinstance(term, ast.TupleLiteral):
        return "(" + ", ".join(_term_text(item) for item in term.items) + ")"
    if isinstance(term, ast.UdtLiteral):
        return "{" + ", ".join(f"{name}:{_term_text(value)}" for name, value in _udt_given(term).items()) + "}"
    return f"{term.name}(" + ", ".join(_term_text(arg) for arg in term.args) + ")"


# ------------------------------------------------------------------------------- natives


def _quoted(term: ast.Constant) -> str:
    return "'" + term.text.replace("'", "''") + "'" if term.kind == ast.STRING else term.text


def native_value(term: ast.Constant, type_name: str, receiver: str) -> Any:
    """Value of a constant for a native type; raises ``CqlRequestError`` naming the receiver."""
    if term.kind not in _ACCEPTED_KINDS[type_name]:
        raise CqlRequestError(f'Invalid {term.kind} constant ({_quoted(term)}) for "{receiver}" of type {type_name}')
    try:
        return _NATIVE_CONVERTERS[type_name](term, type_name)
    except _InvalidConstant as problem:
        raise CqlRequestError(
            f'Invalid {term.kind} constant ({_quoted(term)}) for "{receiver}" of type {type_name}: {problem}') from None


class _InvalidConstant(ValueError):
    """The constant has an acceptable kind but an invalid value for the type."""


def _integer(term: ast.Constant, type_name: str) -> int:
    number = int(term.text)
    if type_name in INTEGER_RANGES:
        low, high = INTEGER_RANGES[type_name]
        if not low <= number <= high:
            raise _InvalidConstant(f"out of range [{low}, {high}]")
    return number


def _floating(term: ast.Constant, type_name: str) -> Any:
    if term.text in ("NaN", "Infinity", "-Infinity"):
        return term.text
    number = float(term.text)
    if math.isinf(number):
        raise _InvalidConstant("out of range")
    if type_name == "float":
        return float32_value(number)
    return number


def float32_value(number: float) -> float:
    """The float32 nearest to ``number``, as the shortest decimal that reads back to it."""
    try:
        single = struct.unpack(">f", struct.pack(">f", number))[0]
    except OverflowError:
        raise _InvalidConstant("out of range for a 32-bit float") from None
    for digits in range(1, 10):
        candidate = float(f"{single:.{digits}g}")
        try:
            if struct.unpack(">f", struct.pack(">f", candidate))[0] == single:
                return candidate
        except OverflowError:          # rounding up near the float32 maximum
            continue
    return single


def _decimal(term: ast.Constant, type_name: str) -> Decimal:
    if term.text in ("NaN", "Infinity", "-Infinity"):
        raise _InvalidConstant("a decimal must be finite")
    try:
        return Decimal(term.text)
    except InvalidOperation:
        raise _InvalidConstant("not a decimal number") from None


def _boolean(term: ast.Constant, type_name: str) -> bool:
    return term.text.lower() == "true"


def _text(term: ast.Constant, type_name: str) -> str:
    if type_name == "ascii" and not term.text.isascii():
        raise _InvalidConstant("Invalid ASCII character in string literal")
    return term.text


def _blob(term: ast.Constant, type_name: str) -> str:
    digits = term.text[2:]
    if len(digits) % 2:
        raise _InvalidConstant("odd number of hex digits")
    return "0x" + digits.lower()


def _uuid(term: ast.Constant, type_name: str) -> str:
    try:
        value = uuid_module.UUID(term.text.strip())
    except ValueError:
        raise _InvalidConstant("not a UUID") from None
    if type_name == "timeuuid" and value.version != 1:
        raise _InvalidConstant(f"Unsupported UUID version ({value.version}): a timeuuid must be version 1")
    return str(value)


def _inet(term: ast.Constant, type_name: str) -> str:
    try:
        return str(ipaddress.ip_address(term.text.strip()))
    except ValueError:
        raise _InvalidConstant("not a valid IPv4 or IPv6 address") from None


def _temporal(parser):
    def convert(term: ast.Constant, type_name: str):
        try:
            return parser(term)
        except temporal.TemporalFormatError as problem:
            raise _InvalidConstant(str(problem)) from None
    return convert


_NATIVE_CONVERTERS = {
    **{name: _integer for name in ("tinyint", "smallint", "int", "bigint", "varint", "counter")},
    "float": _floating,
    "double": _floating,
    "decimal": _decimal,
    "boolean": _boolean,
    "text": _text,
    "ascii": _text,
    "blob": _blob,
    "uuid": _uuid,
    "timeuuid": _uuid,
    "inet": _inet,
    "timestamp": _temporal(lambda term: _timestamp_millis(term)),
    "date": _temporal(lambda term: temporal.date_from_unsigned_days(int(term.text)) if term.kind == ast.INTEGER
                      else temporal.date_from_string(term.text)),
    "time": _temporal(lambda term: temporal.time_nanos_from_integer(int(term.text)) if term.kind == ast.INTEGER
                      else temporal.time_nanos_from_string(term.text)),
    "duration": _temporal(lambda term: temporal.duration_from_text(term.text)),
}


def _timestamp_millis(term: ast.Constant) -> int:
    millis = int(term.text) if term.kind == ast.INTEGER else temporal.timestamp_millis_from_string(term.text)
    low, high = INTEGER_RANGES["bigint"]
    if not low <= millis <= high:
        raise temporal.TemporalFormatError("out of range for a timestamp")
    return millis


# ------------------------------------------------------------------------------- JSON text


def to_json(value: Any) -> str:
    """Compact JSON text of a JSON-model value (decimals keep their scale)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (int, float, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(to_json(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(str(k), ensure_ascii=False) + ":" + to_json(v) for k, v in value.items()) + "}"
    raise TypeError(f"not a JSON-model value: {value!r}")


# ------------------------------------------------------------------------------- CQL literal

def value_literal(value: Any, cql_type: t.CqlType) -> str:
    """The CQL literal of a JSON-model value of ``cql_type``: ``literal_value`` gives the value
    back (the backfill of a live cluster's rows writes them with it)."""
    if value is None:
        return "null"
    if isinstance(cql_type, t.ListType):
        return "[" + ", ".join(value_literal(item, cql_type.element) for item in value["list"]) + "]"
    if isinstance(cql_type, t.SetType):
        return "{" + ", ".join(value_literal(item, cql_type.element) for item in value["set"]) + "}"
    if isinstance(cql_type, t.MapType):
        return "{" + ", ".join(f"{value_literal(k, cql_type.key)}: {value_literal(v, cql_type.value)}"
                               for k, v in value["map"]) + "}"
    if isinstance(cql_type, t.TupleType):
        return "(" + ", ".join(value_literal(item, part) for item, part in zip(value["tuple"], cql_type.items)) + ")"
    if isinstance(cql_type, t.UserType):
        from cdclake.cql.describe import maybe_quote

        return "{" + ", ".join(f"{maybe_quote(name)}: {value_literal(value['udt'].get(name), field_type)}"
                               for name, field_type in zip(cql_type.field_names, cql_type.field_types)) + "}"
    name = cql_type.name
    if name in ("text", "varchar", "ascii", "inet", "date"):
        return "'" + str(value).replace("'", "''") + "'"
    if name == "boolean":
        return "true" if value else "false"
    if name == "duration":
        return "0s" if value == "0" else value
    if name in ("float", "double") and not isinstance(value, str):
        return repr(float(value))
    return str(value)           # integers, timestamp ms, time ns, decimal, NaN/Infinity, blob, uuids
