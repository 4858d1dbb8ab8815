"""Tokenizer of the CQL front door (cdclake/cql/lexer.py)."""
from __future__ import annotations

import pytest

from cdclake.cql import lexer
from cdclake.cql.errors import CqlSyntaxError


def kinds_and_values(text: str) -> list[tuple[str, str]]:
    return [(token.kind, token.value) for token in lexer.tokenize(text)[:-1]]


def test_words_quoted_names_and_punctuation():
    assert kinds_and_values('SELECT "MyCol", x FROM t WHERE a <= 1 AND b != 2') == [
        ("word", "SELECT"), ("quoted_name", "MyCol"), ("punct", ","), ("word", "x"), ("word", "FROM"),
        ("word", "t"), ("word", "WHERE"), ("word", "a"), ("punct", "<="), ("integer", "1"), ("word", "AND"),
        ("word", "b"), ("punct", "!="), ("integer", "2"),
    ]


def test_quoted_name_doubles_its_quote():
    assert kinds_and_values('"say ""hi"""') == [("quoted_name", 'say "hi"')]


@pytest.mark.parametrize("text, value", [
    ("'plain'", "plain"),
    ("'it''s'", "it's"),
    ("''", ""),
    ("$$it's $ fine$$", "it's $ fine"),
    ("'multi\nline'", "multi\nline"),
])
def test_string_literals(text, value):
    assert kinds_and_values(text) == [("string", value)]


@pytest.mark.parametrize("text, kind", [
    ("0", "integer"), ("42", "integer"), ("-7", "integer"),
    ("1.5", "float"), ("1.", "float"), ("-2.5E-3", "float"), ("1e10", "float"), ("3E+2", "float"),
    ("0x", "hex"), ("0xDEADbeef", "hex"),
    ("0dd381f0-2fea-11eb-af55-000000000001", "uuid"), ("cc5baec0-2fec-11eb-af55-000000000001", "uuid"),
    ("1h30m", "duration"), ("12mo", "duration"), ("-3d", "duration"), ("1y2mo3w4d5h6m7s8ms9us10ns", "duration"),
])
def test_literal_kinds(text, kind):
    assert kinds_and_values(text) == [(kind, text)]


def test_minus_after_an_operand_is_an_operator():
    assert kinds_and_values("c = c -1") == [
        ("word", "c"), ("punct", "="), ("word", "c"), ("punct", "-"), ("integer", "1")]
    assert kinds_and_values("(1, -1)")[3] == ("integer", "-1")


@pytest.mark.parametrize("text", [
    "a -- comment\nb", "a // comment\nb", "a /* multi\nline */ b", "a/**/b",
])
def test_comments_are_skipped(text):
    assert [value for _, value in kinds_and_values(text)] == ["a", "b"]


def test_positions_are_one_based_lines_and_columns():
    tokens = lexer.tokenize("USE ks;\n  SELECT *\n\tFROM t")
    positions = {token.text: (token.line, token.column) for token in tokens[:-1]}
    assert positions["USE"] == (1, 1)
    assert positions["ks"] == (1, 5)
    assert positions["SELECT"] == (2, 3)
    assert positions["FROM"] == (3, 2)
    assert tokens[-1].kind == lexer.EOF


@pytest.mark.parametrize("text, line, column, detail", [
    ("SELECT 'open", 1, 8, "unterminated string literal"),
    ("a\n  /* never closed", 2, 3, "unterminated comment '/*'"),
    ("a\nb ~ c", 2, 3, "unexpected character '~'"),
    ('x "open', 1, 3, "unterminated quoted identifier"),
])
def test_lexical_errors_name_line_and_column(text, line, column, detail):
    with pytest.raises(CqlSyntaxError) as caught:
        lexer.tokenize(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert str(caught.value) == f"line {line}, column {column}: {detail}"
