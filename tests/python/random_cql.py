"""Hypothesis strategies for random CDC workloads: a random table (keys, static and regular
columns of atomic, frozen, collection and user types, random CDC options) and a random sequence
of INSERT / UPDATE / DELETE / BATCH statements over a small key space, so that writes collide,
overwrite and delete each other. Used by test_random_workloads.py; first_draw, by the tests that
build one drawn input."""
from __future__ import annotations

import random
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st

REGULAR_TYPES = ["int", "text", "bigint", "boolean", "frozen<list<int>>", "tuple<int, text>",
                 "map<int, text>", "set<int>", "list<int>", "pair"]
PAIR_TYPE = "CREATE TYPE {ks}.pair (a int, b text)"


@dataclass(frozen=True)
class RandomTable:
    keyspace: str
    clustering: tuple[str, ...]         # clustering column names (int), maybe empty
    static: tuple[tuple[str, str], ...]
    regular: tuple[tuple[str, str], ...]
    options: str

    @property
    def name(self) -> str:
        return f"{self.keyspace}.t"

    def ddl(self) -> list[str]:
        columns = ["pk int"] + [f"{c} int" for c in self.clustering]
        columns += [f"{n} {t} static" for n, t in self.static] + [f"{n} {t}" for n, t in self.regular]
        key = f"PRIMARY KEY (pk{''.join(', ' + c for c in self.clustering)})"
        order = ""
        if self.clustering:
            order = " AND CLUSTERING ORDER BY (" + ", ".join(
                f"{c} {'DESC' if c == 'c0' else 'ASC'}" for c in self.clustering) + ")"
        return [PAIR_TYPE.format(ks=self.keyspace),
                f"CREATE TABLE {self.name} ({', '.join(columns)}, {key}) WITH cdc = {self.options}{order}"]


@st.composite
def random_tables(draw, keyspace: str) -> RandomTable:
    clustering = ("c0", "c1")[: draw(st.integers(0, 2))]
    types = draw(st.lists(st.sampled_from(REGULAR_TYPES), min_size=1, max_size=4))
    regular = tuple((f"v{i}", t) for i, t in enumerate(types))
    static = (("s", draw(st.sampled_from(["int", "set<int>"]))),) if clustering and draw(st.booleans()) else ()
    options = {"enabled": "true", "preimage": draw(st.sampled_from(["false", "true", "full"])),
               "postimage": draw(st.sampled_from(["false", "true"]))}
    if draw(st.booleans()):
        options["delta"] = "keys"
    text = "{" + ", ".join(f"'{k}': '{v}'" for k, v in options.items()) + "}"
    return RandomTable(keyspace, clustering, static, regular, text)


def literal(draw, cql_type: str) -> str:
    small = st.integers(-3, 3)
    if cql_type in ("int", "bigint"):
        return str(draw(small))
    if cql_type == "text":
        return "'" + draw(st.sampled_from(["a", "b", "it''s", ""])) + "'"
    if cql_type == "boolean":
        return draw(st.sampled_from(["true", "false"]))
    if cql_type == "frozen<list<int>>" or cql_type == "list<int>":
        return "[" + ", ".join(str(v) for v in draw(st.lists(small, max_size=3))) + "]"
    if cql_type == "set<int>":
        return "{" + ", ".join(str(v) for v in draw(st.sets(small, max_size=3))) + "}"
    if cql_type == "map<int, text>":
        items = draw(st.dictionaries(small, st.sampled_from(["x", "y"]), max_size=3))
        return "{" + ", ".join(f"{k}: '{v}'" for k, v in items.items()) + "}"
    if cql_type == "tuple<int, text>":
        return f"({draw(small)}, 'p')"
    if cql_type == "pair":
        return f"{{a: {draw(small)}, b: 'q'}}"
    raise AssertionError(cql_type)


