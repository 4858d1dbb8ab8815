"""Oracle of ``cdc::metadata::get_stream`` (``cdc/metadata.cc``): is a CDC write with timestamp ``ts``
accepted at server time ``now``, and which generation serves it (``docs/scylla/math.md`` §6).

Two rules:

- ``CURRENT`` (§6.1, PR #17134, Feb 2024): writes into the previous generations are allowed
  within the 5 s leeway; older writes only into the generation current at ``now - leeway``;
- ``PRE_2024`` (§6.2): only the generation used at ``now`` (or a later one, up to ``now + leeway``).

Generations are a mapping ``timestamp (us) -> data``; data ``None`` means "prepared only": the
timestamp is known but the description could not be read (§6.5 ``prepare``). ``get_stream`` is pure:
it returns a ``Verdict`` with the generations left after its garbage collection instead of
mutating the mapping. Error texts are ScyllaDB's, timestamps formatted by ``format_timestamp``
(UTC ``YYYY/MM/DD HH:MM:SS``, §6.3).
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, Optional

from cdclake.generations.vnodes import Entry, lookup_stream

CURRENT = "current"
PRE_2024 = "pre_2024"
GENERATION_LEEWAY_US = 5_000_000

OK = "ok"
FUTURE = "future"                   # InvalidRequest, both rules
PAST = "past"                       # InvalidRequest, current rule
NOT_FOUND = "not_found"             # std::runtime_error (ServerError), current rule
EARLIER = "earlier"                 # InvalidRequest, pre-2024 rule
NOT_FOUND_OLD = "not_found_old"     # std::runtime_error (ServerError), pre-2024 rule
UNRETRIEVED = "unretrieved"         # std::runtime_error (ServerError), both rules

INVALID_REQUEST = "InvalidRequest"
SERVER_ERROR = "ServerError"        # what clients see for a std::runtime_error
ERROR_CLASS = {FUTURE: INVALID_REQUEST, PAST: INVALID_REQUEST, EARLIER: INVALID_REQUEST,
               NOT_FOUND: SERVER_ERROR, NOT_FOUND_OLD: SERVER_ERROR, UNRETRIEVED: SERVER_ERROR}

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

MESSAGES = {
    FUTURE: (
        'cdc: attempted to get a stream "from the future" ({ts}; current server time: {now}).'
        " With CDC you cannot send writes with timestamps arbitrarily into the future, because we don't"
        " know what streams will be used at that time.\n"
        "We *do* allow sending writes into the near future, but our ability to do that is limited."
        " If you really must use your own timestamps, then make sure your clocks are well-synchronized"
        "  with the database's clocks."),            # sic: two spaces before "with"
    PAST: (
        'cdc: attempted to get a stream "from the past" ({ts}; current server time: {now}).'
        " With CDC you cannot send writes with timestamps too far into the past, because that would break"
        " consistency properties.\n"
        "We *do* allow sending writes into the near past, but our ability to do that is limited."
        " Are you using client-side timestamps? Make sure your clocks are well-synchronized"
        " with the database's clocks."),
    NOT_FOUND: (
        "cdc::metadata::get_stream: could not find any CDC stream for timestamp {ts}."
        " Are we in the middle of a cluster upgrade?"),
    EARLIER: (
        "cdc: attempted to get a stream from an earlier generation than the currently used one."
        " With CDC you cannot send writes with timestamps too far into the past, because that would break"
        " consistency properties (write timestamp: {ts}, current generation started at: {gen})"),
    NOT_FOUND_OLD: (
        "cdc::metadata::get_stream: could not find any CDC stream (current time: {now})."
        " Are we in the middle of a cluster upgrade?"),
    UNRETRIEVED: (
        "cdc: attempted to get a stream from a generation that we know about, but weren't able to retrieve"
        " (generation timestamp: {gen}, write timestamp: {ts}). Make sure that the replicas which contain"
        " this generation's data are alive and reachable from this node."),
}


def format_timestamp(ts_us: int, fractional: bool = False) -> str:
    """ScyllaDB's ``format_timestamp(api::timestamp_type)``: microseconds -> UTC ``YYYY/MM/DD HH:MM:SS``
    (seconds truncated toward zero, as ``duration_cast<seconds>`` does). ``fractional=True`` mimics
    builds that format with fmt's chrono and print ``.ffffff`` (§6.3, unverified)."""
    seconds = abs(ts_us) // 1_000_000 * (1 if ts_us >= 0 else -1)
    text = (_EPOCH + timedelta(seconds=seconds)).strftime("%Y/%m/%d %H:%M:%S")
    if fractional:
        text += ".%06d" % (ts_us - seconds * 1_000_000)
    return text


