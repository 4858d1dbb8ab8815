{#- CQL type text -> Spark SQL, for the per-table log tables. The mapping (documented in
    models/marts/scylla_cdc_logs/_scylla_cdc_logs__docs.md):
      int, smallint, tinyint, bigint, float, double, boolean -> the same Spark type
      counter -> bigint; varint -> decimal(38,0); decimal -> decimal(38,18)
      text, varchar, ascii, uuid, timeuuid, inet, duration -> string
      blob -> binary; timestamp -> timestamp; date -> date; time -> bigint (ns since midnight)
      list<T>, set<T> -> array<T>; map<K, V> -> map<K, V>; tuple<A, B> -> struct<f0: A, f1: B>
      a user type -> struct<field: type, ...> (`udts`: type name -> [(field, type), ...])
    Values arrive as JSON text (the input contract's encoding). -#}

{% macro cql_type_arguments(type_text) -%}
    {#- 'map<int, frozen<list<text>>>' -> ['int', 'frozen<list<text>>'] (top-level split) -#}
    {%- set inner = type_text[type_text.index('<') + 1:-1] -%}
    {%- set ns = namespace(depth=0, current='', parts=[]) -%}
    {%- for ch in inner -%}
        {%- if ch == '<' -%}{%- set ns.depth = ns.depth + 1 -%}{%- endif -%}
        {%- if ch == '>' -%}{%- set ns.depth = ns.depth - 1 -%}{%- endif -%}
        {%- if ch == ',' and ns.depth == 0 -%}
            {%- set ns.parts = ns.parts + [ns.current | trim] -%}
            {%- set ns.current = '' -%}
        {%- else -%}
            {%- set ns.current = ns.current ~ ch -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(ns.parts + [ns.current | trim]) }}
{%- endmacro %}


{% macro cql_unfrozen(type_text) -%}
    {%- set t = type_text | trim | lower -%}
    {%- if t.startswith('frozen<') -%}{{ return(t[7:-1] | trim) }}{%- endif -%}
    {{ return(t) }}
{%- endmacro %}


{% macro cql_to_spark_type(type_text, udts={}) -%}
    {%- set t = cql_unfrozen(type_text) -%}
    {%- set scalars = {
        'int': 'int', 'smallint': 'smallint', 'tinyint': 'tinyint', 'bigint': 'bigint',
        'counter': 'bigint', 'varint': 'decimal(38,0)', 'decimal': 'decimal(38,18)',
        'float': 'float', 'double': 'double', 'boolean': 'boolean',
        'text': 'string', 'varchar': 'string', 'ascii': 'string', 'uuid': 'string',
        'timeuuid': 'string', 'inet': 'string', 'duration': 'string',
        'blob': 'binary', 'timestamp': 'timestamp', 'date': 'date', 'time': 'bigint'
    } -%}
    {%- if t in scalars -%}{{ return(scalars[t]) }}{%- endif -%}
    {%- set args = cql_type_arguments(t) if '<' in t else [] -%}
    {%- if t.startswith('list<') or t.startswith('set<') -%}
        {{ return('array<' ~ cql_to_spark_type(args[0], udts) ~ '>') }}
    {%- elif t.startswith('map<') -%}
        {{ return('map<' ~ cql_to_spark_type(args[0], udts) ~ ',' ~ cql_to_spark_type(args[1], udts) ~ '>') }}
    {%- elif t.startswith('tuple<') -%}
        {%- set fields = [] -%}
        {%- for a in args -%}
            {%- do fields.append('f' ~ loop.index0 ~ ':' ~ cql_to_spark_type(a, udts)) -%}
        {%- endfor -%}
        {{ return('struct<' ~ fields | join(',') ~ '>') }}
    {%- elif t in udts -%}
        {%- set fields = [] -%}
        {%- for f in udts[t] -%}
            {%- do fields.append('`' ~ f[0] ~ '`:' ~ cql_to_spark_type(f[1], udts)) -%}
        {%- endfor -%}
        {{ return('struct<' ~ fields | join(',') ~ '>') }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error("CQL type '" ~ type_text ~ "' has no Spark mapping yet") }}
{%- endmacro %}


