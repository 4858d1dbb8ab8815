"""ScyllaDB's last corners through the whole pipeline, each logged as ScyllaDB logs it
(docs/scylla/corners.md): lightweight transactions, one mutation touching a row more than once
at one timestamp, COMPACT STORAGE tables, and the per-row TTL column with its expiry. The
scenarios run in conftest's shared replay, in keyspace `corners`; each table's expected log
rows come from ScyllaDB's source and tests (the scenario names cite them)."""
from __future__ import annotations

import pytest

NOW_S = 1_700_000_000               # the shared replay's clock starts here (test_acceptance_docs_cases)
EXPIRED_S = NOW_S - 60              # a per-row TTL column value already in the past
CDC = "cdc = {'enabled': true, 'preimage': true}"
CDC_POST = "cdc = {'enabled': true, 'preimage': true, 'postimage': true}"

SCRIPT = f"""
CREATE KEYSPACE corners WITH replication = {{'class': 'NetworkTopologyStrategy', 'replication_factor': 1}};
USE corners;
-- LWT: test/cql/cdc_with_lwt_test
CREATE TABLE lwt (pk int, ck int, val int, PRIMARY KEY (pk, ck)) WITH {CDC};
INSERT INTO lwt (pk, ck, val) VALUES (1, 1, 111) IF NOT EXISTS;
INSERT INTO lwt (pk, ck, val) VALUES (1, 1, 222) IF NOT EXISTS;
UPDATE lwt SET val = 333 WHERE pk = 1 AND ck = 1 IF EXISTS;
UPDATE lwt SET val = 444 WHERE pk = 888 AND ck = 777 IF EXISTS;
DELETE FROM lwt WHERE pk = 1 AND ck = 1 IF EXISTS;
DELETE FROM lwt WHERE pk = 1 AND ck = 1 IF EXISTS;
-- LWT with full pre-images: the statements of test/cql/cdc_with_lwt_test_full_preimage.cql
CREATE TABLE lwt_full (pk int, ck int, val1 int, val2 int, PRIMARY KEY (pk, ck))
    WITH cdc = {{'enabled': true, 'preimage': 'full'}};
INSERT INTO lwt_full (pk, ck, val1, val2) VALUES (1, 1, 111, 222) IF NOT EXISTS;
INSERT INTO lwt_full (pk, ck, val1) VALUES (1, 1, 222) IF NOT EXISTS;
UPDATE lwt_full SET val1 = 333 WHERE pk = 1 AND ck = 1 IF EXISTS;
UPDATE lwt_full SET val1 = 444 WHERE pk = 888 AND ck = 777 IF EXISTS;
DELETE FROM lwt_full WHERE pk = 1 AND ck = 1 IF EXISTS;
DELETE FROM lwt_full WHERE pk = 1 AND ck = 1 IF EXISTS;
-- LWT DELETE IF EXISTS of a table without clustering key: a partition delete, with its pre-image
CREATE TABLE lwt_nock (pk int PRIMARY KEY, v int, w int) WITH {CDC};
INSERT INTO lwt_nock (pk, v, w) VALUES (1, 10, 20);
DELETE FROM lwt_nock WHERE pk = 1 IF EXISTS;
-- LWT batch deleting and inserting one row (scylladb#6273)
CREATE TABLE lwt_set (key bigint, ck int, cv set<text>, PRIMARY KEY (key, ck)) WITH {CDC};
INSERT INTO lwt_set (key, ck, cv) VALUES (1, 0, {{'a', 'b'}}) IF NOT EXISTS;
BEGIN BATCH DELETE FROM lwt_set WHERE key = 1 AND ck = 0 IF EXISTS;
            INSERT INTO lwt_set (key, ck, cv) VALUES (1, 0, {{'b', 'c'}}); APPLY BATCH;
-- one row twice at one timestamp: cells under a row tombstone stay (test_batch_with_row_delete)
CREATE TABLE same (pk int, ck int, s int STATIC, v int, w int, m map<int, int>, PRIMARY KEY (pk, ck)) WITH {CDC};
CREATE TABLE same_post (pk int, ck int, s int STATIC, v int, w int, PRIMARY KEY (pk, ck)) WITH {CDC_POST};
INSERT INTO same (pk, ck, v, w) VALUES (1, 0, 5, 6);
INSERT INTO same (pk, ck, v, w) VALUES (2, 0, 5, 6);
INSERT INTO same_post (pk, ck, v, w) VALUES (1, 0, 5, 6);
INSERT INTO same_post (pk, ck, v, w) VALUES (3, 0, 5, 6);
BEGIN BATCH UPDATE same SET v = 1 WHERE pk = 1 AND ck = 0; DELETE FROM same WHERE pk = 1 AND ck = 0; APPLY BATCH;
BEGIN BATCH INSERT INTO same (pk, ck, v) VALUES (2, 0, 1); DELETE FROM same WHERE pk = 2 AND ck = 0; APPLY BATCH;
BEGIN BATCH UPDATE same SET v = -1 WHERE pk = 3 AND ck = 0; UPDATE same SET v = 2 WHERE pk = 3 AND ck = 0; APPLY BATCH;
BEGIN BATCH UPDATE same USING TTL 100 SET v = 1 WHERE pk = 4 AND ck = 0;
            UPDATE same SET v = 2 WHERE pk = 4 AND ck = 0; APPLY BATCH;
BEGIN BATCH UPDATE same SET m = m + {{1: 1}} WHERE pk = 5 AND ck = 0; DELETE m FROM same WHERE pk = 5 AND ck = 0; APPLY BATCH;
BEGIN BATCH UPDATE same_post SET v = 1 WHERE pk = 1 AND ck = 0; DELETE FROM same_post WHERE pk = 1 AND ck = 0; APPLY BATCH;
BEGIN BATCH UPDATE same_post SET v = 1 WHERE pk = 2 AND ck = 0; DELETE FROM same_post WHERE pk = 2 AND ck = 0; APPLY BATCH;
BEGIN BATCH UPDATE same_post SET v = 1 WHERE pk = 3 AND ck = 0; UPDATE same_post SET v = 2 WHERE pk = 3 AND ck = 0; APPLY BATCH;
BEGIN BATCH UPDATE same_post SET s = 1 WHERE pk = 4; DELETE FROM same_post WHERE pk = 4; APPLY BATCH;
-- COMPACT STORAGE: test/cql/cdc_compact_storage_test, and a static-compact table
CREATE TABLE dense (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE AND {CDC_POST};
INSERT INTO dense (pk, ck, v) VALUES (2, 22, 111) USING TTL 2222;
INSERT INTO dense (pk, ck, v) VALUES (2, 22, 1111) USING TTL 2223;
CREATE TABLE keys_only (pk int, ck int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE AND {CDC_POST};
INSERT INTO keys_only (pk, ck) VALUES (2, 22) USING TTL 2222;
INSERT INTO keys_only (pk, ck) VALUES (2, 22) USING TTL 2223;
CREATE TABLE static_compact (pk int PRIMARY KEY, a int, b text) WITH COMPACT STORAGE AND {CDC};
INSERT INTO static_compact (pk, a, b) VALUES (1, 10, 'x') USING TTL 5;
DELETE FROM static_compact WHERE pk = 1;
-- per-row TTL: test/cqlpy/test_ttl_row.py test_row_ttl_expiration_cdc_event, with and without clustering key
CREATE TABLE row_ttl (p int, c int, x int, e bigint TTL, PRIMARY KEY (p, c)) WITH {CDC};
CREATE TABLE row_ttl_nock (p int PRIMARY KEY, c int, x int, e timestamp TTL) WITH {CDC};
INSERT INTO row_ttl (p, c, x, e) VALUES (1, 2, 3, {EXPIRED_S});
INSERT INTO row_ttl_nock (p, c, x, e) VALUES (1, 2, 3, {EXPIRED_S * 1000});
INSERT INTO row_ttl (p, c, x) VALUES (2, 2, 3);
"""
# the shared replay's per-row TTL scans: every millisecond of its clock, i.e. before each statement
ROW_TTL_SCAN_PERIOD_S = 0.001

