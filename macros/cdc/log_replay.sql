{#- What the log replay (int_log_replay_facts, the log round-trip test) reads. -#}

{% macro cdc_replayable_tables() -%}
    {#- A subquery of the newest schema version of each table whose log carries values in every
        schema version that logs (not `delta: keys`). -#}
    (
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
    )
{%- endmacro %}


{% macro cdc_newest_base_columns() -%}
    {#- A subquery of each base column as its table's newest schema version has it. -#}
    (
        select * from (
            select
                *,
                row_number() over (
                    partition by keyspace_name, table_name, column_name order by schema_version desc
                ) as newest_first
            from {{ ref('int_base_columns_described') }}
        ) as versions
        where newest_first = 1
    )
{%- endmacro %}


{% macro cdc_replay_as_of_us() -%}
    {#- The time the replayed state is taken at (µs): dbt var `as_of_us`, by default the newest
        change in the log (of any table). -#}
    {%- set as_of_us = var('as_of_us', none) -%}
    {%- if as_of_us is none -%}
        (select coalesce(max(ts), 0) from {{ ref('int_log_replay_facts') }})
    {%- else -%}
        cast({{ as_of_us }} as bigint)
    {%- endif -%}
{%- endmacro %}
