"""Recursive-descent parser of the CQL front door (cdclake/cql/parser.py)."""
from __future__ import annotations

import json
import re

import pytest
from conftest import TEST_DATA

from cdclake.cql import ast
from cdclake.cql.errors import CqlSyntaxError
from cdclake.cql.parser import parse_script, parse_statement

def docs_cases() -> list[dict]:
    return json.loads((TEST_DATA / "cases_docs.json").read_text())["cases"]


def with_concrete_timestamps(cql: str) -> str:
    return re.sub(r"\{T([+-]\d+)?\}", lambda m: str(1_700_000_000_000_000 + int(m.group(1) or 0)), cql)


def test_every_statement_of_the_documentation_cases_parses():
    cases = docs_cases()
    assert len(cases) == 51
    count = 0
    for case in cases:
        for cql in case["setup"] + [statement["cql"] for statement in case["statements"]]:
            statement = parse_statement(with_concrete_timestamps(cql))
            assert not isinstance(statement, ast.OtherStatement), cql
            count += 1
    assert count == 144


def test_script_splits_on_semicolons_and_keeps_each_statement_text_and_position():
    script = "-- setup\nUSE ks;;\n\nINSERT INTO t (a) VALUES (1) ; /* c */ SELECT * FROM t"
    statements = parse_script(script)
    assert [type(s) for s in statements] == [ast.UseKeyspace, ast.Insert, ast.Select]
    assert [s.text for s in statements] == ["USE ks", "INSERT INTO t (a) VALUES (1)", "SELECT * FROM t"]
    assert [s.pos for s in statements] == [ast.Pos(2, 1), ast.Pos(4, 1), ast.Pos(4, 40)]


def test_identifiers_are_case_insensitive_unless_quoted():
    statement = parse_statement('UPDATE Ks.MyTable SET "Value" = 1, Other = 2 WHERE PK = 0')
    assert (statement.table.keyspace, statement.table.name) == ("ks", "mytable")
    assert [a.column for a in statement.assignments] == ["Value", "other"]
    assert statement.where[0].column == "pk"


@pytest.mark.parametrize("cql, partition, clustering", [
    ("CREATE TABLE t (pk int PRIMARY KEY, v int)", ("pk",), ()),
    ("CREATE TABLE t (pk int, v int, PRIMARY KEY (pk))", ("pk",), ()),
    ("CREATE TABLE t (pk int, ck int, v int, PRIMARY KEY (pk, ck))", ("pk",), ("ck",)),
    ("CREATE TABLE t (a int, b int, c int, d int, PRIMARY KEY ((a, b), c, d))", ("a", "b"), ("c", "d")),
    ("CREATE TABLE t (a int, b int, PRIMARY KEY ((a), b),)", ("a",), ("b",)),
])
def test_create_table_primary_key_forms(cql, partition, clustering):
    assert parse_statement(cql).primary_keys == ((partition, clustering),)


def test_create_table_columns_types_and_options():
    statement = parse_statement(
        "CREATE TABLE IF NOT EXISTS ks.t (pk int, ck text, s int static, m map<int, text>, "
        "f frozen<list<frozen<set<int>>>>, tu tuple<int, text>, u ut, v vector<float, 3>, "
        "PRIMARY KEY (pk, ck)) WITH CLUSTERING ORDER BY (ck DESC) AND cdc = {'enabled': true, 'ttl': 60} "
        "AND default_time_to_live = 10 AND COMPACT STORAGE AND comment = 'hi' AND compaction = {'class': 'X'}")
    assert statement.if_not_exists
    assert [(c.name, c.is_static) for c in statement.columns][:3] == [("pk", False), ("ck", False), ("s", True)]
    types = {c.name: c.type for c in statement.columns}
    assert types["m"].name == "map" and [a.name for a in types["m"].args] == ["int", "text"]
    assert types["f"].name == "frozen" and types["f"].args[0].args[0].name == "frozen"
    assert types["u"].user_type.name == "ut"
    assert types["v"].dimension == 3
    options = statement.options
    assert options.clustering_order == (("ck", "desc"),)
    assert options.compact_storage
    assert options.properties == {"cdc": {"enabled": "true", "ttl": "60"}, "default_time_to_live": "10",
                                  "comment": "hi", "compaction": {"class": "X"}}


def test_create_keyspace_and_type():
    keyspace = parse_statement("CREATE KEYSPACE IF NOT EXISTS ks WITH replication = "
                               "{'class': 'SimpleStrategy', 'replication_factor': 1} AND durable_writes = false")
    assert keyspace.properties == {"replication": {"class": "SimpleStrategy", "replication_factor": "1"},
                                   "durable_writes": "false"}
    user_type = parse_statement("CREATE TYPE ks.ut (a int, b frozen<list<int>>)")
    assert user_type.type_name.name == "ut" and [f for f, _ in user_type.fields] == ["a", "b"]


