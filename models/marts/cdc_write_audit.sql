{#- One row per batch (a build with new writes; one without is no batch: it adds no row, and the
    ledger does not move on): its input writes = logged + not logged + rejected. Logged writes
    are counted from the log itself (writes with log rows), so an accepted write that lost its
    log rows breaks the identity instead of vanishing. -#}
{{ config(materialized='incremental', incremental_strategy='append') }}
{%- set last_processed = cdc_last_processed_write_id() %}

with

batch as (

    select * from {{ ref('int_build_batch') }}

),

input_writes as (

    -- the atoms without a write id count as one write; no atom at all: 0
    select count(distinct write_id) + coalesce(max(if(write_id is null, 1, 0)), 0) as input_writes
    from {{ ref('int_batch_atoms') }}

),

judged_writes as (

    select
        count_if(status = 'accepted') as accepted_writes,
        count_if(status = 'accepted' and change_groups = 0) as unlogged_writes,
        count_if(status = 'rejected') as rejected_writes
    from {{ cdc_batch_writes() }} as writes

),

logged_writes as (

    select count(distinct write_id) as logged_writes
    from {{ ref('int_log_rows') }}

),

log_rows as (

    select count(*) as log_rows
    from (
        select distinct
            log.keyspace_name,
            log.table_name,
            log.`cdc$stream_id`,
            log.`cdc$time`,
            log.`cdc$batch_seq_no`
        from {{ ref('cdc_log') }} as log
        left semi join {{ ref('int_batch_atoms') }} as batch_writes
            on log.write_id = batch_writes.write_id
        -- the batch's accepted writes come after those processed before
        where {{ cdc_log_written_after('log', last_processed) }}
    ) as distinct_log_rows

)

select
    batch.batch_id,
    input_writes.input_writes,
    judged_writes.accepted_writes,
    logged_writes.logged_writes,
    judged_writes.unlogged_writes,
    judged_writes.rejected_writes,
    log_rows.log_rows
from batch
cross join input_writes
cross join judged_writes
cross join logged_writes
cross join log_rows
{% if is_incremental() %}
    -- a build that stopped after this table counts its batch once
    left anti join {{ this }} as counted
        on batch.batch_id = counted.batch_id
{% endif %}
where input_writes.input_writes > 0
