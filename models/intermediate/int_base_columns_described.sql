{#- Base-table columns with what their CDC log needs to know: whether the column is multi-cell
    (a non-frozen collection, logged element by element) and the CQL types of its element keys
    and values (scylla-log.md §2.2: a list is keyed by timeuuids). -#}
with

base_columns as (

    select * from {{ ref('stg_cdc_input__base_columns') }}

),

typed as (

    select
        *,
        cdc_element_types(cql_type) as element_types
    from base_columns

)

select
    keyspace_name,
    table_name,
    column_name,
    kind,
    position,
    cql_type,
    clustering_order,
    element_types.key_type is not null as is_multi_cell,
    element_types.key_type as element_key_type,
    element_types.value_type as element_value_type,
    -- a non-frozen user type: a bare type name that is not a native CQL type
    not cql_type rlike '^(frozen|list|set|map|tuple|vector)\\s*<'
    and cql_type not in (
        'ascii', 'bigint', 'blob', 'boolean', 'counter', 'date', 'decimal', 'double', 'duration',
        'float', 'inet', 'int', 'smallint', 'text', 'time', 'timestamp', 'timeuuid', 'tinyint',
        'uuid', 'varchar', 'varint'
    ) as is_multi_cell_user_type
from typed
