"""The embedded Spark session: local, small shuffles, warehouse and metastore in the target folder.

dbt-spark's ``session`` method runs SQL through ``SparkSession.builder.getOrCreate()`` in the
dbt process, so the session created here (with the UDFs registered) is the one dbt uses.
"""
from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import zipfile
from pathlib import Path

from cdclake import settings
from cdclake.session.target_lock import hold, last_run_finished
from cdclake.settings import INSTALL_DIR

log = logging.getLogger("cdclake")

DELTA_EXTENSION_CLASS = "io/delta/sql/DeltaSparkSessionExtension.class"
# Delta Lake sized for small local tables: its log replays in 50 tasks and it collects file
# statistics on every write by default
DELTA_LOCAL_CONF = {
    "spark.databricks.delta.snapshotPartitions": settings.current().delta_snapshot_partitions,
    "spark.databricks.delta.stats.collect": "false",
    # the Hive metastore keeps no schema of a Delta table (Delta's log holds it): no copy to update
    "spark.databricks.delta.catalog.update.enabled": "false",
    "spark.databricks.delta.writeChecksumFile.enabled": "false",
}
# Spark sized for a few rows (cdclake replay): the big models' plans are compiled, not their
# data; whole-stage code generation (a Java compile per stage), the Java compile of each
# expression's projection, predicate and ordering (the interpreted ones instead: a
# three-statement replay compiled some 1,900 classes, 105 with them), adaptive re-planning after
# each shuffle and the shuffles' partitions cost more than the rows. Runtime settings: see small_data.
SMALL_DATA_CONF = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.shuffle.partitions": "1",
}
# the JVM of a session for a few rows: the quick compiler only (C1: the optimizing compiler's
# work on Spark's code never pays back on plans that run once on a few rows; a cold build of the
# example spent 68 of its 174 CPU-seconds compiling) and a code cache C1's code does not fill
# (the default one's sweeping cost more than it saved); see docs/performance.md
SMALL_DATA_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=512m"
# a cdclake session's shuffle partitions: its plans for inputs that are not small (adaptive
# execution coalesces them further)
SHUFFLE_PARTITIONS = 4
# a dbt command over inputs of fewer atoms than this plans as a replay does (plan_for_input_size);
# CDCLAKE_SMALL_INPUT_ATOMS sets it (0: never)
SMALL_INPUT_ATOMS = 50_000
# generated classes a session keeps (Spark's spark.sql.codegen.cache.maxEntries, 100 by default)
CODEGEN_CACHE_ENTRIES = 4096
JARS_DIR = INSTALL_DIR / "jars"      # filled by the set-up (scripts/fetch_jars.sh), not committed
JAVA_INSTALL_HINT = "sudo apt-get install -y openjdk-17-jre-headless"
# Spark's log configuration unless cdclake is --verbose (CDCLAKE_VERBOSE): errors only
QUIET_LOG_CONFIG = Path(__file__).with_name("log4j2-quiet.properties")


class JavaMissingError(RuntimeError):
    pass