def assignment(draw, name: str, cql_type: str) -> str:
    """One SET clause: overwrite, null, or a collection / field operation."""
    forms = ["set", "null"]
    if cql_type in ("map<int, text>", "set<int>"):
        forms += ["add", "remove", "element"]
    if cql_type == "list<int>":
        forms += ["append", "prepend", "remove", "index"]
    if cql_type == "pair":
        forms += ["field"]
    form = draw(st.sampled_from(forms))
    if form == "null":
        return f"{name} = null"
    if form in ("set", "add", "append"):
        value = literal(draw, cql_type)
        return {"set": f"{name} = {value}", "add": f"{name} = {name} + {value}",
                "append": f"{name} = {name} + {value}"}[form]
    if form == "prepend":
        return f"{name} = {literal(draw, cql_type)} + {name}"
    if form == "remove":
        if cql_type == "map<int, text>":
            return f"{name} = {name} - {literal(draw, 'set<int>')}"
        return f"{name} = {name} - {literal(draw, cql_type)}"
    if form == "element":
        value = "'z'" if cql_type.startswith("map") else None
        if value is None:
            return f"{name} = {name} + {{{draw(st.integers(-3, 3))}}}"
        return f"{name}[{draw(st.integers(-3, 3))}] = {draw(st.sampled_from([value, 'null']))}"
    if form == "index":
        return f"{name}[0] = {draw(st.integers(0, 9))}"
    return f"{name}.a = {draw(st.sampled_from(['1', 'null']))}"


@st.composite
def random_statements(draw, table: RandomTable, now_us: int) -> list[str]:
    """Writes over pk in {0, 1} and clustering values in {0, 1, 2}."""
    def key_where(full: bool = True) -> str:
        parts = [f"pk = {draw(st.integers(0, 1))}"]
        for column in table.clustering[: len(table.clustering) if full else draw(st.integers(0, len(table.clustering)))]:
            parts.append(f"{column} = {draw(st.integers(0, 2))}")
        return " AND ".join(parts)

    def using() -> str:
        parts = []
        if draw(st.booleans()):
            parts.append(f"TIMESTAMP {now_us + draw(st.integers(0, 2_000_000))}")
        if draw(st.integers(0, 3)) == 0:
            parts.append(f"TTL {draw(st.sampled_from([0, 60, 3600]))}")
        return (" USING " + " AND ".join(parts)) if parts else ""

    def write() -> str:
        kind = draw(st.sampled_from(["insert", "update", "update", "delete_cells", "delete_row",
                                     "delete_range", "delete_partition"]))
        if kind == "insert":
            chosen = draw(st.lists(st.sampled_from(table.regular), max_size=3, unique=True))
            names = ["pk", *table.clustering, *(n for n, _ in chosen)]
            values = [str(draw(st.integers(0, 1)))] + [str(draw(st.integers(0, 2))) for _ in table.clustering]
            values += [literal(draw, t) for _, t in chosen]
            return f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({', '.join(values)}){using()}"
        if kind == "update":
            static_only = table.static and draw(st.booleans())
            pool = table.static if static_only else table.regular
            chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2, unique=True))
            sets = ", ".join(assignment(draw, n, t) for n, t in chosen)
            where = f"pk = {draw(st.integers(0, 1))}" if static_only else key_where()
            return f"UPDATE {table.name}{using()} SET {sets} WHERE {where}"
        if kind == "delete_cells":
            chosen = draw(st.lists(st.sampled_from(table.regular), min_size=1, max_size=2, unique=True))
            return f"DELETE {', '.join(n for n, _ in chosen)} FROM {table.name} WHERE {key_where()}"
        if kind == "delete_row" or (kind == "delete_range" and not table.clustering):
            return f"DELETE FROM {table.name} WHERE {key_where()}"
        if kind == "delete_range":
            low, high = sorted(draw(st.lists(st.integers(0, 2), min_size=2, max_size=2)))
            bounds = [f"c0 {draw(st.sampled_from(['>', '>=']))} {low}", f"c0 {draw(st.sampled_from(['<', '<=']))} {high}"]
            chosen = draw(st.lists(st.sampled_from(bounds), min_size=1, max_size=2, unique=True))
            return f"DELETE FROM {table.name} WHERE pk = {draw(st.integers(0, 1))} AND {' AND '.join(chosen)}"
        return f"DELETE FROM {table.name} WHERE pk = {draw(st.integers(0, 1))}"

    statements = []
    for _ in range(draw(st.integers(4, 10))):
        if draw(st.integers(0, 4)) == 0:
            statements.append("BEGIN BATCH " + "; ".join(write() for _ in range(draw(st.integers(2, 3))))
                              + "; APPLY BATCH")
        else:
            statements.append(write())
    return statements


def first_draw(strategy, condition, seed: int):
    """The first example of ``strategy`` drawn from ``seed`` that meets ``condition``, not
    shrunk: a test that builds one input cannot run Hypothesis's own examples, whose first is
    always the simplest."""
    return find(strategy, condition, random=random.Random(seed),
                settings=settings(phases=[Phase.generate], max_examples=1000, database=None, deadline=None,
                                  suppress_health_check=list(HealthCheck)))
