{#- One row per user-defined type, with its keyspace's type registry (see _schema__models.yml). -#}
{{ config(materialized='table') }}
with

type_fields as (

    select * from {{ ref('stg_cdc_input__base_types') }}

),

user_types as (

    select
        keyspace_name,
        type_name,
        transform(
            array_sort(collect_list(struct(field_position, field_name, field_type))),
            f -> f.field_name
        ) as field_names,
        transform(
            array_sort(collect_list(struct(field_position, field_name, field_type))),
            f -> f.field_type
        ) as field_types
    from type_fields
    group by keyspace_name, type_name

),

keyspace_user_types as (

    -- {"type": [["field", "type"], ...], ...}
    select
        keyspace_name,
        to_json(map_from_entries(collect_list(struct(
            type_name,
            zip_with(field_names, field_types, (n, t) -> array(n, t))
        )))) as user_types_json
    from user_types
    group by keyspace_name

)

select
    user_types.keyspace_name,
    user_types.type_name,
    user_types.field_names,
    user_types.field_types,
    keyspace_user_types.user_types_json
from user_types
inner join keyspace_user_types
    on user_types.keyspace_name = keyspace_user_types.keyspace_name
