{#- The generic long-format CDC log: one row per non-null log cell (see _marts__models.yml). -#}
{{ config(materialized='view') }}

select
    keyspace_name,
    table_name,
    `cdc$stream_id`,
    `cdc$time`,
    `cdc$batch_seq_no`,
    `cdc$operation`,
    `cdc$ttl`,
    `cdc$end_of_batch`,
    column_name,
    value,
    write_id,
    change_timestamp
from {{ ref('int_log_written') }}
