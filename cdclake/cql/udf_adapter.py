"""Serialized form and CQL order of front-door values, delegated to ``python_udfs``.

Front-door values already use the JSON value encoding ``python_udfs.cql_values`` decodes, so the
front door and the UDFs share one implementation: ``serialize`` (the serialized value that breaks
equal-timestamp ties), ``value_key`` (sorts set elements and map keys) and ``clustering_key``
(orders rows and range bounds, finds empty ranges). Adapting takes two things: the type, as
python_udfs type text with user types always quoted (a type named ``"int"`` stays a UDT) plus a
registry of the user types it uses.
"""
from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Sequence

from python_udfs.clustering import clustering_sort_key
from python_udfs.cql_values import decode_json_value, serialize_json_value
from python_udfs.errors import CqlValueError
from python_udfs.ordering import order_key

from cdclake.cql import types as t
from cdclake.cql.errors import CqlRequestError

UdtRegistry = dict[str, list[tuple[str, str]]]
_KINDS = {t.ListType: "list", t.VectorType: "list", t.SetType: "set", t.MapType: "map", t.TupleType: "tuple"}


@lru_cache(maxsize=1024)
def udf_type(cql_type: t.CqlType) -> tuple[str, UdtRegistry]:
    """python_udfs type text of ``cql_type`` and the registry of the user types it uses."""
    udts: UdtRegistry = {}
    return _type_text(cql_type, udts), udts


def _type_text(cql_type: t.CqlType, udts: UdtRegistry) -> str:
    if isinstance(cql_type, t.NativeType):
        return cql_type.name
    inner = [_type_text(item, udts) for item in t.inner_types(cql_type)]
    if isinstance(cql_type, t.UserType):
        udts.setdefault(cql_type.name, list(zip(cql_type.field_names, inner)))
        return '"' + cql_type.name.replace('"', '""') + '"'
    return f"{_KINDS[type(cql_type)]}<{', '.join(inner)}>"   # vectors have no values (literal_value)


@contextmanager
def _as_request_error():
    try:
        yield
    except CqlValueError as error:
        raise CqlRequestError(str(error)) from None


def serialize(cql_type: t.CqlType, value: Any) -> bytes:
    """CQL serialized form of a non-null value (``python_udfs.cql_values.serialize_json_value``)."""
    text, udts = udf_type(cql_type)
    with _as_request_error():
        return serialize_json_value(value, text, udts)


def value_key(cql_type: t.CqlType, value: Any) -> bytes:
    """Bytes ordered as ScyllaDB orders values (``python_udfs.ordering.order_key``)."""
    text, udts = udf_type(cql_type)
    with _as_request_error():
        return order_key(decode_json_value(value, text, udts), text, udts)


def clustering_key(columns: Sequence, prefix: Sequence[Any], bound: str = "row") -> bytes:
    """Bytes ordered as ScyllaDB's clustering order (``python_udfs.clustering.clustering_sort_key``)
    of the full key (``bound="row"``) or a range bound over a prefix of ``columns``' values;
    ``bound`` is ``row``, ``start_inclusive``, ``start_exclusive``, ``end_inclusive`` or
    ``end_exclusive``. Columns other than ``desc`` ones (partition key columns too) sort ascending."""
    types = [udf_type(column.type) for column in columns]
    udts = {name: fields for _, registry in types for name, fields in registry.items()}
    orders = ["desc" if column.clustering_order == "desc" else "asc" for column in columns]
    values = {column.name: value for column, value in zip(columns, prefix)}
    with _as_request_error():
        return clustering_sort_key(values, [column.name for column in columns], [text for text, _ in types],
                                   orders, bound, udts)


def bound_name(side: str, inclusive: bool) -> str:
    """``start_inclusive`` ... ``end_exclusive``, the bounds ``clustering_key`` takes."""
    return f"{side}_{'inclusive' if inclusive else 'exclusive'}"
