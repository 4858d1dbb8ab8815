"""The report's numbers, read with Spark from a build's tables (sources and marts only)."""
from __future__ import annotations

from dataclasses import dataclass, field

from cdclake.session.warehouse import audit_totals, missing_tables

REQUIRED_TABLES = (
    "cdc_input.base_mutations",
    "cdc_input.cdc_generation_streams",
    "cdc_lake.cdc_generation_timestamps",
    "cdc_lake.cdc_streams_descriptions_v2",
    "cdc_lake.cdc_log",
    "cdc_lake.cdc_rejected_writes",
    "cdc_lake.cdc_write_audit",
)
TIME_BINS = 40
VERSIONS = "cdc_intermediate.int_log_replay_versions"   # the rows' history (the consumer tables')


class MissingTablesError(RuntimeError):
    pass


@dataclass(frozen=True)
class Generation:
    ts_ms: int
    vnodes: int
    streams: int


@dataclass(frozen=True)
class Vnode:
    """One token range ``(range_start, range_end]`` of a generation, its streams in shard order."""

    index: int
    range_start: int
    range_end: int
    streams: tuple[str, ...]


@dataclass(frozen=True)
class StreamRows:
    stream_id: str  # 32 lowercase hex digits
    generation_ts_ms: int | None
    rows: int


@dataclass
class TimeBin:
    """Writes in ``[start_ms, end_ms)`` by the coordinator's clock: accepted, rejected by reason."""

    start_ms: float
    end_ms: float
    accepted: int = 0
    rejected: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TableRows:
    """One base table's rows over time, from its history (`int_log_replay_versions`, clustered
    and partition rows, not static rows): per time bin the rows live at its end and the versions
    that started in it."""

    table: str
    bins: list[TimeBin]          # the writes' bins: their time span
    live_rows: list[int]
    new_versions: list[int]


@dataclass(frozen=True)
class TabletSet:
    """One kept stream set of a table of a tablets keyspace (`cdc_lake.cdc_streams`' state 0)."""

    table: str
    ts_ms: int
    streams: int


@dataclass(frozen=True)
class ReportData:
    summary: dict[str, int]
    generations: list[Generation]
    ring: list[Vnode]  # the latest generation's vnodes, by range end
    hot_streams: list[StreamRows]  # every stream with log rows, most rows first
    write_bins: list[TimeBin]
    reasons: list[str]
    table_rows: list[TableRows] = field(default_factory=list)
    tablet_sets: list[TabletSet] = field(default_factory=list)   # by table and time


def require_tables(spark) -> None:
    missing = missing_tables(spark, REQUIRED_TABLES)
    if missing:
        raise MissingTablesError(
            f"the build's tables are missing: {', '.join(missing)}. "
            f"Build first: cdclake build (or make demo)"
        )


def read_report_data(spark, time_bins: int = TIME_BINS) -> ReportData:
    require_tables(spark)
    audit = audit_totals(spark)
    generations = [
        Generation(r.ts_ms, r.vnodes, r.streams)
        for r in spark.sql(
            "select unix_millis(time) as ts_ms, count(*) as vnodes, sum(size(streams)) as streams "
            "from cdc_lake.cdc_streams_descriptions_v2 group by time order by time"
        ).collect()
    ]
    summary = {**audit, "generations": len(generations)}
    write_bins = _write_bins(spark, time_bins)
    return ReportData(
        summary=summary,
        generations=generations,
        ring=_latest_ring(spark),
        hot_streams=_stream_rows(spark),
        write_bins=write_bins,
        reasons=[r.reason for r in spark.sql(
            "select distinct reason from cdc_lake.cdc_rejected_writes order by reason").collect()],
        table_rows=_table_rows(spark, write_bins),
        tablet_sets=_tablet_sets(spark),
    )


def _tablet_sets(spark) -> list[TabletSet]:
    """The stream sets `cdc_lake.cdc_streams` lists (none in a build before tablets)."""
    if missing_tables(spark, ["cdc_lake.cdc_streams"]):
        return []
    return [TabletSet(r.table, r.ts_ms, r.streams) for r in spark.sql(
        "select concat(keyspace_name, '.', table_name) as table, unix_millis(`timestamp`) as ts_ms, "
        "count(*) as streams from cdc_lake.cdc_streams where stream_state = 0 group by 1, 2 order by 1, 2"
    ).collect()]


