"""Lightweight transactions in the CQL front door (cdclake/cql/lwt.py): the condition is checked
against the state before the request, a failed one writes nothing, an applied one writes what
the plain statement writes at the paxos ballot's timestamp, and the client gets [applied] with
the old values (docs/scylla/corners.md, "Lightweight transactions")."""
from __future__ import annotations

import pytest

from cdclake.cql.interpreter import run_script

NOW = 1_700_000_000_000_000
STEP = 1000
KEYSPACE = "CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};\n"


def run(script: str):
    return run_script(KEYSPACE + script, now_us=NOW, step_us=STEP)


def results(result) -> list[tuple]:
    """(applied, {column: value} per result row) of each LWT, in order."""
    return [(r.applied, [dict(zip(r.columns, row)) for row in r.rows]) for r in result.conditional_results]


def errors(result) -> list[str]:
    return [e.message for e in result.errors]


def test_upstream_cdc_with_lwt_statements():
    """test/cql/cdc_with_lwt_test: six statements, three of them applied."""
    result = run("""
        CREATE TABLE ks.t (pk int, ck int, val int, PRIMARY KEY (pk, ck)) WITH cdc = {'enabled': true, 'preimage': true};
        INSERT INTO ks.t (pk, ck, val) VALUES (1, 1, 111) IF NOT EXISTS;
        INSERT INTO ks.t (pk, ck, val) VALUES (1, 1, 222) IF NOT EXISTS;
        UPDATE ks.t SET val = 333 WHERE pk = 1 AND ck = 1 IF EXISTS;
        UPDATE ks.t SET val = 444 WHERE pk = 888 AND ck = 777 IF EXISTS;
        DELETE FROM ks.t WHERE pk = 1 AND ck = 1 IF EXISTS;
        DELETE FROM ks.t WHERE pk = 1 AND ck = 1 IF EXISTS;
    """)
    assert not result.errors
    none = {"pk": None, "ck": None, "val": None}
    assert results(result) == [
        (True, [none]), (False, [{"pk": 1, "ck": 1, "val": 111}]),
        (True, [{"pk": 1, "ck": 1, "val": 111}]),          # the old values, although applied
        (False, [none]), (True, [{"pk": 1, "ck": 1, "val": 333}]), (False, [none]),
    ]
    # statements 3, 5 and 7 of the script (client clock NOW + k * STEP) applied, one write each
    assert [(a.write_id, a.atom_kind, a.write_timestamp, a.value) for a in result.atoms] == [
        (1, "row_marker", NOW + 2 * STEP, None), (1, "cell", NOW + 2 * STEP, "111"),
        (2, "cell", NOW + 4 * STEP, "333"),
        (3, "row_tombstone", NOW + 6 * STEP, None),
    ]


def test_ballots_strictly_increase_past_the_clock():
    """With a clock that does not advance (step 0), each LWT still gets a larger timestamp."""
    result = run_script(KEYSPACE + """
        CREATE TABLE ks.t (pk int PRIMARY KEY, v int);
        UPDATE ks.t SET v = 1 WHERE pk = 0 IF v = null;
        UPDATE ks.t SET v = 2 WHERE pk = 0 IF v = 1;
        UPDATE ks.t SET v = 3 WHERE pk = 0 IF v = 2;
    """, now_us=NOW, step_us=0)
    assert [a.write_timestamp for a in result.atoms] == [NOW, NOW + 1, NOW + 2]
    assert [r.applied for r in result.conditional_results] == [True, True, True]


@pytest.mark.parametrize("condition, applied", [
    ("v = null", False), ("v != null", True), ("v = 2", True), ("v != 2", False),
    ("v > 1", True), ("v >= 3", False), ("v < 3", True), ("v <= 1", False),
    ("w = null", True), ("w != null", False), ("w < 5", False),          # w is null: < is false
    ("v IN (1, 2)", True), ("v IN (1, null)", False), ("v NOT IN (null, 7)", True), ("v NOT IN (2, null)", False), ("v NOT IN (1, 3)", True),
    ("w IN (1, null)", True), ("w NOT IN (1, null)", False), ("w NOT IN (1, 3)", True),
    ("v = 2 AND w = null", True), ("v = 2 AND w = 1", False),
    ("t LIKE 'ab%'", True), ("t LIKE 'a_'", False), ("t LIKE '%c'", True),
    ("m[1] = 'one'", True), ("m[2] = null", True), ("m[1] != 'one'", False),
    ("l[0] = 10", True), ("l[5] = null", True), ("l[1] > 15", True),
    ("m = {1: 'one'}", True), ("m = {}", False), ("s = {}", True), ("s = null", True),
    ("u.a = 7", True), ("u.b = null", True),
])
def test_conditions_follow_the_lwt_null_rules(condition, applied):
    result = run(f"""
        CREATE TYPE ks.pair (a int, b text);
        CREATE TABLE ks.t (pk int PRIMARY KEY, v int, w int, t text, m map<int, text>, l list<int>,
                           s set<int>, u pair);
        INSERT INTO ks.t (pk, v, t, m, l, u) VALUES (0, 2, 'abc', {{1: 'one'}}, [10, 20], {{a: 7}});
        UPDATE ks.t SET v = 100 WHERE pk = 0 IF {condition};
    """)
    assert not result.errors, result.errors
    assert [r.applied for r in result.conditional_results] == [applied]
    assert len({a.write_id for a in result.atoms}) == (2 if applied else 1)


