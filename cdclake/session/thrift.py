"""A Spark Thrift server (HiveServer2 protocol) on the cdclake session (``cdclake serve``).

The embedded Derby metastore admits one JVM at a time, so the server serves the warehouse the
builds wrote (``cdclake build``, then ``cdclake serve``), and builds run through it with the
``thrift`` target (``CDCLAKE_TARGET=thrift cdclake build``) while it runs.
"""
from __future__ import annotations

import logging
import socket
import time

from cdclake import settings
from cdclake.settings import target_dir

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
    spark.conf.set(TABLE_FORMAT_CONF, settings.table_format())
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
    host = settings.current().thrift_host or DEFAULT_HOST
    port = settings.current().thrift_port or DEFAULT_PORT
    try:
        table_format = server_table_format(host, port)
    except ServerUnreachableError as e:
        raise SystemExit(f"error: {e}") from None
    settings.set_table_format(table_format)
    log.info("table format: %s (from the Thrift server at %s:%d)", table_format, host, port)
