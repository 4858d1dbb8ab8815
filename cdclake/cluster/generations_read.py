"""A cluster's CDC generations (vnodes keyspaces) and stream sets (tablets keyspaces), read as
JSON rows (``SELECT JSON``, through the connector's session) and imported as ``cdclake
generations import`` imports their cqlsh exports: the rows are written out in an export's form and
go through the same importer (``generation_import``, ``tablet_import``), its checks and its
restoring of each vnode's shard order included.

    <generations keyspace>.cdc_generation_timestamps     key, time, expired
    <generations keyspace>.cdc_streams_descriptions_v2   time, range_end, streams
    <tablets keyspace>.cdc_streams                       keyspace_name, table_name, timestamp,
                                                         stream_state, stream_id

The keyspaces are ``system_distributed`` and ``system`` on ScyllaDB (options: a test server cannot
create tables there). JSON gives timestamps as ``2023-11-14 21:00:00.000Z`` and blobs as ``0x…``.
"""
from __future__ import annotations

import csv
import io

from cdclake.generations.generation_import import CsvOptions, Generations, import_streams_descriptions_v2
from cdclake.generations.tablet_import import import_cdc_streams


class _Export(io.StringIO):
    """An export's text under the name errors give it: the cluster and the table."""

    def __init__(self, text: str, name: str):
        super().__init__(text, newline="")
        self.name = name


def _export(header: list[str], rows: list[list], name: str) -> _Export:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([["" if value is None else value for value in row] for row in rows])
    return _Export(out.getvalue(), name)


def vnode_generations(timestamps: list[dict], descriptions: list[dict], source: str, ignore_msb: int) -> Generations:
    """The generations of the two tables' JSON rows, as the importer reads their exports."""
    published = _export(["key", "time", "expired"], [[r["key"], r["time"], r.get("expired")] for r in timestamps],
                         f"{source}.cdc_generation_timestamps")
    streams = _export(["time", "range_end", "streams"],
                      [[r["time"], r["range_end"], "{" + ", ".join(r["streams"] or ()) + "}"] for r in descriptions],
                      f"{source}.cdc_streams_descriptions_v2")
    return import_streams_descriptions_v2(streams, published, ignore_msb=ignore_msb, options=CsvOptions(header=True))


def tablet_stream_rows(streams: list[dict], source: str) -> list[tuple]:
    """The ``cdc_input.tablet_streams`` rows of ``cdc_streams``' JSON rows."""
    export = _export(["keyspace_name", "table_name", "timestamp", "stream_state", "stream_id"],
                     [[r["keyspace_name"], r["table_name"], r["timestamp"], r["stream_state"], r["stream_id"]]
                      for r in streams], f"{source}.cdc_streams")
    return import_cdc_streams(export, header=True)
