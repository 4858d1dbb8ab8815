"""End to end: a synthetic workload of N writes through the input contract (_pipeline_steps.py),
built by `cdclake build`, each build a new process as a scheduler runs it, against a copy job
that reads the same atoms and writes them back, measured in the same run and table format:

1. load N writes, and the copy job (one process);
2. the full build (`cdclake build --full-refresh`, every output and gate);
3. N/100 more writes, and the incremental build of them (the 1% build);
4. a build with no input moved (it runs no node);
5. the writes' table touched (a new Delta version, no writes), and the build of that empty batch
   (no dbt: the inputs hold the rows they held);
6. one more write and its build: a batch's fixed cost, the floor under any incremental build;
7. history independence: a second warehouse with N/10 writes, built in full, then the same N/100
   writes and their incremental build: step 3's batch after N writes against it after N/10.

    python bench_pipeline.py [WRITES]        (default 100000; or BENCH_WRITES)

BENCH_EXCLUDE (dbt node selectors, space-separated) leaves nodes out of every build; BENCH_SKIP_HISTORY=1
leaves out step 7.

Prints every figure as a ratio to the copy job, against issue 52's targets at a million writes
(full build <= 25x, 1% incremental build <= 10x, empty batch <= 5x, the batch after N writes
<= 1.25x the same batch after N/10), each with its task seconds from Spark's event log (every
process writes one into target/bench/pipeline/event_log: bench/_event_log.py), what each new
process spent before its first node, the audit's counts and the slowest models from dbt's
run_results.json (kept per build in target/bench/pipeline).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

from _common import BENCH_DIR, report
from _event_log import event_log_conf_dir, task_seconds

WRITES = int(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("BENCH_WRITES", 100_000))
TARGETS_X = {"full": 25.0, "incremental": 10.0, "empty batch": 5.0}     # issue 52, at a million writes
HISTORY_TARGET = 1.25
WORK = BENCH_DIR / "pipeline"
EVENT_LOG_DIR = WORK / "event_log"
STEPS = Path(__file__).with_name("_pipeline_steps.py")


def scratch_project(folder: Path) -> Path:
    """A copy of the dbt project (without generated models) and its profiles, for a warehouse's builds."""
    from cdclake.replay import prepare_scratch_project
    from cdclake.settings import PROFILES_DIR

    project = prepare_scratch_project(folder)
    shutil.rmtree(project / "profiles", ignore_errors=True)
    shutil.copytree(PROFILES_DIR, project / "profiles")
    return project


