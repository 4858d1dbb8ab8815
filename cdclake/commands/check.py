"""``cdclake check``: validate a build's outputs with Great Expectations (GX Core), offline, and
run the project's whole-table checks.

Builds each dataset of cdclake.project.expectations with Spark SQL, validates it with one GX
checkpoint, writes GX's Data Docs (HTML) and prints one line per expectation; then runs the dbt
tests tagged `whole_table` (their cost follows the warehouse's history, so builds leave them
out: selectors.yml), each failing one named with its rows' count.
Exit codes: 0 all pass, 1 an expectation or a check failed, 2 the build's tables are missing (or
a bad argument).
"""
from __future__ import annotations

import os
import shutil
import sys
import warnings
from pathlib import Path

from cdclake.session.warehouse import missing_tables
from cdclake.settings import target_dir

SITE_NAME = "cdclake"
SUITE_PREFIX = "cdclake_check."
EXAMPLES = 5


def _context(docs_dir: Path):
    """An in-memory GX context (no analytics, no progress bars) whose Data Docs go to docs_dir."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(),
        analytics_enabled=False,
        progress_bars=ProgressBarsConfig(globally=False),
        data_docs_sites={SITE_NAME: {
            "class_name": "SiteBuilder",
            "show_how_to_buttons": False,
            "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": str(docs_dir)},
            "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
        }},
    )
    return gx.get_context(mode="ephemeral", project_config=config)


def _validate(context, source, dataset, frame):
    """Run one dataset's suite through its own checkpoint; returns the expectation results."""
    import great_expectations as gx

    batch = source.add_dataframe_asset(dataset.name).add_batch_definition_whole_dataframe("whole")
    suite = context.suites.add(gx.ExpectationSuite(SUITE_PREFIX + dataset.name))
    for expectation in dataset.expectations:
        suite.add_expectation(expectation)
    definition = context.validation_definitions.add(
        gx.ValidationDefinition(name=dataset.name, data=batch, suite=suite))
    checkpoint = context.checkpoints.add(gx.Checkpoint(
        name=dataset.name, validation_definitions=[definition],
        result_format={"result_format": "SUMMARY", "partial_unexpected_count": EXAMPLES,
                       "unexpected_index_column_names": dataset.id_columns},
    ))
    run = checkpoint.run(batch_parameters={"dataframe": frame})
    return [r for suite_result in run.run_results.values() for r in suite_result.results]


def _target(kwargs: dict) -> str:
    if "column" in kwargs:
        return kwargs["column"]
    if "column_A" in kwargs:
        return f"{kwargs['column_A']} = {kwargs['column_B']}"
    return ", ".join(kwargs.get("column_list", []))


def describe(dataset_name: str, result) -> list[str]:
    """Summary lines of one expectation result: PASS/FAIL line, then examples of failing rows."""
    config = result.expectation_config
    label = f"{dataset_name}[{_target(config.kwargs)}] {config.type}"
    if config.kwargs.get("row_condition"):
        condition = config.kwargs["row_condition"]
        label += f" where {condition['column']['name']} {condition['operator']} {condition['parameter']}"
    detail = config.description or ""
    if result.success:
        return [f"  PASS  {label}: {detail}"]
    if result.exception_info and result.exception_info.get("raised_exception"):
        return [f"  FAIL  {label}: {detail}: error: {result.exception_info.get('exception_message')}"]
    stats = result.result or {}
    lines = [f"  FAIL  {label}: {detail}: "
             f"{stats.get('unexpected_count')} of {stats.get('element_count')} rows unexpected"]
    examples = stats.get("partial_unexpected_index_list") or [
        {"value": v} for v in stats.get("partial_unexpected_list", [])]
    for example in examples[:EXAMPLES]:
        lines.append("          e.g. " + ", ".join(f"{k}={v}" for k, v in example.items()))
    return lines


