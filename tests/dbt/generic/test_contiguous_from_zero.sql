{% test contiguous_from_zero(model, column_name, group_by) %}
    {#- Within each group the column takes exactly the values 0, 1, ..., n-1. -#}
select
    {{ group_by | join(', ') }},
    min({{ column_name }}) as min_value,
    max({{ column_name }}) as max_value,
        count(distinct {{ column_name }}) as distinct_values
from {{ model }}
group by {{ group_by | join(', ') }}
having
    min({{ column_name }}) != 0
    or max({{ column_name }}) != count(distinct {{ column_name }}) - 1
{% endtest %}
