{#- Atoms of valid writes to CDC-enabled tables, keyed as ScyllaDB's CDC splits a mutation
    (scylla-log.md §4.1-4.2, cdc/split.cc): each atom's change timestamp and TTL, the piece of
    the mutation it belongs to, its clustering position, and whether its mutation is split. -#}
with

writes as (

    select * from {{ ref('int_writes_validated') }}
    where problem is null

),

atoms as (

    -- every valid write: those to tables without CDC (at the write's schema version) are not
    -- logged, but pre-images read the state they leave
    select atoms.*
    from {{ ref('int_mutation_atoms_validated') }} as atoms
    inner join writes
        on atoms.write_id = writes.write_id

),

base_tables as (

    -- key columns never change across schema versions
    select * from {{ ref('int_base_tables_described') }}
    where is_latest_version

),

ranges_as_bounds as (

    -- a range tombstone is logged as two rows (start bound, end bound): one piece each
    select
        atoms.*,
        bound.bound_side,
        case when bound.bound_side = 'start' then atoms.range_start else atoms.range_end end as bound_prefix,
        case
            when bound.bound_side = 'start' and atoms.range_start_inclusive then 'start_inclusive'
            when bound.bound_side = 'start' then 'start_exclusive'
            when atoms.range_end_inclusive then 'end_inclusive'
            else 'end_exclusive'
        end as bound_kind
    from atoms
        lateral view explode(array(
            named_struct('bound_side', 'start'),
            named_struct('bound_side', 'end')
        )) bound_sides as bound
    where atoms.atom_kind = 'range_tombstone'

),

pieces as (

    select
        *,
        null as bound_side,
        clustering_key as bound_prefix,
        'row' as bound_kind
    from atoms
    where atom_kind != 'range_tombstone'

    union all

    select * from ranges_as_bounds

),

keyed as (

    select
        pieces.write_id,
        pieces.coordinator_now_us,
        pieces.write_timestamp,
        pieces.ttl_seconds,
        pieces.schema_version,
        pieces.origin,
        pieces.cdc_enabled,
        pieces.keyspace_name,
        pieces.table_name,
        pieces.partition_key,
        pieces.atom_kind,
        pieces.column_name,
        pieces.column_kind,
        pieces.is_live,
        pieces.value,
        pieces.element_key,
        pieces.bound_side,
        pieces.bound_kind,
        pieces.bound_prefix,
        base_tables.has_clustering_key,
        case
            when pieces.atom_kind in ('cell', 'collection_tombstone') and pieces.column_kind = 'static'
                then 'static_upsert'
            when pieces.atom_kind in ('cell', 'row_marker', 'collection_tombstone') then 'clustered_upsert'
            else pieces.atom_kind
        end as piece_kind,
        -- "+1 compensation": an overwrite's tombstone (T-1) is logged at T, a DELETE's (T) at T+1
        pieces.write_timestamp + if(pieces.atom_kind = 'collection_tombstone', 1, 0) as change_ts,
        -- a live cell or marker keys on its TTL; dead cells and tombstones on "no TTL" (0)
        case
            when pieces.atom_kind in ('cell', 'row_marker') and pieces.is_live
                then coalesce(pieces.ttl_seconds, 0)
            else 0
        end as ttl_key,
        -- clustering position; a range's two rows both sort by its start bound
        {{ cdc_udf('cdc_clustering_sort_key') }}(
            case
                when pieces.atom_kind = 'range_tombstone' then pieces.range_start
                when
                    pieces.atom_kind in ('cell', 'row_marker', 'row_tombstone', 'collection_tombstone')
                    and pieces.column_kind is distinct from 'static'
                    then coalesce(pieces.clustering_key, '{}')
            end,
            base_tables.clustering_key_names,
            base_tables.clustering_key_types,
            base_tables.clustering_key_orders,
            case
                when pieces.atom_kind = 'range_tombstone'
                    then if(pieces.range_start_inclusive, 'start_inclusive', 'start_exclusive')
                else 'row'
            end
        ) as clustering_position,
        {{ cdc_udf('cdc_clustering_sort_key') }}(
            case when pieces.atom_kind = 'range_tombstone' then pieces.range_end end,
            base_tables.clustering_key_names,
            base_tables.clustering_key_types,
            base_tables.clustering_key_orders,
            if(pieces.range_end_inclusive, 'end_inclusive', 'end_exclusive')
        ) as range_end_position
    from pieces
    inner join base_tables
        on
            pieces.keyspace_name = base_tables.keyspace_name
            and pieces.table_name = base_tables.table_name

),

mutation_shape as (

    -- should_split (cdc/split.cc should_split_visitor) from whole-mutation facts
    select
        *,
        size(
            collect_set(if(atom_kind != 'partition_tombstone', change_ts, null))
                over mutation
        ) as distinct_timestamps,
        size(
            collect_set(if(atom_kind != 'partition_tombstone', ttl_key, null))
                over mutation
        ) as distinct_ttls,
        max(piece_kind = 'static_upsert') over mutation as has_static,
        max(piece_kind in ('clustered_upsert', 'row_tombstone')) over mutation as has_clustered,
        max(piece_kind = 'range_tombstone') over mutation as has_range,
        max(piece_kind = 'partition_tombstone') over mutation as has_partition_delete,
        -- a row delete visited after an upsert (same or earlier row in clustering order)
        coalesce(
            min(if(piece_kind = 'clustered_upsert', clustering_position, null)) over mutation
            <= max(if(piece_kind = 'row_tombstone', clustering_position, null)) over mutation,
            false
        ) as has_row_delete_after_upsert,
        -- a live collection element visited after a row marker: an INSERT cannot express it
        coalesce(
            min(if(atom_kind = 'row_marker', clustering_position, null)) over mutation
            <= max(if(element_key is not null and is_live, clustering_position, null)) over mutation,
            false
        ) as has_element_after_marker
    from keyed
    window mutation as (partition by write_id, keyspace_name, table_name, partition_key)

)

select
    *,
    -- the row an atom belongs to (images): the static row and the single row of a table
    -- without clustering key are the empty position
    case
        when piece_kind = 'static_upsert' or not has_clustering_key then X''
        else clustering_position
    end as row_position,
    distinct_timestamps != 1
    or distinct_ttls > 1
    or (has_static and (has_clustered or has_range or has_partition_delete))
    or has_row_delete_after_upsert
    or has_element_after_marker
    or (has_range and has_clustered)
    or (has_partition_delete and (has_range or has_clustered)) as is_split
from mutation_shape
