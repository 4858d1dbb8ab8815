"""The `cdclake check` suite: one Spark SQL dataset per concern, and its GX expectations.

Each dataset reads the tables a build wrote (docs/scylla/log.md §2.3, §4, §6; docs/scylla/math.md §3)
and has the columns its expectations need plus the columns that identify a row in a report.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import great_expectations.expectations as gxe
from great_expectations.expectations.row_conditions import Column

# the last batch's log rows (int_log_rows, an ephemeral step: its compiled query, see cdclake.commands.check)
LOG_ROWS_VIEW = "cdclake_check_log_rows"

# tables a build writes that the datasets read
REQUIRED_TABLES = [
    "cdc_lake.cdc_log",
    "cdc_lake.cdc_write_audit",
    "cdc_lake.cdc_rejected_writes",
    "cdc_lake.cdc_processed_writes",
    "cdc_intermediate.int_batch_atoms",
    "cdc_intermediate.int_log_changes_ordered",
    "cdc_intermediate.int_log_images",
    "cdc_staging.stg_cdc_input__generations",
    "cdc_staging.stg_cdc_input__generation_streams",
    "cdc_staging.stg_cdc_input__base_mutations",
]

# 100-ns ticks from the Gregorian epoch (1582-10-15) to the Unix epoch
UUID_EPOCH_TICKS = 0x01B21DD213814000

# a log group (one change timestamp of one partition): its rows share stream and cdc$time
GROUP_ID = ["stream_id_hex", "cdc_time"]
LOG_ROW_ID = GROUP_ID + ["batch_seq_no"]

# operation per log row kind (docs/scylla/log.md §2.3, §5)
KIND_OPERATIONS = [
    "pre_image:0", "post_image:9",
    "static_update:1", "update:1", "insert:2",
    "row_tombstone:3", "partition_tombstone:4", "row_tombstone:-3", "partition_tombstone:-4",
    "range_tombstone:5", "range_tombstone:6", "range_tombstone:7", "range_tombstone:8",
]

LOG_ROWS_SQL = f"""
with log_rows as (
    select distinct
        keyspace_name, table_name, `cdc$stream_id` as stream_id, `cdc$time` as cdc_time,
        `cdc$batch_seq_no` as batch_seq_no, `cdc$operation` as operation, `cdc$ttl` as ttl,
        `cdc$end_of_batch` as end_of_batch
    from cdc_lake.cdc_log
    where write_id in (select write_id from cdc_intermediate.int_batch_atoms)  -- the last batch
),
sources as (
    select stream_id, cdc_time, batch_seq_no, phase,
        write_id, keyspace_name, table_name, partition_key, change_ts, phase_seq
    from {LOG_ROWS_VIEW}
),
delta_kinds as (
    -- what the atoms of a delta row change
    select write_id, keyspace_name, table_name, partition_key, change_ts, batch_seq_no as phase_seq,
        concat_ws('+', sort_array(collect_set(piece_kind))) as piece_kinds,
        max(atom_kind = 'row_marker' and is_live) as has_live_marker
    from cdc_intermediate.int_log_changes_ordered
    group by write_id, keyspace_name, table_name, partition_key, change_ts, batch_seq_no
),
kinds as (
    select
        log_rows.*,
        case
            when sources.phase = 0 then 'pre_image'
            when sources.phase = 2 then 'post_image'
            when delta_kinds.piece_kinds = 'static_upsert' then 'static_update'
            when delta_kinds.piece_kinds = 'clustered_upsert' then if(delta_kinds.has_live_marker, 'insert', 'update')
            else coalesce(delta_kinds.piece_kinds, 'unknown')
        end as row_kind
    from log_rows
    left join sources
        on log_rows.stream_id = sources.stream_id and log_rows.cdc_time = sources.cdc_time
        and log_rows.batch_seq_no = sources.batch_seq_no
    left join delta_kinds
        on sources.phase = 1 and sources.write_id = delta_kinds.write_id
        and sources.keyspace_name = delta_kinds.keyspace_name and sources.table_name = delta_kinds.table_name
        and sources.partition_key = delta_kinds.partition_key and sources.change_ts = delta_kinds.change_ts
        and sources.phase_seq = delta_kinds.phase_seq
)
select
    lower(hex(stream_id)) as stream_id_hex, cdc_time, batch_seq_no, keyspace_name, table_name,
    operation, ttl, end_of_batch, row_kind, concat(row_kind, ':', operation) as row_kind_operation
