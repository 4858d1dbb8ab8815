-- The state tables and the history tables agree: the live cells of the replayed state
-- (int_log_replay_cells: the winners that no tombstone or expiry removed by its time) are the
-- cells of the history's versions valid at that time (int_log_replay_versions: each cell's
-- validity interval). Two constructions from the same facts; returns the cells they differ on.
-- A whole-table check: `cdclake check` runs it (tag whole_table), builds do not.
{{ config(tags=['whole_table']) }}
with

as_of as (

    select {{ cdc_replay_as_of_us(ref('int_log_replay_facts')) }} as as_of_us

),

history_cells as (

    select
        versions.keyspace_name,
        versions.table_name,
        versions.partition_id,
        versions.is_static,
        versions.row_position,
        versions.column_name,
        versions.element_key,
        versions.value,
        versions.ts,
        versions.ttl
    from {{ ref('int_log_replay_versions') }} as versions
    cross join as_of
    where
        not versions.is_deletion
        and versions.valid_from_us <= as_of.as_of_us
        and (versions.valid_to_us is null or versions.valid_to_us > as_of.as_of_us)

),

state_cells as (

    select
        keyspace_name, table_name, partition_id, is_static, row_position, column_name, element_key, value, ts, ttl
    from {{ ref('int_log_replay_cells') }}

)

{{ cdc_cell_differences('history_cells', 'state_cells', 'in_history', 'in_state') }}
