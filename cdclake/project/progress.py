"""Progress of a ``cdclake build``/``run``: after each table model, its row count and the time so far.

dbt already prints each node as it starts and ends (``12 of 92 START ...``); this adds what
dbt does not know on Spark: how many rows each table now holds, and the elapsed time.

dbt calls back on the thread that ran the node, before it lets the node's dependents start. A
Delta table's rows are counted from its files (``spark_row_counter``), any other's by a Spark job;
the counts run on a thread of their own, one after the other, and no node waits for one.
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from typing import Callable, TextIO

COUNTED_MATERIALIZATIONS = {"table", "incremental"}


class ModelRowCounts:
    """A dbt callback: ``cdclake: int_log_rows: 1,234 rows (0.8 s; 25.1 s so far)``, the time so
    far taken when the model finished. ``close()`` waits for the counts still to print."""

    def __init__(self, count_rows: Callable[[str], int], stream: TextIO = sys.stderr) -> None:
        self._count_rows = count_rows
        self._stream = stream
        self._started = time.monotonic()
        self._finished: queue.SimpleQueue = queue.SimpleQueue()
        self._counter = threading.Thread(target=self._count_each_finished, name="cdclake-row-counts", daemon=True)
        self._counter.start()
        self._count_the_rest = True
        self.counts: dict[str, int] = {}

    def __call__(self, event) -> None:
        if event.info.name != "NodeFinished":
            return
        node = event.data.node_info
        if node.resource_type != "model" or node.materialized not in COUNTED_MATERIALIZATIONS:
            return
        if node.node_status != "success" or not node.node_relation.relation_name:
            return
        elapsed = time.monotonic() - self._started
        self._finished.put((node.node_name, node.node_relation.relation_name,
                            event.data.run_result.execution_time, elapsed))

    def close(self, *, count_the_rest: bool = True) -> None:
        self._count_the_rest = count_the_rest
        self._finished.put(None)
        self._counter.join()

    def __enter__(self) -> ModelRowCounts:
        return self

    def __exit__(self, error_type, *_) -> None:
        self.close(count_the_rest=error_type is None)     # interrupted: no more Spark jobs

    def _count_each_finished(self) -> None:
        while (finished := self._finished.get()) is not None:
            name, relation, took, elapsed = finished
            if not self._count_the_rest:
                continue
            try:
                rows = self._count_rows(relation)
            except Exception as error:  # noqa: BLE001 - a count that fails is reported, the build goes on
                first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
                print(f"cdclake: {name}: rows not counted: {first_line}", file=self._stream, flush=True)
                continue
            self.counts[name] = rows
            print(f"cdclake: {name}: {rows:,} rows ({took:.1f} s; {elapsed:.1f} s so far)",
                  file=self._stream, flush=True)


def spark_row_counter(spark) -> Callable[[str], int]:
    """A table's rows: from its files when it is a Delta table of the session's local warehouse
    (its log and Parquet footers, cdclake/session/delta_log.py: no Spark job to compete with the
    build's for the cores), else a Spark count."""
    from cdclake.session import delta_log

    def count(relation: str) -> int:
        try:
            found = delta_log.table_snapshot(spark, relation.replace("`", ""))
            if found is not None:
                return found.row_count()
        except (OSError, ValueError, delta_log.UnreadableTable):
            pass
        return spark.sql(f"select count(*) from {relation}").collect()[0][0]

    return count
