"""DML -> base-mutation atoms (docs/scylla/log.md §3; cdclake/cql/mutations.py, restrictions.py, mutation_builder.py)."""
from __future__ import annotations

import json
import re

import pytest
from conftest import TEST_DATA

from cdclake.cql import CqlUnsupportedError, run_script

NOW = 1_700_000_000_000_000
STEP = 1000
KEYSPACE = "CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};\n"
TABLE = "CREATE TABLE ks.t (pk int, ck int, s int static, v int, w text, PRIMARY KEY (pk, ck));\n"
CASES_PATH = TEST_DATA / "cases_docs.json"

_SHOWN = ("atom_kind", "partition_key", "clustering_key", "column_name", "is_live", "value", "ttl_seconds",
          "range_start", "range_start_inclusive", "range_end", "range_end_inclusive")


def run(cql: str, **clock):
    return run_script(KEYSPACE + cql, now_us=NOW, step_us=STEP, enable_compact_storage=True, **clock)


def atoms(cql: str, *, with_timestamp: bool = False) -> list[tuple]:
    """Atoms of a script as tuples of their set fields (timestamps as offsets from NOW)."""
    result = run(cql)
    assert not result.errors, [str(e) for e in result.errors]
    shown = []
    for atom in result.atoms:
        row = atom.as_row()
        fields = tuple(row[name] for name in _SHOWN if row[name] is not None)
        shown.append(fields + ((row["write_timestamp"] - NOW,) if with_timestamp else ()))
    return shown


def error_of(cql: str) -> str:
    result = run(cql)
    assert len(result.errors) == 1, result.errors
    return result.errors[0].message


def clock(statement_index: int) -> int:
    """Offset of statement k's default timestamp (statement 0 is the CREATE KEYSPACE)."""
    return statement_index * STEP


# -------------------------------------------------------------------------- documentation cases


def atomic_docs_cases() -> list[dict]:
    cases = json.loads(CASES_PATH.read_text())["cases"]
    atomic = []
    for case in cases:
        ddl = " ".join(case["setup"] + [s["cql"] for s in case["statements"]]).lower()
        if not re.search(r"\b(map|set|list)\s*<", ddl) and "create type" not in ddl and case["statements"]:
            atomic.append(case)
    return atomic


def case_script(case: dict) -> str:
    statements = case["setup"] + [s["cql"] for s in case["statements"]]
    return re.sub(r"\{T([+-]\d+)?\}", lambda m: str(NOW + int(m.group(1) or 0)), ";\n".join(statements))


EXPECTED_ATOM_KINDS = {
    "doc-lt-time-column": ["cell"],
    "doc-lt-batch-seq-same-ts": ["cell", "cell"],
    "doc-lt-batch-distinct-ts": ["cell", "cell"],
    "doc-lt-ttl-column": ["cell", "cell"],
    "doc-lt-ttl-on-null": ["cell"],
    "doc-lt-ttl-split-live-dead": ["cell", "cell"],
    "doc-bo-updates": ["cell", "cell"],
    "doc-bo-column-delete": ["cell"],
    "doc-bo-static-and-clustered-update": ["cell", "cell"],
    "doc-bo-inserts": ["row_marker", "cell", "row_marker", "cell"],
    "doc-bo-insert-static-and-clustered": ["cell", "row_marker", "cell"],
    "doc-bo-static-only-insert": ["cell"],
    "doc-bo-row-delete": ["row_marker", "cell", "row_tombstone"],
    "doc-bo-range-delete": ["row_marker", "cell"] * 4 + ["range_tombstone"],
    "doc-bo-range-delete-one-sided": ["range_tombstone"],
    "doc-bo-range-delete-multicol-ck": ["range_tombstone"],
    "doc-bo-partition-delete": ["row_marker", "cell", "row_marker", "cell", "partition_tombstone"],
    "doc-at-atomic": ["cell", "cell"],
    "doc-at-counters-rejected": [],
    "doc-pi-preimage-by-operation": ["cell"] * 4 + ["row_marker", "cell", "row_tombstone", "range_tombstone",
                                                    "partition_tombstone"],
    "doc-pi-postimage": ["cell"] * 3 + ["row_marker", "cell", "row_tombstone", "range_tombstone",
                                        "partition_tombstone"],
}


