"""Writes to non-frozen collections and UDTs -> collection tombstones and element cells
(docs/scylla/log.md §3, §8; cdclake/cql/mutations.py, list_keys.py, mutation_builder.py)."""
from __future__ import annotations

import json
import re
import uuid

import pytest
from conftest import TEST_DATA

from cdclake.cql import run_script
from cdclake.cql.list_keys import REFERENCE_TIME_MICROS, SPOOF_NODE, list_key

NOW = 1_700_000_000_000_000
STEP = 1000
KEYSPACE = "CREATE KEYSPACE ks WITH replication = {'class': 'NetworkTopologyStrategy', 'replication_factor': 1};\n"
CASES_PATH = TEST_DATA / "cases_docs.json"
MAP_TABLE = "CREATE TABLE ks.t (pk int, ck int, v map<int, text>, PRIMARY KEY (pk, ck));"
LIST_TABLE = "CREATE TABLE ks.t (pk int, ck int, v list<int>, PRIMARY KEY (pk, ck));"
UDT_TABLE = "CREATE TYPE ks.ut (a int, b int, c int); CREATE TABLE ks.t (pk int, ck int, v ut, PRIMARY KEY (pk, ck));"
WHERE = " WHERE pk = 0 AND ck = 0"


def run(cql: str):
    return run_script(KEYSPACE + cql, now_us=NOW, step_us=STEP)


def atoms(cql: str) -> list[dict]:
    """The set fields of each atom (keys, ids and clocks left out; timestamps as offsets from NOW)."""
    result = run(cql)
    assert not result.errors, [str(e) for e in result.errors]
    shown = []
    for atom in result.atoms:
        row = {k: v for k, v in atom.as_row().items() if v is not None and k not in (
            "write_id", "coordinator_now_us", "keyspace_name", "table_name", "partition_key", "clustering_key",
            "schema_version")}
        row["write_timestamp"] -= NOW
        shown.append(row)
    return shown


def brief(cql: str) -> list[tuple]:
    """(kind, timestamp offset, element_key, is_live, value, ttl) per atom."""
    return [(a["atom_kind"], a["write_timestamp"], a.get("element_key"), a.get("is_live"), a.get("value"),
             a.get("ttl_seconds")) for a in atoms(cql)]


def ts(statement_index: int) -> int:
    """Default timestamp offset of statement k (statement 0 is the CREATE KEYSPACE)."""
    return statement_index * STEP


# -------------------------------------------------------------------------- documentation cases


def collection_docs_cases() -> dict[str, dict]:
    cases = json.loads(CASES_PATH.read_text())["cases"]
    chosen = {}
    for case in cases:
        ddl = " ".join(case["setup"] + [s["cql"] for s in case["statements"]]).lower()
        if case["statements"] and (re.search(r"\b(map|set|list)\s*<", ddl) or "create type" in ddl):
            chosen[case["id"]] = case
    return chosen


def case_script(case: dict) -> str:
    statements = case["setup"] + [s["cql"] for s in case["statements"]]
    return re.sub(r"\{T([+-]\d+)?\}", lambda m: str(NOW + int(m.group(1) or 0)), ";\n".join(statements))


def test_collection_documentation_cases_all_run():
    cases = collection_docs_cases()
    assert "doc-at-map-add" in cases and len(cases) >= 20
    for case_id, case in cases.items():
        result = run(case_script(case))
        assert not result.errors, (case_id, [str(e) for e in result.errors])
        assert result.atoms, case_id


def docs_atoms(case_id: str) -> list[dict]:
    case = collection_docs_cases()[case_id]
    result = run(case_script(case))
    assert not result.errors
    return [{k: v for k, v in a.as_row().items() if v is not None} for a in result.atoms]


def test_doc_map_add_writes_two_live_element_cells_and_no_tombstone():
    shown = docs_atoms("doc-at-map-add")
    assert [(a["atom_kind"], a["element_key"], a["value"], a["is_live"]) for a in shown] == [
        ("cell", "1", '"v1"', True), ("cell", "2", '"v2"', True)]


def test_doc_map_insert_vs_update():
    shown = docs_atoms("doc-at-map-insert-vs-update")
    t1, t2 = NOW + ts(2), NOW + ts(3)
    assert [(a["atom_kind"], a["write_timestamp"], a.get("element_key")) for a in shown] == [
        ("row_marker", t1, None), ("collection_tombstone", t1 - 1, None), ("cell", t1, "1"), ("cell", t1, "2"),
        ("collection_tombstone", t2 - 1, None), ("cell", t2, "1"), ("cell", t2, "2")]
    tombstone = shown[1]
    assert tombstone["column_name"] == "v" and set(tombstone) & {"is_live", "value", "ttl_seconds"} == set()


