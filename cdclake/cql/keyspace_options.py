"""A keyspace's tablets option, validated as ScyllaDB does (``ks_prop_defs::get_initial_tablets``
in ``cql3/statements/ks_prop_defs.cc``; docs/scylla/tablets.md)."""
from __future__ import annotations

import re
from typing import Optional

from cdclake.cql.errors import CqlConfigurationError, CqlRequestError

_LEADING_INTEGER = re.compile(r"\s*([+-]?\d+)")      # what std::stol reads


def initial_tablets(properties: dict, default: Optional[int]) -> Optional[int]:
    """The keyspace's initial tablet count from its ``tablets = {...}`` property: ``None`` for a
    vnodes keyspace (``'enabled': false``), 0 when tablets are on with no ``initial``; ``default``
    without the property (None: vnodes, 0: ScyllaDB's ``tablets_mode_for_new_keyspaces: enabled``).
    Only the keys ``enabled`` and ``initial`` are accepted."""
    options = properties.get("tablets")
    if options is None:
        return default
    options = dict(options)
    enabled = options.pop("enabled", None)
    if enabled is not None:
        if enabled == "false":
            return None
        if enabled != "true":
            raise CqlConfigurationError(f"Tablets enabled value must be true or false; found: {enabled}")
    count = 0
    initial = options.pop("initial", None)
    if initial is not None:
        number = _LEADING_INTEGER.match(initial)
        if not number:
            raise CqlConfigurationError(f"Initial tablets value should be numeric; found {initial}")
        count = int(number.group(1)) % (1 << 32)       # stored as unsigned
    if options:
        raise CqlConfigurationError(f"Unrecognized tablets option {min(options)}")
    return count


def check_tablets_strategy(replication: dict, initial: Optional[int]) -> None:
    """SimpleStrategy keeps vnodes (``simple_strategy::validate_options``)."""
    if initial is not None and str(replication.get("class", "")).split(".")[-1] == "SimpleStrategy":
        raise CqlConfigurationError("SimpleStrategy doesn't support tablet replication")


def altered_initial_tablets(properties: dict, current: Optional[int]) -> Optional[int]:
    """An ``ALTER KEYSPACE``'s tablets: inherited without the property; the flavor never changes
    (``ks_prop_defs::as_ks_metadata_update``)."""
    altered = initial_tablets(properties, current)
    if (altered is None) != (current is None):
        raise CqlRequestError("Cannot alter replication strategy vnode/tablets flavor")
    return altered
