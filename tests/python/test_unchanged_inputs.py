"""A build leaves out the nodes that read only slow-moving inputs (schemas, generations) while
those Delta tables keep the version of the last build (cdclake/project/unchanged_inputs.py); the Delta
builds of test_incremental_builds show the outputs stay those of a full build."""
from __future__ import annotations

import json

import pytest

from cdclake.project import unchanged_inputs

SLOW, FAST = "source.p.in.slow", "source.p.in.fast"
MANIFEST = {
    "sources": {
        SLOW: {"schema": "in", "identifier": "slow", "config": {"meta": {"cdclake_rebuild": "when_changed"}}},
        FAST: {"schema": "in", "identifier": "fast", "config": {"meta": {}}},
    },
    "nodes": {
        "model.p.stg_slow": {"depends_on": [SLOW], "materialized": "view"},
        "model.p.int_slow": {"depends_on": ["model.p.stg_slow"]},
        "model.p.int_slow_inline": {"depends_on": ["model.p.stg_slow"], "materialized": "ephemeral"},
        "model.p.int_batch": {"depends_on": []},                    # reads its marks, no ref
        "model.p.int_both": {"depends_on": ["model.p.int_slow", "model.p.int_batch"]},
        "model.p.int_fast": {"depends_on": [FAST]},
        "test.p.not_null_int_slow": {"depends_on": ["model.p.int_slow"]},
        "test.p.assert_both": {"depends_on": ["model.p.int_both"]},
        "seed.p.example_rows": {"depends_on": None},                # seeds depend on macros only
    },
}
READING_ONLY_SLOW = ["int_slow", "not_null_int_slow", "stg_slow"]


def manifest() -> dict:
    nodes = {}
    for unique_id, node in MANIFEST["nodes"].items():
        name = unique_id.split(".")[-1]
        nodes[unique_id] = {"name": name, "alias": name, "schema": "s", "resource_type": unique_id.split(".")[0],
                            "depends_on": {"macros": []} if node["depends_on"] is None
                            else {"nodes": node["depends_on"]},
                            "config": {"materialized": node.get("materialized", "table")}}
    return {"sources": MANIFEST["sources"], "nodes": nodes}


class FakeSession:
    """What plan_build asks of the session: which relations exist (the manifest's, but
    ``missing``); its warehouse is not local."""

    def __init__(self, missing=()):
        self.catalog = self.conf = self
        self.missing = set(missing)

    def tableExists(self, relation):  # noqa: N802 - pyspark's name
        return relation not in self.missing

    def databaseExists(self, schema):  # noqa: N802 - pyspark's name
        return True

    def get(self, key, default=None):          # spark.conf.get
        return default

    def sql(self, text):
        from types import SimpleNamespace

        schema = text.split()[-1]
        names = [n["alias"] for n in manifest()["nodes"].values() if n["schema"] == schema
                 and f"{schema}.{n['alias']}" not in self.missing]
        return SimpleNamespace(collect=lambda: [SimpleNamespace(tableName=name) for name in names])


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("CDCLAKE_TABLE_FORMAT", "delta")
    monkeypatch.delenv("DBT_TARGET_PATH", raising=False)
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "manifest.json").write_text(json.dumps(manifest()))
    versions = {"in.slow": "id-1:3"}
    monkeypatch.setattr(unchanged_inputs, "table_versions",
                        lambda spark, tables, warehouse=None: {t: versions[t] for t in tables.values() if t in versions})
    return tmp_path, versions


def built(project_dir, args=("build",), session=None):
    """plan_build then, as after a successful build, record_build; the nodes left out."""
    plan = unchanged_inputs.plan_build(session or FakeSession(), list(args), project_dir)
    if plan is None:
        return None
    if plan.nothing_to_run:          # no node to run: dbt is not called, the record stays
        assert plan.args == list(args) and plan.record
        unchanged_inputs._write_record(project_dir, plan.record)
        return plan.skipped
    unchanged_inputs.record_build(plan, project_dir)
    # an --exclude of our own replaces the default selector's, so it repeats what that leaves out
    assert plan.args == list(args) + (["--exclude", *plan.skipped, unchanged_inputs.WHOLE_TABLE_CHECKS,
                                       "--indirect-selection", "empty"] if plan.skipped else [])
    return plan.skipped


