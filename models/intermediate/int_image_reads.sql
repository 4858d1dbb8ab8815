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

row_deletions as (

    -- the newest row, range or partition tombstone covering each row read
    select
        partition_deletions.write_id,
        partition_deletions.keyspace_name,
        partition_deletions.table_name,
        partition_deletions.partition_key,
        partition_deletions.is_static,
        partition_deletions.row_position,
        greatest(
            partition_deletions.deleted_up_to, row_tombstones.winner.write_timestamp, range_deletions.deleted_up_to
        ) as deleted_up_to
    from partition_deletions
    left join read_winners as row_tombstones
        on
            partition_deletions.write_id = row_tombstones.write_id
            and partition_deletions.keyspace_name = row_tombstones.keyspace_name
            and partition_deletions.table_name = row_tombstones.table_name
            and partition_deletions.partition_key = row_tombstones.partition_key
            and partition_deletions.is_static = row_tombstones.is_static
            and partition_deletions.row_position = row_tombstones.row_position
            and row_tombstones.atom_kind = 'row_tombstone'
    left join range_deletions
        on
            partition_deletions.write_id = range_deletions.write_id
            and partition_deletions.keyspace_name = range_deletions.keyspace_name
            and partition_deletions.table_name = range_deletions.table_name
            and partition_deletions.partition_key = range_deletions.partition_key
            and partition_deletions.is_static = range_deletions.is_static
            and partition_deletions.row_position = range_deletions.row_position

),

collection_deletions as (

    select
        read_winners.write_id,
        read_winners.keyspace_name,
        read_winners.table_name,
        read_winners.partition_key,
        read_winners.is_static,
        read_winners.row_position,
        read_winners.column_name,
        read_winners.winner.write_timestamp as deleted_up_to
    from read_winners
    where read_winners.atom_kind = 'collection_tombstone'

),

winning_cells as (

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        is_static,
        row_position,
        read_now_us,
        atom_kind,
        column_name,
        element_key,
        winner
    from read_winners
    where atom_kind in ('cell', 'row_marker')

),

live_cells as (

    select winning_cells.*
    from winning_cells
    left join row_deletions
        on
            winning_cells.write_id = row_deletions.write_id
            and winning_cells.keyspace_name = row_deletions.keyspace_name
            and winning_cells.table_name = row_deletions.table_name
            and winning_cells.partition_key = row_deletions.partition_key
            and winning_cells.is_static = row_deletions.is_static
            and winning_cells.row_position = row_deletions.row_position
    left join collection_deletions
        on
            winning_cells.write_id = collection_deletions.write_id
            and winning_cells.keyspace_name = collection_deletions.keyspace_name
            and winning_cells.table_name = collection_deletions.table_name
            and winning_cells.partition_key = collection_deletions.partition_key
            and winning_cells.is_static = collection_deletions.is_static
            and winning_cells.row_position = collection_deletions.row_position
            and winning_cells.column_name = collection_deletions.column_name
    where
        not winning_cells.winner.is_dead
        and (row_deletions.deleted_up_to is null or winning_cells.winner.write_timestamp > row_deletions.deleted_up_to)
        and (
            collection_deletions.deleted_up_to is null
            or winning_cells.winner.write_timestamp > collection_deletions.deleted_up_to
        )
        and (
            coalesce(winning_cells.winner.ttl_seconds, 0) = 0
            or winning_cells.read_now_us
            -- bigint: a TTL in seconds times 10^6 overflows an int above 35 minutes
            < winning_cells.winner.written_now_us + cast(winning_cells.winner.ttl_seconds as bigint) * 1000000
        )

),

row_liveness as (

    -- a clustered row exists iff its marker or any of its cells is live
    select
        rows_read.write_id,
        rows_read.keyspace_name,
        rows_read.table_name,
        rows_read.partition_key,
        rows_read.is_static,
        rows_read.row_position,
        rows_read.clustering_prefix,
        count(live_cells.atom_kind) > 0 as is_live
    from rows_read
    left join live_cells
        on
            rows_read.write_id = live_cells.write_id
            and rows_read.keyspace_name = live_cells.keyspace_name
            and rows_read.table_name = live_cells.table_name
            and rows_read.partition_key = live_cells.partition_key
            and rows_read.is_static = live_cells.is_static
            and rows_read.row_position = live_cells.row_position
    group by
        rows_read.write_id,
        rows_read.keyspace_name,
        rows_read.table_name,
        rows_read.partition_key,
        rows_read.is_static,
        rows_read.row_position,
        rows_read.clustering_prefix

),

read_cells as (

    select
        live_cells.write_id,
        live_cells.keyspace_name,
        live_cells.table_name,
        live_cells.partition_key,
        live_cells.is_static,
        live_cells.row_position,
        live_cells.column_name,
        live_cells.element_key,
        live_cells.winner.value
    from live_cells
    inner join write_shape
        on
            live_cells.write_id = write_shape.write_id
            and live_cells.keyspace_name = write_shape.keyspace_name
            and live_cells.table_name = write_shape.table_name
            and live_cells.partition_key = write_shape.partition_key
    left join columns_written
        on
            live_cells.write_id = columns_written.write_id
            and live_cells.keyspace_name = columns_written.keyspace_name
            and live_cells.table_name = columns_written.table_name
            and live_cells.partition_key = columns_written.partition_key
            and live_cells.is_static = columns_written.is_static
            and live_cells.column_name = columns_written.column_name
    where
        live_cells.atom_kind = 'cell'
        and (
            if(live_cells.is_static, write_shape.reads_all_static_columns, write_shape.reads_all_regular_columns)
            or columns_written.column_name is not null
        )

)

select
    write_id,
    keyspace_name,
    table_name,
    partition_key,
    is_static,
    row_position,
    clustering_prefix,
    true as is_row,
    is_live,
    null as column_name,
    null as element_key,
    null as value
from row_liveness

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
    true as is_live,
    column_name,
    element_key,
    value
from read_cells
