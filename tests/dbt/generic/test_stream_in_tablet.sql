{% test stream_in_tablet(model, column_name, token, keyspace_name, table_name, change_ts) %}
{#- A tablets table's write is in the stream ScyllaDB picks (docs/scylla/tablets.md §2, §3): a
    stream of the table's newest set at or before the write's timestamp, the first of that set
    whose token is >= the write's token; its ID carries that token, index 0 and version 1. Read
    from the input stream sets, not from the pipeline's ranges. -#}
with

checked as (

    select
        model_rows.*,
        decoded_ids.*
    from (select * from {{ model }}) as model_rows
        lateral view inline(array(named_struct(
            'stream_token', {{ cdc_udf('cdc_stream_id_token') }}(model_rows.{{ column_name }}),
            'stream_index', {{ cdc_udf('cdc_stream_id_vnode_index') }}(model_rows.{{ column_name }}),
            'stream_version', cast(conv(substr(hex(model_rows.{{ column_name }}), 32, 1), 16, 10) as int)
        ))) decoded_ids

),

streams as (

    select * from {{ ref('stg_cdc_input__tablet_streams') }}

),

chosen as (

    select
        checked.*,
        streams.set_ts_us as chosen_set_ts_us,
        streams.last_token as chosen_last_token
    from checked
    left join streams
        on
            checked.{{ keyspace_name }} = streams.keyspace_name
            and checked.{{ table_name }} = streams.table_name
            and checked.{{ column_name }} = streams.stream_id
            and streams.set_ts_us <= checked.{{ change_ts }}

)

select * from chosen
where
    chosen_set_ts_us is null
    or stream_index != 0
    or stream_version != 1
    or stream_token != chosen_last_token
    or {{ token }} > chosen_last_token
    -- a newer set was in force at the write's time
    or exists (
        select 1 from streams as later
        where
            later.keyspace_name = chosen.{{ keyspace_name }} and later.table_name = chosen.{{ table_name }}
            and later.set_ts_us > chosen.chosen_set_ts_us and later.set_ts_us <= chosen.{{ change_ts }}
    )
    -- an earlier stream of the set also covers the token
    or exists (
        select 1 from streams as before
        where
            before.keyspace_name = chosen.{{ keyspace_name }} and before.table_name = chosen.{{ table_name }}
            and before.set_ts_us = chosen.chosen_set_ts_us
            and before.last_token >= chosen.{{ token }} and before.last_token < chosen.chosen_last_token
    )
{% endtest %}
