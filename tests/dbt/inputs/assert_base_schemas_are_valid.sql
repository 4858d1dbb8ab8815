{#- The base schemas describe tables a ScyllaDB cluster could hold. Each problem row names the
    input table and row; any row fails the build before a log is written (cdclake prints them). -#}
with

base_tables as (

    select * from {{ ref('stg_cdc_input__base_tables') }}

),

base_columns as (

    select * from {{ ref('int_base_columns_described') }}

),

type_rows as (

    select * from {{ ref('stg_cdc_input__base_types') }}

),

type_fields as (

    -- each field with the registry of its keyspace's user types
    select
        user_types.keyspace_name,
        user_types.type_name,
        fields.field_name,
        fields.field_type,
        user_types.user_types_json
    from {{ ref('int_user_types_described') }} as user_types
        lateral view explode(
            zip_with(
                user_types.field_names, user_types.field_types,
                (n, t) -> named_struct('field_name', n, 'field_type', t)
            )
        ) field_list as fields

),

table_rows as (

    select
        keyspace_name,
        table_name,
        schema_version,
        count(*) as copies,
        max(cdc_preimage) as cdc_preimage,
        max(cdc_delta) as cdc_delta
    from base_tables
    group by keyspace_name, table_name, schema_version

),

version_keys as (

    -- the primary key of each schema version, as text, and its key column positions
    select
        keyspace_name,
        table_name,
        schema_version,
        count_if(kind = 'partition_key') as partition_key_columns,
        to_json(sort_array(collect_list(
            if(kind in ('partition_key', 'clustering'), struct(kind, position, column_name, cql_type, clustering_order), null)
        ))) as primary_key,
        count_if(kind in ('partition_key', 'clustering')) as key_columns,
        count(distinct if(kind in ('partition_key', 'clustering'), concat(kind, position), null)) as key_positions,
        max(if(kind = 'partition_key', position, null)) as last_partition_key_position,
        max(if(kind = 'clustering', position, null)) as last_clustering_position,
        count_if(kind = 'clustering') as clustering_columns
    from base_columns
    group by keyspace_name, table_name, schema_version

),

declared_types as (

    -- every CQL type the schemas declare, with where it is declared and the keyspace's user types
    select
        concat(
            'cdc_input.base_columns: ', keyspace_name, '.', table_name, ' column ', {{ cdc_quoted('column_name') }},
            ' version ', schema_version, ': cql_type'
        ) as declaration,
        cql_type,
        user_types_json
    from base_columns

    union all

    select
        concat(
            'cdc_input.base_types: ', keyspace_name, '.', type_name, ' field ', {{ cdc_quoted('field_name') }},
            ': field_type'
        ) as declaration,
        field_type as cql_type,
        user_types_json
    from type_fields

),

column_kinds as (

    -- each version's kind of a column beside the kind of its first version
    select
        keyspace_name,
        table_name,
        column_name,
        schema_version,
        kind,
        first_value(schema_version) over column_versions as first_version,
        first_value(kind) over column_versions as first_kind
    from base_columns
    window column_versions as (partition by keyspace_name, table_name, column_name order by schema_version)

),

problems as (

    select concat(
        'cdc_input.base_tables: a row without keyspace_name or table_name (schema_version ',
        coalesce(schema_version, 'null'), ')'
    ) as problem
    from table_rows
    where keyspace_name is null or table_name is null

    union all

    select concat(
        'cdc_input.base_tables: ', keyspace_name, '.', table_name, ' has ', copies,
        ' rows for schema version ', schema_version, ' (one row per version)'
    ) as problem
    from table_rows
    where keyspace_name is not null and table_name is not null and copies > 1

    union all

    select concat(
        'cdc_input.base_tables: ', keyspace_name, '.', table_name, ' version ', schema_version,
        ': cdc_preimage ', {{ cdc_quoted('cdc_preimage') }}, ' is not false, true or full'
    ) as problem
    from table_rows
    where cdc_preimage not in ('false', 'true', 'full')

    union all

    select concat(
        'cdc_input.base_tables: ', keyspace_name, '.', table_name, ' version ', schema_version,
        ': cdc_delta ', {{ cdc_quoted('cdc_delta') }}, ' is not full or keys'
    ) as problem
    from table_rows
    where cdc_delta not in ('full', 'keys')

    union all

    select concat(
        'cdc_input.base_columns: ', table_rows.keyspace_name, '.', table_rows.table_name, ' version ',
        table_rows.schema_version, ' has no partition key column'
    ) as problem
    from table_rows
    left join version_keys
        on
            table_rows.keyspace_name = version_keys.keyspace_name
            and table_rows.table_name = version_keys.table_name
            and table_rows.schema_version = version_keys.schema_version
    where table_rows.keyspace_name is not null and coalesce(version_keys.partition_key_columns, 0) = 0

    union all

    select concat(
        'cdc_input.base_columns: columns of ', version_keys.keyspace_name, '.', version_keys.table_name,
        ' version ', version_keys.schema_version, ', a table version base_tables does not have'
    ) as problem
    from version_keys
    left anti join table_rows
        on
            version_keys.keyspace_name = table_rows.keyspace_name
            and version_keys.table_name = table_rows.table_name
            and version_keys.schema_version = table_rows.schema_version

    union all

    select concat(
        'cdc_input.base_columns: ', keyspace_name, '.', table_name, ' version ', schema_version,
        ': the key column positions are not 0, 1, ... per kind (or a position is repeated)'
    ) as problem
    from version_keys
    where
        key_positions != key_columns
        or coalesce(last_partition_key_position, -1) != partition_key_columns - 1
        or coalesce(last_clustering_position, -1) != clustering_columns - 1

    union all

    select concat(
        'cdc_input.base_columns: the primary key of ', keyspace_name, '.', table_name,
        ' differs between schema versions ', min(schema_version), ' and ', max(schema_version),
        ' (ScyllaDB never alters a primary key)'
    ) as problem
    from version_keys
    group by keyspace_name, table_name
    having count(distinct primary_key) > 1

    union all

    select concat(
        'cdc_input.base_columns: ', keyspace_name, '.', table_name, ' version ', schema_version,
        ' has ', count(*), ' rows for column ', {{ cdc_quoted('column_name') }}
    ) as problem
    from base_columns
    group by keyspace_name, table_name, schema_version, column_name
    having count(*) > 1

    union all

    select concat(
        'cdc_input.base_columns: ', keyspace_name, '.', table_name, ' column ', {{ cdc_quoted('column_name') }},
        ' version ', schema_version, ': kind ', {{ cdc_quoted('kind') }},
        ' is not partition_key, clustering, static or regular'
    ) as problem
    from base_columns
    where kind is null or kind not in ('partition_key', 'clustering', 'static', 'regular')

    union all

    select concat(
        'cdc_input.base_columns: ', keyspace_name, '.', table_name, ' column ', column_name,
        ' is ', first_kind, ' in schema version ', first_version, ' but ', kind, ' in version ',
        schema_version, ' (a column keeps its kind)'
    ) as problem
    from column_kinds
    where kind != first_kind

    union all

    select concat(
        declared_types.declaration, ' ', {{ cdc_quoted('declared_types.cql_type') }}, ': ',
        coalesce(type_errors.type_error, 'missing')
    ) as problem
    from declared_types
        -- out of a generator, which the filter cannot be pushed below: the UDF runs once per row
        lateral view explode(array(
            {{ cdc_udf('cdc_type_error') }}(declared_types.cql_type, declared_types.user_types_json)
        )) type_errors as type_error
    where declared_types.cql_type is null or type_errors.type_error is not null

    union all

    select concat(
        'cdc_input.base_types: a row without keyspace_name, type_name, field_position or field_name (',
        to_json(struct(keyspace_name, type_name, field_position, field_name)), ')'
    ) as problem
    from type_rows
    where keyspace_name is null or type_name is null or field_position is null or field_name is null

    union all

    select concat(
        'cdc_input.base_types: ', keyspace_name, '.', type_name, ': the field positions ',
        to_json(sort_array(collect_list(field_position))), ' and names are not one each, 0, 1, ...'
    ) as problem
    from type_rows
    where keyspace_name is not null and type_name is not null
    group by keyspace_name, type_name
    having
        count(distinct field_position) != count(*)
        or count(distinct field_name) != count(*)
        or min(field_position) != 0
        or max(field_position) != count(*) - 1

)

select * from problems
