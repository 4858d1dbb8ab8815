"""A script on a tablets keyspace, replayed with a cluster history whose tablets section splits
one table and merges another (docs/scylla/tablets.md): each write lands in the stream of the
tablet holding its key's token (scylla-driver's) in the table's stream set at its timestamp,
before and after the resize, a late write in the closed stream it belongs to, a write older
than the first set is rejected with ScyllaDB's text; `cdc_timestamps` and `cdc_streams` list the
sets as ScyllaDB's virtual tables do, garbage collection included. The same script on a vnodes
keyspace gives the same log rows in the generation's streams."""
from __future__ import annotations

import contextlib
import random
import struct

import pytest
import yaml
from cassandra.metadata import Murmur3Token

from cdclake.generations.cluster_history import parse_cluster_history
from cdclake.generations.tablets import StreamSet
from python_udfs.stream_ids import decode_stream_id

NOW_US = 1_700_000_000_000_000          # 2023-11-14 22:13:20 UTC
STEP_US = 10_000_000                     # 10 s per statement
SPLIT_AT_US = NOW_US + 180_000_000       # the split of ks.t finishes; its set starts 65 s later
MERGE_AT_US = NOW_US + 60_000_000        # the merge of ks.g
HISTORY = f"""\
ring_delay_ms: 30000
seed: "tablets test cluster"
nodes:
  - {{name: n1, joined_at: "2023-11-14 21:00:00", num_tokens: 16, shards: 2}}
tablets:
  - {{table: ks.t, at: {SPLIT_AT_US // 1000}, count: 8}}
  - {{table: ks.g, at: {MERGE_AT_US // 1000}, count: 2}}
"""
KEYS = random.Random(55).sample(range(-10**9, 10**9), 40)
LATE_KEY, OLD_KEY = 7, 8


def script(tablets: bool) -> str:
    """The keyspace (tablets or vnodes), ks.t and ks.g with 4 tablets (ks.g with a 60 s CDC TTL),
    a write per key to ks.t at 10 s steps (the split's set starts after the 19th), a late write
    stamped before the split, one stamped before the log table, one an hour ahead, and writes to
    ks.g."""
    option = "{'enabled': true, 'initial': 4}" if tablets else "{'enabled': false}"
    lines = [
        "CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1}"
        f" AND tablets = {option};",
        "CREATE TABLE ks.t (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH cdc = {'enabled': true};",
        "CREATE TABLE ks.g (pk int PRIMARY KEY, v int) WITH cdc = {'enabled': true, 'ttl': 60};",
    ]
    lines += [f"INSERT INTO ks.t (pk, ck, v) VALUES ({key}, 0, {n});" for n, key in enumerate(KEYS)]
    lines += [f"INSERT INTO ks.t (pk, ck, v) VALUES ({LATE_KEY}, 0, -1) USING TIMESTAMP {SPLIT_AT_US};",
              f"INSERT INTO ks.t (pk, ck, v) VALUES ({OLD_KEY}, 0, -2) USING TIMESTAMP {NOW_US - 60_000_000};",
              f"INSERT INTO ks.t (pk, ck, v) VALUES ({OLD_KEY}, 1, -3) USING TIMESTAMP {NOW_US + 3600_000_000};"]
    lines += [f"INSERT INTO ks.g (pk, v) VALUES ({key}, 1);" for key in KEYS[:4]]
    return "\n".join(lines) + "\n"


def driver_token(key: int) -> int:
    return Murmur3Token.hash_fn(struct.pack(">i", key))


def statement_us(number: int) -> int:
    """The coordinator's clock at the script's statement ``number`` (from 0)."""
    return NOW_US + number * STEP_US


