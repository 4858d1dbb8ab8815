"""`cdclake load cluster --what backfill` reproduces the table: random writes (every statement
`USING TIMESTAMP`, statics, collections, user types, TTLs, deletes, a default TTL) are applied to
a real CQL server (conftest's `cassandra_server`), the keyspace is backfilled at the original write
times and built, and every row of each `<ks>.<t>_state` is the server's `SELECT`: its values, each
cell's `writetime()`, and its `ttl()` (the TTL remaining at the backfill's read, so within the
seconds between the two reads). A non-frozen collection or user type is compared by value (the
server gives no write time of one: docs/limits.md).

The workload starts with the four cases a backfill once got wrong: a partition of static cells
alone, static cells newer than their row, a null frozen collection (the connector reads it as an
empty one), a cell written `TTL 0` in a table with `default_time_to_live`. One table is also
exported (a `SELECT` with its write times and TTLs, as a user exports it) and loaded into a second
warehouse with `cdclake load snapshot`: both loads write the same atoms."""
from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cassandra.util import OrderedMapSerializedKey, SortedSet
from scylla_system_tables import create_generation_tables, create_scylla_tables, example_history, set_cdc_options

pytestmark = pytest.mark.functional

KEYSPACE, META, DIST = "backfilled", "backfilled_schema", "backfilled_distributed"
DDL = [
    f"CREATE KEYSPACE {KEYSPACE} WITH replication = {{'class': 'NetworkTopologyStrategy', 'replication_factor': 1}}",
    f"CREATE TYPE {KEYSPACE}.addr (street text, no int)",
    # composite partition key, clustering ASC and DESC, static columns (one a set), every kind of value
    f"CREATE TABLE {KEYSPACE}.wide (a int, b text, c1 int, c2 text, s text static, ss set<int> static, v int, "
    "l list<int>, m map<text, int>, u frozen<addr>, PRIMARY KEY ((a, b), c1, c2)) "
    "WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC)",
    f"CREATE TABLE {KEYSPACE}.statics (pk int, ck int, s text static, s2 int static, v int, PRIMARY KEY (pk, ck))",
    f"CREATE TABLE {KEYSPACE}.people (id int PRIMARY KEY, name text, hist frozen<list<int>>, tags set<text>, "
    "home addr, fm frozen<map<int, text>>)",
    f"CREATE TABLE {KEYSPACE}.defaults (k int PRIMARY KEY, v int, w text, l list<int>) "
    "WITH default_time_to_live = 400000",
    # also exported as cqlsh prints it, and loaded with `cdclake load snapshot`
    f"CREATE TABLE {KEYSPACE}.exported (k int, c int, v text, n bigint, st set<int>, PRIMARY KEY (k, c))",
]
TABLES = ("wide", "statics", "people", "defaults", "exported")
RANDOMLY_WRITTEN = TABLES[:4]                        # the exported table holds exported_writes' rows alone
KEYS = {"wide": (("a", "b"), ("c1", "c2")), "statics": (("pk",), ("ck",)), "people": (("id",), ()),
        "defaults": (("k",), ()), "exported": (("k",), ("c",))}
STATIC = {"wide": ("s", "ss"), "statics": ("s", "s2")}
REGULAR = {"wide": ("v", "l", "m", "u"), "statics": ("v",), "people": ("name", "hist", "tags", "home", "fm"),
           "defaults": ("v", "w", "l"), "exported": ("n", "st", "v")}
MULTI_CELL = {"ss", "l", "m", "tags", "home", "st"}     # non-frozen: no writetime() or ttl()
MAPS = {"m", "fm"}                                    # `cdclake sql` prints a map as its [key, value] pairs
WRITES = 300


def reproductions(t0: int) -> list[str]:
    """The four cases, in keys the random writes do not use."""
    return [
        f"INSERT INTO {KEYSPACE}.statics (pk, s) VALUES (100, 'x') USING TIMESTAMP {t0 + 1000}",
        f"INSERT INTO {KEYSPACE}.statics (pk, ck, v) VALUES (101, 1, 5) USING TIMESTAMP {t0 + 1000}",
        f"UPDATE {KEYSPACE}.statics USING TIMESTAMP {t0 + 2000} SET s = 'x' WHERE pk = 101",
        f"INSERT INTO {KEYSPACE}.people (id, name) VALUES (100, 'a') USING TIMESTAMP {t0 + 1000}",
        f"INSERT INTO {KEYSPACE}.defaults (k, v) VALUES (100, 5) USING TIMESTAMP {t0 + 1000} AND TTL 0",
    ]


