{#- The base tables' state after every processed write, build to build (see _images__models.yml). -#}
-- depends_on: {{ ref('int_log_written') }}
{%- set merges = cdc_table_format() == 'delta' -%}
{{ config(
    materialized='incremental',
    incremental_strategy=('merge' if merges else 'append'),
    unique_key='state_key',
    tblproperties=({'delta.enableDeletionVectors': 'true'} if merges else none),
) }}

with

batch_atoms as (

    select * from {{ cdc_batch_state_atoms(ref('int_batch_atoms')) }} as batch

),

keyed as (

    select
        *,
        to_json(named_struct(
            'keyspace', keyspace_name,
            'table', table_name,
            'partition', partition_key,
            'logged', cdc_enabled,
            'kind', atom_kind,
            'piece', piece_kind,
            'row', if(atom_kind in ('partition_tombstone', 'range_tombstone'), null, hex(row_position)),
            'column', column_name,
            'element', element_key,
            'range_start', if(atom_kind = 'range_tombstone', hex(clustering_position), null),
            'range_end', if(atom_kind = 'range_tombstone', hex(range_end_position), null)
        )) as state_key
    from batch_atoms

),

candidates as (

    select * from keyed
    {% if is_incremental() and merges %}
        union all
        -- the carried winners of the keys the batch writes
        select carried.*
        from {{ this }} as carried
        left semi join keyed
            on carried.state_key = keyed.state_key
    {% endif %}

),

ranked as (

    select
        *,
        -- nulls last: the order of max(struct(...)) in int_image_reads
        row_number() over (
            partition by state_key
            order by
                write_timestamp desc, not is_live desc, value desc, ttl_seconds desc, coordinator_now_us desc,
                write_id desc
        ) as newest_first
    from candidates

)

select
    {{ cdc_state_columns() | join(', ') }},
    state_key
from ranked
where newest_first = 1