# (table, partition) -> its log rows in order: (cdc$operation, {column: value} of the non-null
# value and cdc$ columns other than the metadata, plus cdc$ttl when set)
EXPECTED = {
    ("lwt", 1): [(2, {"ck": 1, "val": 111}),
                 (0, {"ck": 1, "val": 111}), (1, {"ck": 1, "val": 333}),
                 (0, {"ck": 1, "val": 333}), (3, {"ck": 1})],
    ("lwt_full", 1): [(2, {"ck": 1, "val1": 111, "val2": 222}),
                      (0, {"ck": 1, "val1": 111, "val2": 222}), (1, {"ck": 1, "val1": 333}),
                      (0, {"ck": 1, "val1": 333, "val2": 222}), (3, {"ck": 1})],
    ("lwt_nock", 1): [(2, {"v": 10, "w": 20}), (0, {"v": 10, "w": 20}), (4, {})],
    ("lwt_set", 1): [(2, {"ck": 0, "cv": {"set": ["a", "b"]}, "cdc$deleted_cv": True}),
                     (0, {"ck": 0, "cv": {"set": ["a", "b"]}}),
                     (2, {"ck": 0, "cv": {"set": ["b", "c"]}, "cdc$deleted_cv": True}),
                     (3, {"ck": 0})],
    # UPDATE + DELETE of one row: the delete's pre-image has every column, then the update, then the delete
    ("same", 1): [(2, {"ck": 0, "v": 5, "w": 6}),
                  (0, {"ck": 0, "v": 5, "w": 6, "cdc$deleted_m": True}), (1, {"ck": 0, "v": 1}), (3, {"ck": 0})],
    ("same", 2): [(2, {"ck": 0, "v": 5, "w": 6}),
                  (0, {"ck": 0, "v": 5, "w": 6, "cdc$deleted_m": True}), (2, {"ck": 0, "v": 1}), (3, {"ck": 0})],
    # equal timestamps: the greater serialized value wins (int -1 is FFFFFFFF), then an expiring cell
    ("same", 3): [(1, {"ck": 0, "v": -1})],
    ("same", 4): [(1, {"ck": 0, "v": 1, "cdc$ttl": 100})],
    # the column's tombstone (T) removes the element (T) of the same batch: one group, at T + 1
    ("same", 5): [(1, {"ck": 0, "cdc$deleted_m": True})],
    # with post-images: none for the row the batch deleted
    ("same_post", 1): [(2, {"ck": 0, "v": 5, "w": 6}), (9, {"ck": 0, "v": 5, "w": 6}),
                       (0, {"ck": 0, "v": 5, "w": 6}), (1, {"ck": 0, "v": 1}), (3, {"ck": 0})],
    ("same_post", 2): [(1, {"ck": 0, "v": 1}), (3, {"ck": 0})],
    ("same_post", 3): [(2, {"ck": 0, "v": 5, "w": 6}), (9, {"ck": 0, "v": 5, "w": 6}),
                       (0, {"ck": 0, "v": 5}), (1, {"ck": 0, "v": 2}), (9, {"ck": 0, "v": 2, "w": 6})],
    # a partition delete leaves the static row's image state: its post-image shows s = 1
    ("same_post", 4): [(1, {"s": 1}), (4, {}), (9, {"s": 1})],
    # no row marker: op 1; the TTL is cdc$ttl; images as usual
    ("dense", 2): [(1, {"ck": 22, "v": 111, "cdc$ttl": 2222}), (9, {"ck": 22, "v": 111}),
                   (0, {"ck": 22, "v": 111}), (1, {"ck": 22, "v": 1111, "cdc$ttl": 2223}),
                   (9, {"ck": 22, "v": 1111})],
    # keys only: the hidden value column has no log column, but its cell's TTL is cdc$ttl
    ("keys_only", 2): [(1, {"ck": 22, "cdc$ttl": 2222}), (9, {"ck": 22}),
                       (0, {"ck": 22}), (1, {"ck": 22, "cdc$ttl": 2223}), (9, {"ck": 22})],
    ("static_compact", 1): [(1, {"a": 10, "b": "x", "cdc$ttl": 5}), (0, {"a": 10, "b": "x"}), (4, {})],
    # the expiration service's deletes: -3 / -4, with a pre-image of every column, no post-image
    ("row_ttl", 1): [(2, {"c": 2, "x": 3, "e": EXPIRED_S}), (0, {"c": 2, "x": 3, "e": EXPIRED_S}), (-3, {"c": 2})],
    ("row_ttl", 2): [(2, {"c": 2, "x": 3})],
    ("row_ttl_nock", 1): [(2, {"c": 2, "x": 3, "e": EXPIRED_S * 1000}), (0, {"c": 2, "x": 3, "e": EXPIRED_S * 1000}),
                          (-4, {})],
}
METADATA = {"table", "cdc$stream_id", "cdc$time", "cdc$batch_seq_no", "cdc$operation", "cdc$end_of_batch"}


