-- depends_on: {{ cdc_example_seed('base_columns') }}
with

source as (

    select * from {{ source('cdc_input', 'base_columns') }}

),

renamed as (

    select
        cast(keyspace_name as string) as keyspace_name,
        cast(table_name as string) as table_name,
        cast(column_name as string) as column_name,
        lower(cast(kind as string)) as kind,
        cast(position as int) as position,
        lower(cast(cql_type as string)) as cql_type,
        lower(coalesce(cast(clustering_order as string), 'none')) as clustering_order,
        coalesce(cast(schema_version as bigint), 0) as schema_version
    from source

)

select * from renamed
