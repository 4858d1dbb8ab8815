{#- One row per run: input writes = logged + not logged + rejected. Logged writes are counted
    from the log itself (writes with log rows), so an accepted write that lost its log rows
    breaks the identity instead of vanishing. -#}
with

input_writes as (

    select count(distinct write_id) + max(if(write_id is null, 1, 0)) as input_writes
    from {{ ref('stg_cdc_input__base_mutations') }}

),

judged_writes as (

    select
        count_if(status = 'accepted') as accepted_writes,
        count_if(status = 'accepted' and change_groups = 0) as unlogged_writes,
        count_if(status = 'rejected') as rejected_writes
    from {{ ref('int_writes_admitted') }}

),

logged_writes as (

    select count(distinct write_id) as logged_writes
    from {{ ref('int_log_rows') }}

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
    logged_writes.logged_writes,
    judged_writes.unlogged_writes,
    judged_writes.rejected_writes,
    log_rows.log_rows
from input_writes
cross join judged_writes
cross join logged_writes
cross join log_rows