def test_every_atomic_documentation_case_runs():
    cases = atomic_docs_cases()
    assert sorted(case["id"] for case in cases) == sorted(EXPECTED_ATOM_KINDS)
    for case in cases:
        result = run(case_script(case))
        expected_errors = [s["expect_error"]["message"] for s in case["statements"] if "expect_error" in s]
        assert [e.message for e in result.errors] == expected_errors, case["id"]
        assert [a.atom_kind for a in result.atoms] == EXPECTED_ATOM_KINDS[case["id"]], case["id"]
        symbolic = [s.get("ts") for s in case["statements"]]
        timestamps = sorted({a.write_timestamp for a in result.atoms})
        if all(symbolic):
            first = len(case["setup"]) + 1
            assert timestamps == [NOW + clock(first + i) for i in range(len(symbolic))], case["id"]


def test_multicolumn_clustering_range_delete_of_the_docs():
    assert atoms("CREATE TABLE ks.t (pk int, ck1 int, ck2 int, ck3 int, v int, primary key (pk, ck1, ck2, ck3));"
                 "DELETE FROM ks.t WHERE pk = 0 and ck1 = 0 AND ck2 > 0 AND ck2 < 3") == [
        ("range_tombstone", '{"pk":0}', '{"ck1":0,"ck2":0}', False, '{"ck1":0,"ck2":3}', False)]


# -------------------------------------------------------------------------- INSERT / UPDATE


def test_insert_writes_a_marker_and_cells_and_null_kills():
    assert atoms(TABLE + "INSERT INTO ks.t (pk, ck, v, w) VALUES (0, 1, 2, null)", with_timestamp=True) == [
        ("row_marker", '{"pk":0}', '{"ck":1}', True, clock(2)),
        ("cell", '{"pk":0}', '{"ck":1}', "v", True, "2", clock(2)),
        ("cell", '{"pk":0}', '{"ck":1}', "w", False, clock(2)),
    ]


def test_static_only_insert_writes_no_marker_but_a_keyed_one_does():
    assert atoms(TABLE + "INSERT INTO ks.t (pk, s) VALUES (0, 5)") == [("cell", '{"pk":0}', "s", True, "5")]
    assert atoms(TABLE + "INSERT INTO ks.t (pk, ck, s) VALUES (0, 1, 5)") == [
        ("cell", '{"pk":0}', "s", True, "5"), ("row_marker", '{"pk":0}', '{"ck":1}', True)]


def test_key_only_insert_is_just_a_marker():
    assert atoms(TABLE + "INSERT INTO ks.t (pk, ck) VALUES (0, 1)") == [("row_marker", '{"pk":0}', '{"ck":1}', True)]


def test_update_sets_and_kills_static_and_regular_cells():
    assert atoms(TABLE + "UPDATE ks.t SET s = 1, v = null, w = 'x' WHERE pk = 0 AND ck = 1") == [
        ("cell", '{"pk":0}', "s", True, "1"),
        ("cell", '{"pk":0}', '{"ck":1}', "v", False),
        ("cell", '{"pk":0}', '{"ck":1}', "w", True, '"x"'),
    ]
    assert atoms(TABLE + "UPDATE ks.t SET s = 1 WHERE pk = 0") == [("cell", '{"pk":0}', "s", True, "1")]


def test_in_restrictions_write_every_key_combination():
    shown = atoms("CREATE TABLE ks.t (a int, b int, c int, d int, v int, PRIMARY KEY ((a, b), c, d));"
                  "UPDATE ks.t SET v = 1 WHERE a IN (1, 0) AND b = 5 AND c IN (2, 1) AND d = 0")
    assert [(pk, ck) for _, pk, ck, *_ in shown] == [
        ('{"a":0,"b":5}', '{"c":1,"d":0}'), ('{"a":0,"b":5}', '{"c":2,"d":0}'),
        ('{"a":1,"b":5}', '{"c":1,"d":0}'), ('{"a":1,"b":5}', '{"c":2,"d":0}')]


