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
        for start in range(0, len(rows), chunk_rows):
            load = _rows_load(rows[start:start + chunk_rows], fields, table, path, existing=existing,
                              last_write_id=last, now_us=now_us, write_times=write_times,
                              backfill_us=now_us if backfill_us is None else backfill_us, earlier_writes=earlier_writes)
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
                **options) -> CqlLoad:
    """The writes that write some rows again, run through the front door; ``rows``: (where,
    {column: {'literal', 'value', 'writetime', 'ttl'}}) each (``table_export.row_values``'s form);
    ``options``: those of ``load_cql_statements``. In write-time order with original write times."""
    writes = [(timestamp, where, statement) for where, values in rows
              for timestamp, statement in _row_writes(values, table, write_times, backfill_us)]
    writes.sort(key=lambda w: w[0] if write_times == "original" else 0)
    statements = parse_script("\n".join(statement for _, _, statement in writes))
    return load_cql_statements(statements, path, step_us=0,
                               lines={index: where for index, (_, where, _) in enumerate(writes)}, **options)


def _row_writes(values: dict, table, write_times: str, backfill_us: int) -> list[tuple[int, str]]:
    """(write time, statement) of the writes that write one row again."""
    keys = [c.name for c in table.partition_key + table.clustering]
    others = [name for name, entry in values.items() if name not in keys and "literal" in entry]
    groups: dict[tuple[int, int | None], list[str]] = {}
    for name in others:
        entry = values[name]
        timestamp = entry.get("writetime", backfill_us) if write_times == "original" else backfill_us
        groups.setdefault((timestamp, entry.get("ttl")), []).append(name)
    if not groups:                    # keys only: the row marker alone
        groups[(backfill_us, None)] = []
    ordered = sorted(groups.items(), key=lambda item: (item[0][0], item[0][1] is not None, item[0][1] or 0))
    qualified = f"{maybe_quote(table.keyspace)}.{maybe_quote(table.name)}"
    writes = []
    for number, ((timestamp, ttl), names) in enumerate(ordered):
        using = f"USING TIMESTAMP {timestamp}" + (f" AND TTL {ttl}" if ttl else "")
        if number == 0:
            columns = keys + names
            writes.append((timestamp, f"INSERT INTO {qualified} ({', '.join(maybe_quote(c) for c in columns)}) "
                                      f"VALUES ({', '.join(values[c]['literal'] for c in columns)}) {using};"))
        else:
            assignments = ", ".join(f"{maybe_quote(c)} = {values[c]['literal']}" for c in names)
            where = " AND ".join(f"{maybe_quote(c)} = {values[c]['literal']}" for c in keys)
            writes.append((timestamp, f"UPDATE {qualified} {using} SET {assignments} WHERE {where};"))
    return writes
