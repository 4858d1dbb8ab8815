"""Write the pipeline's input tables (the ``cdc_input`` source) from Python records."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from cdclake.load.mutation_records import ATOM_COLUMNS, ATOM_SPARK_SCHEMA, Atom
from cdclake.load.schema_records import (
    BASE_COLUMN_COLUMNS,
    BASE_COLUMNS_SPARK_SCHEMA,
    BASE_TABLE_COLUMNS,
    BASE_TABLES_SPARK_SCHEMA,
    BASE_TYPE_COLUMNS,
    BASE_TYPES_SPARK_SCHEMA,
    BaseColumn,
    BaseTable,
    BaseTypeField,
)

INPUT_SCHEMA = "cdc_input"
# every table of the input contract (the dbt source cdc_input)
INPUT_TABLES = ("base_mutations", "base_tables", "base_columns", "base_types", "cdc_generations", "cdc_generation_streams")
GENERATIONS_SPARK_SCHEMA = "generation_ts_ms bigint"
GENERATION_STREAMS_COLUMNS = [
    "generation_ts_ms", "vnode_index", "token_range_end", "ignore_msb", "shard", "stream_id",
]
GENERATION_STREAMS_SPARK_SCHEMA = (
    "generation_ts_ms bigint, vnode_index int, token_range_end bigint, ignore_msb int, "
    "shard int, stream_id string"
)


def rows(records, names: list[str]) -> list[tuple]:
    """Records (``as_row()``) as tuples in the columns' order."""
    return [tuple(r.as_row()[n] for n in names) for r in records]


def _save(spark, name: str, rows: list[tuple], schema: str, table_format: str) -> None:
    spark.sql(f"create database if not exists {INPUT_SCHEMA}")
    frame = spark.createDataFrame(rows, schema=schema)
    frame.write.mode("overwrite").format(table_format).saveAsTable(f"{INPUT_SCHEMA}.{name}")


def write_mutations(spark, *, atoms: Iterable[Atom], table_format: str = "parquet") -> None:
    """Overwrite the mutation input table only (the schemas stay as they are)."""
    _save(spark, "base_mutations", rows(atoms, ATOM_COLUMNS), ATOM_SPARK_SCHEMA, table_format)


def write_inputs(
    spark,
    *,
    atoms: Iterable[Atom],
    tables: Iterable[BaseTable],
    columns: Iterable[BaseColumn],
    types: Iterable[BaseTypeField] = (),
    table_format: str = "parquet",
) -> None:
    """Overwrite the four mutation and schema input tables (generation_tables loads the others)."""
    write_mutations(spark, atoms=atoms, table_format=table_format)
    _save(spark, "base_tables", rows(tables, BASE_TABLE_COLUMNS), BASE_TABLES_SPARK_SCHEMA, table_format)
    _save(spark, "base_columns", rows(columns, BASE_COLUMN_COLUMNS), BASE_COLUMNS_SPARK_SCHEMA, table_format)
    _save(spark, "base_types", rows(types, BASE_TYPE_COLUMNS), BASE_TYPES_SPARK_SCHEMA, table_format)


def missing_inputs(spark, names=INPUT_TABLES) -> list[str]:
    """The input tables among ``names`` that the warehouse does not hold, as ``cdc_input.<name>``."""
    from cdclake.session.warehouse import missing_tables

    return missing_tables(spark, [f"{INPUT_SCHEMA}.{name}" for name in names])


def read_schema_records(spark, warehouse: Path | None = None) -> tuple[list[BaseTable], list[BaseColumn],
                                                                     list[BaseTypeField]]:
    """The base-table schema records in the warehouse's ``cdc_input`` (empty lists without them).
    ``warehouse``: read them from the files of that ``spark-warehouse`` folder instead of through
    the session's catalog (a replay's session has a catalog of its own). Delta tables of a local
    warehouse are read from their files (``delta_log``: no Spark job), others with Spark."""
    from cdclake.load.schema_records import record_from_row
    from cdclake.session import delta_log

    local = Path(warehouse) if warehouse is not None else delta_log.local_warehouse(spark)

    def rows(name) -> list[dict] | None:
        relation = f"{INPUT_SCHEMA}.{name}"
        folder = None if local is None else delta_log.table_folder(local, relation)
        if folder is not None:
            if not folder.is_dir():           # a managed table's folder: no table
                return None
            try:
                found = delta_log.snapshot(folder)
                table = found.read() if found is not None else None
                if found is not None:
                    return [] if table is None else table.to_pylist()
            except delta_log.UnreadableTable:
                pass
        if warehouse is not None:
            frame = spark.read.format("delta" if (folder / "_delta_log").is_dir() else "parquet").load(str(folder))
        elif missing_inputs(spark, [name]):
            return None
        else:
            frame = spark.table(relation)
        return [row.asDict() for row in frame.collect()]

    def records(name, record_class):
        found = rows(name)
        return [] if found is None else [record_from_row(record_class, row) for row in found]

    return records("base_tables", BaseTable), records("base_columns", BaseColumn), records("base_types", BaseTypeField)


