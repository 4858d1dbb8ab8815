-- depends_on: {{ cdc_example_seed('base_mutations') }}
{%- set columns = cdc_input_columns('cdc_input', 'base_mutations', optional=['origin']) %}
with

source as (

    select * from {{ source('cdc_input', 'base_mutations') }}

),

renamed as (

    select
        cast(write_id as bigint) as write_id,
        cast(coordinator_now_us as bigint) as coordinator_now_us,
        cast(keyspace_name as string) as keyspace_name,
        cast(table_name as string) as table_name,
        cast(partition_key as string) as partition_key,
        lower(cast(atom_kind as string)) as atom_kind,
        cast(write_timestamp as bigint) as write_timestamp,
        nullif(cast(clustering_key as string), '') as clustering_key,
        nullif(cast(column_name as string), '') as column_name,
        cast(is_live as boolean) as is_live,
        cast(value as string) as value,
        cast(ttl_seconds as int) as ttl_seconds,
        nullif(cast(range_start as string), '') as range_start,
        cast(range_start_inclusive as boolean) as range_start_inclusive,
        nullif(cast(range_end as string), '') as range_end,
        cast(range_end_inclusive as boolean) as range_end_inclusive,
        nullif(cast(element_key as string), '') as element_key,
        cast(schema_version as bigint) as schema_version,
        {% if 'origin' in columns -%}
            nullif(lower(cast(origin as string)), '')
        {%- else -%}
            cast(null as string)
        {%- endif %} as origin
    from source

)

select * from renamed
