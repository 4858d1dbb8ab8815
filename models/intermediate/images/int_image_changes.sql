{#- The deltas of the writes to tables with images, by change group (see _images__models.yml). -#}
with

image_tables as (

    select * from {{ ref('int_base_tables_described') }}
    where has_images

)

select
    changes.write_id,
    changes.keyspace_name,
    changes.table_name,
    changes.partition_key,
    changes.change_ts,
    dense_rank() over (
        partition by changes.write_id, changes.keyspace_name, changes.table_name, changes.partition_key
        order by changes.change_ts
    ) as group_no,
    changes.schema_version,
    image_tables.cdc_preimage,
    image_tables.cdc_postimage,
    changes.piece_kind,
    changes.piece_kind = 'static_upsert' as is_static,
    changes.row_position,
    changes.clustering_prefix,
    changes.clustering_prefix_members,
    changes.partition_key_members,
    changes.clustering_position,
    changes.range_end_position,
    changes.atom_kind,
    changes.column_name,
    changes.element_key,
    changes.is_live,
    changes.value
from {{ ref('int_log_changes_ordered') }} as changes
inner join image_tables
    on
        changes.keyspace_name = image_tables.keyspace_name
        and changes.table_name = image_tables.table_name
        and changes.schema_version = image_tables.schema_version
where changes.piece_kind != 'range_tombstone' or changes.operation in (5, 6)