def test_tables_without_clustering_key():
    shown = atoms("CREATE TABLE ks.t (pk text PRIMARY KEY, v blob);"
                  "INSERT INTO ks.t (pk, v) VALUES ('a', 0xFF);"
                  "DELETE v FROM ks.t WHERE pk = 'a';"
                  "DELETE FROM ks.t WHERE pk = 'a'")
    assert shown == [("row_marker", '{"pk":"a"}', True), ("cell", '{"pk":"a"}', "v", True, '"0xff"'),
                     ("cell", '{"pk":"a"}', "v", False), ("partition_tombstone", '{"pk":"a"}')]


def test_compact_storage_inserts_have_no_marker():
    assert atoms("CREATE TABLE ks.t (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE;"
                 "INSERT INTO ks.t (pk, ck, v) VALUES (0, 0, 0)") == [("cell", '{"pk":0}', '{"ck":0}', "v", True, "0")]


def test_frozen_collections_tuples_and_udts_are_atomic_cells():
    shown = atoms("CREATE TYPE ks.ut (a int, b text);"
                  "CREATE TABLE ks.t (pk int PRIMARY KEY, m frozen<map<int, text>>, tu tuple<int, text>, u frozen<ut>);"
                  "UPDATE ks.t SET m = {2: 'b', 1: 'a'}, tu = (1, null), u = {b: 'x'} WHERE pk = 0")
    assert [value for *_, value in shown] == ['{"map":[[1,"a"],[2,"b"]]}', '{"tuple":[1,null]}',
                                              '{"udt":{"a":null,"b":"x"}}']


@pytest.mark.parametrize("column_type", ["ut", "frozen<ut>"])
def test_a_tuple_literal_for_a_user_type_column_writes_what_its_user_type_literal_does(column_type):
    def rows(cql: str) -> list[dict]:
        result = run("CREATE TYPE ks.ut (a int, b text, c int);"
                     f"CREATE TABLE ks.t (pk int, ck int, v {column_type}, m map<int, frozen<ut>>,"
                     " PRIMARY KEY (pk, ck));"
                     + cql)
        assert not result.errors, [str(e) for e in result.errors]
        return [atom.as_row() for atom in result.atoms]

    tuples = rows("INSERT INTO ks.t (pk, ck, v, m) VALUES (0, 0, (1, 'x'), {1: (2, 'y', 3)});"
                  "UPDATE ks.t SET v = (null, 'z', 4) WHERE pk = 0 AND ck = 0")
    assert tuples == rows("INSERT INTO ks.t (pk, ck, v, m) VALUES (0, 0, {a: 1, b: 'x'}, {1: {a: 2, b: 'y', c: 3}});"
                          "UPDATE ks.t SET v = {b: 'z', c: 4} WHERE pk = 0 AND ck = 0")
    assert len(tuples) > 3


def test_writes_to_tables_without_cdc_still_produce_atoms():
    assert atoms("CREATE TABLE ks.t (pk int PRIMARY KEY, v int) WITH cdc = {'enabled': false};"
                 "UPDATE ks.t SET v = 1 WHERE pk = 0") == [("cell", '{"pk":0}', "v", True, "1")]


# -------------------------------------------------------------------------- TTL


