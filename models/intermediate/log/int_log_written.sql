{#- The log as written so far, build after build: one row per non-null log cell (see _log__models.yml). -#}
{{ config(materialized='incremental', incremental_strategy='append', on_schema_change='fail') }}
{%- set last_processed = cdc_last_processed_write_id(ref('int_build_batch')) %}

with

logged as (

    select
        keyspace_name,
        table_name,
        stream_id as `cdc$stream_id`,
        cdc_time as `cdc$time`,
        cast(batch_seq_no as int) as `cdc$batch_seq_no`,
        cast(operation as tinyint) as `cdc$operation`,
        cast(cdc_ttl as bigint) as `cdc$ttl`,
        if(is_end_of_batch, true, null) as `cdc$end_of_batch`,
        column_name,
        value,
        write_id,
        change_ts as change_timestamp
    from {{ ref('int_log_cells') }}

)

select logged.*
from logged
{% if is_incremental() %}
    -- a build that stopped after this table: its writes are logged already (they come after the
    -- writes processed before, whose row groups Spark skips)
    left anti join {{ this }} as logged_before
        on
            logged.write_id = logged_before.write_id
            and {{ cdc_log_written_after('logged_before', last_processed) }}
{% endif %}
