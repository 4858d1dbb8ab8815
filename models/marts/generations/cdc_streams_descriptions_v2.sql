{#- system_distributed.cdc_streams_descriptions_v2 (see _generations__models.yml). -#}
with

token_ranges as (

    select * from {{ ref('int_token_ranges') }}

)

select
    timestamp_millis(generation_ts_ms) as time,
    range_end,
    streams
from token_ranges
