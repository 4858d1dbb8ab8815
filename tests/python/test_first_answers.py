"""What a command answers before Spark starts: a file that does not parse, a script whose every
statement ScyllaDB would refuse, a write from the future; and the pieces of `cdclake sql` and of
the load refusals that need no session. Each command runs in this process with Spark's session
factory replaced by one that fails the test."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cdclake import cli
from cdclake.commands import COMMANDS
from cdclake.commands.load_store import warn_of_future_writes
from cdclake.commands.sql import query_of, statements
from cdclake.load.mutation_records import Atom
from cdclake.load.refusals import Refusal, refusal_rows

NOW_US = 1_700_000_000_000_000


@pytest.fixture
def no_spark(monkeypatch):
    """Spark's session factory, failing the test if a command calls it."""
    def create_session(*args, **kwargs):
        raise AssertionError("a Spark session was created")

    monkeypatch.setattr("cdclake.session.spark.create_session", create_session)


@pytest.mark.parametrize("command", ["schema", "cql"])
def test_a_cql_file_that_does_not_parse_is_refused_without_spark(tmp_path, capsys, no_spark, command):
    script = tmp_path / "typo.cql"
    script.write_text("CREATE KEYSPACE k WITH replication = {'class': 'SimpleStrategy'};\nINSERT INTO k.t (a) VALUS (1);\n")
    assert cli.main(["load", command, str(script)]) == 2
    error = capsys.readouterr().err
    assert f"error: {script}:2:" in error and "nothing loaded" in error


def test_an_export_that_is_not_csv_is_refused_without_spark(tmp_path, capsys, no_spark):
    export = tmp_path / "t.csv"
    export.write_text('k,v\n1,"unclosed\n')
    assert cli.main(["load", "snapshot", "ks.t", str(export)]) == 2
    assert f"error: {export}:" in capsys.readouterr().err


def test_a_replay_answers_before_spark_when_it_has_nothing_to_build(tmp_path, capsys, no_spark):
    typo, unknown = tmp_path / "typo.cql", tmp_path / "unknown.cql"
    typo.write_text("INSERT INTO ks.t (k) VALUS (1);\n")
    assert cli.main(["replay", str(typo)]) == 2
    assert f"{typo}: " in capsys.readouterr().err
    # every statement refused (a keyspace the script does not create): said, and nothing built
    unknown.write_text("INSERT INTO nowhere.t (k) VALUES (1);\n")
    assert cli.main(["replay", str(unknown), "--now", str(NOW_US)]) == 1
    assert "error: statement 1 (line 1): INSERT INTO nowhere.t" in capsys.readouterr().err


def test_an_empty_warehouse_says_what_to_load_and_builds_nothing_without_spark(tmp_path, capsys, monkeypatch,
                                                                              no_spark):
    monkeypatch.setenv("CDCLAKE_TARGET_DIR", str(tmp_path / "target"))
    assert cli.main(["status"]) == 0
    assert capsys.readouterr().out.startswith("no inputs: load your keyspace")
    assert cli.main(["build"]) == 2
    error = capsys.readouterr().err
    assert "error: the warehouse has no cdc_input.base_mutations" in error and "cdclake load example" in error


def test_a_write_from_the_future_is_warned_of_at_load_time(capsys):
    def atom(write_id, ahead_us):
        return Atom(write_id=write_id, coordinator_now_us=NOW_US, keyspace_name="ks", table_name="t",
                    partition_key='{"k":1}', atom_kind="row_marker", write_timestamp=NOW_US + ahead_us, schema_version=0)

    warn_of_future_writes([atom(1, 5_000_000), atom(2, 5_000_001), atom(2, 5_000_001)], "w.cql")
    [warning] = capsys.readouterr().err.splitlines()
    assert warning.startswith("warning: w.cql: write 2 (ks.t) at 2023-11-14 22:13:25.000001 UTC is more than 5 s "
                              "after the load's clock (2023-11-14 22:13:20.000000 UTC)")


