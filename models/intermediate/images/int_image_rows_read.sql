{#- The rows each write with images reads (see _images__models.yml). -#}
select
    write_id,
    coordinator_now_us,
    keyspace_name,
    table_name,
    partition_key,
    is_static,
    row_position,
    max(if(piece_kind in ('clustered_upsert', 'row_tombstone'), bound_prefix, null)) as clustering_prefix
from {{ ref('int_image_read_atoms') }}
where
    has_images and not is_carried
    and (
        piece_kind in ('static_upsert', 'clustered_upsert', 'row_tombstone')
        or (piece_kind = 'partition_tombstone' and not has_clustering_key)
    )
group by write_id, coordinator_now_us, keyspace_name, table_name, partition_key, is_static, row_position
