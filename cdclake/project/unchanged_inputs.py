"""An incremental build leaves out the nodes whose inputs have not changed since the last build
that ran them: the models and tests that read only the slow-moving inputs (the sources with
`meta: {cdclake_rebuild: when_changed}`: the base schemas and the CDC generations), when each of
those Delta tables is at the version it had then. What dbt's `source_status:fresher+` does with a
loaded-at column, from Delta's table history; their tables stay as that build left them, and the
models downstream that also read the writes read them there.

A build records, when it succeeded and ran every node (no selection of its own), the versions of
those inputs as it started (each table's Delta id and version), the nodes that read only them
and the digest of the project, profile, environment and variables it ran with. The next build
of the same project skips those nodes when the digest is the same, every input is at its
recorded version and their tables are there; anything else (Parquet tables, `--full-refresh`, a
selection, a changed project or input, a build before that failed or was stopped) runs every node.

When the other inputs (the writes, the imported logs) are at their recorded versions too, no
node could change anything: the build runs none (a scheduled build after a quiet hour).
"""
from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from cdclake import settings
from cdclake.project.dbt_args import WHOLE_TABLE_CHECKS, dbt_target_path, option_value

log = logging.getLogger("cdclake")

RECORD_NAME = "cdclake_unchanged_inputs.json"
SLOW_MOVING = "when_changed"             # sources' meta `cdclake_rebuild`
ABSENT = "absent"                        # the version of an input table that is not there
WRITING_COMMANDS = ("build", "run", "seed", "snapshot")
SELECTION_FLAGS = ("--select", "-s", "--models", "-m", "--exclude", "--selector", "--resource-type",
                   "--resource-types", "--exclude-resource-type", "--exclude-resource-types", "--inline",
                   "--indirect-selection")


@dataclass
class BuildPlan:
    """One build's use of the record: the arguments to run (with the nodes left out) and, to
    record after it, the inputs' versions before it."""
    args: list[str]
    digest: str
    versions_before: dict[str, str]
    writes_before: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    # a build in a target folder without a manifest (its first): the inputs are known only once
    # dbt has parsed; their versions are read after it, if none moved since it started
    session: object = None
    started_ms: int | None = None
    nothing_to_run: bool = False     # no input holds other rows than at the last build: dbt is not run
    record: dict | None = None


def plan_build(spark, args: list[str], project_dir: Path) -> BuildPlan | None:
    """The plan of a `build` command on the embedded session, or None (another command, or a
    selection of the user's: it neither skips nor records). Any command that writes tables
    forgets the record as it starts (a plain build records again when it succeeds): one that
    fails, is stopped, or selects models (with other `--vars`, say) leaves none behind."""
    if not args or args[0] not in WRITING_COMMANDS:
        return None
    record = _read_json(dbt_target_path(project_dir) / RECORD_NAME)
    forget_builds(project_dir)
    if spark is None:
        return None
    return _plan(spark, args, project_dir, record)


def nothing_to_run(args: list[str], project_dir: Path, warehouse: Path) -> bool:
    """Whether the build ``args`` would run no node (``BuildPlan.nothing_to_run``), asked of the
    local warehouse folder ``warehouse`` alone, before any JVM starts: its tables' Delta logs and
    folders. A view is not looked for (the metastore holds it): one dropped by hand comes back with
    the next build that runs dbt. Changes nothing."""
    if not args or args[0] != "build":
        return False
    plan = _plan(None, args, project_dir, _read_json(dbt_target_path(project_dir) / RECORD_NAME), warehouse)
    return bool(plan and plan.nothing_to_run)


