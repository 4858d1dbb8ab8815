{#- The generated log and consumer models declare their base table's schema in their properties
    (`config.meta`, cdclake/logschema.py `generated_model_meta`): its latest logged columns and
    its keyspace's user types, which their macros read instead of the schema inputs. cdclake
    writes them before every build and with every schema load; plain dbt builds with those it
    last wrote. A schema changed since (by hand, or loaded elsewhere) would be logged with the
    old columns: each difference is a problem row here, naming the input table and the model. -#}
{%- set generated = [] -%}
{%- if execute -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'model' -%}
        {%- set meta = node.config.meta or {} -%}
        {%- if meta.get('cdc_base_table') -%}
            {%- set keyspace_name, _, table_name = meta['cdc_base_table'].partition('.') -%}
            {%- do generated.append({
                'model_name': node.name,
                'keyspace_name': keyspace_name,
                'table_name': table_name,
                'base_columns': meta.get('cdc_base_columns') or [],
                'user_types': meta.get('cdc_user_types') or {},
            }) -%}
        {%- endif -%}
    {%- endfor -%}
{%- endif -%}
{%- set remedy = ': run `cdclake build` or `cdclake load schema`, which write the models again' -%}
with

generated_models as (

    select model.*
    from (
        select explode(from_json(
            '{{ tojson(generated) | replace("\\", "\\\\") | replace("'", "\\'") }}',
            'array<struct<model_name: string, keyspace_name: string, table_name: string,
                base_columns: array<struct<name: string, kind: string, cql_type: string>>,
                user_types: map<string, array<array<string>>>>>'
        )) as model
    ) as models

),

declared_columns as (

    select
        generated_models.model_name,
        generated_models.keyspace_name,
        generated_models.table_name,
        declared.name as column_name,
        declared.kind,
        declared.cql_type
    from generated_models
        lateral view explode(base_columns) columns_declared as declared

),

declared_fields as (

    select
        generated_models.model_name,
        generated_models.keyspace_name,
        user_type.key as type_name,
        fields_declared.field_position,
        fields_declared.field[0] as field_name,
        fields_declared.field[1] as field_type
    from generated_models
        lateral view explode(map_entries(user_types)) types_declared as user_type
        lateral view posexplode(user_type.value) fields_declared as field_position, field

),

latest_tables as (

    select distinct keyspace_name, table_name, cdc_enabled
    from {{ ref('int_base_tables_described') }}
    where is_latest_version

),

schema_columns as (

    select keyspace_name, table_name, column_name, kind, cql_type, schema_version
    from {{ ref('int_base_columns_described') }}
    where is_latest_version and is_logged

),

model_columns as (

    -- the columns each model's table has in the schema inputs, beside those the model declares
    select
        generated_models.model_name,
        generated_models.keyspace_name,
        generated_models.table_name,
        schema_columns.column_name,
        schema_columns.kind,
        schema_columns.cql_type,
        schema_columns.schema_version
    from generated_models
    inner join schema_columns
        on
            generated_models.keyspace_name = schema_columns.keyspace_name
            and generated_models.table_name = schema_columns.table_name

),

model_fields as (

    -- the user types of each model's keyspace in the schema inputs
    select
        generated_models.model_name,
        types.keyspace_name,
        types.type_name,
        types.field_position,
        types.field_name,
        types.field_type
    from generated_models
    inner join {{ ref('stg_cdc_input__base_types') }} as types
        on generated_models.keyspace_name = types.keyspace_name

),

problems as (

    select concat(
        'cdc_input.base_tables: ', generated_models.keyspace_name, '.', generated_models.table_name,
        case when latest_tables.table_name is null then ' is not there' else ' has CDC disabled' end,
        ', but the generated model ', generated_models.model_name, ' logs it{{ remedy }}'
    ) as problem
    from generated_models
    left join latest_tables
        on
            generated_models.keyspace_name = latest_tables.keyspace_name
            and generated_models.table_name = latest_tables.table_name
    where not coalesce(latest_tables.cdc_enabled, false)

    union all

    select concat(
        'cdc_input.base_columns: ', coalesce(schema.keyspace_name, declared.keyspace_name), '.',
        coalesce(schema.table_name, declared.table_name), ' column "',
        coalesce(schema.column_name, declared.column_name), '" is ',
        coalesce(concat(schema.kind, ' ', schema.cql_type, ' in schema version ', schema.schema_version), 'not there'),
        ', but the generated model ', coalesce(schema.model_name, declared.model_name), ' declares it ',
        coalesce(concat(declared.kind, ' ', declared.cql_type), 'not at all'), '{{ remedy }}'
    ) as problem
    from declared_columns as declared
    full outer join model_columns as schema
        on
            declared.model_name = schema.model_name
            and declared.column_name = schema.column_name
    where
        declared.model_name is null or schema.model_name is null
        or declared.kind != schema.kind or declared.cql_type != schema.cql_type

    union all

    select concat(
        'cdc_input.base_types: ', coalesce(schema.keyspace_name, declared.keyspace_name), '.',
        coalesce(schema.type_name, declared.type_name), ' field ',
        coalesce(schema.field_position, declared.field_position), ' is ',
        coalesce(concat('"', schema.field_name, '" ', schema.field_type), 'not there'),
        ', but the generated model ', coalesce(schema.model_name, declared.model_name), ' declares it ',
        coalesce(concat('"', declared.field_name, '" ', declared.field_type), 'not at all'), '{{ remedy }}'
    ) as problem
    from declared_fields as declared
    full outer join model_fields as schema
        on
            declared.model_name = schema.model_name
            and declared.type_name = schema.type_name
            and declared.field_position = schema.field_position
    where
        declared.model_name is null or schema.model_name is null
        or declared.field_name != schema.field_name or declared.field_type != schema.field_type

)

select * from problems
