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
