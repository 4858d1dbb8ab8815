-- depends_on: {{ cdc_example_seed('cdc_generations') }}
with

source as (

    select * from {{ source('cdc_input', 'cdc_generations') }}

),

renamed as (

    select
        cast(generation_ts_ms as bigint) as generation_ts_ms,
        -- cdc::metadata keys generations by microseconds (db_clock ms x 1000)
        cast(generation_ts_ms as bigint) * 1000 as generation_ts_us
    from source

)

select * from renamed