def _plan(spark, args: list[str], project_dir: Path, record: dict | None,
          warehouse: Path | None = None) -> BuildPlan | None:
    """``plan_build``'s plan, from ``record`` (the last build's); the tables read through
    ``spark``, or from the local folder ``warehouse`` when there is no session."""
    if args[0] != "build" \
            or any(option_value(args, flag) is not None for flag in SELECTION_FLAGS) \
            or settings.current().table_format != "delta":
        return None
    target = dbt_target_path(project_dir)
    tables = _Tables(spark, warehouse)
    manifest = _read_json(target / "manifest.json")
    if manifest is None:
        return BuildPlan(args=list(args), digest=_digest(args, project_dir), versions_before={},
                         session=spark, started_ms=int(time.time() * 1000))
    slow = set(_slow_moving_sources(manifest).values())
    versions = table_versions(spark, _sources(manifest), tables.warehouse)
    plan = BuildPlan(args=list(args), digest=_digest(args, project_dir),
                     versions_before={t: v for t, v in versions.items() if t in slow},
                     writes_before={t: v for t, v in versions.items() if t not in slow})
    if "--full-refresh" in args or not record or record.get("digest") != plan.digest:
        return plan
    if not record["inputs"] or not same_rows(spark, record["inputs"], plan.versions_before, tables.warehouse):
        return plan
    if tables.missing(record["relations"], manifest):
        return plan
    if record.get("writes") and same_rows(spark, record["writes"], plan.writes_before, tables.warehouse) \
            and not tables.missing(record["all_relations"], manifest):
        # no node could change anything: dbt is not run (the record stays as the last build left it)
        plan.skipped, plan.nothing_to_run, plan.record = list(record["all_nodes"]), True, record
        log.info("no input changed since the last build (its %d cdc_input tables hold the same rows): "
                 "none of its %d models and tests runs (--full-refresh runs them)", len(versions), len(plan.skipped))
        return plan
    plan.skipped = list(record["nodes"])
    if plan.skipped:
        # exactly those: by default dbt would also leave out every test with one of them as a
        # parent (eager indirect selection), e.g. the round trip, which reads the schemas too
        plan.args += ["--exclude", *plan.skipped, WHOLE_TABLE_CHECKS, "--indirect-selection", "empty"]
        log.info("%s unchanged since the last build: its %d models and tests that read only them are "
                 "left out (--full-refresh runs them)", ", ".join(sorted(record["inputs"])), len(plan.skipped))
    return plan


def invoke(args: list[str], project_dir: Path, callbacks: list | None = None):
    """A dbt command in this process (``dbt.invoke_result``), planned here: a build on the
    embedded session leaves out the nodes whose inputs have not changed, and records its inputs
    when it succeeds. dbt's result."""
    from cdclake.project import dbt

    dbt.prepare_environment(project_dir)
    plan = plan_build(dbt.embedded_session(args), args, project_dir)
    if plan and plan.nothing_to_run:
        _write_record(project_dir, plan.record)
        return NoNodeRan()
    result = dbt.invoke_result(plan.args if plan else args, project_dir, callbacks)
    if plan and result.success:
        record_build(plan, project_dir)
    return result


class _Tables:
    """Where a plan looks for the warehouse's tables: the session's catalog, or without one the
    folders of the local warehouse ``warehouse`` (the session's own, when it has one)."""

    def __init__(self, spark, warehouse: Path | None):
        from cdclake.session import delta_log

        self.spark = spark
        self.warehouse = warehouse if spark is None else delta_log.local_warehouse(spark)

    def missing(self, relations: list[str], manifest: dict) -> list[str]:
        if self.spark is not None:
            from cdclake.session.warehouse import missing_tables

            return missing_tables(self.spark, relations)
        from cdclake.session import delta_log

        views = {f"{n['schema']}.{n['alias']}" for n in manifest["nodes"].values()
                 if n["resource_type"] == "model" and n["config"].get("materialized") == "view"}
        return [r for r in relations if r not in views and not delta_log.table_folder(self.warehouse, r).is_dir()]


class NoNodeRan:
    """What ``invoke`` returns for a build that had no node to run (dbt's result's shape)."""
    success = True
    exception = None

    class result:   # noqa: N801 - dbt's attribute name
        results: list = []