def _latest_ring(spark) -> list[Vnode]:
    rows = spark.sql(
        "select range_end, transform(streams, s -> lower(hex(s))) as streams "
        "from cdc_lake.cdc_streams_descriptions_v2 "
        "where time = (select max(time) from cdc_lake.cdc_generation_timestamps) order by range_end"
    ).collect()
    # vnode 0 is the wrap-around range: it starts at the last range's end
    return [
        Vnode(i, rows[i - 1].range_end, r.range_end, tuple(r.streams)) for i, r in enumerate(rows)
    ]


def _stream_rows(spark) -> list[StreamRows]:
    rows = spark.sql(
        "with log_rows as ("
        "  select lower(hex(`cdc$stream_id`)) as stream_id,"
        "  count(distinct keyspace_name, table_name, `cdc$time`, `cdc$batch_seq_no`) as n"
        "  from cdc_lake.cdc_log group by 1),"
        " streams as (select stream_id, max(generation_ts_ms) as generation_ts_ms"
        "  from cdc_input.cdc_generation_streams group by stream_id)"
        " select log_rows.stream_id, streams.generation_ts_ms, log_rows.n from log_rows"
        " left join streams on log_rows.stream_id = streams.stream_id"
        " order by n desc, stream_id"
    ).collect()
    return [StreamRows(r.stream_id, r.generation_ts_ms, r.n) for r in rows]


def _write_bins(spark, time_bins: int) -> list[TimeBin]:
    """Every input write once, at its coordinator clock, binned over the writes' time span."""
    writes = spark.sql(
        "select mutations.write_id, min(mutations.coordinator_now_us) / 1000 as at_ms,"
        " min(rejected.reason) as reason "
        "from cdc_input.base_mutations as mutations "
        "left join cdc_lake.cdc_rejected_writes as rejected on mutations.write_id = rejected.write_id "
        "group by mutations.write_id"
    )
    writes.createOrReplaceTempView("report_writes")
    span = spark.sql("select min(at_ms) as lo, max(at_ms) as hi from report_writes").collect()[0]
    if span.lo is None:
        return []
    lo, width = span.lo, max(span.hi - span.lo, 1) / time_bins
    counts = spark.sql(
        f"select least(cast(floor((at_ms - {lo}) / {width}) as int), {time_bins - 1}) as bin, "
        "reason, count(*) as n from report_writes group by 1, 2"
    ).collect()
    bins = [TimeBin(lo + i * width, lo + (i + 1) * width) for i in range(time_bins)]
    for r in counts:
        if r.reason is None:
            bins[r.bin].accepted += r.n
        else:
            bins[r.bin].rejected[r.reason] = r.n
    return bins


def _table_rows(spark, bins: list[TimeBin]) -> list[TableRows]:
    """Per table with a history, over the writes' bins: the rows live at each bin's end (a
    version valid then that is not a deletion) and the versions started in it."""
    if not bins or missing_tables(spark, [VERSIONS]):
        return []
    versions = spark.sql(
        "select distinct concat(keyspace_name, '.', table_name) as name, partition_id, row_position,"
        " valid_from_us / 1000 as from_ms, valid_to_us / 1000 as to_ms, is_deletion"
        f" from {VERSIONS} where not is_static"
    )
    versions.createOrReplaceTempView("report_versions")
    ends = ", ".join(f"({i}, {b.end_ms})" for i, b in enumerate(bins))
    counts = spark.sql(
        f"with bin_ends as (select * from values {ends} as bin_ends(bin, end_ms)) "
        "select name, bin,"
        " count_if(not is_deletion and from_ms <= end_ms and (to_ms is null or to_ms > end_ms)) as live,"
        f" count_if(from_ms <= end_ms and (bin = 0 or from_ms > end_ms - {bins[0].end_ms - bins[0].start_ms}))"
        " as started "
        "from report_versions cross join bin_ends group by name, bin"
    ).collect()
    by_table: dict[str, TableRows] = {}
    for r in counts:
        table = by_table.setdefault(r.name, TableRows(r.name, bins, [0] * len(bins), [0] * len(bins)))
        table.live_rows[r.bin], table.new_versions[r.bin] = r.live, r.started
    return [by_table[name] for name in sorted(by_table)]