def test_ttl_from_using_or_the_table_default():
    shown = atoms("CREATE TABLE ks.t (pk int, ck int, v int, w int, PRIMARY KEY (pk, ck)) "
                  "WITH default_time_to_live = 100;"
                  "INSERT INTO ks.t (pk, ck, v, w) VALUES (0, 0, 1, null);"
                  "INSERT INTO ks.t (pk, ck, v) VALUES (0, 1, 1) USING TTL 5;"
                  "UPDATE ks.t USING TTL 0 SET v = 1 WHERE pk = 0 AND ck = 2")
    assert shown == [
        ("row_marker", '{"pk":0}', '{"ck":0}', True, 100),
        ("cell", '{"pk":0}', '{"ck":0}', "v", True, "1", 100),
        ("cell", '{"pk":0}', '{"ck":0}', "w", False),
        ("row_marker", '{"pk":0}', '{"ck":1}', True, 5),
        ("cell", '{"pk":0}', '{"ck":1}', "v", True, "1", 5),
        ("cell", '{"pk":0}', '{"ck":2}', "v", True, "1"),
    ]


@pytest.mark.parametrize("using, message", [
    ("USING TTL -1", "A TTL must be greater or equal to 0, but was -1"),
    ("USING TTL 630720001", "ttl is too large. requested (630720001) maximum (630720000)"),
    ("USING TTL 'x'", 'Invalid STRING constant (\'x\') for "[ttl]" of type int'),
])
def test_ttl_errors(using, message):
    assert error_of(TABLE + f"UPDATE ks.t {using} SET v = 1 WHERE pk = 0 AND ck = 0") == message


# -------------------------------------------------------------------------- DELETE


@pytest.mark.parametrize("where, expected", [
    ("pk = 0", [("partition_tombstone", '{"pk":0}')]),
    ("pk = 0 AND ck1 = 1 AND ck2 = 2", [("row_tombstone", '{"pk":0}', '{"ck1":1,"ck2":2}')]),
    ("pk = 0 AND ck1 = 1 AND ck2 IN (3, 2)", [("row_tombstone", '{"pk":0}', '{"ck1":1,"ck2":2}'),
                                              ("row_tombstone", '{"pk":0}', '{"ck1":1,"ck2":3}')]),
    ("pk = 0 AND ck1 = 1", [("range_tombstone", '{"pk":0}', '{"ck1":1}', True, '{"ck1":1}', True)]),
    ("pk = 0 AND ck1 > 1", [("range_tombstone", '{"pk":0}', '{"ck1":1}', False, "{}", True)]),
    ("pk = 0 AND ck1 <= 1", [("range_tombstone", '{"pk":0}', "{}", True, '{"ck1":1}', True)]),
    ("pk = 0 AND ck1 = 1 AND ck2 >= 2 AND ck2 <= 2", [("row_tombstone", '{"pk":0}', '{"ck1":1,"ck2":2}')]),
    ("pk = 0 AND ck1 >= 2 AND ck1 <= 2", [("range_tombstone", '{"pk":0}', '{"ck1":2}', True, '{"ck1":2}', True)]),
    ("pk = 0 AND ck1 > 2 AND ck1 < 1", []),
    ("pk = 0 AND ck1 > 2 AND ck1 <= 2", []),
    ("pk = 0 AND ck1 IN (1, 2) AND ck2 < 5", [
        ("range_tombstone", '{"pk":0}', '{"ck1":1}', True, '{"ck1":1,"ck2":5}', False),
        ("range_tombstone", '{"pk":0}', '{"ck1":2}', True, '{"ck1":2,"ck2":5}', False)]),
    ("pk = 0 AND (ck1, ck2) > (1, 2)", [("range_tombstone", '{"pk":0}', '{"ck1":1,"ck2":2}', False, "{}", True)]),
    ("pk = 0 AND (ck1, ck2) >= (1, 2) AND (ck1) < (3)",
     [("range_tombstone", '{"pk":0}', '{"ck1":1,"ck2":2}', True, '{"ck1":3}', False)]),
    ("pk = 0 AND (ck1, ck2) IN ((1, 2), (0, 5))", [("row_tombstone", '{"pk":0}', '{"ck1":0,"ck2":5}'),
                                                   ("row_tombstone", '{"pk":0}', '{"ck1":1,"ck2":2}')]),
    ("pk = 0 AND (ck1) = (4)", [("range_tombstone", '{"pk":0}', '{"ck1":4}', True, '{"ck1":4}', True)]),
])
def test_delete_of_rows_ranges_and_partitions(where, expected):
    table = "CREATE TABLE ks.t (pk int, ck1 int, ck2 int, v int, PRIMARY KEY (pk, ck1, ck2));"
    assert atoms(table + f"DELETE FROM ks.t WHERE {where}") == expected


