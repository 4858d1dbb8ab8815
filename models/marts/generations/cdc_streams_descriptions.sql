{#- The V1 user table system_distributed.cdc_streams_descriptions (before 4.4, docs/scylla/math.md
    §7.3): a generation's streams in ONE cell, entries by range end, each in shard order. -#}
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
