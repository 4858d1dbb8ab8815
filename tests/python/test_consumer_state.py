"""The state tables (`<ks>.<t>_state`): the base table a replicator rebuilds from the log, one
hand-checked case per operation. The scenario runs in conftest's shared replay, in keyspace
`consumer`; every write sets its timestamp, some older than writes before it, so the expected
rows follow ScyllaDB's rules (per cell the newest timestamp wins, a tombstone removes what it
covers at or below its timestamp), not the order of the statements. The state is taken as of
the newest change of the replay (just after NOW_US), so a TTL of 5 s written 30 s before has
run out and one of an hour has not."""
from __future__ import annotations

from datetime import datetime

import pytest

NOW_US = 1_700_000_000_000_000      # the shared replay's clock (test_acceptance_docs_cases)
T1, T2, T3 = (NOW_US - s * 1_000_000 for s in (30, 20, 10))
CDC = "cdc = {'enabled': true}"

SCRIPT = f"""
CREATE KEYSPACE consumer WITH replication = {{'class': 'NetworkTopologyStrategy', 'replication_factor': 1}};
USE consumer;
CREATE TABLE kv (k int PRIMARY KEY, v text, n int) WITH {CDC};
INSERT INTO kv (k, v, n) VALUES (1, 'a', 10) USING TIMESTAMP {T1};
UPDATE kv USING TIMESTAMP {T2} SET v = 'b' WHERE k = 1;
UPDATE kv USING TIMESTAMP {T1 - 1} SET v = 'older', n = 0 WHERE k = 1;
INSERT INTO kv (k, v, n) VALUES (2, 'c', 20) USING TIMESTAMP {T1};
DELETE n FROM kv USING TIMESTAMP {T2} WHERE k = 2;
INSERT INTO kv (k, v) VALUES (3, 'd') USING TIMESTAMP {T1};
DELETE FROM kv USING TIMESTAMP {T2} WHERE k = 3;
INSERT INTO kv (k, v) VALUES (4, 'e') USING TIMESTAMP {T1} AND TTL 5;
INSERT INTO kv (k, v) VALUES (5, 'f') USING TIMESTAMP {T3} AND TTL 3600;
INSERT INTO kv (k, v) VALUES (6, 'g') USING TIMESTAMP {T2};
DELETE FROM kv USING TIMESTAMP {T1} WHERE k = 6;
CREATE TABLE ev (p int, c int, s int STATIC, v int, PRIMARY KEY (p, c)) WITH {CDC};
INSERT INTO ev (p, c, s, v) VALUES (1, 1, 7, 1) USING TIMESTAMP {T1};
INSERT INTO ev (p, c, v) VALUES (1, 2, 2) USING TIMESTAMP {T1};
INSERT INTO ev (p, c, v) VALUES (1, 3, 3) USING TIMESTAMP {T1};
INSERT INTO ev (p, c, v) VALUES (1, 4, 4) USING TIMESTAMP {T1};
DELETE FROM ev USING TIMESTAMP {T2} WHERE p = 1 AND c >= 2 AND c < 4;
DELETE FROM ev USING TIMESTAMP {T2} WHERE p = 1 AND c = 4;
INSERT INTO ev (p, c, v) VALUES (2, 1, 1) USING TIMESTAMP {T1};
DELETE FROM ev USING TIMESTAMP {T2} WHERE p = 2;
UPDATE ev USING TIMESTAMP {T1} SET s = 5 WHERE p = 3;
UPDATE ev USING TIMESTAMP {T1} SET v = 9 WHERE p = 4 AND c = 1;
DELETE v FROM ev USING TIMESTAMP {T2} WHERE p = 4 AND c = 1;
CREATE TABLE coll (k int PRIMARY KEY, l list<int>, st set<text>, m map<text, int>) WITH {CDC};
INSERT INTO coll (k, l, st, m) VALUES (1, [1, 2], {{'a', 'b'}}, {{'x': 1}}) USING TIMESTAMP {T1};
UPDATE coll USING TIMESTAMP {T2} SET l = l + [3], st = st - {{'a'}}, m['y'] = 2 WHERE k = 1;
UPDATE coll USING TIMESTAMP {T3} SET l = [0] + l WHERE k = 1;
INSERT INTO coll (k, st) VALUES (2, {{'p', 'q'}}) USING TIMESTAMP {T1};
UPDATE coll USING TIMESTAMP {T2} SET st = {{'r'}} WHERE k = 2;
UPDATE coll USING TIMESTAMP {T2} SET m = m + {{'w': 1}} WHERE k = 3;
DELETE m FROM coll USING TIMESTAMP {T3} WHERE k = 3;
CREATE TYPE addr (street text, zip int);
CREATE TABLE people (k int PRIMARY KEY, a addr) WITH {CDC};
INSERT INTO people (k, a) VALUES (1, {{street: 'main', zip: 1}}) USING TIMESTAMP {T1};
UPDATE people USING TIMESTAMP {T2} SET a.zip = 2 WHERE k = 1;
"""


