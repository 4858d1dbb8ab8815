{% macro cdc_input_columns(source_name, table_name, optional=[]) -%}
    {#- The columns an input table has, lower case. Stops the model that reads it with one line
        naming the table, each missing column and its contract type when a column of the source's
        contract (its yml) is absent, but those in `optional` (their model gives a default). While
        dbt only parses: none. -#}
    {%- if not execute -%}{{ return([]) }}{%- endif -%}
    {%- set node = graph.sources.values() | selectattr('source_name', 'equalto', source_name)
        | selectattr('name', 'equalto', table_name) | first -%}
    {%- set contract = node.columns if node else {} -%}
    {%- set relation = source(source_name, table_name) -%}
    {%- set present = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
    {%- set missing = [] -%}
    {%- for name, column in contract.items() if name | lower not in present and name | lower not in optional -%}
        {%- do missing.append(name ~ ' (' ~ column.data_type ~ ')') -%}
    {%- endfor -%}
    {%- if missing -%}
        {{ exceptions.raise_compiler_error(
            source_name ~ "." ~ table_name ~ " has no column " ~ missing | join(', ')
            ~ ": the input contract (models/staging/_cdc_input__sources.yml) requires "
            ~ ("it" if missing | length == 1 else "them")
            ~ (" (optional: " ~ optional | join(', ') ~ ")" if optional else "")
        ) }}
    {%- endif -%}
    {{ return(present) }}
{%- endmacro %}