def exported_writes(t0: int) -> list[str]:
    """The rows of the exported table: chosen write times and TTLs, a later write to some."""
    writes = []
    for k in range(6):
        writes.append(f"INSERT INTO {KEYSPACE}.exported (k, c, v, st) VALUES ({k}, 1, 'it''s {k}', {{1, 2}}) "
                      f"USING TIMESTAMP {t0 + k} AND TTL {86400 * (k + 1)}")
        if k % 2:
            writes.append(f"UPDATE {KEYSPACE}.exported USING TIMESTAMP {t0 + 500_000 + k} SET n = {k * 10**12} "
                          f"WHERE k = {k} AND c = 1")
    return writes


def exported_csv(session, path: Path) -> None:
    """The exported table as `SELECT k, c, v, n, st, writetime(v), ttl(v), writetime(n), ttl(n)`
    prints it, in a file `cdclake load snapshot` reads (a set as `{1, 2}`, a null as nothing)."""
    def field(value) -> str:
        if value is None:
            return ""
        return "{" + ", ".join(map(str, sorted(value))) + "}" if isinstance(value, SortedSet) else str(value)

    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["k", "c", "v", "n", "st", "writetime(v)", "ttl(v)", "writetime(n)", "ttl(n)"])
        for row in session.execute(f"SELECT k, c, v, n, st, writetime(v), ttl(v), writetime(n), ttl(n) "
                                   f"FROM {KEYSPACE}.exported"):
            writer.writerow([field(value) for value in row])


class RandomWrites:
    """Random CQL writes over a few keys per table, so that they overwrite and delete each other;
    write times drawn in a window (out of order), TTLs long enough to outlive the test."""

    def __init__(self, seed: int, t0: int):
        self.random, self.t0 = random.Random(seed), t0

    def value(self, column: str) -> str:
        r = self.random
        if column in ("v", "s2", "no"):
            return str(r.randint(-5, 5))
        if column in ("s", "name", "w"):
            return r.choice(["'x'", "'y'", "'it''s'", "''", "'z'"])
        if column in ("l", "hist"):
            return "[" + ", ".join(str(r.randint(0, 9)) for _ in range(r.randint(0, 3))) + "]"
        if column in ("ss",):
            return "{" + ", ".join(str(v) for v in r.sample(range(9), r.randint(0, 3))) + "}"
        if column == "tags":
            return "{" + ", ".join(f"'{v}'" for v in r.sample("abcde", r.randint(0, 3))) + "}"
        if column == "m":
            return "{" + ", ".join(f"'{k}': {r.randint(0, 9)}" for k in r.sample("pqr", r.randint(0, 3))) + "}"
        if column == "fm":
            return "{" + ", ".join(f"{k}: '{v}'" for k, v in zip(r.sample(range(5), r.randint(0, 2)), "uv")) + "}"
        if column in ("u", "home"):
            return r.choice(["{street: 'main', no: 1}", "{street: 'side'}", "{no: 7}"])
        raise KeyError(column)

    def key(self, table: str) -> dict[str, str]:
        r = self.random
        values = {"a": str(r.randint(0, 2)), "b": r.choice(["'p'", "'q'"]), "c1": str(r.randint(0, 2)),
                  "c2": r.choice(["'m'", "'n'"]), "pk": str(r.randint(0, 4)), "ck": str(r.randint(0, 2)),
                  "id": str(r.randint(0, 9)), "k": str(r.randint(0, 9))}
        partition, clustering = KEYS[table]
        return {c: values[c] for c in partition + clustering}

    def using(self, ttl: bool = True) -> str:
        r = self.random
        text = f"USING TIMESTAMP {self.t0 + r.randint(0, 300_000_000)}"
        if ttl and r.random() < 0.3:
            text += f" AND TTL {r.choice([0, 20_000, 90_000, 300_000])}"
        return text

    def statement(self) -> str:
        r = self.random
        table = r.choice(RANDOMLY_WRITTEN)
        name = f"{KEYSPACE}.{table}"
        key = self.key(table)
        partition, clustering = KEYS[table]
        where = " AND ".join(f"{c} = {v}" for c, v in key.items())
        partition_where = " AND ".join(f"{c} = {key[c]}" for c in partition)
        columns = STATIC.get(table, ()) + REGULAR[table]
        kind = r.choices(["insert", "update", "statics", "null", "element", "delete cells", "delete row",
                          "delete partition", "delete range"], [30, 25, 8, 6, 8, 8, 6, 3, 3])[0]
        if kind == "statics" and table in STATIC:
            chosen = r.sample(STATIC[table], r.randint(1, 2))
            return f"UPDATE {name} {self.using()} SET " + ", ".join(f"{c} = {self.value(c)}" for c in chosen) + \
                f" WHERE {partition_where}"
        if kind == "null":
            column = r.choice(columns)       # a static column's write names the partition alone
            return f"UPDATE {name} {self.using(False)} SET {column} = null WHERE " + \
                (partition_where if column in STATIC.get(table, ()) else where)
        multi_cell = [c for c in columns if c in MULTI_CELL]
        if kind == "element" and multi_cell:
            column = r.choice(multi_cell)
            if column in ("l",):
                change = f"{column} = {column} + [{r.randint(0, 9)}]"
            elif column in ("ss",):
                change = f"{column} = {column} + {{{r.randint(0, 9)}}}"
            elif column == "tags":
                change = f"{column} = {column} - {{'{r.choice('abcde')}'}}"
            elif column == "m":
                change = f"{column}['{r.choice('pqr')}'] = {r.randint(0, 9)}"
            else:
                change = f"{column}.no = {r.randint(0, 9)}"
            if column in STATIC.get(table, ()):
                return f"UPDATE {name} {self.using()} SET {change} WHERE {partition_where}"
            return f"UPDATE {name} {self.using()} SET {change} WHERE {where}"
        if kind == "delete cells":
            chosen = r.sample([c for c in REGULAR[table]], 1)
            return f"DELETE {', '.join(chosen)} FROM {name} {self.using(False)} WHERE {where}"
        if kind == "delete row":
            return f"DELETE FROM {name} {self.using(False)} WHERE {where}"
        if kind == "delete partition":
            return f"DELETE FROM {name} {self.using(False)} WHERE {partition_where}"
        if kind == "delete range" and clustering:
            first = clustering[0]
            return f"DELETE FROM {name} {self.using(False)} WHERE {partition_where} AND {first} > {key[first]}"
        chosen = r.sample(columns, r.randint(1, len(columns)))
        if kind == "update":
            chosen = [c for c in chosen if c not in STATIC.get(table, ())] or [REGULAR[table][0]]
            return f"UPDATE {name} {self.using()} SET " + ", ".join(f"{c} = {self.value(c)}" for c in chosen) + \
                f" WHERE {where}"
        names = list(key) + chosen
        values = list(key.values()) + [self.value(c) for c in chosen]
        return f"INSERT INTO {name} ({', '.join(names)}) VALUES ({', '.join(values)}) {self.using()}"


