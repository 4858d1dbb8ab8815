"""The remaining vectors of tests/data/vectors_math.json: ``token_midpoint``,
``limit_number_of_streams_if_needed``, ``new_generation_timestamp`` (docs/scylla/math.md §4),
``cdc_metadata_get_stream`` (§6) and ``v1_rewrite_selection`` (§7.3), one test case per vector id.
``test_every_oracle_vector_is_covered`` fails if a vector of these functions has no test."""
from __future__ import annotations

import json

import pytest
from conftest import TEST_DATA

from cdclake.generations import admission
from cdclake.generations.admission import cdc_metadata_get_stream, format_timestamp, streams_available
from cdclake.generations.v1_rewrite import CdcLogTable, should_try_rewrite, v1_rewrite_selection
from cdclake.generations.vnodes import (
    V1_STREAMS_LIMIT,
    limit_number_of_streams_if_needed,
    limited_stream_counts,
    locate_stream,
    lookup_stream,
    make_generation,
    new_generation_timestamp,
    ring_tokens_by_node,
    sharding_info_by_owner,
)
from python_udfs.sharding import shard_of, token_midpoint
from python_udfs.stream_ids import decode_stream_id

VECTORS = json.loads((TEST_DATA / "vectors_math.json").read_text())["vectors"]
EXPECTED_COUNTS = {"token_midpoint": 3, "limit_number_of_streams_if_needed": 5, "new_generation_timestamp": 3,
                   "cdc_metadata_get_stream": 22, "v1_rewrite_selection": 6}


def vectors_of(function: str) -> list:
    return [pytest.param(v, id=v["id"]) for v in VECTORS if v["function"] == function]


# --------------------------------------------------------------------------------------------- §2/§4

@pytest.mark.parametrize("vector", vectors_of("token_midpoint"))
def test_token_midpoint(vector):
    inputs = vector["inputs"]
    assert token_midpoint(inputs["t1"], inputs["t2"]) == vector["expected"]["midpoint"]


def expand_counts(spec) -> list[int]:
    """Vectors write long lists as {"len": n, "values": [v]} (the value repeated n times)."""
    if isinstance(spec, list):
        return spec
    values = spec["values"]
    return [values[i % len(values)] for i in range(spec["len"])]


@pytest.mark.parametrize("vector", vectors_of("limit_number_of_streams_if_needed"))
def test_limit_number_of_streams_if_needed(vector):
    counts = expand_counts(vector["inputs"]["streams_per_vnode"])
    assert limited_stream_counts(counts) == expand_counts(vector["expected"]["streams_per_vnode"])


@pytest.mark.parametrize("vector", vectors_of("new_generation_timestamp"))
def test_new_generation_timestamp(vector):
    inputs = vector["inputs"]
    assert new_generation_timestamp(inputs["now_ms"], inputs["add_delay"], inputs["ring_delay_ms"]) == \
        vector["expected"]["ts_ms"]


def test_new_generation_timestamp_default_ring_delay_is_65_s():
    assert new_generation_timestamp(1_000, True) == 66_000
    assert new_generation_timestamp(1_000, False) == 1_000


def test_limit_regenerates_only_oversized_vnodes_and_keeps_lookup_consistent():
    """cdc_generation_test.cc invariants with a small cap: per-vnode cap = limit // #vnodes, same
    index and ignore_msb, tokens are the first tokens of the new (smaller) shard count."""
    by_node = ring_tokens_by_node(2, 8, seed="limit")
    tokens = sorted(t for node in by_node for t in node)
    entries = make_generation(tokens, sharding_info_by_owner(by_node, [(12, 12), (3, 0)]), lambda i, s: i * 100 + s)
    limited = limit_number_of_streams_if_needed(entries, lambda i, s: 7_000 + i * 100 + s, limit=80)
    per_vnode = 80 // len(entries)                        # 5
    assert [len(e.streams) for e in limited] == [min(len(e.streams), per_vnode) for e in entries]
    for before, after in zip(entries, limited):
        assert (after.index, after.token_range_end, after.ignore_msb) == \
            (before.index, before.token_range_end, before.ignore_msb)
        if len(before.streams) <= per_vnode:
            assert after.streams == before.streams
        else:
            fresh = make_generation(tokens, lambda _end: (per_vnode, before.ignore_msb),
                                    lambda i, s: 7_000 + i * 100 + s)[before.index]
            assert after.streams == fresh.streams
            assert all(decode_stream_id(s).index == before.index for s in after.streams)
    for token in tokens + [t + 1 for t in tokens[:-1]]:
        position, shard = locate_stream(limited, token)
        entry = limited[position]
        fields = decode_stream_id(lookup_stream(limited, token))
        assert fields.index == entry.index
        assert shard_of(fields.token, len(entry.streams), entry.ignore_msb) == shard
    assert limit_number_of_streams_if_needed(entries, lambda i, s: 0) == entries   # under the real cap
    assert V1_STREAMS_LIMIT == 262144


