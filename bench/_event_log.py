"""Spark's event logs of a benchmark's processes: how many task seconds each timed phase ran.

On 2 cores a build's wall time says little about its work: its nodes overlap on the dbt threads
and wait for the cores. The tasks' run time (what the task slots were held for) and their CPU
time, summed over the tasks launched inside a phase's wall-clock window, are the work itself;
the copy job's are its baseline. Every process of a benchmark writes its own log into one folder.
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


def event_log_conf_dir(folder: Path, conf_dir: Path) -> Path:
    """A Spark configuration folder (``SPARK_CONF_DIR``) whose spark-defaults.conf has every
    process started with it write its event log under ``folder`` (emptied first)."""
    conf_dir.mkdir(parents=True, exist_ok=True)
    settings = event_log_conf(folder)
    (conf_dir / "spark-defaults.conf").write_text("".join(f"{key} {value}\n" for key, value in settings.items()))
    return conf_dir


def task_seconds(folder: Path, windows: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """{phase: (task run seconds, task CPU seconds)} of the tasks launched in each phase's
    (start, end) window, in seconds since the epoch, over every event log in ``folder``."""
    totals = {name: [0.0, 0.0] for name in windows}
    for log in sorted(folder.iterdir()):
        with log.open() as events:
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
