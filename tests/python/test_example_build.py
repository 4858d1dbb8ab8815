"""`cdclake build` on the example inputs (seeds/): the log tables, the quarantine, the audit."""
from __future__ import annotations

import pytest

from cdclake.project import dbt


@pytest.fixture(scope="module")
def built(example_build):
    return example_build


def test_every_write_is_accepted_or_rejected(built):
    audit = built.table("cdc_lake.cdc_write_audit").collect()[0]
    assert audit.input_writes == audit.accepted_writes + audit.rejected_writes
    assert audit.accepted_writes == audit.logged_writes + audit.unlogged_writes
    assert audit.rejected_writes == 5
    assert audit.unlogged_writes == 1          # the write to shop.audit, a table without CDC
    assert audit.log_rows > 0


def test_bad_input_is_quarantined_with_the_field_and_the_problem(built):
    rejected = {r.write_id: r for r in built.table("cdc_lake.cdc_rejected_writes").collect()}
    invalid = sorted((r for r in rejected.values() if r.reason == "invalid_input"), key=lambda r: r.write_id)
    assert [r.error_text for r in invalid] == [
        'column_name: unknown column "colour" in table shop.inventory',
        'value: expected int, got "plenty"',
    ]
    assert all(r.column_name in ("colour", "quantity") for r in invalid)


def test_writes_scylla_refuses_carry_its_exact_error(built):
    refused = {r.reason: r for r in built.table("cdc_lake.cdc_rejected_writes").collect()}
    future, past = refused["future"], refused["past"]
    assert future.error_class == past.error_class == "InvalidRequest"
    assert future.error_text.startswith(
        'cdc: attempted to get a stream "from the future" (2023/11/15 23:13:20; '
        "current server time: 2023/11/14 22:13:48). With CDC you cannot send writes"
    )
    assert "make sure your clocks are well-synchronized  with the database's clocks." in future.error_text
    assert past.error_text.startswith(
        'cdc: attempted to get a stream "from the past" (2023/11/14 19:26:40; '
        "current server time: 2023/11/14 22:13:49)."
    )
    # the tablets table's write stamped before its first stream set: no rule for the past, no stream
    no_streams = refused["no_streams"]
    assert no_streams.error_class == "ServerError"
    assert no_streams.error_text.startswith("cdc::metadata::get_stream: could not find any CDC streams for table ")
    assert no_streams.error_text.endswith(" for timestamp 1700000020000000.")


def test_log_tables_have_scylla_names_and_types(built):
    schema = {f.name: f.dataType.simpleString() for f in built.table("shop.orders_scylla_cdc_log").schema}
    assert list(schema)[:6] == [
        "cdc$stream_id", "cdc$time", "cdc$batch_seq_no", "cdc$operation", "cdc$ttl", "cdc$end_of_batch",
    ]
    assert schema["cdc$stream_id"] == "binary"
    assert schema["cdc$operation"] == "tinyint"
    assert schema["customer_id"] == "string"
    assert schema["total"].startswith("decimal")
    assert schema["cdc$deleted_total"] == "boolean"
    assert "cdc$deleted_customer_id" not in schema
    assert schema["tags"] == "array<string>"
    assert schema["cdc$deleted_elements_tags"] == "array<string>"


def test_collection_writes_are_logged_element_by_element(built):
    rows = built.sql(
        "select `cdc$operation` as op, tags, `cdc$deleted_tags` as deleted from shop.orders_scylla_cdc_log "
        "where tags is not null order by `cdc$time`"
    ).collect()
    assert [(r.op, r.tags, r.deleted) for r in rows] == [
        (1, ["express", "gift"], None),        # tags = tags + {...}: elements in CQL order
        (1, ["standard"], True),               # tags = {...}: the tombstone (T-1) logged at T
    ]


def test_the_build_summary_accounts_for_writes_rows_rejections_and_streams(built, capsys):
    from cdclake.commands.dbt_command import print_build_summary

    print_build_summary(built)
    lines = capsys.readouterr().out.splitlines()
    [audit] = built.table("cdc_lake.cdc_write_audit").collect()
    assert f"batch 1: {audit.input_writes} writes in = {audit.logged_writes} logged " \
           f"+ {audit.unlogged_writes} not logged (tables without CDC) " \
           f"+ {audit.rejected_writes} rejected; {audit.log_rows} log rows" in lines
    assert any(line.startswith("  shop.orders_scylla_cdc_log: ") for line in lines)
    assert "  rejected (invalid_input): 2" in lines
    used = [line for line in lines if line.startswith("  generation ")]
    assert len(used) == 2 and all(" streams used" in line for line in used)
    sets = [line for line in lines if line.startswith("  metrics.readings stream set ")]
    assert [line.split(": ")[1].split(" of ")[1] for line in sets] == ["its 4 streams used", "its 8 streams used"]


