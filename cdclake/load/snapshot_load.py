"""``cdclake load snapshot KS.TABLE FILE.csv``: backfill a table's existing rows into the log.

The file is an export of the table's rows (``table_export``): cqlsh ``COPY ks.t TO 'f.csv'``
(with or without ``HEADER = true``) or ``dsbulk unload``. A header may add ``writetime(c)`` and
``ttl(c)`` columns for regular and static columns (a ``SELECT ..., writetime(c), ttl(c)`` export).
Each row becomes the CQL write that writes it again, run through the CQL front door, so its
log rows are those ScyllaDB logs for that write:

- ``backfill`` time (the default): one ``INSERT ... USING TIMESTAMP <backfill time>`` per row,
  with each column's remaining ``ttl(c)`` when exported (columns with different TTLs: one more
  ``UPDATE`` per TTL).
- ``original`` write times: per row an ``INSERT`` of the key with the columns written at the
  earliest ``writetime(c)``, and one ``UPDATE`` per later write time, each ``USING TIMESTAMP``
  that time; all in write-time order. ScyllaDB admits a write that old only inside the
  generation operating at the load's clock (``--now``), so older rows are rejected with its
  error text (``cdc_rejected_writes``), as a real backfill of them would be.

A partition's static cells are written once, by writes restricted by its partition key alone; a
partition holding only static cells exports as one row with empty clustering columns. A TTL column
left empty says the cell has none: in a table with ``default_time_to_live`` it is written
``AND TTL 0`` (``RowWrites``).

A bad field (a value not of the column's type, an empty key) is reported with its line and
column and its row is not loaded; a header naming an unknown column, a row with the wrong number
of fields or an unknown table stops the load before anything is written (``ExportFileError``).
"""
from __future__ import annotations

from typing import Iterator

from cdclake.cql.describe import maybe_quote
from cdclake.cql.errors import CqlError
from cdclake.cql.interpreter import catalog_of
from cdclake.cql.parser import parse_script
from cdclake.load.cql_load import CqlLoad, load_cql_statements
from cdclake.load.refusals import Refusal
from cdclake.load.schema_ddl import schema_ddl
from cdclake.load.table_export import ExportFileError, Field, check_field_counts, layout, records, row_values

WRITE_TIME_MODES = ("backfill", "original")
CHUNK_ROWS = 50_000         # export rows per front-door run and append: memory stays bounded


def snapshot_loads(text: str, path: str, keyspace: str, table_name: str, *, existing: tuple[list, list, list],
                   last_write_id: int, now_us: int, write_times: str = "backfill", backfill_us: int | None = None,
                   earlier_writes=None, chunk_rows: int = CHUNK_ROWS) -> Iterator[CqlLoad]:
    """The writes that load the export ``text`` of ``keyspace.table_name`` (see the module
    docstring), ``chunk_rows`` rows at a time, write ids continuing from chunk to chunk;
    ``backfill_us``: the backfill write time (default ``now_us``). The whole file's structure is
    checked first: ``ExportFileError`` before any chunk."""
    if write_times not in WRITE_TIME_MODES:
        raise ValueError(f"write_times must be one of {WRITE_TIME_MODES}")
    preamble = schema_ddl(*existing) if existing[0] else ""
    try:
        table = catalog_of(preamble).table(keyspace, table_name)
    except CqlError:
        raise ExportFileError(f"{path}: table {keyspace}.{table_name} is not in the warehouse "
                              "(load its schema first: cdclake load schema)") from None
    rows = list(records(text, path))
    if not rows:
        return iter(())
    fields, rows = layout(rows, table, path)
    if write_times == "original" and not any(f.role == "writetime" for f in fields):
        raise ExportFileError(f"{path}:1: original write times need writetime(c) columns in the header")
    check_field_counts(rows, fields, path)

    def chunks(last: int):
        backfill = now_us if backfill_us is None else backfill_us
        row_writes = RowWrites(table, write_times, backfill)      # a partition's rows may span two chunks
        for start in range(0, len(rows), chunk_rows):
            load = _rows_load(rows[start:start + chunk_rows], fields, table, path, existing=existing,
                              last_write_id=last, now_us=now_us, write_times=write_times, backfill_us=backfill,
                              row_writes=row_writes, earlier_writes=earlier_writes)
            last = max((atom.write_id for atom in load.atoms), default=last)
            yield load

    return chunks(last_write_id)


def load_snapshot_text(text: str, path: str, keyspace: str, table_name: str, **options) -> CqlLoad:
    """``snapshot_loads`` as one load (all chunks' writes and problems)."""
    whole = CqlLoad()
    for load in snapshot_loads(text, path, keyspace, table_name, **options):
        whole.atoms += load.atoms
        whole.problems += load.problems
    return whole


def _rows_load(rows: list, fields: list[Field], table, path: str, **options) -> CqlLoad:
    """The writes of some rows of the export (``options``: those of ``values_load``)."""
    problems, rows_values = [], []
    for line, row in rows:
        values, errors = row_values(row, fields, table, f"{path}:{line}")
        problems += errors
        if not errors:
            rows_values.append((f"{path}:{line}", values))
    load = values_load(rows_values, table, path, **options)
    load.problems = problems + load.problems
    return load


