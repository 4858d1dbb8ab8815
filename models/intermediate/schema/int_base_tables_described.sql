{#- Base tables with their key columns, one row per schema version (see _schema__models.yml). -#}
{{ config(materialized='table') }}
with

base_tables as (

    select * from {{ ref('stg_cdc_input__base_tables') }}

),

base_columns as (

    select * from {{ ref('stg_cdc_input__base_columns') }}

),

key_columns as (

    select
        keyspace_name,
        table_name,
        schema_version,
        sort_array(collect_list(
            case when kind = 'partition_key' then struct(position, column_name, cql_type) end
        )) as partition_key_columns,
        sort_array(collect_list(
            case when kind = 'clustering' then struct(position, column_name, cql_type, clustering_order) end
        )) as clustering_columns
    from base_columns
    group by keyspace_name, table_name, schema_version

),

described as (

    select
        base_tables.*,
        transform(key_columns.partition_key_columns, c -> c.column_name) as partition_key_names,
        transform(key_columns.partition_key_columns, c -> c.cql_type) as partition_key_types,
        transform(key_columns.clustering_columns, c -> c.column_name) as clustering_key_names,
        transform(key_columns.clustering_columns, c -> c.cql_type) as clustering_key_types,
        transform(key_columns.clustering_columns, c -> c.clustering_order) as clustering_key_orders,
        size(key_columns.clustering_columns) > 0 as has_clustering_key,
        base_tables.cdc_enabled and (base_tables.cdc_preimage != 'false' or base_tables.cdc_postimage) as has_images,
        base_tables.schema_version = max(base_tables.schema_version) over (
            partition by base_tables.keyspace_name, base_tables.table_name
        ) as is_latest_version
    from base_tables
    left join key_columns
        on
            base_tables.keyspace_name = key_columns.keyspace_name
            and base_tables.table_name = key_columns.table_name
            and base_tables.schema_version = key_columns.schema_version

)

select * from described  -- noqa: AM04