def require_java() -> None:
    """Spark needs a JVM; say how to get one when there is none."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return
    if shutil.which("java"):
        return
    raise JavaMissingError(
        f"java was not found on PATH (and JAVA_HOME is not set): Spark needs Java 17. "
        f"Install it with: {JAVA_INSTALL_HINT}"
    )


def extra_jars() -> list[Path]:
    """The jars cdclake adds to Spark's classpath (``spark.jars``): those of the project's
    ``jars/`` folder (Delta Lake's, which the set-up fetches from Maven Central) and those
    ``CDCLAKE_SPARK_JARS`` lists (comma-separated paths)."""
    jars = sorted(JARS_DIR.glob("*.jar"))
    jars += list(settings.current().spark_jars)
    return [jar.resolve() for jar in jars]


def classpath_jars(more: tuple[Path, ...] = ()) -> list[Path]:
    import pyspark

    return list((Path(pyspark.__file__).parent / "jars").glob("*.jar")) + extra_jars() + [Path(j) for j in more]


def delta_jar() -> Path | None:
    """The jar that holds Delta Lake's session extension, if any is on the classpath."""
    for jar in classpath_jars():
        if "delta" not in jar.name.lower():
            continue
        try:
            with zipfile.ZipFile(jar) as zf:
                if DELTA_EXTENSION_CLASS in zf.namelist():
                    return jar
        except (OSError, zipfile.BadZipFile):
            continue
    return None


def choose_table_format(jar: Path | None) -> str:
    """The format of this process's tables (``CDCLAKE_TABLE_FORMAT``, which dbt_project.yml reads):
    Delta when ``jar`` (``delta_jar()``) holds Delta Lake's classes, unless the user chose Parquet."""
    if settings.current().table_format == "parquet":
        log.debug("table format: parquet (CDCLAKE_TABLE_FORMAT=parquet)")
    elif jar is not None:
        settings.set_table_format("delta")
        log.debug("table format: delta (Delta Lake classes found in %s)", jar.name)
    else:
        settings.set_table_format("parquet")
        log.warning("table format: parquet (no Delta Lake classes on the Spark classpath: run make setup)")
    return settings.table_format()


def create_session(
    warehouse_root: Path,
    app_name: str = "cdclake",
    shuffle_partitions: int = SHUFFLE_PARTITIONS,
    thrift_single_session: bool = False,
    conf: dict[str, str] | None = None,
    java_options: str = "",
    class_archive: bool = True,
    jars: tuple[Path, ...] = (),
    extensions: tuple[str, ...] = (),
    small_data: bool = False,
):
    """Create (or return) the process's Spark session with its warehouse under ``warehouse_root``.

    ``thrift_single_session``: a Thrift server started on this session hands every JDBC
    connection this session itself (so they see its temporary UDFs); a static conf, set here.
    ``conf``: more settings; those the Hive client reads (``hive.*``) must come here, as it reads
    them once, when the session first opens the metastore (at start-up, see below).
    ``java_options``: more options for the driver's JVM, after this function's own.
    ``jars``, ``extensions``: more jars for the classpath and session extensions (a command's own:
    the Spark Cassandra Connector's for ``cdclake load cluster``).
    ``small_data``: the JVM is one for a few rows (SMALL_DATA_JAVA_OPTIONS).
    ``class_archive``: the JVM maps the machine's class archive, or writes it as it exits when
    there is none (cdclake/session/jvm_archive.py: a cold `cdclake status` 30 s against 38 s).

    Holds ``warehouse_root`` for this process (target_lock.py): raises ``TargetInUseError`` when
    another process does. Sets ``CDCLAKE_TABLE_FORMAT`` (read by dbt_project.yml) to ``delta`` when Delta Lake's classes
    are on the classpath, else ``parquet``, and says which in one log line; ``CDCLAKE_TABLE_FORMAT=parquet``
    set beforehand keeps Parquet with the jars there.
    """
    require_java()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active

    warehouse_root = Path(warehouse_root).resolve()
    hold(warehouse_root)
    if class_archive:
        from cdclake.session import jvm_archive

        java_options = f"{java_options} {jvm_archive.archive_options(jvm_archive.archive_folder(), classpath_jars(jars))}"
    if small_data:
        java_options = f"{SMALL_DATA_JAVA_OPTIONS} {java_options}"
    if not settings.current().verbose:
        java_options = f"{java_options} -Dlog4j2.configurationFile={QUIET_LOG_CONFIG.as_uri()}"
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

    builder = (
        SparkSession.builder.appName(app_name)
        .master(spark_master())
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.sql.adaptive.enabled", "true")
        .config("spark.sql.adaptive.coalescePartitions.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", str(settings.current().warehouse_dir or warehouse_root / "spark-warehouse"))
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", settings.current().driver_memory)
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        # No filters inferred from constraints: an `isnotnull` inferred on a join key computed by a
        # Python UDF is pushed below the join, so the UDF runs twice in one stage, and at a million
        # writes (PySpark 3.5.9) that pair gave different rows run to run (docs/correctness.md)
        .config("spark.sql.constraintPropagation.enabled", "false")
        # Spark keeps the classes it generated for 100 plans' code by default, fewer than one
        # build's nodes compile (some 1,000): every build compiled them all again, and the JIT
        # compiled the new classes again. With room for several builds' code, the builds after
        # the first in a session compile a few (docs/performance.md)
        .config("spark.sql.codegen.cache.maxEntries", str(CODEGEN_CACHE_ENTRIES))
        .config(
            "spark.hadoop.javax.jdo.option.ConnectionURL",
            f"jdbc:derby:;databaseName={warehouse_root / 'metastore_db'};create=true",
        )
        # the parallel collector: the G1 default's concurrent threads compete with the tasks for
        # 2 cores, and a cold three-statement replay took 3-5 s longer with it (docs/performance.md)
        .config("spark.driver.extraJavaOptions",
                f"-Dderby.system.home={warehouse_root} -XX:+UseParallelGC {java_options}".strip())
        .enableHiveSupport()
    )
    if small_data and not (conf or {}).get("spark.executor.extraJavaOptions"):
        builder = builder.config("spark.executor.extraJavaOptions", SMALL_DATA_JAVA_OPTIONS)   # a cluster's executors
    if thrift_single_session:
        builder = builder.config("spark.sql.hive.thriftServer.singleSession", "true")
    for key, value in (conf or {}).items():
        builder = builder.config(key, value)
    jars = extra_jars() + [Path(jar).resolve() for jar in jars]
    if jars:
        # spark.jars ships them to a cluster's executors; the driver's own classpath holds them too,
        # since HiveThriftServer2's threads do not see classes spark.jars adds at run time
        builder = builder.config("spark.jars", ",".join(str(jar) for jar in jars)).config(
            "spark.driver.extraClassPath", os.pathsep.join(str(jar) for jar in jars))
    jar = delta_jar()
    if jar is not None:  # also under CDCLAKE_TABLE_FORMAT=parquet: the Delta tables of earlier builds stay readable
        extensions = ("io.delta.sql.DeltaSparkSessionExtension", *extensions)
        builder = builder.config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        for key, value in DELTA_LOCAL_CONF.items():
            builder = builder.config(key, value)
    if extensions:
        builder = builder.config("spark.sql.extensions", ",".join(extensions))
    choose_table_format(jar)

    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    silence_hive_alter_errors(spark)
    # a local folder this process holds: tidied after a run that did not end well, and always
    # for a catalog in memory (it holds no earlier process's tables)
    if settings.current().warehouse_dir is None and (
            not last_run_finished(warehouse_root) or spark.conf.get("spark.sql.catalogImplementation") == "in-memory"):
        remove_unfinished_table_folders(spark, warehouse_root / "spark-warehouse")
    if not spark_master().startswith("local"):
        ship_udfs(spark, warehouse_root)

    from python_udfs.registry import register_session_udfs

    register_session_udfs(spark)
    return spark


def start_python_worker(spark) -> None:
    """Run one of the session's pandas UDFs on one row: the Python worker that runs it imports
    the UDFs' modules (pandas, pyarrow, python_udfs: some 2 s, once per worker) and stays, idle,
    for the first model that calls a UDF. A replay starts it while it writes its inputs."""
    spark.sql("select cdc_element_types('int')").collect()


def spark_master() -> str:
    """The Spark master: ``CDCLAKE_SPARK_MASTER`` (``cdclake --master URL``), else local mode on every core."""
    return settings.current().spark_master


def ship_udfs(spark, workdir: Path) -> Path:
    """The UDFs' Python package (python_udfs) as a zip every executor puts first on its path, so
    that a cluster's workers need only pyspark (with pandas and pyarrow, for pandas UDFs)."""
    import python_udfs

    package = Path(python_udfs.__file__).parent
    archive = workdir / "python_udfs.zip"
    workdir.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for source in sorted(package.glob("*.py")):
            zf.write(source, f"python_udfs/{source.name}")
    spark.sparkContext.addPyFile(str(archive))
    return archive


def is_small_input(input_atoms: int) -> bool:
    """Whether inputs of ``input_atoms`` atoms are few enough to plan as a replay does."""
    return input_atoms < (settings.current().small_input_atoms or SMALL_INPUT_ATOMS)


def local_warehouse_dir(warehouse_root: Path) -> Path | None:
    """The folder of the managed tables of a session on ``warehouse_root``, when it is on this
    machine (``CDCLAKE_WAREHOUSE_DIR`` may name a cluster's storage)."""
    chosen = settings.current().warehouse_dir
    if chosen is None:
        return Path(warehouse_root) / "spark-warehouse"
    text = str(chosen)
    return None if "://" in text and not text.startswith("file:") else Path(text.removeprefix("file:"))


def plan_for_input_size(spark, input_atoms: int) -> bool:
    """SMALL_DATA_CONF for the rest of the session when the inputs hold fewer than
    SMALL_INPUT_ATOMS atoms (CDCLAKE_SMALL_INPUT_ATOMS): each model's plan then costs more than
    its rows. A build of the example in a new process took 177 and 186 s instead of 244 and 246 s,
    the benchmark's full build of 43,653 atoms 161 s instead of 210 s (docs/performance-history.md,
    "Small inputs plan as a replay does"). Says which in one log line."""
    limit = settings.current().small_input_atoms or SMALL_INPUT_ATOMS
    small = is_small_input(input_atoms)
    if small:
        for key, value in SMALL_DATA_CONF.items():
            spark.conf.set(key, value)
    log.debug("planning: %s (%d input atoms, %s %d)", "small data" if small else "Spark's defaults",
             input_atoms, "below" if small else "not below", limit)
    return small


@contextlib.contextmanager
def session_settings(spark, settings: dict[str, str | None]):
    """``settings`` on ``spark`` inside the block (None: the setting unset, Spark's default),
    the session's own again after it."""
    before = {key: spark.conf.get(key, None) for key in settings}
    try:
        for key, value in settings.items():
            set_or_unset(spark, key, value)
        yield spark
    finally:
        for key, value in before.items():
            set_or_unset(spark, key, value)


def set_or_unset(spark, key: str, value: str | None) -> None:
    if value is None:
        spark.conf.unset(key)
    else:
        spark.conf.set(key, value)


def small_data(spark):
    """SMALL_DATA_CONF on ``spark`` inside the block, the session's own settings again after it."""
    return session_settings(spark, SMALL_DATA_CONF)


def silence_hive_alter_errors(spark) -> None:
    """Replacing a Delta table alters its metastore entry: Spark first tries a Hive-compatible
    schema, which the metastore refuses (its HiveAlterHandler logs "ERROR ... Failed to alter
    table"), then stores the schema in Spark's own format, and the replace succeeds
    (HiveExternalCatalog.alterTableDataSchema). The refusal is not an error of the build."""
    jvm = spark._jvm
    jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(
        "org.apache.hadoop.hive.metastore.HiveAlterHandler", jvm.org.apache.logging.log4j.Level.OFF)


def remove_unfinished_table_folders(spark, warehouse: Path) -> list[Path]:
    """Delete the folders of managed tables the catalog does not know: what a run killed while
    it (re)created a table leaves behind (Spark writes a table's files before registering it),
    and the folders of databases the catalog does not hold, as an in-memory catalog (``cdclake
    replay``) holds none of an earlier process's. Left there, they make the next ``create
    table`` fail with LOCATION_ALREADY_EXISTS. Safe because this process holds the warehouse
    (target_lock.py). Returns the folders removed. Asks with SQL, not ``spark.catalog``: under
    SMALL_DATA_CONF's interpreted projections Spark 3.5 fails to decode the catalog's objects
    ("argument type mismatch" building ``catalog.Table``)."""
    if not warehouse.is_dir():
        return []
    databases = {row[0].lower() for row in spark.sql("show databases").collect()}
    removed = []
    for folder in sorted(warehouse.glob("*.db")):
        database = folder.name[: -len(".db")]
        if database.lower() not in databases:
            shutil.rmtree(folder)
            removed.append(folder)
            log.debug("removed %s: the folder of a database the catalog does not hold", folder)
            continue
        tables = {row.tableName.lower() for row in spark.sql(f"show tables in `{database}`").collect()}
        for child in sorted(folder.iterdir()):
            if child.is_dir() and child.name.lower() not in tables:
                shutil.rmtree(child)
                removed.append(child)
                log.info("removed %s: the folder of a table an interrupted run did not finish", child)
    return removed
