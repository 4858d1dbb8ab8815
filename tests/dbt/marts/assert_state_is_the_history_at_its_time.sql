-- The state tables and the history tables agree: the live cells of the replayed state
-- (int_log_replay_cells: the winners that no tombstone or expiry removed by its time) are the
-- cells of the history's versions valid at that time (int_log_replay_versions: each cell's
-- validity interval). Two constructions from the same facts; returns the cells they differ on.
with

as_of as (

    select {{ cdc_replay_as_of_us() }} as as_of_us

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

select
    coalesce(history_cells.keyspace_name, state_cells.keyspace_name) as keyspace_name,
    coalesce(history_cells.table_name, state_cells.table_name) as table_name,
    coalesce(history_cells.partition_id, state_cells.partition_id) as partition_id,
    coalesce(history_cells.column_name, state_cells.column_name) as column_name,
    history_cells.value as value_in_history,
    state_cells.value as value_in_state,
    history_cells.ts as timestamp_in_history,
    state_cells.ts as timestamp_in_state
from history_cells
full outer join state_cells
    on
        history_cells.keyspace_name = state_cells.keyspace_name
        and history_cells.table_name = state_cells.table_name
        and history_cells.partition_id = state_cells.partition_id
        and history_cells.is_static = state_cells.is_static
        and history_cells.row_position = state_cells.row_position
        and history_cells.column_name <=> state_cells.column_name
        and history_cells.element_key <=> state_cells.element_key
where
    not (history_cells.value <=> state_cells.value)
    or not (history_cells.ts <=> state_cells.ts)
    or not (history_cells.ttl <=> state_cells.ttl)
    or history_cells.keyspace_name is null
    or state_cells.keyspace_name is null
