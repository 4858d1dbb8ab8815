"""COMPACT STORAGE tables in the CQL front door (docs/scylla/corners.md, "COMPACT STORAGE"):
refused unless ScyllaDB's enable_create_table_with_compact_storage is on; no row marker; a dense
table with only key columns gets a hidden EMPTY-typed value column whose cell each INSERT writes."""
from __future__ import annotations

import pytest

from cdclake.cql import run_script
from cdclake.cql.table_schema import COMPACT_STORAGE_DISABLED

NOW = 1_700_000_000_000_000
KEYSPACE = "CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};\n"


def run(cql: str, enable: bool = True):
    return run_script(KEYSPACE + cql, now_us=NOW, enable_compact_storage=enable)


def test_refused_unless_the_option_is_on():
    result = run("CREATE TABLE ks.t (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE", enable=False)
    assert [e.message for e in result.errors] == [COMPACT_STORAGE_DISABLED]
    assert "config option to 'true'." in COMPACT_STORAGE_DISABLED and "version.  To enable" in COMPACT_STORAGE_DISABLED


def test_a_dense_table_with_only_keys_writes_its_hidden_value_cell():
    result = run("""
        CREATE TABLE ks.t (pk int, ck int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE;
        INSERT INTO ks.t (pk, ck) VALUES (2, 22) USING TTL 2222;
    """)
    assert [(c.column_name, c.cql_type) for c in result.columns if c.kind == "regular"] == [("value", "empty")]
    assert [(a.atom_kind, a.column_name, a.value, a.ttl_seconds) for a in result.atoms] == [
        ("cell", "value", '""', 2222)]


def test_the_hidden_column_takes_a_free_name():
    result = run("CREATE TABLE ks.t (value int, ck int, PRIMARY KEY (value, ck)) WITH COMPACT STORAGE")
    assert [c.column_name for c in result.columns if c.kind == "regular"] == ["value1"]


def test_static_compact_tables_have_regular_columns_and_no_marker():
    result = run("""
        CREATE TABLE ks.t (pk int PRIMARY KEY, a int, b text) WITH COMPACT STORAGE;
        INSERT INTO ks.t (pk, a, b) VALUES (1, 10, 'x') USING TTL 5;
        INSERT INTO ks.t (pk) VALUES (2);
    """)
    assert {c.kind for c in result.columns if c.column_name in ("a", "b")} == {"regular"}
    assert [(a.atom_kind, a.column_name) for a in result.atoms] == [("cell", "a"), ("cell", "b")]


@pytest.mark.parametrize("statement, error", [
    ("INSERT INTO ks.d (pk, ck) VALUES (1, 1)", "Column v is mandatory for this COMPACT STORAGE table"),
    ("DELETE FROM ks.d WHERE pk = 1 AND ck > 1", 'Range deletions on "compact storage" schemas are not supported'),
    ("ALTER TABLE ks.d ADD w int", "Cannot add new column to a COMPACT STORAGE table"),
    ("ALTER TABLE ks.s DROP a", "Cannot drop columns from a non-CQL3 table"),
    ("ALTER TABLE ks.s ADD c int STATIC", "Static columns are not allowed in COMPACT STORAGE tables"),
])
def test_scylla_errors(statement, error):
    result = run(f"""
        CREATE TABLE ks.d (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE;
        CREATE TABLE ks.s (pk int PRIMARY KEY, a int, b int) WITH COMPACT STORAGE;
        {statement};
    """)
    assert [e.message for e in result.errors] == [error]
