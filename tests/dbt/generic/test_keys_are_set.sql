{% test keys_are_set(model, not_null, unique=[], accepted_values={}) %}
    {#- A table's key columns, in one query: none null (`not_null`), no value twice (`unique`), each
        of `accepted_values` among its values. One row per broken rule: the rule and the rows breaking it. -#}
with

checked as (

    select
        {% for column in not_null -%}
            count_if(`{{ column }}` is null) as `null {{ column }}`,
        {% endfor -%}
        {% for column in unique -%}
            count(`{{ column }}`) - count(distinct `{{ column }}`) as `repeated {{ column }}`,
        {% endfor -%}
        {% for column, values in accepted_values.items() -%}
            count_if(`{{ column }}` not in ({{ values | join(', ') }})) as `other {{ column }}`,
        {% endfor -%}
        count(*) as row_count
    from {{ model }}

)

select rule, broken_rows
from checked
lateral view stack(
    {{ not_null | length + unique | length + accepted_values | length }}
    {%- for column in not_null %}, 'null {{ column }}', `null {{ column }}`{% endfor %}
    {%- for column in unique %}, 'repeated {{ column }}', `repeated {{ column }}`{% endfor %}
    {%- for column in accepted_values %}, 'other {{ column }}', `other {{ column }}`{% endfor %}
) as rule, broken_rows
where broken_rows > 0
{% endtest %}
