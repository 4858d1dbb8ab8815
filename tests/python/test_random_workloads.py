"""Random workloads through `cdclake replay`: random tables and random statement sequences
(random_cql.py), several keyspaces in one replay. The dbt build's tests must pass -- among them
the log round trip (replaying the log rebuilds the base state) -- every log table must keep
the log's invariants, and every state table must hold the rows the front door's own state of
the mutations gives."""
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
    """All generated workloads in one replay: dbt's tests (the round trip among them) pass, the
    log tables keep the log's invariants and the state tables match the front door's state."""
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
    check_state_tables(result.consumer_rows, script, [table for table, _ in GENERATED if "'delta': 'keys'" not in table.options])


def check_state_tables(consumer_rows: dict[str, list[dict]], script: str, tables: list) -> None:
    """Each state table holds the rows the front door's own state of the base table gives
    (cdclake/cql/table_state.py, which answers its reads before writes: a second, independent
    merge of the accepted mutations) at the state's time, the newest write."""
    from cdclake.cql.interpreter import catalog_of, run_script
    from cdclake.cql.table_state import TableState

    catalog = catalog_of(script_of([(table, []) for table in tables]))
    atoms = run_script(script, now_us=NOW_US, step_us=STEP_US).atoms
    state = TableState()
    state.record(atoms)
    as_of_us = max(a.write_timestamp for a in atoms)
    compared = 0
    for random_table in tables:
        table = catalog.table(random_table.keyspace, "t")
        expected = expected_consumer_table_rows(state, table, atoms, as_of_us)
        columns = [c.name for c in table.partition_key + table.clustering + table.static + table.regular]
        actual = [plain({c: row[c] for c in columns}) for row in consumer_rows[f"{random_table.keyspace}.t_state"]]
        assert sorted(map(repr, actual)) == sorted(map(repr, expected)), f"{random_table.name}_state"
        compared += len(expected)
    assert compared > 0, "the workloads left no row to compare"


def expected_consumer_table_rows(state, table, atoms, as_of_us: int) -> list[dict]:
    """The table as a SELECT shows it: each live row with its partition's static columns, a
    partition with only static cells as one row without clustering key."""
    from python_udfs.cql_values import loads_json

    written = {tuple(loads_json(a.partition_key)[c.name] for c in table.partition_key): None
               for a in atoms if (a.keyspace_name, a.table_name) == (table.keyspace, table.name)}
    rows_of = defaultdict(list)
    for partition_key, clustering in state.rows(table):
        rows_of[partition_key].append(clustering)
    expected = []
    for partition_key in written:
        static = state.read_row(table, partition_key, None, as_of_us).values if table.static else {}
        reads = [(clustering, state.read_row(table, partition_key, clustering, as_of_us))
                 for clustering in rows_of[partition_key]]
        live = [(clustering, read.values) for clustering, read in reads if read.exists]
        if not live and static:
            live = [(tuple(None for _ in table.clustering), {})]
        for clustering, values in live:
            row = {c.name: v for c, v in zip(table.partition_key + table.clustering, partition_key + clustering)}
            row.update({c.name: static.get(c.name) for c in table.static})
            row.update({c.name: values.get(c.name) for c in table.regular})
            expected.append(plain(row))
    return expected


def plain(value):
    """A value of the JSON model ({"set": [...]}, {"udt": {...}}, ...) or as Spark returns it,
    as plain Python: collections as lists and dicts, tuples and user types as dicts of their
    fields, null fields left out; every dict in the order of its keys' reprs, since a map comes
    back from Spark's collect() in the order of a Java HashMap, not the table's."""
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)) in ("list", "set"):
            return [plain(v) for v in next(iter(value.values()))]
        if len(value) == 1 and next(iter(value)) == "map":
            return in_key_order((plain(k), plain(v)) for k, v in value["map"])
        if len(value) == 1 and next(iter(value)) == "tuple":
            return plain({f"f{i}": v for i, v in enumerate(value["tuple"])})
        if len(value) == 1 and next(iter(value)) == "udt":
            return plain(value["udt"])
        return in_key_order((k, plain(v)) for k, v in value.items() if v is not None)
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def in_key_order(items) -> dict:
    return dict(sorted(items, key=lambda item: repr(item[0])))


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
