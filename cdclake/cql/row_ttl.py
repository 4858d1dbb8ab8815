"""ScyllaDB's expiration service for per-row TTL (``alternator/ttl.cc``; docs/scylla/corners.md,
"Per-row TTL").

A table may name a TTL column (``c timestamp|bigint|int TTL``, ``ALTER TABLE t TTL c``): a row
expires once that column's time has passed. A background scan runs every scan period
(``alternator_ttl_period_in_seconds``, 86400 s by default) and deletes each expired row it
finds, unconditionally, with a row tombstone (a partition tombstone in a table without
clustering key) at the scan's own timestamp; CDC logs those deletes as operations -3 / -4.

The front door runs the scans between statements, at the multiples of the period since the
epoch that the script's clock passes.
"""
from __future__ import annotations

from typing import Any, Optional

DEFAULT_SCAN_PERIOD_S = 86400.0
# std::chrono::years(5): an expiration time further in the past is taken as malformed
FIVE_YEARS_S = 5 * 31_556_952


def expiration_seconds(value: Any, cql_type: str) -> Optional[int]:
    """The expiration time, in whole seconds since the epoch, of a TTL column's value (JSON
    model): a timestamp is milliseconds (truncated toward zero), bigint and int are seconds."""
    if value is None:
        return None
    if cql_type == "timestamp":
        return value // 1000 if value >= 0 else -((-value) // 1000)
    return int(value)


def is_expired(expiration_s: Optional[int], now_s: int) -> bool:
    """``is_expired``: passed, and not more than five years ago."""
    return expiration_s is not None and now_s - FIVE_YEARS_S < expiration_s <= now_s


def scan_instants(after_us: int, up_to_us: int, period_s: float) -> list[int]:
    """The scans (µs) in ``(after_us, up_to_us]``: the multiples of the period (seconds, a
    fraction allowed as in ScyllaDB's option)."""
    period_us = max(1, round(period_s * 1_000_000))
    first = (after_us // period_us + 1) * period_us
    return list(range(first, up_to_us + 1, period_us))
