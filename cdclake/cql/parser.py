"""Recursive-descent parser for CQL scripts (statement grammar of ScyllaDB's ``cql3/Cql.g``).

``parse_script(text)`` returns the statements of a script (separated by ``;``) as ``ast`` nodes,
or raises ``CqlSyntaxError`` naming the line and column of the first error. Statements this
front door does not model but that are valid CQL (CREATE INDEX, TRUNCATE, GRANT, ...) come back
as ``ast.OtherStatement`` so the interpreter can refuse them by name.
"""
from __future__ import annotations

from cdclake.cql import ast
from cdclake.cql import parse_expressions as px
from cdclake.cql.token_stream import TokenStream

_OTHER_STATEMENT_STARTS = ("truncate", "grant", "revoke", "list", "describe", "desc", "prune")


def parse_script(text: str) -> list[ast.Statement]:
    """Parse every statement of ``text``."""
    stream = TokenStream(text)
    statements: list[ast.Statement] = []
    while True:
        while stream.accept_punct(";"):
            pass
        if stream.at_end():
            return statements
        statements.append(_statement(stream))
        if not stream.at_end() and not stream.at_punct(";"):
            raise stream.error_expected("';'")


def parse_statement(text: str) -> ast.Statement:
    """Parse a text holding exactly one statement."""
    statements = parse_script(text)
    if len(statements) != 1:
        raise ValueError(f"expected one statement, found {len(statements)}")
    return statements[0]


class _StatementParser:
    """Parses one statement; ``finish`` stamps the source text and position on the node."""

    def __init__(self, stream: TokenStream):
        self.stream = stream
        self.first = stream.current
        self.pos = stream.pos()

    def finish(self, node_class, **fields):
        text = self.stream.source_between(self.first, self.stream.previous)
        return node_class(pos=self.pos, text=text, **fields)


def _statement(stream: TokenStream) -> ast.Statement:
    if stream.at_word("create"):
        return _create(stream)
    if stream.at_word("alter"):
        return _alter(stream)
    if stream.at_word("drop"):
        return _drop(stream)
    if stream.at_word("use"):
        parser = _StatementParser(stream)
        stream.advance()
        return parser.finish(ast.UseKeyspace, keyspace=stream.identifier("keyspace name"))
    if stream.at_word("insert"):
        return _insert(stream)
    if stream.at_word("update"):
        return _update(stream)
    if stream.at_word("delete"):
        return _delete(stream)
    if stream.at_word("begin"):
        return _batch(stream)
    if stream.at_word("select"):
        return _select(stream)
    if stream.at_word("describe", "desc") and stream.peek().is_word("table", "columnfamily"):
        parser = _StatementParser(stream)
        stream.advance()
        stream.advance()
        return parser.finish(ast.DescribeTable, table=px.qualified_name(stream, "table name"))
    if stream.at_word(*_OTHER_STATEMENT_STARTS):
        return _other(stream, 1)
    raise stream.error_expected("a statement")


def _other(stream: TokenStream, keyword_count: int) -> ast.OtherStatement:
    """Skip a statement this front door does not model, up to the next top-level ';'."""
    parser = _StatementParser(stream)
    kind = " ".join(stream.peek(i).text.upper() for i in range(keyword_count))
    depth = 0
    while not stream.at_end() and not (depth == 0 and stream.at_punct(";")):
        if stream.at_punct("(", "[", "{"):
            depth += 1
        elif stream.at_punct(")", "]", "}"):
            depth -= 1
        stream.advance()
    return parser.finish(ast.OtherStatement, kind=kind)


def _if_not_exists(stream: TokenStream) -> bool:
    return stream.accept_words("if", "not", "exists")


def _if_exists(stream: TokenStream) -> bool:
    return stream.accept_words("if", "exists")


# ------------------------------------------------------------------------------------ DDL


