"""`cdclake load schema|cql|snapshot` without Spark: what each file adds to the inputs, and how
bad lines are reported (file:line:column) while the good ones load."""
from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import REPO

from cdclake.cql.errors import CqlSyntaxError
from cdclake.cql.interpreter import run_script
from cdclake.load.cql_load import load_cql_text
from cdclake.load.schema_ddl import schema_ddl
from cdclake.load.schema_load import load_schema_text
from cdclake.load.schema_records import with_types
from cdclake.load.snapshot_load import load_snapshot_text
from cdclake.load.table_export import ExportFileError, cql_literal

NOW_US = 1_700_000_000_000_000
# cqlsh DESCRIBE KEYSPACE output of ScyllaDB 6: every table option, the log table as a comment,
# an index and a materialized view
DESCRIBE = """\
CREATE KEYSPACE metrics WITH replication = {'class': 'org.apache.cassandra.locator.NetworkTopologyStrategy', 'dc1': '3'} AND durable_writes = true AND tablets = {'enabled': false};

CREATE TYPE metrics.location (
    site text,
    rack int
);

CREATE TABLE metrics.readings (
    sensor_id uuid,
    day date,
    at timestamp,
    loc frozen<location>,
    tags set<text>,
    value double,
    PRIMARY KEY ((sensor_id, day), at)
) WITH CLUSTERING ORDER BY (at DESC)
    AND bloom_filter_fp_chance = 0.01
    AND caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'}
    AND comment = ''
    AND compaction = {'class': 'SizeTieredCompactionStrategy'}
    AND compression = {'sstable_compression': 'org.apache.cassandra.io.compress.LZ4Compressor'}
    AND crc_check_chance = 1
    AND default_time_to_live = 0
    AND gc_grace_seconds = 864000
    AND max_index_interval = 2048
    AND memtable_flush_period_in_ms = 0
    AND min_index_interval = 128
    AND speculative_retry = '99.0PERCENTILE'
    AND paxos_grace_seconds = 864000
    AND tombstone_gc = {'mode': 'timeout', 'propagation_delay_in_seconds': '3600'}
    AND cdc = {'delta': 'full', 'enabled': 'true', 'postimage': 'true', 'preimage': 'true', 'ttl': '86400'};

/* Do NOT execute this statement! It's only for informational purposes.
CREATE TABLE metrics.readings_scylla_cdc_log (
    "cdc$stream_id" blob,
    PRIMARY KEY ("cdc$stream_id")
) WITH comment = 'CDC log for metrics.readings';
*/

CREATE INDEX readings_value_idx ON metrics.readings(value);

CREATE MATERIALIZED VIEW metrics.readings_by_value AS
    SELECT * FROM metrics.readings
    WHERE value IS NOT NULL AND sensor_id IS NOT NULL AND day IS NOT NULL AND at IS NOT NULL
    PRIMARY KEY (value, sensor_id, day, at)
    WITH CLUSTERING ORDER BY (sensor_id ASC, day ASC, at ASC)
    AND comment = '';

CREATE TABLE metrics.sensors (
    sensor_id uuid PRIMARY KEY,
    name text,
    attrs map<text, text>,
    placed timestamp
) WITH bloom_filter_fp_chance = 0.01
    AND default_time_to_live = 0
    AND cdc = {'enabled': 'true'};
"""
SENSOR = "5b6962dd-3f90-4c93-8f61-eabfa4a803e2"


def schema_records(text: str = DESCRIBE, existing=([], [], [])):
    load = load_schema_text(text, "ks.cql", NOW_US, existing)
    return load, (existing[0] + load.tables, existing[1] + load.columns, with_types(existing[2], load.types))


def plain(records):
    """Records without what a schema file cannot know (version, log creation time), sorted."""
    return sorted((replace(r, schema_version=0, **({"cdc_log_created_ms": None} if hasattr(r, "cdc_log_created_ms")
                                                   else {})) for r in records), key=repr)


