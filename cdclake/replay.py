"""``cdclake replay``: CQL statements in, ScyllaDB CDC log rows out.

The CQL front door turns the script into base-mutation atoms and base-table schemas; replay
writes them, with the CDC generations, as the input tables of a scratch copy of the dbt
project in a scratch warehouse, runs ``dbt build`` there on embedded Spark, and reads back the
log tables, the rejected writes and the write audit.
"""
from __future__ import annotations

import contextlib
import logging
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from cdclake import output, settings
from cdclake.generations import generation_tables, tablet_streams
from cdclake.generations.generation_tables import GenerationTables
from cdclake.load import inputs
from cdclake.logschema import keyspace_user_types, log_column_types
from cdclake.project import dbt, log_models, parse_state
from cdclake.project.generated import generated_dir, write_udf_macros
from cdclake.project.input_problems import input_problems
from cdclake.project.project_files import PROJECT_PARTS
from cdclake.session.target_lock import hold
from cdclake.settings import PROJECT_DIR, target_dir

log = logging.getLogger("cdclake")

# what a replay reads back (the log tables, the rejected writes, the audit), with what they are
# built from. The input checks test what cdclake wrote there, so they run with the self-checks,
# as in every build: the schemas and the log models come from the CQL front door, which refused
# what ScyllaDB refuses, and the default generations from cdclake/generations/vnodes.py (the base-schema
# check held a three-statement replay's critical path, some 4 s, the generations' check a core
# beside it). Generations a user gives (--generations) are checked (USER_INPUT_CHECK): a bad row
# stops the build, named.
REPLAY_SELECTION = ["+tag:" + log_models.LOG_TABLE_TAG, "+cdc_rejected_writes", "+cdc_write_audit"]
USER_INPUT_CHECK = "assert_generations_are_valid"
DEFAULT_GENERATION_AGE_MS = 3600 * 1000


@dataclass
class ReplayResult:
    log_rows: list[dict] = field(default_factory=list)            # corpus-encoded, ordered
    log_columns: dict[str, list[str]] = field(default_factory=dict)   # table -> column order
    log_column_types: dict[str, dict[str, str]] = field(default_factory=dict)   # table -> column -> CQL type
    consumer_rows: dict[str, list[dict]] = field(default_factory=dict)   # `ks.t_state|history|changes` -> rows
    log_cells: list[dict] = field(default_factory=list)   # self_checks: cdc_log's rows (long form, JSON values)
    schema: tuple = ((), (), ())                                  # the tables, columns and types replayed
    rejected_writes: list[dict] = field(default_factory=list)
    statement_errors: list = field(default_factory=list)
    conditional_results: list = field(default_factory=list)      # the LWTs' [applied] results
    descriptions: list = field(default_factory=list)             # DESCRIBE TABLE outputs
    audit: dict = field(default_factory=dict)
    dbt_succeeded: bool = True
    input_problems: list[str] = field(default_factory=list)     # why the build stopped, if the inputs were invalid


def now_micros() -> int:
    return time.time_ns() // 1000


def prepare_scratch_project(scratch: Path) -> Path:
    """A copy of the dbt project with no generated models under ``scratch/project``, and dbt's
    partial-parse state of that copy (cdclake/project/parse_state.py): a build that then writes its log
    models has dbt parse only those. The state of an earlier build there goes: its log models and
    exposures are not this one's, and dbt 1.11 fails on exposures whose models vanished."""
    project = scratch / "project"
    (project / parse_state.STATE_FILE).unlink(missing_ok=True)
    if project.exists():
        for part in PROJECT_PARTS:
            path = project / part
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()
    for part in PROJECT_PARTS:
        source = PROJECT_DIR / part
        if source.is_dir():
            shutil.copytree(source, project / part)
        else:
            (project / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, project / part)
    log_models.write_log_models(project, [], columns=[], types=[])
    write_udf_macros(generated_dir(project))
    parse_state.restore_or_parse(project, PROJECT_PARTS)
    return project


def default_generations(now_us: int) -> GenerationTables:
    """One node, 256 vnodes, 2 shards, ignore_msb 12, operating since an hour before ``now``."""
    from cdclake.generations.vnodes import default_single_node_generation

    generation_ts_ms = now_us // 1000 - DEFAULT_GENERATION_AGE_MS
    return GenerationTables.from_entries([(generation_ts_ms, default_single_node_generation(generation_ts_ms))])


