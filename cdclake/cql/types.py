"""CQL type model: resolution of written types and their normalised text.

``resolve_type`` turns an ``ast.TypeExpr`` into a ``CqlType``, resolving user types in the
statement's keyspace and applying ScyllaDB's rules (``cql3/cql3_type.cc``): nested collections
and UDTs inside collections must be frozen, a frozen type freezes everything inside it, tuples
are always frozen, durations cannot be set elements or map keys, counters cannot be nested.

``cql_text`` is the normalised text ``DESCRIBE`` shows and ``BaseColumn.cql_type`` carries:
``map<int, text>``, ``frozen<list<int>>``, ``frozen<tuple<int, text>>``, ``frozen<ut>``;
``varchar`` is ``text``; user types are named without keyspace.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Optional

from cdclake.cql import ast
from cdclake.cql.errors import CqlRequestError, CqlUnsupportedError

NATIVE_ALIASES = {"varchar": "text"}
INTEGER_TYPES = ("tinyint", "smallint", "int", "bigint", "varint", "counter")
_PLAIN_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*\Z")


def quote_identifier(name: str) -> str:
    """CQL form of a name: bare if lower-case alphanumeric, else double-quoted."""
    if _PLAIN_IDENTIFIER.match(name):
        return name
    return '"' + name.replace('"', '""') + '"'


class CqlType:
    """Base class; subclasses are frozen dataclasses."""

    frozen: bool = True

    @property
    def is_multi_cell(self) -> bool:
        """Non-frozen collections and UDTs: stored as one cell per element/field."""
        return False

    @property
    def is_counter(self) -> bool:
        return False

    def freeze(self) -> "CqlType":
        return self

    def cql_text(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.cql_text()


@dataclass(frozen=True)
class NativeType(CqlType):
    name: str

    @property
    def is_counter(self) -> bool:
        return self.name == "counter"

    def cql_text(self) -> str:
        return self.name


@dataclass(frozen=True)
class ListType(CqlType):
    element: CqlType
    frozen: bool = False

    @property
    def is_multi_cell(self) -> bool:
        return not self.frozen

    def freeze(self) -> "ListType":
        return ListType(self.element.freeze(), True)

    def cql_text(self) -> str:
        return _maybe_frozen(f"list<{self.element.cql_text()}>", self.frozen)


@dataclass(frozen=True)
class SetType(CqlType):
    element: CqlType
    frozen: bool = False

    @property
    def is_multi_cell(self) -> bool:
        return not self.frozen

    def freeze(self) -> "SetType":
        return SetType(self.element.freeze(), True)

    def cql_text(self) -> str:
        return _maybe_frozen(f"set<{self.element.cql_text()}>", self.frozen)


@dataclass(frozen=True)
class MapType(CqlType):
    key: CqlType
    value: CqlType
    frozen: bool = False

    @property
    def is_multi_cell(self) -> bool:
        return not self.frozen

    def freeze(self) -> "MapType":
        return MapType(self.key.freeze(), self.value.freeze(), True)

    def cql_text(self) -> str:
        return _maybe_frozen(f"map<{self.key.cql_text()}, {self.value.cql_text()}>", self.frozen)


@dataclass(frozen=True)
class TupleType(CqlType):
    items: tuple[CqlType, ...]

    def cql_text(self) -> str:
        return f"frozen<tuple<{', '.join(item.cql_text() for item in self.items)}>>"


@dataclass(frozen=True)
class UserType(CqlType):
    keyspace: str
    name: str
    field_names: tuple[str, ...]
    field_types: tuple[CqlType, ...]
    frozen: bool = False

    @property
    def is_multi_cell(self) -> bool:
        return not self.frozen

    def freeze(self) -> "UserType":
        return replace(self, field_types=tuple(t.freeze() for t in self.field_types), frozen=True)

    def cql_text(self) -> str:
        return _maybe_frozen(quote_identifier(self.name), self.frozen)

    def field_type(self, field_name: str) -> Optional[CqlType]:
        if field_name in self.field_names:
            return self.field_types[self.field_names.index(field_name)]
        return None


@dataclass(frozen=True)
class VectorType(CqlType):
    element: CqlType
    dimension: int

    def cql_text(self) -> str:
        return f"vector<{self.element.cql_text()}, {self.dimension}>"


def _maybe_frozen(text: str, frozen: bool) -> str:
    return f"frozen<{text}>" if frozen else text


def is_collection(cql_type: CqlType) -> bool:
    return isinstance(cql_type, (ListType, SetType, MapType))


def references_duration(cql_type: CqlType) -> bool:
    if isinstance(cql_type, NativeType):
        return cql_type.name == "duration"
    return any(references_duration(inner) for inner in inner_types(cql_type))


def inner_types(cql_type: CqlType) -> tuple[CqlType, ...]:
    if isinstance(cql_type, (ListType, SetType, VectorType)):
        return (cql_type.element,)
    if isinstance(cql_type, MapType):
        return cql_type.key, cql_type.value
    if isinstance(cql_type, TupleType):
        return cql_type.items
    if isinstance(cql_type, UserType):
        return cql_type.field_types
    return ()


def replace_user_type(cql_type: CqlType, new_type: UserType) -> CqlType:
    """``cql_type`` with every use of ``new_type``'s (keyspace, name) replaced by it
    (after ALTER TYPE), keeping each use's frozenness."""
    if isinstance(cql_type, UserType):
        if (cql_type.keyspace, cql_type.name) == (new_type.keyspace, new_type.name):
            return new_type.freeze() if cql_type.frozen else new_type
        return replace(cql_type, field_types=tuple(replace_user_type(t, new_type) for t in cql_type.field_types))
    if isinstance(cql_type, (ListType, SetType)):
        return replace(cql_type, element=replace_user_type(cql_type.element, new_type))
    if isinstance(cql_type, MapType):
        return replace(cql_type, key=replace_user_type(cql_type.key, new_type),
                       value=replace_user_type(cql_type.value, new_type))
    if isinstance(cql_type, TupleType):
        return TupleType(tuple(replace_user_type(t, new_type) for t in cql_type.items))
    if isinstance(cql_type, VectorType):
        return replace(cql_type, element=replace_user_type(cql_type.element, new_type))
    return cql_type