def test_a_describe_output_loads_the_tables_a_create_gives_and_skips_indexes_and_views():
    load, _ = schema_records()
    created = run_script(DESCRIBE.split("CREATE INDEX")[0] + DESCRIBE[DESCRIBE.index("CREATE TABLE metrics.sensors"):],
                         now_us=NOW_US)
    assert not load.problems and not created.errors
    assert plain(load.tables) == plain(created.final_tables())
    assert plain(load.columns) == plain(created.final_columns())
    assert load.types == created.types
    assert load.outcomes == ["metrics.readings: new (schema version 0)", "metrics.sensors: new (schema version 0)"]
    index_line, view_line = (DESCRIBE[:DESCRIBE.index(s)].count("\n") + 1 for s in ("CREATE INDEX", "CREATE MATERIALIZED"))
    assert [n.split(": ", 1) for n in load.notes] == [
        [f"ks.cql:{index_line}:1", "CREATE INDEX skipped (CDC logs the base table's writes only)"],
        [f"ks.cql:{view_line}:1", "CREATE MATERIALIZED VIEW skipped (CDC logs the base table's writes only)"],
    ]
    readings = next(t for t in load.tables if t.table_name == "readings")
    assert (readings.cdc_enabled, readings.cdc_preimage, readings.cdc_postimage) == (True, "true", True)
    assert readings.cdc_log_created_ms is None      # DESCRIBE does not say when CDC was enabled


# the other two forms of a log table in DESCRIBE outputs: ScyllaDB's server-side DESCRIBE prints its
# properties after its base table; older cqlsh printed it as a table
LOG_TABLE_ALTER = """
ALTER TABLE metrics.readings_scylla_cdc_log WITH bloom_filter_fp_chance = 0.01
    AND caching = {'enabled': 'false', 'keys': 'NONE', 'rows_per_partition': 'NONE'}
    AND comment = 'CDC log for metrics.readings'
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_size': '60', 'compaction_window_unit': 'MINUTES'}
    AND default_time_to_live = 0
    AND gc_grace_seconds = 0;
"""
LOG_TABLE_CREATE = """
CREATE TABLE metrics.sensors_scylla_cdc_log (
    "cdc$stream_id" blob,
    "cdc$time" timeuuid,
    "cdc$batch_seq_no" int,
    "cdc$end_of_batch" boolean,
    "cdc$operation" tinyint,
    "cdc$ttl" bigint,
    sensor_id uuid,
    name text,
    PRIMARY KEY ("cdc$stream_id", "cdc$time", "cdc$batch_seq_no")
) WITH CLUSTERING ORDER BY ("cdc$time" ASC, "cdc$batch_seq_no" ASC)
    AND comment = 'CDC log for metrics.sensors';
"""


def with_log_table_forms(describe: str = DESCRIBE) -> str:
    """``describe`` with the ALTER form after the readings table and the CREATE form before sensors."""
    readings_end = describe.index("/* Do NOT execute")
    sensors = describe.index("CREATE TABLE metrics.sensors")
    return describe[:readings_end] + LOG_TABLE_ALTER.lstrip() + "\n" + describe[readings_end:sensors] \
        + LOG_TABLE_CREATE.lstrip() + "\n" + describe[sensors:]


def test_every_form_of_a_log_table_in_a_describe_output_is_skipped_with_a_note():
    """The log tables as ScyllaDB's DESCRIBE prints them (an ALTER of their properties, an older
    cqlsh's CREATE, a comment) load nothing and are named in the notes; the rest loads as without them."""
    text = with_log_table_forms()
    load, _ = schema_records(text)
    plain_load, _ = schema_records()
    assert not load.problems
    assert plain(load.tables) == plain(plain_load.tables) and plain(load.columns) == plain(plain_load.columns)
    alter_line, create_line = (text[:text.index(s)].count("\n") + 1
                               for s in ("ALTER TABLE metrics.readings_scylla_cdc_log", "CREATE TABLE metrics.sensors_scylla"))
    skipped = [n for n in load.notes if "CDC log table" in n]
    assert skipped == [
        f"ks.cql:{alter_line}:1: ALTER TABLE metrics.readings_scylla_cdc_log skipped (the CDC log table: the build "
        "makes it from its base table)",
        f"ks.cql:{create_line}:1: CREATE TABLE metrics.sensors_scylla_cdc_log skipped (the CDC log table: the "
        "build makes it from its base table)",
    ]
    # the base table already in the warehouse: its log table's ALTER alone is skipped too
    _, existing = schema_records()
    again, _ = schema_records(LOG_TABLE_ALTER, existing)
    assert not again.problems and again.tables == [] and len(again.notes) == 1


