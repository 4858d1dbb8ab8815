"""The per-row TTL column in the front door (cdclake/cql/row_ttl.py, table_schema.py): its syntax and
ScyllaDB's errors (test/cqlpy/test_ttl_row.py, create/alter_table_statement.cc), and the
expiration service's deletes (alternator/ttl.cc is_expired, expire_item)."""
from __future__ import annotations

import pytest

from cdclake.cql import run_script
from cdclake.cql.row_ttl import FIVE_YEARS_S, expiration_seconds, is_expired

NOW = 1_700_000_000_000_000
KEYSPACE = ("CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};\n"
            "USE ks;\n")


def run(script: str, period_s: float = 1.0):
    return run_script(KEYSPACE + script, now_us=NOW, step_us=1_000_000, row_ttl_scan_period_s=period_s)


@pytest.mark.parametrize("statement, error", [
    ("CREATE TABLE u (p int PRIMARY KEY, a int TTL, b int TTL)", "Cannot have more than one TTL column in a table. Saw a and b"),
    ("CREATE TABLE u (p int PRIMARY KEY, a text TTL)", "TTL column 'a' must be of type timestamp, bigint or int, can't be text"),
    ("CREATE TABLE u (p int TTL PRIMARY KEY, a int)", "TTL column p cannot be part of the PRIMARY KEY"),
    ("CREATE TABLE u (p int, c int, a int TTL STATIC, PRIMARY KEY (p, c))", "TTL column a cannot be a static column"),
    ("ALTER TABLE t TTL nope", "Column 'nope' does not exist in table ks.t"),
    ("ALTER TABLE t TTL t", "TTL column t must be of type timestamp, bigint or int, can't be text"),
    ("ALTER TABLE t TTL c", "Cannot use a primary key column c as a TTL column"),
    ("ALTER TABLE t TTL s", "Cannot use a static column s as a TTL column"),
    ("ALTER TABLE t TTL e", "Cannot set TTL column, table ks.t already has a TTL column defined: e"),
])
def test_scylla_errors(statement, error):
    result = run(f"CREATE TABLE t (p int, c int, s int STATIC, t text, e bigint TTL, f int, PRIMARY KEY (p, c));\n"
                 f"{statement};")
    assert [e.message for e in result.errors] == [error]


def test_alter_sets_and_unsets_it_and_dropping_the_column_drops_it():
    result = run("""
        CREATE TABLE t (p int PRIMARY KEY, e int, f int);
        ALTER TABLE t TTL e;
        ALTER TABLE t TTL NULL;
        ALTER TABLE t TTL NULL;
        ALTER TABLE t TTL f;
        ALTER TABLE t DROP f;
    """)
    assert [e.message for e in result.errors] == [
        "Cannot unset TTL column, table ks.t does not have a TTL column set"]
    assert [t.ttl_column for t in sorted(result.tables, key=lambda t: t.schema_version)] == [None, "e", None, "f", None]


def test_expiry_rules():
    now_s = NOW // 10**6
    assert expiration_seconds(1_700_000_000_999, "timestamp") == 1_700_000_000          # ms, truncated
    assert expiration_seconds(-1_999, "timestamp") == -1
    assert is_expired(now_s, now_s) and not is_expired(now_s + 1, now_s) and not is_expired(None, now_s)
    assert is_expired(now_s - FIVE_YEARS_S + 1, now_s) and not is_expired(now_s - FIVE_YEARS_S, now_s)


def test_the_service_deletes_expired_rows_at_its_scans():
    """Statement k runs at NOW + k s, after the scans up to its time; scans every 2 s: the first
    row (expired) goes at the first scan after its insert, the one without a TTL value and the malformed one (> 5 years ago) stay, the
    row expiring later goes at the first scan after its time."""
    now_s = NOW // 10**6
    result = run(f"""
        CREATE TABLE t (p int, c int, x int, e bigint TTL, PRIMARY KEY (p, c));
        CREATE TABLE u (p int PRIMARY KEY, x int, e timestamp TTL);
        INSERT INTO t (p, c, x, e) VALUES (1, 1, 1, {now_s - 60});
        INSERT INTO t (p, c, x) VALUES (1, 2, 2);
        INSERT INTO t (p, c, x, e) VALUES (1, 3, 3, 162777600);
        INSERT INTO t (p, c, x, e) VALUES (1, 4, 4, {now_s + 7});
        INSERT INTO u (p, x, e) VALUES (1, 1, {(now_s + 7) * 1000});
        SELECT * FROM t;
        SELECT * FROM t;
        SELECT * FROM t;
        SELECT * FROM t;
    """, period_s=2)
    deletes = [(a.table_name, a.atom_kind, a.clustering_key, a.write_timestamp, a.origin)
               for a in result.atoms if a.origin]
    assert deletes == [
        ("t", "row_tombstone", '{"c":1}', NOW + 6 * 10**6, "ttl_expiry"),     # inserted at NOW + 4 s
        ("t", "row_tombstone", '{"c":4}', NOW + 8 * 10**6, "ttl_expiry"),
        ("u", "partition_tombstone", None, NOW + 10 * 10**6, "ttl_expiry"),   # inserted at NOW + 8 s
    ]
