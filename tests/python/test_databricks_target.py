"""The `databricks` target, without a workspace: the project parses and compiles for it (dbt-databricks,
dummy credentials, no connection), models call the Unity Catalog functions, and the functions'
DDL, as dbt renders it for the on-run-start hook, carries the code the local UDFs run.
"""
from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import TEST_DATA

from cdclake import cli
from cdclake.project.databricks_udfs import HANDLER, module_source, uc_functions
from cdclake.project.dbt import with_project_defaults
from cdclake.project.generated import generated_dir, write_udf_macros
from cdclake.settings import GENERATED_DIR_ENV
from python_udfs.registry import session_sql_functions

DATABRICKS_ENV = {
    "CDCLAKE_TARGET": "databricks",
    # a reserved name that never resolves: nothing here may connect
    "DATABRICKS_HOST": "workspace.invalid",
    "DATABRICKS_HTTP_PATH": "/sql/1.0/warehouses/0000000000000000",
    "DATABRICKS_TOKEN": "dapi-not-a-token",
}
SCHEMA_PATH = "`main`.`cdc_lake`"
NEXT_STATEMENT = "\n-- cdclake: next statement\n"
UDF_NAMES = list(session_sql_functions())
BODY_RUNNER = Path(__file__).with_name("_uc_function_body.py")


@pytest.fixture(scope="module")
def databricks_dbt(tmp_path_factory):
    """``dbt(args)`` for the databricks target: one parse, then commands on its manifest."""
    from dbt.cli.main import dbtRunner

    work = tmp_path_factory.mktemp("databricks-target")
    paths = ["--target-path", str(work), "--log-path", str(work)]
    with pytest.MonkeyPatch.context() as env:
        for name, value in DATABRICKS_ENV.items():
            env.setenv(name, value)
        # what `cdclake generate` writes for plain dbt: the UDF macros in the generated folder
        generated = generated_dir()
        write_udf_macros(generated)
        env.setenv(GENERATED_DIR_ENV, str(generated))
        parsed = dbtRunner().invoke(with_project_defaults(["parse", *paths]))
        assert parsed.success, f"dbt parse --target databricks failed: {parsed.exception}"
        manifest = parsed.result

        def dbt(args: list[str], messages: list | None = None):
            """Run a command on the parsed manifest; ``messages`` collects dbt's event texts."""
            callbacks = [] if messages is None else [lambda event: messages.append(event.info.msg)]
            return dbtRunner(manifest=manifest, callbacks=callbacks).invoke(
                with_project_defaults([*args, "--no-populate-cache", "--quiet", *paths]))

        dbt.manifest, dbt.work, dbt.paths = manifest, work, paths
        yield dbt


def compiled(result) -> str:
    assert result.success, f"dbt compile failed: {result.exception}"
    return result.result.results[0].node.compiled_code


def test_on_run_start_hook_creates_the_udfs(databricks_dbt):
    hooks = [node for node in databricks_dbt.manifest.nodes.values() if node.resource_type == "operation"]
    assert [hook.raw_code for hook in hooks] == ["{{ create_cdc_udfs() }}"]


def test_cdclake_compiles_models_that_call_the_unity_catalog_functions(databricks_dbt, monkeypatch):
    """`cdclake compile` with CDCLAKE_TARGET=databricks: no embedded Spark, qualified UDF calls."""

    def no_session(*args, **kwargs):
        raise AssertionError("cdclake started an embedded Spark session for the databricks target")

    monkeypatch.setattr("cdclake.session.spark.create_session", no_session)
    # a full refresh: the batch reads no earlier build's ledger; the model alone, not its tests
    # (the batch's log check asks the warehouse for the last processed write): nothing connects
    args = ["compile", "--select", "int_writes_validated", "int_batch_atoms", "--full-refresh",
            "--indirect-selection", "empty", "--no-populate-cache", "--quiet"]
    assert cli.main([*args, *databricks_dbt.paths]) == 0
    compiled = databricks_dbt.work / "compiled" / "scylla_cdc_lake" / "models" / "intermediate" / "writes"
    validated, batch_atoms = ((compiled / f"{model}.sql").read_text() for model in ("int_writes_validated", "int_batch_atoms"))
    assert f"{SCHEMA_PATH}.`cdc_token_of_partition_key`(partition_key," in validated
    assert f"{SCHEMA_PATH}.`cdc_clustering_sort_key`(" in batch_atoms


