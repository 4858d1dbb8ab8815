{% test one_true_per_group(model, column_name, group_by, last_by) %}
    {#- Exactly one row per group has the flag set, and it is the row with the highest `last_by`. -#}
with

flagged as (

    select
        {{ group_by | join(', ') }},
        count_if({{ column_name }}) as flagged_rows,
        max_by({{ column_name }}, {{ last_by }}) as last_row_flagged
    from {{ model }}
    group by {{ group_by | join(', ') }}

)

select * from flagged
where flagged_rows != 1 or not coalesce(last_row_flagged, false)
{% endtest %}
