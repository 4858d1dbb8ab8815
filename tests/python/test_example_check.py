"""`cdclake check`: the Great Expectations suite on the example build, intact and corrupted."""
from __future__ import annotations

import pytest

from cdclake import commands
from cdclake.commands import check
from cdclake.project import expectations


@pytest.fixture(scope="module")
def built(example_build):
    return example_build


def test_the_example_build_passes_and_gets_data_docs(built, test_workspace, capsys):
    docs = test_workspace / "gx_docs"
    assert check.run(commands.parse(["check", "--docs-dir", str(docs)]), spark=built) == 0
    out = capsys.readouterr().out
    assert "  FAIL  " not in out
    assert f"data docs: {docs / 'index.html'}" in out
    passed = [line for line in out.splitlines() if line.startswith("  PASS  ")]
    checks = sorted(line.split()[-1] for line in passed if line.startswith("  PASS  whole-table check "))
    assert len(passed) - len(checks) == sum(len(d.expectations) for d in expectations.datasets())
    # the dbt tests builds leave out (tag whole_table) run here, and only they
    assert {"assert_processed_writes_match_the_input", "assert_state_is_the_history_at_its_time"} <= set(checks)
    assert any(check.startswith("changes_are_logged_") for check in checks), checks
    index = (docs / "index.html").read_text()
    assert "cdclake_check.log_rows" in index and "cdclake_check.write_counts" in index


def test_a_ttl_on_a_delete_fails_its_expectation_with_the_rows(built, test_workspace, capsys):
    """Give the row and partition deletes (ops 3, 4) a cdc$ttl: exactly that expectation of the
    log_rows dataset fails, on those log rows, and the summary names them."""
    deletes = built.sql(
        "select distinct lower(hex(`cdc$stream_id`)) as stream, `cdc$time` as time, `cdc$batch_seq_no` as seq "
        "from cdc_lake.cdc_log where `cdc$operation` in (3, 4)"
    ).collect()
    assert deletes, "the example build has no row or partition delete to corrupt"
    columns = ", ".join(
        "if(`cdc$operation` in (3, 4), cast(60 as bigint), `cdc$ttl`) as `cdc$ttl`" if c == "cdc$ttl" else f"`{c}`"
        for c in built.table("cdc_lake.cdc_log").columns
    )
    built.sql("create table cdc_lake.cdc_log_original using parquet as select * from cdc_lake.cdc_log")
    try:
        built.sql(f"insert overwrite table cdc_intermediate.int_log_written select {columns} from cdc_lake.cdc_log_original")
        docs = test_workspace / "gx_docs_corrupted"
        assert check.run(commands.parse(["check", "--docs-dir", str(docs), "--only", "log_rows"]), spark=built) == 1
    finally:
        built.sql("insert overwrite table cdc_intermediate.int_log_written select * from cdc_lake.cdc_log_original")
        built.sql("drop table cdc_lake.cdc_log_original")
    lines = capsys.readouterr().out.splitlines()
    failed = [line for line in lines if line.startswith("  FAIL  ")]
    assert failed == [
        "  FAIL  log_rows[ttl] expect_column_values_to_be_null where operation NOT_IN [1, 2]: "
        f"cdc$ttl is set only on operations 1 and 2: {len(deletes)} of "
        f"{_rows_not_op_1_or_2(built)} rows unexpected"
    ]
    examples = [line for line in lines if line.startswith("          e.g. ")]
    assert len(examples) == len(deletes)
    for row in deletes:
        assert any(f"stream_id_hex={row.stream}, cdc_time={row.time}, batch_seq_no={row.seq}, ttl=60" in line
                   for line in examples)
    total = len(next(d for d in expectations.datasets() if d.name == "log_rows").expectations)
    assert lines[-1] == f"cdclake check: 1 of {total} expectations FAILED"


def _rows_not_op_1_or_2(spark) -> int:
    return spark.sql(
        "select count(distinct `cdc$stream_id`, `cdc$time`, `cdc$batch_seq_no`) as n "
        "from cdc_lake.cdc_log where `cdc$operation` not in (1, 2)"
    ).collect()[0].n


def test_missing_build_tables_exit_2_and_say_to_build(built, test_workspace, capsys, monkeypatch):
    assert check.missing_tables(built, ["cdc_lake.cdc_log", "cdc_lake.no_such_table", "no_such_schema.t"]) == [
        "cdc_lake.no_such_table", "no_such_schema.t"]
    monkeypatch.setattr(expectations, "REQUIRED_TABLES", expectations.REQUIRED_TABLES + ["cdc_lake.no_such_table"])
    assert check.run(commands.parse(["check", "--docs-dir", str(test_workspace / "gx_docs_missing")]), spark=built) == 2
    assert "cdc_lake.no_such_table): run `cdclake build` first" in capsys.readouterr().err
    assert check.run(commands.parse(["check", "--only", "log_row"]), spark=built) == 2
    assert "unknown dataset log_row; the datasets are log_rows, batch_sequences" in capsys.readouterr().err
