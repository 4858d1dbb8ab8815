{#- The batch's input atoms with their first problem, if any (see _writes__models.yml). -#}
with

atoms as (

    select * from {{ ref('int_batch_input_atoms') }}

),

base_tables as (

    select * from {{ ref('int_base_tables_described') }}

),

base_columns as (

    select * from {{ ref('int_base_columns_described') }}

),

table_versions as (

    select distinct
        keyspace_name,
        table_name
    from base_tables

),

joined as (

    select
        atoms.*,
        base_tables.table_name is not null as is_known_table,
        -- some schema version of the table exists (the atom names another one)
        table_versions.table_name is not null as table_has_versions,
        base_tables.schema_version as table_schema_version,
        base_tables.cdc_enabled,
        coalesce(base_tables.uses_tablets, false) as uses_tablets,
        base_tables.has_clustering_key,
        base_tables.clustering_key_names,
        base_tables.clustering_key_types,
        base_columns.kind as column_kind,
        base_columns.cql_type as column_type,
        base_columns.is_multi_cell,
        base_columns.is_multi_cell_user_type,
        base_columns.element_key_type,
        -- a user type's element is a field: its key the field index, its value the field's type
        coalesce(
            base_columns.element_value_type,
            try_element_at(base_columns.udt_field_types, try_cast(atoms.element_key as int) + 1)
        ) as element_value_type,
        base_columns.user_types_json,
        -- a row atom: marker, regular cell or row tombstone, addressed by a full clustering key
        atoms.atom_kind in ('row_marker', 'row_tombstone')
        or (atoms.atom_kind in ('cell', 'collection_tombstone') and base_columns.kind = 'regular')
            as is_row_atom
    from atoms
    -- the table as the write saw it: the schema version the atom names
    left join base_tables
        on
            atoms.keyspace_name = base_tables.keyspace_name
            and atoms.table_name = base_tables.table_name
            and atoms.schema_version = base_tables.schema_version
    left join table_versions
        on
            atoms.keyspace_name = table_versions.keyspace_name
            and atoms.table_name = table_versions.table_name
    left join base_columns
        on
            atoms.keyspace_name = base_columns.keyspace_name
            and atoms.table_name = base_columns.table_name
            and base_tables.schema_version = base_columns.schema_version
            and atoms.column_name = base_columns.column_name

),

checked_inputs as (

    -- what each check reads (null: the check does not apply): the cell's value, a collection
    -- element's key and value, the row's clustering key, a range's bounds
    select
        *,
        case when atom_kind = 'cell' and is_live and element_key is null then value end as checked_value,
        case when atom_kind = 'cell' and element_key is not null then element_key end as checked_element_key,
        case when atom_kind = 'cell' and is_live and element_key is not null then value end as checked_element_value,
        case when is_row_atom and has_clustering_key then clustering_key end as checked_clustering_key,
        case when atom_kind = 'range_tombstone' then range_start end as checked_range_start,
        case when atom_kind = 'range_tombstone' then range_end end as checked_range_end
    from joined

),

udf_checks as (

    -- Python UDFs run on every row (Spark evaluates them ahead of any CASE around them): the
    -- values SQL vouches for, and the inputs a check does not apply to, reach them as nulls
    select
        *,
        {{ cdc_checked_value_error('checked_value', 'column_type', 'user_types_json') }} as value_error,
        {{ cdc_checked_value_error('checked_element_key', 'element_key_type', 'user_types_json') }}
            as element_key_error,
        {{ cdc_checked_value_error('checked_element_value', 'element_value_type', 'user_types_json') }}
            as element_value_error,
        {{ cdc_checked_key_error('checked_clustering_key', 'false') }} as clustering_key_error,
        {{ cdc_checked_key_error('checked_range_start', 'true') }} as range_start_error,
        {{ cdc_checked_key_error('checked_range_end', 'true') }} as range_end_error
    from checked_inputs

),

checked as (

    select
        *,
        -- every branch yields a text: concat() with a null would be null, i.e. no problem
        case
            when write_id is null then 'write_id: missing'
            when coordinator_now_us is null then 'coordinator_now_us: missing'
            when keyspace_name is null then 'keyspace_name: missing'
            when table_name is null then 'table_name: missing'
            when schema_version is null then 'schema_version: missing (the table version the write used)'
            when not is_known_table and table_has_versions
                then concat(
                    'schema_version: table ', {{ cdc_quoted("concat(keyspace_name, '.', table_name)") }},
                    ' has no schema version ', schema_version
                )
            when not is_known_table
                then concat(
                    'table_name: unknown table ', {{ cdc_quoted("concat(keyspace_name, '.', table_name)") }}
                )
            when
                atom_kind is null
                or atom_kind not in (
                    'row_marker', 'cell', 'row_tombstone', 'range_tombstone', 'partition_tombstone',
                    'collection_tombstone'
                )
                then concat('atom_kind: unknown atom kind ', {{ cdc_quoted('atom_kind') }})
            when write_timestamp is null then 'write_timestamp: missing'
            when origin is not null and origin != 'ttl_expiry'
                then concat('origin: unknown origin ', {{ cdc_quoted('origin') }}, ' (null or ttl_expiry)')
            when origin = 'ttl_expiry' and atom_kind not in ('row_tombstone', 'partition_tombstone')
                then concat(
                    'origin: the expiration service (ttl_expiry) writes row and partition tombstones, not a ',
                    atom_kind
                )
            when partition_key is null then 'partition_key: missing'
            when atom_kind in ('cell', 'collection_tombstone') and column_name is null
                then concat('column_name: a ', atom_kind, ' needs its column')
            when atom_kind in ('cell', 'collection_tombstone') and column_kind is null
                then concat(
                    'column_name: unknown column ', {{ cdc_quoted('column_name') }},
                    ' in table ', keyspace_name, '.', table_name
                )
            when atom_kind = 'collection_tombstone' and not is_multi_cell
                then concat('atom_kind: ', column_name, ' is not a non-frozen collection')
            when
                atom_kind = 'collection_tombstone'
                and (value is not null or element_key is not null or ttl_seconds is not null)
                then 'value/element_key/ttl_seconds: a collection tombstone carries none of them'
            when atom_kind = 'cell' and is_multi_cell and element_key is null
                then
                    concat(
                        'element_key: ',
                        column_name,
                        ' is a non-frozen collection or user type, its cells need an element key'
                    )
            when atom_kind = 'cell' and not coalesce(is_multi_cell, false) and element_key is not null
                then concat('element_key: ', column_name, ' is not a non-frozen collection or user type')
            when atom_kind = 'cell' and column_kind in ('partition_key', 'clustering')
                then concat(
                    'column_name: ', column_name,
                    ' is part of the primary key and cannot be written as a cell'
                )
            when atom_kind in ('cell', 'row_marker') and is_live is null then 'is_live: missing'
            when atom_kind = 'row_marker' and not is_live
                then 'is_live: a row marker must be live (CQL never writes dead markers)'
            when atom_kind = 'cell' and is_live and value is null and element_value_type is not null
                then concat('value: the live cell of column ', column_name, ' has no value')
            when atom_kind = 'cell' and is_live and value is null and not coalesce(is_multi_cell, false)
                then concat('value: the live cell of column ', column_name, ' has no value')
            when
                atom_kind = 'cell' and is_multi_cell_user_type and element_key_error is null
                and element_value_type is null
                then concat('element_key: user type column ', column_name, ' has no field ', element_key)
            when atom_kind = 'cell' and is_multi_cell and element_value_type is null and value is not null
                then concat('value: the elements of set column ', column_name, ' carry no value')
            when atom_kind = 'cell' and not is_live and value is not null
                then concat('value: the dead cell of column ', column_name, ' must not carry a value')
            when ttl_seconds < 0 then concat('ttl_seconds: A TTL must be greater or equal to 0 (got ', ttl_seconds, ')')
            when ttl_seconds > {{ var('cdc_max_ttl_seconds') }}
                then concat(
                    'ttl_seconds: ttl is too large. requested (', ttl_seconds,
                    ') maximum ({{ var('cdc_max_ttl_seconds') }})'
                )
            when ttl_seconds is not null and not coalesce(is_live, false)
                then 'ttl_seconds: only live cells and row markers have a TTL'
            when column_kind = 'static' and coalesce(clustering_key, '{}') != '{}'
                then concat('clustering_key: static column ', column_name, ' is written without a clustering key')
            when is_row_atom and has_clustering_key and clustering_key is null
                then 'clustering_key: missing (a row atom needs the full clustering key)'
            when is_row_atom and not has_clustering_key and coalesce(clustering_key, '{}') != '{}'
                then 'clustering_key: the table has no clustering columns'
            when clustering_key_error is not null then concat('clustering_key: ', clustering_key_error)
            when atom_kind = 'range_tombstone' and not has_clustering_key
                then 'atom_kind: a range tombstone needs a table with clustering columns'
            when
                atom_kind = 'range_tombstone'
                and (
                    range_start is null or range_end is null
                    or range_start_inclusive is null or range_end_inclusive is null
                )
                then 'range_start/range_end: a range tombstone needs both bounds and their inclusive flags'
            when range_start_error is not null then concat('range_start: ', range_start_error)
            when range_end_error is not null then concat('range_end: ', range_end_error)
            when value_error is not null then concat('value: ', value_error)
            when element_key_error is not null then concat('element_key: ', element_key_error)
            when element_value_error is not null then concat('value: ', element_value_error)
        end as problem
    from udf_checks

)

select
    write_id,
    coordinator_now_us,
    keyspace_name,
    table_name,
    partition_key,
    atom_kind,
    write_timestamp,
    clustering_key,
    column_name,
    column_kind,
    is_live,
    value,
    ttl_seconds,
    range_start,
    range_start_inclusive,
    range_end,
    range_end_inclusive,
    element_key,
    element_key_type,
    table_schema_version as schema_version,
    origin,
    cdc_enabled,
    uses_tablets,
    problem
from checked
