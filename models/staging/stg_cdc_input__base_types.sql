-- depends_on: {{ cdc_example_seed('base_types') }}
with

source as (

    select * from {{ source('cdc_input', 'base_types') }}

),

renamed as (

    select
        cast(keyspace_name as string) as keyspace_name,
        cast(type_name as string) as type_name,
        cast(field_position as int) as field_position,
        cast(field_name as string) as field_name,
        lower(cast(field_type as string)) as field_type
    from source

)

select * from renamed
