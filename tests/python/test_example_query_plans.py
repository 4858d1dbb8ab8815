"""No query of the project evaluates a Python UDF twice within one Spark stage.

At a million writes, the round-trip test's plan evaluated `cdc_json_members` twice in one stage
(once for an `isnotnull` filter the optimizer inferred from a join key and pushed below the
join, once for the projection), and on PySpark 3.5.9 that pair gave different rows from run to
run on the same tables. The session turns constraint propagation off (cdclake/session/spark.py); this
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


# ---- the fused stages: each Python UDF evaluated once per row it is for -----------------------

def python_rows_by_udf(spark, sql: str) -> dict[str, int]:
    """Run a query (the example's few rows collected) and return, per Python UDF, the rows its evaluation nodes
    sent to Python, summed over every node of the executed plan that evaluates it."""
    frame = spark.sql(sql)
    frame.collect()     # runs the frame's own query execution (a write would plan a new one)
    plan = frame._jdf.queryExecution().executedPlan()
    rows: dict[str, int] = {}

    def walk(node) -> None:
        name = node.getClass().getSimpleName()
        if name == "AdaptiveSparkPlanExec":
            node = node.finalPhysicalPlan()
        elif name.endswith("QueryStageExec"):
            node = node.plan()
        elif name == "ReusedExchangeExec":
            node = node.child()
        if node.getClass().getSimpleName().endswith("EvalPythonExec"):
            sent = node.metrics().apply("pythonNumRowsReceived").value()
            # one node evaluates all its UDFs on the rows it sends (a UDF called twice in it counts once)
            for name in {udf.name() for udf in _scala_list(node.udfs())}:
                rows[name] = rows.get(name, 0) + sent
        for child in _scala_list(node.children()):
            walk(child)

    walk(plan)
    return rows


def test_the_batch_stage_evaluates_each_udf_once_per_atom_or_distinct_key(example_build, example_compiled_sql):
    """int_writes_validated checks each atom once (its six checks in one pass, the values the SQL
    fast path vouches for reaching Python as nulls), and tokenizes each distinct partition key
    once; int_batch_atoms sorts each distinct clustering key and bound once per lookup."""
    spark = example_build
    validated = example_compiled_sql["model.scylla_cdc_lake.int_writes_validated"]
    batch_atoms = example_compiled_sql["model.scylla_cdc_lake.int_batch_atoms"]
    atoms = spark.table("cdc_input.base_mutations").count()
    partitions = spark.sql("select count(distinct keyspace_name, table_name, partition_key) "
                           "from cdc_intermediate.int_writes_validated where token is not null").first()[0]
    rows = python_rows_by_udf(spark, validated)
    assert rows["cdc_value_error"] == rows["cdc_key_error"] == atoms, rows
    assert rows["cdc_token_of_partition_key"] == rows["cdc_json_members"] == partitions, rows
    keys = spark.sql("""
        select count(*) from (
            select distinct keyspace_name, table_name, key, bound from (
                select keyspace_name, table_name, if(atom_kind = 'range_tombstone', range_start,
                    if(atom_kind in ('cell', 'row_marker', 'row_tombstone', 'collection_tombstone')
                       and column_kind is distinct from 'static', coalesce(clustering_key, '{}'), null)) as key,
                    if(atom_kind = 'range_tombstone', if(range_start_inclusive, 'start_inclusive', 'start_exclusive'),
                       'row') as bound
                from cdc_intermediate.int_writes_validated
                union all
                select keyspace_name, table_name, if(atom_kind = 'range_tombstone', range_end, null),
                    if(range_end_inclusive, 'end_inclusive', 'end_exclusive')
                from cdc_intermediate.int_writes_validated
            ) as keys
            -- the sort key needs the table's key columns: the keys of known tables
            left semi join cdc_intermediate.int_base_tables_described as tables
                on keys.keyspace_name = tables.keyspace_name and keys.table_name = tables.table_name
        )""").first()[0]
    # one sort-key evaluation per distinct key and bound for each of the two lookups (start, end)
    assert python_rows_by_udf(spark, batch_atoms)["cdc_clustering_sort_key"] == 2 * keys
