"""CDC generations as the input tables ``cdc_input.cdc_generations`` / ``cdc_generation_streams``.

Generations come from a cluster history (YAML), from cqlsh exports of a real cluster, or from
a folder of CSV files in the seed layout; they are loaded by Spark from column arrays (Arrow),
so a 1.6M-stream generation loads in seconds, not through ``dbt seed``.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from cdclake.generations.vnodes import Entry, generations_stream_columns
from cdclake.load.inputs import (
    GENERATION_STREAMS_COLUMNS,
    GENERATION_STREAMS_SPARK_SCHEMA,
    GENERATIONS_SPARK_SCHEMA,
    INPUT_SCHEMA,
)


@dataclass
class GenerationTables:
    """Generation timestamps (ms) and every stream, column by column (GENERATION_STREAMS_COLUMNS)."""

    timestamps_ms: list[int]
    streams: dict

    @classmethod
    def from_entries(cls, generations: Sequence[tuple[int, Sequence[Entry]]]) -> "GenerationTables":
        return cls([ts for ts, _ in generations], generations_stream_columns(generations))

    @property
    def stream_count(self) -> int:
        return len(self.streams["stream_id"])


def from_history_file(path: Path) -> GenerationTables:
    from cdclake.generations.cluster_history import generations_from_history_file

    return GenerationTables.from_entries(generations_from_history_file(path))


def from_csv_folder(folder: Path) -> GenerationTables:
    """``cdc_generations.csv`` and ``cdc_generation_streams.csv`` as in ``seeds/``."""
    with open(folder / "cdc_generations.csv", newline="") as f:
        timestamps = [int(r["generation_ts_ms"]) for r in csv.DictReader(f)]
    with open(folder / "cdc_generation_streams.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    streams = {
        name: np.array([int(r[name]) for r in rows], dtype=np.int64)
        for name in GENERATION_STREAMS_COLUMNS if name != "stream_id"
    }
    streams["stream_id"] = [r["stream_id"].lower() for r in rows]
    return GenerationTables(timestamps, streams)


def from_path(path: Path) -> GenerationTables:
    """A cluster history file (``.yml``/``.yaml``) or a folder of seed-layout CSV files."""
    path = Path(path)
    if path.is_dir():
        return from_csv_folder(path)
    if path.suffix.lower() in (".yml", ".yaml"):
        return from_history_file(path)
    raise ValueError(f"{path}: expected a cluster history (.yml) or a folder with cdc_generations.csv")


def write_csv_folder(tables: GenerationTables, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "cdc_generations.csv", "w", newline="") as f:
        f.write("generation_ts_ms\n" + "".join(f"{ts}\n" for ts in tables.timestamps_ms))
    with open(folder / "cdc_generation_streams.csv", "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(GENERATION_STREAMS_COLUMNS)
        writer.writerows(zip(*(tables.streams[name] for name in GENERATION_STREAMS_COLUMNS)))


def load(spark, tables: GenerationTables, table_format: str) -> None:
    """Overwrite the two generation input tables (Arrow transfer, no per-row Python)."""
    import pandas as pd

    spark.sql(f"create database if not exists {INPUT_SCHEMA}")
    spark.createDataFrame(
        pd.DataFrame({"generation_ts_ms": np.array(tables.timestamps_ms, dtype=np.int64)}),
        schema=GENERATIONS_SPARK_SCHEMA,
    ).write.mode("overwrite").format(table_format).saveAsTable(f"{INPUT_SCHEMA}.cdc_generations")
    frame = pd.DataFrame({name: tables.streams[name] for name in GENERATION_STREAMS_COLUMNS})
    for name in ("vnode_index", "ignore_msb", "shard"):
        frame[name] = frame[name].astype(np.int32)
    spark.createDataFrame(frame, schema=GENERATION_STREAMS_SPARK_SCHEMA) \
        .write.mode("overwrite").format(table_format).saveAsTable(f"{INPUT_SCHEMA}.cdc_generation_streams")
