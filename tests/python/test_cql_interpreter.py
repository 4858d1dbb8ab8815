"""Script execution: client clock, write ids, batches and their merging, error handling
(cdclake/cql/interpreter.py, mutation_builder.py)."""
from __future__ import annotations

import pytest

from cdclake.cql import CqlSyntaxError, StatementError, run_script
from cdclake.cql.errors import INVALID_QUERY

NOW = 1_700_000_000_000_000
SETUP = ("CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};\n"
         "CREATE TABLE ks.t (pk int, ck int, v int, w text, PRIMARY KEY (pk, ck));\n")


def run(cql: str, **clock):
    clock.setdefault("now_us", NOW)
    return run_script(SETUP + cql, **clock)


def cells(result) -> list[tuple]:
    return [(a.write_id, a.clustering_key, a.column_name, a.is_live, a.value, a.write_timestamp - NOW, a.ttl_seconds)
            for a in result.atoms if a.atom_kind == "cell"]


def test_client_clock_counts_every_statement_and_coordinator_adds_the_skew():
    result = run("UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck = 0;\n"
                 "SELECT * FROM ks.t;\n"
                 "USE ks;\n"
                 "UPDATE t USING TIMESTAMP 5 SET v = 2 WHERE pk = 0 AND ck = 1;\n"
                 "UPDATE t SET v = 3 WHERE pk = 0 AND ck = 2",
                 step_us=10, skew_us=-3)
    assert [(a.write_id, a.write_timestamp, a.coordinator_now_us) for a in result.atoms] == [
        (1, NOW + 20, NOW + 17), (2, 5, NOW + 47), (3, NOW + 60, NOW + 57)]
    assert result.statements_run == 7 and result.errors == []


def test_rejected_statements_are_reported_skipped_and_take_no_write_id():
    script = ("UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck = 0;\n"
              "UPDATE ks.t SET nope = 1 WHERE pk = 0 AND ck = 0;\n"
              "UPDATE ks.t SET v = 3 WHERE pk = 0 AND ck = 0")
    result = run(script)
    assert result.errors == [StatementError(
        index=3, line=4, statement="UPDATE ks.t SET nope = 1 WHERE pk = 0 AND ck = 0",
        message="Unknown identifier nope", code=INVALID_QUERY)]
    assert str(result.errors[0]) == ("statement 4 (line 4): UPDATE ks.t SET nope = 1 WHERE pk = 0 AND ck = 0: "
                                     "Unknown identifier nope")
    assert [(a.write_id, a.value, a.write_timestamp - NOW) for a in result.atoms] == [(1, "1", 2000), (2, "3", 4000)]
    assert result.statements_run == 4


def test_a_syntax_error_anywhere_runs_nothing():
    with pytest.raises(CqlSyntaxError, match=r"^line 4, column 22: expected WHERE but found end of input"):
        run("UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck = 0;\nUPDATE ks.t SET v = 1")


def test_schema_records_reflect_the_final_catalog():
    result = run("ALTER TABLE ks.t WITH cdc = {'enabled': true} AND default_time_to_live = 9")
    assert [(t.table_name, t.cdc_enabled, t.default_time_to_live) for t in result.final_tables()] == [("t", True, 9)]
    assert [c.column_name for c in result.final_columns()] == ["pk", "ck", "v", "w"]


# -------------------------------------------------------------------------- batches


def test_batch_is_one_write_sharing_the_statement_timestamp():
    result = run("BEGIN UNLOGGED BATCH\n"
                 "  UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck = 0;\n"
                 "  UPDATE ks.t USING TIMESTAMP 7 SET v = 2 WHERE pk = 0 AND ck = 1;\n"
                 "  INSERT INTO ks.t (pk, ck, w) VALUES (1, 0, 'x') USING TTL 3;\n"
                 "APPLY BATCH;\n"
                 "UPDATE ks.t SET v = 9 WHERE pk = 5 AND ck = 5")
    assert cells(result) == [
        (1, '{"ck":0}', "v", True, "1", 2000, None),
        (1, '{"ck":1}', "v", True, "2", 7 - NOW, None),
        (1, '{"ck":0}', "w", True, '"x"', 2000, 3),
        (2, '{"ck":5}', "v", True, "9", 3000, None),
    ]
    assert [a.partition_key for a in result.atoms if a.write_id == 1] == [
        '{"pk":0}', '{"pk":0}', '{"pk":1}', '{"pk":1}']


def test_batch_timestamp_applies_to_all_its_statements():
    result = run("BEGIN BATCH USING TIMESTAMP 100 UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck = 0; "
                 "DELETE FROM ks.t WHERE pk = 1 APPLY BATCH")
    assert [(a.atom_kind, a.write_timestamp) for a in result.atoms] == [("cell", 100), ("partition_tombstone", 100)]


