{#- The stream sets of tablets tables (see _staging__models.yml); none while the table is absent. -#}
-- depends_on: {{ cdc_example_seed('tablet_streams') }}
with

source as (

    {% if cdc_relation_exists(source('cdc_input', 'tablet_streams')) -%}
        select * from {{ source('cdc_input', 'tablet_streams') }}
    {%- else -%}
        select
            cast(null as string) as keyspace_name,
            cast(null as string) as table_name,
            cast(null as bigint) as set_ts_ms,
            cast(null as bigint) as last_token,
            cast(null as string) as stream_id
        where false
    {%- endif %}

),

renamed as (

    select
        cast(keyspace_name as string) as keyspace_name,
        cast(table_name as string) as table_name,
        cast(set_ts_ms as bigint) as set_ts_ms,
        -- cdc::metadata compares a set's time with a write's in microseconds
        cast(set_ts_ms as bigint) * 1000 as set_ts_us,
        cast(last_token as bigint) as last_token,
        unhex(regexp_replace(lower(cast(stream_id as string)), '^0x', '')) as stream_id
    from source

)

select * from renamed
