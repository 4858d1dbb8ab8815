"""What cdclake writes for dbt, apart from what people write: one folder per warehouse,
``<target folder>/generated/`` (ignored by git), which dbt_project.yml adds to the model and
macro paths through ``CDCLAKE_GENERATED_DIR`` (default ``target/generated``, for plain dbt):

    generated/models/marts/scylla_cdc_logs/     the log table models of the warehouse's CDC-enabled tables
    generated/models/marts/consumer_tables/     their consumer tables (_state, _history, _changes)
    generated/macros/databricks/cdc_udfs_ddl.sql  the UDFs' names, and their Unity Catalog DDL (Databricks)

Each warehouse has its own, so two warehouses served from one checkout keep their own models.
``cdclake generate`` (run by every cdclake command that runs dbt, and by the loads) writes them;
plain dbt users run it once, and again after a schema changes.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

from cdclake.settings import GENERATED_DIR_ENV, PROJECT_DIR, target_dir

GENERATED_SUBDIR = "generated"
UDF_MACROS = Path("macros") / "databricks" / "cdc_udfs_ddl.sql"


def generated_dir(project_dir: Path = PROJECT_DIR) -> Path:
    """The generated folder of a dbt project: in the target folder of cdclake's own project
    (``CDCLAKE_TARGET_DIR`` moves it), in ``target/`` of any other (a replay's scratch copy)."""
    project_dir = Path(project_dir)
    if project_dir.resolve() == PROJECT_DIR.resolve():
        return target_dir() / GENERATED_SUBDIR
    return project_dir / "target" / GENERATED_SUBDIR


def point_dbt_at(project_dir: Path = PROJECT_DIR) -> Path:
    """Set ``CDCLAKE_GENERATED_DIR`` for a dbt command on ``project_dir``, with the UDF macros
    written there (every model needs their names); returns the folder. It is given relative to
    the project, so that every scratch copy of the project names the same one (dbt parses a
    project again in full when a variable its dbt_project.yml reads changed) and dbt writes the
    compiled SQL of the generated files' tests under its target folder: dbt joins a node's file
    path to the target folder, and an absolute one (a warehouse outside the checkout) would put
    a test's SQL inside its yml file's path (``Not a directory``). A folder outside the project
    is reached through a link in the project's ``target/warehouses/`` (``project_link``)."""
    folder = generated_dir(project_dir)
    write_udf_macros(folder)
    try:
        os.environ[GENERATED_DIR_ENV] = str(folder.relative_to(Path(project_dir)))
    except ValueError:           # a target folder elsewhere (CDCLAKE_TARGET_DIR)
        link = project_link(Path(project_dir), folder)
        os.environ[GENERATED_DIR_ENV] = str(link.relative_to(Path(project_dir)) if link else folder.resolve())
    return folder


WAREHOUSE_LINKS = Path("target") / "warehouses"


def project_link(project_dir: Path, folder: Path) -> Path | None:
    """A symbolic link in ``project_dir``'s ``target/warehouses/`` to ``folder`` (one per folder:
    its name hashes the folder's path), made when missing; None where none can be made (a
    read-only checkout: dbt is then given the absolute path)."""
    import hashlib

    folder = folder.resolve()
    link = project_dir / WAREHOUSE_LINKS / hashlib.sha1(str(folder).encode()).hexdigest()[:16]
    try:
        if link.is_symlink() and Path(os.readlink(link)) == folder:
            return link
        link.parent.mkdir(parents=True, exist_ok=True)
        temporary = link.with_name(f"{link.name}.{os.getpid()}")
        temporary.unlink(missing_ok=True)
        temporary.symlink_to(folder, target_is_directory=True)
        os.replace(temporary, link)          # two processes making it: one link wins, the same
        return link
    except OSError:
        return None


def write_udf_macros(folder: Path) -> None:
    """``UDF_MACROS`` of a generated folder, rewritten only when its text changed."""
    write_if_changed(folder / UDF_MACROS, udf_macro_text())


@functools.cache
def udf_macro_text() -> str:
    """The UDF macros' text, made once per process (some 0.5 s; every dbt command writes it)."""
    from cdclake.project.databricks_udfs import macro_text

    return macro_text()


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` unless the file holds it already (dbt's partial parse keeps the file)."""
    if path.exists() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return True
