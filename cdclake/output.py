"""Print log rows as ScyllaDB would show them: JSON lines (the corpus encoding) or a cqlsh grid."""
from __future__ import annotations

import datetime as dt
import json
import math
import uuid
from decimal import Decimal
from typing import Any, Iterable, Mapping

from python_udfs.cql_types import UDT, UdtRegistry, parse_cql_type, udt_fields


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
