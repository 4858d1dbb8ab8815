"""Row order inside a group, split and unsplit (docs/scylla/log.md §4.2-4.4, cdc/split.cc).

Each scenario is one BATCH at one timestamp on one partition; the expected rows are
(operation, clustering key, cdc$ttl) in cdc$batch_seq_no order, derived from ScyllaDB's
should_split visitor and its two emission paths.
"""
from __future__ import annotations

import pytest

NOW_US = 1_700_000_000_000_000
TABLE = "(pk int, ck int, v int, w int, PRIMARY KEY (pk, ck))"

SCENARIOS = {
    # one timestamp, one TTL: unsplit, rows in clustering order whatever their kind
    "unsplit_insert_and_update_by_key": (
        TABLE,
        ["INSERT INTO {t} (pk, ck, v) VALUES (0, 1, 1)", "UPDATE {t} SET v = 2 WHERE pk = 0 AND ck = 0"],
        [(1, 0, None), (2, 1, None)],
    ),
    # a second TTL splits: INSERTs first, then UPDATEs
    "split_by_ttl_inserts_first": (
        TABLE,
        ["INSERT INTO {t} (pk, ck, v) VALUES (0, 1, 1) USING TTL 5", "UPDATE {t} SET v = 2 WHERE pk = 0 AND ck = 0"],
        [(2, 1, 5), (1, 0, None)],
    ),
    # a row delete before any upsert (clustering order) does not split
    "unsplit_row_delete_then_update": (
        TABLE,
        ["UPDATE {t} SET v = 1 WHERE pk = 0 AND ck = 1", "DELETE FROM {t} WHERE pk = 0 AND ck = 0"],
        [(3, 0, None), (1, 1, None)],
    ),
    # a row delete after an upsert splits: INSERTs, UPDATEs, then row deletes
    "split_by_row_delete_after_upsert": (
        TABLE,
        [
            "UPDATE {t} SET v = 1 WHERE pk = 0 AND ck = 0",
            "DELETE FROM {t} WHERE pk = 0 AND ck = 1",
            "INSERT INTO {t} (pk, ck, v) VALUES (0, 2, 2)",
        ],
        [(2, 2, None), (1, 0, None), (3, 1, None)],
    ),
    # a range delete with a clustered row splits: the row first, then the range's two bounds
    "split_by_range_and_row": (
        TABLE,
        ["DELETE FROM {t} WHERE pk = 0 AND ck > 0 AND ck < 3", "UPDATE {t} SET v = 5 WHERE pk = 0 AND ck = 5"],
        [(1, 5, None), (6, 0, None), (8, 3, None)],
    ),
    # range deletes in range-tombstone-list order (by start bound)
    "ranges_by_start_bound": (
        TABLE,
        ["DELETE FROM {t} WHERE pk = 0 AND ck >= 5 AND ck < 7", "DELETE FROM {t} WHERE pk = 0 AND ck > 1 AND ck <= 2"],
        [(6, 1, None), (7, 2, None), (5, 5, None), (8, 7, None)],
    ),
    # a partition delete with anything else splits and comes last
    "partition_delete_last": (
        TABLE,
        ["DELETE FROM {t} WHERE pk = 0", "UPDATE {t} SET v = 1 WHERE pk = 0 AND ck = 3"],
        [(1, 3, None), (4, None, None)],
    ),
    # descending clustering order is the order of rows
    "descending_clustering_order": (
        TABLE + " WITH CLUSTERING ORDER BY (ck DESC)",
        ["UPDATE {t} SET v = 1 WHERE pk = 0 AND ck = 0", "UPDATE {t} SET v = 2 WHERE pk = 0 AND ck = 1"],
        [(1, 1, None), (1, 0, None)],
    ),
    # an INSERT with a TTL and a null: the marker row (ttl) first, then the dead cell (op 1)
    "insert_ttl_with_null": (
        TABLE,
        ["INSERT INTO {t} (pk, ck, v, w) VALUES (0, 0, 1, null) USING TTL 7"],
        [(2, 0, 7), (1, 0, None)],
    ),
}


def build_script() -> str:
    statements = []
    for n, (name, (columns, body, _)) in enumerate(SCENARIOS.items()):
        keyspace = f"order_{n}"
        table = f"{keyspace}.t"
        with_cdc = " AND cdc = {'enabled': true}" if " WITH " in columns else " WITH cdc = {'enabled': true}"
        statements.append(f"CREATE KEYSPACE {keyspace} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}}")
        statements.append(f"CREATE TABLE {table} {columns}{with_cdc}")
        statements.append("BEGIN UNLOGGED BATCH " + "; ".join(s.format(t=table) for s in body) + "; APPLY BATCH")
    return ";\n".join(statements) + ";\n"


@pytest.fixture(scope="module")
def log_rows(shared_replay):
    result, _ = shared_replay
    assert not [e for e in result.statement_errors if "order_" in e.statement], result.statement_errors
    return result.log_rows


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_row_order(name, log_rows):
    table = f"order_{list(SCENARIOS).index(name)}.t_scylla_cdc_log"
    rows = [r for r in log_rows if r["table"] == table]
    assert [r["cdc$batch_seq_no"] for r in rows] == list(range(len(rows)))
    assert len({r["cdc$time"] for r in rows}) == 1
    assert [(r["cdc$operation"], r["ck"], r["cdc$ttl"]) for r in rows] == SCENARIOS[name][2]
    assert [r["cdc$end_of_batch"] for r in rows] == [None] * (len(rows) - 1) + [True]
