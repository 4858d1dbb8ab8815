{#- The CDC log replayed as a replicator applies it: its write facts (see _replay__models.yml). -#}
{%- set logged_through = cdc_logged_through_write_id() -%}
{%- set imported_log = ref('stg_cdc_input__imported_log') -%}
{%- do cdc_refuse_switched_log_sources(imported_log) -%}
{{ config(
    materialized='incremental',
    incremental_strategy='append',
    on_schema_change='fail',
    post_hook=["{{ cdc_mark_logged_through(ref('int_batch_atoms')) }}", "{{ cdc_mark_newest_change() }}"],
) }}

with

replayable_tables as (

    select * from {{ cdc_replayable_tables(ref('int_base_tables_described')) }} as tables

),

base_columns as (

    select * from {{ cdc_newest_base_columns(ref('int_base_columns_described')) }} as base_columns

),

recent_writes as (

    {{ cdc_writes_to_add(logged_through, ref('int_batch_atoms')) }}

),

recent_log as (

    -- this batch's log rows, and every imported log row (the anti join at the end leaves out
    -- the facts of those replayed before)
    select replayed.*
    from {{ cdc_replayed_log(
        "(select log.* from " ~ ref('int_log_written') ~ " as log left semi join recent_writes"
        ~ " on log.write_id = recent_writes.write_id"
        ~ " where " ~ cdc_log_written_after('log', logged_through) ~ ")",
        imported_log
    ) }} as replayed

),

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
    from recent_log as log
    left semi join replayable_tables
        on log.keyspace_name = replayable_tables.keyspace_name and log.table_name = replayable_tables.table_name
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
    inner join base_columns as base_columns
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
        rows.clustering_json,
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
        cells.write_id,
        cells.keyspace_name,
        cells.table_name,
        cells.`cdc$stream_id`,
        cells.`cdc$time`,
        cells.`cdc$batch_seq_no`,
        cells.operation,
        cells.partition_id,
        -- the clustering key of the row a cell, marker or row tombstone lands in
        if(
            fact.is_static or fact.fact_kind in ('partition_tombstone', 'range_tombstone'), null,
            nullif(cells.clustering_json, '{}')
        ) as row_clustering,
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
        fact.end_position,
        {{ cdc_replay_stamp() }} as replayed_at_us
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
                when cells.role = 'deleted_elements'
                    then transform(
                        from_json(cells.value, 'struct<set: array<string>>').set,
                        removed -> {{ cdc_write_fact(
                            'cells.cell_is_static', 'cells.cell_row_position', "'cell'",
                            column_name='cells.base_column', element_key='removed', is_live='false', ts='cells.ts'
                        ) }}
                    )
                -- user type fields with a value, keyed by their index
                when cells.is_multi_cell_user_type
                    then transform(
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
                when cells.is_keyed
                    then transform(
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

)

select log_facts.*
from log_facts
{% if is_incremental() %}
    left anti join {{ this }} as replayed_before
        on
            log_facts.keyspace_name = replayed_before.keyspace_name
            and log_facts.table_name = replayed_before.table_name
            and log_facts.`cdc$stream_id` = replayed_before.`cdc$stream_id`
            and log_facts.`cdc$time` = replayed_before.`cdc$time`
            and log_facts.`cdc$batch_seq_no` = replayed_before.`cdc$batch_seq_no`
            -- those are facts of the same writes (an imported log's have no write id): Spark
            -- reads only the row groups of writes after the mark
            and (
                {{ cdc_log_written_after('replayed_before', logged_through) }}
                or replayed_before.write_id is null
            )
{% endif %}