def replay_tablet_streams(tables, generations: Path | GenerationTables | None, now_us: int) -> list[tuple]:
    """The stream sets of the script's tablets tables: a seed-layout folder's ``tablet_streams.csv``,
    or from the cluster history given as ``generations`` (its nodes and its tablets section), else
    from the default cluster's one node."""
    if not any(table.uses_tablets for table in tables):
        return []
    if isinstance(generations, Path) and (Path(generations) / "tablet_streams.csv").is_file():
        return tablet_streams.read_csv(Path(generations) / "tablet_streams.csv")     # a seed-layout folder
    if isinstance(generations, Path) and generations.suffix.lower() in (".yml", ".yaml"):
        from cdclake.generations.cluster_history import load_cluster_history

        history = load_cluster_history(generations)
    else:
        history = tablet_streams.single_node_cluster(now_us // 1000 - DEFAULT_GENERATION_AGE_MS)
    return tablet_streams.tablet_stream_rows(history, tables)


def replay_session(workspace: Path):
    """The session a replay runs in: the process's own if it has one (the tests'), else a new one
    on the scratch warehouse ``workspace/warehouse`` with its catalog in memory and Parquet
    tables (``CDCLAKE_TABLE_FORMAT=delta`` set beforehand keeps Delta). Nobody else reads that
    warehouse and the next replay wipes it; the Derby metastore and Delta's per-table commits
    took some 60 of a three-statement replay's 120 s and buy nothing there. Its JVM compiles
    with the quick compiler only (C1): a replay's plans run once on a few rows, and the
    optimizing compiler (C2) took a core for code that never paid back, 3-4 s of a 30 s replay.
    Its code cache is 512 MB: C1's code filled the default one on a long script, and the JVM
    stopped compiling (the test suite's 78-table replay: 304 s, 243 s with the larger cache).
    Like every cdclake command's, it maps the machine's class archive (cdclake/session/jvm_archive.py),
    or writes one. It plans for a few rows (SMALL_DATA_CONF) from the start, the writing of the
    inputs included."""
    from cdclake.session.spark import SMALL_DATA_CONF, create_session

    claim_replay_workspace(workspace)    # with a session in this process, create_session returns it
    return create_session(workspace / "warehouse", app_name="cdclake-replay",
                          conf={"spark.sql.catalogImplementation": "in-memory", **SMALL_DATA_CONF}, small_data=True)


def warehouse_schema(spark, warehouse: Path | None = None) -> tuple[list, list, list]:
    """The schema records (tables, columns, types) loaded into the warehouse ``warehouse`` (its
    ``spark-warehouse`` folder; default: that of the target folder), read from its files: a
    replay's session has a catalog of its own. Empty lists without them."""
    warehouse = Path(warehouse or settings.current().warehouse_dir or target_dir() / "spark-warehouse")
    return inputs.read_schema_records(spark, warehouse)


def claim_replay_workspace(workspace: Path) -> str:
    """What a replay does before it touches ``workspace`` or dbt parses there; returns the table
    format. Without a Spark session in this process (the tests' keeps its own warehouse and
    format): hold the scratch warehouse for this process, as its session will (target_lock.py:
    a second replay there stops now, before it rewrites the first one's project), and default
    ``CDCLAKE_TABLE_FORMAT`` to Parquet (the models read it)."""
    from pyspark.sql import SparkSession

    if SparkSession.getActiveSession() is None:
        hold(workspace / "warehouse")
        settings.set_table_format("parquet", overwrite=False)
    return settings.table_format()


def parse_replay_project(workspace: Path, script_result) -> tuple[Path, list[str], object]:
    """The scratch project of a replay with the log models of ``script_result``'s tables, its
    log tables, and the project as ``dbt parse`` returned it (None when the parse failed: the
    build parses again and says why). Python and files only, no Spark job: a replay runs it beside
    the start of its Spark session and the writing of its inputs."""
    project = prepare_scratch_project(workspace)
    log_tables = log_models.write_log_models(
        project, script_result.tables, columns=script_result.columns, types=script_result.types
    )
    with contextlib.redirect_stdout(sys.stderr):
        parsed = dbt.invoke_result(["parse", "--log-level", "warn", "--no-write-json"], project_dir=project)
    return project, log_tables, parsed.result if parsed.success else None


def _log_table_rows(spark, table: str, column_types: dict[str, str], udts: dict) -> tuple[list[str], list[dict]]:
    frame = spark.table(table)
    columns = frame.columns
    rows = []
    for record in frame.collect():
        encoded = {"table": table}
        for name in columns:
            encoded[name] = output.encode_value(record[name], column_types.get(name, "text"), udts)
        encoded["cdc$stream_id"] = encoded["cdc$stream_id"][2:] if encoded["cdc$stream_id"] else None
        rows.append(encoded)
    rows.sort(key=lambda r: (
        r["cdc$stream_id"] or "",
        output.cql_order_key(r["cdc$time"], "timeuuid"),
        r["cdc$batch_seq_no"],
    ))
    return columns, rows


def _consumer_table_rows(spark, log_tables: list[str]) -> dict[str, list[dict]]:
    """The rows of the consumer tables of the replayed log tables (``ks.t_state``, ``_history``,
    ``_changes``), as Python values."""
    from cdclake.project.consumer_models import KINDS

    states = {}
    for table in log_tables:
        for kind in KINDS:
            consumer = table[: -len("_scylla_cdc_log")] + "_" + kind
            if spark.catalog.tableExists(consumer):
                states[consumer] = [row.asDict(recursive=True) for row in spark.table(consumer).collect()]
    return states


def build_args(self_checks: bool, users_generations: bool) -> list[str]:
    """The replay's dbt command: every node with ``self_checks``, else REPLAY_SELECTION and, for
    generations the caller gave, their check. A full refresh: the inputs were just replaced, so
    every write is new. No manifest.json (nothing reads a replay's; writing it twice took some
    1.5 s): replay_records writes the run results."""
    args = ["build", "--full-refresh", "--log-level", "warn", "--no-write-json"]
    if not self_checks:
        args += ["--select", *REPLAY_SELECTION, *([USER_INPUT_CHECK] if users_generations else []),
                 "--indirect-selection", "empty"]
    return args


def replay(
    script: str,
    *,
    now_us: int | None = None,
    step_us: int = 1000,
    skew_us: int = 0,
    generations: Path | None = None,
    workspace: Path | None = None,
    self_checks: bool = True,
    **front_door_options,
) -> ReplayResult:
    """Run a CQL script through the CDC pipeline and return the log it produces;
    ``front_door_options`` go to ``run_script`` (e.g. ``enable_compact_storage``), and
    ``self_checks`` to ``replay_records``."""
    from cdclake.cql.interpreter import run_script

    now_us = now_micros() if now_us is None else now_us
    script_result = run_script(script, now_us=now_us, step_us=step_us, skew_us=skew_us, **front_door_options)
    return replay_records(script_result, now_us=now_us, generations=generations, workspace=workspace,
                          self_checks=self_checks)


def replay_records(
    script_result,
    *,
    now_us: int,
    generations: Path | GenerationTables | None = None,
    workspace: Path | None = None,
    self_checks: bool = True,
) -> ReplayResult:
    """Run mutation atoms and schema records (a ScriptResult) through the CDC pipeline;
    ``generations`` as for ``replay``, or the generation tables themselves. ``self_checks``:
    ``dbt build`` the whole project, every data test included (the round trip, the audit's
    sums); without them, only the models a replay reads back and the check of ``generations``
    when given (build_args)."""
    from cdclake.session.spark import small_data, start_python_worker

    workspace = workspace or target_dir() / "replay"
    table_format = claim_replay_workspace(workspace)
    # dbt parses the scratch project (some 6 s of Python: dbt's imports, the log models) while
    # the JVM starts and the inputs are written, and a Python worker starts beside them
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="cdclake-replay") as background:
        parsing = background.submit(parse_replay_project, workspace, script_result)
        spark = replay_session(workspace)
        python_worker = background.submit(start_python_worker, spark)
        if isinstance(generations, GenerationTables):
            generation_input = generations
        else:
            generation_input = generation_tables.from_path(generations) if generations else default_generations(now_us)
        inputs.write_inputs(
            spark,
            atoms=script_result.atoms,
            tables=script_result.tables,
            columns=script_result.columns,
            types=script_result.types,
            table_format=table_format,
        )
        generation_tables.load(spark, generation_input, table_format)
        tablet_streams.load(spark, replay_tablet_streams(script_result.tables, generations, now_us), table_format)
        project, log_tables, manifest = parsing.result()
        python_worker.result()
    with contextlib.redirect_stdout(sys.stderr), small_data(spark):
        run = dbt.invoke_result(build_args(self_checks, users_generations=generations is not None),
                                project_dir=project, manifest=manifest)
    run.result.write(str(project / "target" / "run_results.json"))

    result = ReplayResult(statement_errors=list(script_result.errors), dbt_succeeded=bool(run.success),
                          conditional_results=list(script_result.conditional_results),
                          descriptions=list(script_result.descriptions),
                          schema=(script_result.tables, script_result.columns, script_result.types))
    if not run.success:
        result.input_problems = input_problems(spark, run)
        return result
    latest = {(t.keyspace_name, t.table_name): t.schema_version
              for t in script_result.final_tables()}
    columns_by_table: dict[tuple[str, str], list[dict]] = {}
    for c in script_result.columns:
        if c.schema_version == latest.get((c.keyspace_name, c.table_name)):
            columns_by_table.setdefault((c.keyspace_name, c.table_name), []).append(c.as_row())
    for table in log_tables:
        keyspace, name = table.split(".", 1)
        base = name[: -len("_scylla_cdc_log")]
        udts = keyspace_user_types(script_result.types, keyspace)
        types = log_column_types(columns_by_table.get((keyspace, base), []), udts)
        columns, rows = _log_table_rows(spark, table, types, udts)
        result.log_columns[table] = columns
        result.log_column_types[table] = {name: types.get(name) for name in columns}
        result.log_rows.extend(rows)
    result.log_rows.sort(key=lambda r: r["table"])  # stable: keeps stream/time order inside
    if self_checks:     # the whole project was built, the consumer tables included
        result.log_cells = [row.asDict() for row in spark.table("cdc_lake.cdc_log").collect()]
        result.consumer_rows = _consumer_table_rows(spark, log_tables)
    result.rejected_writes = [
        r.asDict() for r in spark.table("cdc_lake.cdc_rejected_writes").orderBy("write_id").collect()
    ]
    audit = spark.table("cdc_lake.cdc_write_audit").collect()  # one batch: a full refresh
    result.audit = audit[0].asDict() if audit else {}
    return result