@pytest.mark.parametrize("cql, action", [
    ("ALTER TABLE t WITH cdc = {'enabled': false}", "with"),
    ("ALTER TABLE t ADD x int", "add"),
    ("ALTER TABLE t ADD (x int, y set<int> static)", "add"),
    ("ALTER TABLE t DROP x", "drop"),
    ("ALTER TABLE t DROP (x, y)", "drop"),
    ("ALTER TABLE t RENAME a TO b AND c TO d", "rename"),
    ("ALTER TABLE t ALTER x TYPE blob", "alter_type"),
])
def test_alter_table_forms(cql, action):
    assert parse_statement(cql).action == action


@pytest.mark.parametrize("cql, kind, name, if_exists", [
    ("DROP TABLE ks.t", "table", "t", False),
    ("DROP COLUMNFAMILY IF EXISTS t", "table", "t", True),
    ("DROP KEYSPACE IF EXISTS ks", "keyspace", "ks", True),
    ("DROP TYPE ks.ut", "type", "ut", False),
])
def test_drop_forms(cql, kind, name, if_exists):
    statement = parse_statement(cql)
    assert (statement.object_kind, statement.name.name, statement.if_exists) == (kind, name, if_exists)


def test_insert_with_using_after_values_and_if_not_exists():
    statement = parse_statement("INSERT INTO t (a, b) VALUES (1, 'x') IF NOT EXISTS USING TTL 5 AND TIMESTAMP 123")
    assert statement.columns == ("a", "b") and statement.if_not_exists
    assert statement.using.ttl.text == "5" and statement.using.timestamp.text == "123"
    assert parse_statement("INSERT INTO t JSON '{\"a\": 1}' DEFAULT UNSET").json == '{"a": 1}'


@pytest.mark.parametrize("assignment, kind", [
    ("c = 1", "set"), ("c = c + {1}", "add"), ("c += [1]", "add"), ("c = c - {1}", "subtract"),
    ("c -= {1}", "subtract"), ("c = [1] + c", "prepend"), ("c[1] = 'x'", "set_element"),
    ("c.f = 1", "set_field"),
    ("c[SCYLLA_TIMEUUID_LIST_INDEX(0dd381f0-2fea-11eb-af55-000000000001)] = 0", "set_timeuuid_element"),
])
def test_assignment_kinds(assignment, kind):
    statement = parse_statement(f"UPDATE t SET {assignment} WHERE k = 0")
    assert statement.assignments[0].kind == kind
    assert statement.assignments[0].text == assignment


def test_where_relations():
    statement = parse_statement(
        "DELETE FROM t WHERE pk IN (1, 2) AND ck1 = 0 AND ck2 >= 1 AND ck2 < 3 AND (a, b) > (1, 2) "
        "AND (a, b) IN ((1, 2), (3, 4)) AND TOKEN(pk) > 5")
    kinds = [(type(r).__name__, r.operator) for r in statement.where]
    assert kinds == [("Relation", "IN"), ("Relation", "="), ("Relation", ">="), ("Relation", "<"),
                     ("MultiColumnRelation", ">"), ("MultiColumnRelation", "IN"), ("TokenRelation", ">")]
    assert statement.where[0].text == "pk IN (1, 2)"


def test_delete_targets_using_and_conditions():
    statement = parse_statement("DELETE a, m[1], u.f FROM t USING TIMESTAMP 7 WHERE k = 0 IF a = 1 AND b > 2")
    assert [(d.column, d.key is not None, d.field_name) for d in statement.targets] == [
        ("a", False, None), ("m", True, None), ("u", False, "f")]
    assert statement.using.timestamp.text == "7"
    assert [c.text for c in statement.conditions] == ["a = 1", "b > 2"]
    assert parse_statement("DELETE FROM t WHERE k = 0 IF EXISTS").if_exists


@pytest.mark.parametrize("header, kind", [
    ("BEGIN BATCH", "logged"), ("BEGIN UNLOGGED BATCH", "unlogged"), ("BEGIN LOGGED BATCH", "logged"),
    ("BEGIN COUNTER BATCH", "counter"), ("begin unlogged batch using timestamp 5", "unlogged"),
])
def test_batch_forms(header, kind):
    statement = parse_statement(f"{header} INSERT INTO t (a) VALUES (1); UPDATE t SET b = 2 WHERE a = 1 "
                                "DELETE FROM t WHERE a = 3; APPLY BATCH")
    assert statement.batch_kind == kind
    assert [type(s) for s in statement.statements] == [ast.Insert, ast.Update, ast.Delete]
    assert statement.statements[1].text == "UPDATE t SET b = 2 WHERE a = 1"