def test_doc_map_column_delete_is_a_tombstone_at_t():
    assert [(a["atom_kind"], a["write_timestamp"], a["column_name"])
            for a in docs_atoms("doc-at-map-column-delete-plus-one")] == [("collection_tombstone", NOW, "v")]


def test_doc_map_remove_keys_and_whole_deletes():
    assert [(a["element_key"], a["is_live"], a.get("value")) for a in docs_atoms("doc-at-map-remove-keys")] == [
        ("1", False, None), ("2", False, None), ("3", False, None)]
    assert [a["atom_kind"] for a in docs_atoms("doc-at-map-delete-whole")] == ["collection_tombstone"] * 2
    assert [a["atom_kind"] for a in docs_atoms("doc-at-list-delete-whole")] == ["collection_tombstone"] * 2


def test_doc_map_delete_then_add_batch_keeps_both():
    assert [(a["atom_kind"], a["write_timestamp"] - NOW, a.get("element_key"))
            for a in docs_atoms("doc-at-map-delete-then-add-batch")] == [
        ("collection_tombstone", -1, None), ("cell", 0, "1"), ("cell", 0, "2")]


def test_doc_set_add_has_keys_and_no_values():
    shown = docs_atoms("doc-at-set-add")
    assert [(a["element_key"], a["is_live"], a.get("value")) for a in shown] == [("1", True, None), ("2", True, None)]


def test_doc_list_append_keys_are_version_1_timeuuids_at_the_timestamp_in_order():
    shown = docs_atoms("doc-at-list-append")
    keys = [uuid.UUID(json.loads(a["element_key"])) for a in shown]
    assert [a["value"] for a in shown] == ["1", "2"]
    t1 = NOW + ts(2)
    for key in keys:
        assert key.version == 1 and key.variant == uuid.RFC_4122
        assert (key.time - 0x01B21DD213814000) // 10 == t1
        assert key.node == SPOOF_NODE
    assert keys[0].time < keys[1].time or keys[0].clock_seq < keys[1].clock_seq
    assert [k.clock_seq for k in keys] == [0x80, 0x81]


def test_doc_list_timeuuid_index_set_and_delete():
    assert [(a["element_key"], a["value"]) for a in docs_atoms("doc-at-list-timeuuid-index-set")] == [
        ('"0dd381f0-2fea-11eb-af55-000000000001"', "0")]
    assert [(a["element_key"], a["is_live"]) for a in docs_atoms("doc-at-list-delete-by-key")] == [
        ('"cc5baec0-2fec-11eb-af55-000000000001"', False)]


def test_doc_list_overwrite_is_a_tombstone_and_appended_keys():
    shown = docs_atoms("doc-at-list-overwrite")
    assert [a["atom_kind"] for a in shown] == ["collection_tombstone", "cell", "cell"]
    assert [json.loads(a["element_key"]) for a in shown[1:]] == [list_key(NOW + ts(2), 0), list_key(NOW + ts(2), 1)]


def test_doc_udt_field_sets_use_integer_field_indexes():
    assert [(a["element_key"], a["is_live"], a.get("value")) for a in docs_atoms("doc-at-udt-set-fields")] == [
        ("0", True, "0"), ("1", True, "1")]
    assert [(a["element_key"], a["is_live"]) for a in docs_atoms("doc-at-udt-delete-fields")] == [
        ("0", False), ("1", False)]
    assert [(a["element_key"], a["is_live"]) for a in docs_atoms("doc-at-udt-set-and-delete")] == [
        ("0", True), ("2", False)]
    assert [(a["atom_kind"], a.get("element_key")) for a in docs_atoms("doc-at-udt-overwrite")] == [
        ("collection_tombstone", None), ("cell", "0"), ("cell", "1")]


# -------------------------------------------------------------------------- statements


def test_insert_overwrite_with_ttl_and_element_deletes():
    assert brief(MAP_TABLE + "INSERT INTO ks.t (pk, ck, v) VALUES (0, 0, {2: 'b', 1: 'a'}) USING TTL 5;"
                 "UPDATE ks.t SET v[3] = 'c', v[4] = null" + WHERE + ";DELETE v[1] FROM ks.t" + WHERE) == [
        ("row_marker", ts(2), None, True, None, 5),
        ("collection_tombstone", ts(2) - 1, None, None, None, None),
        ("cell", ts(2), "1", True, '"a"', 5),
        ("cell", ts(2), "2", True, '"b"', 5),
        ("cell", ts(3), "3", True, '"c"', None),
        ("cell", ts(3), "4", False, None, None),
        ("cell", ts(4), "1", False, None, None),
    ]