def server_rows(session, table: str) -> list[dict]:
    """The table as the server holds it: each row's values, and writetime() and ttl() of each
    atomic or frozen cell."""
    partition, clustering = KEYS[table]
    columns = partition + clustering + STATIC.get(table, ()) + REGULAR[table]
    timed = [c for c in STATIC.get(table, ()) + REGULAR[table] if c not in MULTI_CELL]
    select = list(columns) + [f"{f}({c})" for c in timed for f in ("writetime", "ttl")]
    rows = []
    for row in session.execute(f"SELECT {', '.join(select)} FROM {KEYSPACE}.{table}"):
        values = dict(zip(columns, row[:len(columns)]))
        record = {c: comparable(values[c], c) for c in columns}
        for index, column in enumerate(timed):
            written, ttl = row[len(columns) + 2 * index: len(columns) + 2 * index + 2]
            record[f"writetime {column}"], record[f"ttl {column}"] = written, ttl
        rows.append(record)
    return rows


def state_rows(records: list[dict], table: str) -> list[dict]:
    """``<ks>.<table>_state`` rows (as `cdclake sql --format jsonl` prints them) in ``server_rows``' form."""
    partition, clustering = KEYS[table]
    columns = partition + clustering + STATIC.get(table, ()) + REGULAR[table]
    timed = [c for c in STATIC.get(table, ()) + REGULAR[table] if c not in MULTI_CELL]
    rows = []
    for row in records:
        record = {c: comparable(row[c], c) for c in columns}
        for column in timed:
            record[f"writetime {column}"] = row[f"cdc$writetime_{column}"]
            record[f"ttl {column}"] = row[f"cdc$ttl_{column}"]
        rows.append(record)
    return rows


