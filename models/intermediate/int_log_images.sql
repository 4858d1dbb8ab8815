{#- Pre-image (op 0) and post-image (op 9) rows and their cells (scylla-log.md §7).
    The state of each row a write touches starts as the pre-image read (int_image_reads) and
    changes group by group as ScyllaDB's CDC applies the write's own deltas to it (§7.2): a
    cell sets or clears its column, a collection tombstone empties its column, an element is
    added or removed, a row, range or partition delete erases rows, an upsert makes its row
    exist. A group's pre-image shows the state before its deltas, its post-image the state after.
    Rows: one header row per image row (`column_name` null) and one row per log cell. -#}
with

image_tables as (

    select * from {{ ref('int_base_tables_described') }}
    where cdc_enabled and (cdc_preimage != 'false' or cdc_postimage)

),

base_columns as (

    -- the static and regular columns of each schema version that the log has
    select * from {{ ref('int_base_columns_described') }}
    where kind in ('static', 'regular') and is_logged

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

reads as (

    select * from {{ ref('int_image_reads') }}

),

rows_read as (

    select * from reads
    where is_row

),

changes as (

    select
        changes.*,
        image_tables.cdc_preimage,
        image_tables.cdc_postimage,
        changes.piece_kind = 'static_upsert' as is_static,
        dense_rank() over (
            partition by changes.write_id, changes.keyspace_name, changes.table_name, changes.partition_key
            order by changes.change_ts
        ) as group_no
    from {{ ref('int_log_changes_ordered') }} as changes
    inner join image_tables
        on
            changes.keyspace_name = image_tables.keyspace_name
            and changes.table_name = image_tables.table_name
            and changes.schema_version = image_tables.schema_version
    where changes.piece_kind != 'range_tombstone' or changes.operation in (5, 6)

),

events as (

    -- what changes a row's state, at position group_no * 100 + phase * 10 + step:
    -- the read (group 0), then per group the upserts (a collection tombstone before its
    -- elements), then the deletes that erase rows
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

),

affected as (

    -- the rows each group writes or deletes, with the columns it affects (all for a delete)
    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        group_no,
        schema_version,
        cdc_preimage,
        cdc_postimage,
        is_static,
        row_position,
        max(if(piece_kind in ('clustered_upsert', 'row_tombstone'), clustering_prefix, null))
            as clustering_prefix,
        max(piece_kind in ('static_upsert', 'clustered_upsert')) as is_upserted,
        max(piece_kind in ('row_tombstone', 'partition_tombstone')) as is_deleted,
        collect_set(column_name) as columns_written
    from changes
    where
        piece_kind in ('static_upsert', 'clustered_upsert', 'row_tombstone')
        or (piece_kind = 'partition_tombstone' and row_position = X'')
    group by
        write_id, keyspace_name, table_name, partition_key, change_ts, group_no,
        schema_version, cdc_preimage, cdc_postimage, is_static, row_position

),

points as (

    -- where an image may be taken: before a group's deltas (pre) or after them (post)
    select
        affected.*,
        'pre' as image_kind,
        affected.group_no * 100 as state_position
    from affected
    where affected.cdc_preimage != 'false'

    union all

    select
        affected.*,
        'post' as image_kind,
        affected.group_no * 100 + 99 as state_position
    from affected
    where affected.cdc_postimage and affected.is_upserted

),

point_events as (

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
    from points
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

),

state_values as (

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
    image_row.column_name,
    image_row.value
from image_cells
    lateral view inline(concat(
        if(image_cells.carries_header, array(named_struct(
            'operation', image_cells.operation,
            'clustering_prefix', if(image_cells.is_static, null, image_cells.clustering_prefix),
            'column_name', null,
            'value', null
        )), array()),
        if(
            image_cells.column_name is not null
            and (image_cells.state_value is not null or image_cells.image_kind = 'pre'),
            array(named_struct(
                'operation', null,
                'clustering_prefix', null,
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
