"""UDFs for non-frozen collections: the element types of a column, and CQL order of elements.

* ``cdc_element_types(cql_type)`` -> struct<key_type, value_type> for a non-frozen collection:
  map<K, V> -> (K, V); set<E> -> (E, null); list<V> -> ('timeuuid', V) (list cells are keyed by
  timeuuids, docs/scylla/log.md §8); anything else (or a type that cannot be read) -> null.
* ``cdc_value_sort_key(json, cql_type)`` -> binary that sorts as CQL orders the values (map keys,
  set elements, list keys), so log values list their elements in ScyllaDB's order; null for a
  value that cannot be read as its type (the validation model reports it).
"""
from __future__ import annotations

from typing import Callable, Optional

import pandas as pd

from python_udfs.cql_types import parse_cql_type
from python_udfs.cql_values import decode_json_value, loads_json
from python_udfs.ordering import order_key
from python_udfs.sql_signature import String, returns


def element_types(cql_type: Optional[str]) -> Optional[tuple[str, Optional[str]]]:
    if cql_type is None:
        return None
    try:
        parsed = parse_cql_type(cql_type)
    except Exception:  # noqa: BLE001 -- an unknown type is reported by the schema checks
        return None
    if parsed.frozen or not parsed.is_collection:
        return None
    if parsed.name == "map":
        return str(parsed.params[0]), str(parsed.params[1])
    if parsed.name == "set":
        return str(parsed.params[0]), None
    return "timeuuid", str(parsed.params[0])


def value_sort_key(value_json: Optional[str], cql_type: Optional[str]) -> Optional[bytes]:
    if value_json is None or cql_type is None:
        return None
    try:
        return order_key(decode_json_value(loads_json(value_json), cql_type), cql_type)
    except Exception:  # noqa: BLE001 -- cdc_value_error reports the value's problem
        return None


@returns("struct<key_type: string, value_type: string>")
def cdc_element_types(cql_type: String) -> pd.DataFrame:
    found = [element_types(t) for t in cql_type.tolist()]
    return pd.DataFrame({
        "key_type": [f[0] if f else None for f in found],
        "value_type": [f[1] if f else None for f in found],
    })


@returns("binary")
def cdc_value_sort_key(value: String, cql_type: String) -> pd.Series:
    return pd.Series([value_sort_key(v, t) for v, t in zip(value.tolist(), cql_type.tolist())], dtype=object)


def sql_functions() -> dict[str, Callable]:
    """The batch function of every SQL function of this module, by SQL name."""
    return {"cdc_element_types": cdc_element_types, "cdc_value_sort_key": cdc_value_sort_key}

