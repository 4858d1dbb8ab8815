"""Shared fixtures: the acceptance material (tests/data/) and ONE Spark session per test run."""
from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEST_DATA = REPO / "tests" / "data"      # the documentation cases and the math vectors (tests/data/README.md)
# the cdclake commands the tests run share one class archive (cdclake/session/jvm_archive.py), in the
# repository's target folder rather than the user's cache
os.environ.setdefault("CDCLAKE_JVM_ARCHIVE_DIR", str(REPO / "target" / "jvm"))


def free_port() -> int:
    """A loopback port nothing listens on now (for the servers the tests start)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_data(name: str) -> dict:
    return json.loads((TEST_DATA / name).read_text())


@pytest.fixture(scope="session")
def math_vectors() -> list[dict]:
    return test_data("vectors_math.json")["vectors"]


@pytest.fixture(scope="session")
def docs_cases() -> dict:
    return test_data("cases_docs.json")


@pytest.fixture(scope="session")
def test_workspace() -> Path:
    path = REPO / "target" / "pytest"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


@pytest.fixture(scope="session")
def cassandra_server(test_workspace):
    """ONE Apache Cassandra 5.0 node per test run (tests/python/cassandra_server.py) in
    target/pytest/cassandra: CQL on ``cassandra_server.native_port``, superuser cassandra/cassandra."""
    from cassandra_server import CassandraServer

    try:
        server = CassandraServer(test_workspace / "cassandra", free_port(), free_port()).start()
    except FileNotFoundError as missing_jars:    # "... run make cassandra-jars"
        pytest.fail(str(missing_jars))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def spark(test_workspace):
    """The embedded session (cdclake.session.spark.create_session, UDFs registered) with its catalog in
    memory, as a replay's, on Parquet unless ``CDCLAKE_TEST_TABLE_FORMAT=delta``:
    the in-process builds and replays test semantics, which are the same SQL on either format and
    either catalog, and Parquet's tables and the in-memory catalog cost less fixed time (the
    shared replay's fixture took 182 and 171 s against 207 and 200 s with the Derby metastore,
    alternating, 2026-11-27). The default format, Delta, and the Derby metastore `cdclake build`
    keeps are built by the subprocesses of test_spark_cluster (a killed build and its rerun),
    test_own_keyspace and test_serve, and compared there with this session's build row for row.

    The session plans as a replay does (no whole-stage code generation, expressions interpreted,
    no adaptive re-planning; cdclake.session.spark.SMALL_DATA_CONF), its tables being a few rows: warm
    builds of the example took 38 s where the default settings took 44-50 s (same process,
    alternating; measured before expressions were interpreted too). It keeps 2 shuffle
    partitions, so that a result that depends on how rows are split still shows. The subprocess
    builds keep `cdclake build`'s settings (for the example's few rows the same small-data plans
    with one partition, cdclake.session.spark.plan_for_input_size): their outputs equal this session's
    byte for byte. One in-process build plans as for large inputs (whole-stage code generation,
    adaptive execution), test_incremental_builds' full build of a random workload, and equals the
    same writes built in batches with the small-data plans."""
    from cdclake.session.spark import SMALL_DATA_CONF, create_session

    if os.environ.get("CDCLAKE_TEST_TABLE_FORMAT", "parquet") == "parquet":
        os.environ["CDCLAKE_TABLE_FORMAT"] = "parquet"
    else:
        os.environ.pop("CDCLAKE_TABLE_FORMAT", None)

    conf = {key: value for key, value in SMALL_DATA_CONF.items() if key != "spark.sql.shuffle.partitions"}
    conf["spark.sql.catalogImplementation"] = "in-memory"
    # no class archive: this JVM lives the whole run, and writing one as it exits gains the run nothing
    session = create_session(test_workspace / "warehouse", app_name="cdclake-tests", shuffle_partitions=2, conf=conf,
                             class_archive=False)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def example_build(spark):
    """`cdclake build` on the example inputs (seeds/, chosen with var cdc_example), ONCE per run, into the cdc_lake schema.

    Replays write the same schema, so the modules that read this build are named
    ``test_example_*``: they sort together, and no module among them replays."""
    from outputs import rows_of, snapshot

    from cdclake.project import dbt
    from cdclake.settings import target_dir

    # replays before it processed other writes under the same ids: a full refresh, as for new inputs
    assert dbt.invoke(["build", "--full-refresh", "--vars", "{cdc_example: true}"]), "dbt build of the example project failed"
    EXAMPLE_OUTPUTS.update(snapshot(spark))
    EXAMPLE_BASE_STATE.extend(rows_of(spark.table("cdc_intermediate.int_base_state")))
    run_results = json.loads((target_dir() / "run_results.json").read_text())
    EXAMPLE_COMPILED_SQL.update(
        {result["unique_id"]: result["compiled_code"] for result in run_results["results"] if result.get("compiled_code")}
    )
    EXAMPLE_MANIFEST.update(json.loads((target_dir() / "manifest.json").read_text()))
    return spark


class Outputs(dict):
    """{table: sorted rows}; short in test reports."""

    def __repr__(self) -> str:
        return f"<outputs of {len(self)} tables>"


EXAMPLE_OUTPUTS = Outputs()
EXAMPLE_BASE_STATE: list[str] = []      # the carried base state it left (cdc_intermediate.int_base_state), sorted rows
EXAMPLE_COMPILED_SQL: dict[str, str] = {}     # the example build's models and tests: {unique_id: compiled select}
EXAMPLE_MANIFEST: dict = {}     # the example build's manifest (later builds of a selection rewrite target/manifest.json)


@pytest.fixture(scope="session")
def example_compiled_sql(example_build) -> dict[str, str]:
    """The compiled select of every model and dbt test the example build ran, by unique id."""
    return EXAMPLE_COMPILED_SQL


@pytest.fixture(scope="session")
def example_manifest(example_build) -> dict:
    """The example build's manifest.json as it wrote it."""
    return EXAMPLE_MANIFEST