def test_every_udf_call_goes_through_cdc_udf(databricks_dbt):
    """A bare call would reach no function on Databricks (session UDFs exist only locally)."""
    bare_call = re.compile(r"(?<![\w'`.])(" + "|".join(UDF_NAMES) + r")\s*\(")
    manifest = databricks_dbt.manifest
    sources = {node.original_file_path: node.raw_code for node in manifest.nodes.values()}
    sources.update({macro.original_file_path: macro.macro_sql for macro in manifest.macros.values()
                    if macro.package_name == "scylla_cdc_lake" and "databricks" not in macro.original_file_path})
    bare = {path: bare_call.findall(re.sub(r"(\{\{\s*|macro\s+)\w+\(", "", code)) for path, code in sources.items()}
    assert {path: calls for path, calls in bare.items() if calls} == {}


def test_an_unknown_udf_name_fails_to_compile(databricks_dbt):
    messages: list[str] = []
    result = databricks_dbt(["compile", "--inline", "select {{ cdc_udf('cdc_shard') }}(1)"], messages)
    assert not result.success
    assert any("cdc_udf: 'cdc_shard' is not a UDF of the session" in str(m) for m in messages), messages


@pytest.fixture(scope="module")
def rendered_ddl(databricks_dbt) -> dict[str, str]:
    """The statements the on-run-start hook runs on Databricks, as dbt renders them, by function."""
    loop = ("{% for s in cdc_udfs_ddl(cdc_udf_schema_path()) %}{{ s }}" + NEXT_STATEMENT + "{% endfor %}")
    statements = compiled(databricks_dbt(["compile", "--inline", loop])).split(NEXT_STATEMENT)[:-1]
    named = {re.match(r"CREATE OR REPLACE FUNCTION \S+\.`(\w+)`\(", s).group(1): s for s in statements}
    assert list(named) == UDF_NAMES, "one function per UDF of the local session, in registration order"
    return named


def test_ddl_declares_the_local_signatures(rendered_ddl):
    for function in uc_functions():
        header = rendered_ddl[function.name].split("\nAS $$\n")[0]
        arguments = ", ".join(f"`{name}` {sql_type}" for name, sql_type in function.arguments)
        assert header.startswith(f"CREATE OR REPLACE FUNCTION {SCHEMA_PATH}.`{function.name}`({arguments})\n"
                                 f"RETURNS {function.return_type}\nLANGUAGE PYTHON\nPARAMETER STYLE PANDAS\n")
    assert [f.arguments for f in uc_functions() if f.name == "cdc_shard_of"] == \
        [[("token", "bigint"), ("shard_count", "int"), ("ignore_msb", "int")]]


def function_body(ddl: str) -> str:
    body = ddl.split("\nAS $$\n", 1)[1]
    assert body.endswith("$$")
    return body[:-2]


def test_ddl_bodies_inline_the_python_udfs_sources_verbatim(rendered_ddl):
    for function in uc_functions():
        body = function_body(rendered_ddl[function.name])
        assert function.modules[-1] == function.module
        for module in function.modules:
            assert module_source(module) in body, f"{function.name}: {module} is not inlined verbatim"


# ---- the bodies compute what the local UDFs compute ----------------------------------------

VECTORS = json.loads((TEST_DATA / "vectors_math.json").read_text())["vectors"]
MIN_TOKEN, MAX_TOKEN = -(1 << 63), (1 << 63) - 1


def vectors(function: str) -> list[dict]:
    return [v for v in VECTORS if v["function"] == function]


def as_token(value) -> int:
    return value if isinstance(value, int) else {"min": MIN_TOKEN, "max": MAX_TOKEN}[value[:3]]


def bigints(values: list) -> pd.Series:
    """As Arrow hands a bigint column to pandas: int64, or float64 when it holds a null."""
    return pd.Series(values, dtype="int64" if None not in values else "float64")


