"""The SQL fast path of the value checks (macros/writes/value_checks.sql) equals the cdc_value_error
UDF's Python for every CQL type: on random and edge JSON texts, the SQL never vouches for a value
the UDF refuses, and the check as int_mutation_atoms_validated runs it (the fast path, then the
UDF on what it cannot vouch for) gives the UDF's problem text for every value."""
from __future__ import annotations

import json
import random
import string

import pytest

from cdclake.project.compiled_models import compiled_inline_sql
from python_udfs.input_checks import value_error

# the scalar types the fast path reads, with the types it leaves to the UDF
FAST_TYPES = ["tinyint", "smallint", "int", "bigint", "counter", "timestamp", "varint", "decimal", "double",
              "float", "boolean", "text", "varchar", "ascii", "uuid", "timeuuid", "blob"]
OTHER_TYPES = ["date", "time", "duration", "inet", "list<int>", "set<text>", "map<int, text>", "frozen<list<int>>",
               "tuple<int, text>", "empty"]
CHECK_SQL = """
select value, cql_type,
    {{ cdc_value_is_plain('value', 'cql_type') }} as is_plain,
    {{ cdc_checked_value_error('value', 'cql_type', 'user_types_json') }} as problem
from value_check_cases
"""
INTEGER_LIMITS = {"tinyint": 7, "smallint": 15, "int": 31, "bigint": 63, "counter": 63, "timestamp": 63}


def integer_texts(rng: random.Random) -> list[str]:
    texts = []
    for bits in (7, 15, 31, 63, 200):
        low, high = -(1 << bits), (1 << bits) - 1
        texts += [str(v) for v in (low, low - 1, high, high + 1, low // 3, high // 7)]
    texts += [str(rng.randint(-10**30, 10**30)) for _ in range(300)]
    texts += [str(rng.randint(-1000, 1000)) for _ in range(100)]
    texts += ["0", "-0", "00", "01", "-01", "+1", " 1", "1 ", "1.0", "1e3", "1E3", "-", "", "1" * 1001, "1" * 4400]
    return texts


def number_texts(rng: random.Random) -> list[str]:
    texts = [f"{rng.uniform(-1e6, 1e6):.{rng.randint(0, 15)}f}" for _ in range(200)]
    texts += [f"{rng.randint(0, 10**15)}.{rng.randint(0, 10**15)}" for _ in range(100)]
    texts += ["1.5", "-0.0", "0.", ".5", "1.", "1e-7", "3.4e38", "1e39", "-1.7976931348623157e308", "1e309",
              "1234567890123456.5", "0." + "1" * 16, "1" * 16 + ".0", "NaN", '"NaN"', '"Infinity"', '"-Infinity"']
    return texts


def string_texts(rng: random.Random) -> list[str]:
    alphabet = string.printable + "éß中😀\u007f"
    texts = [json.dumps("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))), ensure_ascii=rng.random() < 0.3)
             for _ in range(300)]
    texts += ['""', '"a"', '"a"b"', '"a\\"b"', '"a\\\\b"', '"tab\there"', '"nl\nhere"', '"\\u0041"', '"\\ud800"',
              '"é"', '"\u007f"', '"~"', '" "', "'a'", "a", '"a', 'a"', '"a" ', ' "a"', '"\\x41"', "null", "1", "true"]
    return texts


def uuid_texts(rng: random.Random) -> list[str]:
    def uuid_text(version: str) -> str:
        hex_digits = "".join(rng.choice("0123456789abcdefABCDEF") for _ in range(31))
        text = hex_digits[:12] + version + hex_digits[12:]
        return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"
    texts = [json.dumps(uuid_text(rng.choice("0123456789abcdef"))) for _ in range(200)]
    texts += ['"123e4567-e89b-12d3-a456-426614174000"', '"123e4567e89b12d3a456426614174000"',
              '"123e4567-e89b-12d3-a456-42661417400"', '"{123e4567-e89b-12d3-a456-426614174000}"',
              '"123E4567-E89B-12D3-A456-426614174000"', '"123e4567-e89b-12d3-a456-426614174000 "']
    return texts


def blob_texts(rng: random.Random) -> list[str]:
    texts = [json.dumps("0" + rng.choice("xX") + "".join(rng.choice("0123456789abcdefABCDEFg")
                                                          for _ in range(rng.randint(0, 9)))) for _ in range(200)]
    return texts + ['"0x"', '"0X0a"', '"0x0"', '"x00"', '"00"', "0x00", '"0x00 "']


def cases() -> list[tuple[str, str]]:
    rng = random.Random(52)
    texts = (integer_texts(rng) + number_texts(rng) + string_texts(rng) + uuid_texts(rng) + blob_texts(rng)
             + ["true", "false", "True", "FALSE", "null", '"true"', "{}", "[]", '{"list": [1]}', '{"set": ["a"]}',
                '"2024-02-29"', '"2023-02-29"', '"1.2.3.4"', '"1mo2d"', "86399999999999", '""'])
    return [(text, cql_type) for cql_type in FAST_TYPES + OTHER_TYPES for text in texts]


@pytest.fixture(scope="module")
def checked(spark) -> list:
    spark.createDataFrame([(text, cql_type, None) for text, cql_type in cases()],
                          "value string, cql_type string, user_types_json string") \
        .createOrReplaceTempView("value_check_cases")
    return spark.sql(compiled_inline_sql(CHECK_SQL)).collect()


def test_the_fast_path_vouches_only_for_values_the_udf_accepts(checked):
    wrong = [(r.cql_type, r.value, value_error(r.value, r.cql_type)) for r in checked
             if r.is_plain and value_error(r.value, r.cql_type) is not None]
    assert not wrong, wrong[:10]


def test_the_checked_value_error_is_the_udfs_for_every_type(checked):
    wrong = [(r.cql_type, r.value, r.problem, value_error(r.value, r.cql_type)) for r in checked
             if r.problem != value_error(r.value, r.cql_type)]
    assert not wrong, wrong[:10]


def test_the_fast_path_takes_the_common_values_of_every_type_it_reads(checked):
    """Not a vacuous fast path: each type it reads vouches for some of its values, the others none."""
    plain_types = {r.cql_type for r in checked if r.is_plain}
    assert plain_types == set(FAST_TYPES)
    counts = {cql_type: sum(r.is_plain for r in checked if r.cql_type == cql_type) for cql_type in FAST_TYPES}
    assert min(counts.values()) >= 2, counts
