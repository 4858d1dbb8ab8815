{#- The atoms the pre-image reads are made of (see _images__models.yml). -#}
{{ config(materialized='table') }}
with

table_versions as (

    select
        *,
        max(has_images) over (partition by keyspace_name, table_name) as ever_has_images
    from {{ ref('int_base_tables_described') }}

),

batch_atoms as (

    select * from {{ cdc_batch_state_atoms(ref('int_batch_atoms')) }} as batch

),

batch_and_carried_atoms as (

    -- the batch's accepted atoms and the state carried from earlier batches (write ids below
    -- the batch's) of the partitions the batch writes
    select * from {{ cdc_batch_and_carried_atoms('batch_atoms', ref('int_build_batch')) }} as atoms

)

select
    keyed.write_id,
    keyed.keyspace_name,
    keyed.table_name,
    keyed.partition_key,
    keyed.is_carried,
    keyed.has_clustering_key,
    keyed.piece_kind,
    keyed.atom_kind,
    keyed.column_name,
    keyed.element_key,
    keyed.is_live,
    keyed.value,
    keyed.write_timestamp,
    keyed.ttl_seconds,
    keyed.coordinator_now_us,
    keyed.clustering_position,
    keyed.range_end_position,
    keyed.row_position,
    keyed.bound_prefix,
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