def arrays(rows: list) -> pd.Series:
    return pd.Series([None if row is None else np.array(row, dtype=object) for row in rows], dtype=object)


def objects(values: list) -> pd.Series:
    return pd.Series(values, dtype=object)


def samples() -> dict[str, tuple[list[tuple], list | None]]:
    """Per UDF: argument batches, and the expected results of the first batch where vectors give them."""
    encode, decode = vectors("stream_id_encode"), vectors("stream_id_decode")
    decoded_ids = objects([bytes.fromhex(v["inputs"]["hex"]) for v in decode] + [None])
    shard_vectors = [v for v in vectors("shard_of") if isinstance(v["inputs"]["token"], int)]
    first_token = [{**v["inputs"], **v["expected"]} for v in vectors("find_first_token_for_shard")]
    composite = vectors("composite_key_token")
    key_json = [json.dumps({f"c{i}": ("0x" + c["value"] if c["cql_type"] == "blob" else
                                      int(c["value"]) if c["cql_type"] in ("int", "bigint", "smallint", "tinyint") else c["value"])
                            for i, c in enumerate(v["inputs"]["components"])}) for v in composite]
    key_types = [[c["cql_type"] for c in v["inputs"]["components"]] for v in composite]
    return {
        "cdc_token_of_partition_key": (
            [(objects(key_json + ['{"c0": "x"}', None]),
              arrays([[f"c{i}" for i in range(len(t))] for t in key_types] + [["c0"], ["c0"]]),
              arrays(key_types + [["int"], ["int"]]))],
            None),
        "cdc_murmur3_token": (
            [(objects([bytes.fromhex(v["inputs"]["key_hex"]) for v in vectors("murmur3_token")] + [None]),)],
            [v["expected"]["token"] for v in vectors("murmur3_token")] + [None]),
        "cdc_shard_of": (
            [(bigints([v["inputs"]["token"] for v in shard_vectors]),
              pd.Series([v["inputs"]["shard_count"] for v in shard_vectors], dtype="int32"),
              pd.Series([v["inputs"]["ignore_msb"] for v in shard_vectors], dtype="int32"))],
            [v["expected"]["shard"] for v in shard_vectors]),
        "cdc_stream_id": (
            [(bigints([v["inputs"]["token"] for v in encode]), pd.Series([v["inputs"]["vnode_index"] for v in encode]),
              bigints([v["inputs"]["random38"] for v in encode]))],
            [bytes.fromhex(v["expected"]["hex"]) for v in encode]),
        "cdc_stream_id_token": ([(decoded_ids,)], [v["expected"]["token"] for v in decode] + [None]),
        "cdc_stream_id_vnode_index": ([(decoded_ids,)], [v["expected"]["index"] for v in decode] + [None]),
        "cdc_stream_id_version": ([(decoded_ids,)], [v["expected"]["version"] for v in decode] + [None]),
        "cdc_find_first_token_for_shard": (
            [(bigints([as_token(v["start_exclusive"]) for v in first_token]),
              bigints([as_token(v["end_inclusive"]) for v in first_token]),
              pd.Series([v["shard_count"] for v in first_token]), pd.Series([v["ignore_msb"] for v in first_token]),
              pd.Series([v["shard"] for v in first_token]))],
            [as_token(v["token"]) for v in first_token]),
        "cdc_timeuuid": (
            [(bigints([0, 1_700_000_000_123_456, None]), bigints([1, -5, 7])),
             (bigints([1_600_000_000_000_001]), bigints([-(1 << 63)]))],
            None),
        "cdc_timeuuid_micros": (
            [(objects(["81d4fae0-7dec-11d0-a765-00a0c91e6bf6", None]),)], None),
        "cdc_time_us": (
            [(objects(["81d4fae0-7dec-11d0-a765-00a0c91e6bf6", "00000000-0000-0000-0000-000000000000", None]),)],
            None),
        "cdc_clustering_sort_key": (
            [(objects(['{"a": -1, "b": "q"}', '{"a": 1}', "{}", None]),
              arrays([["a", "b"]] * 4), arrays([["int", "text"]] * 4), arrays([["ASC", "DESC"]] * 4),
              objects(["row", "start_inclusive", "end_inclusive", "row"]))],
            None),
        "cdc_value_error": (
            [(objects(["1", '"x"', '{"list": [1, 2]}', None]), objects(["int", "int", "list<int>", "int"]),
              objects([None, None, None, None]))],
            [None, 'expected int, got "x"', None, None]),
        "cdc_type_error": (
            [(objects(["int", "frozen<address>", "txet", "map<int", None]),
              objects([None, '{"address": [["street", "text"]]}', None, None, None]))],
            [None, None, "unknown user-defined type 'txet'",
             "cannot parse CQL type 'map<int': expected '>', found 'end of text'", None]),
        "cdc_key_error": (
            [(objects(['{"a": 1}', '{"z": 1}', '{"a": 1}']), arrays([["a", "b"]] * 3), arrays([["int", "text"]] * 3),
              pd.Series([True, True, False]))],
            [None, "unknown key column z (the key columns are a, b)", "missing clustering column b"]),
        "cdc_json_members": (
            [(objects(['{"a": 1, "b": [1, {"c": null}]}', None]),)], [{"a": "1", "b": '[1, {"c": null}]'}, None]),
        "cdc_element_types": ([(objects(["map<int, text>", "set<int>", "list<text>", "int", None]),)], None),
        "cdc_value_sort_key": ([(objects(["1", "-1", '"a"']), objects(["int", "int", "text"]))], None),
    }