def _create(stream: TokenStream) -> ast.Statement:
    following = stream.peek()
    if following.is_word("keyspace", "schema"):
        return _create_keyspace(stream)
    if following.is_word("table", "columnfamily"):
        return _create_table(stream)
    if following.is_word("type"):
        return _create_type(stream)
    if following.is_word("materialized", "custom", "or"):
        return _other(stream, 3)
    return _other(stream, 2)


def _create_keyspace(stream: TokenStream) -> ast.CreateKeyspace:
    parser = _StatementParser(stream)
    stream.advance()
    stream.advance()
    if_not_exists = _if_not_exists(stream)
    keyspace = stream.identifier("keyspace name")
    stream.expect_word("with")
    return parser.finish(ast.CreateKeyspace, keyspace=keyspace, if_not_exists=if_not_exists,
                         properties=_properties(stream))


def _properties(stream: TokenStream) -> dict:
    properties: dict = {}
    while True:
        name_token = stream.current
        name = stream.identifier("property name")
        stream.expect_punct("=")
        if name in properties:
            raise stream.error_at(name_token, f"Multiple definition for property {name}")
        properties[name] = px.property_value(stream)
        if not stream.accept_word("and"):
            return properties


def _create_table(stream: TokenStream) -> ast.CreateTable:
    parser = _StatementParser(stream)
    stream.advance()
    stream.advance()
    if_not_exists = _if_not_exists(stream)
    table = px.qualified_name(stream, "table name")
    stream.expect_punct("(")
    columns: list[ast.ColumnDefinition] = []
    primary_keys: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    while True:
        if stream.accept_words("primary", "key"):
            primary_keys.append(_primary_key(stream))
        else:
            column_pos = stream.pos()
            name = stream.identifier("column name")
            column_type = px.type_expr(stream)
            is_ttl = stream.accept_word("ttl")          # cql3/Cql.g: TTL comes before STATIC
            is_static = stream.accept_word("static")
            columns.append(ast.ColumnDefinition(name, column_type, is_static, column_pos, is_ttl))
            if stream.accept_words("primary", "key"):
                primary_keys.append(((name,), ()))
        if not stream.accept_punct(","):
            break
        if stream.at_punct(")"):
            break
    stream.expect_punct(")")
    options = _table_options(stream) if stream.accept_word("with") else ast.TableOptions()
    return parser.finish(ast.CreateTable, table=table, if_not_exists=if_not_exists,
                         columns=tuple(columns), primary_keys=tuple(primary_keys), options=options)


def _primary_key(stream: TokenStream) -> tuple[tuple[str, ...], tuple[str, ...]]:
    stream.expect_punct("(")
    if stream.accept_punct("("):
        partition = [stream.identifier("column name")]
        while stream.accept_punct(","):
            partition.append(stream.identifier("column name"))
        stream.expect_punct(")")
    else:
        partition = [stream.identifier("column name")]
    clustering = []
    while stream.accept_punct(","):
        clustering.append(stream.identifier("column name"))
    stream.expect_punct(")")
    return tuple(partition), tuple(clustering)


def _table_options(stream: TokenStream) -> ast.TableOptions:
    properties: dict = {}
    clustering_order: list[tuple[str, str]] = []
    compact_storage = False
    while True:
        if stream.accept_words("clustering", "order", "by"):
            stream.expect_punct("(")
            while True:
                column = stream.identifier("column name")
                clustering_order.append((column, _direction(stream)))
                if not stream.accept_punct(","):
                    break
            stream.expect_punct(")")
        elif stream.accept_words("compact", "storage"):
            compact_storage = True
        else:
            name_token = stream.current
            name = stream.identifier("table option")
            stream.expect_punct("=")
            if name in properties:
                raise stream.error_at(name_token, f"Multiple definition for property {name}")
            properties[name] = px.property_value(stream)
        if not stream.accept_word("and"):
            return ast.TableOptions(properties, tuple(clustering_order), compact_storage)


