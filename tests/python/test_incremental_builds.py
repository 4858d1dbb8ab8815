"""Incremental builds: a workload split into successive batches (each build appending writes
with higher ids to the input) gives the outputs of one full build, table by table, on the
example (Parquet, the session's format) and on random workloads with images and collections
(Delta: the carried state is MERGEd; their one full build on Parquet). A batch that repeats
processed write ids is rejected with a reason, and the audit adds up over the batches."""
from __future__ import annotations

import ast
import contextlib
import json
import os
import random
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import strategies as st
from outputs import rows_of, snapshot
from random_cql import first_draw, random_statements, random_tables

NOW_US = 1_700_000_000_000_000
STEP_US = 1000
BUILD = ["build", "--log-level", "warn"]
LEFT_OUT = ["build", "--exclude", "shop__orders_scylla_cdc_log", "--log-level", "warn"]
# the processed-writes ledger and the audit are per batch: compared without the batch number / summed
PER_BATCH = {"cdc_lake.cdc_processed_writes", "cdc_lake.cdc_write_audit"}
AUDIT_COUNTS = ["input_writes", "accepted_writes", "logged_writes", "unlogged_writes", "rejected_writes", "log_rows"]
# the carried state as its winners (on Parquet a key has one row per batch that wrote it)
STATE_WINNERS = """
select winner.* from (
    select max_by(struct(*), struct(write_timestamp, not is_live, value, ttl_seconds, coordinator_now_us, write_id))
        as winner
    from cdc_intermediate.int_base_state group by state_key
)
"""


def outputs_after(spark, build_batch, cuts: list[int]) -> dict[str, list[str]]:
    """Build the writes with ids up to each cut in turn (the first build a full refresh) and
    return every output table as sorted rows, per-batch tables made comparable."""
    for number, cut in enumerate(cuts):
        assert build_batch(cut, full_refresh=number == 0), f"the build of batch {number + 1} (writes <= {cut}) failed"
    return comparable_outputs(spark, len(cuts))


def comparable_outputs(spark, batches: int) -> dict[str, list[str]]:
    outputs = {table: rows for table, rows in snapshot(spark).items() if table not in PER_BATCH}
    outputs["cdc_lake.cdc_processed_writes"] = rows_of(
        spark.table("cdc_lake.cdc_processed_writes").drop("batch_id"))
    outputs["cdc_lake.cdc_write_audit"] = rows_of(spark.sql(
        "select " + ", ".join(f"sum({c}) as {c}" for c in AUDIT_COUNTS) + " from cdc_lake.cdc_write_audit"))
    outputs["cdc_intermediate.int_base_state"] = rows_of(spark.sql(STATE_WINNERS))
    audits = spark.table("cdc_lake.cdc_write_audit").orderBy("batch_id").collect()
    assert [a.batch_id for a in audits] == list(range(1, batches + 1))
    for audit in audits:
        assert audit.input_writes == audit.logged_writes + audit.unlogged_writes + audit.rejected_writes
    return outputs


def one_build_outputs(outputs: dict, base_state: list[str]) -> dict[str, list[str]]:
    """comparable_outputs of a warehouse that one build made, from its snapshot (outputs.snapshot)
    and its carried state's rows (one batch: each key's row is its winner)."""
    comparable = {table: rows for table, rows in outputs.items() if table not in PER_BATCH}
    ledger = [ast.literal_eval(row) for row in outputs["cdc_lake.cdc_processed_writes"]]
    comparable["cdc_lake.cdc_processed_writes"] = sorted(repr([c for c in row if c[0] != "batch_id"]) for row in ledger)
    [audit] = [dict(ast.literal_eval(row)) for row in outputs["cdc_lake.cdc_write_audit"]]
    comparable["cdc_lake.cdc_write_audit"] = [repr([(c, audit[c]) for c in AUDIT_COUNTS])]
    comparable["cdc_intermediate.int_base_state"] = base_state
    return comparable


