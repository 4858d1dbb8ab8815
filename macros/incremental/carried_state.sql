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