def test_loading_a_changed_schema_makes_a_new_version_and_an_unchanged_one_none():
    _, existing = schema_records()
    changed = DESCRIBE.replace("    value double,\n", "    value double,\n    unit text,\n")
    load, _ = schema_records(changed, existing)
    assert load.outcomes == ["metrics.readings: changed (schema version 1)", "metrics.sensors: unchanged (schema version 0)"]
    assert [(t.table_name, t.schema_version) for t in load.tables] == [("readings", 1)]
    assert {c.column_name for c in load.columns} == {"sensor_id", "day", "at", "loc", "tags", "value", "unit"}
    assert {c.schema_version for c in load.columns} == {1}
    assert load.types == []          # the user type is unchanged: its rows stay as they are


def test_a_schema_file_reports_bad_statements_by_line_and_loads_the_rest():
    text = DESCRIBE + "CREATE TABLE metrics.bad (k int PRIMARY KEY, v unknown_type);\n" \
        "INSERT INTO metrics.sensors (sensor_id) VALUES (5b6962dd-3f90-4c93-8f61-eabfa4a803e2);\n"
    load, _ = schema_records(text)
    assert [t.table_name for t in load.tables] == ["readings", "sensors"]
    lines = len(DESCRIBE.splitlines())
    assert load.problems[0].startswith(f"ks.cql:{lines + 2}:1: INSERT INTO metrics.sensors")
    assert "is not a schema statement" in load.problems[0]
    assert load.problems[1].startswith(f"ks.cql:{lines + 1}:1: CREATE TABLE metrics.bad")
    assert "unknown_type" in load.problems[1]


def test_a_schema_file_that_does_not_parse_loads_nothing_and_says_where():
    with pytest.raises(CqlSyntaxError) as error:
        load_schema_text("CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy'};\nCREATE TABLE k.t (k int PRIMARY KEY,,);\n",
                         "ks.cql", NOW_US, ([], [], []))
    assert (error.value.line, error.value.column) == (2, 37)


@pytest.mark.parametrize("script", ["examples/shop.cql", "describe"])
def test_the_schema_ddl_of_loaded_records_recreates_them(script):
    text = (REPO / script).read_text() if script.endswith(".cql") else DESCRIBE
    first = run_script(text.split("CREATE INDEX")[0] + (text[text.index("CREATE TABLE metrics.sensors"):]
                                                          if script == "describe" else ""), now_us=NOW_US)
    again = run_script(schema_ddl(first.tables, first.columns, first.types), now_us=NOW_US)
    assert not again.errors
    assert plain(again.final_tables()) == plain(first.final_tables())
    assert plain(again.final_columns()) == plain(first.final_columns())
    assert sorted(again.types, key=repr) == sorted(first.types, key=repr)


def test_a_cql_load_continues_the_write_ids_and_the_schema_versions_of_the_warehouse():
    _, existing = schema_records()
    existing = (existing[0] + [replace(t, schema_version=3) for t in existing[0] if t.table_name == "sensors"],
                existing[1] + [replace(c, schema_version=3) for c in existing[1] if c.table_name == "sensors"],
                existing[2])
    load = load_cql_text(
        f"INSERT INTO metrics.sensors (sensor_id, name) VALUES ({SENSOR}, 'a');\n"
        f"  INSERT INTO metrics.sensors (sensor_id, nam) VALUES ({SENSOR}, 'a');\n"
        "ALTER TABLE metrics.sensors ADD unit text;\n"
        f"UPDATE metrics.sensors SET unit = 'C' WHERE sensor_id = {SENSOR};\n",
        "w.cql", now_us=NOW_US, existing=existing, last_write_id=41)
    assert [(a.write_id, a.schema_version, a.atom_kind, a.column_name) for a in load.atoms] == [
        (42, 3, "row_marker", None), (42, 3, "cell", "name"), (43, 4, "cell", "unit")]
    assert [(t.table_name, t.schema_version) for t in load.tables] == [("sensors", 4)]
    assert {c.schema_version for c in load.columns} == {4} and "unit" in {c.column_name for c in load.columns}
    assert load.problems == [f"w.cql:2:3: INSERT INTO metrics.sensors (sensor_id, nam) VALUES ({SENSOR[:4]}...: "
                             "Unknown identifier nam"]


