"""DESCRIBE TABLE in the front door (cdclake/cql/describe.py), against what ScyllaDB's tests
assert: the CDC options map (test/cql/cdc_enable_disable_test, cdc/log.cc options::to_map), the
log table's columns (test_cdc.py::test_reattach_cdc_log_table_after_altering_base), the TTL
column (test_ttl_row.py) and COMPACT STORAGE (schema.cc get_create_statement)."""
from __future__ import annotations

from cdclake.cql import run_script

KEYSPACE = ("CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};\n"
            "USE ks;\n")


def describe(script: str) -> list[str]:
    result = run_script(KEYSPACE + script, now_us=1_700_000_000_000_000, enable_compact_storage=True)
    assert not result.errors, result.errors
    return [d.create_statement for d in result.descriptions]


def test_cdc_options_as_describe_shows_them():
    enabled, disabled, never = describe("""
        CREATE TABLE t (p int PRIMARY KEY, v int) WITH cdc = {'enabled': true, 'preimage': 'full', 'ttl': 60};
        DESC TABLE t;
        ALTER TABLE t WITH cdc = {'enabled': false};
        DESC TABLE t;
        CREATE TABLE u (p int PRIMARY KEY);
        DESCRIBE TABLE u;
    """)
    assert enabled.endswith("AND cdc = {'delta': 'full', 'enabled': 'true', 'postimage': 'false', "
                            "'preimage': 'full', 'ttl': '60'};")
    # disabling keeps the map: the other keys back at their defaults (ALTER replaces the whole map)
    assert disabled.endswith("AND cdc = {'delta': 'full', 'enabled': 'false', 'postimage': 'false', "
                             "'preimage': 'false', 'ttl': '86400'};")
    assert "cdc" not in never


def test_the_log_table_after_the_base_changed_while_detached():
    (log,) = describe("""
        CREATE TABLE t (p int, v int, u int, a int, PRIMARY KEY (p, v)) WITH cdc = {'enabled': true};
        ALTER TABLE t WITH cdc = {'enabled': false};
        ALTER TABLE t DROP a;
        ALTER TABLE t ADD b double;
        ALTER TABLE t RENAME v TO v2;
        ALTER TABLE t WITH cdc = {'enabled': true};
        DESC TABLE t_scylla_cdc_log;
    """)
    assert log.startswith(
        'CREATE TABLE ks.t_scylla_cdc_log (\n'
        '    "cdc$stream_id" blob,\n'
        '    "cdc$time" timeuuid,\n'
        '    "cdc$batch_seq_no" int,\n'
        '    b double,\n'
        '    "cdc$deleted_b" boolean,\n'
        '    "cdc$deleted_u" boolean,\n'
        '    "cdc$end_of_batch" boolean,\n'
        '    "cdc$operation" tinyint,\n'
        '    "cdc$ttl" bigint,\n'
        '    p int,\n'
        '    u int,\n'
        '    v2 int,\n'
        '    PRIMARY KEY ("cdc$stream_id", "cdc$time", "cdc$batch_seq_no")\n'
        ')')


def test_columns_keys_ttl_column_and_compact_storage():
    table, compact = describe("""
        CREATE TABLE t ("Odd" text, p int, c int, s int STATIC, e timestamp TTL, "from" int,
                        PRIMARY KEY ((p, "Odd"), c)) WITH CLUSTERING ORDER BY (c DESC) AND default_time_to_live = 5;
        DESC TABLE t;
        CREATE TABLE d (pk int, ck int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE;
        DESC TABLE d;
    """)
    assert table == (
        'CREATE TABLE ks.t (\n'
        '    p int,\n'
        '    "Odd" text,\n'
        '    c int,\n'
        '    s int STATIC,\n'
        '    e timestamp TTL,\n'
        '    "from" int,\n'
        '    PRIMARY KEY ((p, "Odd"), c)\n'
        ') WITH CLUSTERING ORDER BY (c DESC)\n'
        '    AND default_time_to_live = 5;')
    assert compact == (
        'CREATE TABLE ks.d (\n'
        '    pk int,\n'
        '    ck int,\n'
        '    PRIMARY KEY (pk, ck)\n'
        ') WITH CLUSTERING ORDER BY (ck ASC)\n'
        '    AND COMPACT STORAGE\n'
        '    AND default_time_to_live = 0;')
