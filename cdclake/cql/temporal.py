"""Parsing of the temporal CQL literals: timestamp, date, time and duration.

ScyllaDB accepts (``types/types.cc``, ``duration.cc``):

* timestamp: an integer (milliseconds since the epoch) or an ISO-8601-like string
  ``yyyy-mm-dd[( |T)HH:MM[:SS[.fff]]][Z|(+|-)HH[:]MM]``; without a zone the server's zone is
  used, here UTC. Returns integer milliseconds.
* date: ``'yyyy-mm-dd'`` or an integer in the unsigned "days + 2^31" form. Returns ``"YYYY-MM-DD"``.
* time: ``'HH:MM:SS[.fffffffff]'`` or integer nanoseconds since midnight. Returns nanoseconds.
* duration: ``1y2mo3w4d5h6m7s8ms9us10ns`` units or ISO-8601 (``P1Y2M3DT4H5M6S``, ``P2W``).
  Returns the canonical text ScyllaDB prints: months as ``y``/``mo``, days as ``d`` (weeks
  folded in), nanoseconds as ``h``/``m``/``s``/``ms``/``us``/``ns``, e.g. ``1y2mo25d5h6m``.
"""
from __future__ import annotations

import datetime as dt
import re

DATE_EPOCH_OFFSET = 1 << 31
NANOS_PER_DAY = 86_400 * 10**9
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_EPOCH_DATE = dt.date(1970, 1, 1)

_TIMESTAMP = re.compile(
    r"(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})"
    r"(?:[ T](?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.(?P<fraction>\d{1,9}))?)?)?"
    r"\s*(?P<zone>Z|z|[+-]\d{2}:?\d{2}|[+-]\d{2})?\Z")
_DATE = re.compile(r"(?P<year>-?\d{1,9})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\Z")
_TIME = re.compile(r"(?P<hour>\d{1,2}):(?P<minute>\d{1,2}):(?P<second>\d{1,2})(?:\.(?P<fraction>\d{1,9}))?\Z")
_DURATION_UNITS = re.compile(r"(\d+)(mo|us|µs|ns|ms|y|w|d|h|m|s)", re.IGNORECASE)
_ISO_DURATION = re.compile(
    r"P(?:(?P<years>\d+)Y)?(?:(?P<months>\d+)M)?(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+)S)?)?\Z")
_ISO_WEEKS = re.compile(r"P(?P<weeks>\d+)W\Z")

NANOS_PER_UNIT = {
    "h": 3_600 * 10**9, "m": 60 * 10**9, "s": 10**9, "ms": 10**6, "us": 10**3, "µs": 10**3, "ns": 1,
}


class TemporalFormatError(ValueError):
    """The text is not a valid literal of the temporal type."""


def timestamp_millis_from_string(text: str) -> int:
    stripped = text.strip()
    if re.fullmatch(r"-?\d+", stripped):
        return int(stripped)
    match = _TIMESTAMP.match(stripped)
    if not match:
        raise TemporalFormatError(f"Unable to parse a date from '{text}'")
    parts = match.groupdict()
    fraction = (parts["fraction"] or "").ljust(9, "0")
    try:
        moment = dt.datetime(int(parts["year"]), int(parts["month"]), int(parts["day"]),
                             int(parts["hour"] or 0), int(parts["minute"] or 0), int(parts["second"] or 0),
                             tzinfo=_zone(parts["zone"]))
    except ValueError as error:
        raise TemporalFormatError(f"Unable to parse a date from '{text}': {error}") from None
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + int(fraction[:3] or 0)


def _zone(text: str | None) -> dt.timezone:
    if not text or text in ("Z", "z"):
        return dt.timezone.utc
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))


def date_from_string(text: str) -> str:
    stripped = text.strip()
    if re.fullmatch(r"\d+", stripped):
        return date_from_unsigned_days(int(stripped))
    match = _DATE.match(stripped)
    if not match:
        raise TemporalFormatError(f"Unable to coerce '{text}' to a formatted date (long)")
    try:
        value = dt.date(int(match["year"]), int(match["month"]), int(match["day"]))
    except ValueError as error:
        raise TemporalFormatError(f"Unable to coerce '{text}' to a formatted date: {error}") from None
    return value.isoformat()


