{#- What the log replay (int_log_replay_facts, the log round-trip test) reads. -#}

{% macro cdc_replayable_tables(tables_described) -%}
    {#- A subquery of the newest schema version (of `tables_described`: `int_base_tables_described`)
        of each table whose log carries values in every schema version that logs (not `delta: keys`). -#}
    (
        select tables.*
        from {{ tables_described }} as tables
        left anti join (
            select
                keyspace_name,
                table_name
            from {{ tables_described }}
            where cdc_enabled and cdc_delta = 'keys'
        ) as keys_only
            on tables.keyspace_name = keys_only.keyspace_name and tables.table_name = keys_only.table_name
        where tables.is_latest_version
    )
{%- endmacro %}


{% macro cdc_newest_base_columns(columns_described) -%}
    {#- A subquery of each base column (of `columns_described`: `int_base_columns_described`) as
        its table's newest schema version has it. -#}
    (
        select * from (
            select
                *,
                row_number() over (
                    partition by keyspace_name, table_name, column_name order by schema_version desc
                ) as newest_first
            from {{ columns_described }}
        ) as versions
        where newest_first = 1
    )
{%- endmacro %}


{% macro cdc_replay_as_of_us(facts) -%}
    {#- The time the replayed state is taken at (µs): dbt var `as_of_us`, by default the newest
        change in the log (of any table: the newest of `facts`, `int_log_replay_facts`). -#}
    {%- set as_of_us = var('as_of_us', none) -%}
    {%- if as_of_us is none -%}
        (select coalesce(max(ts), 0) from {{ facts }})
    {%- else -%}
        cast({{ as_of_us }} as bigint)
    {%- endif -%}
{%- endmacro %}


{% macro cdc_imported_log_tables(imported_log) -%}
    {#- A subquery of the tables (keyspace_name, table_name) with a log loaded by `cdclake load log`
        (`imported_log`: `stg_cdc_input__imported_log`). -#}
    (
        select distinct
            keyspace_name,
            table_name
        from {{ imported_log }}
    )
{%- endmacro %}


{% macro cdc_replayed_log(produced_log, imported_log) -%}
    {#- A subquery of the log the consumer tables replay, shaped like `cdc_log`: for a table with
        a log loaded by `cdclake load log` (`imported_log`: `stg_cdc_input__imported_log`), that
        log (its rows without a write id); for the others, `produced_log` (`int_log_written` rows). -#}
    {%- set columns = ['keyspace_name', 'table_name', '`cdc$stream_id`', '`cdc$time`', '`cdc$batch_seq_no`',
                       '`cdc$operation`', '`cdc$ttl`', '`cdc$end_of_batch`', 'column_name', 'value'] -%}
    (
        select
            {%- for column in columns %}
            produced.{{ column }},
            {%- endfor %}
            produced.write_id
        from {{ produced_log }} as produced
        left anti join {{ cdc_imported_log_tables(imported_log) }} as imported_tables
            on
                produced.keyspace_name = imported_tables.keyspace_name
                and produced.table_name = imported_tables.table_name
        union all
        select
            {%- for column in columns %}
            imported.{{ column }},
            {%- endfor %}
            cast(null as bigint) as write_id
        from {{ imported_log }} as imported
    )
{%- endmacro %}


{% macro cdc_relation_exists(relation) -%}
    {#- Whether the warehouse holds `relation` (false while dbt only parses). -#}
    {{ return(execute and adapter.get_relation(
        database=relation.database, schema=relation.schema, identifier=relation.identifier) is not none) }}
{%- endmacro %}


{% macro cdc_refuse_switched_log_sources(imported_log) -%}
    {#- Stops a build that appends to `int_log_replay_facts` (the model selected, its table there,
        no full refresh) when a table whose facts came from the produced log now has an imported
        one: its facts must all be replaced (a full refresh). Called by `int_build_batch`, which
        every model of a batch follows, so that a build stops before it writes anything of the
        batch, and by the facts model, for a build that selects it without the batch.
        `imported_log`: `stg_cdc_input__imported_log`. -#}
    {%- set imported_tables = cdc_imported_log_tables(imported_log) -%}
    {%- if not execute or 'model.' ~ project_name ~ '.int_log_replay_facts' not in selected_resources -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set facts = cdc_existing_relation('cdc_intermediate', 'int_log_replay_facts') -%}
    {#- most warehouses hold no imported log: then a query of the facts' tables is not needed -#}
    {%- if facts is not none and run_query("select 1 from " ~ imported_tables ~ " limit 1").rows | length > 0 -%}
        {%- set switched = run_query(
            "select distinct concat(facts.keyspace_name, '.', facts.table_name) from " ~ facts ~ " as facts"
            ~ " left semi join " ~ imported_tables ~ " as imported"
            ~ " on facts.keyspace_name = imported.keyspace_name and facts.table_name = imported.table_name"
            ~ " where facts.write_id is not null"
        ).columns[0].values() -%}
        {%- if switched | length > 0 -%}
            {{ exceptions.raise_compiler_error(
                "A log was loaded for " ~ switched | join(", ") ~ " after its consumer tables were built from"
                ~ " the produced log: rebuild them with `cdclake build --full-refresh`.") }}
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
