-- The batch's atoms, judged and placed (int_batch_atoms, which the log and the carried state
-- read): every write accepted or rejected; every change group of a valid write to a CDC-enabled
-- table with an admission verdict ScyllaDB can give; every group of an accepted write in a
-- stream, at a cdc$time. Returns the offending atoms with the problem.
with

checked as (

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        change_ts,
        case
            when write_status is null or write_status not in ('accepted', 'rejected')
                then concat('write_status: ', coalesce(write_status, 'null'), ' (accepted or rejected)')
            when
                verdict not in (
                    'ok', 'future', 'past', 'not_found', 'earlier', 'not_found_old', 'unretrieved', 'no_streams'
                )
                then concat('verdict: unknown verdict ', verdict)
            when cdc_enabled and write_reason is distinct from 'invalid_input' and verdict is null
                then 'verdict: a change group of a valid write has none'
            when write_status = 'accepted' and cdc_enabled and stream_id is null
                then 'stream_id: an accepted change group has no stream'
            when write_status = 'accepted' and cdc_enabled and cdc_time is null
                then 'cdc_time: an accepted change group has no cdc$time'
        end as problem
    from {{ ref('int_batch_atoms') }}

)

select * from checked
where problem is not null