def test_descending_clustering_columns_swap_the_range_bounds():
    table = "CREATE TABLE ks.t (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH CLUSTERING ORDER BY (ck DESC);"
    assert atoms(table + "DELETE FROM ks.t WHERE pk = 0 AND ck > 0 AND ck <= 3") == [
        ("range_tombstone", '{"pk":0}', '{"ck":3}', True, '{"ck":0}', False)]
    assert atoms(table + "DELETE FROM ks.t WHERE pk = 0 AND ck < 3") == [
        ("range_tombstone", '{"pk":0}', '{"ck":3}', False, "{}", True)]
    assert atoms(table + "DELETE FROM ks.t WHERE pk = 0 AND ck > 3 AND ck < 1") == []


def test_batch_rows_and_ranges_come_out_in_clustering_order():
    table = ("CREATE TABLE ks.t (pk int, a int, b text, v int, PRIMARY KEY (pk, a, b)) "
             "WITH CLUSTERING ORDER BY (a DESC, b ASC);")
    shown = atoms(table + "BEGIN BATCH UPDATE ks.t SET v = 1 WHERE pk = 0 AND a = 1 AND b IN ('y', 'x'); "
                  "DELETE FROM ks.t WHERE pk = 0 AND a = 5 AND b > 'q'; DELETE FROM ks.t WHERE pk = 0 AND a > 8; "
                  "UPDATE ks.t SET v = 1 WHERE pk = 0 AND a = 2 AND b = 'z' APPLY BATCH")
    assert [row[2] for row in shown] == ['{"a":2,"b":"z"}', '{"a":1,"b":"x"}', '{"a":1,"b":"y"}', "{}",
                                         '{"a":5,"b":"q"}']


def test_delete_of_columns_writes_dead_cells():
    assert atoms(TABLE + "DELETE v, w FROM ks.t USING TIMESTAMP 42 WHERE pk = 0 AND ck = 1", with_timestamp=True) == [
        ("cell", '{"pk":0}', '{"ck":1}', "v", False, 42 - NOW), ("cell", '{"pk":0}', '{"ck":1}', "w", False, 42 - NOW)]
    assert atoms(TABLE + "DELETE s FROM ks.t WHERE pk = 0") == [("cell", '{"pk":0}', "s", False)]


# -------------------------------------------------------------------------- errors


