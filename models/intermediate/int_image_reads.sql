{#- The pre-image read (scylla-log.md §7.1): for every accepted write to a table with pre- or
    post-images, each row the write touches as the base table holds it just before the write.
    The state is the one carried from earlier builds (int_base_state) moved forward by the
    batch's earlier accepted writes (write_id order), as a running state per key: last write
    wins by timestamp (a dead cell wins a tie), a row, range or partition tombstone removes the
    cells it covers (timestamp <= the tombstone's), a collection tombstone its column's older
    elements, and a TTL'd cell is gone once the write's coordinator clock reaches its expiry.
    One row per row read (`is_row` true, with whether the row is live) and one per live cell of
    the columns ScyllaDB reads (all of them for post-images, `preimage: full`, row deletes and
    no-clustering-key partition deletes; else the static columns written and the columns
    written in the write's first clustered row, a quirk ScyllaDB has, §9.6). -#}
with

table_versions as (

    select
        *,
        cdc_enabled and (cdc_preimage != 'false' or cdc_postimage) as has_images,
        max(cdc_enabled and (cdc_preimage != 'false' or cdc_postimage)) over (
            partition by keyspace_name, table_name
        ) as ever_has_images
    from {{ ref('int_base_tables_described') }}

),

batch_atoms as (

    select * from {{ cdc_batch_state_atoms() }} as batch

),

batch_and_carried_atoms as (

    -- the batch's accepted atoms and the state carried from earlier batches (write ids below
    -- the batch's) of the partitions the batch writes
    select * from {{ cdc_batch_and_carried_atoms('batch_atoms') }} as atoms

),

atoms as (

    -- every accepted write to a table that has images in some schema version (earlier writes
    -- make the state, CDC-enabled or not)
    select
        keyed.*,
        table_versions.has_images,
        table_versions.cdc_preimage,
        table_versions.cdc_postimage,
        keyed.piece_kind = 'static_upsert' as is_static
    from batch_and_carried_atoms as keyed
    inner join table_versions
        on
            keyed.keyspace_name = table_versions.keyspace_name
            and keyed.table_name = table_versions.table_name
            and keyed.schema_version = table_versions.schema_version
    where table_versions.ever_has_images

),

rows_read as (

    -- the static row, each clustered row written or deleted, the single row of a table without
    -- clustering key on a partition delete
    select
        write_id,
        coordinator_now_us,
        keyspace_name,
        table_name,
        partition_key,
        is_static,
        row_position,
        max(if(piece_kind in ('clustered_upsert', 'row_tombstone'), bound_prefix, null)) as clustering_prefix
    from atoms
    where
        has_images and not is_carried
        and (
            piece_kind in ('static_upsert', 'clustered_upsert', 'row_tombstone')
            or (piece_kind = 'partition_tombstone' and not has_clustering_key)
        )
    group by write_id, coordinator_now_us, keyspace_name, table_name, partition_key, is_static, row_position

),

write_shape as (

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        max(
            cdc_postimage or cdc_preimage = 'full'
        ) as reads_all_static_columns,
        max(
            cdc_postimage or cdc_preimage = 'full' or piece_kind = 'row_tombstone'
            or (piece_kind = 'partition_tombstone' and not has_clustering_key)
        ) as reads_all_regular_columns,
        min(if(piece_kind in ('clustered_upsert', 'row_tombstone'), row_position, null)) as first_row_position
    from atoms
    where has_images and not is_carried
    group by write_id, keyspace_name, table_name, partition_key

),

columns_written as (

    select
        atoms.write_id,
        atoms.keyspace_name,
        atoms.table_name,
        atoms.partition_key,
        atoms.is_static,
        atoms.column_name
    from atoms
    inner join write_shape
        on
            atoms.write_id = write_shape.write_id
            and atoms.keyspace_name = write_shape.keyspace_name
            and atoms.table_name = write_shape.table_name
            and atoms.partition_key = write_shape.partition_key
    where
        atoms.column_name is not null
        and (atoms.is_static or atoms.row_position = write_shape.first_row_position)
    group by
        atoms.write_id,
        atoms.keyspace_name,
        atoms.table_name,
        atoms.partition_key,
        atoms.is_static,
        atoms.column_name

),

row_keys as (

    -- what a row's state is made of: its cells, collection elements and marker, its collections'
    -- tombstones and its row tombstone
    select distinct
        keyspace_name,
        table_name,
        partition_key,
        is_static,
        row_position,
        atom_kind,
        column_name,
        element_key
    from atoms
    where atom_kind in ('cell', 'row_marker', 'collection_tombstone', 'row_tombstone')

),

row_events as (

    -- each key's atoms and its reads in write order, a read before its own write's atoms
    select
        keyspace_name,
        table_name,
        partition_key,
        is_static,
        row_position,
        atom_kind,
        column_name,
        element_key,
        write_id,
        false as is_read,
        cast(null as bigint) as read_now_us,
        struct(
            write_timestamp, not is_live as is_dead, value, ttl_seconds, coordinator_now_us as written_now_us
        ) as written
    from atoms
    where atom_kind in ('cell', 'row_marker', 'collection_tombstone', 'row_tombstone')

    union all

    select
        rows_read.keyspace_name,
        rows_read.table_name,
        rows_read.partition_key,
        rows_read.is_static,
        rows_read.row_position,
        row_keys.atom_kind,
        row_keys.column_name,
        row_keys.element_key,
        rows_read.write_id,
        true as is_read,
        rows_read.coordinator_now_us as read_now_us,
        null as written
    from rows_read
    inner join row_keys
        on
            rows_read.keyspace_name = row_keys.keyspace_name
            and rows_read.table_name = row_keys.table_name
            and rows_read.partition_key = row_keys.partition_key
            and rows_read.is_static = row_keys.is_static
            and rows_read.row_position = row_keys.row_position

),

read_winners as (

    -- the running state: at each read, each key's winning atom among the earlier writes (last
    -- write wins: highest timestamp, then a dead cell, then the greater value)
    select * from (
        select
            *,
            max(written) over (
                partition by
                    keyspace_name, table_name, partition_key, is_static, row_position, atom_kind, column_name,
                    element_key
                order by write_id asc, is_read desc
                rows between unbounded preceding and current row
            ) as winner
        from row_events
    ) as running
    where is_read and winner is not null

),

partition_deletions as (

    -- the newest partition tombstone before each read, by the same running state
    select * from (
        select
            *,
            max(deleted_at) over (
                partition by keyspace_name, table_name, partition_key
                order by write_id asc, is_read desc
                rows between unbounded preceding and current row
            ) as deleted_up_to
        from (
            select
                keyspace_name,
                table_name,
                partition_key,
                is_static,
                row_position,
                write_id,
                false as is_read,
                write_timestamp as deleted_at
            from atoms
            where atom_kind = 'partition_tombstone'
            union all
            select
                keyspace_name,
                table_name,
                partition_key,
                is_static,
                row_position,
                write_id,
                true as is_read,
                null as deleted_at
            from rows_read
        ) as partition_events
    ) as running
    where is_read

),

range_deletions as (

    -- the newest earlier range tombstone covering each clustered row read
    select
        rows_read.write_id,
        rows_read.keyspace_name,
        rows_read.table_name,
        rows_read.partition_key,
        rows_read.is_static,
        rows_read.row_position,
        max(ranges.write_timestamp) as deleted_up_to
    from rows_read
    inner join atoms as ranges
        on
            rows_read.keyspace_name = ranges.keyspace_name
            and rows_read.table_name = ranges.table_name
            and rows_read.partition_key = ranges.partition_key
            and rows_read.write_id > ranges.write_id
            and rows_read.row_position > ranges.clustering_position
            and rows_read.row_position < ranges.range_end_position
    where ranges.atom_kind = 'range_tombstone' and not rows_read.is_static
    group by
        rows_read.write_id,
        rows_read.keyspace_name,
        rows_read.table_name,
        rows_read.partition_key,
        rows_read.is_static,
        rows_read.row_position

),

read_states as (

    -- each key's winner at each read, with the newest row tombstone of its row and collection
    -- tombstone of its column (themselves winners of the running state)
    select
        read_winners.*,
        max(if(read_winners.atom_kind = 'row_tombstone', read_winners.winner.write_timestamp, null)) over (
            partition by
                read_winners.write_id, read_winners.keyspace_name, read_winners.table_name,
                read_winners.partition_key, read_winners.is_static, read_winners.row_position
        ) as row_deleted_at,
        max(if(read_winners.atom_kind = 'collection_tombstone', read_winners.winner.write_timestamp, null)) over (
            partition by
                read_winners.write_id, read_winners.keyspace_name, read_winners.table_name,
                read_winners.partition_key, read_winners.is_static, read_winners.row_position,
                read_winners.column_name
        ) as collection_deleted_at
    from read_winners

),

live_cells as (

    -- the cells and row markers no tombstone covers and no TTL expired at the read
    select
        read_states.write_id,
        read_states.keyspace_name,
        read_states.table_name,
        read_states.partition_key,
        read_states.is_static,
        read_states.row_position,
        read_states.atom_kind,
        read_states.column_name,
        read_states.element_key,
        read_states.winner.value
    from read_states
    inner join partition_deletions
        on
            read_states.write_id = partition_deletions.write_id
            and read_states.keyspace_name = partition_deletions.keyspace_name
            and read_states.table_name = partition_deletions.table_name
            and read_states.partition_key = partition_deletions.partition_key
            and read_states.is_static = partition_deletions.is_static
            and read_states.row_position = partition_deletions.row_position
    left join range_deletions
        on
            read_states.write_id = range_deletions.write_id
            and read_states.keyspace_name = range_deletions.keyspace_name
            and read_states.table_name = range_deletions.table_name
            and read_states.partition_key = range_deletions.partition_key
            and read_states.is_static = range_deletions.is_static
            and read_states.row_position = range_deletions.row_position
    where
        read_states.atom_kind in ('cell', 'row_marker')
        and not read_states.winner.is_dead
        -- newer than the newest partition, row, range or collection tombstone (none: null)
        and coalesce(read_states.winner.write_timestamp > greatest(
            partition_deletions.deleted_up_to, read_states.row_deleted_at, range_deletions.deleted_up_to,
            read_states.collection_deleted_at
        ), true)
        and (
            coalesce(read_states.winner.ttl_seconds, 0) = 0
            or read_states.read_now_us
            -- bigint: a TTL in seconds times 10^6 overflows an int above 35 minutes
            < read_states.winner.written_now_us + cast(read_states.winner.ttl_seconds as bigint) * 1000000
        )

),

rows_and_cells as (

    -- each row read, then its live cells and markers; a row is live iff it has any of them
    select
        *,
        max(not is_row) over (
            partition by write_id, keyspace_name, table_name, partition_key, is_static, row_position
        ) as is_live
    from (
        select
            write_id,
            keyspace_name,
            table_name,
            partition_key,
            is_static,
            row_position,
            clustering_prefix,
            true as is_row,
            null as atom_kind,
            null as column_name,
            null as element_key,
            null as value
        from rows_read

        union all

        select
            write_id,
            keyspace_name,
            table_name,
            partition_key,
            is_static,
            row_position,
            null as clustering_prefix,
            false as is_row,
            atom_kind,
            column_name,
            element_key,
            value
        from live_cells
    ) as rows_then_cells

)

-- the rows, and of their cells those of the columns ScyllaDB reads for the write
select
    rows_and_cells.write_id,
    rows_and_cells.keyspace_name,
    rows_and_cells.table_name,
    rows_and_cells.partition_key,
    rows_and_cells.is_static,
    rows_and_cells.row_position,
    rows_and_cells.clustering_prefix,
    rows_and_cells.is_row,
    rows_and_cells.is_live,
    rows_and_cells.column_name,
    rows_and_cells.element_key,
    rows_and_cells.value
from rows_and_cells
left join write_shape
    on
        rows_and_cells.write_id = write_shape.write_id
        and rows_and_cells.keyspace_name = write_shape.keyspace_name
        and rows_and_cells.table_name = write_shape.table_name
        and rows_and_cells.partition_key = write_shape.partition_key
left join columns_written
    on
        rows_and_cells.write_id = columns_written.write_id
        and rows_and_cells.keyspace_name = columns_written.keyspace_name
        and rows_and_cells.table_name = columns_written.table_name
        and rows_and_cells.partition_key = columns_written.partition_key
        and rows_and_cells.is_static = columns_written.is_static
        and rows_and_cells.column_name = columns_written.column_name
where
    rows_and_cells.is_row
    or (
        rows_and_cells.atom_kind = 'cell'
        and (
            if(rows_and_cells.is_static, write_shape.reads_all_static_columns, write_shape.reads_all_regular_columns)
            or columns_written.column_name is not null
        )
    )
