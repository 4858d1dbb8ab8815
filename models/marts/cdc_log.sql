{#- The generic long-format CDC log of every CDC-enabled table: one row per non-null cell of a
    log row, named as ScyllaDB names the log column, with its JSON value. -#}
with

changes as (

    select * from {{ ref('int_log_changes_ordered') }}

),

log_rows as (

    select * from {{ ref('int_log_rows') }}

),

partitions as (

    select * from {{ ref('int_mutation_partitions_tokenized') }}

),

base_tables as (

    select * from {{ ref('int_base_tables_described') }}

),

key_cells as (

    select
        log_rows.write_id, log_rows.keyspace_name, log_rows.table_name, log_rows.partition_key,
        log_rows.change_ts, log_rows.batch_seq_no,
        key_column_name as column_name,
        key_column_value as value
    from log_rows
    inner join partitions
        on
            log_rows.write_id = partitions.write_id
            and log_rows.keyspace_name = partitions.keyspace_name
            and log_rows.table_name = partitions.table_name
            and log_rows.partition_key = partitions.partition_key
    lateral view explode(
        map_concat(
            partitions.partition_key_members,
            coalesce(cdc_json_members(log_rows.clustering_prefix), map())
        )
    ) key_columns as key_column_name, key_column_value

),

value_cells as (

    -- delta = 'keys' tables log keys, operation and TTL only
    select
        changes.write_id, changes.keyspace_name, changes.table_name, changes.partition_key,
        changes.change_ts, changes.batch_seq_no,
        if(changes.is_live, changes.column_name, concat('cdc$deleted_', changes.column_name))
            as column_name,
        if(changes.is_live, changes.value, 'true') as value
    from changes
    inner join base_tables
        on
            changes.keyspace_name = base_tables.keyspace_name
            and changes.table_name = base_tables.table_name
    where changes.atom_kind = 'cell' and base_tables.cdc_delta = 'full'

),

cells as (

    select * from key_cells
    union all
    select * from value_cells

),

logged as (

    select
        log_rows.keyspace_name,
        log_rows.table_name,
        log_rows.stream_id as `cdc$stream_id`,
        log_rows.cdc_time as `cdc$time`,
        cast(log_rows.batch_seq_no as int) as `cdc$batch_seq_no`,
        cast(log_rows.operation as tinyint) as `cdc$operation`,
        cast(log_rows.cdc_ttl as bigint) as `cdc$ttl`,
        if(log_rows.is_end_of_batch, true, null) as `cdc$end_of_batch`,
        cells.column_name,
        cells.value,
        log_rows.write_id,
        log_rows.change_ts as change_timestamp
    from log_rows
    inner join cells
        on
            log_rows.write_id = cells.write_id
            and log_rows.keyspace_name = cells.keyspace_name
            and log_rows.table_name = cells.table_name
            and log_rows.partition_key = cells.partition_key
            and log_rows.change_ts = cells.change_ts
            and log_rows.batch_seq_no = cells.batch_seq_no

)

select * from logged
