"""The example built on a Spark standalone cluster (a master and one worker on loopback, started
with the installed pyspark's `bin/spark-class`) through `cdclake --master`, into the warehouse
CDCLAKE_WAREHOUSE_DIR names: every mart equals the local build's, and the executors run the UDFs
from the zip cdclake ships, not from an install. The cluster build plans as for large inputs (Spark's
defaults): the one build of the suite that does, compared with the session's small-data plans."""
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
from outputs import snapshot_files

START_TIMEOUT_S = 120


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


@pytest.fixture(scope="module")
def cluster_build(cluster):
    url, work = cluster
    env = {k: v for k, v in os.environ.items() if k not in ("CDCLAKE_TARGET", "CDCLAKE_TABLE_FORMAT")}
    # the warehouse where every executor reaches it (here a folder of its own on the one disk)
    env.update(CDCLAKE_TARGET_DIR=str(work / "target"), CDCLAKE_DRIVER_MEMORY="1g", SPARK_LOCAL_IP="127.0.0.1",
               CDCLAKE_TABLE_FORMAT="parquet", DBT_LOG_PATH=str(work / "logs"),
               CDCLAKE_WAREHOUSE_DIR=str(work / "shared" / "spark-warehouse"),
               # Spark's own planning (whole-stage code generation, adaptive execution), as for
               # large inputs, against the session's small-data plans (conftest.spark)
               CDCLAKE_SMALL_INPUT_ATOMS="0")
    done = subprocess.run([sys.executable, "-m", "cdclake.cli", "--master", url, "build", "--vars", "{cdc_example: true}"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return work / "shared", done


def test_the_cluster_build_equals_the_local_build_mart_for_mart(spark, cluster_build, example_outputs):
    warehouse, done = cluster_build
    assert not (warehouse.parent / "target" / "spark-warehouse").exists()
    assert "planning: Spark's defaults (55 input atoms, not below 0)" in done.stderr
    built = snapshot_files(spark, warehouse, sorted(example_outputs))
    differing = [table for table in example_outputs if built[table] != example_outputs[table]]
    assert not differing, f"tables that differ from the local build: {differing}"
    assert any(rows for table, rows in built.items() if table.endswith("_scylla_cdc_log"))


PROBE = """
import sys
from pathlib import Path
from cdclake.spark import create_session
spark = create_session(Path(sys.argv[1]))
print(spark.sparkContext.parallelize([0], 1).map(lambda _: __import__("python_udfs").__file__).collect()[0])
"""


def test_the_executors_import_the_udfs_from_the_zip_cdclake_ships(cluster, cluster_build):
    """Workers need no install of cdclake: an executor's python_udfs is the shipped zip's."""
    url, work = cluster
    env = {**os.environ, "CDCLAKE_SPARK_MASTER": url, "SPARK_LOCAL_IP": "127.0.0.1", "CDCLAKE_DRIVER_MEMORY": "1g"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(work / "probe")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    imported_from = done.stdout.strip().splitlines()[-1]
    assert "python_udfs.zip" in imported_from and str(REPO) not in imported_from, imported_from