def values_load(rows: list[tuple[str, dict]], table, path: str, *, write_times: str, backfill_us: int,
                row_writes: "RowWrites | None" = None, **options) -> CqlLoad:
    """The writes that write some rows again, run through the front door; ``rows``: (where,
    {column: {'literal', 'value', 'writetime', 'ttl'}}) each (``table_export.row_values``'s form);
    ``row_writes``: the ``RowWrites`` of the rows before these (a table's rows come in chunks);
    ``options``: those of ``load_cql_statements``. In write-time order with original write times.
    A row that no write can write again is refused on its own (``UnwritableRow``), named by its key."""
    row_writes = row_writes or RowWrites(table, write_times, backfill_us)
    writes, refused = [], []
    for where, values in rows:
        try:
            writes += [(timestamp, where, statement) for timestamp, statement in row_writes.of(values)]
        except UnwritableRow as error:
            refused.append(Refusal(where, str(error)))
    writes.sort(key=lambda w: w[0] if write_times == "original" else 0)
    statements = parse_script("\n".join(statement for _, _, statement in writes))
    load = load_cql_statements(statements, path, step_us=0,
                               lines={index: where for index, (_, where, _) in enumerate(writes)}, **options)
    load.problems = refused + load.problems
    return load


class UnwritableRow(ValueError):
    """A row of a table that no CQL write gives (a null key column but for a static-only partition's
    clustering columns); the message names the row by its key."""


class RowWrites:
    """(write time, statement) of the writes that write a table's rows again, one row at a time, in
    the order a scan gives them (a partition's rows together).

    - A partition's static cells are written once, with its first row (or as its only row: a
      partition holding static cells alone reads as one row with null clustering columns), by writes
      restricted by the partition key alone: ``INSERT INTO t (pk, s) ...``, then an ``UPDATE ... SET
      s = ... WHERE pk = ...`` per later write time.
    - A row's regular cells: an ``INSERT`` of the key with the cells of the first group (the row
      marker), then an ``UPDATE`` per later group.

    Cells are grouped by (write time, TTL): the backfill time, or each cell's own ``writetime`` with
    ``original``; the TTL read (``ttl`` 0: none was, in a table with ``default_time_to_live``
    written ``AND TTL 0`` so that the default does not apply) or none given (the default applies)."""

    def __init__(self, table, write_times: str, backfill_us: int):
        self.table, self.write_times, self.backfill_us = table, write_times, backfill_us
        self.qualified = f"{maybe_quote(table.keyspace)}.{maybe_quote(table.name)}"
        self._statics_written_for = None        # the last partition whose static cells were written

    def of(self, values: dict) -> list[tuple[int, str]]:
        table = self.table
        partition = [c.name for c in table.partition_key]
        clustering = [c.name for c in table.clustering]
        given = {name for name, entry in values.items() if "literal" in entry}
        missing = [name for name in partition + clustering if name not in given]
        static_only = bool(clustering) and set(missing) == set(clustering) and bool(table.static)
        if missing and not static_only:
            raise UnwritableRow(f"{self.key_text(values)}: key column {missing[0]} is null")
        statics = [c.name for c in table.static if c.name in given]
        if static_only and not statics:
            raise UnwritableRow(f"{self.key_text(values)}: no clustering key and no static value")
        writes = []
        partition_literals = tuple(values[name]["literal"] for name in partition)
        if statics and partition_literals != self._statics_written_for:
            writes += self._writes(values, partition, statics, key_only_marker=False)
            self._statics_written_for = partition_literals
        if not static_only:
            regular = [c.name for c in table.regular if c.name in given]
            writes += self._writes(values, partition + clustering, regular, key_only_marker=True)
        return writes

    def key_text(self, values: dict) -> str:
        return "key (" + ", ".join(f"{name} = {values.get(name, {}).get('literal', 'null')}" for name in
                                   (c.name for c in self.table.partition_key + self.table.clustering)) + ")"

    def _writes(self, values: dict, keys: list[str], names: list[str],
                key_only_marker: bool) -> list[tuple[int, str]]:
        """The writes of the cells ``names`` of the row or static row keyed by ``keys``."""
        groups: dict[tuple[int, int | None], list[str]] = {}
        for name in names:
            entry = values[name]
            timestamp = self.backfill_us if self.write_times != "original" else entry.get("writetime", self.backfill_us)
            ttl = entry.get("ttl")
            if ttl == 0 and not self.table.default_time_to_live:
                ttl = None                       # no TTL, and none by default: nothing to say
            groups.setdefault((timestamp, ttl), []).append(name)
        if not groups and key_only_marker:       # keys only: the row marker alone
            groups[(self.backfill_us, None)] = []
        ordered = sorted(groups.items(), key=lambda item: (item[0][0], item[0][1] is not None, item[0][1] or 0))
        writes = []
        for number, ((timestamp, ttl), group) in enumerate(ordered):
            using = f"USING TIMESTAMP {timestamp}" + ("" if ttl is None else f" AND TTL {ttl}")
            if number == 0:
                columns = keys + group
                names_text = ", ".join(maybe_quote(c) for c in columns)
                writes.append((timestamp, f"INSERT INTO {self.qualified} ({names_text}) "
                                          f"VALUES ({', '.join(values[c]['literal'] for c in columns)}) {using};"))
            else:
                assignments = ", ".join(f"{maybe_quote(c)} = {values[c]['literal']}" for c in group)
                where = " AND ".join(f"{maybe_quote(c)} = {values[c]['literal']}" for c in keys)
                writes.append((timestamp, f"UPDATE {self.qualified} {using} SET {assignments} WHERE {where};"))
        return writes
