{% macro cdc_image_columns(columns_described) -%}
    {#- A subquery of the static and regular columns (of `columns_described`:
        `int_base_columns_described`) of each schema version that the log has:
        the columns an image row shows (int_log_images) and whose values it carries
        (int_image_column_values). -#}
    (
        select * from {{ columns_described }}
        where kind in ('static', 'regular') and is_logged
    )
{%- endmacro %}


{% macro cdc_elements_json(elements, is_keyed) -%}
    {#- A non-frozen collection's log value from its elements, an array of
        struct(element_position, element_key, value) (sorted here by position):
        {"map": [[k, v], ...]} for maps and lists (keyed), {"set": [e, ...]} for sets. -#}
    concat(
        if({{ is_keyed }}, '{"map":[', '{"set":['),
        array_join(
            transform(
                array_sort({{ elements }}),
                e -> if({{ is_keyed }}, concat('[', e.element_key, ',', e.value, ']'), e.element_key)
            ),
            ','
        ),
        ']}'
    )
{%- endmacro %}


{% macro cdc_user_type_json(field_names, field_values) -%}
    {#- A user type's log value with every field: {"udt": {"f": v, ...}}, null for the fields
        missing from `field_values` (a map from field index to JSON value). -#}
    concat(
        '{"udt":{',
        array_join(
            transform(
                {{ field_names }},
                (field_name, i) -> concat(
                    {{ cdc_json_name('field_name') }},
                    ':',
                    coalesce(try_element_at({{ field_values }}, i), 'null')
                )
            ),
            ','
        ),
        '}}'
    )
{%- endmacro %}


{% macro cdc_json_name(name) -%}
    {#- A column or field name as a JSON string: quoted, `"` and `\` escaped (names hold no
        control characters). Not to_json(array(name)): inside a lambda it raised Jackson's
        "Current context not Array but Array" once, on a million-write build (Spark 3.5.9). -#}
    concat('"', regexp_replace({{ name }}, '(["\\\\])', '\\\\$1'), '"')
{%- endmacro %}
