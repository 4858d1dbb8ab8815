{#- One row per log row of the batch, with its metadata columns (see _log__models.yml). -#}
select distinct
    write_id,
    keyspace_name,
    table_name,
    partition_key,
    change_ts,
    phase,
    phase_seq,
    batch_seq_no,
    is_end_of_batch,
    operation,
    cdc_ttl,
    stream_id,
    cdc_time
from {{ ref('int_log_cells') }}