from kinds
"""

BATCH_SEQUENCES_SQL = """
with log_rows as (
    select distinct `cdc$stream_id` as stream_id, `cdc$time` as cdc_time,
        `cdc$batch_seq_no` as batch_seq_no, `cdc$end_of_batch` as end_of_batch
    from cdc_lake.cdc_log
)
select
    lower(hex(stream_id)) as stream_id_hex, cdc_time,
    count(*) as log_rows,
    min(batch_seq_no) as first_seq_no,
    max(batch_seq_no) as last_seq_no,
    max(batch_seq_no) + 1 as seq_no_span,
    count_if(end_of_batch) as end_of_batch_rows,
    max(if(end_of_batch, batch_seq_no, null)) as end_of_batch_seq_no
from log_rows
group by stream_id, cdc_time
"""

# cdc$time 'tttttttt-mmmm-1hhh-...': 60-bit timestamp hhh|mmmm|tttttttt in 100-ns ticks
def timeuuid_ticks(column: str) -> str:
    return (
        f"(cast(conv(concat(substr({column}, 16, 3), substr({column}, 10, 4), substr({column}, 1, 8)), 16, 10) "
        f"as bigint) - {UUID_EPOCH_TICKS})"
    )

STREAM_IDS_SQL = f"""
with log_groups as (
    select distinct keyspace_name, table_name, `cdc$stream_id` as stream_id, `cdc$time` as cdc_time
    from cdc_lake.cdc_log
),
operating as (
    -- the generation operating at the group's timestamp (docs/scylla/math.md §5, §6), and for a
    -- table of a tablets keyspace its own stream set operating then (docs/scylla/tablets.md §3)
    select
        log_groups.stream_id, log_groups.cdc_time,
        max(generations.generation_ts_ms) as generation_ts_ms,
        max(tablet_sets.set_ts_ms) as set_ts_ms
    from log_groups
    left join cdc_staging.stg_cdc_input__generations as generations
        on generations.generation_ts_us <= {timeuuid_ticks('log_groups.cdc_time')} div 10
    left join cdc_staging.stg_cdc_input__tablet_streams as tablet_sets
        on tablet_sets.keyspace_name = log_groups.keyspace_name and tablet_sets.table_name = log_groups.table_name
        and tablet_sets.set_ts_us <= {timeuuid_ticks('log_groups.cdc_time')} div 10
    group by log_groups.stream_id, log_groups.cdc_time
)
select
    lower(hex(operating.stream_id)) as stream_id_hex,
    operating.cdc_time,
    length(operating.stream_id) as stream_id_bytes,
    -- low word: bits 0-3 version, 4-25 vnode index (docs/scylla/math.md §3; 0 for a tablet's stream)
    cast(conv(substr(hex(operating.stream_id), 32, 1), 16, 10) as int) as stream_id_version,
    cast(shiftright(cast(conv(substr(hex(operating.stream_id), 25, 8), 16, 10) as bigint), 4) & 4194303 as int)
        as stream_id_vnode_index,
    coalesce(operating.set_ts_ms, operating.generation_ts_ms) as generation_ts_ms,
    case
        when operating.set_ts_ms is null then streams.vnode_index
        when tablet_streams.stream_id is not null then 0
    end as generation_vnode_index
from operating
left join cdc_staging.stg_cdc_input__generation_streams as streams
    on operating.set_ts_ms is null
    and operating.generation_ts_ms = streams.generation_ts_ms and operating.stream_id = streams.stream_id
left join cdc_staging.stg_cdc_input__tablet_streams as tablet_streams
    on operating.set_ts_ms = tablet_streams.set_ts_ms and operating.stream_id = tablet_streams.stream_id
"""

GROUP_TIMES_SQL = f"""
with log_groups as (
    select `cdc$stream_id` as stream_id, `cdc$time` as cdc_time, min(change_timestamp) as change_timestamp
    from cdc_lake.cdc_log
    where write_id in (select write_id from cdc_intermediate.int_batch_atoms)  -- the last batch
    group by `cdc$stream_id`, `cdc$time`
),
sources as (
    select distinct stream_id, cdc_time, write_id, keyspace_name, table_name, partition_key, change_ts
    from {LOG_ROWS_VIEW}
),
group_atoms as (
    -- the written timestamps of the atoms a group logs
    select write_id, keyspace_name, table_name, partition_key, change_ts,
        max(if(atom_kind != 'collection_tombstone', write_timestamp, null)) as write_timestamp,
        max(if(atom_kind = 'collection_tombstone', write_timestamp, null)) as tombstone_timestamp
    from cdc_intermediate.int_batch_atoms
    group by write_id, keyspace_name, table_name, partition_key, change_ts
),
timed as (
    select
        log_groups.*,
        {timeuuid_ticks('log_groups.cdc_time')} div 10 as time_us,
        {timeuuid_ticks('log_groups.cdc_time')} % 10 as sub_microsecond_ticks,
        sources.write_id,
        -- the write timestamp; a group of collection tombstones only lands at T+1 (docs/scylla/log.md §6.1)
        coalesce(group_atoms.write_timestamp, group_atoms.tombstone_timestamp + 1) as expected_time_us,
        group_atoms.write_timestamp is null and group_atoms.tombstone_timestamp is not null as tombstones_only
    from log_groups
    left join sources
        on log_groups.stream_id = sources.stream_id and log_groups.cdc_time = sources.cdc_time
    left join group_atoms
        on sources.write_id = group_atoms.write_id and sources.keyspace_name = group_atoms.keyspace_name
        and sources.table_name = group_atoms.table_name and sources.partition_key = group_atoms.partition_key
        and sources.change_ts = group_atoms.change_ts
)
select lower(hex(stream_id)) as stream_id_hex, cdc_time, write_id, time_us, sub_microsecond_ticks,
    change_timestamp, expected_time_us, tombstones_only
from timed
"""

WRITE_COUNTS_SQL = """
with audit as (
    select * from cdc_lake.cdc_write_audit
    where batch_id = (select max(batch_id) from cdc_lake.cdc_write_audit)
),
batch_writes as (
    select processed.write_id, processed.status
    from cdc_lake.cdc_processed_writes as processed
    inner join audit on processed.batch_id = audit.batch_id
)
select
    audit.batch_id,
    audit.input_writes,
    audit.accepted_writes,
    audit.rejected_writes,
    audit.accepted_writes + audit.rejected_writes as accepted_plus_rejected,
    audit.logged_writes + audit.unlogged_writes + audit.rejected_writes as logged_unlogged_rejected,
    audit.log_rows,
    (select count(distinct write_id) + max(if(write_id is null, 1, 0))
        from cdc_staging.stg_cdc_input__base_mutations
        where write_id is null or write_id in (select write_id from batch_writes)) as input_writes_counted,
    (select count(*) from batch_writes where status = 'rejected') as rejected_writes_listed,
    (select count(*) from (
        select distinct keyspace_name, table_name, `cdc$stream_id`, `cdc$time`, `cdc$batch_seq_no`
        from cdc_lake.cdc_log
        where write_id in (select write_id from batch_writes))) as log_rows_counted,
    (select count(distinct input.write_id) from cdc_staging.stg_cdc_input__base_mutations as input
        left anti join cdc_lake.cdc_processed_writes as processed on input.write_id = processed.write_id
        where input.write_id is not null) as unprocessed_writes,
    (select count(write_id) from cdc_staging.stg_cdc_input__base_mutations) as input_atoms,
    (select sum(atom_count) from cdc_lake.cdc_processed_writes where write_id is not null) as processed_atoms
from audit
"""


@dataclass
class Dataset:
    """A derived DataFrame to validate: its SQL, the columns naming a row, its expectations."""

    name: str
    description: str
    sql: str
    id_columns: list[str]
    expectations: list = field(default_factory=list)


def _pair(a: str, b: str, description: str) -> gxe.ExpectColumnPairValuesToBeEqual:
    return gxe.ExpectColumnPairValuesToBeEqual(column_A=a, column_B=b, description=description)


def datasets() -> list[Dataset]:
    return [
        Dataset(
            "log_rows", "one row per log row of cdc_lake.cdc_log, with its kind", LOG_ROWS_SQL, LOG_ROW_ID, [
                gxe.ExpectCompoundColumnsToBeUnique(
                    column_list=LOG_ROW_ID,
                    description="a log row's cells agree on its operation, cdc$ttl and cdc$end_of_batch"),
                gxe.ExpectColumnValuesToBeInSet(
                    column="row_kind_operation", value_set=KIND_OPERATIONS,
                    description="cdc$operation fits the row kind: pre-image 0, post-image 9, deltas 1-8"),
                gxe.ExpectColumnValuesToBeNull(
                    column="ttl", row_condition=Column("operation").is_not_in([1, 2]),
                    description="cdc$ttl is set only on operations 1 and 2"),
                gxe.ExpectColumnValuesToBeBetween(
                    column="ttl", min_value=1, description="a cdc$ttl is a positive number of seconds"),
                gxe.ExpectColumnValuesToBeInSet(
                    column="end_of_batch", value_set=[True], description="cdc$end_of_batch is true or null"),
            ]),
        Dataset(
            "batch_sequences", "one row per log group (stream, cdc$time)", BATCH_SEQUENCES_SQL, GROUP_ID, [
                gxe.ExpectColumnValuesToBeInSet(
                    column="first_seq_no", value_set=[0], description="cdc$batch_seq_no starts at 0"),
                _pair("seq_no_span", "log_rows", "cdc$batch_seq_no runs 0..n-1 with no gap or repeat"),
                gxe.ExpectColumnValuesToBeInSet(
                    column="end_of_batch_rows", value_set=[1], description="exactly one row ends the batch"),
                _pair("end_of_batch_seq_no", "last_seq_no", "cdc$end_of_batch is on the group's last row"),
            ]),
        Dataset(
            "stream_ids", "one row per log group, its stream ID decoded", STREAM_IDS_SQL, GROUP_ID, [
                gxe.ExpectColumnValuesToBeInSet(
                    column="stream_id_bytes", value_set=[16], description="a stream ID is 16 bytes"),
                gxe.ExpectColumnValuesToBeInSet(
                    column="stream_id_version", value_set=[1], description="a stream ID's version nibble is 1"),
                gxe.ExpectColumnValuesToNotBeNull(
                    column="generation_vnode_index",
                    description="the stream is one of the streams of the generation (a tablets table: its stream "
                                "set) operating at cdc$time"),
                gxe.ExpectColumnPairValuesToBeEqual(
                    column_A="stream_id_vnode_index", column_B="generation_vnode_index",
                    ignore_row_if="either_value_is_missing",
                    description="the stream ID's index bits are its vnode's index in the generation (0: a tablet's)"),
            ]),
        Dataset(
            "group_times", "one row per log group, its cdc$time decoded", GROUP_TIMES_SQL, GROUP_ID, [
                gxe.ExpectColumnValuesToMatchRegex(
                    column="cdc_time", regex="^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$",
                    description="cdc$time is a version-1 (time) UUID of the RFC variant"),
                gxe.ExpectColumnValuesToBeInSet(
                    column="sub_microsecond_ticks", value_set=[0],
                    description="cdc$time is a whole number of microseconds"),
                _pair("time_us", "expected_time_us",
                      "cdc$time is the write timestamp (+1 for a group of collection tombstones only)"),
                _pair("time_us", "change_timestamp", "cdc$time is the row's change_timestamp"),
            ]),
        Dataset(
            "write_counts", "the last batch's cdc_write_audit row beside counts of the tables", WRITE_COUNTS_SQL,
            ["batch_id"], [
                _pair("input_writes", "accepted_plus_rejected", "input writes = accepted + rejected"),
                _pair("input_writes", "logged_unlogged_rejected",
                      "input writes = logged (counted from the log) + not logged (no CDC) + rejected"),
                _pair("input_writes", "input_writes_counted", "the audit counts every input write"),
                _pair("rejected_writes", "rejected_writes_listed", "every rejected write is in cdc_rejected_writes"),
                _pair("log_rows", "log_rows_counted", "the audit counts every log row of cdc_log"),
                gxe.ExpectColumnValuesToBeInSet(
                    column="unprocessed_writes", value_set=[0],
                    description="every input write is processed (none left behind a batch)"),
                _pair("input_atoms", "processed_atoms",
                      "every atom with a write id was processed (none appended later to a processed write)"),
            ]),
    ]
