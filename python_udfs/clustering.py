"""Binary sort keys for clustering rows and range bounds (CQL clustering order as byte order).

``clustering_sort_key`` returns bytes whose unsigned lexicographic order (Spark ``BinaryType``
order) is ScyllaDB's clustering order (``position_in_partition``): rows by their clustering
key, each column ascending or descending; range bounds placed around the rows they cover.

Layout: one ``0x01 ‖ order_key(value)`` per present column (bit-inverted for DESC columns; the
per-type keys of ``ordering.py`` are prefix-free), then a one-byte suffix:

* ``0x00`` for ``start_inclusive`` and ``end_exclusive`` (before every row with that prefix),
* ``0x01`` for a full-key ``row`` (same byte as "another column follows"),
* ``0x02`` for ``start_exclusive`` and ``end_inclusive`` (after every row with that prefix).

So for a prefix ``p``: ``start_inclusive(p) == end_exclusive(p) < rows with prefix p <
start_exclusive(p) == end_inclusive(p)``. An open bound (``{}``) gives ``0x00``/``0x02``
(before/after every row). The static row (``ck_json`` null with bound ``row``) is ``b""``,
before everything.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from python_udfs.cql_types import CqlType, UdtRegistry, parse_cql_type
from python_udfs.cql_values import CqlValueError, decode_json_value, describe_json, loads_json
from python_udfs.ordering import invert, order_key

COMPONENT_MARKER = b"\x01"
BEFORE_ROWS_WITH_PREFIX = b"\x00"
ROW = b"\x01"
AFTER_ROWS_WITH_PREFIX = b"\x02"
BOUND_SUFFIX = {
    "row": ROW,
    "start_inclusive": BEFORE_ROWS_WITH_PREFIX,
    "end_exclusive": BEFORE_ROWS_WITH_PREFIX,
    "start_exclusive": AFTER_ROWS_WITH_PREFIX,
    "end_inclusive": AFTER_ROWS_WITH_PREFIX,
}
STATIC_ROW_KEY = b""


@lru_cache(maxsize=1024)
def _parsed_columns(types: tuple[str, ...], orders: tuple[str, ...]) -> tuple[tuple[CqlType, bool], ...]:
    columns = []
    for cql_type, order in zip(types, orders):
        normalized = (order or "asc").strip().lower()
        if normalized not in ("asc", "desc"):
            raise CqlValueError(f"clustering order must be ASC or DESC, got {order!r}")
        columns.append((parse_cql_type(cql_type), normalized == "desc"))
    return tuple(columns)


def clustering_prefix_values(ck_json: str | dict | None, names: Sequence[str]) -> list:
    """The JSON values of the clustering prefix, in schema order; a null value ends the prefix.

    Raises ``CqlValueError`` for unknown columns or a value after a gap (not a prefix)."""
    given = {} if ck_json is None else (loads_json(ck_json) if isinstance(ck_json, str) else ck_json)
    if not isinstance(given, dict):
        raise CqlValueError(f"clustering key must be a JSON object {{column: value}}, got {describe_json(given)}")
    unknown = [column for column in given if column not in names]
    if unknown:
        raise CqlValueError(f"clustering key column {unknown[0]!r} is not a clustering column of {list(names)}")
    present = [given.get(name) for name in names]
    length = next((i for i, value in enumerate(present) if value is None), len(present))
    if any(value is not None for value in present[length:]):
        raise CqlValueError(f"clustering key {describe_json(given)} is not a prefix: {names[length]!r} is missing")
    return present[:length]


def clustering_sort_key(ck_json: str | dict | None, names: Sequence[str], types: Sequence[str],
                        orders: Sequence[str], bound: str, udts: UdtRegistry | None = None) -> bytes:
    """Order-preserving binary key of a clustering row (``bound="row"``, full key) or of a range
    bound over a clustering prefix (``start_inclusive``, ``start_exclusive``, ``end_inclusive``,
    ``end_exclusive``; ``{}`` or null is the open bound). ``orders`` holds ``ASC``/``DESC``."""
    if bound not in BOUND_SUFFIX:
        raise CqlValueError(f"bound must be one of {sorted(BOUND_SUFFIX)}, got {bound!r}")
    if not len(names) == len(types) == len(orders):
        raise CqlValueError(f"clustering key needs names, types and orders of equal length, got "
                            f"{len(names)}, {len(types)} and {len(orders)}")
    if ck_json is None and bound == "row":
        return STATIC_ROW_KEY
    columns = _parsed_columns(tuple(types), tuple(orders))
    values = clustering_prefix_values(ck_json, names)
    if bound == "row" and len(values) != len(names):
        raise CqlValueError(f"clustering row needs every clustering column; {names[len(values)]!r} is missing")
    parts = []
    for name, value, (cql_type, descending) in zip(names, values, columns):
        try:
            key = order_key(decode_json_value(value, cql_type, udts), cql_type, udts)
        except CqlValueError as error:
            raise CqlValueError(f"clustering key column {name!r}: {error}") from None
        parts.append(COMPONENT_MARKER + (invert(key) if descending else key))
    return b"".join(parts) + BOUND_SUFFIX[bound]
