{#- system.cdc_streams: the streams of each tablets table's kept sets (see _generations__models.yml). -#}
with

streams as (

    select * from {{ ref('int_tablet_streams') }}

),

sets as (

    select * from {{ ref('int_tablet_stream_sets_kept') }}

),

current_streams as (

    -- state 0: every stream of the set
    select
        sets.keyspace_name,
        sets.table_name,
        sets.set_ts_ms,
        sets.previous_set_ts_ms,
        streams.last_token,
        streams.stream_id
    from sets
    inner join streams
        on
            sets.keyspace_name = streams.keyspace_name
            and sets.table_name = streams.table_name
            and sets.set_ts_ms = streams.set_ts_ms

),

opened as (

    -- state 2: the set's streams the previous kept set did not have (all of the oldest's)
    select current_streams.*
    from current_streams
    left anti join streams as previous
        on
            current_streams.keyspace_name = previous.keyspace_name
            and current_streams.table_name = previous.table_name
            and current_streams.previous_set_ts_ms = previous.set_ts_ms
            and current_streams.stream_id = previous.stream_id

),

closed as (

    -- state 1: the previous set's streams this set does not have
    select
        sets.keyspace_name,
        sets.table_name,
        sets.set_ts_ms,
        previous.last_token,
        previous.stream_id
    from sets
    inner join streams as previous
        on
            sets.keyspace_name = previous.keyspace_name
            and sets.table_name = previous.table_name
            and sets.previous_set_ts_ms = previous.set_ts_ms
    left anti join streams as later
        on
            sets.keyspace_name = later.keyspace_name
            and sets.table_name = later.table_name
            and sets.set_ts_ms = later.set_ts_ms
            and previous.stream_id = later.stream_id

),

states as (

    select
        keyspace_name,
        table_name,
        set_ts_ms,
        0 as stream_state,
        last_token,
        stream_id
    from current_streams
    union all
    select
        keyspace_name,
        table_name,
        set_ts_ms,
        1 as stream_state,
        last_token,
        stream_id
    from closed
    union all
    select
        keyspace_name,
        table_name,
        set_ts_ms,
        2 as stream_state,
        last_token,
        stream_id
    from opened

)

-- in the order ScyllaDB lists them: by time, state, then the streams' tokens (signed)
select
    keyspace_name,
    table_name,
    timestamp_millis(set_ts_ms) as timestamp,
    cast(stream_state as tinyint) as stream_state,
    stream_id
from states
order by keyspace_name, table_name, timestamp, stream_state, last_token
