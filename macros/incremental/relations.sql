{% macro cdc_table_format() -%}
    {#- The format the project writes: Delta on Databricks, elsewhere what cdclake found on the
        Spark classpath (CDCLAKE_TABLE_FORMAT: delta or parquet), as in dbt_project.yml. -#}
    {{ return('delta' if target.type == 'databricks' else env_var('CDCLAKE_TABLE_FORMAT', 'parquet')) }}
{%- endmacro %}


{% macro cdc_existing_relation(schema, identifier) -%}
    {#- The relation `schema.identifier` when it exists and this is not a full refresh, else
        none. A batch reads what earlier builds left (the processed writes, the base state)
        this way, not through ref(): those tables are written at the end of the build that
        reads them, after everything that depends on their earlier contents. -#}
    {%- if not execute or flags.FULL_REFRESH -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(adapter.get_relation(database=this.database, schema=schema, identifier=identifier)) }}
{%- endmacro %}