def test_the_nodes_reading_only_slow_inputs_are_those_not_ephemeral_whose_every_parent_is_one():
    found = unchanged_inputs._nodes_reading_only(manifest(), {SLOW})
    assert sorted(n.split(".")[-1] for n in found) == READING_ONLY_SLOW


def test_a_build_after_one_with_the_same_inputs_leaves_their_nodes_out(project):
    project_dir, _ = project
    assert built(project_dir, ["build", "--full-refresh"]) == []
    assert built(project_dir) == READING_ONLY_SLOW
    assert built(project_dir) == READING_ONLY_SLOW


def test_a_changed_input_project_or_variable_runs_every_node(project):
    project_dir, versions = project
    built(project_dir)
    versions["in.slow"] = "id-1:4"                                     # a new Delta version
    assert built(project_dir) == []
    assert built(project_dir) == READING_ONLY_SLOW
    versions["in.slow"] = "id-2:4"                                     # the table made again
    assert built(project_dir) == []
    assert built(project_dir) == READING_ONLY_SLOW
    assert built(project_dir, ["build", "--vars", "{cdc_admission_rule: pre_2024}"]) == []
    assert built(project_dir) == []
    assert built(project_dir) == READING_ONLY_SLOW
    (project_dir / "models").mkdir()
    (project_dir / "models" / "m.sql").write_text("select 1")
    assert built(project_dir) == []
    assert built(project_dir) == READING_ONLY_SLOW


def test_a_missing_table_a_full_refresh_or_a_failed_build_runs_every_node(project):
    project_dir, _ = project
    built(project_dir)
    assert built(project_dir, session=FakeSession(missing={"s.int_slow"})) == []
    assert built(project_dir, ["build", "--full-refresh"]) == []
    assert built(project_dir) == READING_ONLY_SLOW
    unchanged_inputs.plan_build(FakeSession(), ["build"], project_dir)  # then failed or stopped: not recorded
    assert built(project_dir) == []


@pytest.mark.parametrize("args", [["build", "--select", "int_slow", "--vars", "{as_of_us: 1}"], ["run"], ["seed"]])
def test_a_command_that_writes_tables_forgets_the_record(project, args):
    """Its tables may hold what the plain build's did not (other `--vars`, a model of its own):
    the next plain build runs every node."""
    project_dir, _ = project
    built(project_dir)
    assert unchanged_inputs.plan_build(FakeSession(), args, project_dir) is None
    assert built(project_dir) == []
    assert built(project_dir) == READING_ONLY_SLOW
    assert unchanged_inputs.plan_build(FakeSession(), ["compile"], project_dir) is None
    assert built(project_dir) == READING_ONLY_SLOW


EVERY_NODE = ["assert_both", "example_rows", "int_batch", "int_both", "int_fast", "int_slow", "not_null_int_slow",
              "stg_slow"]


def test_a_build_after_one_with_no_input_moved_runs_no_node(project):
    """Writes at their version too: nothing a node reads has changed, the build runs none. New
    writes, or an output gone, run all but the nodes that read only the slow-moving inputs."""
    project_dir, versions = project
    versions["in.fast"] = "id-9:1"
    assert built(project_dir, ["build", "--full-refresh"]) == []
    assert built(project_dir) == EVERY_NODE
    assert built(project_dir) == EVERY_NODE
    versions["in.fast"] = "id-9:2"                                     # writes appended
    assert built(project_dir) == READING_ONLY_SLOW
    assert built(project_dir) == EVERY_NODE
    assert built(project_dir, session=FakeSession(missing={"s.int_fast"})) == READING_ONLY_SLOW


@pytest.mark.parametrize("moved_during_the_build", [False, True])
def test_the_first_build_in_a_new_target_folder_records_its_inputs(project, monkeypatch, moved_during_the_build):
    """No manifest yet to name the inputs when the first build starts: their versions are read
    after it, when none committed meanwhile; the next build then leaves out the nodes that read
    only the unchanged ones (a build that saw an input move records nothing)."""
    project_dir, _ = project
    manifest_file = project_dir / "target" / "manifest.json"
    written = manifest_file.read_text()
    manifest_file.unlink()
    plan = unchanged_inputs.plan_build(FakeSession(), ["build", "--full-refresh"], project_dir)
    assert plan is not None and plan.skipped == [] and plan.started_ms is not None
    manifest_file.write_text(written)                                  # as dbt's parse writes it
    seen = []
    monkeypatch.setattr(unchanged_inputs, "committed_since",
                        lambda spark, relations, since_ms: seen.append((relations, since_ms)) or moved_during_the_build)
    unchanged_inputs.record_build(plan, project_dir)
    [(relations, since_ms)] = seen
    assert sorted(relations) == ["in.fast", "in.slow"] and since_ms == plan.started_ms
    assert built(project_dir) == ([] if moved_during_the_build else READING_ONLY_SLOW)


