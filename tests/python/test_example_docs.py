"""The yml documents the columns the example build really produces, with their real types, an
enforced contract stops a model whose declared types drift, and a generated model whose declared
schema (`config.meta`) is not the schema inputs' stops the build."""
from __future__ import annotations

import copy
import re

import pytest
import yaml

CONTRACT_PROBE_SCHEMA = "cdc_contract_probe"


@pytest.fixture(scope="module")
def built_nodes(example_manifest) -> list[dict]:
    """The models and seeds of the build the `example_build` fixture ran (its manifest)."""
    return [n for n in example_manifest["nodes"].values()
            if n["resource_type"] in ("model", "seed") and n["package_name"] == "scylla_cdc_lake"]


def normalized(data_type: str) -> str:
    return re.sub(r"[\s`]", "", data_type).lower()


@pytest.fixture(scope="module")
def ephemeral_columns(example_build, built_nodes) -> dict[str, list[str]]:
    """The columns of each ephemeral model: its query as dbt compiles it (its ephemeral parents
    inlined), analysed by Spark against the build's tables."""
    from cdclake.project import dbt
    from cdclake.settings import target_dir

    assert dbt.invoke(["compile", "--select", "config.materialized:ephemeral", "--log-level", "warn"])
    compiled = {path.stem: path for path in (target_dir() / "compiled").rglob("*.sql")}
    return {node["name"]: example_build.sql(compiled[node["name"]].read_text()).columns
            for node in built_nodes if node["config"]["materialized"] == "ephemeral"}


def test_every_built_column_is_documented_and_every_documented_column_is_built(example_build, example_manifest,
                                                                              built_nodes, ephemeral_columns):
    """A staging model or a mart documents every column it has; an intermediate step (most are
    ephemeral, fused into the query of the table that reads them) documents the columns it adds,
    those it carries being documented by its inputs."""
    spark = example_build
    assert ephemeral_columns, "the project has no ephemeral step"

    def columns_of(unique_id: str) -> list[str]:
        node = example_manifest["nodes"].get(unique_id) or example_manifest["sources"][unique_id]
        if node["name"] in ephemeral_columns:
            return ephemeral_columns[node["name"]]
        return spark.table(f"{node['schema']}.{node.get('alias') or node['identifier']}").columns

    problems = []
    for node in built_nodes:
        built = columns_of(node["unique_id"])
        carried = set()
        if node["name"].startswith("int_"):
            carried = {c for parent in node["depends_on"]["nodes"] for c in columns_of(parent)}
        undocumented = [c for c in built if c not in node["columns"] and c not in carried]
        phantom = [c for c in node["columns"] if c not in built]
        if undocumented or phantom:
            problems.append(f"{node['name']}: undocumented {undocumented}, not built {phantom}")
    assert not problems, "\n".join(problems)


def test_declared_data_types_are_the_built_types(example_build, built_nodes):
    spark = example_build
    problems = []
    for node in built_nodes:
        if not node["config"]["contract"]["enforced"] or node["config"]["materialized"] == "ephemeral":
            continue
        built = {f.name: f.dataType.simpleString() for f in spark.table(f"{node['schema']}.{node['alias']}").schema}
        for name, column in node["columns"].items():
            if normalized(column["data_type"]) != normalized(built[name]):
                problems.append(f"{node['name']}.{name}: declared {column['data_type']}, built {built[name]}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("cql_type, expected", [
    ("frozen<map<text, frozen<list<int>>>>", "map<string,array<int>>"),
    ("tuple<int, varint, frozen<set<blob>>>", "struct<f0:int,f1:decimal(38,0),f2:array<binary>>"),
    ("frozen<address>", "struct<street:string,`zip code`:int>"),
    ("list<frozen<tuple<date, time, decimal>>>", "array<struct<f0:date,f1:bigint,f2:decimal(38,18)>>"),
])
def test_log_column_spark_types_are_valid_spark_types(example_build, cql_type, expected):
    """cdclake/logschema.py writes the contracts' types: they parse in Spark to themselves."""
    from cdclake.logschema import spark_type

    mapped = spark_type(cql_type, {"address": [("street", "text"), ("zip code", "int")]})
    assert normalized(mapped) == normalized(expected)
    schema = example_build.sql(f"select cast(null as {mapped}) as v").schema
    assert normalized(schema["v"].dataType.simpleString()) == normalized(expected)


