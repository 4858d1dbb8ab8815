{#- One row per log row: its place in the log table's clustering order (stream, cdc$time,
    cdc$batch_seq_no) and its metadata columns. -#}
with

changes as (

    select * from {{ ref('int_log_changes_ordered') }}

),

change_groups as (

    select * from {{ ref('int_change_groups_streamed') }}

),

log_rows as (

    select distinct
        write_id, keyspace_name, table_name, partition_key, change_ts,
        batch_seq_no, is_end_of_batch, operation, cdc_ttl, clustering_prefix
    from changes

)

select
    log_rows.*,
    change_groups.stream_id,
    change_groups.cdc_time
from log_rows
inner join change_groups
    on
        log_rows.write_id = change_groups.write_id
        and log_rows.keyspace_name = change_groups.keyspace_name
        and log_rows.table_name = change_groups.table_name
        and log_rows.partition_key = change_groups.partition_key
        and log_rows.change_ts = change_groups.change_ts
