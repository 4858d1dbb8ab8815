-- The batch's log, checked on its rows only: every change group of an accepted write has its log
-- rows (a write is accepted only if it produced all its change groups: a group with no rows
-- would be a silently lost change), each group's rows are numbered 0 .. n-1 with exactly one
-- cdc$end_of_batch, on its last row, and every row has a stream, a cdc$time and an operation
-- ScyllaDB writes. Returns the offending groups or rows with the problem.
with

batch_log_rows as (

    select * from {{ cdc_batch_log_rows(ref('int_log_written'), ref('int_batch_atoms'), ref('int_build_batch')) }} as rows

),

unnamed_cells as (

    -- the batch's cells without a log column
    select
        log.write_id,
        log.keyspace_name,
        log.table_name,
        log.change_timestamp,
        log.`cdc$time`
    from {{ ref('int_log_written') }} as log
    left semi join {{ ref('int_batch_atoms') }} as batch_writes
        on log.write_id = batch_writes.write_id
    where log.column_name is null and {{ cdc_log_written_after('log', cdc_last_processed_write_id(ref('int_build_batch'))) }}

),

change_groups as (

    select distinct
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        cdc_time
    from {{ ref('int_batch_atoms') }}
    where write_status = 'accepted' and cdc_enabled

),

log_groups as (

    select
        write_id,
        keyspace_name,
        table_name,
        change_timestamp,
        `cdc$stream_id` as stream_id,
        `cdc$time` as cdc_time,
        min(`cdc$batch_seq_no`) as first_seq_no,
        max(`cdc$batch_seq_no`) as last_seq_no,
        count(distinct `cdc$batch_seq_no`) as log_rows,
        count_if(`cdc$end_of_batch`) as end_of_batch_rows,
        max_by(`cdc$end_of_batch`, `cdc$batch_seq_no`) as last_row_ends_the_batch
    from batch_log_rows
    group by write_id, keyspace_name, table_name, change_timestamp, `cdc$stream_id`, `cdc$time`

)

select
    change_groups.write_id,
    change_groups.keyspace_name,
    change_groups.table_name,
    change_groups.partition_key,
    change_groups.change_ts,
    change_groups.cdc_time,
    'the change group has no log rows' as problem
from change_groups
left anti join log_groups
    on
        change_groups.write_id = log_groups.write_id
        and change_groups.keyspace_name = log_groups.keyspace_name
        and change_groups.table_name = log_groups.table_name
        and change_groups.change_ts = log_groups.change_timestamp
        and change_groups.cdc_time = log_groups.cdc_time

union all

select
    write_id,
    keyspace_name,
    table_name,
    null as partition_key,
    change_timestamp as change_ts,
    cdc_time,
    concat(
        'cdc$batch_seq_no runs from ', first_seq_no, ' to ', last_seq_no, ' over ', log_rows, ' rows, with ',
        end_of_batch_rows, ' cdc$end_of_batch rows',
        if(coalesce(last_row_ends_the_batch, false), '', ', not on the last row')
    ) as problem
from log_groups
where
    first_seq_no != 0
    or last_seq_no != log_rows - 1
    or end_of_batch_rows != 1
    or not coalesce(last_row_ends_the_batch, false)

union all

select
    write_id,
    keyspace_name,
    table_name,
    null as partition_key,
    change_timestamp as change_ts,
    `cdc$time` as cdc_time,
    case
        when `cdc$stream_id` is null then 'cdc$stream_id: null'
        when `cdc$time` is null then 'cdc$time: null'
        else concat('cdc$operation: ', coalesce(cast(`cdc$operation` as string), 'null'), ' is no operation ScyllaDB logs')
    end as problem
from batch_log_rows
where
    `cdc$stream_id` is null
    or `cdc$time` is null
    or `cdc$operation` is null
    or `cdc$operation` not in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -3, -4)

union all

select
    write_id,
    keyspace_name,
    table_name,
    null as partition_key,
    change_timestamp as change_ts,
    `cdc$time` as cdc_time,
    'column_name: a cell without its log column' as problem
from unnamed_cells
