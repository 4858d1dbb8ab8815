"""The consumer tables generated per CDC-enabled base table, next to its log table: the base
table as a replicator rebuilds it from the log (``<keyspace>.<table>_state``), every version of
its rows (``_history``) and a change feed (``_changes``).

Each generated model is two lines calling a macro (``scylla_cdc_<kind>_table``); the properties
file beside them documents every column with an enforced contract (cdclake/logschema.py maps
the types as the macros do). Tables whose log carries no values (``delta: keys`` in a version
that logs) get none.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from cdclake.load.schema_records import BaseColumn, BaseTable, BaseTypeField
from cdclake.logschema import keyspace_user_types, latest_base_columns, spark_type

CONSUMER_MODELS_SUBDIR = Path("models") / "marts" / "consumer_tables"
MODELS_YML = "_consumer_tables__models.yml"
KINDS = ("state", "history", "changes")
CONSUMER_TABLE_TAG = "cdc_consumer_table"      # each consumer table model's tag (for selections)
DESCRIPTIONS = {
    "state": "The state of {} rebuilt from its CDC log. {{{{ doc('state_tables') }}}}",
    "history": "Every version of every row of {} rebuilt from its CDC log. {{{{ doc('history_tables') }}}}",
    "changes": "The change feed of {} rebuilt from its CDC log. {{{{ doc('changes_tables') }}}}",
}
# the columns the history and change feed add to a row: (name, Spark type, doc block)
VERSION_COLUMNS = [
    ("cdc$is_static_row", "boolean", "history_is_static_row"),
    ("cdc$valid_from_us", "bigint", "history_valid_from_us"),
    ("cdc$valid_to_us", "bigint", "history_valid_to_us"),
    ("cdc$valid_from", "timestamp", "history_valid_from"),
    ("cdc$valid_to", "timestamp", "history_valid_to"),
    ("cdc$is_deletion", "boolean", "history_is_deletion"),
    ("cdc$is_expiry", "boolean", "history_is_expiry"),
    ("cdc$time", "string", "history_cdc_time"),
    ("cdc$batch_seq_no", "int", "history_batch_seq_no"),
    ("cdc$operation", "int", "history_operation"),
]
CHANGE_COLUMNS = [
    ("cdc$is_static_row", "boolean", "history_is_static_row"),
    ("_change_type", "string", "changes_change_type"),
    ("_commit_timestamp", "timestamp", "changes_commit_timestamp"),
    ("cdc$commit_time_us", "bigint", "changes_commit_time_us"),
    ("cdc$is_expiry", "boolean", "history_is_expiry"),
    ("cdc$time", "string", "history_cdc_time"),
    ("cdc$batch_seq_no", "int", "history_batch_seq_no"),
    ("cdc$operation", "int", "history_operation"),
]


def consumer_model_name(keyspace: str, table: str, kind: str) -> str:
    return f"{keyspace}__{table}_{kind}"


# what each consumer table's macro reads, passed by its model (the models hold the refs)
CONSUMER_INPUTS = {
    "history": ["ref('int_log_replay_versions')", "ref('int_log_replay_facts')"],
    "changes": ["ref('{history}')", "ref('int_log_replay_versions')", "ref('int_log_replay_facts')"],
    "state": ["ref('{history}')", "ref('int_log_replay_facts')"],
}


def consumer_model_sql(keyspace: str, table: str, kind: str) -> str:
    history = consumer_model_name(keyspace, table, "history")
    inputs = ", ".join(arg.format(history=history) for arg in CONSUMER_INPUTS[kind])
    return (
        f"{{{{ config(alias='{table}_{kind}', schema='{keyspace}', tags=['{CONSUMER_TABLE_TAG}']) }}}}\n"
        f"{{{{ scylla_cdc_{kind}_table('{keyspace}', '{table}', {inputs}) }}}}\n"
    )


def is_generated(path: Path) -> bool:
    return path.suffix == ".sql" and "__" in path.stem and path.stem.rsplit("_", 1)[-1] in KINDS


def replayable(tables: Iterable[BaseTable], keyspace: str, table: str) -> bool:
    """Whether the table's log carries values in every schema version that logs (as
    ``cdc_replayable_tables`` decides)."""
    return not any(t.keyspace_name == keyspace and t.table_name == table and t.cdc_enabled and t.cdc_delta == "keys"
                   for t in tables)


def state_table_columns(
    keyspace: str, table: str, columns: Iterable[BaseColumn], types: Iterable[BaseTypeField]
) -> list[dict]:
    """The state table's columns (name, Spark type, description) in the macro's order: the key
    columns, then each static and regular column followed by its write time, TTL and expiry."""
    udts = keyspace_user_types(types, keyspace)
    result = []
    for c in latest_base_columns(keyspace, table, columns):
        cql_type = c.cql_type.strip().lower()
        described = f"`{c.column_name}` (CQL `{cql_type}`)"
        if c.kind in ("partition_key", "clustering"):
            key = "Partition-key" if c.kind == "partition_key" else "Clustering"
            result.append(_column(c.column_name, spark_type(cql_type, udts), f"{key} column {described}."))
            continue
        result += [
            _column(c.column_name, spark_type(cql_type, udts),
                    f"{c.kind.capitalize()} column {described}: its live value. {{{{ doc('state_value_column') }}}}"),
            _column(f"cdc$writetime_{c.column_name}", "bigint",
                    f"Write time of `{c.column_name}`. {{{{ doc('state_writetime_column') }}}}"),
            _column(f"cdc$ttl_{c.column_name}", "int",
                    f"TTL of `{c.column_name}`. {{{{ doc('state_ttl_column') }}}}"),
            _column(f"cdc$expires_at_{c.column_name}", "timestamp",
                    f"Expiry of `{c.column_name}`. {{{{ doc('state_expires_at_column') }}}}"),
        ]
    return result


def _column(name: str, data_type: str, description: str) -> dict:
    return {"name": name, "description": description, "data_type": data_type, "quote": True}


def consumer_models_properties(keyspace: str, table: str, row_columns: list[dict], meta: dict) -> list[dict]:
    """The properties of the table's three consumer models, from its row's columns
    (``state_table_columns``) and the schema their macros read (``meta``:
    log_columns.generated_model_meta)."""
    added = {"state": [], "history": VERSION_COLUMNS, "changes": CHANGE_COLUMNS}
    # a whole-table check (the feed against the whole log): `cdclake check` runs it, builds do not
    tests = {"changes": [{"changes_are_logged": {"arguments": {"keyspace_name": keyspace, "table_name": table},
                                                 "config": {"tags": ["whole_table"]}}}]}
    return [{
        "name": consumer_model_name(keyspace, table, kind),
        "description": DESCRIPTIONS[kind].format(f"{keyspace}.{table}"),
        "config": {"contract": {"enforced": True}, "meta": meta},
        **({"data_tests": tests[kind]} if kind in tests else {}),
        "columns": row_columns + [_column(name, data_type, f"{{{{ doc('{doc}') }}}}")
                                  for name, data_type, doc in added[kind]],
    } for kind in KINDS]


def consumer_tables_exposure(keyspace: str, table: str) -> dict:
    """The readers of one table's consumer tables: analytics on its rows and their history, and
    pipelines fed its changes."""
    return {
        "name": f"{keyspace}__{table}_table_consumers",
        "label": f"Consumers of {keyspace}.{table} in the lakehouse",
        "type": "analysis",
        "maturity": "medium",
        "owner": {"name": "Data platform team"},
        "description": f"Readers of {keyspace}.{table}'s rows, history and changes. "
                       "{{ doc('consumer_table_readers') }}",
        "depends_on": [f"ref('{consumer_model_name(keyspace, table, kind)}')" for kind in KINDS],
    }
