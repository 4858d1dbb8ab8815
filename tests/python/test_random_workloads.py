"""Random workloads through `cdclake replay`: random tables and random statement sequences
(random_cql.py), several keyspaces in one replay. The dbt build's tests must pass -- among them
the log round trip (replaying the log rebuilds the base state) -- and every log table must keep
the log's invariants."""
from __future__ import annotations

from collections import defaultdict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from random_cql import random_statements, random_tables

NOW_US = 1_700_000_000_000_000
STEP_US = 1000
GENERATED: list[tuple] = []          # (table, statements) drawn by the front-door test


def script_of(chosen) -> str:
    statements = []
    for table, writes in chosen:
        statements.append(f"CREATE KEYSPACE {table.keyspace} WITH replication = "
                          "{'class': 'NetworkTopologyStrategy', 'replication_factor': 1}")
        statements += table.ddl() + writes
    return ";\n".join(statements) + ";\n"


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_workloads_run_through_the_front_door(data):
    """Every generated statement is supported; each workload is kept for the replay below."""
    from cdclake.cql.interpreter import run_script

    keyspace = f"rnd_{len(GENERATED)}"
    table = data.draw(random_tables(keyspace))
    writes = data.draw(random_statements(table, NOW_US))
    result = run_script(script_of([(table, writes)]), now_us=NOW_US, step_us=STEP_US)
    assert result.tables and result.tables[0].cdc_enabled
    GENERATED.append((table, writes))


def test_random_workloads_replay_and_round_trip(test_workspace):
    """All generated workloads in one replay: dbt's tests (the round trip among them) pass and
    the log tables keep the log's invariants."""
    from cdclake.replay import replay

    if not GENERATED:
        test_random_workloads_run_through_the_front_door()
    script = script_of(GENERATED)
    (test_workspace / "random_workloads.cql").write_text(script)
    result = replay(script, now_us=NOW_US, step_us=STEP_US, workspace=test_workspace / "random_replay")
    assert result.dbt_succeeded, "dbt build (its tests include the log round trip) failed: see random_workloads.cql"
    assert result.audit["input_writes"] == result.audit["accepted_writes"] + result.audit["rejected_writes"]
    assert result.audit["rejected_writes"] == 0, result.rejected_writes
    assert len(result.log_rows) > 10 * len(GENERATED) // 2
    keys_only = {f"{table.keyspace}.t_scylla_cdc_log" for table, _ in GENERATED if "'delta': 'keys'" in table.options}
    check_log_invariants(result.log_rows, keys_only)


def check_log_invariants(rows: list[dict], keys_only: set[str]) -> None:
    groups = defaultdict(list)
    for row in rows:
        groups[(row["table"], row["cdc$stream_id"], row["cdc$time"])].append(row)
    for (table, _, _), group in groups.items():
        assert [r["cdc$batch_seq_no"] for r in group] == list(range(len(group)))
        assert [r["cdc$end_of_batch"] for r in group] == [None] * (len(group) - 1) + [True]
        phases = [0 if r["cdc$operation"] == 0 else 2 if r["cdc$operation"] == 9 else 1 for r in group]
        assert phases == sorted(phases), "pre-images, then deltas, then post-images"
        assert 1 in phases, "images only come with deltas"
        for row in group:
            op = row["cdc$operation"]
            assert op in range(10)
            assert row["cdc$ttl"] is None or op in (1, 2)
            valued = [c for c, v in row.items() if v is not None and (
                c.startswith("cdc$deleted_") or c.startswith("v") or c == "s")]
            if op in (0, 9):
                assert not any(c.startswith("cdc$deleted_elements_") for c in valued)
            if op == 9:
                assert not any(c.startswith("cdc$deleted_") for c in valued)
            if op in range(1, 9) and table in keys_only:
                assert not valued, f"delta 'keys' row with values: {row}"
            if op in (3, 4, 5, 6, 7, 8):
                assert not valued