@pytest.mark.parametrize("cql", [
    'SELECT "cdc$time", pk FROM ks.t_scylla_cdc_log',
    "SELECT * FROM t WHERE pk = 0 AND ck IN (1, 2) ORDER BY ck DESC LIMIT 5 ALLOW FILTERING",
    "SELECT writetime(a), ttl(b) AS t, count(*), CAST(a AS text), totimestamp(\"cdc$time\") FROM t",
    "SELECT JSON DISTINCT pk FROM t PER PARTITION LIMIT 1 BYPASS CACHE",
])
def test_select_parses_as_a_read(cql):
    assert isinstance(parse_statement(cql), ast.Select)


@pytest.mark.parametrize("cql, kind", [
    ("CREATE INDEX ON t (v)", "CREATE INDEX"), ("TRUNCATE t", "TRUNCATE"),
    ("CREATE MATERIALIZED VIEW mv AS SELECT * FROM t WHERE a IS NOT NULL PRIMARY KEY (a)", "CREATE MATERIALIZED VIEW"),
    ("GRANT SELECT ON t TO r", "GRANT"),
])
def test_other_statements_are_recognised_by_name(cql, kind):
    statement = parse_statement(cql)
    assert isinstance(statement, ast.OtherStatement) and statement.kind == kind


@pytest.mark.parametrize("literal, expected", [
    ("-5", ast.Constant(ast.INTEGER, "-5", ast.Pos(1, 27))),
    ("NaN", ast.Constant(ast.FLOAT, "NaN", ast.Pos(1, 27))),
    ("-Infinity", ast.Constant(ast.FLOAT, "-Infinity", ast.Pos(1, 27))),
    ("true", ast.Constant(ast.BOOLEAN, "true", ast.Pos(1, 27))),
    ("null", ast.NullLiteral(ast.Pos(1, 27))),
])
def test_constants(literal, expected):
    assert parse_statement(f"INSERT INTO t (a) VALUES ({literal})").values[0] == expected


def test_collection_tuple_and_user_type_literals():
    values = parse_statement(
        "INSERT INTO t (a, b, c, d, e, f, g) VALUES ([1, 2], {1, 2}, {1: 'a'}, {}, {x: 1, \"Y\": null}, (1, 'a'), "
        "{true: 1})").values
    assert [type(v).__name__ for v in values] == [
        "ListLiteral", "SetLiteral", "MapLiteral", "EmptyBraces", "UdtLiteral", "TupleLiteral", "MapLiteral"]
    assert [name for name, _ in values[4].fields] == ["x", "Y"]


def test_syntax_error_names_line_column_and_what_was_expected():
    script = "USE ks;\nINSERT INTO t (a) VALUES (1);\nDELETE FROM t WHERE (a, b WHERE"
    with pytest.raises(CqlSyntaxError) as caught:
        parse_script(script)
    assert str(caught.value) == "line 3, column 27: expected ')' but found 'WHERE'"
    assert (caught.value.line, caught.value.column) == (3, 27)


@pytest.mark.parametrize("cql, message", [
    ("INSERT INTO t (a) VALUES (?)", "line 1, column 27: bind markers are not supported in scripts"),
    ("INSERT INTO t (a) VALUES (:a)", "line 1, column 27: bind markers are not supported in scripts"),
    ("SELEC * FROM t", "line 1, column 1: expected a statement but found 'SELEC'"),
    ("USE ks USE ks", "line 1, column 8: expected ';' but found 'USE'"),
    ("CREATE TABLE from (a int PRIMARY KEY)", "line 1, column 14: expected table name but found 'from'"),
    ("UPDATE t SET a = 1", "line 1, column 19: expected WHERE but found end of input"),
    ("DELETE FROM t USING TTL 5 WHERE a = 1", "line 1, column 21: expected TIMESTAMP but found 'TTL'"),
    ("CREATE TABLE t (a int PRIMARY KEY) WITH x = 1 AND x = 2",
     "line 1, column 51: Multiple definition for property x"),
])
def test_syntax_errors(cql, message):
    with pytest.raises(CqlSyntaxError) as caught:
        parse_script(cql)
    assert str(caught.value).startswith(message)


def test_quoted_reserved_word_is_an_identifier():
    assert parse_statement('UPDATE t SET "from" = 1 WHERE "select" = 0').assignments[0].column == "from"
