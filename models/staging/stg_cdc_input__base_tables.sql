-- depends_on: {{ cdc_example_seed('base_tables') }}
{%- set columns = cdc_input_columns(
    'cdc_input', 'base_tables', optional=['uses_tablets', 'tablet_count', 'replication_factor']
) %}
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
        nullif(cast(ttl_column as string), '') as ttl_column,
        -- the contract before tablets had none of these: a vnodes keyspace's table
        {{ 'coalesce(cast(uses_tablets as boolean), false)' if 'uses_tablets' in columns else 'false' }}
            as uses_tablets,
        {{ 'cast(tablet_count as int)' if 'tablet_count' in columns else 'cast(null as int)' }} as tablet_count,
        {{ 'cast(replication_factor as int)' if 'replication_factor' in columns else 'cast(null as int)' }}
            as replication_factor
    from source

)

select * from renamed
