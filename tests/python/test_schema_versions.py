"""Schema changes in the middle of a script: each write is judged, logged and imaged with the
table's schema version it was applied with (base_tables/base_columns.schema_version)."""
from __future__ import annotations

import pytest

SCRIPT = """
CREATE KEYSPACE versions WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};
CREATE TABLE versions.t (pk int PRIMARY KEY, v int, w int);
INSERT INTO versions.t (pk, v, w) VALUES (0, 1, 1);
ALTER TABLE versions.t WITH cdc = {'enabled': true, 'preimage': 'full'};
UPDATE versions.t SET v = 2 WHERE pk = 0;
ALTER TABLE versions.t DROP w;
UPDATE versions.t SET v = 3 WHERE pk = 0;
ALTER TABLE versions.t WITH cdc = {'enabled': false};
UPDATE versions.t SET v = 4 WHERE pk = 0;
ALTER TABLE versions.t WITH cdc = {'enabled': true};
UPDATE versions.t SET v = 5 WHERE pk = 0;
"""


@pytest.fixture(scope="module")
def replayed(shared_replay):
    """The scenario runs in conftest's shared replay, in keyspace `versions`."""
    result, _ = shared_replay
    return result


def test_every_write_is_accepted_under_its_own_version(replayed):
    assert not [e for e in replayed.statement_errors if "versions." in e.statement]
    assert not [w for w in replayed.rejected_writes if w["keyspace_name"] == "versions"]


def test_only_writes_made_while_cdc_was_on_are_logged_with_that_versions_options(replayed):
    rows = [r for r in replayed.log_rows if r["table"] == "versions.t_scylla_cdc_log"]
    shown = [(r["cdc$operation"], r["v"], r.get("cdc$deleted_v")) for r in rows]
    assert shown == [
        (0, 1, None),      # preimage full: the state the write before CDC left
        (1, 2, None),
        (0, 2, None),      # w is gone from the schema, v still pre-imaged
        (1, 3, None),
        (1, 5, None),      # after re-enabling with defaults: no pre-image; v = 4 was not logged
    ]


def test_the_log_table_follows_the_latest_schema(replayed):
    assert replayed.log_columns["versions.t_scylla_cdc_log"][-3:] == ["pk", "v", "cdc$deleted_v"]
