"""``cdclake serve``: a Spark Thrift server (HiveServer2 protocol) on the cdclake session.

The embedded Derby metastore admits one JVM at a time, so the server serves the warehouse the
builds wrote (``cdclake build``, then ``cdclake serve``), and builds run through it with the
``thrift`` target (``CDCLAKE_TARGET=thrift cdclake build``) while it runs.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import threading
import time

from cdclake.paths import target_dir

log = logging.getLogger("cdclake")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 10000
DEFAULT_SCHEMA = "cdc_lake"
TABLE_FORMAT_CONF = "cdclake.table_format"  # the server's table format, for thrift clients
START_TIMEOUT_S = 120


class ServerUnreachableError(RuntimeError):
    pass


def port_open(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex((host, port)) == 0


def quiet_client_errors(spark) -> None:
    """Clients get their query errors; the server's console does not repeat them with stack
    traces (nor a client's disconnect)."""
    jvm = spark._jvm
    for logger in (
        "org.apache.thrift.server.TThreadPoolServer",
        "org.apache.spark.sql.hive.thriftserver.SparkExecuteStatementOperation",
    ):
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(logger, jvm.org.apache.logging.log4j.Level.OFF)


def thrift_conf(host: str, port: int) -> dict[str, str]:
    """HiveThriftServer2's settings (binary transport, no auth), given to the session when it is
    created: the Hive client reads them once, when the session first opens the metastore."""
    return {
        "hive.server2.thrift.bind.host": host,
        "hive.server2.thrift.port": str(port),
        "hive.server2.transport.mode": "binary",
        "hive.server2.authentication": "NONE",
    }


def start_thrift_server(spark, host: str, port: int):
    """Start HiveThriftServer2 on ``spark`` (created with ``thrift_conf(host, port)``); returns the server."""
    spark.conf.set(TABLE_FORMAT_CONF, os.environ.get("CDCLAKE_TABLE_FORMAT", "parquet"))
    quiet_client_errors(spark)
    thrift_server = spark._jvm.org.apache.spark.sql.hive.thriftserver.HiveThriftServer2
    return thrift_server.startWithContext(spark._jsparkSession.sqlContext())


def wait_for_port(host: str, port: int, timeout_s: float = START_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not port_open(host, port):
        if time.monotonic() > deadline:
            raise ServerUnreachableError(f"the Thrift server did not listen on {host}:{port} within {timeout_s:.0f} s")
        time.sleep(0.2)


def connect_hint(host: str, port: int) -> str:
    url = f"jdbc:hive2://{host}:{port}/{DEFAULT_SCHEMA}"
    return (
        f"serving {target_dir()} on {url} (beeline -u {url}; dbt: CDCLAKE_TARGET=thrift "
        f"CDCLAKE_THRIFT_HOST={host} CDCLAKE_THRIFT_PORT={port} cdclake build); Ctrl-C stops"
    )


def server_table_format(host: str, port: int) -> str:
    """The table format of the Thrift server at host:port (``cdclake serve`` publishes it)."""
    from pyhive import hive

    try:
        connection = hive.connect(host=host, port=port)
    except Exception as e:  # thrift raises TTransportException, sockets OSError
        raise ServerUnreachableError(
            f"no Spark Thrift server answers at {host}:{port} ({e}); start one with "
            f"`cdclake serve --port {port}` or set CDCLAKE_THRIFT_HOST / CDCLAKE_THRIFT_PORT"
        ) from None
    with connection, connection.cursor() as cursor:
        cursor.execute(f"SET {TABLE_FORMAT_CONF}")
        (_, value) = cursor.fetchone()
    return "parquet" if value == "<undefined>" else value


def adopt_server_table_format() -> None:
    """Before dbt runs on the ``thrift`` target: take the server's table format for the models."""
    host = os.environ.get("CDCLAKE_THRIFT_HOST", DEFAULT_HOST)
    port = int(os.environ.get("CDCLAKE_THRIFT_PORT", DEFAULT_PORT))
    try:
        table_format = server_table_format(host, port)
    except ServerUnreachableError as e:
        raise SystemExit(f"error: {e}") from None
    os.environ["CDCLAKE_TABLE_FORMAT"] = table_format
    log.info("table format: %s (from the Thrift server at %s:%d)", table_format, host, port)


def serve_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="cdclake serve",
        description="Serve the warehouse (with the cdc_* UDFs) over JDBC/Thrift until Ctrl-C.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"bind address (default {DEFAULT_HOST}: loopback only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    args = parser.parse_args(argv)
    if port_open(args.host, args.port):
        print(f"error: {args.host}:{args.port} is already in use: pick another with --port", file=sys.stderr)
        return 2

    from cdclake.spark import create_session

    spark = create_session(target_dir(), app_name="cdclake-serve", thrift_single_session=True,
                           conf=thrift_conf(args.host, args.port))
    server = start_thrift_server(spark, args.host, args.port)
    try:
        wait_for_port(args.host, args.port)
        if not spark.catalog.databaseExists(DEFAULT_SCHEMA):
            log.info("no %s schema in %s yet: run `cdclake build` first, or build through this "
                     "server with CDCLAKE_TARGET=thrift", DEFAULT_SCHEMA, target_dir())
        print(connect_hint(args.host, args.port), flush=True)
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        while not stop.wait(1):
            pass
        log.info("stopping the Thrift server")
    finally:
        server.stop()
        spark.stop()
    return 0
