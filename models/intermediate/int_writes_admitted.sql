{#- One row per input write: accepted, or rejected with the reason. A write is rejected when
    an atom of it cannot be processed, or when ScyllaDB would refuse a stream for any of its
    change groups (the whole request fails then). An accepted write without change groups
    writes only to tables without CDC (at its schema version): ScyllaDB logs nothing for it. -#}
with

writes as (

    select * from {{ ref('int_writes_validated') }}

),

change_groups as (

    select * from {{ ref('int_change_groups_admitted') }}

),

groups_per_write as (

    select
        write_id,
        count(*) as change_groups
    from change_groups
    group by write_id

),

first_refusal as (

    select
        write_id,
        min_by(
            struct(keyspace_name, table_name, partition_key, change_ts, verdict, error_class, error_text),
            struct(change_ts, keyspace_name, table_name, partition_key)
        ) as refusal
    from change_groups
    where verdict != 'ok'
    group by write_id

)

select
    writes.write_id,
    writes.coordinator_now_us,
    writes.atom_count,
    case
        when writes.problem is not null or first_refusal.write_id is not null then 'rejected'
        else 'accepted'
    end as status,
    case
        when writes.problem is not null then 'invalid_input'
        else first_refusal.refusal.verdict
    end as reason,
    case
        when writes.problem is not null then 'InvalidInput'
        else first_refusal.refusal.error_class
    end as error_class,
    coalesce(writes.problem, first_refusal.refusal.error_text) as error_text,
    coalesce(writes.problem_keyspace_name, first_refusal.refusal.keyspace_name) as keyspace_name,
    coalesce(writes.problem_table_name, first_refusal.refusal.table_name) as table_name,
    coalesce(writes.problem_partition_key, first_refusal.refusal.partition_key) as partition_key,
    writes.problem_atom_kind as atom_kind,
    writes.problem_column_name as column_name,
    first_refusal.refusal.change_ts,
    coalesce(groups_per_write.change_groups, 0) as change_groups
from writes
left join first_refusal
    on writes.write_id = first_refusal.write_id
left join groups_per_write
    on writes.write_id = groups_per_write.write_id
