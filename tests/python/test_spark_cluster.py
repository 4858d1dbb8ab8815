"""The example built on a Spark standalone cluster (a master and one worker on loopback, started
with the installed pyspark's `bin/spark-class`) through `cdclake --master`, as a user runs it:
each command a new process, the default set-up's Delta tables and Derby metastore.

The first build is killed with SIGKILL in the middle of a model (its files half written, the
table not yet in the metastore); the second, in a fresh process, runs to the end. Its outputs,
read from its folder, must equal those of the example build this test session made in-process
(conftest.example_outputs) byte for byte, stream IDs and timeuuids included: a killed build run
again gives an uninterrupted build's outputs, the cluster's executors the local session's, and
Delta tables Parquet's (the session's format). The executors run the UDFs from the zip cdclake
ships, not from an install, and write where CDCLAKE_WAREHOUSE_DIR says. (The one build of the
suite that plans as for large inputs is test_incremental_builds' full build of a random workload.)
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
from conftest import REPO, free_port
from outputs import location, snapshot_files, table_format

from cdclake.session.spark import SMALL_INPUT_ATOMS, delta_jar

START_TIMEOUT_S = 120
RUN_TIMEOUT_S = 1800
# the model the first build is killed in, and the folder whose appearance means its files are
# being written: the first table the pipeline builds from the seeds (node 13 of 111)
KILL_MODEL = "int_base_tables_described"
KILL_FOLDER = Path("spark-warehouse") / "cdc_intermediate.db" / KILL_MODEL


def spark_class(*args: str, log: Path, env: dict) -> subprocess.Popen:
    import pyspark

    home = Path(pyspark.__file__).parent
    return subprocess.Popen([str(home / "bin" / "spark-class"), *args], env={**env, "SPARK_HOME": str(home)},
                            stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)


def wait_for(log: Path, pattern: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not re.search(pattern, log.read_text(errors="replace")):
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"no {pattern!r} in {log.name}:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.5)


@pytest.fixture(scope="module")
def cluster(test_workspace):
    """spark://127.0.0.1:PORT with one worker (2 cores, 2 GB): its URL and work folder."""
    work = test_workspace / "cluster"
    work.mkdir()
    port = free_port()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_WORKER_DIR": str(work / "worker")}
    master = spark_class("org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                         "--webui-port", str(free_port()), log=work / "master.log", env=env)
    worker = None
    try:
        wait_for(work / "master.log", "I have been elected leader", master)
        url = f"spark://127.0.0.1:{port}"
        worker = spark_class("org.apache.spark.deploy.worker.Worker", url, "--cores", "2", "--memory", "2g",
                             "--host", "127.0.0.1", "--webui-port", str(free_port()), log=work / "worker.log", env=env)
        wait_for(work / "worker.log", "Successfully registered with master", worker)
        yield url, work
    finally:
        for process in (worker, master):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=60)


def start_build(url: str, target: Path, log: Path) -> subprocess.Popen:
    """`cdclake --master URL build` of the example in a subprocess with its own target folder
    (warehouse and Derby metastore: on this one machine the executors reach it), on the table
    format it detects, as a user's build (Delta with the jars the set-up fetched)."""
    env = {k: v for k, v in os.environ.items() if k not in ("CDCLAKE_TARGET", "CDCLAKE_TABLE_FORMAT")}
    env.update(CDCLAKE_TARGET_DIR=str(target), CDCLAKE_DRIVER_MEMORY="1g", SPARK_LOCAL_IP="127.0.0.1",
               DBT_LOG_PATH=str(target / "logs"))
    return subprocess.Popen([sys.executable, "-m", "cdclake.cli", "--master", url, "--verbose", "build",
                             "--vars", "{cdc_example: true}"],
                            cwd=REPO, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)


def kill_while_writing(url: str, target: Path, log: Path) -> None:
    """Run a build and SIGKILL it (with Spark's driver JVM and Python workers; the master then
    ends its executor) once KILL_MODEL has started and its table folder exists."""
    process = start_build(url, target, log)
    started = re.compile(rf"START sql \w+ model \S*\b{KILL_MODEL}\b")
    deadline = time.monotonic() + RUN_TIMEOUT_S
    try:
        while not started.search(log.read_text(errors="replace")):
            assert process.poll() is None, f"the build ended before {KILL_MODEL}:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"{KILL_MODEL} never started"
            time.sleep(0.05)
        while not (target / KILL_FOLDER).exists() and process.poll() is None:
            time.sleep(0.01)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL, f"the build was not killed in {KILL_MODEL}:\n{log.read_text()[-3000:]}"


