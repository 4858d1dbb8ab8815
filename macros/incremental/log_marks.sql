{% macro cdc_table_mark(name) -%}
    {#- The integer table property `cdclake.<name>` of this incremental table, or none: a full
        build, or a table without the property. -#}
    {%- if not (execute and is_incremental()) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- for row in run_query('show tblproperties ' ~ this).rows -%}
        {%- if row[0] == 'cdclake.' ~ name -%}
            {{ return(row[1] | int) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{%- endmacro %}


{% macro cdc_logged_through_write_id() -%}
    {#- The highest write id whose log rows this incremental log table holds (its table property
        `cdclake.logged_through_write_id`, set after each build of it), or none: a full build,
        or a table an older cdclake wrote. -#}
    {{ return(cdc_table_mark('logged_through_write_id')) }}
{%- endmacro %}


{% macro cdc_mark_logged_through(batch_atoms) -%}
    {#- Post-hook of a log table: it holds the rows of every write up to this batch's last (of
        `batch_atoms`, `int_batch_atoms`; a batch of rejected late writes, ids below the mark,
        leaves it where it is). -#}
    {%- if execute -%}
        {%- set last = run_query('select max(write_id) from ' ~ batch_atoms).columns[0].values()[0] -%}
        {%- set before = cdc_logged_through_write_id() -%}
        {%- if last is not none and (before is none or last | int > before) -%}
            alter table {{ this }} set tblproperties ('cdclake.logged_through_write_id' = '{{ last | int }}')
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}


{% macro cdc_writes_to_add(logged_through, batch_atoms) -%}
    {#- The write ids whose rows an incremental table that follows the log adds in this build:
        the batch's (`batch_atoms`: `int_batch_atoms`), and those earlier builds processed after the last one the table holds
        (`logged_through`, from `cdc_logged_through_write_id`; a build stopped before the table
        left them out), or without that mark the last processed batch's. -#}
    select write_id from {{ batch_atoms }}
    {%- if is_incremental() %}
    union all
    select processed.write_id
    from {{ cdc_writes_processed_before() }} as processed
    {%- if logged_through is not none %}
    where processed.write_id > {{ logged_through }}
    {%- else %}
    where processed.batch_id = (select max(batch_id) from {{ cdc_writes_processed_before() }})
    {%- endif %}
    {%- endif %}
{%- endmacro %}


{% macro cdc_log_written_after(log_alias, write_id) -%}
    {#- A filter that keeps the log rows of writes after `write_id` (none: every row). The rows
        it drops are also dropped by a join with the writes a build adds, but a join reads every
        row group of the log first; a comparison with a literal is checked against each Parquet
        row group's smallest and largest write id (Delta's files are Parquet), so a batch's
        readers skip the row groups earlier batches appended, their columns unread. -#}
    {%- if write_id is none -%}
        true
    {%- else -%}
        {{ log_alias }}.write_id > {{ write_id | int }}
    {%- endif -%}
{%- endmacro %}
