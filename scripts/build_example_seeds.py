"""Build the example inputs in seeds/ from examples/shop.cql.

* base_mutations, base_tables, base_columns: the CQL front door's output for the script, with
  the client clock starting at 2023-11-14 22:13:20 UTC and advancing one second per statement,
  plus two hand-made bad atoms that show the quarantine (an unknown column, a wrong type);
* cdc_generations, cdc_generation_streams: a 3-node ring (16 vnodes each, 2 shards,
  ignore_msb 12) operating since an hour before the script, and a 4th node bootstrapped
  15 seconds into it (a second generation whose ranges refine the first);
* tablet_streams: the stream sets of the tablets keyspace's table, its first at its log table's
  creation, its second when its tablets split (at once: the cluster's ring_delay is 0).

Run with `make seeds`; tests/python/test_example_seeds.py checks the files are up to date.
"""
from __future__ import annotations

import csv
import sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cdclake.cql.interpreter import run_script  # noqa: E402
from cdclake.generations.cluster_history import ClusterHistory, Node, Resize  # noqa: E402
from cdclake.generations.tablet_streams import (  # noqa: E402
    TABLET_STREAMS_COLUMNS, tablet_stream_rows,
)
from cdclake.generations.vnodes import (  # noqa: E402
    deterministic_random_source, generation_stream_rows, make_generation, ring_tokens_by_node,
    sharding_info_by_owner,
)
from cdclake.load.inputs import GENERATION_STREAMS_COLUMNS  # noqa: E402
from cdclake.load.mutation_records import ATOM_COLUMNS, CELL, Atom  # noqa: E402
from cdclake.load.schema_records import BASE_COLUMN_COLUMNS, BASE_TABLE_COLUMNS, BASE_TYPE_COLUMNS  # noqa: E402

EXAMPLE_SCRIPT = REPO / "examples" / "shop.cql"
NOW_US = 1_700_000_000_000_000
STEP_US = 1_000_000
NODES, VNODES, SHARDS, IGNORE_MSB = 3, 16, 2, 12
FIRST_GENERATION_MS = NOW_US // 1000 - 3600 * 1000
BOOTSTRAP_GENERATION_MS = NOW_US // 1000 + 15 * 1000
SPLIT_MS = NOW_US // 1000 + 34 * 1000      # metrics.readings: 4 tablets -> 8


def example_atoms() -> tuple[list[Atom], list, list]:
    result = run_script(EXAMPLE_SCRIPT.read_text(), now_us=NOW_US, step_us=STEP_US)
    if result.errors:
        raise SystemExit("examples/shop.cql has errors:\n" + "\n".join(map(str, result.errors)))
    atoms = list(result.atoms)
    template = next(a for a in atoms if a.table_name == "inventory" and a.atom_kind == CELL)
    next_write = max(a.write_id for a in atoms) + 1
    quarantined = [
        # a column the table does not have
        replace(template, write_id=next_write, column_name="colour", value='"green"'),
        # a value of the wrong type for an int column
        replace(template, write_id=next_write + 1, column_name="quantity", value='"plenty"'),
    ]
    return atoms + quarantined, result.tables, result.columns, result.types


def example_generations() -> tuple[list[int], list[dict]]:
    by_node = ring_tokens_by_node(NODES + 1, VNODES, "scylla-cdc-lake example ring")
    sharding = [(SHARDS, IGNORE_MSB)] * (NODES + 1)
    rows = []
    for generation_ms, nodes in ((FIRST_GENERATION_MS, NODES), (BOOTSTRAP_GENERATION_MS, NODES + 1)):
        ring = sorted(t for node in by_node[:nodes] for t in node)
        entries = make_generation(
            ring, sharding_info_by_owner(by_node[:nodes], sharding[:nodes]),
            deterministic_random_source(generation_ms),
        )
        rows += generation_stream_rows(generation_ms, entries)
    return [FIRST_GENERATION_MS, BOOTSTRAP_GENERATION_MS], rows


def example_tablet_streams(tables) -> list[dict]:
    nodes = tuple(Node(f"n{n + 1}", FIRST_GENERATION_MS, (), SHARDS, IGNORE_MSB) for n in range(NODES))
    history = ClusterHistory(0, "scylla-cdc-lake example ring", nodes, (Resize("metrics.readings", SPLIT_MS, 8),))
    return [dict(zip(TABLET_STREAMS_COLUMNS, row)) for row in tablet_stream_rows(history, tables)]


def write_csv(seeds: Path, name: str, columns: list[str], rows: list[dict]) -> None:
    with open(seeds / f"{name}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})


def build(root: Path) -> None:
    """Write the seeds under ``root`` (the repository, or a test's copy); a build writes the log
    models from them (cdclake/project/generated.py)."""
    seeds = root / "seeds"
    seeds.mkdir(parents=True, exist_ok=True)
    atoms, tables, columns, types = example_atoms()
    generations, streams = example_generations()
    write_csv(seeds, "base_mutations", ATOM_COLUMNS, [a.as_row() for a in atoms])
    write_csv(seeds, "base_tables", BASE_TABLE_COLUMNS, [t.as_row() for t in tables])
    write_csv(seeds, "base_columns", BASE_COLUMN_COLUMNS, [c.as_row() for c in columns])
    write_csv(seeds, "base_types", BASE_TYPE_COLUMNS, [t.as_row() for t in types])
    write_csv(seeds, "cdc_generations", ["generation_ts_ms"], [{"generation_ts_ms": g} for g in generations])
    write_csv(seeds, "cdc_generation_streams", GENERATION_STREAMS_COLUMNS, streams)
    write_csv(seeds, "tablet_streams", TABLET_STREAMS_COLUMNS, example_tablet_streams(tables))
    print(f"wrote {len(atoms)} atoms, {len(tables)} tables, {len(streams)} streams to {seeds}")


if __name__ == "__main__":
    build(REPO)