def _direction(stream: TokenStream) -> str:
    """An optional ``ASC``/``DESC``; ascending when absent."""
    if stream.accept_word("desc"):
        return "desc"
    stream.accept_word("asc")
    return "asc"


def _create_type(stream: TokenStream) -> ast.CreateType:
    parser = _StatementParser(stream)
    stream.advance()
    stream.advance()
    if_not_exists = _if_not_exists(stream)
    type_name = px.qualified_name(stream, "type name")
    stream.expect_punct("(")
    fields = [_field_definition(stream)]
    while stream.accept_punct(","):
        fields.append(_field_definition(stream))
    stream.expect_punct(")")
    return parser.finish(ast.CreateType, type_name=type_name, if_not_exists=if_not_exists, fields=tuple(fields))


def _field_definition(stream: TokenStream) -> tuple[str, ast.TypeExpr]:
    name = stream.identifier("field name")
    return name, px.type_expr(stream)


def _alter(stream: TokenStream) -> ast.Statement:
    following = stream.peek()
    if following.is_word("table", "columnfamily"):
        return _alter_table(stream)
    if following.is_word("type"):
        return _alter_type(stream)
    if following.is_word("keyspace", "schema"):
        parser = _StatementParser(stream)
        stream.advance()
        stream.advance()
        keyspace = stream.identifier("keyspace name")
        stream.expect_word("with")
        return parser.finish(ast.AlterKeyspace, keyspace=keyspace, properties=_properties(stream))
    return _other(stream, 3 if following.is_word("materialized") else 2)


def _alter_table(stream: TokenStream) -> ast.AlterTable:
    parser = _StatementParser(stream)
    stream.advance()
    stream.advance()
    table = px.qualified_name(stream, "table name")
    if stream.accept_word("with"):
        return parser.finish(ast.AlterTable, table=table, action="with", options=_table_options(stream))
    if stream.accept_word("add"):
        if stream.accept_punct("("):
            columns = [_added_column(stream)]
            while stream.accept_punct(","):
                columns.append(_added_column(stream))
            stream.expect_punct(")")
        else:
            columns = [_added_column(stream)]
        return parser.finish(ast.AlterTable, table=table, action="add", columns=tuple(columns))
    if stream.accept_word("drop"):
        if stream.accept_punct("("):
            names = [stream.identifier("column name")]
            while stream.accept_punct(","):
                names.append(stream.identifier("column name"))
            stream.expect_punct(")")
        else:
            names = [stream.identifier("column name")]
        if stream.accept_word("using"):
            px.using_clause(stream, allow_ttl=False)
        return parser.finish(ast.AlterTable, table=table, action="drop", column_names=tuple(names))
    if stream.accept_word("rename"):
        return parser.finish(ast.AlterTable, table=table, action="rename", renames=_renames(stream))
    if stream.accept_word("ttl"):
        ttl_column = None if stream.accept_word("null") else stream.identifier("column name")
        return parser.finish(ast.AlterTable, table=table, action="ttl", ttl_column=ttl_column)
    if stream.accept_word("alter"):
        column = stream.identifier("column name")
        stream.expect_word("type")
        new_type = px.type_expr(stream)
        column_def = ast.ColumnDefinition(column, new_type, False, new_type.pos)
        return parser.finish(ast.AlterTable, table=table, action="alter_type", columns=(column_def,))
    raise stream.error_expected("WITH, ADD, DROP, RENAME, TTL or ALTER")


def _added_column(stream: TokenStream) -> ast.ColumnDefinition:
    pos = stream.pos()
    name = stream.identifier("column name")
    column_type = px.type_expr(stream)
    return ast.ColumnDefinition(name, column_type, stream.accept_word("static"), pos)


def _renames(stream: TokenStream) -> tuple[tuple[str, str], ...]:
    renames = []
    while True:
        old = stream.identifier("column name")
        stream.expect_word("to")
        renames.append((old, stream.identifier("column name")))
        if not stream.accept_word("and"):
            return tuple(renames)


