"""A live cluster, reached through the Spark Cassandra Connector: its address, credentials and SSL
options as the connector's settings, the Spark session that carries the connector, its tables as
DataFrames, and one line for each way a cluster fails a load.

Credentials never come from the command line: ``CDCLAKE_CLUSTER_USERNAME`` and
``CDCLAKE_CLUSTER_PASSWORD``, or a file of ``username=…`` and ``password=…`` lines
(``--credentials FILE``). The SSL stores' passwords come from ``CDCLAKE_CLUSTER_TRUSTSTORE_PASSWORD``
and ``CDCLAKE_CLUSTER_KEYSTORE_PASSWORD``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cdclake import settings
from cdclake.session.spark import JARS_DIR

CONNECTOR_JARS_DIR = JARS_DIR / "cassandra-connector"     # scripts/fetch_jars.sh fills it
CONNECTOR_EXTENSIONS = ("com.datastax.spark.connector.CassandraSparkExtensions",)
# the connector's data source as cdclake reads with it: tables with cdc$ names (java/log-source)
LOG_TABLE_FORMAT = "io.cdclake.spark.LogTableSource"
LOG_SOURCE_JAR = "cdclake-log-source.jar"          # scripts/build_log_source.sh builds it
CATALOG = "cdclake_cluster"          # the connector's catalog of the cluster's tables, in Spark SQL
DEFAULT_PORT = 9042
# the exit status of a load whose input cannot be read at all (as a file whose structure is wrong)
UNREADABLE = 2


class ClusterError(RuntimeError):
    """The cluster cannot serve the load (unreachable, refused credentials, a missing table or a
    table without CDC): one line naming the host or the table."""


@dataclass(frozen=True)
class Cluster:
    hosts: tuple[str, ...]
    port: int = DEFAULT_PORT
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ssl: tuple[tuple[str, str], ...] = ()       # the connector's spark.cassandra.connection.ssl.* settings

    @property
    def name(self) -> str:
        return f"{','.join(self.hosts)}:{self.port}"

    def connector_settings(self) -> dict[str, str]:
        """The connector's ``spark.cassandra.*`` settings for this cluster."""
        conf = {"spark.cassandra.connection.host": ",".join(self.hosts),
                "spark.cassandra.connection.port": str(self.port),
                # a dead cluster is said at once, not after the driver's default retries
                "spark.cassandra.connection.timeoutMS": "10000"}
        if self.username is not None:
            conf["spark.cassandra.auth.username"] = self.username
            conf["spark.cassandra.auth.password"] = self.password or ""
        conf.update({f"spark.cassandra.connection.ssl.{key}": value for key, value in self.ssl})
        return conf


def parse_address(text: str) -> tuple[tuple[str, ...], int]:
    """``HOST[:PORT][,HOST[:PORT]…]`` -> (hosts, port); every host takes the same port (the
    connector's ``connection.port``), the one given or 9042."""
    hosts, ports = [], set()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            raise ValueError(f"{text!r}: an empty host")
        host, colon, port = part.rpartition(":") if part.count(":") == 1 else ("", "", part)
        if colon:
            if not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError(f"{text!r}: {port!r} is not a port")
            ports.add(int(port))
            part = host
        hosts.append(part)
    if len(ports) > 1:
        raise ValueError(f"{text!r}: every contact point takes the same port")
    return tuple(hosts), ports.pop() if ports else DEFAULT_PORT


def read_credentials(path: Path) -> dict[str, str]:
    """``username=…`` and ``password=…`` lines (blank lines and ``#`` comments skipped)."""
    found = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, equals, value = line.partition("=")
        if not equals or key.strip() not in ("username", "password"):
            raise ValueError(f"{path}:{number}: expected username=… or password=…")
        found[key.strip()] = value.strip()
    return found


def cluster_from_options(address: str, credentials: Path | None = None, *, ssl: bool = False,
                         truststore: Path | None = None, keystore: Path | None = None) -> Cluster:
    """The cluster of ``cdclake load cluster``'s options; credentials from ``credentials`` (a
    file), else from the environment."""
    hosts, port = parse_address(address)
    secrets = settings.cluster_secrets()
    given = read_credentials(credentials) if credentials else secrets
    options = {}
    if ssl or truststore or keystore:
        options["enabled"] = "true"
    if truststore:
        options.update({"trustStore.path": str(truststore),
                        "trustStore.password": secrets.get("truststore_password", "")})
    if keystore:
        options.update({"clientAuth.enabled": "true", "keyStore.path": str(keystore),
                        "keyStore.password": secrets.get("keystore_password", "")})
    return Cluster(hosts, port, given.get("username"), given.get("password"), tuple(sorted(options.items())))


