{#- One row per generation entry: its token range and its streams (see _streams__models.yml). -#}
{{ config(materialized='table') }}
with

streams as (

    select * from {{ ref('stg_cdc_input__generation_streams') }}

),

entries as (

    select
        generation_ts_ms,
        vnode_index,
        min(token_range_end) as range_end,
        min(ignore_msb) as ignore_msb,
        count(*) as shard_count,
        transform(sort_array(collect_list(struct(shard, stream_id))), s -> s.stream_id) as streams
    from streams
    group by generation_ts_ms, vnode_index

),

ranged as (

    select
        *,
        -- the previous entry's end; entry 0 wraps around from the last entry's end
        coalesce(
            lag(range_end) over (partition by generation_ts_ms order by range_end),
            max(range_end) over (partition by generation_ts_ms)
        ) as range_start,
        row_number() over (partition by generation_ts_ms order by range_end) - 1 as range_position
    from entries

)

select
    generation_ts_ms,
    generation_ts_ms * 1000 as generation_ts_us,
    vnode_index,
    range_position,
    range_start,
    range_end,
    range_start >= range_end as is_wrapping,
    shard_count,
    ignore_msb,
    streams
from ranged
