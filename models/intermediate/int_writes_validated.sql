{#- One row per write of the batch (client request): the first problem found in any of its atoms or
    partition keys, or in the write as a whole, or null. A write with a problem is rejected
    whole, as ScyllaDB fails the whole request. The atoms without a write id count as one
    write (write_id null), rejected. -#}
with

atoms as (

    select * from {{ ref('int_mutation_atoms_validated') }}

),

partitions as (

    select * from {{ ref('int_mutation_partitions_tokenized') }}

),

writes as (

    select
        write_id,
        min(coordinator_now_us) as coordinator_now_us,
        max(coordinator_now_us) as latest_coordinator_now_us,
        count(*) as atom_count
    from atoms
    group by write_id

),

table_versions_per_write as (

    -- one request sees one schema version of each table it writes
    select
        write_id,
        keyspace_name,
        table_name,
        min(schema_version) as schema_version,
        max(schema_version) as latest_schema_version
    from atoms
    where write_id is not null and schema_version is not null
    group by write_id, keyspace_name, table_name

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

    union all

    -- atoms that share a write id but not a coordinator clock are two requests, not one
    select
        write_id,
        null as keyspace_name,
        null as table_name,
        null as partition_key,
        null as atom_kind,
        null as column_name,
        concat(
            'write_id: the atoms of write ', write_id, ' carry different coordinator clocks (coordinator_now_us ',
            coordinator_now_us, ' and ', latest_coordinator_now_us, '): two requests share the id'
        ) as problem,
        2 as problem_source
    from writes
    where coordinator_now_us != latest_coordinator_now_us

    union all

    select
        write_id,
        keyspace_name,
        table_name,
        null as partition_key,
        null as atom_kind,
        null as column_name,
        concat(
            'schema_version: the atoms of write ', write_id, ' carry schema versions ', schema_version,
            ' and ', latest_schema_version, ' of table ', keyspace_name, '.', table_name,
            ' (one request sees one schema)'
        ) as problem,
        2 as problem_source
    from table_versions_per_write
    where schema_version != latest_schema_version

    union all

    -- a batch appends writes after the processed ones: an id at or below the last one is late
    select
        writes.write_id,
        null as keyspace_name,
        null as table_name,
        null as partition_key,
        null as atom_kind,
        null as column_name,
        concat(
            'write_id: write ', writes.write_id, ' is not above the last processed write id ',
            batch.last_processed_write_id, ' (batch ', batch.batch_id - 1,
            '); new writes need higher ids, or rebuild with --full-refresh'
        ) as problem,
        2 as problem_source
    from writes
    cross join {{ ref('int_build_batch') }} as batch
    where writes.write_id <= batch.last_processed_write_id

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
-- null-safe: the atoms without a write id are a write too
left join first_problem
    on writes.write_id <=> first_problem.write_id
