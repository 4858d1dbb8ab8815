"""What a load refused, line by line: printed as ``FILE:LINE[:COLUMN]: [STATEMENT: ]REASON`` and
kept in ``cdc_input.load_refusals`` (the mart ``cdc_load_refusals`` shows it beside the rejected
writes), so that the audit of a warehouse covers what never reached its inputs."""
from __future__ import annotations

import re

WHERE = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::(?P<column>\d+))?$")
PROBLEM = re.compile(r"^(?P<where>.+?:\d+(?::\d+)?): (?P<reason>.*)$", re.DOTALL)
LOAD_REFUSALS_SPARK_SCHEMA = ("refused_at_us bigint, command string, file_name string, line_number int, "
                              "column_number int, statement_text string, reason string")


class Refusal(str):
    """One refused statement or row: its text as printed, with its parts (``statement``: the
    statement's start, for CQL)."""

    file: str
    line: int | None
    column: int | None
    statement: str | None
    reason: str

    def __new__(cls, where: str, reason: str, statement: str | None = None) -> "Refusal":
        self = super().__new__(cls, f"{where}: {statement}: {reason}" if statement else f"{where}: {reason}")
        place = WHERE.match(where)
        self.file = place["file"] if place else where
        self.line = int(place["line"]) if place else None
        self.column = int(place["column"]) if place and place["column"] else None
        self.statement, self.reason = statement, reason
        return self

    @classmethod
    def of(cls, problem: str) -> "Refusal":
        """A problem printed as ``FILE:LINE[:COLUMN]: REASON`` (a bad field of an export), in parts."""
        if isinstance(problem, Refusal):
            return problem
        found = PROBLEM.match(problem)
        return cls(found["where"], found["reason"]) if found else cls(problem, "")


def refusal_rows(problems: list[str], command: str, refused_at_us: int) -> list[tuple]:
    """The rows of ``cdc_input.load_refusals`` (LOAD_REFUSALS_SPARK_SCHEMA) of a load's problems."""
    rows = []
    for problem in map(Refusal.of, problems):
        rows.append((refused_at_us, command, problem.file, problem.line, problem.column, problem.statement,
                     problem.reason))
    return rows
