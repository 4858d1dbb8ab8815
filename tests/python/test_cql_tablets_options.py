"""A keyspace's `tablets = {...}` option in the front door (cdclake/cql/keyspace_options.py), with
ScyllaDB's texts (docs/scylla/tablets.md)."""
from __future__ import annotations

import pytest

from cdclake.cql import run_script
from cdclake.cql.catalog import Catalog
from cdclake.cql.errors import CONFIGURATION_ERROR, INVALID_QUERY
from cdclake.cql.parser import parse_statement

NTS = "{'class': 'NetworkTopologyStrategy', 'replication_factor': 1}"


def keyspace(tablets: str | None, *, by_default: bool = False, replication: str = NTS):
    catalog = Catalog(tablets_by_default=by_default)
    catalog.create_keyspace(parse_statement(
        f"CREATE KEYSPACE ks WITH replication = {replication}" + (f" AND tablets = {tablets}" if tablets else "")))
    return catalog


@pytest.mark.parametrize("tablets, by_default, initial", [
    (None, False, None),                                  # vnodes, as releases before tablets
    (None, True, 0),                                      # tablets_mode_for_new_keyspaces: enabled
    ("{'enabled': false}", True, None),
    ("{'enabled': true}", False, 0),
    ("{'enabled': true, 'initial': 8}", False, 8),
    ("{'initial': 4}", False, 4),                         # a count alone turns tablets on
    ("{'enabled': false, 'initial': 'x'}", False, None),  # 'enabled': false returns before the count is read
])
def test_a_keyspaces_mode_and_initial_count(tablets, by_default, initial):
    assert keyspace(tablets, by_default=by_default).keyspace("ks").initial_tablets == initial


@pytest.mark.parametrize("tablets, message", [
    ("{'enabled': 'yes'}", "Tablets enabled value must be true or false; found: yes"),
    ("{'initial': 'many'}", "Initial tablets value should be numeric; found many"),
    ("{'enabled': true, 'min_tablet_count': 4, 'expected_data_size_in_gb': 1}",
     "Unrecognized tablets option expected_data_size_in_gb"),
])
def test_a_bad_tablets_option_is_refused_with_scyllas_text(tablets, message):
    result = run_script(f"CREATE KEYSPACE ks WITH replication = {NTS} AND tablets = {tablets};", now_us=1)
    assert [(e.message, e.code) for e in result.errors] == [(message, CONFIGURATION_ERROR)]


def test_simple_strategy_keeps_vnodes():
    result = run_script("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1} "
                        "AND tablets = {'enabled': true};", now_us=1)
    assert [(e.message, e.code) for e in result.errors] == [
        ("SimpleStrategy doesn't support tablet replication", CONFIGURATION_ERROR)]


def test_an_alter_keeps_the_flavor():
    catalog = keyspace("{'enabled': true, 'initial': 2}")
    catalog.alter_keyspace(parse_statement(f"ALTER KEYSPACE ks WITH replication = {NTS}"))
    assert catalog.keyspace("ks").initial_tablets == 2
    catalog.alter_keyspace(parse_statement(f"ALTER KEYSPACE ks WITH replication = {NTS} AND tablets = {{'initial': 4}}"))
    assert catalog.keyspace("ks").initial_tablets == 4
    result = run_script(f"CREATE KEYSPACE ks WITH replication = {NTS};"
                        f"ALTER KEYSPACE ks WITH replication = {NTS} AND tablets = {{'enabled': true}};", now_us=1)
    assert [(e.message, e.code) for e in result.errors] == [
        ("Cannot alter replication strategy vnode/tablets flavor", INVALID_QUERY)]


TABLETS_KEYSPACE = f"CREATE KEYSPACE ks WITH replication = {NTS} AND tablets = {{'enabled': true}};\n"


def table_errors(options: str, keyspace: str = TABLETS_KEYSPACE) -> list[tuple[str, str]]:
    result = run_script(keyspace + f"CREATE TABLE ks.t (k int PRIMARY KEY, v int) WITH tablets = {options};", now_us=1)
    return [(e.message, e.code) for e in result.errors]