def test_user_type_fields_are_logged_as_structs(built):
    rows = built.sql(
        "select ship_to, `cdc$deleted_ship_to` as deleted, `cdc$deleted_elements_ship_to` as removed "
        "from shop.orders_scylla_cdc_log where ship_to is not null order by `cdc$time`"
    ).collect()
    assert [(r.ship_to.asDict(), r.deleted, r.removed) for r in rows] == [
        # ship_to = {...}: the tombstone (T-1) and every field
        ({"street": "1 Rue Verte", "city": "Paris", "zip": "75001"}, True, None),
        # ship_to.city = ..., ship_to.zip = null: the written field, the removed one's index
        ({"street": None, "city": "Lyon", "zip": None}, None, [2]),
    ]


def test_writes_after_the_bootstrap_use_the_new_generation(built):
    generations = built.sql(
        "select generation_ts_ms, uses_tablets, count(*) as n from cdc_intermediate.int_batch_atoms "
        "where stream_id is not null group by 1, 2"
    ).collect()
    assert {r.generation_ts_ms for r in generations if not r.uses_tablets} == {1699996400000, 1700000015000}
    # metrics.readings: the writes before and after its split, in its two stream sets
    assert {r.generation_ts_ms for r in generations if r.uses_tablets} == {1700000026000, 1700000034000}


def test_the_table_without_cdc_has_no_log(built):
    tables = {r.tableName for r in built.sql("show tables in shop").collect()}
    assert "audit_scylla_cdc_log" not in tables
    assert {"orders_scylla_cdc_log", "inventory_scylla_cdc_log", "sessions_scylla_cdc_log"} <= tables


def rebuilt(spark, compiled: dict[str, str], models: list[str]) -> None:
    """The example build's ``models`` (tables) written again from their compiled SQL, in order:
    what `dbt run --select` of them does, without a dbt command."""
    for model in models:
        spark.sql(f"insert overwrite table cdc_intermediate.{model} {compiled[f'model.scylla_cdc_lake.{model}']}")


def example_check(compiled: dict[str, str], name: str) -> str:
    """The compiled SQL of the example build's dbt test ``name`` (dbt_checks.check_sql)."""
    from dbt_checks import check_sql

    return check_sql({uid.split(".")[2]: sql for uid, sql in compiled.items() if uid.startswith("test.")}, name)


def test_the_stream_invariants_catch_a_corrupted_generation(built, example_compiled_sql):
    """Swap the streams of shards 0 and 1 in one vnode: the stream-layout dbt test must fail (its
    compiled SQL on the token ranges rebuilt from the corrupted generation: dbt_checks)."""
    from dbt_checks import passes

    streams = built.table("cdc_input.cdc_generation_streams").toPandas()
    original = streams.copy()
    first = (streams.generation_ts_ms == streams.generation_ts_ms.min()) & (streams.vnode_index == 3)
    shard0, shard1 = streams.index[first & (streams.shard == 0)][0], streams.index[first & (streams.shard == 1)][0]
    streams.loc[[shard0, shard1], "stream_id"] = streams.loc[[shard1, shard0], "stream_id"].to_numpy()
    schema = built.table("cdc_input.cdc_generation_streams").schema

    def load(frame):
        built.createDataFrame(frame, schema=schema).write.mode("overwrite").saveAsTable(
            "cdc_input.cdc_generation_streams_tmp")
        built.sql("insert overwrite table cdc_input.cdc_generation_streams "
                  "select * from cdc_input.cdc_generation_streams_tmp")
        built.sql("drop table cdc_input.cdc_generation_streams_tmp")

    models = ["int_token_ranges", "int_token_range_streams"]
    check = example_check(example_compiled_sql, "streams_match_their_range")
    try:
        load(streams)
        rebuilt(built, example_compiled_sql, models)
        assert not passes(built, check), "the corrupted shard order went unnoticed"
    finally:
        load(original)
        rebuilt(built, example_compiled_sql, models)
        assert passes(built, check)


