"""Bad input never aborts a build and is never dropped.

ONE replay holds the example's writes (the inputs of the example build), one write for each
class of bad input in BAD_INPUTS, and a batch of random junk (hypothesis: any value in any column
of the atoms). The build must succeed; every bad write must be rejected with a reason naming
its column and value; every write must be counted once (input = logged + not logged +
rejected); and the example's writes must be logged exactly as the example build logged them.

It sorts after the test_example_* modules on purpose: it replays into the warehouse they read,
and compares with the example build's outputs taken when it ran (conftest.example_outputs).
The junk is drawn from a seed (drawn_junk: junk in at least six columns, several writes):
DEFAULT_JUNK_SEED, the same every run, or with CDCLAKE_JUNK_RANDOM=1 a new one (printed).
"""
from __future__ import annotations

import json
import os
import random
import sys
import uuid
from dataclasses import replace
from pathlib import Path

from hypothesis import strategies as st

from conftest import REPO
from cdclake.load.mutation_records import ATOM_COLUMNS, Atom
from outputs import rows_of
from random_cql import first_draw

sys.path.insert(0, str(REPO / "scripts"))
from build_example_seeds import example_atoms  # noqa: E402

GOOD_ATOMS, TABLES, COLUMNS, TYPES = example_atoms()
FIRST_BAD_WRITE = 1_000
FIRST_JUNK_WRITE = 2_000
LOG_TABLES = ["cdc_lake.cdc_log", "shop.inventory_scylla_cdc_log", "shop.orders_scylla_cdc_log",
              "shop.sessions_scylla_cdc_log"]


def _template(table: str, kind: str, column: str | None = None) -> Atom:
    return next(a for a in GOOD_ATOMS if a.table_name == table and a.atom_kind == kind
                and (column is None or a.column_name == column))


CELL = _template("inventory", "cell", "quantity")              # shop.inventory, version 0
MARKER = _template("orders", "row_marker")                     # a clustered row
SET_ELEMENT = _template("orders", "cell", "tags")
NOW = CELL.coordinator_now_us

# class -> (how a good atom is spoiled, the start of the reason it must get)
BAD_INPUTS = {
    "partition key not JSON": (dict(partition_key="pk=1"), "partition_key: invalid JSON 'pk=1'"),
    "partition key not an object": (dict(partition_key="[1, 2]"),
                                    "partition_key: partition key must be a JSON object {column: value}, got [1, 2]"),
    "partition key of the wrong type": (dict(partition_key='{"sku": 5}'),
                                        "partition_key: partition key column 'sku': expected text, got 5"),
    "partition key without its column": (dict(partition_key='{"id": "x"}'),
                                         "partition_key: partition key column 'id' is not part of the partition key"),
    "null partition key": (dict(partition_key=None), "partition_key: missing"),
    "null write id": (dict(write_id=None), "write_id: missing"),
    "null keyspace": (dict(keyspace_name=None), "keyspace_name: missing"),
    "null table": (dict(table_name=None), "table_name: missing"),
    "null atom kind": (dict(atom_kind=None), "atom_kind: unknown atom kind null"),
    "unknown atom kind": (dict(atom_kind="upsert"), 'atom_kind: unknown atom kind "upsert"'),
    "null schema version": (dict(schema_version=None), "schema_version: missing"),
    "unknown schema version": (dict(schema_version=7), 'schema_version: table "shop.inventory" has no schema version 7'),
    "unknown table": (dict(table_name="stock"), 'table_name: unknown table "shop.stock"'),
    "unknown column": (dict(column_name="colour"), 'column_name: unknown column "colour" in table shop.inventory'),
    "value of the wrong type": (dict(value='"plenty"'), 'value: expected int, got "plenty"'),
    "integer out of range": (dict(value="3000000000"), "value: expected int, got 3000000000: out of range"),
    "value not JSON": (dict(value="forty"), "value: invalid JSON 'forty'"),
    "live cell without a value": (dict(value=None), "value: the live cell of column quantity has no value"),
    "null write timestamp": (dict(write_timestamp=None), "write_timestamp: missing"),
    "null coordinator clock": (dict(coordinator_now_us=None), "coordinator_now_us: missing"),
    "negative TTL": (dict(ttl_seconds=-5), "ttl_seconds: A TTL must be greater or equal to 0 (got -5)"),
    "TTL above 20 years": (dict(ttl_seconds=630720001),
                           "ttl_seconds: ttl is too large. requested (630720001) maximum (630720000)"),
    "element key on an atomic column": (dict(element_key='"x"'), "element_key: quantity is not a non-frozen"),
    "timestamp from the future": (dict(write_timestamp=NOW + 3600 * 10**6),
                                  'cdc: attempted to get a stream "from the future"'),
    "timestamp from the past": (dict(write_timestamp=NOW - 3 * 3600 * 10**6),
                                'cdc: attempted to get a stream "from the past"'),
    "row atom without clustering key": (dict(atom=MARKER, clustering_key=None),
                                        "clustering_key: missing (a row atom needs the full clustering key)"),
    "clustering key not JSON": (dict(atom=MARKER, clustering_key="{order_id: 1"), "clustering_key: invalid JSON"),
    "dead row marker": (dict(atom=MARKER, is_live=False), "is_live: a row marker must be live"),
    "set element with a value": (dict(atom=SET_ELEMENT, value="1"),
                                 "value: the elements of set column tags carry no value"),
    "two coordinator clocks in one write": (dict(second=dict(coordinator_now_us=NOW + 7)),
                                            "write_id: the atoms of write"),
    "two schema versions of a table in one write": (dict(second=dict(schema_version=1)),
                                                    "schema_version: the atoms of write"),
    "unknown origin": (dict(origin="batch job"), 'origin: unknown origin "batch job"'),
    "an expiry that writes a cell": (dict(origin="ttl_expiry"),
                                     "origin: the expiration service (ttl_expiry) writes row and partition tombstones"),
}