def run_bodies(jobs: dict) -> dict:
    done = subprocess.run([sys.executable, str(BODY_RUNNER)], input=pickle.dumps(jobs), capture_output=True,
                          check=False)
    assert done.returncode == 0, done.stderr.decode()
    return pickle.loads(done.stdout)


def assert_same(actual, expected, label: str) -> None:
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(actual, expected, obj=label)
    else:
        pd.testing.assert_series_equal(actual, expected, obj=label)


def test_function_bodies_compute_what_the_local_udfs_compute(rendered_ddl):
    """Each body runs with python_udfs and pyspark unimportable; its results equal the local batch
    function's on the same batches, and the acceptance vectors where they apply."""
    cases = samples()
    assert set(cases) == set(UDF_NAMES), "every UDF needs sample batches here"
    local = session_sql_functions()
    results = run_bodies({name: (function_body(rendered_ddl[name]), HANDLER, batches)
                          for name, (batches, _) in cases.items()})
    for name, (batches, expected) in cases.items():
        assert isinstance(results[name], list), f"{name}: the body failed:\n{results[name]}"
        for index, (batch, result) in enumerate(zip(batches, results[name], strict=True)):
            assert_same(result, local[name](*batch), f"{name} batch {index}")
        if expected is not None:
            got = results[name][0]
            assert [None if pd.isna(v) else v for v in got.tolist()] == expected, name


def test_a_body_that_needs_a_missing_module_fails(rendered_ddl):
    """The runner really hides the package: drop one inlined module and the body cannot load."""
    body = function_body(rendered_ddl["cdc_shard_of"])
    without_sharding = re.sub(r"_module\('python_udfs\.sharding', r'''.*?'''\)\n", "", body, flags=re.S)
    assert without_sharding != body
    (batches, _) = samples()["cdc_shard_of"]
    result = run_bodies({"cdc_shard_of": (without_sharding, HANDLER, batches)})["cdc_shard_of"]
    assert "python_udfs.sharding cannot be imported by a Unity Catalog function" in result


def test_seeds_load_through_dbt_databricks(databricks_dbt):
    """The project's spark__load_csv_rows (a dbt-spark workaround) is not what Databricks runs."""
    resolve = ("{% set loader = adapter.dispatch('load_csv_rows', 'dbt') %}"
               "{{ loader.macro.package_name }}.{{ loader.macro.name }} -> "
               "{{ dbt.databricks__load_csv_rows.macro.package_name }}")
    assert compiled(databricks_dbt(["compile", "--inline", resolve])).strip() == \
        "scylla_cdc_lake.databricks__load_csv_rows -> dbt_databricks"
