"""A build killed with SIGKILL in the middle of a model, then run again, gives the outputs of an
uninterrupted build; and two builds of the same inputs give the same outputs byte for byte.

`cdclake build` of the example runs in a subprocess with its own target folder (warehouse and
Derby metastore). The first run is killed while it writes the first table of the pipeline (its
files half written, the table not yet in the metastore); the second runs to the end. Its output tables, read from its
folder, must equal those of the example build this test session made in-process
(conftest.example_outputs): every row, stream IDs and timeuuids included. The subprocesses build
on the default set-up's Delta tables, the session on Parquet: the two formats give the same rows.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cdclake.paths import PROJECT_DIR
from cdclake.spark import delta_jar
from outputs import snapshot_files, table_format

# the model a run is killed in, and the folder whose appearance means its files are being written:
# the first table the pipeline builds from the seeds (node 13 of 111; node 43,
# int_mutation_atoms_validated, started some 80 s into a cold run in CI, this one some 25 s)
KILL_POINTS = [("int_base_tables_described", Path("cdc_intermediate.db") / "int_base_tables_described")]
RUN_TIMEOUT_S = 900


def start_build(target: Path, log: Path) -> subprocess.Popen:
    """`cdclake build` of the example in a subprocess with its own target folder, on the table
    format it detects, as a user's build (Delta with the jars the set-up fetched)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CDCLAKE_TARGET", "CDCLAKE_TABLE_FORMAT")}
    env.update(CDCLAKE_TARGET_DIR=str(target), CDCLAKE_DRIVER_MEMORY="1g", DBT_LOG_PATH=str(target / "logs"))
    return subprocess.Popen([sys.executable, "-m", "cdclake.cli", "build", "--vars", "{cdc_example: true}"], cwd=PROJECT_DIR, env=env,
                            stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)


def kill_while_writing(target: Path, model: str, folder: Path, log: Path) -> None:
    """Run a build and SIGKILL it (with Spark's JVM and Python workers) once ``model`` has
    started and its table folder exists."""
    process = start_build(target, log)
    started = re.compile(rf"START sql \w+ model \S*\b{model.split('__')[-1]}\b")
    deadline = time.monotonic() + RUN_TIMEOUT_S
    try:
        while not started.search(log.read_text(errors="replace")):
            assert process.poll() is None, f"the build ended before {model}:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"{model} never started"
            time.sleep(0.05)
        while not (target / "spark-warehouse" / folder).exists() and process.poll() is None:
            time.sleep(0.01)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL, f"the build was not killed in {model}:\n{log.read_text()[-3000:]}"


@pytest.fixture(scope="module")
def rebuilt_after_kills(test_workspace, example_outputs) -> Path:
    target = test_workspace / "killed" / "target"
    target.mkdir(parents=True)
    for number, (model, folder) in enumerate(KILL_POINTS):
        kill_while_writing(target, model, folder, test_workspace / "killed" / f"run{number}.log")
    log = test_workspace / "killed" / "final.log"
    process = start_build(target, log)
    assert process.wait(timeout=RUN_TIMEOUT_S) == 0, f"the build after the kills failed:\n{log.read_text()[-4000:]}"
    return target


def test_a_build_after_killed_ones_equals_an_uninterrupted_build_byte_for_byte(
        spark, rebuilt_after_kills, example_outputs):
    rebuilt = snapshot_files(spark, rebuilt_after_kills, sorted(example_outputs))
    assert set(rebuilt) == set(example_outputs)
    differing = [table for table in example_outputs if rebuilt[table] != example_outputs[table]]
    assert not differing, f"tables that differ from the uninterrupted build: {differing}"
    assert any(rows for table, rows in rebuilt.items() if table.endswith("_scylla_cdc_log"))


def test_the_rerun_removed_what_the_killed_runs_left(rebuilt_after_kills):
    log = (rebuilt_after_kills.parent / "final.log").read_text()
    assert "the folder of a table an interrupted run did not finish" in log


def test_the_subprocess_builds_delta_and_equals_the_session_build_on_another_format(
        rebuilt_after_kills, example_outputs):
    """The default set-up builds Delta tables; the session here builds Parquet (conftest), so
    the comparison above is also Delta against Parquet, row for row."""
    assert delta_jar() is not None, "no Delta Lake jar in jars/: run make jars"
    log = (rebuilt_after_kills.parent / "final.log").read_text()
    assert "table format: delta" in log
    assert "HiveAlterHandler" not in log, "replacing Delta tables printed the metastore's refusals"
    formats = {table: table_format(rebuilt_after_kills, table) for table in example_outputs}
    assert set(formats.values()) == {"delta"}, formats
    assert os.environ["CDCLAKE_TABLE_FORMAT"] == os.environ.get("CDCLAKE_TEST_TABLE_FORMAT", "parquet")


def test_a_build_of_few_inputs_plans_for_small_data(rebuilt_after_kills):
    """The example's 55 atoms are below SMALL_INPUT_ATOMS: the build plans as a replay does
    (cdclake.spark.plan_for_input_size); test_spark_cluster's build keeps Spark's defaults."""
    from cdclake.spark import SMALL_INPUT_ATOMS

    log = (rebuilt_after_kills.parent / "final.log").read_text()
    assert f"planning: small data (55 input atoms, below {SMALL_INPUT_ATOMS})" in log
