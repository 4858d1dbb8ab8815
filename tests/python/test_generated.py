"""What cdclake writes for dbt lives in each warehouse's target folder (cdclake/project/generated.py), not
in the checkout: two warehouses served from one checkout keep their own models."""
from __future__ import annotations

from cdclake.cql.interpreter import run_script
from cdclake.project.generated import generated_dir
from cdclake.project.log_models import LOG_MODELS_SUBDIR, write_log_models
from cdclake.settings import PROJECT_DIR

KEYSPACE = "CREATE KEYSPACE {ks} WITH replication = {{'class': 'SimpleStrategy', 'replication_factor': 1}};\n"
TABLE = "CREATE TABLE {ks}.{t} (k int PRIMARY KEY, v text) WITH cdc = {{'enabled': true}};\n"


def schema(keyspace: str, table: str):
    result = run_script(KEYSPACE.format(ks=keyspace) + TABLE.format(ks=keyspace, t=table), now_us=1_700_000_000_000_000)
    return result.tables, result.columns, result.types


def files_under(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_two_warehouses_from_one_checkout_keep_their_own_models(tmp_path, monkeypatch):
    checkout_before = files_under(PROJECT_DIR / "models")
    warehouses = {"one": schema("alpha", "readings"), "two": schema("beta", "events")}
    for name in ("one", "two", "one", "two"):          # alternately, as two teams would
        monkeypatch.setenv("CDCLAKE_TARGET_DIR", str(tmp_path / name))
        tables, columns, types = warehouses[name]
        write_log_models(PROJECT_DIR, tables, columns=columns, types=types)
    for name, expected in (("one", "alpha__readings_scylla_cdc_log.sql"), ("two", "beta__events_scylla_cdc_log.sql")):
        monkeypatch.setenv("CDCLAKE_TARGET_DIR", str(tmp_path / name))
        folder = generated_dir() / LOG_MODELS_SUBDIR
        assert folder == tmp_path / name / "generated" / LOG_MODELS_SUBDIR
        assert sorted(p.name for p in folder.glob("*.sql")) == [expected]
    assert files_under(PROJECT_DIR / "models") == checkout_before, "a load wrote into the checkout"


def test_dbt_is_given_a_path_in_the_project_for_a_warehouse_inside_beside_or_outside_it(tmp_path, monkeypatch):
    """dbt writes a test's compiled SQL at its target folder joined with the yml file's path: the
    generated folder goes to dbt relative to the project (a link in target/warehouses/ for one
    outside it), so that an absolute path does not put the SQL inside the yml's path."""
    import os

    from cdclake.project.generated import point_dbt_at
    from cdclake.settings import GENERATED_DIR_ENV

    project = tmp_path / "checkout"
    (project / "target").mkdir(parents=True)
    monkeypatch.setattr("cdclake.project.generated.PROJECT_DIR", project)
    for target in (project / "target", tmp_path / "beside", tmp_path / "elsewhere" / "deep" / "warehouse"):
        monkeypatch.setenv("CDCLAKE_TARGET_DIR", str(target))
        monkeypatch.setattr("cdclake.project.generated.target_dir", lambda target=target: target)
        folder = point_dbt_at(project)
        given = os.environ[GENERATED_DIR_ENV]
        assert not os.path.isabs(given) and ".." not in given, given
        assert (project / given).resolve() == folder.resolve() == (target / "generated").resolve()
        assert (project / given / "macros" / "databricks" / "cdc_udfs_ddl.sql").is_file()
        assert point_dbt_at(project) == folder and os.environ[GENERATED_DIR_ENV] == given    # the same link again
