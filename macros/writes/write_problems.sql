{% macro cdc_write_problem(source, keyspace_name='null', table_name='null', partition_key='null', atom_kind='null',
                           column_name='null', problem='null') -%}
    {#- A candidate for a write's first problem (int_writes_validated), as a struct whose order is
        the order candidates are chosen in: by `source` (0: an atom, 1: a partition key, 2: the
        write as a whole), then keyspace, table, partition key, atom kind, column and text. -#}
    named_struct(
        'source', {{ source }},
        'keyspace_name', cast({{ keyspace_name }} as string),
        'table_name', cast({{ table_name }} as string),
        'partition_key', cast({{ partition_key }} as string),
        'atom_kind', cast({{ atom_kind }} as string),
        'column_name', cast({{ column_name }} as string),
        'problem', cast({{ problem }} as string)
    )
{%- endmacro %}
