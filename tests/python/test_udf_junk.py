"""Every SQL function of the session returns a value (or null) per row for any input: junk in one
row never raises, so it can never fail a Spark task and with it a build.

The batch functions get what Spark's Arrow conversion hands them: a bigint/int column as int64,
or as float64 when the batch holds a null; strings, binaries and string arrays as objects."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python_udfs.registry import session_sql_functions
from python_udfs.sql_signature import sql_arguments

FUNCTIONS = session_sql_functions()
INT64 = st.integers(-(2**63), 2**63 - 1)
SMALL = st.integers(-5, 70)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
).map(json.dumps)
TYPE_TEXTS = st.sampled_from([
    "int", "bigint", "text", "blob", "uuid", "timeuuid", "decimal", "varint", "double", "float", "date",
    "time", "timestamp", "duration", "inet", "boolean", "map<int, text>", "set<text>", "list<int>",
    "frozen<list<int>>", "tuple<int, text>", "frozen<address>", "address", "no_such_type", "map<int", "",
])
STRINGS = st.one_of(st.none(), st.text(max_size=20), JSONISH, TYPE_TEXTS,
                    st.just("start_inclusive"), st.just("row"), st.just("{}"), st.just("{\"a\": 1}"),
                    st.just("pk=1"), st.just("{\"a\": " * 2000))


def column(sql_type: str, rows: int) -> st.SearchStrategy[pd.Series]:
    if sql_type in ("bigint", "int"):
        values = st.lists(st.one_of(st.none(), INT64 if sql_type == "bigint" else SMALL, SMALL),
                          min_size=rows, max_size=rows)
        return values.map(lambda v: pd.Series(v, dtype="float64") if None in v else pd.Series(v, dtype="int64"))
    if sql_type == "binary":
        return st.lists(st.none() | st.binary(max_size=20), min_size=rows, max_size=rows).map(
            lambda v: pd.Series(v, dtype=object))
    if sql_type == "boolean":
        return st.lists(st.none() | st.booleans(), min_size=rows, max_size=rows).map(lambda v: pd.Series(v, dtype=object))
    if sql_type == "array<string>":
        arrays = st.none() | st.lists(st.none() | TYPE_TEXTS | st.text(max_size=5), max_size=3).map(np.array)
        return st.lists(arrays, min_size=rows, max_size=rows).map(lambda v: pd.Series(v, dtype=object))
    assert sql_type == "string", sql_type
    return st.lists(STRINGS, min_size=rows, max_size=rows).map(lambda v: pd.Series(v, dtype=object))


@st.composite
def calls(draw):
    name = draw(st.sampled_from(sorted(FUNCTIONS)))
    rows = draw(st.integers(1, 4))
    arguments = [draw(column(sql_type, rows)) for _, sql_type in sql_arguments(FUNCTIONS[name])]
    return name, rows, arguments


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(calls())
def test_every_sql_function_returns_a_result_per_row_for_junk(call):
    name, rows, arguments = call
    result = FUNCTIONS[name](*arguments)
    assert len(result) == rows, name


def test_every_sql_function_is_exercised():
    """The junk test draws from every registered function (a new one joins automatically)."""
    assert {"cdc_json_members", "cdc_token_of_partition_key", "cdc_value_error", "cdc_key_error",
            "cdc_clustering_sort_key", "cdc_timeuuid", "cdc_shard_of"} <= set(FUNCTIONS)


def test_problem_texts_that_name_a_lone_surrogate_go_back_to_spark_as_utf8():
    """JSON can escape a lone surrogate (\\ud800), which Python reads into a str that UTF-8 (what
    a UDF's result is sent back to Spark as) cannot hold: the problem names it by its escape."""
    from python_udfs.input_checks import json_members, key_error, value_error

    value = value_error('"a\\ud800"', "text")
    key = key_error('{"\\udc00": 1}', ["ck"], ["int"], allow_prefix=False)
    assert value == 'expected text, got "a\\ud800": not valid UTF-8 (lone surrogate)'
    assert key == "unknown key column \\udc00 (the key columns are ck)"
    assert json_members('{"\\ud800": 1}') == {"\\ud800": "1"}
    for text in (value, key):
        text.encode("utf-8")
    assert json_members('{1: 2}') is None      # a member name that is no string: no JSON object
