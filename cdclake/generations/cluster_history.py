"""A cluster's CDC generations from a small YAML description of when its nodes joined
(``docs/scylla/math.md`` §4).

Format::

    ring_delay_ms: 30000          # optional, default 30000 (ring_delay_ms of db/config.cc)
    seed: "my-cluster"            # optional; drives the num_tokens draws and the stream random bits
    nodes:
      - name: n1
        joined_at: "2023-11-14 21:00:00"   # UTC; ISO forms with T, fractions of a second (ms at
                                            # most), Z or +HH:MM also work, or an int of epoch ms
        num_tokens: 256                     # or tokens: [..explicit int64 tokens..]
        shards: 2                           # smp::count of the node
        ignore_msb: 12                      # optional, default 12 (murmur3_partitioner_ignore_msb_bits)
      - name: n2
        joined_at: "2023-11-14 21:00:00"
        num_tokens: 256
        shards: 2
      - name: n4
        joined_at: "2023-11-14 22:30:00"
        num_tokens: 16
        shards: 4

Rules:

- the nodes that joined at the earliest time form the first generation; its timestamp is that time
  with no delay (``new_generation_timestamp(add_delay=false)``, as raft topology and gossip mode
  since 4.4 do for the first generation);
- every later join is a bootstrap and creates a new generation over the union of all tokens so
  far, at ``join time + 2 * ring_delay + 5 s`` (``add_delay=true``); joins are serialized, so two
  later nodes cannot join at the same time;
- each vnode ``(previous token, token]`` takes the shard count and ignore_msb of the node owning its
  end token;
- ``num_tokens`` draws distinct random key tokens (a hash of seed, node name and a counter, like
  ``boot_strapper`` redrawing tokens that are already owned); explicit ``tokens`` must be int64 key
  tokens (not -2^63) and may not be shared by two nodes.

Nodes never leave in this format (decommission / removenode are not modelled).

Tables of tablets keyspaces change their CDC streams when their tablets split or merge
(``docs/scylla/tablets.md``); the optional ``tablets`` section lists those resizes::

    tablets:
      - {table: ks.t, at: "2023-11-14 23:00:00", count: 8}    # a split (or a merge) finalized at ``at``

Each resize doubles or halves the table's tablet count; its new stream set starts at
``max(at + 2 * ring_delay + 5 s, previous set + 1 ms)``.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Mapping, Optional

from cdclake.generations.tablets import (
    StreamSet,
    TabletsError,
    first_stream_set,
    power_of_two_at_least,
    resized_stream_set,
)
from cdclake.generations.vnodes import (
    DEFAULT_IGNORE_MSB,
    DEFAULT_RING_DELAY_MS,
    Entry,
    make_generation,
    new_generation_timestamp,
)
from python_udfs.int64 import INT64_MAX, INT64_MIN
from python_udfs.stream_ids import DeterministicRandom38

DEFAULT_CLUSTER_SEED = "scylla-cdc-lake cluster"
TOP_LEVEL_FIELDS = {"ring_delay_ms", "seed", "nodes", "tablets"}
RESIZE_FIELDS = {"table", "at", "count"}
TABLETS_INITIAL_SCALE = 10          # tablets_initial_scale_factor (db/config.cc): tablets per shard of a new table
NODE_FIELDS = {"name", "joined_at", "num_tokens", "tokens", "shards", "ignore_msb"}
MAX_SHARDS = (1 << 32) - 1

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_TIMESTAMP = re.compile(
    r"^\s*(\d{4})-(\d{2})-(\d{2})"
    r"(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?"
    r"\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?\s*$", re.IGNORECASE)


class ClusterHistoryError(ValueError):
    """The cluster history file is invalid; the message names the node and field."""


def parse_utc_timestamp_ms(value: Any) -> int:
    """Milliseconds since the epoch of ``YYYY-MM-DD[( |T)HH:MM[:SS[.fraction]]][Z|UTC|+HHMM|+HH:MM]``
    (no zone = UTC), of a ``datetime``/``date`` (naive = UTC) or of an int (already ms). Integer math
    only; a fraction finer than a millisecond must be zeros."""
    if isinstance(value, bool):
        raise ValueError(f"not a timestamp: {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        if moment.microsecond % 1000:
            raise ValueError(f"{value!r} is finer than a millisecond")
        return (moment - _EPOCH) // timedelta(milliseconds=1)
    if isinstance(value, date):
        return (value.toordinal() - _EPOCH.date().toordinal()) * 86_400_000
    if not isinstance(value, str):
        raise ValueError(f"not a timestamp: {value!r}")
    match = _TIMESTAMP.match(value)
    if not match:
        raise ValueError(f"not a timestamp: {value!r} (expected YYYY-MM-DD HH:MM:SS[.fff][+0000])")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    try:
        days = date(int(year), int(month), int(day)).toordinal() - _EPOCH.date().toordinal()
    except ValueError as error:
        raise ValueError(f"not a timestamp: {value!r} ({error})") from None
    hour, minute, second = int(hour or 0), int(minute or 0), int(second or 0)
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"not a timestamp: {value!r} (time of day out of range)")
    fraction = fraction or ""
    if fraction[3:].strip("0"):
        raise ValueError(f"{value!r} is finer than a millisecond")
    millis = int((fraction + "000")[:3])
    offset_minutes = 0
    if zone and zone.upper() not in ("Z", "UTC", "GMT"):
        digits = zone[1:].replace(":", "")
        offset_minutes = int(digits[:2]) * 60 + int(digits[2:] or 0)
        if zone[0] == "-":
            offset_minutes = -offset_minutes
    return (((days * 24 + hour) * 60 + minute - offset_minutes) * 60 + second) * 1000 + millis


@dataclass(frozen=True)
class Node:
    """One node of the history, with its tokens resolved (sorted)."""

    name: str
    joined_at_ms: int
    tokens: tuple[int, ...]
    shards: int
    ignore_msb: int


@dataclass(frozen=True)
class Resize:
    """A split or merge of a table's tablets, finalized at ``at_ms``."""

    table: str              # keyspace.table
    at_ms: int
    count: int


