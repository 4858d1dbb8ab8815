"""DDL -> catalog, CDC options (docs/scylla/log.md §1) and BaseTable/BaseColumn records (cdclake/cql/catalog.py,
table_schema.py)."""
from __future__ import annotations

import pytest

from cdclake.cql import run_script
from cdclake.cql.errors import ALREADY_EXISTS, CONFIGURATION_ERROR, INVALID_QUERY
from cdclake.load.schema_records import BaseColumn, BaseTable

KEYSPACE = "CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};\n"


LOG_CREATED_MS = 1_700_000_000_001     # statement 2's clock (the keyspace is statement 1), in ms


def run(cql: str):
    return run_script(KEYSPACE + cql, now_us=1_700_000_000_000_000, enable_compact_storage=True)


def only_error(cql: str):
    result = run(cql)
    assert len(result.errors) == 1, result.errors
    return result.errors[0]


def table_record(cql: str, name: str = "t") -> BaseTable:
    result = run(cql)
    assert not result.errors, result.errors
    return next(table for table in result.final_tables() if table.table_name == name)


# ------------------------------------------------------------------------------- columns


def test_base_columns_kinds_positions_types_and_orders():
    result = run("CREATE TYPE ks.ut (a int, b text);"
                 "CREATE TABLE ks.t (pk1 int, pk2 text, ck1 int, ck2 varchar, zeta int, alpha map<int, text>, "
                 "\"Beta\" frozen<list<frozen<set<int>>>>, s2 int static, s1 ut static, tu tuple<int, varchar>, "
                 "fu frozen<ut>, l list<frozen<ut>>, PRIMARY KEY ((pk1, pk2), ck1, ck2)) "
                 "WITH CLUSTERING ORDER BY (ck1 DESC, ck2 ASC)")
    assert not result.errors
    rows = [(c.column_name, c.kind, c.position, c.cql_type, c.clustering_order) for c in result.final_columns()]
    assert rows == [
        ("pk1", "partition_key", 0, "int", "none"),
        ("pk2", "partition_key", 1, "text", "none"),
        ("ck1", "clustering", 0, "int", "desc"),
        ("ck2", "clustering", 1, "text", "asc"),
        ("s1", "static", 0, "ut", "none"),
        ("s2", "static", 1, "int", "none"),
        ("Beta", "regular", 0, "frozen<list<frozen<set<int>>>>", "none"),     # UTF-8 byte order: 'B' < 'a'
        ("alpha", "regular", 1, "map<int, text>", "none"),
        ("fu", "regular", 2, "frozen<ut>", "none"),
        ("l", "regular", 3, "list<frozen<ut>>", "none"),
        ("tu", "regular", 4, "frozen<tuple<int, text>>", "none"),
        ("zeta", "regular", 5, "int", "none"),
    ]
    assert all(isinstance(c, BaseColumn) and (c.keyspace_name, c.table_name) == ("ks", "t") for c in result.final_columns())


def test_collections_and_user_types_of_the_schema_case():
    result = run("CREATE TYPE ks.ut (a int, b int, c int);"
                 "CREATE TABLE ks.t (pk int, ck int, vm map<int, text>, vs set<int>, vl list<int>, vu ut, "
                 "PRIMARY KEY (pk, ck)) WITH cdc = {'enabled': true}")
    types = {c.column_name: c.cql_type for c in result.final_columns()}
    assert types == {"pk": "int", "ck": "int", "vm": "map<int, text>", "vs": "set<int>", "vl": "list<int>", "vu": "ut"}


# ------------------------------------------------------------------------------- CDC options


def test_table_without_cdc_has_default_records():
    assert table_record("CREATE TABLE ks.t (pk int PRIMARY KEY, v int)") == BaseTable("ks", "t", cdc_enabled=False)


