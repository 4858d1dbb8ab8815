{#- One row per batch: input writes = logged + not logged + rejected (see _marts__models.yml). -#}
{{ config(materialized='incremental', incremental_strategy='append') }}

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
    from {{ cdc_batch_writes(ref('int_batch_atoms')) }} as writes

),

logged as (

    -- the batch's log rows and the writes they come from
    select
        count(distinct write_id) as logged_writes,
        count(*) as log_rows
    from {{ cdc_batch_log_rows(ref('int_log_written'), ref('int_batch_atoms'), ref('int_build_batch')) }}

)

select
    batch.batch_id,
    input_writes.input_writes,
    judged_writes.accepted_writes,
    logged.logged_writes,
    judged_writes.unlogged_writes,
    judged_writes.rejected_writes,
    logged.log_rows
from batch
cross join input_writes
cross join judged_writes
cross join logged
{% if is_incremental() %}
    -- a build that stopped after this table counts its batch once
    left anti join {{ this }} as counted
        on batch.batch_id = counted.batch_id
{% endif %}
where input_writes.input_writes > 0
