{#- system.cdc_timestamps: each tablets table's stream sets still kept (see _generations__models.yml). -#}
with

sets as (

    select * from {{ ref('int_tablet_stream_sets_kept') }}

)

select
    keyspace_name,
    table_name,
    timestamp_millis(set_ts_ms) as timestamp
from sets
order by keyspace_name asc, table_name asc, timestamp desc
