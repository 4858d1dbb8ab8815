{#- V1 system_distributed.cdc_generation_descriptions (see _generations__models.yml). -#}
with

token_ranges as (

    select * from {{ ref('int_token_ranges') }}

)

select
    timestamp_millis(generation_ts_ms) as time,
    transform(
        sort_array(collect_list(struct(range_end, streams, cast(ignore_msb as tinyint) as ignore_msb))),
        e -> struct(e.range_end as token_range_end, e.streams as streams, e.ignore_msb as sharding_ignore_msb)
    ) as description,
    cast(null as timestamp) as expired
from token_ranges
group by generation_ts_ms
