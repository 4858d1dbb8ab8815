{#- system_distributed.cdc_generation_timestamps (see _generations__models.yml). -#}
with

generations as (

    select * from {{ ref('stg_cdc_input__generations') }}

)

select
    'timestamps' as key,
    timestamp_millis(generation_ts_ms) as time,
    cast(null as timestamp) as expired
from generations