def same_rows(spark, recorded: dict[str, str], now: dict[str, str], warehouse: Path | None = None) -> bool:
    """Whether each input holds the rows it held at its recorded version (``table_versions``
    each): the same version, or only commits of metadata since (delta_log.data_changed). The
    tables are those of the local folder ``warehouse``, else of ``spark``'s warehouse."""
    from cdclake.session import delta_log

    if set(recorded) != set(now):
        return False
    warehouse = warehouse if warehouse is not None else delta_log.local_warehouse(spark)
    for relation, version in now.items():
        if recorded[relation] == version:
            continue
        if warehouse is None or ABSENT in (version, recorded[relation]) or \
                delta_log.data_changed(delta_log.table_folder(warehouse, relation), recorded[relation], version):
            return False
    return True


def forget_builds(project_dir: Path) -> None:
    """No record, so the next build runs every node: done as a build starts (it records again
    when it succeeds), so that one that fails or is stopped leaves none."""
    (dbt_target_path(project_dir) / RECORD_NAME).unlink(missing_ok=True)


def record_build(plan: BuildPlan, project_dir: Path) -> None:
    """After a successful build: record the versions its slow-moving inputs had as it started
    (a build that changed one meanwhile leaves a version the next build does not find), the
    nodes that read only them and the project's digest."""
    target = dbt_target_path(project_dir)
    manifest = _read_json(target / "manifest.json")
    sources = _slow_moving_sources(manifest)
    if plan.started_ms is not None:
        # the versions now are those the build started with when no input committed since
        inputs = _sources(manifest)
        if committed_since(plan.session, list(inputs.values()), plan.started_ms):
            forget_builds(project_dir)
            return
        versions, slow = table_versions(plan.session, inputs), set(sources.values())
        plan.versions_before = {t: v for t, v in versions.items() if t in slow}
        plan.writes_before = {t: v for t, v in versions.items() if t not in slow}
    if not sources or set(plan.versions_before) != set(sources.values()):
        forget_builds(project_dir)
        return
    every_node = {unique_id for unique_id, node in manifest["nodes"].items()
                  if node["resource_type"] in ("model", "test", "seed", "snapshot")
                  and node["config"].get("materialized") != "ephemeral"}
    all_inputs_delta = set(plan.versions_before) | set(plan.writes_before) == set(_sources(manifest).values())
    record = {
        "digest": plan.digest,
        "inputs": plan.versions_before,
        **_names_and_relations(manifest, _nodes_reading_only(manifest, set(sources))),
        # every input's version: when none moved, the next build runs no node
        "writes": plan.writes_before if all_inputs_delta else {},
        **{f"all_{key}": value for key, value in _names_and_relations(manifest, every_node).items()},
    }
    _write_record(project_dir, record)


def _write_record(project_dir: Path, record: dict) -> None:
    path = dbt_target_path(project_dir) / RECORD_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1))


def table_versions(spark, tables: dict[str, str], warehouse: Path | None = None) -> dict[str, str]:
    """``relation -> "delta id:version"`` of each Delta table of ``tables`` (source id ->
    relation), ``"absent"`` for those not there (a keyspace without imported logs); tables that
    are not Delta (or not readable) are left out: their changes are not known. Read from the
    tables' logs in a local warehouse (``warehouse``, else ``spark``'s; no Spark job,
    cdclake/session/delta_log.py), else with SQL."""
    from cdclake.session import delta_log

    warehouse = warehouse if warehouse is not None else delta_log.local_warehouse(spark)
    versions = {}
    for relation in tables.values():
        if warehouse is not None:
            folder = delta_log.table_folder(warehouse, relation)
            try:
                found = delta_log.snapshot(folder)
            except (OSError, ValueError, delta_log.UnreadableTable):
                continue
            if found is not None:
                versions[relation] = found.key
            elif not folder.exists():
                versions[relation] = ABSENT
            continue                 # a folder of another format: its changes are not known
        try:
            if not spark.catalog.tableExists(relation):
                versions[relation] = ABSENT
                continue
            detail = spark.sql(f"describe detail {relation}").select("format", "id").first()
            if detail is None or detail["format"] != "delta":
                continue
            version = spark.sql(f"describe history {relation} limit 1").select("version").first()["version"]
        except Exception:  # noqa: BLE001 - unreadable: it does not count as unchanged
            continue
        versions[relation] = f"{detail['id']}:{version}"
    return versions


