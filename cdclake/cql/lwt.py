"""Lightweight transactions: ``INSERT ... IF NOT EXISTS``, ``UPDATE``/``DELETE ... IF EXISTS`` or
``IF <conditions>``, and BATCHes that hold them, as ScyllaDB runs them for CQL (docs/scylla/corners.md,
"Lightweight transactions"; ``service/storage_proxy.cc`` cas, ``cql3/statements/cas_request.cc``,
``modification_statement.cc``, ``batch_statement.cc``, ``cql3/expr/expression.cc``).

* ``prepare``: the errors ScyllaDB raises before it runs anything.
* ``decide``: one read of the partition before the request; each conditional statement is
  checked against its old row (L3.3) with the LWT null rules (L4); all must hold.
* The caller then applies the request's writes, all at the paxos ballot's timestamp (a failed
  condition writes nothing, so CDC logs nothing), and reports ``[applied]`` with the old values,
  applied or not (L5).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional, Union

from cdclake.cql import ast
from cdclake.cql import types as t
from cdclake.cql.table_schema import Column, Table
from cdclake.cql.errors import CqlRequestError
from cdclake.cql.restrictions import WriteTarget, resolve_write_target
from cdclake.cql.table_state import RowRead, TableState
from cdclake.cql.udf_adapter import value_key
from cdclake.cql.values import literal_value

DmlStatement = Union[ast.Insert, ast.Update, ast.Delete]
ORDERING = ("<", "<=", ">", ">=")


def is_conditional(statement: DmlStatement) -> bool:
    return bool(getattr(statement, "if_not_exists", False) or getattr(statement, "if_exists", False)
                or getattr(statement, "conditions", ()))


def is_conditional_request(statement: ast.Statement) -> bool:
    """A conditional statement, or a BATCH holding one."""
    if isinstance(statement, ast.Batch):
        return any(is_conditional(s) for s in statement.statements)
    return isinstance(statement, (ast.Insert, ast.Update, ast.Delete)) and is_conditional(statement)


@dataclass(frozen=True)
class Check:
    """One statement of the request with what its condition reads: the partition and row it
    addresses (``row`` None: the static row) and its column conditions."""

    statement: DmlStatement
    table: Table
    target: WriteTarget
    row: Optional[tuple]
    conditions: tuple[tuple[ast.Condition, Column], ...] = ()

    @property
    def exists_test(self) -> Optional[str]:
        if getattr(self.statement, "if_not_exists", False):
            return "not exists"
        return "exists" if getattr(self.statement, "if_exists", False) else None

    @property
    def only_static(self) -> bool:
        """The condition reads the static row only (``has_only_static_conditions``)."""
        if self.exists_test:
            return self.row is None
        return bool(self.conditions) and all(column.kind == "static" for _, column in self.conditions)

    def result_columns(self) -> list[Column]:
        """What the client gets after ``[applied]`` (L5.1): every column for IF [NOT] EXISTS,
        else each column the conditions name, in schema order."""
        if self.exists_test:
            return list(self.table.columns)
        named = {column.name for _, column in self.conditions}
        return [column for column in self.table.columns if column.name in named]


def _modified_columns(statement: DmlStatement, table: Table) -> list[Column]:
    if isinstance(statement, ast.Insert):
        names = [n for n in statement.columns]
    elif isinstance(statement, ast.Update):
        names = [a.column for a in statement.assignments]
    else:
        names = [target.column for target in statement.targets]
    return [c for c in (table.column(n) for n in names) if c is not None and not c.is_primary_key]


def _where(statement: DmlStatement, table: Table) -> tuple[ast.AnyRelation, ...]:
    if isinstance(statement, ast.Insert):
        return tuple(ast.Relation(name, "=", term, term.pos, f"{name} = <value>")
                     for name, term in zip(statement.columns, statement.values)
                     if (table.column(name) and table.column(name).is_primary_key))
    return statement.where


def prepare(statement: DmlStatement, table: Table) -> Check:
    """The statement's check, or ScyllaDB's error for a conditional statement it refuses
    (``prepare_conditions``, ``validate_where_clause_for_conditions``)."""
    kind = "deletions" if isinstance(statement, ast.Delete) else "updates"
    if isinstance(statement, ast.Insert) and table.is_counter:
        raise CqlRequestError("INSERT statement are not allowed on counter tables, use UPDATE instead")
    if table.is_counter:
        raise CqlRequestError("Conditional updates are not supported on counter tables")
    if statement.using.timestamp is not None:
        raise CqlRequestError("Cannot provide custom timestamp for conditional updates")
    conditions = tuple((condition, _condition_column(condition, table))
                       for condition in getattr(statement, "conditions", ()))
    where = _where(statement, table)
    for relation in where:
        if isinstance(relation, ast.Relation) and relation.operator == "IN":
            column = table.column(relation.column)
            if column is not None and column.kind == "partition_key":
                raise CqlRequestError(f"IN on the partition key is not supported with conditional {kind}")
            if column is not None and column.kind == "clustering" and len(relation.value) != 1:
                raise CqlRequestError(f"IN on the clustering key columns is not supported with conditional {kind}")
        if isinstance(relation, ast.MultiColumnRelation) and relation.operator == "IN" and len(relation.value) != 1:
            raise CqlRequestError(f"IN on the clustering key columns is not supported with conditional {kind}")
    modified = _modified_columns(statement, table)
    target = resolve_write_target(table, where, statement_kind=type(statement).__name__.upper(), modified=modified)
    if isinstance(statement, ast.Delete) and table.clustering and (target.ranges or target.whole_partition):
        if not modified or any(column.kind == "regular" for column in modified):
            raise CqlRequestError("DELETE statements must restrict all PRIMARY KEY columns with equality relations "
                                  "in order to delete non static columns")
    if isinstance(statement, ast.Delete) and target.static_row and any(c.kind == "regular" for _, c in conditions):
        raise CqlRequestError("DELETE statements must restrict all PRIMARY KEY columns with equality relations "
                              "in order to use IF condition on non static columns")
    row = None if target.static_row else (target.rows[0] if target.rows else ())
    return Check(statement, table, target, row, conditions)


def check_of_plain(statement: DmlStatement, table: Table) -> Check:
    """The check of a batch's statement without condition: only the row it addresses (its
    result row shows that row's old values)."""
    target = resolve_write_target(table, _where(statement, table), statement_kind=type(statement).__name__.upper(),
                                  modified=_modified_columns(statement, table))
    return Check(statement, table, target, None if target.static_row else (target.rows[0] if target.rows else ()))


