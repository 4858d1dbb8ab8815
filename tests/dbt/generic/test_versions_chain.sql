{% test versions_chain(model, column_name, valid_to, group_by, recomputed_by=none) %}
    {#- The versions of each group (`group_by`) neither overlap nor leave gaps: one version per
        start (`column_name`), each ending where the next starts, the last one open (null).
        With `recomputed_by`, only the groups the newest build of `model` recomputed. -#}
with

versions as (

    select distinct
        {{ group_by | join(', ') }},
        {{ column_name }} as valid_from,
        {{ valid_to }} as valid_to
    from {{ model }}
    {% if recomputed_by %}
        where {{ recomputed_by }} = (select max({{ recomputed_by }}) from {{ model }})
    {% endif %}

),

chained as (

    select
        *,
        lead(valid_from) over (partition by {{ group_by | join(', ') }} order by valid_from) as next_from,
        count(*) over (partition by {{ group_by | join(', ') }}, valid_from) as versions_at_start
    from versions

)

select * from chained
where not (valid_to <=> next_from) or versions_at_start > 1
{% endtest %}