def bad_writes() -> tuple[list[Atom], dict[str, int | None]]:
    """One write per class of BAD_INPUTS, each in a partition no good write touches (clustered
    rows keep theirs: their classes are rejected whatever the key). ``second`` adds a second
    atom to the write, another column of the same row with those changes."""
    atoms, write_ids = [], {}
    for number, (name, (spoil, _)) in enumerate(sorted(BAD_INPUTS.items())):
        spoil = dict(spoil)
        template = spoil.pop("atom", CELL)
        second = spoil.pop("second", None)
        if template is CELL:
            template = replace(template, partition_key=json.dumps({"sku": f"bad-{number}"}))
        atom = replace(replace(template, write_id=FIRST_BAD_WRITE + number), **spoil)
        atoms.append(atom)
        if second is not None:
            atoms.append(replace(atom, column_name="price_cents", **second))
        write_ids[name] = atom.write_id
    return atoms, write_ids


# ---------------------------------------------------------------------------------------------
# random junk: any value, of the column's type, in any column of an atom

JUNK_TEXT = st.one_of(
    st.none(), st.text(max_size=30), st.just(""), st.just("{}"), st.just("[]"), st.just("null"),
    st.just('{"sku": "x"}'), st.just('{"a": ' * 200 + "1" + "}" * 200), st.just("x" * 5000),
    st.sampled_from(["row_marker", "cell", "row_tombstone", "range_tombstone", "partition_tombstone",
                     "collection_tombstone", "shop", "inventory", "orders", "quantity", "tags"]),
    st.integers().map(str), st.floats().map(json.dumps),
)
JUNK_BY_COLUMN = {
    "write_id": st.none() | st.integers(FIRST_JUNK_WRITE, FIRST_JUNK_WRITE + 5) | st.integers(-(2**63), -1),
    "coordinator_now_us": st.none() | st.integers(-(2**63), 2**63 - 1) | st.integers(NOW - 10**7, NOW + 10**7),
    "write_timestamp": st.none() | st.integers(-(2**63), 2**63 - 1) | st.integers(NOW - 10**7, NOW + 10**7),
    "ttl_seconds": st.none() | st.integers(-(2**31), 2**31 - 1),
    "schema_version": st.none() | st.integers(-(2**63), 2**63 - 1) | st.integers(0, 2),
    "is_live": st.none() | st.booleans(),
    "range_start_inclusive": st.none() | st.booleans(),
    "range_end_inclusive": st.none() | st.booleans(),
}


def fresh_partition_key(partition_key: str, number: int) -> str:
    """The key with each value replaced by one of the same type no good write uses."""
    def fresh(value):
        if isinstance(value, str):
            return str(uuid.UUID(int=number + 1)) if len(value) == 36 and value.count("-") == 4 else f"junk-{number}"
        return 10**9 + number
    return json.dumps({column: fresh(value) for column, value in json.loads(partition_key).items()})