def test_the_result_lists_the_condition_columns_in_schema_order():
    result = run("""
        CREATE TABLE ks.t (p int, c int, s int STATIC, v int, a int, PRIMARY KEY (p, c));
        INSERT INTO ks.t (p, c, s, v, a) VALUES (1, 1, 5, 6, 7);
        UPDATE ks.t SET v = 1 WHERE p = 1 AND c = 1 IF v = 6 AND s = 5 AND a = 7;
    """)
    (conditional,) = result.conditional_results
    assert conditional.columns == ("s", "a", "v") and conditional.rows == ((5, 7, 6),)


def test_static_rows_and_the_static_fallback():
    """docs/scylla/corners.md S4: a static-only INSERT IF NOT EXISTS checks the static row; a
    condition on a missing clustering row sees the partition's static values."""
    result = run("""
        CREATE TABLE ks.t (p int, c int, s int STATIC, v int, PRIMARY KEY (p, c));
        INSERT INTO ks.t (p, c, v) VALUES (1, 1, 1);
        INSERT INTO ks.t (p, s) VALUES (1, 1) IF NOT EXISTS;
        INSERT INTO ks.t (p, s) VALUES (1, 2) IF NOT EXISTS;
        UPDATE ks.t SET s = 3 WHERE p = 1 IF s = 1;
        UPDATE ks.t SET v = 9 WHERE p = 1 AND c = 2 IF s = 3;
        DELETE s FROM ks.t WHERE p = 1 IF EXISTS;
        UPDATE ks.t SET s = 2 WHERE p = 1 IF EXISTS;
        INSERT INTO ks.t (p, c, v) VALUES (1, 1, 5) IF NOT EXISTS;
    """)
    assert not result.errors, result.errors
    assert results(result) == [
        (True, [{"p": None, "c": None, "s": None, "v": None}]),
        (False, [{"p": 1, "c": None, "s": 1, "v": None}]),
        (True, [{"s": 1}]),
        (True, [{"s": 3}]),
        (True, [{"p": 1, "c": None, "s": 3, "v": None}]),
        (False, [{"p": None, "c": None, "s": None, "v": None}]),
        (False, [{"p": 1, "c": 1, "s": None, "v": 1}]),          # the clustering row exists
    ]


def test_conditional_batches_apply_whole_or_not_at_all():
    result = run("""
        CREATE TABLE ks.t (p int, c int, v int, PRIMARY KEY (p, c));
        BEGIN BATCH INSERT INTO ks.t (p, c, v) VALUES (1, 1, 10) IF NOT EXISTS;
                    INSERT INTO ks.t (p, c, v) VALUES (1, 2, 20) IF NOT EXISTS; APPLY BATCH;
        BEGIN BATCH INSERT INTO ks.t (p, c, v) VALUES (1, 2, 99) IF NOT EXISTS;
                    INSERT INTO ks.t (p, c, v) VALUES (1, 3, 30) IF NOT EXISTS; APPLY BATCH;
        BEGIN BATCH INSERT INTO ks.t (p, c, v) VALUES (1, 4, 40) IF NOT EXISTS;
                    INSERT INTO ks.t (p, c, v) VALUES (1, 5, 50) USING TIMESTAMP 1; APPLY BATCH;
    """)
    assert not result.errors, result.errors
    none = {"p": None, "c": None, "v": None}
    assert results(result) == [
        (True, [none, none]),
        (False, [{"p": 1, "c": 2, "v": 20}, none]),              # (1, 3) is not written either
        (True, [none, none]),
    ]
    third = [a for a in result.atoms if a.write_id == 2]
    assert {a.write_timestamp for a in third} == {NOW + 4 * STEP}   # USING TIMESTAMP 1 is ignored
    assert {a.clustering_key for a in third} == {'{"c":4}', '{"c":5}'}


