{#- One row per base mutation (a write's atoms for one partition of one table): the Murmur3
    token of its partition key (scylla-math.md §1), or why it cannot be computed. -#}
with

atoms as (

    select * from {{ ref('int_mutation_atoms_validated') }}
    where keyspace_name is not null and table_name is not null and partition_key is not null

),

base_tables as (

    -- key columns never change across schema versions
    select * from {{ ref('int_base_tables_described') }}
    where is_latest_version

),

mutations as (

    select distinct
        atoms.write_id,
        atoms.keyspace_name,
        atoms.table_name,
        atoms.partition_key,
        base_tables.partition_key_names,
        base_tables.partition_key_types
    from atoms
    inner join base_tables
        on
            atoms.keyspace_name = base_tables.keyspace_name
            and atoms.table_name = base_tables.table_name

),

tokenized as (

    select
        write_id,
        keyspace_name,
        table_name,
        partition_key,
        {{ cdc_udf('cdc_token_of_partition_key') }}(partition_key, partition_key_names, partition_key_types)
            as token_result,
        {{ cdc_udf('cdc_json_members') }}(partition_key) as partition_key_members
    from mutations

)

select
    tokenized.write_id,
    tokenized.keyspace_name,
    tokenized.table_name,
    tokenized.partition_key,
    token_result.token,
    tokenized.partition_key_members,
    case
        when token_result.error is not null then concat('partition_key: ', token_result.error)
    end as problem
from tokenized
