{#- The checks of the input contract's JSON values that SQL can make alone: a fast path in
    front of the cdc_value_error UDF, equal to it (tests/python/test_value_checks_sql.py). -#}

{% macro cdc_value_is_plain(value, cql_type) -%}
    {#- SQL condition: `value` is a JSON text that is certainly a valid value of `cql_type`, for
        the scalar types whose JSON SQL can read as the UDF does (integers, booleans, strings,
        uuids, blobs, decimals and floats without an exponent); false otherwise (the UDF then
        decides, and names the problem). Never true for a value the UDF would refuse. -#}
    coalesce(case
        when {{ cql_type }} = 'tinyint' then {{ value }} rlike '^-?(0|[1-9][0-9]{0,2})$'
            and cast({{ value }} as int) between -128 and 127
        when {{ cql_type }} = 'smallint' then {{ value }} rlike '^-?(0|[1-9][0-9]{0,4})$'
            and cast({{ value }} as int) between -32768 and 32767
        when {{ cql_type }} = 'int' then {{ value }} rlike '^-?(0|[1-9][0-9]{0,9})$'
            and cast({{ value }} as bigint) between -2147483648 and 2147483647
        when {{ cql_type }} in ('bigint', 'counter', 'timestamp') then {{ value }} rlike '^-?(0|[1-9][0-9]{0,17})$'
        when {{ cql_type }} = 'varint' then {{ value }} rlike '^-?(0|[1-9][0-9]{0,999})$'
        when {{ cql_type }} = 'decimal' then {{ value }} rlike '^-?(0|[1-9][0-9]{0,99})(\\.[0-9]{1,99})?$'
        when {{ cql_type }} in ('double', 'float') then {{ value }} rlike '^-?(0|[1-9][0-9]{0,14})(\\.[0-9]{1,15})?$'
        when {{ cql_type }} = 'boolean' then {{ value }} in ('true', 'false')
        when {{ cql_type }} in ('text', 'varchar') then {{ value }} rlike '^"[^"\\\\\\p{Cntrl}]*"$'
        when {{ cql_type }} = 'ascii' then {{ value }} rlike '^"[ !#-\\[\\]-~]*"$'
        when {{ cql_type }} = 'uuid' then {{ value }} rlike '^"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"$'
        when {{ cql_type }} = 'timeuuid' then {{ value }} rlike '^"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-1[0-9a-fA-F]{3}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"$'
        when {{ cql_type }} = 'blob' then {{ value }} rlike '^"0[xX]([0-9a-fA-F]{2})*"$'
        else false
    end, false)
{%- endmacro %}


{% macro cdc_checked_value_error(value, cql_type, user_types_json) -%}
    {#- The problem of a JSON value of a CQL type (null: none), as the cdc_value_error UDF gives
        it; the UDF sees only the values the fast path (`cdc_value_is_plain`) cannot vouch for,
        the others reach it as nulls. -#}
    {%- set plain = cdc_value_is_plain(value, cql_type) -%}
    {{ cdc_udf('cdc_value_error') }}(
        if({{ plain }}, null, {{ value }}), if({{ plain }}, null, {{ cql_type }}), if({{ plain }}, null, {{ user_types_json }})
    )
{%- endmacro %}


{% macro cdc_checked_key_error(key, allow_prefix) -%}
    {#- The problem of a clustering key or range bound (null: none), as the cdc_key_error UDF gives
        it against the table's clustering columns (`clustering_key_names`, `clustering_key_types`
        of the row); a null key reaches it without the table's columns (nothing to send). -#}
    {{ cdc_udf('cdc_key_error') }}(
        {{ key }},
        if({{ key }} is null, null, clustering_key_names),
        if({{ key }} is null, null, clustering_key_types),
        {{ allow_prefix }}
    )
{%- endmacro %}
