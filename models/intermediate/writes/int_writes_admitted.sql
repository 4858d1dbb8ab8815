{#- The batch's pieces with their write's verdict (see _writes__models.yml). -#}
with

pieces as (

    select * from {{ ref('int_change_groups_admitted') }}

),

write_verdicts as (

    select
        *,
        -- the earliest refused change group (by time, then table and partition)
        min(if(verdict != 'ok', named_struct(
            'change_ts', change_ts, 'keyspace_name', keyspace_name, 'table_name', table_name,
            'partition_key', partition_key, 'verdict', verdict, 'error_class', error_class, 'error_text', error_text
        ), null)) over write as write_refusal,
        cast(size(collect_set(if(
            verdict is not null, named_struct(
                'keyspace_name', keyspace_name, 'table_name', table_name, 'partition_key', partition_key,
                'change_ts', change_ts
            ), null
        )) over write) as bigint) as write_change_groups
    from pieces
    window write as (partition by write_id)

)

select
    verdicts.*,
    if(verdicts.write_problem is not null or verdicts.write_refusal is not null, 'rejected', 'accepted')
        as write_status,
    if(verdicts.write_problem is not null, 'invalid_input', verdicts.write_refusal.verdict) as write_reason,
    if(verdicts.write_problem is not null, 'InvalidInput', verdicts.write_refusal.error_class) as write_error_class,
    coalesce(verdicts.write_problem.problem, verdicts.write_refusal.error_text) as write_error_text,
    coalesce(verdicts.write_problem.keyspace_name, verdicts.write_refusal.keyspace_name) as write_keyspace_name,
    coalesce(verdicts.write_problem.table_name, verdicts.write_refusal.table_name) as write_table_name,
    coalesce(verdicts.write_problem.partition_key, verdicts.write_refusal.partition_key) as write_partition_key,
    verdicts.write_problem.atom_kind as write_atom_kind,
    verdicts.write_problem.column_name as write_column_name,
    verdicts.write_refusal.change_ts as write_change_ts
from write_verdicts as verdicts
