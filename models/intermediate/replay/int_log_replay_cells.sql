{#- The base tables as a replicator rebuilds them from the log: the live cells, collection
    elements and row markers the log's write facts leave, as of var `as_of_us` (microseconds
    since the epoch; default: the newest change in the log), TTL expiry applied at that time.
    Each cell keeps the clustering key of its row. Computed from all the facts: the whole-table
    check `assert_state_is_the_history_at_its_time` (`cdclake check`) reads it. -#}

with

facts as (

    select * from {{ ref('int_log_replay_facts') }}

),

{{ cdc_live_cells('facts', 'live', extra=['row_clustering'], as_of_us=cdc_replay_as_of_us()) }}

select
    keyspace_name,
    table_name,
    partition_id,
    is_static,
    row_position,
    row_clustering,
    column_name,
    element_key,
    value,
    ts,
    ttl
from live
