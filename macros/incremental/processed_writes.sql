{% macro cdc_writes_processed_before() -%}
    {#- The writes earlier builds processed (`cdc_processed_writes`: write_id, batch_id), or
        none on the first build and with --full-refresh. -#}
    {%- set relation = cdc_existing_relation('cdc_lake', 'cdc_processed_writes') -%}
    {%- if relation is none -%}
        (select cast(null as bigint) as write_id, cast(null as bigint) as batch_id where false)
    {%- else -%}
        (select write_id, batch_id from {{ relation }})
    {%- endif -%}
{%- endmacro %}


{% macro cdc_last_processed_write_id(build_batch) -%}
    {#- The last write id earlier builds processed (`build_batch`: `int_build_batch`), as a
        number for a filter on the log (`cdc_log_written_after`), or none: a full build, or no
        write before. -#}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set last = run_query('select last_processed_write_id from ' ~ build_batch).columns[0].values()[0] -%}
    {{ return(none if last is none else last | int) }}
{%- endmacro %}
