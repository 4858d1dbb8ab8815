{#- One row per log row of the batch (int_log_cells): its place in the log table's clustering
    order (stream, cdc$time, cdc$batch_seq_no) and its metadata columns. A group's rows are its
    pre-images, its deltas, then its post-images (docs/scylla/log.md §4.3, §6.2); `phase` and
    `phase_seq` locate the row among the deltas (int_log_changes_ordered) or images
    (int_log_images) it comes from. What `cdclake check` reads of the last batch. -#}
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
