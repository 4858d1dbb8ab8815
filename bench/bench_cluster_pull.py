"""`cdclake load cluster --what log` against a plain read of the same log table with the
connector, in the same run: a Cassandra 5.0 node (tests/python/cassandra_server.py) holds a CDC
log table of ROWS log rows (64 streams, a text, an int and a map column); the baseline reads all
of it through the connector into nothing (Spark's `noop` sink), the pull reads it, turns each row
into the contract's long rows and appends them to Delta with its mark: into a new table (the
first pull of a warehouse), then into the table emptied by an overwrite (any later pull). Each
figure is the faster of two runs.

    python bench_cluster_pull.py [ROWS]        (default 200000)
"""
from __future__ import annotations

import os
import random
import shutil
import sys
import time
import uuid
from pathlib import Path

from _common import BENCH_DIR, report, timed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
SCHEMA = """
CREATE KEYSPACE bench WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};
CREATE TABLE bench.t (k int, c int, v text, n int, m map<int, text>, PRIMARY KEY (k, c))
    WITH cdc = {'enabled': true};
"""


def fill(server) -> None:
    from cassandra.concurrent import execute_concurrent_with_args

    from cdclake.load.log_load import _log_table_ddl
    from cdclake.load.schema_load import load_schema_text
    from cdclake.logschema import log_table_columns

    load = load_schema_text(SCHEMA, "bench", 1_700_000_000_000_000, ([], [], []))
    ddl = _log_table_ddl("bench", "t", log_table_columns("bench", "t", load.columns, load.types), load.types)
    session = server.cluster().connect()
    for statement in filter(str.strip, ddl.split(";")):
        session.execute(statement)
    insert = session.prepare('INSERT INTO bench.t_scylla_cdc_log ("cdc$stream_id", "cdc$time", "cdc$batch_seq_no", '
                             '"cdc$operation", "cdc$ttl", "cdc$end_of_batch", k, c, v, n, m) '
                             'VALUES (?, ?, 0, 2, null, true, ?, ?, ?, ?, ?)')
    rng = random.Random(56)
    streams = [rng.randbytes(16) for _ in range(64)]
    start_ticks = (1_700_000_000_000_000 * 10) + 0x01B21DD213814000
    args = []
    for number in range(ROWS):
        ticks = start_ticks + number * 10
        time_uuid = uuid.UUID(fields=(ticks & 0xFFFFFFFF, (ticks >> 32) & 0xFFFF, 0x1000 | (ticks >> 48), 0x80, 0x80,
                                      rng.randrange(1 << 48)))
        args.append((rng.choice(streams), time_uuid, number, number % 100, f"value {number}", number,
                     {1: "a", 2: "b"}))
    execute_concurrent_with_args(session, insert, args, concurrency=64)
    session.cluster.shutdown()
    return load


def main() -> None:
    from cassandra_server import CassandraServer
    from conftest import free_port

    from cdclake import settings
    from cdclake.cluster.connection import cluster_from_options, connector_session, read_table
    from cdclake.cluster.log_pull import pull_logs
    from cdclake.load import inputs

    folder = BENCH_DIR / "cluster_pull"
    shutil.rmtree(folder, ignore_errors=True)
    server = CassandraServer(folder / "cassandra", free_port(), free_port()).start()
    try:
        results: dict[str, float] = {}
        with timed(results, "fill"):
            load = fill(server)
        os.environ.update(CDCLAKE_CLUSTER_USERNAME="cassandra", CDCLAKE_CLUSTER_PASSWORD="cassandra",
                          CDCLAKE_TARGET_DIR=str(folder / "target"))
        cluster = cluster_from_options(f"127.0.0.1:{server.native_port}")
        spark = connector_session(cluster)
        inputs.write_inputs(spark, atoms=[], tables=load.tables, columns=load.columns, types=load.types,
                            table_format=settings.table_format())
        schema = (load.tables, load.columns, load.types)
        best = {"plain": [], "first pull": [], "pull": []}
        for _ in range(2):
            with timed(results, "plain"):
                read_table(spark, cluster, "bench", "t_scylla_cdc_log").write.format("noop").mode("overwrite").save()
            best["plain"].append(results["plain"])
            spark.sql("drop table if exists cdc_input.imported_log")
            with timed(results, "first pull"):
                pull = pull_logs(spark, cluster, [("bench", "t")], schema, until_us=int(time.time() * 1e6),
                                 table_format=settings.table_format())
            best["first pull"].append(results["first pull"])
            # emptied by an overwrite: the table is there, its marks gone (as a pull after a
            # --full-refresh of the inputs)
            spark.table("cdc_input.imported_log").limit(0).write.mode("overwrite").insertInto("cdc_input.imported_log")
            with timed(results, "pull"):
                pull = pull_logs(spark, cluster, [("bench", "t")], schema, until_us=int(time.time() * 1e6),
                                 table_format=settings.table_format())
            best["pull"].append(results["pull"])
        rows, cells = pull.tables["bench.t"]
        plain, first, pulled = min(best["plain"]), min(best["first pull"]), min(best["pull"])
        report("cdclake load cluster: a log pull against a plain connector read", [
            f"{ROWS:,} log rows written in {results['fill']:.1f} s; pulled {rows:,} log rows ({cells:,} cells)",
            f"plain connector read: {plain:.1f} s ({ROWS / plain:,.0f} rows/s)",
            f"pull (read, convert, append to Delta with its mark), the table created: {first:.1f} s "
            f"({rows / first:,.0f} rows/s, {plain / first:.0%} of the plain read's)",
            f"pull into the table there: {pulled:.1f} s ({rows / pulled:,.0f} rows/s, {plain / pulled:.0%})",
        ])
    finally:
        server.stop()


if __name__ == "__main__":
    main()
