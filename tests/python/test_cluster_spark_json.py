"""A log pull converts the connector's values to the contract's JSON text in Spark SQL
(cdclake/cluster/spark_json.py): on random values of every CQL type, in the Spark types the
Spark Cassandra Connector reads them as (sets and maps in an arbitrary order, as a Scala hash
set gives them), the text equals the Python conversion's (spark_values.model_value, then
to_json), which stays as its oracle; the types Spark does not print as Python does are left to
Python."""
from __future__ import annotations

import datetime as dt
import random
import uuid
from decimal import Decimal

import pytest

from cdclake.cluster.spark_json import cell_text, quoted
from cdclake.cluster.spark_values import model_value
from cdclake.cql.values import to_json

pytestmark = pytest.mark.functional

UDTS = {"address": [("street", "text"), ("zip", "int"), ("tags", "frozen<set<text>>"), ("note", "text")]}
TEXT_CHARACTERS = ['a', 'z', ' ', '"', '\\', '/', '\n', '\t', '\r', '\b', '\f', '\x00', '\x01', '\x1f', '\x7f',
                   'é', 'ß', '\u2028', '中', '😀', "'", '{', '[']


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(TEXT_CHARACTERS) for _ in range(rng.randrange(0, 6)))


def _timeuuid(rng: random.Random) -> str:
    # few times, so that a set holds timeuuids of one time, ordered by their low bytes (signed)
    ticks = rng.choice([0x01B21DD213814000, 0x01B21DD213814000 + 1, (1 << 60) - 1])
    lsb = rng.choice([0x8080808080808080, 0x7F7F7F7F7F7F7F7F, 0x0080000000000000, rng.randrange(1 << 64)])
    msb = ((ticks & 0xFFFFFFFF) << 32) | (((ticks >> 32) & 0xFFFF) << 16) | 0x1000 | ((ticks >> 48) & 0x0FFF)
    return str(uuid.UUID(int=(msb << 64) | lsb))


def _uuid(rng: random.Random) -> str:
    return rng.choice([_timeuuid(rng), str(uuid.UUID(int=rng.randrange(1 << 128), version=4)),
                       str(uuid.UUID(int=rng.randrange(1 << 128)))])


SCALARS = {
    "tinyint": ("tinyint", lambda r: r.randrange(-128, 128)),
    "smallint": ("smallint", lambda r: r.randrange(-32768, 32768)),
    "int": ("int", lambda r: r.randrange(-2**31, 2**31)),
    "bigint": ("bigint", lambda r: r.randrange(-2**63, 2**63)),
    "counter": ("bigint", lambda r: r.randrange(-2**63, 2**63)),
    "time": ("bigint", lambda r: r.randrange(0, 86_400 * 10**9)),
    "varint": ("decimal(38,0)", lambda r: Decimal(r.randrange(-10**37, 10**37))),
    "boolean": ("boolean", lambda r: r.random() < 0.5),
    "text": ("string", _text),
    "ascii": ("string", lambda r: "".join(r.choice("ab\"\\\n ~") for _ in range(r.randrange(4)))),
    "blob": ("binary", lambda r: bytearray(r.randbytes(r.randrange(0, 5)))),
    "uuid": ("string", _uuid),
    "timeuuid": ("string", _timeuuid),
    "timestamp": ("timestamp", lambda r: dt.datetime(1970, 1, 1) + dt.timedelta(
        milliseconds=r.randrange(-10**12, 10**13))),
    "date": ("date", lambda r: dt.date(1, 1, 1) + dt.timedelta(days=r.randrange(0, 3_000_000))),
}
SORTABLE = [name for name in SCALARS if name not in ("counter",)]


