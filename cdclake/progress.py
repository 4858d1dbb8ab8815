"""Progress of a ``cdclake build``/``run``: after each table model, its row count and the time so far.

dbt already prints each node as it starts and ends (``12 of 92 START ...``); this adds what
dbt does not know on Spark: how many rows each table now holds, and the elapsed time.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

COUNTED_MATERIALIZATIONS = {"table", "incremental"}


class ModelRowCounts:
    """A dbt callback: ``cdclake: int_log_rows: 1,234 rows (0.8 s; 25.1 s so far)``."""

    def __init__(self, count_rows: Callable[[str], int], stream: TextIO = sys.stderr) -> None:
        self._count_rows = count_rows
        self._stream = stream
        self._started = time.monotonic()
        self.counts: dict[str, int] = {}

    def __call__(self, event) -> None:
        if event.info.name != "NodeFinished":
            return
        node = event.data.node_info
        if node.resource_type != "model" or node.materialized not in COUNTED_MATERIALIZATIONS:
            return
        if node.node_status != "success" or not node.node_relation.relation_name:
            return
        rows = self._count_rows(node.node_relation.relation_name)
        self.counts[node.node_name] = rows
        elapsed = time.monotonic() - self._started
        took = event.data.run_result.execution_time
        print(f"cdclake: {node.node_name}: {rows:,} rows ({took:.1f} s; {elapsed:.1f} s so far)",
              file=self._stream, flush=True)


def spark_row_counter(spark) -> Callable[[str], int]:
    return lambda relation: spark.sql(f"select count(*) from {relation}").collect()[0][0]
