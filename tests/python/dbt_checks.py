"""A dbt test run as its compiled SQL on the test session: the rows it selects are its failures
(dbt's defaults, which the project's tests keep: `fail_calc` count(*), an error when not 0). A
test that corrupts a relation and expects a check to catch it then pays one query, not a dbt
command (dbt parses the project and plans around each run)."""
from __future__ import annotations

import json
from pathlib import Path


def compiled_checks(run_results: Path | dict) -> dict[str, str]:
    """The compiled SQL of each dbt test a run ran (its run_results.json, or the dict of it): by name."""
    results = json.loads(Path(run_results).read_text()) if isinstance(run_results, (str, Path)) else run_results
    return {r["unique_id"].split(".")[2]: r["compiled_code"] for r in results["results"]
            if r["unique_id"].startswith("test.") and r.get("compiled_code")}


def check_sql(checks: dict[str, str], name: str) -> str:
    """The compiled SQL of the one test named ``name`` (a singular test), or whose name starts
    with ``name`` followed by its arguments (a generic test's: ``stream_in_tablet``)."""
    found = [sql for test, sql in checks.items() if test == name or test.startswith(name + "_")]
    assert len(found) == 1, f"{len(found)} tests named {name} among {sorted(checks)}"
    return found[0]


def passes(spark, sql: str) -> bool:
    """Whether the check ``sql`` (a test's failing rows) finds none."""
    return spark.sql(f"select 1 from ({sql}) as failures limit 1").count() == 0