@pytest.mark.parametrize("options, expected", [
    ("{'enabled': true}", dict(cdc_enabled=True)),
    ("{'enabled': 'true'}", dict(cdc_enabled=True)),
    ("{'enabled': '1', 'preimage': 'TRUE'}", dict(cdc_enabled=True, cdc_preimage="true")),
    ("{'enabled': 1, 'preimage': 'full', 'postimage': true}",
     dict(cdc_enabled=True, cdc_preimage="full", cdc_postimage=True)),
    ("{'enabled': true, 'preimage': 'on', 'delta': 'KEYS', 'ttl': 0}",
     dict(cdc_enabled=True, cdc_preimage="true", cdc_delta="keys", cdc_ttl_seconds=0)),
    ("{'Enabled': 'True', 'enabled': 'true', 'TTL': '3600'}", dict(cdc_enabled=True, cdc_ttl_seconds=3600)),
    ("{'enabled': true, 'ttl': '12abc'}", dict(cdc_enabled=True, cdc_ttl_seconds=12)),
    ("{'enabled': false, 'preimage': true}", dict(cdc_enabled=False)),
    ("{'enabled': '0'}", dict(cdc_enabled=False)),
    ("{'preimage': 'bogus', 'whatever': 1}", dict(cdc_enabled=False)),      # no 'enabled': ignored entirely
    ("{}", dict(cdc_enabled=False)),
])
def test_cdc_options_are_normalised(options, expected):
    record = table_record(f"CREATE TABLE ks.t (pk int PRIMARY KEY, v int) WITH cdc = {options}")
    # the log table exists from the CREATE (statement 2 of the script) when CDC is enabled
    created_ms = LOG_CREATED_MS if expected["cdc_enabled"] else None
    assert record == BaseTable("ks", "t", **expected, cdc_log_created_ms=created_ms)


@pytest.mark.parametrize("options, message", [
    ("{'enabled': true, 'Foo': 1}", "Invalid CDC option: Foo"),
    ("{'enabled': 'yes'}", 'Invalid value for CDC option "enabled": yes'),
    ("{'enabled': true, 'preimage': 'Sometimes'}", 'Invalid value for CDC option "preimage": Sometimes'),
    ("{'enabled': true, 'postimage': 'full'}", 'Invalid value for CDC option "postimage": full'),
    ("{'enabled': true, 'delta': 'partial'}", 'Invalid value for CDC option "delta": partial'),
    ("{'enabled': true, 'ttl': 'abc'}", 'Invalid value for CDC option "ttl": abc'),
    ("{'enabled': true, 'ttl': '99999999999'}", "Invalid CDC option: ttl too large"),
    ("{'enabled': true, 'ttl': -1}", "Invalid CDC option: ttl must be >= 0"),
])
def test_cdc_option_errors_have_scylladb_texts(options, message):
    error = only_error(f"CREATE TABLE ks.t (pk int PRIMARY KEY, v int) WITH cdc = {options}")
    assert (error.message, error.code) == (message, CONFIGURATION_ERROR)


def test_alter_table_with_cdc_replaces_the_whole_map():
    result = run("CREATE TABLE ks.t (pk int PRIMARY KEY, v int) "
                 "WITH cdc = {'enabled': true, 'preimage': true, 'postimage': true, 'ttl': 100};"
                 "ALTER TABLE ks.t WITH cdc = {'enabled': true, 'delta': 'keys'}")
    assert result.final_tables() == [BaseTable("ks", "t", cdc_enabled=True, cdc_delta="keys",
                                               cdc_log_created_ms=LOG_CREATED_MS, schema_version=1)]
    result = run("CREATE TABLE ks.t (pk int PRIMARY KEY, v int) WITH cdc = {'enabled': true, 'preimage': 'full'};"
                 "ALTER TABLE ks.t WITH cdc = {'enabled': false};"
                 "ALTER TABLE ks.t WITH default_time_to_live = 30")
    # disabling CDC detaches the log table but keeps it (and its creation time)
    assert result.final_tables() == [
        BaseTable("ks", "t", cdc_enabled=False, default_time_to_live=30, cdc_log_created_ms=LOG_CREATED_MS,
                  schema_version=2)
    ]
    assert [t.schema_version for t in result.tables] == [0, 1, 2]


