{#- The pre-image read: each row a write touches, before the write (see _images__models.yml). -#}
{{ config(materialized='table') }}
with

atoms as (

    select * from {{ ref('int_image_read_atoms') }}

),

rows_read as (

    select * from {{ ref('int_image_rows_read') }}

),

live_cells as (

    select * from {{ ref('int_image_read_cells') }}

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