def _alter_type(stream: TokenStream) -> ast.AlterType:
    parser = _StatementParser(stream)
    stream.advance()
    stream.advance()
    type_name = px.qualified_name(stream, "type name")
    if stream.accept_word("add"):
        return parser.finish(ast.AlterType, type_name=type_name, action="add", fields=(_field_definition(stream),))
    if stream.accept_word("rename"):
        return parser.finish(ast.AlterType, type_name=type_name, action="rename", renames=_renames(stream))
    raise stream.error_expected("ADD or RENAME")


def _drop(stream: TokenStream) -> ast.Statement:
    following = stream.peek()
    kinds = {"table": "table", "columnfamily": "table", "keyspace": "keyspace", "schema": "keyspace", "type": "type"}
    kind = kinds.get(following.text.lower()) if following.kind == "word" else None
    if kind is None:
        return _other(stream, 3 if following.is_word("materialized") else 2)
    parser = _StatementParser(stream)
    stream.advance()
    stream.advance()
    if_exists = _if_exists(stream)
    if kind == "keyspace":
        pos = stream.pos()
        name = ast.QualifiedName(None, stream.identifier("keyspace name"), pos)
    else:
        name = px.qualified_name(stream, f"{kind} name")
    return parser.finish(ast.DropObject, object_kind=kind, name=name, if_exists=if_exists)


# ------------------------------------------------------------------------------------ DML


def _insert(stream: TokenStream) -> ast.Insert:
    parser = _StatementParser(stream)
    stream.advance()
    stream.expect_word("into")
    table = px.qualified_name(stream, "table name")
    json_text = None
    columns: list[str] = []
    values: list[ast.Term] = []
    if stream.accept_word("json"):
        json_text = stream.expect_kind("string", "a JSON string").value
        if stream.accept_word("default"):
            stream.expect_word("null", "unset")
    else:
        stream.expect_punct("(")
        columns.append(stream.identifier("column name"))
        while stream.accept_punct(","):
            columns.append(stream.identifier("column name"))
        stream.expect_punct(")")
        stream.expect_word("values")
        stream.expect_punct("(")
        values.append(px.term(stream))
        while stream.accept_punct(","):
            values.append(px.term(stream))
        stream.expect_punct(")")
    if_not_exists = _if_not_exists(stream)
    using = px.using_clause(stream) if stream.accept_word("using") else ast.UsingClause()
    if not if_not_exists:
        if_not_exists = _if_not_exists(stream)
    return parser.finish(ast.Insert, table=table, columns=tuple(columns), values=tuple(values),
                         using=using, if_not_exists=if_not_exists, json=json_text)


def _conditions_clause(stream: TokenStream) -> tuple[tuple[ast.Condition, ...], bool]:
    """``IF EXISTS`` or ``IF cond AND ...``; returns (conditions, if_exists)."""
    if not stream.accept_word("if"):
        return (), False
    if stream.accept_word("exists"):
        return (), True
    return px.conditions(stream), False


def _update(stream: TokenStream) -> ast.Update:
    parser = _StatementParser(stream)
    stream.advance()
    table = px.qualified_name(stream, "table name")
    using = px.using_clause(stream) if stream.accept_word("using") else ast.UsingClause()
    stream.expect_word("set")
    assignments = px.assignments(stream)
    where = px.where_clause(stream)
    conditions, if_exists = _conditions_clause(stream)
    return parser.finish(ast.Update, table=table, using=using, assignments=assignments, where=where,
                         conditions=conditions, if_exists=if_exists)


def _delete(stream: TokenStream) -> ast.Delete:
    parser = _StatementParser(stream)
    stream.advance()
    targets = []
    if not stream.at_word("from"):
        targets.append(_delete_target(stream))
        while stream.accept_punct(","):
            targets.append(_delete_target(stream))
    stream.expect_word("from")
    table = px.qualified_name(stream, "table name")
    using = px.using_clause(stream, allow_ttl=False) if stream.accept_word("using") else ast.UsingClause()
    where = px.where_clause(stream)
    conditions, if_exists = _conditions_clause(stream)
    return parser.finish(ast.Delete, table=table, targets=tuple(targets), using=using, where=where,
                         conditions=conditions, if_exists=if_exists)


