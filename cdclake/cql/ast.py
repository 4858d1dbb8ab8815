"""Syntax tree of a CQL script, as produced by ``cdclake.cql.parser``.

Every node keeps ``pos`` (1-based line and column of its first token); every statement also
keeps ``text``, its source text without the trailing ``;``. Identifiers are already normalised:
unquoted ones lower-cased, quoted ones as written. Literals stay *untyped* (like ScyllaDB's
``untyped_constant``): their type is only known once the receiving column is (``values.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union


@dataclass(frozen=True)
class Pos:
    line: int
    column: int


# --------------------------------------------------------------------------------------------
# Names and types


@dataclass(frozen=True)
class QualifiedName:
    """``[keyspace.]name`` of a table or user type."""

    keyspace: Optional[str]
    name: str
    pos: Pos

    def __str__(self) -> str:
        return f"{self.keyspace}.{self.name}" if self.keyspace else self.name


@dataclass(frozen=True)
class TypeExpr:
    """A type as written: ``name`` is a native type, ``list``/``set``/``map``/``tuple``/
    ``frozen``/``vector``, or a user type (``user_type`` set). ``dimension`` is for vectors."""

    name: str
    args: tuple["TypeExpr", ...] = ()
    user_type: Optional[QualifiedName] = None
    dimension: Optional[int] = None
    custom_class: Optional[str] = None
    pos: Pos = Pos(0, 0)


# --------------------------------------------------------------------------------------------
# Terms (values)


@dataclass(frozen=True)
class Constant:
    """An untyped literal. ``kind`` is one of STRING, INTEGER, FLOAT, UUID, HEX, BOOLEAN,
    DURATION (ScyllaDB's constant kinds); ``text`` is the value text (strings unescaped)."""

    kind: str
    text: str
    pos: Pos


@dataclass(frozen=True)
class NullLiteral:
    pos: Pos


@dataclass(frozen=True)
class ListLiteral:
    items: tuple["Term", ...]
    pos: Pos


@dataclass(frozen=True)
class SetLiteral:
    """``{a, b}``; ``{}`` is an ``EmptyBraces``."""

    items: tuple["Term", ...]
    pos: Pos


@dataclass(frozen=True)
class MapLiteral:
    entries: tuple[tuple["Term", "Term"], ...]
    pos: Pos


@dataclass(frozen=True)
class EmptyBraces:
    """``{}``: an empty set or map, decided by the receiving type."""

    pos: Pos


@dataclass(frozen=True)
class UdtLiteral:
    fields: tuple[tuple[str, "Term"], ...]
    pos: Pos


@dataclass(frozen=True)
class TupleLiteral:
    items: tuple["Term", ...]
    pos: Pos


@dataclass(frozen=True)
class FunctionCall:
    name: str
    args: tuple["Term", ...]
    pos: Pos


Term = Union[Constant, NullLiteral, ListLiteral, SetLiteral, MapLiteral, EmptyBraces,
             UdtLiteral, TupleLiteral, FunctionCall]

# Constant kinds
STRING = "STRING"
INTEGER = "INTEGER"
FLOAT = "FLOAT"
UUID = "UUID"
HEX = "HEX"
BOOLEAN = "BOOLEAN"
DURATION = "DURATION"


# --------------------------------------------------------------------------------------------
# WHERE clauses, assignments, conditions


@dataclass(frozen=True)
class Relation:
    """``column op value`` (``op`` one of = < <= > >= != IN CONTAINS CONTAINS KEY LIKE IS NOT)."""

    column: str
    operator: str
    value: Union[Term, tuple[Term, ...]]     # a tuple of terms for IN
    pos: Pos
    text: str


@dataclass(frozen=True)
class MultiColumnRelation:
    """``(c1, c2) op (v1, v2)`` or ``(c1, c2) IN ((..), (..))``."""

    columns: tuple[str, ...]
    operator: str
    value: Union[TupleLiteral, tuple[TupleLiteral, ...]]
    pos: Pos
    text: str


@dataclass(frozen=True)
class TokenRelation:
    """``token(c1, ...) op value`` (accepted by the grammar, refused for writes)."""

    columns: tuple[str, ...]
    operator: str
    value: Term
    pos: Pos
    text: str


AnyRelation = Union[Relation, MultiColumnRelation, TokenRelation]


@dataclass(frozen=True)
class Assignment:
    """One ``SET`` item. ``kind``:

    * ``set``: ``c = v``; ``add``: ``c = c + v`` / ``c += v``; ``subtract``: ``c = c - v`` /
      ``c -= v``; ``prepend``: ``c = v + c``;
    * ``set_element``: ``c[key] = v``; ``set_field``: ``c.field = v``;
    * ``set_timeuuid_element``: ``c[SCYLLA_TIMEUUID_LIST_INDEX(key)] = v``.
    """

    column: str
    kind: str
    value: Term
    pos: Pos
    text: str
    key: Optional[Term] = None          # element assignments
    field_name: Optional[str] = None    # set_field


@dataclass(frozen=True)
class Condition:
    """One LWT ``IF`` condition: ``column [element | .field] op value``; ``op`` one of
    = != < <= > >= LIKE, or IN / NOT IN with ``value`` a tuple of terms."""

    column: str
    operator: str
    value: Union[Term, tuple[Term, ...]]
    pos: Pos
    text: str
    element: Optional[Term] = None      # c[element]
    field_name: Optional[str] = None    # u.field


@dataclass(frozen=True)
class DeleteTarget:
    """A ``DELETE`` selection: a column, ``c[key]`` or ``u.field``."""

    column: str
    pos: Pos
    text: str
    key: Optional[Term] = None
    field_name: Optional[str] = None


@dataclass(frozen=True)
class UsingClause:
    ttl: Optional[Term] = None
    timestamp: Optional[Term] = None
    timeout: Optional[Term] = None


# --------------------------------------------------------------------------------------------
# Statements


@dataclass(frozen=True)
class Statement:
    pos: Pos
    text: str


@dataclass(frozen=True)
class ColumnDefinition:
    name: str
    type: TypeExpr
    is_static: bool
    pos: Pos
    is_ttl: bool = False               # ``name type TTL``: the table's per-row TTL column


@dataclass(frozen=True)
class TableOptions:
    """``WITH`` clause of CREATE/ALTER TABLE. ``properties`` maps each ``name = value`` option
    to its value: the raw text of a constant, or a dict of raw texts for a map literal."""

    properties: dict = field(default_factory=dict)
    clustering_order: tuple[tuple[str, str], ...] = ()     # (column, 'asc'|'desc')
    compact_storage: bool = False


@dataclass(frozen=True)
class CreateKeyspace(Statement):
    keyspace: str
    if_not_exists: bool
    properties: dict


@dataclass(frozen=True)
class AlterKeyspace(Statement):
    keyspace: str
    properties: dict


@dataclass(frozen=True)
class UseKeyspace(Statement):
    keyspace: str


@dataclass(frozen=True)
class CreateTable(Statement):
    table: QualifiedName
    if_not_exists: bool
    columns: tuple[ColumnDefinition, ...]
    primary_keys: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # each (partition, clustering)
    options: TableOptions


@dataclass(frozen=True)
class CreateType(Statement):
    type_name: QualifiedName
    if_not_exists: bool
    fields: tuple[tuple[str, TypeExpr], ...]


@dataclass(frozen=True)
class AlterTable(Statement):
    """``action``: ``with`` (options), ``add`` (columns), ``drop`` (column_names),
    ``rename`` (renames), ``alter_type`` or ``ttl`` (``ttl_column``; None for ``TTL NULL``)."""

    table: QualifiedName
    action: str
    options: Optional[TableOptions] = None
    columns: tuple[ColumnDefinition, ...] = ()
    column_names: tuple[str, ...] = ()
    renames: tuple[tuple[str, str], ...] = ()
    ttl_column: Optional[str] = None


@dataclass(frozen=True)
class AlterType(Statement):
    """``action``: ``add`` (one field) or ``rename`` (renames)."""

    type_name: QualifiedName
    action: str
    fields: tuple[tuple[str, TypeExpr], ...] = ()
    renames: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class DropObject(Statement):
    """DROP TABLE / KEYSPACE / TYPE; ``object_kind`` is ``table``, ``keyspace`` or ``type``."""

    object_kind: str
    name: QualifiedName
    if_exists: bool


@dataclass(frozen=True)
class Insert(Statement):
    table: QualifiedName
    columns: tuple[str, ...]
    values: tuple[Term, ...]
    using: UsingClause
    if_not_exists: bool
    json: Optional[str] = None


@dataclass(frozen=True)
class Update(Statement):
    table: QualifiedName
    using: UsingClause
    assignments: tuple[Assignment, ...]
    where: tuple[AnyRelation, ...]
    conditions: tuple[Condition, ...]
    if_exists: bool


@dataclass(frozen=True)
class Delete(Statement):
    table: QualifiedName
    targets: tuple[DeleteTarget, ...]
    using: UsingClause
    where: tuple[AnyRelation, ...]
    conditions: tuple[Condition, ...]
    if_exists: bool


DmlStatement = Union[Insert, Update, Delete]


@dataclass(frozen=True)
class Batch(Statement):
    batch_kind: str              # 'logged' | 'unlogged' | 'counter'
    using: UsingClause
    statements: tuple[DmlStatement, ...]


@dataclass(frozen=True)
class Select(Statement):
    """Parsed and accepted; a read does not write, so replay ignores it."""

    table: QualifiedName


@dataclass(frozen=True)
class DescribeTable(Statement):
    """``DESC[RIBE] TABLE name`` (ScyllaDB describes server-side)."""

    table: QualifiedName


@dataclass(frozen=True)
class OtherStatement(Statement):
    """Valid CQL this front door does not model (CREATE INDEX, TRUNCATE, GRANT, ...).
    ``kind`` names it, e.g. ``CREATE INDEX``."""

    kind: str