def date_from_unsigned_days(days_with_offset: int) -> str:
    """The ``date`` of ScyllaDB's integer form: days since the epoch plus 2^31."""
    if not 0 <= days_with_offset < 1 << 32:
        raise TemporalFormatError(f"Unable to coerce '{days_with_offset}' to a date: out of range")
    try:
        return (_EPOCH_DATE + dt.timedelta(days=days_with_offset - DATE_EPOCH_OFFSET)).isoformat()
    except OverflowError:
        raise TemporalFormatError(
            f"date {days_with_offset} is outside the years 1-9999 this front door can print") from None


def time_nanos_from_string(text: str) -> int:
    stripped = text.strip()
    if re.fullmatch(r"\d+", stripped):
        return time_nanos_from_integer(int(stripped))
    match = _TIME.match(stripped)
    if not match:
        raise TemporalFormatError(f"Timestamp format must be hh:mm:ss[.fffffffff], got '{text}'")
    hours, minutes, seconds = int(match["hour"]), int(match["minute"]), int(match["second"])
    if hours > 23 or minutes > 59 or seconds > 59:
        raise TemporalFormatError(f"Time out of range: '{text}'")
    fraction = int((match["fraction"] or "").ljust(9, "0"))
    return ((hours * 60 + minutes) * 60 + seconds) * 10**9 + fraction


def time_nanos_from_integer(nanos: int) -> int:
    if not 0 <= nanos < NANOS_PER_DAY:
        raise TemporalFormatError(f"Time value {nanos} out of range: it must be in [0, {NANOS_PER_DAY})")
    return nanos


def duration_from_text(text: str) -> str:
    """Canonical text of a duration literal (``-1h30m``, ``P1DT2H``, ``P2W``)."""
    body = text.strip()
    negative = body.startswith("-")
    if negative:
        body = body[1:]
    months, days, nanos = _duration_parts(body, text)
    return format_duration(-months if negative else months, -days if negative else days,
                           -nanos if negative else nanos)


def _duration_parts(body: str, original: str) -> tuple[int, int, int]:
    upper = body.upper()
    if upper.startswith("P"):
        weeks = _ISO_WEEKS.match(upper)
        if weeks:
            return 0, 7 * int(weeks["weeks"]), 0
        iso = _ISO_DURATION.match(upper)
        if not iso or upper in ("P", "PT") or upper.endswith("T"):
            raise TemporalFormatError(f"Unable to convert '{original}' to a duration")
        part = {key: int(value or 0) for key, value in iso.groupdict().items()}
        nanos = (part["hours"] * 3600 + part["minutes"] * 60 + part["seconds"]) * 10**9
        return part["years"] * 12 + part["months"], part["days"], nanos
    units = list(_DURATION_UNITS.finditer(body))
    if not units or "".join(u.group(0) for u in units) != body:
        raise TemporalFormatError(f"Unable to convert '{original}' to a duration")
    months = days = nanos = 0
    seen = set()
    for match in units:
        amount, unit = int(match.group(1)), match.group(2).lower()
        if unit in seen:
            raise TemporalFormatError(f"Invalid duration. The {unit} are specified multiple times")
        seen.add(unit)
        if unit == "y":
            months += 12 * amount
        elif unit == "mo":
            months += amount
        elif unit == "w":
            days += 7 * amount
        elif unit == "d":
            days += amount
        else:
            nanos += amount * NANOS_PER_UNIT[unit]
    return months, days, nanos


def format_duration(months: int, days: int, nanos: int) -> str:
    """ScyllaDB's duration text: ``[-]{y}y{mo}mo{d}d{h}h{m}m{s}s{ms}ms{us}us{ns}ns``, zero
    parts omitted, ``0`` for the empty duration."""
    if months == days == nanos == 0:
        return "0"
    sign = "-" if months < 0 or days < 0 or nanos < 0 else ""
    months, days, nanos = abs(months), abs(days), abs(nanos)
    pieces = []
    for amount, unit in ((months // 12, "y"), (months % 12, "mo"), (days, "d")):
        if amount:
            pieces.append(f"{amount}{unit}")
    for unit in ("h", "m", "s", "ms", "us", "ns"):
        amount, nanos = divmod(nanos, NANOS_PER_UNIT[unit])
        if amount:
            pieces.append(f"{amount}{unit}")
    return sign + "".join(pieces)