def test_default_ttl_applies_to_live_elements_only():
    shown = brief("CREATE TABLE ks.t (pk int PRIMARY KEY, s set<text>) WITH default_time_to_live = 7;"
                  "UPDATE ks.t SET s = s + {'b', 'a'}, s = s - {'c'} WHERE pk = 0;"
                  "UPDATE ks.t USING TTL 0 SET s = {'x'} WHERE pk = 0")
    assert shown == [
        ("cell", ts(2), '"a"', True, None, 7), ("cell", ts(2), '"b"', True, None, 7),
        ("cell", ts(2), '"c"', False, None, None),
        ("collection_tombstone", ts(3) - 1, None, None, None, None), ("cell", ts(3), '"x"', True, None, None)]


def test_empty_and_null_overwrites_write_only_the_tombstone():
    table = "CREATE TABLE ks.t (pk int PRIMARY KEY, s set<int>, m map<int, int>, l list<int>);"
    shown = brief(table + "UPDATE ks.t SET s = {}, m = {}, l = [] WHERE pk = 0; UPDATE ks.t SET s = null WHERE pk = 0")
    assert shown == [("collection_tombstone", ts(2) - 1, None, None, None, None)] * 3 + [
        ("collection_tombstone", ts(3) - 1, None, None, None, None)]


def test_udt_overwrite_writes_only_non_null_fields_and_field_deletes():
    assert brief(UDT_TABLE + "INSERT INTO ks.t (pk, ck, v) VALUES (0, 0, {c: 3, a: null});"
                 "DELETE v.b FROM ks.t" + WHERE + ";DELETE v FROM ks.t" + WHERE) == [
        ("row_marker", ts(3), None, True, None, None),
        ("collection_tombstone", ts(3) - 1, None, None, None, None),
        ("cell", ts(3), "2", True, "3", None),
        ("cell", ts(4), "1", False, None, None),
        ("collection_tombstone", ts(5), None, None, None, None),
    ]


def test_static_collections():
    shown = atoms("CREATE TABLE ks.t (pk int, ck int, s map<text, int> static, PRIMARY KEY (pk, ck));"
                  "UPDATE ks.t SET s['k'] = 1 WHERE pk = 0")
    assert shown == [{"atom_kind": "cell", "write_timestamp": ts(2), "column_name": "s", "is_live": True,
                      "value": "1", "element_key": '"k"'}]


def keys_of(shown: list[dict]) -> list[uuid.UUID]:
    return [uuid.UUID(json.loads(a["element_key"])) for a in shown if a.get("element_key")]


