"""The tablets options of keyspaces and tables, validated as ScyllaDB does
(``ks_prop_defs::get_initial_tablets`` in ``cql3/statements/ks_prop_defs.cc``,
``db::tablet_options::validate`` in ``db/tablet_options.cc``; docs/scylla/tablets.md). The cluster
is taken to lack the ``arbitrary_tablet_boundaries`` feature: tablet counts are powers of two."""
from __future__ import annotations

import re
from typing import Optional

from cdclake.cql.errors import CqlConfigurationError, CqlRequestError, CqlSyntaxRequestError

_LEADING_INTEGER = re.compile(r"\s*([+-]?\d+)")      # what std::stol and std::atol read
_LEADING_NUMBER = re.compile(r"\s*([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)")      # what std::atof reads
TABLE_OPTIONS = ("min_tablet_count", "max_tablet_count", "min_per_shard_tablet_count", "expected_data_size_in_gb",
                 "pow2_count")


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


def replication_factor(replication: dict) -> int:
    """A keyspace's replication factor: ``replication_factor``, or the largest of its data
    centers' factors (ScyllaDB sizes a new table's tablets by the largest over its DCs)."""
    factors = [_atol(str(value)) for key, value in replication.items() if key != "class"]
    return max(factors, default=1) or 1


def given_tablet_count(keyspace_initial_tablets: Optional[int], table_options: dict[str, str]) -> Optional[int]:
    """The tablet count of a new table when its keyspace's ``initial`` or its own
    ``min_tablet_count`` gives one: the larger, rounded up to a power of two
    (``compute_target_tablet_count``, ``make_sizing_plan``); None when neither does (0 counts as
    not given), and the cluster's shape decides."""
    given = [count for count in (keyspace_initial_tablets, _atol(table_options.get("min_tablet_count", "0")))
             if count]
    return 1 << (max(given) - 1).bit_length() if given else None


def _atol(text: str) -> int:
    number = _LEADING_INTEGER.match(text)
    return int(number.group(1)) if number else 0


def _atof(text: str) -> float:
    number = _LEADING_NUMBER.match(text)
    return float(number.group(1)) if number else 0.0


def table_tablet_options(options: Optional[dict], keyspace_initial_tablets: Optional[int]) -> dict[str, str]:
    """A table's ``tablets = {...}`` (``cf_prop_defs::validate``, ``tablet_options::validate``):
    only in a tablets keyspace, known keys with valid values; the options as ScyllaDB keeps them
    (zero counts dropped, as ``tablet_options``' constructor does)."""
    if options is None:
        return {}
    if keyspace_initial_tablets is None:
        raise CqlConfigurationError("tablet options cannot be used when tablets are disabled for the keyspace")
    kept: dict[str, str] = {}
    minimum = maximum = None
    for key, text in sorted(options.items()):
        if key not in TABLE_OPTIONS:
            raise CqlSyntaxRequestError(f"Unknown tablet hint '{key}'")
        if key == "pow2_count":
            value = text.lower()
            if value not in ("true", "yes", "1", "false", "no", "0"):
                raise CqlConfigurationError(f"Invalid value '{text}' for pow2_count")
            if value in ("false", "no", "0"):
                raise CqlConfigurationError(
                    "pow2_count cannot be set to false until the arbitrary_tablet_boundaries feature is enabled")
            kept[key] = "true"
            continue
        value = _atof(text) if key == "min_per_shard_tablet_count" else _atol(text)
        if value < 0 or (key == "max_tablet_count" and value == 0):
            shown = f"{value:g}" if isinstance(value, float) else value
            raise CqlConfigurationError(f"Invalid value '{shown}' for {key}")
        minimum = value if key == "min_tablet_count" else minimum
        maximum = value if key == "max_tablet_count" else maximum
        if value:
            kept[key] = f"{value:g}" if isinstance(value, float) else str(value)
    if minimum and maximum:
        effective_min, effective_max = 1 << (minimum - 1).bit_length(), 1 << (maximum.bit_length() - 1)
        if effective_min > effective_max:
            raise CqlConfigurationError(
                f"Invalid tablet count range: min_tablet_count={minimum} (effective: {effective_min}) and "
                f"max_tablet_count={maximum} (effective: {effective_max}) result in conflicting constraints after "
                "rounding to powers of 2. Since tablet counts must be powers of 2, min_tablet_count rounds up and "
                "max_tablet_count rounds downPlease adjust the values so that the smallest power of 2 greater than "
                "min_tablet_count is <= the largest power of 2 <= max_tablet_count.")
    return kept
