{#- The batch's atoms keyed as ScyllaDB's CDC splits a mutation (see _writes__models.yml). -#}
with

atoms as (

    select * from {{ ref('int_writes_validated') }}

),

base_tables as (

    -- key columns never change across schema versions
    select * from {{ ref('int_base_tables_described') }}
    where is_latest_version

),

pieces as (

    -- a range tombstone is logged as two rows (start bound, end bound): one piece each; one
    -- shuffle by write: every window after this step is over the write or a part of it
    select /*+ repartition(atoms.write_id) */
        atoms.*,
        bound.bound_side,
        bound.bound_prefix,
        bound.bound_kind
    from atoms
        lateral view explode(
            case
                when atoms.atom_kind = 'range_tombstone'
                    then array(
                        named_struct(
                            'bound_side', 'start', 'bound_prefix', atoms.range_start,
                            'bound_kind', if(atoms.range_start_inclusive, 'start_inclusive', 'start_exclusive')
                        ),
                        named_struct(
                            'bound_side', 'end', 'bound_prefix', atoms.range_end,
                            'bound_kind', if(atoms.range_end_inclusive, 'end_inclusive', 'end_exclusive')
                        )
                    )
                else array(named_struct(
                    'bound_side', cast(null as string), 'bound_prefix', atoms.clustering_key, 'bound_kind', 'row'
                ))
            end
        ) bounds as bound

),

position_inputs as (

    -- what a piece's clustering positions are computed from: a range's two rows both sort by
    -- its start bound, and it has an end position; a clustered row atom's position is its
    -- row's; static and partition atoms have none
    select
        pieces.*,
        case
            when pieces.atom_kind = 'range_tombstone' then pieces.range_start
            when
                pieces.atom_kind in ('cell', 'row_marker', 'row_tombstone', 'collection_tombstone')
                and pieces.column_kind is distinct from 'static'
                then coalesce(pieces.clustering_key, '{}')
        end as position_key,
        case
            when pieces.atom_kind = 'range_tombstone'
                then if(pieces.range_start_inclusive, 'start_inclusive', 'start_exclusive')
            else 'row'
        end as position_bound,
        case when pieces.atom_kind = 'range_tombstone' then pieces.range_end end as end_position_key,
        if(pieces.range_end_inclusive, 'end_inclusive', 'end_exclusive') as end_position_bound
    from pieces

),

clustering_positions as (

    -- each distinct key and bound of the batch once through the sort-key UDF (a clustering key
    -- repeats for every cell of its row and every write of its row); a null key is the static
    -- row (bound row: the empty key) or an open bound. Computed from the atoms' own columns
    -- only (invalid writes' keys too: the UDF gives them null), so that this branch does not
    -- run the validation again
    select
        distinct_keys.keyspace_name,
        distinct_keys.table_name,
        distinct_keys.key_json,
        distinct_keys.bound,
        {{ cdc_udf('cdc_clustering_sort_key') }}(
            distinct_keys.key_json,
            base_tables.clustering_key_names,
            base_tables.clustering_key_types,
            base_tables.clustering_key_orders,
            distinct_keys.bound
        ) as position
    from (
        select distinct
            keyspace_name,
            table_name,
            position_key as key_json,
            position_bound as bound
        from position_inputs
        union
        select distinct
            keyspace_name,
            table_name,
            end_position_key as key_json,
            end_position_bound as bound
        from position_inputs
    ) as distinct_keys
    inner join base_tables
        on
            distinct_keys.keyspace_name = base_tables.keyspace_name
            and distinct_keys.table_name = base_tables.table_name

),

keyed as (

    select /*+ broadcast(start_positions, end_positions) */
        pieces.*,
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
        start_positions.position as clustering_position,
        end_positions.position as range_end_position
    from position_inputs as pieces
    -- an invalid write's atom may name an unknown table
    left join base_tables
        on
            pieces.keyspace_name = base_tables.keyspace_name
            and pieces.table_name = base_tables.table_name
    left join clustering_positions as start_positions
        on
            pieces.write_problem is null
            and pieces.keyspace_name = start_positions.keyspace_name
            and pieces.table_name = start_positions.table_name
            and pieces.position_key <=> start_positions.key_json
            and pieces.position_bound = start_positions.bound
    left join clustering_positions as end_positions
        on
            pieces.write_problem is null
            and pieces.keyspace_name = end_positions.keyspace_name
            and pieces.table_name = end_positions.table_name
            and pieces.end_position_key <=> end_positions.key_json
            and pieces.end_position_bound = end_positions.bound

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
