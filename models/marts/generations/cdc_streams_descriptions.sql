{#- V1 system_distributed.cdc_streams_descriptions (see _generations__models.yml). -#}
with

token_ranges as (

    select * from {{ ref('int_token_ranges') }}

)

select
    timestamp_millis(generation_ts_ms) as time,
    flatten(transform(sort_array(collect_list(struct(range_end, streams))), e -> e.streams)) as streams,
    cast(null as timestamp) as expired
from token_ranges
group by generation_ts_ms
