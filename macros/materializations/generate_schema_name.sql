{% macro generate_schema_name(custom_schema_name, node) -%}
    {#- Custom schemas are used verbatim: log tables land in the base table's keyspace
        (`ks.t_scylla_cdc_log`), inputs in `cdc_input`, marts in `cdc_lake`. -#}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
