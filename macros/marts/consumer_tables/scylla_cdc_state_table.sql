{% macro cdc_state_cells_column(column, udts) -%}
    {#- The aggregate over a row's live cells that gathers one column: an atomic column's cell
        as struct(ts, ttl, value), a multi-cell column's elements as an array of
        struct(element_position, element_key, value, ts, ttl) (element_position: CQL order). -#}
    {%- set t = column.cql_type | trim | lower -%}
    {%- if cql_is_multi_cell(t, udts) -%}
        {%- if t in udts -%}
            {%- set position = 'cast(element_key as int)' -%}
        {%- else -%}
            {%- set key_type = 'timeuuid' if t.startswith('list<') else cql_type_arguments(t)[0] -%}
            {%- set position = cdc_udf('cdc_value_sort_key') ~ '('
                ~ cql_text_as_json('element_key', key_type) ~ ", '" ~ key_type ~ "')" -%}
        {%- endif -%}
        collect_list(if(
            column_name = '{{ column.name }}',
            struct(cast({{ position }} as binary) as element_position, element_key, value, ts, ttl),
            null
        ))
    {%- else -%}
        max(if(column_name = '{{ column.name }}', struct(ts, ttl, value), null))
    {%- endif -%}
{%- endmacro %}


{% macro cdc_state_value_columns(column, udts) -%}
    {#- The state's columns of one static or regular column gathered by `cdc_state_cells_column`
        (in `cells`): its value, `cdc$writetime_<c>` (microseconds), `cdc$ttl_<c>` (seconds) and
        `cdc$expires_at_<c>`. A multi-cell column: its live elements in CQL order (null when none
        is left), the newest element's write time, the TTL and expiry of the first to expire. -#}
    {%- set t = column.cql_type | trim | lower -%}
    {%- set cells = '`' ~ column.name ~ '`' -%}
    {%- if cql_is_multi_cell(t, udts) -%}
        {%- set sorted = 'array_sort(' ~ cells ~ ')' -%}
        {%- if t in udts -%}
            {%- set fields = 'map_from_entries(transform('
                ~ cells ~ ', cell -> struct(cell.element_key, cell.value)))' -%}
            {%- set parts = [] -%}
            {%- for field in udts[t] -%}
                {%- do parts.append("'" ~ field[0] ~ "', " ~ cql_value_from_text(fields ~ "['" ~ loop.index0 ~ "']", field[1], 0, udts)) -%}
            {%- endfor -%}
            {%- set value = 'named_struct(' ~ parts | join(', ') ~ ')' -%}
        {%- elif t.startswith('list<') -%}
            {%- set value = 'transform(' ~ sorted ~ ', cell -> ' ~ cql_value_from_text('cell.value', cql_type_arguments(t)[0], 0, udts) ~ ')' -%}
        {%- elif t.startswith('set<') -%}
            {%- set value = 'transform(' ~ sorted ~ ', cell -> ' ~ cql_value_from_text('cell.element_key', cql_type_arguments(t)[0], 0, udts) ~ ')' -%}
        {%- else -%}
            {%- set args = cql_type_arguments(t) -%}
            {%- set value = 'map_from_entries(transform(' ~ sorted ~ ', cell -> struct('
                ~ cql_value_from_text('cell.element_key', args[0], 0, udts) ~ ', '
                ~ cql_value_from_text('cell.value', args[1], 0, udts) ~ ')))' -%}
        {%- endif -%}
        {%- set first_expiry = 'array_min(transform(filter(' ~ cells ~ ', cell -> cell.ttl is not null), cell -> struct(cell.ts + cell.ttl * 1000000 as expires_us, cell.ttl)))' %}
        if({{ cells }} is null or size({{ cells }}) = 0, null, {{ value }}) as {{ cells }},
        array_max(transform({{ cells }}, cell -> cell.ts)) as `cdc$writetime_{{ column.name }}`,
        cast({{ first_expiry }}.ttl as int) as `cdc$ttl_{{ column.name }}`,
        timestamp_micros({{ first_expiry }}.expires_us) as `cdc$expires_at_{{ column.name }}`
    {%- else %}
        {{ cql_value_from_text(cells ~ '.value', t, 0, udts) }} as {{ cells }},
        {{ cells }}.ts as `cdc$writetime_{{ column.name }}`,
        cast({{ cells }}.ttl as int) as `cdc$ttl_{{ column.name }}`,
        timestamp_micros({{ cells }}.ts + {{ cells }}.ttl * 1000000) as `cdc$expires_at_{{ column.name }}`
    {%- endif -%}
{%- endmacro %}


{% macro cdc_state_key_columns(columns, udts, kinds) -%}
    {#- The select list of the key columns of `kinds` (partition_key, clustering) from
        `partition_id` and `row_clustering`, typed as in the log table. -#}
    {%- for column in columns if column.kind in kinds -%}
        {%- set source = 'partition_id' if column.kind == 'partition_key' else 'row_clustering' -%}
        {%- set key_text = "from_json(" ~ source ~ ", 'map<string, string>')['" ~ column.name ~ "']" -%}
        {{ ',\n    ' if not loop.first }}{{ cql_value_from_text(key_text, column.cql_type, 0, udts) }} as `{{ column.name }}`
    {%- endfor -%}
{%- endmacro %}


{% macro cdc_state_row_columns(columns, udts) -%}
    {#- The select list of a row of the base table from a relation with `partition_id`,
        `row_clustering` and each static and regular column gathered by
        `cdc_state_cells_column`: the key columns, then each value column with its write time,
        TTL and expiry (`cdc_state_value_columns`), typed as in the log table. -#}
    {%- set selected = [] -%}
    {%- set keys = cdc_state_key_columns(columns, udts, ['partition_key', 'clustering']) | trim -%}
    {%- if keys -%}
        {%- do selected.append(keys) -%}
    {%- endif -%}
    {%- for column in columns if column.kind in ('static', 'regular') -%}
        {%- do selected.append(cdc_state_value_columns(column, udts) | trim) -%}
    {%- endfor -%}
    {#- rendered while dbt parses: no columns (see scylla_cdc_log_columns) -#}
    {{ selected | join(',\n    ') if selected else 'partition_id, row_clustering' }}
{%- endmacro %}


{% macro scylla_cdc_state_table(keyspace_name, table_name, history, facts) -%}
    {#- `<keyspace>.<table>_state`: the base table as a replicator rebuilds it from the log's
        deltas (SCD1), as of var `as_of_us` (default: the newest change in the log, from
        `cdc_newest_change_us`): the versions of its `_history` table valid then, one row per
        live row, a partition's static columns on each of its rows (a partition with live static
        cells and no live rows: one row, clustering columns null). A view: a build writes nothing. -#}
    {%- set columns = scylla_cdc_log_columns(keyspace_name, table_name) -%}
    {%- set as_of = var('as_of_us', none) -%}
    {%- set as_of = cdc_newest_change_us(facts) if as_of is none else as_of -%}
    {{- config(materialized='view') -}}
with

valid_versions as (

    select * from {{ history }}
    where
        not `cdc$is_deletion`
        and `cdc$valid_from_us` <= {{ as_of }}
        and (`cdc$valid_to_us` is null or `cdc$valid_to_us` > {{ as_of }})

),

live_rows as (

    select * from valid_versions
    where not `cdc$is_static_row`

),

static_rows as (

    select * from valid_versions
    where `cdc$is_static_row`

)

{%- set selected = [] -%}
{%- for column in columns -%}
    {%- if column.kind == 'partition_key' -%}
        {%- do selected.append('coalesce(live_rows.`' ~ column.name ~ '`, static_rows.`' ~ column.name
                               ~ '`) as `' ~ column.name ~ '`') -%}
    {%- elif column.kind == 'clustering' -%}
        {%- do selected.append('live_rows.`' ~ column.name ~ '`') -%}
    {%- else -%}
        {%- for prefix in ['', 'cdc$writetime_', 'cdc$ttl_', 'cdc$expires_at_'] -%}
            {%- do selected.append(('static_rows' if column.kind == 'static' else 'live_rows')
                                   ~ '.`' ~ prefix ~ column.name ~ '`') -%}
        {%- endfor -%}
    {%- endif -%}
{%- endfor %}

select
    {#- rendered while dbt parses: no columns (see scylla_cdc_log_columns) #}
    {{ selected | join(',\n    ') if selected else 'live_rows.*' }}
from live_rows
full outer join static_rows
    on {{ cdc_same_partition('live_rows', 'static_rows', columns) }}
{%- endmacro %}
