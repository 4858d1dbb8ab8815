{#- The batch's atoms with the Murmur3 token of their partition key (see _writes__models.yml). -#}
with

atoms as (

    select * from {{ ref('int_mutation_atoms_validated') }}

),

base_tables as (

    -- key columns never change across schema versions
    select * from {{ ref('int_base_tables_described') }}
    where is_latest_version

),

partition_keys as (

    select distinct
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
    where atoms.partition_key is not null

),

tokenized as (

    select
        keyspace_name,
        table_name,
        partition_key,
        {{ cdc_udf('cdc_token_of_partition_key') }}(partition_key, partition_key_names, partition_key_types)
            as token_result,
        {{ cdc_udf('cdc_json_members') }}(partition_key) as partition_key_members
    from partition_keys

)

select /*+ broadcast(tokenized) */
    atoms.*,
    tokenized.token_result.token,
    tokenized.partition_key_members,
    case
        when tokenized.token_result.error is not null then concat('partition_key: ', tokenized.token_result.error)
    end as partition_key_problem
from atoms
left join tokenized
    on
        atoms.keyspace_name = tokenized.keyspace_name
        and atoms.table_name = tokenized.table_name
        and atoms.partition_key = tokenized.partition_key
