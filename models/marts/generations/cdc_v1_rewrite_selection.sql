{#- Which V1 generations the V1-to-V2 description rewrite copies (see _generations__models.yml). -#}
{%- set clock_margin_ms = 10000 -%}
{%- if var('cdc_v1_rewrite_now_ms', none) is not none -%}
    {%- set rewrite_now_ms = 'cast(' ~ var('cdc_v1_rewrite_now_ms') ~ ' as bigint)' -%}
{%- else -%}
    {%- set rewrite_now_ms = 'max(coordinator_now_us) div 1000' -%}
{%- endif %}
with

generations as (

    select generation_ts_ms from {{ ref('stg_cdc_input__generations') }}

),

log_tables as (

    -- the log tables as they are now (each table's latest schema version)
    select * from {{ ref('int_base_tables_described') }}
    where cdc_enabled and is_latest_version

),

rewrite_clock as (

    select {{ rewrite_now_ms }} as now_ms
    from {{ ref('stg_cdc_input__base_mutations') }}

),

table_bounds as (

    select
        case
            when log_tables.cdc_ttl_seconds = 0 then coalesce(log_tables.cdc_log_created_ms, 0)
            else greatest(
                coalesce(log_tables.cdc_log_created_ms, 0),
                rewrite_clock.now_ms - log_tables.cdc_ttl_seconds * 1000
            )
        end - {{ clock_margin_ms }} as bound_ms
    from log_tables
    cross join rewrite_clock

),

judged as (

    select
        generations.generation_ts_ms,
        -- too old for every table: the smallest bound is still >= the timestamp
        (select min(table_bounds.bound_ms) from table_bounds) >= generations.generation_ts_ms as is_too_old
    from generations

),

first_kept as (

    select
        min(if(not is_too_old, generation_ts_ms, null)) as first_not_too_old_ms,
        max(generation_ts_ms) as last_ms
    from judged

),

start as (

    select
        coalesce(
            (
                select max(judged.generation_ts_ms) from judged
                where judged.generation_ts_ms < first_kept.first_not_too_old_ms
            ),
            first_kept.first_not_too_old_ms,
            first_kept.last_ms
        ) as rewrite_from_ms
    from first_kept

)

select generations.generation_ts_ms
from generations
cross join start
where
    exists (select 1 from log_tables)
    and generations.generation_ts_ms >= start.rewrite_from_ms
