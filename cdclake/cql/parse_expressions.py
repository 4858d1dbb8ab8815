"""Parsing of the pieces statements are made of: types, terms, relations, assignments,
conditions, ``USING`` clauses and properties (grammar of ScyllaDB's ``cql3/Cql.g``).
"""
from __future__ import annotations

from cdclake.cql import ast, lexer
from cdclake.cql.token_stream import TokenStream

NATIVE_TYPE_NAMES = frozenset("""
    ascii bigint blob boolean counter date decimal double duration float inet int smallint text
    time timestamp timeuuid tinyint uuid varchar varint
""".split())

_LITERAL_KIND_OF_TOKEN = {
    lexer.STRING: ast.STRING,
    lexer.INTEGER: ast.INTEGER,
    lexer.FLOAT: ast.FLOAT,
    lexer.UUID: ast.UUID,
    lexer.HEX: ast.HEX,
    lexer.DURATION: ast.DURATION,
}
_RELATION_OPERATORS = ("=", "<", "<=", ">", ">=", "!=")
_WORDS_THAT_START_TERMS = ("true", "false", "null", "nan", "infinity")


def qualified_name(stream: TokenStream, what: str) -> ast.QualifiedName:
    pos = stream.pos()
    first = stream.identifier(what)
    if stream.accept_punct("."):
        return ast.QualifiedName(first, stream.identifier(what), pos)
    return ast.QualifiedName(None, first, pos)


# ------------------------------------------------------------------------------------ types


def type_expr(stream: TokenStream) -> ast.TypeExpr:
    pos = stream.pos()
    token = stream.current
    if token.kind == lexer.STRING:                      # 'custom.java.Class'
        stream.advance()
        return ast.TypeExpr("custom", custom_class=token.value, pos=pos)
    if token.kind == lexer.WORD:
        word = token.text.lower()
        if word in NATIVE_TYPE_NAMES:
            stream.advance()
            return ast.TypeExpr(word, pos=pos)
        if word in ("list", "set", "frozen") and stream.peek().is_punct("<"):
            stream.advance()
            return ast.TypeExpr(word, tuple(_angle_args(stream, 1)), pos=pos)
        if word == "map" and stream.peek().is_punct("<"):
            stream.advance()
            return ast.TypeExpr(word, tuple(_angle_args(stream, 2)), pos=pos)
        if word == "tuple" and stream.peek().is_punct("<"):
            stream.advance()
            return ast.TypeExpr(word, tuple(_angle_args(stream, None)), pos=pos)
        if word == "vector" and stream.peek().is_punct("<"):
            stream.advance()
            stream.expect_punct("<")
            element = type_expr(stream)
            stream.expect_punct(",")
            dimension = stream.expect_kind(lexer.INTEGER, "vector dimension")
            stream.expect_punct(">")
            return ast.TypeExpr(word, (element,), dimension=int(dimension.text), pos=pos)
    if stream.at_identifier():
        return ast.TypeExpr("user", user_type=qualified_name(stream, "type"), pos=pos)
    raise stream.error_expected("a type")


def _angle_args(stream: TokenStream, count: int | None) -> list[ast.TypeExpr]:
    stream.expect_punct("<")
    args = [type_expr(stream)]
    while (count is None or len(args) < count) and stream.accept_punct(","):
        args.append(type_expr(stream))
    stream.expect_punct(">")
    return args


# ------------------------------------------------------------------------------------ terms


