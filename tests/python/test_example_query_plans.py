"""No query of the project evaluates a Python UDF twice within one Spark stage.

At a million writes, the round-trip test's plan evaluated `cdc_json_members` twice in one stage
(once for an `isnotnull` filter the optimizer inferred from a join key and pushed below the
join, once for the projection), and on PySpark 3.5.9 that pair gave different rows from run to
run on the same tables. The session turns constraint propagation off (cdclake/spark.py); this
test plans every compiled model and dbt test of the example build and fails on any stage that
still evaluates one Python UDF twice.
"""
from __future__ import annotations

STAGE_BOUNDARIES = ("ShuffleExchangeExec", "BroadcastExchangeExec")


def _scala_list(seq) -> list:
    return [seq.apply(index) for index in range(seq.size())]


def udfs_evaluated_twice_in_a_stage(plan) -> set[str]:
    """The Python UDFs a physical plan evaluates in two nodes of one stage, one above the other
    (a task runs both on the same rows; exchanges cut stages)."""
    repeated: set[str] = set()

    def walk(node, above: frozenset) -> None:
        here = above
        if node.getClass().getSimpleName().endswith("EvalPythonExec"):
            names = {udf.name() for udf in _scala_list(node.udfs())}
            repeated.update(names & above)
            here = above | names
        for child in _scala_list(node.children()):
            walk(child, frozenset() if child.getClass().getSimpleName() in STAGE_BOUNDARIES else here)

    if plan.getClass().getSimpleName() == "AdaptiveSparkPlanExec":
        plan = plan.inputPlan()
    walk(plan, frozenset())
    return repeated


def twice_in_a_stage(spark, sql: str) -> list[str]:
    return sorted(udfs_evaluated_twice_in_a_stage(spark.sql(sql)._jdf.queryExecution().executedPlan()))


ROUND_TRIP = "test.scylla_cdc_lake.assert_log_replays_to_base_state"


def test_no_stage_evaluates_a_python_udf_twice(example_build, example_compiled_sql):
    assert ROUND_TRIP in example_compiled_sql
    repeated = {
        node: udfs for node, sql in example_compiled_sql.items() if (udfs := twice_in_a_stage(example_build, sql))
    }
    assert not repeated, "\n".join(f"{node}: {udfs}" for node, udfs in repeated.items())


def test_the_check_sees_an_inferred_filter_evaluate_a_udf_twice(example_build, example_compiled_sql):
    round_trip = example_compiled_sql[ROUND_TRIP]
    example_build.conf.set("spark.sql.constraintPropagation.enabled", "true")
    try:
        assert "cdc_json_members" in twice_in_a_stage(example_build, round_trip)
    finally:
        example_build.conf.set("spark.sql.constraintPropagation.enabled", "false")
