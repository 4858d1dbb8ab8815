"""The findings of the input checks (dbt tests tagged ``input_check``, tests/dbt/inputs): each
failing row is one problem, a text naming the input table and row. A failing check stops the
build before any log is written; ``cdclake`` then prints the problems themselves."""
from __future__ import annotations

SHOWN_PER_CHECK = 10


def failed_input_checks(run_result) -> list:
    """The input-check tests that failed in a dbt run (a ``dbtRunnerResult``)."""
    results = getattr(getattr(run_result, "result", None), "results", None) or []
    return [r.node for r in results
            if str(r.status) in ("fail", "error") and "input_check" in (getattr(r.node, "tags", None) or [])]


def input_problems(spark, run_result, shown: int = SHOWN_PER_CHECK) -> list[str]:
    """The problem texts the failed input checks stored (at most ``shown`` per check, then a
    count of the rest)."""
    problems = []
    for node in failed_input_checks(run_result):
        relation = getattr(node, "relation_name", None)
        if not relation:
            problems.append(f"input check {node.name} failed (its rows were not stored)")
            continue
        frame = spark.table(relation.replace("`", ""))
        rows = frame.orderBy("problem").limit(shown + 1).collect()
        problems += [row.problem for row in rows[:shown]]
        if len(rows) > shown:
            problems.append(f"... and {frame.count() - shown} more problems found by {node.name}")
    return problems


def print_input_problems(spark, run_result, out) -> bool:
    """Print the input problems of a failed run to ``out``; whether there were any."""
    problems = input_problems(spark, run_result)
    if problems:
        print("error: invalid inputs; the build stopped before writing any log:", file=out)
        for problem in problems:
            print(f"  {problem}", file=out)
    return bool(problems)
