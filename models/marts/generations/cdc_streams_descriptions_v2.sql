{#- system_distributed.cdc_streams_descriptions_v2 (docs/scylla/math.md §7.1): one row per
    generation entry, `(time, range_end)`, with the entry's streams. The streams are kept in
    ScyllaDB's storage order, index = shard (drivers hand them back sorted). -#}
with

token_ranges as (

    select * from {{ ref('int_token_ranges') }}

)

select
    timestamp_millis(generation_ts_ms) as time,
    range_end,
    streams
from token_ranges
