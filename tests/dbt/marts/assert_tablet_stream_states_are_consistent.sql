-- cdc_streams' states agree from one kept set to the next (docs/scylla/tablets.md §7.1): a set's
-- current streams (0) are the previous set's less those it closes (1), plus those it opens (2);
-- it closes only streams that were current and opens only streams that were not; the oldest
-- kept set opens all its streams and closes none. Returns the streams that break this.
with

streams as (

    select * from {{ ref('cdc_streams') }}

),

times as (

    select
        *,
        lag(`timestamp`) over (partition by keyspace_name, table_name order by `timestamp`) as previous
    from (select distinct keyspace_name, table_name, `timestamp` from streams)

),

by_state as (

    select
        streams.*,
        times.previous
    from streams
    inner join times
        on
            streams.keyspace_name = times.keyspace_name
            and streams.table_name = times.table_name
            and streams.`timestamp` = times.`timestamp`

),

previous_current as (

    -- each set with the streams that were current in the set before it
    select
        times.keyspace_name,
        times.table_name,
        times.`timestamp`,
        before.stream_id
    from times
    inner join streams as before
        on
            times.keyspace_name = before.keyspace_name
            and times.table_name = before.table_name
            and times.previous = before.`timestamp`
            and before.stream_state = 0

),

expected_current as (

    select previous_current.*
    from previous_current
    left anti join by_state as closed
        on
            previous_current.keyspace_name = closed.keyspace_name
            and previous_current.table_name = closed.table_name
            and previous_current.`timestamp` = closed.`timestamp`
            and previous_current.stream_id = closed.stream_id
            and closed.stream_state = 1
    union all
    select keyspace_name, table_name, `timestamp`, stream_id
    from by_state
    where stream_state = 2

),

current_streams as (

    select keyspace_name, table_name, `timestamp`, stream_id
    from by_state
    where stream_state = 0

)

select 'current, but neither kept from the previous set nor opened' as problem, current_streams.*
from current_streams
left anti join expected_current
    on
        current_streams.keyspace_name = expected_current.keyspace_name
        and current_streams.table_name = expected_current.table_name
        and current_streams.`timestamp` = expected_current.`timestamp`
        and current_streams.stream_id = expected_current.stream_id

union all

select 'kept from the previous set or opened, but not current' as problem, expected_current.*
from expected_current
left anti join current_streams
    on
        expected_current.keyspace_name = current_streams.keyspace_name
        and expected_current.table_name = current_streams.table_name
        and expected_current.`timestamp` = current_streams.`timestamp`
        and expected_current.stream_id = current_streams.stream_id

union all

select 'closed, but not current in the previous set (or closed by the oldest set)' as problem,
    by_state.keyspace_name, by_state.table_name, by_state.`timestamp`, by_state.stream_id
from by_state
left anti join previous_current
    on
        by_state.keyspace_name = previous_current.keyspace_name
        and by_state.table_name = previous_current.table_name
        and by_state.`timestamp` = previous_current.`timestamp`
        and by_state.stream_id = previous_current.stream_id
where by_state.stream_state = 1

union all

select 'opened, but current in the previous set' as problem,
    by_state.keyspace_name, by_state.table_name, by_state.`timestamp`, by_state.stream_id
from by_state
inner join previous_current
    on
        by_state.keyspace_name = previous_current.keyspace_name
        and by_state.table_name = previous_current.table_name
        and by_state.`timestamp` = previous_current.`timestamp`
        and by_state.stream_id = previous_current.stream_id
where by_state.stream_state = 2
