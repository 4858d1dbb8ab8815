{#- The accepted writes' atoms placed in their log rows, in order (see _log__models.yml). -#}
{{ config(materialized='table') }}
with

keyed_atoms as (

    -- one shuffle by write: every window below is over a part of a write
    select /*+ repartition(write_id) */ * from {{ ref('int_batch_atoms') }}
    where write_status = 'accepted' and cdc_enabled

),

with_marker as (

    select
        *,
        -- a change that carries a live row marker is an INSERT (op 2)
        max(atom_kind = 'row_marker' and is_live) over change as has_live_marker,
        max(atom_kind = 'collection_tombstone') over (change_column) as column_has_tombstone
    from keyed_atoms
    window
        change as (
            partition by
                write_id, keyspace_name, table_name, partition_key, change_ts,
                piece_kind, clustering_position, ttl_key
        ),
        change_column as (
            partition by
                write_id, keyspace_name, table_name, partition_key, change_ts,
                piece_kind, clustering_position, ttl_key, column_name
        )

),

inserts_split as (

    -- an INSERT cannot express "add elements": a collection's elements without the column's
    -- tombstone in the same change go to one extra UPDATE of the same key (cdc/split.cc)
    select
        *,
        has_live_marker and not (element_key is not null and not column_has_tombstone) as is_insert
    from with_marker

),

classified as (

    select
        *,
        case piece_kind
            when 'static_upsert' then 1
            when 'clustered_upsert' then if(is_insert, 2, 1)
            -- the per-row TTL expiration service's deletes are "service" deletes (cdc/log.cc)
            when 'row_tombstone' then if(origin = 'ttl_expiry', -3, 3)
            when 'range_tombstone'
                then
                    case bound_kind
                        when 'start_inclusive' then 5
                        when 'start_exclusive' then 6
                        when 'end_inclusive' then 7
                        when 'end_exclusive' then 8
                    end
            when 'partition_tombstone' then if(origin = 'ttl_expiry', -4, 4)
        end as operation,
        -- split path: static, INSERTs, UPDATEs, row deletes, range deletes, partition delete;
        -- unsplit path: visitation order (static, clustered rows by key, ranges, partition)
        case
            when piece_kind = 'static_upsert' then 0
            when piece_kind = 'clustered_upsert' and is_split then if(is_insert, 1, 2)
            when piece_kind = 'row_tombstone' and is_split then 3
            when piece_kind in ('clustered_upsert', 'row_tombstone') then 1
            when piece_kind = 'range_tombstone' then 4
            when piece_kind = 'partition_tombstone' then 5
        end as emission_rank
    from inserts_split

),

numbered as (

    select
        *,
        dense_rank() over (
            partition by write_id, keyspace_name, table_name, partition_key, change_ts
            order by
                emission_rank asc, clustering_position asc, ttl_key asc, range_end_position asc,
                bound_side desc
        ) - 1 as batch_seq_no
    from classified

),

ordered as (

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        batch_seq_no,
        batch_seq_no = max(batch_seq_no) over (
            partition by write_id, keyspace_name, table_name, partition_key, change_ts
        ) as is_end_of_batch,
        operation,
        case when piece_kind in ('static_upsert', 'clustered_upsert') then nullif(ttl_key, 0) end
            as cdc_ttl,
        -- the JSON clustering prefix the log row carries (full key, a range bound, or none)
        case
            when piece_kind in ('clustered_upsert', 'row_tombstone', 'range_tombstone') then bound_prefix
        end as clustering_prefix,
        atom_kind,
        column_name,
        is_live,
        value,
        element_key,
        piece_kind,
        clustering_position,
        range_end_position,
        row_position,
        schema_version,
        is_split,
        partition_key_members,
        stream_id,
        cdc_time
    from numbered

),

clustering_prefixes as (

    -- each distinct clustering prefix of the batch's log rows once through the UDF
    select
        prefixes.clustering_prefix,
        {{ cdc_udf('cdc_json_members') }}(prefixes.clustering_prefix) as clustering_prefix_members
    from (
        select distinct clustering_prefix
        from ordered
        where clustering_prefix is not null
    ) as prefixes

)

select /*+ broadcast(clustering_prefixes) */
    ordered.*,
    clustering_prefixes.clustering_prefix_members
from ordered
left join clustering_prefixes
    on ordered.clustering_prefix = clustering_prefixes.clustering_prefix
