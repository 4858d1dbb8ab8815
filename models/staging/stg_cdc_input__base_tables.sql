-- depends_on: {{ cdc_example_seed('base_tables') }}
with

source as (

    select * from {{ source('cdc_input', 'base_tables') }}

),

renamed as (

    select
        cast(keyspace_name as string) as keyspace_name,
        cast(table_name as string) as table_name,
        coalesce(cast(cdc_enabled as boolean), false) as cdc_enabled,
        lower(coalesce(cast(cdc_preimage as string), 'false')) as cdc_preimage,
        coalesce(cast(cdc_postimage as boolean), false) as cdc_postimage,
        lower(coalesce(cast(cdc_delta as string), 'full')) as cdc_delta,
        coalesce(cast(cdc_ttl_seconds as bigint), 86400) as cdc_ttl_seconds,
        coalesce(cast(default_time_to_live as int), 0) as default_time_to_live,
        cast(cdc_log_created_ms as bigint) as cdc_log_created_ms,
        coalesce(cast(schema_version as bigint), 0) as schema_version,
        nullif(cast(ttl_column as string), '') as ttl_column
    from source

)

select * from renamed