@pytest.mark.parametrize("batch, message", [
    ("BEGIN BATCH USING TIMESTAMP 1 UPDATE ks.t USING TIMESTAMP 2 SET v = 1 WHERE pk = 0 AND ck = 0 APPLY BATCH",
     "Timestamp must be set either on BATCH or individual statements"),
    ("BEGIN BATCH USING TTL 1 UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck = 0 APPLY BATCH",
     "Global TTL on the BATCH statement is not supported."),
    ("BEGIN BATCH UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck = 0; UPDATE ks.t SET v = 'x' WHERE pk = 0 AND ck = 1; "
     "APPLY BATCH", 'Invalid STRING constant (\'x\') for "v" of type int'),
])
def test_a_rejected_batch_writes_nothing(batch, message):
    result = run(batch)
    assert [e.message for e in result.errors] == [message]
    assert result.atoms == []


@pytest.mark.parametrize("first, second, winner", [
    ("USING TIMESTAMP 2 SET v = 1", "USING TIMESTAMP 3 SET v = 0", (True, "0", 3)),      # newer timestamp wins
    ("USING TIMESTAMP 3 SET v = 1", "USING TIMESTAMP 2 SET v = 0", (True, "1", 3)),
    ("USING TIMESTAMP 3 SET v = 1", "USING TIMESTAMP 3 SET v = null", (False, None, 3)),  # tie: dead beats live
    ("USING TIMESTAMP 3 SET v = null", "USING TIMESTAMP 3 SET v = 1", (False, None, 3)),
    ("USING TIMESTAMP 3 SET v = 1", "USING TIMESTAMP 3 SET v = 2", (True, "2", 3)),       # tie: greater bytes
    ("USING TIMESTAMP 3 SET v = 1", "USING TIMESTAMP 3 SET v = -1", (True, "-1", 3)),     # 0xffffffff > 0x00000001
    ("USING TIMESTAMP 3 AND TTL 5 SET v = 1", "USING TIMESTAMP 3 SET v = 1", (True, "1", 3)),
])
def test_batch_keeps_the_winning_cell(first, second, winner):
    result = run(f"BEGIN BATCH UPDATE ks.t {first} WHERE pk = 0 AND ck = 0; "
                 f"UPDATE ks.t {second} WHERE pk = 0 AND ck = 0 APPLY BATCH")
    assert [(a.is_live, a.value, a.write_timestamp) for a in result.atoms] == [winner]


def test_batch_merges_markers_and_tombstones():
    result = run("BEGIN BATCH "
                 "INSERT INTO ks.t (pk, ck) VALUES (0, 0) USING TIMESTAMP 1; "
                 "INSERT INTO ks.t (pk, ck) VALUES (0, 0) USING TIMESTAMP 2 AND TTL 4; "
                 "DELETE FROM ks.t USING TIMESTAMP 5 WHERE pk = 0 AND ck = 1; "
                 "DELETE FROM ks.t USING TIMESTAMP 6 WHERE pk = 0 AND ck = 1; "
                 "DELETE FROM ks.t USING TIMESTAMP 7 WHERE pk = 0 AND ck > 3; "
                 "DELETE FROM ks.t USING TIMESTAMP 7 WHERE pk = 0 AND ck > 3; "
                 "DELETE FROM ks.t USING TIMESTAMP 8 WHERE pk = 0; "
                 "DELETE FROM ks.t USING TIMESTAMP 4 WHERE pk = 0; "
                 "APPLY BATCH")
    assert [(a.atom_kind, a.clustering_key, a.write_timestamp, a.ttl_seconds) for a in result.atoms] == [
        ("row_marker", '{"ck":0}', 2, 4),
        ("row_tombstone", '{"ck":1}', 6, None),
        ("range_tombstone", None, 7, None),
        ("partition_tombstone", None, 8, None),
    ]
    assert {a.write_id for a in result.atoms} == {1}


def test_batch_statements_on_several_tables_and_partitions():
    result = run("CREATE TABLE ks.u (k text PRIMARY KEY, x int);"
                 "BEGIN BATCH INSERT INTO ks.u (k, x) VALUES ('a', 1); UPDATE ks.t SET v = 1 WHERE pk = 0 AND ck = 0; "
                 "INSERT INTO ks.u (k, x) VALUES ('b', 2) APPLY BATCH")
    assert [(a.table_name, a.partition_key, a.atom_kind) for a in result.atoms] == [
        ("u", '{"k":"a"}', "row_marker"), ("u", '{"k":"a"}', "cell"),
        ("t", '{"pk":0}', "cell"),
        ("u", '{"k":"b"}', "row_marker"), ("u", '{"k":"b"}', "cell")]