@pytest.mark.parametrize("corruption", [
    # a value the log got wrong
    "case when column_name = 'quantity' and value = '37' then '38' else value end as value",
    # an element removal the log lost (the rows stay, the cell goes)
    "case when column_name = 'cdc$deleted_elements_ship_to' then null else value end as value",
])
def test_the_round_trip_catches_a_log_that_does_not_replay(built, example_compiled_sql, corruption):
    """Change one cell of the log (written to int_log_written, the table behind cdc_log):
    replaying it no longer rebuilds the base state (the build above ran the same test on the
    intact log, and passed). The facts are replayed again from the log as it is with the
    example build's full-refresh SQL, and the round trip runs as its compiled SQL (dbt_checks)."""
    from dbt_checks import passes

    def load(select_value: str) -> None:
        columns = ", ".join(select_value if c == "value" else f"`{c}`" for c in built.table("cdc_lake.cdc_log").columns)
        built.sql(f"create table cdc_lake.cdc_log_tmp using parquet as select {columns} from cdc_lake.cdc_log")
        built.sql("insert overwrite table cdc_intermediate.int_log_written select * from cdc_lake.cdc_log_tmp where value is not null")
        built.sql("drop table cdc_lake.cdc_log_tmp")

    check = example_check(example_compiled_sql, "assert_log_replays_to_base_state")
    built.sql("create table cdc_lake.cdc_log_original using parquet as select * from cdc_lake.cdc_log")
    try:
        load(corruption)
        rebuilt(built, example_compiled_sql, ["int_log_replay_facts"])
        assert not passes(built, check), "the corrupted log went unnoticed"
    finally:
        built.sql("insert overwrite table cdc_intermediate.int_log_written select * from cdc_lake.cdc_log_original")
        built.sql("drop table cdc_lake.cdc_log_original")
        rebuilt(built, example_compiled_sql, ["int_log_replay_facts"])
        assert passes(built, check)


@pytest.mark.parametrize("model, broken, rule", [
    # a generation's time twice
    ("cdc_generation_timestamps", "select * from rows union all (select * from rows limit 1)", "repeated time"),
    # a stream state ScyllaDB never writes
    ("cdc_streams", "select keyspace_name, table_name, `timestamp`, cast(7 as tinyint) as stream_state, stream_id "
                    "from rows", "other stream_state"),
    # a stream set of no keyspace
    ("cdc_timestamps", "select null as keyspace_name, table_name, `timestamp` from rows", "null keyspace_name"),
])
def test_the_generation_tables_key_checks_name_each_broken_rule(built, example_compiled_sql, example_manifest,
                                                                 model, broken, rule):
    """Each generation table's keys are checked in one query (tests/dbt/generic/test_keys_are_set.sql):
    it passes on the example build and names the rule a broken table breaks."""
    [test] = [uid for uid, node in example_manifest["nodes"].items()
              if node.get("test_metadata", {}).get("name") == "keys_are_set"
              and node["depends_on"]["nodes"] == [f"model.scylla_cdc_lake.{model}"]]
    check, table = example_compiled_sql[test], f"cdc_lake.{model}"
    assert built.sql(check).count() == 0
    original = built.table(table).localCheckpoint()
    original.createOrReplaceTempView("rows")
    built.sql(broken).localCheckpoint().write.insertInto(table, overwrite=True)
    try:
        assert [r.rule for r in built.sql(check).collect()] == [rule]
    finally:
        original.write.insertInto(table, overwrite=True)
        built.catalog.dropTempView("rows")           # a session's views are in dbt's catalog (docs generate)


def test_the_state_as_of_an_earlier_time_is_the_history_at_that_time(built):
    """`--vars '{as_of_us: T}'` takes the state tables back to T: shop.orders_state then holds
    the versions of shop.orders_history valid at T (and a TTL that ran out by T removes a cell),
    and the dbt test comparing state and history holds at T too; a build without the var takes
    them back to the newest change."""
    def consumer_rows() -> list:
        return sorted(map(str, built.sql("select order_id, status, items, tags from shop.orders_state").collect()))

    newest = consumer_rows()
    changes = [r.t for r in built.sql("select distinct `cdc$valid_from_us` as t from shop.orders_history "
                                      "where not `cdc$is_expiry` order by 1").collect()]
    assert len(changes) >= 3
    as_of = changes[len(changes) // 2]
    # the state views and the whole-table check that compares the state with the history
    selection = ["--select", "int_log_replay_cells+", "shop__orders_state", "shop__inventory_state",
                 "shop__sessions_state", "--exclude", "resource_type:seed", "--log-level", "error"]
    try:
        assert dbt.invoke(["build", *selection, "--vars", f"{{cdc_example: true, as_of_us: {as_of}}}"])
        at_that_time = built.sql(
            "select order_id, status, items, tags from shop.orders_history "
            f"where `cdc$valid_from_us` <= {as_of} and (`cdc$valid_to_us` > {as_of} or `cdc$valid_to_us` is null) "
            "and not `cdc$is_deletion`").collect()
        assert consumer_rows() == sorted(map(str, at_that_time)) != newest
    finally:
        assert dbt.invoke(["build", *selection, "--vars", "{cdc_example: true}"])
    assert consumer_rows() == newest
