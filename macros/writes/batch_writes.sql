{% macro cdc_batch_writes(batch_atoms) -%}
    {#- A subquery of the batch's writes, one row each (the atoms without a write id: one write),
        with their verdict, from `batch_atoms` (`int_batch_atoms`, where each piece carries its
        write's). -#}
    (
        select distinct
            write_id,
            write_coordinator_now_us as coordinator_now_us,
            write_atom_count as atom_count,
            write_status as status,
            write_reason as reason,
            write_error_class as error_class,
            write_error_text as error_text,
            write_keyspace_name as keyspace_name,
            write_table_name as table_name,
            write_partition_key as partition_key,
            write_atom_kind as atom_kind,
            write_column_name as column_name,
            write_change_ts as change_ts,
            write_change_groups as change_groups
        from {{ batch_atoms }}
    )
{%- endmacro %}


{% macro cdc_batch_log_rows(log, batch_atoms, build_batch) -%}
    {#- A subquery of the log rows (of `log`, `int_log_written`: one row per log row, its metadata
        columns, write id and change timestamp) of the batch's writes (`batch_atoms`). They come
        after those processed before (`cdc_last_processed_write_id` of `build_batch`): Spark reads
        only the row groups of later writes. -#}
    {%- set last_processed = cdc_last_processed_write_id(build_batch) -%}
    (
        select distinct
            log.keyspace_name,
            log.table_name,
            log.`cdc$stream_id`,
            log.`cdc$time`,
            log.`cdc$batch_seq_no`,
            log.`cdc$operation`,
            log.`cdc$ttl`,
            log.`cdc$end_of_batch`,
            log.write_id,
            log.change_timestamp
        from {{ log }} as log
        left semi join {{ batch_atoms }} as batch_writes
            on log.write_id = batch_writes.write_id
        where {{ cdc_log_written_after('log', last_processed) }}
    )
{%- endmacro %}
