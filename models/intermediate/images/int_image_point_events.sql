{#- The events each image point sees of its row, in order (see _images__models.yml). -#}
{{ config(materialized='table') }}
with

reads as (

    select * from {{ ref('int_image_reads') }}

),

rows_read as (

    select * from reads
    where is_row

),

changes as (

    select * from {{ ref('int_image_changes') }}

),

events as (

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        is_static,
        row_position,
        0 as position,
        if(is_row, 'exists', 'cell') as event_kind,
        column_name,
        element_key,
        true as is_live,
        value
    from reads
    where not is_row or is_live

    union all

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        is_static,
        row_position,
        group_no * 100 + 10 + if(atom_kind = 'cell', 1, 0) as position,
        case atom_kind when 'cell' then 'cell' when 'collection_tombstone' then 'reset' else 'touch' end
            as event_kind,
        column_name,
        element_key,
        is_live,
        value
    from changes
    where piece_kind in ('static_upsert', 'clustered_upsert')

    union all

    select
        rows_read.write_id,
        rows_read.keyspace_name,
        rows_read.table_name,
        rows_read.partition_key,
        rows_read.is_static,
        rows_read.row_position,
        changes.group_no * 100 + 20 as position,
        'erase' as event_kind,
        null as column_name,
        null as element_key,
        null as is_live,
        null as value
    from changes
    inner join rows_read
        on
            changes.write_id = rows_read.write_id
            and changes.keyspace_name = rows_read.keyspace_name
            and changes.table_name = rows_read.table_name
            and changes.partition_key = rows_read.partition_key
            and not rows_read.is_static
            and (
                changes.piece_kind = 'partition_tombstone'
                or (changes.piece_kind = 'row_tombstone' and changes.row_position = rows_read.row_position)
                or (
                    changes.piece_kind = 'range_tombstone'
                    and changes.clustering_position < rows_read.row_position
                    and changes.range_end_position > rows_read.row_position
                )
            )

)

select
    points.write_id,
    points.keyspace_name,
    points.table_name,
    points.partition_key,
    points.change_ts,
    points.is_static,
    points.row_position,
    points.image_kind,
    events.position,
    events.event_kind,
    events.column_name,
    events.element_key,
    events.is_live,
    events.value,
    max(if(events.event_kind = 'erase', events.position, null)) over point as erased_at,
    max(if(events.event_kind = 'reset', events.position, null)) over (point_column) as reset_at
from {{ ref('int_image_points') }} as points
inner join events
    on
        points.write_id = events.write_id
        and points.keyspace_name = events.keyspace_name
        and points.table_name = events.table_name
        and points.partition_key = events.partition_key
        and points.is_static = events.is_static
        and points.row_position = events.row_position
        and points.state_position > events.position
window
    point as (
        partition by
            points.write_id, points.keyspace_name, points.table_name, points.partition_key,
            points.change_ts, points.is_static, points.row_position, points.image_kind
    ),
    point_column as (
        partition by
            points.write_id, points.keyspace_name, points.table_name, points.partition_key,
            points.change_ts, points.is_static, points.row_position, points.image_kind, events.column_name
    )