def _column(rng: random.Random, depth: int = 0) -> tuple[str, str, object]:
    """(CQL type, Spark type, value generator) of a random type: a scalar, a collection, a tuple
    or the user type."""
    kind = rng.choice(["scalar"] * 3 + ["list", "set", "map", "tuple", "udt"] if depth < 2 else ["scalar"])
    if kind == "scalar":
        return _scalar(rng.choice(list(SCALARS)))
    if kind == "set":
        return _set(rng.choice(SORTABLE))
    if kind == "map":
        # a blob map key has no Python oracle (PySpark gives a map's keys as a dict's)
        return _map(rng.choice([name for name in SORTABLE if name != "blob"]), _column(rng, depth + 1))
    if kind == "list":
        element, element_spark, values = _column(rng, depth + 1)
        return f"frozen<list<{element}>>", f"array<{element_spark}>", \
            lambda r: [values(r) for _ in range(r.randrange(0, 4))]
    if kind == "tuple":
        parts = [_column(rng, depth + 1) for _ in range(rng.randrange(1, 4))]
        return (f"frozen<tuple<{', '.join(p[0] for p in parts)}>>",
                "struct<" + ",".join(f"`{i}`:{p[1]}" for i, p in enumerate(parts)) + ">",
                lambda r: tuple(None if r.random() < 0.2 else p[2](r) for p in parts))
    return ("frozen<address>", "struct<street:string,zip:int,tags:array<string>>",
            lambda r: (None if r.random() < 0.2 else _text(r), r.randrange(-5, 5),
                       _shuffled(r, list({_text(r) for _ in range(r.randrange(3))}))))


def _scalar(name: str) -> tuple[str, str, object]:
    return name, SCALARS[name][0], SCALARS[name][1]


def _distinct(rng: random.Random, values) -> list:
    return list({repr(v): v for v in (values(rng) for _ in range(rng.randrange(0, 6)))}.values())


def _set(element: str) -> tuple[str, str, object]:
    spark_type, values = SCALARS[element]
    return f"frozen<set<{element}>>", f"array<{spark_type}>", lambda r: _shuffled(r, _distinct(r, values))


def _map(key: str, value: tuple[str, str, object]) -> tuple[str, str, object]:
    key_spark, keys = SCALARS[key]
    value_type, value_spark, values = value
    return (f"frozen<map<{key}, {value_type}>>", f"map<{key_spark},{value_spark}>",
            lambda r: dict(_shuffled(r, [(k, values(r)) for k in _distinct(r, keys)])))


def _shuffled(rng: random.Random, items: list) -> list:
    rng.shuffle(items)
    return items


def test_every_type_converts_in_spark_as_in_python(spark):
    from pyspark.sql.types import _parse_datatype_string

    rng = random.Random(66)
    columns = [_scalar(name) for name in SCALARS] + [_set(name) for name in SORTABLE]
    columns += [_map(name, _scalar("text")) for name in SORTABLE if name != "blob"]
    columns += [_column(rng, 1) for _ in range(24)]
    schema = _parse_datatype_string(", ".join(f"v{n} {spark_type}" for n, (_, spark_type, _) in enumerate(columns)))
    rows = [tuple(None for _ in columns)] + [tuple(values(rng) for _, _, values in columns) for _ in range(60)]
    frame = spark.createDataFrame(rows, schema)
    texts = [cell_text(quoted(f"v{n}"), cql_type, schema[f"v{n}"].dataType, UDTS)
             for n, (cql_type, _, _) in enumerate(columns)]
    assert all(text is not None for text in texts)
    for row in frame.selectExpr("*", *[f"{text} as text{n}" for n, text in enumerate(texts)]).collect():
        for n, (cql_type, _, _) in enumerate(columns):
            value = row[f"v{n}"]
            expected = None if value is None or (isinstance(value, (list, dict)) and not value) else \
                to_json(model_value(value, cql_type, UDTS))
            assert row[f"text{n}"] == expected, (cql_type, value)


@pytest.mark.parametrize("cql_type, spark_type", [
    ("float", "float"), ("double", "double"), ("decimal", "decimal(38,18)"), ("inet", "string"),
    ("duration", "string"), ("frozen<set<double>>", "array<double>"), ("frozen<map<inet, int>>", "map<string,int>"),
    ("frozen<list<decimal>>", "array<decimal(38,18)>"), ("frozen<tuple<int, float>>", "struct<`0`:int,`1`:float>"),
    ("int", "string"),
])
def test_the_types_spark_does_not_print_as_python_are_left_to_python(spark, cql_type, spark_type):
    from pyspark.sql.types import _parse_datatype_string

    assert cell_text("v", cql_type, _parse_datatype_string(spark_type), UDTS) is None