@pytest.mark.parametrize("statement, message", [
    ("INSERT INTO ks.t (pk, v) VALUES (0, 1)", "Missing mandatory PRIMARY KEY part ck"),
    ("INSERT INTO ks.t (ck, v) VALUES (0, 1)", "Missing mandatory PRIMARY KEY part pk"),
    ("INSERT INTO ks.t (pk, ck, nope) VALUES (0, 1, 2)", "Unknown identifier nope"),
    ("INSERT INTO ks.t (pk, ck, v, v) VALUES (0, 1, 2, 3)", "Multiple definitions found for column v"),
    ("INSERT INTO ks.t (pk, ck, v) VALUES (0, 1)", "Unmatched column names/values"),
    ("INSERT INTO ks.t (pk, ck, v) VALUES (null, 1, 2)", "Invalid null value in condition for column pk"),
    ("INSERT INTO ks.t (pk, ck, v) VALUES (0, 1, 'two')", 'Invalid STRING constant (\'two\') for "v" of type int'),
    ("INSERT INTO ks.t (pk, ck, v) VALUES (0, 1, (2, 3))", "Invalid tuple type literal for v of type int"),
    ("UPDATE ks.t SET v = 1 WHERE pk = 0", "Missing mandatory PRIMARY KEY part ck"),
    ("UPDATE ks.t SET v = 1 WHERE ck = 0", "Missing mandatory PRIMARY KEY part pk"),
    ("UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck > 0", "Invalid operator in where clause ck > 0"),
    ("UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck = 0 AND w = 'x'",
     "Invalid where clause contains non PRIMARY KEY columns: w"),
    ("UPDATE ks.t SET s = 1 WHERE pk = 0 AND ck = 0",
     "Invalid restrictions on clustering columns since the UPDATE statement modifies only static columns"),
    ("UPDATE ks.t SET pk = 1 WHERE pk = 0 AND ck = 0", "PRIMARY KEY part pk found in SET part"),
    ("UPDATE ks.t SET nope = 1 WHERE pk = 0 AND ck = 0", "Unknown identifier nope"),
    ("UPDATE ks.t SET v = v + 1 WHERE pk = 0 AND ck = 0", "Invalid operation (v = v + 1) for non counter column v"),
    ("UPDATE ks.t SET v = 1 WHERE pk = 0 AND pk = 1 AND ck = 0",
     "pk cannot be restricted by more than one relation if it includes an Equal"),
    ("UPDATE ks.t SET v = 1 WHERE pk > 0 AND ck = 0",
     "Only EQ and IN relation are supported on the partition key "
     "(unless you use the token() function or allow filtering)"),
    ("UPDATE ks.t SET v = 1 WHERE token(pk) = 0 AND ck = 0",
     "The token function cannot be used in WHERE clauses for UPDATE and DELETE statements: token(pk) = 0"),
    ("UPDATE ks.t SET v = 1 WHERE pk = 0 AND nope = 0", "Undefined column name nope"),
    ("DELETE v FROM ks.t WHERE pk = 0", "Primary key column 'ck' must be specified in order to modify column 'v'"),
    ("DELETE v FROM ks.t WHERE pk = 0 AND ck > 1", "Range deletions are not supported for specific columns"),
    ("DELETE pk FROM ks.t WHERE pk = 0 AND ck = 0",
     "Invalid identifier pk for deletion (should not be a PRIMARY KEY part)"),
    ("DELETE s FROM ks.t WHERE pk = 0 AND ck = 0",
     "Invalid restrictions on clustering columns since the DELETE statement modifies only static columns"),
    ("DELETE v[1] FROM ks.t WHERE pk = 0 AND ck = 0", "Invalid deletion operation for non collection column v"),
    ("DELETE FROM ks.t WHERE ck = 0", "Missing mandatory PRIMARY KEY part pk"),
    ("DELETE FROM ks.t WHERE pk = 0 AND ck > 1 AND ck > 2",
     "More than one restriction was found for the start bound on ck"),
    ("DELETE FROM ks.nope WHERE pk = 0", "unconfigured table nope"),
    ("DELETE FROM nope.t WHERE pk = 0", "Keyspace nope does not exist"),
    ("DELETE FROM t WHERE pk = 0",
     "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"),
])
def test_write_errors_have_scylladb_texts(statement, message):
    assert error_of(TABLE + statement) == message


@pytest.mark.parametrize("statement, message", [
    ("INSERT INTO ks.u (pk, v) VALUES (0, (1, 2, 3))",
     "Invalid tuple literal for v: too many elements. Type mytype expects 2 but got 3"),
    ("INSERT INTO ks.u (pk, v) VALUES (0, (1, 'x'))", "Invalid tuple literal for v: component 1 is not of type int"),
    ("UPDATE ks.u SET f = (1, 2, 3) WHERE pk = 0",
     "Invalid tuple literal for f: too many elements. Type frozen<mytype> expects 2 but got 3"),
])
def test_tuple_literals_for_user_types_are_refused_with_scylladb_texts(statement, message):
    assert error_of("CREATE TYPE ks.mytype (a int, b int);"
                    "CREATE TABLE ks.u (pk int PRIMARY KEY, v mytype, f frozen<mytype>);"
                    + statement) == message