def committed_since(spark, relations: list[str], since_ms: int) -> bool:
    """Whether any of the Delta tables among ``relations`` has a commit at or after ``since_ms``
    (ms since the epoch), or cannot be read to tell (the others' changes are not known: the
    nodes that read them run in every build, as ``table_versions`` leaves them out)."""
    from cdclake.session import delta_log

    warehouse = delta_log.local_warehouse(spark)
    for relation in relations:
        if warehouse is not None:
            folder = delta_log.table_folder(warehouse, relation)
            try:
                found = delta_log.snapshot(folder)
            except (OSError, ValueError, delta_log.UnreadableTable):
                return True
            if found is not None and found.newest_commit_ms >= since_ms:
                return True
            continue
        try:
            if not spark.catalog.tableExists(relation):
                continue
            if spark.sql(f"describe detail {relation}").select("format").first()["format"] != "delta":
                continue
            last = spark.sql(f"describe history {relation} limit 1").select("timestamp").first()
        except Exception:  # noqa: BLE001 - not a Delta table, or unreadable: it may have moved
            return True
        if last is None or last["timestamp"].timestamp() * 1000 >= since_ms:
            return True
    return False


def _names_and_relations(manifest: dict, nodes: set[str]) -> dict[str, list[str]]:
    """``nodes`` (unique ids) by name, and the relations of the models among them."""
    return {"nodes": sorted(manifest["nodes"][n]["name"] for n in nodes),
            "relations": sorted(f"{manifest['nodes'][n]['schema']}.{manifest['nodes'][n]['alias']}" for n in nodes
                                if manifest["nodes"][n]["resource_type"] == "model")}


def _sources(manifest: dict | None) -> dict[str, str]:
    """Every source of a manifest: source id -> relation (``schema.identifier``)."""
    return {source_id: f"{source['schema']}.{source['identifier']}"
            for source_id, source in (manifest or {}).get("sources", {}).items()}


def _slow_moving_sources(manifest: dict | None) -> dict[str, str]:
    """The slow-moving sources of a manifest: source id -> relation (``schema.identifier``)."""
    def meta(source: dict) -> dict:
        return {**source.get("meta", {}), **source.get("config", {}).get("meta", {})}

    return {source_id: relation for source_id, relation in _sources(manifest).items()
            if meta(manifest["sources"][source_id]).get("cdclake_rebuild") == SLOW_MOVING}


def _nodes_reading_only(manifest: dict, sources: set[str]) -> set[str]:
    """The models (not ephemeral) and tests every parent of which is one of ``sources`` or such a
    node, recursively: what a build of those sources alone would run."""
    nodes = manifest["nodes"]
    reading_only: dict[str, bool] = {}

    def reads_only(unique_id: str) -> bool:
        if unique_id in sources:
            return True
        if unique_id not in reading_only:
            node = nodes.get(unique_id)
            parents = node.get("depends_on", {}).get("nodes", []) if node else []   # a seed has none
            reading_only[unique_id] = bool(
                node and node["resource_type"] in ("model", "test") and parents
                and all(reads_only(parent) for parent in parents))
        return reading_only[unique_id]

    return {unique_id for unique_id in nodes if reads_only(unique_id)
            and nodes[unique_id]["config"].get("materialized") != "ephemeral"}


def _digest(args: list[str], project_dir: Path) -> str:
    """What the skipped nodes' SQL depends on besides their inputs: the project's files and its
    generated ones, profile and environment (as for dbt's partial parse), the target and the variables."""
    import hashlib

    from cdclake.project.dbt_args import cli_vars, target_name
    from cdclake.project.generated import generated_dir
    from cdclake.project.project_files import PROJECT_PARTS, state_key

    command = json.dumps([target_name(args), cli_vars(args)], sort_keys=True, default=str)
    generated = hashlib.sha256()
    for path in sorted(p for p in generated_dir(project_dir).rglob("*") if p.is_file()):
        generated.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hashlib.sha256(f"{state_key(project_dir, PROJECT_PARTS)}\0{generated.hexdigest()}\0{command}".encode()
                          ).hexdigest()[:24]


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None