def term(stream: TokenStream) -> ast.Term:
    """A value: constant, null, collection/tuple/UDT literal or function call."""
    token = stream.current
    pos = stream.pos()
    if token.kind in _LITERAL_KIND_OF_TOKEN:
        stream.advance()
        return ast.Constant(_LITERAL_KIND_OF_TOKEN[token.kind], token.value, pos)
    if token.is_punct("-"):
        return _negative_constant(stream)
    if token.is_word("true", "false"):
        stream.advance()
        return ast.Constant(ast.BOOLEAN, token.text.lower(), pos)
    if token.is_word("null"):
        stream.advance()
        return ast.NullLiteral(pos)
    if token.is_word("nan"):
        stream.advance()
        return ast.Constant(ast.FLOAT, "NaN", pos)
    if token.is_word("infinity"):
        stream.advance()
        return ast.Constant(ast.FLOAT, "Infinity", pos)
    if token.is_punct("["):
        return _list_literal(stream)
    if token.is_punct("{"):
        return _brace_literal(stream)
    if token.is_punct("("):
        return tuple_literal(stream)
    if token.is_punct("?") or token.is_punct(":"):
        raise stream.error_at(token, "bind markers are not supported in scripts: write the value inline")
    if token.kind == lexer.WORD and stream.peek().is_punct("("):
        return _function_call(stream)
    raise stream.error_expected("a value")


def _negative_constant(stream: TokenStream) -> ast.Constant:
    minus = stream.advance()
    token = stream.current
    adjacent = token.start == minus.end
    if adjacent and token.kind in (lexer.INTEGER, lexer.FLOAT, lexer.DURATION):
        stream.advance()
        return ast.Constant(_LITERAL_KIND_OF_TOKEN[token.kind], "-" + token.value,
                            ast.Pos(minus.line, minus.column))
    if adjacent and token.is_word("infinity", "nan"):
        stream.advance()
        text = "-Infinity" if token.is_word("infinity") else "NaN"
        return ast.Constant(ast.FLOAT, text, ast.Pos(minus.line, minus.column))
    raise stream.error_at(minus, "expected a value but found '-'")


def _terms_between(stream: TokenStream, opening: str, closing: str) -> tuple[ast.Term, ...]:
    """``opening term, ... closing``, possibly empty: a list literal's items, a function's
    arguments, the values after IN."""
    stream.expect_punct(opening)
    items = []
    if not stream.at_punct(closing):
        items.append(term(stream))
        while stream.accept_punct(","):
            items.append(term(stream))
    stream.expect_punct(closing)
    return tuple(items)


def _list_literal(stream: TokenStream) -> ast.ListLiteral:
    pos = stream.pos()
    return ast.ListLiteral(_terms_between(stream, "[", "]"), pos)


def tuple_literal(stream: TokenStream) -> ast.TupleLiteral:
    pos = stream.pos()
    stream.expect_punct("(")
    items = [term(stream)]
    while stream.accept_punct(","):
        items.append(term(stream))
    stream.expect_punct(")")
    return ast.TupleLiteral(tuple(items), pos)


def _starts_udt_field(stream: TokenStream) -> bool:
    token = stream.current
    if not stream.peek().is_punct(":"):
        return False
    if token.kind == lexer.QUOTED_NAME:
        return True
    return token.kind == lexer.WORD and not token.is_word(*_WORDS_THAT_START_TERMS)


def _brace_literal(stream: TokenStream) -> ast.Term:
    pos = stream.pos()
    stream.expect_punct("{")
    if stream.accept_punct("}"):
        return ast.EmptyBraces(pos)
    if _starts_udt_field(stream):
        fields = []
        while True:
            name = stream.identifier("field name")
            stream.expect_punct(":")
            fields.append((name, term(stream)))
            if not stream.accept_punct(","):
                break
        stream.expect_punct("}")
        return ast.UdtLiteral(tuple(fields), pos)
    first = term(stream)
    if stream.accept_punct(":"):
        entries = [(first, term(stream))]
        while stream.accept_punct(","):
            key = term(stream)
            stream.expect_punct(":")
            entries.append((key, term(stream)))
        stream.expect_punct("}")
        return ast.MapLiteral(tuple(entries), pos)
    items = [first]
    while stream.accept_punct(","):
        items.append(term(stream))
    stream.expect_punct("}")
    return ast.SetLiteral(tuple(items), pos)


def _function_call(stream: TokenStream) -> ast.FunctionCall:
    pos = stream.pos()
    name = stream.advance().text.lower()
    return ast.FunctionCall(name, _terms_between(stream, "(", ")"), pos)


# ------------------------------------------------------------------------------ WHERE clause