def test_clustering_restriction_structure_errors():
    table = "CREATE TABLE ks.t (pk int, a int, b int, c int, v int, PRIMARY KEY (pk, a, b, c));"
    assert error_of(table + "DELETE FROM ks.t WHERE pk = 0 AND a = 0 AND c = 1") == \
        'PRIMARY KEY column "c" cannot be restricted as preceding column "b" is not restricted'
    assert error_of(table + "DELETE FROM ks.t WHERE pk = 0 AND a > 0 AND b = 1") == \
        'Clustering column "b" cannot be restricted (preceding column "a" is restricted by a non-EQ relation)'
    assert error_of(table + "DELETE FROM ks.t WHERE pk = 0 AND (a, b) > (0, 1) AND c = 1") == \
        "Mixing single column relations and multi column relations on clustering columns is not allowed"
    assert error_of(table + "DELETE FROM ks.t WHERE pk = 0 AND (b, a) = (0, 1)") == \
        "Clustering columns must appear in the PRIMARY KEY order in multi-column relations: (b, a) = (0, 1)"
    assert error_of(table + "DELETE FROM ks.t WHERE pk = 0 AND (a, b) = (0, 1, 2)") == \
        "Expected 2 elements in value tuple, but got 3: (a, b) = (0, 1, 2)"


def test_empty_partition_key_is_refused():
    assert error_of("CREATE TABLE ks.t (pk text PRIMARY KEY, v int); UPDATE ks.t SET v = 1 WHERE pk = ''") == \
        "Key may not be empty"


@pytest.mark.parametrize("statement, construct", [
    ("CREATE TABLE ks.c (pk int PRIMARY KEY, n counter);\nUPDATE ks.c SET n = n + 1 WHERE pk = 0",
     "statement 3 (line 3): UPDATE ks.c SET n = n + 1 WHERE pk = 0: counter updates (n = n + 1) are not supported"),
    ("CREATE TABLE ks.c (pk int PRIMARY KEY, v int); INSERT INTO ks.c JSON '{\"pk\": 0}'",
     "INSERT ... JSON is not supported"),
    ("CREATE TABLE ks.c (pk int PRIMARY KEY, v timeuuid); INSERT INTO ks.c (pk, v) VALUES (0, now())",
     "function calls in values (now(...) for v) are not supported"),
    ("CREATE TABLE ks.c (pk int PRIMARY KEY, v int); TRUNCATE ks.c", "TRUNCATE statements are not supported"),
])
def test_unsupported_constructs_stop_the_script_naming_statement_and_construct(statement, construct):
    with pytest.raises(CqlUnsupportedError) as caught:
        run(statement)
    assert construct in str(caught.value)
    assert str(caught.value).startswith("statement ")


def test_overlapping_range_deletes_in_a_batch_are_normalised_like_the_range_tombstone_list():
    """Non-overlapping pieces, the newest tombstone on each, adjacent same-tombstone pieces merged."""
    table = "CREATE TABLE ks.t (pk int, ck int, v int, PRIMARY KEY (pk, ck));"
    result = run(table + "BEGIN BATCH "
                 f"DELETE FROM ks.t USING TIMESTAMP {NOW + 10} WHERE pk = 0 AND ck >= 0 AND ck <= 5; "
                 f"DELETE FROM ks.t USING TIMESTAMP {NOW + 20} WHERE pk = 0 AND ck > 2 AND ck < 4; "
                 f"DELETE FROM ks.t USING TIMESTAMP {NOW + 10} WHERE pk = 0 AND ck > 5 AND ck < 7; "
                 f"DELETE FROM ks.t USING TIMESTAMP {NOW + 5} WHERE pk = 0 AND ck >= 1 AND ck < 2; "
                 "APPLY BATCH")
    pieces = [(a.write_timestamp - NOW, a.range_start, a.range_start_inclusive, a.range_end, a.range_end_inclusive)
              for a in result.atoms]
    assert pieces == [
        (10, '{"ck":0}', True, '{"ck":2}', True),
        (20, '{"ck":2}', False, '{"ck":4}', False),
        (10, '{"ck":4}', True, '{"ck":7}', False),
    ]
