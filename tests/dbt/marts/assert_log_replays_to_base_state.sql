-- The round trip CDC replicators are tested with: replaying each table's log deltas (the way a
-- replicator applies them, timestamps taken from cdc$time) rebuilds the base-table state computed
-- directly from the accepted mutations, cell by cell, with write timestamps and TTLs.
-- Checked batch by batch: the batch's log replayed on the state carried from earlier batches
-- (int_base_state, before this build merges the batch in) must give the state the batch's
-- mutations give. Tables with `delta: keys` are left out (their log carries no values).
-- Returns the cells on which the two states differ.
with

replayable_tables as (

    -- tables whose log carries values in every schema version that logs
    select tables.*
    from {{ ref('int_base_tables_described') }} as tables
    left anti join (
        select
            keyspace_name,
            table_name
        from {{ ref('int_base_tables_described') }}
        where cdc_enabled and cdc_delta = 'keys'
    ) as keys_only
        on tables.keyspace_name = keys_only.keyspace_name and tables.table_name = keys_only.table_name
    where tables.is_latest_version

),

base_columns as (

    -- each column as its newest schema version has it
    select * from (
        select
            *,
            row_number() over (
                partition by keyspace_name, table_name, column_name order by schema_version desc
            ) as newest_first
        from {{ ref('int_base_columns_described') }}
    ) as versions
    where newest_first = 1

),

accepted_writes as (

    select write_id from {{ ref('int_writes_admitted') }}
    where status = 'accepted'

),

-- the state from the mutations ------------------------------------------------------------

batch_logged_atoms as (

    select * from {{ cdc_batch_state_atoms() }} as batch
    where batch.cdc_enabled

),