@st.composite
def junk_atoms(draw) -> tuple[list[Atom], set[str]]:
    """A small batch of atoms, each a good atom moved to a fresh partition, with junk in 1-4 of
    its columns; a few writes (some of several atoms), with ids no good write has. Returns the
    atoms and the columns that got junk."""
    atoms, spoiled = [], set()
    for number in range(draw(st.integers(8, 16))):
        template = draw(st.sampled_from(GOOD_ATOMS))
        atom = replace(template, write_id=FIRST_JUNK_WRITE + draw(st.integers(0, 5)),
                       partition_key=fresh_partition_key(template.partition_key, number))
        for column in draw(st.lists(st.sampled_from(ATOM_COLUMNS), min_size=1, max_size=4, unique=True)):
            atom = replace(atom, **{column: draw(JUNK_BY_COLUMN.get(column, JUNK_TEXT))})
            spoiled.add(column)
        atoms.append(atom)
    return atoms, spoiled


# the junk drawn by default; CDCLAKE_JUNK_RANDOM=1 draws from a new seed (printed)
DEFAULT_JUNK_SEED = 0


def drawn_junk(seed: int) -> list[Atom]:
    """The first junk drawn from ``seed`` with junk in at least six columns and several writes
    (not shrunk: Hypothesis's first example, its simplest, is eight atoms whose only junk is
    a null write id)."""
    atoms, _ = first_draw(junk_atoms(), lambda drawn: len(drawn[1]) >= 6 and len({a.write_id for a in drawn[0]}) >= 3,
                          seed)
    return atoms


# ---------------------------------------------------------------------------------------------


def log_rows_of_writes(spark, write_ids: set[int]) -> dict[str, list[str]]:
    """The log tables' rows that belong to ``write_ids`` (their groups' stream and cdc$time)."""
    spark.createDataFrame([(w,) for w in write_ids], "write_id bigint").createOrReplaceTempView("kept_writes")
    spark.sql("""
        select distinct groups.stream_id, groups.cdc_time
        from cdc_intermediate.int_batch_atoms as groups
        inner join kept_writes on groups.write_id = kept_writes.write_id
        where groups.stream_id is not null
    """).createOrReplaceTempView("kept_groups")
    return {table: rows_of(spark.sql(f"""
        select log.* from {table} as log
        left semi join kept_groups
            on log.`cdc$stream_id` = kept_groups.stream_id and log.`cdc$time` = kept_groups.cdc_time
    """)) for table in LOG_TABLES}


def test_bad_input_is_quarantined_and_the_good_writes_are_logged_as_without_it(spark, test_workspace, example_outputs):
    from cdclake.cql.interpreter import ScriptResult
    from cdclake.replay import replay_records

    seed = random.randrange(2**32) if os.environ.get("CDCLAKE_JUNK_RANDOM") else DEFAULT_JUNK_SEED
    print(f"junk drawn from seed {seed}")
    junk = drawn_junk(seed)

    bad, bad_write_ids = bad_writes()
    inputs = ScriptResult(atoms=GOOD_ATOMS + bad + junk, tables=TABLES, columns=COLUMNS, types=TYPES)
    result = replay_records(inputs, now_us=NOW, generations=REPO / "seeds",
                            workspace=test_workspace / "junk")

    assert result.dbt_succeeded, result.input_problems
    # every write counted once: logged (counted from the log) + not logged + rejected
    audit = result.audit
    input_writes = {a.write_id for a in inputs.atoms}
    assert audit["input_writes"] == len(input_writes)
    assert audit["input_writes"] == audit["logged_writes"] + audit["unlogged_writes"] + audit["rejected_writes"]
    judged = spark.sql("select distinct write_id from cdc_intermediate.int_batch_atoms").collect()
    assert sorted(map(repr, (r.write_id for r in judged))) == sorted(map(repr, input_writes))

    # each class of bad input: rejected, with a reason naming its column and value
    rejected = {w["write_id"]: w["error_text"] for w in result.rejected_writes}
    reasons = {name: rejected.get(write_id, "(accepted)") for name, write_id in bad_write_ids.items()}
    wrong = {name: reason for name, reason in reasons.items() if not reason.startswith(BAD_INPUTS[name][1])}
    assert not wrong, "\n".join(f"{name}: got {reason!r}, expected {BAD_INPUTS[name][1]!r}"
                                 for name, reason in wrong.items())

    # the good writes: logged exactly as the example build logged them
    good_write_ids = {a.write_id for a in GOOD_ATOMS}
    assert log_rows_of_writes(spark, good_write_ids) == {t: example_outputs[t] for t in LOG_TABLES}
