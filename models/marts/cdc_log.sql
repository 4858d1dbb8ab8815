{#- The generic long-format CDC log of every CDC-enabled table: one row per non-null cell of a
    log row, named as ScyllaDB names the log column, with its JSON value. Each build appends its
    batch's rows. -#}
{{ config(materialized='incremental', incremental_strategy='append') }}

with

changes as (

    select * from {{ ref('int_log_changes_ordered') }}

),

log_rows as (

    select * from {{ ref('int_log_rows') }}

),

partitions as (

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        first(partition_key_members) as partition_key_members
    from {{ ref('int_batch_atoms') }}
    where write_status = 'accepted' and cdc_enabled
    group by write_id, keyspace_name, table_name, partition_key

),

base_tables as (

    select * from {{ ref('int_base_tables_described') }}

),

base_columns as (

    select * from {{ ref('int_base_columns_described') }}

),

key_cells as (

    select
        log_rows.write_id,
        log_rows.keyspace_name,
        log_rows.table_name,
        log_rows.partition_key,
        log_rows.change_ts,
        log_rows.phase,
        log_rows.phase_seq,
        key_columns.key_column_name as column_name,
        key_columns.key_column_value as value
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
                coalesce({{ cdc_udf('cdc_json_members') }}(log_rows.clustering_prefix), map())
            )
        ) key_columns as key_column_name, key_column_value

),

logged_values as (

    -- delta = 'keys' tables log keys, operation and TTL only
    select
        changes.*,
        base_columns.element_key_type,
        base_columns.element_value_type,
        base_columns.is_multi_cell_user_type,
        base_columns.udt_field_names,
        {{ cdc_udf('cdc_value_sort_key') }}(changes.element_key, base_columns.element_key_type) as element_position
    from changes
    -- the table as the write saw it (its schema version)
    inner join base_tables
        on
            changes.keyspace_name = base_tables.keyspace_name
            and changes.table_name = base_tables.table_name
            and changes.schema_version = base_tables.schema_version
    left join base_columns
        on
            changes.keyspace_name = base_columns.keyspace_name
            and changes.table_name = base_columns.table_name
            and changes.schema_version = base_columns.schema_version
            and changes.column_name = base_columns.column_name
    where
        changes.atom_kind in ('cell', 'collection_tombstone')
        and base_tables.cdc_delta = 'full'
        and base_columns.is_logged

),

value_cells as (

    -- an atomic cell: its value, or cdc$deleted_<column> for a dead cell; a collection
    -- tombstone: cdc$deleted_<column>
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        1 as phase,
        batch_seq_no as phase_seq,
        if(is_live, column_name, concat('cdc$deleted_', column_name)) as column_name,
        if(is_live, value, 'true') as value
    from logged_values
    where element_key is null

),

element_cells as (

    -- a collection's elements in CQL order: live ones make the column's value ({"map": [[k, v]]}
    -- for maps and lists, {"set": [e]} for sets), dead ones cdc$deleted_elements_<column>
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        1 as phase,
        batch_seq_no as phase_seq,
        if(is_live, column_name, concat('cdc$deleted_elements_', column_name)) as column_name,
        {{ cdc_elements_json(
            'collect_list(struct(element_position, element_key, value))',
            'is_live and element_value_type is not null'
        ) }} as value
    from logged_values
    where element_key is not null and not (is_multi_cell_user_type and is_live)
    group by
        write_id, keyspace_name, table_name, partition_key, change_ts, batch_seq_no,
        column_name, is_live, element_value_type

),

user_type_cells as (

    -- a non-frozen user type's value: every field, the written ones set, the others null
    -- ({"udt": {"f": v, ...}}). ScyllaDB writes it whenever the column is in the change, even
    -- when no field got a value (scylla-log.md §5 quirk).
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        1 as phase,
        batch_seq_no as phase_seq,
        column_name,
        {{ cdc_user_type_json('udt_field_names', 'written_fields') }} as value
    from (
        select
            write_id,
            keyspace_name,
            table_name,
            partition_key,
            change_ts,
            batch_seq_no,
            column_name,
            udt_field_names,
            map_from_entries(collect_list(
                if(is_live and element_key is not null, struct(cast(element_key as int), value), null)
            )) as written_fields
        from logged_values
        where is_multi_cell_user_type
        group by
            write_id, keyspace_name, table_name, partition_key, change_ts, batch_seq_no,
            column_name, udt_field_names
    ) as user_type_changes

),

cells as (

    select * from key_cells
    union all
    select * from value_cells
    union all
    select * from element_cells
    union all
    select * from user_type_cells
    union all
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        if(image_kind = 'pre', 0, 2) as phase,
        image_seq as phase_seq,
        column_name,
        value
    from {{ ref('int_log_images') }}
    where column_name is not null

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
            and log_rows.phase = cells.phase
            and log_rows.phase_seq = cells.phase_seq

)

select logged.*
from logged
{% if is_incremental() %}
    -- a build that stopped after this table: its writes are logged already
    left anti join {{ this }} as logged_before
        on logged.write_id = logged_before.write_id
{% endif %}
