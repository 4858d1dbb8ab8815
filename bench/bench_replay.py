"""`cdclake replay` of a three-statement script (CREATE KEYSPACE, CREATE TABLE with pre-images,
one INSERT) as a user runs it: a new process each time, wall-clock seconds, against a baseline
measured in the same run: a new process that starts the same Spark session, writes a one-row
table and reads it back (what any replay pays before dbt starts).

    python bench_replay.py [RUNS]        (default 2: each figure is the fastest of RUNS)

Prints the seconds of the first replay on the machine (its JVM writes the class archive later
replays map, cdclake/session/jvm_archive.py: the benchmark deletes the archive first), of the baseline,
of a replay and of a replay with --self-checks, and the replay against issue 11's target (30 s).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import report

from cdclake.session import jvm_archive

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 2
TARGET_S = 30.0
NOW_US = 1_700_000_000_000_000
SCRIPT = """
CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};
CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH cdc = {'enabled': true, 'preimage': true};
INSERT INTO ks.t (pk, ck, v) VALUES (1, 2, 'x');
"""
# the replay's own session (cdclake/replay.py: replay_session), one table written and read
BASELINE = """
import os
from cdclake.settings import target_dir
from cdclake.replay import replay_session
spark = replay_session(target_dir() / "replay")
spark.sql("create database if not exists bench_baseline")
spark.range(1).write.mode("overwrite").format(os.environ["CDCLAKE_TABLE_FORMAT"]).saveAsTable("bench_baseline.one_row")
assert spark.table("bench_baseline.one_row").count() == 1
"""


def fastest(command: list[str], runs: int) -> float:
    """The fastest wall-clock seconds of ``runs`` runs of ``command``; stops on a failed run."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command[:4])} ... failed:\n{done.stderr[-3000:]}")
    return min(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "three.cql"
        script.write_text(SCRIPT)
        replay = [sys.executable, "-m", "cdclake.cli", "replay", str(script), "--format", "jsonl",
                  "--now", str(NOW_US)]
        shutil.rmtree(jvm_archive.archive_folder(), ignore_errors=True)
        first = fastest(replay, 1)     # writes the class archive, which the baseline maps too
        baseline = fastest([sys.executable, "-c", BASELINE], RUNS)
        plain = fastest(replay, RUNS)
        checked = fastest(replay + ["--self-checks"], RUNS)
    report("cdclake replay, three statements", [
        f"first replay on this machine (its JVM writes the class archive): {first:.1f} s",
        f"then fastest of {RUNS} runs each, a new process per run",
        f"baseline (the replay's Spark session, one table written and read): {baseline:.1f} s",
        f"cdclake replay: {plain:.1f} s = {plain / baseline:.1f}x the baseline; "
        f"target {TARGET_S:.0f} s: {'met' if plain <= TARGET_S else 'not met'}",
        f"cdclake replay --self-checks: {checked:.1f} s = {checked / baseline:.1f}x the baseline",
    ])


if __name__ == "__main__":
    main()
