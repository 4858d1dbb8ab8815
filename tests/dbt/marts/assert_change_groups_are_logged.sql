-- The batch's log, checked on its rows only: every change group of an accepted write has its log
-- rows (a write is accepted only if it produced all its change groups: a group with no rows
-- would be a silently lost change), and each group's rows are numbered 0 .. n-1 with exactly
-- one cdc$end_of_batch, on its last row. Returns the offending groups with the problem.
with

batch_log_rows as (

    select * from {{ cdc_batch_log_rows() }} as rows

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
