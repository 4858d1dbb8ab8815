{#- Base-table columns with what their CDC log needs to know (see _schema__models.yml). -#}
{{ config(materialized='table') }}
with

base_columns as (

    select
        *,
        schema_version = max(schema_version) over (partition by keyspace_name, table_name)
            as is_latest_version
    from {{ ref('stg_cdc_input__base_columns') }}

),

user_types as (

    select * from {{ ref('int_user_types_described') }}

),

keyspace_user_types as (

    select distinct
        keyspace_name,
        user_types_json
    from user_types

),

typed as (

    select
        base_columns.*,
        {{ cdc_udf('cdc_element_types') }}(base_columns.cql_type) as element_types,
        user_types.field_names as udt_field_names,
        user_types.field_types as udt_field_types,
        keyspace_user_types.user_types_json
    from base_columns
    left join user_types
        on
            base_columns.keyspace_name = user_types.keyspace_name
            -- a non-frozen user type column's type is the bare type name
            and base_columns.cql_type = user_types.type_name
    left join keyspace_user_types
        on base_columns.keyspace_name = keyspace_user_types.keyspace_name

)

select
    typed.keyspace_name,
    typed.table_name,
    typed.column_name,
    typed.kind,
    typed.position,
    typed.cql_type,
    typed.clustering_order,
    typed.schema_version,
    typed.is_latest_version,
    -- the hidden value column of a dense COMPACT STORAGE table with only key columns: the log
    -- has no column for it, though its cell's TTL is the change's cdc$ttl (docs/scylla/log.md §2.2)
    typed.cql_type != 'empty' as is_logged,
    element_types.key_type is not null or typed.udt_field_names is not null as is_multi_cell,
    typed.udt_field_names is not null as is_multi_cell_user_type,
    if(typed.udt_field_names is not null, 'smallint', element_types.key_type) as element_key_type,
    -- a user type's element values have their field's type (see udt_field_types)
    element_types.value_type as element_value_type,
    typed.udt_field_names,
    typed.udt_field_types,
    typed.user_types_json
from typed
