"""The table property ``cdc = {...}``: parsing, validation, normalisation (docs/scylla/log.md §1).

Mirrors ScyllaDB's ``cdc::options`` constructor (``cdc/log.cc``):

* without the key ``enabled`` (spelled exactly so) the map is ignored: CDC stays off and no
  other key is even validated;
* otherwise every key and value is lower-cased; booleans are ``true``/``1`` and ``false``/``0``;
  ``preimage`` also takes ``on``/``off`` and ``full``; ``delta`` is ``full`` or ``keys``; ``ttl``
  is parsed like C's ``stoi`` from the original text (leading integer prefix);
* errors quote the key or value *as written*, with ScyllaDB's exact texts.

``ALTER TABLE ... WITH cdc = {...}`` replaces the whole map: keys it omits take their defaults.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from cdclake.cql.errors import CqlConfigurationError

DEFAULT_TTL_SECONDS = 86400
_INT32_MAX = (1 << 31) - 1
_STOI_PREFIX = re.compile(r"\s*([+-]?\d+)")


@dataclass(frozen=True)
class CdcOptions:
    enabled: bool = False
    preimage: str = "false"        # 'false' | 'true' | 'full'
    postimage: bool = False
    delta: str = "full"            # 'full' | 'keys'
    ttl_seconds: int = DEFAULT_TTL_SECONDS
    declared: str = "no"           # the table's cdc property: 'no', 'without enabled' (ignored) or 'yes'

    def normalised_map(self) -> dict[str, str] | None:
        """What ``DESCRIBE`` shows (``cdc::options::to_map``): None without a cdc property, ``{}``
        for a map without ``enabled``, else every option, CDC switched off included."""
        if self.declared == "no":
            return None
        if self.declared == "without enabled":
            return {}
        return {"delta": self.delta, "enabled": "true" if self.enabled else "false",
                "postimage": "true" if self.postimage else "false", "preimage": self.preimage,
                "ttl": str(self.ttl_seconds)}


def parse_cdc_options(raw: object) -> CdcOptions:
    """Options from the property value: a dict of raw key and value texts."""
    if not isinstance(raw, dict):
        raise CqlConfigurationError("Invalid value for property cdc: expected a map like {'enabled': true}, "
                                    f"got {raw}")
    if "enabled" not in raw:
        return CdcOptions(declared="without enabled")
    fields: dict = {"declared": "yes"}
    for key, value in raw.items():
        lowered_key, lowered_value = key.lower(), value.lower()
        is_true = lowered_value in ("true", "1")
        is_false = lowered_value in ("false", "0")
        if lowered_key == "enabled":
            fields["enabled"] = _boolean(is_true, is_false, "enabled", value)
        elif lowered_key == "preimage":
            if is_true or lowered_value == "on":
                fields["preimage"] = "true"
            elif lowered_value == "full":
                fields["preimage"] = "full"
            elif is_false or lowered_value == "off":
                fields["preimage"] = "false"
            else:
                raise _invalid_value("preimage", value)
        elif lowered_key == "postimage":
            fields["postimage"] = _boolean(is_true, is_false, "postimage", value)
        elif lowered_key == "delta":
            if lowered_value not in ("full", "keys"):
                raise _invalid_value("delta", value)
            fields["delta"] = lowered_value
        elif lowered_key == "ttl":
            fields["ttl_seconds"] = _ttl(value)
        else:
            raise CqlConfigurationError(f"Invalid CDC option: {key}")
    return CdcOptions(**fields)


def _boolean(is_true: bool, is_false: bool, option: str, written: str) -> bool:
    if not (is_true or is_false):
        raise _invalid_value(option, written)
    return is_true


def _invalid_value(option: str, written: str) -> CqlConfigurationError:
    return CqlConfigurationError(f'Invalid value for CDC option "{option}": {written}')


def _ttl(written: str) -> int:
    match = _STOI_PREFIX.match(written)
    if not match:
        raise _invalid_value("ttl", written)
    ttl = int(match.group(1))
    if not -_INT32_MAX - 1 <= ttl <= _INT32_MAX:
        raise CqlConfigurationError("Invalid CDC option: ttl too large")
    if ttl < 0:
        raise CqlConfigurationError("Invalid CDC option: ttl must be >= 0")
    return ttl