def test_counter_tables_cannot_have_cdc():
    result = run("CREATE TABLE ks.tb1 (pk int primary key, c1 counter) WITH cdc = {'enabled': true};"
                 "CREATE TABLE ks.tb2 (pk int primary key, c1 counter);"
                 "ALTER TABLE ks.tb2 WITH cdc = {'enabled': true}")
    assert [(e.index, e.message, e.code) for e in result.errors] == [
        (1, "Cannot create CDC log for table ks.tb1. Counter support not implemented", INVALID_QUERY),
        (3, "Cannot create CDC log for table ks.tb2. Counter support not implemented", INVALID_QUERY),
    ]
    assert result.final_tables() == [BaseTable("ks", "tb2", cdc_enabled=False)]


def test_log_table_name_clashes():
    error = only_error("CREATE TABLE ks.t_scylla_cdc_log (pk int PRIMARY KEY);"
                       "CREATE TABLE ks.t (pk int PRIMARY KEY) WITH cdc = {'enabled': true}")
    assert error.message == ("Cannot create CDC log table for table ks.t because a table of name "
                             "ks.t_scylla_cdc_log already exists")
    error = only_error("CREATE TABLE ks.t (pk int PRIMARY KEY) WITH cdc = {'enabled': true};"
                       "ALTER TABLE ks.t WITH cdc = {'enabled': false};"
                       "CREATE TABLE ks.t_scylla_cdc_log (pk int PRIMARY KEY)")
    assert (error.message, error.code) == (
        'Cannot add already existing table "t_scylla_cdc_log" to keyspace "ks"', ALREADY_EXISTS)
    result = run("CREATE TABLE ks.t (pk int PRIMARY KEY) WITH cdc = {'enabled': true};"
                 "DROP TABLE ks.t;"
                 "CREATE TABLE ks.t_scylla_cdc_log (pk int PRIMARY KEY)")
    assert not result.errors and [t.table_name for t in result.final_tables()] == ["t_scylla_cdc_log"]


def test_nested_cdc_logs_are_refused():
    error = only_error("CREATE TABLE ks.t (pk int PRIMARY KEY) WITH cdc = {'enabled': true};"
                       "ALTER TABLE ks.t_scylla_cdc_log WITH cdc = {'enabled': true}")
    assert error.message == ("Cannot create a CDC log for a table ks.t_scylla_cdc_log, because creating nested "
                             "CDC logs is not allowed")


# ------------------------------------------------------------------------------- DDL errors


