"""Spark's event log of a benchmark session: how many task seconds each timed phase ran.

On 2 cores a build's wall time says little about its work: its nodes overlap on the dbt threads
and wait for the cores. The tasks' run time (what the task slots were held for) and their CPU
time, summed over the tasks launched inside a phase's wall-clock window, are the work itself;
the copy job's are its baseline.
"""
from __future__ import annotations

import json
from pathlib import Path


def event_log_conf(folder: Path) -> dict[str, str]:
    """The session settings that write Spark's event log under ``folder`` (emptied first)."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    return {"spark.eventLog.enabled": "true", "spark.eventLog.dir": folder.resolve().as_uri()}


def task_seconds(folder: Path, windows: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """{phase: (task run seconds, task CPU seconds)} of the tasks launched in each phase's
    (start, end) window, in seconds since the epoch. Spark flushes its event log as each stage
    completes, so the tasks of every finished stage are there while the session runs."""
    totals = {name: [0.0, 0.0] for name in windows}
    logs = sorted(folder.iterdir(), key=lambda path: path.stat().st_mtime)
    with logs[-1].open() as events:
        for line in events:
            if '"SparkListenerTaskEnd"' not in line:
                continue
            event = json.loads(line)
            launched = event["Task Info"]["Launch Time"] / 1000
            metrics = event.get("Task Metrics") or {}
            for name, (start, end) in windows.items():
                if start <= launched <= end:
                    totals[name][0] += metrics.get("Executor Run Time", 0) / 1000
                    totals[name][1] += metrics.get("Executor CPU Time", 0) / 1e9
    return {name: (run, cpu) for name, (run, cpu) in totals.items()}