# --------------------------------------------------------------------------------------------- §6

MESSAGE_KIND = {
    "from the future": admission.FUTURE,
    "from the past": admission.PAST,
    "earlier generation than the currently used one": admission.EARLIER,
    "could not find any CDC stream for timestamp": admission.NOT_FOUND,
    "could not find any CDC stream (current time)": admission.NOT_FOUND_OLD,
    "generation known but not retrieved": admission.UNRETRIEVED,
}
RESULT_CLASS = {"invalid_request": admission.INVALID_REQUEST, "runtime_error": admission.SERVER_ERROR}
TEXT_MARK = {
    admission.FUTURE: 'attempted to get a stream "from the future"',
    admission.PAST: 'attempted to get a stream "from the past"',
    admission.EARLIER: "from an earlier generation than the currently used one",
    admission.NOT_FOUND: "could not find any CDC stream for timestamp",
    admission.NOT_FOUND_OLD: "could not find any CDC stream (current time:",
    admission.UNRETRIEVED: "but weren't able to retrieve",
}


def generations_of(vector) -> dict:
    known = {"data known": [], "prepared only (data not retrieved)": None}
    return {int(ts): known[state] for ts, state in vector["inputs"]["generations_us"].items()}


@pytest.mark.parametrize("rule,expected_key", [(admission.CURRENT, "since_2024_pr17134"),
                                               (admission.PRE_2024, "before_2024")])
@pytest.mark.parametrize("vector", vectors_of("cdc_metadata_get_stream"))
def test_cdc_metadata_get_stream(vector, rule, expected_key):
    inputs, expected = vector["inputs"], vector["expected"][expected_key]
    verdict = cdc_metadata_get_stream(generations_of(vector), inputs["now_us"], inputs["write_ts_us"],
                                      rule=rule, leeway_us=inputs["leeway_us"])
    if expected["result"] == "ok":
        assert verdict.accepted and verdict.kind == admission.OK
        assert verdict.generation_ts_us == expected["generation_ts_us"]
        assert verdict.message is None and verdict.error_class is None
    else:
        assert verdict.kind == MESSAGE_KIND[expected["message_kind"]]
        assert verdict.error_class == RESULT_CLASS[expected["result"]]
        assert TEXT_MARK[verdict.kind] in verdict.message
        assert format_timestamp(inputs["write_ts_us"]) in verdict.message or verdict.kind == admission.NOT_FOUND_OLD
    if "generations_left_after_gc_us" in expected:
        assert list(verdict.generations_left_after_gc_us) == expected["generations_left_after_gc_us"]


def test_format_timestamp():
    assert format_timestamp(1585152329483000) == "2020/03/25 16:05:29"
    assert format_timestamp(0) == "1970/01/01 00:00:00"
    assert format_timestamp(1_999_999) == "1970/01/01 00:00:01"
    assert format_timestamp(-1_500_000) == "1969/12/31 23:59:59"          # truncated toward zero
    assert format_timestamp(1585152329483000, fractional=True) == "2020/03/25 16:05:29.483000"


def test_docs_earlier_generation_message_verbatim():
    """cdc-stream-generations.rst: a write 1 ms before the newest generation, pre-2024 rule."""
    gens = {1585140283006000: [], 1585152329484000: []}
    verdict = cdc_metadata_get_stream(gens, now_us=1585152331939000, write_ts_us=1585152329483000,
                                      rule=admission.PRE_2024)
    assert verdict.error_class == "InvalidRequest"
    assert verdict.message == (
        "cdc: attempted to get a stream from an earlier generation than the currently used one. With CDC you "
        "cannot send writes with timestamps too far into the past, because that would break consistency "
        "properties (write timestamp: 2020/03/25 16:05:29, current generation started at: 2020/03/25 16:05:29)")
    assert cdc_metadata_get_stream(gens, 1585152331939000, 1585152329484000, rule=admission.PRE_2024).accepted


