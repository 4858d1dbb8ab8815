{#- The pre-image (op 0) and post-image (op 9) rows and their cells (see _images__models.yml). -#}
{{ config(materialized='table') }}
with

base_columns as (

    select * from {{ cdc_image_columns(ref('int_base_columns_described')) }} as image_columns

),

points as (

    select * from {{ ref('int_image_points') }}

),

point_events as (

    select * from {{ ref('int_image_point_events') }}

),

state_values as (

    select * from {{ ref('int_image_column_values') }}

),

row_presence as (

    -- a clustered row exists when its last event is not an erase (the read's "exists", or any
    -- upsert of the write); a static row when an earlier group of the write touched it (or,
    -- below, it has a value)
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        is_static,
        row_position,
        image_kind,
        coalesce(
            not max_by(event_kind = 'erase', position) filter (where event_kind = 'exists' or position >= 100),
            false
        ) as row_exists,
        coalesce(max(event_kind != 'erase' and position >= 100), false) as touched_by_write
    from point_events
    group by write_id, keyspace_name, table_name, partition_key, change_ts, is_static, row_position, image_kind

),

static_with_values as (

    select distinct
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        row_position,
        image_kind
    from state_values
    where is_static and value is not null

),

image_rows as (

    -- pre: the row existed (a static row: it has a value or the write touched it already);
    -- post: a clustered row still exists, a static row always
    select
        points.*,
        case
            when points.image_kind = 'post' and points.is_static then true
            when points.is_static then static_with_values.write_id is not null or row_presence.touched_by_write
            else coalesce(row_presence.row_exists, false)
        end as is_emitted
    from points
    left join row_presence
        on
            points.write_id = row_presence.write_id
            and points.keyspace_name = row_presence.keyspace_name
            and points.table_name = row_presence.table_name
            and points.partition_key = row_presence.partition_key
            and points.change_ts = row_presence.change_ts
            and points.is_static = row_presence.is_static
            and points.row_position = row_presence.row_position
            and points.image_kind = row_presence.image_kind
    left join static_with_values
        on
            points.is_static
            and points.write_id = static_with_values.write_id
            and points.keyspace_name = static_with_values.keyspace_name
            and points.table_name = static_with_values.table_name
            and points.partition_key = static_with_values.partition_key
            and points.change_ts = static_with_values.change_ts
            and points.image_kind = static_with_values.image_kind

),

emitted as (

    select
        *,
        if(image_kind = 'pre', 0, 9) as operation,
        -- static row first, then clustered rows in clustering order
        dense_rank() over (
            partition by write_id, keyspace_name, table_name, partition_key, change_ts, image_kind
            order by is_static desc, row_position asc
        ) - 1 as image_seq
    from image_rows
    where is_emitted

),

image_columns as (

    -- each emitted row with the columns its image shows: pre: the affected columns
    -- (`preimage: true`; all of them for a delete) or all (`full`); post: all. Its first
    -- column (or, showing none, the row alone) carries the row's header.
    select
        emitted.*,
        base_columns.column_name,
        row_number() over (
            partition by
                emitted.write_id, emitted.keyspace_name, emitted.table_name, emitted.partition_key,
                emitted.change_ts, emitted.image_kind, emitted.image_seq
            order by base_columns.column_name
        ) = 1 as carries_header
    from emitted
    left join base_columns
        on
            emitted.keyspace_name = base_columns.keyspace_name
            and emitted.table_name = base_columns.table_name
            and emitted.schema_version = base_columns.schema_version
            and (base_columns.kind = 'static') = emitted.is_static
            and (
                emitted.image_kind = 'post'
                or emitted.cdc_preimage = 'full'
                or emitted.is_deleted
                or array_contains(emitted.columns_written, base_columns.column_name)
            )

),

image_cells as (

    select
        image_columns.*,
        state_values.value as state_value
    from image_columns
    left join state_values
        on
            image_columns.write_id = state_values.write_id
            and image_columns.keyspace_name = state_values.keyspace_name
            and image_columns.table_name = state_values.table_name
            and image_columns.partition_key = state_values.partition_key
            and image_columns.change_ts = state_values.change_ts
            and image_columns.is_static = state_values.is_static
            and image_columns.row_position = state_values.row_position
            and image_columns.image_kind = state_values.image_kind
            and image_columns.column_name = state_values.column_name

)

-- the header rows and the cells (emitted rows are planned once: both come out of one
-- generator); a pre-image marks a column without value cdc$deleted_
select
    image_cells.write_id,
    image_cells.keyspace_name,
    image_cells.table_name,
    image_cells.partition_key,
    image_cells.change_ts,
    image_cells.image_kind,
    image_cells.image_seq,
    image_row.operation,
    image_row.clustering_prefix,
    image_row.partition_key_members,
    image_row.clustering_prefix_members,
    image_row.column_name,
    image_row.value
from image_cells
    lateral view inline(concat(
        if(image_cells.carries_header, array(named_struct(
            'operation', image_cells.operation,
            'clustering_prefix', if(image_cells.is_static, null, image_cells.clustering_prefix),
            'partition_key_members', image_cells.partition_key_members,
            'clustering_prefix_members', if(image_cells.is_static, null, image_cells.clustering_prefix_members),
            'column_name', null,
            'value', null
        )), array()),
        if(
            image_cells.column_name is not null
            and (image_cells.state_value is not null or image_cells.image_kind = 'pre'),
            array(named_struct(
                'operation', null,
                'clustering_prefix', null,
                'partition_key_members', cast(null as map <string, string>),
                'clustering_prefix_members', cast(null as map <string, string>),
                'column_name', if(
                    image_cells.state_value is null,
                    concat('cdc$deleted_', image_cells.column_name),
                    image_cells.column_name
                ),
                'value', coalesce(image_cells.state_value, 'true')
            )),
            array()
        )
    )) image_row
