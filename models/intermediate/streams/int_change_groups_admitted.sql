{#- The batch's pieces with their change group's admission verdict (see _streams__models.yml). -#}
with

pieces as (

    select * from {{ ref('int_mutation_atoms_keyed') }}

),

generations as (

    select * from {{ cdc_known_generations(ref('int_generations_described')) }} as known

),

tablet_sets as (

    select
        keyspace_name,
        table_name,
        sort_array(collect_set(set_ts_us)) as set_timestamps
    from {{ ref('int_tablet_streams') }}
    group by keyspace_name, table_name

),

tablet_tables as (

    -- each table of a tablets keyspace: its log table's id (a timeuuid of its creation), its
    -- CDC TTL and its stream sets' timestamps (µs, sorted)
    select
        base_tables.keyspace_name,
        base_tables.table_name,
        base_tables.cdc_ttl_seconds,
        {{ cdc_timeuuid(
            'coalesce(base_tables.cdc_log_created_ms, 0) * 1000',
            "xxhash64(base_tables.keyspace_name, concat(base_tables.table_name, '_scylla_cdc_log'))"
        ) }} as log_table_id,
        coalesce(tablet_sets.set_timestamps, array()) as set_timestamps
    from {{ ref('int_base_tables_described') }} as base_tables
    left join tablet_sets
        on
            base_tables.keyspace_name = tablet_sets.keyspace_name
            and base_tables.table_name = tablet_sets.table_name
    where base_tables.uses_tablets and base_tables.is_latest_version

),

judged as (

    select
        pieces.*,
        tablet_tables.log_table_id,
        case
            when pieces.write_problem is not null or not pieces.cdc_enabled then null
            when pieces.uses_tablets then {{ cdc_tablet_admission_verdict(
                'pieces.change_ts', 'pieces.write_coordinator_now_us', 'tablet_tables') }}
            else {{ cdc_admission_verdict('pieces.change_ts', 'pieces.write_coordinator_now_us', 'generations') }}
        end as verdict,
        case when pieces.write_problem is null and pieces.cdc_enabled then {{ cdc_generation_at(
            'if(pieces.uses_tablets, tablet_tables.set_timestamps, generations.generation_timestamps)',
            'pieces.change_ts'
        ) }} end as operating_generation_us,
        case when pieces.write_problem is null and pieces.cdc_enabled then {{ cdc_generation_at(
            'generations.generation_timestamps', 'pieces.write_coordinator_now_us') }} end as now_generation_us
    from pieces
    cross join generations
    left join tablet_tables
        on
            pieces.uses_tablets
            and pieces.keyspace_name = tablet_tables.keyspace_name
            and pieces.table_name = tablet_tables.table_name

)

select
    *,
    if(verdict = 'ok', operating_generation_us, null) as generation_ts_us,
    {{ cdc_admission_error_class('verdict') }} as error_class,
    {{ cdc_admission_error_text(
        'verdict', 'change_ts', 'write_coordinator_now_us',
        "if(verdict = 'earlier', now_generation_us, operating_generation_us)", 'log_table_id'
    ) }} as error_text
from judged