@dataclass(frozen=True)
class ClusterHistory:
    """A validated history; ``nodes`` in join order (file order among equal join times), ``resizes``
    in time order (file order among equal times)."""

    ring_delay_ms: int
    seed: str
    nodes: tuple[Node, ...]
    resizes: tuple[Resize, ...] = ()

    def default_tablet_count(self, at_ms: int, replication_factor: int) -> int:
        """A new table's tablet count when neither its keyspace nor the table gives one
        (``compute_target_tablet_count``): ``ceil(10 * shards / RF)`` over the nodes that joined
        by ``at_ms``, rounded up to a power of two. ScyllaDB can scale it down further when the
        cluster's tablets per shard exceed their goal (100), which this does not model."""
        shards = sum(node.shards for node in self.nodes if node.joined_at_ms <= at_ms) or self.nodes[0].shards
        return power_of_two_at_least(-(-TABLETS_INITIAL_SCALE * shards // max(1, replication_factor)))

    def stream_sets(self, table: str, log_created_ms: int, tablet_count: int) -> list[StreamSet]:
        """The CDC stream sets of ``table`` (keyspace.table) whose log table was created at
        ``log_created_ms`` with ``tablet_count`` tablets, oldest first: the first one and one per
        later resize (a resize before the log table only changes the count it starts with)."""
        sets: list[StreamSet] = []
        count = tablet_count
        for resize in (r for r in self.resizes if r.table == table):
            if resize.at_ms < log_created_ms:
                if resize.count not in (2 * count, count // 2) or resize.count == count:
                    raise TabletsError(f"tablets of {table} at {resize.at_ms} ms: a resize doubles or halves the "
                                       f"tablets: {count} cannot become {resize.count}")
                count = resize.count
                continue
            if not sets:
                sets.append(first_stream_set(self.seed, table, log_created_ms, count))
            try:
                sets.append(resized_stream_set(self.seed, table, sets[-1], resize.at_ms, resize.count,
                                               self.ring_delay_ms))
            except TabletsError as error:
                raise TabletsError(f"tablets of {table} at {resize.at_ms} ms: {error}") from None
        return sets or [first_stream_set(self.seed, table, log_created_ms, count)]

    def joins(self) -> list[tuple[int, list[Node]]]:
        """(generation timestamp, nodes that are token owners from then on), oldest first."""
        first_join = self.nodes[0].joined_at_ms
        founders = [node for node in self.nodes if node.joined_at_ms == first_join]
        result = [(new_generation_timestamp(first_join, add_delay=False, ring_delay_ms=self.ring_delay_ms),
                   founders)]
        for position in range(len(founders), len(self.nodes)):
            node = self.nodes[position]
            result.append((new_generation_timestamp(node.joined_at_ms, add_delay=True,
                                                    ring_delay_ms=self.ring_delay_ms),
                           list(self.nodes[:position + 1])))
        return result

    def generation_timestamps(self) -> list[int]:
        return [ts for ts, _ in self.joins()]

    def generations(self) -> list[tuple[int, list[Entry]]]:
        """Every generation as ``(generation_ts_ms, entries)``, oldest first."""
        result = []
        for generation_ts, owners in self.joins():
            sharding = {token: (node.shards, node.ignore_msb) for node in owners for token in node.tokens}
            tokens = sorted(sharding)
            random_source = DeterministicRandom38("cluster-history", self.seed, generation_ts)
            result.append((generation_ts, make_generation(tokens, sharding.__getitem__, random_source)))
        return result


def _int_field(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClusterHistoryError(f"{where} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise ClusterHistoryError(f"{where} must be in [{low}, {high}], got {value}")
    return value


def _token(value: Any, where: str) -> int:
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClusterHistoryError(f"{where} must be an int64 token, got {value!r}")
    if not INT64_MIN < value <= INT64_MAX:
        raise ClusterHistoryError(f"{where} must be in (-2^63, 2^63) (-2^63 is the minimum-token sentinel), "
                                  f"got {value}")
    return value


def _draw_tokens(seed: str, name: str, count: int, taken: set[int]) -> list[int]:
    tokens, counter = [], 0
    while len(tokens) < count:
        digest = hashlib.blake2b(f"{seed!r}/{name!r}/{counter}".encode(), digest_size=8,
                                 person=b"cdclake-tokens").digest()
        counter += 1
        token = int.from_bytes(digest, "big", signed=True)
        if token != INT64_MIN and token not in taken:
            taken.add(token)
            tokens.append(token)
    return tokens


def parse_cluster_history(document: Any, source: str = "cluster history") -> ClusterHistory:
    """Validate a loaded YAML document (see the module docstring); errors name the node and field."""
    if not isinstance(document, Mapping):
        raise ClusterHistoryError(f"{source}: expected a mapping with 'nodes', got {type(document).__name__}")
    unknown = set(document) - TOP_LEVEL_FIELDS
    if unknown:
        raise ClusterHistoryError(f"{source}: unknown field(s) {sorted(map(str, unknown))}; "
                                  f"allowed: {sorted(TOP_LEVEL_FIELDS)}")
    ring_delay_ms = _int_field(document.get("ring_delay_ms", DEFAULT_RING_DELAY_MS), f"{source}: ring_delay_ms",
                               0, 10**9)
    seed = document.get("seed", DEFAULT_CLUSTER_SEED)
    if isinstance(seed, bool) or not isinstance(seed, (str, int)):
        raise ClusterHistoryError(f"{source}: seed must be a string, got {seed!r}")
    seed = str(seed)
    raw_nodes = document.get("nodes")
    if not isinstance(raw_nodes, list) or not raw_nodes:
        raise ClusterHistoryError(f"{source}: 'nodes' must be a non-empty list of nodes")

    parsed: list[dict] = []
    names: set[str] = set()
    for position, raw in enumerate(raw_nodes):
        label = f"{source}: node #{position + 1}"
        if not isinstance(raw, Mapping):
            raise ClusterHistoryError(f"{label}: expected a mapping, got {raw!r}")
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ClusterHistoryError(f"{label}: field 'name' is missing or not a non-empty string")
        label = f"{source}: node {name!r}"
        if name in names:
            raise ClusterHistoryError(f"{label}: duplicate node name")
        names.add(name)
        unknown = set(raw) - NODE_FIELDS
        if unknown:
            raise ClusterHistoryError(f"{label}: unknown field(s) {sorted(map(str, unknown))}; "
                                      f"allowed: {sorted(NODE_FIELDS)}")
        for required in ("joined_at", "shards"):
            if raw.get(required) is None:
                raise ClusterHistoryError(f"{label}: field {required!r} is missing")
        try:
            joined_at_ms = parse_utc_timestamp_ms(raw["joined_at"])
        except ValueError as error:
            raise ClusterHistoryError(f"{label}: field 'joined_at': {error}") from None
        shards = _int_field(raw["shards"], f"{label}: field 'shards'", 1, MAX_SHARDS)
        ignore_msb = _int_field(raw.get("ignore_msb", DEFAULT_IGNORE_MSB), f"{label}: field 'ignore_msb'", 0, 63)
        has_count, has_tokens = raw.get("num_tokens") is not None, raw.get("tokens") is not None
        if has_count == has_tokens:
            raise ClusterHistoryError(f"{label}: give exactly one of 'num_tokens' and 'tokens'")
        explicit: Optional[list[int]] = None
        count = 0
        if has_tokens:
            if not isinstance(raw["tokens"], list) or not raw["tokens"]:
                raise ClusterHistoryError(f"{label}: field 'tokens' must be a non-empty list of int64 tokens")
            explicit = [_token(t, f"{label}: field 'tokens'[{i}]") for i, t in enumerate(raw["tokens"])]
            if len(set(explicit)) != len(explicit):
                duplicate = next(t for t in explicit if explicit.count(t) > 1)
                raise ClusterHistoryError(f"{label}: field 'tokens' lists token {duplicate} twice")
        else:
            count = _int_field(raw["num_tokens"], f"{label}: field 'num_tokens'", 1, 1 << 22)
        parsed.append(dict(name=name, joined_at_ms=joined_at_ms, shards=shards, ignore_msb=ignore_msb,
                           explicit=explicit, count=count, position=position))

    owner_of: dict[int, str] = {}
    for node in parsed:
        for token in node["explicit"] or ():
            if token in owner_of:
                raise ClusterHistoryError(f"{source}: node {node['name']!r}: token {token} of field 'tokens' is "
                                          f"also a token of node {owner_of[token]!r}")
            owner_of[token] = node["name"]

    parsed.sort(key=lambda n: (n["joined_at_ms"], n["position"]))
    first_join = parsed[0]["joined_at_ms"]
    later_times: dict[int, str] = {}
    for node in parsed:
        if node["joined_at_ms"] != first_join:
            if node["joined_at_ms"] in later_times:
                raise ClusterHistoryError(
                    f"{source}: node {node['name']!r}: field 'joined_at': node {later_times[node['joined_at_ms']]!r} "
                    f"joins at the same time; bootstraps are serialized, give them different times")
            later_times[node["joined_at_ms"]] = node["name"]

    resizes = _parse_resizes(document.get("tablets", []), source)
    taken = set(owner_of)
    nodes = []
    for node in parsed:
        tokens = node["explicit"] if node["explicit"] is not None else \
            _draw_tokens(seed, node["name"], node["count"], taken)
        nodes.append(Node(node["name"], node["joined_at_ms"], tuple(sorted(tokens)), node["shards"],
                          node["ignore_msb"]))
    return ClusterHistory(ring_delay_ms, seed, tuple(nodes), resizes)


def _parse_resizes(raw_resizes: Any, source: str) -> tuple[Resize, ...]:
    if not isinstance(raw_resizes, list):
        raise ClusterHistoryError(f"{source}: 'tablets' must be a list of resizes {{table, at, count}}")
    resizes = []
    for position, raw in enumerate(raw_resizes):
        label = f"{source}: tablets #{position + 1}"
        if not isinstance(raw, Mapping):
            raise ClusterHistoryError(f"{label}: expected a mapping {{table, at, count}}, got {raw!r}")
        unknown = set(raw) - RESIZE_FIELDS
        if unknown:
            raise ClusterHistoryError(f"{label}: unknown field(s) {sorted(map(str, unknown))}; "
                                      f"allowed: {sorted(RESIZE_FIELDS)}")
        table = raw.get("table")
        if not isinstance(table, str) or not re.fullmatch(r"\w+\.\w+", table):
            raise ClusterHistoryError(f"{label}: field 'table' must be keyspace.table, got {table!r}")
        if raw.get("at") is None:
            raise ClusterHistoryError(f"{label}: field 'at' is missing")
        try:
            at_ms = parse_utc_timestamp_ms(raw["at"])
        except ValueError as error:
            raise ClusterHistoryError(f"{label}: field 'at': {error}") from None
        count = _int_field(raw.get("count"), f"{label}: field 'count'", 1, 1 << 20)
        if count & (count - 1):
            raise ClusterHistoryError(f"{label}: field 'count' must be a power of two, got {count}")
        resizes.append((at_ms, position, Resize(table, at_ms, count)))
    return tuple(resize for _, _, resize in sorted(resizes, key=lambda r: r[:2]))


def load_cluster_history(path) -> ClusterHistory:
    """Read and validate a cluster history YAML file."""
    import yaml

    path = Path(path)
    try:
        document = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        raise ClusterHistoryError(f"{path}: not valid YAML: {error}") from None
    return parse_cluster_history(document, source=str(path))


def generations_from_history_file(path) -> list[tuple[int, list[Entry]]]:
    """Every generation ``(generation_ts_ms, entries)`` of a cluster history file, oldest first."""
    return load_cluster_history(path).generations()
