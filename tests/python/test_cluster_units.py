"""The parts of `cdclake load cluster` that need no server: contact points and credentials, the
pull window's timeuuid bounds (ordered as ScyllaDB orders timeuuids), the connector's values in
the contract's encoding, the CQL literals of a backfill, and the DESCRIBE text written from
schema-table rows (it loads as the schema it came from)."""
from __future__ import annotations

import datetime as dt
import random
import uuid
from decimal import Decimal

import pytest

from cdclake.cluster.connection import cluster_from_options, parse_address, read_credentials
from cdclake.cluster.log_pull import last_timeuuid
from cdclake.cluster.schema_read import describe_keyspaces
from cdclake.cluster.spark_values import model_value
from cdclake.cql.interpreter import catalog_of
from cdclake.cql.parse_expressions import term
from cdclake.cql.token_stream import TokenStream
from cdclake.cql.values import literal_value, to_json, value_literal
from cdclake.load.schema_load import load_schema_text

UUID_EPOCH_TICKS = 0x01B21DD213814000


@pytest.mark.parametrize("text, hosts, port", [
    ("10.0.0.1", ("10.0.0.1",), 9042),
    ("10.0.0.1:19042", ("10.0.0.1",), 19042),
    ("a.example:9142,b.example:9142", ("a.example", "b.example"), 9142),
    ("a,b", ("a", "b"), 9042),
])
def test_contact_points(text, hosts, port):
    assert parse_address(text) == (hosts, port)


@pytest.mark.parametrize("text", ["", "a,", "a:x", "a:70000", "a:1,b:2"])
def test_bad_contact_points_are_refused(text):
    with pytest.raises(ValueError):
        parse_address(text)


def test_credentials_come_from_a_file_or_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("CDCLAKE_CLUSTER_USERNAME", "env-user")
    monkeypatch.setenv("CDCLAKE_CLUSTER_PASSWORD", "env-secret")
    assert cluster_from_options("h").username == "env-user"
    assert "env-secret" not in repr(cluster_from_options("h"))
    file = tmp_path / "credentials"
    file.write_text("# for the cluster\nusername = app\npassword=s3cret=x\n")
    cluster = cluster_from_options("h:9043", file, ssl=True)
    assert (cluster.username, cluster.password) == ("app", "s3cret=x")
    assert cluster.connector_settings()["spark.cassandra.auth.password"] == "s3cret=x"
    assert cluster.connector_settings()["spark.cassandra.connection.ssl.enabled"] == "true"
    file.write_text("user=app\n")
    with pytest.raises(ValueError, match="credentials:1"):
        read_credentials(file)


def scylla_timeuuid_key(text: str) -> tuple[int, int]:
    """ScyllaDB's timeuuid order (utils/UUID.hh timeuuid_tri_compare): the timestamp, then the
    clock sequence and node as signed bytes."""
    value = uuid.UUID(text)
    return value.time, int.from_bytes(value.bytes[8:], "big") ^ 0x8080808080808080


def test_the_window_bound_is_the_last_timeuuid_of_its_microsecond():
    rng = random.Random(56)
    for _ in range(500):
        micros = rng.randrange(1_600_000_000_000_000, 1_900_000_000_000_000)
        bound = scylla_timeuuid_key(last_timeuuid(micros))
        assert (uuid.UUID(last_timeuuid(micros)).int >> 76) & 0xF == 1      # version 1 (its variant is 0, as ScyllaDB's)
        for offset in (-1, 0, 1):
            ticks = (micros + offset) * 10 + rng.randrange(10) + UUID_EPOCH_TICKS
            other = str(uuid.UUID(fields=(ticks & 0xFFFFFFFF, (ticks >> 32) & 0xFFFF, 0x1000 | (ticks >> 48),
                                          rng.randrange(256), rng.randrange(256), rng.randrange(1 << 48))))
            assert (scylla_timeuuid_key(other) <= bound) == (offset <= 0)


UDTS = {"pt": [("x", "double"), ("label", "text")]}


class FakeRow(dict):
    def asDict(self):
        return dict(self)


