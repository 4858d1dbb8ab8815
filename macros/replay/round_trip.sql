{#- Helpers of the log replay: the state a log rebuilds (int_log_replay_cells) and the log round-trip
    test (tests/dbt/marts/assert_log_replays_to_base_state.sql). -#}

{% macro cdc_json_object(members) -%}
    {#- A map<string, string> of raw JSON members as one JSON object, members in name order. -#}
    concat('{', array_join(transform(
        array_sort(map_entries({{ members }})),
        e -> concat({{ cdc_json_name('e.key') }}, ':', e.value)
    ), ','), '}')
{%- endmacro %}


{% macro cdc_json_text(json) -%}
    {#- A JSON value as Spark reads it into a string: a string's text, any other value's JSON. -#}
    from_json(concat('{"v":', {{ json }}, '}'), 'v string').v
{%- endmacro %}


{% macro cdc_timeuuid_micros(timeuuid) -%}
    {#- The microsecond timestamp a version-1 timeuuid carries (docs/scylla/log.md §6.1). -#}
    (cast(conv(concat(
        substr({{ timeuuid }}, 16, 3), substr({{ timeuuid }}, 10, 4), substr({{ timeuuid }}, 1, 8)
    ), 16, 10) as bigint) - 122192928000000000) div 10
{%- endmacro %}


{% macro cdc_write_fact(
    is_static, row_position, fact_kind, column_name='null', element_key='null', is_live='null', value='null',
    ts='null', ttl='null', start_position='null', end_position='null'
) -%}
    {#- One write fact (a cell, marker or tombstone, as `cdc_live_cells` merges them) as a struct of
        fixed field types, so that facts of every kind go through one generator. -#}
    named_struct(
        'is_static', cast({{ is_static }} as boolean),
        'row_position', cast({{ row_position }} as binary),
        'fact_kind', cast({{ fact_kind }} as string),
        'column_name', cast({{ column_name }} as string),
        'element_key', cast({{ element_key }} as string),
        'is_live', cast({{ is_live }} as boolean),
        'value', cast({{ value }} as string),
        'ts', cast({{ ts }} as bigint),
        'ttl', cast({{ ttl }} as bigint),
        'start_position', cast({{ start_position }} as binary),
        'end_position', cast({{ end_position }} as binary)
    )
{%- endmacro %}


{% macro cdc_live_cells(facts, name, extra=[], as_of_us=none) -%}
    {#- CTEs `<name>_winners` and `<name>`: the live cells and row markers of a set of write facts
        (cells, markers and tombstones), merged as ScyllaDB merges them: per cell the highest
        timestamp wins, a dead cell on a tie; a tombstone removes what it covers at or below its
        timestamp. `extra`: columns of the facts the winner keeps. Without `as_of_us` TTL expiry
        is not applied (the TTL is compared as a fact); with it (a SQL expression, microseconds),
        only facts written at or before it count and a cell whose TTL has run out by then (its
        write time plus its TTL) is gone, as dead as a tombstone at its write time. -#}
{%- set known = facts if as_of_us is none else name ~ '_facts' %}
{%- if as_of_us is not none %}
{{ name }}_facts as (

    select * from {{ facts }}
    where ts <= {{ as_of_us }}

),
{% endif %}

{{ name }}_winners as (

    select
        keyspace_name, table_name, partition_id, is_static, row_position, column_name, element_key,
        max(struct(ts, not is_live as is_dead, value, ttl{% for column in extra %}, {{ column }}{% endfor %})) as winner
    from {{ known }}
    where fact_kind in ('cell', 'row_marker')
    group by keyspace_name, table_name, partition_id, is_static, row_position, column_name, element_key

),

{{ name }} as (

    select
        winners.keyspace_name, winners.table_name, winners.partition_id, winners.is_static,
        winners.row_position, winners.column_name, winners.element_key,
        winners.winner.value as value, winners.winner.ts as ts, winners.winner.ttl as ttl
        {%- for column in extra %}, winners.winner.{{ column }} as {{ column }}{% endfor %}
    from {{ name }}_winners as winners
    left join {{ known }} as deletions
        on
            winners.keyspace_name = deletions.keyspace_name
            and winners.table_name = deletions.table_name
            and winners.partition_id = deletions.partition_id
            and {{ cdc_tombstone_covers('deletions', 'winners') }}
    group by
        winners.keyspace_name, winners.table_name, winners.partition_id, winners.is_static,
        winners.row_position, winners.column_name, winners.element_key, winners.winner
    having
        not winners.winner.is_dead and coalesce(max(deletions.ts) < winners.winner.ts, true)
        {%- if as_of_us is not none %}
        and coalesce(winners.winner.ts + winners.winner.ttl * 1000000 > {{ as_of_us }}, true)
        {%- endif %}

)
{%- endmacro %}


{% macro cdc_tombstone_covers(tombstone, cell) -%}
    {#- SQL condition: the tombstone fact `tombstone` (of the cell's partition) covers the cell or
        row marker fact `cell`: a partition tombstone every row, a row tombstone its row, a range
        tombstone the rows strictly between its bounds' positions, a collection tombstone the
        elements of its column; static cells only by partition and collection tombstones. -#}
    (
        {{ tombstone }}.fact_kind = 'partition_tombstone'
        or (
            {{ tombstone }}.fact_kind = 'row_tombstone' and not {{ cell }}.is_static
            and {{ tombstone }}.row_position = {{ cell }}.row_position
        )
        or (
            {{ tombstone }}.fact_kind = 'range_tombstone' and not {{ cell }}.is_static
            and {{ cell }}.row_position > {{ tombstone }}.start_position
            and {{ cell }}.row_position < {{ tombstone }}.end_position
        )
        or (
            {{ tombstone }}.fact_kind = 'collection_tombstone' and {{ cell }}.element_key is not null
            and {{ tombstone }}.is_static = {{ cell }}.is_static
            and {{ tombstone }}.row_position = {{ cell }}.row_position
            and {{ tombstone }}.column_name = {{ cell }}.column_name
        )
    )
{%- endmacro %}


{% macro cdc_cell_differences(left, right, left_label, right_label) -%}
    {#- A select of the cells (keyed by table, partition, row, column and element) on which two
        sets of live cells (`cdc_live_cells` columns) differ in value, timestamp or TTL, or that
        only one of them holds; each side's values named `<value|timestamp|ttl>_<label>`. -#}
select
    coalesce({{ left }}.keyspace_name, {{ right }}.keyspace_name) as keyspace_name,
    coalesce({{ left }}.table_name, {{ right }}.table_name) as table_name,
    coalesce({{ left }}.partition_id, {{ right }}.partition_id) as partition_id,
    coalesce({{ left }}.column_name, {{ right }}.column_name) as column_name,
    coalesce({{ left }}.element_key, {{ right }}.element_key) as element_key,
    {{ left }}.value as value_{{ left_label }},
    {{ right }}.value as value_{{ right_label }},
    {{ left }}.ts as timestamp_{{ left_label }},
    {{ right }}.ts as timestamp_{{ right_label }},
    {{ left }}.ttl as ttl_{{ left_label }},
    {{ right }}.ttl as ttl_{{ right_label }}
from {{ left }}
full outer join {{ right }}
    on
        {{ left }}.keyspace_name = {{ right }}.keyspace_name
        and {{ left }}.table_name = {{ right }}.table_name
        and {{ left }}.partition_id = {{ right }}.partition_id
        and {{ left }}.is_static = {{ right }}.is_static
        and {{ left }}.row_position = {{ right }}.row_position
        and {{ left }}.column_name <=> {{ right }}.column_name
        and {{ left }}.element_key <=> {{ right }}.element_key
where
    not ({{ left }}.value <=> {{ right }}.value)
    or not ({{ left }}.ts <=> {{ right }}.ts)
    or not ({{ left }}.ttl <=> {{ right }}.ttl)
    or {{ left }}.keyspace_name is null
    or {{ right }}.keyspace_name is null
{%- endmacro %}
