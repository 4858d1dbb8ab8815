"""Which V1 generations an upgrading node copies into ``cdc_streams_descriptions_v2``
(``maybe_rewrite_streams_descriptions`` / ``rewrite_streams_descriptions`` in ``cdc/generation.cc``,
``docs/scylla/math.md`` §7.3).

A V1 generation is "too old" when no CDC log table can still hold rows written while it was the
newest one: for every table, ``bound = (ttl == 0 ? creation : max(creation, now - ttl)) - 10 s``
and the generation timestamp ``ts`` satisfies ``bound >= ts``. The rewrite starts one generation
before the first one that is not too old (that one was still operating at the oldest moment that
may hold data) and goes to the newest.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

CLOCK_DRIFT_MARGIN_MS = 10_000
DEFAULT_CDC_TTL_S = 86_400          # cdc = {'ttl': ...} default; 0 = rows never expire


@dataclass(frozen=True)
class CdcLogTable:
    """A CDC log table whose base table has CDC enabled: creation time (from the log table's
    timeuuid schema id) and the base table's CDC TTL in seconds."""

    creation_ms: int
    ttl_s: int = DEFAULT_CDC_TTL_S


def should_try_rewrite(v1_table_exists: bool, rewritten_marker: bool, dont_rewrite_option: bool) -> bool:
    """§7.3 step 1: nothing to do without the V1 table, with ``cdc_local`` ``key='rewritten'`` (also
    written by bootstrapping nodes), or with ``cdc_dont_rewrite_streams`` set (a warning only)."""
    return v1_table_exists and not rewritten_marker and not dont_rewrite_option


def no_entries_older_than_ms(table: CdcLogTable, now_ms: int) -> int:
    """The oldest moment a table may still hold log rows from, minus the 10 s clock-drift margin."""
    oldest = table.creation_ms if table.ttl_s == 0 else max(table.creation_ms, now_ms - table.ttl_s * 1000)
    return oldest - CLOCK_DRIFT_MARGIN_MS


def v1_rewrite_selection(now_ms: int, v1_generation_ts_ms: Iterable[int],
                         cdc_log_tables: Sequence[CdcLogTable]) -> Optional[list[int]]:
    """Timestamps (ascending) of the V1 generations to rewrite (§7.3 steps 2-4).

    ``None``: there are no CDC log tables, so the node only writes the ``rewritten`` marker and
    never scans the V1 timestamps. ``[]``: the V1 table holds no generation. When every generation
    is too old the newest is still rewritten (``partition_point`` then one step back)."""
    if not cdc_log_tables:
        return None
    timestamps = sorted(v1_generation_ts_ms)
    bounds = [no_entries_older_than_ms(table, now_ms) for table in cdc_log_tables]
    too_old = [all(bound >= ts for bound in bounds) for ts in timestamps]   # monotonic: True...True False...
    first = bisect_left([not old for old in too_old], True)                 # std::partition_point
    if first != 0:
        first -= 1
    return timestamps[first:]
