"""WHERE clause of a write -> the partitions and clustering rows or ranges it targets.

Follows ScyllaDB's ``statement_restrictions`` and ``modification_statement::process_where_clause``:

* partition key columns take ``=`` or ``IN`` (the keys are the cartesian product); all of them
  are mandatory;
* clustering columns take ``=``/``IN`` on a prefix, optionally followed by one slice
  (``<``, ``<=``, ``>``, ``>=``) on the next column; or multi-column relations
  ``(c1, c2) = / IN / < ... (v1, v2)`` starting at the first clustering column;
* slices are allowed for DELETE only; INSERT and UPDATE need the full clustering key unless
  they modify only static columns (then the clustering key must not be restricted).

Ranges are in clustering order: on a ``DESC`` column the upper value bound is the range start.
Ranges that cannot contain a row (``ck > 2 AND ck < 1``) are dropped.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Optional

from cdclake.cql import ast
from cdclake.cql.table_schema import Column, Table
from cdclake.cql.errors import CqlRequestError, CqlUnsupportedError
from cdclake.cql.udf_adapter import bound_name, clustering_key
from cdclake.cql.values import literal_value, to_json

_SLICE_OPERATORS = ("<", "<=", ">", ">=")


@dataclass(frozen=True)
class ClusteringRange:
    """Rows from ``start`` to ``end`` (clustering prefixes, ``()`` = unbounded), in clustering order."""

    start: tuple
    start_inclusive: bool
    end: tuple
    end_inclusive: bool

    def single_row(self, clustering_size: int) -> Optional[tuple]:
        """The full key if the range holds exactly one full key (``[k, k]``), else None."""
        if (len(self.start) == clustering_size and self.start_inclusive and self.end_inclusive
                and same_values(self.start, self.end)):
            return self.start
        return None


@dataclass(frozen=True)
class WriteTarget:
    """What a write addresses: ``partition_keys`` (value tuples in key order) and either the
    static row, full clustering rows, a set of clustering ranges, or (``whole_partition``) no
    clustering restriction at all."""

    partition_keys: list[tuple]
    static_row: bool = False
    rows: list[tuple] = field(default_factory=list)
    ranges: list[ClusteringRange] = field(default_factory=list)
    whole_partition: bool = False


def same_values(left: tuple, right: tuple) -> bool:
    """Equal as stored values (``1.5`` and ``1.50`` differ, as their serialized forms do)."""
    return len(left) == len(right) and all(to_json(a) == to_json(b) for a, b in zip(left, right))


@dataclass
class _ColumnRestriction:
    column: Column
    values: Optional[list] = None          # EQ ([v]) or IN (v...)
    is_in: bool = False
    lower: Optional[tuple[Any, bool]] = None
    upper: Optional[tuple[Any, bool]] = None
    slice_texts: list[str] = field(default_factory=list)


@dataclass
class _MultiRestriction:
    columns: tuple[Column, ...]
    tuples: Optional[list[tuple]] = None   # EQ or IN
    lower: Optional[tuple[tuple, bool]] = None
    upper: Optional[tuple[tuple, bool]] = None
    texts: list[str] = field(default_factory=list)


@dataclass
class _Restrictions:
    partition: dict[str, _ColumnRestriction] = field(default_factory=dict)
    clustering: dict[str, _ColumnRestriction] = field(default_factory=dict)
    multi: Optional[_MultiRestriction] = None
    non_key_columns: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _ClusteringShape:
    """How the WHERE clause restricts the clustering key."""

    prefixes: list[tuple]            # EQ/IN value combinations of the leading columns
    slice_bounds: Optional[tuple]    # (columns, lower, upper) of a trailing slice
    restricted_count: int            # leading clustering columns restricted by EQ/IN
    restricted: bool                 # any clustering restriction at all

    @property
    def has_slice(self) -> bool:
        return self.slice_bounds is not None


def resolve_write_target(table: Table, where: tuple[ast.AnyRelation, ...], *, statement_kind: str,
                         modified: list[Column]) -> WriteTarget:
    """Validate the WHERE clause of an INSERT (its key values as ``=`` relations), UPDATE or
    DELETE modifying the ``modified`` columns (none: a row/range/partition DELETE)."""
    restrictions = _collect(table, where)
    shape = _clustering_structure(table, restrictions)
    static_only = bool(modified) and all(column.kind == "static" for column in modified)
    if static_only and shape.restricted and statement_kind != "INSERT":
        raise CqlRequestError(f"Invalid restrictions on clustering columns since the {statement_kind} "
                              "statement modifies only static columns")
    if restrictions.non_key_columns:
        raise CqlRequestError("Invalid where clause contains non PRIMARY KEY columns: "
                              + ", ".join(restrictions.non_key_columns))
    if shape.has_slice and statement_kind != "DELETE":
        raise CqlRequestError(f"Invalid operator in where clause {_slice_text(restrictions)}")
    fully_restricted = shape.restricted_count == len(table.clustering) and not shape.has_slice
    if not fully_restricted and not (static_only and not shape.restricted):
        _refuse_partial_clustering_key(table, shape, statement_kind, modified)
    partition_keys = _partition_keys(table, restrictions)
    if static_only and not (statement_kind == "INSERT" and shape.restricted):
        return WriteTarget(partition_keys, static_row=True)
    if not table.clustering:
        if statement_kind == "DELETE" and not modified:
            return WriteTarget(partition_keys, whole_partition=True)
        return WriteTarget(partition_keys, rows=[()])
    if not shape.restricted:
        return WriteTarget(partition_keys, whole_partition=True)
    ranges = _clustering_ranges(table, shape)
    if fully_restricted:
        return WriteTarget(partition_keys, rows=[r.start for r in ranges])
    return WriteTarget(partition_keys, ranges=ranges)


def _refuse_partial_clustering_key(table: Table, shape: _ClusteringShape, statement_kind: str,
                                   modified: list[Column]) -> None:
    """INSERT/UPDATE need the whole clustering key; a DELETE of columns needs it too."""
    missing = table.clustering[shape.restricted_count].name
    non_static = [column.name for column in modified if column.kind != "static"]
    if statement_kind in ("INSERT", "UPDATE"):
        raise CqlRequestError(f"Missing mandatory PRIMARY KEY part {missing}")
    if non_static and shape.has_slice:
        raise CqlRequestError("Range deletions are not supported for specific columns")
    if non_static:
        raise CqlRequestError(f"Primary key column '{missing}' must be specified in order to modify column "
                              f"'{non_static[0]}'")


# ------------------------------------------------------------------------------ collecting


def _collect(table: Table, where: tuple[ast.AnyRelation, ...]) -> _Restrictions:
    restrictions = _Restrictions()
    for relation in where:
        if isinstance(relation, ast.TokenRelation):
            raise CqlRequestError("The token function cannot be used in WHERE clauses for UPDATE and DELETE "
                                  f"statements: {relation.text}")
        if isinstance(relation, ast.MultiColumnRelation):
            _add_multi(table, restrictions, relation)
            continue
        column = table.column(relation.column)
        if column is None:
            raise CqlRequestError(f"Undefined column name {relation.column}")
        if not column.is_primary_key:
            if column.name not in restrictions.non_key_columns:
                restrictions.non_key_columns.append(column.name)
            continue
        _check_operator(relation, column)
        group = restrictions.partition if column.kind == "partition_key" else restrictions.clustering
        _add_single(group.setdefault(column.name, _ColumnRestriction(column)), relation)
    if restrictions.multi is not None and restrictions.clustering:
        raise CqlRequestError("Mixing single column relations and multi column relations on clustering columns "
                              "is not allowed")
    return restrictions


def _check_operator(relation: ast.Relation, column: Column) -> None:
    operator = relation.operator
    if operator == "!=":
        raise CqlRequestError(f'Unsupported "!=" relation: {relation.text}')
    if operator not in ("=", "IN") + _SLICE_OPERATORS:
        raise CqlRequestError(f"Unsupported {operator} relation on PRIMARY KEY column {column.name}: {relation.text}")
    if column.kind == "partition_key" and operator in _SLICE_OPERATORS:
        raise CqlRequestError("Only EQ and IN relation are supported on the partition key (unless you use the "
                              "token() function or allow filtering)")


def _key_value(term: ast.Term, column: Column) -> Any:
    value = literal_value(term, column.type, column.name)
    if value is None:
        raise CqlRequestError(f"Invalid null value in condition for column {column.name}")
    return value


def _add_single(restriction: _ColumnRestriction, relation: ast.Relation) -> None:
    name = restriction.column.name
    if restriction.values is not None:
        what = "a IN" if restriction.is_in else "an Equal"
        raise CqlRequestError(f"{name} cannot be restricted by more than one relation if it includes {what}")
    if relation.operator in ("=", "IN"):
        if restriction.lower or restriction.upper:
            what = "a IN" if relation.operator == "IN" else "an Equal"
            raise CqlRequestError(f"{name} cannot be restricted by more than one relation if it includes {what}")
        terms = relation.value if relation.operator == "IN" else (relation.value,)
        restriction.values = _distinct_sorted([_key_value(term, restriction.column) for term in terms],
                                              restriction.column)
        restriction.is_in = relation.operator == "IN"
        return
    bound = (_key_value(relation.value, restriction.column), relation.operator in ("<=", ">="))
    if relation.operator in (">", ">="):
        if restriction.lower:
            raise CqlRequestError(f"More than one restriction was found for the start bound on {name}")
        restriction.lower = bound
    else:
        if restriction.upper:
            raise CqlRequestError(f"More than one restriction was found for the end bound on {name}")
        restriction.upper = bound
    restriction.slice_texts.append(relation.text)


def _distinct_sorted(values: list, column: Column) -> list:
    unique = {to_json(value): value for value in values}
    return sorted(unique.values(), key=lambda value: clustering_key((column,), (value,)))


def _add_multi(table: Table, restrictions: _Restrictions, relation: ast.MultiColumnRelation) -> None:
    columns = []
    for name in relation.columns:
        column = table.column(name)
        if column is None:
            raise CqlRequestError(f"Undefined column name {name}")
        if column.kind != "clustering":
            raise CqlRequestError(f"Multi-column relations can only be applied to clustering columns but was "
                                  f"applied to: {name}")
        columns.append(column)
    expected = [column.name for column in table.clustering[:len(columns)]]
    if list(relation.columns) != expected:
        if sorted(relation.columns) == sorted(expected):
            raise CqlRequestError(f"Clustering columns must appear in the PRIMARY KEY order in multi-column "
                                  f"relations: {relation.text}")
        raise CqlRequestError(f"Clustering columns may not be skipped in multi-column relations. They should "
                              f"appear in the PRIMARY KEY order. Got {relation.text}")
    multi = restrictions.multi
    if multi is None:
        multi = restrictions.multi = _MultiRestriction(tuple(columns))
    elif len(columns) > len(multi.columns):
        multi.columns = tuple(columns)
    tuples = relation.value if relation.operator == "IN" else (relation.value,)
    values = [_tuple_values(literal, columns, relation.text) for literal in tuples]
    first = columns[0].name
    if multi.tuples is not None or (relation.operator in ("=", "IN") and (multi.lower or multi.upper)):
        raise CqlRequestError(f"{first} cannot be restricted by more than one relation if it includes an Equal")
    if relation.operator in ("=", "IN"):
        multi.tuples = values
    elif relation.operator in (">", ">="):
        if multi.lower:
            raise CqlRequestError(f"More than one restriction was found for the start bound on {first}")
        multi.lower = (values[0], relation.operator == ">=")
    elif relation.operator in ("<", "<="):
        if multi.upper:
            raise CqlRequestError(f"More than one restriction was found for the end bound on {first}")
        multi.upper = (values[0], relation.operator == "<=")
    else:
        raise CqlRequestError(f'Unsupported "{relation.operator}" relation: {relation.text}')
    multi.texts.append(relation.text)


def _tuple_values(literal: ast.TupleLiteral, columns: list[Column], text: str) -> tuple:
    if len(literal.items) != len(columns):
        raise CqlRequestError(f"Expected {len(columns)} elements in value tuple, but got {len(literal.items)}: {text}")
    return tuple(_key_value(term, column) for term, column in zip(literal.items, columns))


# ------------------------------------------------------------------------------ clustering


def _clustering_structure(table: Table, restrictions: _Restrictions) -> _ClusteringShape:
    restricted = bool(restrictions.clustering) or restrictions.multi is not None
    if restrictions.multi is not None:
        multi = restrictions.multi
        if multi.tuples is not None:
            return _ClusteringShape(multi.tuples, None, len(multi.columns), restricted)
        return _ClusteringShape([()], (multi.columns, multi.lower, multi.upper), 0, restricted)
    value_lists: list[list] = []
    slice_bounds = None
    unrestricted: Optional[Column] = None
    for column in table.clustering:
        restriction = restrictions.clustering.get(column.name)
        if restriction is None:
            unrestricted = unrestricted or column
            continue
        if unrestricted is not None:
            raise CqlRequestError(f'PRIMARY KEY column "{column.name}" cannot be restricted as preceding column '
                                  f'"{unrestricted.name}" is not restricted')
        if slice_bounds is not None:
            raise CqlRequestError(f'Clustering column "{column.name}" cannot be restricted (preceding column '
                                  f'"{slice_bounds[0][0].name}" is restricted by a non-EQ relation)')
        if restriction.values is not None:
            value_lists.append(restriction.values)
        else:
            lower = ((restriction.lower[0],), restriction.lower[1]) if restriction.lower else None
            upper = ((restriction.upper[0],), restriction.upper[1]) if restriction.upper else None
            slice_bounds = ((column,), lower, upper)
    prefixes = [tuple(combination) for combination in itertools.product(*value_lists)]
    return _ClusteringShape(prefixes, slice_bounds, len(value_lists), restricted)


def _slice_text(restrictions: _Restrictions) -> str:
    if restrictions.multi is not None:
        return " AND ".join(restrictions.multi.texts)
    return " AND ".join(text for r in restrictions.clustering.values() for text in r.slice_texts)


def _clustering_ranges(table: Table, shape: _ClusteringShape) -> list[ClusteringRange]:
    ranges = []
    for prefix in shape.prefixes:
        if shape.slice_bounds is None:
            candidate = ClusteringRange(prefix, True, prefix, True)
        else:
            candidate = _slice_range(prefix, shape.slice_bounds)
        if not _is_empty(candidate, table.clustering):
            ranges.append(candidate)
    return ranges


def _slice_range(prefix: tuple, slice_bounds) -> ClusteringRange:
    columns, lower, upper = slice_bounds
    orders = {column.clustering_order for column in columns[:max(len(b[0]) for b in (lower, upper) if b)]}
    if len(orders) > 1:
        raise CqlUnsupportedError("multi-column slices over clustering columns of mixed ASC/DESC order "
                                  "are not supported")
    if orders == {"desc"}:
        lower, upper = upper, lower
    start = (prefix + lower[0], lower[1]) if lower else (prefix, True)
    end = (prefix + upper[0], upper[1]) if upper else (prefix, True)
    return ClusteringRange(start[0], start[1], end[0], end[1])


def _is_empty(candidate: ClusteringRange, columns: tuple[Column, ...]) -> bool:
    start = clustering_key(columns, candidate.start, bound_name("start", candidate.start_inclusive))
    return start >= clustering_key(columns, candidate.end, bound_name("end", candidate.end_inclusive))


# ------------------------------------------------------------------------------ partition


def _partition_keys(table: Table, restrictions: _Restrictions) -> list[tuple]:
    value_lists = []
    for column in table.partition_key:
        restriction = restrictions.partition.get(column.name)
        if restriction is None:
            raise CqlRequestError(f"Missing mandatory PRIMARY KEY part {column.name}")
        value_lists.append(restriction.values)
    keys = [tuple(combination) for combination in itertools.product(*value_lists)]
    if len(table.partition_key) == 1:
        empty = {"text": "", "ascii": "", "blob": "0x"}.get(table.partition_key[0].type.cql_text())
        if empty is not None and any(value == empty for (value,) in keys):
            raise CqlRequestError("Key may not be empty")
    return keys
