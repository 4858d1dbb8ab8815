"""`cdclake serve`: a Spark Thrift server in a subprocess (its own target folder and Derby
metastore), reached by dbt's `thrift` target and by PyHive, with the UDFs and table format set up."""
from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import free_port

from cdclake.session.spark import delta_jar
from cdclake.session.thrift import port_open
from cdclake.settings import PROFILES_DIR, PROJECT_DIR

START_TIMEOUT_S = 240
SEED = "cdc_generations"


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    env: dict
    log: Path
    seed: subprocess.Popen | None = None  # `cdclake seed` on the thrift target, run beside the other checks

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture(scope="module")
def server(test_workspace):
    """ONE `cdclake serve` for the module, in a workspace of its own; killed in any case. A seed
    through it starts at once and runs while the other tests query the server."""
    workspace = test_workspace / "serve"
    workspace.mkdir()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("CDCLAKE_TARGET", "CDCLAKE_TABLE_FORMAT")}
    env.update(
        CDCLAKE_TARGET_DIR=str(workspace / "target"),
        CDCLAKE_DRIVER_MEMORY="1g",
        DBT_LOG_PATH=str(workspace / "logs"),
        CDCLAKE_THRIFT_PORT=str(port),
        DBT_SEND_ANONYMOUS_USAGE_STATS="false",
    )
    log = workspace / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "cdclake.cli", "serve", "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT, env=env, cwd=workspace, start_new_session=True,
        )
    served = Server(process, port, env, log)
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while "serving " not in served.output():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"`cdclake serve` did not start (exit {process.poll()}):\n{served.output()[-3000:]}")
            time.sleep(0.5)
        with (workspace / "seed.log").open("w") as out:
            served.seed = subprocess.Popen(
                [sys.executable, "-m", "cdclake.cli", "seed", "--select", SEED, "--no-populate-cache",
                 "--vars", "{cdc_example: true}"],
                env={**env, "CDCLAKE_TARGET": "thrift"}, cwd=PROJECT_DIR,
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )
        yield served
    finally:
        for child in (served.seed, process):
            if child is not None and child.poll() is None:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()


def query(port: int, sql: str) -> list[tuple]:
    from pyhive import hive

    with hive.connect(host="127.0.0.1", port=port) as connection, connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchall()


def run(server: Server, command: list[str]) -> subprocess.CompletedProcess:
    result = subprocess.run(command, env=server.env, cwd=PROJECT_DIR, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-2000:]}"
    return result


def test_thrift_target_is_read_from_the_flag_then_the_environment(monkeypatch, tmp_path):
    from cdclake.project import dbt
    from cdclake.settings import target_dir

    monkeypatch.setenv("CDCLAKE_TARGET", "thrift")
    assert dbt.target_name(["build"]) == "thrift"
    assert dbt.target_name(["build", "--target", "local"]) == "local"
    assert dbt.target_name(["build", "--target=local"]) == dbt.target_name(["build", "-t", "local"]) == "local"
    monkeypatch.delenv("CDCLAKE_TARGET")
    assert dbt.target_name(["build"]) == dbt.EMBEDDED_TARGET
    monkeypatch.setenv("CDCLAKE_TARGET_DIR", str(tmp_path))
    assert target_dir() == tmp_path


def test_prints_how_to_connect_on_loopback(server):
    url = f"jdbc:hive2://127.0.0.1:{server.port}/cdc_lake"
    assert f"beeline -u {url}" in server.output()
    assert "CDCLAKE_TARGET=thrift" in server.output()


def test_dbt_debug_through_the_thrift_target(server):
    dbt = str(Path(sys.executable).parent / "dbt")  # plain dbt: no session, no UDFs of its own
    result = run(server, [dbt, "debug", "--project-dir", str(PROJECT_DIR),
                          "--profiles-dir", str(PROFILES_DIR), "--target", "thrift"])
    assert f"port: {server.port}" in result.stdout and "All checks passed" in result.stdout


def test_udfs_are_visible_to_jdbc_clients(server):
    from python_udfs.murmur3 import murmur3_tokens

    [(token,)] = query(server.port, "select cdc_murmur3_token(X'313233')")
    assert token == int(murmur3_tokens([b"123"])[0])


def test_seed_through_the_server_keeps_rows_and_table_format(server):
    """`cdclake seed` on the thrift target: no session of its own (the server holds the
    metastore), the server's table format for the table."""
    server.seed.wait(timeout=600)
    output = (server.log.parent / "seed.log").read_text(errors="replace")
    assert server.seed.returncode == 0, f"cdclake seed on the thrift target failed:\n{output[-4000:]}"
    assert "table format: " in output and "from the Thrift server" in output
    with (PROJECT_DIR / "seeds" / f"{SEED}.csv").open() as f:
        expected = sorted(int(row["generation_ts_ms"]) for row in csv.DictReader(f))
    rows = query(server.port, f"select generation_ts_ms from cdc_input.{SEED} order by 1")
    assert [r[0] for r in rows] == expected
    described = query(server.port, f"describe table extended cdc_input.{SEED}")  # Delta has no SHOW CREATE
    [provider] = [value for name, value, _ in described if name == "Provider"]
    assert provider == ("delta" if delta_jar() else "parquet")


@pytest.mark.parametrize("command", [["build"], ["check"], ["serve", "--port", "0"], ["report"]])
def test_a_second_command_on_the_served_folder_stops_at_once_saying_who_holds_it(server, command):
    """The server holds its target folder (and Derby metastore): another embedded command on the
    same folder exits at once with one line naming the server's process and the way out."""
    env = {k: v for k, v in server.env.items() if k != "CDCLAKE_THRIFT_PORT"}
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "cdclake.cli"] + command, env=env, cwd=PROJECT_DIR,
                            capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < 30
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 4 and len(lines) == 1, result.stderr
    assert f"process {server.process.pid} (cdclake serve --port {server.port}" in lines[0]
    assert "CDCLAKE_TARGET_DIR=" in lines[0] and "Derby" not in lines[0]


def test_thrift_target_without_a_server_says_how_to_start_one(test_workspace):
    env = {**os.environ, "CDCLAKE_TARGET": "thrift", "CDCLAKE_THRIFT_PORT": str(free_port()),
           "CDCLAKE_TARGET_DIR": str(test_workspace / "no_server")}
    result = subprocess.run([sys.executable, "-m", "cdclake.cli", "seed", "--select", SEED,
                             "--vars", "{cdc_example: true}"],
                            env=env, cwd=PROJECT_DIR, capture_output=True, text=True)
    assert result.returncode != 0 and "cdclake serve --port" in result.stderr, result.stderr


def test_sigterm_stops_the_server_cleanly(server):
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=120) == 0, server.output()[-3000:]
    assert not port_open("127.0.0.1", server.port)