@pytest.mark.parametrize("value, cql_type, expected", [
    (bytearray(b"\xca\xfe"), "blob", '"0xcafe"'),
    (Decimal("37.500000000000000000"), "decimal", "37.5"),
    (Decimal("15.000000000000000000"), "decimal", "15"),
    (Decimal("123456789012345678901234567890"), "varint", "123456789012345678901234567890"),
    (1.100000023841858, "float", "1.1"),
    (float("nan"), "double", '"NaN"'),
    (float("-inf"), "float", '"-Infinity"'),
    ("/2001:db8:0:0:0:0:0:1", "inet", '"2001:db8::1"'),
    ("E4A1B2C0-8000-11EE-8080-808080808080", "timeuuid", '"e4a1b2c0-8000-11ee-8080-808080808080"'),
    (dt.date(2023, 11, 14), "date", '"2023-11-14"'),
    (29574123456789, "time", "29574123456789"),
    ("1y2mo2d1h1ns", "duration", '"1y2mo2d1h1ns"'),
    (["b", "a"], "set<text>", '{"set":["a","b"]}'),
    ([3, 1], "list<int>", '{"list":[3,1]}'),
    ({"z": FakeRow(x=2.5, label=None), "a": FakeRow(x=float("nan"), label="q")}, "map<text, frozen<pt>>",
     '{"map":[["a",{"udt":{"x":"NaN","label":"q"}}],["z",{"udt":{"x":2.5,"label":null}}]]}'),
    ((1, "x"), "frozen<tuple<int, text>>", '{"tuple":[1,"x"]}'),
])
def test_connector_values_in_the_contracts_encoding(value, cql_type, expected):
    assert to_json(model_value(value, cql_type, UDTS)) == expected


def test_a_timestamp_as_pyspark_gives_it_is_its_epoch_milliseconds():
    millis = 1_700_000_000_123
    local = dt.datetime.fromtimestamp(millis // 1000).replace(microsecond=123_000)   # PySpark's form
    assert model_value(local, "timestamp", {}) == millis


SCHEMA = """
CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TYPE k.pt (x double, label text);
CREATE TABLE k.t (k int, c text, s tinyint STATIC, a text, b map<text, frozen<pt>>, d frozen<tuple<int, text>>,
    e duration, f timestamp, g date, h time, i inet, j decimal, l list<blob>, m float, n varint,
    PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC) AND cdc = {'enabled': true, 'preimage': true};
"""


def test_backfill_literals_give_their_values_back():
    table = catalog_of(SCHEMA).table("k", "t")
    values = {"a": "it's", "b": {"map": [["p", {"udt": {"x": 2.5, "label": None}}]]}, "d": {"tuple": [1, "x"]},
              "e": "1y2mo3d4h", "f": 1700000000123, "g": "2023-11-14", "h": 123456789, "i": "2001:db8::1",
              "j": Decimal("12.3400"), "l": {"list": ["0xcafe"]}, "m": 1.1, "n": 123456789012345678901234567890,
              "s": -7}
    for name, value in values.items():
        column = table.column(name)
        literal = value_literal(value, column.type)
        assert literal_value(term(TokenStream(literal)), column.type, name) == value, literal


def schema_table_rows(records) -> dict[str, list[dict]]:
    """The rows system_schema (and ScyllaDB's scylla_tables) hold for some schema records."""
    tables, columns, types = records
    by_type: dict[str, dict] = {}
    for f in sorted(types, key=lambda f: f.field_position):
        row = by_type.setdefault(f.type_name, {"keyspace_name": f.keyspace_name, "type_name": f.type_name,
                                               "field_names": [], "field_types": []})
        row["field_names"].append(f.field_name)
        row["field_types"].append(f.field_type)
    cdc = {t.table_name: {"enabled": str(t.cdc_enabled).lower(), "preimage": t.cdc_preimage,
                          "postimage": str(t.cdc_postimage).lower(), "delta": t.cdc_delta,
                          "ttl": str(t.cdc_ttl_seconds)} for t in tables}
    return {
        "keyspaces": [{"keyspace_name": "k", "durable_writes": True,
                       "replication": {"class": "org.apache.cassandra.locator.SimpleStrategy",
                                       "replication_factor": "1"}}],
        "types": list(by_type.values()),
        "tables": [{"keyspace_name": t.keyspace_name, "table_name": t.table_name,
                    "default_time_to_live": t.default_time_to_live, "flags": ["compound"]} for t in tables],
        "columns": [{"keyspace_name": c.keyspace_name, "table_name": c.table_name, "column_name": c.column_name,
                     "kind": c.kind, "position": c.position if c.kind in ("partition_key", "clustering") else -1,
                     "type": c.cql_type, "clustering_order": c.clustering_order} for c in columns],
        "scylla_tables": [{"keyspace_name": "k", "table_name": name, "cdc": options} for name, options in cdc.items()],
        "scylla_keyspaces": [],
    }


def test_the_describe_written_from_schema_tables_loads_as_the_schema_it_came_from():
    original = load_schema_text(SCHEMA, "schema.cql", 1_700_000_000_000_000, ([], [], []))
    rows = schema_table_rows((original.tables, original.columns, original.types))
    text = describe_keyspaces(rows["keyspaces"], rows["types"], rows["tables"], rows["columns"],
                              rows["scylla_tables"], rows["scylla_keyspaces"])
    again = load_schema_text(text, "cluster", 1_700_000_000_000_000, ([], [], []))
    assert not again.problems, again.problems
    assert again.columns == original.columns
    assert again.types == original.types
    assert [t.as_row() for t in again.tables] == [t.as_row() for t in original.tables]
