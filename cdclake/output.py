"""Print log rows as ScyllaDB would show them: JSON lines (the corpus encoding) or a cqlsh grid."""
from __future__ import annotations

import datetime as dt
import json
import math
import uuid
from decimal import Decimal
from typing import Any, Iterable, Mapping

from python_udfs.cql_types import UDT, UdtRegistry, parse_cql_type, udt_fields

# The hidden value column of a dense COMPACT STORAGE table with only key columns has this type;
# the log has no column for it (docs/scylla/log.md §2.2), though its cell's TTL is cdc$ttl.
NOT_LOGGED_TYPE = "empty"
LOG_METADATA_TYPES = {
    "cdc$stream_id": "blob",
    "cdc$time": "timeuuid",
    "cdc$batch_seq_no": "int",
    "cdc$operation": "tinyint",
    "cdc$ttl": "bigint",
    "cdc$end_of_batch": "boolean",
}


def log_column_types(base_columns: Iterable[Mapping], udts: UdtRegistry | None = None) -> dict[str, str]:
    """Log column name -> CQL type of the log column (docs/scylla/log.md §2.2)."""
    types = dict(LOG_METADATA_TYPES)
    for c in base_columns:
        name, parsed = c["column_name"], parse_cql_type(c["cql_type"])
        if parsed.name == NOT_LOGGED_TYPE:
            continue
        if parsed.name == UDT and not parsed.frozen and parsed.udt_name in (udts or {}):
            types[name] = f"frozen<{parsed}>"
            types[f"cdc$deleted_elements_{name}"] = "frozen<set<smallint>>"
        elif parsed.is_collection and not parsed.frozen:
            key = str(parsed.params[0])
            if parsed.name == "list":
                types[name] = f"frozen<map<timeuuid, {key}>>"
                types[f"cdc$deleted_elements_{name}"] = "frozen<set<timeuuid>>"
            else:
                types[name] = f"frozen<{parsed}>"
                types[f"cdc$deleted_elements_{name}"] = f"frozen<set<{key}>>"
        else:
            types[name] = str(parsed)
        if c["kind"] in ("static", "regular"):
            types[f"cdc$deleted_{name}"] = "boolean"
    return types


def log_select_order(names: list[str]) -> list[str]:
    """A log table's columns in ScyllaDB's order (``SELECT *``, DESCRIBE): its partition key
    ``cdc$stream_id``, its clustering key ``cdc$time``, ``cdc$batch_seq_no``, then every other
    column by name (UTF-8 bytes)."""
    keys = ["cdc$stream_id", "cdc$time", "cdc$batch_seq_no"]
    return keys + sorted((n for n in names if n not in keys), key=lambda n: n.encode("utf-8"))


def cql_order_key(value: Any, cql_type: str) -> Any:
    """Sort key that orders values as CQL orders them (timeuuids by their time first)."""
    if parse_cql_type(cql_type).name == "timeuuid" and isinstance(value, str):
        u = uuid.UUID(value)
        return (u.time, u.bytes)
    return value


def encode_value(value: Any, cql_type: str, udts: UdtRegistry | None = None) -> Any:
    """A Spark value of a log column in the corpus's JSON value encoding."""
    if value is None:
        return None
    parsed = parse_cql_type(cql_type)
    if parsed.name == UDT:
        fields = value.asDict() if hasattr(value, "asDict") else dict(value)
        return {"udt": {name: encode_value(fields.get(name), str(field_type), udts)
                        for name, field_type in udt_fields(parsed, udts)}}
    t, params = parsed.name, [str(p) for p in parsed.params]
    if t == "blob":
        return "0x" + bytes(value).hex()
    if t == "timestamp":
        if isinstance(value, dt.datetime):
            if value.tzinfo is None:
                value = value.replace(tzinfo=dt.timezone.utc)
            return int(value.timestamp() * 1000)
        return value
    if t == "date":
        return value.isoformat()
    if t in ("float", "double"):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() and t == "varint" else float(value)
    if t == "map":
        key_type, value_type = params
        items = sorted(value.items(), key=lambda kv: cql_order_key(kv[0], key_type))
        return {"map": [[encode_value(k, key_type, udts), encode_value(v, value_type, udts)] for k, v in items]}
    if t == "set":
        (element_type,) = params
        return {"set": [encode_value(e, element_type, udts)
                        for e in sorted(value, key=lambda e: cql_order_key(e, element_type))]}
    if t == "list":
        (element_type,) = params
        return {"list": [encode_value(e, element_type, udts) for e in value]}
    if t == "tuple":
        return {"tuple": [encode_value(v, et, udts) for v, et in zip(value, params)]}
    return value


def jsonl_lines(rows: Iterable[Mapping]) -> Iterable[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False, separators=(", ", ": "))


def _cell_text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def table_text(table: str, columns: list[str], rows: list[Mapping]) -> str:
    """A cqlsh-like grid of one log table's rows."""
    header = [f" {c} " for c in columns]
    body = [[f" {_cell_text(r.get(c))} " for c in columns] for r in rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)]
    lines = [f"{table}:", "", "|".join(h.rjust(w) for h, w in zip(header, widths)),
             "+".join("-" * w for w in widths)]
    lines += ["|".join(cell.rjust(w) for cell, w in zip(b, widths)) for b in body]
    lines += ["", f"({len(rows)} rows)", ""]
    return "\n".join(lines)
