{% macro scylla_cdc_history_table(keyspace_name, table_name, versions, facts) -%}
    {#- `<keyspace>.<table>_history`: every version of every row of the base table the log
        rebuilds (SCD2), from `int_log_replay_versions`: the row's columns as in the state table,
        then its validity and the change that started it. On Delta a build replaces only the rows
        of the partitions whose versions were recomputed since its last one (`macros/incremental/replay_marks.sql`). -#}
    {%- set columns = scylla_cdc_log_columns(keyspace_name, table_name) -%}
    {%- set udts = scylla_cdc_user_types(keyspace_name) -%}
    {%- do cdc_config_replayed_table(keyspace_name, table_name) -%}
    {%- set mark = cdc_replay_mark() -%}
with

cells as (

    select versions.*
    from {{ versions }} as versions
    where
        versions.keyspace_name = '{{ keyspace_name }}' and versions.table_name = '{{ table_name }}'
        {%- if is_incremental() %}
        -- the partitions with facts replayed since this table's last build
        and {{ cdc_in_partitions_replayed_after('versions', facts, mark) }}
        {%- endif %}

),

versions as (

    select
        partition_id,
        row_clustering,
        is_static,
        valid_from_us,
        valid_to_us,
        is_deletion,
        is_expiry,
        `cdc$time`,
        `cdc$batch_seq_no`,
        `cdc$operation`
        {%- for column in columns if column.kind in ('static', 'regular') %},
        {{ cdc_state_cells_column(column, udts) }} as `{{ column.name }}`
        {%- endfor %}
    from cells
    group by
        partition_id, is_static, row_position, row_clustering, valid_from_us, valid_to_us, is_deletion,
        is_expiry, `cdc$time`, `cdc$batch_seq_no`, `cdc$operation`

)

select
    {{ cdc_state_row_columns(columns, udts) }},
    is_static as `cdc$is_static_row`,
    valid_from_us as `cdc$valid_from_us`,
    valid_to_us as `cdc$valid_to_us`,
    timestamp_micros(valid_from_us) as `cdc$valid_from`,
    timestamp_micros(valid_to_us) as `cdc$valid_to`,
    is_deletion as `cdc$is_deletion`,
    is_expiry as `cdc$is_expiry`,
    `cdc$time`,
    `cdc$batch_seq_no`,
    `cdc$operation`
from versions
{%- endmacro %}


{% macro scylla_cdc_changes_table(keyspace_name, table_name, history, versions, facts) -%}
    {#- `<keyspace>.<table>_changes`: a change feed shaped like Delta's change data feed, from the
        table's history: `insert` (a row's first version, or the first after a deletion),
        `update_preimage` and `update_postimage` (the whole row before and after a change),
        `delete` (the whole row before its deletion, by the log or by a TTL's expiry), each with
        `_commit_timestamp` (the change's time) and the log row that made it. On Delta a build
        replaces only the rows of the partitions whose versions were recomputed since its last one. -#}
    {%- set columns = scylla_cdc_log_columns(keyspace_name, table_name) -%}
    {%- set keys = [] -%}
    {%- set values = [] -%}
    {%- for column in columns -%}
        {%- if column.kind in ('partition_key', 'clustering') -%}
            {%- do keys.append(column.name) -%}
        {%- else -%}
            {%- for prefix in ['', 'cdc$writetime_', 'cdc$ttl_', 'cdc$expires_at_'] -%}
                {%- do values.append(prefix ~ column.name) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set udts = scylla_cdc_user_types(keyspace_name) -%}
    {%- do cdc_config_replayed_table(keyspace_name, table_name) -%}
    {%- set mark = cdc_replay_mark() %}
with

{%- if is_incremental() %}

history as (

    -- the history of the partitions whose versions were recomputed
    select history.*
    from {{ history }} as history
    left semi join {{ cdc_replayed_partition_keys(keyspace_name, table_name, columns, udts, facts, mark) }} as replayed
        on {{ cdc_same_partition('history', 'replayed', columns) }}

),
{%- endif %}

versions as (

    select
        *,
        lag(struct(
            `cdc$is_deletion` as is_deletion
            {%- for value in values %},
            `{{ value }}`
            {%- endfor %}
        )) over (
            partition by {% for key in keys %}`{{ key }}`, {% endfor %}`cdc$is_static_row`
            order by `cdc$valid_from_us`
        ) as previous_version
    from {{ 'history' if is_incremental() else history }}

),

changes as (

    {%- for image in ['after', 'before'] %}
    {%- if image == 'before' %}

    union all
    {%- endif %}

    -- the row {{ image }} the change
    select
        {%- for key in keys %}
        `{{ key }}`,
        {%- endfor %}
        {%- for value in values %}
        {{ 'previous_version.' if image == 'before' }}`{{ value }}`,
        {%- endfor %}
        `cdc$is_static_row`,
        {%- if image == 'after' %}
        if(coalesce(previous_version.is_deletion, true), 'insert', 'update_postimage') as _change_type,
        {%- else %}
        if(`cdc$is_deletion`, 'delete', 'update_preimage') as _change_type,
        {%- endif %}
        `cdc$valid_from_us` as commit_us,
        `cdc$is_expiry`,
        `cdc$time`,
        `cdc$batch_seq_no`,
        `cdc$operation`
    from versions
    {%- if image == 'after' %}
    where not `cdc$is_deletion`
    {%- else %}
    where not coalesce(previous_version.is_deletion, true)
    {%- endif %}
    {%- endfor %}

)

select
    {%- for key in keys %}
    `{{ key }}`,
    {%- endfor %}
    {%- for value in values %}
    `{{ value }}`,
    {%- endfor %}
    `cdc$is_static_row`,
    _change_type,
    timestamp_micros(commit_us) as _commit_timestamp,
    commit_us as `cdc$commit_time_us`,
    `cdc$is_expiry`,
    `cdc$time`,
    `cdc$batch_seq_no`,
    `cdc$operation`
from changes
{%- endmacro %}