def run_check(spark, docs_dir: Path, only: list[str] | None = None) -> int:
    """Validate the datasets (all, or those named in ``only``), build the Data Docs, print the
    summary; returns the exit code."""
    from cdclake.project.compiled_models import compiled_model_sql
    from cdclake.project.expectations import LOG_ROWS_VIEW, REQUIRED_TABLES, datasets

    selected = [d for d in datasets() if not only or d.name in only]
    unknown = sorted(set(only or []) - {d.name for d in selected})
    if unknown:
        print(f"error: unknown dataset {', '.join(unknown)}; the datasets are "
              f"{', '.join(d.name for d in datasets())}", file=sys.stderr)
        return 2
    missing = missing_tables(spark, REQUIRED_TABLES)
    if missing:
        print(f"error: the build's tables are missing ({', '.join(missing)}): run `cdclake build` first",
              file=sys.stderr)
        return 2
    # the last batch's log rows: a step the build runs fused into cdc_log, its query compiled here
    spark.sql(compiled_model_sql("int_log_rows")).createOrReplaceTempView(LOG_ROWS_VIEW)
    try:
        return _validate_and_check(spark, docs_dir, selected, only)
    finally:
        # a temporary view would show in the catalog of whatever the session runs next (dbt docs)
        spark.catalog.dropTempView(LOG_ROWS_VIEW)


def _validate_and_check(spark, docs_dir: Path, selected: list, only: list[str] | None) -> int:
    """The datasets validated, the Data Docs, the whole-table checks (unless ``only``), the summary."""
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
    shutil.rmtree(docs_dir, ignore_errors=True)
    docs_dir.mkdir(parents=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        context = _context(docs_dir)
        source = context.data_sources.add_spark(SITE_NAME)
        lines, failed, total = [], 0, 0
        for dataset in selected:
            # cached: GX runs several Spark jobs per expectation on the same frame
            frame = spark.sql(dataset.sql).cache()
            rows = frame.count()
            lines.append(f"{dataset.name} ({rows} rows: {dataset.description})")
            for result in _validate(context, source, dataset, frame):
                total += 1
                failed += not result.success
                lines += describe(dataset.name, result)
            frame.unpersist()
        context.build_data_docs(site_names=[SITE_NAME])
    print("\n".join(lines))
    print(f"data docs: {docs_dir / 'index.html'}")
    what = "expectations"
    if only is None:
        checks, checks_failed = run_whole_table_checks()
        total, failed, what = total + checks, failed + checks_failed, "expectations and checks"
    if failed:
        print(f"cdclake check: {failed} of {total} {what} FAILED")
        return 1
    print(f"cdclake check: all {total} {what} passed")
    return 0


def run_whole_table_checks() -> tuple[int, int]:
    """``dbt test --select tag:whole_table`` on the project: prints one line per check; returns
    (checks, failed checks)."""
    from cdclake.project import dbt

    result = dbt.invoke_result(["test", "--select", "tag:whole_table", "--log-level", "warn"])
    # the results hold the project's on-run-start/-end hooks too: only the tests are checks
    outcomes = [(r.node.name, r.status, r.failures) for r in (result.result.results if result.result else [])
                if r.node.resource_type == "test"]
    for name, status, failures in outcomes:
        word = "PASS" if str(status) == "pass" else "FAIL"
        print(f"  {word}  whole-table check {name}" + ("" if word == "PASS" else f": {failures} rows ({status})"))
    failed = sum(str(status) != "pass" for _, status, _ in outcomes) + (0 if result.success or outcomes else 1)
    return len(outcomes), failed


def configure(parser) -> None:
    parser.description = __doc__.splitlines()[0]
    parser.add_argument("--docs-dir", type=Path, default=None,
                        help="where GX's Data Docs go (default: target/gx/data_docs)")
    parser.add_argument("--only", action="append", metavar="DATASET",
                        help="validate only this dataset (repeatable): log_rows, batch_sequences, "
                             "stream_ids, group_times, write_counts")


def run(args, spark=None) -> int:
    if spark is None:
        from cdclake.session.spark import create_session

        spark = create_session(target_dir())
    docs_dir = (args.docs_dir or target_dir() / "gx" / "data_docs").resolve()
    return run_check(spark, docs_dir, args.only)
