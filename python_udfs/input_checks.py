"""Checks of the input contract's JSON values and keys, and raw JSON member extraction.

Used by the validation model: each function returns a problem text (or None), and
``json_members`` None for a text that is not a JSON object, rather than raising, so that one bad
input row is reported, not fatal.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Callable, Sequence

import pandas as pd

from python_udfs.columns import per_distinct_row
from python_udfs.cql_types import UDT, parse_cql_type, udt_fields
from python_udfs.cql_values import decode_json_value, describe_json, loads_json
from python_udfs.errors import problem_text, utf8_safe
from python_udfs.sql_signature import Boolean, String, StringArray, returns

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


@lru_cache(maxsize=256)
def user_types(user_types_json: str | None) -> dict | None:  # written by int_base_columns_described
    """A keyspace's user types from JSON ``{"type": [["field", "type"], ...]}`` (None: none)."""
    return None if user_types_json is None else {name: [tuple(f) for f in fields]
                                                 for name, fields in json.loads(user_types_json).items()}


def value_error(value_json: str | None, cql_type: str | None, user_types_json: str | None = None) -> str | None:
    """Why ``value_json`` is not a value of ``cql_type`` (None when it is, or nothing to check).
    User types are resolved through ``user_types_json`` (see ``user_types``)."""
    if value_json is None or cql_type is None:
        return None
    try:
        decode_json_value(loads_json(value_json), cql_type, user_types(user_types_json))
    except Exception as error:  # noqa: BLE001 -- any failure is this row's problem, never the build's
        return problem_text(error)
    return None


def type_error(cql_type: str | None, user_types_json: str | None = None) -> str | None:
    """Why ``cql_type`` is not a CQL type this pipeline can read (a syntax error, an unknown
    name, a user type the keyspace does not define), or None."""
    if cql_type is None:
        return None
    try:
        udts = user_types(user_types_json)
        pending, seen = [parse_cql_type(cql_type)], set()
        while pending:
            node = pending.pop()
            if node.name == UDT and node.udt_name not in seen:
                seen.add(node.udt_name)
                pending.extend(field_type for _, field_type in udt_fields(node, udts))
            pending.extend(node.params)
    except Exception as error:  # noqa: BLE001
        return problem_text(error)
    return None


def key_error(key_json: str | None, names: Sequence[str] | None, types: Sequence[str] | None,
              allow_prefix: bool) -> str | None:
    """Why ``key_json`` is not the full clustering key (or, with ``allow_prefix``, a prefix of
    it: the first k columns, ``{}`` for an open bound)."""
    if key_json is None or names is None or types is None:
        return None
    try:
        problem = _key_error(key_json, names, types, allow_prefix)
    except Exception as error:  # noqa: BLE001 -- any failure is this row's problem, never the build's
        return problem_text(error)
    return None if problem is None else utf8_safe(problem)


def _key_error(key_json: str, names: Sequence[str], types: Sequence[str], allow_prefix: bool) -> str | None:
    key = loads_json(key_json)
    if not isinstance(key, dict):
        return f"expected a JSON object of key columns, got {describe_json(key)}"
    unknown = [k for k in key if k not in names]
    if unknown:
        return f"unknown key column {unknown[0]} (the key columns are {', '.join(names)})"
    present = [n for n in names if n in key]
    if present != list(names[: len(present)]):
        missing = next(n for n in names if n not in key)
        return f"not a clustering prefix: {missing} is missing before {present[-1]}"
    if not allow_prefix and len(present) != len(names):
        return f"missing clustering column {names[len(present)]}"
    for name, cql_type in zip(names, types):
        if name not in key:
            break
        try:
            decode_json_value(key[name], cql_type)
        except Exception as error:  # noqa: BLE001
            return f"column {name}: {problem_text(error)}"
    return None


def json_members(text: str | None) -> dict[str, str] | None:
    """The members of a JSON object, each value kept as its exact JSON text; None when ``text``
    is null or not a JSON object (the key checks say why)."""
    if text is None:
        return None
    try:
        return _json_members(text)
    except (ValueError, RecursionError):
        return None


def _json_members(text: str) -> dict[str, str]:
    members: dict[str, str] = {}
    pos = _skip(text, 0)
    if text[pos:pos + 1] != "{":
        raise ValueError(f"expected a JSON object, got {text!r}")
    pos = _skip(text, pos + 1)
    while text[pos:pos + 1] != "}":
        name, pos = _DECODER.raw_decode(text, pos)
        if not isinstance(name, str):
            raise ValueError(f"expected a member name in JSON object {text!r}")
        name = utf8_safe(name)
        pos = _skip(text, pos)
        if text[pos:pos + 1] != ":":
            raise ValueError(f"expected ':' in JSON object {text!r}")
        start = _skip(text, pos + 1)
        _, end = _DECODER.raw_decode(text, start)
        members[name] = text[start:end]
        pos = _skip(text, end)
        if text[pos:pos + 1] == ",":
            pos = _skip(text, pos + 1)
    return members


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WHITESPACE:
        pos += 1
    return pos


@returns("string")
def cdc_value_error(value: String, cql_type: String, user_types_json: String) -> pd.Series:
    return per_distinct_row(value_error, value, cql_type, user_types_json)


@returns("string")
def cdc_type_error(cql_type: String, user_types_json: String) -> pd.Series:
    return per_distinct_row(type_error, cql_type, user_types_json)


@returns("string")
def cdc_key_error(key: String, names: StringArray, types: StringArray, allow_prefix: Boolean) -> pd.Series:
    return per_distinct_row(
        lambda k, n, t, p: key_error(k, n, t, bool(p)), key, names, types, allow_prefix
    )


@returns("map<string, string>")
def cdc_json_members(text: String) -> pd.Series:
    return per_distinct_row(json_members, text)


def sql_functions() -> dict[str, Callable]:
    """The batch function of every SQL function of this module, by SQL name."""
    return {
        "cdc_value_error": cdc_value_error,
        "cdc_type_error": cdc_type_error,
        "cdc_key_error": cdc_key_error,
        "cdc_json_members": cdc_json_members,
    }

