{#- The example keyspace's seed that loads an input table, as a dependency of the staging model
    that reads it, when the example is chosen (var cdc_example); otherwise nothing: the inputs
    are the user's, and no seed may overwrite them. -#}
{% macro cdc_example_seed(seed_name) -%}
    {%- if var('cdc_example', false) | string | lower == 'true' -%}{{ ref(seed_name) }}{%- endif -%}
{%- endmacro %}
