"""The SQL models themselves against vectors_math.json: write admission (cdc_metadata_get_stream,
both rules) and the V1-to-V2 rewrite selection (v1_rewrite_selection).

Each is compiled by dbt as in a build (the admission: the macros int_change_groups_admitted
judges each change group with, on a query of one vector's inputs; the rewrite selection: the
model, its input relations then pointed at small views holding one vector's inputs), and the
compiled SQL runs on the session's Spark.
"""
from __future__ import annotations

import pytest

from cdclake.project.compiled_models import compiled_inline_sql, compiled_model_sql, point_inputs
from cdclake.settings import target_dir

COMPILED = target_dir() / "compiled" / "scylla_cdc_lake" / "models"
# a change group judged as int_change_groups_admitted judges it, with the same macros
ADMISSION_SQL = """
with judged as (
    select
        groups.change_ts,
        groups.now_us,
        {{ cdc_admission_verdict('groups.change_ts', 'groups.now_us', 'generations') }} as verdict,
        {{ cdc_generation_at('generations.generation_timestamps', 'groups.change_ts') }} as operating_generation_us,
        {{ cdc_generation_at('generations.generation_timestamps', 'groups.now_us') }} as now_generation_us
    from vector_change_groups as groups
    cross join {{ cdc_known_generations('vector_generations') }} as generations
)
select
    verdict,
    if(verdict = 'ok', operating_generation_us, null) as generation_ts_us,
    {{ cdc_admission_error_class('verdict') }} as error_class,
    {{ cdc_admission_error_text(
        'verdict', 'change_ts', 'now_us', "if(verdict = 'earlier', now_generation_us, operating_generation_us)"
    ) }} as error_text
from judged
"""
REWRITE_MODEL = COMPILED / "marts" / "generations" / "cdc_v1_rewrite_selection.sql"

# message_kind in the vectors -> our verdict
VERDICTS = {
    "from the future": "future",
    "from the past": "past",
    "earlier generation than the currently used one": "earlier",
    "could not find any CDC stream for timestamp": "not_found",
    "could not find any CDC stream (current time)": "not_found_old",
    "generation known but not retrieved": "unretrieved",
}
ERROR_CLASSES = {"invalid_request": "InvalidRequest", "runtime_error": "ServerError"}
MESSAGE_STARTS = {
    "future": 'cdc: attempted to get a stream "from the future"',
    "past": 'cdc: attempted to get a stream "from the past"',
    "earlier": "cdc: attempted to get a stream from an earlier generation than the currently used one.",
    "not_found": "cdc::metadata::get_stream: could not find any CDC stream for timestamp ",
    "not_found_old": "cdc::metadata::get_stream: could not find any CDC stream (current time: ",
    "unretrieved": "cdc: attempted to get a stream from a generation that we know about, but weren't able to retrieve",
}


def compiled_sql(spark, model_path, variables: str) -> str:
    return compiled_model_sql(model_path.stem, variables)


def vectors_of(math_vectors, function):
    return [v for v in math_vectors if v["function"] == function]


@pytest.fixture(scope="module")
def admission_sql(spark):
    return {rule: compiled_inline_sql(ADMISSION_SQL, f"{{cdc_admission_rule: {rule}}}") for rule in ("current", "pre_2024")}


@pytest.mark.parametrize("rule, expected_key", [("current", "since_2024_pr17134"), ("pre_2024", "before_2024")])
def test_admission_vectors(spark, admission_sql, math_vectors, rule, expected_key):
    vectors = vectors_of(math_vectors, "cdc_metadata_get_stream")
    assert len(vectors) == 22
    for vector in vectors:
        inputs, expected = vector["inputs"], vector["expected"][expected_key]
        assert inputs["leeway_us"] == 5_000_000
        spark.createDataFrame([(inputs["write_ts_us"], inputs["now_us"])], "change_ts bigint, now_us bigint") \
            .createOrReplaceTempView("vector_change_groups")
        spark.createDataFrame(
            [(int(ts), 0 if state.startswith("prepared only") else 1) for ts, state in inputs["generations_us"].items()],
            "generation_ts_us bigint, range_count bigint",
        ).createOrReplaceTempView("vector_generations")
        (row,) = spark.sql(admission_sql[rule]).collect()
        label = f"{vector['id']} ({inputs['scenario']}, {rule})"
        if expected["result"] == "ok":
            assert (row.verdict, row.generation_ts_us) == ("ok", expected["generation_ts_us"]), label
        else:
            verdict = VERDICTS[expected["message_kind"]]
            assert (row.verdict, row.error_class) == (verdict, ERROR_CLASSES[expected["result"]]), label
            assert row.error_text.startswith(MESSAGE_STARTS[verdict]), label


def test_v1_rewrite_selection_vectors(spark, math_vectors):
    sql = point_inputs(compiled_sql(spark, REWRITE_MODEL, "{}"), {
        "stg_cdc_input__generations": "vector_v1_generations",
        "int_base_tables_described": "vector_log_tables",
        "stg_cdc_input__base_mutations": "vector_clock",
    })
    vectors = vectors_of(math_vectors, "v1_rewrite_selection")
    assert len(vectors) == 6
    for vector in vectors:
        inputs = vector["inputs"]
        spark.createDataFrame([(ts,) for ts in inputs["v1_generation_ts_ms"]], "generation_ts_ms bigint") \
            .createOrReplaceTempView("vector_v1_generations")
        spark.createDataFrame(
            [(True, True, t["ttl_s"], t["creation_ms"]) for t in inputs["cdc_log_tables"]],
            "cdc_enabled boolean, is_latest_version boolean, cdc_ttl_seconds bigint, cdc_log_created_ms bigint",
        ).createOrReplaceTempView("vector_log_tables")
        spark.createDataFrame([(inputs["now_ms"] * 1000,)], "coordinator_now_us bigint") \
            .createOrReplaceTempView("vector_clock")
        selected = sorted(r.generation_ts_ms for r in spark.sql(sql).collect())
        expected = vector["expected"]["rewrite_ts_ms"]
        if isinstance(expected, str):          # "nothing (mark rewritten, no CDC tables)"
            assert expected.startswith("nothing"), vector["id"]
            expected = []
        assert selected == expected, vector["id"]
