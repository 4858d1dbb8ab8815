{#- The cdc_* UDFs on each target. Spark: the embedded session registered them (cdclake/session/spark.py,
    python_udfs/registry.py), so models call them by bare name and nothing is created. Databricks:
    they are Unity Catalog functions in the target's catalog and schema, created by the
    on-run-start hook from the generated macros/databricks/cdc_udfs_ddl.sql (cdclake/project/generated.py, from
    python_udfs/). -#}

{% macro cdc_udf(name) -%}
    {#- The name a model calls UDF `name` (one of cdc_udf_names()) by on this target. -#}
    {%- if name not in cdc_udf_names() -%}
        {{ exceptions.raise_compiler_error(
            "cdc_udf: '" ~ name ~ "' is not a UDF of the session; the UDFs are "
            ~ cdc_udf_names() | join(', ') ~ " (python_udfs/registry.py)") }}
    {%- endif -%}
    {{- return(adapter.dispatch('cdc_udf', 'scylla_cdc_lake')(name)) -}}
{%- endmacro %}

{% macro default__cdc_udf(name) -%}
    {#- Spark (dbt-spark dispatches here): a session UDF, by bare name. -#}
    {{- return(name) -}}
{%- endmacro %}

{% macro databricks__cdc_udf(name) -%}
    {{- return(cdc_udf_schema_path() ~ '.' ~ adapter.quote(name)) -}}
{%- endmacro %}


{% macro cdc_udf_schema_path() -%}
    {#- Where the Unity Catalog functions live: `catalog`.`schema` of the target. -#}
    {{- return(adapter.quote(target.catalog) ~ '.' ~ adapter.quote(target.schema)) -}}
{%- endmacro %}


{% macro create_cdc_udfs() -%}
    {#- on-run-start hook (dbt_project.yml): make the UDFs callable on this target. -#}
    {{- return(adapter.dispatch('create_cdc_udfs', 'scylla_cdc_lake')()) -}}
{%- endmacro %}

{% macro default__create_cdc_udfs() -%}
    {#- Spark: nothing to run, the session has them. An empty hook is skipped. -#}
    {{- return('') -}}
{%- endmacro %}

{% macro databricks__create_cdc_udfs() -%}
    {#- CREATE OR REPLACE every UDF as a Unity Catalog Python function (batch, pandas) in
        cdc_udf_schema_path(), creating that schema first. -#}
    {%- if execute -%}
        {%- set schema_path = cdc_udf_schema_path() -%}
        {%- do run_query('create schema if not exists ' ~ schema_path) -%}
        {%- set statements = cdc_udfs_ddl(schema_path) -%}
        {%- for statement in statements -%}
            {%- do run_query(statement) -%}
        {%- endfor -%}
        {%- do log('cdc UDFs: ' ~ statements | length ~ ' Unity Catalog functions in ' ~ schema_path, info=true) -%}
    {%- endif -%}
    {{- return('') -}}
{%- endmacro %}
