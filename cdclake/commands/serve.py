"""``cdclake serve``: a Spark Thrift server on the warehouse (cdclake/session/thrift.py) until Ctrl-C."""
from __future__ import annotations

import logging
import signal
import sys
import threading

from cdclake.session.thrift import DEFAULT_HOST, DEFAULT_PORT

log = logging.getLogger("cdclake")


def configure(parser) -> None:
    parser.description = "Serve the warehouse (with the cdc_* UDFs) over JDBC/Thrift until Ctrl-C."
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"bind address (default {DEFAULT_HOST}: loopback only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")


def run(args) -> int:
    from cdclake.session.spark import create_session
    from cdclake.session.thrift import (
        DEFAULT_SCHEMA,
        connect_hint,
        port_open,
        start_thrift_server,
        thrift_conf,
        wait_for_port,
    )
    from cdclake.settings import target_dir

    if port_open(args.host, args.port):
        print(f"error: {args.host}:{args.port} is already in use: pick another with --port", file=sys.stderr)
        return 2
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
