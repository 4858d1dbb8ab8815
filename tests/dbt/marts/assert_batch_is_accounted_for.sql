-- The batch is accounted for, checked on its rows only: its audit row adds up (every input write
-- is logged, needs no log (CDC off), or is rejected, and every accepted write is one of the first
-- two: input = logged + not logged + rejected, accepted = logged + not logged), the batch has one
-- audit row, and the ledger holds each of its writes once, a rejected one with its reason and
-- error text (what cdc_rejected_writes shows). Returns the offending rows with the problem.
with

batch as (

    select batch_id from {{ ref('int_build_batch') }}

),

audits as (

    select audits.*
    from {{ ref('cdc_write_audit') }} as audits
    left semi join batch on audits.batch_id = batch.batch_id

),

ledger as (

    select processed.*
    from {{ ref('cdc_processed_writes') }} as processed
    left semi join batch on processed.batch_id = batch.batch_id

)

select
    batch_id,
    null as write_id,
    concat(
        'cdc_write_audit: ', input_writes, ' writes in, ', accepted_writes, ' accepted, ', logged_writes,
        ' logged, ', unlogged_writes, ' not logged, ', rejected_writes, ' rejected'
    ) as problem
from audits
where
    input_writes != logged_writes + unlogged_writes + rejected_writes
    or accepted_writes != logged_writes + unlogged_writes

union all

select
    batch_id,
    null as write_id,
    concat('cdc_write_audit: ', count(*), ' rows for the batch') as problem
from audits
group by batch_id
having count(*) > 1

union all

select
    batch_id,
    write_id,
    concat('cdc_processed_writes: write ', coalesce(cast(write_id as string), 'null'), ' is there ', count(*), ' times')
        as problem
from ledger
group by batch_id, write_id
having count(*) > 1

union all

select * from (
    select
        batch_id,
        write_id,
        case
            when status is null or status not in ('accepted', 'rejected')
                then concat('cdc_processed_writes.status: ', coalesce(status, 'null'), ' (accepted or rejected)')
            when status = 'rejected' and reason is null then 'cdc_processed_writes.reason: a rejected write has none'
            when status = 'rejected' and error_text is null
                then 'cdc_processed_writes.error_text: a rejected write has none'
        end as problem
    from ledger
) as checked_writes
where problem is not null