def where_clause(stream: TokenStream) -> tuple[ast.AnyRelation, ...]:
    stream.expect_word("where")
    relations = [relation(stream)]
    while stream.accept_word("and"):
        relations.append(relation(stream))
    return tuple(relations)


def relation(stream: TokenStream) -> ast.AnyRelation:
    first = stream.current
    pos = stream.pos()
    if stream.at_word("token") and stream.peek().is_punct("("):
        stream.advance()
        columns = _column_tuple(stream)
        operator = _relation_operator(stream)
        value = term(stream)
        return ast.TokenRelation(columns, operator, value, pos, stream.source_between(first, stream.previous))
    if stream.at_punct("("):
        columns = _column_tuple(stream)
        if stream.accept_word("in"):
            stream.expect_punct("(")
            tuples = [tuple_literal(stream)]
            while stream.accept_punct(","):
                tuples.append(tuple_literal(stream))
            stream.expect_punct(")")
            return ast.MultiColumnRelation(columns, "IN", tuple(tuples), pos,
                                           stream.source_between(first, stream.previous))
        operator = _relation_operator(stream)
        value = tuple_literal(stream)
        return ast.MultiColumnRelation(columns, operator, value, pos, stream.source_between(first, stream.previous))
    column = stream.identifier("column name")
    if stream.accept_word("in"):
        values = _terms_between(stream, "(", ")")
        return ast.Relation(column, "IN", values, pos, stream.source_between(first, stream.previous))
    if stream.accept_word("contains"):
        operator = "CONTAINS KEY" if stream.accept_word("key") else "CONTAINS"
    elif stream.accept_word("like"):
        operator = "LIKE"
    elif stream.accept_words("is", "not"):
        stream.expect_word("null")
        return ast.Relation(column, "IS NOT", ast.NullLiteral(pos), pos, stream.source_between(first, stream.previous))
    else:
        operator = _relation_operator(stream)
    value = term(stream)
    return ast.Relation(column, operator, value, pos, stream.source_between(first, stream.previous))


def _column_tuple(stream: TokenStream) -> tuple[str, ...]:
    stream.expect_punct("(")
    columns = [stream.identifier("column name")]
    while stream.accept_punct(","):
        columns.append(stream.identifier("column name"))
    stream.expect_punct(")")
    return tuple(columns)


def _relation_operator(stream: TokenStream) -> str:
    if stream.current.kind == lexer.PUNCT and stream.current.text in _RELATION_OPERATORS:
        return stream.advance().text
    raise stream.error_expected("a relation operator (=, <, <=, >, >=, IN)")


# ------------------------------------------------------------------------------ assignments


def assignments(stream: TokenStream) -> tuple[ast.Assignment, ...]:
    items = [assignment(stream)]
    while stream.accept_punct(","):
        items.append(assignment(stream))
    return tuple(items)


def assignment(stream: TokenStream) -> ast.Assignment:
    first = stream.current
    pos = stream.pos()
    column = stream.identifier("column name")

    def done(kind: str, value: ast.Term, **extra) -> ast.Assignment:
        return ast.Assignment(column, kind, value, pos, stream.source_between(first, stream.previous), **extra)

    if stream.accept_punct("["):
        if stream.at_word("scylla_timeuuid_list_index") and stream.peek().is_punct("("):
            stream.advance()
            stream.expect_punct("(")
            key = term(stream)
            stream.expect_punct(")")
            kind = "set_timeuuid_element"
        else:
            key = term(stream)
            kind = "set_element"
        stream.expect_punct("]")
        stream.expect_punct("=")
        return done(kind, term(stream), key=key)
    if stream.accept_punct("."):
        field_name = stream.identifier("field name")
        stream.expect_punct("=")
        return done("set_field", term(stream), field_name=field_name)
    if stream.accept_punct("+="):
        return done("add", term(stream))
    if stream.accept_punct("-="):
        return done("subtract", term(stream))
    stream.expect_punct("=")
    if _at_same_column(stream, column) and stream.peek().is_punct("+", "-"):
        stream.advance()
        kind = "add" if stream.advance().text == "+" else "subtract"
        return done(kind, term(stream))
    value = term(stream)
    if stream.at_punct("+"):
        stream.advance()
        if stream.identifier("column name") != column:
            raise stream.error_at(stream.previous, f"only '{column} = <value> + {column}' is supported here")
        return done("prepend", value)
    return done("set", value)