def expires_at(written_us: int, ttl_s: int) -> datetime:
    """As Spark hands a timestamp to Python: local time, no zone."""
    return datetime.fromtimestamp((written_us + ttl_s * 1_000_000) / 1e6)


def cell(name: str, value, written_us=None, ttl_s=None) -> dict:
    return {
        name: value, f"cdc$writetime_{name}": written_us, f"cdc$ttl_{name}": ttl_s,
        f"cdc$expires_at_{name}": expires_at(written_us, ttl_s) if ttl_s else None,
    }


def state(shared_replay, table: str, key) -> list[dict]:
    result, _ = shared_replay
    return sorted(result.consumer_rows[f"consumer.{table}_state"], key=key)


def test_updates_deletes_and_ttls(shared_replay):
    """An UPDATE overwrites (an older one does not); a cell delete leaves the row; a row delete
    removes it, an older one does not; a TTL that ran out removes the row, one that did not
    shows its expiry."""
    assert state(shared_replay, "kv", lambda r: r["k"]) == [
        {"k": 1, **cell("v", "b", T2), **cell("n", 10, T1)},
        {"k": 2, **cell("v", "c", T1), **cell("n", None)},
        {"k": 5, **cell("v", "f", T3, 3600), **cell("n", None)},
        {"k": 6, **cell("v", "g", T2), **cell("n", None)},
    ]


def test_range_row_and_partition_deletes_and_the_static_row(shared_replay):
    """A range delete removes the rows it covers, row and partition deletes theirs; a partition
    with only a static cell is one row with null clustering columns; a row an UPDATE made goes
    with its last cell."""
    assert state(shared_replay, "ev", lambda r: r["p"]) == [
        {"p": 1, "c": 1, **cell("s", 7, T1), **cell("v", 1, T1)},
        {"p": 3, "c": None, **cell("s", 5, T1), **cell("v", None)},
    ]


def test_collections_element_by_element(shared_replay):
    """List appends and prepends in timeuuid order, set removals, map puts; an overwrite's
    collection tombstone (T-1) removes the elements before it and keeps its own; a collection
    delete leaves no column and, with no row marker, no row."""
    assert state(shared_replay, "coll", lambda r: r["k"]) == [
        {"k": 1, **cell("l", [0, 1, 2, 3], T3), **cell("st", ["b"], T1), **cell("m", {"x": 1, "y": 2}, T2)},
        {"k": 2, **cell("l", None), **cell("st", ["r"], T2), **cell("m", None)},
    ]


def test_a_user_type_field_by_field(shared_replay):
    """A field update changes that field; the type's write time is its newest field's."""
    assert state(shared_replay, "people", lambda r: r["k"]) == [
        {"k": 1, **cell("a", {"street": "main", "zip": 2}, T2)},
    ]


@pytest.mark.parametrize("table", ["kv", "ev", "coll", "people"])
def test_a_state_table_per_log_table(shared_replay, table):
    result, _ = shared_replay
    assert f"consumer.{table}_scylla_cdc_log" in result.log_columns
    assert f"consumer.{table}_state" in result.consumer_rows