@pytest.fixture(scope="module")
def rebuilt_after_kill(cluster, example_outputs) -> tuple[Path, str]:
    """The target folder of a cluster build run again after a killed one, and its output."""
    url, work = cluster
    target = work / "target"
    target.mkdir()
    kill_while_writing(url, target, work / "killed.log")
    log = work / "final.log"
    process = start_build(url, target, log)
    assert process.wait(timeout=RUN_TIMEOUT_S) == 0, f"the build after the kill failed:\n{log.read_text()[-4000:]}"
    return target, log.read_text()


def test_a_build_after_a_killed_one_equals_the_session_build_byte_for_byte(spark, rebuilt_after_kill, example_outputs):
    target, _ = rebuilt_after_kill
    rebuilt = snapshot_files(spark, target, sorted(example_outputs))
    assert set(rebuilt) == set(example_outputs)
    differing = [table for table in example_outputs if rebuilt[table] != example_outputs[table]]
    assert not differing, f"tables that differ from the session's uninterrupted build: {differing}"
    assert any(rows for table, rows in rebuilt.items() if table.endswith("_scylla_cdc_log"))


def test_the_rerun_removed_what_the_killed_run_left(rebuilt_after_kill):
    _, log = rebuilt_after_kill
    assert "the folder of a table an interrupted run did not finish" in log
    assert "cdc_intermediate.db/int_base_tables_described: the folder of a table" in log


def test_the_cluster_builds_delta_and_plans_for_small_data(rebuilt_after_kill, example_outputs):
    """The default set-up builds Delta tables; the session here builds Parquet (conftest), so the
    comparison above is also Delta against Parquet, row for row. The example's 68 atoms are below
    SMALL_INPUT_ATOMS: the build plans as a replay does (cdclake.session.spark.plan_for_input_size)."""
    target, log = rebuilt_after_kill
    assert delta_jar() is not None, "no Delta Lake jar in jars/: run make jars"
    assert "table format: delta" in log
    assert "HiveAlterHandler" not in log, "replacing Delta tables printed the metastore's refusals"
    stored = [table for table in example_outputs if location(target, table).is_dir()]
    # the state tables, the rejected writes, the load refusals and cdc_log are views (of the
    # history, of the ledger, of the input, of int_log_written)
    assert sorted(set(example_outputs) - set(stored)) == sorted(
        [t for t in example_outputs if t.endswith("_state")]
        + ["cdc_lake.cdc_load_refusals", "cdc_lake.cdc_log", "cdc_lake.cdc_rejected_writes"])
    formats = {table: table_format(target, table) for table in stored}
    assert set(formats.values()) == {"delta"}, formats
    assert os.environ["CDCLAKE_TABLE_FORMAT"] == os.environ.get("CDCLAKE_TEST_TABLE_FORMAT", "parquet")
    assert f"planning: small data (68 input atoms, below {SMALL_INPUT_ATOMS})" in log


PROBE = """
import sys
from pathlib import Path
from cdclake.session.spark import create_session
spark = create_session(Path(sys.argv[1]))
print(spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("python_udfs").__file__).collect()[0])
spark.sql("create table probe using parquet as select id from range(4)")
"""


def test_executors_import_the_udfs_from_the_shipped_zip_and_write_to_the_named_warehouse(cluster):
    """Workers need no install of cdclake: an executor's python_udfs is the shipped zip's. The
    table a command creates lands in CDCLAKE_WAREHOUSE_DIR (where a cluster's executors and its
    driver all reach it), not in the target folder."""
    url, work = cluster
    warehouse = work / "shared" / "spark-warehouse"
    env = {**os.environ, "CDCLAKE_SPARK_MASTER": url, "SPARK_LOCAL_IP": "127.0.0.1", "CDCLAKE_DRIVER_MEMORY": "1g",
           "CDCLAKE_WAREHOUSE_DIR": str(warehouse)}
    done = subprocess.run([sys.executable, "-c", PROBE, str(work / "probe")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    imported_from = done.stdout.strip().splitlines()[-1]
    assert "python_udfs.zip" in imported_from and str(REPO) not in imported_from, imported_from
    assert len(list((warehouse / "probe").glob("part-*.parquet"))) > 0
    assert not (work / "probe" / "spark-warehouse").exists()
