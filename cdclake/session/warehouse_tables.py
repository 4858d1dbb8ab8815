"""A warehouse's tables as Arrow tables, for the commands that only read a few columns of them
(``cdclake status``): from their files when the warehouse is on this machine (no JVM: Delta's log
and Parquet through pyarrow, cdclake/session/delta_log.py), else through a Spark session."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from cdclake.session import delta_log


class FilesUnreadable(Exception):
    """A table the files reader cannot read as Spark would (deletion vectors, say): ask Spark."""


class WarehouseFiles:
    """The managed tables of the local warehouse folder ``warehouse`` (``<db>.db/<table>``)."""

    def __init__(self, warehouse: Path):
        self.warehouse = Path(warehouse)

    def exists(self, relation: str) -> bool:
        return delta_log.table_folder(self.warehouse, relation).is_dir()

    def table(self, relation: str, columns: list[str]):
        """``columns`` of ``relation`` as a pyarrow Table (None for a table without rows)."""
        import pyarrow.parquet as pq

        folder = delta_log.table_folder(self.warehouse, relation)
        try:
            found = delta_log.snapshot(folder)
            if found is not None:
                return found.read(columns)
            files = sorted(p for p in folder.glob("*.parquet") if not p.name.startswith((".", "_")))
            return pq.read_table(files[0].parent, columns=columns) if files else None
        except delta_log.UnreadableTable as error:
            raise FilesUnreadable(str(error)) from None


class SparkTables:
    """The same questions asked of a Spark session's catalog."""

    def __init__(self, spark):
        self.spark = spark

    def exists(self, relation: str) -> bool:
        from cdclake.session.warehouse import missing_tables

        return not missing_tables(self.spark, [relation])

    def table(self, relation: str, columns: list[str]):
        import pyarrow as pa

        rows = [row.asDict() for row in self.spark.table(relation).select(*(f"`{c}`" for c in columns)).collect()]
        return pa.Table.from_pylist(rows) if rows else None


def read_tables(spark=None, warehouse: Path | None = None, session: Callable | None = None):
    """A reader of the warehouse: its files when ``warehouse`` (or ``spark``'s) is a local folder,
    else ``spark`` (or the session ``session()`` starts)."""
    local = warehouse if warehouse is not None else delta_log.local_warehouse(spark) if spark is not None else None
    if local is not None:
        return WarehouseFiles(local)
    return SparkTables(spark if spark is not None else session())