LOG_SCHEMA = """
CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};
CREATE TABLE ks.t (k int, c timeuuid, v text, f duration, m map<int, text>, l list<int>, PRIMARY KEY (k, c))
    WITH cdc = {'enabled': true};
"""


def test_a_pull_converts_each_log_row_and_names_the_row_it_cannot(spark, tmp_path):
    """``log_row_cells`` on a log table as the connector reads it (a duration whose text does not
    parse), then ``append_cells``: the good row's cells in the log's column order (regular
    columns by name, as ScyllaDB's; an empty collection is a null), the other row refused with its stream, time,
    column and value, and the counts and problems Spark observed in the append."""
    from cdclake.cluster.log_pull import append_cells, log_row_cells
    from cdclake.load.log_load import IMPORTED_LOG_SPARK_SCHEMA
    from cdclake.load.schema_load import load_schema_text
    from cdclake.logschema import log_table_columns

    load = load_schema_text(LOG_SCHEMA, "schema.cql", 1_700_000_000_000_000, ([], [], []))
    read = log_table_columns("ks", "t", load.columns, load.types)
    spark_types = {"cdc$stream_id": "binary", "cdc$time": "string", "cdc$batch_seq_no": "int",
                   "cdc$operation": "tinyint", "cdc$ttl": "bigint", "cdc$end_of_batch": "boolean", "k": "int",
                   "c": "string", "v": "string", "f": "string", "m": "map<int,string>", "l": "map<string,int>"}
    schema = ", ".join(f"{quoted(c.name)} {spark_types.get(c.name, 'boolean' if c.role == 'deleted' else 'array<int>')}"
                       for c in read)
    time_uuid = "13814000-1dd2-11b2-8080-808080808080"
    good = {"cdc$stream_id": bytearray(b"\x01" * 16), "cdc$time": time_uuid, "cdc$batch_seq_no": 0,
            "cdc$operation": 2, "cdc$ttl": None, "cdc$end_of_batch": True, "k": 1, "c": time_uuid,
            "v": 'a "quote"', "f": None, "m": {2: "b", 1: "a"}, "l": {}, "cdc$deleted_v": True}
    bad = {**good, "cdc$stream_id": bytearray(b"\x02" * 16), "f": "an hour"}
    frame = spark.createDataFrame([tuple(row.get(c.name) for c in read) for row in (good, bad)], schema)
    cells = log_row_cells(frame, "ks", "t", read, {}, "cluster ks.t_scylla_cdc_log")
    got = [r.asDict() for r in cells.orderBy("cdc$stream_id", "cell_position").collect()]
    assert [(r["column_name"], r["value"], r["cell_position"]) for r in got if r["problem"] is None] == [
        ("k", "1", 0), ("c", f'"{time_uuid}"', 1), ("m", '{"map":[[1,"a"],[2,"b"]]}', 2), ("v", '"a \\"quote\\""', 3),
        ("cdc$deleted_v", "true", 4)]
    problem = f"cluster ks.t_scylla_cdc_log: stream 0x{'02' * 16} cdc$time {time_uuid}: column f (duration): value 'an hour': "
    assert [r["problem"].startswith(problem) for r in got if r["problem"] is not None] == [True]

    spark.sql(f"create table pulled_cells ({IMPORTED_LOG_SPARK_SCHEMA}) using parquet location '{tmp_path}'")
    try:
        counts, problems = append_cells(spark, cells, [("ks", "t"), ("ks", "other")], "pulled_cells")
        assert counts == {"ks.t": (1, 5)}
        assert len(problems) == 1 and problems[0].startswith(problem)
        assert spark.table("pulled_cells").count() == 5
    finally:
        spark.sql("drop table pulled_cells")