def _delete_target(stream: TokenStream) -> ast.DeleteTarget:
    first = stream.current
    pos = stream.pos()
    column = stream.identifier("column name")
    key = None
    field_name = None
    if stream.accept_punct("["):
        key = px.term(stream)
        stream.expect_punct("]")
    elif stream.accept_punct("."):
        field_name = stream.identifier("field name")
    return ast.DeleteTarget(column, pos, stream.source_between(first, stream.previous), key, field_name)


def _batch(stream: TokenStream) -> ast.Batch:
    parser = _StatementParser(stream)
    stream.advance()
    batch_kind = "logged"
    if stream.at_word("unlogged", "counter", "logged"):
        batch_kind = stream.advance().text.lower()
    stream.expect_word("batch")
    using = px.using_clause(stream) if stream.accept_word("using") else ast.UsingClause()
    statements: list[ast.DmlStatement] = []
    while True:
        while stream.accept_punct(";"):
            pass
        if stream.accept_words("apply", "batch"):
            break
        if stream.at_word("insert"):
            statements.append(_insert(stream))
        elif stream.at_word("update"):
            statements.append(_update(stream))
        elif stream.at_word("delete"):
            statements.append(_delete(stream))
        else:
            raise stream.error_expected("INSERT, UPDATE, DELETE or APPLY BATCH")
    return parser.finish(ast.Batch, batch_kind=batch_kind, using=using, statements=tuple(statements))


# ------------------------------------------------------------------------------------ SELECT


def _select(stream: TokenStream) -> ast.Select:
    parser = _StatementParser(stream)
    stream.advance()
    stream.accept_word("json")
    stream.accept_word("distinct")
    if not stream.accept_punct("*"):
        _selector(stream)
        while stream.accept_punct(","):
            _selector(stream)
    stream.expect_word("from")
    table = px.qualified_name(stream, "table name")
    if stream.at_word("where"):
        px.where_clause(stream)
    if stream.accept_words("group", "by"):
        _identifier_list(stream)
    if stream.accept_words("order", "by"):
        while True:
            stream.identifier("column name")
            _direction(stream)
            if not stream.accept_punct(","):
                break
    if stream.accept_words("per", "partition", "limit"):
        px.term(stream)
    if stream.accept_word("limit"):
        px.term(stream)
    stream.accept_words("allow", "filtering")
    stream.accept_words("bypass", "cache")
    if stream.accept_word("using"):
        stream.expect_word("timeout")
        px.term(stream)
    return parser.finish(ast.Select, table=table)


def _identifier_list(stream: TokenStream) -> None:
    stream.identifier("column name")
    while stream.accept_punct(","):
        stream.identifier("column name")


def _selector(stream: TokenStream, allow_alias: bool = True) -> None:
    if stream.accept_word("cast"):
        stream.expect_punct("(")
        _selector(stream, allow_alias=False)
        stream.expect_word("as")
        px.type_expr(stream)
        stream.expect_punct(")")
    elif stream.current.kind == "word" and stream.peek().is_punct("("):
        stream.advance()
        stream.advance()
        if not stream.accept_punct(")"):
            if not stream.accept_punct("*"):
                _selector(stream)
                while stream.accept_punct(","):
                    _selector(stream)
            stream.expect_punct(")")
    elif stream.at_identifier():
        stream.identifier()
    else:
        px.term(stream)
    while True:
        if stream.accept_punct("."):
            stream.identifier("field name")
        elif stream.accept_punct("["):
            px.term(stream)
            stream.expect_punct("]")
        else:
            break
    if allow_alias and stream.accept_word("as"):
        stream.identifier("alias")
