{#- One row per stream of every generation, with its range and shard (see _streams__models.yml). -#}
{{ config(materialized='table') }}
with

token_ranges as (

    select * from {{ ref('int_token_ranges') }}

)

select
    token_ranges.generation_ts_ms,
    token_ranges.vnode_index,
    token_ranges.range_position,
    token_ranges.range_start,
    token_ranges.range_end,
    token_ranges.shard_count,
    token_ranges.ignore_msb,
    stream.pos as shard,
    stream.col as stream_id
from token_ranges
    lateral view posexplode(token_ranges.streams) stream
