"""The real CQL server of the tests (conftest's ``cassandra_server``: Apache Cassandra 5.0) serves
a table shaped like a ScyllaDB CDC log: its quoted ``cdc$`` columns, a timeuuid clustering key
and a collection, written and read back with scylla-driver; it refuses bad credentials."""
from __future__ import annotations

import uuid

import pytest
from cassandra import AuthenticationFailed
from cassandra.cluster import NoHostAvailable
from cassandra.util import uuid_from_time

pytestmark = pytest.mark.functional

KEYSPACE = "cassandra_server_test"
LOG_TABLE = f"""CREATE TABLE {KEYSPACE}.t_scylla_cdc_log (
    "cdc$stream_id" blob, "cdc$time" timeuuid, "cdc$batch_seq_no" int, "cdc$operation" tinyint,
    "cdc$ttl" bigint, "cdc$end_of_batch" boolean, v list<int>,
    PRIMARY KEY (("cdc$stream_id"), "cdc$time", "cdc$batch_seq_no"))"""


@pytest.fixture(scope="module")
def session(cassandra_server):
    cluster = cassandra_server.cluster()
    session = cluster.connect()
    session.execute(f"CREATE KEYSPACE IF NOT EXISTS {KEYSPACE} "
                    "WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
    yield session
    cluster.shutdown()


def test_serves_cql(session):
    assert session.execute("SELECT release_version FROM system.local").one().release_version.startswith("5.0")


def test_a_cdc_log_shaped_table_round_trips(session):
    session.execute(LOG_TABLE)
    stream = bytes(range(16))
    times = [uuid_from_time(1_700_000_000 + second) for second in (1, 2)]
    rows = [(stream, times[0], 0, 2, None, False, [1, 2]), (stream, times[0], 1, 1, 3600, True, None),
            (stream, times[1], 0, 3, None, True, [3])]
    insert = session.prepare(f'INSERT INTO {KEYSPACE}.t_scylla_cdc_log ("cdc$stream_id", "cdc$time", '
                             '"cdc$batch_seq_no", "cdc$operation", "cdc$ttl", "cdc$end_of_batch", v) '
                             'VALUES (?, ?, ?, ?, ?, ?, ?)')
    for row in rows:
        session.execute(insert, row)
    read = session.execute(f'SELECT "cdc$stream_id", "cdc$time", "cdc$batch_seq_no", "cdc$operation", "cdc$ttl", '
                           f'"cdc$end_of_batch", v FROM {KEYSPACE}.t_scylla_cdc_log WHERE "cdc$stream_id" = %s',
                           (stream,))
    assert [tuple(row) for row in read] == rows
    assert isinstance(rows[0][1], uuid.UUID) and rows[0][1].version == 1


def test_bad_credentials_are_refused(cassandra_server):
    cluster = cassandra_server.cluster(password="wrong")
    try:
        with pytest.raises(NoHostAvailable) as refused:
            cluster.connect()
    finally:
        cluster.shutdown()
    assert any(isinstance(error, AuthenticationFailed) for error in refused.value.errors.values())