def test_unmapped_cql_type_names_the_table_and_column():
    from cdclake.load.schema_records import BaseColumn
    from cdclake.logschema import UnmappedTypeError, log_table_columns

    columns = [BaseColumn("ks", "t", "pk", "partition_key", 0, "int"),
               BaseColumn("ks", "t", "home", "regular", 0, "frozen<address>")]
    with pytest.raises(UnmappedTypeError, match=r"ks\.t, column home: CQL type 'frozen<address>' has no Spark mapping"):
        log_table_columns("ks", "t", columns, types=[])


def scratch_dbt(command: str, node: str, project, tmp_path):
    """``dbt <command> --select <node>`` in a scratch copy of the project, its target and logs
    under ``tmp_path``: the dbtRunnerResult."""
    from dbt.cli.main import dbtRunner

    from cdclake.project.dbt import with_project_defaults
    from cdclake.project.generated import point_dbt_at

    point_dbt_at(project)            # as `cdclake generate` leaves it for plain dbt
    return dbtRunner().invoke(with_project_defaults(
        [command, "--select", node, "--target-path", str(tmp_path / "target"),
         "--log-path", str(tmp_path / "logs")], project))


@pytest.mark.parametrize("meta, says", [
    (None, "declares no schema (no meta.cdc_base_table), not that of shop.orders"),
    ({"cdc_base_table": "shop.sessions"}, "declares the schema of shop.sessions, not of shop.orders"),
])
def test_a_log_model_written_by_hand_names_the_schema_it_lacks(example_build, tmp_path, meta, says):
    """A log model that cdclake did not generate, compiled by plain dbt: without the schema
    cdclake declares in its properties (or with another table's), dbt stops and says which."""
    from cdclake.replay import prepare_scratch_project

    project = prepare_scratch_project(tmp_path)
    models = project / "models" / "marts" / "scylla_cdc_logs"
    (models / "hand__orders_scylla_cdc_log.sql").write_text("{{ scylla_cdc_log_table('shop', 'orders') }}\n")
    if meta is not None:
        (models / "_hand__models.yml").write_text(yaml.safe_dump(
            {"version": 2, "models": [{"name": "hand__orders_scylla_cdc_log", "config": {"meta": meta}}]}))
    result = scratch_dbt("compile", "hand__orders_scylla_cdc_log", project, tmp_path)
    assert not result.success
    message = str(result.exception or [r.message for r in result.result.results])
    assert "The model hand__orders_scylla_cdc_log " + says in message, message