{% macro cql_value_from_text(expr, type_text, depth=0, udts={}) -%}
    {#- Spark expression converting `expr` -- a value in the input contract's JSON encoding
        with the outer quotes of a JSON string removed -- to the column's Spark type. -#}
    {%- set t = cql_unfrozen(type_text) -%}
    {%- set e = 'e' ~ depth -%}
    {%- if t in ('text', 'varchar', 'ascii', 'uuid', 'timeuuid', 'inet', 'duration') -%}
        {{ expr }}
    {%- elif t == 'blob' -%}
        unhex(substr({{ expr }}, 3))
    {%- elif t == 'timestamp' -%}
        timestamp_millis(cast({{ expr }} as bigint))
    {%- elif t.startswith('list<') or t.startswith('set<') -%}
        {%- set tag = 'list' if t.startswith('list<') else 'set' -%}
        transform(from_json({{ expr }}, 'struct<{{ tag }}: array<string>>').{{ tag }},
            {{ e }} -> {{ cql_value_from_text(e, cql_type_arguments(t)[0], depth + 1, udts) }})
    {%- elif t.startswith('map<') -%}
        {%- set args = cql_type_arguments(t) -%}
        map_from_entries(transform(from_json({{ expr }}, 'struct<map: array<array<string>>>').map,
            {{ e }} -> struct(
                {{ cql_value_from_text(e ~ '[0]', args[0], depth + 1, udts) }},
                {{ cql_value_from_text(e ~ '[1]', args[1], depth + 1, udts) }})))
    {%- elif t.startswith('tuple<') -%}
        {%- set args = cql_type_arguments(t) -%}
        {#- a null value stays null (not a struct of nulls) -#}
        if({{ expr }} is null, null, named_struct(
        {%- for a in args %}
            'f{{ loop.index0 }}',
            {{ cql_value_from_text('from_json(' ~ expr ~ ", 'struct<tuple: array<string>>').tuple[" ~ loop.index0 ~ ']', a, depth + 1, udts) }}
            {%- if not loop.last %},{% endif %}
        {%- endfor %}))
    {%- elif t in udts -%}
        {#- {"udt": {"field": value, ...}}; a null value stays null -#}
        if({{ expr }} is null, null, named_struct(
        {%- for f in udts[t] %}
            '{{ f[0] }}',
            {{ cql_value_from_text('from_json(' ~ expr ~ ", 'struct<udt: map<string, string>>').udt['" ~ f[0] ~ "']", f[1], depth + 1, udts) }}
            {%- if not loop.last %},{% endif %}
        {%- endfor %}))
    {%- else -%}
        cast({{ expr }} as {{ cql_to_spark_type(t, udts) }})
    {%- endif -%}
{%- endmacro %}


{% macro cql_value_from_json(json_expr, type_text, udts={}) -%}
    {#- A JSON-encoded value (with the quotes of a JSON string) to the column's Spark type. -#}
    {{ cql_value_from_text("from_json(concat('{\"v\":', " ~ json_expr ~ ", '}'), 'v string').v", type_text, 0, udts) }}
{%- endmacro %}


{% macro cql_is_multi_cell(type_text, udts={}) -%}
    {#- A non-frozen collection, or a non-frozen user type (its bare name). -#}
    {%- set t = type_text | trim | lower -%}
    {{ return(t.startswith('list<') or t.startswith('set<') or t.startswith('map<') or t in udts) }}
{%- endmacro %}


{% macro cql_text_as_json(expr, type_text) -%}
    {#- A value in its text form (JSON with a string's quotes removed, as `cdc_json_text` gives
        it) back to the input contract's JSON: the types written as JSON strings get quotes. -#}
    {%- set json_strings = ['text', 'varchar', 'ascii', 'uuid', 'timeuuid', 'inet', 'duration', 'blob', 'date'] -%}
    {%- if cql_unfrozen(type_text) in json_strings -%}
        regexp_extract(to_json(array({{ expr }})), '^\\[(.*)\\]$', 1)
    {%- else -%}
        {{ expr }}
    {%- endif -%}
{%- endmacro %}
