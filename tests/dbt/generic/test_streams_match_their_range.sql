{% test streams_match_their_range(model, column_name, shard, range_start, range_end, range_position, shard_count, ignore_msb) %}
{#- Each stream ID is the one make_new_generation_description builds (docs/scylla/math.md §3-4):
    version 1, vnode index = its range's position, token = the first token of its shard in the
    range, i.e. inside the range and of that shard, or the range end when the vnode is too small
    to hold a token of the shard. -#}
with

decoded as (

    -- the UDFs' results come out of a generator, which a filter on them cannot be pushed
    -- below: each UDF runs once per row (test_example_query_plans.py)
    select
        model_rows.*,
        decoded_ids.*
    from (select * from {{ model }}) as model_rows
        lateral view inline(array(named_struct(
            'stream_version', {{ cdc_udf('cdc_stream_id_version') }}(model_rows.{{ column_name }}),
            'stream_vnode_index', {{ cdc_udf('cdc_stream_id_vnode_index') }}(model_rows.{{ column_name }}),
            'stream_token', {{ cdc_udf('cdc_stream_id_token') }}(model_rows.{{ column_name }}),
            'expected_token', {{ cdc_udf('cdc_find_first_token_for_shard') }}(
                model_rows.{{ range_start }}, model_rows.{{ range_end }}, cast(model_rows.{{ shard_count }} as int),
                model_rows.{{ ignore_msb }}, model_rows.{{ shard }}
            )
        ))) decoded_ids

)

select * from decoded
where
    stream_version != 1
    or stream_vnode_index != {{ range_position }}
    or stream_token != expected_token
    or not (
        {{ cdc_udf('cdc_shard_of') }}(stream_token, cast({{ shard_count }} as int), {{ ignore_msb }}) = {{ shard }}
        or stream_token = {{ range_end }}
    )
{% endtest %}