def uses_user_type(cql_type: CqlType, keyspace: str, name: str) -> bool:
    if isinstance(cql_type, UserType) and (cql_type.keyspace, cql_type.name) == (keyspace, name):
        return True
    return any(uses_user_type(inner, keyspace, name) for inner in inner_types(cql_type))


UserTypeLookup = Callable[[str, str], Optional[UserType]]


def resolve_type(expr: ast.TypeExpr, keyspace: str, lookup_user_type: UserTypeLookup) -> CqlType:
    """The ``CqlType`` of a written type in ``keyspace``; raises ``CqlRequestError``."""
    name = expr.name
    if name == "custom":
        raise CqlUnsupportedError(f"custom types ('{expr.custom_class}') are not supported")
    if name == "user":
        return _resolve_user_type(expr.user_type, keyspace, lookup_user_type)
    if name == "frozen":
        inner = resolve_type(expr.args[0], keyspace, lookup_user_type)
        if not (is_collection(inner) or isinstance(inner, (UserType, TupleType))):
            raise CqlRequestError("frozen<> is only allowed on collections, tuples, and user-defined types "
                                  f"(got {inner})")
        return inner.freeze()
    args = [resolve_type(arg, keyspace, lookup_user_type) for arg in expr.args]
    if name == "list":
        result: CqlType = ListType(args[0])
    elif name == "set":
        result = SetType(args[0])
    elif name == "map":
        result = MapType(args[0], args[1])
    elif name == "tuple":
        for item in args:
            if item.is_counter:
                raise CqlRequestError("Counters are not allowed inside tuples")
        return TupleType(tuple(item.freeze() for item in args))
    elif name == "vector":
        if expr.dimension is None or expr.dimension <= 0:
            raise CqlRequestError("Vectors must have a dimension greater than 0")
        return VectorType(args[0].freeze(), expr.dimension)
    else:
        return NativeType(NATIVE_ALIASES.get(name, name))
    _check_collection_arguments(result, args)
    return result


def _resolve_user_type(name: ast.QualifiedName, keyspace: str, lookup_user_type: UserTypeLookup) -> UserType:
    if name.keyspace is not None and name.keyspace != keyspace:
        raise CqlRequestError(
            f"Statement on keyspace {keyspace} cannot refer to a user type in keyspace {name.keyspace}; "
            "user types can only be used in the keyspace they are defined in")
    found = lookup_user_type(keyspace, name.name)
    if found is None:
        raise CqlRequestError(f"Unknown type {keyspace}.{quote_identifier(name.name)}")
    return found


def _check_collection_arguments(collection: CqlType, args: list[CqlType]) -> None:
    for arg in args:
        if arg.is_multi_cell and is_collection(arg):
            raise CqlRequestError(f"Non-frozen collections are not allowed inside collections: {collection}")
        if arg.is_multi_cell and isinstance(arg, UserType):
            raise CqlRequestError(f"Non-frozen UDTs are not allowed inside collections: {collection}")
        if arg.is_counter:
            raise CqlRequestError(f"Counters are not allowed inside collections: {collection}")
    if isinstance(collection, SetType) and references_duration(args[0]):
        raise CqlRequestError(f"Durations are not allowed inside sets: {collection}")
    if isinstance(collection, MapType) and references_duration(args[0]):
        raise CqlRequestError(f"Durations are not allowed as map keys: {collection}")