@pytest.fixture(scope="module")
def replayed(shared_replay):
    result, _ = shared_replay
    assert not [e for e in result.statement_errors if e.statement in SCRIPT], result.statement_errors
    return result


def partition_rows(result, table: str, partition: int) -> list[dict]:
    key = "key" if table == "lwt_set" else ("p" if table.startswith("row_ttl") else "pk")
    return [r for r in result.log_rows if r["table"] == f"corners.{table}_scylla_cdc_log" and r[key] == partition]


@pytest.mark.parametrize("table, partition", list(EXPECTED))
def test_logged_as_scylla_logs_it(replayed, table, partition):
    rows = partition_rows(replayed, table, partition)
    key = {"lwt_set": "key"}.get(table, "p" if table.startswith("row_ttl") else "pk")
    shown = [(r["cdc$operation"], {c: v for c, v in r.items() if v is not None and c not in METADATA | {key}})
             for r in rows]
    assert shown == EXPECTED[(table, partition)]
    groups = {}
    for r in rows:
        groups.setdefault(r["cdc$time"], []).append(r)
    for group in groups.values():          # each group numbered 0..n-1, end of batch on its last row
        assert [r["cdc$batch_seq_no"] for r in group] == list(range(len(group)))
        assert [r["cdc$end_of_batch"] for r in group] == [None] * (len(group) - 1) + [True]


def test_the_clients_get_the_lwt_results(replayed):
    """cdc_with_lwt_test: [applied] of its six statements (the failed ones logged nothing)."""
    lwts = [r for r in replayed.conditional_results if r.statement in SCRIPT and " lwt " in f" {r.statement} "]
    assert [r.applied for r in lwts] == [True, False, True, False, True, False]


def test_the_expiry_is_logged_at_the_first_scan_after_the_insert(replayed):
    from python_udfs.timeuuids import micros_from_timeuuid

    rows = partition_rows(replayed, "row_ttl", 1)
    inserted, deleted = (micros_from_timeuuid(r["cdc$time"]) for r in (rows[0], rows[-1]))
    period_us = round(ROW_TTL_SCAN_PERIOD_S * 1e6)
    assert deleted % period_us == 0 and inserted < deleted <= inserted + period_us
