"""Schema changes in the middle of a script: each write is judged, logged and imaged with the
table's schema version it was applied with (base_tables/base_columns.schema_version)."""
from __future__ import annotations

import pytest

NOW_US = 1_700_000_000_000_000

SCRIPT = """
CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};
CREATE TABLE ks.t (pk int PRIMARY KEY, v int, w int);
INSERT INTO ks.t (pk, v, w) VALUES (0, 1, 1);
ALTER TABLE ks.t WITH cdc = {'enabled': true, 'preimage': 'full'};
UPDATE ks.t SET v = 2 WHERE pk = 0;
ALTER TABLE ks.t DROP w;
UPDATE ks.t SET v = 3 WHERE pk = 0;
ALTER TABLE ks.t WITH cdc = {'enabled': false};
UPDATE ks.t SET v = 4 WHERE pk = 0;
ALTER TABLE ks.t WITH cdc = {'enabled': true};
UPDATE ks.t SET v = 5 WHERE pk = 0;
"""


@pytest.fixture(scope="module")
def replayed(spark, test_workspace):
    from cdclake.replay import replay

    result = replay(SCRIPT, now_us=NOW_US, step_us=1000, workspace=test_workspace / "schema_versions")
    assert result.dbt_succeeded
    return result


def test_every_write_is_accepted_under_its_own_version(replayed):
    assert replayed.audit["input_writes"] == replayed.audit["accepted_writes"] == 5
    assert replayed.audit["rejected_writes"] == 0


def test_only_writes_made_while_cdc_was_on_are_logged_with_that_versions_options(replayed):
    shown = [(r["cdc$operation"], r["v"], r.get("cdc$deleted_v")) for r in replayed.log_rows]
    assert shown == [
        (0, 1, None),      # preimage full: the state the write before CDC left
        (1, 2, None),
        (0, 2, None),      # w is gone from the schema, v still pre-imaged
        (1, 3, None),
        (1, 5, None),      # after re-enabling with defaults: no pre-image; v = 4 was not logged
    ]


def test_the_log_table_follows_the_latest_schema(replayed):
    assert replayed.log_columns["ks.t_scylla_cdc_log"][-3:] == ["pk", "v", "cdc$deleted_v"]