def snapshot(csv_text: str, **options):
    _, existing = schema_records()
    return load_snapshot_text(csv_text, "s.csv", "metrics", "sensors", existing=existing, last_write_id=10,
                              now_us=NOW_US, **options)


def inserts(statements: str):
    _, existing = schema_records()
    return load_cql_text(statements, "i.cql", now_us=NOW_US, step_us=0, existing=existing, last_write_id=10)


def test_a_backfilled_row_is_the_insert_that_writes_it_again():
    export = ("sensor_id,name,attrs,placed\n"
              f"{SENSOR},\"it's\",\"{{'k': 'v', 'l': 'w'}}\",2023-11-14 22:00:00.000000+0000\n"
              "6b6962dd-3f90-4c93-8f61-eabfa4a803e2,,,\n")
    expected = inserts(
        f"INSERT INTO metrics.sensors (sensor_id, attrs, name, placed) VALUES ({SENSOR}, {{'k': 'v', 'l': 'w'}}, "
        f"'it''s', '2023-11-14 22:00:00.000000+0000') USING TIMESTAMP {NOW_US - 7};\n"
        f"INSERT INTO metrics.sensors (sensor_id) VALUES (6b6962dd-3f90-4c93-8f61-eabfa4a803e2) USING TIMESTAMP {NOW_US - 7};\n")
    load = snapshot(export, backfill_us=NOW_US - 7)
    assert not load.problems and not expected.problems
    assert load.atoms == expected.atoms


def test_a_backfill_at_the_original_write_times_writes_each_column_at_its_own():
    export = ("sensor_id,name,placed,writetime(name),ttl(name),writetime(placed)\n"
              f"{SENSOR},a,2023-11-14 22:00:00.000000+0000,{NOW_US - 50},600,{NOW_US - 90}\n")
    expected = inserts(
        f"INSERT INTO metrics.sensors (sensor_id, placed) VALUES ({SENSOR}, '2023-11-14 22:00:00.000000+0000') "
        f"USING TIMESTAMP {NOW_US - 90};\n"
        f"UPDATE metrics.sensors USING TIMESTAMP {NOW_US - 50} AND TTL 600 SET name = 'a' WHERE sensor_id = {SENSOR};\n")
    assert snapshot(export, write_times="original").atoms == expected.atoms
    backfill = snapshot(export, backfill_us=NOW_US)      # the export's TTL kept, one write time
    assert {a.write_timestamp for a in backfill.atoms} == {NOW_US}
    assert [a.ttl_seconds for a in backfill.atoms if a.column_name == "name"] == [600]


def test_a_cqlsh_export_without_header_and_a_dsbulk_export_load_the_same_rows():
    # COPY TO without HEADER: the key, then the other columns by name (attrs, name, placed)
    cqlsh = f"{SENSOR},{{'k': 'v'}},x,2023-11-14 22:00:00.000000+0000\n"
    dsbulk = f"sensor_id,attrs,name,placed\n{SENSOR},\"{{\"\"k\"\":\"\"v\"\"}}\",x,2023-11-14T22:00:00Z\n"
    assert snapshot(cqlsh).atoms == snapshot(dsbulk).atoms != []
    assert cql_literal('["a", "b\'c"]', load_cql_field_type("list<text>")) == "['a', 'b''c']"


def load_cql_field_type(text: str):
    from cdclake.cql.interpreter import catalog_of

    catalog = catalog_of(f"CREATE KEYSPACE k WITH replication = {{'class': 'SimpleStrategy'}};\n"
                         f"CREATE TABLE k.t (k int PRIMARY KEY, v {text});")
    return catalog.table("k", "t").column("v").type