def _condition_column(condition: ast.Condition, table: Table) -> Column:
    column = table.column(condition.column)
    if column is None:
        raise CqlRequestError(f"Unrecognized name {condition.column}")
    if column.is_primary_key:
        raise CqlRequestError(f"PRIMARY KEY column '{column.name}' cannot have IF conditions")
    left_type = _left_type(condition, column)
    if condition.operator == "LIKE" and not (isinstance(left_type, t.NativeType)
                                             and left_type.name in ("text", "varchar", "ascii")):
        raise CqlRequestError(f"LIKE is allowed only on string types, which {column.name} is not")
    if condition.operator in ORDERING and t.references_duration(left_type):
        raise CqlRequestError(f"Duration type is unordered for {column.name}")
    return column


def _left_type(condition: ast.Condition, column: Column) -> t.CqlType:
    """The type of what the condition compares: the column, one of its elements, or a field."""
    cql_type = column.type
    if condition.element is not None:
        if isinstance(cql_type, t.MapType):
            return cql_type.value
        if isinstance(cql_type, t.ListType):
            return cql_type.element
        raise CqlRequestError(f"Invalid element access on non-map, non-list column {column.name}")
    if condition.field_name is not None:
        if not isinstance(cql_type, t.UserType) or condition.field_name not in cql_type.field_names:
            raise CqlRequestError(f"{column.name} of type {cql_type} has no field {condition.field_name}")
        return cql_type.field_types[cql_type.field_names.index(condition.field_name)]
    return cql_type


# ------------------------------------------------------------------------------ the old rows


@dataclass(frozen=True)
class OldRow:
    """What a statement's condition sees (cas_request::find_old_row): the values of the row it
    addresses with its partition's static values, or the static row alone (``row`` None), or
    nothing (``values`` None)."""

    row: Optional[tuple]
    values: Optional[dict[str, Any]]
    has_static: bool


def old_row(check: Check, partition_key: tuple, state: TableState, now_us: int) -> OldRow:
    static = state.read_row(check.table, partition_key, None, now_us) if check.table.static else RowRead()
    if check.row is not None:
        row = state.read_row(check.table, partition_key, check.row, now_us)
        if row.exists:
            return OldRow(check.row, {**static.values, **row.values}, static.exists)
        if check.exists_test or not check.table.static:
            return OldRow(None, None, False)
    return OldRow(None, dict(static.values) if static.exists else None, static.exists)


def applies(check: Check, old: OldRow) -> bool:
    """``modification_statement::applies_to``."""
    values = old.values
    if check.only_static and values is not None and not old.has_static:
        values = None
    if check.exists_test == "exists":
        return values is not None
    if check.exists_test == "not exists":
        return values is None
    return all(_holds(condition, column, (values or {}).get(column.name)) is True
               for condition, column in check.conditions)


