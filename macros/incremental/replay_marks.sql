{#- How the consumer path (int_log_replay_versions, `<table>_history`, `<table>_changes`) is
    rebuilt partition by partition: a base partition's versions depend on its own facts only,
    so an incremental build deletes the rows of the partitions with facts replayed since the
    table's last build (pre-hook, `cdc_delete_partitions`) and appends them recomputed. A build
    stopped between the two finds the same partitions newer than the table on its next run. -#}

{% macro cdc_rewrites_replayed_partitions() -%}
    {#- Whether those tables are rebuilt partition by partition (Delta: MERGE deletes the
        partitions' rows) rather than whole (Parquet). -#}
    {{ return(cdc_table_format() == 'delta') }}
{%- endmacro %}


{% macro cdc_replay_stamp() -%}
    {#- The facts' `replayed_at_us` in this build: when its query started (µs), kept above every
        stamp the facts already hold, so that a clock set back does not reorder builds. -#}
    {%- if is_incremental() -%}
        greatest(unix_micros(current_timestamp()), (select coalesce(max(replayed_at_us), 0) + 1 from {{ this }}))
    {%- else -%}
        unix_micros(current_timestamp())
    {%- endif -%}
{%- endmacro %}


{% macro cdc_replayed_through(relation) -%}
    {#- SQL: the newest fact stamp (`replayed_at_us`) the rows of `relation` hold, -1 without rows. -#}
    (select coalesce(max(replayed_at_us), -1) from {{ relation }})
{%- endmacro %}


{% macro cdc_versions_mark() -%}
    {#- The newest fact stamp int_log_replay_versions holds (it was built from every fact up to
        it), -1 on a full build. -#}
    {%- if execute and is_incremental() -%}
        {{ return(run_query('select ' ~ cdc_replayed_through(this)).columns[0].values()[0] | int) }}
    {%- endif -%}
    {{ return(-1) }}
{%- endmacro %}


{% macro cdc_replay_mark() -%}
    {#- The versions' stamp a `<table>_history` or `<table>_changes` table was last built from
        (its table property `cdclake.replayed_through_us`), -1 on a full build. -#}
    {%- set mark = cdc_table_mark('replayed_through_us') -%}
    {{ return(-1 if mark is none else mark) }}
{%- endmacro %}


{% macro cdc_set_replay_mark(versions) -%}
    {#- Post-hook of a `<table>_history` or `<table>_changes` table built partition by
        partition: the stamp of the versions (`int_log_replay_versions`) it now reflects. -#}
    {%- if execute and cdc_rewrites_replayed_partitions() -%}
        {%- set through = run_query('select ' ~ cdc_replayed_through(versions)).columns[0].values()[0] -%}
        alter table {{ this }} set tblproperties ('cdclake.replayed_through_us' = '{{ through | int }}')
    {%- endif -%}
{%- endmacro %}


{% macro cdc_config_replayed_table(keyspace_name, table_name) -%}
    {#- The config of a `<table>_history` or `<table>_changes` model (a changed schema fails the
        incremental build, as for every mart: rebuild with --full-refresh). Its hooks are
        templates the model renders when it runs: the refs in them are the model's. -#}
    {%- if cdc_rewrites_replayed_partitions() -%}
        {{- config(materialized='incremental', incremental_strategy='append',
                   pre_hook="{{ cdc_delete_replayed_rows('" ~ keyspace_name ~ "', '" ~ table_name ~ "', "
                            ~ "ref('int_log_replay_versions'), ref('int_log_replay_facts')) }}",
                   post_hook="{{ cdc_set_replay_mark(ref('int_log_replay_versions')) }}") -}}
    {%- else -%}
        {{- config(materialized='table') -}}
    {%- endif -%}
{%- endmacro %}


{% macro cdc_partitions_replayed_after(facts, mark) -%}
    {#- A query of the partitions (keyspace_name, table_name, partition_id) with `facts`
        (`int_log_replay_facts`) replayed after `mark`. -#}
    select distinct keyspace_name, table_name, partition_id from {{ facts }}
    where replayed_at_us > {{ mark }}
{%- endmacro %}


{% macro cdc_in_partitions_replayed_after(relation, facts, mark) -%}
    {#- SQL condition: a row of `relation` (an alias with keyspace_name, table_name and
        partition_id) is in a partition with `facts` replayed after `mark`. -#}
    ({{ relation }}.keyspace_name, {{ relation }}.table_name, {{ relation }}.partition_id) in (
        {{ cdc_partitions_replayed_after(facts, mark) }}
    )
{%- endmacro %}


{% macro cdc_replayed_partition_keys(keyspace_name, table_name, columns, udts, facts, mark) -%}
    {#- A subquery of the typed partition key columns of the table's partitions with `facts`
        replayed after `mark` (a versions stamp): those whose versions were recomputed since,
        including any left without versions. -#}
    (
        select distinct
            {#- rendered while dbt parses: no columns (see scylla_cdc_log_columns) #}
            {{ cdc_state_key_columns(columns, udts, ['partition_key']) | trim or 'partition_id' }}
        from ({{ cdc_partitions_replayed_after(facts, mark) }}) as partitions_replayed
        where keyspace_name = '{{ keyspace_name }}' and table_name = '{{ table_name }}'
    )
{%- endmacro %}


{% macro cdc_same_partition(left, right, columns) -%}
    {#- SQL condition: two relations with a base table's typed partition key columns (null-safe). -#}
    {%- set conditions = [] -%}
    {%- for column in columns if column.kind == 'partition_key' -%}
        {%- do conditions.append(left ~ '.`' ~ column.name ~ '` <=> ' ~ right ~ '.`' ~ column.name ~ '`') -%}
    {%- endfor -%}
    {{ conditions | join(' and ') if conditions else 'true' }}
{%- endmacro %}


{% macro cdc_delete_partitions(source, mark, partitions, same_partition) -%}
    {#- The pre-hook statement that deletes the rows of the partitions an incremental build
        recomputes: MERGE ... WHEN MATCHED THEN DELETE with `partitions` (a subquery, aliased
        `replayed`; `same_partition` joins it to `target`); every row when all of `source` (the
        facts or versions) is newer than `mark` (it was rebuilt: partitions may have gone). -#}
    {%- set oldest = run_query('select min(replayed_at_us) from ' ~ source).columns[0].values()[0] -%}
    {%- if oldest is none or oldest | int > mark -%}
        delete from {{ this }}
    {%- else -%}
        merge into {{ this }} as target
        using {{ partitions }} as replayed
        on {{ same_partition }}
        when matched then delete
    {%- endif -%}
{%- endmacro %}


{% macro cdc_delete_replayed_versions(facts) -%}
    {#- Pre-hook of int_log_replay_versions: deletes the versions of the partitions with newly
        replayed `facts` (`cdc_delete_partitions`). -#}
    {%- if execute and is_incremental() -%}
        {%- set mark = cdc_versions_mark() -%}
        {{ cdc_delete_partitions(facts, mark, '(' ~ cdc_partitions_replayed_after(facts, mark) ~ ')',
            'target.keyspace_name = replayed.keyspace_name and target.table_name = replayed.table_name'
            ~ ' and target.partition_id = replayed.partition_id') }}
    {%- endif -%}
{%- endmacro %}


{% macro cdc_delete_replayed_rows(keyspace_name, table_name, versions, facts) -%}
    {#- Pre-hook of a `<table>_history` or `<table>_changes` table: deletes the rows of the
        partitions whose `versions` were recomputed from `facts` since its mark
        (`cdc_delete_partitions`). -#}
    {%- if execute and is_incremental() -%}
        {%- set columns = scylla_cdc_log_columns(keyspace_name, table_name) -%}
        {%- set mark = cdc_replay_mark() -%}
        {{ cdc_delete_partitions(versions, mark,
            cdc_replayed_partition_keys(keyspace_name, table_name, columns, scylla_cdc_user_types(keyspace_name),
                                        facts, mark),
            cdc_same_partition('target', 'replayed', columns)) }}
    {%- endif -%}
{%- endmacro %}


{% macro cdc_newest_change_us(facts) -%}
    {#- The newest change in the log the consumer tables replay (µs; 0 without any): the largest
        fact timestamp of `facts` (int_log_replay_facts), as its post-hook recorded it (table property
        `cdclake.newest_change_us`, `cdc_mark_newest_change`), or read from the facts. The time the
        state tables show by default. -#}
    {%- if not execute -%}
        {{ return(0) }}
    {%- endif -%}
    {%- for row in run_query('show tblproperties ' ~ facts).rows -%}
        {%- if row[0] == 'cdclake.newest_change_us' -%}
            {{ return(row[1] | int) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(run_query('select coalesce(max(ts), 0) from ' ~ facts).columns[0].values()[0] | int) }}
{%- endmacro %}


{% macro cdc_mark_newest_change() -%}
    {#- Post-hook of int_log_replay_facts: its newest fact timestamp as the table property
        `cdclake.newest_change_us`, from the facts newer than the one recorded (the facts are
        appended in time order, so Spark skips the row groups of the older ones). -#}
    {%- if execute -%}
        {%- set before = cdc_table_mark('newest_change_us') -%}
        {%- set newer = run_query(
            'select max(ts) from ' ~ this ~ ('' if before is none else ' where ts > ' ~ before)
        ).columns[0].values()[0] -%}
        {%- if newer is not none or before is none -%}
            alter table {{ this }} set tblproperties ('cdclake.newest_change_us' = '{{ (newer or 0) | int }}')
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
