"""A real CQL server for the tests: Apache Cassandra 5.0 (jars/cassandra-server/, fetched by
`make cassandra-jars`) as one JVM whose configuration, data and log (server.log) sit in a
folder of its own. One node on the loopback address, password authentication (the superuser
cassandra/cassandra), small caches and thread pools, and the waits a single node can skip
skipped. ``start()`` returns once a client logs in over CQL. As cdclake's Spark JVMs, the first
server on a machine writes a class archive as it stops (cdclake.session.jvm_archive), and later
ones map it: 3 s from start to a CQL login instead of 5 (the first one's stop takes 5 s more).

    python tests/python/cassandra_server.py [--port N]    # one in target/cassandra until Ctrl-C
"""
from __future__ import annotations

import argparse
import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cassandra.auth import PlainTextAuthProvider
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile, NoHostAvailable
from cassandra.policies import RoundRobinPolicy

from cdclake.session import jvm_archive

REPO = Path(__file__).resolve().parents[2]
JARS_DIR = REPO / "jars" / "cassandra-server"
SUPERUSER = ("cassandra", "cassandra")

# Java 17's module options of Cassandra 5.0 (its conf/jvm17-server.options, "JPMS" and Netty; the
# options file's "--add-opens X" written "--add-opens=X", one argument)
JVM17_OPTIONS = """
-Djdk.attach.allowAttachSelf=true
--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED
--add-exports=java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED
--add-exports=java.rmi/sun.rmi.server=ALL-UNNAMED
--add-exports=java.sql/java.sql=ALL-UNNAMED
--add-exports=java.base/java.lang.ref=ALL-UNNAMED
--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED
--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
--add-exports=jdk.attach/sun.tools.attach=ALL-UNNAMED
--add-opens=java.base/java.lang.module=ALL-UNNAMED
--add-opens=java.base/jdk.internal.loader=ALL-UNNAMED
--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
--add-opens=java.base/jdk.internal.reflect=ALL-UNNAMED
--add-opens=java.base/jdk.internal.math=ALL-UNNAMED
--add-opens=java.base/jdk.internal.module=ALL-UNNAMED
--add-opens=java.base/jdk.internal.util.jar=ALL-UNNAMED
--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED
--add-opens=java.base/sun.nio.ch=ALL-UNNAMED
--add-opens=java.base/java.io=ALL-UNNAMED
--add-opens=java.base/java.lang.reflect=ALL-UNNAMED
--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED
--add-opens=java.base/java.lang=ALL-UNNAMED
--add-opens=java.base/java.util=ALL-UNNAMED
-Dio.netty.tryReflectionSetAccessible=true
-Dio.netty.allocator.useCacheForAllThreads=true
-Dio.netty.allocator.maxOrder=11
""".split("\n")

# start-up and shut-down: a small heap, the JIT's quick tier, and the waits of a node among others
# skipped (gossip settling, the ring delay, the delay before the default superuser is created,
# the announcement of the shut-down, the messaging service's quiescing); no fsync, and schema
# changes not flushed at once (a throwaway node's data); the memtables' row overhead given
FAST_START_OPTIONS = [
    "-Xms256m", "-Xmx1g", "-Xss256k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
    "-Djava.net.preferIPv4Stack=true",
    "-Dcassandra-foreground=yes",
    "-Dcassandra.skip_wait_for_gossip_to_settle=0",
    "-Dcassandra.ring_delay_ms=100",
    "-Dcassandra.superuser_setup_delay_ms=0",
    "-Dcassandra.shutdown_announce_in_ms=0",
    "-Dcassandra.test.messagingService.nonGracefulShutdown=true",
    "-Dcassandra.skip_sync=true",
    "-Dcassandra.unsafesystem=true",
    "-Dcassandra.memtable.row_overhead_size=180",   # what 5.0 measures at start-up, taking seconds
]

CONFIG = """\
cluster_name: cdclake-tests
num_tokens: 16
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
auto_bootstrap: false
listen_address: 127.0.0.1
rpc_address: 127.0.0.1
storage_port: {storage_port}
native_transport_port: {native_port}
start_native_transport: true
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:{storage_port}"
authenticator: PasswordAuthenticator
authorizer: AllowAllAuthorizer
role_manager: CassandraRoleManager
data_file_directories: [{folder}/data]
commitlog_directory: {folder}/commitlog
saved_caches_directory: {folder}/saved_caches
hints_directory: {folder}/hints
commitlog_sync: periodic
commitlog_sync_period: 10000ms
memtable_heap_space: 64MiB
memtable_offheap_space: 64MiB
key_cache_size: 8MiB
counter_cache_size: 1MiB
prepared_statements_cache_size: 8MiB
concurrent_reads: 4
concurrent_writes: 4
concurrent_counter_writes: 4
concurrent_materialized_view_writes: 2
concurrent_compactors: 1
auto_snapshot: false
"""

LOGBACK = """\
<configuration>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level %date{HH:mm:ss.SSS} [%thread] %logger{0}: %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>
"""