def test_bad_fields_are_reported_by_line_and_column_and_their_rows_skipped():
    export = ("sensor_id,name,placed,writetime(name)\n"
              f"{SENSOR},a,2023-11-14 22:00:00.000000+0000,\n"
              "not-a-uuid,b,,\n"
              f"{SENSOR},c,yesterday,\n"
              f",d,,\n"
              f"{SENSOR},e,,soon\n")
    load = snapshot(export)
    assert load.writes == 1
    assert [p.split(": ")[0] for p in load.problems] == ["s.csv:3:1", "s.csv:4:3", "s.csv:5:1", "s.csv:6:4"]
    assert load.problems[1].startswith("s.csv:4:3: column placed (timestamp): value 'yesterday': ")
    assert "empty, a key column needs a value" in load.problems[2]


@pytest.mark.parametrize("export, message", [
    ("sensor_id,nme\n", "s.csv:1:2: nme: metrics.sensors has no column nme"),
    ("name,placed\n", "s.csv:1: the header has no primary-key column sensor_id"),
    ("sensor_id,writetime(sensor_id)\n", "s.csv:1:2: writetime(sensor_id): a primary-key column has no write time"),
    (f"sensor_id,name\n{SENSOR},a,b\n", "s.csv:2: 3 fields, the header has 2"),
    (f"{SENSOR},x\n", "s.csv:1: 2 fields, the header has 4"),
    (f"sensor_id,name\n{SENSOR},\"a\"b\n", "s.csv:2: not CSV ("),
])
def test_a_file_whose_structure_is_wrong_loads_nothing(export, message):
    with pytest.raises(ExportFileError) as error:
        snapshot(export)
    assert str(error.value).startswith(message)


def test_a_backfill_at_original_write_times_needs_them_and_an_unknown_table_is_refused():
    with pytest.raises(ExportFileError, match="original write times need writetime"):
        snapshot(f"sensor_id,name\n{SENSOR},a\n", write_times="original")
    _, existing = schema_records()
    with pytest.raises(ExportFileError, match="table metrics.nothere is not in the warehouse"):
        load_snapshot_text("k\n1\n", "s.csv", "metrics", "nothere", existing=existing, last_write_id=0, now_us=NOW_US)


class EarlierWrites:
    """What inputs.WarehouseWrites answers, from atoms in memory; counts the partitions read."""

    def __init__(self, atoms):
        self.atoms, self.reads = atoms, []

    def partition_atoms(self, keyspace, table, partition_key_json):
        self.reads.append(partition_key_json)
        return [a for a in self.atoms if (a.keyspace_name, a.table_name, a.partition_key)
                == (keyspace, table, partition_key_json)]

    def table_atoms(self, keyspace, table):
        return [a for a in self.atoms if (a.keyspace_name, a.table_name) == (keyspace, table)]


def test_a_cql_load_reads_the_rows_loaded_before_it():
    """A list element write and a condition read the row an earlier load wrote."""
    schema = ("CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};\n"
              "CREATE TABLE k.t (id int PRIMARY KEY, l list<int>, v int) WITH cdc = {'enabled': true};\n")
    _, existing = schema_records(schema)
    first = load_cql_text("INSERT INTO k.t (id, l) VALUES (1, [10, 20]);", "1.cql", now_us=NOW_US,
                          existing=existing, last_write_id=0)
    second = "UPDATE k.t SET l[1] = 99 WHERE id = 1;\nUPDATE k.t SET v = 5 WHERE id = 1 IF EXISTS;\n"
    alone = load_cql_text(second, "2.cql", now_us=NOW_US + 10, existing=existing, last_write_id=1)
    assert [p.split(": ", 1)[0] for p in alone.problems] == ["2.cql:1:1"] and alone.atoms == []
    earlier = EarlierWrites(first.atoms)
    after = load_cql_text(second, "2.cql", now_us=NOW_US + 10, existing=existing, last_write_id=1,
                          earlier_writes=earlier)
    assert not after.problems and earlier.reads == ['{"id":1}']
    assert [(a.write_id, a.column_name, a.value) for a in after.atoms if a.atom_kind == "cell"] == [
        (2, "l", "99"), (3, "v", "5")]
    assert [a.element_key for a in after.atoms if a.column_name == "l"] == \
        [a.element_key for a in first.atoms if a.column_name == "l" and a.value == "20"]


