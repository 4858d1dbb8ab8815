-- depends_on: {{ cdc_example_seed('cdc_generation_streams') }}
with

source as (

    select * from {{ source('cdc_input', 'cdc_generation_streams') }}

),

renamed as (

    select
        cast(generation_ts_ms as bigint) as generation_ts_ms,
        cast(vnode_index as int) as vnode_index,
        cast(token_range_end as bigint) as token_range_end,
        cast(ignore_msb as int) as ignore_msb,
        cast(shard as int) as shard,
        unhex(lower(cast(stream_id as string))) as stream_id
    from source

)

select * from renamed
