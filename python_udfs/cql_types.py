"""CQL type text -> a small immutable type tree (``docs/scylla/math.md`` §1.1 lists the types).

``parse_cql_type("frozen<map<int, text>>")`` gives
``CqlType("map", (CqlType("int"), CqlType("text")), frozen=True)``. Native type names are
case-insensitive; any other bare name is a user-defined type (UDT), kept as written
(``ks.address`` or ``"Address"`` with the quotes removed). ``frozen<...>`` only sets a flag:
it does not change how a value is serialized.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping, Sequence, Tuple, Union

from python_udfs.errors import CqlTypeError

INTEGER_TYPES = frozenset({"tinyint", "smallint", "int", "bigint", "counter", "varint"})
TEXT_TYPES = frozenset({"text", "varchar", "ascii"})
NATIVE_TYPES = INTEGER_TYPES | TEXT_TYPES | frozenset({
    "boolean", "blob", "uuid", "timeuuid", "timestamp", "date", "time",
    "float", "double", "decimal", "inet", "duration", "empty",
})
COLLECTION_ARITY = {"list": 1, "set": 1, "map": 2}
TUPLE = "tuple"
UDT = "udt"


@dataclass(frozen=True)
class CqlType:
    """One node of a CQL type: a native type, a collection, a tuple or a UDT reference."""

    name: str                               # native name, "list"/"set"/"map", "tuple" or "udt"
    params: Tuple["CqlType", ...] = ()      # element types (collections, tuples)
    frozen: bool = False
    udt_name: str | None = None             # only for name == "udt"

    @property
    def is_collection(self) -> bool:
        return self.name in COLLECTION_ARITY

    def __str__(self) -> str:
        if self.name == UDT:
            text = self.udt_name or ""
        elif self.params:
            text = f"{self.name}<{', '.join(str(p) for p in self.params)}>"
        else:
            text = self.name
        return f"frozen<{text}>" if self.frozen and (self.is_collection or self.name == UDT) else text


# A UDT registry: UDT name -> its fields in declaration order, as (name, type text) pairs or a
# mapping {field name: type text} (insertion order is the declaration order).
UdtFields = Union[Sequence[Tuple[str, str]], Mapping[str, str]]
UdtRegistry = Mapping[str, UdtFields]

_TOKEN = re.compile(r'\s*(?:(?P<punct>[<>,])|"(?P<quoted>(?:[^"]|"")*)"|(?P<word>[A-Za-z0-9_.$]+))')


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    stripped_end = len(text.rstrip())
    while position < stripped_end:
        match = _TOKEN.match(text, position)
        if not match:
            raise CqlTypeError(f"cannot parse CQL type {text!r}: unexpected {text[position:].strip()[:20]!r}")
        if match.group("punct"):
            tokens.append(("punct", match.group("punct")))
        elif match.group("quoted") is not None:
            tokens.append(("quoted", match.group("quoted").replace('""', '"')))
        else:
            tokens.append(("word", match.group("word")))
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.position = 0

    def fail(self, what: str) -> CqlTypeError:
        return CqlTypeError(f"cannot parse CQL type {self.text!r}: {what}")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take_punct(self, symbol: str) -> bool:
        if self.peek() == ("punct", symbol):
            self.position += 1
            return True
        return False

    def expect_punct(self, symbol: str) -> None:
        if not self.take_punct(symbol):
            found = self.peek()
            raise self.fail(f"expected {symbol!r}, found {found[1] if found else 'end of text'!r}")

    def parse_params(self) -> list[CqlType]:
        self.expect_punct("<")
        params = [self.parse_type()]
        while self.take_punct(","):
            params.append(self.parse_type())
        self.expect_punct(">")
        return params

    def parse_type(self) -> CqlType:
        token = self.peek()
        if token is None or token[0] == "punct":
            raise self.fail("expected a type name")
        self.position += 1
        kind, word = token
        if kind == "quoted":
            return CqlType(UDT, udt_name=word)
        lowered = word.lower()
        if lowered == "frozen":
            params = self.parse_params()
            if len(params) != 1:
                raise self.fail("frozen<...> takes exactly one type")
            inner = params[0]
            return CqlType(inner.name, inner.params, True, inner.udt_name)
        if lowered in COLLECTION_ARITY:
            params = self.parse_params()
            if len(params) != COLLECTION_ARITY[lowered]:
                raise self.fail(f"{lowered} takes {COLLECTION_ARITY[lowered]} type parameter(s)")
            return CqlType(lowered, tuple(params))
        if lowered == TUPLE:
            return CqlType(TUPLE, tuple(self.parse_params()), frozen=True)
        if lowered in NATIVE_TYPES:
            return CqlType(lowered)
        if self.peek() == ("punct", "<"):
            raise self.fail(f"unknown parameterized type {word!r}")
        return CqlType(UDT, udt_name=word)


@lru_cache(maxsize=4096)
def parse_cql_type(text: str) -> CqlType:
    """Parse CQL type text such as ``int``, ``frozen<map<int, text>>`` or ``tuple<int, text>``."""
    if not isinstance(text, str) or not text.strip():
        raise CqlTypeError(f"cannot parse CQL type {text!r}: empty type")
    parser = _Parser(text)
    parsed = parser.parse_type()
    if parser.peek() is not None:
        raise parser.fail(f"unexpected {parser.peek()[1]!r} after the type")
    return parsed


def as_cql_type(type_or_text: CqlType | str) -> CqlType:
    """Accept either a parsed type or its text."""
    return type_or_text if isinstance(type_or_text, CqlType) else parse_cql_type(type_or_text)


def udt_fields(cql_type: CqlType, udts: UdtRegistry | None) -> list[tuple[str, CqlType]]:
    """The declared fields of a UDT reference, resolved through the caller's registry.

    A keyspace-qualified name (``ks.address``) also matches a registry entry ``address``.
    """
    name = cql_type.udt_name or ""
    registry = udts or {}
    fields = registry.get(name)
    if fields is None and "." in name:
        fields = registry.get(name.rsplit(".", 1)[1])
    if fields is None:
        raise CqlTypeError(f"unknown user-defined type {name!r}")
    pairs = fields.items() if isinstance(fields, Mapping) else fields
    return [(field_name, as_cql_type(field_type)) for field_name, field_type in pairs]
