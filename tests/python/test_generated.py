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
