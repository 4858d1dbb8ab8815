{#- One row per run: input writes = accepted + rejected, and how many log rows the accepted
    writes produced. -#}
with

input_writes as (

    select count(distinct write_id) + max(if(write_id is null, 1, 0)) as input_writes
    from {{ ref('stg_cdc_input__base_mutations') }}

),

judged_writes as (

    select
        count_if(status = 'accepted') as accepted_writes,
        count_if(status = 'rejected') as rejected_writes
    from {{ ref('int_writes_admitted') }}

),

log_rows as (

    select count(*) as log_rows
    from (
        select distinct
            keyspace_name,
            table_name,
            `cdc$stream_id`,
            `cdc$time`,
            `cdc$batch_seq_no`
        from {{ ref('cdc_log') }}
    ) as distinct_log_rows

)

select
    coalesce(input_writes.input_writes, 0) as input_writes,
    judged_writes.accepted_writes,
    judged_writes.rejected_writes,
    log_rows.log_rows
from input_writes
cross join judged_writes
cross join log_rows