class Warehouse:
    """One benchmark warehouse: its folder (spark-warehouse, metastore, dbt's artifacts), its
    scratch project, and every process run on it (environment: the event log, both folders)."""

    def __init__(self, name: str, conf_dir: Path):
        self.name = name
        self.folder = WORK / name
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        self.project = scratch_project(self.folder / "scratch")
        self.env = {**os.environ, "CDCLAKE_TARGET_DIR": str(self.folder / "target"),
                    "CDCLAKE_PROJECT_DIR": str(self.project), "SPARK_CONF_DIR": str(conf_dir)}
        self.env.pop("CDCLAKE_TARGET", None)

    def step(self, *args: str) -> dict:
        done = subprocess.run([sys.executable, str(STEPS), args[0], str(self.folder / "target"), *args[1:]],
                              env=self.env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"step {' '.join(args)} on {self.name} failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def build(self, *extra: str) -> dict:
        """`cdclake build` in a new process: its wall-clock window, and when its first node started."""
        excluded = os.environ.get("BENCH_EXCLUDE", "").split()
        command = [sys.executable, "-m", "cdclake.cli", "build", *extra, "--log-level", "warn",
                   *(["--exclude", *excluded, "tag:whole_table"] if excluded else [])]
        start = time.time()
        done = subprocess.run(command, env=self.env, capture_output=True, text=True)
        end = time.time()
        if done.returncode != 0:
            sys.exit(f"cdclake build {' '.join(extra)} on {self.name} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
        run_results = self.folder / "target" / "run_results.json"
        # a build that ran no dbt (its inputs hold the rows of the last build's) leaves the last one's
        ran = run_results.exists() and run_results.stat().st_mtime >= start
        results = json.loads(run_results.read_text())["results"] if ran else []
        starts = [datetime.fromisoformat(t["started_at"].replace("Z", "+00:00")).timestamp()
                  for r in results for t in r["timing"]]
        return {"window": (start, end), "seconds": end - start, "nodes": len(results),
                "before_first_node": (min(starts) - start) if starts else None, "results": results}


def slowest(results: list[dict], count: int = 8) -> str:
    times = sorted(((r["unique_id"].split(".", 2)[-1], r["execution_time"]) for r in results), key=lambda x: -x[1])
    return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in times[:count])


def main() -> None:
    conf_dir = event_log_conf_dir(EVENT_LOG_DIR, WORK / "spark_conf")
    main_warehouse = Warehouse("warehouse", conf_dir)
    loaded = main_warehouse.step("load", str(WRITES))
    os.environ["CDCLAKE_TABLE_FORMAT"] = loaded["format"]
    copy = loaded["copy_s"]
    windows = {"copy": tuple(loaded["copy_window"])}
    builds = {"full": main_warehouse.build("--full-refresh")}
    batch = max(1, WRITES // 100)
    main_warehouse.step("append", str(WRITES), str(batch))
    builds["incremental"] = main_warehouse.build()
    builds["no input moved"] = main_warehouse.build()
    main_warehouse.step("touch")
    builds["empty batch"] = main_warehouse.build()
    main_warehouse.step("append", str(WRITES + batch), "1")
    builds["one-write batch"] = main_warehouse.build()
    audits = main_warehouse.step("audit")["audits"]
    if [a["input_writes"] for a in audits] != [WRITES, batch, 1]:
        sys.exit(f"the audit counts {[a['input_writes'] for a in audits]} writes, not {[WRITES, batch, 1]}")
    history = WRITES // 10
    if not os.environ.get("BENCH_SKIP_HISTORY") and history > batch:
        shorter = Warehouse("warehouse_history", conf_dir)
        shorter.step("load", str(history))
        builds[f"full after {history:,}"] = shorter.build("--full-refresh")
        shorter.step("append", str(history), str(batch))
        builds[f"incremental after {history:,}"] = shorter.build()
    windows.update({name: build["window"] for name, build in builds.items()})
    tasks = task_seconds(EVENT_LOG_DIR, windows)
    copy_tasks = max(tasks["copy"][0], 0.001)

    def figure(name: str) -> str:
        build = builds[name]
        run, cpu = tasks[name]
        before = build["before_first_node"]
        return (f"{build['seconds']:.1f} s = {build['seconds'] / copy:.1f}x the copy job; "
                f"task seconds {run:,.1f} ({cpu:,.1f} CPU) = {run / copy_tasks:.1f}x; {build['nodes']} nodes"
                + (f"; {before:.1f} s before the first node" if before is not None else " (no dbt)"))

    def verdict(name: str, ratio: float, target: float) -> str:
        return f"{name} {ratio:.1f}x <= {target}x {'met' if ratio <= target else 'NOT met'}"

    lines = [
        f"{WRITES:,} writes, {loaded['atoms']:,} atoms, {loaded['format']} tables, {loaded['cores']} cores; "
        f"every build a new `cdclake build` process",
        f"copy job (read and rewrite the atoms): {copy:.1f} s, task seconds {tasks['copy'][0]:.1f} ({tasks['copy'][1]:.1f} CPU)",
        f"full build (--full-refresh, every output and gate): {figure('full')}",
        f"incremental build of {batch:,} more writes: {figure('incremental')}",
        f"a build with no input moved (no node runs): {builds['no input moved']['seconds']:.1f} s",
        f"a build of an empty batch (the writes' table touched, no new writes): {figure('empty batch')}",
        f"a batch of one write (a batch's fixed cost): {figure('one-write batch')}",
        f"the 1% build's fixed part (the one-write batch's time, at most its own): "
        f"{min(builds['one-write batch']['seconds'], builds['incremental']['seconds']):.1f} s of "
        f"{builds['incremental']['seconds']:.1f} s",
    ]
    targets = [verdict(name, builds[name]["seconds"] / copy, target) for name, target in TARGETS_X.items()]
    if f"incremental after {history:,}" in builds:
        after_short = builds[f"incremental after {history:,}"]
        lines.append(f"full build of {history:,} writes (a second warehouse): {figure(f'full after {history:,}')}")
        lines.append(f"the same {batch:,}-write batch after {history:,} writes: {figure(f'incremental after {history:,}')}")
        targets.append(verdict(f"the batch after {WRITES:,} writes against after {history:,}",
                               builds["incremental"]["seconds"] / after_short["seconds"], HISTORY_TARGET))
    lines.append("targets (issue 52, at a million writes): " + "; ".join(targets))
    for audit in audits:
        lines.append(f"audit, batch {audit['batch_id']}: "
                     + ", ".join(f"{k} {v:,}" for k, v in audit.items() if k != "batch_id"))
    for name in ("full", "incremental", "one-write batch"):
        lines.append(f"slowest nodes, {name}: {slowest(builds[name]['results'])}")
        (WORK / f"run_results_{name.replace(' ', '_')}.json").write_text(json.dumps(builds[name]["results"]))
    lines.append(f"each build's run_results: {WORK}/run_results_*.json; event logs: {EVENT_LOG_DIR}")
    report("end-to-end pipeline", lines)


if __name__ == "__main__":
    main()
