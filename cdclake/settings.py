"""cdclake's settings, in one place: where the project and its working folders live, the table
format, the Spark session's knobs. Every ``CDCLAKE_*`` variable is read here and nowhere else.

The environment is the settings' store because dbt reads some of them too (``dbt_project.yml``:
``CDCLAKE_TABLE_FORMAT``, ``CDCLAKE_GENERATED_DIR``) and the command line (``--master``,
``--verbose``) writes them before a command runs; ``current()`` reads them as they are then.

    CDCLAKE_PROJECT_DIR          the dbt project (default: the checkout cdclake runs from)
    CDCLAKE_TARGET_DIR           the target folder: dbt's artifacts, the warehouse, the metastore
    CDCLAKE_TARGET               the dbt target (default local: the embedded session)
    CDCLAKE_TABLE_FORMAT         delta or parquet (default: delta when Delta Lake's jars are there)
    CDCLAKE_SPARK_MASTER         a Spark cluster's master (default local[*]); cdclake --master
    CDCLAKE_VERBOSE              Spark's own log lines and cdclake's choices; cdclake --verbose
    CDCLAKE_WAREHOUSE_DIR        a shared warehouse folder (a cluster's), instead of the target's
    CDCLAKE_DRIVER_MEMORY        the driver's heap (default 4g)
    CDCLAKE_SPARK_JARS           more jars for the session's classpath, comma-separated
    CDCLAKE_SMALL_INPUT_ATOMS    inputs up to this many atoms get the small-input plan
    CDCLAKE_DELTA_SNAPSHOT_PARTITIONS   Delta's snapshot partitions (default 2)
    CDCLAKE_JVM_ARCHIVE_DIR      where the JVM's class archive is kept (default ~/.cache)
    CDCLAKE_THRIFT_HOST, CDCLAKE_THRIFT_PORT   the Thrift server of the ``thrift`` target
    CDCLAKE_CLUSTER_USERNAME, CDCLAKE_CLUSTER_PASSWORD   a cluster's credentials (cdclake load cluster)
    CDCLAKE_CLUSTER_TRUSTSTORE_PASSWORD, CDCLAKE_CLUSTER_KEYSTORE_PASSWORD   its SSL stores' passwords
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

INSTALL_DIR = Path(__file__).resolve().parents[1]    # the checkout cdclake runs from (its jars/, scripts/)
PROJECT_DIR = Path(os.environ.get("CDCLAKE_PROJECT_DIR", INSTALL_DIR))
PROFILES_DIR = PROJECT_DIR / "profiles"
EMBEDDED_TARGET = "local"    # the profile output that runs on this process's Spark session
TABLE_FORMATS = ("delta", "parquet")
GENERATED_DIR_ENV = "CDCLAKE_GENERATED_DIR"     # set by cdclake/project/generated.py, read by dbt_project.yml


@dataclass(frozen=True)
class Settings:
    target_dir_override: Path | None
    dbt_target: str
    table_format: str | None          # None until a session (or the user) chose one
    spark_master: str
    verbose: bool
    warehouse_dir: Path | None
    driver_memory: str
    spark_jars: tuple[Path, ...]
    small_input_atoms: int | None
    delta_snapshot_partitions: str
    jvm_archive_dir: Path | None
    thrift_host: str | None
    thrift_port: int | None


def current() -> Settings:
    env = os.environ.get
    table_format = env("CDCLAKE_TABLE_FORMAT")
    return Settings(
        target_dir_override=Path(env("CDCLAKE_TARGET_DIR")).resolve() if env("CDCLAKE_TARGET_DIR") else None,
        dbt_target=env("CDCLAKE_TARGET", EMBEDDED_TARGET),
        table_format=table_format if table_format in TABLE_FORMATS else None,
        spark_master=env("CDCLAKE_SPARK_MASTER", "local[*]"),
        verbose=env("CDCLAKE_VERBOSE", "") not in ("", "0"),
        warehouse_dir=Path(env("CDCLAKE_WAREHOUSE_DIR")) if env("CDCLAKE_WAREHOUSE_DIR") else None,
        driver_memory=env("CDCLAKE_DRIVER_MEMORY", "4g"),
        spark_jars=tuple(Path(p) for p in env("CDCLAKE_SPARK_JARS", "").split(",") if p),
        small_input_atoms=int(env("CDCLAKE_SMALL_INPUT_ATOMS")) if env("CDCLAKE_SMALL_INPUT_ATOMS") else None,
        delta_snapshot_partitions=env("CDCLAKE_DELTA_SNAPSHOT_PARTITIONS", "2"),
        jvm_archive_dir=Path(env("CDCLAKE_JVM_ARCHIVE_DIR")) if env("CDCLAKE_JVM_ARCHIVE_DIR") else None,
        thrift_host=env("CDCLAKE_THRIFT_HOST"),
        thrift_port=int(env("CDCLAKE_THRIFT_PORT")) if env("CDCLAKE_THRIFT_PORT") else None,
    )


def target_dir(project_dir: Path = PROJECT_DIR) -> Path:
    """The target folder: dbt's artifacts and the embedded warehouse and metastore.
    ``CDCLAKE_TARGET_DIR`` moves it (e.g. a second workspace beside a running one)."""
    return current().target_dir_override or project_dir / "target"


def table_format() -> str:
    """The format the models write and the loads append in: what the session chose (or the user
    set), else Parquet."""
    return current().table_format or "parquet"


def set_table_format(name: str, overwrite: bool = True) -> str:
    """Choose the table format for this process and the dbt it runs (dbt_project.yml reads
    ``CDCLAKE_TABLE_FORMAT``); ``overwrite=False`` keeps a choice already made. Returns the format."""
    if name not in TABLE_FORMATS:
        raise ValueError(f"table format {name!r}: expected one of {', '.join(TABLE_FORMATS)}")
    if overwrite or current().table_format is None:
        os.environ["CDCLAKE_TABLE_FORMAT"] = name
    return table_format()


def cluster_secrets() -> dict[str, str]:
    """A cluster's credentials and SSL store passwords from the environment (never the command
    line): ``username``, ``password``, ``truststore_password``, ``keystore_password``, those set."""
    names = {"username": "CDCLAKE_CLUSTER_USERNAME", "password": "CDCLAKE_CLUSTER_PASSWORD",
             "truststore_password": "CDCLAKE_CLUSTER_TRUSTSTORE_PASSWORD",
             "keystore_password": "CDCLAKE_CLUSTER_KEYSTORE_PASSWORD"}
    return {key: os.environ[name] for key, name in names.items() if os.environ.get(name)}


def set_command_line_options(master: str | None = None, verbose: bool = False) -> None:
    """``cdclake --master URL --verbose``: kept as the settings the commands read."""
    if master:
        os.environ["CDCLAKE_SPARK_MASTER"] = master
    if verbose:
        os.environ["CDCLAKE_VERBOSE"] = "1"