def test_exact_error_texts():
    now = 1_700_000_000_000_000
    future = cdc_metadata_get_stream({0: []}, now, now + 5_000_001)
    assert future.message == (
        'cdc: attempted to get a stream "from the future" (2023/11/14 22:13:25; current server time: '
        "2023/11/14 22:13:20). With CDC you cannot send writes with timestamps arbitrarily into the future, "
        "because we don't know what streams will be used at that time.\nWe *do* allow sending writes into the "
        "near future, but our ability to do that is limited. If you really must use your own timestamps, then "
        "make sure your clocks are well-synchronized  with the database's clocks.")
    past = cdc_metadata_get_stream({}, now, now - 10_000_000)
    assert past.message == (
        'cdc: attempted to get a stream "from the past" (2023/11/14 22:13:10; current server time: '
        "2023/11/14 22:13:20). With CDC you cannot send writes with timestamps too far into the past, because "
        "that would break consistency properties.\nWe *do* allow sending writes into the near past, but our "
        "ability to do that is limited. Are you using client-side timestamps? Make sure your clocks are "
        "well-synchronized with the database's clocks.")
    assert cdc_metadata_get_stream({}, now, now).message == (
        "cdc::metadata::get_stream: could not find any CDC stream for timestamp 2023/11/14 22:13:20. "
        "Are we in the middle of a cluster upgrade?")
    assert cdc_metadata_get_stream({}, now, now, rule=admission.PRE_2024).message == (
        "cdc::metadata::get_stream: could not find any CDC stream (current time: 2023/11/14 22:13:20). "
        "Are we in the middle of a cluster upgrade?")
    unretrieved = cdc_metadata_get_stream({0: [], now - 1_000_000: None}, now, now)
    assert unretrieved.error_class == "ServerError"
    assert unretrieved.message == (
        "cdc: attempted to get a stream from a generation that we know about, but weren't able to retrieve "
        "(generation timestamp: 2023/11/14 22:13:19, write timestamp: 2023/11/14 22:13:20). Make sure that "
        "the replicas which contain this generation's data are alive and reachable from this node.")


def test_get_stream_returns_the_stream_of_the_serving_generation():
    by_node = ring_tokens_by_node(1, 4, seed="admission")
    tokens = sorted(by_node[0])
    old = make_generation(tokens, lambda _e: (2, 12), lambda i, s: 1)
    new = make_generation(tokens, lambda _e: (2, 12), lambda i, s: 2)
    verdict = cdc_metadata_get_stream({0: old, 98_000_000: new}, 100_000_000, 97_000_000, token=12345)
    assert verdict.generation_ts_us == 0 and verdict.stream_id == lookup_stream(old, 12345)
    assert streams_available({0: old}, 100) and not streams_available({200: old}, 100)
    with pytest.raises(ValueError):
        cdc_metadata_get_stream({}, 0, 0, rule="2019")


# --------------------------------------------------------------------------------------------- §7.3

@pytest.mark.parametrize("vector", vectors_of("v1_rewrite_selection"))
def test_v1_rewrite_selection(vector):
    inputs = vector["inputs"]
    tables = [CdcLogTable(t["creation_ms"], t["ttl_s"]) for t in inputs["cdc_log_tables"]]
    result = v1_rewrite_selection(inputs["now_ms"], inputs["v1_generation_ts_ms"], tables)
    expected = vector["expected"]["rewrite_ts_ms"]
    if isinstance(expected, str):
        assert expected.startswith("nothing") and result is None
    else:
        assert result == expected


def test_v1_rewrite_selection_sorts_and_uses_every_table():
    tables = [CdcLogTable(1_000_000, 0)]
    assert v1_rewrite_selection(2_000_000, [3_000_000, 500_000, 1_500_000], tables) == [500_000, 1_500_000, 3_000_000]
    # bound = 1_000_000 - 10_000: 990_000 is too old (bound >= ts), 990_001 is not
    assert v1_rewrite_selection(2_000_000, [100, 990_000, 990_001], tables) == [990_000, 990_001]
    assert should_try_rewrite(True, False, False)
    assert not should_try_rewrite(False, False, False) and not should_try_rewrite(True, True, False)
    assert not should_try_rewrite(True, False, True)


# --------------------------------------------------------------------------------------------- coverage

COVERED_HERE = {
    "token_midpoint": test_token_midpoint,
    "limit_number_of_streams_if_needed": test_limit_number_of_streams_if_needed,
    "new_generation_timestamp": test_new_generation_timestamp,
    "cdc_metadata_get_stream": test_cdc_metadata_get_stream,
    "v1_rewrite_selection": test_v1_rewrite_selection,
}


def test_every_oracle_vector_is_covered(math_vectors):
    for function, test in COVERED_HERE.items():
        marks = [m for m in test.pytestmark if m.name == "parametrize" and m.args[0] == "vector"]
        (mark,) = marks
        ids = [param.id for param in mark.args[1]]
        expected_ids = [v["id"] for v in math_vectors if v["function"] == function]
        assert ids == expected_ids and len(ids) == EXPECTED_COUNTS[function], function
        print(f"{function}: {len(ids)} vectors")
