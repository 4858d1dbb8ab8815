"""`cdclake replay` as a user runs it: a real process, JSON lines out, rejections on stderr."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import REPO

from cdclake.generations.cluster_history import DEFAULT_CLUSTER_SEED
from cdclake.generations.tablets import first_stream_set
from cdclake.generations.vnodes import DEFAULT_VNODES_PER_NODE, default_single_node_generation, lookup_stream
from cdclake.settings import target_dir
from python_udfs.tokens import token_of_partition_key

NOW_US = 1_700_000_000_000_000
CDCLAKE = [sys.executable, "-m", "cdclake.cli"]


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(CDCLAKE + list(args), cwd=REPO, input=stdin, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def example_replay():
    done = run_cli("replay", "examples/shop.cql", "--format", "jsonl", "--now", str(NOW_US), "--step", "1000000")
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_rows_are_json_lines_in_log_order(example_replay):
    rows, _ = example_replay
    assert {r["table"] for r in rows} == {
        "metrics.readings_scylla_cdc_log", "shop.inventory_scylla_cdc_log", "shop.orders_scylla_cdc_log",
        "shop.sessions_scylla_cdc_log",
    }
    for row in rows:
        assert len(row["cdc$stream_id"]) == 32 and int(row["cdc$stream_id"], 16) >= 0
    keys = [(r["table"], r["cdc$stream_id"]) for r in rows]
    assert keys == sorted(keys)


def test_each_row_sits_in_the_stream_scylla_would_choose(example_replay):
    rows, _ = example_replay
    generation = default_single_node_generation(NOW_US // 1000 - 3600 * 1000)
    assert len(generation) == DEFAULT_VNODES_PER_NODE
    key_of = {
        "shop.inventory_scylla_cdc_log": (["sku"], ["text"]),
        "shop.orders_scylla_cdc_log": (["customer_id"], ["uuid"]),
        "shop.sessions_scylla_cdc_log": (["user_id"], ["bigint"]),
    }
    # the tablets table: its one stream set on the default node (4 tablets, created by statement 31)
    readings = first_stream_set(DEFAULT_CLUSTER_SEED, "metrics.readings", NOW_US // 1000 + 31_000, 4)
    for row in rows:
        if row["table"] == "metrics.readings_scylla_cdc_log":
            token = token_of_partition_key(json.dumps({"sensor": row["sensor"]}), ["sensor"], ["int"])
            position = next(i for i, last in enumerate(readings.last_tokens) if last >= token)
            assert readings.stream_ids[position].hex() == row["cdc$stream_id"]
            continue
        names, types = key_of[row["table"]]
        token = token_of_partition_key(json.dumps({n: row[n] for n in names}), names, types)
        assert lookup_stream(generation, token).hex() == row["cdc$stream_id"]


def test_refused_writes_are_reported_with_scylla_error(example_replay):
    _, stderr = example_replay
    refused = [line for line in stderr.splitlines() if line.startswith("rejected write")]
    assert len(refused) == 3
    assert 'InvalidRequest: cdc: attempted to get a stream "from the future" (2023/11/15 23:13:20;' in refused[0]
    assert 'InvalidRequest: cdc: attempted to get a stream "from the past" (2023/11/14 19:26:40;' in refused[1]
    assert "ServerError: cdc::metadata::get_stream: could not find any CDC streams for table " in refused[2]


def test_a_replay_builds_what_it_prints(example_replay):
    """Without --self-checks: the log tables, the rejected writes and the audit with what they are
    built from; not the other marts, nor the engine's own data tests, nor the checks of the inputs
    cdclake wrote (the front door's schemas, the default generations)."""
    run_results = json.loads((target_dir() / "replay" / "project" / "target" / "run_results.json").read_text())
    ran = {result["unique_id"].split(".")[2]: result["status"] for result in run_results["results"]}
    printed = {"shop__orders_scylla_cdc_log", "shop__inventory_scylla_cdc_log", "shop__sessions_scylla_cdc_log",
               "cdc_rejected_writes", "cdc_write_audit"}
    assert {name: ran.get(name) for name in printed} == {name: "success" for name in printed}
    assert {"int_log_written", "int_log_images"} <= set(ran)
    assert not {"assert_log_replays_to_base_state", "assert_processed_writes_match_the_input",
                "cdc_generation_descriptions", "not_null_cdc_log_column_name", "assert_base_schemas_are_valid",
                "assert_generated_models_follow_the_schemas", "assert_generations_are_valid"} & set(ran)


def test_generations_a_user_gives_are_checked_even_without_self_checks():
    from cdclake.replay import build_args

    assert "assert_generations_are_valid" in build_args(self_checks=False, users_generations=True)
    assert "assert_generations_are_valid" not in build_args(self_checks=False, users_generations=False)
    assert "--select" not in build_args(self_checks=True, users_generations=False)


def test_later_replays_map_the_class_archive_an_earlier_command_wrote(example_replay):
    """The first cdclake command on a machine (this replay, or an earlier module's command) leaves
    its JVM's class archive (cdclake/session/jvm_archive.py) and no partial one; a later replay maps it:
    with -Xshare:on a JVM that cannot map it stops. This one prints the default grid, with a
    lightweight transaction's result and a DESCRIBE on stderr."""
    from cdclake.session import jvm_archive
    from cdclake.session.spark import classpath_jars

    names = [p.name for p in jvm_archive.archive_folder().iterdir()]     # the archives of other class paths
    assert f"classes-{jvm_archive.fingerprint(classpath_jars())}.jsa" in names   # (load cluster's, Cassandra's) too
    assert not [name for name in names if name.startswith("classes-") and ".partial-" in name]
    script = ("CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};\n"
              "CREATE TABLE ks.t (pk int PRIMARY KEY, v int) WITH cdc = {'enabled': true};\n"
              "INSERT INTO ks.t (pk, v) VALUES (1, 2);\n"
              "UPDATE ks.t SET v = 3 WHERE pk = 1 IF v = 2;\n"
              "DESCRIBE TABLE ks.t;\n")
    done = subprocess.run(CDCLAKE + ["replay", "-", "--now", str(NOW_US)], cwd=REPO,
                          input=script, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "JAVA_TOOL_OPTIONS": "-Xshare:on"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.index("[applied] = True") < done.stderr.index("CREATE TABLE ks.t (")    # in statement order
    grid = done.stdout.splitlines()
    assert grid[0] == "ks.t_scylla_cdc_log:" and "(2 rows)" in grid
    column = [cell.strip() for cell in grid[2].split("|")].index("v")
    assert sorted(line.split("|")[column].strip() for line in grid[4:6]) == ["2", "3"]


def test_syntax_error_names_line_and_column():
    done = run_cli("replay", "-", stdin="CREATE KEYSPACE ks WITH replication = {};\nUPDATE ks.t SET WHERE;\n")
    assert done.returncode == 2
    assert "line 2, column" in done.stderr


def test_a_replay_where_another_process_holds_the_folder_stops_before_touching_it(tmp_path):
    """A replay parses its scratch project beside the start of its Spark session: it holds the
    folder first, so a second replay there stops at once and leaves the first one's project as
    it was."""
    target = tmp_path / "target"
    hold_folder = ("import sys, time; from pathlib import Path; from cdclake.session.target_lock import hold; "
                   "hold(Path(sys.argv[1])); print('held', flush=True); time.sleep(600)")
    holder = subprocess.Popen([sys.executable, "-c", hold_folder, str(target / "replay" / "warehouse")],
                              cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        first_project = target / "replay" / "project" / "dbt_project.yml"
        first_project.parent.mkdir(parents=True)
        first_project.write_text("the first replay's\n")
        done = subprocess.run(CDCLAKE + ["replay", "-"], cwd=REPO, capture_output=True, text=True, timeout=300,
                              input="CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', "
                                    "'replication_factor': 1};\nCREATE TABLE ks.t (k int PRIMARY KEY);\n",
                              env={**os.environ, "CDCLAKE_TARGET_DIR": str(target)})
        assert done.returncode == 4 and "is in use by process" in done.stderr, done.stderr[-3000:]
        assert first_project.read_text() == "the first replay's\n"
    finally:
        holder.kill()
        holder.wait()