def _at_same_column(stream: TokenStream, column: str) -> bool:
    token = stream.current
    if token.kind == lexer.QUOTED_NAME:
        return token.value == column
    return token.kind == lexer.WORD and token.text.lower() == column and not token.is_word(*_WORDS_THAT_START_TERMS)


# ------------------------------------------------------------------------- IF and USING


def conditions(stream: TokenStream) -> tuple[ast.Condition, ...]:
    """``IF`` conditions after ``IF`` has been consumed (``IF EXISTS`` is handled by callers)."""
    items = [_condition(stream)]
    while stream.accept_word("and"):
        items.append(_condition(stream))
    return tuple(items)


def _condition(stream: TokenStream) -> ast.Condition:
    """``column [ '[' term ']' | '.' field ] (op term | [NOT] IN (terms) | LIKE term)`` (cql3/Cql.g
    columnCondition: no CONTAINS, no constant on the left)."""
    first = stream.current
    pos = stream.pos()
    column = stream.identifier("column name")
    element, field_name = None, None
    if stream.accept_punct("["):
        element = term(stream)
        stream.expect_punct("]")
    elif stream.accept_punct("."):
        field_name = stream.identifier("field name")
    if stream.accept_word("not"):
        stream.expect_word("in")
        operator = "NOT IN"
    elif stream.accept_word("in"):
        operator = "IN"
    elif stream.accept_word("like"):
        operator = "LIKE"
    else:
        operator = _relation_operator(stream)
    value = _terms_between(stream, "(", ")") if operator in ("IN", "NOT IN") else term(stream)
    return ast.Condition(column, operator, value, pos, stream.source_between(first, stream.previous),
                         element, field_name)


def using_clause(stream: TokenStream, *, allow_ttl: bool = True) -> ast.UsingClause:
    """``USING TTL n AND TIMESTAMP t AND TIMEOUT d`` after ``USING`` has been consumed."""
    found: dict[str, ast.Term] = {}
    while True:
        expected = "TTL or TIMESTAMP" if allow_ttl else "TIMESTAMP"
        if allow_ttl and stream.at_word("ttl"):
            key = "ttl"
        elif stream.at_word("timestamp"):
            key = "timestamp"
        elif stream.at_word("timeout"):
            key = "timeout"
        else:
            raise stream.error_expected(expected)
        keyword = stream.advance()
        if key in found:
            raise stream.error_at(keyword, f"{key.upper()} is given twice in USING")
        found[key] = term(stream)
        if not stream.accept_word("and"):
            return ast.UsingClause(**found)


# ------------------------------------------------------------------------------- properties


def property_value(stream: TokenStream):
    """The value of ``name = value`` in WITH: raw text of a constant or word, or for a map
    literal a dict of raw texts (ScyllaDB's ``convertPropertyMap``)."""
    token = stream.current
    if token.is_punct("{"):
        literal = _brace_literal(stream)
        if isinstance(literal, ast.EmptyBraces):
            return {}
        if isinstance(literal, ast.MapLiteral):
            result = {}
            for key, value in literal.entries:
                result[_property_text(stream, key)] = _property_text(stream, value)
            return result
        raise stream.error_at(token, "invalid property map: write it as {'key': value, ...}")
    if token.is_punct("-"):
        return _negative_constant(stream).text
    if token.kind in _LITERAL_KIND_OF_TOKEN or token.kind == lexer.WORD:
        stream.advance()
        return token.value
    raise stream.error_expected("a property value")


def _property_text(stream: TokenStream, value: ast.Term) -> str:
    if isinstance(value, ast.Constant):
        return value.text
    raise stream.error_at(stream.previous, "invalid property map: keys and values must be constants")
