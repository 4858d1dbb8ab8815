{#- One row per generation: when it operates, its token-bin width (see _streams__models.yml). -#}
{{ config(materialized='table') }}
with

generations as (

    select * from {{ ref('stg_cdc_input__generations') }}

),

token_ranges as (

    select
        generation_ts_ms,
        count(*) as range_count
    from {{ ref('int_token_ranges') }}
    group by generation_ts_ms

)

select
    generations.generation_ts_ms,
    generations.generation_ts_us,
    lead(generations.generation_ts_us) over (order by generations.generation_ts_us)
        as next_generation_ts_us,
    coalesce(token_ranges.range_count, 0) as range_count,
    -- about two bins per range: each bin meets one or two ranges, whatever the ring size
    least(24, greatest(1, cast(ceil(log2(greatest(token_ranges.range_count, 1))) as int) + 1))
        as bin_bits
from generations
left join token_ranges
    on generations.generation_ts_ms = token_ranges.generation_ts_ms