def test_a_snapshot_loads_in_chunks_as_in_one_piece():
    """Chunks of rows (bounded memory) give the same writes and problems, write ids continuing."""
    export = "sensor_id,name,placed\n" + "".join(
        f"{i:08x}-3f90-4c93-8f61-eabfa4a803e2,n{i},{'bad' if i == 5 else '2023-11-14 22:00:00.000000+0000'}\n"
        for i in range(1, 12))
    whole, chunked = snapshot(export, chunk_rows=100), snapshot(export, chunk_rows=3)
    assert chunked.atoms == whole.atoms and chunked.problems == whole.problems == [
        "s.csv:6:3: column placed (timestamp): value 'bad': " + whole.problems[0].split("value 'bad': ")[1]]
    assert sorted({a.write_id for a in chunked.atoms}) == list(range(11, 21))


# backfills of statics, null frozen collections and cells without TTL (the shared path of
# `cdclake load snapshot` and `cdclake load cluster --what backfill`)
BACKFILLED = """\
CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};
CREATE TABLE ks.t (pk int, ck int, s text static, v int, PRIMARY KEY (pk, ck)) WITH cdc = {'enabled': true};
CREATE TABLE ks.p (id int PRIMARY KEY, name text, hist frozen<list<int>>) WITH cdc = {'enabled': true};
CREATE TABLE ks.d (k int PRIMARY KEY, v int) WITH default_time_to_live = 400000 AND cdc = {'enabled': true};
"""


def backfilled(table: str, export: str, **options):
    _, existing = schema_records(BACKFILLED)
    return load_snapshot_text(export, "b.csv", "ks", table, existing=existing, last_write_id=10, now_us=NOW_US,
                              write_times="original", **options)


def written(statements: str):
    _, existing = schema_records(BACKFILLED)
    load = load_cql_text(statements, "w.cql", now_us=NOW_US, step_us=0, existing=existing, last_write_id=10)
    assert not load.problems
    return load.atoms


def test_a_partition_of_static_cells_alone_is_backfilled_by_its_partition_key():
    load = backfilled("t", "pk,ck,s,v,writetime(s),writetime(v)\n1,,x,,1000,\n")
    assert not load.problems
    assert load.atoms == written("INSERT INTO ks.t (pk, s) VALUES (1, 'x') USING TIMESTAMP 1000;")


def test_static_cells_are_written_once_per_partition_at_their_own_time():
    """Statics newer than the rows: one static write restricted by the partition key (ScyllaDB
    refuses an UPDATE of statics alone that names the clustering key), not one per row."""
    export = ("pk,ck,s,v,writetime(s),writetime(v)\n"
              "1,1,x,5,2000,1000\n1,2,x,6,2000,1500\n2,1,y,7,500,900\n")
    load = backfilled("t", export)
    assert not load.problems
    chunked = backfilled("t", export, chunk_rows=1)      # partition 1's rows in two chunks: its statics once
    assert sorted((a.partition_key, a.write_timestamp, a.value) for a in chunked.atoms if a.column_name == "s") == \
        [('{"pk":1}', 2000, '"x"'), ('{"pk":2}', 500, '"y"')]
    assert load.atoms == written(
        "INSERT INTO ks.t (pk, s) VALUES (2, 'y') USING TIMESTAMP 500;\n"
        "INSERT INTO ks.t (pk, ck, v) VALUES (2, 1, 7) USING TIMESTAMP 900;\n"
        "INSERT INTO ks.t (pk, ck, v) VALUES (1, 1, 5) USING TIMESTAMP 1000;\n"
        "INSERT INTO ks.t (pk, ck, v) VALUES (1, 2, 6) USING TIMESTAMP 1500;\n"
        "INSERT INTO ks.t (pk, s) VALUES (1, 'x') USING TIMESTAMP 2000;\n")


