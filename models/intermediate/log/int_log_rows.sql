{#- One row per log row: its place in the log table's clustering order (stream, cdc$time,
    cdc$batch_seq_no) and its metadata columns. A group's rows are its pre-images, its deltas,
    then its post-images (scylla-log.md §4.3, §6.2); `phase` and `phase_seq` locate the row
    among the deltas (int_log_changes_ordered) or images (int_log_images) it comes from. -#}
{{ config(materialized='table') }}
with

changes as (

    select * from {{ ref('int_log_changes_ordered') }}

),

images as (

    select * from {{ ref('int_log_images') }}
    where column_name is null

),

change_groups as (

    select distinct
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        stream_id,
        cdc_time
    from {{ ref('int_batch_atoms') }}
    where write_status = 'accepted' and cdc_enabled

),

unnumbered as (

    select distinct
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        1 as phase,
        batch_seq_no as phase_seq,
        operation,
        cdc_ttl,
        clustering_prefix
    from changes

    union all

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        if(image_kind = 'pre', 0, 2) as phase,
        image_seq as phase_seq,
        operation,
        cast(null as bigint) as cdc_ttl,
        clustering_prefix
    from images

),

numbered as (

    select
        *,
        row_number() over group_rows - 1 as batch_seq_no,
        count(*) over (partition by write_id, keyspace_name, table_name, partition_key, change_ts)
            as group_size
    from unnumbered
    window group_rows as (
        partition by write_id, keyspace_name, table_name, partition_key, change_ts
        order by phase, phase_seq
    )

)

select
    numbered.write_id,
    numbered.keyspace_name,
    numbered.table_name,
    numbered.partition_key,
    numbered.change_ts,
    numbered.phase,
    numbered.phase_seq,
    numbered.batch_seq_no,
    numbered.batch_seq_no = numbered.group_size - 1 as is_end_of_batch,
    numbered.operation,
    numbered.cdc_ttl,
    numbered.clustering_prefix,
    change_groups.stream_id,
    change_groups.cdc_time
from numbered
inner join change_groups
    on
        numbered.write_id = change_groups.write_id
        and numbered.keyspace_name = change_groups.keyspace_name
        and numbered.table_name = change_groups.table_name
        and numbered.partition_key = change_groups.partition_key
        and numbered.change_ts = change_groups.change_ts