def test_models_generated_for_another_schema_are_input_problems(example_build, tmp_path):
    """The example's generated models, then its schema changed behind them (as a plain dbt
    build after a hand edit of the schema inputs sees them): the input check names each
    difference, and passes on the models cdclake wrote."""
    from cdclake.load.schema_records import BaseColumn
    from cdclake.logschema import generated_model_meta
    from cdclake.project.generated import generated_dir
    from cdclake.project.log_models import LOG_MODELS_SUBDIR, MODELS_YML, model_sql, write_log_models_for_inputs
    from cdclake.replay import prepare_scratch_project

    spark = example_build
    check = "assert_generated_models_follow_the_schemas"
    project = prepare_scratch_project(tmp_path)
    write_log_models_for_inputs(spark, project, example=True)

    def problems() -> list[str]:
        result = scratch_dbt("compile", check, project, tmp_path)
        assert result.success, result.exception
        [compiled] = (tmp_path / "target" / "compiled").rglob(f"{check}.sql")
        return sorted(row.problem for row in spark.sql(compiled.read_text()).collect())

    assert problems() == []
    properties = generated_dir(project) / LOG_MODELS_SUBDIR / MODELS_YML
    document = yaml.safe_load(properties.read_text())
    [orders] = [m for m in document["models"] if m["name"] == "shop__orders_scylla_cdc_log"]
    audit_columns = [BaseColumn("shop", "audit", "id", "partition_key", 0, "int"),
                     BaseColumn("shop", "audit", "message", "regular", 0, "text")]
    meta = orders["config"]["meta"]
    audit_meta = {**generated_model_meta("shop", "audit", audit_columns, []),
                  "cdc_user_types": copy.deepcopy(meta["cdc_user_types"])}
    meta["cdc_base_columns"] = [{**c, "cql_type": "int"} if c["name"] == "total" else c
                                for c in meta["cdc_base_columns"] if c["name"] != "status"]
    meta["cdc_user_types"]["address"][2] = ["postcode", "text"]
    document["models"].append({"name": "shop__audit_scylla_cdc_log", "config": {"meta": audit_meta}})
    properties.write_text(yaml.safe_dump(document, sort_keys=False))
    (generated_dir(project) / LOG_MODELS_SUBDIR / "shop__audit_scylla_cdc_log.sql").write_text(model_sql("shop", "audit"))
    remedy = ": run `cdclake build` or `cdclake load schema`, which write the models again"
    assert problems() == [
        'cdc_input.base_columns: shop.orders column "status" is regular text in schema version 0, '
        "but the generated model shop__orders_scylla_cdc_log declares it not at all" + remedy,
        'cdc_input.base_columns: shop.orders column "total" is regular decimal in schema version 0, '
        "but the generated model shop__orders_scylla_cdc_log declares it regular int" + remedy,
        "cdc_input.base_tables: shop.audit has CDC disabled, "
        "but the generated model shop__audit_scylla_cdc_log logs it" + remedy,
        'cdc_input.base_types: shop.address field 2 is "zip" text, '
        'but the generated model shop__orders_scylla_cdc_log declares it "postcode" text' + remedy,
    ]


def test_a_wrong_declared_type_fails_the_model(example_build, tmp_path):
    """A scratch copy of the project declares `cdc_write_audit.log_rows` as int (it is bigint) and
    builds that one model into a probe schema: dbt refuses it with a contract error."""
    from cdclake.replay import prepare_scratch_project

    spark = example_build
    project = prepare_scratch_project(tmp_path)
    properties = project / "models" / "marts" / "_marts__models.yml"
    document = yaml.safe_load(properties.read_text())
    [audit] = [m for m in document["models"] if m["name"] == "cdc_write_audit"]
    [log_rows] = [c for c in audit["columns"] if c["name"] == "log_rows"]
    assert log_rows["data_type"] == "bigint"
    log_rows["data_type"] = "int"
    audit["config"]["schema"] = CONTRACT_PROBE_SCHEMA   # leave the example build's table alone
    properties.write_text(yaml.safe_dump(document, sort_keys=False))
    try:
        result = scratch_dbt("run", "cdc_write_audit", project, tmp_path)
        assert not result.success, "the model built although its contract declares a wrong type"
        [node_result] = [r for r in result.result.results if r.node.name == "cdc_write_audit"]  # not the hooks
        assert "contract" in node_result.message.lower() and "log_rows" in node_result.message, node_result.message
        assert not spark.catalog.tableExists(f"{CONTRACT_PROBE_SCHEMA}.cdc_write_audit")
        assert spark.table("cdc_lake.cdc_write_audit").count() == 1, "the example build's table was touched"
    finally:
        spark.sql(f"drop schema if exists {CONTRACT_PROBE_SCHEMA} cascade")