@pytest.fixture(scope="module")
def replays(spark, test_workspace):
    """The vnodes replay, then the tablets one, whose warehouse and project stay for the tests."""
    from cdclake.replay import replay

    history = test_workspace / "tablets_history.yml"
    history.write_text(HISTORY)
    vnodes = replay(script(False), now_us=NOW_US, step_us=STEP_US, generations=history,
                    workspace=test_workspace / "replay", self_checks=False)    # its log rows and rejections
    tablets = replay(script(True), now_us=NOW_US, step_us=STEP_US, generations=history,
                     workspace=test_workspace / "replay")
    streams = spark.sql("select table_name, unix_millis(`timestamp`) as ts_ms, stream_state, stream_id "
                        "from cdc_lake.cdc_streams").collect()
    timestamps = spark.sql("select table_name, unix_millis(`timestamp`) as ts_ms from cdc_lake.cdc_timestamps").collect()
    return tablets, vnodes, streams, timestamps


def stream_sets(table: str, created_statement: int, count: int) -> list[StreamSet]:
    history = parse_cluster_history(yaml.safe_load(HISTORY))
    return history.stream_sets(table, statement_us(created_statement) // 1000, count)


def expected_stream(sets: list[StreamSet], token: int, ts_us: int) -> str:
    operating = [s for s in sets if s.timestamp_ms * 1000 <= ts_us][-1]
    position = next(i for i, last in enumerate(operating.last_tokens) if last >= token)
    return operating.stream_ids[position].hex()


def test_each_write_goes_to_its_tablets_stream_in_the_set_at_its_time(replays):
    result, _, _, _ = replays
    assert result.dbt_succeeded and not result.statement_errors
    sets = stream_sets("ks.t", 1, 4)
    assert [len(s.last_tokens) for s in sets] == [4, 8]
    assert sets[1].timestamp_ms * 1000 == SPLIT_AT_US + 65_000_000
    rows = {row["v"]: row for row in result.log_rows if row["table"] == "ks.t_scylla_cdc_log"}
    used = set()
    for number, key in enumerate(KEYS):
        ts_us = statement_us(3 + number)
        expected = expected_stream(sets, driver_token(key), ts_us)
        assert rows[number]["cdc$stream_id"] == expected, (key, ts_us)
        fields = decode_stream_id(bytes.fromhex(expected))
        assert (fields.index, fields.version) == (0, 1)
        used.add(next(n for n, s in enumerate(sets) if bytes.fromhex(expected) in s.stream_ids))
    assert used == {0, 1}, "writes before and after the split"
    # stamped before the split's set, written after it: the first set's stream, closed by then
    assert rows[-1]["cdc$stream_id"] == expected_stream(sets[:1], driver_token(LATE_KEY), SPLIT_AT_US)


def test_writes_older_than_the_first_set_or_from_the_future_are_rejected_with_scylladbs_texts(replays):
    result, _, _, _ = replays
    future, rejected = sorted(result.rejected_writes, key=lambda r: r["reason"])
    assert (future["reason"], future["error_class"]) == ("future", "InvalidRequest")
    assert future["error_text"].startswith('cdc: attempted to get a stream "from the future" (2023/11/14 23:13:20; ')
    assert (rejected["reason"], rejected["error_class"]) == ("no_streams", "ServerError")
    assert rejected["error_text"].startswith("cdc::metadata::get_stream: could not find any CDC streams for table ")
    assert rejected["error_text"].endswith(f" for timestamp {NOW_US - 60_000_000}.")
    log_table_id = rejected["error_text"].split("for table ")[1].split(" ")[0]
    assert log_table_id[14] == "1", "a version-1 uuid (a timeuuid), as ScyllaDB's table ids"


def test_a_merge_halves_the_streams_and_garbage_collection_drops_the_old_set(replays):
    """ks.g: 4 tablets, merged into 2 at MERGE_AT + 65 s; its CDC TTL of 60 s has run out for the
    first set by the script's last statement (more than a minute after): only the merged set is
    kept, listed as current and opened."""
    result, _, streams, timestamps = replays
    sets = stream_sets("ks.g", 2, 4)
    assert [len(s.last_tokens) for s in sets] == [4, 2]
    assert sets[1].last_tokens == sets[0].last_tokens[1::2]
    g_rows = [row for row in result.log_rows if row["table"] == "ks.g_scylla_cdc_log"]
    assert len(g_rows) == 4
    for row in g_rows:
        assert row["cdc$stream_id"] == expected_stream(sets[1:], driver_token(row["pk"]), sets[1].timestamp_ms * 1000)
    assert [r.ts_ms for r in timestamps if r.table_name == "g"] == [sets[1].timestamp_ms]
    assert sorted((r.stream_state, r.stream_id) for r in streams if r.table_name == "g") == sorted(
        [(0, stream) for stream in sets[1].stream_ids] + [(2, stream) for stream in sets[1].stream_ids])


def test_the_streams_table_lists_current_closed_and_opened_streams(replays):
    _, _, streams, timestamps = replays
    sets = stream_sets("ks.t", 1, 4)
    assert sorted(r.ts_ms for r in timestamps if r.table_name == "t") == [sets[0].timestamp_ms, sets[1].timestamp_ms]
    # by time, state and token, as ScyllaDB lists them
    rows = sorted(((r.ts_ms, r.stream_state, decode_stream_id(r.stream_id).token), r.stream_id)
                  for r in streams if r.table_name == "t")
    first, second = sets
    assert [stream for _, stream in rows] == [stream for *_, stream in (
        [(first.timestamp_ms, 0, s) for s in first.stream_ids] + [(first.timestamp_ms, 2, s) for s in first.stream_ids]
        + [(second.timestamp_ms, 0, s) for s in second.stream_ids]
        + [(second.timestamp_ms, 1, s) for s in first.stream_ids]
        + [(second.timestamp_ms, 2, s) for s in second.stream_ids])]


def test_the_same_script_on_a_vnodes_keyspace_logs_the_same_rows_in_the_generations_streams(replays):
    tablets, vnodes, _, _ = replays
    assert vnodes.dbt_succeeded and not vnodes.statement_errors
    assert [r["reason"] for r in vnodes.rejected_writes] == ["future"], "no stream set to predate: the generation is older"

    def without_streams(rows):
        return sorted(repr({k: v for k, v in row.items() if k not in ("cdc$stream_id", "cdc$time")}) for row in rows
                      if row.get("v") not in (-2, -3))

    assert without_streams(vnodes.log_rows) == without_streams(tablets.log_rows)
    assert not {row["cdc$stream_id"] for row in vnodes.log_rows} & {row["cdc$stream_id"] for row in tablets.log_rows}


@contextlib.contextmanager
def changed_table(spark, table: str, change):
    """Inside the block, ``table`` holds ``change`` (a function of its rows as a DataFrame)."""
    original = spark.table(table).localCheckpoint()
    change(original).localCheckpoint().write.insertInto(table, overwrite=True)
    try:
        yield
    finally:
        original.write.insertInto(table, overwrite=True)


def dbt_test_passes(test_workspace, selector: str) -> bool:
    """The dbt test ``selector`` of the tablets replay (left by ``replays``) passes: its compiled
    SQL, from the replay's run results, finds no row (dbt_checks)."""
    from dbt_checks import check_sql, compiled_checks, passes
    from pyspark.sql import SparkSession

    checks = compiled_checks(test_workspace / "replay" / "project" / "target" / "run_results.json")
    return passes(SparkSession.getActiveSession(), check_sql(checks, selector.removeprefix("test_name:")))


def test_the_routing_check_catches_a_write_in_another_tablets_stream(spark, replays, test_workspace):
    from pyspark.sql import functions as F

    selector = "test_name:stream_in_tablet"
    assert dbt_test_passes(test_workspace, selector)
    atoms = spark.table("cdc_intermediate.int_batch_atoms")
    row = atoms.where("uses_tablets and write_status = 'accepted' and table_name = 't'").orderBy("write_id").first()
    [other] = [r.stream_id for r in spark.table("cdc_input.tablet_streams").where(
        f"table_name = 't' and set_ts_ms = {row.generation_ts_ms}").collect() if r.stream_id != row.stream_id.hex()][:1]
    with changed_table(spark, "cdc_intermediate.int_batch_atoms", lambda rows: rows.withColumn(
            "stream_id", F.when(F.col("write_id") == row.write_id, F.lit(bytes.fromhex(other)))
            .otherwise(F.col("stream_id")))):
        assert not dbt_test_passes(test_workspace, selector), "a write in the wrong tablet's stream went unnoticed"


@pytest.mark.parametrize("change", [
    # the second set of ks.t without its last tablet: the set does not reach the ring's end
    "not (table_name = 't' and last_token = 9223372036854775807 and set_ts_ms > 1700000010000)",
    # a stream whose ID does not carry its last token
    "true",
], ids=["a set that does not tile the ring", "a stream ID without its token"])
def test_the_input_check_catches_stream_sets_scylladb_could_not_make(spark, replays, test_workspace, change):
    from pyspark.sql import functions as F

    selector = "assert_tablet_streams_are_valid"
    assert dbt_test_passes(test_workspace, selector)

    def changed(rows):
        if change == "true":
            first = rows.orderBy("set_ts_ms", "last_token").first()
            return rows.withColumn("last_token", F.when(F.col("stream_id") == first.stream_id, F.col("last_token") - 1)
                                   .otherwise(F.col("last_token")))
        return rows.where(change)

    with changed_table(spark, "cdc_input.tablet_streams", changed):
        assert not dbt_test_passes(test_workspace, selector)


def test_the_states_check_catches_a_closed_stream_left_out(spark, replays, test_workspace):
    selector = "assert_tablet_stream_states_are_consistent"
    assert dbt_test_passes(test_workspace, selector)
    dropped = spark.table("cdc_lake.cdc_streams").where("stream_state = 1").first().stream_id
    with changed_table(spark, "cdc_lake.cdc_streams",
                       lambda rows: rows.where(~((rows.stream_state == 1) & (rows.stream_id == dropped)))):
        assert not dbt_test_passes(test_workspace, selector), "a closed stream left out went unnoticed"


def test_an_export_of_the_streams_table_imports_as_the_sets_it_lists(spark, replays, test_workspace, capsys):
    """`cdclake generations import --cdc-streams` of cdc_streams exported as cqlsh's COPY TO
    writes it (a header, timestamps and blobs as cqlsh prints them): cdc_input.tablet_streams
    then holds the kept sets, as the replay's input had them."""
    from datetime import datetime, timezone

    from cdclake.cli import main

    rows = spark.sql("select keyspace_name, table_name, unix_millis(`timestamp`) as ts_ms, stream_state, stream_id "
                     "from cdc_lake.cdc_streams").collect()
    kept = {(r.keyspace_name, r.table_name, r.ts_ms) for r in rows}
    export = test_workspace / "cdc_streams.csv"
    export.write_text("keyspace_name,table_name,timestamp,stream_state,stream_id\n" + "".join(
        f"{r.keyspace_name},{r.table_name},"
        f"{datetime.fromtimestamp(r.ts_ms / 1000, timezone.utc):%Y-%m-%d %H:%M:%S.%f}"[:-3] + "+0000,"
        f"{r.stream_state},0x{bytes(r.stream_id).hex()}\n" for r in rows))
    original = spark.table("cdc_input.tablet_streams").localCheckpoint()
    expected = sorted(tuple(r) for r in original.collect() if (r.keyspace_name, r.table_name, r.set_ts_ms) in kept)
    try:
        assert main(["generations", "import", "--cdc-streams", str(export)]) == 0
        assert "3 stream sets of 2 tablets tables (14 streams): " in capsys.readouterr().out
        assert sorted(tuple(r) for r in spark.table("cdc_input.tablet_streams").collect()) == expected
    finally:
        original.write.insertInto("cdc_input.tablet_streams", overwrite=True)


def test_status_shows_each_tablets_tables_stream_sets_and_says_when_it_has_none(spark, replays):
    from cdclake.commands.status import status_lines

    lines = status_lines(spark, None)
    assert any(line.startswith("  ks.t: CDC on, ") and ", tablets: 2 stream set(s), " in line for line in lines)
    with changed_table(spark, "cdc_input.tablet_streams", lambda rows: rows.where("table_name != 'g'")):
        [g] = [line for line in status_lines(spark, None) if line.startswith("  ks.g: ")]
    assert "tablets: 0 stream set(s) (its writes are rejected until cdclake generations build or " \
           "import --cdc-streams loads them)" in g, g
