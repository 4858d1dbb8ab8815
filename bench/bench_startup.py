"""What a user waits for on the example, each command a new process on a fresh warehouse
(Delta, the default set-up), against the same commands of another checkout measured in the same
run (the baseline: an earlier commit checked out beside this one, with its own `make setup`):

1. `cdclake load example`;
2. `cdclake build` of the example in a fresh warehouse (issue 65's target: <= 40 s), with the time
   before its first node (dbt's run_results.json);
3. `cdclake build` again, no input moved;
4. `cdclake status` on the built warehouse (target <= 3 s);
5. the writes' table touched (a commit of metadata alone, as bench_pipeline's empty batch), and
   the build of that empty batch;
6. `cdclake load cql` of one write, and the build of that one-write batch (an incremental build's
   fixed cost).

    python bench_startup.py [BASELINE_CHECKOUT] [RUNS]     (RUNS: default 1; each figure the fastest)

Prints each command's seconds, the baseline's beside it and their ratio. Each checkout runs its
own `.venv/bin/cdclake`, so that a checkout is measured with its own code. The warehouses
(target/bench/startup/ours-0, baseline-0) hold the same inputs: `compare_outputs.py` compares them.
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

HERE = Path(__file__).resolve().parents[1]
WORK = BENCH_DIR / "startup"
TARGETS_S = {"build (fresh warehouse)": 40.0, "status": 3.0}
ONE_WRITE = WORK / "one_write.cql"
ONE_WRITE_NOW_US = 1_700_000_100_000_000       # after the example's last write: both warehouses compare equal
ONE_WRITE_CQL = ("UPDATE shop.orders SET status = 'shipped' WHERE customer_id = 5b6962dd-3f90-4c93-8f61-eabfa4a803e2 "
                 "AND order_id = 50554d6e-29bb-11e5-b345-feff819cdc9f;\n")
TOUCH = ("from cdclake.session.spark import create_session\n"
         "from cdclake.settings import target_dir\n"
         "create_session(target_dir()).sql(\"alter table cdc_input.base_mutations set tblproperties "
         "('cdclake.bench.touched' = '{n}')\")\n"
         "try:\n    from cdclake.session.target_lock import finished\nexcept ImportError:\n    pass\n"
         "else:\n    finished()        # as a cdclake command that ended well\n")


def run(checkout: Path, target: Path, *args: str) -> float:
    """Seconds of ``cdclake ARGS`` of ``checkout`` on the warehouse ``target``; stops on a failure."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CDCLAKE_", "DBT_"))}
    env["CDCLAKE_TARGET_DIR"] = str(target)
    started = time.perf_counter()
    done = subprocess.run([str(checkout / ".venv" / "bin" / args[0]), *args[1:]], cwd=checkout, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{checkout}: {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return seconds


def before_first_node(target: Path, started: float) -> float | None:
    results = json.loads((target / "run_results.json").read_text())["results"]
    starts = [datetime.fromisoformat(t["started_at"].replace("Z", "+00:00")).timestamp()
              for r in results for t in r["timing"] if t.get("started_at")]
    return min(starts) - started if starts else None


def measure(checkout: Path, name: str) -> dict[str, float]:
    target = WORK / name
    shutil.rmtree(target, ignore_errors=True)
    figures = {"load example": run(checkout, target, "cdclake", "load", "example")}
    started = time.time()
    figures["build (fresh warehouse)"] = run(checkout, target, "cdclake", "build")
    figures["  of which before the first node"] = before_first_node(target, started)
    figures["build, no input moved"] = run(checkout, target, "cdclake", "build")
    figures["status"] = run(checkout, target, "cdclake", "status")
    run(checkout, target, "python", "-c", TOUCH.format(n=time.time()))
    figures["build of an empty batch (writes' table touched)"] = run(checkout, target, "cdclake", "build")
    ONE_WRITE.write_text(ONE_WRITE_CQL)
    figures["load cql, one write"] = run(checkout, target, "cdclake", "load", "cql", str(ONE_WRITE),
                                         "--now", str(ONE_WRITE_NOW_US))
    figures["build of that one-write batch"] = run(checkout, target, "cdclake", "build")
    return figures


def main() -> None:
    baseline = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 and sys.argv[1] else None
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    ours, theirs = {}, {}
    for number in range(runs):             # alternately, so that both see the machine's same hours
        for figures, checkout, name in ((ours, HERE, "ours"), (theirs, baseline, "baseline")):
            if checkout is None:
                continue
            for key, value in measure(checkout, f"{name}-{number}").items():
                if value is not None:
                    figures[key] = min(value, figures.get(key, value))
    lines = [f"{'':48s} {'ours':>8s} {'baseline':>9s} {'ratio':>6s}   target"]
    for key, value in ours.items():
        before = theirs.get(key)
        ratio = f"{value / before:5.2f}x" if before else ""
        target = f"<= {TARGETS_S[key]:g} s: {'met' if value <= TARGETS_S[key] else 'not met'}" if key in TARGETS_S else ""
        shown = f"{before:8.1f}s" if before else ""
        lines.append(f"{key:48s} {value:7.1f}s {shown:>9} {ratio:>6s}   {target}")
    report(f"the example's commands, each a new process, Delta (baseline: {baseline or 'none'})", lines)


if __name__ == "__main__":
    main()