def last_write_id(spark) -> int:
    """The highest write id in ``cdc_input.base_mutations`` (0 without writes)."""
    found = _mutations_max(spark, "write_id")
    return found if found is not None else 0


def loaded_clock_us(spark) -> int | None:
    """The coordinator's clock at the last write loaded into ``cdc_input.base_mutations`` (µs),
    or None without writes."""
    return _mutations_max(spark, "coordinator_now_us")


def _mutations_max(spark, column: str):
    """The largest ``column`` of ``cdc_input.base_mutations`` (None without rows): from its Delta
    files' statistics when the warehouse is local (a cold JVM took 7 s for the job), else by Spark."""
    from cdclake.session import delta_log

    relation = f"{INPUT_SCHEMA}.base_mutations"
    try:
        found = delta_log.table_snapshot(spark, relation)
        if found is not None:
            found.readable()           # deletion vectors, partitions, column mapping: Spark reads it
            return found.column_max(column)
    except (OSError, ValueError, delta_log.UnreadableTable):
        pass
    if missing_inputs(spark, ["base_mutations"]):
        return None
    return spark.sql(f"select max({column}) as found from {relation}").first().found


def append_refusals(spark, rows: list[tuple], table_format: str = "parquet") -> None:
    """Append what a load refused (``refusals.refusal_rows``) to ``cdc_input.load_refusals``."""
    from cdclake.load.refusals import LOAD_REFUSALS_SPARK_SCHEMA

    if missing_inputs(spark, ["load_refusals"]):
        _save(spark, "load_refusals", rows, LOAD_REFUSALS_SPARK_SCHEMA, table_format)
    elif rows:
        spark.createDataFrame(rows, schema=LOAD_REFUSALS_SPARK_SCHEMA).write.insertInto(
            f"{INPUT_SCHEMA}.load_refusals")


def append_inputs(
    spark,
    *,
    atoms: Iterable[Atom] = (),
    tables: Iterable[BaseTable] = (),
    columns: Iterable[BaseColumn] = (),
    table_format: str = "parquet",
) -> None:
    """Append mutation atoms and new schema versions to the input tables (created when missing,
    else written in the table's own format, whatever this session's is)."""
    missing = missing_inputs(spark, ("base_mutations", "base_tables", "base_columns"))
    for name, records, names, schema in (
        ("base_mutations", atoms, ATOM_COLUMNS, ATOM_SPARK_SCHEMA),
        ("base_tables", tables, BASE_TABLE_COLUMNS, BASE_TABLES_SPARK_SCHEMA),
        ("base_columns", columns, BASE_COLUMN_COLUMNS, BASE_COLUMNS_SPARK_SCHEMA),
    ):
        records = rows(records, names)
        if f"{INPUT_SCHEMA}.{name}" in missing:
            _save(spark, name, records, schema, table_format)
        elif records:
            spark.createDataFrame(records, schema=schema).write.insertInto(f"{INPUT_SCHEMA}.{name}")


def write_types(spark, types: Iterable[BaseTypeField], table_format: str = "parquet") -> None:
    """Overwrite ``cdc_input.base_types`` with every user type's fields (types carry no versions)."""
    records = rows(types, BASE_TYPE_COLUMNS)
    if missing_inputs(spark, ["base_types"]):
        _save(spark, "base_types", records, BASE_TYPES_SPARK_SCHEMA, table_format)
    else:
        spark.createDataFrame(records, schema=BASE_TYPES_SPARK_SCHEMA).write.insertInto(
            f"{INPUT_SCHEMA}.base_types", overwrite=True)


