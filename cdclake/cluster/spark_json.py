"""Connector columns -> the input contract's JSON text, as Spark SQL expressions: a log pull
converts its rows in the JVM, in the tasks that read them, not row by row in Python.

Each expression (Spark SQL text, built in Python: no call into the JVM per function, which would
cost a millisecond each) gives exactly the text that ``to_json(model_value(value, type))``
(cdclake/cluster/spark_values.py, the Python conversion) gives for the same connector value
(tests/python/test_cluster_spark_json.py compares the two on random values of every type):

| CQL type | connector's Spark type | text |
|---|---|---|
| tinyint, smallint, int, bigint, counter, time | byte, short, int, long | the integer |
| varint | ``decimal(38,0)`` | the integer |
| boolean | boolean | ``true`` / ``false`` |
| text, varchar, ascii | string | a JSON string, escaped as Python's ``json.dumps`` |
| blob | binary | ``"0x…"``, lower-case hex |
| uuid, timeuuid | string | the quoted lower-case text |
| timestamp | timestamp | epoch milliseconds |
| date | date | ``"yyyy-mm-dd"`` |
| list, set, map | array, array, map | ``{"list":[…]}``, ``{"set":[…]}`` and ``{"map":[[k,v],…]}``, a set's elements and a map's keys in CQL order |
| tuple, user type | struct | ``{"tuple":[…]}``, ``{"udt":{"field":…}}`` |

CQL order is Spark's order of the values for the integers, varint, boolean, the texts (UTF-8
bytes), blob, timestamp, date and time; a timeuuid or uuid sorts by a hex key of its time and
bytes as ``python_udfs/ordering.py`` orders it. float, double, decimal, duration and inet (whose
texts Spark does not print as Python does), sets and map keys of other types, and any column
whose Spark type is not the one above return None here: the pull converts those columns in
Python (``log_pull.python_cell``), the rest of the row in the JVM.
"""
from __future__ import annotations

import json

from python_udfs.cql_types import TUPLE, UDT, CqlType, parse_cql_type

_INTEGER_TYPES = {"tinyint": "tinyint", "smallint": "smallint", "int": "int", "bigint": "bigint",
                  "counter": "bigint", "time": "bigint", "varint": "decimal(38,0)"}
_PLAIN_TYPES = {"boolean": "boolean", "text": "string", "varchar": "string", "ascii": "string", "blob": "binary",
                "uuid": "string", "timeuuid": "string", "timestamp": "timestamp", "date": "date"}
# sorted by their own Spark order (CQL's)
_NATURAL_ORDER = set(_INTEGER_TYPES) | {"boolean", "text", "varchar", "ascii", "blob", "timestamp", "date"}
# the control characters that JSON writers escape short (\n...), the others as \u00xx
_SHORT_ESCAPES = {0x08: "b", 0x09: "t", 0x0A: "n", 0x0C: "f", 0x0D: "r"}


def quoted(name: str) -> str:
    """A column or field name as Spark SQL reads it (backticks, a backtick doubled)."""
    return "`" + name.replace("`", "``") + "`"


def literal(text: str) -> str:
    """A Spark SQL string literal of ``text``."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def cell_text(column: str, cql_type: CqlType | str, spark_type, udts) -> str | None:
    """The JSON text of a log cell of ``cql_type`` in the column ``column`` (SQL text; null for a
    null or empty collection, which the log does not hold as a cell), or None when Spark cannot
    give Python's text (see the module)."""
    from pyspark.sql.types import ArrayType, MapType

    cql_type = parse_cql_type(cql_type) if isinstance(cql_type, str) else cql_type
    text = json_text(column, cql_type, spark_type, udts)
    if text is None:
        return None
    if isinstance(spark_type, (ArrayType, MapType)):
        # the connector reads a null collection as an empty one
        return f"case when size({column}) > 0 then {text} end"
    return f"case when {column} is not null then {text} end"