class CassandraServer:
    """One Cassandra node in ``folder``: CQL on 127.0.0.1:native_port, gossip on storage_port."""

    def __init__(self, folder: Path, native_port: int, storage_port: int):
        self.folder = Path(folder).resolve()
        self.native_port = native_port
        self.storage_port = storage_port
        self.process: subprocess.Popen | None = None
        self.partial_archive: Path | None = None     # the class archive this server's JVM writes

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def cluster(self, user: str = SUPERUSER[0], password: str = SUPERUSER[1], **options) -> Cluster:
        """A scylla-driver Cluster for this node (connect() it; shut it down after)."""
        profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy())
        return Cluster(["127.0.0.1"], port=self.native_port, auth_provider=PlainTextAuthProvider(user, password),
                       execution_profiles={EXEC_PROFILE_DEFAULT: profile}, protocol_version=5, **options)

    def command(self) -> list[str]:
        jars = sorted(JARS_DIR.glob("*.jar"))
        if not jars:
            raise FileNotFoundError(f"{JARS_DIR} holds no jars: run make cassandra-jars")
        return ["java", *filter(None, JVM17_OPTIONS), *FAST_START_OPTIONS, *self.class_archive_options(jars),
                f"-Dcassandra.config=file://{self.folder / 'cassandra.yaml'}",
                f"-Dlogback.configurationFile={self.folder / 'logback.xml'}",
                f"-Dcassandra.storagedir={self.folder}",
                "-cp", ":".join(map(str, jars)), "org.apache.cassandra.service.CassandraDaemon"]

    def class_archive_options(self, jars: list[Path]) -> list[str]:
        """Map this machine's class archive for these jars, or have the JVM write it as it exits
        (under a partial name that ``stop()`` renames)."""
        folder = jvm_archive.archive_folder()
        folder.mkdir(parents=True, exist_ok=True)
        jvm_archive.remove_orphaned_partials(folder)
        archive = folder / f"cassandra-{jvm_archive.fingerprint(jars)}.jsa"
        if archive.exists():
            return [f"-XX:SharedArchiveFile={archive}", jvm_archive.QUIET]
        self.partial_archive = archive.with_name(f"{archive.name}.partial-{os.getpid()}")
        return [f"-XX:ArchiveClassesAtExit={self.partial_archive}", jvm_archive.QUIET]

    def start(self, timeout: float = 120) -> "CassandraServer":
        """Write the configuration, start the JVM, and wait until the superuser logs in over CQL."""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "cassandra.yaml").write_text(
            CONFIG.format(folder=self.folder, native_port=self.native_port, storage_port=self.storage_port))
        (self.folder / "logback.xml").write_text(LOGBACK)
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, cwd=self.folder,
                                            preexec_fn=terminate_with_parent)
        deadline = time.monotonic() + timeout
        logging.getLogger("cassandra").setLevel(logging.CRITICAL)   # the driver's failed attempts
        try:
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"Cassandra exited with {self.process.returncode}: see {self.log}")
                try:
                    self.cluster(connect_timeout=2).connect().cluster.shutdown()
                    return self
                except NoHostAvailable:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"Cassandra served no CQL in {timeout} s: see {self.log}") from None
                    time.sleep(0.2)
        except BaseException:
            self.stop()
            raise
        finally:
            logging.getLogger("cassandra").setLevel(logging.NOTSET)

    def stop(self, timeout: float = 30) -> None:
        """Terminate the JVM; kill it if it has not ended after ``timeout`` seconds (more when it
        writes the class archive)."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(jvm_archive.WAIT_FOR_DUMP_S if self.partial_archive else timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        exited, self.process = self.process.returncode >= 0, None     # < 0: killed, the archive half written
        if self.partial_archive:
            partial, self.partial_archive = self.partial_archive, None
            if exited and partial.exists() and partial.stat().st_size > 0:
                os.replace(partial, partial.with_name(partial.name.rsplit(".partial-", 1)[0]))
            else:
                partial.unlink(missing_ok=True)


PRCTL = ctypes.CDLL(None).prctl if sys.platform == "linux" else None


def terminate_with_parent() -> None:
    """In the JVM's process before it starts: on Linux, a SIGTERM when this Python process ends,
    however it ends (a killed test run leaves no server behind)."""
    if PRCTL is not None:
        PRCTL(1, signal.SIGTERM)      # PR_SET_PDEATHSIG


def main() -> None:
    from conftest import free_port

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=9042, help="the CQL port (default 9042)")
    args = parser.parse_args()
    server = CassandraServer(REPO / "target" / "cassandra", args.port, free_port())
    started = time.monotonic()
    server.start()
    print(f"Cassandra serves CQL on 127.0.0.1:{args.port} (user cassandra, password cassandra) after "
          f"{time.monotonic() - started:.1f} s; log in {server.log}; Ctrl-C stops it")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))     # `kill` stops it as Ctrl-C does
    try:
        server.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