def test_a_refusal_keeps_its_place_statement_and_reason():
    statement = Refusal("w.cql:5:1", "unconfigured table nothere", "INSERT INTO ks.nothere (k) VALUES (1);")
    assert statement == "w.cql:5:1: INSERT INTO ks.nothere (k) VALUES (1);: unconfigured table nothere"
    field = "s.csv:4:3: column placed (timestamp): value 'yesterday': not a timestamp"
    assert refusal_rows([statement, field], "cql", 7) == [
        (7, "cql", "w.cql", 5, 1, "INSERT INTO ks.nothere (k) VALUES (1);", "unconfigured table nothere"),
        (7, "cql", "s.csv", 4, 3, None, "column placed (timestamp): value 'yesterday': not a timestamp"),
    ]


def test_sql_splits_statements_and_orders_a_log_table_as_scylladb_does():
    assert statements("select ';' as a; -- a comment; here\nselect `x;y` from t;\nselect 3") == \
        ["select ';' as a", "select `x;y` from t", "select 3"]
    assert statements("select 1; select 2", complete_only=True) == ["select 1"]
    assert query_of("ks.t_scylla_cdc_log;") == \
        "select * from ks.t_scylla_cdc_log order by `cdc$stream_id`, cdc_time_us(`cdc$time`), `cdc$time`, " \
        "`cdc$batch_seq_no`"
    assert query_of("ks.t") == "select * from ks.t" and query_of("select 1") == "select 1"


@pytest.mark.parametrize("command", [c.name for c in COMMANDS])
def test_every_command_says_how_to_use_it_without_spark(command, capsys, no_spark):
    try:
        status = cli.main([*command.split(), "--help"])
    except SystemExit as done:           # argparse's --help
        status = done.code
    assert status == 0 and "usage" in capsys.readouterr().out.lower()


def test_the_package_has_no_import_cycles():
    """Every module of cdclake and what it imports of the package (at module level or inside a
    function), walked for cycles."""
    root = Path(cli.__file__).parent
    modules = {".".join(("cdclake", *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__"): path
               for path in root.rglob("*.py")}
    edges = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                found = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in found:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name and not name.startswith(target + "."):   # not its own package
                    targets.add(target)
        edges[name] = targets

    def cycle_from(start):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in edges[node]:
                if nxt == start:
                    return path + [start]
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
        return None

    cycles = [" -> ".join(c) for c in map(cycle_from, sorted(modules)) if c]
    assert not cycles, cycles


def test_sql_prints_a_maps_entries_in_the_order_the_table_holds_them(spark, capsys):
    """Keys in CQL order (text: by their bytes), whose hash order differs: PySpark collects a map
    into a hash map, `cdclake sql` keeps the table's order, at any depth, in both formats."""
    import json

    from cdclake.commands.sql import run_statement

    keys = sorted(f"k{n:02d}{chr(97 + n % 26)}" for n in range(30))
    spark.createDataFrame([(1,)], "id int").selectExpr(
        "id", f"map_from_arrays(array({', '.join(repr(k) for k in keys)}), sequence(0, {len(keys) - 1})) as attrs",
        "array(map('green', 1, 'red', 0)) as nested", "named_struct('m', map('b', 2, 'a', 1)) as inside",
    ).createOrReplaceTempView("ordered_maps")
    hashed = list(spark.table("ordered_maps").first().attrs)
    assert hashed != keys, "the keys' hash order is their order: the test would not tell"
    assert run_statement(spark, "select * from ordered_maps", "jsonl", 10) == 0
    row = json.loads(capsys.readouterr().out)
    assert [key for key, _ in row["attrs"]] == keys
    assert row["nested"] == [[["green", 1], ["red", 0]]] and row["inside"] == {"m": [["b", 2], ["a", 1]]}
    assert run_statement(spark, "select attrs from ordered_maps", "table", 10) == 0
    printed = capsys.readouterr().out
    assert printed.index('"k00a"') < printed.index('"k01b"') < printed.index('"k29d"')
