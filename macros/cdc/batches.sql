{% macro cdc_table_format() -%}
    {#- The format the project writes: Delta on Databricks, elsewhere what cdclake found on the
        Spark classpath (CDCLAKE_TABLE_FORMAT: delta or parquet), as in dbt_project.yml. -#}
    {{ return('delta' if target.type == 'databricks' else env_var('CDCLAKE_TABLE_FORMAT', 'parquet')) }}
{%- endmacro %}


{% macro cdc_existing_relation(schema, identifier) -%}
    {#- The relation `schema.identifier` when it exists and this is not a full refresh, else
        none. A batch reads what earlier builds left (the processed writes, the base state)
        this way, not through ref(): those tables are written at the end of the build that
        reads them, after everything that depends on their earlier contents. -#}
    {%- if not execute or flags.FULL_REFRESH -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(adapter.get_relation(database=this.database, schema=schema, identifier=identifier)) }}
{%- endmacro %}


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


{% macro cdc_state_columns() -%}
    {#- The columns of `int_batch_atoms` the base-table state keeps (images and the
        round trip read them). -#}
    {{ return([
        'write_id', 'keyspace_name', 'table_name', 'schema_version', 'cdc_enabled', 'has_clustering_key',
        'partition_key', 'piece_kind', 'atom_kind', 'column_name', 'column_kind', 'element_key',
        'is_live', 'value', 'write_timestamp', 'ttl_seconds', 'coordinator_now_us',
        'clustering_position', 'range_end_position', 'row_position', 'bound_side', 'bound_prefix'
    ]) }}
{%- endmacro %}


{% macro cdc_carried_state(batch_atoms, build_batch) -%}
    {#- The base-table state earlier builds carried (`int_base_state`), as keyed atoms: its rows
        from writes of earlier batches (`build_batch`: `int_build_batch`; read after this build
        merged its batch in, as a later `dbt test` does, the keys the batch won are missing: the
        batch's own atoms decide them); on the first build and with --full-refresh none of
        `batch_atoms` (a relation in the state's columns). -#}
    {%- set relation = cdc_existing_relation('cdc_intermediate', 'int_base_state') -%}
    {%- if relation is none -%}
        (select {{ cdc_state_columns() | join(', ') }} from {{ batch_atoms }} where false)
    {%- else -%}
        (
            select {{ cdc_state_columns() | join(', ') }} from {{ relation }}
            where write_id <= (select last_processed_write_id from {{ build_batch }})
        )
    {%- endif -%}
{%- endmacro %}


{% macro cdc_batch_state_atoms(batch_atoms) -%}
    {#- A subquery of the batch's accepted atoms (`batch_atoms`: `int_batch_atoms`) in the carried
        state's columns: what images,
        the carried state and the round trip add to the state; a range tombstone once (its
        start-bound piece carries both bounds). -#}
    (
        select {{ cdc_state_columns() | join(', ') }}
        from {{ batch_atoms }} as keyed
        where keyed.write_status = 'accepted' and (keyed.bound_side is null or keyed.bound_side = 'start')
    )
{%- endmacro %}


{% macro cdc_batch_and_carried_atoms(batch_atoms, build_batch) -%}
    {#- A subquery of the atoms of `batch_atoms` (a relation in the carried state's columns) and
        the carried state (`cdc_carried_state`) of the partitions they write, with `is_carried`: the state a batch's
        images and its round trip start from (elsewhere the state does not change). -#}
    (
        select
            *,
            false as is_carried
        from {{ batch_atoms }}

        union all

        select
            carried.*,
            true as is_carried
        from {{ cdc_carried_state(batch_atoms, build_batch) }} as carried
        left semi join {{ batch_atoms }} as batch
            on
                carried.keyspace_name = batch.keyspace_name
                and carried.table_name = batch.table_name
                and carried.partition_key = batch.partition_key
    )
{%- endmacro %}


{% macro cdc_batch_writes(batch_atoms) -%}
    {#- A subquery of the batch's writes, one row each (the atoms without a write id: one write),
        with their verdict, from `batch_atoms` (`int_batch_atoms`, where each piece carries its
        write's). -#}
    (
        select distinct
            write_id,
            write_coordinator_now_us as coordinator_now_us,
            write_atom_count as atom_count,
            write_status as status,
            write_reason as reason,
            write_error_class as error_class,
            write_error_text as error_text,
            write_keyspace_name as keyspace_name,
            write_table_name as table_name,
            write_partition_key as partition_key,
            write_atom_kind as atom_kind,
            write_column_name as column_name,
            write_change_ts as change_ts,
            write_change_groups as change_groups
        from {{ batch_atoms }}
    )
{%- endmacro %}


{% macro cdc_batch_log_rows(log, batch_atoms, build_batch) -%}
    {#- A subquery of the log rows (of `log`, `int_log_written`: one row per log row, its metadata
        columns, write id and change timestamp) of the batch's writes (`batch_atoms`). They come
        after those processed before (`cdc_last_processed_write_id` of `build_batch`): Spark reads
        only the row groups of later writes. -#}
    {%- set last_processed = cdc_last_processed_write_id(build_batch) -%}
    (
        select distinct
            log.keyspace_name,
            log.table_name,
            log.`cdc$stream_id`,
            log.`cdc$time`,
            log.`cdc$batch_seq_no`,
            log.`cdc$operation`,
            log.`cdc$ttl`,
            log.`cdc$end_of_batch`,
            log.write_id,
            log.change_timestamp
        from {{ log }} as log
        left semi join {{ batch_atoms }} as batch_writes
            on log.write_id = batch_writes.write_id
        where {{ cdc_log_written_after('log', last_processed) }}
    )
{%- endmacro %}