def assert_same_outputs(batched: dict, full: dict) -> None:
    assert sorted(batched) == sorted(full)
    for table in full:
        assert batched[table] == full[table], f"{table} differs between batched and full builds"


def append_writes_again(spark, which: str, write_id: str) -> None:
    """Append to the input the atoms of the writes ``which`` selects (a SQL condition) again,
    each under the write id ``write_id`` gives (a SQL expression of the old one)."""
    mutations = spark.table("cdc_input.base_mutations")
    again = mutations.where(which) \
        .selectExpr(*[f"{write_id} as write_id" if c == "write_id" else f"`{c}`" for c in mutations.columns])
    again.localCheckpoint().write.insertInto("cdc_input.base_mutations")


def split_points(write_ids: list[int], batches: int, rng: random.Random) -> list[int]:
    """``batches`` cuts through the sorted write ids, the last one taking every write."""
    inner = sorted(rng.sample(write_ids[:-1], batches - 1))
    return inner + [write_ids[-1]]


# ---- the example ---------------------------------------------------------------------------

def example_batch_builder(spark, full_mutations):
    """Build the example's writes up to a cut: the seeded input table is replaced by its
    first writes. The builds after the first leave out the nodes that read only the schemas and
    generations, which no batch changes, as a Delta warehouse's builds do
    (cdclake/project/unchanged_inputs.py; on Parquet, the session's format, every build would run them)."""
    from cdclake.project import dbt

    left_out: list[str] = []

    def build_batch(cut: int, full_refresh: bool, build: list[str] = BUILD) -> bool:
        full_mutations.where(f"write_id is null or write_id <= {cut}").write.mode("overwrite") \
            .format(os.environ["CDCLAKE_TABLE_FORMAT"]).saveAsTable("cdc_input.batch_mutations_tmp")
        spark.sql("insert overwrite table cdc_input.base_mutations select * from cdc_input.batch_mutations_tmp")
        unchanged = [] if full_refresh or not left_out else \
            ["--exclude", *left_out, "tag:whole_table", "--indirect-selection", "empty"]
        built = dbt.invoke(build + (["--full-refresh"] if full_refresh else []) + unchanged)
        if full_refresh:
            left_out[:] = nodes_reading_only_slow_inputs()
        return built

    return build_batch


def incremental_build() -> list[str]:
    """A build after the example's batches, the nodes that read only unchanged inputs left out."""
    return BUILD + ["--exclude", *nodes_reading_only_slow_inputs(), "tag:whole_table", "--indirect-selection", "empty"]


def nodes_reading_only_slow_inputs() -> list[str]:
    """The nodes of the last dbt command's manifest that read only the slow-moving inputs."""
    from cdclake.project import unchanged_inputs
    from cdclake.settings import target_dir

    manifest = json.loads((target_dir() / "manifest.json").read_text())
    slow = set(unchanged_inputs._slow_moving_sources(manifest))
    return unchanged_inputs._names_and_relations(manifest, unchanged_inputs._nodes_reading_only(manifest, slow))["nodes"]


def seeded_example_batches(spark):
    """The example's seeds loaded afresh: a batch builder over its writes, and their sorted ids."""
    from cdclake.project import dbt

    assert dbt.invoke(["seed", "--vars", "{cdc_example: true}"]), "dbt seed failed"
    full_mutations = spark.table("cdc_input.base_mutations").localCheckpoint()
    write_ids = sorted(r.write_id for r in full_mutations.select("write_id").distinct().collect()
                       if r.write_id is not None)
    return example_batch_builder(spark, full_mutations), write_ids


