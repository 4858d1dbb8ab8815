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
    written there (every model needs their names); returns the folder. Inside the project it is
    given relative to it, so that every scratch copy of the project names the same one (dbt
    parses a project again in full when a variable its dbt_project.yml reads changed)."""
    folder = generated_dir(project_dir)
    try:
        os.environ[GENERATED_DIR_ENV] = str(folder.relative_to(Path(project_dir)))
    except ValueError:           # a target folder elsewhere (CDCLAKE_TARGET_DIR)
        os.environ[GENERATED_DIR_ENV] = str(folder.resolve())
    write_udf_macros(folder)
    return folder


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
