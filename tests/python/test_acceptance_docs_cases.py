"""The 51 documentation cases of tests/data/cases_docs.json, through `cdclake replay`.

All cases share ONE replay (conftest's `shared_replay`): each gets its own keyspace (`ks` -> `ks_<n>`), its statements get
consecutive client-clock timestamps, and the expected `cdc$time` expressions (`t1`, `T+1`, ...)
are evaluated from those timestamps.
"""
from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field

import pytest

from conftest import TEST_DATA

CASES = json.loads((TEST_DATA / "cases_docs.json").read_text())["cases"]
NOW_US = 1_700_000_000_000_000
STEP_US = 1000
UUID_EPOCH_OFFSET = 0x01B21DD213814000


@dataclass
class CasePlan:
    case: dict
    keyspace: str
    symbols: dict = field(default_factory=dict)        # 't1' / 'T' -> micros
    first_statement: int = 0


def _rename_keyspace(cql: str, keyspace: str) -> str:
    return re.sub(r"\bks\.", f"{keyspace}.", cql)


def build_script(cases: list[dict]) -> tuple[str, list[CasePlan]]:
    """One script for all cases; statement k runs at NOW_US + k * STEP_US (the replay clock)."""
    statements, plans = [], []
    for n, case in enumerate(cases):
        plan = CasePlan(case=case, keyspace=f"ks_{n}")
        statements.append(
            f"CREATE KEYSPACE {plan.keyspace} WITH replication = "
            "{'class': 'NetworkTopologyStrategy', 'replication_factor': 1}"
        )
        statements += [_rename_keyspace(s, plan.keyspace) for s in case["setup"]]
        plan.first_statement = len(statements)
        for statement in case["statements"]:
            clock = NOW_US + len(statements) * STEP_US
            cql = _rename_keyspace(statement["cql"], plan.keyspace)
            if "{T" in cql:
                plan.symbols["T"] = clock
                cql = re.sub(r"\{T([+-]\d+)?\}", lambda m: str(clock + int(m.group(1) or 0)), cql)
            if "ts" in statement:
                plan.symbols[statement["ts"]] = clock
            statements.append(cql)
        plans.append(plan)
    return ";\n".join(statements) + ";\n", plans


def micros_of(expression: str, symbols: dict) -> int:
    m = re.fullmatch(r"\s*(\w+)\s*(?:([+-])\s*(\d+))?\s*", expression)
    base = symbols[m.group(1)]
    return base + (int(m.group(3)) * (1 if m.group(2) == "+" else -1) if m.group(2) else 0)


def timeuuid_micros(value: str) -> int:
    return (uuid.UUID(value).time - UUID_EPOCH_OFFSET) // 10


SYMBOLIC_LIST_KEY = re.compile(r"^(gen|genp)\((\w+),(\d+)\)$")
MICROS_2010 = 1_262_304_000_000_000


def matches(expected, actual, symbols) -> bool:
    """Equality, where `gen(ts,i)` / `genp(ts,i)` stand for list keys the server generates:
    a version-1 timeuuid at ts (append) or mirrored before 2010-01-01 (prepend); their order is
    checked by the sorted map they sit in."""
    if isinstance(expected, str) and SYMBOLIC_LIST_KEY.match(expected):
        kind, ts, _ = SYMBOLIC_LIST_KEY.match(expected).groups()
        if not isinstance(actual, str) or uuid.UUID(actual).version != 1:
            return False
        micros = timeuuid_micros(actual)
        return micros == symbols[ts] if kind == "gen" else micros < MICROS_2010
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(matches(expected[k], actual[k], symbols) for k in expected)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(matches(e, a, symbols) for e, a in zip(expected, actual))
    return expected == actual


@pytest.fixture(scope="module")
def replayed(shared_replay):
    return shared_replay


def test_corpus_is_complete():
    assert len(CASES) == 51


def test_replay_accounts_for_every_write(replayed):
    result, _ = replayed
    audit = result.audit
    assert audit["input_writes"] == audit["accepted_writes"] + audit["rejected_writes"]
    assert audit["rejected_writes"] == 0, result.rejected_writes


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_docs_case(case, replayed):
    result, plans = replayed
    plan = plans[case["id"]]
    check_expected_errors(case, plan, result)
    if "expect_log_schema" in case:
        check_log_schema(case, plan, result)
    if case["rows"] or case["complete"]:
        check_rows(case, plan, result)


def check_expected_errors(case, plan, result):
    messages = [str(e) for e in result.statement_errors]
    for statement in case["statements"]:
        expected = statement.get("expect_error")
        if expected:
            wanted = _rename_keyspace(expected["message"], plan.keyspace)
            assert any(wanted in m for m in messages), f"expected error {wanted!r}, got {messages}"


def check_log_schema(case, plan, result):
    """The log's columns in order with their CQL types (docs/scylla/log.md §2.2), or a subset of them."""
    expected = case["expect_log_schema"]
    table = _rename_keyspace(expected["table"], plan.keyspace)
    columns, types = result.log_columns[table], result.log_column_types[table]
    if "regular_subset" in expected:
        # present with these types; regular columns are in ScyllaDB's column-id (name) order,
        # the combined doc snippets list them in declaration order
        wanted = expected["regular_subset"]
        assert {name for name, _ in wanted} <= set(columns), (columns, wanted)
    else:
        wanted = expected["partition_key"] + expected["clustering_key"] + expected["regular"]
        assert columns == [name for name, _ in wanted]
    assert [(name, types[name]) for name, _ in wanted] == [(name, _rename_keyspace(cql, plan.keyspace))
                                                            for name, cql in wanted]


def _case_table(case, plan, result) -> str:
    tables = [t for t in result.log_columns if t.startswith(plan.keyspace + ".")]
    assert len(tables) == 1, f"expected one log table in {plan.keyspace}, got {tables}"
    return tables[0]


def check_rows(case, plan, result):
    table = _case_table(case, plan, result)
    actual = [r for r in result.log_rows if r["table"] == table]
    expected = case["rows"]
    columns = case["columns"]
    if case["complete"]:
        assert len(actual) == len(expected), _diff(actual, expected, columns)
    for got, want in zip(actual, expected):
        for column in columns:
            if column == "cdc$time":
                assert timeuuid_micros(got[column]) == micros_of(want[column], plan.symbols), \
                    _diff(actual, expected, columns)
            else:
                assert matches(want[column], got.get(column), plan.symbols), (column, _diff(actual, expected, columns))
        if case["complete"]:
            extra = {k: v for k, v in got.items()
                     if k not in columns and k not in ("table", "cdc$stream_id") and v is not None}
            assert not extra, f"unexpected non-null columns {extra}"


def _diff(actual, expected, columns) -> str:
    def show(rows):
        return "\n".join("  " + json.dumps({c: r.get(c) for c in columns}) for r in rows)
    return f"\nactual:\n{show(actual)}\nexpected:\n{show(expected)}"