@dataclass(frozen=True)
class Verdict:
    """Outcome of one ``get_stream`` call."""

    kind: str                                   # OK or one of the error kinds above
    generations_left_after_gc_us: tuple[int, ...]
    generation_ts_us: Optional[int] = None      # the generation serving the write (OK only)
    message: Optional[str] = None               # the exact exception text (errors only)
    stream_id: Optional[bytes] = None           # when a token was given and the data are entries
    error_class: Optional[str] = field(default=None)

    @property
    def accepted(self) -> bool:
        return self.kind == OK


def _gen_used_at(keys: list[int], ts: int) -> Optional[int]:
    """Position of the last generation with key <= ts, or None."""
    position = bisect_right(keys, ts)
    return position - 1 if position else None


def _error(kind: str, left: list[int], *, ts: int, now: int, gen: Optional[int] = None,
           fractional: bool = False) -> Verdict:
    text = MESSAGES[kind].format(ts=format_timestamp(ts, fractional), now=format_timestamp(now, fractional),
                                 gen=None if gen is None else format_timestamp(gen, fractional))
    return Verdict(kind, tuple(left), message=text, error_class=ERROR_CLASS[kind])


def cdc_metadata_get_stream(generations_us: Mapping[int, Any], now_us: int, write_ts_us: int, *,
                            rule: str = CURRENT, leeway_us: int = GENERATION_LEEWAY_US,
                            token: Optional[int] = None, fractional_timestamps: bool = False) -> Verdict:
    """``cdc::metadata::get_stream(ts, tok)`` at server time ``now_us`` (§6.1 / §6.2).

    ``generations_us``: generation timestamp (us) -> data (``None`` = prepared, not retrieved). With
    ``token`` and data given as a list of ``Entry``, an accepted verdict carries the stream ID (§5)."""
    if rule not in (CURRENT, PRE_2024):
        raise ValueError(f"rule must be {CURRENT!r} or {PRE_2024!r}, got {rule!r}")
    keys = sorted(int(k) for k in generations_us)
    data = {int(k): v for k, v in generations_us.items()}
    ts, now = write_ts_us, now_us
    fmt = {"ts": ts, "now": now, "fractional": fractional_timestamps}

    if ts > now + leeway_us:
        return _error(FUTURE, keys, **fmt)

    if rule == CURRENT:
        current = _gen_used_at(keys, now - leeway_us)
        if current is not None:
            keys = keys[current:]                      # GC: erase the generations before it
            current = 0
        if ts <= now - leeway_us:
            is_previous = current is not None and len(keys) > 1 and keys[1] <= now
            if current is None or ts < keys[current] or is_previous:
                return _error(PAST, keys, **fmt)
        if not keys or ts < keys[0]:
            return _error(NOT_FOUND, keys, **fmt)
        position = 0
    else:
        current = _gen_used_at(keys, now)
        if current is None:
            return _error(NOT_FOUND_OLD, keys, **fmt)
        keys = keys[current:]                          # GC
        if keys[0] > ts:
            return _error(EARLIER, keys, gen=keys[0], **fmt)
        position = 0

    while position + 1 < len(keys) and keys[position + 1] <= ts:   # the generation operating at ts
        position += 1
    generation = keys[position]
    if data[generation] is None:
        return _error(UNRETRIEVED, keys, gen=generation, **fmt)
    stream = None
    entries = data[generation]
    if token is not None and isinstance(entries, list) and entries and all(isinstance(e, Entry) for e in entries):
        stream = lookup_stream(entries, token)
    return Verdict(OK, tuple(keys), generation_ts_us=generation, stream_id=stream)


def streams_available(generations_us: Mapping[int, Any], now_us: int) -> bool:
    """``cdc::metadata::streams_available``: some generation has key <= now (§6.4)."""
    return any(int(k) <= now_us for k in generations_us)
