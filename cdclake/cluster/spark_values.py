"""Values as the Spark Cassandra Connector reads them (a column of a Row, in a Spark task) -> the
JSON-model values of the input contract (cdclake/cql/values.py's table), per CQL type.

The connector maps CQL types to Spark's: the integers to their width (varint to
``decimal(38,0)``), decimal to ``decimal(38,18)``, blob to binary, uuid, timeuuid and inet to
strings (an inet with the JVM's leading ``/``), timestamp to a timestamp (ms), date to a date,
time to a bigint of nanoseconds, duration to its text (``1y2mo3d``), lists and
sets to arrays, maps to maps, tuples (fields ``0``, ``1``…) and user types to structs. What the
connector loses is lost here too: a decimal's scale (``37.50`` reads as
``37.500000000000000000``, given back as ``37.5``, its value with the trailing zeros dropped),
its digits past the 18th after the point, and the digits of a varint past 38.
"""
from __future__ import annotations

import ipaddress
import math
import uuid
from decimal import Decimal
from typing import Any

from cdclake.cql.temporal import duration_from_text
from cdclake.cql.values import float32_value
from python_udfs.cql_types import TUPLE, UDT, CqlType, parse_cql_type
from python_udfs.cql_values import decode_json_value
from python_udfs.ordering import order_key

INTEGERS = ("tinyint", "smallint", "int", "bigint", "varint", "counter")


def model_value(value: Any, cql_type: CqlType | str, udts: dict[str, list[tuple[str, str]]]) -> Any:
    """The JSON-model value of a connector value of ``cql_type`` (None for a null); ``udts``:
    the keyspace's user types, name -> [(field, type text)] by position."""
    if value is None:
        return None
    cql_type = parse_cql_type(cql_type) if isinstance(cql_type, str) else cql_type
    name = cql_type.name
    if name in INTEGERS:
        return int(value)
    if name in ("float", "double"):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return float32_value(value) if name == "float" else float(value)
    if name == "decimal":
        return _decimal(Decimal(value))
    if name == "boolean":
        return bool(value)
    if name in ("text", "varchar", "ascii"):
        return str(value)
    if name == "blob":
        return "0x" + bytes(value).hex()
    if name in ("uuid", "timeuuid"):
        return str(uuid.UUID(str(value)))
    if name == "inet":
        return str(ipaddress.ip_address(str(value).split("/")[-1]))
    if name == "timestamp":
        return epoch_millis(value)
    if name == "date":
        return value.isoformat()
    if name == "time":
        return int(value)
    if name == "duration":
        return duration_from_text(str(value))
    if name == "list":
        return {"list": [model_value(item, cql_type.params[0], udts) for item in value]}
    if name == "set":
        return {"set": _sorted([model_value(item, cql_type.params[0], udts) for item in value], cql_type.params[0],
                               udts)}
    if name == "map":
        key_type, value_type = cql_type.params
        entries = {_key(model_value(k, key_type, udts), key_type, udts): [model_value(k, key_type, udts),
                                                                            model_value(v, value_type, udts)]
                   for k, v in value.items()}
        return {"map": [entries[key] for key in sorted(entries)]}
    if name == TUPLE:
        return {"tuple": [model_value(item, part, udts) for item, part in zip(value, cql_type.params)]}
    if name == UDT:
        fields = udts[cql_type.udt_name]
        given = value.asDict() if hasattr(value, "asDict") else dict(value)
        return {"udt": {field: model_value(given.get(field), field_type, udts) for field, field_type in fields}}
    raise TypeError(f"no JSON-model value for CQL type {cql_type}")


def _decimal(value: Decimal) -> Decimal:
    """The connector's ``decimal(38,18)`` value with its trailing fractional zeros dropped."""
    if value == value.to_integral_value():
        return value.quantize(Decimal(1))
    return value.normalize()


def epoch_millis(value) -> int:
    """Epoch milliseconds of a PySpark timestamp (a naive local datetime, as PySpark gives one)."""
    return int(value.replace(microsecond=0).timestamp()) * 1000 + value.microsecond // 1000


def _key(value: Any, cql_type: CqlType, udts) -> bytes:
    return order_key(decode_json_value(value, cql_type, udts), cql_type, udts)


def _sorted(values: list, cql_type: CqlType, udts) -> list:
    return sorted(values, key=lambda value: _key(value, cql_type, udts))
