{% macro spark__load_csv_rows(model, agate_table) %}
    {#- dbt-spark's own version binds values through Python string formatting: an empty CSV
        field arrives as the string 'None' and a single quote breaks the statement. This one
        renders every value as an escaped SQL literal, and empty fields as NULL. -#}
    {%- set batch_size = get_batch_size() -%}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(batch_size) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                ({%- for col_name in agate_table.column_names -%}
                    {%- set inferred_type = adapter.convert_type(agate_table, loop.index0) -%}
                    {%- set type = column_override.get(col_name, inferred_type) -%}
                    cast({{ seed_literal(row[loop.index0]) }} as {{ type }})
                    {%- if not loop.last %}, {% endif -%}
                {%- endfor -%})
                {%- if not loop.last %},{% endif %}
            {% endfor %}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.index0 == 0 -%}{%- do statements.append(sql) -%}{%- endif -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}


{% macro seed_literal(value) -%}
    {#- A CSV value as a Spark SQL literal: NULL, or a quoted string with \ and ' escaped
        (Spark casts it to the column's type). -#}
    {%- if value is none -%}
        null
    {%- else -%}
        '{{ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") }}'
    {%- endif -%}
{%- endmacro %}
