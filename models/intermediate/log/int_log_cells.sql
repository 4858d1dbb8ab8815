{#- Every cell of the batch's log rows, placed in its change group (see _log__models.yml). -#}
with

changes as (

    select * from {{ ref('int_log_changes_ordered') }}

),

images as (

    select * from {{ ref('int_log_images') }}

),

base_tables as (

    select * from {{ ref('int_base_tables_described') }}

),

base_columns as (

    select * from {{ ref('int_base_columns_described') }}

),

delta_rows as (

    -- each delta row once, with its key columns
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        batch_seq_no,
        operation,
        cdc_ttl,
        clustering_prefix,
        first(partition_key_members) as partition_key_members,
        first(clustering_prefix_members) as clustering_prefix_members,
        first(stream_id) as stream_id,
        first(cdc_time) as cdc_time
    from changes
    group by
        write_id, keyspace_name, table_name, partition_key, change_ts, batch_seq_no, operation, cdc_ttl,
        clustering_prefix

),

logged_values as (

    -- delta = 'keys' tables log keys, operation and TTL only
    select
        changes.*,
        base_columns.element_key_type,
        base_columns.element_value_type,
        base_columns.is_multi_cell_user_type,
        base_columns.udt_field_names
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

element_positions as (

    -- each distinct element key of the batch once through the UDF: its place in CQL order
    select
        distinct_keys.element_key,
        distinct_keys.element_key_type,
        {{ cdc_udf('cdc_value_sort_key') }}(distinct_keys.element_key, distinct_keys.element_key_type)
            as element_position
    from (
        select distinct
            element_key,
            element_key_type
        from logged_values
        where element_key is not null
    ) as distinct_keys

),

delta_cells as (

    -- the key cells of every delta row
    select
        delta_rows.write_id,
        delta_rows.keyspace_name,
        delta_rows.table_name,
        delta_rows.partition_key,
        delta_rows.change_ts,
        1 as phase,
        delta_rows.batch_seq_no as phase_seq,
        delta_rows.operation,
        delta_rows.cdc_ttl,
        delta_rows.stream_id,
        delta_rows.cdc_time,
        key_columns.key_column_name as column_name,
        key_columns.key_column_value as value
    from delta_rows
        lateral view explode(
            map_concat(delta_rows.partition_key_members, coalesce(delta_rows.clustering_prefix_members, map()))
        ) key_columns as key_column_name, key_column_value

    union all

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
        operation,
        cdc_ttl,
        stream_id,
        cdc_time,
        if(is_live, column_name, concat('cdc$deleted_', column_name)) as column_name,
        if(is_live, value, 'true') as value
    from logged_values
    where element_key is null

    union all

    -- a collection's elements in CQL order: live ones make the column's value ({"map": [[k, v]]}
    -- for maps and lists, {"set": [e]} for sets), dead ones cdc$deleted_elements_<column>
    select /*+ broadcast(element_positions) */
        logged_values.write_id,
        logged_values.keyspace_name,
        logged_values.table_name,
        logged_values.partition_key,
        logged_values.change_ts,
        1 as phase,
        logged_values.batch_seq_no as phase_seq,
        logged_values.operation,
        logged_values.cdc_ttl,
        first(logged_values.stream_id) as stream_id,
        first(logged_values.cdc_time) as cdc_time,
        if(
            logged_values.is_live, logged_values.column_name, concat('cdc$deleted_elements_', logged_values.column_name)
        ) as column_name,
        {{ cdc_elements_json(
            'collect_list(struct(element_positions.element_position, logged_values.element_key, logged_values.value))',
            'logged_values.is_live and logged_values.element_value_type is not null'
        ) }} as value
    from logged_values
    inner join element_positions
        on
            logged_values.element_key = element_positions.element_key
            and logged_values.element_key_type <=> element_positions.element_key_type
    where
        logged_values.element_key is not null
        and not (logged_values.is_multi_cell_user_type and logged_values.is_live)
    group by
        logged_values.write_id, logged_values.keyspace_name, logged_values.table_name, logged_values.partition_key,
        logged_values.change_ts, logged_values.batch_seq_no, logged_values.operation, logged_values.cdc_ttl,
        logged_values.column_name, logged_values.is_live, logged_values.element_value_type

    union all

    -- a non-frozen user type's value: every field, the written ones set, the others null
    -- ({"udt": {"f": v, ...}}). ScyllaDB writes it whenever the column is in the change, even
    -- when no field got a value (docs/scylla/log.md §5 quirk).
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        1 as phase,
        batch_seq_no as phase_seq,
        operation,
        cdc_ttl,
        stream_id,
        cdc_time,
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
            operation,
            cdc_ttl,
            first(stream_id) as stream_id,
            first(cdc_time) as cdc_time,
            column_name,
            udt_field_names,
            map_from_entries(collect_list(
                if(is_live and element_key is not null, struct(cast(element_key as int), value), null)
            )) as written_fields
        from logged_values
        where is_multi_cell_user_type
        group by
            write_id, keyspace_name, table_name, partition_key, change_ts, batch_seq_no, operation, cdc_ttl,
            column_name, udt_field_names
    ) as user_type_changes

),

image_cells as (

    -- the key cells of every image row (its header carries them and its operation)
    select
        images.write_id,
        images.keyspace_name,
        images.table_name,
        images.partition_key,
        images.change_ts,
        if(images.image_kind = 'pre', 0, 2) as phase,
        images.image_seq as phase_seq,
        images.operation,
        cast(null as bigint) as cdc_ttl,
        cast(null as binary) as stream_id,
        cast(null as string) as cdc_time,
        key_columns.key_column_name as column_name,
        key_columns.key_column_value as value
    from images
        lateral view explode(
            map_concat(images.partition_key_members, coalesce(images.clustering_prefix_members, map()))
        ) key_columns as key_column_name, key_column_value
    where images.column_name is null

    union all

    -- the image rows' value cells
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        if(image_kind = 'pre', 0, 2) as phase,
        image_seq as phase_seq,
        cast(null as int) as operation,
        cast(null as bigint) as cdc_ttl,
        cast(null as binary) as stream_id,
        cast(null as string) as cdc_time,
        column_name,
        value
    from images
    where column_name is not null

),

numbered as (

    -- every cell with its row's number in the group, the row's operation (an image cell's is
    -- its header's), the group's last row, stream and cdc$time
    select
        cells.*,
        dense_rank() over (
            partition by cells.write_id, cells.keyspace_name, cells.table_name, cells.partition_key, cells.change_ts
            order by cells.phase, cells.phase_seq
        ) - 1 as batch_seq_no,
        max(named_struct('phase', cells.phase, 'phase_seq', cells.phase_seq)) over group_rows as last_row,
        max(cells.operation) over (
            partition by
                cells.write_id, cells.keyspace_name, cells.table_name, cells.partition_key, cells.change_ts,
                cells.phase, cells.phase_seq
        ) as row_operation,
        max(cells.stream_id) over group_rows as group_stream_id,
        max(cells.cdc_time) over group_rows as group_cdc_time
    from (
        -- one shuffle by write: every window here is over a change group
        select /*+ repartition(write_id) */ * from (
            select * from delta_cells
            union all
            select * from image_cells
        ) as unsorted_cells
    ) as cells
    window group_rows as (
        partition by cells.write_id, cells.keyspace_name, cells.table_name, cells.partition_key, cells.change_ts
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
    numbered.last_row.phase = numbered.phase and numbered.last_row.phase_seq = numbered.phase_seq as is_end_of_batch,
    numbered.row_operation as operation,
    numbered.cdc_ttl,
    numbered.group_stream_id as stream_id,
    numbered.group_cdc_time as cdc_time,
    numbered.column_name,
    numbered.value
from numbered
