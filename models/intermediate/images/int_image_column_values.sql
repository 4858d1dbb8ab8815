{#- Each column's value in a row at each image point (see _images__models.yml). -#}
with

point_events as (

    select * from {{ ref('int_image_point_events') }}

),

base_columns as (

    select * from {{ cdc_image_columns(ref('int_base_columns_described')) }} as image_columns

),

column_types as (

    -- each column's type in the newest schema version that has it
    select * from (
        select
            *,
            row_number() over (
                partition by keyspace_name, table_name, column_name order by schema_version desc
            ) as newest_first
        from base_columns
    ) as versions
    where newest_first = 1

),

last_cells as (

    -- each column's (or element's) last event since its column was last emptied
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        is_static,
        row_position,
        image_kind,
        column_name,
        element_key,
        max_by(struct(is_live, value), position) as last_cell,
        max(if(not is_live, position, null)) as last_removal,
        min(if(is_live, position, null)) as first_addition
    from point_events
    where
        event_kind = 'cell'
        and position > coalesce(greatest(erased_at, reset_at), -1)
    group by
        write_id, keyspace_name, table_name, partition_key, change_ts, is_static, row_position, image_kind,
        column_name, element_key

),

column_touches as (

    -- columns the write itself wrote since they were last emptied (a user type written by the
    -- write is never null again, §9.7)
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        is_static,
        row_position,
        image_kind,
        column_name
    from point_events
    where
        event_kind in ('cell', 'reset') and position >= 100
        and position >= coalesce(greatest(erased_at, reset_at), -1)
    group by
        write_id, keyspace_name, table_name, partition_key, change_ts, is_static, row_position, image_kind,
        column_name

),

column_states as (

    select
        last_cells.write_id,
        last_cells.keyspace_name,
        last_cells.table_name,
        last_cells.partition_key,
        last_cells.change_ts,
        last_cells.is_static,
        last_cells.row_position,
        last_cells.image_kind,
        last_cells.column_name,
        base_columns.is_multi_cell,
        base_columns.is_multi_cell_user_type,
        base_columns.udt_field_names,
        base_columns.element_value_type is not null as is_keyed,
        max(if(last_cells.element_key is null and last_cells.last_cell.is_live, last_cells.last_cell.value, null))
            as atomic_value,
        collect_list(if(
            last_cells.element_key is not null and last_cells.last_cell.is_live,
            struct(
                {{ cdc_udf('cdc_value_sort_key') }}(last_cells.element_key, base_columns.element_key_type)
                    as element_position,
                last_cells.element_key as element_key,
                last_cells.last_cell.value as value
            ),
            null
        )) as live_elements,
        -- emptied by element removals, it stays an empty collection (§9.7)
        coalesce(max(last_cells.last_removal) > min(last_cells.first_addition), false) as is_emptied
    from last_cells
    inner join column_types as base_columns
        on
            last_cells.keyspace_name = base_columns.keyspace_name
            and last_cells.table_name = base_columns.table_name
            and last_cells.column_name = base_columns.column_name
    group by
        last_cells.write_id,
        last_cells.keyspace_name,
        last_cells.table_name,
        last_cells.partition_key,
        last_cells.change_ts,
        last_cells.is_static,
        last_cells.row_position,
        last_cells.image_kind,
        last_cells.column_name,
        base_columns.is_multi_cell,
        base_columns.is_multi_cell_user_type,
        base_columns.udt_field_names,
        base_columns.element_value_type is not null

),

column_values as (

    select
        column_states.*,
        case
            when not column_states.is_multi_cell then column_states.atomic_value
            when column_states.is_multi_cell_user_type then {{ cdc_user_type_json(
                'udt_field_names',
                'map_from_entries(transform(live_elements, e -> struct(cast(e.element_key as int), e.value)))'
            ) }}
            when size(column_states.live_elements) > 0 or column_states.is_emptied
                then {{ cdc_elements_json('live_elements', 'is_keyed') }}
        end as value
    from column_states

),

touched_user_types as (

    -- a user type the write touched but left without fields: all fields null, not null
    select
        column_touches.*,
        {{ cdc_user_type_json('base_columns.udt_field_names', 'map()') }} as value
    from column_touches
    inner join column_types as base_columns
        on
            column_touches.keyspace_name = base_columns.keyspace_name
            and column_touches.table_name = base_columns.table_name
            and column_touches.column_name = base_columns.column_name
    where base_columns.is_multi_cell_user_type

)

select
    coalesce(column_values.write_id, touched_user_types.write_id) as write_id,
    coalesce(column_values.keyspace_name, touched_user_types.keyspace_name) as keyspace_name,
    coalesce(column_values.table_name, touched_user_types.table_name) as table_name,
    coalesce(column_values.partition_key, touched_user_types.partition_key) as partition_key,
    coalesce(column_values.change_ts, touched_user_types.change_ts) as change_ts,
    coalesce(column_values.is_static, touched_user_types.is_static) as is_static,
    coalesce(column_values.row_position, touched_user_types.row_position) as row_position,
    coalesce(column_values.image_kind, touched_user_types.image_kind) as image_kind,
    coalesce(column_values.column_name, touched_user_types.column_name) as column_name,
    coalesce(column_values.value, touched_user_types.value) as value
from column_values
full outer join touched_user_types
    on
        column_values.write_id = touched_user_types.write_id
        and column_values.keyspace_name = touched_user_types.keyspace_name
        and column_values.table_name = touched_user_types.table_name
        and column_values.partition_key = touched_user_types.partition_key
        and column_values.change_ts = touched_user_types.change_ts
        and column_values.is_static = touched_user_types.is_static
        and column_values.row_position = touched_user_types.row_position
        and column_values.image_kind = touched_user_types.image_kind
        and column_values.column_name = touched_user_types.column_name
