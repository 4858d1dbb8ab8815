"""Robustness of the CQL front door: any input either runs or fails with a ``CqlError``."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cdclake.cql import CqlError, parse_script, run_script

VOCABULARY = [
    "SELECT", "INSERT", "INTO", "UPDATE", "DELETE", "FROM", "WHERE", "SET", "VALUES", "AND", "IN", "IF", "NOT",
    "EXISTS", "USING", "TTL", "TIMESTAMP", "BEGIN", "BATCH", "APPLY", "CREATE", "TABLE", "TYPE", "PRIMARY", "KEY",
    "WITH", "frozen", "list", "map", "int", "text", "static", "ks", ".", "t", "pk", "ck", "v", "(", ")", "[", "]",
    "{", "}", ",", ";", ":", "=", "<", ">=", "+", "-", "*", "?", "0", "-1", "1.5", "'x'", "0xff", "null", "true",
    "NaN", "1h", "0dd381f0-2fea-11eb-af55-000000000001", '"Q"', "$$s$$",
]
SCHEMA = ("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};"
          "CREATE TABLE ks.t (pk int, ck int, s int static, v int, w text, f frozen<list<int>>, m map<int, text>, "
          "PRIMARY KEY (pk, ck));")
VALUES = st.sampled_from(["0", "1", "-1", "null", "'a'", "1.5", "[1]", "{1: 'a'}", "{}", "(1, 2)", "0x01", "true"])
COLUMNS = st.sampled_from(["pk", "ck", "s", "v", "w", "f", "m", "nope"])
OPERATORS = st.sampled_from(["=", "<", ">=", "IN"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), max_size=25))
def test_token_soup_parses_or_raises_a_syntax_error(words):
    try:
        parse_script(" ".join(words))
    except CqlError:
        pass


@st.composite
def relation(draw):
    column, operator, value = draw(COLUMNS), draw(OPERATORS), draw(VALUES)
    return f"{column} IN ({value}, {draw(VALUES)})" if operator == "IN" else f"{column} {operator} {value}"


@st.composite
def write(draw):
    where = " AND ".join(draw(st.lists(relation(), min_size=1, max_size=4)))
    kind = draw(st.sampled_from(["insert", "update", "delete"]))
    if kind == "insert":
        columns = draw(st.lists(COLUMNS, min_size=1, max_size=4))
        values = [draw(VALUES) for _ in columns]
        return f"INSERT INTO ks.t ({', '.join(columns)}) VALUES ({', '.join(values)})"
    if kind == "update":
        sets = ", ".join(f"{draw(COLUMNS)} = {draw(VALUES)}" for _ in range(draw(st.integers(1, 3))))
        return f"UPDATE ks.t SET {sets} WHERE {where}"
    targets = ", ".join(draw(st.lists(COLUMNS, max_size=2)))
    return f"DELETE {targets} FROM ks.t WHERE {where}"


@settings(max_examples=300, deadline=None)
@given(st.lists(write(), min_size=1, max_size=4))
def test_random_writes_run_or_fail_with_a_cql_error(writes):
    try:
        result = run_script(SCHEMA + ";\n".join(writes), now_us=1_700_000_000_000_000)
    except CqlError:
        return
    assert result.statements_run + len(result.errors) == 2 + len(writes)