logged_atoms as (

    -- the batch's accepted atoms of CDC-enabled schema versions, and the carried state's of
    -- the partitions they write (elsewhere the earlier batches' checks hold)
    select * from {{ cdc_batch_and_carried_atoms('batch_logged_atoms') }} as atoms
    where atoms.cdc_enabled

),

logged_facts as (

    select
        atoms.is_carried,
        atoms.keyspace_name,
        atoms.table_name,
        {{ cdc_json_object(cdc_udf('cdc_json_members') ~ '(atoms.partition_key)') }} as partition_id,
        coalesce(atoms.column_kind = 'static', false) as is_static,
        if(coalesce(atoms.column_kind = 'static', false), X'', atoms.clustering_position) as row_position,
        atoms.atom_kind as fact_kind,
        atoms.column_name,
        {{ cdc_json_text('atoms.element_key') }} as element_key,
        coalesce(atoms.is_live, false) as is_live,
        {{ cdc_json_text('atoms.value') }} as value,
        atoms.write_timestamp as ts,
        if(atoms.is_live, nullif(atoms.ttl_seconds, 0), null) as ttl,
        atoms.clustering_position as start_position,
        atoms.range_end_position as end_position
    from logged_atoms as atoms
    inner join replayable_tables
        on
            atoms.keyspace_name = replayable_tables.keyspace_name
            and atoms.table_name = replayable_tables.table_name
    -- the log has no column for the hidden value column of a dense COMPACT STORAGE table
    left anti join base_columns as unlogged_columns
        on
            atoms.keyspace_name = unlogged_columns.keyspace_name
            and atoms.table_name = unlogged_columns.table_name
            and atoms.column_name = unlogged_columns.column_name
            and not unlogged_columns.is_logged

),

mutation_facts as (

    select
        keyspace_name, table_name, partition_id, is_static, row_position, fact_kind, column_name,
        element_key, is_live, value, ts, ttl, start_position, end_position
    from logged_facts

),

carried_facts as (

    select
        keyspace_name, table_name, partition_id, is_static, row_position, fact_kind, column_name,
        element_key, is_live, value, ts, ttl, start_position, end_position
    from logged_facts
    where is_carried

),

{{ cdc_live_cells('mutation_facts', 'mutation_state') }},

-- the state from the log ------------------------------------------------------------------

log_cells as (

    select
        log.*,
        {{ cdc_timeuuid_micros('log.`cdc$time`') }} as ts,
        regexp_extract(log.column_name, '^(cdc\\$deleted_elements_|cdc\\$deleted_)?(.*)$', 2) as base_column,
        case
            when log.column_name like 'cdc$deleted\\_elements\\_%' then 'deleted_elements'
            when log.column_name like 'cdc$deleted\\_%' then 'deleted'
            else 'value'
        end as role
    from {{ ref('cdc_log') }} as log
    left semi join accepted_writes
        on log.write_id = accepted_writes.write_id
    inner join replayable_tables
        on
            log.keyspace_name = replayable_tables.keyspace_name
            and log.table_name = replayable_tables.table_name
    -- the deltas, the per-row TTL expiration service's deletes (-3, -4) included
    where abs(log.`cdc$operation`) between 1 and 8

),

log_cells_described as (

    select
        log_cells.*,
        base_columns.kind,
        base_columns.is_multi_cell,
        base_columns.is_multi_cell_user_type,
        base_columns.element_value_type is not null as is_keyed,
        base_columns.udt_field_names
    from log_cells
    inner join base_columns
        on
            log_cells.keyspace_name = base_columns.keyspace_name
            and log_cells.table_name = base_columns.table_name
            and log_cells.base_column = base_columns.column_name

),

log_rows as (

    select
        log_cells_described.keyspace_name,
        log_cells_described.table_name,
        log_cells_described.`cdc$stream_id`,
        log_cells_described.`cdc$time`,
        log_cells_described.`cdc$batch_seq_no`,
        -- a replicator applies the service's deletes (-3, -4) as row and partition deletes
        abs(log_cells_described.`cdc$operation`) as operation,
        {{ cdc_json_object(
            "map_from_entries(collect_list(if(kind = 'partition_key', struct(column_name, value), null)))"
        ) }} as partition_id,
        {{ cdc_json_object(
            "map_from_entries(collect_list(if(kind = 'clustering', struct(column_name, value), null)))"
        ) }} as clustering_json,
        -- the cell that carries the row's own facts (every log row has partition key cells)
        min(log_cells_described.column_name) as first_column_name
    from log_cells_described
    group by 1, 2, 3, 4, 5, 6

),

log_rows_placed as (

    select
        log_rows.*,
        {{ cdc_udf('cdc_clustering_sort_key') }}(
            -- partition deletes and static rows have no clustering position
            case
                when log_rows.operation = 4 then null
                when
                    log_rows.operation in (1, 2) and tables.has_clustering_key
                    and log_rows.clustering_json = '{}' then null
                else log_rows.clustering_json
            end,
            tables.clustering_key_names, tables.clustering_key_types,
            tables.clustering_key_orders,
            case log_rows.operation
                when 5 then 'start_inclusive' when 6 then 'start_exclusive'
                when 7 then 'end_inclusive' when 8 then 'end_exclusive' else 'row'
            end
        ) as position
    from log_rows
    inner join replayable_tables as tables
        on
            log_rows.keyspace_name = tables.keyspace_name
            and log_rows.table_name = tables.table_name

),

log_rows_sequenced as (

    -- each row with the next row of its change: a range delete's end row follows its start row
    select
        *,
        lead(struct(`cdc$batch_seq_no` as batch_seq_no, operation, position)) over (
            partition by keyspace_name, table_name, `cdc$stream_id`, `cdc$time`
            order by `cdc$batch_seq_no`
        ) as next_row
    from log_rows_placed

),

log_cells_placed as (

    -- each cell with its row: the rows are planned once per use of the facts (they come out
    -- of one generator below), so the clustering-position UDF runs once per log row for each
    -- of the two references cdc_live_cells makes
    select
        cells.*,
        rows.partition_id,
        rows.operation,
        rows.position,
        rows.next_row,
        cells.column_name = rows.first_column_name as carries_row_facts,
        -- where a cell fact lands: the static row or the log row's clustered row
        cells.kind = 'static' as cell_is_static,
        if(cells.kind = 'static', X'', rows.position) as cell_row_position
    from log_cells_described as cells
    inner join log_rows_sequenced as rows
        on
            cells.keyspace_name = rows.keyspace_name
            and cells.table_name = rows.table_name
            and cells.`cdc$stream_id` = rows.`cdc$stream_id`
            and cells.`cdc$time` = rows.`cdc$time`
            and cells.`cdc$batch_seq_no` = rows.`cdc$batch_seq_no`

),

log_facts as (

    select
        cells.keyspace_name,
        cells.table_name,
        cells.partition_id,
        fact.is_static,
        fact.row_position,
        fact.fact_kind,
        fact.column_name,
        fact.element_key,
        fact.is_live,
        fact.value,
        fact.ts,
        fact.ttl,
        fact.start_position,
        fact.end_position
    from log_cells_placed as cells
        lateral view inline(concat(
            -- the row's facts, from one of its cells
            if(cells.carries_row_facts, case
                -- an INSERT's row marker
                when cells.operation = 2 then array({{ cdc_write_fact(
                    'false', 'cells.position', "'row_marker'", is_live='true', ts='cells.ts',
                    ttl='cells.`cdc$ttl`'
                ) }})
                -- row and partition deletes
                when cells.operation in (3, 4) then array({{ cdc_write_fact(
                    'false', 'cells.position', "if(cells.operation = 3, 'row_tombstone', 'partition_tombstone')",
                    is_live='false', ts='cells.ts'
                ) }})
                -- a range delete: its start row and the end row that follows it
                when
                    cells.operation in (5, 6) and cells.next_row.operation in (7, 8)
                    and cells.next_row.batch_seq_no = cells.`cdc$batch_seq_no` + 1
                    then array({{ cdc_write_fact(
                        'false', 'null', "'range_tombstone'", is_live='false', ts='cells.ts',
                        start_position='cells.position', end_position='cells.next_row.position'
                    ) }})
                else array()
            end, array()),
            -- the cell's facts (static and regular columns)
            coalesce(case
                when cells.kind not in ('static', 'regular') then array()
                -- atomic columns: a value, or cdc$deleted_<c> for a dead cell
                when not cells.is_multi_cell then array({{ cdc_write_fact(
                    'cells.cell_is_static', 'cells.cell_row_position', "'cell'",
                    column_name='cells.base_column', is_live="cells.role = 'value'",
                    value="if(cells.role = 'value', " ~ cdc_json_text('cells.value') ~ ", null)", ts='cells.ts',
                    ttl="if(cells.role = 'value', cells.`cdc$ttl`, null)"
                ) }})
                -- cdc$deleted_<c> of a collection: its tombstone, one microsecond before the change
                when cells.role = 'deleted' then array({{ cdc_write_fact(
                    'cells.cell_is_static', 'cells.cell_row_position',
                    "'collection_tombstone'", column_name='cells.base_column', is_live='false',
                    ts='cells.ts - 1'
                ) }})
                -- cdc$deleted_elements_<c>: removed elements
                when cells.role = 'deleted_elements' then transform(
                    from_json(cells.value, 'struct<set: array<string>>').set,
                    removed -> {{ cdc_write_fact(
                        'cells.cell_is_static', 'cells.cell_row_position', "'cell'",
                        column_name='cells.base_column', element_key='removed', is_live='false', ts='cells.ts'
                    ) }}
                )
                -- user type fields with a value, keyed by their index
                when cells.is_multi_cell_user_type then transform(
                    filter(
                        map_entries(from_json(cells.value, 'struct<udt: map<string, string>>').udt),
                        field -> field.value is not null
                    ),
                    field -> {{ cdc_write_fact(
                        'cells.cell_is_static', 'cells.cell_row_position', "'cell'",
                        column_name='cells.base_column',
                        element_key='array_position(cells.udt_field_names, field.key) - 1',
                        is_live='true', value='field.value', ts='cells.ts', ttl='cells.`cdc$ttl`'
                    ) }}
                )
                -- added map and list entries
                when cells.is_keyed then transform(
                    from_json(cells.value, 'struct<map: array<array<string>>>').map,
                    entry -> {{ cdc_write_fact(
                        'cells.cell_is_static', 'cells.cell_row_position', "'cell'",
                        column_name='cells.base_column', element_key='entry[0]', is_live='true',
                        value='entry[1]', ts='cells.ts', ttl='cells.`cdc$ttl`'
                    ) }}
                )
                -- added set elements
                else transform(
                    from_json(cells.value, 'struct<set: array<string>>').set,
                    element -> {{ cdc_write_fact(
                        'cells.cell_is_static', 'cells.cell_row_position', "'cell'",
                        column_name='cells.base_column', element_key='element', is_live='true',
                        ts='cells.ts', ttl='cells.`cdc$ttl`'
                    ) }}
                )
            end, array())
        )) fact

),

log_and_carried_facts as (

    select * from log_facts
    union all
    select * from carried_facts

),

{{ cdc_live_cells('log_and_carried_facts', 'log_state') }}

select
    coalesce(mutation_state.keyspace_name, log_state.keyspace_name) as keyspace_name,
    coalesce(mutation_state.table_name, log_state.table_name) as table_name,
    coalesce(mutation_state.partition_id, log_state.partition_id) as partition_id,
    coalesce(mutation_state.column_name, log_state.column_name) as column_name,
    coalesce(mutation_state.element_key, log_state.element_key) as element_key,
    mutation_state.value as value_from_mutations,
    log_state.value as value_from_log,
    mutation_state.ts as timestamp_from_mutations,
    log_state.ts as timestamp_from_log,
    mutation_state.ttl as ttl_from_mutations,
    log_state.ttl as ttl_from_log
from mutation_state
full outer join log_state
    on
        mutation_state.keyspace_name = log_state.keyspace_name
        and mutation_state.table_name = log_state.table_name
        and mutation_state.partition_id = log_state.partition_id
        and mutation_state.is_static = log_state.is_static
        and mutation_state.row_position = log_state.row_position
        and mutation_state.column_name <=> log_state.column_name
        and mutation_state.element_key <=> log_state.element_key
where
    not (mutation_state.value <=> log_state.value)
    or not (mutation_state.ts <=> log_state.ts)
    or not (mutation_state.ttl <=> log_state.ttl)
    or mutation_state.keyspace_name is null
    or log_state.keyspace_name is null
