{#- system_distributed.cdc_generation_timestamps (docs/scylla/math.md §7.1): one row per generation
    in the single partition 'timestamps'; ScyllaDB clusters it by time DESC. -#}
with

generations as (

    select * from {{ ref('stg_cdc_input__generations') }}

)

select
    'timestamps' as key,
    timestamp_millis(generation_ts_ms) as time,
    cast(null as timestamp) as expired
from generations