def test_a_cell_without_ttl_in_a_table_with_a_default_ttl_is_written_with_ttl_0():
    load = backfilled("d", "k,v,writetime(v),ttl(v)\n1,5,1000,\n2,6,1000,300\n")
    assert load.atoms == written("INSERT INTO ks.d (k, v) VALUES (1, 5) USING TIMESTAMP 1000 AND TTL 0;\n"
                                 "INSERT INTO ks.d (k, v) VALUES (2, 6) USING TIMESTAMP 1000 AND TTL 300;\n")
    assert [a.ttl_seconds for a in load.atoms if a.column_name == "v"] == [None, 300]
    unknown = backfilled("d", "k,v,writetime(v)\n1,5,1000\n")      # no ttl(v) read: the default applies
    assert [a.ttl_seconds for a in unknown.atoms if a.column_name == "v"] == [400000]


def test_a_row_no_write_can_give_is_refused_alone_with_its_key():
    export = "pk,ck,s,v,writetime(v)\n1,,,,\n3,,x,,\n2,1,,5,1000\n"
    load = backfilled("t", export)
    assert load.problems == ["b.csv:2: key (pk = 1, ck = null): no clustering key and no static value"]
    assert {a.partition_key for a in load.atoms} == {'{"pk":3}', '{"pk":2}'}


class ConnectorRows:
    """What ``spark.sql(query).toLocalIterator()`` gives the backfill, from tuples in memory."""

    def __init__(self, rows):
        self.rows, self.queries = rows, []

    def sql(self, query):
        self.queries.append(query)
        return self

    def toLocalIterator(self):
        return iter(self.rows)


def test_a_null_frozen_collection_read_as_an_empty_one_is_backfilled_as_null():
    """The connector reads a null collection as empty: an empty frozen collection is a value
    only with a write time."""
    from cdclake.cluster.backfill import base_rows
    from cdclake.cql.interpreter import catalog_of

    _, existing = schema_records(BACKFILLED)
    table = catalog_of(BACKFILLED).table("ks", "p")
    rows = ConnectorRows([(1, [], "a", None, None, 1000, None), (2, [], None, 1200, 50, None, None)])
    ((chunk, refused),) = base_rows(rows, table, existing[2], 100)
    assert rows.queries == ["select id, hist, name, writetime(hist), ttl(hist), writetime(name), ttl(name) "
                            "from cdclake_cluster.ks.p"]
    assert not refused
    assert chunk == [("ks.p row 1", {"id": {"literal": "1", "value": 1},
                                     "name": {"literal": "'a'", "value": "a", "writetime": 1000, "ttl": 0},
                                     "hist": {"ttl": 0}}),
                     ("ks.p row 2", {"id": {"literal": "2", "value": 2},
                                     "name": {"ttl": 0},
                                     "hist": {"literal": "[]", "value": {"list": []}, "writetime": 1200, "ttl": 50}})]
    load = values_load_of(chunk, table, existing)
    assert load.atoms == written("INSERT INTO ks.p (id, name) VALUES (1, 'a') USING TIMESTAMP 1000;\n"
                                 "INSERT INTO ks.p (id, hist) VALUES (2, []) USING TIMESTAMP 1200 AND TTL 50;\n")


def test_a_row_the_backfill_cannot_read_is_refused_alone_with_its_key():
    from cdclake.cluster.backfill import base_rows
    from cdclake.cql.interpreter import catalog_of

    _, existing = schema_records(BACKFILLED)
    table = catalog_of(BACKFILLED).table("ks", "p")
    rows = ConnectorRows([(1, None, "a", None, None, 1000, None), (2, ["x"], "b", 1200, None, None, None)])
    ((chunk, refused),) = base_rows(rows, table, existing[2], 100)
    assert [where for where, _ in chunk] == ["ks.p row 1"]
    assert len(refused) == 1 and refused[0].startswith("ks.p row 2: key (id = 2): a value cannot be read (")


