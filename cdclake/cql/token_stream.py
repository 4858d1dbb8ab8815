"""A cursor over tokens with the helpers the recursive-descent parser needs.

Syntax errors name the 1-based line and column of the offending token and what was expected,
e.g. ``line 3, column 14: expected ')' but found 'WHERE'``.
"""
from __future__ import annotations

from cdclake.cql import lexer
from cdclake.cql.ast import Pos
from cdclake.cql.errors import CqlSyntaxError
from cdclake.cql.lexer import Token

# Keywords that can never be unquoted identifiers (ScyllaDB's reserved keywords).
RESERVED_KEYWORDS = frozenset("""
    add allow alter and apply asc authorize batch begin by columnfamily create delete desc describe
    drop entries execute from full grant if in index infinity insert into is keyspace limit
    materialized modify nan norecursive not null of on or order primary rename revoke schema
    select set table to token truncate unlogged update use using view where with
""".split())


class TokenStream:
    def __init__(self, text: str):
        self.text = text
        self.tokens = lexer.tokenize(text)
        self.index = 0

    # ---------------------------------------------------------------- looking
    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.index + offset, len(self.tokens) - 1)]

    @property
    def previous(self) -> Token:
        return self.tokens[self.index - 1]

    def at_end(self) -> bool:
        return self.current.kind == lexer.EOF

    def pos(self) -> Pos:
        return Pos(self.current.line, self.current.column)

    def at_word(self, *words: str) -> bool:
        return self.current.is_word(*words)

    def at_punct(self, *symbols: str) -> bool:
        return self.current.is_punct(*symbols)

    # ---------------------------------------------------------------- consuming
    def advance(self) -> Token:
        token = self.current
        if token.kind != lexer.EOF:
            self.index += 1
        return token

    def accept_word(self, *words: str) -> bool:
        if self.at_word(*words):
            self.advance()
            return True
        return False

    def accept_words(self, *words: str) -> bool:
        """Consume the exact keyword sequence ``words`` if it is next."""
        for offset, word in enumerate(words):
            if not self.peek(offset).is_word(word):
                return False
        self.index += len(words)
        return True

    def accept_punct(self, symbol: str) -> bool:
        if self.at_punct(symbol):
            self.advance()
            return True
        return False

    def expect_word(self, *words: str) -> Token:
        if not self.at_word(*words):
            raise self.error_expected(" or ".join(w.upper() for w in words))
        return self.advance()

    def expect_punct(self, symbol: str) -> Token:
        if not self.at_punct(symbol):
            raise self.error_expected(f"'{symbol}'")
        return self.advance()

    def expect_kind(self, kind: str, what: str) -> Token:
        if self.current.kind != kind:
            raise self.error_expected(what)
        return self.advance()

    def identifier(self, what: str = "identifier") -> str:
        """An unquoted (lower-cased) or quoted identifier."""
        token = self.current
        if token.kind == lexer.QUOTED_NAME:
            self.advance()
            return token.value
        if token.kind == lexer.WORD and token.text.lower() not in RESERVED_KEYWORDS:
            self.advance()
            return token.text.lower()
        raise self.error_expected(what)

    def at_identifier(self) -> bool:
        token = self.current
        return token.kind == lexer.QUOTED_NAME or (
            token.kind == lexer.WORD and token.text.lower() not in RESERVED_KEYWORDS)

    # ---------------------------------------------------------------- errors and text
    def error_at(self, token: Token, detail: str) -> CqlSyntaxError:
        return CqlSyntaxError(token.line, token.column, detail)

    def error_expected(self, what: str) -> CqlSyntaxError:
        return self.error_at(self.current, f"expected {what} but found {self.current.describe()}")

    def source_between(self, first: Token, last: Token) -> str:
        return self.text[first.start:last.end]
