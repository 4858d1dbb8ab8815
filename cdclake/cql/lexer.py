"""Tokenizer for CQL scripts (lexical rules of ScyllaDB's ``cql3/Cql.g``).

* comments: ``-- ...`` and ``// ...`` to the end of the line, ``/* ... */``;
* words (``[A-Za-z][A-Za-z0-9_]*``): keywords and unquoted identifiers, both case-insensitive
  (the parser lower-cases identifiers); ``"Quoted"`` identifiers keep their case (``""`` escapes);
* string literals ``'...'`` (``''`` escapes a quote) and ``$$...$$`` (no escapes);
* numbers: integers, floats (``1.``, ``1.5``, ``1e10``, ``-2.5E-3``); a ``-`` directly before a
  digit is part of the number unless it follows an operand (so ``c = c -1`` still subtracts);
* uuids (``8-4-4-4-12`` hex), blobs ``0x...``, durations (``1h30m``, ``12mo``, ``-3d``);
* punctuation, including ``<=``, ``>=``, ``!=``, ``+=``, ``-=``.

Positions are 1-based (line, column); ``start``/``end`` are offsets into the text, used to give
each statement its source text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cdclake.cql.errors import CqlSyntaxError

WORD = "word"
QUOTED_NAME = "quoted_name"
STRING = "string"
INTEGER = "integer"
FLOAT = "float"
UUID = "uuid"
HEX = "hex"
DURATION = "duration"
PUNCT = "punct"
EOF = "eof"

LITERAL_KINDS = (STRING, INTEGER, FLOAT, UUID, HEX, DURATION)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str          # the source text of the token
    value: str         # strings/quoted names: unescaped content; other kinds: the text
    line: int
    column: int
    start: int
    end: int

    def is_word(self, *words: str) -> bool:
        """True for a word token equal (case-insensitively) to one of ``words``."""
        return self.kind == WORD and self.text.lower() in words

    def is_punct(self, *symbols: str) -> bool:
        return self.kind == PUNCT and self.text in symbols

    def describe(self) -> str:
        """How an error message quotes this token."""
        return "end of input" if self.kind == EOF else f"'{self.text}'"


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![0-9A-Za-z_])")
_HEX = re.compile(r"0[xX][0-9a-fA-F]*(?![0-9A-Za-z_])")
_DURATION = re.compile(r"-?(?:[0-9]+(?:mo|us|µs|ns|ms|y|w|d|h|m|s))+(?![0-9A-Za-z_])", re.IGNORECASE)
_FLOAT = re.compile(r"-?[0-9]+(?:\.[0-9]*(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+)")
_INTEGER = re.compile(r"-?[0-9]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_TWO_CHAR_PUNCT = ("<=", ">=", "!=", "+=", "-=")
_ONE_CHAR_PUNCT = set("()[]{},;.:=<>+-*?/%")

# After one of these tokens a '-' is a binary operator, not the sign of a number.
_OPERAND_END_KINDS = (WORD, QUOTED_NAME) + LITERAL_KINDS


class _Lexer:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.tokens: list[Token] = []

    def error(self, message: str, pos: int | None = None) -> CqlSyntaxError:
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return CqlSyntaxError(line, column, message)

    def advance_to(self, new_pos: int) -> None:
        newlines = self.text.count("\n", self.pos, new_pos)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rfind("\n", self.pos, new_pos) + 1
        self.pos = new_pos

    def emit(self, kind: str, end: int, value: str | None = None) -> None:
        text = self.text[self.pos:end]
        self.tokens.append(Token(kind, text, text if value is None else value,
                                 self.line, self.pos - self.line_start + 1, self.pos, end))
        self.advance_to(end)

    def previous_is_operand(self) -> bool:
        if not self.tokens:
            return False
        last = self.tokens[-1]
        return last.kind in _OPERAND_END_KINDS or last.is_punct(")", "]", "}")

    def run(self) -> list[Token]:
        text = self.text
        while True:
            self.skip_blanks_and_comments()
            if self.pos >= len(text):
                break
            self.next_token()
        self.tokens.append(Token(EOF, "", "", self.line, self.pos - self.line_start + 1, self.pos, self.pos))
        return self.tokens

    def skip_blanks_and_comments(self) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char.isspace():
                self.advance_to(self.pos + 1)
            elif text.startswith("--", self.pos) or text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.advance_to(len(text) if end < 0 else end)
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.error("unterminated comment '/*'")
                self.advance_to(end + 2)
            else:
                return

    def next_token(self) -> None:
        text, pos = self.text, self.pos
        char = text[pos]
        if char == "'":
            self.lex_quoted("'", STRING, "string literal")
        elif char == '"':
            self.lex_quoted('"', QUOTED_NAME, "quoted identifier")
        elif text.startswith("$$", pos):
            end = text.find("$$", pos + 2)
            if end < 0:
                raise self.error("unterminated string literal '$$'")
            self.emit(STRING, end + 2, text[pos + 2:end])
        elif self.lex_regex(_UUID, UUID) or self.lex_regex(_HEX, HEX):
            return
        elif char.isdigit() or (char == "-" and pos + 1 < len(text) and text[pos + 1].isdigit()
                                and not self.previous_is_operand()):
            self.lex_number()
        elif char.isalpha() and char.isascii():
            self.lex_regex(_WORD, WORD)
        elif text[pos:pos + 2] in _TWO_CHAR_PUNCT:
            self.emit(PUNCT, pos + 2)
        elif char in _ONE_CHAR_PUNCT:
            self.emit(PUNCT, pos + 1)
        else:
            raise self.error(f"unexpected character {char!r}")

    def lex_regex(self, pattern: re.Pattern, kind: str) -> bool:
        match = pattern.match(self.text, self.pos)
        if not match:
            return False
        self.emit(kind, match.end())
        return True

    def lex_number(self) -> None:
        if self.lex_regex(_DURATION, DURATION) or self.lex_regex(_FLOAT, FLOAT):
            return
        self.lex_regex(_INTEGER, INTEGER)

    def lex_quoted(self, quote: str, kind: str, what: str) -> None:
        text, pos = self.text, self.pos + 1
        parts = []
        while True:
            end = text.find(quote, pos)
            if end < 0:
                raise self.error(f"unterminated {what}")
            parts.append(text[pos:end])
            if text.startswith(quote * 2, end):
                parts.append(quote)
                pos = end + 2
                continue
            self.emit(kind, end + 1, "".join(parts))
            return


def tokenize(text: str) -> list[Token]:
    """Split CQL text into tokens; the last token is ``EOF``. Raises ``CqlSyntaxError``."""
    return _Lexer(text).run()
