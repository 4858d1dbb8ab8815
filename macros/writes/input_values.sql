{% macro cdc_quoted(expression, max_length=60) -%}
    {#- An offending input value for a rejection reason: in double quotes, cut to max_length
        characters (then ending in ...), or the word null. -#}
    coalesce(
        concat(
            '"',
            if(
                length({{ expression }}) > {{ max_length }},
                concat(left({{ expression }}, {{ max_length - 3 }}), '...'),
                {{ expression }}
            ),
            '"'
        ),
        'null'
    )
{%- endmacro %}