def test_an_input_that_is_not_a_delta_table_runs_the_nodes_that_read_it(project):
    project_dir, versions = project
    assert "in.fast" not in versions                                   # Parquet: its changes not known
    built(project_dir)
    assert built(project_dir) == READING_ONLY_SLOW


@pytest.mark.parametrize("args", [["build", "--select", "cdc_log"], ["build", "--exclude=cdc_log"], ["run"]])
def test_a_selection_or_another_command_neither_leaves_out_nor_records(project, args):
    project_dir, _ = project
    assert built(project_dir, args) is None
    assert not (project_dir / "target" / unchanged_inputs.RECORD_NAME).exists()


def test_parquet_tables_have_no_versions_to_compare(project, monkeypatch):
    project_dir, _ = project
    monkeypatch.setenv("CDCLAKE_TABLE_FORMAT", "parquet")
    assert built(project_dir) is None


def test_a_delta_tables_version_follows_each_write_and_its_id_each_table(spark):
    spark.sql("create database if not exists unchanged_inputs")
    relation, sources = "unchanged_inputs.t", {"source.p.t": "unchanged_inputs.t"}
    spark.range(2).write.mode("overwrite").format("delta").saveAsTable(relation)
    first = unchanged_inputs.table_versions(spark, sources)[relation]
    spark.range(2).write.mode("overwrite").format("delta").saveAsTable(relation)
    second = unchanged_inputs.table_versions(spark, sources)[relation]
    assert second.split(":")[0] == first.split(":")[0] and second != first
    spark.sql(f"drop table {relation}")
    spark.range(2).write.format("delta").saveAsTable(relation)
    assert unchanged_inputs.table_versions(spark, sources)[relation].split(":")[0] != first.split(":")[0]
    spark.sql(f"drop table {relation}")
    spark.range(2).write.format("parquet").saveAsTable(relation)
    assert unchanged_inputs.table_versions(spark, sources) == {}, "a Parquet table's changes are not known"
    # a table that is not there (no imported logs): a state of its own, which can stay the same
    assert unchanged_inputs.table_versions(spark, {"source.p.gone": "unchanged_inputs.gone"}) \
        == {"unchanged_inputs.gone": "absent"}


def test_a_commit_after_a_builds_start_is_seen(spark):
    """What the first build in a new target folder asks of its inputs after it ran (their versions
    then are those it started with when none committed since)."""
    import time

    spark.sql("create database if not exists unchanged_inputs")
    relation = "unchanged_inputs.committed"
    spark.sql(f"drop table if exists {relation}")
    spark.range(2).write.format("delta").saveAsTable(relation)
    time.sleep(0.05)
    started_ms = int(time.time() * 1000)
    assert not unchanged_inputs.committed_since(spark, [relation, "unchanged_inputs.gone"], started_ms)
    spark.range(2).write.mode("append").format("delta").saveAsTable(relation)
    assert unchanged_inputs.committed_since(spark, [relation], started_ms)
    spark.sql(f"drop table {relation}")


@pytest.mark.parametrize("args, added", [
    (["build", "--exclude", "x"], True),                   # dbt would drop the default selector
    (["build", "--select", "marts", "--vars", "{a: 1}"], True),
    (["test", "-s=assert_x"], True),
    (["build"], False),                                     # the default selector applies
    (["build", "--selector", "batch"], False),
    (["test", "--select", "tag:whole_table"], False),       # named: the user wants them
    (["seed", "--select", "x"], False),
])
def test_a_users_selection_adds_to_the_default_exclusion_of_the_whole_table_checks(args, added):
    from cdclake.project.dbt_args import WHOLE_TABLE_CHECKS, with_batch_exclusion

    assert with_batch_exclusion(args) == (args + ["--exclude", WHOLE_TABLE_CHECKS] if added else args)
