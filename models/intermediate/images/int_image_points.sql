{#- Where a write's pre- and post-images may be taken (see _images__models.yml). -#}
with

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
        -- the columns of that prefix and of the partition key: the image rows' key cells
        first(if(piece_kind in ('clustered_upsert', 'row_tombstone'), clustering_prefix_members, null), true)
            as clustering_prefix_members,
        first(partition_key_members) as partition_key_members,
        max(piece_kind in ('static_upsert', 'clustered_upsert')) as is_upserted,
        max(piece_kind in ('row_tombstone', 'partition_tombstone')) as is_deleted,
        collect_set(column_name) as columns_written
    from {{ ref('int_image_changes') }}
    where
        piece_kind in ('static_upsert', 'clustered_upsert', 'row_tombstone')
        or (piece_kind = 'partition_tombstone' and row_position = X'')
    group by
        write_id, keyspace_name, table_name, partition_key, change_ts, group_no,
        schema_version, cdc_preimage, cdc_postimage, is_static, row_position

),

points as (

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

)

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
    clustering_prefix,
    clustering_prefix_members,
    partition_key_members,
    is_upserted,
    is_deleted,
    columns_written,
    image_kind,
    state_position
from points
