{#- The batch's writes, atom by atom, as the steps before it left them (one query: they run
    fused, in one stage): validated (int_mutation_atoms_validated), with their partition's token
    (int_mutation_atoms_tokenized), their write's problem (int_writes_validated), keyed as
    ScyllaDB's CDC splits a mutation (int_mutation_atoms_keyed, one row per piece: a range
    tombstone's two bounds), their change group admitted or refused (int_change_groups_admitted),
    their write's verdict (int_writes_admitted) and their change group's stream and cdc$time
    (int_change_groups_streamed). What the log, the images, the carried state, the ledger and the
    audit read. Rebuilt by every build. -#}
{{ config(materialized='table') }}

select
    -- the write (client request) and its verdict
    write_id,
    write_coordinator_now_us,
    write_atom_count,
    write_status,
    write_reason,
    write_error_class,
    write_error_text,
    write_keyspace_name,
    write_table_name,
    write_partition_key,
    write_atom_kind,
    write_column_name,
    write_change_ts,
    write_change_groups,
    -- the atom
    coordinator_now_us,
    keyspace_name,
    table_name,
    schema_version,
    cdc_enabled,
    partition_key,
    atom_kind,
    write_timestamp,
    clustering_key,
    column_name,
    column_kind,
    is_live,
    value,
    ttl_seconds,
    range_start,
    range_start_inclusive,
    range_end,
    range_end_inclusive,
    element_key,
    element_key_type,
    origin,
    token,
    partition_key_members,
    -- the piece (valid writes)
    has_clustering_key,
    piece_kind,
    bound_side,
    bound_kind,
    bound_prefix,
    change_ts,
    ttl_key,
    clustering_position,
    range_end_position,
    row_position,
    is_split,
    -- the change group (valid writes to CDC-enabled tables): admission and stream
    verdict,
    generation_ts_ms,
    vnode_index,
    token_range_start,
    token_range_end,
    shard_count,
    ignore_msb,
    shard,
    stream_id,
    cdc_time
from {{ ref('int_change_groups_streamed') }}