def check_reachable(cluster: Cluster, timeout_s: float = 5.0) -> None:
    """Raise ``ClusterError`` unless a contact point accepts a connection on the cluster's port:
    said before Spark starts (the connector would say it some 15 s later)."""
    import socket

    for host in cluster.hosts:
        try:
            socket.create_connection((host, cluster.port), timeout=timeout_s).close()
            return
        except OSError:
            continue
    raise ClusterError(f"{cluster.name}: the cluster cannot be reached")


def connector_jars() -> tuple[Path, ...]:
    """The connector's jars and cdclake's data source for log tables (java/log-source)."""
    jars = tuple(sorted(CONNECTOR_JARS_DIR.glob("*.jar")))
    if not any(jar.name == LOG_SOURCE_JAR for jar in jars):
        raise ClusterError(f"{CONNECTOR_JARS_DIR} lacks the Spark Cassandra Connector's jars or {LOG_SOURCE_JAR}: "
                           "run make jars (it needs mvn and javac)")
    return jars


def connector_session(cluster: Cluster):
    """The process's Spark session, with the connector's jars, its extensions (``writetime()`` and
    ``ttl()`` in Spark SQL), the cluster's settings and its tables as the catalog ``CATALOG``."""
    from cdclake.session.spark import create_session

    catalog = {f"spark.sql.catalog.{CATALOG}": "com.datastax.spark.connector.datasource.CassandraCatalog"}
    return create_session(settings.target_dir(), jars=connector_jars(), extensions=CONNECTOR_EXTENSIONS,
                          conf={**cluster.connector_settings(), **catalog})


def read_table(spark, cluster: Cluster, keyspace: str, table: str):
    """A cluster table as a DataFrame, read by the connector in Spark tasks, one per token range."""
    return spark.read.format(LOG_TABLE_FORMAT).options(keyspace=keyspace, table=table,
                                                       **cluster.connector_settings()).load()


def json_rows(spark, keyspace: str, table: str, optional: bool = False, of_keyspaces=None) -> list[dict]:
    """The rows of a small cluster table (schemas, generations) as JSON objects (``SELECT JSON``),
    through the connector's own session in the driver: its DataFrames see no system keyspace (the
    Java driver's metadata leaves them out). [] for a missing ``optional`` table. ``of_keyspaces``:
    only the partitions of these keyspaces (a schema table's key is ``keyspace_name``)."""
    import json

    from cdclake.cql.describe import maybe_quote

    connector = spark._jvm.com.datastax.spark.connector.cql.CassandraConnector.apply(spark.sparkContext._conf._jconf)
    session = connector.openSession()
    try:
        try:
            where = "" if of_keyspaces is None else " WHERE keyspace_name IN ({})".format(
                ", ".join("'" + name.replace("'", "''") + "'" for name in sorted(of_keyspaces)))
            result = session.execute(f"SELECT JSON * FROM {maybe_quote(keyspace)}.{maybe_quote(table)}{where}")
        except Exception as error:             # py4j's error: the driver's
            if optional and _missing_table(str(error)):
                return []
            raise
        # a row's JSON text as bytes: the driver's getString is a default method, which py4j cannot call
        as_bytes = spark._jvm.com.datastax.oss.protocol.internal.util.Bytes.getArray
        rows, cursor = [], result.iterator()
        while cursor.hasNext():
            rows.append(json.loads(bytes(as_bytes(cursor.next().getBytesUnsafe(0))).decode()))
        return rows
    finally:
        session.close()


def _missing_table(text: str) -> bool:
    return any(sign in text for sign in ("unconfigured table", "does not exist", "Couldn't find", "Keyspace "))


def failure_line(error: Exception, cluster: Cluster, what: str) -> str:
    """One line for a connector failure reading ``what`` (a table's name) from ``cluster``."""
    text = str(error)
    if "AuthenticationException" in text or "Authentication error" in text or "Provided username" in text:
        return f"{cluster.name}: the cluster refused the credentials (CDCLAKE_CLUSTER_USERNAME/PASSWORD or --credentials)"
    if "Failed to open native connection" in text or "AllNodesFailedException" in text or \
            "Could not reach any contact point" in text:
        return f"{cluster.name}: the cluster cannot be reached"
    if _missing_table(text):
        return f"{cluster.name}: no table {what}"
    first = next((line for line in text.splitlines() if line.strip()), text)
    return f"{cluster.name}: reading {what} failed: {first.strip()[:300]}"
