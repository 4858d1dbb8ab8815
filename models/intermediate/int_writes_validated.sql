{#- One row per input write (client request): the first problem found in any of its atoms or
    partition keys, or null. A write with a problem is rejected whole, as ScyllaDB fails the
    whole request. -#}
with

atoms as (

    select * from {{ ref('int_mutation_atoms_validated') }}

),

partitions as (

    select * from {{ ref('int_mutation_partitions_tokenized') }}

),

problems as (

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        atom_kind,
        column_name,
        problem,
        0 as problem_source
    from atoms
    where problem is not null

    union all

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        null as atom_kind,
        null as column_name,
        problem,
        1 as problem_source
    from partitions
    where problem is not null

),

first_problem as (

    select
        write_id,
        min_by(
            struct(keyspace_name, table_name, partition_key, atom_kind, column_name, problem),
            struct(problem_source, keyspace_name, table_name, partition_key, atom_kind, column_name)
        ) as problem_row
    from problems
    group by write_id

),

writes as (

    select
        write_id,
        min(coordinator_now_us) as coordinator_now_us,
        count(*) as atom_count
    from atoms
    group by write_id

)

select
    writes.write_id,
    writes.coordinator_now_us,
    writes.atom_count,
    first_problem.problem_row.keyspace_name as problem_keyspace_name,
    first_problem.problem_row.table_name as problem_table_name,
    first_problem.problem_row.partition_key as problem_partition_key,
    first_problem.problem_row.atom_kind as problem_atom_kind,
    first_problem.problem_row.column_name as problem_column_name,
    first_problem.problem_row.problem
from writes
left join first_problem
    on writes.write_id = first_problem.write_id