def history(shared_replay, table: str, key: str, columns: list[str]) -> list[tuple]:
    """(key, valid from, valid to, deletion, expiry, operation, *columns) per version."""
    result, _ = shared_replay
    rows = [(r[key], r["cdc$valid_from_us"], r["cdc$valid_to_us"], r["cdc$is_deletion"], r["cdc$is_expiry"],
             r["cdc$operation"], *(r[c] for c in columns))
            for r in result.consumer_rows[f"consumer.{table}_history"] if not r["cdc$is_static_row"]]
    return sorted(rows, key=lambda r: (r[0], r[1]))


def test_history_versions_in_write_time(shared_replay):
    """Versions follow the write timestamps: a write older than the row's INSERT makes the
    row's first version; a cell delete starts a version, a partition delete a deletion; a TTL
    ends its version at the expiry (no log row: no operation), even one still ahead; an older
    delete ends nothing."""
    assert history(shared_replay, "kv", "k", ["v", "n"]) == [
        (1, T1 - 1, T1, False, False, 1, "older", 0),
        (1, T1, T2, False, False, 2, "a", 10),
        (1, T2, None, False, False, 1, "b", 10),
        (2, T1, T2, False, False, 2, "c", 20),
        (2, T2, None, False, False, 1, "c", None),
        (3, T1, T2, False, False, 2, "d", None),
        (3, T2, None, True, False, 4, None, None),
        (4, T1, T1 + 5_000_000, False, False, 2, "e", None),
        (4, T1 + 5_000_000, None, True, True, None, None, None),
        (5, T3, T3 + 3_600_000_000, False, False, 2, "f", None),
        (5, T3 + 3_600_000_000, None, True, True, None, None, None),
        (6, T2, None, False, False, 2, "g", None),
    ]


def test_history_of_range_and_partition_deletes_and_the_static_row(shared_replay):
    """A range delete (its start row, op 5) and a partition delete end a version of every row
    they cover; the static row has versions of its own."""
    result, _ = shared_replay
    rows = sorted(((r["p"], r["c"], r["cdc$valid_from_us"], r["cdc$valid_to_us"], r["cdc$is_deletion"],
                    r["cdc$operation"], r["s"], r["v"])
                   for r in result.consumer_rows["consumer.ev_history"]), key=lambda r: (r[0], r[1] or 0, r[2]))
    assert rows == [
        (1, None, T1, None, False, 1, 7, None),
        (1, 1, T1, None, False, 2, None, 1),
        (1, 2, T1, T2, False, 2, None, 2),
        (1, 2, T2, None, True, 5, None, None),
        (1, 3, T1, T2, False, 2, None, 3),
        (1, 3, T2, None, True, 5, None, None),
        (1, 4, T1, T2, False, 2, None, 4),
        (1, 4, T2, None, True, 3, None, None),
        (2, 1, T1, T2, False, 2, None, 1),
        (2, 1, T2, None, True, 4, None, None),
        (3, None, T1, None, False, 1, 5, None),
        (4, 1, T1, T2, False, 1, None, 9),
        (4, 1, T2, None, True, 1, None, None),
    ]


def test_the_change_feed(shared_replay):
    """Delta's change types: an insert, an update as its pre- and post-image, a delete with the
    row before it, an expiry as a delete of no log row."""
    result, _ = shared_replay
    changes = sorted(((r["k"], r["cdc$commit_time_us"], r["_change_type"], r["v"], r["n"], r["cdc$is_expiry"])
                      for r in result.consumer_rows["consumer.kv_changes"] if r["k"] in (1, 3, 4)),
                     key=lambda r: (r[0], r[1], r[2]))
    assert changes == [
        (1, T1 - 1, "insert", "older", 0, False),
        (1, T1, "update_postimage", "a", 10, False),
        (1, T1, "update_preimage", "older", 0, False),
        (1, T2, "update_postimage", "b", 10, False),
        (1, T2, "update_preimage", "a", 10, False),
        (3, T1, "insert", "d", None, False),
        (3, T2, "delete", "d", None, False),
        (4, T1, "insert", "e", None, False),
        (4, T1 + 5_000_000, "delete", "e", None, True),
    ]