def result_row(table: Table, partition_key: tuple, columns: list[Column], old: OldRow) -> tuple:
    """A result row's values (L5.1): the old row's, the partition key from the statement and the
    clustering key of the row found; all null when nothing was found."""
    if old.values is None:
        return tuple(None for _ in columns)
    keys = dict(zip([c.name for c in table.partition_key], partition_key))
    keys.update(zip([c.name for c in table.clustering], old.row or ()))
    return tuple(keys.get(c.name) if c.is_primary_key else old.values.get(c.name) for c in columns)


# ------------------------------------------------------------------------------ conditions


def _holds(condition: ast.Condition, column: Column, value: Any) -> Optional[bool]:
    """True, False or None (a null result, which does not apply), with the LWT null rules."""
    left_type = _left_type(condition, column)
    left = _selected(condition, column, value)
    if condition.operator in ("IN", "NOT IN"):
        rights = [_right(term, condition, column, left_type) for term in condition.value]
        found = (any(r is None for r in rights) if left is None
                 else any(r is not None and _equal(left_type, left, r) for r in rights))
        return found if condition.operator == "IN" else not found
    right = _right(condition.value, condition, column, left_type)
    operator = condition.operator
    if operator == "=":
        return left is None and right is None if left is None or right is None else _equal(left_type, left, right)
    if operator == "!=":
        return (left is None) != (right is None) if left is None or right is None else not _equal(left_type, left, right)
    if operator == "LIKE":
        return None if left is None or right is None else _like(left, right)
    if right is None:
        raise CqlRequestError(f'Invalid comparison with null for operator "{operator}"')
    if left is None:
        return False
    key_left, key_right = value_key(left_type, left), value_key(left_type, right)
    return {"<": key_left < key_right, "<=": key_left <= key_right,
            ">": key_left > key_right, ">=": key_left >= key_right}[operator]


def _selected(condition: ast.Condition, column: Column, value: Any) -> Any:
    """The column's value, or the element or field the condition names (null when absent)."""
    if value is None or (condition.element is None and condition.field_name is None):
        return value
    cql_type = column.type
    if condition.field_name is not None:
        return value["udt"].get(condition.field_name)
    if isinstance(cql_type, t.MapType):
        key = literal_value(condition.element, cql_type.key, f"key({column.name})")
        if key is None:
            return None
        wanted = value_key(cql_type.key, key)
        return next((v for k, v in value["map"] if value_key(cql_type.key, k) == wanted), None)
    index = literal_value(condition.element, t.NativeType("int"), f"idx({column.name})")
    items = value["list"]
    return items[index] if index is not None and 0 <= index < len(items) else None


def _right(term: ast.Term, condition: ast.Condition, column: Column, left_type: t.CqlType) -> Any:
    receiver = column.name
    if condition.element is not None:
        receiver = f"value({column.name})"
    elif condition.field_name is not None:
        receiver = f"{column.name}.{condition.field_name}"
    value = literal_value(term, left_type, receiver)
    if left_type.is_multi_cell and isinstance(value, dict) and not next(iter(value.values())):
        return None                   # an empty literal of a non-frozen collection is null
    return value


def _equal(cql_type: t.CqlType, left: Any, right: Any) -> bool:
    return value_key(cql_type, left) == value_key(cql_type, right)


def _like(text: str, pattern: str) -> bool:
    regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, text, re.S) is not None


# ------------------------------------------------------------------------------ the decision


@dataclass(frozen=True)
class Outcome:
    """``[applied]`` and the result rows: one for a statement, one per statement of a batch."""

    applied: bool
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]


def decide(checks: list[Check], partition_key: tuple, state: TableState, now_us: int, batch: bool) -> Outcome:
    """Whether every conditional statement of the request applies, all read before any writes
    (one paxos read), and what the client gets back (L5): for a single statement, its result
    columns; for a batch, the primary key and every conditional statement's columns, one row
    per statement."""
    olds = [old_row(check, partition_key, state, now_us) for check in checks]
    applied = all(applies(check, old) for check, old in zip(checks, olds) if is_conditional(check.statement))
    table = checks[0].table
    if batch:
        named = {c.name for check in checks if is_conditional(check.statement) for c in check.result_columns()}
        columns = [c for c in table.columns if c.is_primary_key or c.name in named]
    else:
        columns = checks[0].result_columns()
    rows = tuple(result_row(table, partition_key, columns, old) for old in olds)
    return Outcome(applied, tuple(c.name for c in columns), rows)
