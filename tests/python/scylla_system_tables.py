"""What a ScyllaDB cluster keeps in its system tables and Cassandra does not, given to the tests'
Cassandra server (conftest's ``cassandra_server``) in keyspaces of the test's: ``scylla_tables``
(a table's CDC options), ``scylla_keyspaces`` and the CDC generation tables of
``system_distributed``. ``cdclake load cluster`` is pointed at them by ``--scylla-tables`` and
``--generations-keyspace`` (the server refuses new tables in ``system_schema`` and
``system_distributed``)."""
from __future__ import annotations

import yaml
from conftest import REPO

from cdclake.generations.cluster_history import parse_cluster_history


def create_scylla_tables(session, keyspace: str) -> None:
    """``scylla_tables`` and ``scylla_keyspaces`` as ScyllaDB's ``system_schema`` has them, in ``keyspace``."""
    session.execute(f"CREATE KEYSPACE IF NOT EXISTS {keyspace} WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    session.execute(f"CREATE TABLE {keyspace}.scylla_tables (keyspace_name text, table_name text, cdc map<text, text>, "
                    "tablets map<text, text>, PRIMARY KEY (keyspace_name, table_name))")
    session.execute(f"CREATE TABLE {keyspace}.scylla_keyspaces (keyspace_name text PRIMARY KEY, initial_tablets int)")


def set_cdc_options(session, keyspace: str, table_keyspace: str, table: str, *, enabled: bool = True,
                    preimage: str = "false", postimage: bool = False, delta: str = "full", ttl: int = 86400) -> None:
    """A table's CDC options in ``keyspace``'s ``scylla_tables``, as ScyllaDB keeps them (texts)."""
    session.execute(f"INSERT INTO {keyspace}.scylla_tables (keyspace_name, table_name, cdc) VALUES (%s, %s, %s)",
                    (table_keyspace, table, {"enabled": str(enabled).lower(), "preimage": preimage,
                                             "postimage": str(postimage).lower(), "delta": delta, "ttl": str(ttl)}))


def example_history():
    """The example cluster's history (examples/cluster_history.yml)."""
    return parse_cluster_history(yaml.safe_load((REPO / "examples" / "cluster_history.yml").read_text()))


def create_generation_tables(session, keyspace: str, generations) -> None:
    """``cdc_generation_timestamps`` and ``cdc_streams_descriptions_v2`` in ``keyspace``, holding
    ``generations`` ((timestamp, entries) each, as ``ClusterHistory.generations`` gives them)."""
    session.execute(f"CREATE KEYSPACE IF NOT EXISTS {keyspace} WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    session.execute(f"CREATE TABLE {keyspace}.cdc_generation_timestamps (key text, time timestamp, expired timestamp, "
                    "PRIMARY KEY (key, time))")
    session.execute(f"CREATE TABLE {keyspace}.cdc_streams_descriptions_v2 (time timestamp, range_end bigint, "
                    "streams frozen<set<blob>>, PRIMARY KEY (time, range_end))")
    for ts, entries in generations:
        session.execute(f"INSERT INTO {keyspace}.cdc_generation_timestamps (key, time) VALUES ('timestamps', %s)", (ts,))
        for entry in entries:
            session.execute(f"INSERT INTO {keyspace}.cdc_streams_descriptions_v2 (time, range_end, streams) "
                            "VALUES (%s, %s, %s)", (ts, entry.token_range_end, set(entry.streams)))