@pytest.fixture(scope="module")
def example_in_batches(spark, example_outputs, example_base_state) -> tuple[dict, dict, list[int]]:
    """The example's writes built in four batches, the second and third leaving the orders log
    table out (stopped before it, or not selected), left in the warehouse: their outputs, the
    example build's (one full build of the same writes: conftest.example_build) and the orders
    log's row count after each batch."""
    build_batch, write_ids = seeded_example_batches(spark)
    cuts = [write_ids[len(write_ids) * k // 4] for k in (1, 2, 3)] + [write_ids[-1]]
    orders_log_rows = []
    for number, cut in enumerate(cuts):
        build = LEFT_OUT if number in (1, 2) else BUILD
        assert build_batch(cut, full_refresh=number == 0, build=build), f"the build of batch {number + 1} failed"
        orders_log_rows.append(spark.table("shop.orders_scylla_cdc_log").count())
    batched = comparable_outputs(spark, len(cuts))
    return batched, one_build_outputs(example_outputs, example_base_state), orders_log_rows


def test_the_example_in_batches_equals_one_build(example_in_batches):
    batched, full, _ = example_in_batches
    assert_same_outputs(batched, full)


def test_a_log_table_left_out_of_builds_catches_up_with_every_batch_it_missed(example_in_batches):
    """Two builds in a row leave a log table out: the next build that runs it adds the rows of
    both batches it missed (it keeps the last write id it holds), and the table equals one full
    build's (as every other output does: the test above)."""
    batched, full, orders_log_rows = example_in_batches
    assert orders_log_rows[1] == orders_log_rows[2] == orders_log_rows[0]
    assert orders_log_rows[3] == len(full["shop.orders_scylla_cdc_log"]) > orders_log_rows[0]
    assert batched["shop.orders_scylla_cdc_log"] == full["shop.orders_scylla_cdc_log"]


def test_a_build_stopped_before_its_ledger_runs_its_batch_again_once(spark, example_in_batches):
    """A build stopped after the log, the audit and the state were written but before the
    ledger: the next build takes the same batch again and adds nothing twice."""
    from cdclake.project import dbt

    _, full, _ = example_in_batches
    ledger = spark.table("cdc_lake.cdc_processed_writes")
    last_batch = ledger.agg({"batch_id": "max"}).first()[0]
    # the last batch's ledger append never happened
    ledger.where(f"batch_id < {last_batch}").localCheckpoint().write.insertInto(
        "cdc_lake.cdc_processed_writes", overwrite=True)
    assert spark.table("cdc_lake.cdc_processed_writes").agg({"batch_id": "max"}).first()[0] == last_batch - 1
    assert dbt.invoke(incremental_build())
    assert comparable_outputs(spark, batches=last_batch) == full


def test_a_build_with_no_new_writes_is_no_batch(spark, example_in_batches, capsys):
    """A build that finds no new writes (a scheduled run after a quiet hour) adds no batch: the
    audit and the ledger stay as they were, and the build's summary says so."""
    from cdclake.commands.dbt_command import print_build_summary
    from cdclake.project import dbt

    audits_before, ledger_before = audit_rows(spark), rows_of(spark.table("cdc_lake.cdc_processed_writes"))
    assert dbt.invoke(incremental_build()), "a build with no new writes"
    assert audit_rows(spark) == audits_before
    assert rows_of(spark.table("cdc_lake.cdc_processed_writes")) == ledger_before
    capsys.readouterr()
    print_build_summary(spark)
    assert f"no new writes: no batch added ({len(audits_before)} so far)" in capsys.readouterr().out
    # a build that left out every node (no input moved, cdclake/project/unchanged_inputs.py) ran no batch:
    # the summary says so, not the last batch's figures
    left_out_everything = SimpleNamespace(result=SimpleNamespace(results=[]))
    print_build_summary(spark, left_out_everything, ["build"])
    summary = capsys.readouterr().out
    assert f"no new writes: no input changed since the last build, no batch added ({len(audits_before)} so far)" \
        in summary and "writes in = " not in summary.split("\n")[1]


def test_a_batch_with_processed_write_ids_is_rejected(spark, example_in_batches):
    """Writes appended with ids below the last processed one are rejected, named and counted;
    the build goes on with the batch's new write, which gets the batch number after the last
    (no build without new writes took one: the test above)."""
    from cdclake.project import dbt

    ledger = spark.table("cdc_lake.cdc_processed_writes")
    last, batches = ledger.agg({"write_id": "max"}).first()[0], ledger.agg({"batch_id": "max"}).first()[0]
    audits_before = audit_rows(spark)
    accepted = [r.write_id for r in spark.sql(
        "select write_id from cdc_lake.cdc_processed_writes where status = 'accepted' order by write_id limit 2"
    ).collect()]
    # two accepted writes again, under new ids below the last processed one, and the last one
    # again under the next id
    append_writes_again(spark, f"write_id in ({accepted[0]}, {accepted[1]})", "-write_id")
    repeated = ledger.where("status = 'accepted'").agg({"write_id": "max"}).first()[0]
    append_writes_again(spark, f"write_id = {repeated}", f"cast({last + 1} as bigint)")
    assert dbt.invoke(incremental_build()), "late writes fail nothing: they are rejected"

    rejected = {r.write_id: r for r in spark.table("cdc_lake.cdc_rejected_writes").collect()}
    for write_id in (-accepted[0], -accepted[1]):
        assert rejected[write_id].reason == "invalid_input"
        assert rejected[write_id].error_text == (
            f"write_id: write {write_id} is not above the last processed write id {last} (batch {batches}); "
            "new writes need higher ids, or rebuild with --full-refresh")
    audits = audit_rows(spark)
    assert audits[:-1] == audits_before and audits[-1]["batch_id"] == batches + 1
    assert [audits[-1][c] for c in ("input_writes", "rejected_writes", "accepted_writes")] == [3, 2, 1]
    assert sorted((r.write_id, r.status) for r in ledger.where(f"batch_id = {batches + 1}").collect()) == sorted([
        (-accepted[0], "rejected"), (-accepted[1], "rejected"), (last + 1, "accepted")])


def audit_rows(spark) -> list[dict]:
    return [r.asDict() for r in spark.table("cdc_lake.cdc_write_audit").orderBy("batch_id").collect()]


# the models that read the log's rows of a batch (from int_log_written, the table behind the
# mart cdc_log) and the facts replayed from them
LOG_READERS = {
    "shop__orders_scylla_cdc_log": ["cdc_intermediate.int_log_written"],
    "int_log_replay_facts": ["cdc_intermediate.int_log_written", "cdc_intermediate.int_log_replay_facts"],
    "cdc_write_audit": ["cdc_intermediate.int_log_written"],
}


def test_a_batch_reads_only_the_log_rows_of_later_writes(spark, example_in_batches):
    """In an incremental build each reader of the log compares its write ids with a number,
    which Spark hands to the Parquet reader (`PushedFilters`): the row groups earlier batches
    appended are skipped unread, where a join with the batch's writes alone reads them all."""
    from cdclake.project import dbt
    from cdclake.settings import target_dir

    # as in a build: the batch (the last write id processed before it) first, then its readers
    assert dbt.invoke(["run", "--select", "int_build_batch", "--log-level", "warn"])
    assert dbt.invoke(["compile", "--select", *LOG_READERS, "--log-level", "warn"])
    compiled = {r["unique_id"].rsplit(".", 1)[1]: r["compiled_code"]
                for r in json.loads((target_dir() / "run_results.json").read_text())["results"]}
    for model, tables in LOG_READERS.items():
        plan = spark.sql(compiled[model])._jdf.queryExecution().executedPlan().toString()
        for table in tables:
            # the scans that read rows by their write (not the facts' stamp: one column)
            scans = [line for line in plan.splitlines() if "FileScan" in line and f"{table}[" in line
                     and "write_id#" in line.split(f"{table}[")[1].split("]")[0]]
            assert scans, f"{model} does not read {table}'s rows by write:\n{plan}"
            assert all("PushedFilters: [" in scan and "GreaterThan(write_id," in scan.split("PushedFilters: [")[1]
                       for scan in scans), f"{model} reads all of {table}:\n" + "\n".join(scans)


# ---- random workloads ----------------------------------------------------------------------

@contextlib.contextmanager
def large_input_planning(spark):
    """Inside the block, the plans of a `cdclake build` whose inputs are not small: the session's
    own settings, which plan_for_input_size keeps (whole-stage code generation, expressions
    compiled, adaptive execution, cdclake.session.spark.SHUFFLE_PARTITIONS); the test session's after it."""
    from cdclake.session.spark import SHUFFLE_PARTITIONS, SMALL_DATA_CONF, session_settings

    large = dict.fromkeys(SMALL_DATA_CONF) | {"spark.sql.shuffle.partitions": str(SHUFFLE_PARTITIONS)}
    with session_settings(spark, large):
        assert (spark.conf.get("spark.sql.codegen.wholeStage"), spark.conf.get("spark.sql.adaptive.enabled"),
                spark.conf.get("spark.sql.shuffle.partitions")) == ("true", "true", str(SHUFFLE_PARTITIONS))
        yield spark


def workload_batch_builder(spark, script_result, workspace: Path):
    """Build a front-door workload's writes up to a cut in a scratch project (as replay does)."""
    from cdclake.generations import generation_tables
    from cdclake.load import inputs
    from cdclake.project import log_models, unchanged_inputs
    from cdclake.replay import default_generations, prepare_scratch_project

    project = prepare_scratch_project(workspace)
    log_models.write_log_models(project, script_result.tables, columns=script_result.columns,
                                types=script_result.types)
    # no log imported, no tablets tables (test_imported_log's log and the example's stream sets stay in
    # the session's catalog, in its format: a Parquet input leaves no node out)
    spark.sql("drop table if exists cdc_input.imported_log")
    spark.sql("drop table if exists cdc_input.tablet_streams")
    table_format = os.environ["CDCLAKE_TABLE_FORMAT"]
    generation_tables.load(spark, default_generations(NOW_US), table_format)

    def build_batch(cut: int, full_refresh: bool) -> bool:
        atoms = [a for a in script_result.atoms if a.write_id <= cut]
        if full_refresh:
            inputs.write_inputs(spark, atoms=atoms, tables=script_result.tables, columns=script_result.columns,
                                types=script_result.types, table_format=table_format)
        else:  # the schemas and generations unchanged: on Delta the nodes that read only them are left out
            inputs.write_mutations(spark, atoms=atoms, table_format=table_format)
        # as `cdclake build` runs it: the unchanged inputs' nodes left out (cdclake/project/unchanged_inputs.py)
        return bool(unchanged_inputs.invoke(BUILD + (["--full-refresh"] if full_refresh else []), project).success)

    return build_batch


# Two rows of the first batch that the last one (its last two writes) leaves without state. One is
# deleted at its own timestamp: it never was, so its partition's versions, history and changes
# vanish in the last build. The other has a TTL that runs out after every earlier write (their
# timestamps are at most 2 s after NOW_US) and before the last one (a partition delete 4 s after,
# within ScyllaDB's 5 s leeway for writes from the future), so that the last state is taken after
# it, though the last batch does not touch its partition: it must leave the state tables.
ONE_BUILD_ROWS = ("""CREATE KEYSPACE inc_gone WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};
CREATE TABLE inc_gone.t (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH cdc = {'enabled': true};
INSERT INTO inc_gone.t (pk, ck, v) VALUES (1, 1, 'gone') USING TIMESTAMP 1700000000000000;
INSERT INTO inc_gone.t (pk, ck, v) VALUES (2, 1, 'expires') USING TIMESTAMP 1700000000000000 AND TTL 3;
""", """DELETE FROM inc_gone.t USING TIMESTAMP 1700000000000000 WHERE pk = 1 AND ck = 1;
DELETE FROM inc_gone.t USING TIMESTAMP 1700000004000000 WHERE pk = 3;
""")


def assert_left_out_nodes_reading_only_schemas_and_generations(project: Path) -> None:
    """The last build (a batch after the first) ran every model and test but those that read only
    the schemas and generations, unchanged since the first (cdclake/project/unchanged_inputs.py), and the
    whole-table checks that no build runs (selectors.yml)."""
    from cdclake.project.unchanged_inputs import RECORD_NAME

    target = project / "target"
    manifest = json.loads((target / "manifest.json").read_text())
    nodes = {node["name"] for node in manifest["nodes"].values()
             if node["resource_type"] in ("model", "test") and node["config"]["materialized"] != "ephemeral"
             and "whole_table" not in node["tags"]}
    results = json.loads((target / "run_results.json").read_text())["results"]
    ran = {r["unique_id"].split(".")[2] for r in results if r["unique_id"].split(".")[0] in ("model", "test")}
    left_out = json.loads((target / RECORD_NAME).read_text())["nodes"]
    assert {"int_token_ranges", "int_base_columns_described", "assert_generations_are_valid"} <= set(left_out)
    assert sorted(nodes - ran) == left_out, "the nodes left out are those that read only unchanged inputs"


def assert_no_input_moved_runs_no_node(spark, project: Path, outputs: dict[str, list[str]], batches: int) -> None:
    """A build after the last one with no input moved (no new writes, the same schemas and
    generations) runs no model or test (cdclake/project/unchanged_inputs.py), which the tables'
    files alone tell, and leaves every output as it was."""
    from cdclake.project import unchanged_inputs
    from cdclake.session import delta_log

    # asked of the warehouse's files alone, as `cdclake build` does before its JVM starts
    assert unchanged_inputs.nothing_to_run(BUILD, project, delta_log.local_warehouse(spark))
    result = unchanged_inputs.invoke(BUILD, project)
    assert result.success
    assert [r.node.name for r in result.result.results if r.node.resource_type in ("model", "test", "seed")] == []
    assert comparable_outputs(spark, batches) == outputs


def assert_replay_rebuilt_in_place(spark, consumer_tables: list[str], batches: int) -> None:
    """After the first build, each build changed the versions and the history and change-feed
    tables in place, not as new tables: the recomputed partitions' rows deleted (a MERGE, or
    none to delete) and appended (a WRITE in Delta's history)."""
    assert consumer_tables
    for table in ["cdc_intermediate.int_log_replay_versions", *consumer_tables]:
        operations = [r.operation for r in spark.sql(f"describe history {table}").orderBy("version").collect()
                      if r.operation not in ("SET TBLPROPERTIES", "MERGE")]
        assert operations[-batches:] == [operations[-batches]] + ["WRITE"] * (batches - 1), (table, operations)
        assert "CREATE" in operations[-batches], (table, operations)


@st.composite
def random_workloads(draw) -> list[tuple]:
    """Four random tables (random_cql) and each one's writes."""
    chosen = []
    for number in range(4):
        table = draw(random_tables(f"inc_{number}"))
        chosen.append((table, draw(random_statements(table, NOW_US))))
    return chosen


def has_what_batches_must_carry(chosen: list[tuple]) -> bool:
    """A table with pre- or post-images, one with a collection that is not frozen, and a range
    or partition delete: what the carried state must get right across batches."""
    images = any("'preimage': 'false'" not in t.options or "'postimage': 'true'" in t.options for t, _ in chosen)
    collections = any(kind.startswith(("map<", "set<", "list<")) for t, _ in chosen for _, kind in t.regular + t.static)
    deletes = any(re.search(r"DELETE FROM \S+ WHERE pk = \d+( AND c0 [<>]|;|$)", w) for _, writes in chosen for w in writes)
    return images and collections and deletes


# the workload drawn by default: 35 writes (78 atoms) in two batches, the first up to write 23
DEFAULT_SEED = 29


def drawn_workload(seed: int) -> list[tuple]:
    """The first workload drawn from ``seed`` that has_what_batches_must_carry (not shrunk:
    Hypothesis's first example, its simplest, has none of it)."""
    return first_draw(random_workloads(), has_what_batches_must_carry, seed)


def test_random_workloads_in_batches_equal_one_build(spark, test_workspace, monkeypatch):
    """Four random tables (static columns and range deletes as drawn; among them images and a
    collection, drawn until there are) and two rows the last batch leaves without state
    (`ONE_BUILD_ROWS`), their writes split into 2-5 batches at random cuts, built on Delta
    with the session's small-data plans: every output equals one full build's on Parquet
    planned as for large inputs (whole-stage code generation, adaptive execution, four shuffle
    partitions: the one build of the suite that plans so). The batches after the first leave
    out the nodes that read only the unchanged schemas and generations, and the versions,
    history and change feeds were built in place. The five keyspaces' tables are all named
    `t`, built by the default four dbt threads: with dbt-spark's own incremental
    materialization their batches' temporary views clashed
    (macros/materializations/spark_incremental.sql).

    The workload is drawn from a seed: DEFAULT_SEED (two batches; each further batch on Delta
    adds some 70-85 s: run alone, this test took 342 s with it, 509 s with seed 0's five), or
    ``CDCLAKE_INCREMENTAL_SEED`` (a number, or ``random`` for a new one, printed); the script
    and its seed are written to target/pytest/incremental_workload.cql."""
    from test_random_workloads import script_of

    from cdclake.cql.interpreter import run_script

    chosen_seed = os.environ.get("CDCLAKE_INCREMENTAL_SEED", str(DEFAULT_SEED))
    seed = random.randrange(2**32) if chosen_seed == "random" else int(chosen_seed)
    script = ONE_BUILD_ROWS[0] + script_of(drawn_workload(seed)) + ONE_BUILD_ROWS[1]
    (test_workspace / "incremental_workload.cql").write_text(f"-- CDCLAKE_INCREMENTAL_SEED={seed}\n{script}")
    result = run_script(script, now_us=NOW_US, step_us=STEP_US)
    assert not result.errors, result.errors
    write_ids = sorted({a.write_id for a in result.atoms})
    rng = random.Random(seed)
    batches = rng.randint(2, min(5, len(write_ids) - 1))
    # the last two writes in the last batch
    cuts = split_points(write_ids[:-1], batches, rng)
    cuts[-1] = write_ids[-1]
    print(f"CDCLAKE_INCREMENTAL_SEED={seed}: {len(write_ids)} writes in {batches} batches, cut after {cuts}")

    monkeypatch.setenv("CDCLAKE_TABLE_FORMAT", "delta")
    build_batch = workload_batch_builder(spark, result, test_workspace / "incremental_replay")
    batched = outputs_after(spark, build_batch, cuts)
    assert_left_out_nodes_reading_only_schemas_and_generations(test_workspace / "incremental_replay" / "project")
    assert [r.pk for r in spark.sql("select distinct pk from inc_gone.t_history").collect()] == [2], \
        "the row deleted at its own timestamp never was; the one that expired was"
    assert batched["inc_gone.t_state"] == [], "one row never was, the other expired"
    assert_replay_rebuilt_in_place(spark, [t for t in batched if t.endswith(("_history", "_changes"))], batches)
    # Delta keeps each build's version: the audit had k rows after the k-th build
    versions = sorted(r.version for r in spark.sql("describe history cdc_lake.cdc_write_audit").collect())
    assert [spark.sql(f"select count(*) from cdc_lake.cdc_write_audit version as of {v}").first()[0]
            for v in versions] == list(range(1, batches + 1))
    assert spark.sql("describe detail cdc_intermediate.int_base_state").first().format == "delta"
    assert spark.sql("select count(*) - count(distinct state_key) from cdc_intermediate.int_base_state").first()[0] == 0
    assert_no_input_moved_runs_no_node(spark, test_workspace / "incremental_replay" / "project", batched, batches)

    monkeypatch.setenv("CDCLAKE_TABLE_FORMAT", "parquet")
    with large_input_planning(spark):
        full = outputs_after(spark, build_batch, [write_ids[-1]])
    assert_same_outputs(batched, full)
    assert spark.sql("describe detail cdc_intermediate.int_base_state").first().format == "parquet"
