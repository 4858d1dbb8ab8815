{% macro scylla_cdc_log_columns(keyspace_name, table_name) -%}
    {#- The base table's columns in log-table order (docs/scylla/log.md §2.2): partition key,
        clustering key, then static and regular columns; not the hidden `empty` column of a
        dense COMPACT STORAGE table, which the log leaves out. As the generated model declares
        them (`cdc_generated_model_meta`); none while dbt parses. -#}
    {{ return(cdc_generated_model_meta(keyspace_name, table_name).cdc_base_columns) }}
{%- endmacro %}


{% macro scylla_cdc_user_types(keyspace_name) -%}
    {#- The keyspace's user types: type name -> [(field, type), ...] in declaration order, as
        the generated model declares them (`cdc_generated_model_meta`). -#}
    {{ return(cdc_generated_model_meta(keyspace_name).cdc_user_types) }}
{%- endmacro %}


{% macro cdc_generated_model_meta(keyspace_name, table_name=none) -%}
    {#- The schema a generated log or consumer model declares in its properties (`config.meta`,
        cdclake/logschema.py `generated_model_meta`): its base table, the table's columns and
        its keyspace's user types. cdclake writes them from the schema records with every schema
        load and before every build, beside the contract's columns; reading them here spares
        each model two queries of the schema while it compiles. While dbt parses: no columns. -#}
    {%- if not execute -%}
        {{ return({'cdc_base_columns': [], 'cdc_user_types': {}}) }}
    {%- endif -%}
    {%- set meta = config.get('meta') or {} -%}
    {%- set declared = meta.get('cdc_base_table') -%}
    {%- if declared is none or declared.split('.')[0] != keyspace_name
            or (table_name is not none and declared != keyspace_name ~ '.' ~ table_name) -%}
        {%- set wanted = keyspace_name ~ ("." ~ table_name if table_name is not none else "") -%}
        {{ exceptions.raise_compiler_error(
            "The model " ~ model.name
            ~ (" declares no schema (no meta.cdc_base_table), not that of " if declared is none
               else " declares the schema of " ~ declared ~ ", not of ") ~ wanted
            ~ ": generated models come from cdclake (`cdclake build`, or a `cdclake load` of the "
            ~ "schema), which declares it.") }}
    {%- endif -%}
    {{ return(meta) }}
{%- endmacro %}


{% macro scylla_cdc_log_table(keyspace_name, table_name, log, batch_atoms) -%}
    {#- The log table `<keyspace>.<table>_scylla_cdc_log` of one base table, with ScyllaDB's
        column names and the Spark types of the CQL types: `log` (`int_log_written`) pivoted from
        long to wide.
        Each build appends the rows of its batch and of the writes earlier builds processed
        after the last one this table holds (a build stopped before this table left them out;
        without that mark, the last processed batch's), leaving out those already here. -#}
    {%- set columns = scylla_cdc_log_columns(keyspace_name, table_name) -%}
    {%- set udts = scylla_cdc_user_types(keyspace_name) -%}
    {%- set logged_through = cdc_logged_through_write_id() -%}
    {{- config(materialized='incremental', incremental_strategy='append',
               post_hook="{{ cdc_mark_logged_through(ref('int_batch_atoms')) }}") -}}
with

recent_writes as (

    {{ cdc_writes_to_add(logged_through, batch_atoms) }}

),

log_cells as (

    select log.*
    from {{ log }} as log
    left semi join recent_writes
        on log.write_id = recent_writes.write_id
    where
        log.keyspace_name = '{{ keyspace_name }}' and log.table_name = '{{ table_name }}'
        and {{ cdc_log_written_after('log', logged_through) }}

),

log_rows as (

    select
        `cdc$stream_id`,
        `cdc$time`,
        `cdc$batch_seq_no`,
        `cdc$operation`,
        `cdc$ttl`,
        `cdc$end_of_batch`
        {%- for column in columns %},
        max(if(column_name = '{{ column.name }}', value, null)) as `{{ column.name }}`
        {%- if column.kind in ('static', 'regular') %},
        max(if(column_name = 'cdc$deleted_{{ column.name }}', value, null)) as `cdc$deleted_{{ column.name }}`
        {%- if cql_is_multi_cell(column.cql_type, udts) %},
        max(if(column_name = 'cdc$deleted_elements_{{ column.name }}', value, null))
            as `cdc$deleted_elements_{{ column.name }}`
        {%- endif %}
        {%- endif %}
        {%- endfor %}
    from log_cells
    group by 1, 2, 3, 4, 5, 6

),

typed as (

    select
        `cdc$stream_id`,
        `cdc$time`,
        `cdc$batch_seq_no`,
        `cdc$operation`,
        `cdc$ttl`,
        `cdc$end_of_batch`
        {%- for column in columns %}
        {%- set t = column.cql_type | trim | lower %}
        {%- if cql_is_multi_cell(t, udts) %}
        {%- set args = cql_type_arguments(t) if '<' in t else [] %}
        {%- if t in udts %}
        {%- set value_type = 'frozen<' ~ t ~ '>' %}
        {%- set deleted_type = 'frozen<set<smallint>>' %}
        {%- elif t.startswith('list<') %}
        {%- set value_type = 'frozen<map<timeuuid, ' ~ args[0] ~ '>>' %}
        {%- set deleted_type = 'frozen<set<timeuuid>>' %}
        {%- else %}
        {%- set value_type = 'frozen<' ~ t ~ '>' %}
        {%- set deleted_type = 'frozen<set<' ~ args[0] ~ '>>' %}
        {%- endif %}
        {%- else %}
        {%- set value_type = t %}
        {%- endif %},
        {{ cql_value_from_json('`' ~ column.name ~ '`', value_type, udts) }} as `{{ column.name }}`
        {%- if column.kind in ('static', 'regular') %},
        cast(`cdc$deleted_{{ column.name }}` as boolean) as `cdc$deleted_{{ column.name }}`
        {%- if cql_is_multi_cell(t, udts) %},
        {{ cql_value_from_json('`cdc$deleted_elements_' ~ column.name ~ '`', deleted_type, udts) }}
            as `cdc$deleted_elements_{{ column.name }}`
        {%- endif %}
        {%- endif %}
        {%- endfor %}
    from log_rows

)

select typed.*
from typed
{%- if is_incremental() %}
left anti join {{ this }} as logged_before
    on
        typed.`cdc$stream_id` = logged_before.`cdc$stream_id`
        and typed.`cdc$time` = logged_before.`cdc$time`
        and typed.`cdc$batch_seq_no` = logged_before.`cdc$batch_seq_no`
{%- endif %}
{%- endmacro %}
