{#- The live cells and row markers of each row a pre-image reads (see _images__models.yml). -#}
with

atoms as (

    select * from {{ ref('int_image_read_atoms') }}

),

rows_read as (

    select * from {{ ref('int_image_rows_read') }}

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

)

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
