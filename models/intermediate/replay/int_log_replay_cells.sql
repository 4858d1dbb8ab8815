{#- The base tables as a replicator rebuilds them from the log (see _replay__models.yml). -#}

with

facts as (

    select * from {{ ref('int_log_replay_facts') }}

),

{{ cdc_live_cells(
    'facts', 'live', extra=['row_clustering'], as_of_us=cdc_replay_as_of_us(ref('int_log_replay_facts'))
) }}

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
