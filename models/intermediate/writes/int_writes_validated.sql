{#- The batch's atoms with their write's first problem (see _writes__models.yml). -#}
{{ config(materialized='table') }}
with

atoms as (

    select * from {{ ref('int_mutation_atoms_tokenized') }}

),

batch as (

    select * from {{ ref('int_build_batch') }}

),

write_facts as (

    -- one shuffle by write: every window below is over the write or a part of it
    select /*+ repartition(write_id) */
        *,
        count(*) over write as write_atom_count,
        min(coordinator_now_us) over write as write_coordinator_now_us,
        max(coordinator_now_us) over write as write_latest_coordinator_now_us,
        -- one request sees one schema version of each table it writes
        min(schema_version) over write_table as write_schema_version,
        max(schema_version) over write_table as write_latest_schema_version
    from atoms
    window
        write as (partition by write_id),
        write_table as (partition by write_id, keyspace_name, table_name)

),

judged as (

    -- each atom's candidates for its write's first problem, ordered by source (the atom, its
    -- partition key, the write as a whole), then table, partition, atom kind and column
    select
        write_facts.*,
        least(
            if(write_facts.problem is not null, {{ cdc_write_problem(
                0, 'write_facts.keyspace_name', 'write_facts.table_name', 'write_facts.partition_key',
                'write_facts.atom_kind', 'write_facts.column_name', 'write_facts.problem') }}, null),
            if(write_facts.partition_key_problem is not null, {{ cdc_write_problem(
                1, 'write_facts.keyspace_name', 'write_facts.table_name', 'write_facts.partition_key',
                problem='write_facts.partition_key_problem') }}, null),
            -- atoms that share a write id but not a coordinator clock are two requests, not one
            if(
                write_facts.write_coordinator_now_us != write_facts.write_latest_coordinator_now_us,
                {{ cdc_write_problem(2, problem="concat(
                    'write_id: the atoms of write ', write_facts.write_id,
                    ' carry different coordinator clocks (coordinator_now_us ', write_facts.write_coordinator_now_us,
                    ' and ', write_facts.write_latest_coordinator_now_us, '): two requests share the id'
                )") }},
                null
            ),
            if(
                write_facts.write_id is not null
                and write_facts.write_schema_version != write_facts.write_latest_schema_version,
                {{ cdc_write_problem(2, 'write_facts.keyspace_name', 'write_facts.table_name', problem="concat(
                    'schema_version: the atoms of write ', write_facts.write_id, ' carry schema versions ',
                    write_facts.write_schema_version, ' and ', write_facts.write_latest_schema_version,
                    ' of table ', write_facts.keyspace_name, '.', write_facts.table_name,
                    ' (one request sees one schema)'
                )") }},
                null
            ),
            -- a batch appends writes after the processed ones: an id at or below the last one is late
            if(
                write_facts.write_id <= batch.last_processed_write_id,
                {{ cdc_write_problem(2, problem="concat(
                    'write_id: write ', write_facts.write_id, ' is not above the last processed write id ',
                    batch.last_processed_write_id, ' (batch ', batch.batch_id - 1,
                    '); new writes need higher ids, or rebuild with --full-refresh'
                )") }},
                null
            )
        ) as problem_candidate
    from write_facts
    cross join batch

)

select
    *,
    min(problem_candidate) over (partition by write_id) as write_problem
from judged
