"""A CDC log table as cqlsh's ``COPY ks.t_scylla_cdc_log TO 'f.csv'`` writes it, from the rows of
``cdc_log`` (long form, JSON values): each value decoded to the Python value the driver hands
cqlsh, then printed by cqlsh's own formatter (``cqlshlib.formatting`` of scylla-cqlsh, called as
``copyutil.ExportProcess.format_value`` calls it) and written with COPY's CSV dialect."""
from __future__ import annotations

import csv
import datetime as dt
import io
from types import SimpleNamespace

from cassandra.util import Date, Duration, OrderedMap, SortedSet, Time
from cqlshlib.displaying import NO_COLOR_MAP
from cqlshlib.formatting import (
    DEFAULT_DATE_FORMAT,
    DEFAULT_NANOTIME_FORMAT,
    DEFAULT_TIMESTAMP_FORMAT,
    CqlType,
    DateTimeFormat,
    format_value,
)

from cdclake.load.table_export import CQLSH_DIALECT
from cdclake.logschema import LogColumn
from python_udfs.cql_types import TUPLE, UDT, as_cql_type, udt_fields
from python_udfs.cql_values import decode_json_value, loads_json

LOG_KEY = ("cdc$stream_id", "cdc$time", "cdc$batch_seq_no")
METADATA = ("cdc$stream_id", "cdc$time", "cdc$batch_seq_no", "cdc$operation", "cdc$ttl", "cdc$end_of_batch")
# COPY TO's defaults, but floats and doubles printed with the digits that give them back
COPY_OPTIONS = {
    "date_time_format": DateTimeFormat(DEFAULT_TIMESTAMP_FORMAT, DEFAULT_DATE_FORMAT, DEFAULT_NANOTIME_FORMAT,
                                       milliseconds_only=True),
    "nullval": "", "decimal_sep": ".", "thousands_sep": "", "boolean_styles": ["True", "False"],
}
PRECISION = {"float": 9, "double": 17}


class _UdtValue:
    """What the driver hands cqlsh for a user type: a named tuple (cqlsh reads ``_asdict``)."""

    def __init__(self, fields: dict):
        self.fields = fields

    def _asdict(self) -> dict:
        return self.fields


def export_log_table(cells: list[dict], log_columns: list[LogColumn], udts: dict, *, header: bool) -> str:
    """The CSV text of one log table (``cells``: its ``cdc_log`` rows), columns in the driver's
    order (partition key, clustering key, the others by name)."""
    names = list(LOG_KEY) + sorted(c.name for c in log_columns if c.name not in LOG_KEY)
    types = {c.name: c.cql_type for c in log_columns}
    keyspace_metadata = SimpleNamespace(user_types={
        name: SimpleNamespace(field_types=[field_type for _, field_type in fields]) for name, fields in udts.items()})
    cqlsh_types = {name: CqlType(types[name], keyspace_metadata) for name in names}
    rows: dict[tuple, dict] = {}
    for cell in cells:
        cell = {**cell, "cdc$stream_id": bytes(cell["cdc$stream_id"])}
        row = rows.setdefault(tuple(cell[k] for k in LOG_KEY), {name: cell[name] for name in METADATA})
        row[cell["column_name"]] = _driver_value(loads_json(cell["value"]), as_cql_type(types[cell["column_name"]]),
                                                 udts)
    out = io.StringIO()
    writer = csv.writer(out, **CQLSH_DIALECT)
    if header:
        writer.writerow(names)
    for key in sorted(rows, key=lambda k: (k[0], k[1], k[2])):
        writer.writerow([_printed(rows[key].get(name), cqlsh_types[name]) for name in names])
    return out.getvalue()


def _printed(value, cqlsh_type: CqlType) -> str:
    """copyutil.ExportProcess.format_value."""
    if value is None:
        return COPY_OPTIONS["nullval"]
    return str(format_value(value, cqltype=cqlsh_type, encoding="utf-8", colormap=NO_COLOR_MAP, quote=False,
                            float_precision=PRECISION.get(cqlsh_type.type_name, 5), **COPY_OPTIONS))


def _driver_value(value, cql_type, udts):
    """A JSON value of the input contract as the Python value the driver decodes."""
    return None if value is None else _driver_canonical(decode_json_value(value, cql_type, udts), cql_type, udts)


def _driver_composite(canonical, cql_type, udts):
    name = cql_type.name
    if name == "list":
        return [_driver_canonical(v, cql_type.params[0], udts) for v in canonical]
    if name == "set":
        return SortedSet(_driver_canonical(v, cql_type.params[0], udts) for v in canonical)
    if name == "map":
        return OrderedMap((_driver_canonical(k, cql_type.params[0], udts), _driver_canonical(v, cql_type.params[1], udts))
                          for k, v in canonical)
    if name == TUPLE:
        return tuple(_driver_canonical(v, p, udts) for v, p in zip(canonical, cql_type.params))
    return _UdtValue({field: _driver_canonical(canonical.get(field), field_type, udts)
                      for field, field_type in udt_fields(cql_type, udts)})


def _driver_canonical(canonical, cql_type, udts):
    if canonical is None:
        return None
    if cql_type.name in ("list", "set", "map", TUPLE, UDT):
        return _driver_composite(canonical, cql_type, udts)
    return _driver_scalar(canonical, cql_type.name)


def _driver_scalar(canonical, name: str):
    if name == "timestamp":
        return dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=canonical)
    if name == "date":
        return Date(canonical)
    if name == "time":
        return Time(canonical)
    if name == "duration":
        return Duration(canonical.months, canonical.days, canonical.nanoseconds)
    return canonical