def test_a_row_deleted_and_inserted_in_one_conditional_batch_keeps_both_atoms():
    """#6273: the batch's row tombstone and the INSERT's cells share the ballot timestamp."""
    result = run("""
        CREATE TABLE ks.t (key bigint, ck int, cv set<text>, PRIMARY KEY (key, ck));
        INSERT INTO ks.t (key, ck, cv) VALUES (1, 0, {'a', 'b'}) IF NOT EXISTS;
        BEGIN BATCH DELETE FROM ks.t WHERE key = 1 AND ck = 0 IF EXISTS;
                    INSERT INTO ks.t (key, ck, cv) VALUES (1, 0, {'b', 'c'}); APPLY BATCH;
    """)
    assert results(result)[1] == (True, [{"key": 1, "ck": 0, "cv": {"set": ["a", "b"]}}] * 2)
    kinds = [a.atom_kind for a in result.atoms if a.write_id == 2]
    assert kinds == ["row_marker", "collection_tombstone", "cell", "cell", "row_tombstone"]


def test_lists_are_read_from_the_state_the_condition_sees():
    result = run("""
        CREATE TABLE ks.t (pk int PRIMARY KEY, l list<int>);
        INSERT INTO ks.t (pk, l) VALUES (0, [1, 2, 3]);
        UPDATE ks.t SET l = l - [2] WHERE pk = 0 IF EXISTS;
        UPDATE ks.t SET l[0] = 9 WHERE pk = 0 IF l[0] = 1;
        UPDATE ks.t SET l = l - [7] WHERE pk = 0 IF EXISTS;
        UPDATE ks.t SET l[5] = 1 WHERE pk = 0 IF EXISTS;
    """)
    assert [r.applied for r in result.conditional_results] == [True, True, True]
    assert errors(result) == ["List index 5 out of bound, list has size 2"]
    assert [a.is_live for a in result.atoms if a.write_id > 1] == [False, True]   # l - [2], l[0] = 9


@pytest.mark.parametrize("statement, error", [
    ("UPDATE ks.t USING TIMESTAMP 5 SET v = 1 WHERE p = 1 AND c = 1 IF EXISTS",
     "Cannot provide custom timestamp for conditional updates"),
    ("INSERT INTO ks.t (p, c, v) VALUES (1, 1, 1) IF NOT EXISTS USING TIMESTAMP 5",
     "Cannot provide custom timestamp for conditional updates"),
    ("BEGIN BATCH USING TIMESTAMP 5 UPDATE ks.t SET v = 1 WHERE p = 1 AND c = 1 IF EXISTS; APPLY BATCH",
     "Cannot provide custom timestamp for conditional BATCH"),
    ("UPDATE ks.t SET v = 1 WHERE p = 1 AND c = 1 IF c = 1", "PRIMARY KEY column 'c' cannot have IF conditions"),
    ("UPDATE ks.t SET v = 1 WHERE p IN (1, 2) AND c = 1 IF v = 1",
     "IN on the partition key is not supported with conditional updates"),
    ("UPDATE ks.t SET v = 1 WHERE p = 1 AND c IN (1, 2) IF v = 1",
     "IN on the clustering key columns is not supported with conditional updates"),
    ("DELETE FROM ks.t WHERE p = 1 IF EXISTS",
     "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to delete "
     "non static columns"),
    ("DELETE FROM ks.t WHERE p = 1 AND c > 1 IF v = 1",
     "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to delete "
     "non static columns"),
    ("DELETE s FROM ks.t WHERE p = 1 IF v = 1",
     "DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF "
     "condition on non static columns"),
    ("UPDATE ks.t SET v = 1 WHERE p = 1 AND c = 1 IF v > null", 'Invalid comparison with null for operator ">"'),
    ("UPDATE ks.t SET v = 1 WHERE p = 1 AND c = 1 IF nope = 1", "Unrecognized name nope"),
    ("UPDATE ks.t SET v = 1 WHERE p = 1 AND c = 1 IF v LIKE 'a%'", "LIKE is allowed only on string types, which v is not"),
    ("BEGIN BATCH UPDATE ks.t SET v = 1 WHERE p = 1 AND c = 1 IF EXISTS; UPDATE ks.u SET v = 1 WHERE p = 1 IF EXISTS; "
     "APPLY BATCH", "BATCH with conditions cannot span multiple tables"),
    ("BEGIN BATCH UPDATE ks.t SET v = 1 WHERE p = 1 AND c = 1 IF EXISTS; UPDATE ks.t SET v = 1 WHERE p = 2 AND c = 1; "
     "APPLY BATCH", "BATCH with conditions cannot span multiple partitions"),
])
def test_scylla_refuses_what_it_refuses_with_its_text(statement, error):
    result = run(f"""
        CREATE TABLE ks.t (p int, c int, s int STATIC, v int, PRIMARY KEY (p, c));
        CREATE TABLE ks.u (p int PRIMARY KEY, v int);
        {statement};
    """)
    assert errors(result) == [error] and not result.atoms and not result.conditional_results