def json_text(x: str, cql_type: CqlType, spark_type, udts, depth: int = 0) -> str | None:
    """The JSON text of a non-null value (inner nulls give ``null``), or None (see the module);
    ``depth`` names the lambda variables of nested collections apart."""
    from pyspark.sql.types import ArrayType, MapType, StructType

    name = cql_type.name
    simple = spark_type.simpleString()
    if name in _INTEGER_TYPES:
        return f"cast({x} as string)" if simple == _INTEGER_TYPES[name] else None
    if name in _PLAIN_TYPES:
        if simple != _PLAIN_TYPES[name]:
            return None
        if name == "boolean":
            return f"if({x}, 'true', 'false')"
        if name == "blob":
            return f"""concat('"0x', lower(hex({x})), '"')"""
        if name in ("uuid", "timeuuid"):
            return f"""concat('"', lower({x}), '"')"""
        if name == "timestamp":
            return f"cast(unix_millis({x}) as string)"
        if name == "date":
            return f"""concat('"', cast({x} as string), '"')"""
        return json_string(x)
    element = f"e{depth}"
    if name in ("list", "set") and isinstance(spark_type, ArrayType):
        element_type = cql_type.params[0]
        items = _inner(element, element_type, spark_type.elementType, udts, depth + 1)
        if items is None:
            return None
        if name == "set":
            key = _sort_key(element_type)
            if key is None:
                return None
            x = f"array_sort({x}, (a{depth}, b{depth}) -> {_compare(key(f'a{depth}'), key(f'b{depth}'))})"
        return f"""concat('{{"{name}":[', array_join(transform({x}, {element} -> {items}), ','), ']}}')"""
    if name == "map" and isinstance(spark_type, MapType):
        key_type, value_type = cql_type.params
        key = _sort_key(key_type)
        key_text = _inner(f"{element}.key", key_type, spark_type.keyType, udts, depth + 1)
        value_text = _inner(f"{element}.value", value_type, spark_type.valueType, udts, depth + 1)
        if key is None or key_text is None or value_text is None:
            return None
        entries = (f"array_sort(map_entries({x}), (a{depth}, b{depth}) -> "
                   f"{_compare(key(f'a{depth}.key'), key(f'b{depth}.key'))})")
        return (f"""concat('{{"map":[', array_join(transform({entries}, {element} -> """
                f"""concat('[', {key_text}, ',', {value_text}, ']')), ','), ']}}')""")
    if name == TUPLE and isinstance(spark_type, StructType):
        if len(spark_type.fields) != len(cql_type.params):
            return None
        parts = [_inner(f"{x}.{quoted(field.name)}", part, field.dataType, udts, depth + 1)
                 for field, part in zip(spark_type.fields, cql_type.params)]
        if any(part is None for part in parts):
            return None
        return f"""concat('{{"tuple":[', {", ',', ".join(parts)}, ']}}')"""
    if name == UDT and isinstance(spark_type, StructType) and cql_type.udt_name in udts:
        given = {field.name: field.dataType for field in spark_type.fields}
        parts = []
        for field, field_type in udts[cql_type.udt_name]:
            value = (_inner(f"{x}.{quoted(field)}", parse_cql_type(field_type), given[field], udts, depth + 1)
                     if field in given else "'null'")
            if value is None:
                return None
            parts.append(f"{literal(json.dumps(str(field), ensure_ascii=False) + ':')}, {value}")
        return f"""concat('{{"udt":{{', {", ',', ".join(parts)}, '}}}}')"""
    return None


def json_string(x: str) -> str:
    """A string as Python's ``json.dumps(x, ensure_ascii=False)`` writes it: quoted, and where it
    holds a quote, a backslash or a control character, as Spark's ``to_json`` escapes it (as Python
    does, but in upper-case hex: ``\u001F``, which is put in lower case)."""
    escaped = f"regexp_extract(to_json(array({x})), '(?s)^\\\\[(.*)\\\\]$', 1)"
    for code in range(0x20):
        if code not in _SHORT_ESCAPES and f"{code:04x}" != f"{code:04X}":
            escaped = f"replace({escaped}, {literal(f'{chr(92)}u{code:04X}')}, {literal(f'{chr(92)}u{code:04x}')})"
    needs_escapes = literal('[\\x00-\\x1f"\\\\]')       # the Java pattern [\x00-\x1f"\\]
    return f"""case when {x} rlike {needs_escapes} then {escaped} else concat('"', {x}, '"') end"""


def _inner(x: str, cql_type: CqlType, spark_type, udts, depth: int) -> str | None:
    text = json_text(x, cql_type, spark_type, udts, depth)
    return None if text is None else f"if({x} is null, 'null', {text})"


def _compare(a: str, b: str) -> str:
    return f"case when {a} < {b} then -1 when {a} > {b} then 1 else 0 end"


def _sort_key(cql_type: CqlType):
    """A function from a set element or map key (SQL text) to SQL text of a value in CQL order
    (None: none known)."""
    if cql_type.name in _NATURAL_ORDER:
        return lambda x: x
    if cql_type.name == "timeuuid":
        return _timeuuid_key
    if cql_type.name == "uuid":
        return _uuid_key
    return None


def _timeuuid_key(x: str, flip_lsb: bool = True) -> str:
    """A timeuuid's 60-bit time, then its low 8 bytes as signed bytes (``timeuuid_tri_compare``):
    hex text whose order is that order."""
    text = f"lower({x})"
    time = f"substr({text}, 16, 3), substr({text}, 10, 4), substr({text}, 1, 8)"
    lsb = f"concat(substr({text}, 20, 4), substr({text}, 25, 12))"
    if not flip_lsb:
        return f"concat({time}, {lsb})"
    # the high bit of each byte flipped: its first hex digit translated
    flipped = ", ".join(f"translate(substr({lsb}, {2 * byte + 1}, 1), '0123456789abcdef', '89abcdef01234567'), "
                        f"substr({lsb}, {2 * byte + 2}, 1)" for byte in range(8))
    return f"concat({time}, {flipped})"


def _uuid_key(x: str) -> str:
    """A uuid's version, then as a timeuuid with unsigned low bytes (version 1) or its bytes."""
    version = f"substr(lower({x}), 15, 1)"
    return (f"concat({version}, if({version} = '1', {_timeuuid_key(x, flip_lsb=False)}, "
            f"replace(lower({x}), '-', '')))")
