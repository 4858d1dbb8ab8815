{#- The stream sets of tablets tables describe what ScyllaDB could have made (docs/scylla/tablets.md
    §2, §3, §5): each set's streams have distinct last tokens up to the ring's end (so their
    tablets tile the ring), and each stream ID carries its tablet's last token. Sets of tables the
    schemas do not hold (an export of every table of a cluster) are left unused. Each problem row
    names the input table and row; any row fails the build before a log is written (cdclake
    prints them). -#}
with

streams as (

    select * from {{ ref('stg_cdc_input__tablet_streams') }}

),

decoded as (

    select
        streams.*,
        decoded_ids.stream_token
    from streams
        lateral view inline(array(named_struct(
            'stream_token', {{ cdc_udf('cdc_stream_id_token') }}(streams.stream_id)
        ))) decoded_ids
    where streams.stream_id is not null and length(streams.stream_id) = 16

),

sets as (

    select
        keyspace_name,
        table_name,
        set_ts_ms,
        max(last_token) as last_token
    from streams
    where keyspace_name is not null and table_name is not null and set_ts_ms is not null
    group by keyspace_name, table_name, set_ts_ms

),

problems as (

    select concat(
        'cdc_input.tablet_streams: ', coalesce(keyspace_name, 'null'), '.', coalesce(table_name, 'null'),
        ' set ', coalesce(set_ts_ms, 'null'), ' ms: ',
        case
            when keyspace_name is null or table_name is null or set_ts_ms is null or last_token is null
                then 'keyspace_name, table_name, set_ts_ms and last_token are all needed'
            when stream_id is null then 'stream_id is missing or not hexadecimal'
            else concat('stream_id ', lower(hex(stream_id)), ' is not 16 bytes')
        end
    ) as problem
    from streams
    where
        keyspace_name is null or table_name is null or set_ts_ms is null or last_token is null
        or stream_id is null or length(stream_id) != 16

    union all

    select concat(
        'cdc_input.tablet_streams: ', keyspace_name, '.', table_name, ' set ', set_ts_ms, ' ms: stream ',
        lower(hex(stream_id)), ' carries token ', stream_token, ', not its last_token ', last_token
    ) as problem
    from decoded
    where stream_token != last_token

    union all

    select concat(
        'cdc_input.tablet_streams: ', keyspace_name, '.', table_name, ' set ', set_ts_ms, ' ms: ',
        count(*), ' streams end at token ', last_token, ' (one tablet per last token)'
    ) as problem
    from streams
    where last_token is not null
    group by keyspace_name, table_name, set_ts_ms, last_token
    having count(*) > 1

    union all

    select concat(
        'cdc_input.tablet_streams: ', keyspace_name, '.', table_name, ' set ', set_ts_ms,
        ' ms: its last tablet ends at token ', last_token, ', not at the ring''s end ', {{ max_token() }},
        ': the tablets do not tile the token ring'
    ) as problem
    from sets
    where last_token != {{ max_token() }}

)

select * from problems