@pytest.mark.parametrize("options, kept", [
    ("{'min_tablet_count': '8'}", {"min_tablet_count": "8"}),
    ("{'min_tablet_count': 0, 'max_tablet_count': 16}", {"max_tablet_count": "16"}),   # zero counts dropped
    ("{'min_tablet_count': '3', 'max_tablet_count': '4', 'pow2_count': 'yes'}",
     {"min_tablet_count": "3", "max_tablet_count": "4", "pow2_count": "true"}),
    ("{'expected_data_size_in_gb': '10x', 'min_per_shard_tablet_count': '0.5'}",        # atol and atof read a prefix
     {"expected_data_size_in_gb": "10", "min_per_shard_tablet_count": "0.5"}),
])
def test_a_tables_tablet_options_as_scylladb_keeps_them(options, kept):
    from cdclake.cql.tablets_options import table_tablet_options

    assert table_errors(options) == []
    assert table_tablet_options(parse_statement(f"CREATE TABLE ks.t (k int PRIMARY KEY) WITH tablets = {options}")
                                .options.properties["tablets"], 0) == kept


@pytest.mark.parametrize("options, error", [
    ("{'min_tablet_count': 4}", ("tablet options cannot be used when tablets are disabled for the keyspace",
                                 CONFIGURATION_ERROR)),
])
def test_a_vnodes_keyspace_takes_no_tablet_options(options, error):
    assert table_errors(options, keyspace=f"CREATE KEYSPACE ks WITH replication = {NTS};\n") == [error]


@pytest.mark.parametrize("options, message", [
    ("{'min_tablet_count': '-3'}", "Invalid value '-3' for min_tablet_count"),
    ("{'max_tablet_count': 'none'}", "Invalid value '0' for max_tablet_count"),
    ("{'min_per_shard_tablet_count': '-0.5'}", "Invalid value '-0.5' for min_per_shard_tablet_count"),
    ("{'pow2_count': 'maybe'}", "Invalid value 'maybe' for pow2_count"),
    ("{'pow2_count': 'false'}", "pow2_count cannot be set to false until the arbitrary_tablet_boundaries feature is enabled"),
    ("{'min_tablet_count': '5', 'max_tablet_count': '7'}",
     "Invalid tablet count range: min_tablet_count=5 (effective: 8) and max_tablet_count=7 (effective: 4) result in "
     "conflicting constraints after rounding to powers of 2. Since tablet counts must be powers of 2, min_tablet_count "
     "rounds up and max_tablet_count rounds downPlease adjust the values so that the smallest power of 2 greater than "
     "min_tablet_count is <= the largest power of 2 <= max_tablet_count."),
])
def test_a_bad_tablet_option_of_a_table_is_refused_with_scyllas_text(options, message):
    assert table_errors(options) == [(message, CONFIGURATION_ERROR)]


def test_an_unknown_tablet_option_is_a_syntax_error():
    from cdclake.cql.errors import SYNTAX_ERROR

    assert table_errors("{'initial': 4}") == [("Unknown tablet hint 'initial'", SYNTAX_ERROR)]


def test_describe_shows_the_kept_options_quoted_before_cdc():
    """test/cqlpy/test_tablets.py::test_tablet_options: "tablets = {'min_tablet_count': '100'}"."""
    result = run_script(TABLETS_KEYSPACE + "CREATE TABLE ks.t (k int PRIMARY KEY) WITH tablets = "
                        "{'min_tablet_count': 100, 'expected_data_size_in_gb': 0} AND cdc = {'enabled': true};"
                        "DESC TABLE ks.t; CREATE TABLE ks.u (k int PRIMARY KEY); DESC TABLE ks.u;", now_us=1)
    described, plain = (d.create_statement for d in result.descriptions)
    assert not result.errors
    assert "\n    AND tablets = {'min_tablet_count': '100'}\n    AND cdc = {" in described
    assert "tablets" not in plain