def append_imported_log(spark, rows: list[tuple], table_format: str = "parquet") -> int:
    """Append ``cdc_input.imported_log`` rows (``log_load.IMPORTED_LOG_COLUMNS``), but those of
    log rows imported before (same table, stream, time and batch sequence number): a file loaded
    twice adds nothing. Returns the number of rows appended."""
    from cdclake.load.log_load import IMPORTED_LOG_SPARK_SCHEMA

    if missing_inputs(spark, ["imported_log"]):
        _save(spark, "imported_log", rows, IMPORTED_LOG_SPARK_SCHEMA, table_format)
        return len(rows)
    frame = spark.createDataFrame(rows, schema=IMPORTED_LOG_SPARK_SCHEMA)
    key = ["keyspace_name", "table_name", "cdc$stream_id", "cdc$time", "cdc$batch_seq_no"]
    imported = spark.table(f"{INPUT_SCHEMA}.imported_log").select(*key).distinct()
    # a using-join puts its keys first: back to the table's column order for insertInto
    new = frame.join(imported, key, "left_anti").select(*frame.columns).cache()
    try:
        count = new.count()
        new.write.insertInto(f"{INPUT_SCHEMA}.imported_log")
        return count
    finally:
        new.unpersist()


class WarehouseWrites:
    """The rows written before a load (``table_state.EarlierWrites``): the atoms of
    ``cdc_input.base_mutations``, but those of writes a build rejected, one query per partition
    a statement reads (a whole table for a per-row TTL scan)."""

    def __init__(self, spark):
        from cdclake.session.warehouse import missing_tables

        self.spark = spark
        self.exists = not missing_inputs(spark, ["base_mutations"])
        self.ledger = not missing_tables(spark, ["cdc_lake.cdc_processed_writes"])

    def _atoms(self, condition: str, args: dict) -> list[Atom]:
        from cdclake.load.schema_records import record_from_row

        if not self.exists:
            return []
        rejected = ("and write_id not in (select write_id from cdc_lake.cdc_processed_writes "
                    "where status = 'rejected' and write_id is not null)") if self.ledger else ""
        rows = self.spark.sql(f"select * from {INPUT_SCHEMA}.base_mutations where {condition} {rejected} "
                              "order by write_id", args=args).collect()
        return [record_from_row(Atom, row.asDict()) for row in rows]

    def partition_atoms(self, keyspace: str, table: str, partition_key_json: str) -> list[Atom]:
        return self._atoms("keyspace_name = :keyspace and table_name = :table and partition_key = :key",
                           {"keyspace": keyspace, "table": table, "key": partition_key_json})

    def table_atoms(self, keyspace: str, table: str) -> list[Atom]:
        return self._atoms("keyspace_name = :keyspace and table_name = :table", {"keyspace": keyspace, "table": table})


def input_atoms(spark, project_dir: Path, *, example: bool) -> int:
    """How many rows the build's inputs hold: the mutation atoms (the example's seed file with
    ``example``) and the imported log's cells. Spark's sizing follows it (spark.plan_for_input_size).
    Counted from the tables' files when the warehouse is local (``local_input_atoms``), else by Spark."""
    from cdclake.session import delta_log

    if example:
        return example_input_atoms(project_dir)
    warehouse = delta_log.local_warehouse(spark)
    counted = local_input_atoms(warehouse) if warehouse is not None else None
    if counted is not None:
        return counted
    present = [name for name in ("base_mutations", "imported_log")
               if f"{INPUT_SCHEMA}.{name}" not in missing_inputs(spark, [name])]
    return sum(spark.table(f"{INPUT_SCHEMA}.{name}").count() for name in present)


def example_input_atoms(project_dir: Path) -> int:
    """The example's atoms: the lines of its seed file (a quoted line break counts twice)."""
    with (Path(project_dir) / "seeds" / "base_mutations.csv").open(encoding="utf-8") as seed:
        return max(sum(1 for _ in seed) - 1, 0)


def local_input_atoms(warehouse: Path) -> int | None:
    """``input_atoms`` of the local warehouse folder ``warehouse`` from its tables' files (no
    Spark: known before a session starts), None when a table's files cannot tell."""
    from cdclake.session import delta_log

    counts = [delta_log.folder_row_count(delta_log.table_folder(warehouse, f"{INPUT_SCHEMA}.{name}"))
              for name in ("base_mutations", "imported_log")]
    return None if None in counts else sum(counts)