def test_prepend_keys_sort_before_append_keys_and_mirror_2010():
    shown = atoms(LIST_TABLE + "BEGIN BATCH UPDATE ks.t SET v = v + [1, 2]" + WHERE + ";"
                  "UPDATE ks.t SET v = [7, 8] + v" + WHERE + "; UPDATE ks.t SET v = [9] + v" + WHERE + "; APPLY BATCH")
    # atoms come out in key order: the last prepend first, then the earlier prepend, then the appends
    assert [a["value"] for a in shown] == ["9", "7", "8", "1", "2"]
    keys = keys_of(shown)
    mirrored = 2 * REFERENCE_TIME_MICROS - (NOW + ts(2))
    assert all((k.time - 0x01B21DD213814000) // 10 == mirrored for k in keys[:3])
    assert all((k.time - 0x01B21DD213814000) // 10 == NOW + ts(2) for k in keys[3:])
    # sequences: appends 0, 1; prepend [7, 8] reserves 2..3 -> 2**17 - 4, 2**17 - 3; [9] -> 2**17 - 5
    assert [json.loads(a["element_key"]) for a in shown] == [
        list_key(mirrored, (1 << 17) - 5), list_key(mirrored, (1 << 17) - 4), list_key(mirrored, (1 << 17) - 3),
        list_key(NOW + ts(2), 0), list_key(NOW + ts(2), 1)]


def test_list_counter_spans_the_batch_and_rows():
    shown = atoms("CREATE TABLE ks.t (pk int, ck int, v list<int>, w list<int>, PRIMARY KEY (pk, ck));"
                  "BEGIN BATCH UPDATE ks.t SET v = v + [1], w = [2, 3] WHERE pk = 0 AND ck IN (1, 0);"
                  "UPDATE ks.t SET v = v + [4] WHERE pk = 0 AND ck = 0 APPLY BATCH")
    t = NOW + ts(2)
    cells = [(a["column_name"], a["value"], a["element_key"]) for a in shown if a["atom_kind"] == "cell"]
    k = [json.dumps(list_key(t, i)) for i in range(7)]
    # rows in key order (ck 0, then ck 1), each row's operations in statement order; then the second statement
    assert cells == [("v", "1", k[0]), ("v", "4", k[6]), ("w", "2", k[1]), ("w", "3", k[2]),
                     ("v", "1", k[3]), ("w", "2", k[4]), ("w", "3", k[5])]


def test_list_key_layout():
    key = uuid.UUID(list_key(NOW, (1 << 14) * 2 + 5))
    assert key.version == 1 and key.variant == uuid.RFC_4122
    assert key.time == NOW * 10 + 0x01B21DD213814000 + 2
    assert key.clock_seq == 5 ^ 0x80
    assert key.node == SPOOF_NODE and SPOOF_NODE & 0x010000000000


def test_timeuuid_index_assignment_and_errors():
    assert brief(LIST_TABLE + "UPDATE ks.t SET v[SCYLLA_TIMEUUID_LIST_INDEX(0dd381f0-2fea-11eb-af55-000000000001)]"
                 " = 5" + WHERE) == [("cell", ts(2), '"0dd381f0-2fea-11eb-af55-000000000001"', True, "5", None)]
    result = run(LIST_TABLE + "UPDATE ks.t USING TIMESTAMP 1000 SET v = [1] + v" + WHERE)
    assert [e.message for e in result.errors] == ["List prepend custom timestamp must be greater than Jan 1 2010 00:00:00"]
    result = run(MAP_TABLE + "UPDATE ks.t SET v[null] = 'x'" + WHERE)
    assert [e.message for e in result.errors] == ["Invalid null map key"]
    result = run(UDT_TABLE + "DELETE v.z FROM ks.t" + WHERE)
    assert [e.message for e in result.errors] == ["UDT column v does not have a field named z"]


def test_batch_merging_keeps_element_winners_and_the_newest_tombstone():
    shown = brief(MAP_TABLE + "BEGIN BATCH UPDATE ks.t USING TIMESTAMP 10 SET v = {1: 'a'}" + WHERE + ";"
                  "UPDATE ks.t USING TIMESTAMP 20 SET v = {1: 'b'}" + WHERE + ";"
                  "UPDATE ks.t USING TIMESTAMP 20 SET v[1] = 'c', v[2] = 'x'" + WHERE + ";"
                  "DELETE v[2] FROM ks.t USING TIMESTAMP 20" + WHERE + "; APPLY BATCH")
    assert shown == [("collection_tombstone", 19 - NOW, None, None, None, None),
                     ("cell", 20 - NOW, "1", True, '"c"', None),
                     ("cell", 20 - NOW, "2", False, None, None)]


def test_list_writes_by_index_and_value_read_the_list_first():
    setup = LIST_TABLE + "UPDATE ks.t SET v = v + [1, 2, 1, 3]" + WHERE + ";"
    keys = [a.element_key for a in run(setup).atoms]
    removed = run(setup + "UPDATE ks.t SET v = v - [1]" + WHERE).atoms[4:]
    assert [(a.element_key, a.is_live) for a in removed] == [(keys[0], False), (keys[2], False)]
    replaced = run(setup + "UPDATE ks.t SET v[3] = 30" + WHERE).atoms[4:]
    assert [(a.element_key, a.is_live, a.value) for a in replaced] == [(keys[3], True, "30")]
    deleted = run(setup + "DELETE v[1] FROM ks.t" + WHERE).atoms[4:]
    assert [(a.element_key, a.is_live) for a in deleted] == [(keys[1], False)]


def test_list_reads_see_deletions_and_skip_missing_values():
    setup = LIST_TABLE + "UPDATE ks.t SET v = v + [1, 2]" + WHERE + "; DELETE v[0] FROM ks.t" + WHERE + ";"
    result = run(setup + "UPDATE ks.t SET v[0] = 9" + WHERE + "; UPDATE ks.t SET v = v - [5]" + WHERE)
    live_second = result.atoms[1].element_key
    assert [(a.element_key, a.value) for a in result.atoms[3:]] == [(live_second, "9")]
    assert not result.errors


@pytest.mark.parametrize("statement, error", [
    ("UPDATE ks.t SET v[2] = 1" + WHERE, "List index 2 out of bound, list has size 1"),
    ("DELETE v[-1] FROM ks.t" + WHERE, "List index -1 out of bound, list has size 1"),
    ("UPDATE ks.t SET v[0] = 1 WHERE pk = 9 AND ck = 9", "Attempted to set an element on a list which is null"),
    ("DELETE v[0] FROM ks.t WHERE pk = 9 AND ck = 9", "Attempted to delete an element from a list which is null"),
    ("UPDATE ks.t SET v = v - [null]" + WHERE, "null is not supported inside collections"),
])
def test_list_reads_refuse_like_scylla(statement, error):
    result = run(LIST_TABLE + "UPDATE ks.t SET v = v + [1]" + WHERE + ";" + statement)
    assert [e.message for e in result.errors] == [error]