@pytest.fixture(scope="session")
def example_outputs(example_build) -> Outputs:
    """The example build's output tables as sorted rows (outputs.snapshot), taken right after
    it ran: later modules compare other builds of the same writes with it, after replays have
    overwritten the warehouse."""
    return EXAMPLE_OUTPUTS


@pytest.fixture(scope="session")
def example_base_state(example_build) -> list[str]:
    """The example build's carried base state (one row per key: one batch) as sorted rows."""
    return EXAMPLE_BASE_STATE


@pytest.fixture(scope="session")
def shared_replay(spark, test_workspace):
    """ONE replay for the scripts whose checks read only their own keyspaces (each replay costs
    a dbt build): the 51 documentation cases, the row-order scenarios, the schema-version
    scenario, ScyllaDB's corners (test_scylla_corners), the state tables' cases
    (test_consumer_state) and every CQL type in cqlsh's export (test_imported_log). Returns the result and the docs
    cases' plans by case id."""
    import test_acceptance_docs_cases as docs
    import test_consumer_state as consumer
    import test_imported_log as imported_log
    import test_log_row_order as row_order
    import test_schema_versions as versions
    import test_scylla_corners as corners

    from cdclake.replay import replay

    docs_script, plans = docs.build_script(docs.CASES)
    script = (docs_script + row_order.build_script() + versions.SCRIPT + corners.SCRIPT + consumer.SCRIPT
              + imported_log.SCRIPT)
    (test_workspace / "shared_replay.cql").write_text(script)
    result = replay(script, now_us=docs.NOW_US, step_us=docs.STEP_US, workspace=test_workspace / "shared_replay",
                    enable_compact_storage=True, row_ttl_scan_period_s=corners.ROW_TTL_SCAN_PERIOD_S)
    assert result.dbt_succeeded, "dbt build failed in the shared replay (see target/pytest/shared_replay.cql)"
    return result, {plan.case["id"]: plan for plan in plans}


# the modules whose tests run cdclake commands that start Spark in a process of their own, or
# parse the project for another target; the tests that replay in this process
FUNCTIONAL_MODULES = {"test_own_keyspace", "test_replay_cli", "test_spark_cluster", "test_serve",
                      "test_example_docs_site", "test_jvm_archive", "test_system_packages", "test_databricks_target"}
FUNCTIONAL_TESTS = {"test_random_workloads_replay_and_round_trip"}


def pytest_collection_modifyitems(items):
    """Mark as `functional` the tests that run Spark (the session fixture, or cdclake commands
    in processes of their own): `make test-unit` runs the others, in under a minute."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()) or item.module.__name__ in FUNCTIONAL_MODULES \
                or item.originalname in FUNCTIONAL_TESTS:
            item.add_marker(pytest.mark.functional)
