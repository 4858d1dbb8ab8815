"""Replay with a cluster history (a bootstrap mid-script) and with a skewed client clock."""
from __future__ import annotations

import json

import pytest
from conftest import REPO

from cdclake.generations.cluster_history import generations_from_history_file
from cdclake.generations.vnodes import lookup_stream
from python_udfs.tokens import token_of_partition_key

NOW_US = 1_700_000_000_000_000          # 2023-11-14 22:13:20 UTC
STEP_US = 30_000_000                     # 30 s per statement
HISTORY = REPO / "examples" / "cluster_history.yml"
SCRIPT = """
CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 3};
CREATE TABLE ks.t (pk text, ck int, v int, PRIMARY KEY (pk, ck)) WITH cdc = {'enabled': true};
UPDATE ks.t SET v = 1 WHERE pk = 'a' AND ck = 0;
UPDATE ks.t SET v = 2 WHERE pk = 'b' AND ck = 0;
UPDATE ks.t SET v = 3 WHERE pk = 'c' AND ck = 0;
UPDATE ks.t SET v = 4 WHERE pk = 'a' AND ck = 1;
"""


@pytest.fixture(scope="module")
def replays(spark, test_workspace):
    from cdclake.replay import replay

    # the log rows, the rejected writes and the audit: no self-checks needed (replay.build_args)
    with_history = replay(SCRIPT, now_us=NOW_US, step_us=STEP_US, generations=HISTORY,
                          workspace=test_workspace / "replay", self_checks=False)
    skewed = replay(SCRIPT, now_us=NOW_US, step_us=STEP_US, skew_us=-6_000_000,
                    workspace=test_workspace / "replay", self_checks=False)
    return with_history, skewed


def test_writes_follow_the_generation_operating_at_their_timestamp(replays):
    result, _ = replays
    generations = generations_from_history_file(HISTORY)
    assert [ts for ts, _ in generations] == [1699995600000, 1700000075000]   # bootstrap + 2 ring_delay + 5 s
    rows = result.log_rows
    assert len(rows) == 4 and not result.rejected_writes
    used = set()
    for row in rows:
        ts_ms = NOW_US // 1000 + (1 + row["v"]) * STEP_US // 1000
        generation_ts, entries = [g for g in generations if g[0] <= ts_ms][-1]
        used.add(generation_ts)
        token = token_of_partition_key(json.dumps({"pk": row["pk"]}), ["pk"], ["text"])
        assert lookup_stream(entries, token).hex() == row["cdc$stream_id"], row
    assert used == {1699995600000, 1700000075000}


def test_a_client_clock_ahead_of_the_coordinator_is_refused(replays):
    _, result = replays
    assert result.log_rows == []
    assert len(result.rejected_writes) == 4
    for rejected in result.rejected_writes:
        assert rejected["reason"] == "future"
        assert rejected["error_text"].startswith('cdc: attempted to get a stream "from the future"')
    assert result.audit["input_writes"] == result.audit["accepted_writes"] + result.audit["rejected_writes"]
