{% test columns_equal(model, column_name, other_column) %}
    {#- Two columns hold the same value on every row. -#}
select * from {{ model }}
where not ({{ column_name }} <=> {{ other_column }})
{% endtest %}
