"""Generation inputs: cluster history -> column arrays -> seed-layout CSV and back; the CLI."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
from conftest import REPO

from cdclake.cql.interpreter import run_script
from cdclake.generations import generation_tables

HISTORY = REPO / "examples" / "cluster_history.yml"


def test_history_round_trips_through_the_csv_layout(tmp_path):
    tables = generation_tables.from_path(HISTORY)
    assert tables.timestamps_ms == [1699995600000, 1700000075000]
    assert tables.stream_count == 3 * 16 * 2 + (3 * 16 * 2 + 16 * 4)
    generation_tables.write_csv_folder(tables, tmp_path)
    again = generation_tables.from_path(tmp_path)
    assert again.timestamps_ms == tables.timestamps_ms
    assert again.streams["stream_id"] == tables.streams["stream_id"]
    for name in ("generation_ts_ms", "vnode_index", "token_range_end", "ignore_msb", "shard"):
        assert np.array_equal(again.streams[name], tables.streams[name]), name


def test_generations_build_command_writes_csv(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "cdclake.cli", "generations", "build", str(HISTORY), "--csv", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "2 generations, 256 streams" in done.stdout
    assert (tmp_path / "cdc_generation_streams.csv").read_text().count("\n") == 257


def test_log_table_creation_time_is_when_cdc_was_first_enabled():
    script = """
    CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
    CREATE TABLE ks.a (pk int PRIMARY KEY, v int) WITH cdc = {'enabled': true};
    CREATE TABLE ks.b (pk int PRIMARY KEY, v int);
    ALTER TABLE ks.b WITH cdc = {'enabled': true};
    ALTER TABLE ks.a WITH cdc = {'enabled': false};
    ALTER TABLE ks.a WITH cdc = {'enabled': true};
    """
    result = run_script(script, now_us=1_000_000_000, step_us=1_000_000)
    created = {t.table_name: t.cdc_log_created_ms for t in result.tables}
    assert created == {"a": 1_001_000, "b": 1_003_000}
