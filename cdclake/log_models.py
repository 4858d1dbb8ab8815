"""Write one dbt model per CDC-enabled base table: ``<keyspace>.<table>_scylla_cdc_log``.

Each generated model is two lines that call the ``scylla_cdc_log_table`` macro, which reads the
table's columns from the schema input at run time; only the list of tables is baked in.
"""
from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Iterable

from cdclake.schema_records import BaseColumn, BaseTable

log = logging.getLogger("cdclake")

LOG_MODELS_SUBDIR = Path("models") / "marts" / "scylla_cdc_logs"
BUILTIN_TYPE_WORDS = {
    "frozen", "list", "set", "map", "tuple", "int", "smallint", "tinyint", "bigint", "counter",
    "varint", "decimal", "float", "double", "boolean", "text", "varchar", "ascii", "uuid",
    "timeuuid", "inet", "duration", "blob", "timestamp", "date", "time",
}


def model_name(keyspace: str, table: str) -> str:
    return f"{keyspace}__{table}_scylla_cdc_log"


def unsupported_type(cql_type: str) -> str | None:
    """The first type name in ``cql_type`` that the log tables cannot map yet (user types)."""
    for word in re.findall(r"[a-z_][a-z0-9_]*", cql_type.lower()):
        if word not in BUILTIN_TYPE_WORDS:
            return word
    return None


def model_sql(keyspace: str, table: str) -> str:
    return (
        f"{{{{ config(alias='{table}_scylla_cdc_log', schema='{keyspace}') }}}}\n"
        f"{{{{ scylla_cdc_log_table('{keyspace}', '{table}') }}}}\n"
    )


def write_log_models(
    project_dir: Path, tables: Iterable[BaseTable], columns: Iterable[BaseColumn]
) -> list[str]:
    """(Re)write the generated log-table models; returns the ``ks.t_scylla_cdc_log`` names."""
    out_dir = project_dir / LOG_MODELS_SUBDIR
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*__*_scylla_cdc_log.sql"):
        old.unlink()
    columns = list(columns)
    written = []
    for table in sorted(tables, key=lambda t: (t.keyspace_name, t.table_name)):
        if not table.cdc_enabled:
            continue
        types = [
            c.cql_type for c in columns
            if (c.keyspace_name, c.table_name) == (table.keyspace_name, table.table_name)
        ]
        blocked = next((u for u in map(unsupported_type, types) if u), None)
        if blocked:
            log.warning(
                "no log table for %s.%s: column type '%s' (a user-defined type) is not supported yet",
                table.keyspace_name, table.table_name, blocked,
            )
            continue
        path = out_dir / f"{model_name(table.keyspace_name, table.table_name)}.sql"
        path.write_text(model_sql(table.keyspace_name, table.table_name))
        written.append(f"{table.keyspace_name}.{table.table_name}_scylla_cdc_log")
    return written
