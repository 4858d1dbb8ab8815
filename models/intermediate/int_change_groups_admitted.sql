{#- One row per change group (a mutation's log rows at one change timestamp): the generation
    operating at that timestamp and ScyllaDB's admission verdict, from the coordinator's clock
    (cdc::metadata::get_stream, scylla-math.md §6.1; §6.2 with var cdc_admission_rule = 'pre_2024'). -#}
{%- set leeway = var('cdc_generation_leeway_us') -%}
{%- set rule = var('cdc_admission_rule') -%}
{%- if rule not in ('current', 'pre_2024') -%}
    {{ exceptions.raise_compiler_error(
        "var cdc_admission_rule must be 'current' or 'pre_2024', got '" ~ rule ~ "'"
    ) }}
{%- endif %}
with

keyed_atoms as (

    select * from {{ ref('int_mutation_atoms_keyed') }}
    where cdc_enabled

),

writes as (

    select * from {{ ref('int_writes_validated') }}

),

generations as (

    -- a generation whose streams are not in the input is "known but not retrieved"
    select
        coalesce(sort_array(collect_list(generation_ts_us)), array()) as generation_timestamps,
        coalesce(collect_list(if(range_count = 0, generation_ts_us, null)), array()) as unretrieved_timestamps
    from {{ ref('int_generations_described') }}

),

change_groups as (

    select distinct
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts
    from keyed_atoms

),

located as (

    select
        change_groups.*,
        writes.coordinator_now_us as now_us,
        generations.generation_timestamps[0] as first_generation_us,
        -- gen_used_at(now - leeway): generations before it are garbage-collected
        array_max(filter(
            generations.generation_timestamps, g -> g <= writes.coordinator_now_us - {{ leeway }}
        )) as leeway_generation_us,
        array_max(filter(
            generations.generation_timestamps, g -> g <= writes.coordinator_now_us
        )) as now_generation_us,
        array_max(filter(
            generations.generation_timestamps, g -> g <= change_groups.change_ts
        )) as operating_generation_us,
        generations.generation_timestamps,
        generations.unretrieved_timestamps
    from change_groups
    inner join writes
        on change_groups.write_id = writes.write_id
    cross join generations

),

judged as (

    select
        *,
        {% if rule == 'pre_2024' -%}
            case
                when change_ts > now_us + {{ leeway }} then 'future'
                when now_generation_us is null then 'not_found_old'
                when now_generation_us > change_ts then 'earlier'
                when array_contains(unretrieved_timestamps, operating_generation_us) then 'unretrieved'
                else 'ok'
            end as verdict
        {%- else -%}
            case
                when change_ts > now_us + {{ leeway }} then 'future'
                when
                    change_ts <= now_us - {{ leeway }}
                    and (
                        leeway_generation_us is null
                        or change_ts < leeway_generation_us
                        -- the generation of now - leeway was already succeeded by now
                        or array_min(filter(generation_timestamps, g -> g > leeway_generation_us)) <= now_us
                    )
                    then 'past'
                when
                    coalesce(leeway_generation_us, first_generation_us) is null
                    or change_ts < coalesce(leeway_generation_us, first_generation_us)
                    then 'not_found'
                when array_contains(unretrieved_timestamps, operating_generation_us) then 'unretrieved'
                else 'ok'
            end as verdict
        {%- endif %}
    from located

)

select
    write_id,
    keyspace_name,
    table_name,
    partition_key,
    change_ts,
    now_us as coordinator_now_us,
    if(verdict = 'ok', operating_generation_us, null) as generation_ts_us,
    verdict,
    {{ cdc_admission_error_class('verdict') }} as error_class,
    {{ cdc_admission_error_text(
        'verdict', 'change_ts', 'now_us', "if(verdict = 'earlier', now_generation_us, operating_generation_us)"
    ) }} as error_text
from judged
