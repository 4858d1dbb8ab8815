{% test stream_in_token_range(model, column_name, token, vnode_index, range_start, range_end, shard, shard_count, ignore_msb) %}
{#- The stream chosen for a write lies in the token range that holds the write's token
    `(range_start, range_end]` (wrapping when range_start >= range_end), its vnode index is that
    range's index (cdc_generation_test.cc invariant, docs/scylla/math.md §5), and it serves the
    write's shard: its token is of that shard, unless the vnode was too small to hold a token of
    it (the stream then carries the range end). -#}
with

checked as (

    -- the UDFs' results come out of a generator, which a filter on them cannot be pushed
    -- below: each UDF runs once per row (test_example_query_plans.py)
    select
        model_rows.*,
        decoded_ids.*
    from (select * from {{ model }}) as model_rows
        lateral view inline(array(named_struct(
            'stream_token', {{ cdc_udf('cdc_stream_id_token') }}(model_rows.{{ column_name }}),
            'stream_vnode_index', {{ cdc_udf('cdc_stream_id_vnode_index') }}(model_rows.{{ column_name }})
        ))) decoded_ids

)

select * from checked
where
    {{ column_name }} is null
    or stream_vnode_index != {{ vnode_index }}
    or not (
        {{ cdc_udf('cdc_shard_of') }}(stream_token, cast({{ shard_count }} as int), {{ ignore_msb }}) = {{ shard }}
        or stream_token = {{ range_end }}
    )
    or not (
        case
            when {{ range_start }} < {{ range_end }}
                then {{ token }} > {{ range_start }} and {{ token }} <= {{ range_end }}
                and stream_token > {{ range_start }} and stream_token <= {{ range_end }}
            else ({{ token }} > {{ range_start }} or {{ token }} <= {{ range_end }})
                and (stream_token > {{ range_start }} or stream_token <= {{ range_end }})
        end
    )
{% endtest %}