def values_load_of(rows, table, existing):
    from cdclake.load.snapshot_load import values_load

    return values_load(rows, table, "cluster", existing=existing, last_write_id=10, now_us=NOW_US,
                       write_times="original", backfill_us=NOW_US)


# `cdclake load log`: metrics.sensors' log as cqlsh COPY TO prints it (test_imported_log exports
# whole logs with cqlsh's own formatter and compares what they build)
LOG_HEADER = ("cdc$stream_id,cdc$time,cdc$batch_seq_no,attrs,cdc$deleted_attrs,cdc$deleted_elements_attrs,"
              "cdc$deleted_name,cdc$deleted_placed,cdc$end_of_batch,cdc$operation,cdc$ttl,name,placed,sensor_id\n")
LOG_TIME = "e4a1b2c0-8000-11ee-8080-808080808080"
LOG_ROWS = (f"0x0102,{LOG_TIME},0,{{'k': 'it''s \\\\ \"q\"'}},,{{'gone'}},,True,True,1,600,\"a\\\\\\\\b\\\\nc\","
            f"2023-11-14 22:00:00.123+0000,{SENSOR}\n"
            f"0x0102,{LOG_TIME},1,,True,,,,,9x,,,,{SENSOR}\n"
            f"0x0102,{LOG_TIME},2,,,,,,True,,,,,{SENSOR}\n")


def log_load(csv_text: str):
    from cdclake.load.log_load import load_log_text

    _, existing = schema_records()
    return load_log_text(csv_text, "l.csv", "metrics", "sensors", existing=existing)


def test_a_log_export_becomes_cdc_logs_cells_with_or_without_header():
    with_header, without = log_load(LOG_HEADER + LOG_ROWS), log_load(LOG_ROWS)
    assert [row[:-1] for row in with_header.rows] == [row[:-1] for row in without.rows]
    cells = {row[8]: row[9] for row in with_header.rows}
    assert with_header.log_rows == 1 and with_header.rows[0][:8] == (
        "metrics", "sensors", b"\x01\x02", LOG_TIME, 0, 1, 600, True)
    # cqlsh's escapes undone: a backslash doubled, a newline as \n; the CSV's own \" and \\
    assert cells == {
        "attrs": '{"map":[["k","it\'s \\\\ \\"q\\""]]}', "cdc$deleted_elements_attrs": '{"set":["gone"]}',
        "cdc$deleted_placed": "true", "name": '"a\\\\b\\nc"', "placed": "1699999200123",
        "sensor_id": f'"{SENSOR}"'}
    assert {row[10] for row in with_header.rows} == {"l.csv:2"}


def test_bad_log_fields_are_reported_by_line_and_column_and_their_rows_skipped():
    load = log_load(LOG_HEADER + LOG_ROWS)
    assert len(load.problems) == 2 and load.log_rows == 1
    assert load.problems[0].startswith("l.csv:3:10: column cdc$operation (tinyint): value '9x': unexpected 'x'")
    assert load.problems[1] == "l.csv:4:10: column cdc$operation (tinyint): empty, a log row needs one"


@pytest.mark.parametrize("export, table, message", [
    ("cdc$stream_id,cdc$time,cdc$batch_seq_no,cdc$operation,nme\n", "sensors",
     "l.csv:1:5: nme: metrics.sensors_scylla_cdc_log has no column nme"),
    ("cdc$stream_id,cdc$time,cdc$batch_seq_no,sensor_id\n", "sensors", "l.csv:1: the header has no cdc$operation"),
    ("0x01,x\n", "sensors", "l.csv:1: 2 fields, the header has 14"),
    ("0x01\n", "sensors_scylla_cdc_log", "l.csv: table metrics.sensors_scylla_cdc_log is not in the warehouse; "
                                         "name the base table, metrics.sensors"),
])
def test_a_log_file_whose_structure_is_wrong_loads_nothing(export, table, message):
    from cdclake.load.log_load import load_log_text

    _, existing = schema_records()
    with pytest.raises(ExportFileError) as error:
        load_log_text(export, "l.csv", "metrics", table, existing=existing)
    assert str(error.value).startswith(message)
