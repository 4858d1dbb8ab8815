{#- The versions (SCD2) of every base row the log rebuilds (see _replay__models.yml). -#}
{%- set all_facts = ref('int_log_replay_facts') -%}
{%- set mark = cdc_versions_mark() -%}
{{ config(
    materialized='incremental' if cdc_rewrites_replayed_partitions() else 'table',
    incremental_strategy='append',
    on_schema_change='fail',
    pre_hook="{{ cdc_delete_replayed_versions(ref('int_log_replay_facts')) }}",
) }}

with

facts as (

    select all_facts.*
    from {{ all_facts }} as all_facts
    {% if is_incremental() %}
        -- the partitions with facts replayed since this table's last build
        where {{ cdc_in_partitions_replayed_after('all_facts', all_facts, mark) }}
    {% endif %}

),

cell_facts as (

    -- one fact per cell and timestamp: the one ScyllaDB keeps on a tie (a deletion, then the
    -- greater value)
    select
        facts.keyspace_name,
        facts.table_name,
        facts.partition_id,
        facts.is_static,
        facts.row_position,
        facts.column_name,
        facts.element_key,
        facts.ts,
        max(struct(
            not facts.is_live as is_dead, facts.value, facts.ttl, facts.row_clustering,
            named_struct(
                'cdc_time', facts.`cdc$time`, 'batch_seq_no', facts.`cdc$batch_seq_no`,
                'operation', cast(facts.operation as int)
            ) as log_change
        )) as written
    from facts
    where facts.fact_kind in ('cell', 'row_marker')
    group by
        facts.keyspace_name, facts.table_name, facts.partition_id, facts.is_static, facts.row_position,
        facts.column_name, facts.element_key, facts.ts

),

cell_sequence as (

    select
        cell_facts.*,
        lead(struct(cell_facts.ts, cell_facts.written.log_change)) over (
            partition by
                cell_facts.keyspace_name, cell_facts.table_name, cell_facts.partition_id, cell_facts.is_static,
                cell_facts.row_position, cell_facts.column_name, cell_facts.element_key
            order by cell_facts.ts
        ) as next_write
    from cell_facts

),

tombstones as (

    select
        facts.keyspace_name,
        facts.table_name,
        facts.partition_id,
        facts.is_static,
        facts.row_position,
        facts.fact_kind,
        facts.column_name,
        facts.ts,
        facts.start_position,
        facts.end_position,
        named_struct(
            'cdc_time', facts.`cdc$time`, 'batch_seq_no', facts.`cdc$batch_seq_no`,
            'operation', cast(facts.operation as int)
        ) as log_change
    from facts
    where facts.fact_kind not in ('cell', 'row_marker')

),

live_cells_ended as (

    -- each live cell with the first tombstone at or after it that covers it
    select
        cells.keyspace_name,
        cells.table_name,
        cells.partition_id,
        cells.is_static,
        cells.row_position,
        cells.column_name,
        cells.element_key,
        cells.ts,
        cells.written,
        cells.next_write,
        min(struct(deletions.ts, deletions.log_change)) as first_tombstone
    from cell_sequence as cells
    left join tombstones as deletions
        on
            cells.keyspace_name = deletions.keyspace_name
            and cells.table_name = deletions.table_name
            and cells.partition_id = deletions.partition_id
            and cells.ts <= deletions.ts
            and {{ cdc_tombstone_covers('deletions', 'cells') }}
    where not cells.written.is_dead
    group by
        cells.keyspace_name, cells.table_name, cells.partition_id, cells.is_static, cells.row_position,
        cells.column_name, cells.element_key, cells.ts, cells.written, cells.next_write

),

cell_intervals as (

    -- when each live cell is valid, and what ends it (the earliest of the three)
    select
        cells.keyspace_name,
        cells.table_name,
        cells.partition_id,
        cells.is_static,
        cells.row_position,
        cells.written.row_clustering,
        cells.column_name,
        cells.element_key,
        cells.written.value,
        cells.ts,
        cells.written.ttl,
        cells.ts as valid_from_us,
        cells.written.log_change as started_by,
        array_min(filter(array(
            named_struct('at_us', cells.next_write.ts, 'is_expiry', false, 'log_change', cells.next_write.log_change),
            named_struct(
                'at_us', cells.ts + cells.written.ttl * 1000000, 'is_expiry', true,
                'log_change', cast(null as struct<cdc_time: string, batch_seq_no: int, operation: int>)
            ),
            named_struct(
                'at_us', cells.first_tombstone.ts, 'is_expiry', false,
                'log_change', cells.first_tombstone.log_change
            )
        ), ending -> ending.at_us is not null)) as ended_by
    from live_cells_ended as cells

),

valid_cells as (

    -- a cell deleted at its own timestamp never was
    select cell_intervals.*
    from cell_intervals
    where cell_intervals.ended_by is null or cell_intervals.ended_by.at_us > cell_intervals.valid_from_us

),

row_changes as (

    -- every time one of a row's cells starts or ends, with the change behind it (a logged
    -- change before an expiry at the same time)
    select
        valid_cells.keyspace_name,
        valid_cells.table_name,
        valid_cells.partition_id,
        valid_cells.is_static,
        valid_cells.row_position,
        boundary.at_us,
        min(struct(boundary.is_expiry, boundary.log_change)) as cause,
        max(valid_cells.row_clustering) as row_clustering
    from valid_cells
        lateral view inline(filter(array(
            named_struct(
                'at_us', valid_cells.valid_from_us, 'is_expiry', false, 'log_change', valid_cells.started_by
            ),
            valid_cells.ended_by
        ), edge -> edge is not null)) boundary
    group by
        valid_cells.keyspace_name, valid_cells.table_name, valid_cells.partition_id, valid_cells.is_static,
        valid_cells.row_position, boundary.at_us

),

versions as (

    select
        row_changes.keyspace_name,
        row_changes.table_name,
        row_changes.partition_id,
        row_changes.is_static,
        row_changes.row_position,
        max(row_changes.row_clustering) over (
            partition by
                row_changes.keyspace_name, row_changes.table_name, row_changes.partition_id,
                row_changes.is_static, row_changes.row_position
        ) as row_clustering,
        row_changes.at_us as valid_from_us,
        lead(row_changes.at_us) over (
            partition by
                row_changes.keyspace_name, row_changes.table_name, row_changes.partition_id,
                row_changes.is_static, row_changes.row_position
            order by row_changes.at_us
        ) as valid_to_us,
        row_changes.cause.is_expiry,
        row_changes.cause.log_change
    from row_changes

)

select
    versions.keyspace_name,
    versions.table_name,
    versions.partition_id,
    versions.is_static,
    versions.row_position,
    versions.row_clustering,
    versions.valid_from_us,
    versions.valid_to_us,
    cells.ts is null as is_deletion,
    versions.is_expiry,
    versions.log_change.cdc_time as `cdc$time`,
    versions.log_change.batch_seq_no as `cdc$batch_seq_no`,
    versions.log_change.operation as `cdc$operation`,
    cells.column_name,
    cells.element_key,
    cells.value,
    cells.ts,
    cells.ttl,
    {{ cdc_replayed_through(all_facts) }} as replayed_at_us
from versions
left join valid_cells as cells
    on
        versions.keyspace_name = cells.keyspace_name
        and versions.table_name = cells.table_name
        and versions.partition_id = cells.partition_id
        and versions.is_static = cells.is_static
        and versions.row_position = cells.row_position
        and versions.valid_from_us >= cells.valid_from_us
        and (cells.ended_by is null or versions.valid_from_us < cells.ended_by.at_us)
