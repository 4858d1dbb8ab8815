{% macro databricks__load_csv_rows(model, agate_table) %}
    {#- Seeds on Databricks load through dbt-databricks' own loader (native query parameters: empty
        fields bind as NULL, quotes need no escaping). Without this, dispatch would pick this
        project's spark__load_csv_rows, a workaround for dbt-spark's string-formatted bindings. -#}
    {{ return(dbt.databricks__load_csv_rows(model, agate_table)) }}
{% endmacro %}