@pytest.mark.parametrize("cql, message", [
    ("CREATE TABLE nope.t (pk int PRIMARY KEY)", "Cannot create a table in a non-existent keyspace: nope"),
    ("CREATE TABLE t (pk int PRIMARY KEY)",
     "No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, pk text)", "Multiple definition of identifier pk"),
    ("CREATE TABLE ks.t (pk int, v int)", "No PRIMARY KEY specified (exactly one required)"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, v int, PRIMARY KEY (v))",
     "Multiple PRIMARY KEYs specified (exactly one required)"),
    ("CREATE TABLE ks.t (pk int, PRIMARY KEY (pk, ck))", "Unknown definition ck referenced in PRIMARY KEY"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, s int static)",
     "Static columns are only useful (and thus allowed) if the table has at least one clustering column"),
    ("CREATE TABLE ks.t (pk int, ck int static, PRIMARY KEY (pk, ck))",
     "Static column ck cannot be part of the PRIMARY KEY"),
    ("CREATE TABLE ks.t (pk list<int> PRIMARY KEY)", "Invalid non-frozen collection type for PRIMARY KEY component pk"),
    ("CREATE TABLE ks.t (pk duration PRIMARY KEY)", "duration type is not supported for PRIMARY KEY part pk"),
    ("CREATE TABLE ks.t (pk counter PRIMARY KEY)", "counter type is not supported for PRIMARY KEY part pk"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, c counter, v int)",
     "Cannot add a non counter column (v) in a counter column family"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, v nope)", "Unknown type ks.nope"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, v list<list<int>>)",
     "Non-frozen collections are not allowed inside collections: list<list<int>>"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, v set<duration>)", "Durations are not allowed inside sets: set<duration>"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, v frozen<int>)",
     "frozen<> is only allowed on collections, tuples, and user-defined types (got int)"),
    ("CREATE TABLE ks.t (pk int, a int, b int, PRIMARY KEY (pk, a, b)) WITH CLUSTERING ORDER BY (b DESC)",
     "Missing CLUSTERING ORDER for column a"),
    ("CREATE TABLE ks.t (pk int, a int, b int, PRIMARY KEY (pk, a, b)) WITH CLUSTERING ORDER BY (b DESC, a ASC)",
     "The order of columns in the CLUSTERING ORDER directive must be the one of the clustering key "
     "(a must appear before b)"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, v int) WITH default_time_to_live = -1",
     "default_time_to_live must be greater than or equal to 0 (got -1)"),
    ("CREATE TABLE ks.t (pk int, ck int, a int, b int, PRIMARY KEY (pk, ck)) WITH COMPACT STORAGE",
     "COMPACT STORAGE with composite PRIMARY KEY allows no more than one column not part of the PRIMARY KEY "
     "(got: a, b)"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY); CREATE TABLE ks.t (pk int PRIMARY KEY)",
     'Cannot add already existing table "t" to keyspace "ks"'),
    ("DROP TABLE ks.nope", "Cannot drop non existing table 'nope' in keyspace 'ks'."),
    ("CREATE TYPE ks.ut (a int); CREATE TABLE ks.t (pk int PRIMARY KEY, v frozen<ut>); DROP TYPE ks.ut",
     "Cannot drop user type ks.ut as it is still used by table ks.t"),
    ("CREATE TYPE ks.ut (a int, a text)", "Duplicate field name a in type ut"),
    ("CREATE TYPE ks.inner (a int); CREATE TYPE ks.ut (i inner)", "A user type cannot contain non-frozen UDTs"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, v int); ALTER TABLE ks.t ADD v text",
     "Invalid column name v because it conflicts with an existing column"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, v int); ALTER TABLE ks.t DROP pk", "Cannot drop PRIMARY KEY part pk"),
    ("CREATE TABLE ks.t (pk int PRIMARY KEY, v int); ALTER TABLE ks.t RENAME v TO w",
     "Cannot rename non PRIMARY KEY part v"),
    ("ALTER TABLE ks.nope WITH comment = 'x'", "unconfigured table nope"),
    ("USE nope", "Keyspace 'nope' does not exist"),
    ("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy'}", "Keyspace ks already exists"),
])
def test_ddl_errors(cql, message):
    assert only_error(cql).message == message


def test_if_not_exists_and_if_exists_are_silent():
    result = run("CREATE TABLE ks.t (pk int PRIMARY KEY, v int);"
                 "CREATE TABLE IF NOT EXISTS ks.t (pk text PRIMARY KEY);"
                 "DROP TABLE IF EXISTS ks.nope; DROP TYPE IF EXISTS ks.nope; DROP KEYSPACE IF EXISTS nope;"
                 "CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy'}")
    assert not result.errors
    assert [(c.column_name, c.cql_type) for c in result.final_columns()] == [("pk", "int"), ("v", "int")]


def test_alter_table_add_drop_rename_and_use():
    result = run("USE ks; CREATE TABLE t (pk int, ck int, v int, PRIMARY KEY (pk, ck));"
                 "ALTER TABLE t ADD (b text, a int static); ALTER TABLE t DROP v; ALTER TABLE t RENAME ck TO c")
    assert not result.errors
    assert [(c.column_name, c.kind, c.position) for c in result.final_columns()] == [
        ("pk", "partition_key", 0), ("c", "clustering", 0), ("a", "static", 0), ("b", "regular", 0)]


def test_alter_type_add_reaches_the_tables_using_it():
    result = run("CREATE TYPE ks.ut (a int);"
                 "CREATE TABLE ks.t (pk int PRIMARY KEY, v frozen<ut>);"
                 "ALTER TYPE ks.ut ADD b text;"
                 "INSERT INTO ks.t (pk, v) VALUES (0, {b: 'x'})")
    assert not result.errors
    assert [a.value for a in result.atoms if a.atom_kind == "cell"] == ['{"udt":{"a":null,"b":"x"}}']


def test_drop_keyspace_drops_its_tables():
    result = run("CREATE TABLE ks.t (pk int PRIMARY KEY); DROP KEYSPACE ks")
    assert not result.errors and result.final_tables() == [] and result.final_columns() == []