def comparable(value, column: str):
    """A value as both sides can give it: sets and lists as lists, maps and user types as dicts
    with text keys; a non-frozen collection or user type without a live element is null."""
    if column in MAPS and isinstance(value, list):
        value = dict(value)
    if isinstance(value, (SortedSet, set, frozenset)):
        value = sorted(value)
    elif isinstance(value, (OrderedMapSerializedKey, dict)):
        value = {str(k): v for k, v in value.items()}
    elif hasattr(value, "_asdict"):
        value = dict(value._asdict())
    elif isinstance(value, tuple):
        value = list(value)
    if column in MULTI_CELL and (value in ([], {}) or (isinstance(value, dict) and column == "home"
                                                     and all(v is None for v in value.values()))):
        return None
    if column in ("ss", "tags") and isinstance(value, list):
        return sorted(value)
    return value


def sorted_rows(rows: list[dict], table: str) -> list[dict]:
    partition, clustering = KEYS[table]
    return sorted(rows, key=lambda r: json.dumps([r[c] for c in partition + clustering]))


@pytest.fixture(scope="module")
def backfilled(cassandra_server, tmp_path_factory):
    """The server written (the reproductions, then the random writes), the keyspace's schema and
    the example generations loaded into a warehouse, the keyspace backfilled at the original write
    times and built; the server's and the state tables' rows."""
    cluster = cassandra_server.cluster()
    session = cluster.connect()
    for statement in DDL:
        session.execute(statement)
    create_scylla_tables(session, META)
    for table in TABLES:
        set_cdc_options(session, META, KEYSPACE, table)
    create_generation_tables(session, DIST, example_history().generations())
    t0 = int(time.time() * 1e6) - 600_000_000               # inside the example's last generation, before now
    writes = RandomWrites(int(os.environ.get("CDCLAKE_ORACLE_SEED", 64)), t0)      # another seed: CDCLAKE_ORACLE_SEED
    statements = reproductions(t0) + exported_writes(t0) + [writes.statement() for _ in range(WRITES)]
    for statement in statements:
        session.execute(statement)

    work = tmp_path_factory.mktemp("backfill_oracle")
    env = {k: v for k, v in os.environ.items() if k not in ("CDCLAKE_TARGET", "CDCLAKE_TABLE_FORMAT")}
    env.update(CDCLAKE_DRIVER_MEMORY="1g", CDCLAKE_CLUSTER_USERNAME="cassandra", CDCLAKE_CLUSTER_PASSWORD="cassandra")

    def cdclake(*args: str, stdin: str | None = None, warehouse: str = "target", **more_env: str):
        done = subprocess.run([sys.executable, "-m", "cdclake.cli", *args], cwd=work, input=stdin,
                              env={**env, "CDCLAKE_TARGET_DIR": str(work / warehouse), **more_env},
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"cdclake {' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done

    address = f"127.0.0.1:{cassandra_server.native_port}"
    cdclake("load", "cluster", address, KEYSPACE, "--scylla-tables", META, "--generations-keyspace", DIST,
            "--what", "schema,generations")
    now_us = int(time.time() * 1e6)       # the coordinator's clock of both loads of the exported table
    read_at = time.monotonic()
    exported_csv(session, work / "exported.csv")
    load = cdclake("load", "cluster", address, KEYSPACE, "--what", "backfill", "--write-times", "original",
                   "--now", str(now_us))
    # the exported table's export, loaded into a second warehouse as `cdclake load snapshot` does
    cdclake("load", "cluster", address, KEYSPACE, "--scylla-tables", META, "--what", "schema", warehouse="export")
    snapshot = cdclake("load", "snapshot", f"{KEYSPACE}.exported", "exported.csv", "--write-times", "original",
                       "--now", str(now_us), warehouse="export")
    build = cdclake("build")
    server = {table: server_rows(session, table) for table in TABLES}
    seconds_between_reads = time.monotonic() - read_at
    queries = "".join(f"select '{t}' as `cdc$table`, * from {KEYSPACE}.{t}_state;\n" for t in TABLES)
    printed = cdclake("sql", "--format", "jsonl", "--limit", "0", stdin=queries).stdout
    records = [json.loads(line) for line in printed.splitlines() if line.startswith("{")]
    state = {t: state_rows([r for r in records if r["cdc$table"] == t], t) for t in TABLES}
    yield {"server": server, "state": state, "load": load, "build": build, "seconds": seconds_between_reads,
           "work": work, "snapshot": snapshot, "cdclake": cdclake}
    cluster.shutdown()


@pytest.mark.parametrize("table", TABLES)
def test_each_state_row_is_the_servers_row(backfilled, table):
    server = sorted_rows(backfilled["server"][table], table)
    state = sorted_rows(backfilled["state"][table], table)
    ttls = [name for name in (server[0] if server else {}) if name.startswith("ttl ")]
    plain = [{k: v for k, v in row.items() if k not in ttls} for row in server]
    assert [{k: v for k, v in row.items() if k not in ttls} for row in state] == plain
    for ours, theirs in zip(state, server):
        for name in ttls:            # the TTL remaining at the backfill's read, and at the later read
            assert (ours[name] is None) == (theirs[name] is None), (name, ours, theirs)
            assert ours[name] is None or 0 <= ours[name] - theirs[name] <= backfilled["seconds"] + 1, \
                (name, ours, theirs)


def test_the_backfill_loads_every_row_and_refuses_none(backfilled):
    assert "refused" not in backfilled["load"].stdout, backfilled["load"].stdout
    rows = sum(len(rows) for rows in backfilled["server"].values())
    assert rows > 45 and "rejected (" not in backfilled["build"].stdout, backfilled["build"].stdout


def test_the_four_cases_are_the_servers_rows(backfilled):
    """Each reproduction's row, as the server holds it (and so the state, by the test above)."""
    statics = {r["pk"]: r for r in backfilled["state"]["statics"] if r["pk"] in (100, 101)}
    assert statics[100] == {"pk": 100, "ck": None, "s": "x", "s2": None, "v": None,
                                 "writetime s": statics[100]["writetime s"], "ttl s": None,
                                 "writetime s2": None, "ttl s2": None, "writetime v": None, "ttl v": None}
    assert (statics[101]["ck"], statics[101]["s"], statics[101]["v"]) == (1, "x", 5)
    assert statics[101]["writetime s"] - statics[101]["writetime v"] == 1000
    person = next(r for r in backfilled["state"]["people"] if r["id"] == 100)
    assert (person["name"], person["hist"], person["writetime hist"]) == ("a", None, None)
    default = next(r for r in backfilled["state"]["defaults"] if r["k"] == 100)
    assert (default["v"], default["ttl v"]) == (5, None)


def test_the_backfill_writes_what_the_snapshot_of_an_export_of_the_same_rows_does(backfilled, spark):
    """`--what backfill` with the original write times loads the writes `cdclake load snapshot`
    loads from an export of the same rows with their writetime() and ttl() columns (the remaining
    TTLs as each read saw them; the rows numbered in each read's order)."""
    def atoms(warehouse: str) -> list[dict]:
        table = backfilled["work"] / warehouse / "spark-warehouse" / "cdc_input.db" / "base_mutations"
        rows = [{k: v for k, v in r.asDict().items() if k != "write_id"}
                for r in spark.read.format("delta").load(str(table)).where("table_name = 'exported'").collect()]
        return sorted(rows, key=lambda r: json.dumps({**r, "ttl_seconds": None}, sort_keys=True, default=str))

    from_cluster, from_export = atoms("target"), atoms("export")
    assert len(from_cluster) == len(from_export) > 12
    ttls = [(ours.pop("ttl_seconds"), theirs.pop("ttl_seconds")) for ours, theirs in zip(from_cluster, from_export)]
    assert from_cluster == from_export
    for ttl_ours, ttl_theirs in ttls:          # the remaining TTL, the export read a few seconds before
        assert (ttl_ours is None) == (ttl_theirs is None)
        assert ttl_ours is None or 0 <= ttl_theirs - ttl_ours <= backfilled["seconds"] + 1


def test_a_build_with_nothing_loaded_since_the_last_starts_no_jvm(backfilled):
    """The inputs hold the rows of the last build (its `cdclake sql` read them, nothing was
    loaded): the build says so from the warehouse's files and the last summary, with no Java to
    start (cdclake/commands/dbt_command.py nothing_to_build)."""
    again = backfilled["cdclake"]("build", JAVA_HOME="/nonexistent", PATH=os.path.dirname(sys.executable))
    assert "no new writes: no input changed since the last build, no batch added (1 so far)" in again.stdout
    assert f"{KEYSPACE}.wide_scylla_cdc_log: " in again.stdout, "the totals of the last summary"
